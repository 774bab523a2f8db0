//! The type-level shape rules against hand-written answers and against the
//! run-time rules.
//!
//! Each case states two (or three) shapes and the shape they broadcast to.
//! The test proves, when it compiles, that the type operator gives exactly the
//! stated type (in both operand orders), and then checks at run time that
//!
//! - the result's `STATIC_DIMS` is the stated shape (`_` is `None`);
//! - `broadcast_shapes` on the sizes gives the stated shape when every size is
//!   static;
//! - with sizes chosen for each `_`, every run-time broadcast that succeeds
//!   fits the static result type (`Shape::check_dims`), so keeping the static
//!   side of `Dyn ⊕ Const<N>` is sound, and choosing 1 for every `_` succeeds.
//!
//! Pairs that must not compile are the business of compile-fail tests; every
//! pair here must compile.

use core::marker::PhantomData;

use proptest::prelude::*;
use shaped::shape::{InsertAxis, RemoveAxis, Shape, SwapAxes, check_expand};
use shaped::{
    Broadcast, Broadcast3, Const, Dim, Dyn, DynRank, ExpandsTo, One, ShapeError, Tensor,
    broadcast_shapes,
};

/// Compiles only when both arguments have the same type.
fn same<T>(_: PhantomData<T>, _: PhantomData<T>) {}

/// Compiles only when `S` expands in place to `T`.
fn expands<S: ExpandsTo<T>, T: Shape>() {}

/// `dim!(_)` is a run-time size (`None`), `dim!(5)` the static size 5.
macro_rules! dim {
    (_) => {
        None::<usize>
    };
    ($n:literal) => {
        Some::<usize>($n)
    };
}

/// Sizes tried for each `_`: 1 first (which must always broadcast), then
/// sizes that match or clash with the static sizes used in the cases.
const DYN_CANDIDATES: &[usize] = &[1, 0, 2, 3, 4, 5, 7];

/// Every way of filling the `_` slots of `shapes` from `DYN_CANDIDATES`,
/// the all-ones filling first.
fn fillings(shapes: &[&[Option<usize>]]) -> Vec<Vec<Vec<usize>>> {
    let slots = shapes
        .iter()
        .flat_map(|s| s.iter())
        .filter(|d| d.is_none())
        .count();
    let total = DYN_CANDIDATES.len().pow(slots as u32);
    (0..total)
        .map(|mut code| {
            shapes
                .iter()
                .map(|s| {
                    s.iter()
                        .map(|d| {
                            d.unwrap_or_else(|| {
                                let v = DYN_CANDIDATES[code % DYN_CANDIDATES.len()];
                                code /= DYN_CANDIDATES.len();
                                v
                            })
                        })
                        .collect()
                })
                .collect()
        })
        .collect()
}

/// The run-time half of a broadcast case: `Out` is the type-level result of
/// broadcasting `inputs`, and `want` the stated answer.
fn check_against_runtime<Out: Shape>(inputs: &[&[Option<usize>]], want: &[Option<usize>]) {
    assert_eq!(Out::STATIC_DIMS, want, "STATIC_DIMS of the result");
    assert_eq!(Out::RANK, Some(want.len()));
    for (k, sizes) in fillings(inputs).into_iter().enumerate() {
        let refs: Vec<&[usize]> = sizes.iter().map(Vec::as_slice).collect();
        match broadcast_shapes(&refs) {
            Ok(out) => {
                if want.iter().all(Option::is_some) {
                    let want: Vec<usize> = want.iter().map(|d| d.unwrap()).collect();
                    assert_eq!(out, want, "run-time broadcast of {refs:?}");
                }
                assert!(
                    Out::check_dims(&out).is_ok(),
                    "{refs:?} broadcast to {out:?} at run time, which does not fit {want:?}"
                );
            }
            Err(e) => {
                assert!(
                    k > 0,
                    "{refs:?} must broadcast with every `_` set to 1: {e}"
                );
                assert!(
                    inputs.iter().flat_map(|s| s.iter()).any(Option::is_none),
                    "static shapes {refs:?} compiled but failed at run time: {e}"
                );
            }
        }
    }
}

