//! What a task touches: strided boxes of bytes ([`Region`]) and how ([`AccessMode`]), and the
//! test whether two regions share a byte.
//!
//! The test is exact when it is cheap to decide — both regions in one buffer, the same set of
//! strides, and strides wide enough that every byte has one (dimension indices, byte) spelling,
//! as for two tiles of one row-major matrix — and conservative otherwise: two regions whose byte
//! ranges `[first, last]` intersect are taken to overlap. A false "overlap" only costs a
//! needless dependency; a false "disjoint" would be a race, so every doubt answers "overlap".

/// How a task uses a region; dependencies follow from it (RAW, WAR, WAW).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AccessMode {
    /// Read only.
    In,
    /// Written only.
    Out,
    /// Read and written.
    InOut,
}

impl AccessMode {
    /// Whether the access writes (then it orders against earlier readers and writers).
    pub fn writes(self) -> bool {
        matches!(self, AccessMode::Out | AccessMode::InOut)
    }
}

/// A region's dimensions, outermost first: (number of elements, stride in bytes). Inline up to
/// four: a task's accesses need no heap allocation each (D88).
pub type RegionDims = smallvec::SmallVec<[(i64, i64); 4]>;

/// A strided N-d box of bytes in one buffer.
///
/// Its elements are at byte `offset + Σ_k i_k * stride_k` of the buffer for `0 <= i_k < size_k`,
/// each `element_bytes` long. A tile of a row-major `R × C` matrix of 4-byte elements at
/// `(r, c)` with `h × w` elements is `offset = (r * C + c) * 4`, `dims = [(h, C * 4), (w, 4)]`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Region {
    /// The buffer's identity: its base address (the start of the allocation, so that every view
    /// of one allocation names the same buffer).
    pub buffer: usize,
    /// Byte offset of the first element from the buffer's base.
    pub offset: i64,
    /// Per dimension, outermost first: (number of elements, stride in bytes). Strides may be
    /// zero (a broadcast) or negative.
    pub dims: RegionDims,
    /// Bytes per element.
    pub element_bytes: i64,
}

/// A region and how a task uses it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Access {
    /// The bytes touched.
    pub region: Region,
    /// Read, write or both.
    pub mode: AccessMode,
}

impl Access {
    /// Reads `region`.
    pub fn read(region: Region) -> Self {
        Self { region, mode: AccessMode::In }
    }

    /// Writes `region`.
    pub fn write(region: Region) -> Self {
        Self { region, mode: AccessMode::Out }
    }

    /// Reads and writes `region`.
    pub fn read_write(region: Region) -> Self {
        Self { region, mode: AccessMode::InOut }
    }
}

impl Region {
    /// A contiguous run of `bytes` bytes at `offset` of `buffer`.
    pub fn bytes(buffer: usize, offset: i64, bytes: i64) -> Self {
        Self { buffer, offset, dims: smallvec::smallvec![(bytes, 1)], element_bytes: 1 }
    }

    /// The `rows × cols` tile at (`row`, `col`) of a row-major matrix with `matrix_cols` columns
    /// of `element_bytes`-byte elements.
    pub fn tile_2d(
        buffer: usize,
        matrix_cols: i64,
        element_bytes: i64,
        (row, col): (i64, i64),
        (rows, cols): (i64, i64),
    ) -> Self {
        Self {
            buffer,
            offset: (row * matrix_cols + col) * element_bytes,
            dims: smallvec::smallvec![(rows, matrix_cols * element_bytes), (cols, element_bytes)],
            element_bytes,
        }
    }

    /// Whether the region holds no byte.
    pub fn is_empty(&self) -> bool {
        self.element_bytes <= 0 || self.dims.iter().any(|&(size, _)| size <= 0)
    }

