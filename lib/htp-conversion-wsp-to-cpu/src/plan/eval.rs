//! Runs a [`Plan`] at call time: evaluates the workload's control code on
//! the call's arguments and hands each task, with its views, guards and
//! ordering, to an [`Issuer`] (the task runtime on the CPU). Sequential
//! loops order their iterations through barriers; `wsp.when` and
//! `wsp.select` guard tasks on elements read when the tasks run.

use htp_api::{Dims, RunError, RunErrorKind};

use super::{Binary, Block, Compare, Element, Function, LoopKind, Num, Plan, Slot, Step};

/// A block of a workload tensor: which parameter, where it starts (in
/// elements), its extents and strides (in elements).
#[derive(Clone, Debug, PartialEq)]
pub struct View {
    pub parameter: usize,
    pub offset: i64,
    pub sizes: Dims,
    pub strides: Dims,
}

/// One element of a tensor, read when a guarded task runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementRef {
    pub view: View,
    pub element: Element,
}

#[derive(Clone, Debug)]
enum Axis {
    Dense(i64),
    Ragged { size: i64, lengths: View, element: Element },
    Sparse { rows: i64, indptr: View, indices: View, indptr_element: Element, indices_element: Element },
}

/// A run-time value of the workload.
#[derive(Clone, Debug)]
pub enum Value {
    Int(i64),
    Float(f64),
    View(View),
    Element(ElementRef),
    Unset,
    /// Boxed: an axis (up to two views) is made once per loop, while every other value is
    /// moved on every step; it would make them all its size.
    #[allow(private_interfaces)]
    Axis(Box<Axis>),
}

/// A condition a task's run checks first: `element predicate bound`.
#[derive(Clone, Debug)]
pub struct Guard {
    pub element: ElementRef,
    pub predicate: Compare,
    pub bound: f64,
}

impl Guard {
    /// Whether it holds, reading the element from `memory` now.
    pub fn holds(&self, memory: &Memory) -> bool {
        let value = memory.read(&self.element.view, self.element.element);
        compare(self.predicate, value, self.bound)
    }
}

/// A task as the workload issues it.
#[derive(Clone, Debug)]
pub struct Issued {
    pub site: usize,
    pub keys: Vec<i64>,
    pub arguments: Vec<Value>,
    pub guards: Vec<Guard>,
    pub stream: Option<i64>,
    pub worker: Option<i64>,
    /// Tasks (issuer handles) it must follow: the previous iteration of
    /// each enclosing sequential loop.
    pub after: Vec<usize>,
}

/// Where issued tasks go. Handles are the issuer's task numbers.
pub trait Issuer {
    fn task(&mut self, plan: &Plan, task: Issued) -> Result<usize, RunError>;
    /// A task that does nothing, after `after`: what a sequential loop's
    /// next iteration waits for.
    fn barrier(&mut self, after: Vec<usize>) -> Result<usize, RunError>;
}

/// The call's tensors: base addresses, extents and strides, in elements.
pub struct Memory {
    pub buffers: Vec<Option<Buffer>>,
}

#[derive(Clone, Debug)]
pub struct Buffer {
    pub data: *mut u8,
    pub sizes: Dims,
    pub strides: Dims,
    pub element: Element,
}

// The buffers are the caller's numpy arrays, alive for the whole call;
// reads happen in tasks ordered after the writes (guards depend on them).
unsafe impl Send for Memory {}
unsafe impl Sync for Memory {}

impl Memory {
    /// The element at the start of `view`, as f64 (integers exactly up to 2^53).
    pub fn read(&self, view: &View, element: Element) -> f64 {
        let Some(Some(buffer)) = self.buffers.get(view.parameter) else { return 0.0 };
        let address = unsafe { buffer.data.offset((view.offset * element.bytes) as isize) };
        unsafe {
            match (element.num, element.bytes) {
                (Num::Int(1), _) | (Num::Int(8), _) => *(address as *const i8) as f64,
                (Num::Int(16), _) => (address as *const i16).read_unaligned() as f64,
                (Num::Int(32), _) => (address as *const i32).read_unaligned() as f64,
                (Num::Int(_), _) => (address as *const i64).read_unaligned() as f64,
                (Num::Float(32), _) => (address as *const f32).read_unaligned() as f64,
                (Num::Float(64), _) => (address as *const f64).read_unaligned(),
                (Num::Float(_), _) => f64::NAN,
            }
        }
    }

