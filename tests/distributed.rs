//! Collectives and data-parallel training over MPI (feature `mpi`), with 2
//! and 3 ranks on this one machine.
//!
//! Each `ranks_*` test starts `mpirun -np N` on this test binary, running
//! one of the `worker_*` tests (ignored in a plain run) in every rank; a
//! worker asserts its results against a single-process reference computed
//! with plain loops (or, for DDP, the same model trained on the whole batch
//! in one process), so a failed check is a non-zero exit of `mpirun`.
//! Without `mpirun` on the PATH, each prints "skipped: mpirun not found".

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shaped::autograd::Var;
use shaped::distributed::{
    Collectives, Communicator, DataParallel, DistError, DistributedSampler, MpiComm, MpiElement,
    ReduceOp, SingleProcess,
};
use shaped::nn::{Adam, BatchNorm1d, Linear, Mean, Optimizer, Parameters, Sgd, cross_entropy};
use shaped::{Const, Dim, Dyn, DynRank, Shape, Tensor};

// ---------------------------------------------------------------- launcher

/// `mpirun` and the flags this machine needs (Open MPI: more ranks than
/// cores, and root), or `None` when there is none.
fn mpirun() -> Option<Vec<String>> {
    let out = Command::new("mpirun").arg("--version").output().ok()?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let mut cmd = vec!["mpirun".to_string()];
    if text.contains("Open MPI") || text.contains("OpenRTE") {
        cmd.push("--oversubscribe".into());
    }
    Some(cmd)
}

/// Runs `worker` in `n` ranks under `mpirun`, with `env`; returns its exit
/// success and its output. Kills the job after `limit`: a test that hangs
/// fails instead.
fn run_ranks(n: usize, worker: &str, limit: Duration) -> Option<(bool, String)> {
    let Some(mut cmd) = mpirun() else {
        println!("skipped: mpirun not found");
        return None;
    };
    cmd.extend(["-np".into(), n.to_string()]);
    let exe = std::env::current_exe().expect("the test binary");
    let mut child = Command::new(&cmd[0])
        .args(&cmd[1..])
        .arg(exe)
        .args([
            worker,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mpirun starts");
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().expect("mpirun's status") {
            break Some(s);
        }
        if start.elapsed() > limit {
            child.kill().ok();
            child.wait().ok();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut out = String::new();
    child.stdout.take().unwrap().read_to_string(&mut out).ok();
    child.stderr.take().unwrap().read_to_string(&mut out).ok();
    println!("{out}");
    assert!(
        status.is_some(),
        "{worker} with {n} ranks did not finish within {limit:?}"
    );
    Some((status.unwrap().success(), out))
}

/// Runs `worker` in `n` ranks and requires that it succeeded.
fn ranks_pass(n: usize, worker: &str) {
    if let Some((ok, out)) = run_ranks(n, worker, Duration::from_secs(240)) {
        assert!(ok, "{worker} failed with {n} ranks:\n{out}");
        for r in 0..n {
            assert!(
                out.contains(&format!("rank {r}: {worker} ok")),
                "rank {r} did not finish:\n{out}"
            );
        }
    }
}

#[test]
fn ranks_collectives_2() {
    ranks_pass(2, "worker_collectives");
}

#[test]
fn ranks_collectives_3() {
    ranks_pass(3, "worker_collectives");
}

#[test]
fn ranks_mismatch_2() {
    ranks_pass(2, "worker_mismatch");
}

#[test]
fn ranks_mismatch_3() {
    ranks_pass(3, "worker_mismatch");
}

#[test]
fn ranks_ddp_2() {
    ranks_pass(2, "worker_ddp");
}

#[test]
fn ranks_ddp_3() {
    ranks_pass(3, "worker_ddp");
}

/// A rank that never joins: the other gets a timeout error (and aborts the
/// job), never a hang.
#[test]
fn ranks_timeout() {
    if let Some((_, out)) = run_ranks(2, "worker_timeout", Duration::from_secs(60)) {
        assert!(out.contains("rank 0: timeout ok"), "{out}");
    }
}

// ------------------------------------------------------- random references

/// A reproducible value of each element type from 64 random bits.
trait Sample: MpiElement {
    fn sample(bits: u64) -> Self;
    fn plus(self, o: Self) -> Self;
    fn close(self, o: Self) -> bool;
}

macro_rules! sample_float {
    ($($t:ty),*) => {$(impl Sample for $t {
        fn sample(bits: u64) -> Self { (bits % 20_001) as $t / 1000.0 - 10.0 }
        fn plus(self, o: Self) -> Self { self + o }
        fn close(self, o: Self) -> bool { (self - o).abs() <= 1e-5 * (1.0 + o.abs()) }
    })*};
}
macro_rules! sample_int {
    ($($t:ty),*) => {$(impl Sample for $t {
        fn sample(bits: u64) -> Self { (bits % 50) as $t }
        fn plus(self, o: Self) -> Self { self + o }
        fn close(self, o: Self) -> bool { self == o }
    })*};
}
sample_float!(f32, f64);
sample_int!(i32, i64, u8);

/// The `n` values of rank `rank` for case `salt`.
fn values<T: Sample>(rank: usize, salt: u64, n: usize) -> Vec<T> {
    let mut s = 0x9e37_79b9_7f4a_7c15_u64 ^ (salt << 20) ^ (rank as u64 + 1);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            T::sample(s)
        })
        .collect()
}

/// The reduction `op` of `xs` over ranks, element by element (plain loops).
fn reference<T: Sample>(op: ReduceOp, xs: &[Vec<T>]) -> Vec<T> {
    let mut acc = xs[0].clone();
    for x in &xs[1..] {
        for (a, &b) in acc.iter_mut().zip(x) {
            *a = match op {
                ReduceOp::Sum | ReduceOp::Mean => a.plus(b),
                ReduceOp::Max if b > *a => b,
                ReduceOp::Min if b < *a => b,
                _ => *a,
            };
        }
    }
    acc
}

fn assert_close<T: Sample>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: lengths");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(g.close(w), "{what}: element {i}: got {g}, expected {w}");
    }
}

