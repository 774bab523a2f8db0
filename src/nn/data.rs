//! [`DataLoader`]: mini-batches over tensors that share their first axis,
//! the sample axis, as `torch.utils.data.DataLoader` over a
//! `TensorDataset`: inputs `(N, ...)` and targets `(N,)` give batches
//! `(b, ...)` and `(b,)`, each gathered with
//! [`index_select`](crate::Tensor::index_select) along axis 0.
//!
//! A batch's first axis is `Dyn` in its type (the last batch may be
//! shorter). The order of an epoch is `0..N`, or with
//! [`shuffle`](DataLoader::shuffle) a permutation drawn from the seed and
//! the epoch number together (as [`DistributedSampler`] draws it, with one
//! rank): the same seed and epoch give the same order on every machine,
//! each epoch another.
//!
//! ```
//! use shaped::nn::DataLoader;
//! use shaped::{Shape, Tensor};
//! let x = Tensor::<f32, Shape![5, 2]>::from_vec((0..10).map(|i| i as f32).collect());
//! let y = Tensor::<i64, Shape![5]>::from_vec(vec![0, 1, 2, 3, 4]);
//! let loader = DataLoader::new((x, y), 2).shuffle(7);
//! assert_eq!(loader.len(), 3);
//! let mut seen = Vec::new();
//! for (xb, yb) in loader.epoch(0) {
//!     let _: (Tensor<f32, Shape![_, 2]>, Tensor<i64, Shape![_]>) = (xb.share(), yb.share());
//!     assert_eq!(xb.dims()[0], yb.dims()[0]);
//!     seen.extend(yb.to_vec());
//! }
//! seen.sort();
//! assert_eq!(seen, vec![0, 1, 2, 3, 4]);
//! ```

use crate::Tensor;
use crate::distributed::DistributedSampler;
use crate::element::Element;
use crate::shape::{Dyn, OrPanic, SetAxis, ShapeError};

/// One or more CPU tensors whose first axis is the sample axis, as
/// PyTorch's `TensorDataset`: a [`Tensor`], or a tuple of up to four of
/// them (`(inputs, targets)`). Rows `i` of every tensor together are
/// sample `i`.
///
/// ```
/// use shaped::nn::TensorDataset;
/// use shaped::{Shape, Tensor};
/// let pair = (Tensor::<f32, Shape![3, 4]>::zeros(), Tensor::<i64, Shape![3]>::zeros());
/// assert_eq!(pair.try_len().unwrap(), 3);
/// let (x, y) = pair.batch(&[2, 0]);
/// assert_eq!((x.dims(), y.dims()), (&[2, 4][..], &[2][..]));
/// ```
pub trait TensorDataset {
    /// The tensors of a batch: each with its first axis `Dyn`.
    type Batch;

    /// The number of samples: the size of every tensor's first axis.
    ///
    /// # Errors
    /// PyTorch's `Size mismatch between tensors` when the first axes
    /// differ; `dimension specified as 0 but tensor has no dimensions` for
    /// a 0-d tensor.
    fn try_len(&self) -> Result<usize, ShapeError>;

    /// Samples `index` (in range), in that order.
    fn batch(&self, index: &[i64]) -> Self::Batch;
}

impl<T: Element, S: SetAxis<0, Dyn>> TensorDataset for Tensor<T, S> {
    type Batch = Tensor<T, <S as SetAxis<0, Dyn>>::Output>;

    fn try_len(&self) -> Result<usize, ShapeError> {
        self.dims().first().copied().ok_or_else(|| {
            ShapeError::Invalid("dimension specified as 0 but tensor has no dimensions".into())
        })
    }

    #[track_caller]
    fn batch(&self, index: &[i64]) -> Self::Batch {
        let index = Tensor::<i64, (Dyn,)>::try_from_slice(index, &[index.len()]).or_panic();
        self.index_select::<0, Dyn>(&index)
    }
}

/// The impl of [`TensorDataset`] for a tuple of datasets.
macro_rules! tuple_dataset {
    ($($name:ident $field:tt),+) => {
        /// Every tensor of the tuple, sample by sample.
        impl<$($name: TensorDataset),+> TensorDataset for ($($name,)+) {
            type Batch = ($($name::Batch,)+);

            fn try_len(&self) -> Result<usize, ShapeError> {
                let lens = [$(self.$field.try_len()?),+];
                if lens.iter().any(|&n| n != lens[0]) {
                    return Err(ShapeError::Invalid("Size mismatch between tensors".into()));
                }
                Ok(lens[0])
            }

            #[track_caller]
            fn batch(&self, index: &[i64]) -> Self::Batch {
                ($(self.$field.batch(index),)+)
            }
        }
    };
}

tuple_dataset!(A 0);
tuple_dataset!(A 0, B 1);
tuple_dataset!(A 0, B 1, C 2);
tuple_dataset!(A 0, B 1, C 2, E 3);

/// Mini-batches of `batch_size` samples of a [`TensorDataset`], epoch by
/// epoch, in order or shuffled by a seed, the last short batch kept or
/// dropped, as `torch.utils.data.DataLoader(dataset, batch_size, shuffle,
/// drop_last)`.
///
/// ```
/// use shaped::nn::DataLoader;
/// use shaped::{Shape, Tensor};
/// let y = Tensor::<i64, Shape![5]>::from_vec(vec![10, 11, 12, 13, 14]);
/// let batches: Vec<Vec<i64>> = DataLoader::new(y.share(), 2).epoch(0).map(|b| b.to_vec()).collect();
/// assert_eq!(batches, vec![vec![10, 11], vec![12, 13], vec![14]]);
/// let dropped = DataLoader::new(y, 2).drop_last();
/// assert_eq!(dropped.epoch(0).count(), 2);
/// ```
#[derive(Clone, Debug)]
pub struct DataLoader<Ds> {
    data: Ds,
    len: usize,
    batch_size: usize,
    seed: Option<u64>,
    drop_last: bool,
}