    fn read_int(&self, view: &View, element: Element) -> i64 {
        let Some(Some(buffer)) = self.buffers.get(view.parameter) else { return 0 };
        let address = unsafe { buffer.data.offset((view.offset * element.bytes) as isize) };
        unsafe {
            match element.num {
                Num::Int(1) | Num::Int(8) => *(address as *const i8) as i64,
                Num::Int(16) => (address as *const i16).read_unaligned() as i64,
                Num::Int(32) => (address as *const i32).read_unaligned() as i64,
                _ => (address as *const i64).read_unaligned(),
            }
        }
    }

    /// The whole tensor of parameter `parameter` as a view.
    fn whole(&self, parameter: usize) -> Option<View> {
        let buffer = self.buffers.get(parameter)?.as_ref()?;
        Some(View { parameter, offset: 0, sizes: buffer.sizes.clone(), strides: buffer.strides.clone() })
    }
}

fn compare(op: Compare, a: f64, b: f64) -> bool {
    match op {
        Compare::Eq => a == b,
        Compare::Ne => a != b,
        Compare::Slt | Compare::Ult => a < b,
        Compare::Sle | Compare::Ule => a <= b,
        Compare::Sgt | Compare::Ugt => a > b,
        Compare::Sge | Compare::Uge => a >= b,
    }
}

/// Wraps `value` to a signless integer of `width` bits (sign-extended).
fn wrap(value: i64, width: u32) -> i64 {
    if width >= 64 || width == 0 {
        value
    } else {
        let shift = 64 - width;
        (value << shift) >> shift
    }
}

fn round(value: f64, width: u32) -> f64 {
    if width == 32 {
        value as f32 as f64
    } else {
        value
    }
}

fn invalid(message: String) -> RunError {
    RunError::new(RunErrorKind::InvalidValue, message)
}

fn out_of_bounds(at: &str, message: String) -> RunError {
    RunError::new(RunErrorKind::OutOfBounds, format!("{at}: error: {message}"))
}

/// Evaluates `plan` on `memory` and `scalars` (per workload parameter),
/// issuing its tasks.
pub fn run(plan: &Plan, memory: &Memory, scalars: &[Value], cores: usize, issuer: &mut dyn Issuer) -> Result<(), RunError> {
    let mut evaluator = Evaluator { plan, memory, issuer, guards: Vec::new(), sequential: Vec::new(), depth: 0, cores };
    let mut frame = vec![Value::Unset; plan.workload.slots];
    for (index, slot) in plan.workload.parameters.iter().enumerate() {
        frame[*slot] = match memory.whole(index) {
            Some(view) => Value::View(view),
            None => scalars.get(index).cloned().unwrap_or(Value::Unset),
        };
    }
    evaluator.block(&plan.workload.body, &mut frame)?;
    Ok(())
}

/// The ordering state of one enclosing sequential loop.
struct SequentialOrder {
    /// The barrier (or single task) the current iteration follows.
    previous: Option<usize>,
    /// The tasks issued in the current iteration.
    current: Vec<usize>,
}

struct Evaluator<'p, 'i> {
    plan: &'p Plan,
    memory: &'p Memory,
    issuer: &'i mut dyn Issuer,
    guards: Vec<Guard>,
    sequential: Vec<SequentialOrder>,
    depth: usize,
    /// What `wsp.cores` is.
    cores: usize,
}

const MAX_CALL_DEPTH: usize = 256;

impl Evaluator<'_, '_> {
    fn int(&self, frame: &[Value], slot: Slot) -> i64 {
        match frame[slot] {
            Value::Int(v) => v,
            Value::Float(f) => f as i64,
            _ => 0,
        }
    }

