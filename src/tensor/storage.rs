//! Reference-counted element storage shared by a tensor and its views.

use parking_lot::{RwLock, RwLockReadGuard, RwLockWriteGuard};

/// The elements behind a CPU tensor and all its views.
///
/// A lock guards the buffer: kernels read under a read guard and in-place
/// operations write under a write guard, so a view written on one thread
/// never races a read on another. Reads are recursive, so one operation may
/// read the same storage through several operands.
#[derive(Debug)]
pub struct Storage<T> {
    data: RwLock<Vec<T>>,
}

impl<T> Storage<T> {
    pub(crate) fn new(data: Vec<T>) -> Self {
        Storage {
            data: RwLock::new(data),
        }
    }

    pub(crate) fn read(&self) -> RwLockReadGuard<'_, Vec<T>> {
        self.data.read_recursive()
    }

    pub(crate) fn write(&self) -> RwLockWriteGuard<'_, Vec<T>> {
        self.data.write()
    }

    pub(crate) fn into_inner(self) -> Vec<T> {
        self.data.into_inner()
    }

    pub(crate) fn len(&self) -> usize {
        self.read().len()
    }
}