/// `name: [a..] + [b..] => [out..];` checks `Broadcast<A, B>` and
/// `Broadcast<B, A>` are `Shape![out..]`, then the run-time agreement.
macro_rules! broadcast_cases {
    ($($name:ident: [$($a:tt),*] + [$($b:tt),*] => [$($o:tt),*];)*) => {$(
        #[test]
        fn $name() {
            type A = shaped::Shape![$($a),*];
            type B = shaped::Shape![$($b),*];
            type Want = shaped::Shape![$($o),*];
            same(PhantomData::<Broadcast<A, B>>, PhantomData::<Want>);
            same(PhantomData::<Broadcast<B, A>>, PhantomData::<Want>);
            let (a, b): (&[Option<usize>], &[Option<usize>]) = (&[$(dim!($a)),*], &[$(dim!($b)),*]);
            check_against_runtime::<Broadcast<A, B>>(&[a, b], &[$(dim!($o)),*]);
            check_against_runtime::<Broadcast<B, A>>(&[b, a], &[$(dim!($o)),*]);
        }
    )*};
}

broadcast_cases! {
    // The examples of seed 002.
    seed_same_shapes: [5, 7, 3] + [5, 7, 3] => [5, 7, 3];
    seed_trailing_alignment: [5, 1, 4, 1] + [3, 1, 1] => [5, 3, 4, 1];
    seed_one_with_rank_three: [1] + [3, 1, 7] => [3, 1, 7];
    seed_column_and_vector: [4, 1] + [4] => [4, 4];
    seed_matrix_and_row: [2, 3] + [3] => [2, 3];
    seed_rank_seven: [2, 3, 4, 5, 1, 1, 1] + [4, 1, 6, 7, 8] => [2, 3, 4, 5, 6, 7, 8];
    // Rank 0 broadcasts like a scalar.
    scalar_with_scalar: [] + [] => [];
    scalar_with_one: [] + [1] => [1];
    scalar_with_vector: [] + [3] => [3];
    scalar_with_matrix: [] + [2, 2] => [2, 2];
    scalar_with_dyn: [] + [_, 4] => [_, 4];
    scalar_with_rank_eight: [] + [2, 3, 4, 5, 6, 7, 8, 9] => [2, 3, 4, 5, 6, 7, 8, 9];
    scalar_with_ones: [] + [1, 1, 1] => [1, 1, 1];
    // Rank 8 and the largest static rank, 12.
    rank_eight_interleaved: [2, 1, 3, 1, 4, 1, 5, 1] + [6, 1, 7, 1, 8, 1, 9] => [2, 6, 3, 7, 4, 8, 5, 9];
    rank_eight_ones: [1, 1, 1, 1, 1, 1, 1, 1] + [2] => [1, 1, 1, 1, 1, 1, 1, 2];
    rank_eight_equal: [2, 3, 2, 3, 2, 3, 2, 3] + [2, 3, 2, 3, 2, 3, 2, 3] => [2, 3, 2, 3, 2, 3, 2, 3];
    rank_eight_with_vector: [8, 7, 6, 5, 4, 3, 2, 1] + [9] => [8, 7, 6, 5, 4, 3, 2, 9];
    rank_eight_with_dyn: [_, 1, _, 1, _, 1, _, 1] + [2, 3, 4, 5, 6, 7, 8, 9] => [2, 3, 4, 5, 6, 7, 8, 9];
    rank_twelve: [2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1] + [3, 1, 3, 1, 3, 1, 3, 1, 3, 1, 3]
        => [2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3];
    rank_twelve_with_scalar: [] + [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]
        => [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];
    // Size 1 stretches; equal sizes stay.
    one_with_one: [1] + [1] => [1];
    equal_vectors: [7] + [7] => [7];
    ones_with_matrix: [1, 1] + [4, 5] => [4, 5];
    column_with_row: [4, 1] + [1, 5] => [4, 5];
    crossed_ones: [1, 7] + [7, 1] => [7, 7];
    new_middle_axis: [3, 1, 5] + [4, 1] => [3, 4, 5];
    vector_with_rank_three: [6] + [2, 3, 6] => [2, 3, 6];
    one_in_the_middle: [2, 1, 3] + [2, 4, 3] => [2, 4, 3];
    staggered_ones: [3, 1, 1, 1] + [1, 4, 1, 1] => [3, 4, 1, 1];
    large_sizes: [1000, 1] + [1, 1024] => [1000, 1024];
    // Size 0 is an ordinary size: it meets only 0 and 1.
    zero_with_one: [0] + [1] => [0];
    zero_with_zero: [2, 0] + [0] => [2, 0];
    zero_rows_with_row: [0, 1] + [1, 3] => [0, 3];
    // `Dyn` keeps the static side, checked at run time.
    dyn_with_const: [_] + [3] => [3];
    dyn_with_one: [_] + [1] => [_];
    dyn_with_dyn: [_] + [_] => [_];
    dyn_with_zero: [_] + [0] => [0];
    dyn_with_missing_axis: [_] + [2, 1] => [2, _];
    dyn_batch_with_vector: [_, 3, 4] + [4] => [_, 3, 4];
    dyn_batches: [_, 3, 1] + [_, 1, 5] => [_, 3, 5];
    dyn_everywhere: [_, _, _] + [2, 1, _] => [2, _, _];
    dyn_over_one_and_const: [_, 1] + [1, 7] => [_, 7];
    dyn_in_seed_shape: [5, 1, 4, 1] + [_, 1, 1] => [5, _, 4, 1];
    dyn_mixed_with_seed_shape: [5, _, 4, 1] + [3, 1, _] => [5, 3, 4, _];
}

