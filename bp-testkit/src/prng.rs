//! A tiny deterministic pseudo-random generator (SplitMix64), so that the random program
//! generator is reproducible from a seed without external dependencies. It is the one
//! pseudo-random generator of the workspace's test and benchmark generators (the random
//! programs here, the parser's fuzz and round-trip tests, c2bp's random C programs, the
//! benchmark families of `bp-bench`): numbers below `n` are drawn one way, by
//! [`SplitMix64::below`].
//!
//! SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number generators",
//! OOPSLA 2014) passes BigCrush and is more than good enough for test-case generation. The
//! same seed always yields the same sequence on every platform.

/// A SplitMix64 generator.
#[derive(Clone, Debug)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator seeded with `seed` (any value, 0 included).
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform value in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0) has no values");
        // Multiply-shift: unbiased enough for test generation (n is tiny).
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }

    /// A uniform value in `lo..=hi` (`lo <= hi`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u32) -> bool {
        (self.below(100) as u32) < percent
    }

    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }

    /// A uniformly chosen element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// `k` distinct numbers from `0..n`, in random order (`k <= n`): the first `k` places of a
    /// Fisher–Yates shuffle of `0..n`.
    pub fn distinct(&mut self, k: usize, n: usize) -> Vec<usize> {
        assert!(k <= n, "{k} distinct numbers from 0..{n}");
        let mut all: Vec<usize> = (0..n).collect();
        for i in 0..k {
            let j = i + self.below(n - i);
            all.swap(i, j);
        }
        all.truncate(k);
        all
    }

    /// An index chosen with probability proportional to `weights` (not all zero).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        assert!(total > 0, "all weights are zero");
        let mut r = ((u128::from(self.next_u64()) * u128::from(total)) >> 64) as u64;
        for (i, &w) in weights.iter().enumerate() {
            if r < u64::from(w) {
                return i;
            }
            r -= u64::from(w);
        }
        unreachable!("r < total")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reference_values() {
        // First outputs of SplitMix64 seeded with 0 (as in the reference C implementation).
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        let mut r = SplitMix64::new(1234567);
        assert_eq!(r.next_u64(), 6457827717110365317);
        assert_eq!(r.next_u64(), 3203168211198807973);
    }

    #[test]
    fn ranges_stay_in_bounds() {
        let mut r = SplitMix64::new(42);
        for _ in 0..1000 {
            assert!(r.below(3) < 3);
            let x = r.range(2, 4);
            assert!((2..=4).contains(&x));
            assert_ne!(r.weighted(&[0, 5, 0, 1]), 0);
            let mut d = r.distinct(3, 5);
            d.sort();
            d.dedup();
            assert!(d.len() == 3 && d.iter().all(|&x| x < 5));
        }
    }
}
