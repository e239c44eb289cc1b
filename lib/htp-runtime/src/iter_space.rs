//! The iteration space of `for (i = begin; i < end; i += step)`, addressed by iteration number.
//!
//! Working with iteration numbers `0..len` instead of loop indices lets the pool carve the loop
//! into contiguous chunks with plain integer division, and mapping a number back to its index
//! never overflows `i64`, even for loops that end next to `i64::MAX`.

use std::ops::Range;

/// A counted loop `begin, begin + step, ... < end` with a positive `step`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IterSpace {
    begin: i64,
    step: i64,
    len: u64,
}

impl IterSpace {
    /// The loop `for (i = begin; i < end; i += step)`; empty when `end <= begin`.
    ///
    /// # Panics
    /// If `step` is not positive: such a loop either never ends or is not a `< end` loop.
    pub(crate) fn new(begin: i64, end: i64, step: i64) -> Self {
        assert!(step > 0, "parallel_for: step must be positive, got {step}");
        let len = if end <= begin {
            0
        } else {
            // `end - begin` fits in u64 whenever end > begin, even when it overflows i64.
            (end.wrapping_sub(begin) as u64 - 1) / step as u64 + 1
        };
        Self { begin, step, len }
    }

    /// The number of iterations.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The loop index of iteration `k < len`.
    ///
    /// Wrapping arithmetic is exact here: the true value lies in `begin..end`, so it is
    /// congruent to the wrapped result modulo 2^64 and both fit in `i64`.
    pub(crate) fn index(&self, k: u64) -> i64 {
        debug_assert!(k < self.len);
        self.begin.wrapping_add((k as i64).wrapping_mul(self.step))
    }

    /// Iteration numbers of chunk `c` of `chunks` contiguous chunks whose sizes differ by at most
    /// one, so every thread gets an equal share of a uniform loop.
    pub(crate) fn chunk(&self, c: u64, chunks: u64) -> Range<u64> {
        debug_assert!(c < chunks);
        let at = |c: u64| (u128::from(c) * u128::from(self.len) / u128::from(chunks)) as u64;
        at(c)..at(c + 1)
    }

    /// Runs `body(i)` for the iterations in `range`, in order.
    pub(crate) fn run(&self, range: Range<u64>, body: &dyn Fn(i64)) {
        for k in range {
            body(self.index(k));
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The indices of the loop, computed the obvious way with i128 so it cannot overflow.
    fn reference(begin: i64, end: i64, step: i64) -> Vec<i64> {
        let mut out = Vec::new();
        let mut i = i128::from(begin);
        while i < i128::from(end) {
            out.push(i as i64);
            i += i128::from(step);
        }
        out
    }

    /// Loops (begin, end, step) every loop test covers: empty, reversed,
    /// negative, strided past the end, at both ends of i64.
    pub(crate) const LOOP_CASES: &[(i64, i64, i64)] = &[
        (0, 0, 1),
        (5, 3, 1),
        (0, 1, 1),
        (-10, 10, 1),
        (-7, 13, 3),
        (0, 5, 10),
        (3, 100, 7),
        (-1000, -1, 2),
        (0, 10_000, 1),
        (i64::MAX - 10, i64::MAX, 3),
        (i64::MIN, i64::MIN + 20, 4),
    ];

    #[test]
    fn length_and_indices_match_the_serial_loop() {
        for &(begin, end, step) in LOOP_CASES {
            let space = IterSpace::new(begin, end, step);
            let expected = reference(begin, end, step);
            assert_eq!(space.len(), expected.len() as u64, "len of ({begin}, {end}, {step})");
            let got: Vec<i64> = (0..space.len()).map(|k| space.index(k)).collect();
            assert_eq!(got, expected, "indices of ({begin}, {end}, {step})");
        }
    }

    #[test]
    fn full_i64_range_does_not_overflow() {
        let space = IterSpace::new(i64::MIN, i64::MAX, 1);
        assert_eq!(space.len(), u64::MAX);
        assert_eq!(space.index(0), i64::MIN);
        assert_eq!(space.index(u64::MAX - 1), i64::MAX - 1);

        let space = IterSpace::new(i64::MIN, i64::MAX, i64::MAX);
        let got: Vec<i64> = (0..space.len()).map(|k| space.index(k)).collect();
        assert_eq!(got, vec![i64::MIN, -1, i64::MAX - 1]);
    }

    #[test]
    fn chunks_partition_the_iterations_evenly() {
        for len in [0u64, 1, 2, 7, 64, 1001] {
            let space = IterSpace::new(0, len as i64, 1);
            for chunks in [1u64, 2, 3, 8, 13] {
                let ranges: Vec<Range<u64>> = (0..chunks).map(|c| space.chunk(c, chunks)).collect();
                assert_eq!(ranges[0].start, 0);
                assert_eq!(ranges.last().unwrap().end, len);
                for pair in ranges.windows(2) {
                    assert_eq!(pair[0].end, pair[1].start, "contiguous for len {len}");
                }
                let sizes: Vec<u64> = ranges.iter().map(|r| r.end - r.start).collect();
                let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                assert!(max - min <= 1, "len {len} in {chunks} chunks: sizes {sizes:?}");
            }
        }
        let huge = IterSpace::new(i64::MIN, i64::MAX, 1);
        assert_eq!(huge.chunk(2, 3).end, u64::MAX);
    }

    #[test]
    #[should_panic(expected = "step must be positive, got 0")]
    fn zero_step_is_rejected() {
        IterSpace::new(0, 10, 0);
    }

    #[test]
    #[should_panic(expected = "step must be positive, got -1")]
    fn negative_step_is_rejected() {
        IterSpace::new(10, 0, -1);
    }
}