    fn float(&self, frame: &[Value], slot: Slot) -> f64 {
        match frame[slot] {
            Value::Int(v) => v as f64,
            Value::Float(f) => f,
            _ => 0.0,
        }
    }

    /// The caller's name of the tensor `view` is part of.
    fn name_of(&self, view: &View) -> String {
        if let Some(channel) = view.parameter.checked_sub(self.plan.parameters.len()).and_then(|i| self.plan.channels.get(i)) {
            return format!("the channel '{}'", channel.name);
        }
        match self.plan.names.get(view.parameter) {
            Some(name) if !name.is_empty() => format!("'{name}'"),
            _ => format!("the workload's parameter #{}", view.parameter),
        }
    }

    /// A ragged axis's lengths: one per row, none negative. (A length past
    /// the end of the tensor a task views is caught at that view.)
    fn check_lengths(&self, lengths: &View, size: i64, element: Element, at: &str) -> Result<(), RunError> {
        let name = self.name_of(lengths);
        for i in 0..size {
            let Some(length) = linear(lengths, i) else {
                let held: i64 = lengths.sizes.iter().product();
                return Err(out_of_bounds(at, format!("the ragged axis has {size} rows, but its lengths {name} hold {held}: no length for row {i}")));
            };
            let value = self.memory.read_int(&length, element);
            if value < 0 {
                return Err(out_of_bounds(at, format!("the ragged axis's lengths {name} hold {value} at index {i}: a length is never negative")));
            }
        }
        Ok(())
    }

    /// A CSR axis's arrays: `rows + 1` offsets, starting at zero or more,
    /// never decreasing, ending within the indices; no negative index.
    fn check_csr(&self, indptr: &View, indices: &View, rows: i64, indptr_element: Element, indices_element: Element, at: &str) -> Result<(), RunError> {
        let (pointers, columns) = (self.name_of(indptr), self.name_of(indices));
        let count = indices.sizes.iter().product::<i64>();
        let mut previous = 0;
        for i in 0..=rows {
            let Some(entry) = linear(indptr, i) else {
                return Err(out_of_bounds(at, format!("the sparse axis has {rows} rows, so its indptr {pointers} needs {} entries: no entry {i}", rows + 1)));
            };
            let value = self.memory.read_int(&entry, indptr_element);
            if value < previous || value > count {
                let why = if value < previous { format!("less than the entry before it ({previous})") } else { format!("past the end of the indices {columns} ({count} entries)") };
                return Err(out_of_bounds(at, format!("the sparse axis's indptr {pointers} holds {value} at index {i}: {why}")));
            }
            previous = value;
        }
        let first = linear(indptr, 0).map(|v| self.memory.read_int(&v, indptr_element)).unwrap_or(0);
        for k in first..previous {
            if let Some(column) = linear(indices, k) {
                let value = self.memory.read_int(&column, indices_element);
                if value < 0 {
                    return Err(out_of_bounds(at, format!("the sparse axis's indices {columns} hold {value} at index {k}: an index is never negative")));
                }
            }
        }
        Ok(())
    }

