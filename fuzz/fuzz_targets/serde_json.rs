//! Fuzzes tensor deserialization (`shaped`'s serde `Deserialize`) from JSON
//! bytes, into a run-time and a static shape. Every call must return `Ok`
//! or `Err`: a panic, an abort or an allocation the input does not back is
//! a finding. A tensor that loads is shown (`Display` recurses once per
//! dimension) and, when its elements are finite (JSON writes an infinity,
//! which a number too large for `f32` reads as, as `null`), serialized and
//! read back: the same sizes.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shaped::{DynRank, Shape, Tensor};

fuzz_target!(|data: &[u8]| {
    if let Ok(t) = serde_json::from_slice::<Tensor<f32, DynRank>>(data) {
        assert!(t.dims().len() <= shaped::io::MAX_RANK);
        let _ = t.to_string();
        if !t.iter().all(f32::is_finite) {
            return;
        }
        let json = serde_json::to_string(&t).expect("serializing");
        let back: Tensor<f32, DynRank> = serde_json::from_str(&json).expect("reading back");
        assert_eq!(back.dims(), t.dims());
    }
    let _ = serde_json::from_slice::<Tensor<i64, Shape![2, _]>>(data);
    let _ = serde_json::from_slice::<Tensor<bool, DynRank>>(data);
});
