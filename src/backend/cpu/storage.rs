//! Reference-counted element storage shared by a tensor and its views.
//!
//! Two things ride on the storage besides the elements:
//! - a **version counter**, bumped by every write guard (every in-place
//!   operation, `out=` form, `set` and `as_mut_slice`), which autograd reads
//!   to refuse a backward pass through a value modified after it was
//!   recorded (PyTorch's `_version`);
//! - a per-thread record of the guards each thread holds, so that a thread
//!   asking for a guard that its own guards exclude (writing while it holds
//!   `as_slice()`, reading while it holds `as_mut_slice()`) panics with a
//!   message instead of waiting forever on itself, as `RefCell` does. An
//!   eager operation's own guards, taken and given back inside one call
//!   that runs none of the user's code, are not recorded (`read_brief`,
//!   `write_brief`): nothing on their thread can ask for a conflicting
//!   guard while they are held. Calls that run the user's closures under
//!   their guards (`map`, `zip_map`, ...) record them (`record_guards`).

use core::cell::Cell;
use core::ops::{Deref, DerefMut};
use core::sync::atomic::{AtomicU64, Ordering};

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
    version: AtomicU64,
}

/// How many storages a thread's guards are recorded for at once (an
/// operation holds at most four; a guard beyond the slots is simply not
/// recorded, and a conflict through it waits as it did before).
const SLOTS: usize = 8;

/// The guards one thread holds: for each of the first `len` slots, a
/// storage's address and the thread's hold on it (read guards, a count; or
/// the write guard, -1). Plain cells without a destructor, so that an
/// access is a load from the thread's block (a `RefCell<Vec<_>>` cost a
/// small op about 300 instructions, callgrind).
struct Held {
    len: Cell<usize>,
    keys: [Cell<usize>; SLOTS],
    holds: [Cell<i32>; SLOTS],
}

thread_local! {
    static HELD: Held = const {
        Held {
            len: Cell::new(0),
            keys: [const { Cell::new(0) }; SLOTS],
            holds: [const { Cell::new(0) }; SLOTS],
        }
    };
}

thread_local! {
    /// Whether this thread records its brief guards too ([`record_guards`]).
    static RECORD_BRIEF: Cell<bool> = const { Cell::new(false) };
}

/// Makes this thread record its brief guards ([`Storage::read_brief`],
/// [`Storage::write_brief`]) until the returned value drops: what a call
/// that runs the user's code under its guards (`map`, `zip_map`, `map_`,
/// ...) holds, so that the user's code touching the same tensor conflicting
/// with them panics instead of waiting on its own thread.
pub(crate) fn record_guards() -> RecordGuards {
    RecordGuards(RECORD_BRIEF.with(|r| r.replace(true)))
}

/// Restores the previous [`record_guards`] setting when dropped.
pub(crate) struct RecordGuards(bool);

impl Drop for RecordGuards {
    fn drop(&mut self) {
        RECORD_BRIEF.with(|r| r.set(self.0));
    }
}

/// The key a brief guard on the storage at `key` carries: `key` when this
/// thread records brief guards (then recorded as `delta`), else 0
/// (unrecorded; its release does nothing).
#[inline]
fn brief_key(key: usize, delta: i32) -> usize {
    if RECORD_BRIEF.with(Cell::get) {
        hold(key, delta, true);
        key
    } else {
        0
    }
}

impl Held {
    /// The slot of `key`, among the used ones.
    #[inline]
    fn find(&self, key: usize) -> Option<usize> {
        (0..self.len.get().min(SLOTS)).find(|&i| self.keys[i].get() == key)
    }
}

/// This thread's hold on the storage at `key`: read guards (> 0), the write
/// guard (-1) or nothing (0).
fn held(key: usize) -> i32 {
    HELD.with(|h| h.find(key).map_or(0, |i| h.holds[i].get()))
}

