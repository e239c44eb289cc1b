//! A target's architecture model, in the spirit of Arknife: the levels of
//! parallel hardware a kernel is distributed over (clusters, cube and
//! vector cores, CPU cores) and the memory spaces tiles live in, with their
//! capacities. Targets declare it (`Target::architecture`); passes that
//! place tiles or split loops read it from there; `htp.targets()` shows it.

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
        };
        assert_eq!(model.units("cluster"), Some(24));
        assert_eq!(model.units("vector_core"), Some(48));
        assert_eq!(model.units("lane"), None);
        assert_eq!(model.memory("ub").and_then(|m| m.bytes), Some(196608));
    }
}
