//! A target's architecture model, in the spirit of Arknife: the levels of
//! parallel hardware a kernel is distributed over (clusters, cube and
//! vector cores, CPU cores), the memory spaces tiles live in, with their
//! capacities, and — for spatial hardware — the 2-D array of tiles of
//! different kinds ([`TileArray`]: a spatial array's interface, memory and compute rows;
//! PTO's clusters of one cube and two vector cores) with each kind's
//! memories, DMA channels and locks and which neighbours' memories a tile
//! addresses directly. Targets declare it (`Target::architecture`); passes
//! that place tiles or split loops read it from there; `htp.targets()`
//! shows it.

/// A level of parallel hardware: `count` units, each holding the units of
/// the next level (a chip's clusters, each with one cube and two vector cores).
/// Its name is an identifier: layouts name it as an axis
/// (`#layout.axe<[24@cluster:1, ?@iter:1]>`, `htp_transforms::distribution`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParallelLevel {
    pub name: &'static str,
    /// Units at this level per unit of the level above (the first: in total).
    pub count: u64,
    pub description: &'static str,
}

/// A memory space: where a tile or tensor lives, its capacity in bytes
/// (`None`: bounded only by the host) and the alignment placements use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemorySpace {
    pub name: &'static str,
    pub bytes: Option<u64>,
    pub alignment: u64,
    pub description: &'static str,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Architecture {
    pub levels: Vec<ParallelLevel>,
    pub memories: Vec<MemorySpace>,
    /// The array of tiles, for targets made of one (a spatial array, PTO's clusters).
    pub array: Option<TileArray>,
}

/// DMA channels of one tile: streams it can move data in and out on at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DmaChannels {
    pub input: u32,
    pub output: u32,
}

/// A kind of tile in a [`TileArray`]: a spatial array's `shim` (the array's interface
/// to the host's memory), `memory` (memtiles) and `compute` tiles; PTO's
/// `aic` and `aiv` cores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileKind {
    /// An identifier, unique in its array.
    pub name: &'static str,
    pub description: &'static str,
    /// Whether tiles of this kind run code (a core), or only move data.
    pub computes: bool,
    /// The memories of each tile of this kind (names unique per kind).
    pub memories: Vec<MemorySpace>,
    pub dma: DmaChannels,
    /// Hardware locks per tile (synchronising its buffers).
    pub locks: u32,
}

/// A direction in the array: north is the next row up, east the next column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Direction {
    North,
    South,
    East,
    West,
}

impl Direction {
    pub const ALL: [Direction; 4] = [Direction::North, Direction::South, Direction::East, Direction::West];

    pub fn name(self) -> &'static str {
        match self {
            Direction::North => "north",
            Direction::South => "south",
            Direction::East => "east",
            Direction::West => "west",
        }
    }

    /// The (column, row) step of one move in this direction.
    fn step(self) -> (i64, i64) {
        match self {
            Direction::North => (0, 1),
            Direction::South => (0, -1),
            Direction::East => (1, 0),
            Direction::West => (-1, 0),
        }
    }
}

/// Shared memory: a tile of kind `from` addresses the memories of its
/// neighbour in each of `directions` directly (loads and stores, no DMA)
/// when that neighbour is of kind `to`. Every tile addresses its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NeighbourAccess {
    pub from: &'static str,
    pub to: &'static str,
    pub directions: Vec<Direction>,
}

/// A tile's coordinates: column (west to east) and row (south, row 0, up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TileCoord {
    pub column: u32,
    pub row: u32,
}

impl TileCoord {
    pub fn new(column: u32, row: u32) -> Self {
        TileCoord { column, row }
    }
}

impl std::fmt::Display for TileCoord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.column, self.row)
    }
}

