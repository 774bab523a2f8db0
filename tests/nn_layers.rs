//! `nn`'s layers: `LayerNorm` and `Embedding` against PyTorch
//! (`tests/data/nn_cases.json`, written by `tests/data/gen_nn_data.py`);
//! `Linear` against an index-by-index reference and its initialisation
//! against PyTorch's distribution; `Dropout`'s masks; the `Parameters`
//! derive; `no_grad`; `one_hot` and `accuracy`.

mod nn_support;

use nn_support::{assert_close, floats, section};
use shaped::autograd::{Var, no_grad};
use shaped::nn::{
    Dropout, Embedding, LayerNorm, Linear, Parameters, Relu, accuracy, correct, one_hot,
    try_one_hot,
};
use shaped::{Const, Dyn, One, Shape, Tensor};

#[test]
fn layer_norm_matches_pytorch() {
    let c = &section("layers")["layer_norm"];
    let mut ln: LayerNorm<Const<5>, f64> = LayerNorm::new();
    ln.weight = Var::param(Tensor::from_vec(floats(&c["weight"])));
    ln.bias = Var::param(Tensor::from_vec(floats(&c["bias"])));
    ln.eps = c["eps"].as_f64().expect("eps");
    let x = Var::param(Tensor::<f64, Shape![4, 5]>::from_vec(floats(&c["input"])));
    let y = ln.forward(&x);
    assert_close("output", &y.value().to_vec(), &floats(&c["output"]), 1e-12);
    let up = Tensor::<f64, Shape![4, 5]>::from_vec(floats(&c["upstream"]));
    let g = y.try_backward_with(&up).expect("backward");
    let gx = g.wrt(&x).expect("x").to_vec();
    assert_close("grad input", &gx, &floats(&c["grad_input"]), 1e-10);
    let gw = g.wrt(&ln.weight).expect("w").to_vec();
    assert_close("grad weight", &gw, &floats(&c["grad_weight"]), 1e-12);
    let gb = g.wrt(&ln.bias).expect("b").to_vec();
    assert_close("grad bias", &gb, &floats(&c["grad_bias"]), 1e-12);
}

#[test]
fn embedding_matches_pytorch() {
    let c = &section("layers")["embedding"];
    let e: Embedding<Const<7>, Const<3>, f64> =
        Embedding::from_tensor(Tensor::from_vec(floats(&c["weight"])));
    let idx: Vec<i64> = c["indices"]
        .as_array()
        .expect("indices")
        .iter()
        .map(|i| i.as_i64().expect("i"))
        .collect();
    let idx = Tensor::<i64, Shape![5]>::from_vec(idx);
    let y = e.forward(&idx);
    assert_close("output", &y.value().to_vec(), &floats(&c["output"]), 0.0);
    let up = Tensor::<f64, Shape![5, 3]>::from_vec(floats(&c["upstream"]));
    let g = y
        .try_backward_with(&up)
        .expect("backward")
        .wrt(&e.weight)
        .expect("w");
    assert_close(
        "grad weight",
        &g.to_vec(),
        &floats(&c["grad_weight"]),
        1e-15,
    );
}

#[test]
fn linear_matches_an_index_by_index_reference() {
    let l: Linear<Const<5>, Const<3>, f64> = Linear::new(11);
    let x = Tensor::<f64, Shape![_, 5]>::try_randn(&[4, 5], 3).expect("x");
    let y = l.forward(&Var::constant(x.clone())).value().to_vec();
    let (w, b, xs) = (
        l.weight.value().to_vec(),
        l.bias.as_ref().expect("bias").value().to_vec(),
        x.to_vec(),
    );
    for r in 0..4 {
        for o in 0..3 {
            let want = b[o] + (0..5).map(|i| xs[r * 5 + i] * w[o * 5 + i]).sum::<f64>();
            assert!((y[r * 3 + o] - want).abs() < 1e-12, "({r}, {o})");
        }
    }
    // Leading dimensions, and a layer without bias to a single output.
    let single: Linear<Const<5>, One, f64> = Linear::new(2).without_bias();
    let x3 = Var::constant(Tensor::<f64, Shape![2, 4, 5]>::ones());
    let y3: Var<f64, Shape![2, 4, 1]> = single.forward_nd(&x3);
    let s: f64 = single.weight.value().to_vec().iter().sum();
    assert!(y3.value().to_vec().iter().all(|v| (v - s).abs() < 1e-12));
}

#[test]
fn linear_init_is_pytorchs_distribution() {
    // kaiming_uniform(a=√5) and the bias: U(-1/√fan_in, 1/√fan_in).
    let l: Linear<Const<784>, Const<256>> = Linear::new(0);
    let bound = 1.0 / 784f64.sqrt();
    let w: Vec<f64> = l
        .weight
        .value()
        .to_vec()
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    assert!(w.iter().all(|v| v.abs() <= bound));
    let mean = w.iter().sum::<f64>() / w.len() as f64;
    let var = w.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / w.len() as f64;
    assert!(mean.abs() < 0.01 * bound, "mean {mean}");
    assert!(
        (var / (bound * bound / 3.0) - 1.0).abs() < 0.02,
        "variance {var}"
    );
    let b = l.bias.as_ref().expect("bias").value().to_vec();
    assert!(b.iter().all(|v| f64::from(v.abs()) <= bound));
    // Seeded: the same seed gives the same layer, another seed another.
    let again: Linear<Const<784>, Const<256>> = Linear::new(0);
    let other: Linear<Const<784>, Const<256>> = Linear::new(1);
    assert_eq!(again.weight.value().to_vec(), l.weight.value().to_vec());
    assert_ne!(other.weight.value().to_vec(), l.weight.value().to_vec());
    assert_ne!(l.weight.value().to_vec()[..256], b[..]);
}