const SHAPES: [&[usize]; 6] = [&[], &[7], &[3, 4], &[2, 3, 5], &[0, 3], &[1000]];

/// Every collective on `T` tensors of every shape of [`SHAPES`].
fn check_collectives<T: Sample>(comm: &MpiComm, salt: u64) {
    let (rank, world) = (comm.rank(), comm.world_size());
    for (case, dims) in SHAPES.iter().enumerate() {
        let n: usize = dims.iter().product();
        let salt = salt * 100 + case as u64;
        let all: Vec<Vec<T>> = (0..world).map(|r| values(r, salt, n)).collect();
        let mine = || Tensor::<T, DynRank>::try_from_vec(all[rank].clone(), dims).unwrap();
        let ops = [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min];
        for op in ops {
            let mut t = mine();
            comm.all_reduce_(&mut t, op);
            assert_close(
                &format!("all_reduce_ {op} {dims:?} {}", T::NAME),
                &t.to_vec(),
                &reference(op, &all),
            );
        }
        let root = world - 1;
        let mut t = mine();
        comm.broadcast_(&mut t, root);
        assert_close("broadcast_", &t.to_vec(), &all[root]);

        let g = comm.all_gather(&mine());
        let mut want_dims = vec![world];
        want_dims.extend_from_slice(dims);
        assert_eq!(g.dims(), &want_dims[..]);
        assert_close("all_gather", &g.to_vec(), &all.concat());

        // Each rank's stacked input: its own values for every destination.
        let stacked: Vec<Vec<T>> = (0..world)
            .map(|r| values(r, salt + 50, n * world))
            .collect();
        let input = Tensor::<T, DynRank>::try_from_vec(stacked[rank].clone(), &want_dims).unwrap();
        for op in ops {
            let got = comm.reduce_scatter(&input, op);
            let parts: Vec<Vec<T>> = stacked
                .iter()
                .map(|s| s[rank * n..(rank + 1) * n].to_vec())
                .collect();
            assert_eq!(got.dims(), *dims);
            assert_close("reduce_scatter", &got.to_vec(), &reference(op, &parts));
        }
    }
}

// ------------------------------------------------------------------ workers

