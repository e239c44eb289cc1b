//! Dependency inference at submit: which earlier, unfinished tasks a new task must wait for.
//!
//! Per buffer the tracker keeps the live accesses — those of tasks not known to have finished —
//! split into readers and writers. A new access waits for
//!
//! * every overlapping live writer (RAW after a read, WAW after a write), and
//! * when it writes, every overlapping live reader too (WAR: a writer must not clobber what an
//!   earlier reader has yet to read).
//!
//! Readers do not wait for readers, so a read looks only at the writers. Each list is indexed by
//! first byte (`live.rs`), so an access examines only the live accesses whose byte range can reach
//! it. Entries of finished tasks are dropped whenever a lookup meets them (a finished
//! task needs no edge) and by a sweep whenever a list has doubled since the last one, and a write
//! removes the live accesses to exactly its region, which it now orders after: any later access
//! overlapping them overlaps the write and waits for it, so the order is kept transitively. The
//! cost of a submit therefore depends on the unfinished tasks touching nearby bytes (bounded by the
//! window), never on the number of tasks submitted so far. Pruning happens only here, under the
//! tracker's lock, so a task finishing during a lookup is at worst seen as live, and then
//! [`TaskNode::add_successor`] sees it finished and adds no edge.

use std::{
    collections::{HashMap, VecDeque},
    sync::Arc,
};

use super::{
    body::TaskBody,
    live::{LiveAccess, LiveAccesses},
    node::{TaskName, TaskNode},
    region::Access,
    TaskId,
};

/// The graph-building state of one runtime; used under one lock by `submit`.
#[derive(Default)]
pub(crate) struct DependencyTracker {
    buffers: HashMap<usize, BufferAccesses>,
    /// The last task of each stream.
    streams: HashMap<u64, Arc<TaskNode>>,
    /// Every task from the oldest one not yet seen finished on, for `after` edges by id.
    recent: VecDeque<Arc<TaskNode>>,
    /// The id of `recent[0]`; ids below it have finished.
    recent_first_id: u64,
    /// `recent` is trimmed when it reaches this length (amortised: not every submit reads the
    /// oldest task's line, which its worker has just written).
    trim_at: usize,
    /// Finished nodes nobody else holds, for new tasks.
    spare: Vec<Arc<TaskNode>>,
    next_id: u64,
    /// Dependency edges added so far (to tasks unfinished at the time).
    pub edges: usize,
}

#[derive(Default)]
struct BufferAccesses {
    readers: LiveAccesses,
    writers: LiveAccesses,
}

/// The edges one task gets; each predecessor once, however many of its accesses or `after`
/// entries lead to it.
struct Edges<'a> {
    task: &'a Arc<TaskNode>,
    added: usize,
    /// Ahead of a run (`recorder.rs`): the predecessors are listed here instead of linked.
    listed: Option<&'a mut Vec<TaskId>>,
}

impl Edges<'_> {
    fn after(&mut self, predecessor: &Arc<TaskNode>) {
        // O(1) per edge even for a barrier after thousands of tasks: the predecessor remembers
        // the last task that asked to follow it.
        if predecessor.id == self.task.id || !predecessor.mark_follower(self.task.id) {
            return;
        }
        if let Some(listed) = self.listed.as_deref_mut() {
            listed.push(TaskId(predecessor.id));
            self.added += 1;
        } else if predecessor.add_successor(self.task) {
            self.added += 1;
        }
    }
}

impl DependencyTracker {
    /// The id the next submitted task gets.
    pub fn next_id(&self) -> u64 {
        self.next_id
    }

    /// A node for the next task: a spare one when there is one.
    pub fn new_node(&mut self, name: TaskName, worker: usize, body: TaskBody) -> Arc<TaskNode> {
        let id = self.next_id;
        while let Some(mut spare) = self.spare.pop() {
            // Unique when it was put aside, but a stale reference may not be ruled out cheaply.
            if let Some(node) = Arc::get_mut(&mut spare) {
                node.reuse(id, name, worker, body);
                return spare;
            }
        }
        Arc::new(TaskNode::new(id, name, worker, body))
    }

