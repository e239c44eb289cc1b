//! The `layout` dialect from Rust: [`Axe`] layouts (built, read, compared
//! in a canonical form) over the C API in `dialects/layout/LayoutCAPI.h`,
//! and the process-wide registry of **layout facets** — named families of
//! layouts (`row_major`, `col_major`, a backend's fractal layouts, an
//! extension's own) that the front end builds from a name and the
//! capability check names a program's layouts by.

use std::sync::{Arc, RwLock};

use melior::{
    ir::{Attribute, AttributeLike},
    Context, StringRef,
};
use mlir_sys::{MlirAttribute, MlirContext, MlirStringRef};

unsafe extern "C" {
    fn htpAttributeIsAAxeLayout(attr: MlirAttribute) -> bool;
    fn htpAxeLayoutGet(
        ctx: MlirContext,
        rank: isize,
        parts_per_dim: *const i64,
        extents: *const i64,
        axes: *const MlirStringRef,
        strides: *const i64,
        num_replicas: isize,
        replicas: *const MlirStringRef,
        offset: i64,
    ) -> MlirAttribute;
    fn htpAxeLayoutGetRank(attr: MlirAttribute) -> isize;
    fn htpAxeLayoutGetNumParts(attr: MlirAttribute, dim: isize) -> isize;
    fn htpAxeLayoutGetPart(attr: MlirAttribute, dim: isize, part: isize, extent: *mut i64, axis: *mut MlirStringRef, stride: *mut i64);
    fn htpAxeLayoutGetNumReplicas(attr: MlirAttribute) -> isize;
    fn htpAxeLayoutGetReplica(attr: MlirAttribute, index: isize) -> MlirStringRef;
    fn htpAxeLayoutGetOffset(attr: MlirAttribute) -> i64;
}

/// The memory axis: an element offset in the buffer.
pub const MEMORY: &str = "m";
/// `?`: an extent or stride known only at run time.
pub const DYNAMIC: i64 = i64::MIN;

/// One part of a logical dimension: its digit goes to `axis` with `stride`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Part {
    pub extent: i64,
    pub axis: String,
    pub stride: i64,
}

impl Part {
    pub fn memory(extent: i64, stride: i64) -> Self {
        Part { extent, axis: MEMORY.into(), stride }
    }
}

/// An Axe layout (`#layout.axe`): per logical dimension (outermost first)
/// its parts (outermost first), the axes holding replicas, an offset on `m`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Axe {
    pub dims: Vec<Vec<Part>>,
    pub replicas: Vec<String>,
    pub offset: i64,
}

impl Axe {
    /// Row-major `rows x cols`.
    pub fn row_major(rows: i64, cols: i64) -> Self {
        Axe { dims: vec![vec![Part::memory(rows, cols)], vec![Part::memory(cols, 1)]], replicas: vec![], offset: 0 }
    }

    /// Column-major `rows x cols`.
    pub fn col_major(rows: i64, cols: i64) -> Self {
        Axe { dims: vec![vec![Part::memory(rows, 1)], vec![Part::memory(cols, rows)]], replicas: vec![], offset: 0 }
    }

    /// `rows x cols` in `fr x fc` fractals (both must divide): blocks in
    /// column-major order and elements row-major inside one (PTO's NZ) when
    /// `nz`, blocks row-major and elements column-major inside (ZN)
    /// otherwise. `None` when the fractal does not divide the shape.
    pub fn fractal(rows: i64, cols: i64, fr: i64, fc: i64, nz: bool) -> Option<Self> {
        if fr <= 0 || fc <= 0 || rows % fr != 0 || cols % fc != 0 {
            return None;
        }
        let block = fr * fc;
        let dims = if nz {
            vec![
                vec![Part::memory(rows / fr, block), Part::memory(fr, fc)],
                vec![Part::memory(cols / fc, rows * fc), Part::memory(fc, 1)],
            ]
        } else {
            vec![
                vec![Part::memory(rows / fr, cols * fr), Part::memory(fr, 1)],
                vec![Part::memory(cols / fc, block), Part::memory(fc, fr)],
            ]
        };
        Some(Axe { dims, replicas: vec![], offset: 0 })
    }