#[test]
#[ignore = "run in every rank by the ranks_* tests under mpirun"]
fn worker_collectives() {
    let comm = MpiComm::init().unwrap();
    let (rank, world) = (comm.rank(), comm.world_size());
    check_collectives::<f32>(&comm, 1);
    check_collectives::<f64>(&comm, 2);
    check_collectives::<i32>(&comm, 3);
    check_collectives::<i64>(&comm, 4);
    check_collectives::<u8>(&comm, 5);

    // Mean of floats; static shapes; a non-contiguous view, reduced through
    // a copy and written back.
    let all: Vec<Vec<f32>> = (0..world).map(|r| values(r, 9, 6)).collect();
    let mut t = Tensor::<f32, Shape![2, 3]>::from_vec(all[rank].clone());
    comm.all_reduce_(&mut t, ReduceOp::Mean);
    let want: Vec<f32> = reference(ReduceOp::Sum, &all)
        .iter()
        .map(|x| x / world as f32)
        .collect();
    assert_close("mean", &t.to_vec(), &want);
    let base = Tensor::<f32, Shape![2, 3]>::from_vec(all[rank].clone());
    let mut tr = base.transpose::<0, 1>();
    comm.all_reduce_(&mut tr, ReduceOp::Sum);
    let sum = Tensor::<f32, Shape![2, 3]>::from_vec(reference(ReduceOp::Sum, &all));
    assert_close("transposed", &base.to_vec(), &sum.to_vec());
    let g: Tensor<f32, Shape![_, 2, 3]> =
        comm.all_gather(&Tensor::<f32, Shape![2, 3]>::from_vec(all[rank].clone()));
    assert_eq!(g.dims(), &[world, 2, 3]);
    comm.barrier();
    println!("rank {rank}: worker_collectives ok");
}

#[test]
#[ignore = "run in every rank by the ranks_* tests under mpirun"]
fn worker_mismatch() {
    let comm = MpiComm::init().unwrap();
    let (rank, world) = (comm.rank(), comm.world_size());
    // Shapes [2, 3], [2, 4], [2, 5] on ranks 0, 1, 2: the same error on
    // every rank, naming rank 0's shape and rank 1's.
    let mut t = Tensor::<f32, DynRank>::try_zeros(&[2, 3 + rank]).unwrap();
    let e = comm.try_all_reduce_(&mut t, ReduceOp::Sum).unwrap_err();
    assert_eq!(
        e.to_string(),
        "all_reduce_: the tensor on rank 0 has shape [2, 3] but the tensor on rank 1 has shape \
         [2, 4]; every rank must pass the same shape"
    );
    let g = comm.try_all_gather(&t).unwrap_err();
    assert!(matches!(g, DistError::ShapeMismatch { .. }), "{g}");
    // Another collective on rank 1, another element type on the last rank.
    let mut a = Tensor::<f32, DynRank>::try_zeros(&[4]).unwrap();
    let e = if rank == 1 {
        comm.try_broadcast_(&mut a, 0)
    } else {
        comm.try_all_reduce_(&mut a, ReduceOp::Sum)
    };
    assert_eq!(
        e.unwrap_err().to_string(),
        "all_reduce_: rank 0 called all_reduce_ but rank 1 called broadcast_; every rank must \
         call the same collectives in the same order"
    );
    let e = if rank == world - 1 {
        comm.try_all_reduce_(
            &mut Tensor::<i64, DynRank>::try_zeros(&[4]).unwrap(),
            ReduceOp::Sum,
        )
    } else {
        comm.try_all_reduce_(&mut a, ReduceOp::Sum)
    };
    assert!(
        e.unwrap_err()
            .to_string()
            .contains("of float32 but the tensor on rank")
    );
    // Errors of the call itself, the same on every rank.
    let e = comm.try_broadcast_(&mut a, world).unwrap_err();
    assert!(e.to_string().contains("is not a rank"), "{e}");
    let e = comm.try_reduce_scatter(&a, ReduceOp::Sum).unwrap_err();
    assert!(e.to_string().contains("one entry per rank"), "{e}");
    let mut ints = Tensor::<i32, DynRank>::try_zeros(&[2]).unwrap();
    let e = comm.try_all_reduce_(&mut ints, ReduceOp::Mean).unwrap_err();
    assert!(e.to_string().contains("floating-point"), "{e}");
    // The communicator still works after all of these.
    let mut one = Tensor::<f32, Shape![1]>::ones();
    comm.all_reduce_(&mut one, ReduceOp::Sum);
    assert_eq!(one.to_vec(), vec![world as f32]);
    println!("rank {rank}: worker_mismatch ok");
}