/// A 2-D array of tiles: `columns` columns, each with the rows `rows`
/// lists (the kind of each row, row 0 first), except the tiles
/// `exceptions` gives another kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TileArray {
    pub columns: u32,
    pub rows: Vec<&'static str>,
    pub kinds: Vec<TileKind>,
    pub neighbours: Vec<NeighbourAccess>,
    pub exceptions: Vec<(TileCoord, &'static str)>,
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl TileArray {
    /// The number of rows.
    pub fn row_count(&self) -> u32 {
        self.rows.len() as u32
    }

    pub fn contains(&self, tile: TileCoord) -> bool {
        tile.column < self.columns && tile.row < self.row_count()
    }

    /// The kind named `name`.
    pub fn kind(&self, name: &str) -> Option<&TileKind> {
        self.kinds.iter().find(|k| k.name == name)
    }

    /// The kind of the tile at `tile`; an error for coordinates outside
    /// the array (or a kind the array does not define: see [`Self::validate`]).
    pub fn kind_at(&self, tile: TileCoord) -> Result<&TileKind, String> {
        if !self.contains(tile) {
            return Err(format!("the tile {tile} is outside the {}x{} array", self.columns, self.row_count()));
        }
        let name = self.exceptions.iter().find(|(at, _)| *at == tile).map(|(_, kind)| *kind).unwrap_or(self.rows[tile.row as usize]);
        self.kind(name).ok_or_else(|| format!("the tile {tile} is of the kind '{name}', which the array does not define"))
    }

    /// Every tile of the kind `kind`, row by row (row 0 first), west to east.
    pub fn tiles(&self, kind: &str) -> Vec<TileCoord> {
        (0..self.row_count())
            .flat_map(|row| (0..self.columns).map(move |column| TileCoord::new(column, row)))
            .filter(|&tile| self.kind_at(tile).is_ok_and(|k| k.name == kind))
            .collect()
    }

    /// The tile next to `tile` in `direction`, if the array has one there.
    pub fn neighbour(&self, tile: TileCoord, direction: Direction) -> Option<TileCoord> {
        let (dc, dr) = direction.step();
        let column = u32::try_from(tile.column as i64 + dc).ok()?;
        let row = u32::try_from(tile.row as i64 + dr).ok()?;
        let next = TileCoord::new(column, row);
        self.contains(next).then_some(next)
    }

    /// The tiles whose memories `tile` addresses directly: itself, then its
    /// neighbours the array's [`NeighbourAccess`] rules name, in the rules'
    /// order (each once).
    pub fn addressable(&self, tile: TileCoord) -> Result<Vec<TileCoord>, String> {
        let kind = self.kind_at(tile)?.name;
        let mut reached = vec![tile];
        for rule in self.neighbours.iter().filter(|rule| rule.from == kind) {
            for &direction in &rule.directions {
                if let Some(next) = self.neighbour(tile, direction) {
                    if self.kind_at(next)?.name == rule.to && !reached.contains(&next) {
                        reached.push(next);
                    }
                }
            }
        }
        Ok(reached)
    }

    /// Bytes of the memory `memory` over every tile of the array (`None`
    /// when a tile's is unbounded, or no tile has it).
    pub fn total_bytes(&self, memory: &str) -> Option<u64> {
        let mut total = 0u64;
        let mut found = false;
        for row in 0..self.row_count() {
            for column in 0..self.columns {
                let Ok(kind) = self.kind_at(TileCoord::new(column, row)) else { continue };
                if let Some(space) = kind.memories.iter().find(|m| m.name == memory) {
                    total += space.bytes?;
                    found = true;
                }
            }
        }
        found.then_some(total)
    }

    /// Checks that the array is well formed: at least one column and row,
    /// kinds named by unique identifiers, every row, exception and
    /// neighbour rule naming a kind the array defines, exceptions inside
    /// the array (once each), memory names unique per kind and alignments
    /// positive.
    pub fn validate(&self) -> Result<(), String> {
        if self.columns == 0 || self.rows.is_empty() {
            return Err(format!("a tile array needs at least one column and one row (it has {}x{})", self.columns, self.rows.len()));
        }
        for (index, kind) in self.kinds.iter().enumerate() {
            if !is_identifier(kind.name) {
                return Err(format!("the tile kind '{}' needs a name that is an identifier", kind.name));
            }
            if self.kinds[..index].iter().any(|k| k.name == kind.name) {
                return Err(format!("the tile kind '{}' is defined twice", kind.name));
            }
            for (m, memory) in kind.memories.iter().enumerate() {
                if kind.memories[..m].iter().any(|other| other.name == memory.name) {
                    return Err(format!("the tile kind '{}' has two memories named '{}'", kind.name, memory.name));
                }
                if memory.alignment == 0 {
                    return Err(format!("the memory '{}' of the tile kind '{}' needs a positive alignment", memory.name, kind.name));
                }
            }
        }
        let known = |name: &str, what: String| match self.kind(name) {
            Some(_) => Ok(()),
            None => {
                let kinds: Vec<&str> = self.kinds.iter().map(|k| k.name).collect();
                Err(format!("{what} names the tile kind '{name}', which the array does not define (its kinds: {})", kinds.join(", ")))
            }
        };
        for (row, kind) in self.rows.iter().enumerate() {
            known(kind, format!("row {row}"))?;
        }
        for (index, (tile, kind)) in self.exceptions.iter().enumerate() {
            if !self.contains(*tile) {
                return Err(format!("the exception at {tile} is outside the {}x{} array", self.columns, self.row_count()));
            }
            if self.exceptions[..index].iter().any(|(other, _)| other == tile) {
                return Err(format!("the tile {tile} has two exceptions"));
            }
            known(kind, format!("the exception at {tile}"))?;
        }
        for rule in &self.neighbours {
            known(rule.from, "a neighbour access rule".to_string())?;
            known(rule.to, "a neighbour access rule".to_string())?;
        }
        Ok(())
    }
}

impl Architecture {
    pub fn memory(&self, name: &str) -> Option<&MemorySpace> {
        self.memories.iter().find(|m| m.name == name)
    }

    pub fn level(&self, name: &str) -> Option<&ParallelLevel> {
        self.levels.iter().find(|l| l.name == name)
    }

    /// Units of `name` on the whole device (the product of the counts down to it).
    pub fn units(&self, name: &str) -> Option<u64> {
        let mut total = 1;
        for level in &self.levels {
            total *= level.count;
            if level.name == name {
                return Some(total);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_multiply_down_the_levels() {
        let model = Architecture {
            levels: vec![
                ParallelLevel { name: "cluster", count: 24, description: "" },
                ParallelLevel { name: "vector_core", count: 2, description: "" },
            ],
            memories: vec![MemorySpace { name: "ub", bytes: Some(196608), alignment: 32, description: "" }],
            array: None,
        };
        assert_eq!(model.units("cluster"), Some(24));
        assert_eq!(model.units("vector_core"), Some(48));
        assert_eq!(model.units("lane"), None);
        assert_eq!(model.memory("ub").and_then(|m| m.bytes), Some(196608));
    }
}

#[cfg(test)]
mod array_tests {
    use super::*;

    const KIB: u64 = 1024;

    fn memory(name: &'static str, bytes: u64) -> MemorySpace {
        MemorySpace { name, bytes: Some(bytes), alignment: 16, description: "" }
    }

    /// A spatial array: 4 columns, each a shim tile, a memtile and 4
    /// compute tiles (rows 2-5).
    fn aie_like() -> TileArray {
        TileArray {
            columns: 4,
            rows: vec!["shim", "memory", "compute", "compute", "compute", "compute"],
            kinds: vec![
                TileKind { name: "shim", description: "host interface", computes: false, memories: vec![], dma: DmaChannels { input: 2, output: 2 }, locks: 16 },
                TileKind { name: "memory", description: "memtile", computes: false, memories: vec![memory("mem", 512 * KIB)], dma: DmaChannels { input: 6, output: 6 }, locks: 64 },
                TileKind { name: "compute", description: "core", computes: true, memories: vec![memory("data", 64 * KIB)], dma: DmaChannels { input: 2, output: 2 }, locks: 16 },
            ],
            neighbours: vec![NeighbourAccess { from: "compute", to: "compute", directions: Direction::ALL.to_vec() }],
            exceptions: vec![],
        }
    }

    #[test]
    fn an_aie_like_array_answers_kinds_memories_channels_locks_and_neighbours() {
        let array = aie_like();
        array.validate().unwrap();
        assert_eq!((array.columns, array.row_count()), (4, 6));
        assert_eq!(array.tiles("compute").len(), 16);
        assert_eq!(array.tiles("memory"), (0..4).map(|c| TileCoord::new(c, 1)).collect::<Vec<_>>());
        let compute = array.kind_at(TileCoord::new(2, 3)).unwrap();
        assert_eq!((compute.name, compute.computes, compute.locks), ("compute", true, 16));
        assert_eq!(compute.dma, DmaChannels { input: 2, output: 2 });
        assert_eq!(compute.memories[0].bytes, Some(64 * KIB));
        let memtile = array.kind_at(TileCoord::new(0, 1)).unwrap();
        assert_eq!((memtile.dma.input, memtile.dma.output, memtile.locks, memtile.memories[0].bytes), (6, 6, 64, Some(512 * KIB)));
        assert_eq!(array.total_bytes("data"), Some(16 * 64 * KIB));
        assert_eq!(array.total_bytes("mem"), Some(4 * 512 * KIB));
        assert_eq!(array.total_bytes("l1"), None);
        // An inner compute tile reaches its four neighbours; one on the
        // array's edge fewer; one above the memtiles not the memtile (another kind).
        let inner = array.addressable(TileCoord::new(1, 3)).unwrap();
        assert_eq!(inner, [(1, 3), (1, 4), (1, 2), (2, 3), (0, 3)].map(|(c, r)| TileCoord::new(c, r)));
        let corner = array.addressable(TileCoord::new(0, 2)).unwrap();
        assert_eq!(corner, [(0, 2), (0, 3), (1, 2)].map(|(c, r)| TileCoord::new(c, r)));
        let top = array.addressable(TileCoord::new(3, 5)).unwrap();
        assert_eq!(top, [(3, 5), (3, 4), (2, 5)].map(|(c, r)| TileCoord::new(c, r)));
        // Shim and memtiles address only their own memories.
        assert_eq!(array.addressable(TileCoord::new(2, 1)).unwrap(), [TileCoord::new(2, 1)]);
        // Coordinates outside the array are errors.
        assert!(array.kind_at(TileCoord::new(4, 0)).unwrap_err().contains("outside the 4x6 array"));
        assert!(array.addressable(TileCoord::new(0, 6)).is_err());
        // A tile of another kind than its row's.
        let mut array = array;
        array.exceptions.push((TileCoord::new(3, 0), "memory"));
        array.validate().unwrap();
        assert_eq!(array.kind_at(TileCoord::new(3, 0)).unwrap().name, "memory");
        assert_eq!(array.tiles("shim").len(), 3);
        // As part of a target's architecture.
        let model = Architecture { array: Some(array), ..Architecture::default() };
        assert_eq!(model.array.as_ref().map(|a| a.tiles("compute").len()), Some(16));
    }

    #[test]
    fn a_malformed_array_is_refused() {
        let check = |edit: fn(&mut TileArray)| {
            let mut array = aie_like();
            edit(&mut array);
            array.validate().unwrap_err()
        };
        assert!(check(|a| a.columns = 0).contains("at least one column and one row"));
        assert!(check(|a| a.rows[3] = "dsp").contains("row 3 names the tile kind 'dsp', which the array does not define (its kinds: shim, memory, compute)"));
        assert!(check(|a| a.exceptions.push((TileCoord::new(9, 0), "shim"))).contains("the exception at (9, 0) is outside the 4x6 array"));
        assert!(check(|a| a.exceptions.push((TileCoord::new(0, 0), "npu"))).contains("names the tile kind 'npu'"));
        assert!(check(|a| a.exceptions.extend([(TileCoord::new(0, 0), "shim"), (TileCoord::new(0, 0), "memory")])).contains("two exceptions"));
        assert!(check(|a| a.kinds[0].name = "compute").contains("defined twice"));
        assert!(check(|a| a.kinds[1].name = "mem tile").contains("identifier"));
        assert!(check(|a| a.neighbours[0].to = "core").contains("a neighbour access rule names the tile kind 'core'"));
        assert!(check(|a| a.kinds[2].memories.push(memory("data", 1))).contains("two memories named 'data'"));
    }
}
