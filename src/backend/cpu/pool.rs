//! A work-sharing pool for one large kernel at a time: the calling thread
//! and a few helper threads take numbered tiles from a shared counter until
//! none are left. Every parallel CPU kernel runs on it: elementwise, index
//! and reduction loops (cut into ranges by [`par_ranges`], walked by
//! [`par_segments`]) and matrix products.
//!
//! # Why not rayon here
//! A matrix product of `256^3` takes about 100 us on two cores. rayon's
//! workers go to sleep a few tens of microseconds after they run out of
//! work, and waking a sleeping thread in a virtual machine (a futex wake,
//! an inter-processor interrupt, a halted vCPU) costs about as much again:
//! measured side by side on the project machine, `256^3` ran at 316 GFLOP/s
//! best and 202 median through rayon tiles, and at 349 / 306 with a helper
//! that spins between calls, as OpenMP's threads (PyTorch's, OpenBLAS's) do.
//! An allocating `(256, 512) * (256, 1)` called every 200 us took 77-99 us
//! (median) through rayon and 11 us here; `(256, 512) + (256, 1)` into an
//! existing output, back to back, 12 us and 7 us.
//! The helpers here therefore wait for the next job by spinning, yielding
//! the core to any other runnable thread on every round, for
//! [`SPIN_WINDOW`] after their last job, and only then park.
//!
//! Tiles are handed out one at a time, so a helper that the machine
//! deschedules takes fewer of them and the caller does the rest; the caller
//! waits only for tiles already started.
//!
//! One job runs at a time. A caller that finds the pool busy (another
//! thread's product, or a call from inside a tile) runs its tiles itself.
//!
//! # Protocol
//! `epoch` is odd while a job is open. The caller writes the job, resets
//! the tile counter and makes `epoch` odd; to close, it makes `epoch` even
//! and waits until `active` is 0. A helper joins a job by incrementing
//! `active` and then checking that `epoch` still has the value it saw:
//! in the single total order of these sequentially consistent operations,
//! either the check comes before the close (and the caller's wait sees the
//! increment), or after it (and the helper backs off without touching the
//! job). So no helper reads a job after its caller has returned.

use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::SeqCst};
use std::sync::{Condvar, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crate::iter::Plan;

/// How long an idle helper keeps watching for the next job before it parks.
const SPIN_WINDOW: Duration = Duration::from_millis(1);

/// Spin-loop hints between two yields of an idle helper.
const SPINS_PER_YIELD: usize = 32;

/// A job: a tile function with its lifetime erased, and the tile count.
#[derive(Clone, Copy)]
struct Job {
    f: *const (dyn Fn(usize) + Sync),
    tiles: usize,
}

/// The pool's shared state (one per process).
struct Pool {
    /// Helper threads (the caller is the other worker).
    helpers: usize,
    /// Held by the thread whose job is open.
    in_use: AtomicBool,
    /// Odd while a job is open.
    epoch: AtomicUsize,
    /// The next tile to hand out.
    next: AtomicUsize,
    /// Helpers that joined the open job and have not left it.
    active: AtomicUsize,
    /// Set by a helper whose tile panicked; the caller re-raises.
    panicked: AtomicBool,
    /// The open job; written only while `epoch` is even and `active` is 0.
    job: UnsafeCell<Job>,
    /// Helpers parked (or about to park) on `wake`.
    sleepers: AtomicUsize,
    /// Guards parking.
    lock: Mutex<()>,
    /// Where parked helpers wait for the next job.
    wake: Condvar,
}

// SAFETY: every field is atomic or synchronised except `job`, which the
// protocol (module docs) writes only while no helper may read it, and whose
// closure is `Sync`, so calling it from helpers is sound.
unsafe impl Sync for Pool {}

/// The process's pool, created on first use with one helper fewer than
/// rayon's thread count (so `RAYON_NUM_THREADS` bounds both). The count is
/// read once, on the calling thread: a first use inside a custom rayon
/// pool's `install` sizes the pool from that pool.
fn pool() -> &'static Pool {
    static POOL: OnceLock<&'static Pool> = OnceLock::new();
    POOL.get_or_init(|| {
        let helpers = rayon::current_num_threads().saturating_sub(1);
        let pool: &'static Pool = Box::leak(Box::new(Pool {
            helpers,
            in_use: AtomicBool::new(false),
            epoch: AtomicUsize::new(0),
            next: AtomicUsize::new(0),
            active: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            job: UnsafeCell::new(Job {
                f: &|_| {},
                tiles: 0,
            }),
            sleepers: AtomicUsize::new(0),
            lock: Mutex::new(()),
            wake: Condvar::new(),
        }));
        for i in 0..helpers {
            let spawned = std::thread::Builder::new()
                .name(format!("shaped-pool-{i}"))
                // Room for deep fused expressions, whose inlined code
                // takes megabytes of stack in unoptimised builds
                // (`fused::with_stack` grows the caller's): only touched
                // pages are committed.
                .stack_size(64 << 20)
                .spawn(move || helper(pool));
            if spawned.is_err() {
                // Fewer helpers than planned: the caller takes their tiles.
                break;
            }
        }
        pool
    })
}

