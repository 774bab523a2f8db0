//! The CPU evaluation of fused expressions (`backend/cpu/fused.rs`)
//! driven through the typed front, on small tensors (Miri runs these):
//! every path of its block loop and reductions over contiguous, transposed,
//! expanded, offset and zero-size leaves, existing outputs (strided, on a
//! leaf's storage, streamed at every alignment), and short blocks of
//! several element types sharing a thread's arena. The backend's own unit
//! tests (the scratch stack, steps and runs) need no tensor and stay there.

use crate::backend::cpu::fused::{BLOCK, eval, eval_into, reduce, set_light_wide, write_into};
use crate::backend::cpu::isa::light_wide_default;
use crate::backend::cpu::reducers::{Extreme, Sum};
use crate::backend::fused::Node;
use crate::device::Cpu;
use crate::element::{Element, Numeric};
use crate::{DynRank, Shape, Tensor};

/// Every path of `run` and `reduce` on small tensors (Miri runs these):
/// contiguous, transposed (a gathered block), expanded (stride 0) and
/// offset leaves; a strided existing output; a leaf on the output's
/// storage; zero-size sizes; reductions over each axis and all.
#[test]
fn evaluations_read_and_write_only_their_elements() {
    let base =
        Tensor::<f64, DynRank>::try_from_vec((0..40).map(f64::from).collect(), &[4, 10]).unwrap();
    let t: Tensor<f64, DynRank> = base.permute(&[1, 0]).unwrap(); // (10, 4), strides (1, 10)
    let n: Tensor<f64, DynRank> = base.narrow(1, 3, 4).unwrap(); // (4, 4) at offset 3
    let row = Tensor::<f64, DynRank>::try_from_vec(vec![1., -1., 2., -2.], &[1, 4]).unwrap();
    let x: Tensor<f64, DynRank> = row.expand(&[10, 4]).unwrap();
    let v = (t.lazy() * &x - 3.0).relu().eval();
    let want: Vec<f64> = (0..40)
        .map(|i| {
            let (r, c) = (i / 4, i % 4);
            ((c * 10 + r) as f64 * [1., -1., 2., -2.][c] - 3.0).max(0.0)
        })
        .collect();
    assert_eq!(v.to_vec(), want);
    // Into a transposed existing output: strided stores.
    let store = Tensor::<f64, DynRank>::try_zeros(&[4, 4]).unwrap();
    let out: Tensor<f64, DynRank> = store.permute(&[1, 0]).unwrap();
    eval_into(&(n.lazy() + 1.0).node().erased(), out.layout()).unwrap();
    assert_eq!(
        out.to_vec(),
        n.to_vec().iter().map(|x| x + 1.0).collect::<Vec<_>>()
    );
    // A leaf on the output's storage.
    let y = Tensor::<f64, Shape![3]>::from_vec(vec![1., 2., 3.]);
    let ys = y.share();
    eval_into(&(ys.lazy() * &ys).node().erased(), y.layout()).unwrap();
    assert_eq!(y.to_vec(), [1., 4., 9.]);
    // Zero-size.
    let z = Tensor::<f64, DynRank>::try_zeros(&[0, 4]).unwrap();
    let v: Tensor<f64, DynRank> =
        Tensor::from_output(eval(&(z.lazy() + &row).node().erased()).unwrap()).unwrap();
    assert_eq!(v.dims(), &[0, 4]);
    // Reductions: every axis, each axis.
    let e = (t.lazy() - &x).abs();
    let full: Vec<f64> = e.eval().to_vec();
    let (all, _) = reduce(&e.node().erased(), &Sum { divisor: None }, &[true, true]).unwrap();
    assert_eq!(all, [full.iter().sum::<f64>()]);
    let (rows, _) = reduce(&e.node().erased(), &Sum { divisor: None }, &[false, true]).unwrap();
    assert_eq!(
        rows,
        full.chunks(4).map(|c| c.iter().sum()).collect::<Vec<f64>>()
    );
    let (cols, _) = reduce(&e.node().erased(), &Extreme::<true>, &[true, false]).unwrap();
    let want: Vec<f64> = (0..4)
        .map(|c| (0..10).map(|r| full[r * 4 + c]).fold(f64::MIN, f64::max))
        .collect();
    assert_eq!(cols, want);
    // Whole blocks fold in the expression's loop.
    let long = Tensor::<f64, DynRank>::try_from_vec(
        (0..2 * BLOCK).map(|i| (i % 13) as f64).collect(),
        &[2, BLOCK],
    )
    .unwrap();
    let (sums, _) = reduce(
        &(long.lazy() * 2.0).node().erased(),
        &Sum { divisor: None },
        &[false, true],
    )
    .unwrap();
    let want: Vec<f64> = (0..2)
        .map(|r| {
            (0..BLOCK)
                .map(|j| ((r * BLOCK + j) % 13) as f64 * 2.0)
                .sum()
        })
        .collect();
    assert_eq!(sums, want);
    // A column leaf (stride 0 along rows longer than a block): its lane
    // is filled once per row and kept across the row's blocks, the last
    // one short; a new row's value replaces it.
    let w = BLOCK + 5;
    let wide = Tensor::<f64, DynRank>::try_from_vec(
        (0..3 * w).map(|i| (i % 11) as f64).collect(),
        &[3, w],
    )
    .unwrap();
    let col = Tensor::<f64, DynRank>::try_from_vec(vec![1., 10., 100.], &[3, 1]).unwrap();
    let e = wide.lazy() * &col + &col;
    let want: Vec<f64> = (0..3 * w)
        .map(|i| (i % 11) as f64 * [1., 10., 100.][i / w] + [1., 10., 100.][i / w])
        .collect();
    assert_eq!(e.eval().to_vec(), want);
    let (sums, _) = reduce(&e.node().erased(), &Sum { divisor: None }, &[false, true]).unwrap();
    assert_eq!(
        sums,
        want.chunks(w).map(|r| r.iter().sum()).collect::<Vec<f64>>()
    );
    // Column sums (the inner axis kept): blocks along each row, the
    // last one short, added into one row of accumulators.
    let (cols, cdims) = reduce(&e.node().erased(), &Sum { divisor: None }, &[true, false]).unwrap();
    let want_cols: Vec<f64> = (0..w)
        .map(|j| (0..3).map(|r| want[r * w + j]).sum())
        .collect();
    assert_eq!((cols, cdims.to_vec()), (want_cols, vec![3, w]));
    let (none, dims) = reduce(
        &(z.lazy() * 2.0).node().erased(),
        &Sum { divisor: None },
        &[true, false],
    )
    .unwrap();
    assert_eq!((none, dims.to_vec()), (vec![0.0; 4], vec![0, 4]));
}