    /// The first and last byte touched, or `None` when empty. Saturates instead of overflowing
    /// (a saturated range is wider, so still conservative).
    pub fn byte_range(&self) -> Option<(i64, i64)> {
        if self.is_empty() {
            return None;
        }
        let (mut first, mut last) = (self.offset, self.offset);
        for &(size, stride) in &self.dims {
            let reach = (size - 1).saturating_mul(stride);
            if reach < 0 {
                first = first.saturating_add(reach);
            } else {
                last = last.saturating_add(reach);
            }
        }
        Some((first, last.saturating_add(self.element_bytes - 1)))
    }

    /// Whether `self` and `other` share at least one byte (conservatively: see the module).
    pub fn overlaps(&self, other: &Region) -> bool {
        if self.buffer != other.buffer {
            return false;
        }
        let (Some((first_a, last_a)), Some((first_b, last_b))) = (self.byte_range(), other.byte_range())
        else {
            return false;
        };
        if last_a < first_b || last_b < first_a {
            return false;
        }
        lattices_overlap(Lattice::of(self).as_ref(), Lattice::of(other).as_ref())
    }
}

/// Whether two regions of one buffer whose byte ranges intersect share a byte, given their
/// lattices (`None`: not fit for the exact test, so they are taken to overlap). The dependency
/// tracker keeps each live access's lattice, so a lookup computes only the new access's one.
pub(crate) fn lattices_overlap(a: Option<&Lattice>, b: Option<&Lattice>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => a.intersects(b).unwrap_or(true),
        _ => true,
    }
}

/// The most dimensions the exact test handles; regions with more get the conservative answer.
/// Fixed-size arrays keep the test free of allocations: it runs for every live access whose
/// byte range meets a new one.
const MAX_DIMS: usize = 8;

/// A region rewritten for the exact test: positive, distinct strides in decreasing order, a
/// contiguous innermost dimension folded into the run of bytes each point starts.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lattice {
    offset: i64,
    /// (size, stride), strides positive and strictly decreasing; `rank` of them used.
    dims: [(i64, i64); MAX_DIMS],
    rank: usize,
    /// Bytes starting at each point.
    run: i64,
}

impl Lattice {
    /// `None` when the region does not fit the exact test (too many or duplicate strides,
    /// overflow).
    pub(crate) fn of(region: &Region) -> Option<Lattice> {
        let mut offset = region.offset;
        let mut dims = [(0i64, 0i64); MAX_DIMS];
        let mut rank = 0;
        for &(size, stride) in &region.dims {
            // A broadcast dimension repeats the same bytes, a single-element one adds none.
            if stride == 0 || size == 1 {
                continue;
            }
            if rank == MAX_DIMS {
                return None;
            }
            if stride < 0 {
                // The same set, walked from the other end.
                offset = offset.checked_add((size - 1).checked_mul(stride)?)?;
                dims[rank] = (size, stride.checked_neg()?);
            } else {
                dims[rank] = (size, stride);
            }
            rank += 1;
        }
        let used = &mut dims[..rank];
        used.sort_unstable_by_key(|&(_, stride)| std::cmp::Reverse(stride));
        if used.windows(2).any(|pair| pair[0].1 == pair[1].1) {
            return None;
        }
        let mut run = region.element_bytes;
        // A dimension whose stride is the run it repeats is contiguous: one longer run.
        while rank > 0 && dims[rank - 1].1 == run {
            run = run.checked_mul(dims[rank - 1].0)?;
            rank -= 1;
        }
        Some(Lattice { offset, dims, rank, run })
    }

    fn size_at(&self, stride: i64) -> i64 {
        self.dims[..self.rank].iter().find(|&&(_, s)| s == stride).map_or(1, |&(size, _)| size)
    }

