//! A workload's schedule: how its tasks are dispatched. `wsp-apply-schedule`
//! puts it on the workload (`wsp.schedule = {dispatch = "...", ...}`); the
//! target reads it back. Placement and stream of each task come from the
//! task's own `worker`/`stream` operands (what `dispatch_by`/`stream_by`
//! compute from its keys).

use melior::{
    ir::{
        attribute::{DictionaryAttribute, IntegerAttribute, StringAttribute},
        operation::OperationLike,
        r#type::IntegerType,
        Attribute, Identifier, OperationRef,
    },
    Context,
};

/// The attribute a schedule is kept in, on the workload function.
pub const SCHEDULE_ATTRIBUTE: &str = "wsp.schedule";

/// How ready tasks reach workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// The n-th task on worker n mod workers (or its `worker`), fixed.
    RoundRobin,
    /// Each task on the worker its `worker` names (by default its first key), fixed.
    Affinity,
    /// Per-worker queues; idle workers steal.
    WorkStealing,
    /// One shared ready queue.
    Dynamic,
}

impl Dispatch {
    pub const NAMES: [&'static str; 4] = ["round_robin", "affinity", "work_stealing", "dynamic"];

    pub fn parse(name: &str) -> Option<Dispatch> {
        Some(match name {
            "round_robin" => Dispatch::RoundRobin,
            "affinity" => Dispatch::Affinity,
            "work_stealing" => Dispatch::WorkStealing,
            "dynamic" => Dispatch::Dynamic,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
}

/// A workload's schedule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    pub dispatch: Dispatch,
    /// Worker threads (0: one per core).
    pub workers: usize,
    /// Tasks issued and not finished at most (0: no bound); issue stalls
    /// at the bound.
    pub window: usize,
    /// Where each run writes its trace (Chrome trace JSON), if anywhere.
    pub trace: Option<String>,
    /// The timing policy: tasks reach the runtime in batches of this many
    /// (1: each as soon as it is issued).
    pub batch: usize,
}

impl Default for Schedule {
    fn default() -> Self {
        Schedule { dispatch: Dispatch::Dynamic, workers: 0, window: 0, trace: None, batch: 1 }
    }
}

impl Schedule {
    /// The schedule on `function` (the default when it has none).
    pub fn of(function: OperationRef) -> Result<Schedule, String> {
        let Ok(attribute) = function.attribute(SCHEDULE_ATTRIBUTE) else { return Ok(Schedule::default()) };
        let dictionary = DictionaryAttribute::try_from(attribute).map_err(|_| format!("{SCHEDULE_ATTRIBUTE} must be a dictionary"))?;
        let entry = |name: &str| (0..dictionary.len()).filter_map(|i| dictionary.element(i).ok()).find(|(key, _)| key.as_string_ref().as_str() == Ok(name)).map(|(_, value)| value);
        let text = |name: &str| entry(name).and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string());
        let number = |name: &str| entry(name).and_then(|a| IntegerAttribute::try_from(a).ok()).map(|i| i.value().max(0) as usize);
        let dispatch = match text("dispatch") {
            Some(name) => Dispatch::parse(&name).ok_or_else(|| format!("unknown dispatch policy '{name}' (known: {})", Dispatch::NAMES.join(", ")))?,
            None => Dispatch::Dynamic,
        };
        Ok(Schedule {
            dispatch,
            workers: number("workers").unwrap_or(0),
            window: number("window").unwrap_or(0),
            trace: text("trace").filter(|t| !t.is_empty()),
            batch: number("batch").unwrap_or(1).max(1),
        })
    }

    /// The schedule as the attribute `wsp-apply-schedule` attaches.
    pub fn attribute<'c>(&self, context: &'c Context) -> Attribute<'c> {
        let i64 = IntegerType::new(context, 64).into();
        let mut entries = vec![
            (Identifier::new(context, "batch"), IntegerAttribute::new(i64, self.batch as i64).into()),
            (Identifier::new(context, "dispatch"), StringAttribute::new(context, self.dispatch.name()).into()),
            (Identifier::new(context, "window"), IntegerAttribute::new(i64, self.window as i64).into()),
            (Identifier::new(context, "workers"), IntegerAttribute::new(i64, self.workers as i64).into()),
        ];
        if let Some(trace) = &self.trace {
            entries.push((Identifier::new(context, "trace"), StringAttribute::new(context, trace).into()));
        }
        DictionaryAttribute::new(context, &entries).into()
    }
}