#[test]
fn short_blocks_of_other_types_reuse_a_padded_region() {
    // Short blocks pad their leaf's region once per element type; a
    // region padded for f32 then written by f64 and i64 gathers, and
    // shorter f32 blocks after them, give the eager values each time
    // (the same thread's arena serves every evaluation here).
    let f = |n: usize, k: f32| {
        let a = Tensor::<f32, DynRank>::try_from_vec((0..n).map(|i| i as f32 * k).collect(), &[n])
            .unwrap();
        let want: Vec<f32> = a.to_vec().iter().map(|x| x * x + 1.0).collect();
        assert_eq!((a.lazy() * &a + 1.0f32).eval().to_vec(), want);
    };
    f(10, 0.5);
    let d = Tensor::<f64, DynRank>::try_from_vec((0..7).map(f64::from).collect(), &[7]).unwrap();
    assert_eq!(
        (d.lazy() - 2.0).eval().to_vec(),
        [-2., -1., 0., 1., 2., 3., 4.]
    );
    let i = Tensor::<i64, DynRank>::try_from_vec((0..3).collect(), &[3]).unwrap();
    assert_eq!((i.lazy() * 3i64).eval().to_vec(), [0, 3, 6]);
    f(5, -1.5);
    f(1, 2.0);
    f(1500, 0.25);
    f(3, 1.0);
}

