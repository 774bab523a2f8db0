//! A strided matrix view (base pointer, row and column strides), the
//! operand description the GEMM drivers share: the vector kernels
//! (`gemm.rs`), the AMX tiles (`amx.rs`) and the fused attention
//! (`attention.rs`).

/// A matrix: base pointer, row stride, column stride (in elements).
#[derive(Debug)]
pub(super) struct Mat<P> {
    pub(super) ptr: P,
    pub(super) rs: usize,
    pub(super) cs: usize,
}

impl<P: Copy> Clone for Mat<P> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<P: Copy> Copy for Mat<P> {}

impl<T> Mat<*const T> {
    /// The same layout over elements of type `U`.
    pub(super) fn cast<U>(self) -> Mat<*const U> {
        Mat {
            ptr: self.ptr as *const U,
            rs: self.rs,
            cs: self.cs,
        }
    }
}

impl<T> Mat<*mut T> {
    /// The same layout over elements of type `U`.
    pub(super) fn cast<U>(self) -> Mat<*mut U> {
        Mat {
            ptr: self.ptr as *mut U,
            rs: self.rs,
            cs: self.cs,
        }
    }
}
