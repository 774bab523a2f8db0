//! conv1d, conv2d, conv_transpose2d, max_pool2d, avg_pool2d and
//! adaptive_avg_pool2d, values
//! and gradients (input, weight, bias), against PyTorch
//! (`tests/data/conv_cases.json`, written by `tests/data/gen_conv_data.py`):
//! random shapes, strides, paddings ("same", "valid", numbers), dilations
//! and groups, in f32 and f64, each on a contiguous input and on a
//! non-contiguous view of the same values; and PyTorch's error messages.
//!
//! The reference is computed in float64 from float32-rounded inputs; the
//! error is measured relative to the largest reference element
//! (normwise), at most 1e-5 for f32 and 1e-12 for f64.

mod common;

use common::json_tensor::num;
use serde_json::Value;
use shaped::autograd::{Gradients, Var};
use shaped::element::Float;
use shaped::ops::conv::{ConvOptions, ConvTransposeOptions, Padding, PoolOptions};
use shaped::shape::Shape;
use shaped::{Dyn, Tensor};

type T4<T> = Tensor<T, (Dyn, Dyn, Dyn, Dyn)>;
type T3<T> = Tensor<T, (Dyn, Dyn, Dyn)>;
type T1<T> = Tensor<T, (Dyn,)>;
type V4<T> = Var<T, (Dyn, Dyn, Dyn, Dyn)>;

fn fixture() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/conv_cases.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn dims(v: &Value) -> Vec<usize> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}

fn data<T: Float>(v: &Value) -> Vec<T> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| <T as shaped::element::Numeric>::from_f64(num(x)))
        .collect()
}

fn t4<T: Float>(v: &Value, strided: bool) -> T4<T> {
    let t = T4::<T>::try_from_vec(data(v), &dims(&v["shape"])).unwrap();
    // The same values, with the last two axes swapped in memory.
    if strided {
        t.transpose::<2, 3>().contiguous().transpose::<2, 3>()
    } else {
        t
    }
}

fn t3<T: Float>(v: &Value, strided: bool) -> T3<T> {
    let t = T3::<T>::try_from_vec(data(v), &dims(&v["shape"])).unwrap();
    if strided {
        t.transpose::<1, 2>().contiguous().transpose::<1, 2>()
    } else {
        t
    }
}

fn t1<T: Float>(v: &Value) -> T1<T> {
    T1::<T>::try_from_vec(data(v), &dims(&v["shape"])).unwrap()
}

/// `got` against the fixture's `want`, relative to its largest element.
#[track_caller]
fn close<T: Float>(got: &[T], want: &Value, tol: f64, what: &str) {
    close_at_scale(got, want, tol, what, 1e-30)
}

/// [`close`], relative to at least `floor`: a normalisation's input
/// gradient can be much smaller than the terms it cancels (the upstream
/// gradient), and float32 rounds those terms (PyTorch's own float32
/// result is as far from the float64 one).
#[track_caller]
fn close_at_scale<T: Float>(got: &[T], want: &Value, tol: f64, what: &str, floor: f64) {
    let want: Vec<f64> = want["data"].as_array().unwrap().iter().map(num).collect();
    assert_eq!(got.len(), want.len(), "{what}: element count");
    let scale = want.iter().fold(floor, |m, v| m.max(v.abs()));
    let err = got.iter().zip(&want).fold(0f64, |m, (g, w)| {
        m.max((shaped::element::Numeric::to_f64(*g) - w).abs())
    });
    assert!(
        err <= tol * scale,
        "{what}: max error {err:e} relative to {scale:e} exceeds {tol:e}"
    );
}

/// An operation's input, weight and bias (if any).
type Params<'a, T, SX, SW> = (&'a Var<T, SX>, &'a Var<T, SW>, Option<&'a Var<T, (Dyn,)>>);

/// The gradients of the input, the weight and the bias (where there is
/// one) against the fixture's `gx`, `gw`, `gb`.
#[track_caller]
fn close_grads<T: Float, SX: Shape, SW: Shape>(
    g: &Gradients<T>,
    (x, w, b): Params<'_, T, SX, SW>,
    c: &Value,
    tol: f64,
    op: &str,
) {
    close(
        &g.wrt(x).unwrap().to_vec(),
        &c["gx"],
        tol,
        &format!("{op} grad input"),
    );
    close(
        &g.wrt(w).unwrap().to_vec(),
        &c["gw"],
        tol,
        &format!("{op} grad weight"),
    );
    if let Some(b) = b {
        close(
            &g.wrt(b).unwrap().to_vec(),
            &c["gb"],
            tol,
            &format!("{op} grad bias"),
        );
    }
}

fn arr<const R: usize>(v: &Value) -> [usize; R] {
    dims(v).try_into().unwrap()
}

fn conv_options<const R: usize>(c: &Value) -> ConvOptions<R> {
    let padding = match &c["padding"] {
        Value::String(s) => Padding::try_from(s.as_str()).unwrap(),
        p => Padding::Explicit(arr(p)),
    };
    ConvOptions {
        stride: arr(&c["stride"]),
        padding,
        dilation: arr(&c["dilation"]),
        groups: c["groups"].as_u64().unwrap() as usize,
    }
}

