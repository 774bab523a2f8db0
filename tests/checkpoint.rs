//! Checkpoints resume bit for bit: a model trained for some steps with
//! AdamW and a schedule, saved (parameters through `state_dict`, the
//! optimizer through `Adam::state_dict`, the schedule's step) and loaded
//! into a fresh model and optimizer, continues exactly as the run that was
//! never interrupted. And a damaged optimizer state is refused, naming the
//! keys, before anything changes. A PyTorch checkpoint with batch norm
//! loads with its buffers (running statistics, `num_batches_tracked`); one
//! with a depthwise convolution (`groups=C`) loads into `DepthwiseConv2d`.

use shaped::autograd::Var;
use shaped::io::safetensors::SafeTensorsFile;
use shaped::nn::{
    Adam, BatchNorm2d, Conv2d, CrossEntropy, DepthwiseConv2d, Linear, LoadOptions, LrScheduler,
    Optimizer, Parameters, Sgd, clip_grad_norm, load_safetensors, state_dict, warmup_cosine,
};
use shaped::{Const, Shape, Tensor};

#[derive(Parameters)]
struct Net {
    hidden: Linear<Const<6>, Const<16>>,
    out: Linear<Const<16>, Const<3>>,
}

fn net(seed: u64) -> Net {
    Net {
        hidden: Linear::new(seed),
        out: Linear::new(seed + 1),
    }
}

/// A batch: inputs `(8, 6)` and class labels `(8,)`.
type Batch = (Var<f32, Shape![8, 6]>, Tensor<i64, Shape![8]>);

fn data(step: usize) -> Batch {
    let x = Tensor::<f32, Shape![8, 6]>::randn(100 + step as u64);
    let y: Vec<i64> = x
        .to_vec()
        .chunks(6)
        .map(|r| (r[0] + r[1] > 0.0) as i64 + (r[2] > 1.0) as i64)
        .collect();
    (Var::constant(x), Tensor::from_vec(y))
}

const STEPS: usize = 10;

fn train(
    model: &mut Net,
    opt: &mut impl Optimizer<f32>,
    sched: &mut LrScheduler<impl Fn(usize) -> f64>,
    steps: std::ops::Range<usize>,
) {
    for step in steps {
        let (x, y) = data(step);
        let logits = model.out.forward(&model.hidden.forward(&x).gelu());
        let mut grads = CrossEntropy::new().loss(&logits, &y).backward();
        clip_grad_norm(&*model, &mut grads, 0.5);
        opt.step(model, &grads);
        sched.step(opt);
    }
}

fn params(model: &Net) -> Vec<u32> {
    let mut bits = Vec::new();
    model.visit_params(&mut |p| bits.extend(p.value().to_vec().into_iter().map(f32::to_bits)));
    bits
}

fn adamw(model: &Net) -> Adam<f32> {
    Adam::adamw(1e-2)
        .weight_decay(0.1)
        .no_decay(model, |name| name.ends_with("bias"))
}

#[test]
fn a_resumed_run_is_bit_identical() {
    // Uninterrupted.
    let mut a = net(0);
    let mut opt_a = adamw(&a);
    let mut sched_a = LrScheduler::new(&mut opt_a, warmup_cosine(2, STEPS));
    train(&mut a, &mut opt_a, &mut sched_a, 0..STEPS);

    // Interrupted after 4 steps: saved, then loaded into fresh objects.
    let mut b = net(0);
    let mut opt_b = adamw(&b);
    let mut sched_b = LrScheduler::new(&mut opt_b, warmup_cosine(2, STEPS));
    train(&mut b, &mut opt_b, &mut sched_b, 0..4);
    let model_file = SafeTensorsFile::from_bytes(state_dict(&b).to_bytes().unwrap()).unwrap();
    let opt_file = SafeTensorsFile::from_bytes(opt_b.state_dict().to_bytes().unwrap()).unwrap();
    let (base_lr, steps) = (sched_b.base_lr(), sched_b.steps());
    drop((b, opt_b, sched_b));

    let mut c = net(7); // other initial values: all are overwritten
    load_safetensors(&c, &model_file, &LoadOptions::new()).unwrap();
    let mut opt_c = adamw(&c);
    opt_c.load_state_dict(&opt_file).unwrap();
    let mut sched_c = LrScheduler::resume(&mut opt_c, base_lr, warmup_cosine(2, STEPS), steps);
    train(&mut c, &mut opt_c, &mut sched_c, 4..STEPS);

    assert_eq!(params(&a), params(&c));
    assert_eq!(opt_a.lr().to_bits(), opt_c.lr().to_bits());
}

