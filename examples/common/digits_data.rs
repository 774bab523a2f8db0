//! The 8x8 digits of the examples (`data/digits/*.npy`, written once by
//! `scripts/digits_to_npy.py` from scikit-learn's copy, BSD-3-Clause):
//! reading a split, and the seeded shuffle of each epoch. Shared by
//! `examples/digits.rs` and `examples/cnn_digits.rs` through `#[path]`.

/// A `u8` array from a `.npy` file of `data/digits/`, with its sizes.
fn read_npy(name: &str) -> (Vec<u8>, Vec<usize>) {
    let path = format!("{}/data/digits/{name}.npy", env!("CARGO_MANIFEST_DIR"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let npy = npyz::NpyFile::new(&bytes[..]).expect("a .npy file");
    let dims = npy.shape().iter().map(|&d| d as usize).collect();
    (npy.into_vec::<u8>().expect("uint8 data"), dims)
}

/// The images of split `split` (`train` or `test`), 64 pixels each in
/// `[0, 1]`, row by row, and their labels.
pub fn images_and_labels(split: &str) -> (Vec<f32>, Vec<i64>) {
    let (pixels, dims) = read_npy(&format!("{split}_images"));
    let (labels, _) = read_npy(&format!("{split}_labels"));
    assert_eq!(dims, [labels.len(), 64]);
    let x = pixels.iter().map(|&p| f32::from(p) / 16.0).collect();
    (x, labels.into_iter().map(i64::from).collect())
}

/// A seeded Fisher-Yates shuffle of `0..n` (xorshift), advancing `seed`.
pub fn shuffled(n: usize, seed: &mut u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for i in (1..n).rev() {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        order.swap(i, (*seed % (i as u64 + 1)) as usize);
    }
    order
}
