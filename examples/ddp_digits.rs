//! The digits MLP of `examples/digits.rs` (64-128-10, Adam, 30 epochs on
//! scikit-learn's 8x8 digits in `data/digits/`), trained data-parallel
//! over MPI: every rank holds the model, trains on its shard of each
//! global batch of 96 images ([`DistributedSampler`]), and averages the
//! gradients with the others ([`DataParallel`]) before each Adam step.
//! Each rank starts from other random values; rank 0's are broadcast.
//!
//! ```text
//! cargo build --release --features mpi --example ddp_digits
//! mpirun -np 2 target/release/examples/ddp_digits        # or -np 1, 3, 4, 6
//! srun -n 4 target/release/examples/ddp_digits           # under Slurm
//! ```
//!
//! With `--check`, rank 0 then trains the same model in one process on
//! the same global batches of 96 and prints both held-out accuracies and the
//! largest parameter difference; it fails if the accuracies differ by more
//! than one image of 360.

use shaped::autograd::{Var, no_grad};
use shaped::distributed::{
    Collectives, Communicator, DataParallel, DistributedSampler, MpiComm, ReduceOp,
};
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, accuracy, cross_entropy};
use shaped::{Const, Dim, Dyn, Shape, Tensor};

type Pixels = Const<64>;
type Classes = Const<10>;

/// Images per optimizer step, over all ranks (divisible by 1, 2, 3, 4, 6).
const GLOBAL_BATCH: usize = 96;
const EPOCHS: u64 = 30;
const SEED: u64 = 0x2545_F491;

#[derive(Parameters)]
struct Mlp {
    hidden: Linear<Pixels, Const<128>>,
    out: Linear<Const<128>, Classes>,
}

impl Mlp {
    fn new(seed: u64) -> Self {
        Mlp {
            hidden: Linear::new(seed),
            out: Linear::new(seed + 1),
        }
    }

    fn forward<B: Dim>(&self, x: &Var<f32, (B, Pixels)>) -> Var<f32, (B, Classes)> {
        self.out.forward(&self.hidden.forward(x).relu())
    }
}

/// Images `(N, 64)` in `[0, 1]` and labels of one split of `data/digits/`.
fn split(name: &str) -> (Vec<f32>, Vec<i64>) {
    let read = |what: &str| {
        let path = format!(
            "{}/data/digits/{name}_{what}.npy",
            env!("CARGO_MANIFEST_DIR")
        );
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let npy = npyz::NpyFile::new(&bytes[..]).expect("a .npy file");
        npy.into_vec::<u8>().expect("uint8 data")
    };
    let x = read("images")
        .iter()
        .map(|&p| f32::from(p) / 16.0)
        .collect();
    (x, read("labels").into_iter().map(i64::from).collect())
}

/// A mini-batch: images and labels.
type Batch = (Var<f32, (Dyn, Pixels)>, Tensor<i64, (Dyn,)>);

/// The mini-batch of rows `rows`.
fn batch(x: &[f32], y: &[i64], rows: &[usize]) -> Batch {
    let xb = rows
        .iter()
        .flat_map(|&r| x[r * 64..(r + 1) * 64].to_vec())
        .collect();
    let yb = rows.iter().map(|&r| y[r]).collect();
    (
        Var::constant(Tensor::try_from_vec(xb, &[rows.len(), 64]).expect("64 pixels a row")),
        Tensor::try_from_vec(yb, &[rows.len()]).expect("a label a row"),
    )
}

/// Held-out accuracy of `model`.
fn held_out(model: &Mlp, x: &Var<f32, Shape![360, 64]>, y: &Tensor<i64, Shape![360]>) -> f64 {
    let _eval = no_grad();
    accuracy(model.forward(x).value(), y)
}