#[test]
#[ignore = "run in every rank by ranks_timeout under mpirun"]
fn worker_timeout() {
    let comm = MpiComm::init().unwrap();
    if comm.rank() == 0 {
        comm.set_timeout(Duration::from_secs(2));
        let mut t = Tensor::<f32, Shape![3]>::ones();
        let e = comm.try_all_reduce_(&mut t, ReduceOp::Sum).unwrap_err();
        assert!(matches!(e, DistError::Timeout { .. }), "{e}");
        assert!(
            e.to_string().contains("not every rank joined within"),
            "{e}"
        );
        let again = comm.try_all_reduce_(&mut t, ReduceOp::Sum).unwrap_err();
        assert!(again.to_string().contains("timed out"), "{again}");
        println!("rank 0: timeout ok");
        comm.abort(3);
    }
    // The other ranks never join; rank 0's abort ends them.
    std::thread::sleep(Duration::from_secs(50));
}

// --------------------------------------------------------------------- DDP

type In = Const<5>;
type Hid = Const<8>;
type Out = Const<3>;

#[derive(Parameters)]
struct Net {
    l1: Linear<In, Hid>,
    l2: Linear<Hid, Out>,
    /// Never used by the loss: no gradient on any rank, so no optimizer step.
    unused: Var<f32, Shape![2]>,
}

impl Net {
    fn new(seed: u64) -> Self {
        Net {
            l1: Linear::new(seed),
            l2: Linear::new(seed + 7),
            unused: Var::param(Tensor::ones()),
        }
    }

    fn loss<B: Dim>(&self, x: &Var<f32, (B, In)>, y: &Tensor<i64, (B,)>) -> Var<f32, ()> {
        cross_entropy(&self.l2.forward(&self.l1.forward(x).tanh()), y, Mean)
    }
}

/// A mini-batch: inputs and labels.
type Batch = (Var<f32, (Dyn, In)>, Tensor<i64, (Dyn,)>);

/// Rows `rows` of step `step`'s global batch.
fn batch(step: usize, rows: &[usize]) -> Batch {
    let x: Vec<f32> = values::<f32>(0, 1000 + step as u64, 5 * 64);
    let y: Vec<i64> = values::<i64>(0, 2000 + step as u64, 64)
        .iter()
        .map(|v| v % 3)
        .collect();
    let xb: Vec<f32> = rows
        .iter()
        .flat_map(|&r| x[r * 5..r * 5 + 5].to_vec())
        .collect();
    let yb: Vec<i64> = rows.iter().map(|&r| y[r]).collect();
    (
        Var::constant(Tensor::try_from_vec(xb, &[rows.len(), 5]).unwrap()),
        Tensor::try_from_vec(yb, &[rows.len()]).unwrap(),
    )
}

/// The largest difference between the parameters of `a` and `b`, relative
/// to the largest magnitude of `b`'s, parameter by parameter.
fn max_relative(a: &impl Parameters<f32>, b: &impl Parameters<f32>) -> f64 {
    a.params()
        .iter()
        .zip(b.params())
        .map(|(p, q)| {
            let (p, q) = (p.value().to_vec(), q.value().to_vec());
            let scale = q
                .iter()
                .fold(0f32, |m, v| m.max(v.abs()))
                .max(f32::MIN_POSITIVE);
            p.iter()
                .zip(&q)
                .map(|(x, y)| f64::from((x - y).abs() / scale))
                .fold(0.0, f64::max)
        })
        .fold(0.0, f64::max)
}

/// 20 steps of `opt` with per-rank batch `b` under DDP, against one process
/// with batch `world · b`; returns the largest relative difference.
fn ddp_vs_one<O: Optimizer<f32>>(
    comm: MpiComm,
    mk: impl Fn() -> O,
    b: usize,
    bucket: usize,
) -> (f64, MpiComm) {
    let (rank, world) = (comm.rank(), comm.world_size());
    // Every rank starts from other values: rank 0's are broadcast.
    let ddp = DataParallel::new(Net::new(rank as u64 * 100), comm).bucket_bytes(bucket);
    let mut ddp = ddp;
    let mut reference = Net::new(0);
    let (mut opt, mut opt_ref) = (mk(), mk());
    for step in 0..20 {
        // Rank r's shard of the global batch, as DistributedSampler deals.
        let global: Vec<usize> = (0..world * b).map(|i| (i * 7 + step) % 64).collect();
        let mine: Vec<usize> = global.iter().copied().skip(rank).step_by(world).collect();
        let (x, y) = batch(step, &mine);
        let mut grads = ddp.loss(&x, &y).backward();
        ddp.all_reduce_gradients(&mut grads);
        assert!(grads.wrt(&ddp.unused).is_none());
        opt.step(&mut ddp, &grads);

        let (x, y) = batch(step, &global);
        let grads = reference.loss(&x, &y).backward();
        opt_ref.step(&mut reference, &grads);
    }
    let diff = max_relative(&*ddp, &reference);
    let (_, comm) = ddp.into_parts();
    (diff, comm)
}

