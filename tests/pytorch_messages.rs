//! Run-time error messages with the exact text of PyTorch 2.x. Every expected
//! string here was produced by the real torch (2.x, CPU) on the same sizes:
//! `scripts/pytorch_messages.py` prints them.

use shaped::{DynRank, Tensor};

fn z(dims: &[usize]) -> Tensor<f64, DynRank> {
    Tensor::try_zeros(dims).unwrap()
}

fn mask(dims: &[usize]) -> Tensor<bool, DynRank> {
    Tensor::try_full(dims, true).unwrap()
}

fn idx(dims: &[usize]) -> Tensor<i64, DynRank> {
    Tensor::try_zeros(dims).unwrap()
}

fn msg<R>(r: Result<R, shaped::ShapeError>) -> String {
    match r {
        Ok(_) => panic!("expected an error"),
        Err(e) => e.to_string(),
    }
}

/// The panic message of `f`.
fn panic_msg(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = std::panic::catch_unwind(f);
    std::panic::set_hook(prev);
    let e = r.expect_err("expected a panic");
    e.downcast_ref::<String>()
        .cloned()
        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap()
}

const OUT_1_4: &str = "output with shape [1, 4] doesn't match the broadcast shape [3, 4]";
const A3_B2: &str =
    "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1";

#[test]
fn in_place_binary_ops_report_the_broadcast_or_the_output_shape() {
    // torch.ones(1, 4).add_(torch.ones(3, 4))
    assert_eq!(msg(z(&[1, 4]).try_add_(&z(&[3, 4]))), OUT_1_4);
    // torch.ones(2, 3).add_(torch.ones(2))
    assert_eq!(msg(z(&[2, 3]).try_add_(&z(&[2]))), A3_B2);
    // torch.ones(2, 1, 5).add_(torch.ones(3))
    assert_eq!(
        msg(z(&[2, 1, 5]).try_mul_(&z(&[3]))),
        "The size of tensor a (5) must match the size of tensor b (3) at non-singleton dimension 2"
    );
    // torch.ones(4).add_(torch.ones(3, 4))
    assert_eq!(
        msg(z(&[4]).try_sub_(&z(&[3, 4]))),
        "output with shape [4] doesn't match the broadcast shape [3, 4]"
    );
    // torch.ones(1, 3, 1).add_(torch.ones(3, 1, 7))
    assert_eq!(
        msg(z(&[1, 3, 1]).try_atan2_(&z(&[3, 1, 7]))),
        "output with shape [1, 3, 1] doesn't match the broadcast shape [3, 3, 7]"
    );
    // The panicking forms panic with the same text.
    assert_eq!(panic_msg(|| z(&[1, 4]).add_(&z(&[3, 4]))), OUT_1_4);
    assert_eq!(panic_msg(|| z(&[2, 3]).maximum_(&z(&[2]))), A3_B2);
    assert_eq!(
        panic_msg(|| {
            let mut a = z(&[1, 4]);
            a += &z(&[3, 4]);
        }),
        OUT_1_4
    );
}

