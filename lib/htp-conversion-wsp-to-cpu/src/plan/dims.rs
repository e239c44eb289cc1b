//! The extents or strides of a view: kept inline up to `INLINE` dimensions, so that making and
//! cloning a task's views (every task of a workload call) allocates nothing; more dimensions go
//! on the heap.

use std::ops::{Deref, DerefMut};

const INLINE: usize = 4;

#[derive(Clone)]
pub enum Dims {
    Inline { len: u8, values: [i64; INLINE] },
    Heap(Vec<i64>),
}

impl Default for Dims {
    fn default() -> Self {
        Dims::Inline { len: 0, values: [0; INLINE] }
    }
}

impl From<&[i64]> for Dims {
    fn from(values: &[i64]) -> Self {
        if values.len() > INLINE {
            return Dims::Heap(values.to_vec());
        }
        let mut inline = [0; INLINE];
        inline[..values.len()].copy_from_slice(values);
        Dims::Inline { len: values.len() as u8, values: inline }
    }
}

impl FromIterator<i64> for Dims {
    fn from_iter<I: IntoIterator<Item = i64>>(values: I) -> Self {
        let mut dims = Dims::default();
        for value in values {
            match &mut dims {
                Dims::Inline { len, values } if (*len as usize) < INLINE => {
                    values[*len as usize] = value;
                    *len += 1;
                }
                Dims::Inline { len, values } => {
                    let mut heap = values[..*len as usize].to_vec();
                    heap.push(value);
                    dims = Dims::Heap(heap);
                }
                Dims::Heap(heap) => heap.push(value),
            }
        }
        dims
    }
}

impl Deref for Dims {
    type Target = [i64];

    fn deref(&self) -> &[i64] {
        match self {
            Dims::Inline { len, values } => &values[..*len as usize],
            Dims::Heap(values) => values,
        }
    }
}

impl DerefMut for Dims {
    fn deref_mut(&mut self) -> &mut [i64] {
        match self {
            Dims::Inline { len, values } => &mut values[..*len as usize],
            Dims::Heap(values) => values,
        }
    }
}

impl<'a> IntoIterator for &'a Dims {
    type Item = &'a i64;
    type IntoIter = std::slice::Iter<'a, i64>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl PartialEq for Dims {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl std::fmt::Debug for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (**self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lists_stay_inline_long_ones_move_to_the_heap_and_both_read_the_same() {
        for n in [0usize, 1, 4, 5, 9] {
            let values: Vec<i64> = (0..n as i64).map(|v| v * 3 - 2).collect();
            let collected: Dims = values.iter().copied().collect();
            let from_slice = Dims::from(&values[..]);
            assert_eq!(&collected[..], &values[..]);
            assert_eq!(collected, from_slice);
            assert_eq!(matches!(collected, Dims::Inline { .. }), n <= INLINE);
            let mut changed = collected.clone();
            if n > 0 {
                changed[0] = 100;
                assert_ne!(changed, collected);
            }
        }
    }
}
