// With only `B: Dim` (and `S: Shape`), every rule whose result the types
// decide compiles, in both operand orders; the run-time way out for two
// different parameters is `.into_dyn()`.
use shaped::{Dim, Dyn, One, Shape, Tensor, where_cond};
use shaped::element::Numeric;
use shaped::shape::Shape as ShapeTrait;

fn same<B: Dim>(x: &Tensor<f32, Shape![B, 3]>, y: &Tensor<f32, Shape![B, 3]>) -> Tensor<f32, Shape![B, 3]> {
    let s = x + y;
    let t = &s + &x.exp();
    let _: Tensor<bool, Shape![B, 3]> = t.eq(x);
    where_cond(&t.gt(y), &t, x)
}

fn with_one<B: Dim>(x: &Tensor<f32, Shape![B, 3]>, row: &Tensor<f32, Shape![1, 3]>) {
    let a: Tensor<f32, Shape![B, 3]> = x + row;
    let b: Tensor<f32, Shape![B, 3]> = row + x;
    let _ = (a, b);
}

fn with_dyn<B: Dim>(x: &Tensor<f32, Shape![B, 3]>, d: &Tensor<f32, Shape![_, 3]>) {
    // `B ⊕ Dyn` and `Dyn ⊕ B` are the same type, `B::WithDyn`.
    let a = x + d;
    let b = d + x;
    let _: [Tensor<f32, (<B as Dim>::WithDyn, shaped::Const<3>)>; 2] = [a, b];
}

fn batched<B: Dim>(x: &Tensor<f32, Shape![B, 2, 3]>, w: &Tensor<f32, Shape![B, 3, 4]>) -> Tensor<f32, Shape![B, 2, 4]> {
    let _: Tensor<f32, Shape![B, 2, 4]> = x.bmm(w);
    x.matmul(w)
}

fn whole<S: ShapeTrait>(x: &Tensor<f32, S>, y: &Tensor<f32, S>) -> Tensor<f32, S> {
    let mut z = x + y;
    z += y;
    z
}

fn in_place<B: Dim>(x: &mut Tensor<f32, Shape![B, 3]>, y: &Tensor<f32, Shape![B, 3]>, row: &Tensor<f32, Shape![1, 3]>) {
    *x += y;
    *x -= row;
    x.add_(row);
    x.mul_(y);
    let m: Tensor<f32, Shape![B, 3]> = x.mul(y).add(row);
    x.copy_from(&m);
}

fn any_element<T: Numeric, B: Dim>(x: &Tensor<T, Shape![B, 3]>) -> Tensor<T, Shape![B, 3]> {
    let y = x + x;
    y.add(x)
}

fn two<B: Dim, C: Dim>(x: &Tensor<f32, Shape![B, 3]>, y: &Tensor<f32, Shape![C, 3]>) -> Tensor<f32, Shape![B, 3]> {
    (&x.clone().into_dyn() + y).try_into_shape().unwrap()
}

fn main() {
    let x = Tensor::<f32, Shape![2, 3]>::ones();
    let _ = same(&x, &x);
    with_one(&x, &Tensor::zeros());
    with_dyn(&x, &Tensor::try_zeros(&[2, 3]).unwrap());
    let _ = batched::<One>(&Tensor::zeros(), &Tensor::zeros());
    let _ = batched::<Dyn>(&Tensor::try_zeros(&[2, 2, 3]).unwrap(), &Tensor::try_zeros(&[2, 3, 4]).unwrap());
    let _ = whole(&x, &x);
    let _ = two(&x, &Tensor::<f32, Shape![1, 3]>::zeros());
    let mut z = x.clone();
    in_place(&mut z, &x, &Tensor::ones());
    let _ = any_element(&Tensor::<i64, Shape![2, 3]>::ones());
}