/// `name: [a..], [b..], [c..] => [out..];` checks `Broadcast3` in every
/// order of the operands, then the run-time agreement.
macro_rules! broadcast3_cases {
    ($($name:ident: [$($a:tt),*], [$($b:tt),*], [$($c:tt),*] => [$($o:tt),*];)*) => {$(
        #[test]
        fn $name() {
            type A = shaped::Shape![$($a),*];
            type B = shaped::Shape![$($b),*];
            type C = shaped::Shape![$($c),*];
            type Want = shaped::Shape![$($o),*];
            same(PhantomData::<<A as Broadcast3<B, C>>::Output>, PhantomData::<Want>);
            same(PhantomData::<<A as Broadcast3<C, B>>::Output>, PhantomData::<Want>);
            same(PhantomData::<<B as Broadcast3<A, C>>::Output>, PhantomData::<Want>);
            same(PhantomData::<<B as Broadcast3<C, A>>::Output>, PhantomData::<Want>);
            same(PhantomData::<<C as Broadcast3<A, B>>::Output>, PhantomData::<Want>);
            same(PhantomData::<<C as Broadcast3<B, A>>::Output>, PhantomData::<Want>);
            let (a, b, c): (&[Option<usize>], &[Option<usize>], &[Option<usize>]) =
                (&[$(dim!($a)),*], &[$(dim!($b)),*], &[$(dim!($c)),*]);
            check_against_runtime::<<A as Broadcast3<B, C>>::Output>(&[a, b, c], &[$(dim!($o)),*]);
            check_against_runtime::<<C as Broadcast3<B, A>>::Output>(&[c, b, a], &[$(dim!($o)),*]);
        }
    )*};
}

broadcast3_cases! {
    three_seed_addcmul: [3, 1], [4], [2, 1, 1] => [2, 3, 4];
    three_scalars: [], [], [] => [];
    three_with_seed_pair: [5, 1, 4, 1], [3, 1, 1], [1] => [5, 3, 4, 1];
    three_with_scalar: [2, 1, 3], [4, 1], [] => [2, 4, 3];
    three_dyn_and_const: [_], [3], [1] => [3];
    three_dyn_crossed: [_, 1], [1, _], [1] => [_, _];
    three_rank_eight: [2, 1, 1, 1, 1, 1, 1, 1], [3, 1, 1, 1, 1, 1, 1], [4, 1, 1, 1, 1, 1] => [2, 3, 4, 1, 1, 1, 1, 1];
}

