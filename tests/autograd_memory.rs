//! The backward pass of `(4096, 4096) + (4096,)` never materialises the
//! broadcast bias: the bias gradient is `sum_to` of the upstream gradient,
//! reduced in place of a copy. Measured by counting the bytes allocated
//! while `backward` runs, with a counting global allocator (this file is its
//! own test binary, with one test, so nothing else allocates meanwhile).

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use shaped::autograd::Var;
use shaped::{Shape, Tensor};

use counting_alloc::{Counting, allocated_by};

#[global_allocator]
static GLOBAL: Counting = Counting;

const N: usize = 4096;
const FULL: usize = N * N * 4; // bytes of one 4096x4096 f32 tensor

#[test]
fn bias_gradient_is_summed_not_materialised() {
    let x = Var::param(Tensor::<f32, Shape![4096, 4096]>::full(0.5));
    let b = Var::param(Tensor::<f32, Shape![4096]>::from_vec(
        (0..N).map(|i| i as f32).collect(),
    ));

    // 1. loss = (x + b).sum(): the upstream gradient of x + b is an expanded
    //    1 (sum's gradient), x's gradient is that view, and b's is its
    //    sum_to: backward allocates a few KiB, not 64 MiB.
    let loss = x.add(&b).sum();
    let (grads, bytes) = allocated_by(|| loss.backward());
    println!("(x + b).sum(): backward allocated {bytes} bytes");
    assert!(bytes < 1 << 20, "backward allocated {bytes} bytes");
    let gb: Tensor<f32, Shape![4096]> = grads.wrt(&b).unwrap();
    assert!(gb.to_vec().iter().all(|&g| g == 4096.0));
    assert_eq!(grads.wrt(&x).unwrap().strides(), &[0, 0]);

    // 2. loss = (x + b)².sum(): now the upstream gradient of x + b is a real
    //    4096x4096 tensor (2(x + b)), allocated once; the bias gradient is
    //    reduced from it, so the total stays one full tensor plus a little,
    //    where materialising the broadcast bias would add another 64 MiB.
    let loss = x.add(&b).square().sum();
    let (grads, bytes) = allocated_by(|| loss.backward());
    println!(
        "(x + b).square().sum(): backward allocated {bytes} bytes (one 4096x4096 f32 is {FULL})"
    );
    assert!(
        bytes < FULL + (1 << 20),
        "backward allocated {bytes} bytes, one full tensor is {FULL}"
    );
    let gb = grads.wrt(&b).unwrap().to_vec();
    // d/db_j Σ_i (0.5 + j)² = 4096 · 2 (0.5 + j).
    for (j, &g) in gb.iter().enumerate().step_by(511) {
        let want = N as f64 * 2.0 * (0.5 + j as f64);
        assert!(
            ((g as f64 - want) / want).abs() < 1e-5,
            "b[{j}]: {g} vs {want}"
        );
    }
}
