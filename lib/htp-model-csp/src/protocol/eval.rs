//! Runs one process instance's protocol on what is known of the program's
//! arguments (nothing but static shapes at compile time; every shape and
//! scalar at a call) and returns its channel operations in order.

use super::{Expr, Op, Protocol, Reg, Stmt};

/// What is known of the program's arguments.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    /// Per argument: its value, for an integer scalar known now.
    pub scalars: Vec<Option<i64>>,
    /// Per argument: its shape, for a tensor whose extents are known now
    /// (`None` for an extent known only at the call).
    pub dims: Vec<Vec<Option<i64>>>,
}

/// A register's value while playing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Value {
    Known(i64),
    /// Known at the call (a shape or scalar), not now.
    Later,
    /// Computed from tensor data.
    Data,
}

impl Value {
    fn join(self, other: Value) -> Value {
        match (self, other) {
            (Value::Data, _) | (_, Value::Data) => Value::Data,
            (Value::Later, _) | (_, Value::Later) => Value::Later,
            (a, _) => a,
        }
    }
}

/// One channel operation of an instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The flat channel (arrays element by element).
    pub channel: usize,
    pub op: Op,
    pub site: usize,
}

/// Why an instance's protocol cannot be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unplayable {
    /// A loop bound, condition or index is known only at the call.
    Later,
    /// Control or an index around channel operations depends on tensor
    /// data (or on a loop nothing can count): refused.
    Data { site: usize, why: String },
    /// `at=` outside its array.
    Index { site: usize, index: i64, count: usize, name: String },
    /// More operations than the check plays (the run-time detection still
    /// stops a deadlock).
    TooLong,
}

/// The most channel operations, and loop iterations, one play goes through.
pub const EVENT_BUDGET: usize = 4_000_000;
const STEP_BUDGET: usize = 50_000_000;

struct Player<'p> {
    protocol: &'p Protocol,
    inputs: &'p Inputs,
    registers: Vec<Value>,
    replica: i64,
    events: Vec<Event>,
    steps: usize,
}

/// The channel operations of replica `replica` of process `process`, in order.
pub fn play(protocol: &Protocol, inputs: &Inputs, process: usize, replica: usize) -> Result<Vec<Event>, Unplayable> {
    let mut player = Player { protocol, inputs, registers: vec![Value::Data; protocol.registers], replica: replica as i64, events: Vec::new(), steps: 0 };
    player.run(&protocol.processes[process].body)?;
    Ok(player.events)
}