    /// Whether the two lattices share a byte; `None` when the test is not exact for them.
    ///
    /// A shared byte means `b.offset - a.offset = Σ_k d_k * s_k + δ` with
    /// `d_k ∈ [-(size_b_k - 1), size_a_k - 1]` and `δ ∈ [-(run_b - 1), run_a - 1]`. When each
    /// stride exceeds the width of everything finer (all inner `d_i * s_i + δ`), at most one
    /// `d_k` per dimension can work, found outermost first; then the answer is exact.
    fn intersects(&self, other: &Lattice) -> Option<bool> {
        let rest = other.offset.checked_sub(self.offset)?;
        let (run_a, run_b) = (self.run, other.run);
        let same_strides = self.rank == other.rank
            && self.dims[..self.rank].iter().zip(&other.dims[..other.rank]).all(|(a, b)| a.1 == b.1);
        if same_strides {
            // The common case (tiles of one tensor): the dimensions pair up as they are.
            let bounds = self.dims[..self.rank]
                .iter()
                .zip(&other.dims[..other.rank])
                .map(|(a, b)| (a.1, -(b.0 - 1), a.0 - 1));
            return solve(bounds, rest, run_a, run_b);
        }
        // Both on the union of strides (decreasing), a missing one with size 1.
        let mut strides = [0i64; 2 * MAX_DIMS];
        let mut n = 0;
        for &(_, stride) in self.dims[..self.rank].iter().chain(&other.dims[..other.rank]) {
            if !strides[..n].contains(&stride) {
                strides[n] = stride;
                n += 1;
            }
        }
        strides[..n].sort_unstable_by_key(|&stride| std::cmp::Reverse(stride));
        let bounds = strides[..n]
            .iter()
            .map(|&stride| (stride, -(other.size_at(stride) - 1), self.size_at(stride) - 1));
        solve(bounds, rest, run_a, run_b)
    }
}

/// Whether `rest = Σ_k d_k * stride_k + δ` has a solution with `d_k ∈ [low_k, high_k]` (per
/// `(stride_k, low_k, high_k)` of `bounds`, strides decreasing) and `δ ∈ [-(run_b - 1),
/// run_a - 1]`; `None` when a stride does not exceed the width of everything finer (then more
/// than one `d_k` could work and the search would not be exact).
fn solve(
    bounds: impl Iterator<Item = (i64, i64, i64)> + Clone,
    mut rest: i64,
    run_a: i64,
    run_b: i64,
) -> Option<bool> {
    // The reach of every dimension plus δ; each step removes its own dimension's share, leaving
    // the reach of the finer ones.
    let (mut finer_low, mut finer_high) = (-(run_b - 1), run_a - 1);
    for (stride, low, high) in bounds.clone() {
        finer_low = finer_low.checked_add(low.checked_mul(stride)?)?;
        finer_high = finer_high.checked_add(high.checked_mul(stride)?)?;
    }
    for (stride, low, high) in bounds {
        // Partial sums of one-signed terms: within the checked totals.
        finer_low -= low * stride;
        finer_high -= high * stride;
        if finer_high.checked_sub(finer_low)? >= stride {
            return None;
        }
        // The one d with rest - d*stride in [finer_low, finer_high], if any.
        let d = div_ceil(rest.checked_sub(finer_high)?, stride);
        let remainder = rest.checked_sub(d.checked_mul(stride)?)?;
        if remainder < finer_low || d < low || d > high {
            return Some(false);
        }
        rest = remainder;
    }
    Some((-(run_b - 1)..=run_a - 1).contains(&rest))
}

