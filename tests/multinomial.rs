//! `multinomial` checked statistically: over many draws, the frequency of
//! each class is its probability within 5 standard deviations (with
//! replacement), and without replacement the draws of a row are distinct
//! and the first two follow the probabilities of drawing one class, taking
//! it out and drawing again (computed here from the weights, by formula).

use shaped::{DynRank, Shape, Tensor};

/// `count` out of `n` draws is within 5 standard deviations of `n·p`.
#[track_caller]
fn assert_frequency(count: usize, n: usize, p: f64, what: &str) {
    let (mean, sd) = (n as f64 * p, (n as f64 * p * (1.0 - p)).sqrt());
    assert!(
        (count as f64 - mean).abs() <= 5.0 * sd + 1e-9,
        "{what}: {count} of {n} draws, expected {mean:.1} ± {sd:.1}"
    );
}

#[test]
fn with_replacement_frequencies_are_the_probabilities() {
    let weights: [[f64; 4]; 3] = [
        [1.0, 2.0, 3.0, 4.0],
        [0.5, 0.0, 0.25, 0.25],
        [0.0, 0.0, 7.0, 0.0],
    ];
    let flat: Vec<f32> = weights.iter().flatten().map(|&w| w as f32).collect();
    let w = Tensor::<f32, Shape![3, 4]>::from_vec(flat);
    let n = 100_000;
    let s: Tensor<i64, Shape![3, _]> = w.multinomial(n, true, 12345);
    assert_eq!(s.dims(), &[3, n]);
    let s = s.to_vec();
    for (row, ws) in weights.iter().enumerate() {
        let total: f64 = ws.iter().sum();
        let draws = &s[row * n..(row + 1) * n];
        for (class, &wc) in ws.iter().enumerate() {
            let count = draws.iter().filter(|&&c| c == class as i64).count();
            if wc == 0.0 {
                assert_eq!(count, 0, "row {row}: class {class} has weight 0");
            }
            assert_frequency(count, n, wc / total, &format!("row {row} class {class}"));
        }
    }
}

#[test]
fn without_replacement_draws_are_distinct_and_sequential() {
    let ws = [0.1, 0.2, 0.3, 0.4];
    let rows = 40_000;
    let flat: Vec<f64> = (0..rows).flat_map(|_| ws).collect();
    let w = Tensor::<f64, Shape![_, 4]>::try_from_vec(flat, &[rows, 4]).unwrap();
    let s = w.multinomial(4, false, 9).to_vec();
    let mut first = [0usize; 4];
    let mut pairs = [[0usize; 4]; 4];
    for draw in s.chunks(4) {
        let mut sorted = draw.to_vec();
        sorted.sort();
        assert_eq!(sorted, vec![0, 1, 2, 3], "a permutation of the classes");
        first[draw[0] as usize] += 1;
        pairs[draw[0] as usize][draw[1] as usize] += 1;
    }
    for i in 0..4 {
        assert_frequency(first[i], rows, ws[i], &format!("first draw {i}"));
        for j in (0..4).filter(|&j| j != i) {
            // P(first i, then j) = p_i · p_j / (1 - p_i).
            let p = ws[i] * ws[j] / (1.0 - ws[i]);
            assert_frequency(pairs[i][j], rows, p, &format!("draws {i} then {j}"));
        }
    }
}

#[test]
fn zero_weights_come_last_without_replacement() {
    let w = Tensor::<f32, Shape![2, 4]>::from_vec(vec![0., 3., 0., 0., 1., 0., 1., 0.]);
    let s = w.multinomial(4, false, 3).to_vec();
    assert_eq!(s[..4], [1, 0, 2, 3]);
    assert!(s[4..6] == [0, 2] || s[4..6] == [2, 0]);
    assert_eq!(s[6..], [1, 3]);
}

#[test]
fn the_seed_decides_the_draws() {
    let w = Tensor::<f32, DynRank>::try_ones(&[8]).unwrap();
    let a = w.try_multinomial(6, false, 1).unwrap().to_vec();
    assert_eq!(a, w.try_multinomial(6, false, 1).unwrap().to_vec());
    assert_ne!(a, w.try_multinomial(6, false, 2).unwrap().to_vec());
    let b = w.try_multinomial(50, true, 1).unwrap();
    assert_eq!(b.dims(), &[50]);
    assert_eq!(b.to_vec(), w.try_multinomial(50, true, 1).unwrap().to_vec());
}

/// An empty batch gives an empty result; the panicking form panics with
/// PyTorch's message.
#[test]
fn edges() {
    let w = Tensor::<f32, Shape![_, 3]>::try_zeros(&[0, 3]).unwrap();
    assert_eq!(w.multinomial(2, true, 0).dims(), &[0, 2]);
    let r = std::panic::catch_unwind(|| {
        Tensor::<f32, Shape![2]>::from_vec(vec![0., 0.]).multinomial(1, true, 0)
    });
    let e = r.unwrap_err();
    let m = e.downcast_ref::<String>().unwrap();
    assert_eq!(
        m,
        "invalid multinomial distribution (sum of probabilities <= 0)"
    );
}