fn pool_options(c: &Value) -> PoolOptions<2> {
    PoolOptions {
        kernel: arr(&c["kernel"]),
        stride: arr(&c["stride"]),
        padding: arr(&c["padding"]),
        dilation: arr(&c["dilation"]),
        count_include_pad: c["count_include_pad"].as_bool().unwrap_or(true),
        ceil_mode: c["ceil_mode"].as_bool().unwrap_or(false),
    }
}

fn conv2d_case<T: Float>(c: &Value, strided: bool, tol: f64) {
    let opts = conv_options::<2>(c);
    let x = Var::param(t4::<T>(&c["x"], strided));
    let w = Var::param(t4::<T>(&c["w"], strided));
    let b = c.get("b").map(|b| Var::param(t1::<T>(b)));
    let y: Var<T, (Dyn, Dyn, Dyn, Dyn)> = x.try_conv2d(&w, b.as_ref(), &opts).unwrap();
    close(&y.value().to_vec(), &c["y"], tol, "conv2d");
    let plain: T4<T> = x
        .value()
        .try_conv2d(w.value(), b.as_ref().map(Var::value), &opts)
        .unwrap();
    close(&plain.to_vec(), &c["y"], tol, "Tensor::conv2d");
    let seed = Var::constant(t4::<T>(&c["seed"], false));
    let g = y.try_mul(&seed).unwrap().sum().backward();
    close_grads(&g, (&x, &w, b.as_ref()), c, tol, "conv2d");
}

fn conv1d_case<T: Float>(c: &Value, strided: bool, tol: f64) {
    let opts = conv_options::<1>(c);
    let x = Var::param(t3::<T>(&c["x"], strided));
    let w = Var::param(t3::<T>(&c["w"], strided));
    let b = c.get("b").map(|b| Var::param(t1::<T>(b)));
    let y: Var<T, (Dyn, Dyn, Dyn)> = x.try_conv1d(&w, b.as_ref(), &opts).unwrap();
    close(&y.value().to_vec(), &c["y"], tol, "conv1d");
    let plain: T3<T> = x
        .value()
        .try_conv1d(w.value(), b.as_ref().map(Var::value), &opts)
        .unwrap();
    close(&plain.to_vec(), &c["y"], tol, "Tensor::conv1d");
    let seed = Var::constant(t3::<T>(&c["seed"], false));
    let g = y.try_mul(&seed).unwrap().sum().backward();
    close_grads(&g, (&x, &w, b.as_ref()), c, tol, "conv1d");
}

fn transposed_case<T: Float>(c: &Value, strided: bool, tol: f64) {
    let opts = ConvTransposeOptions {
        stride: arr(&c["stride"]),
        padding: arr(&c["padding"]),
        output_padding: arr(&c["output_padding"]),
        dilation: arr(&c["dilation"]),
        groups: c["groups"].as_u64().unwrap() as usize,
    };
    let x = Var::param(t4::<T>(&c["x"], strided));
    let w = Var::param(t4::<T>(&c["w"], strided));
    let b = c.get("b").map(|b| Var::param(t1::<T>(b)));
    let y: V4<T> = x.try_conv_transpose2d(&w, b.as_ref(), &opts).unwrap();
    close(&y.value().to_vec(), &c["y"], tol, "conv_transpose2d");
    let plain: T4<T> = x
        .value()
        .try_conv_transpose2d(w.value(), b.as_ref().map(Var::value), &opts)
        .unwrap();
    close(&plain.to_vec(), &c["y"], tol, "Tensor::conv_transpose2d");
    let seed = Var::constant(t4::<T>(&c["seed"], false));
    let g = y.try_mul(&seed).unwrap().sum().backward();
    close_grads(&g, (&x, &w, b.as_ref()), c, tol, "conv_transpose2d");
}

fn pool_case<T: Float>(c: &Value, strided: bool, tol: f64) {
    let op = c["op"].as_str().unwrap();
    let x = Var::param(t4::<T>(&c["x"], strided));
    let (y, plain): (V4<T>, T4<T>) = match op {
        "max_pool2d" => {
            let o = pool_options(c);
            (
                x.try_max_pool2d(&o).unwrap(),
                x.value().try_max_pool2d(&o).unwrap(),
            )
        }
        "avg_pool2d" => {
            let o = pool_options(c);
            (
                x.try_avg_pool2d(&o).unwrap(),
                x.value().try_avg_pool2d(&o).unwrap(),
            )
        }
        _ => {
            let out = arr(&c["output_size"]);
            (
                x.try_adaptive_avg_pool2d(out).unwrap(),
                x.value().try_adaptive_avg_pool2d(out).unwrap(),
            )
        }
    };
    close(&y.value().to_vec(), &c["y"], tol, op);
    close(&plain.to_vec(), &c["y"], tol, op);
    let seed = Var::constant(t4::<T>(&c["seed"], false));
    let g = y.try_mul(&seed).unwrap().sum().backward();
    close(&g.wrt(&x).unwrap().to_vec(), &c["gx"], tol, op);
}

