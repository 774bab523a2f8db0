//! All-reduce throughput: `shaped`'s `all_reduce_` on a 64 MiB `f32`
//! tensor against the MPI library's own `MPI_Allreduce` (through rsmpi) on
//! a raw buffer of the same size, in the same run, interleaved, median of
//! each. The difference is `shaped`'s overhead: its agreement check and
//! lock.
//!
//! ```text
//! cargo build --release --features mpi --example bench_allreduce
//! mpirun -np 2 target/release/examples/bench_allreduce [MiB] [reps]
//! ```

use std::time::Instant;

use mpi::collective::SystemOperation;
use mpi::traits::CommunicatorCollectives;
use shaped::distributed::{Collectives, Communicator, MpiComm, ReduceOp};
use shaped::{Dyn, Tensor};

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mib: usize = args.next().map_or(64, |a| a.parse().expect("MiB"));
    let reps: usize = args.next().map_or(15, |a| a.parse().expect("reps"));
    let comm = MpiComm::init().expect("MPI starts");
    let n = mib * (1 << 20) / 4;
    let mut tensor = Tensor::<f32, (Dyn,)>::try_full(&[n], 1.0).unwrap();
    let send = vec![1.0f32; n];
    let mut recv = vec![0.0f32; n];
    let world = comm.mpi_world();
    // Warm-up: first touch of every page, connection set-up.
    comm.all_reduce_(&mut tensor, ReduceOp::Sum);
    world.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum());
    let (mut ours, mut raw) = (Vec::new(), Vec::new());
    for _ in 0..reps {
        comm.barrier();
        let t = Instant::now();
        comm.all_reduce_(&mut tensor, ReduceOp::Sum);
        ours.push(t.elapsed().as_secs_f64());
        comm.barrier();
        let t = Instant::now();
        world.all_reduce_into(&send[..], &mut recv[..], SystemOperation::sum());
        raw.push(t.elapsed().as_secs_f64());
    }
    let (ours, raw) = (median(ours), median(raw));
    if comm.rank() == 0 {
        let gbs = |s: f64| (mib as f64 / 1024.0) / s;
        println!(
            "all-reduce of {mib} MiB f32 over {} ranks, median of {reps}: shaped all_reduce_ \
             {:.2} ms ({:.2} GiB/s), MPI_Allreduce {:.2} ms ({:.2} GiB/s): shaped at {:.0}% of MPI",
            comm.world_size(),
            ours * 1e3,
            gbs(ours),
            raw * 1e3,
            gbs(raw),
            100.0 * raw / ours
        );
    }
}
