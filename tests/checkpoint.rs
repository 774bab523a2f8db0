//! Checkpoints resume bit for bit: a model trained for some steps with
//! AdamW and a schedule, saved (parameters through `state_dict`, the
//! optimizer through `Adam::state_dict`, the schedule's step) and loaded
//! into a fresh model and optimizer, continues exactly as the run that was
//! never interrupted. And a damaged optimizer state is refused, naming the
//! keys, before anything changes.

use shaped::autograd::Var;
use shaped::io::safetensors::SafeTensorsFile;
use shaped::nn::{
    Adam, CrossEntropy, Linear, LoadOptions, LrScheduler, Optimizer, Parameters, clip_grad_norm,
    load_safetensors, state_dict, warmup_cosine,
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
    opt: &mut Adam<f32>,
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