fn run_all<T: Float>(tol: f64) {
    let f = fixture();
    let cases = f["cases"].as_array().unwrap();
    let mut seen = [0usize; 4];
    for strided in [false, true] {
        for (i, c) in cases.iter().enumerate() {
            let run = std::panic::catch_unwind(|| match c["op"].as_str().unwrap() {
                "conv2d" => conv2d_case::<T>(c, strided, tol),
                "conv1d" => conv1d_case::<T>(c, strided, tol),
                "conv_transpose2d" => transposed_case::<T>(c, strided, tol),
                _ => pool_case::<T>(c, strided, tol),
            });
            if let Err(e) = run {
                panic!("case {i} ({}, strided {strided}): {e:?}", c["op"]);
            }
            seen[match c["op"].as_str().unwrap() {
                "conv2d" => 0,
                "conv1d" => 1,
                "conv_transpose2d" => 2,
                _ => 3,
            }] += 1;
        }
    }
    assert!(seen.iter().all(|&n| n >= 20), "cases per kind: {seen:?}");
}

#[test]
fn f64_values_and_gradients_match_pytorch() {
    run_all::<f64>(1e-12);
}

#[test]
fn f32_values_and_gradients_match_pytorch() {
    run_all::<f32>(1e-5);
}

fn error_of(e: &Value) -> String {
    let x = dims(&e["x"]);
    let opt = |k: &str| e.get(k).filter(|v| !v.is_null());
    let conv = |r: usize| {
        let mut o = ConvOptions::<2>::new();
        if let Some(s) = opt("stride") {
            o = o.stride(s.as_u64().unwrap() as usize);
        }
        if let Some(d) = opt("dilation") {
            o = o.dilation(d.as_u64().unwrap() as usize);
        }
        if let Some(g) = opt("groups") {
            o = o.groups(g.as_u64().unwrap() as usize);
        }
        if let Some(p) = opt("padding") {
            o.padding = match p.as_str() {
                Some(s) => Padding::try_from(s).unwrap(),
                None => Padding::Explicit([p.as_u64().unwrap() as usize; 2]),
            };
        }
        let _ = r;
        o
    };
    let w = opt("w").map(dims);
    let b = opt("b").map(|b| T1::<f32>::try_zeros(&dims(b)).unwrap());
    match e["op"].as_str().unwrap() {
        "conv_transpose2d" => {
            let xt = T4::<f32>::try_zeros(&x).unwrap();
            let wt = T4::<f32>::try_zeros(&w.unwrap()).unwrap();
            let get =
                |k: &str, default: usize| opt(k).map_or(default, |v| v.as_u64().unwrap() as usize);
            let o = ConvTransposeOptions::new()
                .stride(get("stride", 1))
                .output_padding(get("output_padding", 0))
                .groups(get("groups", 1));
            xt.try_conv_transpose2d::<_, _, _, _, Dyn, Dyn>(&wt, b.as_ref(), &o)
                .unwrap_err()
                .to_string()
        }
        "conv2d" => {
            let xt = T4::<f32>::try_zeros(&x).unwrap();
            let wt = T4::<f32>::try_zeros(&w.unwrap()).unwrap();
            xt.try_conv2d::<_, _, _, _, Dyn, Dyn>(&wt, b.as_ref(), &conv(2))
                .unwrap_err()
                .to_string()
        }
        "conv1d" => {
            let xt = T3::<f32>::try_zeros(&x).unwrap();
            let wt = T3::<f32>::try_zeros(&w.unwrap()).unwrap();
            let o2 = conv(1);
            let o = ConvOptions::<1> {
                stride: [o2.stride[1]],
                padding: match o2.padding {
                    Padding::Explicit(p) => Padding::Explicit([p[1]]),
                    Padding::Same => Padding::Same,
                    Padding::Valid => Padding::Valid,
                },
                dilation: [o2.dilation[1]],
                groups: o2.groups,
            };
            xt.try_conv1d::<_, _, _, Dyn>(&wt, b.as_ref(), &o)
                .unwrap_err()
                .to_string()
        }
        "adaptive_avg_pool2d" => {
            let xt = T4::<f32>::try_zeros(&x).unwrap();
            xt.try_adaptive_avg_pool2d::<Dyn, Dyn>(arr(&e["output_size"]))
                .unwrap_err()
                .to_string()
        }
        op => {
            let k = e["kernel_size"].as_u64().unwrap() as usize;
            let mut o = PoolOptions::<2>::new(k);
            if let Some(s) = opt("stride") {
                o = o.stride(s.as_u64().unwrap() as usize);
            }
            if let Some(p) = opt("padding") {
                o = o.padding(p.as_u64().unwrap() as usize);
            }
            if let Some(d) = opt("dilation") {
                o = o.dilation(d.as_u64().unwrap() as usize);
            }
            let xt = T4::<f32>::try_zeros(&x).unwrap();
            let r = if op == "max_pool2d" {
                xt.try_max_pool2d::<Dyn, Dyn>(&o)
            } else {
                xt.try_avg_pool2d::<Dyn, Dyn>(&o)
            };
            r.unwrap_err().to_string()
        }
    }
}

