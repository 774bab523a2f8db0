//! [`DistributedSampler`]: which samples each rank trains on in each epoch,
//! as `torch.utils.data.distributed.DistributedSampler` chooses them.

/// Splits the indices `0..len` of a data set among `world` ranks for every
/// epoch: one permutation of the epoch, the same on every rank (seeded by
/// `seed + epoch`), padded by repeating its start (or cut, with
/// [`drop_last`](DistributedSampler::drop_last)) to a multiple of the world
/// size, of which rank `r` takes positions `r, r + world, r + 2·world, ...`.
///
/// So the `k`-th mini-batch of `b` samples on every rank together hold
/// exactly the positions `k·world·b .. (k+1)·world·b` of
/// [`global_order`](DistributedSampler::global_order): the samples one
/// process would train on with batches of `world·b`.
///
/// ```
/// use shaped::distributed::DistributedSampler;
/// let s0 = DistributedSampler::new(10, 0, 3).no_shuffle();
/// let s2 = DistributedSampler::new(10, 2, 3).no_shuffle();
/// assert_eq!(s0.indices(0), vec![0, 3, 6, 9]);
/// assert_eq!(s2.indices(0), vec![2, 5, 8, 1]); // padded with the start
/// assert_eq!(s2.clone().drop_last().indices(0), vec![2, 5, 8]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DistributedSampler {
    len: usize,
    rank: usize,
    world: usize,
    seed: u64,
    shuffle: bool,
    drop_last: bool,
}

/// splitmix64: a well-mixed 64-bit value of `x`.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl DistributedSampler {
    /// The sampler of rank `rank` among `world` ranks over `len` samples,
    /// shuffled with seed 0, padded to a multiple of `world`.
    ///
    /// # Panics
    /// When `world` is 0 or `rank` is not below it.
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// assert_eq!(DistributedSampler::new(7, 1, 2).num_samples(), 4);
    /// ```
    #[track_caller]
    pub fn new(len: usize, rank: usize, world: usize) -> Self {
        assert!(
            rank < world,
            "Invalid rank {rank}, rank should be in the interval [0, {}]",
            world.saturating_sub(1)
        );
        DistributedSampler {
            len,
            rank,
            world,
            seed: 0,
            shuffle: true,
            drop_last: false,
        }
    }

    /// With seed `seed` (every rank must use the same).
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// let a = DistributedSampler::new(50, 0, 1).seed(1).indices(0);
    /// let b = DistributedSampler::new(50, 0, 1).seed(2).indices(0);
    /// assert_ne!(a, b);
    /// ```
    pub fn seed(self, seed: u64) -> Self {
        DistributedSampler { seed, ..self }
    }

    /// Without shuffling: the epoch's order is `0..len`.
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// assert_eq!(DistributedSampler::new(4, 1, 2).no_shuffle().indices(5), vec![1, 3]);
    /// ```
    pub fn no_shuffle(self) -> Self {
        DistributedSampler {
            shuffle: false,
            ..self
        }
    }

    /// Cuts the epoch's order to a multiple of the world size instead of
    /// padding it.
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// assert_eq!(DistributedSampler::new(7, 1, 2).drop_last().num_samples(), 3);
    /// ```
    pub fn drop_last(self) -> Self {
        DistributedSampler {
            drop_last: true,
            ..self
        }
    }

    /// The number of samples each rank gets per epoch.
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// assert_eq!(DistributedSampler::new(9, 0, 3).num_samples(), 3);
    /// ```
    pub fn num_samples(&self) -> usize {
        if self.drop_last {
            self.len / self.world
        } else {
            self.len.div_ceil(self.world)
        }
    }

    /// The epoch's order over all ranks, padded or cut to
    /// `num_samples() * world` entries: what one process with the global
    /// batch size would visit.
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// let s = DistributedSampler::new(5, 0, 2).no_shuffle();
    /// assert_eq!(s.global_order(0), vec![0, 1, 2, 3, 4, 0]);
    /// ```
    pub fn global_order(&self, epoch: u64) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.len).collect();
        if self.shuffle {
            let mut state = mix(self.seed.wrapping_add(epoch));
            for i in (1..order.len()).rev() {
                state = mix(state);
                order.swap(i, (state % (i as u64 + 1)) as usize);
            }
        }
        let total = self.num_samples() * self.world;
        if order.is_empty() {
            return order;
        }
        while order.len() < total {
            let missing = (total - order.len()).min(order.len());
            order.extend_from_within(..missing);
        }
        order.truncate(total);
        order
    }

    /// This rank's samples in epoch `epoch`, in the order to visit them.
    ///
    /// ```
    /// use shaped::distributed::DistributedSampler;
    /// let all: Vec<usize> = (0..3)
    ///     .flat_map(|r| DistributedSampler::new(9, r, 3).seed(7).indices(2))
    ///     .collect();
    /// let mut sorted = all.clone();
    /// sorted.sort();
    /// assert_eq!(sorted, (0..9).collect::<Vec<_>>()); // every sample once
    /// ```
    pub fn indices(&self, epoch: u64) -> Vec<usize> {
        self.global_order(epoch)
            .into_iter()
            .skip(self.rank)
            .step_by(self.world)
            .collect()
    }
}
