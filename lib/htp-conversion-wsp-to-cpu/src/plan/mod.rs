//! A workload as the CPU runs it: the `wsp` function's control code
//! (loops, branches, index arithmetic, reads of input tensors, calls of
//! scalar helpers) taken out of MLIR into a small register program
//! (`extract.rs`) that `eval.rs` runs at call time, issuing each task to
//! the task runtime as it is reached — the role the AICPU orchestration
//! plays on PTO.

pub mod eval;
pub mod extract;

/// A register of a [`Function`]'s frame (one per MLIR value).
pub type Slot = usize;

/// A number's representation, for wrapping and rounding like MLIR's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Num {
    /// A signless integer of this width (`index` is 64).
    Int(u32),
    /// A float of this width (16 and 64 are kept in f64, 32 rounded to f32).
    Float(u32),
}

/// The element type of a tensor, for reading it and for its byte size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    pub num: Num,
    pub bytes: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `arith`'s integer ops, with its semantics (`htp_ir::arith`).
    Int(htp_ir::arith::IntBinary),
    AddF,
    SubF,
    MulF,
    DivF,
    MinF,
    MaxF,
}

/// A comparison: `arith.cmpi`'s predicates (a float comparison reads the
/// signed and unsigned ones alike).
pub use htp_ir::arith::IntPredicate as Compare;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    Parallel,
    Sequential,
    /// `wsp.select(n, predicate)`: operands are the size and the predicate.
    Select,
}

/// One step of a program.
#[derive(Clone, Debug)]
pub enum Step {
    Int { dst: Slot, value: i64 },
    Float { dst: Slot, value: f64 },
    Binary { dst: Slot, op: Binary, a: Slot, b: Slot, num: Num },
    Compare { dst: Slot, op: Compare, a: Slot, b: Slot, float: bool },
    Select { dst: Slot, condition: Slot, a: Slot, b: Slot },
    /// Integer width change, int <-> float, float width change.
    Convert { dst: Slot, a: Slot, from: Num, to: Num, unsigned: bool },
    Load { dst: Slot, tensor: Slot, indices: Vec<Slot>, element: Element, at: String },
    Dim { dst: Slot, tensor: Slot, dim: Slot },
    /// `memref.expand_shape` adding unit dimensions (a 1-D tensor seen as
    /// 1xN): per result dimension, the source dimension it is, or `None`
    /// for an added unit one.
    Expand { dst: Slot, tensor: Slot, sources: Vec<Option<usize>> },
    View { dst: Slot, tensor: Slot, offsets: Vec<Slot>, sizes: Vec<Slot>, at: String },
    /// `wsp.channel`: the ring the call allocated for [`Plan::channels`]`[index]`.
    Channel { dst: Slot, index: usize },
    Dense { dst: Slot, size: Slot },
    /// `wsp.cores`: how many tasks run at once.
    Cores { dst: Slot },
    Ragged { dst: Slot, size: Slot, lengths: Slot, element: Element, at: String },
    Sparse { dst: Slot, rows: Slot, indptr: Slot, indices: Slot, indptr_element: Element, indices_element: Element, at: String },
    Element { dst: Slot, tensor: Slot, indices: Vec<Slot>, element: Element, at: String },
    For { lower: Slot, upper: Slot, step: Slot, iv: Slot, carried: Vec<(Slot, Slot)>, body: Block, results: Vec<Slot> },
    If { condition: Slot, then: Block, otherwise: Block, results: Vec<Slot> },
    Loop { kind: LoopKind, operands: Vec<Slot>, indices: Vec<Slot>, body: Block, site: usize },
    When { element: Slot, predicate: Compare, bound: Slot, body: Block },
    Task { site: usize },
    Call { function: usize, arguments: Vec<Slot>, results: Vec<Slot> },
}

/// Steps and the values the block yields.
#[derive(Clone, Debug, Default)]
pub struct Block {
    pub steps: Vec<Step>,
    pub yields: Vec<Slot>,
}

/// A function: its parameters' slots, its body, its frame size.
#[derive(Clone, Debug, Default)]
pub struct Function {
    pub name: String,
    pub parameters: Vec<Slot>,
    pub body: Block,
    pub slots: usize,
}

/// How a task uses an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    In,
    Out,
    InOut,
    None,
}

/// A kernel parameter as a task fills it.
#[derive(Clone, Debug, PartialEq)]
pub enum Parameter {
    /// A tensor: element, and each dimension's static extent (`None`: any).
    /// `column_major`: declared `htp.layout("col_major")` (a strided
    /// memref layout), read in column-major order.
    Tensor { element: Element, dims: Vec<Option<i64>>, column_major: bool },
    Scalar(Num),
}

/// One `wsp.task` of the workload.
#[derive(Clone, Debug)]
pub struct TaskSite {
    pub kernel: String,
    pub keys: Vec<Slot>,
    pub arguments: Vec<Slot>,
    pub access: Vec<Mode>,
    pub parameters: Vec<Parameter>,
    pub stream: Option<Slot>,
    pub worker: Option<Slot>,
    /// "file:line:col" of the task in the user's workload.
    pub at: String,
}

/// A `wsp.parallel`/`seq`/`select` loop, for messages.
#[derive(Clone, Debug)]
pub struct LoopSite {
    pub at: String,
}

/// A pipe channel's ring (`wsp.channel`): its name, its shape (depth
/// first) and element.
#[derive(Clone, Debug)]
pub struct Channel {
    pub name: String,
    pub sizes: Vec<i64>,
    pub element: Element,
}

/// A workload ready to run: its program, its helpers, its tasks and
/// loops, its parameters' element types (`None` for scalars).
#[derive(Clone, Debug)]
pub struct Plan {
    pub workload: Function,
    pub helpers: Vec<Function>,
    pub tasks: Vec<TaskSite>,
    pub loops: Vec<LoopSite>,
    pub parameters: Vec<Option<Element>>,
    /// Per parameter, whether it is a tensor input of the workload: no task writes it (a
    /// compile-time rule) and the caller's outputs never overlap it (the call separates them),
    /// so its accesses order nothing and dependency inference skips them.
    pub read_only: Vec<bool>,
    /// The rings of the workload's channels, allocated per call after the
    /// parameters' tensors.
    pub channels: Vec<Channel>,
    /// The workload's parameter names, per MLIR argument (for errors; empty
    /// when the caller did not give them).
    pub names: Vec<String>,
}
