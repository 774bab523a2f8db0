//! Fuzzes `.npy` loading (`shaped::io::npy::from_reader`) on raw bytes, for
//! several element types and a static shape. Every call must return `Ok` or
//! `Err`: a panic, an abort, an allocation the input's bytes do not back or
//! (under AddressSanitizer) a bad access is a finding. A tensor that loads
//! is written back and read again: the same sizes and bits.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shaped::element::f16;
use shaped::io::npy::{self, NpyElement};
use shaped::{DynRank, Shape, Tensor};

/// Loads `data` as `T`; if it loads, checks the write/read round trip.
fn load<T: NpyElement>(data: &[u8], bits: impl Fn(&T) -> u64) {
    let Ok(t) = npy::from_reader::<T, DynRank, _>(data) else {
        return;
    };
    assert_eq!(t.numel(), t.dims().iter().product::<usize>());
    assert!(t.dims().len() <= shaped::io::MAX_RANK);
    let mut bytes = Vec::new();
    npy::to_writer(&mut bytes, &t).expect("writing to a Vec");
    let back: Tensor<T, DynRank> = npy::from_reader(&bytes[..]).expect("reading back");
    assert_eq!(back.dims(), t.dims());
    assert!(back.iter().zip(t.iter()).all(|(a, b)| bits(&a) == bits(&b)));
}

fuzz_target!(|data: &[u8]| {
    load::<f32>(data, |x| u64::from(x.to_bits()));
    load::<f64>(data, |x| x.to_bits());
    load::<f16>(data, |x| u64::from(x.to_bits()));
    load::<u8>(data, |&x| u64::from(x));
    load::<i64>(data, |&x| x as u64);
    load::<bool>(data, |&x| u64::from(x));
    let _ = npy::from_reader::<f32, Shape![_, 3], _>(data);
    let _ = npy::from_reader::<u16, Shape![2, 2], _>(data);
});