    /// The logical size of each dimension (`DYNAMIC` if a part is `?`).
    pub fn shape(&self) -> Vec<i64> {
        self.dims
            .iter()
            .map(|parts| parts.iter().try_fold(1i64, |size, part| (part.extent != DYNAMIC).then(|| size * part.extent)).unwrap_or(DYNAMIC))
            .collect()
    }

    /// The same layout with parts of extent 1 dropped and adjacent parts of
    /// one dimension on one axis merged where they are contiguous, so that
    /// layouts that place every element alike compare equal (a 16x16 NZ
    /// tile of 16x16 fractals is row-major).
    pub fn canonical(&self) -> Self {
        let dims = self
            .dims
            .iter()
            .map(|parts| {
                let mut merged: Vec<Part> = Vec::new();
                for part in parts.iter().filter(|p| p.extent != 1) {
                    if let Some(outer) = merged.last_mut() {
                        let contiguous = outer.axis == part.axis
                            && part.extent != DYNAMIC
                            && part.stride != DYNAMIC
                            && outer.stride != DYNAMIC
                            && outer.extent != DYNAMIC
                            && outer.stride == part.stride * part.extent;
                        if contiguous {
                            outer.extent *= part.extent;
                            outer.stride = part.stride;
                            continue;
                        }
                    }
                    merged.push(part.clone());
                }
                if merged.is_empty() {
                    merged.push(Part::memory(1, 0));
                }
                merged
            })
            .collect();
        let mut replicas = self.replicas.clone();
        replicas.sort();
        Axe { dims, replicas, offset: self.offset }
    }

    /// Whether both place every element alike.
    pub fn same_placement(&self, other: &Axe) -> bool {
        self.canonical() == other.canonical()
    }

    /// The element offset of `index` in a layout on the memory axis only
    /// (`None` for other layouts, dynamic parts or an index out of shape).
    pub fn memory_offset(&self, index: &[i64]) -> Option<i64> {
        if index.len() != self.dims.len() || !self.replicas.is_empty() {
            return None;
        }
        let mut offset = self.offset;
        for (parts, &i) in self.dims.iter().zip(index) {
            let mut rest = i;
            let mut below: i64 = parts.iter().map(|p| p.extent).try_fold(1i64, |a, e| (e != DYNAMIC).then(|| a * e))?;
            if i < 0 || i >= below {
                return None;
            }
            for part in parts {
                if part.axis != MEMORY || part.stride == DYNAMIC {
                    return None;
                }
                below /= part.extent;
                offset += (rest / below) * part.stride;
                rest %= below;
            }
        }
        Some(offset)
    }

    /// The `#layout.axe` attribute; `None` (and a diagnostic on the
    /// context) when MLIR's verifier rejects it.
    pub fn to_attribute<'c>(&self, context: &'c Context) -> Option<Attribute<'c>> {
        let parts_per_dim: Vec<i64> = self.dims.iter().map(|parts| parts.len() as i64).collect();
        let all: Vec<&Part> = self.dims.iter().flatten().collect();
        let extents: Vec<i64> = all.iter().map(|p| p.extent).collect();
        let strides: Vec<i64> = all.iter().map(|p| p.stride).collect();
        let axes: Vec<MlirStringRef> = all.iter().map(|p| StringRef::new(&p.axis).to_raw()).collect();
        let replicas: Vec<MlirStringRef> = self.replicas.iter().map(|r| StringRef::new(r).to_raw()).collect();
        let raw = unsafe {
            htpAxeLayoutGet(
                context.to_raw(),
                parts_per_dim.len() as isize,
                parts_per_dim.as_ptr(),
                extents.as_ptr(),
                axes.as_ptr(),
                strides.as_ptr(),
                replicas.len() as isize,
                replicas.as_ptr(),
                self.offset,
            )
        };
        unsafe { Attribute::from_option_raw(raw) }
    }

    /// Reads a `#layout.axe` attribute (`None` for any other attribute).
    pub fn from_attribute(attribute: Attribute) -> Option<Self> {
        let raw = attribute.to_raw();
        if raw.ptr.is_null() || !unsafe { htpAttributeIsAAxeLayout(raw) } {
            return None;
        }
        let text = |s: MlirStringRef| unsafe { StringRef::from_raw(s) }.as_str().unwrap_or_default().to_string();
        let rank = unsafe { htpAxeLayoutGetRank(raw) };
        let dims = (0..rank)
            .map(|dim| {
                (0..unsafe { htpAxeLayoutGetNumParts(raw, dim) })
                    .map(|part| {
                        let (mut extent, mut stride) = (0i64, 0i64);
                        let mut axis = StringRef::new("").to_raw();
                        unsafe { htpAxeLayoutGetPart(raw, dim, part, &mut extent, &mut axis, &mut stride) };
                        Part { extent, axis: text(axis), stride }
                    })
                    .collect()
            })
            .collect();
        let replicas = (0..unsafe { htpAxeLayoutGetNumReplicas(raw) }).map(|i| text(unsafe { htpAxeLayoutGetReplica(raw, i) })).collect();
        Some(Axe { dims, replicas, offset: unsafe { htpAxeLayoutGetOffset(raw) } })
    }
}