/// The number of threads that run a job's tiles: the caller and the
/// helpers.
pub(crate) fn threads() -> usize {
    pool().helpers + 1
}

/// Elements below which an elementwise kernel or reduction runs on one
/// thread; above it, each range has at least this many.
pub(crate) const GRAIN: usize = 1 << 15;

/// Calls `f(start, end)` for contiguous ranges that together cover `0..n`
/// once: one range when `n` is under [`GRAIN`] or there is one thread,
/// else a few ranges per thread (each at least [`GRAIN`] long) run by
/// [`for_each_tile`]; nothing when `n` is 0.
pub(crate) fn par_ranges(n: usize, f: &(dyn Fn(usize, usize) + Sync)) {
    if n == 0 {
        return;
    }
    if n < GRAIN {
        return f(0, n);
    }
    let threads = threads();
    if threads == 1 {
        return f(0, n);
    }
    let chunks = (n / GRAIN).clamp(1, threads * 4);
    for_each_tile(chunks, &|c| f(c * n / chunks, (c + 1) * n / chunks));
}

/// Calls `seg(offsets, inner_strides, len)` for every segment of `plan`,
/// walking the ranges of [`par_ranges`] each on its own thread.
pub(crate) fn par_segments<const N: usize>(
    plan: &Plan<N>,
    seg: impl Fn([usize; N], [usize; N], usize) + Sync,
) {
    par_ranges(plan.numel(), &|start, end| plan.segments(start, end, &seg));
}

/// Runs `f(t)` for every `t` in `0..tiles`, each exactly once, spread over
/// the calling thread and the pool's helpers; returns when all have run.
///
/// # Panics
/// When `f` panics, on this thread or on a helper (after every started
/// tile has finished).
pub(crate) fn for_each_tile(tiles: usize, f: &(dyn Fn(usize) + Sync)) {
    let pool = pool();
    if tiles <= 1 || pool.helpers == 0 || pool.in_use.swap(true, SeqCst) {
        (0..tiles).for_each(f);
        return;
    }
    // SAFETY: only the lifetime changes. Helpers call `f` only between
    // joining and leaving this job, and `Close` (below, also on unwinding)
    // does not return before every helper has left it, so `f` outlives
    // every use.
    let f_erased: *const (dyn Fn(usize) + Sync) = unsafe {
        core::mem::transmute::<&(dyn Fn(usize) + Sync), &'static (dyn Fn(usize) + Sync)>(f)
    };
    // SAFETY: `in_use` is ours, so no other caller writes the job, and the
    // epoch is even with no helper active (the last caller's `Close`
    // waited for that), so no helper reads it.
    unsafe {
        *pool.job.get() = Job { f: f_erased, tiles };
    }
    pool.next.store(0, SeqCst);
    pool.panicked.store(false, SeqCst);
    pool.epoch.fetch_add(1, SeqCst);
    if pool.sleepers.load(SeqCst) > 0 {
        let _g = pool.lock.lock().unwrap_or_else(PoisonError::into_inner);
        pool.wake.notify_all();
    }
    let close = Close { pool, open: true };
    take_tiles(pool, f, tiles);
    if close.finish() {
        panic!("a tile of a parallel kernel panicked on a helper thread");
    }
}

