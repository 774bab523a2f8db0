//! Replays the fuzz corpora through the loaders, timed and with every
//! allocation counted, against issue 35's bars: no load slower than 100 ms,
//! and no load allocating more than twice the file's size (plus 64 KiB of
//! fixed overhead: error messages, a header's parse) — except what a file
//! legitimately expands to: a deflated `.npz` member (bounded by the
//! loader at 1032× its compressed size, deflate's largest ratio) and JSON
//! text (two bytes of text, `0,`, can stand for one element: 4 bytes of
//! `f32` or 8 of `i64`, in a vector that grows by doubling).
//!
//! Run by `scripts/fuzz.sh` after the fuzzing (a release build, without
//! the sanitizer):
//!
//!     cargo run --release --manifest-path fuzz/Cargo.toml --bin replay -- npy fuzz/corpus/npy
//!
//! Prints each target's slowest load and largest allocation ratio; exits 1
//! when a file breaks a bar, naming it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use shaped::element::f16;
use shaped::io::npy::{self, NpzReader};
use shaped::io::safetensors::SafeTensorsFile;
use shaped::{DynRank, Shape, Tensor};

/// The system allocator, counting the bytes live and the most live since
/// the last [`reset_peak`].
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to `System` unchanged; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as the new block allocated while the old one lives,
            // which is the worst case of a moving realloc.
            let now = LIVE.fetch_add(new_size, Ordering::Relaxed) + new_size;
            PEAK.fetch_max(now, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Bytes allocated beyond what was live before, at the worst moment of
/// `f`, and how long `f` took.
fn measure(f: impl FnOnce()) -> (usize, Duration) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let start = Instant::now();
    f();
    let took = start.elapsed();
    (PEAK.load(Ordering::Relaxed).saturating_sub(base), took)
}

/// Loads `data` as the fuzz target `target` does (without its write-back
/// checks).
fn load(target: &str, data: &[u8]) {
    match target {
        "npy" => {
            let _ = npy::from_reader::<f32, DynRank, _>(data);
            let _ = npy::from_reader::<f64, DynRank, _>(data);
            let _ = npy::from_reader::<f16, DynRank, _>(data);
            let _ = npy::from_reader::<u8, DynRank, _>(data);
            let _ = npy::from_reader::<i64, DynRank, _>(data);
            let _ = npy::from_reader::<bool, DynRank, _>(data);
            let _ = npy::from_reader::<f32, Shape![_, 3], _>(data);
        }
        "npz" => {
            if let Ok(mut r) = NpzReader::new(Cursor::new(data)) {
                for name in r.names() {
                    let _ = r.read::<f32, DynRank>(&name);
                    let _ = r.read::<f64, DynRank>(&name);
                    let _ = r.read::<i64, DynRank>(&name);
                }
            }
        }
        "safetensors" => {
            if let Ok(f) = SafeTensorsFile::from_bytes(data.to_vec()) {
                for name in f.names() {
                    let _ = f.load::<f32, DynRank>(&name);
                    let _ = f.load::<u8, DynRank>(&name);
                }
            }
        }
        "serde_json" => {
            let _ = serde_json::from_slice::<Tensor<f32, DynRank>>(data);
            let _ = serde_json::from_slice::<Tensor<i64, Shape![2, _]>>(data);
            let _ = serde_json::from_slice::<Tensor<bool, DynRank>>(data);
        }
        other => panic!("unknown target {other}"),
    }
}

/// The most a load of a `len`-byte file of `target` may allocate.
fn allowed(target: &str, len: usize) -> usize {
    let expands = match target {
        "npz" => 1032,
        // Up to 8 bytes of element per 2 bytes of text, doubled by growth.
        "serde_json" => 8,
        _ => 1,
    };
    2 * expands * len + (64 << 10)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [target, dir] = &args[..] else {
        eprintln!("usage: replay TARGET CORPUS_DIR");
        std::process::exit(2);
    };
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {dir}: {e}"))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    let (mut slowest, mut worst_ratio, mut failures) = (Duration::ZERO, 0f64, 0);
    for path in &files {
        let data = std::fs::read(path).expect("reading a corpus file");
        // Once to warm caches and lazy statics, then measured.
        load(target, &data);
        let (bytes, took) = measure(|| load(target, &data));
        slowest = slowest.max(took);
        worst_ratio = worst_ratio.max(bytes.saturating_sub(64 << 10) as f64 / data.len().max(1) as f64);
        let limit = allowed(target, data.len());
        if took > Duration::from_millis(100) || bytes > limit {
            failures += 1;
            println!(
                "FAIL {}: {} bytes, {took:?}, allocated {bytes} (limit {limit})",
                path.display(),
                data.len()
            );
        }
    }
    println!(
        "{target}: {} files, slowest load {slowest:?}, most allocated beyond 64 KiB: {worst_ratio:.2}x the file's size, {failures} over a bar",
        files.len()
    );
    if failures > 0 {
        std::process::exit(1);
    }
}
