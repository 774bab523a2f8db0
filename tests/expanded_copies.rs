//! Contiguous copies of expanded tensors (stride 0, as `expand` and
//! `broadcast_to` make them, and as the gradient of a `sum` arrives), and
//! elementwise functions of them: every element is the one value it
//! repeats, checked against a naive loop over the source, in runs long
//! enough to be split over threads and to take the streaming stores.

use shaped::{DynRank, Tensor};

/// The elements of `src` (row-major `dims`) expanded to `to` (the same
/// rank), by the naive index arithmetic.
fn expand_naive<T: Copy>(src: &[T], dims: &[usize], to: &[usize]) -> Vec<T> {
    let n: usize = to.iter().product();
    (0..n)
        .map(|mut i| {
            let mut at = 0;
            let mut stride = 1;
            for (a, &t) in to.iter().enumerate().rev() {
                let k = i % t;
                i /= t;
                if dims[a] != 1 {
                    at += k * stride;
                }
                stride *= dims[a];
            }
            src[at]
        })
        .collect()
}

#[test]
fn contiguous_copies_of_expanded_tensors_repeat_their_elements() {
    // (source sizes, expanded sizes): the last axis stretched (a run of
    // one value per row), every axis stretched (one value), a middle one,
    // an empty expansion, and one past the size where outputs stream.
    let cases: [(&[usize], &[usize]); 6] = [
        (&[3, 1], &[3, 50_000]),
        (&[1, 1, 1], &[4, 64, 3_000]),
        (&[2, 1, 3], &[2, 40_000, 3]),
        (&[2, 1], &[2, 0]),
        (&[1], &[1 << 23]),
        (&[1, 5], &[7, 5]),
    ];
    for (from, to) in cases {
        let n: usize = from.iter().product();
        let src: Vec<f64> = (0..n).map(|i| i as f64 * 1.5 - 2.0).collect();
        let t = Tensor::<f64, DynRank>::try_from_vec(src.clone(), from).unwrap();
        let isizes: Vec<isize> = to.iter().map(|&s| s as isize).collect();
        let e = t.expand::<DynRank>(&isizes).unwrap();
        let want = expand_naive(&src, from, to);
        let c = e.contiguous();
        assert!(c.is_contiguous());
        assert_eq!(c.to_vec(), want, "{from:?} -> {to:?}");
        // An elementwise function of the expanded view.
        let want_exp: Vec<f64> = want.iter().map(|v| v.exp()).collect();
        assert_eq!(e.exp().to_vec(), want_exp, "exp, {from:?} -> {to:?}");
        // f32 and i64 copies.
        let t32 =
            Tensor::<f32, DynRank>::try_from_vec(src.iter().map(|&v| v as f32).collect(), from)
                .unwrap();
        let c32 = t32.expand::<DynRank>(&isizes).unwrap().contiguous();
        let want32: Vec<f32> = want.iter().map(|&v| v as f32).collect();
        assert_eq!(c32.to_vec(), want32, "f32, {from:?} -> {to:?}");
        let ti = Tensor::<i64, DynRank>::try_from_vec((0..n as i64).map(|v| 3 - v).collect(), from)
            .unwrap();
        let ci = ti.expand::<DynRank>(&isizes).unwrap().contiguous();
        let srci: Vec<i64> = (0..n as i64).map(|v| 3 - v).collect();
        assert_eq!(
            ci.to_vec(),
            expand_naive(&srci, from, to),
            "i64, {from:?} -> {to:?}"
        );
    }
}

#[test]
fn an_expanded_view_of_an_offset_element_copies_that_element() {
    // Element 4 of a row, selected then expanded: the view starts at an
    // offset inside the storage.
    let t = Tensor::<f32, DynRank>::try_from_vec((0..6).map(|v| v as f32).collect(), &[6]).unwrap();
    let one = t.narrow::<DynRank>(0, 4, 1).unwrap();
    let e = one.expand::<DynRank>(&[3, 70_000]).unwrap();
    assert_eq!(e.strides(), &[0, 0]);
    let c = e.contiguous();
    assert!(c.to_vec().iter().all(|&v| v == 4.0));
    assert_eq!(c.to_vec().len(), 210_000);
}