/// `⌈a / b⌉` for `b > 0`.
fn div_ceil(a: i64, b: i64) -> i64 {
    let q = a.div_euclid(b);
    if a.rem_euclid(b) == 0 {
        q
    } else {
        q + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: usize = 0x1000;
    /// A tile of a row-major 64 × 64 f32 matrix.
    fn tile(row: i64, col: i64, rows: i64, cols: i64) -> Region {
        Region::tile_2d(M, 64, 4, (row, col), (rows, cols))
    }

    /// Ground truth: the set of bytes, enumerated.
    fn bytes_of(region: &Region) -> std::collections::BTreeSet<i64> {
        let mut out = std::collections::BTreeSet::new();
        if region.is_empty() {
            return out;
        }
        let mut index = vec![0i64; region.dims.len()];
        loop {
            let start =
                region.offset + region.dims.iter().zip(&index).map(|(&(_, s), &i)| i * s).sum::<i64>();
            out.extend(start..start + region.element_bytes);
            let mut k = region.dims.len();
            loop {
                if k == 0 {
                    return out;
                }
                k -= 1;
                index[k] += 1;
                if index[k] < region.dims[k].0 {
                    break;
                }
                index[k] = 0;
            }
        }
    }

    fn truly_overlap(a: &Region, b: &Region) -> bool {
        a.buffer == b.buffer && !bytes_of(a).is_disjoint(&bytes_of(b))
    }

    #[test]
    fn disjoint_rows_of_one_matrix_do_not_overlap() {
        assert!(!tile(0, 0, 8, 64).overlaps(&tile(8, 0, 8, 64)));
        assert!(!tile(8, 0, 8, 64).overlaps(&tile(0, 0, 8, 64)));
        assert!(!tile(0, 16, 4, 16).overlaps(&tile(4, 16, 4, 16)));
    }

    #[test]
    fn disjoint_columns_of_one_matrix_do_not_overlap() {
        // Their byte ranges interleave: only the exact test tells them apart.
        let (left, right) = (tile(0, 0, 64, 32), tile(0, 32, 64, 32));
        assert!(left.byte_range().unwrap().1 > right.byte_range().unwrap().0);
        assert!(!left.overlaps(&right));
        assert!(!right.overlaps(&left));
        assert!(!tile(3, 8, 10, 8).overlaps(&tile(0, 16, 64, 1)));
        // Columns of different widths and heights.
        assert!(!tile(0, 0, 64, 1).overlaps(&tile(5, 1, 7, 63)));
    }

    #[test]
    fn overlapping_tiles_overlap() {
        assert!(tile(0, 0, 8, 8).overlaps(&tile(7, 7, 8, 8)));
        assert!(tile(0, 0, 64, 64).overlaps(&tile(31, 31, 1, 1)));
        assert!(tile(0, 31, 64, 2).overlaps(&tile(10, 0, 1, 64)));
        assert!(tile(5, 5, 1, 1).overlaps(&tile(5, 5, 1, 1)));
        // Sharing a single byte through mismatched element sizes.
        let byte = Region::bytes(M, 4 * 64 + 3, 1);
        assert!(tile(1, 0, 1, 1).overlaps(&byte));
        assert!(!tile(1, 1, 1, 1).overlaps(&byte));
    }

    #[test]
    fn different_buffers_never_overlap() {
        let other = Region { buffer: M + 1, ..tile(0, 0, 8, 8) };
        assert!(!tile(0, 0, 8, 8).overlaps(&other));
    }

    #[test]
    fn empty_regions_overlap_nothing() {
        let all = tile(0, 0, 64, 64);
        assert!(tile(0, 0, 0, 8).is_empty());
        assert!(!tile(0, 0, 0, 8).overlaps(&all));
        assert!(!all.overlaps(&tile(3, 3, 4, 0)));
        let no_bytes = Region { element_bytes: 0, ..tile(0, 0, 4, 4) };
        assert!(!no_bytes.overlaps(&all));
        assert_eq!(no_bytes.byte_range(), None);
    }

    #[test]
    fn negative_and_zero_strides_are_handled() {
        // Row 1 walked backwards, and row 1 broadcast 5 times.
        let backwards = Region { buffer: M, offset: 64 * 4 + 63 * 4, dims: smallvec::smallvec![(64, -4)], element_bytes: 4 };
        let broadcast = Region { buffer: M, offset: 64 * 4, dims: smallvec::smallvec![(5, 0), (64, 4)], element_bytes: 4 };
        assert_eq!(backwards.byte_range(), Some((256, 511)));
        assert!(backwards.overlaps(&tile(1, 0, 1, 64)));
        assert!(!backwards.overlaps(&tile(2, 0, 1, 64)));
        assert!(broadcast.overlaps(&backwards));
        assert!(!broadcast.overlaps(&tile(0, 0, 1, 64)));
    }

    #[test]
    fn undecidable_cases_are_conservative() {
        // Every other element of 80 columns from each of rows 0 and 1: the first row's part
        // reaches into row 1, so the strides do not separate the dimensions and only the byte
        // ranges count. An odd element of row 1 is not touched, but is in the byte range.
        let every_other = Region { buffer: M, offset: 0, dims: smallvec::smallvec![(2, 64 * 4), (40, 8)], element_bytes: 4 };
        let odd_element = tile(1, 41, 1, 1);
        assert!(!truly_overlap(&every_other, &odd_element));
        assert!(every_other.overlaps(&odd_element), "conservative: byte ranges intersect");
        assert!(odd_element.overlaps(&every_other));
        // More dimensions than the exact test takes: byte ranges decide.
        let nine_d =
            Region { buffer: M, offset: 0, dims: (0..9).map(|k| (2, 8 << k)).collect(), element_bytes: 4 };
        let gap = Region::bytes(M, 4, 4);
        assert!(!truly_overlap(&nine_d, &gap));
        assert!(nine_d.overlaps(&gap), "conservative past MAX_DIMS");
        let eight_d = Region { dims: (0..8).map(|k| (2, 8 << k)).collect(), ..nine_d };
        assert!(!eight_d.overlaps(&gap), "exact up to MAX_DIMS");
        // Where the exact test applies, it answers exactly even for a wrapping tile.
        let wrapping =
            Region { buffer: M, offset: 0, dims: smallvec::smallvec![(2, 2 * 64 * 4), (80, 4)], element_bytes: 4 };
        assert!(!truly_overlap(&wrapping, &tile(1, 40, 1, 4)));
        assert!(!wrapping.overlaps(&tile(1, 40, 1, 4)));
        assert!(wrapping.overlaps(&tile(1, 15, 1, 1)));
        assert!(!wrapping.overlaps(&tile(1, 16, 1, 1)));
    }

    /// Every answer is right or conservative, against enumerated bytes, over many small boxes;
    /// and the exact cases (same strides) are never conservative.
    #[test]
    fn agrees_with_enumeration() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |bound: i64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % bound as u64) as i64
        };
        let mut exact = 0;
        for _ in 0..20_000 {
            let cols = 1 + next(12);
            let random_tile = |next: &mut dyn FnMut(i64) -> i64| {
                let (row, col) = (next(6), next(cols));
                let (rows, width) = (next(4), next(cols - col + 1));
                Region::tile_2d(M, cols, 2, (row, col), (rows, width))
            };
            let a = random_tile(&mut next);
            let b = if next(4) == 0 {
                Region {
                    buffer: M,
                    offset: next(60),
                    dims: smallvec::smallvec![(next(5), 1 + next(9))],
                    element_bytes: 1 + next(3),
                }
            } else {
                random_tile(&mut next)
            };
            let truth = truly_overlap(&a, &b);
            assert!(!truth || a.overlaps(&b), "missed overlap: {a:?} {b:?}");
            assert_eq!(a.overlaps(&b), b.overlaps(&a), "asymmetric: {a:?} {b:?}");
            let strides = |r: &Region| r.dims.iter().map(|&(_, s)| s).collect::<Vec<_>>();
            if strides(&a) == strides(&b) {
                // Same strides (two tiles of one matrix): exact.
                assert_eq!(a.overlaps(&b), truth, "not exact: {a:?} {b:?}");
                exact += 1;
            }
        }
        assert!(exact > 10_000, "too few same-matrix pairs: {exact}");
    }
}
