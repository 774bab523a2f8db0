// The twins of the convolution cases: channels and output sizes that fit,
// static and run-time spatial sizes, 1x1 kernels, norms of the right width.
use shaped::autograd::Var;
use shaped::nn::{BatchNorm2d, Conv1d, Conv2d, ConvTranspose2d, DepthwiseConv2d, GroupNorm};
use shaped::ops::conv::Pool2dOptions;
use shaped::{Const, Dyn, One, Shape, Tensor};

fn main() {
    let conv: Conv2d<One, Const<8>, Const<3>, 2> = Conv2d::new(0);
    let x = Var::constant(Tensor::<f32, Shape![4, 1, 28, 28]>::zeros());
    let y: Var<f32, Shape![4, 8, 13, 13]> = conv.forward(&x);
    let pointwise: Conv2d<Const<8>, Const<4>, One> = Conv2d::new(1);
    let z: Var<f32, Shape![4, 4, 13, 13]> = pointwise.forward(&y);
    let bn: BatchNorm2d<Const<4>> = BatchNorm2d::new();
    let gn: GroupNorm<Const<4>> = GroupNorm::new(2);
    let p: Var<f32, Shape![4, 4, 6, 6]> = gn.forward(&bn.forward(&z)).max_pool2d(&Pool2dOptions::new(2));
    let d = Var::constant(Tensor::<f32, Shape![_, 1, _, _]>::try_zeros(&[2, 1, 9, 9]).unwrap());
    let _: Var<f32, (Dyn, Const<8>, Dyn, Dyn)> = conv.forward(&d);
    let c1: Conv1d<Const<4>, Const<2>, Const<3>, 1, 1> = Conv1d::new(2);
    let s = Var::constant(Tensor::<f32, Shape![4, 4, 36]>::zeros());
    let _: Var<f32, Shape![4, 2, 36]> = c1.forward(&s);
    let _ = p;
    // Transposed: 7x7 doubled by kernel 4 / stride 2 / padding 1, and by
    // kernel 3 / stride 2 / padding 1 / output padding 1.
    let up: ConvTranspose2d<Const<8>, Const<4>, Const<4>, 2, 1> = ConvTranspose2d::new(3);
    let u = Var::constant(Tensor::<f32, Shape![2, 8, 7, 7]>::zeros());
    let _: Var<f32, Shape![2, 4, 14, 14]> = up.forward(&u);
    let up3: ConvTranspose2d<Const<8>, Const<4>, Const<3>, 2, 1, 1> = ConvTranspose2d::new(4);
    let _: Var<f32, Shape![2, 4, 14, 14]> = up3.forward(&u);
    // Depthwise then pointwise (MobileNet): 32 channels kept, 16x16 halved.
    let dw: DepthwiseConv2d<Const<32>, Const<3>, 2, 1> = DepthwiseConv2d::new(5);
    let pw: Conv2d<Const<32>, Const<64>, One> = Conv2d::new(6);
    let m = Var::constant(Tensor::<f32, Shape![8, 32, 16, 16]>::zeros());
    let h: Var<f32, Shape![8, 32, 8, 8]> = dw.forward(&m);
    let _: Var<f32, Shape![8, 64, 8, 8]> = pw.forward(&h.relu());
}