/// Adds `delta` to this thread's hold on `key`: +1 / -1 for a read guard
/// taken / given back, -1 / +1 for the write guard. A guard taken when every
/// slot is in use is not recorded, and a release (`taken` false) changes
/// nothing it does not find.
#[inline]
fn hold(key: usize, delta: i32, taken: bool) {
    HELD.with(|h| match h.find(key) {
        Some(i) => {
            let n = h.holds[i].get() + delta;
            if n != 0 {
                h.holds[i].set(n);
                return;
            }
            // The last slot moves into the freed one.
            let last = h.len.get() - 1;
            h.keys[i].set(h.keys[last].get());
            h.holds[i].set(h.holds[last].get());
            h.len.set(last);
        }
        None => {
            let len = h.len.get();
            if taken && len < SLOTS {
                h.keys[len].set(key);
                h.holds[len].set(delta);
                h.len.set(len + 1);
            }
        }
    });
}

impl<T> crate::backend::Versioned for Storage<T> {
    fn version(&self) -> u64 {
        Storage::version(self)
    }
}

impl<T> Storage<T> {
    pub(crate) fn new(data: Vec<T>) -> Self {
        Storage {
            data: RwLock::new(data),
            version: AtomicU64::new(0),
        }
    }

    fn key(&self) -> usize {
        self as *const Self as usize
    }

    /// A read guard (recursive: a thread may hold several).
    ///
    /// # Panics
    /// When this thread holds the write guard (an `as_mut_slice()` guard
    /// alive while the same tensor is read), which would wait forever.
    #[track_caller]
    pub(crate) fn read(&self) -> Read<'_, T> {
        let key = self.key();
        if let Some(guard) = self.data.try_read_recursive() {
            hold(key, 1, true);
            return Read { guard, key };
        }
        if held(key) < 0 {
            panic!(
                "already mutably borrowed: this thread holds the tensor's elements writable \
                 (an `as_mut_slice()` guard); drop the guard before reading the tensor"
            );
        }
        let guard = self.data.read_recursive();
        hold(key, 1, true);
        Read { guard, key }
    }

    /// A read guard held only inside one call of shaped that runs no code of
    /// the user's under it (an eager operation's kernel): not recorded
    /// among this thread's guards unless [`record_guards`] is on, since no
    /// conflicting request can come from this thread while it is held.
    /// Recording a guard and giving it back cost a small operation about 60
    /// instructions per guard (callgrind).
    ///
    /// Not covered, so waiting instead of panicking: an op type defined
    /// outside the table whose scalar `call` writes a tensor the op reads
    /// (the kernel runs it under unrecorded guards), and a user's closure
    /// run by a pool helper thread (whose guards are its caller's; that case
    /// waited before too).
    ///
    /// # Panics
    /// As [`Storage::read`], when another guard of this thread conflicts.
    #[inline]
    #[track_caller]
    pub(crate) fn read_brief(&self) -> Read<'_, T> {
        match self.data.try_read_recursive() {
            Some(guard) => Read {
                guard,
                key: brief_key(self.key(), 1),
            },
            None => self.read(),
        }
    }

    /// The write guard, held as [`Storage::read_brief`]'s guards are; bumps
    /// the version.
    ///
    /// # Panics
    /// As [`Storage::write`].
    #[inline]
    #[track_caller]
    pub(crate) fn write_brief(&self) -> Write<'_, T> {
        match self.data.try_write() {
            Some(guard) => {
                self.version.fetch_add(1, Ordering::Relaxed);
                Write {
                    guard,
                    key: brief_key(self.key(), -1),
                }
            }
            None => self.write(),
        }
    }

    /// The write guard; bumps the version.
    ///
    /// # Panics
    /// When this thread holds a guard on the same storage (an `as_slice()`
    /// or `as_mut_slice()` guard alive while the same tensor is written),
    /// which would wait forever.
    #[track_caller]
    pub(crate) fn write(&self) -> Write<'_, T> {
        let key = self.key();
        let guard = match self.data.try_write() {
            Some(guard) => guard,
            None => {
                if held(key) != 0 {
                    panic!(
                        "already borrowed: this thread holds a guard on the tensor's elements \
                         (`as_slice()` or `as_mut_slice()`); drop the guard before writing the tensor"
                    );
                }
                self.data.write()
            }
        };
        self.version.fetch_add(1, Ordering::Relaxed);
        hold(key, -1, true);
        Write { guard, key }
    }

    /// How many write guards were ever taken: it changes whenever the
    /// elements may have.
    pub(crate) fn version(&self) -> u64 {
        self.version.load(Ordering::Relaxed)
    }

    /// The elements, taken out of a storage this caller alone holds (its
    /// buffer is left empty).
    pub(crate) fn take_elements(&mut self) -> Vec<T> {
        core::mem::take(self.data.get_mut())
    }

    /// A storage made from `data`: a shell of this thread's kept by a
    /// dropped tensor (`shells.rs`) when there is one, else a new one.
    #[inline]
    pub(crate) fn shared(data: Vec<T>) -> std::sync::Arc<Self>
    where
        T: 'static,
    {
        super::shells::storage(data)
    }

    /// Hands the buffer to the caches (`cache.rs` for large buffers,
    /// `small_buffers.rs` for small ones), leaving the storage empty: what
    /// dropping it does, and what keeping its shell does first.
    #[inline]
    pub(crate) fn give_buffer(&mut self) {
        let data = core::mem::take(self.data.get_mut());
        if data.capacity() * core::mem::size_of::<T>() >= super::cache::MIN_BYTES {
            super::cache::give(data);
        } else {
            super::small_buffers::give(data);
        }
    }

    /// A kept shell made a new storage of `data`: the elements replaced (the
    /// old buffer, if any, goes to the thread's small buffers) and the
    /// version counter back at 0.
    #[inline]
    pub(crate) fn refill(&mut self, data: Vec<T>) {
        let old = core::mem::replace(self.data.get_mut(), data);
        if old.capacity() != 0 {
            super::small_buffers::give(old);
        }
        *self.version.get_mut() = 0;
    }

    /// The byte count of the buffer's capacity, read without a guard (the
    /// caller holds the storage alone).
    #[inline]
    pub(crate) fn buffer_bytes(&mut self) -> usize {
        self.data.get_mut().capacity() * core::mem::size_of::<T>()
    }

    /// Bumps the version counter, as a write guard does (for tests).
    #[cfg(test)]
    pub(crate) fn bump_version(&self) {
        self.version.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn len(&self) -> usize {
        self.read().len()
    }
}

