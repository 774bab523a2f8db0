//! `DataLoader` over `(inputs, targets)`: every sample once per epoch, the
//! short batch dropped with `drop_last`, the order fixed by the seed and
//! epoch, and each batch's rows the samples its targets name.

use shaped::nn::DataLoader;
use shaped::{DynRank, Shape, Tensor};

/// Inputs `(N, 3)` and targets `(N,)`.
type Pair = (Tensor<f32, Shape![_, 3]>, Tensor<i64, Shape![_]>);

/// Sample `i` is the input row `[10 i, 10 i + 1, 10 i + 2]` and target `i`.
fn data(n: usize) -> Pair {
    let x: Vec<f32> = (0..n)
        .flat_map(|i| (0..3).map(move |j| (10 * i + j) as f32))
        .collect();
    let y: Vec<i64> = (0..n as i64).collect();
    (
        Tensor::try_from_vec(x, &[n, 3]).unwrap(),
        Tensor::try_from_vec(y, &[n]).unwrap(),
    )
}

/// The targets of every batch of an epoch, checking each input row
/// against its target.
fn epoch_targets(loader: &DataLoader<Pair>, epoch: u64) -> Vec<Vec<i64>> {
    loader
        .epoch(epoch)
        .map(|(x, y)| {
            let (x, y) = (x.to_vec(), y.to_vec());
            for (row, &i) in x.chunks(3).zip(&y) {
                assert_eq!(
                    row,
                    [(10 * i) as f32, (10 * i + 1) as f32, (10 * i + 2) as f32]
                );
            }
            y
        })
        .collect()
}

#[test]
fn every_sample_once_per_epoch() {
    let loader = DataLoader::new(data(23), 5).shuffle(42);
    assert_eq!(loader.len(), 5);
    for epoch in 0..4 {
        let batches = epoch_targets(&loader, epoch);
        let sizes: Vec<usize> = batches.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![5, 5, 5, 5, 3]);
        let mut all: Vec<i64> = batches.concat();
        all.sort();
        assert_eq!(all, (0..23).collect::<Vec<_>>());
    }
}

#[test]
fn drop_last_drops_the_short_batch() {
    let loader = DataLoader::new(data(23), 5).shuffle(1).drop_last();
    assert_eq!(loader.len(), 4);
    let batches = epoch_targets(&loader, 0);
    assert_eq!(batches.len(), 4);
    assert!(batches.iter().all(|b| b.len() == 5));
    // The dropped samples are the tail of the epoch's order.
    let order = loader.order(0);
    let kept: Vec<i64> = batches.concat();
    assert_eq!(
        kept,
        order[..20].iter().map(|&i| i as i64).collect::<Vec<_>>()
    );
    // An exact multiple loses nothing.
    assert_eq!(DataLoader::new(data(20), 5).drop_last().epoch(0).count(), 4);
}

#[test]
fn seed_and_epoch_decide_the_order() {
    let a = DataLoader::new(data(40), 8).shuffle(7);
    let b = DataLoader::new(data(40), 8).shuffle(7);
    assert_eq!(epoch_targets(&a, 3), epoch_targets(&b, 3));
    assert_ne!(epoch_targets(&a, 0), epoch_targets(&a, 1));
    let c = DataLoader::new(data(40), 8).shuffle(8);
    assert_ne!(epoch_targets(&a, 0), epoch_targets(&c, 0));
    // Shuffled at all, and in order without `shuffle`.
    assert_ne!(a.order(0), (0..40).collect::<Vec<_>>());
    let plain = DataLoader::new(data(7), 3);
    assert_eq!(
        epoch_targets(&plain, 5),
        vec![vec![0, 1, 2], vec![3, 4, 5], vec![6]]
    );
}

#[test]
fn one_tensor_and_dyn_rank() {
    let t =
        Tensor::<f64, DynRank>::try_from_vec((0..12).map(f64::from).collect(), &[6, 2]).unwrap();
    let batches: Vec<Tensor<f64, DynRank>> = DataLoader::new(t, 4).epoch(0).collect();
    assert_eq!(batches[1].dims(), &[2, 2]);
    assert_eq!(batches[1].to_vec(), vec![8., 9., 10., 11.]);
}

#[test]
fn pytorchs_errors() {
    let (x, _) = data(4);
    let (_, y) = data(5);
    assert_eq!(
        DataLoader::try_new((x.share(), y), 2)
            .unwrap_err()
            .to_string(),
        "Size mismatch between tensors"
    );
    assert_eq!(
        DataLoader::try_new(x, 0).unwrap_err().to_string(),
        "batch_size should be a positive integer value, but got batch_size=0"
    );
    let scalar = Tensor::<f32, DynRank>::scalar(1.0);
    assert_eq!(
        DataLoader::try_new(scalar, 1).unwrap_err().to_string(),
        "dimension specified as 0 but tensor has no dimensions"
    );
}
