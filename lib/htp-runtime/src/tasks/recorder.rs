//! Dependency inference ahead of a run: which earlier tasks each task of a sequence must follow,
//! from the tasks' accesses alone (D88).
//!
//! A caller that issues the same tasks call after call (a serving step: the same workload on
//! the same state) records the edges once and submits later calls' tasks with their edges given
//! (`TaskSpec::after`) instead of their accesses. The edges must not depend on the timing of the
//! recorded run, so they are not taken from it — where a task already finished at submit needs
//! no edge — but inferred here by the same tracker with nodes that never run: every conflicting
//! earlier task, after the tracker's transitive reduction (a write stands for the accesses of
//! its region before it).

use std::sync::Arc;

use super::{
    body::TaskBody,
    deps::DependencyTracker,
    node::{TaskName, TaskNode},
    region::Access,
    TaskId,
};

/// The edges of a sequence of tasks, numbered from 0 in the order added, as a [`TaskRuntime`]
/// (see [`super::TaskRuntime`]) would infer them if no task finished before the last was
/// submitted.
#[derive(Default)]
pub struct DependencyRecorder {
    tracker: DependencyTracker,
}

impl DependencyRecorder {
    /// An empty sequence.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the next task, which makes `accesses`; returns the earlier tasks it must follow,
    /// each once. A task without accesses (a barrier) is still a task: it takes a number.
    pub fn add(&mut self, accesses: Vec<Access>) -> Vec<TaskId> {
        let name = TaskName { text: String::new(), label: None, keys: Vec::new() };
        let node: Arc<TaskNode> = self.tracker.new_node(name, 0, TaskBody::new(|| Ok(())));
        let mut predecessors = Vec::new();
        self.tracker.insert_listing(&node, accesses, &[], None, Some(&mut predecessors));
        predecessors
    }

    /// Tasks added so far.
    pub fn len(&self) -> usize {
        self.tracker.next_id() as usize
    }

    /// Whether no task was added.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::region::Region;

    #[test]
    fn records_every_conflict_once_after_the_trackers_reduction() {
        let mut recorder = DependencyRecorder::new();
        let (a, b) = (Region::bytes(0x1000, 0, 8), Region::bytes(0x1000, 8, 8));
        assert_eq!(recorder.add(vec![Access::write(a.clone()), Access::write(b.clone())]), vec![]);
        // Reads what task 0 wrote, twice: one edge.
        assert_eq!(recorder.add(vec![Access::read(a.clone()), Access::read(b.clone())]), vec![TaskId(0)]);
        // A barrier takes a number and follows nothing by its accesses.
        assert_eq!(recorder.add(Vec::new()), vec![]);
        // Rewrites `a`: after its writer (WAW) and its reader (WAR).
        let mut rewrite = recorder.add(vec![Access::read_write(a.clone())]);
        rewrite.sort();
        assert_eq!(rewrite, vec![TaskId(0), TaskId(1)]);
        // Reads `a` again: only the last write, which follows the rest.
        assert_eq!(recorder.add(vec![Access::read(a)]), vec![TaskId(3)]);
        // Disjoint bytes: no edge.
        assert_eq!(recorder.add(vec![Access::write(Region::bytes(0x2000, 0, 8))]), vec![]);
        assert_eq!(recorder.len(), 6);
    }
}
