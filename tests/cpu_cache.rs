//! The CPU's caching allocator (`Cpu::cached_bytes`, `Cpu::set_cache_limit`,
//! `Cpu::empty_cache`): a dropped tensor's buffer serves the next tensor of
//! its size class, so a training loop's steps after the first take (almost)
//! nothing from the system allocator. Measured with a counting global
//! allocator, the independent reference for what reached the system; this
//! file is its own test binary with one test, so that nothing else
//! allocates or uses the cache meanwhile.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use shaped::autograd::Var;
use shaped::device::Cpu;
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, cross_entropy};
use shaped::{Const, Shape, Tensor};

use counting_alloc::{Counting, allocated_by};

#[global_allocator]
static GLOBAL: Counting = Counting;

#[derive(Parameters)]
struct Mlp {
    hidden: Linear<Const<784>, Const<256>>,
    out: Linear<Const<256>, Const<10>>,
}

/// The bytes the system allocator gave to the third of three training steps
/// of a 784-256-10 MLP at batch 64, and the loss of each step.
fn third_step_bytes() -> (usize, Vec<f32>) {
    let mut model = Mlp {
        hidden: Linear::new(0),
        out: Linear::new(1),
    };
    let mut opt = Adam::new(1e-3);
    let x = Var::constant(Tensor::<f32, Shape![64, 784]>::rand(2));
    let y = Tensor::<i64, Shape![64]>::from_vec((0..64).map(|i| i * 7 % 10).collect());
    let mut losses = Vec::new();
    let mut step = |losses: &mut Vec<f32>| {
        let logits = model.out.forward(&model.hidden.forward(&x).relu());
        let loss = cross_entropy(&logits, &y, Mean);
        losses.push(loss.item());
        let grads = loss.backward();
        drop(loss);
        opt.step(&mut model, &grads);
    };
    step(&mut losses);
    step(&mut losses);
    let ((), bytes) = allocated_by(|| step(&mut losses));
    (bytes, losses)
}

#[test]
fn freed_buffers_serve_the_next_tensor_of_their_class() {
    const BYTES: usize = 256 * 256 * 4;
    const HANDLE: usize = 1024;
    Cpu::empty_cache();
    assert_eq!(Cpu::cached_bytes(), 0);

    // The first buffer after the cache was emptied (or of the process),
    // of a size that is not a class (300 KiB), is allocated with its
    // class's capacity (320 KiB) and held when dropped: before, it was
    // allocated at its own size until some buffer had filled the cache,
    // and then never taken back, so every tensor of its size got fresh
    // pages (a convolution's 57.8 MB windows, every step).
    drop(Tensor::<f32, Shape![300, 256]>::ones());
    assert_eq!(Cpu::cached_bytes(), 320 << 10);
    Cpu::empty_cache();

    // A dropped 256 KiB tensor is held, and the next one of its size takes
    // its buffer: nothing from the system, and the elements are the new
    // tensor's, not the old ones. (The handle, an `Arc` of a few dozen
    // bytes, is all the system gives: `HANDLE` bounds it.)
    drop(Tensor::<f32, Shape![256, 256]>::ones());
    assert_eq!(Cpu::cached_bytes(), BYTES);
    let (z, bytes) = allocated_by(Tensor::<f32, Shape![256, 256]>::zeros);
    assert!(bytes < HANDLE, "{bytes}");
    assert_eq!(Cpu::cached_bytes(), 0);
    assert!(z.to_vec().iter().all(|&v| v == 0.0));

    // The same layout under another element type (i32 has f32's size and
    // alignment) reuses it too.
    drop(z);
    let (i, bytes) = allocated_by(|| Tensor::<i32, Shape![256, 256]>::full(7));
    assert!(bytes < HANDLE, "{bytes}");
    assert!(i.to_vec().iter().all(|&v| v == 7));

    // f64 of the same byte count has another alignment: a new buffer.
    drop(i);
    let (d, bytes) = allocated_by(|| Tensor::<f64, Shape![128, 256]>::full(0.5));
    assert!((BYTES..BYTES + HANDLE).contains(&bytes), "{bytes}");
    assert_eq!(Cpu::cached_bytes(), BYTES);
    drop(d);
    assert_eq!(Cpu::cached_bytes(), 2 * BYTES);

    // A request between classes is rounded up (300 * 256 f32 = 300 KiB
    // -> 320 KiB), and a view keeps its storage out of the cache until the
    // last owner goes.
    let (t, bytes) = allocated_by(|| Tensor::<f32, Shape![300, 256]>::full(1.0));
    assert!(
        (320 << 10..(320 << 10) + HANDLE).contains(&bytes),
        "{bytes}"
    );
    let row = t.select::<0>(5);
    drop(t);
    assert_eq!(Cpu::cached_bytes(), 2 * BYTES);
    assert_eq!(row.to_vec(), vec![1.0; 256]);
    drop(row);
    assert_eq!(Cpu::cached_bytes(), 2 * BYTES + (320 << 10));

    // Small tensors are left to the system allocator.
    drop(Tensor::<f32, Shape![64, 64]>::ones());
    assert_eq!(Cpu::cached_bytes(), 2 * BYTES + (320 << 10));

    // The limit frees what passes it, and 0 turns the cache off.
    let limit = Cpu::cache_limit();
    Cpu::set_cache_limit(BYTES + (320 << 10));
    assert!(Cpu::cached_bytes() <= BYTES + (320 << 10));
    Cpu::set_cache_limit(0);
    assert_eq!(Cpu::cached_bytes(), 0);
    drop(Tensor::<f32, Shape![256, 256]>::ones());
    assert_eq!(Cpu::cached_bytes(), 0);

    // A training step without the cache takes its temporaries from the
    // system every step (4.2 MB here); with it, the third step takes only
    // what is not a tensor: the GEMM crate's packing buffers (196 KiB per
    // product, three products) and the graph's bookkeeping (0.65 MB in
    // all). The losses are the same.
    let (uncached, losses) = third_step_bytes();
    Cpu::set_cache_limit(limit);
    let (cached, cached_losses) = third_step_bytes();
    assert_eq!(losses, cached_losses);
    assert!(uncached > 1 << 20, "{uncached} bytes");
    assert!(cached * 4 < uncached, "{cached} of {uncached} bytes");

    Cpu::empty_cache();
    assert_eq!(Cpu::cached_bytes(), 0);
}
