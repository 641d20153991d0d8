//! Skewed (Zipf-like or explicitly weighted) choice among `n` items in O(1) per draw.
//!
//! [`Skewed`] is Vose's alias method over 32-bit thresholds: one `u64` of randomness picks a
//! column with its high half and accepts the column or its alias with its low half. The naive
//! twin is a cumulative-weight table searched linearly ([`Skewed::naive_probability`] exposes the
//! exact target probabilities the tests compare frequencies against).

/// An O(1) sampler of indices `0..n` with fixed weights.
#[derive(Debug, Clone)]
pub struct Skewed {
    /// Per column: acceptance threshold, as a fraction of 2^32.
    threshold: Vec<u32>,
    /// Per column: the index returned when the draw is above the threshold.
    alias: Vec<u32>,
    /// Normalised weights (sum 1), kept for tests and documentation.
    probability: Vec<f64>,
}

impl Skewed {
    /// Zipf-like weights `1 / (rank + 1)^exponent` over `n` items (`n` ≥ 1; 0 is treated as 1).
    pub fn zipf(n: usize, exponent: f64) -> Skewed {
        let weights: Vec<f64> = (0..n.max(1))
            .map(|r| 1.0 / ((r + 1) as f64).powf(exponent))
            .collect();
        Skewed::weighted(&weights)
    }

    /// Explicit non-negative weights; an empty or all-zero list behaves as one item of weight 1.
    pub fn weighted(weights: &[f64]) -> Skewed {
        let total: f64 = weights.iter().filter(|w| w.is_finite() && **w > 0.0).sum();
        if weights.is_empty() || total <= 0.0 {
            return Skewed {
                threshold: vec![u32::MAX],
                alias: vec![0],
                probability: vec![1.0],
            };
        }
        let n = weights.len();
        let probability: Vec<f64> = weights
            .iter()
            .map(|&w| {
                if w.is_finite() && w > 0.0 {
                    w / total
                } else {
                    0.0
                }
            })
            .collect();
        let mut scaled: Vec<f64> = probability.iter().map(|p| p * n as f64).collect();
        let mut threshold = vec![u32::MAX; n];
        let mut alias: Vec<u32> = (0..n as u32).collect();
        let (mut small, mut large): (Vec<usize>, Vec<usize>) =
            (0..n).partition(|&i| scaled[i] < 1.0);
        while let (Some(s), Some(&l)) = (small.pop(), large.last()) {
            threshold[s] = (scaled[s] * 4_294_967_296.0).min(u32::MAX as f64) as u32;
            alias[s] = l as u32;
            scaled[l] -= 1.0 - scaled[s];
            if scaled[l] < 1.0 {
                large.pop();
                small.push(l);
            }
        }
        // Whatever is left is (up to rounding) exactly 1: always accept.
        for i in small.into_iter().chain(large) {
            threshold[i] = u32::MAX;
        }
        Skewed {
            threshold,
            alias,
            probability,
        }
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.threshold.len()
    }

    /// Always false: a sampler has at least one item.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Maps 64 random bits to an index.
    #[inline]
    pub fn pick(&self, bits: u64) -> usize {
        let col = (((bits >> 32) * self.threshold.len() as u64) >> 32) as usize;
        if (bits as u32) < self.threshold[col] || self.threshold[col] == u32::MAX {
            col
        } else {
            self.alias[col] as usize
        }
    }

    /// The exact probability of index `i` (the naive twin's answer).
    pub fn naive_probability(&self, i: usize) -> f64 {
        self.probability.get(i).copied().unwrap_or(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngCore, SeedableRng};

    fn frequencies(s: &Skewed, draws: usize) -> Vec<f64> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        let mut counts = vec![0u64; s.len()];
        for _ in 0..draws {
            counts[s.pick(rng.next_u64())] += 1;
        }
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    }

    #[test]
    fn zipf_frequencies_follow_weights() {
        let s = Skewed::zipf(50, 1.1);
        let f = frequencies(&s, 400_000);
        for (i, got) in f.iter().enumerate() {
            let want = s.naive_probability(i);
            assert!(
                (got - want).abs() < 0.004 + want * 0.05,
                "item {i}: {got} vs {want}"
            );
        }
        assert!(f[0] > f[1] && f[1] > f[5] && f[5] > f[40]);
    }

    #[test]
    fn zero_weights_are_never_picked() {
        let s = Skewed::weighted(&[0.0, 3.0, 0.0, 1.0]);
        let f = frequencies(&s, 100_000);
        assert_eq!(f[0], 0.0);
        assert_eq!(f[2], 0.0);
        assert!((f[1] - 0.75).abs() < 0.01);
    }

    #[test]
    fn degenerate_inputs_give_one_item() {
        for s in [
            Skewed::weighted(&[]),
            Skewed::weighted(&[0.0]),
            Skewed::zipf(0, 1.0),
        ] {
            assert_eq!(s.len(), 1);
            assert_eq!(s.pick(u64::MAX), 0);
            assert_eq!(s.pick(0), 0);
        }
    }

    proptest::proptest! {
        #[test]
        fn picks_stay_in_range(w in proptest::collection::vec(0.0f64..10.0, 1..40), bits: u64) {
            let s = Skewed::weighted(&w);
            let i = s.pick(bits);
            proptest::prop_assert!(i < w.len());
            if w.iter().any(|&x| x > 0.0) {
                proptest::prop_assert!(w[i] > 0.0, "picked zero-weight item {}", i);
            }
        }
    }
}