/// `name: [src..] -> [target..];` checks `Shape![src..]: ExpandsTo<Shape![target..]>`
/// and that `check_expand` accepts the sizes, with each `_` of the target
/// set to the source's size there (6 where that is 1, `_` or missing), and
/// each `_` of the source set to 1 and then to the target's size.
macro_rules! expand_cases {
    ($($name:ident: [$($s:tt),*] -> [$($t:tt),*];)*) => {$(
        #[test]
        fn $name() {
            expands::<shaped::Shape![$($s),*], shaped::Shape![$($t),*]>();
            let src: &[Option<usize>] = &[$(dim!($s)),*];
            let target: &[Option<usize>] = &[$(dim!($t)),*];
            let lead = target.len() - src.len();
            let target: Vec<usize> = target
                .iter()
                .enumerate()
                .map(|(j, t)| {
                    let aligned = j.checked_sub(lead).and_then(|i| src[i]);
                    t.or(aligned.filter(|&n| n != 1)).unwrap_or(6)
                })
                .collect();
            for stretch in [false, true] {
                let sizes: Vec<usize> = src
                    .iter()
                    .enumerate()
                    .map(|(i, d)| d.unwrap_or(if stretch { 1 } else { target[lead + i] }))
                    .collect();
                assert_eq!(check_expand(&sizes, &target), Ok(()), "{sizes:?} -> {target:?}");
            }
        }
    )*};
}

expand_cases! {
    expand_seed_in_place: [3, 1, 1] -> [5, 3, 4, 1];
    expand_vector_to_matrix: [4] -> [3, 4];
    expand_scalar: [] -> [2, 3];
    expand_scalar_to_scalar: [] -> [];
    expand_one_to_one: [1] -> [1];
    expand_ones: [1, 1] -> [4, 5];
    expand_identity: [5, 3, 4, 1] -> [5, 3, 4, 1];
    expand_dyn_to_const: [_] -> [4];
    expand_const_to_dyn: [4] -> [_];
    expand_one_to_dyn: [1] -> [_];
    expand_dyn_to_dyn: [_, 1] -> [_, _];
    expand_to_rank_eight: [1, 2] -> [3, 4, 5, 6, 7, 8, 1, 2];
    expand_zero: [0] -> [0];
    expand_one_to_zero: [1] -> [0];
    expand_into_zero_rows: [1, 0] -> [3, 0];
}

#[test]
fn dyn_rank_absorbs_static_shapes() {
    type S = shaped::Shape![3, 4];
    same(PhantomData::<Broadcast<DynRank, S>>, PhantomData::<DynRank>);
    same(PhantomData::<Broadcast<S, DynRank>>, PhantomData::<DynRank>);
    same(
        PhantomData::<Broadcast<DynRank, DynRank>>,
        PhantomData::<DynRank>,
    );
    same(
        PhantomData::<Broadcast<DynRank, ()>>,
        PhantomData::<DynRank>,
    );
    same(
        PhantomData::<<shaped::Shape![2] as Broadcast3<DynRank, S>>::Output>,
        PhantomData::<DynRank>,
    );
    same(
        PhantomData::<<S as Broadcast3<shaped::Shape![1], DynRank>>::Output>,
        PhantomData::<DynRank>,
    );
    expands::<shaped::Shape![4], DynRank>();
    expands::<(), DynRank>();
    expands::<DynRank, S>();
    expands::<DynRank, DynRank>();
    assert_eq!(DynRank::RANK, None);
    assert_eq!(DynRank::STATIC_DIMS, &[] as &[Option<usize>]);
    // Any rank and sizes fit, as long as the element count does.
    for dims in [&[][..], &[3], &[2, 0, 5], &[1, 2, 3, 4, 5, 6, 7, 8, 9]] {
        assert_eq!(DynRank::check_dims(dims).unwrap().as_slice(), dims);
    }
    assert_eq!(
        DynRank::check_dims(&[usize::MAX, 3]),
        Err(ShapeError::TooLarge {
            shape: vec![usize::MAX, 3]
        })
    );
}