#[test]
fn dropout_masks_scale_and_switch_off() {
    let d = Dropout::new(0.25, 3);
    let x = Var::param(Tensor::<f64, Shape![100, 100]>::ones());
    let y = d.forward(&x);
    let v = y.value().to_vec();
    let zeros = v.iter().filter(|&&e| e == 0.0).count();
    assert!(
        v.iter()
            .all(|&e| e == 0.0 || (e - 1.0 / 0.75).abs() < 1e-15)
    );
    assert!((zeros as f64 / 1e4 - 0.25).abs() < 0.02, "{zeros} zeros");
    // The gradient is the same mask, scaled the same way.
    let g = y.sum().backward().wrt(&x).expect("x").to_vec();
    assert_eq!(g, v);
    // A new mask each call; the same sequence from the same seed.
    let second = d.forward(&x).value().to_vec();
    assert_ne!(second, v);
    let replay = Dropout::new(0.25, 3);
    assert_eq!(replay.forward(&x).value().to_vec(), v);
    let mut d = d;
    d.eval();
    assert_eq!(d.forward(&x).value().to_vec(), x.value().to_vec());
}

#[derive(Parameters)]
struct Block<const H: usize> {
    norm: LayerNorm<Const<H>>,
    up: Linear<Const<H>, Const<8>>,
    act: Relu,
    drop: Dropout,
    heads: Vec<Linear<Const<8>, One>>,
    #[param(skip)]
    _label: &'static str,
}

#[derive(Parameters)]
struct Pair(
    Linear<Const<2>, Const<3>>,
    #[param(skip)] u32,
    Var<f32, Shape![4]>,
);

#[test]
fn the_derive_lists_fields_in_order() {
    let b = Block::<4> {
        norm: LayerNorm::new(),
        up: Linear::new(0),
        act: Relu,
        drop: Dropout::new(0.1, 0),
        heads: vec![Linear::new(1), Linear::new(2).without_bias()],
        _label: "block",
    };
    let dims: Vec<Vec<usize>> = b.params().iter().map(|p| p.dims().to_vec()).collect();
    let want: Vec<Vec<usize>> = vec![
        vec![4],
        vec![4],
        vec![8, 4],
        vec![8],
        vec![1, 8],
        vec![1],
        vec![1, 8],
    ];
    assert_eq!(dims, want);
    // The handles share storage with the fields.
    assert_eq!(b.params()[2].value().to_vec(), b.up.weight.value().to_vec());
    let p = Pair(Linear::new(0), 7, Var::param(Tensor::ones()));
    assert_eq!((p.num_params(), p.1), (6 + 3 + 4, 7));
    // Constants are not parameters.
    let c = Pair(Linear::new(0), 7, Var::constant(Tensor::ones()));
    assert_eq!(c.num_params(), 9);
}

#[test]
fn no_grad_records_nothing_and_nests() {
    let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    let x = Var::constant(Tensor::<f32, Shape![1, 3]>::ones());
    {
        let _a = no_grad();
        {
            let _b = no_grad();
            assert!(!l.forward(&x).requires_grad());
        }
        assert!(!l.forward(&x).requires_grad());
    }
    assert!(l.forward(&x).requires_grad());
}

#[test]
fn one_hot_and_accuracy_match_a_reference() {
    let labels = vec![3i64, 0, 9, 3, 5];
    let t = Tensor::<i64, (Dyn,)>::try_from_vec(labels.clone(), &[5]).expect("labels");
    let y: Tensor<f32, (Dyn, Const<10>)> = one_hot(&t);
    for (r, row) in y.to_vec().chunks(10).enumerate() {
        for (c, &v) in row.iter().enumerate() {
            assert_eq!(v, if c as i64 == labels[r] { 1.0 } else { 0.0 });
        }
    }
    let neg = Tensor::<i32, Shape![1]>::from_vec(vec![-1]);
    let err = try_one_hot::<f32, Const<4>, _, _, _>(&neg).expect_err("negative");
    assert_eq!(err.to_string(), "Class values must be non-negative.");
    // Logits whose argmax is the label in rows 0, 2 and 4 only.
    let mut logits = y.to_vec();
    logits[10] = 0.0;
    logits[11] = 2.0;
    logits[35] = 0.0;
    logits[30] = 1.0;
    let logits = Tensor::<f32, (Dyn, Const<10>)>::try_from_vec(logits, &[5, 10]).expect("logits");
    assert_eq!(correct(&logits, &t), 3);
    assert!((accuracy(&logits, &t) - 0.6).abs() < 1e-15);
}