#[test]
fn shape_errors_have_pytorchs_words() {
    let f = fixture();
    for e in f["errors"].as_array().unwrap() {
        assert_eq!(error_of(e), e["message"].as_str().unwrap(), "{e}");
    }
}

#[test]
fn an_empty_transposed_output_is_an_error() {
    // PyTorch's oneDNN path reports this case with an internal message
    // ("could not construct a memory descriptor"); its other kernels with
    // this one.
    let x = T4::<f32>::try_zeros(&[2, 3, 1, 1]).unwrap();
    let w = T4::<f32>::try_zeros(&[3, 8, 1, 1]).unwrap();
    let o = ConvTransposeOptions::new().padding(1);
    let e = x
        .try_conv_transpose2d::<Dyn, _, _, _, Dyn, Dyn>(&w, None, &o)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Given input size per channel: (1 x 1). Calculated output size per channel: (-1 x -1). \
         Output size is too small"
    );
}

#[test]
fn the_gradient_checks_see_the_layers_errors() {
    // The Var forms report the same errors as the tensor forms.
    let x = Var::param(T4::<f64>::try_zeros(&[2, 4, 5, 5]).unwrap());
    let w = Var::param(T4::<f64>::try_zeros(&[8, 3, 3, 3]).unwrap());
    let e = x
        .try_conv2d::<_, _, _, _, Dyn, Dyn>(&w, None, &ConvOptions::new())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "Given groups=1, weight of size [8, 3, 3, 3], expected input[2, 4, 5, 5] to have 3 \
         channels, but got 4 channels instead"
    );
}

#[test]
fn empty_batches_give_empty_outputs_and_gradients() {
    let x = Var::param(T4::<f32>::try_zeros(&[0, 3, 5, 5]).unwrap());
    let w = Var::param(T4::<f32>::try_ones(&[4, 3, 3, 3]).unwrap());
    let y: Var<f32, (Dyn, Dyn, Dyn, Dyn)> = x
        .try_conv2d(&w, None, &ConvOptions::new().padding(1))
        .unwrap();
    assert_eq!(y.dims(), &[0, 4, 5, 5]);
    let g = y.sum().backward();
    assert_eq!(g.wrt(&x).unwrap().dims(), &[0, 3, 5, 5]);
    assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![0.; 108]);
}

#[test]
fn an_expanded_input_is_read_through_its_zero_strides() {
    // (1, 1, 1, 1) broadcast to (2, 3, 4, 4): every window sums ones.
    let one = Tensor::<f64, shaped::Shape![1, 1, 1, 1]>::ones();
    let x: T4<f64> = one.expand(&[2, 3, 4, 4]).unwrap();
    assert_eq!(x.strides(), &[0, 0, 0, 0]);
    let w = T4::<f64>::try_ones(&[1, 3, 2, 2]).unwrap();
    let y: T4<f64> = x.try_conv2d(&w, None, &ConvOptions::new()).unwrap();
    assert_eq!(y.to_vec(), vec![12.; 18]);
}

fn dyn_t<T: Float>(v: &Value) -> Tensor<T, shaped::DynRank> {
    Tensor::try_from_vec(data(v), &dims(&v["shape"])).unwrap()
}

