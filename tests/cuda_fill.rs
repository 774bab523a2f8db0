//! The `*_like` constructors (`zeros_like`, `ones_like`, `full_like`,
//! `rand_like`, `randn_like`), written once over the device through
//! `backend::Fill`: on CUDA they give the CPU's values and the like
//! tensor's sizes (transposed, expanded and zero-size like tensors
//! included), in a contiguous tensor on the like tensor's GPU; and code
//! generic over the device makes its tensors beside its input. Without a
//! GPU each test prints "skipped: no CUDA device" and returns (or fails,
//! when `SHAPED_REQUIRE_CUDA` is set).
#![cfg(feature = "cuda")]

use shaped::backend::Fill;
use shaped::{DynRank, Tensor};

mod common;
use common::cuda::device;

/// An initialisation written once over the device: a weight of `like`'s
/// sizes, uniform in `[-1, 1)`, on `like`'s device.
fn init<D: Fill<f64> + shaped::backend::Backend<f64>>(
    like: &Tensor<f64, DynRank, D>,
    seed: u64,
) -> Tensor<f64, DynRank, D> {
    let u = like.rand_like(seed);
    &(&u * 2.0) - 1.0
}

#[test]
fn like_constructors_match_cpu() {
    let Some(dev) = device() else { return };
    let base = Tensor::<f64, DynRank>::try_zeros(&[3, 4]).unwrap();
    let likes = [
        base.share(),
        base.permute(&[1, 0]).unwrap(),
        Tensor::<f64, DynRank>::try_zeros(&[1, 4])
            .unwrap()
            .expand(&[5, 4])
            .unwrap(),
        Tensor::<f64, DynRank>::try_zeros(&[2, 0, 3]).unwrap(),
    ];
    for cpu in &likes {
        let gpu = cpu.to_device(&dev).unwrap();
        let same =
            |what: &str, g: Tensor<f64, DynRank, shaped::device::Cuda>, c: Tensor<f64, DynRank>| {
                assert!(g.is_contiguous(), "{what}");
                assert_eq!(g.dims(), cpu.dims(), "{what}: sizes");
                let back = g.to_cpu().unwrap().to_vec();
                let want = c.to_vec();
                assert_eq!(back.len(), want.len(), "{what}");
                for (i, (x, y)) in back.iter().zip(&want).enumerate() {
                    assert!(
                        (x - y).abs() <= 1e-12 * y.abs().max(1.0),
                        "{what}: element {i}: cuda {x} cpu {y}"
                    );
                }
            };
        same("zeros_like", gpu.zeros_like(), cpu.zeros_like());
        same("ones_like", gpu.ones_like(), cpu.ones_like());
        same("full_like", gpu.full_like(-2.5), cpu.full_like(-2.5));
        same("rand_like", gpu.rand_like(7), cpu.rand_like(7));
        same("randn_like", gpu.randn_like(8), cpu.randn_like(8));
        same("generic init", init(&gpu, 3), init(cpu, 3));
    }
}