/// The same with SGD and Nesterov momentum: the momentum buffers and the
/// scheduled rate resume.
#[test]
fn a_resumed_sgd_run_is_bit_identical() {
    let sgd = || Sgd::new(0.05).momentum(0.9).weight_decay(1e-3).nesterov();
    let mut a = net(0);
    let mut opt_a = sgd();
    let mut sched_a = LrScheduler::new(&mut opt_a, warmup_cosine(2, STEPS));
    train(&mut a, &mut opt_a, &mut sched_a, 0..STEPS);

    let mut b = net(0);
    let mut opt_b = sgd();
    let mut sched_b = LrScheduler::new(&mut opt_b, warmup_cosine(2, STEPS));
    train(&mut b, &mut opt_b, &mut sched_b, 0..4);
    let model_file = SafeTensorsFile::from_bytes(state_dict(&b).to_bytes().unwrap()).unwrap();
    let opt_file = SafeTensorsFile::from_bytes(opt_b.state_dict().to_bytes().unwrap()).unwrap();
    assert_eq!(
        opt_file.names(),
        [
            "param_groups.0.lr",
            "state.0.momentum_buffer",
            "state.1.momentum_buffer",
            "state.2.momentum_buffer",
            "state.3.momentum_buffer"
        ]
    );
    let (base_lr, steps) = (sched_b.base_lr(), sched_b.steps());
    drop((b, opt_b, sched_b));

    let mut c = net(7);
    load_safetensors(&c, &model_file, &LoadOptions::new()).unwrap();
    let mut opt_c = sgd();
    opt_c.load_state_dict(&opt_file).unwrap();
    let mut sched_c = LrScheduler::resume(&mut opt_c, base_lr, warmup_cosine(2, STEPS), steps);
    train(&mut c, &mut opt_c, &mut sched_c, 4..STEPS);
    assert_eq!(params(&a), params(&c));

    // A buffer under a name that is not SGD's is refused, nothing changed.
    let mut w = shaped::io::safetensors::SafeTensorsWriter::new();
    w.add("param_groups.0.lr", &Tensor::<f32, ()>::full(0.5));
    w.add("state.0.exp_avg", &Tensor::<f32, Shape![2]>::zeros());
    let wrong = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
    let before = opt_c.lr();
    let e = opt_c.load_state_dict(&wrong).unwrap_err().to_string();
    assert_eq!(
        e,
        "Error(s) in loading state_dict for SGD:\n\tUnexpected key(s) in state_dict: \"state.0.exp_avg\". "
    );
    assert_eq!(opt_c.lr(), before);
}

#[test]
fn a_damaged_optimizer_state_is_refused_before_anything_changes() {
    let mut m = net(0);
    let mut opt = adamw(&m);
    let mut sched = LrScheduler::new(&mut opt, warmup_cosine(2, STEPS));
    train(&mut m, &mut opt, &mut sched, 0..2);
    let full = SafeTensorsFile::from_bytes(opt.state_dict().to_bytes().unwrap()).unwrap();

    // Drop one moment and add a stray key.
    let mut w = shaped::io::safetensors::SafeTensorsWriter::new();
    for name in full.names() {
        if name != "state.1.exp_avg_sq" {
            w.add(&name, &full.load::<f32, shaped::DynRank>(&name).unwrap());
        }
    }
    w.add("momentum_buffer", &Tensor::<f32, Shape![1]>::zeros());
    let damaged = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();

    let mut fresh = adamw(&m);
    let before = fresh.lr();
    let e = fresh.load_state_dict(&damaged).unwrap_err().to_string();
    assert_eq!(
        e,
        "Error(s) in loading state_dict for Adam:\n\tMissing key(s) in state_dict: \
         \"state.1.exp_avg_sq\". \n\tUnexpected key(s) in state_dict: \"momentum_buffer\". "
    );
    assert_eq!(fresh.lr(), before);
    // And the complete one loads.
    fresh.load_state_dict(&full).unwrap();
}

