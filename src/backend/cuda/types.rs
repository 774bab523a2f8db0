//! The element types the CUDA backend stores, with their CUDA C names and
//! the suffixes of kernel names: one table for the one-op kernels
//! (`source.rs`) and the fused ones (`fused_source.rs`). Built without the
//! `cuda` feature, as the fused sources are.

/// The element types and their CUDA C names and suffixes.
pub(crate) const TYPES: &[(&str, &str, &str)] = &[
    ("float32", "float", "f32"),
    ("float64", "double", "f64"),
    ("int32", "int", "i32"),
    ("int64", "long long", "i64"),
    ("uint8", "unsigned char", "u8"),
    ("bool", "bool", "bool"),
];

/// CUDA C name and short suffix of the element type named `t`.
pub(crate) fn c_type(t: &str) -> (&'static str, &'static str) {
    let (_, c, short) = TYPES
        .iter()
        .find(|(name, _, _)| *name == t)
        .unwrap_or_else(|| panic!("no CUDA type for {t}"));
    (c, short)
}

/// Size in bytes of the CUDA C type named `c` (a name of [`TYPES`]).
pub(crate) fn c_size(c: &str) -> usize {
    match c {
        "double" | "long long" => 8,
        "float" | "int" => 4,
        _ => 1,
    }
}
