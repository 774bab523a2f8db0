//! Timing harness for fused pointwise chains, run side by side with NumPy,
//! PyTorch eager, numexpr, `torch.compile` (Inductor) and JAX `jit` by
//! `benches/compare_fused.py`. Prints one line per case:
//! `name<TAB>median nanoseconds per call`.
//!
//! The cases (f32, `a: (4096, 4096)`, `b, d: (4096,)`, `c, e: (4096, 1)`):
//! a single broadcast add `a + b`, the memory-bound floor; the 3-op chain
//! `relu(a * b + c)`, the 6-op chain `gelu(a * b + c) * d - e` and the
//! 6-op chain without `erf`, `|relu(a * b + c) * d - e|` (`chain6m`), each
//! eager (one pass per op) and fused, into a new tensor and into an
//! existing one (`out=`); `silu(a * b + c)`, `tanh(a * b + c)` and
//! `log1p(exp(a * b + c))` (softplus), eager and fused; `(a * b).sum(1)` and `(a * b).sum(0)`,
//! reductions at the end of a chain (over rows, and over the batch: the
//! column sums), eager and fused; and `gelu_grad`, the forward and
//! backward pass of `gelu(a * b + c).sum()` with respect to `a`, `b` and
//! `c` (autograd through the fused chain, and through the eager ops).
//!
//! `cargo run --release --example bench_fused [FILTER]`

use std::time::Instant;

use shaped::autograd::Var;
use shaped::{Shape, Tensor};

/// Calls before timing starts (a 64 MiB output reaches its steady speed
/// only after several passes).
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
/// A 1 MiB slab of `f32`: [`Big`] is 64 of them.
type Slab = Shape![64, 4096];

/// A named case: the call to time.
type Case<'a> = (&'static str, Box<dyn FnMut() + 'a>);

fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    let a = Tensor::<f32, Big>::rand(1);
    let b = Tensor::<f32, Shape![4096]>::rand(2);
    let c = Tensor::<f32, Shape![4096, 1]>::rand(3);
    let d = Tensor::<f32, Shape![4096]>::rand(4);
    let e = Tensor::<f32, Shape![4096, 1]>::rand(5);
    let sa = Tensor::<f32, Slab>::rand(6);
    let (sc, se) = (
        Tensor::<f32, Shape![64, 1]>::rand(7),
        Tensor::<f32, Shape![64, 1]>::rand(8),
    );
    let (mut so1, mut so2) = (Tensor::<f32, Slab>::zeros(), Tensor::<f32, Slab>::zeros());
    let mut o5 = Tensor::<f32, Big>::zeros();
    let (mut o1, mut o2, mut o3, mut o4) = (
        Tensor::<f32, Big>::zeros(),
        Tensor::<f32, Big>::zeros(),
        Tensor::<f32, Big>::zeros(),
        Tensor::<f32, Big>::zeros(),
    );
    let (va, vb, vc) = (
        Var::param(a.clone()),
        Var::param(b.clone()),
        Var::param(c.clone()),
    );
    let cases: Vec<Case<'_>> = vec![
        ("add", Box::new(|| drop(a.add(&b)))),
        ("add_out", Box::new(|| a.add_out(&b, &mut o1).unwrap())),
        ("add_fused", Box::new(|| drop((a.lazy() + &b).eval()))),
        (
            "add_fused_out",
            Box::new(|| (a.lazy() + &b).eval_into(&mut o4).unwrap()),
        ),
        ("chain3_eager", Box::new(|| drop(a.mul(&b).add(&c).relu()))),
        (
            "chain3_fused",
            Box::new(|| drop((a.lazy() * &b + &c).relu().eval())),
        ),
        (
            "chain3_fused_out",
            Box::new(|| (a.lazy() * &b + &c).relu().eval_into(&mut o2).unwrap()),
        ),
        (
            "chain6_eager",
            Box::new(|| drop(a.mul(&b).add(&c).gelu().mul(&d).sub(&e))),
        ),
        (
            "chain6_fused",
            Box::new(|| drop(((a.lazy() * &b + &c).gelu() * &d - &e).eval())),
        ),
        (
            "chain6_fused_out",
            Box::new(|| {
                ((a.lazy() * &b + &c).gelu() * &d - &e)
                    .eval_into(&mut o3)
                    .unwrap()
            }),
        ),
        (
            "add_out_cached",
            Box::new(|| {
                for _ in 0..64 {
                    sa.add_out(&b, &mut so1).unwrap()
                }
            }),
        ),
        (
            "chain6_fused_out_cached",
            Box::new(|| {
                for _ in 0..64 {
                    ((sa.lazy() * &b + &sc).gelu() * &d - &se)
                        .eval_into(&mut so2)
                        .unwrap()
                }
            }),
        ),
        (
            "chain6m_eager",
            Box::new(|| drop(a.mul(&b).add(&c).relu().mul(&d).sub(&e).abs())),
        ),
        (
            "chain6m_fused",
            Box::new(|| drop(((a.lazy() * &b + &c).relu() * &d - &e).abs().eval())),
        ),
        (
            "chain6m_fused_out",
            Box::new(|| {
                ((a.lazy() * &b + &c).relu() * &d - &e)
                    .abs()
                    .eval_into(&mut o5)
                    .unwrap()
            }),
        ),
        ("silu3_eager", Box::new(|| drop(a.mul(&b).add(&c).silu()))),
        (
            "silu3_fused",
            Box::new(|| drop((a.lazy() * &b + &c).silu().eval())),
        ),
        ("tanh3_eager", Box::new(|| drop(a.mul(&b).add(&c).tanh()))),
        (
            "tanh3_fused",
            Box::new(|| drop((a.lazy() * &b + &c).tanh().eval())),
        ),
        (
            "softplus3_eager",
            Box::new(|| drop(a.mul(&b).add(&c).exp().log1p())),
        ),
        (
            "softplus3_fused",
            Box::new(|| drop((a.lazy() * &b + &c).exp().log1p().eval())),
        ),
        ("sum1", Box::new(|| drop(a.sum_dim::<1>()))),
        ("mulsum1_eager", Box::new(|| drop(a.mul(&b).sum_dim::<1>()))),
        (
            "mulsum1_fused",
            Box::new(|| drop((a.lazy() * &b).sum_dim::<1>())),
        ),
        ("sum0", Box::new(|| drop(a.sum_dim::<0>()))),
        ("mulsum0_eager", Box::new(|| drop(a.mul(&b).sum_dim::<0>()))),
        (
            "mulsum0_fused",
            Box::new(|| drop((a.lazy() * &b).sum_dim::<0>())),
        ),
        (
            "gelu_grad_fused",
            Box::new(|| {
                let y = (va.lazy() * &vb + &vc).gelu().eval_var();
                drop(y.sum().backward())
            }),
        ),
        (
            "gelu_grad_eager",
            Box::new(|| drop(va.mul(&vb).add(&vc).gelu().sum().backward())),
        ),
    ];
    for (name, mut f) in cases {
        if name.contains(filter.as_str()) {
            println!("{name}\t{:.0}", median_ns(&mut f));
        }
    }
}