fn norm_case<T: Float>(c: &Value, tol: f64) {
    let seed_max = c["seed"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .fold(0f64, |m, v| m.max(num(v).abs()));
    let x = Var::param(dyn_t::<T>(&c["x"]));
    let (w, b) = (t1::<T>(&c["w"]), t1::<T>(&c["b"]));
    let seed = Var::constant(dyn_t::<T>(&c["seed"]));
    if c["op"] == "batch_norm" {
        let mut bn = shaped::nn::BatchNorm::from_tensors(w, b);
        bn.running_mean = t1::<T>(&c["running_mean"]);
        bn.running_var = t1::<T>(&c["running_var"]);
        let y = bn.try_forward(&x).unwrap();
        // A second training step on 2x.
        let x2 = Var::constant(x.value().try_add(x.value()).unwrap());
        bn.try_forward(&x2).unwrap();
        close(
            &bn.running_mean.to_vec(),
            &c["running_mean_after"],
            tol,
            "running_mean",
        );
        close(
            &bn.running_var.to_vec(),
            &c["running_var_after"],
            tol,
            "running_var",
        );
        bn.eval();
        let ye = bn.try_forward(&Var::constant(x.value().share())).unwrap();
        close(&ye.value().to_vec(), &c["y_eval"], tol, "batch_norm eval");
        close(&y.value().to_vec(), &c["y"], tol, "batch_norm");
        let g = y.try_mul(&seed).unwrap().sum().backward();
        let gx = g.wrt(&x).unwrap().to_vec();
        close_at_scale(&gx, &c["gx"], tol, "batch_norm grad input", seed_max);
        close(
            &g.wrt(&bn.weight).unwrap().to_vec(),
            &c["gw"],
            tol,
            "batch_norm grad weight",
        );
        close(
            &g.wrt(&bn.bias).unwrap().to_vec(),
            &c["gb"],
            tol,
            "batch_norm grad bias",
        );
    } else {
        let groups = c["groups"].as_u64().unwrap() as usize;
        let gn = shaped::nn::GroupNorm::from_tensors(groups, w, b);
        let y = gn.try_forward(&x).unwrap();
        close(&y.value().to_vec(), &c["y"], tol, "group_norm");
        let g = y.try_mul(&seed).unwrap().sum().backward();
        let gx = g.wrt(&x).unwrap().to_vec();
        close_at_scale(&gx, &c["gx"], tol, "group_norm grad input", seed_max);
        close(
            &g.wrt(&gn.weight).unwrap().to_vec(),
            &c["gw"],
            tol,
            "group_norm grad weight",
        );
        close(
            &g.wrt(&gn.bias).unwrap().to_vec(),
            &c["gb"],
            tol,
            "group_norm grad bias",
        );
    }
}

#[test]
fn batch_norm_and_group_norm_match_pytorch() {
    let f = fixture();
    let norms = f["norms"].as_array().unwrap();
    assert!(norms.len() >= 16);
    for (i, c) in norms.iter().enumerate() {
        for (tol, f64_run) in [(1e-12, true), (1e-5, false)] {
            let run = std::panic::catch_unwind(|| {
                if f64_run {
                    norm_case::<f64>(c, tol)
                } else {
                    norm_case::<f32>(c, tol)
                }
            });
            if let Err(e) = run {
                panic!("norm case {i} ({}, f64 {f64_run}): {e:?}", c["op"]);
            }
        }
    }
}

#[test]
fn depthwise_kernels_handle_empty_and_expanded_inputs() {
    // Depthwise (groups = channels, 2 filters each) on zero-stride input:
    // every window of ones sums its taps.
    let one = Tensor::<f64, shaped::Shape![1, 1, 1, 1]>::ones();
    let x: T4<f64> = one.expand(&[2, 3, 5, 5]).unwrap();
    let w = Var::param(
        T4::<f64>::try_from_vec((0..54).map(f64::from).collect(), &[6, 1, 3, 3]).unwrap(),
    );
    let xv = Var::param(x);
    let y: Var<f64, (Dyn, Dyn, Dyn, Dyn)> = xv
        .try_conv2d(&w, None, &ConvOptions::new().groups(3))
        .unwrap();
    let v = y.value().to_vec();
    for (o, plane) in v.chunks(9).enumerate() {
        let taps: f64 = (0..9).map(|k| ((o % 6) * 9 + k) as f64).sum();
        assert!(plane.iter().all(|&p| p == taps), "output plane {o}");
    }
    let g = y.sum().backward();
    // Each tap sees 2 samples x 9 windows of ones.
    assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![18.; 54]);
    // An empty batch.
    let x = Var::param(T4::<f32>::try_zeros(&[0, 3, 5, 5]).unwrap());
    let w = Var::param(T4::<f32>::try_ones(&[3, 1, 3, 3]).unwrap());
    let y: Var<f32, (Dyn, Dyn, Dyn, Dyn)> = x
        .try_conv2d(&w, None, &ConvOptions::new().padding(1).groups(3))
        .unwrap();
    assert_eq!(y.dims(), &[0, 3, 5, 5]);
    let g = y.sum().backward();
    assert_eq!(g.wrt(&x).unwrap().dims(), &[0, 3, 5, 5]);
    assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![0.; 27]);
}

/// A stride-1 depthwise convolution's geometry for the naive references:
/// a row-major `(n, c, h, w)` input, `mult` filters per channel of `kh x
/// kw` taps, padding `(ph, pw)` and dilation `(dh, dw)` on both sides.
#[derive(Clone, Copy)]
struct Depthwise {
    sizes: [usize; 4],
    kernel: [usize; 2],
    mult: usize,
    pad: [usize; 2],
    dil: [usize; 2],
}

impl Depthwise {
    /// `mult` filters of `k x k` taps, the same padding and dilation along
    /// both axes.
    fn square(sizes: [usize; 4], k: usize, mult: usize, pad: usize, dil: usize) -> Self {
        Depthwise {
            sizes,
            kernel: [k, k],
            mult,
            pad: [pad, pad],
            dil: [dil, dil],
        }
    }

    /// The output's spatial sizes.
    fn output(&self) -> [usize; 2] {
        let ([.., h, wd], [kh, kw]) = (self.sizes, self.kernel);
        let ([ph, pw], [dh, dw]) = (self.pad, self.dil);
        [h + 2 * ph - dh * (kh - 1), wd + 2 * pw - dw * (kw - 1)]
    }