/// The buffer goes to the caching allocator (`backend/cpu/cache.rs`), which
/// keeps it for the next tensor of its size class or frees it.
impl<T> Drop for Storage<T> {
    #[inline]
    fn drop(&mut self) {
        // Small buffers stay with this thread for its next small op
        // (`small_buffers.rs`), large ones go to the shared cache.
        self.give_buffer();
    }
}

/// A read guard on a [`Storage`]'s elements; derefs to the `Vec`.
#[derive(Debug)]
pub(crate) struct Read<'a, T> {
    guard: RwLockReadGuard<'a, Vec<T>>,
    /// The storage's key when the guard is recorded, 0 when not.
    key: usize,
}

impl<T> Deref for Read<'_, T> {
    type Target = Vec<T>;
    #[inline]
    fn deref(&self) -> &Vec<T> {
        &self.guard
    }
}

impl<T> Drop for Read<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Key 0: a brief guard that was not recorded.
        if self.key != 0 {
            hold(self.key, -1, false);
        }
    }
}

/// The write guard on a [`Storage`]'s elements; derefs to the `Vec`.
#[derive(Debug)]
pub(crate) struct Write<'a, T> {
    guard: RwLockWriteGuard<'a, Vec<T>>,
    /// The storage's key when the guard is recorded, 0 when not.
    key: usize,
}

impl<T> Deref for Write<'_, T> {
    type Target = Vec<T>;
    #[inline]
    fn deref(&self) -> &Vec<T> {
        &self.guard
    }
}

impl<T> DerefMut for Write<'_, T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.guard
    }
}

impl<T> Drop for Write<'_, T> {
    #[inline]
    fn drop(&mut self) {
        // Key 0: a brief guard that was not recorded.
        if self.key != 0 {
            hold(self.key, 1, false);
        }
    }
}
