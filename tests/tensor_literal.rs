//! `tensor![...]`: static shapes read off the brackets, values row-major.
//!
//! Each shape is checked at the type level (the literal is bound to an
//! explicitly typed `Tensor<_, Shape![...]>`) and at run time (`dims`), and
//! each value against the expected flat vector.

use shaped::{Const, One, Shape, Tensor, tensor};

#[test]
fn matrix_shape_and_values() {
    let t: Tensor<f64, Shape![2, 3]> = tensor![[1., 2., 3.], [4., 5., 6.]];
    assert_eq!(t.dims(), &[2, 3]);
    assert_eq!(t.to_vec(), vec![1., 2., 3., 4., 5., 6.]);
    let spelled_out: Tensor<f64, (Const<2>, Const<3>)> = t;
    assert_eq!(spelled_out.numel(), 6);
}

#[test]
fn vector() {
    let t: Tensor<f64, Shape![4]> = tensor![1., 2., 3., 4.];
    assert_eq!(t.dims(), &[4]);
    assert_eq!(t.to_vec(), vec![1., 2., 3., 4.]);
    let trailing_commas: Tensor<f64, Shape![2, 2]> = tensor![[1., 2.,], [3., 4.,],];
    assert_eq!(trailing_commas.to_vec(), vec![1., 2., 3., 4.]);
    let negative: Tensor<f64, Shape![2, 2]> = tensor![[-1., 2.], [3e2, -4.5e-1]];
    assert_eq!(negative.to_vec(), vec![-1., 2., 300., -0.45]);
}

#[test]
fn unconstrained_floats_are_f64() {
    let t = tensor![[0.1, 0.2], [0.3, 0.4]];
    let as_f64: Tensor<f64, Shape![2, 2]> = t;
    // 0.1 as f32 widened to f64 is not 0.1: the elements really are f64.
    assert_eq!(as_f64.to_vec()[0], 0.1f64);
    assert_ne!(as_f64.to_vec()[0], f64::from(0.1f32));
}

#[test]
fn element_type_from_annotation() {
    let t: Tensor<f32, Shape![2, 2]> = tensor![[0.1, 0.2], [0.3, 0.4]];
    assert_eq!(t.to_vec(), vec![0.1f32, 0.2, 0.3, 0.4]);
}

#[test]
fn element_type_from_suffix() {
    let t = tensor![[1i64, 2], [3, 4]];
    let as_i64: Tensor<i64, Shape![2, 2]> = t;
    assert_eq!(as_i64.to_vec(), vec![1i64, 2, 3, 4]);
    // The largest i64 only fits if the elements are i64.
    let big = tensor![i64::MAX, -1];
    assert_eq!(big.to_vec(), vec![i64::MAX, -1]);
}

#[test]
fn unconstrained_integers_are_i32() {
    let t = tensor![1, 2, 3];
    let as_i32: Tensor<i32, Shape![3]> = t;
    assert_eq!(as_i32.to_vec(), vec![1, 2, 3]);
}

#[test]
fn other_element_types() {
    let b: Tensor<bool, Shape![2, 2]> = tensor![[true, false], [false, true]];
    assert_eq!(b.to_vec(), vec![true, false, false, true]);
    let u = tensor![[1u8, 2, 255]];
    let _: Tensor<u8, Shape![1, 3]> = u.clone();
    assert_eq!(u.to_vec(), vec![1, 2, 255]);
}

#[test]
fn size_one_is_one() {
    let row: Tensor<f64, (One, Const<2>)> = tensor![[1., 2.]];
    assert_eq!(row.dims(), &[1, 2]);
    assert_eq!(row.to_vec(), vec![1., 2.]);

    let column: Tensor<f64, Shape![3, 1]> = tensor![[1.], [2.], [3.]];
    assert_eq!(column.dims(), &[3, 1]);
    assert_eq!(column.to_vec(), vec![1., 2., 3.]);

    let one_by_one: Tensor<f64, (One, One)> = tensor![[5.]];
    assert_eq!(one_by_one.to_vec(), vec![5.]);
}

#[test]
fn scalar() {
    let s: Tensor<f64, Shape![]> = tensor!(3.0);
    assert_eq!(s.dims(), &[] as &[usize]);
    assert_eq!(s.item(), 3.0);
    let with_brackets: Tensor<i32, ()> = tensor![-7];
    assert_eq!(with_brackets.item(), -7);
}

#[test]
fn one_element_vector_needs_a_trailing_comma() {
    let v: Tensor<f64, Shape![1]> = tensor![2.5,];
    assert_eq!(v.dims(), &[1]);
    assert_eq!(v.to_vec(), vec![2.5]);
}

#[test]
fn repeat() {
    let t: Tensor<f64, Shape![3, 4]> = tensor![0.5; 3, 4];
    assert_eq!(t.dims(), &[3, 4]);
    assert_eq!(t.to_vec(), vec![0.5; 12]);

    let v = tensor![7i64; 5];
    let _: Tensor<i64, Shape![5]> = v.clone();
    assert_eq!(v.to_vec(), vec![7; 5]);

    let with_one: Tensor<u8, (Const<2>, One, Const<3>)> = tensor![1; 2, 1, 3];
    assert_eq!(with_one.dims(), &[2, 1, 3]);

    let empty: Tensor<f32, Shape![0, 2]> = tensor![1.0; 0, 2];
    assert_eq!(empty.numel(), 0);

    let n = 4.0;
    let from_expr: Tensor<f64, Shape![2]> = tensor![n * 2.0; 2usize];
    assert_eq!(from_expr.to_vec(), vec![8., 8.]);
}