/// [`for_each_tile`] for tiles that can fail: every tile runs (a tile
/// that fails does not stop the others), and the first error reported is
/// returned once all have finished.
///
/// # Errors
/// The error of a tile that failed, when one did.
pub(crate) fn try_for_each_tile<E: Send>(
    tiles: usize,
    f: &(dyn Fn(usize) -> Result<(), E> + Sync),
) -> Result<(), E> {
    let failed = Mutex::new(None);
    for_each_tile(tiles, &|t| {
        if let Err(e) = f(t) {
            failed
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get_or_insert(e);
        }
    });
    match failed.into_inner().unwrap_or_else(PoisonError::into_inner) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Runs `first(j)` for every `j` in `0..n1`, then, once all of them have
/// returned, `second(t)` for every `t` in `0..n2`, in one job of the pool
/// (one wake-up of the helpers instead of two). Each thread takes work
/// from the first phase while there is any, waits for the others' last
/// items of it, then takes from the second; any one thread can do all of
/// it, so a helper that joins late (or never) only costs time.
///
/// # Panics
/// When `first` or `second` panics (the other threads then stop waiting).
pub(crate) fn two_phases(
    n1: usize,
    first: &(dyn Fn(usize) + Sync),
    n2: usize,
    second: &(dyn Fn(usize) + Sync),
) {
    let (next1, done1, next2) = (
        AtomicUsize::new(0),
        AtomicUsize::new(0),
        AtomicUsize::new(0),
    );
    let failed = AtomicBool::new(false);
    /// Marks the job failed if dropped while unwinding.
    struct Failed<'a>(&'a AtomicBool);
    impl Drop for Failed<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.store(true, SeqCst);
            }
        }
    }
    let region = |_| {
        let _guard = Failed(&failed);
        loop {
            let j = next1.fetch_add(1, SeqCst);
            if j >= n1 {
                break;
            }
            first(j);
            done1.fetch_add(1, SeqCst);
        }
        while done1.load(SeqCst) < n1 {
            if failed.load(SeqCst) {
                return;
            }
            core::hint::spin_loop();
        }
        loop {
            let t = next2.fetch_add(1, SeqCst);
            if t >= n2 {
                break;
            }
            second(t);
        }
    };
    for_each_tile(threads(), &region);
}

/// The open job of one caller. Closing it (by [`Close::finish`], or on
/// drop while unwinding from a panicking tile) stops helpers from joining,
/// returns once every helper that joined has left, and frees the pool.
struct Close {
    pool: &'static Pool,
    open: bool,
}

impl Close {
    /// Closes the job; whether a helper's tile panicked.
    fn finish(mut self) -> bool {
        self.close()
    }

    fn close(&mut self) -> bool {
        let pool = self.pool;
        self.open = false;
        pool.epoch.fetch_add(1, SeqCst);
        while pool.active.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
        let panicked = pool.panicked.load(SeqCst);
        pool.in_use.store(false, SeqCst);
        panicked
    }
}

impl Drop for Close {
    fn drop(&mut self) {
        if self.open {
            self.close();
        }
    }
}

/// Takes tiles from the shared counter and runs them until none are left.
fn take_tiles(pool: &Pool, f: &(dyn Fn(usize) + Sync), tiles: usize) {
    loop {
        let t = pool.next.fetch_add(1, SeqCst);
        if t >= tiles {
            return;
        }
        f(t);
    }
}

