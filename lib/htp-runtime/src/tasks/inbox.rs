//! A lock-free multi-producer inbox of ready tasks: pushing is one compare-and-swap, taking
//! removes everything at once.
//!
//! The submitting thread readies most tasks; with a lock on its path, a worker holding that lock
//! while descheduled (2 cores, a submitter and 2 workers) blocks the submitter in the kernel. The
//! inbox is a Treiber stack linked through the tasks themselves (`TaskNode::next_ready`): a task
//! is in at most one inbox, once, between becoming ready and being taken. Taking swaps the head
//! for null, so there is no single-element pop and no ABA problem: a node cannot be taken and
//! pushed again while a pusher still holds its old head.

use std::{
    collections::VecDeque,
    ptr,
    sync::{
        atomic::{AtomicPtr, Ordering},
        Arc,
    },
};

use super::node::TaskNode;

pub(crate) struct Inbox {
    /// The newest task; each links to the one pushed before it. Owns one `Arc` count per task.
    head: AtomicPtr<TaskNode>,
}

impl Default for Inbox {
    fn default() -> Self {
        Self { head: AtomicPtr::new(ptr::null_mut()) }
    }
}

impl Inbox {
    /// Adds `task`. `SeqCst`: a pusher then looking for sleeping workers, and a worker that
    /// announced it sleeps then looking here, cannot both miss each other.
    pub fn push(&self, task: Arc<TaskNode>) {
        let node = Arc::into_raw(task).cast_mut();
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: `node` came from `Arc::into_raw` and stays alive: the inbox owns its count.
            unsafe { (*node).next_ready.store(head, Ordering::Relaxed) };
            match self.head.compare_exchange_weak(head, node, Ordering::SeqCst, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// Adds `tasks` in order with one compare-and-swap (as many `push`es would, oldest first).
    pub fn push_all(&self, tasks: impl IntoIterator<Item = Arc<TaskNode>>) {
        let mut tasks = tasks.into_iter();
        let Some(first) = tasks.next() else { return };
        let first = Arc::into_raw(first).cast_mut();
        // Linked newest first, as pushes one by one would leave them.
        let mut newest = first;
        for task in tasks {
            let node = Arc::into_raw(task).cast_mut();
            // SAFETY: both came from `Arc::into_raw`; the inbox owns their counts.
            unsafe { (*node).next_ready.store(newest, Ordering::Relaxed) };
            newest = node;
        }
        let mut head = self.head.load(Ordering::Relaxed);
        loop {
            // SAFETY: as above.
            unsafe { (*first).next_ready.store(head, Ordering::Relaxed) };
            match self.head.compare_exchange_weak(head, newest, Ordering::SeqCst, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => head = now,
            }
        }
    }

    /// Whether the inbox looks empty (a hint: a push may land right after).
    pub fn is_empty(&self) -> bool {
        self.head.load(Ordering::SeqCst).is_null()
    }

    /// Moves every task to the back of `into`, oldest first; whether there was any.
    pub fn take_all(&self, into: &mut VecDeque<Arc<TaskNode>>) -> bool {
        if self.is_empty() {
            return false;
        }
        let mut node = self.head.swap(ptr::null_mut(), Ordering::SeqCst);
        let first = into.len();
        while !node.is_null() {
            // SAFETY: every node in the list came from `Arc::into_raw` in `push` and its count is
            // the list's; the swap made this thread the list's only owner.
            let task = unsafe { Arc::from_raw(node) };
            node = task.next_ready.load(Ordering::Relaxed);
            into.push_back(task);
        }
        // The stack is newest first; queues are oldest first.
        into.make_contiguous()[first..].reverse();
        into.len() > first
    }
}

impl Drop for Inbox {
    fn drop(&mut self) {
        // Tasks left only by a runtime torn down mid-run: release their counts.
        let mut leftover = VecDeque::new();
        self.take_all(&mut leftover);
    }
}
