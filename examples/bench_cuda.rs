//! Timing harness for the CUDA backend, run on a GPU machine beside
//! `benches/compare_cuda.py` (PyTorch on the same GPU). Prints one line per
//! case, `name<TAB>median nanoseconds per call` (each call synchronised),
//! plus the device-to-device copy bandwidth measured in the same process.
//! The elementwise cases are the broadcast-add cases of
//! `examples/bench_elementwise.rs`.
//!
//! `cargo run --release --features cuda --example bench_cuda`

use std::time::Instant;

use shaped::device::{Cuda, CudaDevice};
use shaped::{Shape, Tensor};

/// Median time per call of `f` in nanoseconds over `reps` batches of
/// `inner` calls, the device synchronised after each batch (one warm-up
/// batch first, which also compiles the kernels).
fn median_ns(dev: &CudaDevice, reps: usize, inner: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..inner {
        f();
    }
    dev.synchronize().unwrap();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..inner {
                f();
            }
            dev.synchronize().unwrap();
            start.elapsed().as_nanos() as f64 / inner as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() {
    let dev = match Cuda::device(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("skipped: no CUDA device ({e})");
            // On the GPU machine (`run.sh` sets this) a missing GPU is a failure.
            if std::env::var_os("SHAPED_REQUIRE_CUDA").is_some() {
                std::process::exit(1);
            }
            return;
        }
    };
    println!("device\t{}", dev.name());
    println!(
        "dtod_copy_GBps\t{:.1}",
        dev.copy_bandwidth(256 << 20, 21).unwrap()
    );

    let a = Tensor::<f32, Shape![4096, 4096]>::rand(1)
        .to_device(&dev)
        .unwrap();
    let b = Tensor::<f32, Shape![4096, 4096]>::rand(2)
        .to_device(&dev)
        .unwrap();
    let mut out = Tensor::<f32, Shape![4096, 4096]>::zeros()
        .to_device(&dev)
        .unwrap();
    println!(
        "same_alloc\t{:.0}",
        median_ns(&dev, 21, 10, || drop(&a + &b))
    );
    println!(
        "same_out\t{:.0}",
        median_ns(&dev, 21, 10, || a.add_out(&b, &mut out).unwrap())
    );

    let col = Tensor::<f32, Shape![4096, 1]>::rand(3)
        .to_device(&dev)
        .unwrap();
    let row = Tensor::<f32, Shape![1, 4096]>::rand(4)
        .to_device(&dev)
        .unwrap();
    println!(
        "outer_alloc\t{:.0}",
        median_ns(&dev, 21, 10, || drop(&col + &row))
    );
    println!(
        "outer_out\t{:.0}",
        median_ns(&dev, 21, 10, || col.add_out(&row, &mut out).unwrap())
    );

    let v = Tensor::<f32, Shape![4096]>::rand(5)
        .to_device(&dev)
        .unwrap();
    println!(
        "row_alloc\t{:.0}",
        median_ns(&dev, 21, 10, || drop(&a + &v))
    );
    println!(
        "row_out\t{:.0}",
        median_ns(&dev, 21, 10, || a.add_out(&v, &mut out).unwrap())
    );

    let p = Tensor::<f32, Shape![256, 1, 1024]>::rand(6)
        .to_device(&dev)
        .unwrap();
    let q = Tensor::<f32, Shape![1, 256, 1024]>::rand(7)
        .to_device(&dev)
        .unwrap();
    let mut out3 = Tensor::<f32, Shape![256, 256, 1024]>::zeros()
        .to_device(&dev)
        .unwrap();
    println!(
        "batch_alloc\t{:.0}",
        median_ns(&dev, 21, 5, || drop(&p + &q))
    );
    println!(
        "batch_out\t{:.0}",
        median_ns(&dev, 21, 5, || p.add_out(&q, &mut out3).unwrap())
    );

    let s = Tensor::<f32, Shape![8, 8]>::rand(8)
        .to_device(&dev)
        .unwrap();
    let t = Tensor::<f32, Shape![8]>::rand(9).to_device(&dev).unwrap();
    let mut o = Tensor::<f32, Shape![8, 8]>::zeros()
        .to_device(&dev)
        .unwrap();
    println!(
        "small_alloc\t{:.1}",
        median_ns(&dev, 21, 2000, || drop(&s + &t))
    );
    println!(
        "small_out\t{:.1}",
        median_ns(&dev, 21, 2000, || s.add_out(&t, &mut o).unwrap())
    );

    // Fused chains (the cases of `examples/bench_fused.rs`): `b, d: (4096,)`,
    // `c, e: (4096, 1)`, against the single broadcast add `row_out` above.
    let c = Tensor::<f32, Shape![4096, 1]>::rand(14)
        .to_device(&dev)
        .unwrap();
    let d = Tensor::<f32, Shape![4096]>::rand(15)
        .to_device(&dev)
        .unwrap();
    let e = Tensor::<f32, Shape![4096, 1]>::rand(16)
        .to_device(&dev)
        .unwrap();
    println!(
        "add_fused_out\t{:.0}",
        median_ns(&dev, 21, 10, || (a.lazy() + &v)
            .eval_into(&mut out)
            .unwrap())
    );
    println!(
        "chain3_eager\t{:.0}",
        median_ns(&dev, 21, 10, || drop(a.mul(&v).add(&c).relu()))
    );
    println!(
        "chain3_fused\t{:.0}",
        median_ns(&dev, 21, 10, || drop((a.lazy() * &v + &c).relu().eval()))
    );
    println!(
        "chain3_fused_out\t{:.0}",
        median_ns(&dev, 21, 10, || (a.lazy() * &v + &c)
            .relu()
            .eval_into(&mut out)
            .unwrap())
    );
    println!(
        "chain6_eager\t{:.0}",
        median_ns(&dev, 21, 10, || drop(
            a.mul(&v).add(&c).gelu().mul(&d).sub(&e)
        ))
    );
    println!(
        "chain6_fused\t{:.0}",
        median_ns(&dev, 21, 10, || drop(
            ((a.lazy() * &v + &c).gelu() * &d - &e).eval()
        ))
    );
    println!(
        "chain6_fused_out\t{:.0}",
        median_ns(&dev, 21, 10, || ((a.lazy() * &v + &c).gelu() * &d - &e)
            .eval_into(&mut out)
            .unwrap())
    );
    println!(
        "chain6m_fused_out\t{:.0}",
        median_ns(&dev, 21, 10, || ((a.lazy() * &v + &c).relu() * &d - &e)
            .abs()
            .eval_into(&mut out)
            .unwrap())
    );
    println!(
        "sum1\t{:.0}",
        median_ns(&dev, 21, 10, || drop(a.sum_dim::<1>()))
    );
    println!(
        "mulsum1_eager\t{:.0}",
        median_ns(&dev, 21, 10, || drop(a.mul(&v).sum_dim::<1>()))
    );
    println!(
        "mulsum1_fused\t{:.0}",
        median_ns(&dev, 21, 10, || drop((a.lazy() * &v).sum_dim::<1>()))
    );

    for n in [256usize, 1024, 2048] {
        let x = Tensor::<f32, shaped::DynRank>::try_rand(&[n, n], 10)
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let y = Tensor::<f32, shaped::DynRank>::try_rand(&[n, n], 11)
            .unwrap()
            .to_device(&dev)
            .unwrap();
        let reps = if n == 2048 { 20 } else { 100 };
        println!(
            "matmul_{n}\t{:.0}",
            median_ns(&dev, 11, reps, || drop(x.matmul(&y)))
        );
    }
    let x = Tensor::<f32, Shape![16, 256, 256]>::rand(12)
        .to_device(&dev)
        .unwrap();
    let y = Tensor::<f32, Shape![256, 256]>::rand(13)
        .to_device(&dev)
        .unwrap();
    println!(
        "matmul_batched_16x256\t{:.0}",
        median_ns(&dev, 11, 100, || drop(x.matmul(&y)))
    );
}