    /// Calls `f(x, y, t)` for every product that reads the input (the
    /// padding adds nothing), with the row-major indices of the input
    /// element `x`, the output `y` and the tap `t`: by batch, output
    /// channel, output row and column, then the taps in row-major order.
    fn products(&self, mut f: impl FnMut(usize, usize, usize)) {
        let ([n, c, h, wd], [kh, kw], mult) = (self.sizes, self.kernel, self.mult);
        let ([ph, pw], [dh, dw], [oh, ow]) = (self.pad, self.dil, self.output());
        for b in 0..n {
            for o in 0..c * mult {
                for r in 0..oh {
                    for q in 0..ow {
                        for i in 0..kh {
                            for j in 0..kw {
                                let (y, z) = (
                                    (r + i * dh) as isize - ph as isize,
                                    (q + j * dw) as isize - pw as isize,
                                );
                                if y >= 0 && z >= 0 && (y as usize) < h && (z as usize) < wd {
                                    f(
                                        ((b * c + o / mult) * h + y as usize) * wd + z as usize,
                                        ((b * c * mult + o) * oh + r) * ow + q,
                                        (o * kh + i) * kw + j,
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The output of input `x` by taps `taps`, each output summed over its
    /// taps in row-major order.
    fn forward(&self, x: &[f64], taps: &[f64]) -> Vec<f64> {
        let [n, c, ..] = self.sizes;
        let [oh, ow] = self.output();
        let mut out = vec![0.0; n * c * self.mult * oh * ow];
        self.products(|xi, y, t| out[y] += taps[t] * x[xi]);
        out
    }

    /// The input gradient for the output gradient `g`: each output's
    /// gradient times each tap, added at the input position the tap read.
    fn grad_input(&self, taps: &[f64], g: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.sizes.iter().product()];
        self.products(|xi, y, t| out[xi] += g[y] * taps[t]);
        out
    }

    /// The weight gradient for the output gradient `g`: tap `(i, j)` of
    /// output channel `o` is `Σ g[b, o, r, q] · x[b, o / mult, r + i·dh -
    /// ph, q + j·dw - pw]` over the windows inside the input.
    fn grad_weight(&self, x: &[f64], g: &[f64]) -> Vec<f64> {
        let [kh, kw] = self.kernel;
        let mut out = vec![0.0; self.sizes[1] * self.mult * kh * kw];
        self.products(|xi, y, t| out[t] += g[y] * x[xi]);
        out
    }
}

/// One filter per channel of 3x3 taps, padding 1, over inputs of `sizes`.
fn padded_3x3(sizes: [usize; 4]) -> Depthwise {
    Depthwise::square(sizes, 3, 1, 1, 1)
}

/// `len` integers in `[-(m / 2), m / 2]`, `(i * step) % m - m / 2`: sums
/// of their products are exact in `f32` and `f64`.
fn small_integers(len: usize, step: usize, m: usize) -> Vec<f64> {
    (0..len)
        .map(|i| ((i * step) % m) as f64 - (m / 2) as f64)
        .collect()
}

/// The row-major `(n, c, h, w)` elements `x` stored with each plane's axes
/// swapped, viewed back as `(n, c, h, w)`: a transposed input.
fn transposed_planes(x: &[f64], [n, c, h, wd]: [usize; 4]) -> T4<f64> {
    let mut swapped = vec![0.0; x.len()];
    for p in 0..n * c {
        for r in 0..h {
            for q in 0..wd {
                swapped[(p * wd + q) * h + r] = x[(p * h + r) * wd + q];
            }
        }
    }
    T4::<f64>::try_from_vec(swapped, &[n, c, wd, h])
        .unwrap()
        .permute::<(Dyn, Dyn, Dyn, Dyn)>(&[0, 1, 3, 2])
        .unwrap()
}

/// The depthwise kernels of stride 1 (a padded copy of each plane, every
/// output's taps in one pass) for 3x3, 5x5 and 7x7 taps, with padding and
/// dilation, rows wider and narrower than a vector, two filters per
/// channel, on a contiguous and a transposed input, in f64 (exact: small
/// integers) and f32, against naive loops; an infinite tap keeps the
/// padding out of its sums (no `0 * inf`).
#[test]
fn depthwise_stride_one_matches_naive_loops() {
    for (k, pad, dil, h, wd) in [
        (3usize, 1usize, 1usize, 20usize, 37usize),
        (5, 2, 1, 9, 16),
        (7, 3, 2, 12, 13),
        (3, 0, 2, 18, 18),
        // Rows of several passes of chunks (64 and 90 outputs): whole
        // passes, and a last pass that repeats its last chunk.
        (3, 1, 1, 3, 64),
        (3, 1, 1, 4, 90),
    ] {
        let (n, c, mult) = (2, 3, 2);
        let xv = small_integers(n * c * h * wd, 7919, 17);
        let tv = small_integers(c * mult * k * k, 31, 7);
        let geometry = Depthwise::square([n, c, h, wd], k, mult, pad, dil);
        let want = geometry.forward(&xv, &tv);
        let opts = ConvOptions::new().padding(pad).dilation(dil).groups(c);
        let w = T4::<f64>::try_from_vec(tv.clone(), &[c * mult, 1, k, k]).unwrap();
        let x = T4::<f64>::try_from_vec(xv.clone(), &[n, c, h, wd]).unwrap();
        let got: T4<f64> = x.try_conv2d(&w, None, &opts).unwrap();
        assert_eq!(
            got.to_vec(),
            want,
            "{k}x{k}, padding {pad}, dilation {dil}, {h}x{wd}"
        );
        // The same input stored with its spatial axes swapped.
        let xt = transposed_planes(&xv, [n, c, h, wd]);
        let got: T4<f64> = xt.try_conv2d(&w, None, &opts).unwrap();
        assert_eq!(got.to_vec(), want, "transposed, {k}x{k}");
        let x32 = T4::<f32>::try_from_vec(xv.iter().map(|&v| v as f32).collect(), &[n, c, h, wd])
            .unwrap();
        let w32 =
            T4::<f32>::try_from_vec(tv.iter().map(|&v| v as f32).collect(), &[c * mult, 1, k, k])
                .unwrap();
        let got: T4<f32> = x32.try_conv2d(&w32, None, &opts).unwrap();
        let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        assert_eq!(got.to_vec(), want32, "f32, {k}x{k}");
    }
    // Padding along the rows only, wider than a run of 16 outputs: the
    // last row's padding runs past the padded plane's rows.
    let geometry = Depthwise {
        sizes: [1, 2, 5, 7],
        kernel: [3, 3],
        mult: 1,
        pad: [0, 20],
        dil: [1, 1],
    };
    let (xv, tv) = (small_integers(70, 7919, 17), small_integers(18, 31, 7));
    let x = T4::<f64>::try_from_vec(xv.clone(), &[1, 2, 5, 7]).unwrap();
    let w = T4::<f64>::try_from_vec(tv.clone(), &[2, 1, 3, 3]).unwrap();
    let opts = ConvOptions::new().paddings([0, 20]).groups(2);
    let got: T4<f64> = x.try_conv2d(&w, None, &opts).unwrap();
    assert_eq!(got.to_vec(), geometry.forward(&xv, &tv), "padding (0, 20)");
    // An infinite tap in the first channel's filter: its plane is
    // infinite wherever the tap meets a nonzero input, and never NaN from
    // the padding; the second channel's finite plane is unchanged by it.
    let (h, wd) = (6, 20);
    let xv = vec![1.0; 2 * h * wd];
    let mut tv = vec![1.0; 18];
    tv[0] = f64::INFINITY;
    let want = padded_3x3([1, 2, h, wd]).forward(&xv, &tv);
    let x = T4::<f64>::try_from_vec(xv, &[1, 2, h, wd]).unwrap();
    let w = T4::<f64>::try_from_vec(tv, &[2, 1, 3, 3]).unwrap();
    let got: T4<f64> = x
        .try_conv2d(&w, None, &ConvOptions::new().padding(1).groups(2))
        .unwrap();
    assert!(got.to_vec().iter().all(|v| !v.is_nan()));
    assert_eq!(got.to_vec(), want);
}

/// The weight and input gradients of stride-1 depthwise convolutions
/// (padded copies of the planes: each tap's products in whole vector runs,
/// and the input's gradient as the forward kernel with the taps turned)
/// for 3x3, 5x5 and 7x7 taps, with padding and dilation, rows shorter,
/// longer and not a multiple of a vector, one and two filters per channel,
/// on a contiguous and a transposed input, in f64 and f32 (both exact:
/// small integers), against naive loops; an infinite gradient at a corner
/// keeps the padding out of the weight's sums (no `0 * inf`): the taps
/// that meet it only in the padding stay finite; an infinite tap, out of
/// the input's.
#[test]
fn depthwise_stride_one_gradients_match_naive_loops() {
    /// The gradients of `x` and `w` for the output gradient `g`.
    fn grads<T: Float>(
        x: &V4<T>,
        w: &V4<T>,
        g: &[f64],
        opts: &ConvOptions<2>,
    ) -> (Vec<f64>, Vec<f64>) {
        let y: V4<T> = x.try_conv2d(w, None, opts).unwrap();
        let dims = y.value().dims().to_vec();
        let seed = T4::<T>::try_from_vec(
            g.iter()
                .map(|&v| shaped::element::Numeric::from_f64(v))
                .collect(),
            &dims,
        );
        let grads = y
            .try_mul(&Var::constant(seed.unwrap()))
            .unwrap()
            .sum()
            .backward();
        let f64s = |v: Vec<T>| {
            v.into_iter()
                .map(shaped::element::Numeric::to_f64)
                .collect()
        };
        (
            f64s(grads.wrt(x).unwrap().to_vec()),
            f64s(grads.wrt(w).unwrap().to_vec()),
        )
    }
    for ((k, pad, dil, h, wd), mult) in [
        (3usize, 1usize, 1usize, 20usize, 37usize),
        (5, 2, 1, 9, 16),
        (7, 3, 2, 12, 13),
        (3, 0, 2, 18, 18),
        (3, 1, 1, 5, 3),
        // Taps that meet only the padding (past a 4-wide input).
        (7, 6, 2, 5, 4),
    ]
    .into_iter()
    .flat_map(|case| [(case, 1), (case, 2)])
    {
        let (n, c) = (2, 3);
        let (oh, ow) = (h + 2 * pad - dil * (k - 1), wd + 2 * pad - dil * (k - 1));
        let xv = small_integers(n * c * h * wd, 7919, 17);
        let tv = small_integers(c * mult * k * k, 31, 7);
        let gv = small_integers(n * c * mult * oh * ow, 104_729, 13);
        let geometry = Depthwise::square([n, c, h, wd], k, mult, pad, dil);
        let want = (
            geometry.grad_input(&tv, &gv),
            geometry.grad_weight(&xv, &gv),
        );
        let opts = ConvOptions::new().padding(pad).dilation(dil).groups(c);
        let w = Var::param(T4::<f64>::try_from_vec(tv.clone(), &[c * mult, 1, k, k]).unwrap());
        let x = Var::param(T4::<f64>::try_from_vec(xv.clone(), &[n, c, h, wd]).unwrap());
        let case = format!("{k}x{k}, padding {pad}, dilation {dil}, {h}x{wd}, {mult} filters");
        assert_eq!(grads(&x, &w, &gv, &opts), want, "{case}");
        // The same input stored with its spatial axes swapped.
        let xt = transposed_planes(&xv, [n, c, h, wd]);
        let (_, dw) = grads(&Var::param(xt), &w, &gv, &opts);
        assert_eq!(dw, want.1, "transposed, {case}");
        let f32s = |v: &[f64]| v.iter().map(|&v| v as f32).collect::<Vec<f32>>();
        let x32 = Var::param(T4::<f32>::try_from_vec(f32s(&xv), &[n, c, h, wd]).unwrap());
        let w32 = Var::param(T4::<f32>::try_from_vec(f32s(&tv), &[c * mult, 1, k, k]).unwrap());
        assert_eq!(grads(&x32, &w32, &gv, &opts), want, "f32, {case}");
        // `y.sum().backward()`: the output gradient is expanded ones
        // (stride 0 on every axis), read by both gradients.
        let ones = vec![1.0; gv.len()];
        let y: V4<f64> = x.try_conv2d(&w, None, &opts).unwrap();
        let g = y.sum().backward();
        let (dx, dw) = (g.wrt(&x).unwrap().to_vec(), g.wrt(&w).unwrap().to_vec());
        assert_eq!(dx, geometry.grad_input(&tv, &ones), "sum, {case}");
        assert_eq!(dw, geometry.grad_weight(&xv, &ones), "sum, {case}");
        // The output read with its spatial axes swapped, times the
        // gradient stored that way: the output's gradient arrives
        // transposed (strided, no zero stride), read by both gradients.
        let yt: V4<f64> = y.permute(&[0, 1, 3, 2]).unwrap();
        let [gn, go] = [n, c * mult];
        let seed: T4<f64> = transposed_planes(&gv, [gn, go, oh, ow])
            .permute(&[0, 1, 3, 2])
            .unwrap();
        let g = yt.try_mul(&Var::constant(seed)).unwrap().sum().backward();
        let (dx, dw) = (g.wrt(&x).unwrap().to_vec(), g.wrt(&w).unwrap().to_vec());
        assert_eq!((dx, dw), want, "transposed gradient, {case}");
    }
    // An infinite gradient at output (0, 0) of the first channel, ones
    // elsewhere and in the input: taps that read the padding there stay
    // finite, the others are infinite; no NaN.
    let (h, wd) = (6, 20);
    let xv = vec![1.0; 2 * h * wd];
    let mut gv = vec![1.0; 2 * h * wd];
    gv[0] = f64::INFINITY;
    let want = padded_3x3([1, 2, h, wd]).grad_weight(&xv, &gv);
    assert!(want.iter().any(|v| v.is_infinite()) && want.iter().any(|v| v.is_finite()));
    let opts = ConvOptions::new().padding(1).groups(2);
    let w = Var::param(T4::<f64>::try_from_vec(vec![1.0; 18], &[2, 1, 3, 3]).unwrap());
    let x = Var::param(T4::<f64>::try_from_vec(xv.clone(), &[1, 2, h, wd]).unwrap());
    let (_, dw) = grads(&x, &w, &gv, &opts);
    assert!(dw.iter().all(|v| !v.is_nan()));
    assert_eq!(dw, want);
    // An infinite tap in the first filter: the input gradient is infinite
    // where the tap reaches an input, never NaN from the padding.
    let mut tv = vec![1.0; 18];
    tv[0] = f64::INFINITY;
    let gv = vec![1.0; 2 * h * wd];
    let want = padded_3x3([1, 2, h, wd]).grad_input(&tv, &gv);
    let w = Var::param(T4::<f64>::try_from_vec(tv, &[2, 1, 3, 3]).unwrap());
    let (dx, _) = grads(&x, &w, &gv, &opts);
    assert!(dx.iter().all(|v| !v.is_nan()));
    assert_eq!(dx, want);
}
