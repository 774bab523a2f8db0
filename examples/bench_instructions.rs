//! The cases of the instruction-count gate (`scripts/instruction_counts.sh`,
//! run by `.ci/run`): `bench_instructions CASE N` sets up `CASE` and runs it
//! `N` times. The script runs each case under callgrind twice, with two
//! counts, and divides the difference by the difference of the counts, so
//! that start-up and set-up cancel and the figure is the instructions of one
//! call, which machine noise does not move.
//!
//! `cargo run --release --example bench_instructions -- small_add_alloc 100`

use std::hint::black_box;

use shaped::autograd::Var;
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, cross_entropy};
use shaped::{Const, Shape, Tensor};

#[derive(Parameters)]
struct Mlp {
    hidden: Linear<Const<64>, Const<32>>,
    out: Linear<Const<32>, Const<10>>,
}

/// Runs case `case` `n` times.
fn run(case: &str, n: usize) -> Result<(), String> {
    match case {
        // (8, 8) + (8,), allocating and into an existing output.
        "small_add_alloc" => {
            let (a, b) = (
                Tensor::<f32, Shape![8, 8]>::rand(1),
                Tensor::<f32, Shape![8]>::rand(2),
            );
            for _ in 0..n {
                drop(black_box(&a + &b));
            }
        }
        "small_add_out" => {
            let (a, b) = (
                Tensor::<f32, Shape![8, 8]>::rand(1),
                Tensor::<f32, Shape![8]>::rand(2),
            );
            let mut o = Tensor::<f32, Shape![8, 8]>::zeros();
            for _ in 0..n {
                a.add_out(&b, &mut o).map_err(|e| e.to_string())?;
                black_box(&o);
            }
        }
        // The same sizes known at run time, and of run-time rank.
        "small_add_dyn" => {
            let a = Tensor::<f32, Shape![_, _]>::try_rand(&[8, 8], 1).map_err(|e| e.to_string())?;
            let b = Tensor::<f32, Shape![_]>::try_rand(&[8], 2).map_err(|e| e.to_string())?;
            for _ in 0..n {
                drop(black_box(a.try_add(&b).map_err(|e| e.to_string())?));
            }
        }
        "small_add_dynrank" => {
            let a = Tensor::<f32, Shape![8, 8]>::rand(1).into_dyn();
            let b = Tensor::<f32, Shape![8]>::rand(2).into_dyn();
            for _ in 0..n {
                drop(black_box(a.try_add(&b).map_err(|e| e.to_string())?));
            }
        }
        "matmul_64" => {
            let a = Tensor::<f32, Shape![64, 64]>::rand(1);
            let b = Tensor::<f32, Shape![64, 64]>::rand(2);
            for _ in 0..n {
                drop(black_box(a.matmul(&b)));
            }
        }
        // relu(a * b + c) on 4096 elements, one fused pass.
        "fused_chain3_4096" => {
            let a = Tensor::<f32, Shape![64, 64]>::rand(1);
            let b = Tensor::<f32, Shape![64, 64]>::rand(2);
            let c = Tensor::<f32, Shape![64]>::rand(3);
            for _ in 0..n {
                drop(black_box((a.lazy() * &b + &c).relu().eval()));
            }
        }
        // Forward, cross-entropy, backward and an Adam step of a 64-32-10
        // MLP at batch 16.
        "mlp_step" => {
            let mut model = Mlp {
                hidden: Linear::new(0),
                out: Linear::new(1),
            };
            let mut opt = Adam::new(1e-3);
            let x = Var::constant(Tensor::<f32, Shape![16, 64]>::rand(2));
            let y = Tensor::<i64, Shape![16]>::from_vec((0..16).map(|i| i % 10).collect());
            for _ in 0..n {
                let logits = model.out.forward(&model.hidden.forward(&x).relu());
                let loss = cross_entropy(&logits, &y, Mean);
                let grads = loss.backward();
                drop(loss);
                opt.step(&mut model, &grads);
            }
        }
        "list" => {}
        other => return Err(format!("unknown case '{other}'")),
    }
    Ok(())
}

/// The cases, in the order the gate runs them.
const CASES: [&str; 7] = [
    "small_add_alloc",
    "small_add_out",
    "small_add_dyn",
    "small_add_dynrank",
    "matmul_64",
    "fused_chain3_4096",
    "mlp_step",
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map_or("list", String::as_str);
    if case == "list" {
        for c in CASES {
            println!("{c}");
        }
        return;
    }
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1);
    if let Err(e) = run(case, n) {
        eprintln!("bench_instructions: {e}");
        std::process::exit(2);
    }
}
