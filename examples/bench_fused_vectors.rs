//! The memory-bound fused chains with the baseline vectors and with the
//! widest ones (`backend::fused::set_light_wide`; shaped chooses the
//! widest for such chains where they are AVX2, the baseline ones where
//! they are AVX-512), against the eager
//! broadcast add, all `out=` into one shared 4096x4096 `f32` buffer and
//! interleaved call by call (the order reversed every other round), so
//! that the machine's drift and the buffer's pages fall on every case
//! alike. Prints the median and the best time per case, in ms, and the
//! ratios to the eager add.
//!
//! The cases: `add_out` the eager `a + b` (`b: (4096,)`), the floor; the
//! fused `a + b`; `chain3` `relu(a * b + c)` (`c: (4096, 1)`), then the
//! same with one operation more at a time: `chain4` `relu(a * b + c) * d`
//! (`d: (4096,)`), `chain5` `relu(a * b + c) * d - e` (`e: (4096, 1)`),
//! `chain6m` `|relu(a * b + c) * d - e|`; and `chain6`,
//! `gelu(a * b + c) * d - e`, whose `erf` always runs with the widest
//! vectors.
//!
//! `cargo run --release --example bench_fused_vectors [ROUNDS=70]`

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Instant;

use shaped::backend::fused::set_light_wide;
use shaped::{Shape, Tensor};

type Big = Shape![4096, 4096];

/// Rounds before timing starts.
const WARM_UP: usize = 10;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|r| r.parse().ok())
        .unwrap_or(70);
    let a = Tensor::<f32, Big>::rand(1);
    let b = Tensor::<f32, Shape![4096]>::rand(2);
    let c = Tensor::<f32, Shape![4096, 1]>::rand(3);
    let d = Tensor::<f32, Shape![4096]>::rand(4);
    let e = Tensor::<f32, Shape![4096, 1]>::rand(5);
    let o = RefCell::new(Tensor::<f32, Big>::zeros());
    type Run<'a> = Rc<dyn Fn() + 'a>;
    type Case<'a> = (&'static str, Option<bool>, Run<'a>);
    let mut cases: Vec<Case<'_>> = vec![(
        "add_out (eager)",
        None,
        Rc::new(|| a.add_out(&b, &mut o.borrow_mut()).unwrap()),
    )];
    // Each chain twice: with the baseline vectors, then the widest.
    let chains: [(&str, Run<'_>); 5] = [
        (
            "add",
            Rc::new(|| (a.lazy() + &b).eval_into(&mut o.borrow_mut()).unwrap()),
        ),
        (
            "chain3",
            Rc::new(|| {
                (a.lazy() * &b + &c)
                    .relu()
                    .eval_into(&mut o.borrow_mut())
                    .unwrap()
            }),
        ),
        (
            "chain4",
            Rc::new(|| {
                ((a.lazy() * &b + &c).relu() * &d)
                    .eval_into(&mut o.borrow_mut())
                    .unwrap()
            }),
        ),
        (
            "chain5",
            Rc::new(|| {
                ((a.lazy() * &b + &c).relu() * &d - &e)
                    .eval_into(&mut o.borrow_mut())
                    .unwrap()
            }),
        ),
        (
            "chain6m",
            Rc::new(|| {
                ((a.lazy() * &b + &c).relu() * &d - &e)
                    .abs()
                    .eval_into(&mut o.borrow_mut())
                    .unwrap()
            }),
        ),
    ];
    for (name, f) in chains {
        cases.push((name, Some(false), f.clone()));
        cases.push((name, Some(true), f));
    }
    // The 6-op chain with `gelu`: its `erf` makes it run with the widest
    // vectors whatever the switch says.
    cases.push((
        "chain6",
        Some(true),
        Rc::new(|| {
            ((a.lazy() * &b + &c).gelu() * &d - &e)
                .eval_into(&mut o.borrow_mut())
                .unwrap()
        }),
    ));
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); cases.len()];
    for round in 0..WARM_UP + rounds {
        let order: Vec<usize> = if round % 2 == 0 {
            (0..cases.len()).collect()
        } else {
            (0..cases.len()).rev().collect()
        };
        for k in order {
            let (_, wide, f) = &cases[k];
            set_light_wide(wide.unwrap_or(false));
            let start = Instant::now();
            f();
            let ms = start.elapsed().as_secs_f64() * 1e3;
            if round >= WARM_UP {
                times[k].push(ms);
            }
        }
    }
    set_light_wide(false);
    let floor = median(times[0].clone());
    println!("case              vectors   median ms   best ms   median / eager add_out");
    for ((name, wide, _), t) in cases.iter().zip(&times) {
        let vectors = match wide {
            None => "eager",
            Some(false) => "baseline",
            Some(true) => "widest",
        };
        let best = t.iter().copied().fold(f64::INFINITY, f64::min);
        let m = median(t.clone());
        println!(
            "{name:<17} {vectors:<9} {m:>9.2} {best:>9.2} {:>12.2}",
            m / floor
        );
    }
}
