//! Reductions that report positions: `argmax` / `argmin` (indices only) and
//! `max` / `min` along one dim with their indices, as `torch.max(t, dim)`.
//! An index counts along the reduced dim (over all elements, row-major, for
//! the form without a dim); among equal values the first wins, and a NaN
//! wins over everything, as in PyTorch.

use super::axes;
use crate::Tensor;
use crate::backend::Backend;
use crate::device::Cpu;
use crate::element::Numeric;
use crate::shape::OrPanic;
use crate::shape::{DynRank, RemoveAxis, Shape};
use crate::tensor::reduction;

/// Values and indices of an extreme along some dims.
type Pair<T, S, D = Cpu> = (Tensor<T, S, D>, Tensor<i64, S, D>);

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The largest (`MAX`) or smallest values over `mask` (`None`: all) and
    /// their indices.
    fn extreme_with_indices<const MAX: bool, SO: Shape>(
        &self,
        mask: Option<&[bool]>,
        keepdim: bool,
        name: &str,
    ) -> Result<Pair<T, SO, D>, D::Error> {
        let every = axes::all(self.rank());
        let m = mask.unwrap_or(&every);
        super::check_nonempty(Some(name), self.dims(), m, mask.is_none())?;
        reduction::arg_extreme(MAX, self, m, keepdim)
    }
}