/// Conv2d(2, 4, 3, padding=1) -> BatchNorm2d(4) -> ReLU, named as the
/// PyTorch module of `tests/data/gen_bn_checkpoint.py`.
#[derive(Parameters)]
struct ConvBn {
    conv: Conv2d<Const<2>, Const<4>, Const<3>, 1, 1>,
    norm: BatchNorm2d<Const<4>>,
}

impl ConvBn {
    fn new() -> Self {
        ConvBn {
            conv: Conv2d::new(7),
            norm: BatchNorm2d::new(),
        }
    }

    fn forward(&self, x: &Var<f32, Shape![3, 2, 5, 5]>) -> Var<f32, Shape![3, 4, 5, 5]> {
        self.norm.forward(&self.conv.forward(x)).relu()
    }
}

fn stored(name: &str) -> SafeTensorsFile {
    SafeTensorsFile::open(format!("tests/data/safetensors/{name}.safetensors")).unwrap()
}

/// The largest difference between `a` and `b`, relative to `b`'s largest
/// element.
fn rel_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    let scale = b.iter().fold(1e-30f32, |m, v| m.max(v.abs()));
    a.iter().zip(b).fold(0f32, |m, (x, y)| m.max((x - y).abs())) / scale
}

/// A PyTorch CNN checkpoint with batch norm (its running statistics and
/// `num_batches_tracked` are buffers in the state dict) loads strictly, and
/// the model then computes PyTorch's outputs in eval and training mode and
/// moves the running statistics as PyTorch does.
#[test]
fn a_pytorch_batch_norm_checkpoint_loads_with_its_buffers() {
    let mut m = ConvBn::new();
    let report = load_safetensors(&m, &stored("conv_bn_checkpoint"), &LoadOptions::new()).unwrap();
    assert_eq!(report, Default::default());
    assert_eq!(m.norm.num_batches_tracked(), 3);

    let io = stored("conv_bn_outputs");
    let x = Var::constant(io.load::<f32, Shape![3, 2, 5, 5]>("x").unwrap());
    let want = |name: &str| io.load::<f32, shaped::DynRank>(name).unwrap().to_vec();
    m.norm.eval();
    let d = rel_diff(&m.forward(&x).value().to_vec(), &want("eval"));
    assert!(d < 1e-5, "eval output off by {d}");
    m.norm.train();
    let d = rel_diff(&m.forward(&x).value().to_vec(), &want("train"));
    assert!(d < 1e-5, "training output off by {d}");
    for (ours, theirs) in [
        (&m.norm.running_mean, "running_mean"),
        (&m.norm.running_var, "running_var"),
    ] {
        let d = rel_diff(&ours.to_vec(), &want(theirs));
        assert!(d < 1e-5, "{theirs} off by {d}");
    }
    assert_eq!(m.norm.num_batches_tracked(), 4);

    // Saved again: the buffers are there, the count as PyTorch's 0-d int64.
    let file = SafeTensorsFile::from_bytes(state_dict(&m).to_bytes().unwrap()).unwrap();
    assert_eq!(
        file.names(),
        [
            "conv.bias",
            "conv.weight",
            "norm.bias",
            "norm.num_batches_tracked",
            "norm.running_mean",
            "norm.running_var",
            "norm.weight"
        ]
    );
    assert_eq!(
        file.info("norm.num_batches_tracked"),
        Some(("I64".to_string(), vec![]))
    );
    let back = ConvBn::new();
    load_safetensors(&back, &file, &LoadOptions::new()).unwrap();
    assert_eq!(back.norm.num_batches_tracked(), 4);
    assert_eq!(back.norm.running_var.to_vec(), m.norm.running_var.to_vec());
}