/// Outputs written with streaming stores (forced here, whatever their
/// size): rows shorter than, equal to and longer than a block, starting
/// at every element of a 16-byte line, for 1-, 2-, 4- and 8-byte
/// elements, memory-bound and transcendental expressions (both vector
/// choices), against an index-by-index reference; the elements around
/// the output are left alone.
#[test]
fn streamed_outputs_match_index_by_index_at_every_alignment() {
    fn check<T: Element + Numeric>(
        val: impl Fn(usize) -> T,
        f: impl Fn(T, T, T) -> T,
        same: impl Fn(T, T) -> bool,
        expr: impl Fn(
            &Tensor<T, DynRank>,
            &Tensor<T, DynRank>,
            &Tensor<T, DynRank>,
            &mut Tensor<T, DynRank>,
        ),
    ) {
        let lens: &[usize] = if cfg!(miri) {
            &[5, BLOCK + 3]
        } else {
            &[1, 5, BLOCK - 1, BLOCK, BLOCK + 3, 3 * BLOCK + 7]
        };
        for &len in lens {
            let rows = 3;
            let a = Tensor::<T, DynRank>::try_from_vec(
                (0..rows * len).map(&val).collect(),
                &[rows, len],
            )
            .unwrap();
            let b =
                Tensor::<T, DynRank>::try_from_vec((0..len).map(|i| val(i + 7)).collect(), &[len])
                    .unwrap();
            let c = Tensor::<T, DynRank>::try_from_vec(
                (0..rows).map(|i| val(i + 3)).collect(),
                &[rows, 1],
            )
            .unwrap();
            // (Under Miri, the first, second and last start in a line.)
            let line = 16 / size_of::<T>();
            let skips: Vec<usize> = if cfg!(miri) {
                let mut s = vec![0, 1, line - 1];
                s.dedup();
                s
            } else {
                (0..line).collect()
            };
            for skip in skips {
                // The output: rows of `len` at `skip` elements into a
                // storage with a guard element after each row.
                let store = Tensor::<T, DynRank>::try_from_vec(
                    (0..rows * (len + 1) + skip).map(|_| val(1)).collect(),
                    &[rows * (len + 1) + skip],
                )
                .unwrap();
                let grid: Tensor<T, DynRank> = store
                    .narrow::<DynRank>(0, skip, rows * (len + 1))
                    .unwrap()
                    .try_reshape(&[rows as isize, len as isize + 1])
                    .unwrap();
                let mut out: Tensor<T, DynRank> = grid.narrow(1, 0, len).unwrap();
                // (Miri has no AVX: both run the same code there.)
                for wide in [false, true]
                    .into_iter()
                    .take(if cfg!(miri) { 1 } else { 2 })
                {
                    set_light_wide(wide);
                    expr(&a, &b, &c, &mut out);
                }
                let (av, bv, cv) = (a.to_vec(), b.to_vec(), c.to_vec());
                let got = store.to_vec();
                for (i, &g) in got.iter().enumerate() {
                    let want = match i.checked_sub(skip) {
                        Some(k) if k % (len + 1) < len => {
                            let (r, j) = (k / (len + 1), k % (len + 1));
                            f(av[r * len + j], bv[j], cv[r])
                        }
                        _ => val(1),
                    };
                    assert!(
                        same(g, want),
                        "len {len}, skip {skip}, element {i}: {g:?} vs {want:?}"
                    );
                }
            }
        }
        set_light_wide(light_wide_default());
    }
    fn into<E: Node<Device = Cpu>>(e: &E, out: &mut Tensor<E::Elem, DynRank>) {
        write_into(&e.erased(), out.layout(), |_| true).unwrap()
    }
    check(
        |i| (i % 251) as f32 * 0.25 - 20.0,
        |a, b, c| (a * b + c).max(0.0),
        |x, y| x == y,
        |a, b, c, o| into((a.lazy() * b + c).relu().node(), o),
    );
    check(
        |i| (i % 97) as f64 / 16.0 - 3.0,
        |a, b, c| (a * b - c).exp(),
        // The same `exp` on both sides, but Miri perturbs the results
        // of the C library's functions by a few ulps.
        |x, y| x == y || (x - y).abs() <= 1e-13 * y.abs(),
        |a, b, c, o| into((a.lazy() * b - c).exp().node(), o),
    );
    check(
        |i| (i % 200) as u8,
        |a, b, c| a.wrapping_mul(b).wrapping_add(c),
        |x, y| x == y,
        |a, b, c, o| into((a.lazy() * b + c).node(), o),
    );
    check(
        |i| (i % 1000) as i16 - 500,
        |a, b, c| a.wrapping_mul(b).wrapping_sub(c),
        |x, y| x == y,
        |a, b, c, o| into((a.lazy() * b - c).node(), o),
    );
}