macro_rules! arg_reductions {
    ($(
        $max:literal, $name:literal, $vname:literal, $word:literal:
        $arg:ident, $arg_dim:ident, $arg_keep:ident, $try_arg:ident,
        $with:ident, $with_keep:ident, $try_with:ident,
        $example:literal, $index:literal;
    )*) => {$(
        impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
            #[doc = concat!("The flat (row-major) index of the ", $word, " element, as `torch.", $name, "(t)`.")]
            ///
            /// # Panics
            /// When the tensor is empty, with PyTorch's message.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            #[doc = concat!("let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec!", $example, ");")]
            #[doc = concat!("assert_eq!(t.", stringify!($arg), "().item(), ", $index, ");")]
            /// ```
            #[track_caller]
            pub fn $arg(&self) -> Tensor<i64, (), D> {
                self.extreme_with_indices::<$max, ()>(None, false, $name)
                    .or_panic()
                    .1
            }

            #[doc = concat!("The index along axis `K` of the ", $word, " element of each slice, as `torch.", $name, "(t, K)`.")]
            ///
            /// # Panics
            /// When axis `K` has size 0, and for [`DynRank`] tensors when
            /// `K` is out of range.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 9, 9, 7, 0, 8]);
            #[doc = concat!("let i: Tensor<i64, Shape![2]> = t.", stringify!($arg_dim), "::<1>();")]
            /// assert_eq!(i.dims(), &[2]);
            /// ```
            #[track_caller]
            pub fn $arg_dim<const K: usize>(&self) -> Tensor<i64, <S as RemoveAxis<K>>::Output, D>
            where
                S: RemoveAxis<K>,
            {
                axes::from_axis(K, self.rank())
                    .map_err(D::Error::from)
                    .and_then(|m| self.extreme_with_indices::<$max, _>(Some(&m), false, $name))
                    .or_panic()
                    .1
            }

            #[doc = concat!("[`Tensor::", stringify!($arg_dim), "`] keeping axis `K` with size 1.")]
            ///
            /// # Panics
            /// As the form without `keepdim`.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 9, 9, 7, 0, 8]);
            #[doc = concat!("let i: Tensor<i64, Shape![1, 3]> = t.", stringify!($arg_keep), "::<0>();")]
            #[doc = concat!("assert_eq!(i.to_vec(), t.", stringify!($arg_dim), "::<0>().to_vec());")]
            /// ```
            #[track_caller]
            pub fn $arg_keep<const K: usize>(&self) -> Tensor<i64, <S as RemoveAxis<K>>::KeepDim, D>
            where
                S: RemoveAxis<K>,
            {
                axes::from_axis(K, self.rank())
                    .map_err(D::Error::from)
                    .and_then(|m| self.extreme_with_indices::<$max, _>(Some(&m), true, $name))
                    .or_panic()
                    .1
            }

            #[doc = concat!("[`Tensor::", stringify!($arg_dim), "`] along the run-time dim `dim` (negative counts from the end).")]
            ///
            /// # Errors
            /// PyTorch's errors for a dim out of range or of size 0.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let t = Tensor::<i32, DynRank>::try_from_vec(vec![1, 9, 9, 7, 0, 8], &[2, 3]).unwrap();
            #[doc = concat!("let i = t.", stringify!($try_arg), "(-1, false).unwrap();")]
            #[doc = concat!("assert_eq!(i.to_vec(), t.", stringify!($arg_dim), "::<1>().to_vec());")]
            /// ```
            pub fn $try_arg(&self, dim: isize, keepdim: bool) -> Result<Tensor<i64, DynRank, D>, D::Error> {
                let m = axes::from_dims(&[dim], self.rank())?;
                self.extreme_with_indices::<$max, _>(Some(&m), keepdim, $name).map(|(_, i)| i)
            }

            #[doc = concat!("The ", $word, " values along axis `K` and their indices, as `torch.", $vname, "(t, K)`.")]
            ///
            /// # Panics
            /// When axis `K` has size 0, and for [`DynRank`] tensors when
            /// `K` is out of range.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 9., 9., 7., 0., 8.]);
            #[doc = concat!("let (v, i) = t.", stringify!($with), "::<1>();")]
            /// assert_eq!(v.dims(), i.dims());
            /// ```
            #[track_caller]
            pub fn $with<const K: usize>(&self) -> Pair<T, <S as RemoveAxis<K>>::Output, D>
            where
                S: RemoveAxis<K>,
            {
                axes::from_axis(K, self.rank())
                    .map_err(D::Error::from)
                    .and_then(|m| self.extreme_with_indices::<$max, _>(Some(&m), false, $vname))
                    .or_panic()
            }

            #[doc = concat!("[`Tensor::", stringify!($with), "`] keeping axis `K` with size 1.")]
            ///
            /// # Panics
            /// As the form without `keepdim`.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 9., 9., 7., 0., 8.]);
            #[doc = concat!("let (v, i) = t.", stringify!($with_keep), "::<1>();")]
            /// assert_eq!(v.dims(), &[2, 1]);
            /// assert_eq!(i.dims(), &[2, 1]);
            /// ```
            #[track_caller]
            pub fn $with_keep<const K: usize>(&self) -> Pair<T, <S as RemoveAxis<K>>::KeepDim, D>
            where
                S: RemoveAxis<K>,
            {
                axes::from_axis(K, self.rank())
                    .map_err(D::Error::from)
                    .and_then(|m| self.extreme_with_indices::<$max, _>(Some(&m), true, $vname))
                    .or_panic()
            }

            #[doc = concat!("[`Tensor::", stringify!($with), "`] along the run-time dim `dim` (negative counts from the end).")]
            ///
            /// # Errors
            /// PyTorch's errors for a dim out of range or of size 0.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let t = Tensor::<f32, DynRank>::try_zeros(&[2, 0]).unwrap();
            #[doc = concat!("let e = t.", stringify!($try_with), "(1, false).unwrap_err();")]
            #[doc = concat!("assert_eq!(e.to_string(), \"", $vname, "(): Expected reduction dim 1 to have non-zero size.\");")]
            /// ```
            pub fn $try_with(&self, dim: isize, keepdim: bool) -> Result<Pair<T, DynRank, D>, D::Error> {
                let m = axes::from_dims(&[dim], self.rank())?;
                self.extreme_with_indices::<$max, _>(Some(&m), keepdim, $vname)
            }
        }
    )*};
}

arg_reductions! {
    true, "argmax", "max", "largest":
    argmax, argmax_dim, argmax_dim_keepdim, try_argmax,
    max_dim_with_indices, max_dim_keepdim_with_indices, try_max_with_indices,
    "[1., 5., 5., 2.]", "1";
    false, "argmin", "min", "smallest":
    argmin, argmin_dim, argmin_dim_keepdim, try_argmin,
    min_dim_with_indices, min_dim_keepdim_with_indices, try_min_with_indices,
    "[3., 0., 5., 0.]", "1";
}