    /// Adds `task` (whose id is [`next_id`](Self::next_id)) to the graph: edges from the live
    /// tasks its accesses conflict with, from the previous task of its stream, and from the
    /// earlier tasks `after` names. Every id in `after` must be below the task's. Returns the
    /// number of edges added: with none, nothing else will ever touch the task's pending count.
    pub fn insert(
        &mut self,
        task: &Arc<TaskNode>,
        accesses: Vec<Access>,
        after: &[TaskId],
        stream: Option<u64>,
    ) -> usize {
        self.insert_listing(task, accesses, after, stream, None)
    }

    /// As [`insert`](Self::insert); with `listed`, the predecessors are pushed there instead of
    /// linked to the task (the recorder's nodes never run).
    pub fn insert_listing(
        &mut self,
        task: &Arc<TaskNode>,
        accesses: Vec<Access>,
        after: &[TaskId],
        stream: Option<u64>,
        listed: Option<&mut Vec<TaskId>>,
    ) -> usize {
        debug_assert_eq!(task.id, self.next_id);
        let mut edges = Edges { task, added: 0, listed };
        for &TaskId(id) in after {
            if let Some(offset) = id.checked_sub(self.recent_first_id) {
                if let Some(predecessor) = self.recent.get(offset as usize) {
                    edges.after(predecessor);
                }
            }
        }
        if let Some(stream) = stream {
            if let Some(previous) = self.streams.insert(stream, Arc::clone(task)) {
                edges.after(&previous);
            }
        }
        self.add_accesses(task, accesses, |old| edges.after(old));
        self.edges += edges.added;
        self.recent.push_back(Arc::clone(task));
        if self.recent.len() >= self.trim_at {
            self.trim_recent();
        }
        self.next_id += 1;
        edges.added
    }

    /// Makes `accesses` live accesses of `task`, calling `conflict` with every live task they
    /// must follow.
    fn add_accesses(&mut self, task: &Arc<TaskNode>, accesses: Vec<Access>, mut conflict: impl FnMut(&Arc<TaskNode>)) {
        for access in accesses {
            let Some((first, last)) = access.region.byte_range() else { continue };
            let live = self.buffers.entry(access.region.buffer).or_default();
            let entry = LiveAccess::new(first, last, access.region, task);
            live.writers.for_each_overlapping(&entry, &mut conflict);
            if access.mode.writes() {
                live.readers.for_each_overlapping(&entry, &mut conflict);
                // Superseded: later accesses to this region wait for this write instead.
                live.readers.remove_region(first, &entry.region);
                live.writers.remove_region(first, &entry.region);
                live.writers.insert(entry);
            } else {
                live.readers.insert(entry);
            }
        }
    }

    /// Adds `accesses` of task `task`, submitted earlier with its edges given (`after`), to the
    /// live accesses, as if it had been submitted with them: later tasks' accesses wait for it.
    /// Call it for such tasks in submission order, before any later task with accesses. A task
    /// already finished needs no more waiting for and is skipped. `false` if `task` has not been
    /// submitted.
    pub fn track(&mut self, task: TaskId, accesses: Vec<Access>) -> bool {
        if task.0 >= self.next_id {
            return false;
        }
        let Some(node) = task.0.checked_sub(self.recent_first_id).and_then(|offset| self.recent.get(offset as usize)) else {
            return true;
        };
        if !node.is_done() {
            let node = Arc::clone(node);
            self.add_accesses(&node, accesses, |_| {});
        }
        true
    }

    /// Forgets the run once every task has finished: ids start again from 0, and the nodes are
    /// kept for the next run's tasks. Returns (tasks, edges) of the run.
    pub fn reset(&mut self) -> (usize, usize) {
        let run = (self.next_id as usize, self.edges);
        // The live accesses and streams hold nodes too: let go of them first.
        self.buffers.clear();
        self.streams.clear();
        self.trim_at = 0;
        self.trim_recent();
        self.recent.clear();
        self.recent_first_id = 0;
        self.next_id = 0;
        self.edges = 0;
        run
    }