/// Without `num_batches_tracked` a state dict still loads strictly, as
/// PyTorch fills the count in for a state dict without version metadata
/// (a safetensors file has none); a missing running statistic is a missing
/// key, and nothing is written.
#[test]
fn a_checkpoint_missing_a_buffer() {
    let full = stored("conv_bn_checkpoint");
    let without = |skip: &str| {
        let mut w = shaped::io::safetensors::SafeTensorsWriter::new();
        for name in full.names().into_iter().filter(|n| n != skip) {
            if name.ends_with("num_batches_tracked") {
                w.add(&name, &full.load::<i64, ()>(&name).unwrap());
            } else {
                w.add(&name, &full.load::<f32, shaped::DynRank>(&name).unwrap());
            }
        }
        SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap()
    };
    let m = ConvBn::new();
    load_safetensors(
        &m,
        &without("norm.num_batches_tracked"),
        &LoadOptions::new(),
    )
    .unwrap();
    assert_eq!(m.norm.num_batches_tracked(), 0);
    assert_ne!(m.norm.running_mean.to_vec(), vec![0.; 4]);

    let fresh = ConvBn::new();
    let e = load_safetensors(&fresh, &without("norm.running_var"), &LoadOptions::new())
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "Error(s) in loading state_dict for ConvBn:\n\tMissing key(s) in state_dict: \
         \"norm.running_var\". "
    );
    assert_eq!(fresh.norm.running_mean.to_vec(), vec![0.; 4]);
}

/// A depthwise-separable block, named as the PyTorch module of
/// `tests/data/gen_depthwise_checkpoint.py`: `Conv2d(4, 4, 3, stride=2,
/// padding=1, groups=4)` -> ReLU -> `Conv2d(4, 6, 1)`.
#[derive(Parameters)]
struct Separable {
    dw: DepthwiseConv2d<Const<4>, Const<3>, 2, 1>,
    pw: Conv2d<Const<4>, Const<6>, shaped::One>,
}

/// PyTorch's depthwise convolution weights `(C, 1, K, K)` load strictly
/// into `DepthwiseConv2d`, which then computes PyTorch's output and
/// gradients (input, each weight and bias).
#[test]
fn a_pytorch_depthwise_checkpoint_loads_and_matches() {
    let m = Separable {
        dw: DepthwiseConv2d::new(1),
        pw: Conv2d::new(2),
    };
    let report =
        load_safetensors(&m, &stored("depthwise_checkpoint"), &LoadOptions::new()).unwrap();
    assert_eq!(report, Default::default());
    assert_eq!(
        format!("{:?}", m.dw),
        "Conv2d(4, 4, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), groups=4)"
    );

    let io = stored("depthwise_outputs");
    let want = |name: &str| io.load::<f32, shaped::DynRank>(name).unwrap().to_vec();
    let x = Var::param(io.load::<f32, Shape![2, 4, 7, 7]>("x").unwrap());
    let seed = Var::constant(io.load::<f32, Shape![2, 6, 4, 4]>("seed").unwrap());
    let h: Var<f32, Shape![2, 4, 4, 4]> = m.dw.forward(&x);
    let y: Var<f32, Shape![2, 6, 4, 4]> = m.pw.forward(&h.relu());
    let d = rel_diff(&y.value().to_vec(), &want("y"));
    assert!(d < 1e-5, "output off by {d}");

    let grads = (&y * &seed).sum().backward();
    let got = [
        ("grad.x", grads.wrt(&x).unwrap().to_vec()),
        ("grad.dw.weight", grads.wrt(&m.dw.weight).unwrap().to_vec()),
        (
            "grad.dw.bias",
            grads.wrt(m.dw.bias.as_ref().unwrap()).unwrap().to_vec(),
        ),
        ("grad.pw.weight", grads.wrt(&m.pw.weight).unwrap().to_vec()),
        (
            "grad.pw.bias",
            grads.wrt(m.pw.bias.as_ref().unwrap()).unwrap().to_vec(),
        ),
    ];
    for (name, g) in got {
        let d = rel_diff(&g, &want(name));
        assert!(d < 1e-5, "{name} off by {d}");
    }
}