#[test]
#[ignore = "run in every rank by the ranks_* tests under mpirun"]
fn worker_ddp() {
    let comm = MpiComm::init().unwrap();
    let rank = comm.rank();
    let (sgd, comm) = ddp_vs_one(comm, || Sgd::new(0.2).momentum(0.9), 8, 64);
    let (adam, comm) = ddp_vs_one(
        comm,
        || Adam::new(1e-2),
        5,
        shaped::distributed::DEFAULT_BUCKET_BYTES,
    );
    println!(
        "rank {rank}: after 20 steps, max relative difference to one process: SGD {sgd:.2e}, Adam {adam:.2e}"
    );
    assert!(sgd <= 1e-5 && adam <= 1e-5, "SGD {sgd}, Adam {adam}");
    // Buffers (a batch norm's running statistics) start from rank 0's too.
    let bn: BatchNorm1d<Const<3>> = BatchNorm1d::new();
    bn.running_mean.share().fill_(rank as f32 + 1.0);
    let ddp = DataParallel::new(bn, comm);
    assert_eq!(ddp.running_mean.to_vec(), vec![1.0; 3], "rank {rank}");
    // And again on request, after each rank's statistics moved apart
    // (each rank's own batch in training mode, then a drift of its own).
    let x =
        Tensor::<f32, Shape![4, 3]>::from_vec((0..12).map(|i| (i * (rank + 1)) as f32).collect());
    let _ = ddp.forward(&Var::constant(x));
    ddp.running_var.share().fill_(rank as f32 + 10.0);
    ddp.broadcast_buffers();
    assert_eq!(ddp.running_var.to_vec(), vec![10.0; 3], "rank {rank}");
    let mean = ddp.running_mean.to_vec();
    let rank0_mean: Vec<f32> = (0..3).map(|c| 0.9 + 0.1 * (c as f32 + 4.5)).collect();
    let off = mean
        .iter()
        .zip(&rank0_mean)
        .map(|(a, b)| (a - b).abs())
        .fold(0f32, f32::max);
    assert!(
        off < 1e-6,
        "rank {rank}: running mean {mean:?}, rank 0's {rank0_mean:?}"
    );
    ddp.comm_ref().barrier();
    println!("rank {rank}: worker_ddp ok");
}

// ------------------------------------------------- without mpirun (1 rank)

#[test]
fn sampler_shards_cover_the_global_order() {
    for world in 1..=4 {
        let s = DistributedSampler::new(23, 0, world).seed(3);
        let order = s.global_order(5);
        let b = 2;
        let shards: Vec<Vec<usize>> = (0..world)
            .map(|r| DistributedSampler::new(23, r, world).seed(3).indices(5))
            .collect();
        for k in 0..shards[0].len().div_ceil(b) {
            let mut union: Vec<usize> = shards
                .iter()
                .flat_map(|s| s.iter().skip(k * b).take(b).copied())
                .collect();
            let mut want = order[k * b * world..((k + 1) * b * world).min(order.len())].to_vec();
            union.sort();
            want.sort();
            assert_eq!(union, want, "world {world}, batch {k}");
        }
    }
}

#[test]
fn single_process_ddp_is_plain_training() {
    let mut ddp = DataParallel::new(Net::new(1), SingleProcess).bucket_bytes(16);
    let mut plain = Net::new(1);
    let (mut o1, mut o2) = (Adam::new(1e-2), Adam::new(1e-2));
    for step in 0..5 {
        let (x, y) = batch(step, &(0..16).collect::<Vec<_>>());
        let mut g = ddp.loss(&x, &y).backward();
        ddp.all_reduce_gradients(&mut g);
        o1.step(&mut ddp, &g);
        let g = plain.loss(&x, &y).backward();
        o2.step(&mut plain, &g);
    }
    assert_eq!(max_relative(&*ddp, &plain), 0.0);
}