/// `name: [s..] at K => [out..], keepdim [kd..], removed D;`
macro_rules! remove_axis_cases {
    ($($name:ident: [$($a:tt),*] at $k:literal => [$($o:tt),*], keepdim [$($kd:tt),*], removed $r:ty;)*) => {$(
        #[test]
        fn $name() {
            type S = shaped::Shape![$($a),*];
            type Op = <S as RemoveAxis<$k>>::Output;
            type Keep = <S as RemoveAxis<$k>>::KeepDim;
            type Removed = <S as RemoveAxis<$k>>::Removed;
            same(PhantomData::<Op>, PhantomData::<shaped::Shape![$($o),*]>);
            same(PhantomData::<Keep>, PhantomData::<shaped::Shape![$($kd),*]>);
            same(PhantomData::<Removed>, PhantomData::<$r>);
            let mut out = vec![$(dim!($a)),*];
            let removed = out.remove($k);
            assert_eq!(Op::STATIC_DIMS, out);
            assert_eq!(<Removed as Dim>::SIZE, removed);
            let mut keep = vec![$(dim!($a)),*];
            keep[$k] = Some(1);
            assert_eq!(Keep::STATIC_DIMS, keep);
        }
    )*};
}

remove_axis_cases! {
    remove_first: [4, 3, 5] at 0 => [3, 5], keepdim [1, 3, 5], removed Const<4>;
    remove_middle: [4, 3, 5] at 1 => [4, 5], keepdim [4, 1, 5], removed Const<3>;
    remove_last: [4, 3, 5] at 2 => [4, 3], keepdim [4, 3, 1], removed Const<5>;
    remove_only: [7] at 0 => [], keepdim [1], removed Const<7>;
    remove_dyn: [_, 3] at 0 => [3], keepdim [1, 3], removed Dyn;
    remove_one: [2, 1] at 1 => [2], keepdim [2, 1], removed One;
    remove_rank_eight: [2, 3, 4, 5, 6, 7, 8, 9] at 6 => [2, 3, 4, 5, 6, 7, 9],
        keepdim [2, 3, 4, 5, 6, 7, 1, 9], removed Const<8>;
}

/// `name: [s..] at K => [out..];`
macro_rules! insert_axis_cases {
    ($($name:ident: [$($a:tt),*] at $k:literal => [$($o:tt),*];)*) => {$(
        #[test]
        fn $name() {
            type S = shaped::Shape![$($a),*];
            type Op = <S as InsertAxis<$k>>::Output;
            same(PhantomData::<Op>, PhantomData::<shaped::Shape![$($o),*]>);
            let mut out = vec![$(dim!($a)),*];
            out.insert($k, Some(1));
            assert_eq!(Op::STATIC_DIMS, out);
        }
    )*};
}

insert_axis_cases! {
    insert_into_scalar: [] at 0 => [1];
    insert_first: [4, 5] at 0 => [1, 4, 5];
    insert_middle: [4, 5] at 1 => [4, 1, 5];
    insert_last: [4, 5] at 2 => [4, 5, 1];
    insert_beside_dyn: [_, 5] at 1 => [_, 1, 5];
    insert_to_rank_eight: [2, 3, 4, 5, 6, 7, 8] at 7 => [2, 3, 4, 5, 6, 7, 8, 1];
}

/// `name: [s..] swap I, J => [out..];`
macro_rules! swap_axes_cases {
    ($($name:ident: [$($a:tt),*] swap $i:literal, $j:literal => [$($o:tt),*];)*) => {$(
        #[test]
        fn $name() {
            type S = shaped::Shape![$($a),*];
            type Op = <S as SwapAxes<$i, $j>>::Output;
            same(PhantomData::<Op>, PhantomData::<shaped::Shape![$($o),*]>);
            same(PhantomData::<<S as SwapAxes<$j, $i>>::Output>, PhantomData::<Op>);
            let mut out = vec![$(dim!($a)),*];
            out.swap($i, $j);
            assert_eq!(Op::STATIC_DIMS, out);
        }
    )*};
}

swap_axes_cases! {
    swap_matrix: [4, 5] swap 0, 1 => [5, 4];
    swap_same_axis: [4, 5] swap 1, 1 => [4, 5];
    swap_outer: [2, 3, 4] swap 2, 0 => [4, 3, 2];
    swap_with_dyn: [_, 3, 1] swap 0, 2 => [1, 3, _];
    swap_rank_eight: [2, 3, 4, 5, 6, 7, 8, 9] swap 1, 6 => [2, 8, 4, 5, 6, 7, 3, 9];
}

