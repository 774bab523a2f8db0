//! Fuzzes safetensors loading (`shaped::io::safetensors::SafeTensorsFile`)
//! on raw bytes: parses them and loads every tensor they name as `f32` and
//! `u8`. Every call must return `Ok` or `Err`: a panic, an abort, an
//! allocation the input's bytes do not back or (under AddressSanitizer) a
//! bad access is a finding.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shaped::DynRank;
use shaped::io::safetensors::SafeTensorsFile;

fuzz_target!(|data: &[u8]| {
    let Ok(f) = SafeTensorsFile::from_bytes(data.to_vec()) else {
        return;
    };
    for name in f.names() {
        let _ = f.load::<f32, DynRank>(&name);
        let _ = f.load::<u8, DynRank>(&name);
    }
});
