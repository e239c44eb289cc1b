//! Row-major copies of strided views: a cpu task whose view has gaps (a
//! block of columns, every other row) runs its kernel on a row-major copy
//! of exactly the view's elements, copied back when the kernel may write
//! it. Kernels are compiled for row-major arrays (their code may flatten
//! dimensions), so this is what makes a task receive "that view".

/// A view into a caller's array: its first element, extents, and strides
/// in elements, in the order the kernel reads it (a column-major
/// parameter's dimensions reversed, so that its dense order is row-major).
pub struct StridedView {
    pub data: *mut u8,
    pub sizes: Vec<i64>,
    pub strides: Vec<i64>,
    pub element_bytes: usize,
    pub column_major: bool,
}

impl StridedView {
    pub fn new(data: *mut u8, sizes: &[i64], strides: &[i64], element_bytes: usize, column_major: bool) -> Self {
        let (mut sizes, mut strides) = (sizes.to_vec(), strides.to_vec());
        if column_major {
            sizes.reverse();
            strides.reverse();
        }
        StridedView { data, sizes, strides, element_bytes, column_major }
    }


    /// The view's extents, in the kernel's dimension order.
    pub fn argument_sizes(&self) -> Vec<i64> {
        self.in_kernel_order(self.sizes.clone())
    }

    /// The strides of the dense copy, in the kernel's dimension order.
    pub fn dense_strides(&self) -> Vec<i64> {
        self.in_kernel_order(row_major_strides(&self.sizes))
    }

    fn in_kernel_order(&self, mut dims: Vec<i64>) -> Vec<i64> {
        if self.column_major {
            dims.reverse();
        }
        dims
    }
}

/// Whether a kernel reads the view of `sizes` at `strides` (elements) in
/// place: one dense block in its parameter's order (row-major, or
/// column-major for a `col_major` parameter).
pub fn is_dense(sizes: &[i64], strides: &[i64], column_major: bool) -> bool {
    if column_major {
        is_dense_from_last(sizes.iter().zip(strides))
    } else {
        is_dense_from_last(sizes.iter().zip(strides).rev())
    }
}

/// Whether the dimensions, fastest first, are one dense block: dimensions
/// of extent one do not count.
fn is_dense_from_last<'a>(dims: impl Iterator<Item = (&'a i64, &'a i64)>) -> bool {
    let mut expected = 1;
    for (size, stride) in dims {
        if *size == 1 {
            continue;
        }
        if *stride != expected {
            return false;
        }
        expected *= size;
    }
    true
}

/// Row-major strides (elements) of `sizes`.
pub fn row_major_strides(sizes: &[i64]) -> Vec<i64> {
    let mut strides = vec![1; sizes.len()];
    for d in (0..sizes.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * sizes[d + 1].max(1);
    }
    strides
}

/// The row-major copy, 16-byte aligned (as any element's alignment needs).
pub struct RowMajorCopy {
    words: Vec<u128>,
}

impl RowMajorCopy {
    /// Copies the view's elements, in row-major order.
    ///
    /// # Safety
    /// The view must address readable memory at every element.
    pub unsafe fn gather(view: &StridedView) -> Self {
        let bytes = view.sizes.iter().product::<i64>().max(0) as usize * view.element_bytes;
        let mut copy = RowMajorCopy { words: vec![0; bytes.div_ceil(16)] };
        let base = copy.data();
        let mut at = 0;
        unsafe { visit(view, |element| {
            std::ptr::copy_nonoverlapping(element, base.add(at), view.element_bytes);
            at += view.element_bytes;
        }) };
        copy
    }

    /// Writes the copy back into the view.
    ///
    /// # Safety
    /// The view must address writable memory at every element.
    pub unsafe fn scatter(&self, view: &StridedView) {
        let base = self.words.as_ptr() as *const u8;
        let mut at = 0;
        unsafe { visit(view, |element| {
            std::ptr::copy_nonoverlapping(base.add(at), element, view.element_bytes);
            at += view.element_bytes;
        }) };
    }

    pub fn data(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }
}

/// Calls `each` with the address of every element of `view`, in row-major order.
unsafe fn visit(view: &StridedView, mut each: impl FnMut(*mut u8)) {
    if view.sizes.iter().any(|s| *s <= 0) {
        return;
    }
    let rank = view.sizes.len();
    let mut index = vec![0i64; rank];
    loop {
        let offset: i64 = index.iter().zip(&view.strides).map(|(i, s)| i * s).sum();
        each(unsafe { view.data.offset(offset as isize * view.element_bytes as isize) });
        // The next index, the last dimension fastest.
        let mut d = rank;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            if index[d] < view.sizes[d] {
                break;
            }
            index[d] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn density_ignores_unit_dimensions() {
        assert!(is_dense(&[16, 32], &[32, 1], false));
        assert!(is_dense(&[1, 32], &[64, 1], false));
        assert!(!is_dense(&[16, 1], &[64, 7], false));
        assert!(!is_dense(&[16, 32], &[64, 1], false));
        assert!(!is_dense(&[4], &[2], false));
        assert!(is_dense(&[], &[], false));
        assert_eq!(row_major_strides(&[3, 4, 5]), vec![20, 5, 1]);
    }

    #[test]
    fn a_block_of_columns_round_trips_and_nothing_around_it_moves() {
        // An 8x8 array of i32, the view rows 2..5 x columns 3..7.
        let mut array: Vec<i32> = (0..64).collect();
        assert!(!is_dense(&[3, 4], &[8, 1], false));
        let view = StridedView::new(unsafe { (array.as_mut_ptr() as *mut u8).add((2 * 8 + 3) * 4) }, &[3, 4], &[8, 1], 4, false);
        let mut copy = unsafe { RowMajorCopy::gather(&view) };
        let values = unsafe { std::slice::from_raw_parts(copy.data() as *mut i32, 12) };
        assert_eq!(values, &[19, 20, 21, 22, 27, 28, 29, 30, 35, 36, 37, 38]);
        let values = unsafe { std::slice::from_raw_parts_mut(copy.data() as *mut i32, 12) };
        values.iter_mut().for_each(|v| *v = -*v);
        unsafe { copy.scatter(&view) };
        for (i, v) in array.iter().enumerate() {
            let (r, c) = (i / 8, i % 8);
            let inside = (2..5).contains(&r) && (3..7).contains(&c);
            assert_eq!(*v, if inside { -(i as i32) } else { i as i32 }, "element ({r}, {c})");
        }
    }

    #[test]
    fn a_column_major_view_is_copied_in_column_order() {
        // A 4x4 column-major array (element (r, c) at c * 4 + r), the view rows 1..3 x columns 0..2.
        let mut array: Vec<i32> = (0..16).collect();
        assert!(!is_dense(&[2, 2], &[1, 4], true));
        let view = StridedView::new(unsafe { (array.as_mut_ptr() as *mut u8).add(4) }, &[2, 2], &[1, 4], 4, true);
        assert_eq!((view.argument_sizes(), view.dense_strides()), (vec![2, 2], vec![1, 2]));
        let mut copy = unsafe { RowMajorCopy::gather(&view) };
        assert_eq!(unsafe { std::slice::from_raw_parts(copy.data() as *mut i32, 4) }, &[1, 2, 5, 6]);
        assert!(is_dense(&[4, 2], &[1, 4], true));
    }
}