#[test]
fn rank_3() {
    let t: Tensor<i32, Shape![2, 2, 3]> =
        tensor![[[1, 2, 3], [4, 5, 6]], [[7, 8, 9], [10, 11, 12]],];
    assert_eq!(t.dims(), &[2, 2, 3]);
    assert_eq!(t.to_vec(), (1..=12).collect::<Vec<_>>());
}

#[test]
fn rank_4_with_ones() {
    let t: Tensor<f64, Shape![2, 1, 2, 1]> = tensor![[[[1.], [2.]]], [[[3.], [4.]]]];
    assert_eq!(t.dims(), &[2, 1, 2, 1]);
    assert_eq!(t.to_vec(), vec![1., 2., 3., 4.]);
}

type Rank8 = Shape![2, 1, 2, 1, 2, 1, 2, 2];

#[test]
fn rank_8() {
    let t: Tensor<i32, Rank8> = tensor![
        [[
            [[[[[1, 2], [3, 4]]], [[[5, 6], [7, 8]]]]],
            [[[[[9, 10], [11, 12]]], [[[13, 14], [15, 16]]]]]
        ]],
        [[
            [[[[[17, 18], [19, 20]]], [[[21, 22], [23, 24]]]]],
            [[[[[25, 26], [27, 28]]], [[[29, 30], [31, 32]]]]]
        ]],
    ];
    assert_eq!(t.dims(), &[2, 1, 2, 1, 2, 1, 2, 2]);
    assert_eq!(t.to_vec(), (1..=32).collect::<Vec<_>>());
}

#[test]
fn rank_12_the_highest_static_rank() {
    assert_eq!(shaped::shape::MAX_STATIC_RANK, 12);
    type Rank12 = Shape![1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2];
    let t: Tensor<f64, Rank12> = tensor![[[[[[[[[[[[4., 5.]]]]]]]]]]]];
    assert_eq!(t.dims(), &[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2]);
    assert_eq!(t.to_vec(), vec![4., 5.]);
}

#[test]
fn empty_dims() {
    let t: Tensor<f64, Shape![2, 0]> = tensor![[], []];
    assert_eq!(t.dims(), &[2, 0]);
    assert_eq!(t.to_vec(), Vec::<f64>::new());

    let e: Tensor<f64, Shape![0]> = tensor![];
    assert_eq!(e.dims(), &[0]);
    assert!(e.to_vec().is_empty());

    let one_empty_row: Tensor<i32, (One, Const<0>)> = tensor![[]];
    assert_eq!(one_empty_row.dims(), &[1, 0]);

    let deeper: Tensor<u8, Shape![2, 1, 0]> = tensor![[[]], [[]]];
    assert_eq!(deeper.dims(), &[2, 1, 0]);
}

#[test]
fn expressions_as_elements() {
    let (a, b, c, d) = (1.0, 2.0, 3.0, 4.0);
    let t: Tensor<f64, Shape![2, 2]> = tensor![[a, b], [c + 1.0, d * d]];
    assert_eq!(t.to_vec(), vec![1., 2., 4., 16.]);

    // Calls, blocks, indexing and closures; an indexed array is an element,
    // not a row.
    let xs = [10.0, 20.0];
    let f = |x: f64, y: f64| x - y;
    let u: Tensor<f64, Shape![2, 3]> = tensor![
        [xs[0], [5.0, 6.0][1], f64::sqrt(9.0)],
        [
            {
                let z = 2.0;
                z * z
            },
            f(1.0, 3.0),
            -xs[1]
        ],
    ];
    assert_eq!(u.to_vec(), vec![10., 6., 3., 4., -2., -20.]);

    // A literal with a method call is an expression too.
    let v: Tensor<f64, Shape![2]> = tensor![2.0_f64.powi(3), -1.5_f64.abs()];
    assert_eq!(v.to_vec(), vec![8., -1.5]);
}

#[test]
fn elements_are_evaluated_once_in_written_order() {
    let mut order = Vec::new();
    let mut next = |i: i32| {
        order.push(i);
        i
    };
    let t: Tensor<i32, Shape![2, 2]> = tensor![[next(0), next(1)], [next(2), next(3)]];
    assert_eq!(t.to_vec(), vec![0, 1, 2, 3]);
    assert_eq!(order, vec![0, 1, 2, 3]);
}

#[test]
fn literal_in_a_function_generic_over_the_element_type() {
    fn pair<T: shaped::element::Element>(a: T, b: T) -> Tensor<T, Shape![2]> {
        tensor![a, b]
    }
    assert_eq!(pair(1u8, 2).to_vec(), vec![1, 2]);
    assert_eq!(pair(true, false).to_vec(), vec![true, false]);
}
