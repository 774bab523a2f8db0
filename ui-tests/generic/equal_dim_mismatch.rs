// A caller of a function that states `B: EqualDim<C>` gets its own sizes
// checked: 4 and 5 differ, and a size-1 `C` is not the same size as 4 (it
// would broadcast, but the bound says equal). Twin: pass/equal_dim.rs.
use shaped::{Dim, EqualDim, Shape, Tensor};

fn add_rows<B: EqualDim<C>, C: Dim>(
    x: &Tensor<f32, Shape![B, 3]>,
    y: &Tensor<f32, Shape![C, 3]>,
) -> Tensor<f32, Shape![B, 3]> {
    x + y
}

fn main() {
    let x = Tensor::<f32, Shape![4, 3]>::ones();
    let _ = add_rows(&x, &Tensor::<f32, Shape![5, 3]>::ones());
    let _ = add_rows(&x, &Tensor::<f32, Shape![1, 3]>::ones());
}
