//! Fuzzes `.npz` loading (`shaped::io::npy::NpzReader`) on raw bytes: opens
//! the archive and reads every array it names as `f32`, `f64` and `i64`.
//! Every call must return `Ok` or `Err`: a panic, an abort, an allocation
//! the input's bytes do not back or (under AddressSanitizer) a bad access
//! is a finding.

#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use shaped::DynRank;
use shaped::io::npy::NpzReader;

fuzz_target!(|data: &[u8]| {
    let Ok(mut r) = NpzReader::new(Cursor::new(data)) else {
        return;
    };
    for name in r.names() {
        let _ = r.read::<f32, DynRank>(&name);
        let _ = r.read::<f64, DynRank>(&name);
        let _ = r.read::<i64, DynRank>(&name);
    }
    let _ = r.read::<f32, DynRank>("not there");
});