#[test]
fn dyn_sizes_are_checked_at_run_time() {
    type S = shaped::Shape![_, 3];
    assert_eq!(S::check_dims(&[4, 3]).unwrap().as_slice(), &[4, 3]);
    assert_eq!(S::check_dims(&[0, 3]).unwrap().as_slice(), &[0, 3]);
    let e = S::check_dims(&[4, 5]).unwrap_err();
    assert_eq!(
        e,
        ShapeError::StaticSize {
            dim: 1,
            expected: 3,
            found: vec![4, 5]
        }
    );
    assert_eq!(
        e.to_string(),
        "expected size 3 at dimension 1, but got shape [4, 5]"
    );
    let e = S::check_dims(&[4]).unwrap_err();
    assert_eq!(
        e,
        ShapeError::Rank {
            expected: 2,
            found: vec![4]
        }
    );
    assert_eq!(
        e.to_string(),
        "expected a tensor with 2 dimensions, but got one of shape [4] (1 dimensions)"
    );
    // `One` is a static size too.
    assert!(matches!(
        <shaped::Shape![1, _]>::check_dims(&[2, 5]),
        Err(ShapeError::StaticSize {
            dim: 0,
            expected: 1,
            ..
        })
    ));
    assert!(matches!(
        S::check_dims(&[usize::MAX, 3]),
        Err(ShapeError::TooLarge { .. })
    ));
    assert!(<()>::check_dims(&[]).is_ok());
    assert!(<()>::check_dims(&[1]).is_err());
}

/// Whether `dims` fits a static shape given as its sizes (`None` for `_`).
fn naive_fits(shape: &[Option<usize>], dims: &[usize]) -> bool {
    shape.len() == dims.len()
        && shape
            .iter()
            .zip(dims)
            .all(|(want, got)| want.is_none_or(|w| w == *got))
}

/// Converts `t` to `S2`, whose sizes are `shape`, and checks the outcome
/// against [`naive_fits`]. A panic fails the test.
fn check_into<S2: Shape>(t: &Tensor<f32, DynRank>, shape: &[Option<usize>]) {
    match t.try_into_shape::<S2>() {
        Ok(u) => {
            assert!(naive_fits(shape, t.dims()), "{:?} into {shape:?}", t.dims());
            assert_eq!((u.dims(), u.strides()), (t.dims(), t.strides()));
            assert_eq!(u.to_vec(), t.to_vec());
        }
        Err(e) => {
            assert!(
                !naive_fits(shape, t.dims()),
                "{:?} into {shape:?}: {e}",
                t.dims()
            );
            assert!(matches!(
                e,
                ShapeError::Rank { .. } | ShapeError::StaticSize { .. }
            ));
        }
    }
}

proptest! {
    #[test]
    fn dynamic_to_static_conversions_return_errors(
        dims in prop::collection::vec(0usize..4, 0..4), seed in any::<u64>()
    ) {
        let t = Tensor::<f32, DynRank>::try_rand(&dims, seed).unwrap();
        check_into::<()>(&t, &[]);
        check_into::<shaped::Shape![_]>(&t, &[None]);
        check_into::<shaped::Shape![2]>(&t, &[Some(2)]);
        check_into::<shaped::Shape![1]>(&t, &[Some(1)]);
        check_into::<shaped::Shape![0]>(&t, &[Some(0)]);
        check_into::<shaped::Shape![2, _]>(&t, &[Some(2), None]);
        check_into::<shaped::Shape![_, 3]>(&t, &[None, Some(3)]);
        check_into::<shaped::Shape![3, 1]>(&t, &[Some(3), Some(1)]);
        check_into::<shaped::Shape![_, _, _]>(&t, &[None, None, None]);
        check_into::<shaped::Shape![1, 2, 3]>(&t, &[Some(1), Some(2), Some(3)]);
        check_into::<DynRank>(&t, &dims.iter().map(|&d| Some(d)).collect::<Vec<_>>());
    }
}