#[test]
fn in_place_ternary_ops_and_masked_fill_follow_the_same_rule() {
    // torch.ones(1, 4).addcmul_(torch.ones(3, 4), torch.ones(4)), and the
    // operands swapped.
    assert_eq!(
        msg(z(&[1, 4]).try_addcmul_(&z(&[3, 4]), &z(&[4]), 1.)),
        OUT_1_4
    );
    assert_eq!(
        msg(z(&[1, 4]).try_addcmul_(&z(&[4]), &z(&[3, 4]), 1.)),
        OUT_1_4
    );
    // torch.ones(2, 3).addcmul_(torch.ones(3), torch.ones(2))
    assert_eq!(msg(z(&[2, 3]).try_addcmul_(&z(&[3]), &z(&[2]), 1.)), A3_B2);
    // torch.ones(2, 3).addcmul_(torch.ones(2, 1), torch.ones(5))
    assert_eq!(
        msg(z(&[2, 3]).try_addcmul_(&z(&[2, 1]), &z(&[5]), 1.)),
        "The size of tensor a (3) must match the size of tensor b (5) at non-singleton dimension 1"
    );
    assert_eq!(
        msg(z(&[1, 4]).try_addcdiv_(&z(&[3, 4]), &z(&[4]), 1.)),
        OUT_1_4
    );
    assert_eq!(msg(z(&[1, 4]).try_lerp_(&z(&[3, 4]), &z(&[4]))), OUT_1_4);
    assert_eq!(msg(z(&[2, 3]).try_lerp_(&z(&[2]), &z(&[3]))), A3_B2);
    assert_eq!(msg(z(&[1, 4]).try_lerp_scalar_(&z(&[3, 4]), 0.5)), OUT_1_4);
    assert_eq!(msg(z(&[2, 3]).try_lerp_scalar_(&z(&[2]), 0.5)), A3_B2);
    // torch.ones(1, 4).masked_fill_(torch.ones(3, 4, dtype=bool), 0.)
    assert_eq!(
        msg(z(&[1, 4]).try_masked_fill_(&mask(&[3, 4]), 0.)),
        OUT_1_4
    );
    assert_eq!(msg(z(&[2, 3]).try_masked_fill_(&mask(&[2]), 0.)), A3_B2);
    assert_eq!(
        panic_msg(|| z(&[1, 4]).addcdiv_(&z(&[3, 4]), &z(&[4]), 1.)),
        OUT_1_4
    );
    assert_eq!(panic_msg(|| z(&[2, 3]).lerp_(&z(&[2]), &z(&[3]))), A3_B2);
}

#[test]
fn expand_and_broadcast_to_carry_the_target_and_tensor_sizes() {
    // torch.ones(3, 1, 7).expand(1, 3, 1)
    assert_eq!(
        msg(z(&[3, 1, 7]).expand::<DynRank>(&[1, 3, 1])),
        "The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [1, 3, 1].  Tensor sizes: [3, 1, 7]"
    );
    // torch.ones(3, 1, 7).broadcast_to((3, 3, 1))
    assert_eq!(
        msg(z(&[3, 1, 7]).try_broadcast_to::<DynRank>(&[3, 3, 1])),
        "The expanded size of the tensor (1) must match the existing size (7) at non-singleton dimension 2.  Target sizes: [3, 3, 1].  Tensor sizes: [3, 1, 7]"
    );
    // torch.ones(3, 1).expand(-1, 4, 5): the sizes as given, -1 included.
    assert_eq!(
        msg(z(&[3, 1]).expand::<DynRank>(&[-1, 4, 5])),
        "The expanded size of the tensor (4) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [-1, 4, 5].  Tensor sizes: [3, 1]"
    );
    // torch.addmm(torch.ones(3), torch.ones(2, 4), torch.ones(4, 5))
    assert_eq!(
        msg(z(&[3]).try_addmm(&z(&[2, 4]), &z(&[4, 5]), 1.0, 1.0)),
        "The expanded size of the tensor (5) must match the existing size (3) at non-singleton dimension 1.  Target sizes: [2, 5].  Tensor sizes: [3]"
    );
}

#[test]
fn masked_ops_name_the_operands_in_pytorchs_order() {
    // torch.ones(2, 3).masked_fill(torch.ones(2, dtype=bool), 0.)
    assert_eq!(
        msg(z(&[2, 3]).try_masked_fill(&mask(&[2]), 0.)),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
    );
    // torch.ones(2).masked_fill(torch.ones(2, 3, dtype=bool), 0.)
    assert_eq!(
        msg(z(&[2]).try_masked_fill(&mask(&[2, 3]), 0.)),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    );
    // torch.ones(2, 3).masked_select(torch.ones(2, dtype=bool))
    assert_eq!(
        msg(z(&[2, 3]).try_masked_select(&mask(&[2]))),
        "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
    );
    assert_eq!(
        msg(z(&[2]).try_masked_select(&mask(&[2, 3]))),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"
    );
}