/// A helper thread: joins each job it sees open, spins for the next one
/// for [`SPIN_WINDOW`], then parks until woken.
fn helper(pool: &'static Pool) {
    let mut seen = 0usize;
    let mut idle_since = Instant::now();
    loop {
        let e = pool.epoch.load(SeqCst);
        if e % 2 == 1 && e != seen {
            seen = e;
            pool.active.fetch_add(1, SeqCst);
            if pool.epoch.load(SeqCst) == e {
                // SAFETY: joined while open (module docs): the caller does
                // not rewrite the job or return before we leave, so the
                // job and its closure are valid until `fetch_sub` below.
                let job = unsafe { *pool.job.get() };
                let f = unsafe { &*job.f };
                if catch_unwind(AssertUnwindSafe(|| take_tiles(pool, f, job.tiles))).is_err() {
                    pool.panicked.store(true, SeqCst);
                }
            }
            pool.active.fetch_sub(1, SeqCst);
            idle_since = Instant::now();
            continue;
        }
        if idle_since.elapsed() < SPIN_WINDOW {
            for _ in 0..SPINS_PER_YIELD {
                if pool.epoch.load(SeqCst) != e {
                    break;
                }
                std::hint::spin_loop();
            }
            std::thread::yield_now();
            continue;
        }
        let mut g = pool.lock.lock().unwrap_or_else(PoisonError::into_inner);
        pool.sleepers.fetch_add(1, SeqCst);
        while pool.epoch.load(SeqCst) == e {
            g = pool.wake.wait(g).unwrap_or_else(PoisonError::into_inner);
        }
        pool.sleepers.fetch_sub(1, SeqCst);
        drop(g);
        idle_since = Instant::now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    #[test]
    fn a_failing_tile_gives_its_error_after_every_tile_has_run() {
        for tiles in [0, 1, 2, 17, 1000] {
            let hits: Vec<AtomicU64> = (0..tiles).map(|_| AtomicU64::new(0)).collect();
            let r = try_for_each_tile(tiles, &|t| {
                hits[t].fetch_add(1, SeqCst);
                // Tiles 1 and 5 fail (one error kept, whichever came first).
                if t == 1 || t == 5 { Err(t) } else { Ok(()) }
            });
            assert!(hits.iter().all(|h| h.load(SeqCst) == 1), "tiles = {tiles}");
            match tiles {
                0 | 1 => assert_eq!(r, Ok(())),
                2 => assert_eq!(r, Err(1)),
                _ => assert!(r == Err(1) || r == Err(5), "tiles = {tiles}: {r:?}"),
            }
        }
    }

    #[test]
    fn every_tile_runs_exactly_once() {
        for tiles in [0, 1, 2, 3, 17, 1000] {
            let hits: Vec<AtomicU64> = (0..tiles).map(|_| AtomicU64::new(0)).collect();
            for_each_tile(tiles, &|t| {
                hits[t].fetch_add(1, SeqCst);
            });
            assert!(hits.iter().all(|h| h.load(SeqCst) == 1), "tiles = {tiles}");
        }
    }

    #[test]
    fn jobs_after_the_helpers_parked_still_run() {
        let sum = AtomicU64::new(0);
        for_each_tile(8, &|t| {
            sum.fetch_add(t as u64, SeqCst);
        });
        std::thread::sleep(SPIN_WINDOW * 5);
        for_each_tile(8, &|t| {
            sum.fetch_add(t as u64, SeqCst);
        });
        assert_eq!(sum.load(SeqCst), 2 * 28);
    }

    #[test]
    fn concurrent_callers_and_nested_calls_all_complete() {
        let total = AtomicU64::new(0);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..50 {
                        for_each_tile(6, &|_| {
                            // A nested call finds the pool busy and runs inline.
                            for_each_tile(3, &|_| {
                                total.fetch_add(1, SeqCst);
                            });
                        });
                    }
                });
            }
        });
        assert_eq!(total.load(SeqCst), 4 * 50 * 6 * 3);
    }

    #[test]
    fn two_phases_finish_the_first_before_the_second() {
        for (n1, n2) in [(0, 0), (0, 5), (5, 0), (1, 1), (37, 3), (3, 37)] {
            let first: Vec<AtomicU64> = (0..n1).map(|_| AtomicU64::new(0)).collect();
            let second: Vec<AtomicU64> = (0..n2).map(|_| AtomicU64::new(0)).collect();
            let done = AtomicU64::new(0);
            two_phases(
                n1,
                &|j| {
                    // Uneven work, so that threads finish at different times.
                    std::thread::sleep(Duration::from_micros(20 * (j % 3) as u64));
                    first[j].fetch_add(1, SeqCst);
                    done.fetch_add(1, SeqCst);
                },
                n2,
                &|t| {
                    assert_eq!(done.load(SeqCst), n1 as u64, "second phase started early");
                    second[t].fetch_add(1, SeqCst);
                },
            );
            assert!(
                first.iter().chain(&second).all(|h| h.load(SeqCst) == 1),
                "{n1}, {n2}"
            );
        }
    }

    #[test]
    fn a_panic_in_the_first_phase_stops_the_waiting() {
        let r = std::panic::catch_unwind(|| {
            two_phases(
                8,
                &|j| {
                    if j == 5 {
                        std::thread::sleep(Duration::from_millis(2));
                        panic!("item 5");
                    }
                },
                4,
                &|_| {},
            )
        });
        assert!(r.is_err());
        let count = AtomicU64::new(0);
        two_phases(2, &|_| {}, 3, &|_| {
            count.fetch_add(1, SeqCst);
        });
        assert_eq!(count.load(SeqCst), 3);
    }

    #[test]
    fn a_panicking_tile_reaches_the_caller() {
        let r = std::panic::catch_unwind(|| {
            for_each_tile(64, &|t| {
                if t == 63 {
                    panic!("tile 63");
                }
            })
        });
        assert!(r.is_err());
        // The pool is usable afterwards.
        let n = AtomicU64::new(0);
        for_each_tile(16, &|_| {
            n.fetch_add(1, SeqCst);
        });
        assert_eq!(n.load(SeqCst), 16);
    }
}