/// Builds a facet's layout for a tile of `rows x cols` elements of
/// `element_bits` bits; `Ok(None)` when the facet has no layout for that
/// tile, `Err` when the builder itself failed (an extension's code raised).
pub type FacetBuilder = Arc<dyn Fn(i64, i64, u32) -> Result<Option<Axe>, String> + Send + Sync>;

/// A layout facet: a named family of layouts, registered once by whoever
/// provides it (HTP's core: `row_major`, `col_major`; a backend; an
/// extension).
#[derive(Clone)]
pub struct Facet {
    pub name: String,
    pub description: String,
    /// Who registered it (for conflicts and `htp.layouts()`).
    pub provider: String,
    pub build: FacetBuilder,
}

static FACETS: RwLock<Vec<Facet>> = RwLock::new(Vec::new());

/// Registers `facet`; a name already taken is an error naming both providers.
pub fn register_facet(facet: Facet) -> Result<(), String> {
    let mut facets = FACETS.write().map_err(|_| "the layout facet registry is poisoned".to_string())?;
    if let Some(existing) = facets.iter().find(|f| f.name == facet.name) {
        if existing.provider == facet.provider {
            return Ok(()); // the same provider registering again (a second register_all)
        }
        return Err(format!(
            "the layout facet '{}' is registered twice: by {} and by {}",
            facet.name, existing.provider, facet.provider
        ));
    }
    facets.push(facet);
    Ok(())
}

/// Every registered facet, in registration order.
pub fn facets() -> Vec<Facet> {
    FACETS.read().map(|f| f.clone()).unwrap_or_default()
}

/// The facet named `name`.
pub fn facet(name: &str) -> Option<Facet> {
    facets().into_iter().find(|f| f.name == name)
}

/// The name of the first registered facet whose layout for this tile
/// places elements as `layout` does; `None` if no facet does.
pub fn classify(layout: &Axe, rows: i64, cols: i64, element_bits: u32) -> Option<String> {
    facets()
        .into_iter()
        .find(|facet| (facet.build)(rows, cols, element_bits).ok().flatten().is_some_and(|built| built.same_placement(layout)))
        .map(|facet| facet.name)
}

