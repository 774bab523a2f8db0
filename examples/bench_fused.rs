//! Timing harness for fused pointwise chains, run side by side with NumPy,
//! PyTorch eager, numexpr, `torch.compile` and JAX `jit` by
//! `benches/compare_fused.py`. Prints one line per case:
//! `name<TAB>median nanoseconds per call`.
//!
//! The cases (f32, `a: (4096, 4096)`, `b, d: (4096,)`, `c, e: (4096, 1)`):
//! a single broadcast add `a + b` (the memory-bound floor), the 3-op chain
//! `relu(a * b + c)` and the 6-op chain `gelu(a * b + c) * d - e`, each
//! eager (one pass per op) and fused, into a new tensor and into an
//! existing one (`out=`).
//!
//! `cargo run --release --example bench_fused`

use std::time::Instant;

use shaped::{Shape, Tensor};

/// Calls before timing starts.
const WARM_UP: usize = 10;
/// Timed calls per case.
const REPS: usize = 30;

/// Median time per call of `f`, in nanoseconds.
fn median_ns(mut f: impl FnMut()) -> f64 {
    for _ in 0..WARM_UP {
        f();
    }
    let mut t: Vec<f64> = (0..REPS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[REPS / 2]
}

type Big = Shape![4096, 4096];
type Row = Shape![4096];
type Col = Shape![4096, 1];

/// Deterministic values in [-1, 1).
fn values<S: shaped::shape::FixedShape>(seed: u32) -> Tensor<f32, S> {
    let n: usize = S::STATIC_DIMS.iter().map(|d| d.unwrap_or(1)).product();
    let mut x = seed.wrapping_mul(2_654_435_761).max(1);
    Tensor::from_vec(
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                (x >> 8) as f32 / (1u32 << 23) as f32 - 1.0
            })
            .collect(),
    )
}

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let a = values::<Big>(1);
    let b = values::<Row>(2);
    let c = values::<Col>(3);
    let d = values::<Row>(4);
    let e = values::<Col>(5);
    let mut out = Tensor::<f32, Big>::zeros();
    let mut out3 = Tensor::<f32, Big>::zeros();
    let mut out6 = Tensor::<f32, Big>::zeros();

    let mut cases: Vec<(&str, Box<dyn FnMut()>)> = vec![
        ("add", Box::new(|| drop(a.add(&b)))),
        ("add_out", Box::new(|| a.add_out(&b, &mut out).unwrap())),
        ("gelu_eager", Box::new(|| drop(a.gelu()))),
        ("exp_eager", Box::new(|| drop(a.exp()))),
        ("chain3_eager", Box::new(|| drop(a.mul(&b).add(&c).relu()))),
        (
            "chain3_fused",
            Box::new(|| drop((a.lazy() * &b + &c).relu().eval())),
        ),
    ];
    cases.push((
        "chain3_fused_out",
        Box::new(|| (a.lazy() * &b + &c).relu().eval_into(&mut out3).unwrap()),
    ));
    cases.push((
        "chain6_eager",
        Box::new(|| drop(a.mul(&b).add(&c).gelu().mul(&d).sub(&e))),
    ));
    cases.push((
        "chain6_fused",
        Box::new(|| drop(((a.lazy() * &b + &c).gelu() * &d - &e).eval())),
    ));
    cases.push((
        "chain6_fused_out",
        Box::new(|| {
            ((a.lazy() * &b + &c).gelu() * &d - &e)
                .eval_into(&mut out6)
                .unwrap()
        }),
    ));
    for (name, f) in &mut cases {
        if name.contains(filter.as_str()) {
            println!("{name}\t{:.0}", median_ns(f));
        }
    }
}