/// One process, batches of [`GLOBAL_BATCH`] in the order all ranks together
/// visit: the reference the data-parallel run must match.
fn train_alone(sampler: &DistributedSampler, x: &[f32], y: &[i64]) -> Mlp {
    let mut model = Mlp::new(0);
    let mut opt = Adam::new(1e-2);
    for epoch in 0..EPOCHS {
        for rows in sampler.global_order(epoch).chunks(GLOBAL_BATCH) {
            let (xb, yb) = batch(x, y, rows);
            let grads = cross_entropy(&model.forward(&xb), &yb, Mean).backward();
            opt.step(&mut model, &grads);
        }
    }
    model
}

fn main() {
    let check = std::env::args().any(|a| a == "--check");
    let comm = MpiComm::init().expect("MPI starts");
    let (rank, world) = (comm.rank(), comm.world_size());
    if !GLOBAL_BATCH.is_multiple_of(world) {
        eprintln!("the global batch of {GLOBAL_BATCH} does not split into {world} ranks");
        std::process::exit(2);
    }
    let per_rank = GLOBAL_BATCH / world;
    let (train_x, train_y) = split("train");
    let (test_x, test_y) = split("test");
    let test_x = Var::constant(Tensor::<f32, Shape![360, 64]>::from_vec(test_x));
    let test_y = Tensor::<i64, Shape![360]>::from_vec(test_y);

    let sampler = DistributedSampler::new(train_y.len(), rank, world).seed(SEED);
    let mut model = DataParallel::new(Mlp::new(rank as u64 * 1000), comm);
    let mut opt = Adam::new(1e-2);
    if rank == 0 {
        println!("{world} ranks, {per_rank} images each per step of {GLOBAL_BATCH}");
    }
    let start = std::time::Instant::now();
    let mut acc = 0.0;
    for epoch in 0..EPOCHS {
        // Loss summed over this rank's images, and their count.
        let mut totals = Tensor::<f64, Shape![2]>::zeros();
        for rows in sampler.indices(epoch).chunks(per_rank) {
            let (x, y) = batch(&train_x, &train_y, rows);
            let loss = cross_entropy(&model.forward(&x), &y, Mean);
            let seen = Tensor::<f64, Shape![2]>::from_vec(vec![
                f64::from(loss.value().item()) * rows.len() as f64,
                rows.len() as f64,
            ]);
            totals += &seen;
            let mut grads = loss.backward();
            drop(loss);
            model.all_reduce_gradients(&mut grads);
            opt.step(&mut model, &grads);
        }
        model.comm_ref().all_reduce_(&mut totals, ReduceOp::Sum);
        acc = held_out(&model, &test_x, &test_y);
        if rank == 0 {
            let t = totals.to_vec();
            println!(
                "epoch {:2}  train loss {:.4}  held-out accuracy {:5.1}%",
                epoch + 1,
                t[0] / t[1],
                100.0 * acc
            );
        }
    }
    if rank == 0 {
        println!(
            "trained {EPOCHS} epochs on {world} ranks in {:.2} s; held-out accuracy {:.1}%",
            start.elapsed().as_secs_f32(),
            100.0 * acc
        );
    }
    assert!(acc >= 0.95, "held-out accuracy below 95%");
    if check && rank == 0 {
        let alone = train_alone(&sampler, &train_x, &train_y);
        let acc_alone = held_out(&alone, &test_x, &test_y);
        let diff = alone
            .params()
            .iter()
            .zip(model.params())
            .map(|(a, b)| {
                let (a, b) = (a.value().to_vec(), b.value().to_vec());
                let scale = a.iter().fold(0f32, |m, v| m.max(v.abs()));
                a.iter()
                    .zip(&b)
                    .map(|(p, q)| (p - q).abs() / scale)
                    .fold(0f32, f32::max)
            })
            .fold(0f32, f32::max);
        println!(
            "one process, batch {GLOBAL_BATCH}: held-out accuracy {:.1}% (data parallel: {:.1}%); \
             largest parameter difference {diff:.1e} of the largest parameter",
            100.0 * acc_alone,
            100.0 * acc
        );
        assert!(
            (acc_alone - acc).abs() <= 1.0 / 360.0 + 1e-9,
            "data-parallel and single-process accuracies differ"
        );
    }
    model.comm_ref().barrier();
}