/// HTP's own facets: row-major and column-major, which every target can
/// name (whether it accepts them is its capability).
pub fn register_core_facets() -> Result<(), String> {
    register_facet(Facet {
        name: "row_major".into(),
        description: "rows one after another, each row contiguous".into(),
        provider: "htp".into(),
        build: Arc::new(|rows, cols, _| Ok(Some(Axe::row_major(rows, cols)))),
    })?;
    register_facet(Facet {
        name: "col_major".into(),
        description: "columns one after another, each column contiguous".into(),
        provider: "htp".into(),
        build: Arc::new(|rows, cols, _| Ok(Some(Axe::col_major(rows, cols)))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::new_context;

    #[test]
    fn layouts_round_trip_through_their_attribute() {
        let context = new_context();
        let spread = Axe {
            dims: vec![vec![Part { extent: DYNAMIC, axis: "core".into(), stride: 1 }, Part::memory(64, 64)], vec![Part::memory(64, 1)]],
            replicas: vec!["lane".into()],
            offset: 3,
        };
        for layout in [Axe::row_major(16, 64), Axe::col_major(16, 64), Axe::fractal(32, 64, 16, 16, true).unwrap(), spread] {
            let attribute = layout.to_attribute(&context).expect("a valid layout");
            assert_eq!(Axe::from_attribute(attribute), Some(layout));
        }
        let text = Axe::col_major(16, 64).to_attribute(&context).unwrap().to_string();
        assert_eq!(text, "#layout.axe<[16@m:1] x [64@m:16]>");
    }

    #[test]
    fn an_invalid_layout_is_refused() {
        let context = new_context();
        let bad = Axe { dims: vec![vec![Part::memory(0, 1)]], replicas: vec![], offset: 0 };
        assert!(bad.to_attribute(&context).is_none());
        // Rules the syntax cannot reach: no dimension at all.
        let empty = Axe { dims: vec![], replicas: vec![], offset: 0 };
        assert!(empty.to_attribute(&context).is_none());
    }

    #[test]
    fn offsets_follow_the_parts() {
        let nz = Axe::fractal(32, 32, 16, 16, true).unwrap();
        // Element (17, 3): fractal row 1 of block column 0, row 1 inside.
        assert_eq!(nz.memory_offset(&[17, 3]), Some(256 + 16 + 3));
        // Element (2, 20): block column 1 (32 rows x 16 columns before it).
        assert_eq!(nz.memory_offset(&[2, 20]), Some(32 * 16 + 2 * 16 + 4));
        let zn = Axe::fractal(32, 32, 16, 16, false).unwrap();
        assert_eq!(zn.memory_offset(&[2, 20]), Some(256 + 4 * 16 + 2));
        assert_eq!(Axe::col_major(16, 64).memory_offset(&[3, 2]), Some(2 * 16 + 3));
        assert_eq!(Axe::row_major(16, 64).memory_offset(&[16, 0]), None);
    }

    #[test]
    fn every_fractal_layout_is_a_bijection_onto_the_buffer() {
        for (rows, cols, nz) in [(32, 64, true), (32, 64, false), (16, 16, true)] {
            let layout = Axe::fractal(rows, cols, 16, 16, nz).unwrap();
            let mut seen = vec![false; (rows * cols) as usize];
            for i in 0..rows {
                for j in 0..cols {
                    let offset = layout.memory_offset(&[i, j]).unwrap() as usize;
                    assert!(!seen[offset], "({i}, {j}) lands on a taken offset");
                    seen[offset] = true;
                }
            }
        }
    }

    #[test]
    fn canonical_forms_compare_placements() {
        // One 16x16 fractal is row-major; the 1-extent block parts vanish.
        assert!(Axe::fractal(16, 16, 16, 16, true).unwrap().same_placement(&Axe::row_major(16, 16)));
        assert!(!Axe::fractal(32, 32, 16, 16, true).unwrap().same_placement(&Axe::row_major(32, 32)));
        // A one-column tile is both row- and column-major.
        assert!(Axe::row_major(16, 1).same_placement(&Axe::col_major(16, 1)));
    }

    #[test]
    fn facets_classify_layouts_and_refuse_a_second_provider() {
        register_core_facets().unwrap();
        assert_eq!(classify(&Axe::col_major(16, 64), 16, 64, 32).as_deref(), Some("col_major"));
        assert_eq!(classify(&Axe::row_major(16, 64), 16, 64, 32).as_deref(), Some("row_major"));
        assert_eq!(classify(&Axe::fractal(32, 32, 16, 16, true).unwrap(), 32, 32, 16), None);
        let clash = Facet { name: "row_major".into(), description: String::new(), provider: "someone".into(), build: Arc::new(|_, _, _| Ok(None)) };
        let error = register_facet(clash).unwrap_err();
        assert!(error.contains("registered twice: by htp and by someone"), "{error}");
    }
}