impl<Ds: TensorDataset> DataLoader<Ds> {
    /// A loader of batches of `batch_size` samples of `data`, in order,
    /// keeping the last short batch.
    ///
    /// # Errors
    /// PyTorch's `batch_size should be a positive integer value, but got
    /// batch_size=0`; the errors of [`TensorDataset::try_len`].
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// let (x, y) = (Tensor::<f32, Shape![3]>::zeros(), Tensor::<f32, Shape![4]>::zeros());
    /// assert_eq!(DataLoader::try_new((x, y), 1).unwrap_err().to_string(), "Size mismatch between tensors");
    /// ```
    pub fn try_new(data: Ds, batch_size: usize) -> Result<Self, ShapeError> {
        if batch_size == 0 {
            return Err(ShapeError::Invalid(
                "batch_size should be a positive integer value, but got batch_size=0".into(),
            ));
        }
        let len = data.try_len()?;
        Ok(DataLoader {
            data,
            len,
            batch_size,
            seed: None,
            drop_last: false,
        })
    }

    /// A loader of batches of `batch_size` samples of `data`; see
    /// [`DataLoader::try_new`].
    ///
    /// # Panics
    /// With the message of [`DataLoader::try_new`]'s error.
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// let loader = DataLoader::new(Tensor::<f32, Shape![10, 3]>::zeros(), 4);
    /// assert_eq!(loader.len(), 3);
    /// ```
    #[track_caller]
    pub fn new(data: Ds, batch_size: usize) -> Self {
        Self::try_new(data, batch_size).or_panic()
    }

    /// Shuffled: each epoch visits the samples in a permutation drawn from
    /// `seed` and the epoch number (`shuffle=True` with a seeded generator).
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// let loader = DataLoader::new(Tensor::<f32, Shape![50]>::zeros(), 8).shuffle(3);
    /// assert_eq!(loader.order(0), loader.order(0));
    /// assert_ne!(loader.order(0), loader.order(1));
    /// ```
    pub fn shuffle(self, seed: u64) -> Self {
        DataLoader {
            seed: Some(seed),
            ..self
        }
    }

    /// Without the last batch when it is short (`drop_last=True`).
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(DataLoader::new(Tensor::<f32, Shape![10]>::zeros(), 4).drop_last().len(), 2);
    /// ```
    pub fn drop_last(self) -> Self {
        DataLoader {
            drop_last: true,
            ..self
        }
    }

    /// The number of samples in the dataset.
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(DataLoader::new(Tensor::<f32, Shape![10]>::zeros(), 4).num_samples(), 10);
    /// ```
    pub fn num_samples(&self) -> usize {
        self.len
    }

    /// The number of batches in an epoch, as `len(loader)`.
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(DataLoader::new(Tensor::<f32, Shape![10]>::zeros(), 4).len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        if self.drop_last {
            self.len / self.batch_size
        } else {
            self.len.div_ceil(self.batch_size)
        }
    }

    /// Whether an epoch has no batch.
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// assert!(DataLoader::new(Tensor::<f32, Shape![3]>::zeros(), 4).drop_last().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The samples of epoch `epoch` in the order they are visited
    /// (before the short batch is dropped).
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// let loader = DataLoader::new(Tensor::<f32, Shape![4]>::zeros(), 2);
    /// assert_eq!(loader.order(9), vec![0, 1, 2, 3]);
    /// ```
    pub fn order(&self, epoch: u64) -> Vec<usize> {
        let sampler = DistributedSampler::new(self.len, 0, 1);
        match self.seed {
            Some(seed) => sampler.seed(seed).global_order(epoch),
            None => sampler.no_shuffle().global_order(epoch),
        }
    }

    /// The batches of epoch `epoch`, in order.
    ///
    /// ```
    /// use shaped::nn::DataLoader;
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![6, 2]>::zeros();
    /// let loader = DataLoader::new(x, 4).shuffle(0);
    /// let sizes: Vec<usize> = loader.epoch(1).map(|b| b.dims()[0]).collect();
    /// assert_eq!(sizes, vec![4, 2]);
    /// ```
    pub fn epoch(&self, epoch: u64) -> Batches<'_, Ds> {
        Batches {
            loader: self,
            order: self.order(epoch),
            batch: 0,
        }
    }
}

/// The batches of one epoch of a [`DataLoader`]
/// ([`DataLoader::epoch`]).
///
/// ```
/// use shaped::nn::DataLoader;
/// use shaped::{Shape, Tensor};
/// let loader = DataLoader::new(Tensor::<f32, Shape![5]>::zeros(), 2);
/// assert_eq!(loader.epoch(0).len(), 3);
/// ```
#[derive(Debug)]
pub struct Batches<'a, Ds> {
    loader: &'a DataLoader<Ds>,
    order: Vec<usize>,
    batch: usize,
}

impl<Ds: TensorDataset> Iterator for Batches<'_, Ds> {
    type Item = Ds::Batch;

    fn next(&mut self) -> Option<Ds::Batch> {
        if self.batch >= self.loader.len() {
            return None;
        }
        let size = self.loader.batch_size;
        let start = self.batch * size;
        let end = (start + size).min(self.order.len());
        self.batch += 1;
        let index: Vec<i64> = self.order[start..end].iter().map(|&i| i as i64).collect();
        Some(self.loader.data.batch(&index))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.loader.len() - self.batch;
        (left, Some(left))
    }
}

impl<Ds: TensorDataset> ExactSizeIterator for Batches<'_, Ds> {}