impl Player<'_> {
    fn get(&self, reg: Reg) -> Value {
        self.registers.get(reg).copied().unwrap_or(Value::Data)
    }

    fn set(&mut self, reg: Reg, value: Value) {
        if let Some(slot) = self.registers.get_mut(reg) {
            *slot = value;
        }
    }

    fn expr(&self, expr: &Expr) -> Value {
        match *expr {
            Expr::Const(c) => Value::Known(c),
            Expr::Scalar(i) => match self.inputs.scalars.get(i) {
                Some(Some(v)) => Value::Known(*v),
                _ => Value::Later,
            },
            Expr::Dim(i, d) => match self.inputs.dims.get(i).and_then(|dims| dims.get(d)) {
                Some(Some(v)) => Value::Known(*v),
                _ => Value::Later,
            },
            Expr::Replica => Value::Known(self.replica),
            Expr::Data => Value::Data,
            Expr::Copy(r) => self.get(r),
            Expr::Binary(op, a, b) => match (self.get(a), self.get(b)) {
                (Value::Known(a), Value::Known(b)) => op.eval(a, b).map(Value::Known).unwrap_or(Value::Data),
                (a, b) => a.join(b),
            },
            Expr::Compare(p, a, b) => match (self.get(a), self.get(b)) {
                (Value::Known(a), Value::Known(b)) => Value::Known(p.eval(a, b) as i64),
                (a, b) => a.join(b),
            },
            Expr::Select(c, a, b) => match self.get(c) {
                Value::Known(c) => self.get(if c != 0 { a } else { b }),
                unknown => unknown.join(self.get(a)).join(self.get(b)),
            },
        }
    }

    fn unknown(&self, value: Value, site: usize, what: &str) -> Unplayable {
        match value {
            Value::Later => Unplayable::Later,
            _ => Unplayable::Data { site, why: format!("{what} depends on values known only as the program runs (tensor data, floats)") },
        }
    }

    fn run(&mut self, body: &[Stmt]) -> Result<(), Unplayable> {
        for stmt in body {
            self.steps += 1;
            if self.steps > STEP_BUDGET || self.events.len() > EVENT_BUDGET {
                return Err(Unplayable::TooLong);
            }
            match stmt {
                Stmt::Let(reg, expr) => {
                    let value = self.expr(expr);
                    self.set(*reg, value);
                }
                Stmt::Event { channel, index, op, site } => {
                    let declared = &self.protocol.channels[*channel];
                    let at = match index {
                        None => 0,
                        Some(reg) => match self.get(*reg) {
                            Value::Known(i) => i,
                            unknown => return Err(self.unknown(unknown, *site, "the channel's index (at=)")),
                        },
                    };
                    if at < 0 || at as usize >= declared.count {
                        return Err(Unplayable::Index { site: *site, index: at, count: declared.count, name: declared.name.clone() });
                    }
                    self.events.push(Event { channel: self.protocol.base(*channel) + at as usize, op: *op, site: *site });
                }
                Stmt::Opaque { site, why } => return Err(Unplayable::Data { site: *site, why: why.clone() }),
                Stmt::For { iv, lower, upper, step, carried, yields, results, body, site } => self.run_for(*iv, [*lower, *upper, *step], carried, yields, results, body, *site)?,
                Stmt::If { condition, then, then_yields, otherwise, else_yields, results, site } => {
                    self.run_if(*condition, (then, then_yields), (otherwise, else_yields), results, *site)?
                }
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn run_for(&mut self, iv: Reg, bounds: [Reg; 3], carried: &[(Reg, Reg)], yields: &[Reg], results: &[Reg], body: &[Stmt], site: usize) -> Result<(), Unplayable> {
        let events = body.iter().any(Stmt::has_events);
        let [lower, upper, step] = bounds.map(|r| self.get(r));
        let (Value::Known(lower), Value::Known(upper), Value::Known(step)) = (lower, upper, step) else {
            let unknown = lower.join(upper).join(step);
            if events {
                return Err(self.unknown(unknown, site, "the trip count of a loop around channel operations"));
            }
            for &result in results {
                self.set(result, unknown);
            }
            return Ok(());
        };
        if !events && carried.is_empty() {
            return Ok(());
        }
        for &(argument, initial) in carried {
            let value = self.get(initial);
            self.set(argument, value);
        }
        if step > 0 {
            let mut i = lower;
            while i < upper {
                self.set(iv, Value::Known(i));
                self.run(body)?;
                let next: Vec<Value> = yields.iter().map(|&y| self.get(y)).collect();
                for (&(argument, _), value) in carried.iter().zip(next) {
                    self.set(argument, value);
                }
                i = i.saturating_add(step);
            }
        }
        for (&(argument, _), &result) in carried.iter().zip(results) {
            let value = self.get(argument);
            self.set(result, value);
        }
        Ok(())
    }

    fn run_if(&mut self, condition: Reg, then: (&[Stmt], &[Reg]), otherwise: (&[Stmt], &[Reg]), results: &[Reg], site: usize) -> Result<(), Unplayable> {
        let taken = match self.get(condition) {
            Value::Known(c) => Some(if c != 0 { then } else { otherwise }),
            _ => None,
        };
        if let Some((body, yields)) = taken {
            self.run(body)?;
            let values: Vec<Value> = yields.iter().map(|&y| self.get(y)).collect();
            for (&result, value) in results.iter().zip(values) {
                self.set(result, value);
            }
            return Ok(());
        }
        // Unknown condition: both branches must talk the same way.
        let unknown = self.get(condition);
        let start = self.events.len();
        self.run(then.0)?;
        let then_events = self.events.split_off(start);
        self.run(otherwise.0)?;
        let else_events = self.events.split_off(start);
        let same = then_events.len() == else_events.len() && then_events.iter().zip(&else_events).all(|(a, b)| a.channel == b.channel && a.op == b.op);
        if !same {
            return Err(self.unknown(unknown, site, "which channel operations run (the branches of this if differ)"));
        }
        self.events.extend(then_events);
        for &result in results {
            self.set(result, unknown.join(Value::Later));
        }
        Ok(())
    }
}
