//! The live accesses of one kind (reads or writes) to one buffer, indexed by first byte, so a
//! new access examines only those whose byte range can reach it.
//!
//! Entries are keyed by (first byte, sequence number); every entry's byte range is at most
//! `widest` bytes long, so an access `[first, last]` can only overlap entries whose first byte is
//! in `[first - widest, last]` — one range query. For tiles of one matrix that is the tiles of
//! the same row band, not every tile in flight.

use std::{collections::BTreeMap, sync::Arc};

use super::{
    node::TaskNode,
    region::{lattices_overlap, Lattice, Region},
};

pub(crate) struct LiveAccess {
    /// The region's byte range.
    pub first: i64,
    pub last: i64,
    pub region: Region,
    /// The region's form for the exact overlap test, computed once.
    pub lattice: Option<Lattice>,
    pub task: Arc<TaskNode>,
}

impl LiveAccess {
    /// `task`'s access to `region`, whose byte range is `[first, last]`.
    pub fn new(first: i64, last: i64, region: Region, task: &Arc<TaskNode>) -> Self {
        Self { first, last, lattice: Lattice::of(&region), region, task: Arc::clone(task) }
    }
}

#[derive(Default)]
pub(crate) struct LiveAccesses {
    /// (first byte, sequence number) → index into `slots`. The entries themselves live in the
    /// slab: B-tree nodes shift their values on insert, and an entry is a few hundred bytes.
    by_first: BTreeMap<(i64, u64), usize>,
    slots: Vec<Option<LiveAccess>>,
    free_slots: Vec<usize>,
    /// At least `last - first` of every entry.
    widest: i64,
    next_sequence: u64,
    /// Entries a range query never meets (tiles elsewhere in the buffer) are swept when the
    /// index has doubled since the last sweep: amortised O(1) per insert, and the index holds
    /// about as many entries as there are unfinished tasks.
    sweep_at: usize,
}

impl LiveAccesses {
    /// Calls `conflict` with the task of every live entry overlapping `new` (an access of the
    /// same buffer); drops finished entries it meets.
    pub fn for_each_overlapping(&mut self, new: &LiveAccess, mut conflict: impl FnMut(&Arc<TaskNode>)) {
        let mut finished = Vec::new();
        let lowest = new.first.saturating_sub(self.widest);
        for (key, &slot) in self.by_first.range((lowest, 0)..=(new.last, u64::MAX)) {
            let Some(old) = &self.slots[slot] else { continue };
            if old.task.is_done() {
                finished.push(*key);
            } else if old.last >= new.first && lattices_overlap(old.lattice.as_ref(), new.lattice.as_ref()) {
                conflict(&old.task);
            }
        }
        for key in finished {
            self.remove(&key);
        }
    }

    /// Removes the entries for exactly `region` (a write to it supersedes them).
    pub fn remove_region(&mut self, first: i64, region: &Region) {
        let slots = &self.slots;
        let same: Vec<(i64, u64)> = self
            .by_first
            .range((first, 0)..=(first, u64::MAX))
            .filter(|(_, &slot)| slots[slot].as_ref().is_some_and(|old| old.region == *region))
            .map(|(key, _)| *key)
            .collect();
        for key in same {
            self.remove(&key);
        }
    }

    pub fn insert(&mut self, access: LiveAccess) {
        if self.by_first.len() >= self.sweep_at {
            self.sweep();
        }
        self.widest = self.widest.max(access.last.saturating_sub(access.first));
        let key = (access.first, self.next_sequence);
        self.next_sequence += 1;
        let slot = match self.free_slots.pop() {
            Some(slot) => {
                self.slots[slot] = Some(access);
                slot
            }
            None => {
                self.slots.push(Some(access));
                self.slots.len() - 1
            }
        };
        self.by_first.insert(key, slot);
    }

    fn remove(&mut self, key: &(i64, u64)) {
        if let Some(slot) = self.by_first.remove(key) {
            self.slots[slot] = None;
            self.free_slots.push(slot);
        }
    }

    /// Drops every finished entry and recomputes `widest`.
    fn sweep(&mut self) {
        let (slots, free_slots) = (&mut self.slots, &mut self.free_slots);
        self.by_first.retain(|_, &mut slot| {
            let live = slots[slot].as_ref().is_some_and(|old| !old.task.is_done());
            if !live {
                slots[slot] = None;
                free_slots.push(slot);
            }
            live
        });
        self.widest = self
            .by_first
            .values()
            .filter_map(|&slot| slots[slot].as_ref().map(|old| old.last - old.first))
            .max()
            .unwrap_or(0);
        self.sweep_at = (2 * self.by_first.len()).max(64);
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.by_first.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(id: u64, first: i64, bytes: i64) -> LiveAccess {
        let name = crate::tasks::node::TaskName { text: format!("t{id}"), label: None, keys: Vec::new() };
        let task = Arc::new(TaskNode::new(id, name, 0, crate::tasks::body::TaskBody::new(|| Ok(()))));
        LiveAccess::new(first, first + bytes - 1, Region::bytes(1, first, bytes), &task)
    }

    fn overlapping(live: &mut LiveAccesses, first: i64, bytes: i64) -> Vec<u64> {
        let mut ids = Vec::new();
        live.for_each_overlapping(&access(u64::MAX, first, bytes), |task| ids.push(task.id));
        ids.sort_unstable();
        ids
    }

    #[test]
    fn a_wide_entry_starting_far_below_is_found() {
        let mut live = LiveAccesses::default();
        live.insert(access(0, 0, 1000));
        for n in 1..100 {
            live.insert(access(n, 2000 + 8 * n as i64, 8));
        }
        assert_eq!(overlapping(&mut live, 990, 4), vec![0]);
        assert_eq!(overlapping(&mut live, 1000, 1000), Vec::<u64>::new());
        assert_eq!(overlapping(&mut live, 2008, 16), vec![1, 2]);
        assert_eq!(overlapping(&mut live, 0, 5000).len(), 100);
    }

    #[test]
    fn finished_entries_leave_when_met_or_swept() {
        let mut live = LiveAccesses::default();
        let entries: Vec<LiveAccess> = (0..1000).map(|n| access(n, 8 * n as i64, 8)).collect();
        let tasks: Vec<Arc<TaskNode>> = entries.iter().map(|entry| Arc::clone(&entry.task)).collect();
        for (entry, task) in entries.into_iter().zip(&tasks) {
            live.insert(entry);
            task.finish(|_| {});
        }
        assert!(live.len() <= 128, "{} finished entries kept", live.len());
        assert_eq!(overlapping(&mut live, 0, 8000), Vec::<u64>::new());
        assert_eq!(live.len(), 0, "a lookup drops the finished entries it meets");
        live.insert(access(7, 16, 8));
        live.remove_region(16, &Region::bytes(1, 16, 8));
        assert_eq!(live.len(), 0);
    }
}
