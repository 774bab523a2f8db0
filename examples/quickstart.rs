//! A tour of `shaped`: static shapes, broadcasting resolved by the compiler,
//! the dynamic fallback with PyTorch's errors, views, and in-place rules.
//!
//! Run with `cargo run --release --example quickstart`.

use shaped::{DynRank, Shape, Tensor, broadcast_shapes, where_cond};

fn main() -> Result<(), shaped::ShapeError> {
    // Static shapes: the result type of `x + y` is computed by the compiler.
    let x = Tensor::<f32, Shape![4, 1]>::from_vec(vec![0., 10., 20., 30.]);
    let y = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
    let z: Tensor<f32, Shape![4, 3]> = &x + &y;
    println!("(4, 1) + (3,) -> {:?}\n{z}\n", z.dims());

    // Seed 002's example, (5,1,4,1) + (3,1,1) -> (5,3,4,1).
    let a = Tensor::<f32, Shape![5, 1, 4, 1]>::ones();
    let b = Tensor::<f32, Shape![3, 1, 1]>::rand(7);
    let c: Tensor<f32, Shape![5, 3, 4, 1]> = &a * &b;
    println!("(5,1,4,1) * (3,1,1) -> {:?}", c.dims());

    // Three operands broadcast together (seed 000's addcmul rule).
    let s = Tensor::<f32, Shape![3, 1, 1]>::zeros();
    let t = s.addcmul(&y, &x.unsqueeze::<0>(), 0.5);
    println!("addcmul((3,1,1), (3,), (1,4,1)) -> {:?}", t.dims());

    // Views never copy: an expanded dimension has stride 0.
    let e: Tensor<f32, Shape![2, 3]> = y.broadcast_to();
    println!("broadcast_to (2, 3): strides {:?}", e.strides());
    let tr = z.transpose::<0, 1>();
    println!(
        "transpose: dims {:?}, strides {:?}\n{tr}\n",
        tr.dims(),
        tr.strides()
    );

    // Pointwise math with PyTorch's semantics.
    let n = Tensor::<f64, Shape![4]>::from_vec(vec![-3.5, -0.5, 0.5, 2.5]);
    let two = Tensor::<f64, Shape![1]>::full(2.0);
    println!("fmod      {}", n.fmod(&two));
    println!("remainder {}", n.remainder(&two));
    println!("round     {}", n.round());
    println!("gelu      {}", n.gelu());
    let mask = n.gt(&Tensor::<f64, Shape![]>::full(0.0));
    println!(
        "where(n > 0, n, 0) {}\n",
        where_cond(&mask, &n, &Tensor::<f64, Shape![]>::full(0.0))
    );

    // In place, the tensor keeps its shape; `y` broadcasts into it.
    let mut acc = Tensor::<f32, Shape![4, 3]>::zeros();
    acc += &y;
    acc *= 2.0;
    println!("in place (4,3) += (3,), *= 2\n{acc}\n");

    // Dynamic shapes: the same rules at run time, with PyTorch's messages.
    let p = Tensor::<f32, DynRank>::try_zeros(&[5, 2, 4, 1])?;
    let q = Tensor::<f32, DynRank>::try_zeros(&[3, 1, 1])?;
    match p.try_add(&q) {
        Ok(_) => unreachable!("(5,2,4,1) and (3,1,1) do not broadcast"),
        Err(e) => println!("dynamic (5,2,4,1) + (3,1,1): {e}"),
    }
    // In place, as PyTorch 2.x: "output with shape [1, 3, 1] doesn't match
    // the broadcast shape [3, 3, 7]" when the operands broadcast to another
    // shape, the broadcast error when they do not broadcast at all.
    let mut r = Tensor::<f32, DynRank>::try_zeros(&[1, 3, 1])?;
    let w = Tensor::<f32, DynRank>::try_zeros(&[3, 1, 7])?;
    if let Err(e) = r.try_add_(&w) {
        println!("dynamic (1,3,1).add_((3,1,7)): {e}");
    }
    let v = Tensor::<f32, DynRank>::try_zeros(&[5, 1])?;
    if let Err(e) = r.try_add_(&v) {
        println!("dynamic (1,3,1).add_((5,1)): {e}");
    }
    println!(
        "broadcast_shapes((2,3,4,5,1,1,1), (4,1,6,7,8)) = {:?}",
        broadcast_shapes(&[&[2, 3, 4, 5, 1, 1, 1], &[4, 1, 6, 7, 8]])?
    );

    // Run-time sizes with static rank: `_` is checked when the op runs.
    let batch = Tensor::<f32, Shape![_, 3]>::try_rand(&[2, 3], 1)?;
    let shifted: Tensor<f32, Shape![_, 3]> = &batch - &y;
    println!("(_, 3) - (3,) -> {:?}", shifted.dims());
    Ok(())
}