    /// Forgets the finished tasks at the front of `recent`, keeping unshared nodes for reuse.
    fn trim_recent(&mut self) {
        const SPARE_NODES: usize = 1024;
        while self.recent.front().is_some_and(|oldest| oldest.is_done()) {
            if let Some(mut oldest) = self.recent.pop_front() {
                if self.spare.len() < SPARE_NODES && Arc::get_mut(&mut oldest).is_some() {
                    self.spare.push(oldest);
                }
            }
            self.recent_first_id += 1;
        }
        self.trim_at = (2 * self.recent.len()).max(64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::region::Region;

    fn node(tracker: &mut DependencyTracker) -> Arc<TaskNode> {
        let name = TaskName { text: String::new(), label: None, keys: Vec::new() };
        tracker.new_node(name, 0, TaskBody::new(|| Ok(())))
    }

    #[test]
    fn live_accesses_stay_bounded_by_the_unfinished_tasks() {
        let mut tracker = DependencyTracker::default();
        let weights = Region::bytes(0x1000, 0, 64);
        for n in 0..10_000i64 {
            let task = node(&mut tracker);
            let output = Region::bytes(0x2000, n * 8, 8);
            tracker.insert(&task, vec![Access::read(weights.clone()), Access::write(output)], &[], None);
            // Each task finishes before the next is submitted.
            task.finish(|_| {});
        }
        let readers = tracker.buffers[&0x1000].readers.len();
        let writers = tracker.buffers[&0x2000].writers.len();
        assert!(readers <= 128, "{readers} readers of a read-only buffer kept");
        assert!(writers <= 128, "{writers} writers of disjoint bytes kept");
        assert!(tracker.recent.len() <= 128, "{} tasks indexed", tracker.recent.len());
        assert_eq!(tracker.edges, 0);
    }

    #[test]
    fn edges_go_to_unfinished_conflicting_tasks_once_each() {
        let mut tracker = DependencyTracker::default();
        let (a, b) = (Region::bytes(0x1000, 0, 8), Region::bytes(0x1000, 8, 8));
        let writer = node(&mut tracker);
        tracker.insert(&writer, vec![Access::write(a.clone()), Access::write(b.clone())], &[], None);
        // Reads both regions the writer wrote: one edge, not two.
        let reader = node(&mut tracker);
        tracker.insert(&reader, vec![Access::read(a.clone()), Access::read(b.clone())], &[], None);
        assert_eq!(tracker.edges, 1);
        // A write of `a` waits for the writer (WAW) and the reader (WAR).
        let rewriter = node(&mut tracker);
        tracker.insert(&rewriter, vec![Access::read_write(a.clone())], &[], None);
        assert_eq!(tracker.edges, 3);
        // Once everything has finished, nothing waits.
        for task in [&writer, &reader, &rewriter] {
            task.finish(|_| {});
        }
        let late = node(&mut tracker);
        tracker.insert(&late, vec![Access::read_write(a)], &[TaskId(0), TaskId(1), TaskId(2)], Some(9));
        assert_eq!(tracker.edges, 3);
    }

    #[test]
    fn a_barrier_after_many_tasks_gets_one_edge_each() {
        let mut tracker = DependencyTracker::default();
        let region = Region::bytes(0x3000, 0, 8);
        // Unfinished writers of one region (a WAW chain).
        let tasks: Vec<Arc<TaskNode>> = (0..20_000)
            .map(|_| {
                let task = node(&mut tracker);
                tracker.insert(&task, vec![Access::write(region.clone())], &[], None);
                task
            })
            .collect();
        // Every id twice, and a read of the region the last of them wrote: one edge per task.
        let after: Vec<TaskId> = (0..20_000).chain(0..20_000).map(TaskId).collect();
        let barrier = node(&mut tracker);
        assert_eq!(tracker.insert(&barrier, vec![Access::read(region)], &after, None), 20_000);
        assert!(tasks.iter().all(|task| !task.is_done()));
    }
}