    /// The view in `slot`, borrowed (a task's views are cloned once, when it is issued).
    fn view<'f>(&self, frame: &'f [Value], slot: Slot) -> Result<&'f View, RunError> {
        match &frame[slot] {
            Value::View(view) => Ok(view),
            other => Err(RunError::from(format!("internal error: expected a tensor, got {other:?}"))),
        }
    }

    /// The element of `view` at `indices` (one per dimension), checked.
    fn element_view(&self, view: &View, indices: &[i64], at: &str) -> Result<View, RunError> {
        let mut offset = view.offset;
        for (d, (&i, (&size, &stride))) in indices.iter().zip(view.sizes.iter().zip(&view.strides)).enumerate() {
            if i < 0 || i >= size {
                // Counted in the caller's dimensions: a 1-D tensor is read as
                // 1xN, its added unit dimension (stride 0) not the user's.
                let added = view.sizes.iter().zip(&view.strides).take(d).filter(|(n, t)| **n == 1 && **t == 0).count();
                return Err(out_of_bounds(at, format!("index {i} is outside dimension {} of {} (size {size})", d - added, self.name_of(view))));
            }
            offset += i * stride;
        }
        Ok(View { parameter: view.parameter, offset, sizes: Dims::default(), strides: Dims::default() })
    }

    fn block(&mut self, block: &Block, frame: &mut Vec<Value>) -> Result<Vec<Value>, RunError> {
        for step in &block.steps {
            self.step(step, frame)?;
        }
        Ok(block.yields.iter().map(|s| frame[*s].clone()).collect())
    }

    fn step(&mut self, step: &Step, frame: &mut Vec<Value>) -> Result<(), RunError> {
        if htp_runtime::interrupt::requested() {
            return Err(RunError::new(RunErrorKind::Interrupted, "interrupted"));
        }
        match step {
            Step::Int { dst, value } => frame[*dst] = Value::Int(*value),
            Step::Float { dst, value } => frame[*dst] = Value::Float(*value),
            Step::Binary { dst, op, a, b, num } => frame[*dst] = self.binary(*op, frame, *a, *b, *num)?,
            Step::Compare { dst, op, a, b, float } => {
                let holds = if *float {
                    compare(*op, self.float(frame, *a), self.float(frame, *b))
                } else {
                    op.eval(self.int(frame, *a), self.int(frame, *b))
                };
                frame[*dst] = Value::Int(holds as i64);
            }
            Step::Select { dst, condition, a, b } => frame[*dst] = if self.int(frame, *condition) & 1 != 0 { frame[*a].clone() } else { frame[*b].clone() },
            Step::Convert { dst, a, from, to, unsigned } => {
                frame[*dst] = match (from, to) {
                    (Num::Int(w), Num::Int(to_width)) => {
                        let v = self.int(frame, *a);
                        let v = if *unsigned && *w < 64 { v & ((1i64 << w) - 1) } else { v };
                        Value::Int(wrap(v, *to_width))
                    }
                    (Num::Int(w), Num::Float(to_width)) => {
                        let v = self.int(frame, *a);
                        let v = if *unsigned && *w < 64 { (v & ((1i64 << w) - 1)) as f64 } else { v as f64 };
                        Value::Float(round(v, *to_width))
                    }
                    (Num::Float(_), Num::Int(to_width)) => Value::Int(wrap(self.float(frame, *a) as i64, *to_width)),
                    (Num::Float(_), Num::Float(to_width)) => Value::Float(round(self.float(frame, *a), *to_width)),
                }
            }
            Step::Load { dst, tensor, indices, element, at } => {
                let view = self.view(frame, *tensor)?;
                let indices: Vec<i64> = indices.iter().map(|i| self.int(frame, *i)).collect();
                let element_view = self.element_view(view, &indices, at)?;
                frame[*dst] = match element.num {
                    Num::Int(w) => Value::Int(wrap(self.memory.read_int(&element_view, *element), w)),
                    Num::Float(_) => Value::Float(self.memory.read(&element_view, *element)),
                };
            }
            Step::Expand { dst, tensor, sources } => {
                let whole = self.view(frame, *tensor)?;
                let sizes = sources.iter().map(|s| s.map_or(1, |d| whole.sizes[d])).collect();
                let strides = sources.iter().map(|s| s.map_or(0, |d| whole.strides[d])).collect();
                frame[*dst] = Value::View(View { parameter: whole.parameter, offset: whole.offset, sizes, strides });
            }
            Step::Dim { dst, tensor, dim } => {
                let view = self.view(frame, *tensor)?;
                let dim = self.int(frame, *dim);
                frame[*dst] = Value::Int(view.sizes.get(dim as usize).copied().unwrap_or(0));
            }
            Step::View { dst, tensor, offsets, sizes, at } => {
                let whole = self.view(frame, *tensor)?;
                let mut sizes: Dims = sizes.iter().map(|s| self.int(frame, *s)).collect();
                let dropped = whole.sizes.len() - sizes.len();
                let mut offset = whole.offset;
                let offsets = offsets.iter().map(|o| self.int(frame, *o));
                for (d, (o, (&extent, &stride))) in offsets.zip(whole.sizes.iter().zip(&whole.strides)).enumerate() {
                    let size = if d < dropped { 1 } else { sizes[d - dropped] };
                    // A block that starts past the end is an error (a
                    // ragged length or an index past the tensor, never
                    // silently nothing); one that starts at the end or
                    // ends before it starts is empty, as a Python slice.
                    if o > extent || o < 0 {
                        return Err(out_of_bounds(
                            at,
                            format!("a task's view starts at {o} in dimension {d} of {}, which has {extent}: outside it", self.name_of(whole)),
                        ));
                    }
                    if d >= dropped && size <= 0 {
                        sizes[d - dropped] = 0;
                        continue;
                    }
                    if o + size > extent {
                        return Err(out_of_bounds(
                            at,
                            format!("a task's view starts at {o} with {size} elements in dimension {d} of {}, which has {extent}: outside it", self.name_of(whole)),
                        ));
                    }
                    offset += o * stride;
                }
                let view = View { parameter: whole.parameter, offset, sizes, strides: Dims::from_slice(&whole.strides[dropped..]) };
                frame[*dst] = Value::View(view);
            }
            Step::Cores { dst } => frame[*dst] = Value::Int(self.cores as i64),
            Step::Channel { dst, index } => {
                let ring = self.memory.whole(self.plan.parameters.len() + index).ok_or_else(|| RunError::from("internal error: a channel's ring was not allocated".to_string()))?;
                frame[*dst] = Value::View(ring);
            }
            Step::Dense { dst, size } => frame[*dst] = Value::Axis(Box::new(Axis::Dense(self.int(frame, *size).max(0)))),
            Step::Ragged { dst, size, lengths, element, at } => {
                let lengths = self.view(frame, *lengths)?.clone();
                let size = self.int(frame, *size).max(0);
                self.check_lengths(&lengths, size, *element, at)?;
                frame[*dst] = Value::Axis(Box::new(Axis::Ragged { size, lengths, element: *element }));
            }
            Step::Sparse { dst, rows, indptr, indices, indptr_element, indices_element, at } => {
                let (indptr, indices) = (self.view(frame, *indptr)?.clone(), self.view(frame, *indices)?.clone());
                let rows = self.int(frame, *rows).max(0);
                self.check_csr(&indptr, &indices, rows, *indptr_element, *indices_element, at)?;
                frame[*dst] = Value::Axis(Box::new(Axis::Sparse {
                    rows,
                    indptr,
                    indices,
                    indptr_element: *indptr_element,
                    indices_element: *indices_element,
                }));
            }
            Step::Element { dst, tensor, indices, element, at } => {
                let view = self.view(frame, *tensor)?;
                let indices: Vec<i64> = indices.iter().map(|i| self.int(frame, *i)).collect();
                frame[*dst] = Value::Element(ElementRef { view: self.element_view(view, &indices, at)?, element: *element });
            }
            Step::For { lower, upper, step, iv, carried, body, results } => {
                let (lower, upper, step_by) = (self.int(frame, *lower), self.int(frame, *upper), self.int(frame, *step));
                if step_by <= 0 {
                    return Err(invalid(format!("a loop step must be positive, got {step_by}")));
                }
                for (init, argument) in carried {
                    frame[*argument] = frame[*init].clone();
                }
                let mut i = lower;
                while i < upper {
                    frame[*iv] = Value::Int(i);
                    let yielded = self.block(body, frame)?;
                    for ((_, argument), value) in carried.iter().zip(yielded) {
                        frame[*argument] = value;
                    }
                    i = i.saturating_add(step_by);
                }
                for ((_, argument), result) in carried.iter().zip(results) {
                    frame[*result] = frame[*argument].clone();
                }
            }
            Step::If { condition, then, otherwise, results } => {
                let branch = if self.int(frame, *condition) & 1 != 0 { then } else { otherwise };
                let yielded = self.block(branch, frame)?;
                for (result, value) in results.iter().zip(yielded) {
                    frame[*result] = value;
                }
            }
            Step::Loop { kind, operands, indices, body, .. } => self.wsp_loop(*kind, operands, indices, body, frame)?,
            Step::When { element, predicate, bound, body } => {
                let Value::Element(element) = frame[*element].clone() else {
                    return Err(RunError::from("internal error: wsp.when without an element".to_string()));
                };
                let bound = self.float(frame, *bound);
                self.guards.push(Guard { element, predicate: *predicate, bound });
                let outcome = self.block(body, frame);
                self.guards.pop();
                outcome?;
            }
            Step::Task { site } => self.task(*site, frame)?,
            Step::Call { function, arguments, results } => {
                let callee: &Function = &self.plan.helpers[*function];
                if self.depth >= MAX_CALL_DEPTH {
                    return Err(invalid(format!("helper calls nested deeper than {MAX_CALL_DEPTH} (recursion in '{}')", callee.name)));
                }
                let mut inner = vec![Value::Unset; callee.slots];
                for (parameter, argument) in callee.parameters.iter().zip(arguments) {
                    inner[*parameter] = frame[*argument].clone();
                }
                self.depth += 1;
                let returned = self.block(&callee.body, &mut inner);
                self.depth -= 1;
                for (result, value) in results.iter().zip(returned?) {
                    frame[*result] = value;
                }
            }
        }
        Ok(())
    }

    fn float_binary(op: Binary, x: f64, y: f64) -> Result<f64, RunError> {
        Ok(match op {
            Binary::AddF => x + y,
            Binary::SubF => x - y,
            Binary::MulF => x * y,
            Binary::DivF => x / y,
            Binary::MinF => x.min(y),
            Binary::MaxF => x.max(y),
            _ => return Err(RunError::from(format!("internal error: {op:?} on floats"))),
        })
    }

    fn binary(&self, op: Binary, frame: &[Value], a: Slot, b: Slot, num: Num) -> Result<Value, RunError> {
        let width = match num {
            Num::Int(width) => width,
            Num::Float(width) => return Ok(Value::Float(round(Self::float_binary(op, self.float(frame, a), self.float(frame, b))?, width))),
        };
        let (x, y) = (self.int(frame, a), self.int(frame, b));
        let Binary::Int(op) = op else { return Err(RunError::from(format!("internal error: {op:?} on integers"))) };
        let v = op.eval(x, y).ok_or_else(|| RunError::new(RunErrorKind::DivisionByZero, "integer division by zero in a workload"))?;
        Ok(Value::Int(wrap(v, width)))
    }

    /// The index tuples of one axis, in order.
    fn points(&self, axis: &Axis) -> Vec<[i64; 2]> {
        match axis {
            Axis::Dense(n) => (0..*n).map(|i| [i, 0]).collect(),
            Axis::Ragged { size, lengths, element } => {
                let mut points = Vec::new();
                for i in 0..*size {
                    let at = linear(lengths, i);
                    let length = at.map(|v| self.memory.read_int(&v, *element)).unwrap_or(0).max(0);
                    points.extend((0..length).map(|j| [i, j]));
                }
                points
            }
            Axis::Sparse { rows, indptr, indices, indptr_element, indices_element } => {
                let mut points = Vec::new();
                for row in 0..*rows {
                    let start = linear(indptr, row).map(|v| self.memory.read_int(&v, *indptr_element)).unwrap_or(0);
                    let end = linear(indptr, row + 1).map(|v| self.memory.read_int(&v, *indptr_element)).unwrap_or(start);
                    for k in start.max(0)..end {
                        if let Some(column) = linear(indices, k) {
                            points.push([row, self.memory.read_int(&column, *indices_element)]);
                        }
                    }
                }
                points
            }
        }
    }

    fn wsp_loop(&mut self, kind: LoopKind, operands: &[Slot], indices: &[Slot], body: &Block, frame: &mut Vec<Value>) -> Result<(), RunError> {
        if kind == LoopKind::Select {
            let size = self.int(frame, operands[0]).max(0);
            let predicate = self.view(frame, operands[1])?.clone();
            let element = self.plan.parameters.get(predicate.parameter).copied().flatten().ok_or_else(|| RunError::from("internal error: predicate".to_string()))?;
            for i in 0..size {
                let Some(at) = linear(&predicate, i) else {
                    return Err(out_of_bounds("wsp.select", format!("the predicate tensor has fewer than {size} elements")));
                };
                frame[indices[0]] = Value::Int(i);
                self.guards.push(Guard { element: ElementRef { view: at, element }, predicate: Compare::Ne, bound: 0.0 });
                let outcome = self.block(body, frame);
                self.guards.pop();
                outcome?;
            }
            return Ok(());
        }
        // The product of the axes, first axis slowest.
        let mut axes = Vec::new();
        for operand in operands {
            match &frame[*operand] {
                Value::Axis(axis) => axes.push((**axis).clone()),
                other => return Err(RunError::from(format!("internal error: expected an axis, got {other:?}"))),
            }
        }
        let per_axis: Vec<Vec<[i64; 2]>> = axes.iter().map(|a| self.points(a)).collect();
        let widths: Vec<usize> = axes.iter().map(|a| if matches!(a, Axis::Dense(_)) { 1 } else { 2 }).collect();
        if per_axis.iter().any(|p| p.is_empty()) {
            return Ok(());
        }
        if kind == LoopKind::Sequential {
            self.sequential.push(SequentialOrder { previous: None, current: Vec::new() });
        }
        let mut position = vec![0usize; per_axis.len()];
        let outcome = (|| loop {
            let mut slot = 0;
            for (axis, &p) in position.iter().enumerate() {
                for k in 0..widths[axis] {
                    frame[indices[slot]] = Value::Int(per_axis[axis][p][k]);
                    slot += 1;
                }
            }
            self.block(body, frame)?;
            if kind == LoopKind::Sequential {
                self.end_iteration()?;
            }
            // Odometer over the axes, last fastest.
            let mut d = position.len();
            loop {
                if d == 0 {
                    return Ok(());
                }
                d -= 1;
                position[d] += 1;
                if position[d] < per_axis[d].len() {
                    break;
                }
                position[d] = 0;
            }
        })();
        if kind == LoopKind::Sequential {
            self.sequential.pop();
        }
        outcome
    }

    /// A sequential loop's iteration ended: the next one follows its tasks.
    fn end_iteration(&mut self) -> Result<(), RunError> {
        let Some(order) = self.sequential.last_mut() else { return Ok(()) };
        let current = std::mem::take(&mut order.current);
        let barrier = match current.len() {
            0 => return Ok(()),
            1 => current[0],
            _ => self.issuer.barrier(current)?,
        };
        let order = self.sequential.last_mut().expect("pushed by the loop");
        order.previous = Some(barrier);
        // The barrier is part of every enclosing sequential iteration too.
        let depth = self.sequential.len();
        for outer in self.sequential[..depth - 1].iter_mut() {
            outer.current.push(barrier);
        }
        Ok(())
    }

    fn task(&mut self, site: usize, frame: &[Value]) -> Result<(), RunError> {
        let task = &self.plan.tasks[site];
        let issued = Issued {
            site,
            keys: task.keys.iter().map(|k| self.int(frame, *k)).collect(),
            arguments: task.arguments.iter().map(|a| frame[*a].clone()).collect(),
            guards: self.guards.clone(),
            stream: task.stream.map(|s| self.int(frame, s)),
            worker: task.worker.map(|w| self.int(frame, w)),
            after: self.sequential.iter().filter_map(|o| o.previous).collect(),
        };
        let handle = self.issuer.task(self.plan, issued)?;
        if let Some(innermost) = self.sequential.last_mut() {
            innermost.current.push(handle);
        }
        Ok(())
    }
}

/// Element `i` of a 1-D tensor or of a 1xN / Nx1 one.
fn linear(view: &View, i: i64) -> Option<View> {
    let (size, stride) = match &view.sizes[..] {
        [n] => (*n, view.strides[0]),
        [1, n] => (*n, view.strides[1]),
        [n, 1] => (*n, view.strides[0]),
        _ => return None,
    };
    (i >= 0 && i < size).then(|| View { parameter: view.parameter, offset: view.offset + i * stride, sizes: Dims::default(), strides: Dims::default() })
}