#[test]
fn matmul_family_messages_carry_the_op_prefix() {
    // torch.mm(torch.ones(1, 2), torch.ones(1, 2))
    assert_eq!(
        msg(z(&[1, 2]).try_mm(&z(&[1, 2]))),
        "mm: mat1 and mat2 shapes cannot be multiplied (1x2 and 1x2)"
    );
    // torch.mm(torch.ones(2), torch.ones(2, 2))
    assert_eq!(
        msg(z(&[2]).try_mm(&z(&[2, 2]))),
        "mm: self must be a matrix, got 1-D tensor"
    );
    assert_eq!(
        msg(z(&[2, 2]).try_mm(&z(&[2]))),
        "mm: mat2 must be a matrix, got 1-D tensor"
    );
    // torch.addmm(torch.ones(2, 2), torch.ones(1, 2), torch.ones(1, 2))
    assert_eq!(
        msg(z(&[2, 2]).try_addmm(&z(&[1, 2]), &z(&[1, 2]), 1.0, 1.0)),
        "addmm: mat1 and mat2 shapes cannot be multiplied (1x2 and 1x2)"
    );
    assert_eq!(
        msg(z(&[2, 2]).try_addmm(&z(&[2]), &z(&[2, 2]), 1.0, 1.0)),
        "addmm: self must be a matrix, got 1-D tensor"
    );
    assert_eq!(
        msg(z(&[2, 2]).try_addmm(&z(&[2, 2]), &z(&[2]), 1.0, 1.0)),
        "addmm: mat2 must be a matrix, got 1-D tensor"
    );
    // torch.matmul dispatches to mm.
    assert_eq!(
        msg(z(&[1, 2]).try_matmul(&z(&[1, 2]))),
        "mm: mat1 and mat2 shapes cannot be multiplied (1x2 and 1x2)"
    );
    assert_eq!(
        msg(z(&[2]).try_matmul(&z(&[3, 2]))),
        "mm: mat1 and mat2 shapes cannot be multiplied (1x2 and 3x2)"
    );
    assert_eq!(
        msg(z(&[6, 2, 3]).try_matmul(&z(&[4, 5]))),
        "mm: mat1 and mat2 shapes cannot be multiplied (12x3 and 4x5)"
    );
}

#[test]
fn an_out_of_range_dim_is_reported_before_any_other_check() {
    let scalar = z(&[]);
    let want01 = "Dimension out of range (expected to be in range of [-1, 0], but got 1)";
    // torch.ones(()).sum(1), .softmax(1)
    assert_eq!(msg(scalar.try_sum_dims(&[1], false)), want01);
    assert_eq!(msg(scalar.try_softmax(1)), want01);
    // torch.ones(()).gather(1, torch.zeros((), dtype=long))
    assert_eq!(msg(scalar.try_gather(1, &idx(&[]))), want01);
    let want = |d: i32| {
        format!("Dimension out of range (expected to be in range of [-2, 1], but got {d})")
    };
    // torch.ones(2, 3).gather(3, torch.zeros(2, dtype=long)): the index's
    // rank is wrong too, but the dim is checked first.
    assert_eq!(msg(z(&[2, 3]).try_gather(3, &idx(&[2]))), want(3));
    assert_eq!(
        msg(z(&[2, 3]).try_scatter_(3, &idx(&[2]), &z(&[2]))),
        want(3)
    );
    assert_eq!(
        msg(z(&[2, 3]).try_scatter_value_(-3, &idx(&[2]), 1.)),
        want(-3)
    );
    assert_eq!(msg(z(&[2, 3]).try_sum_dims(&[0, 5], false)), want(5));
    assert_eq!(msg(z(&[2, 3]).try_argmax(3, false)), want(3));
    assert_eq!(msg(z(&[2, 3]).try_log_softmax(-3)), want(-3));
}
