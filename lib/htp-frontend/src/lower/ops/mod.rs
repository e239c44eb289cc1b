//! The `tile` operations and scalar arithmetic, with HTP's typing rules:
//! numpy-style implicit broadcasting of Rx1 / 1xC tiles, Python numbers
//! taking the type their context needs, and a diagnostic (never invalid IR)
//! when operands do not fit.

//!
//! By family: `scalar.rs`, `constants.rs`, `broadcast.rs`, `layouts.rs` (relayouts, facets),
//! `elementwise.rs`, `reductions.rs`, `selection.rs` (argmax, sort, top-k, take), `matmul.rs`,
//! `casts.rs`, `compare.rs`, `shapes.rs` (tile subscripts, concat, reshape);
//! the operation kinds they share are here.


use super::types::Valid;

/// Elementwise binary operations (tile.* and arith.*).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinKind {
    Add,
    Sub,
    Mul,
    Div,
    Max,
    Min,
    FloorDiv,
    Mod,
}

impl BinKind {
    pub fn symbol(self) -> &'static str {
        match self {
            BinKind::Add => "+",
            BinKind::Sub => "-",
            BinKind::Mul => "*",
            BinKind::Div => "/",
            BinKind::Max => "max",
            BinKind::Min => "min",
            BinKind::FloorDiv => "//",
            BinKind::Mod => "%",
        }
    }

    fn tile_op(self) -> Option<&'static str> {
        Some(match self {
            BinKind::Add => "tile.add",
            BinKind::Sub => "tile.sub",
            BinKind::Mul => "tile.mul",
            BinKind::Div => "tile.div",
            BinKind::Max => "tile.max",
            BinKind::Min => "tile.min",
            BinKind::FloorDiv | BinKind::Mod => return None,
        })
    }
}

/// Comparison predicates, in the order of the tile dialect's enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpKind {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl CmpKind {
    fn tile_code(self) -> i64 {
        self as i64
    }
    /// `a op b` == `b swapped(op) a`.
    pub fn swapped(self) -> CmpKind {
        match self {
            CmpKind::Lt => CmpKind::Gt,
            CmpKind::Le => CmpKind::Ge,
            CmpKind::Gt => CmpKind::Lt,
            CmpKind::Ge => CmpKind::Le,
            k => k,
        }
    }
    pub fn eval<T: PartialOrd>(self, a: T, b: T) -> bool {
        match self {
            CmpKind::Eq => a == b,
            CmpKind::Ne => a != b,
            CmpKind::Lt => a < b,
            CmpKind::Le => a <= b,
            CmpKind::Gt => a > b,
            CmpKind::Ge => a >= b,
        }
    }
    /// arith.cmpi predicate (signed).
    fn cmpi(self) -> i64 {
        match self {
            CmpKind::Eq => 0,
            CmpKind::Ne => 1,
            CmpKind::Lt => 2,
            CmpKind::Le => 3,
            CmpKind::Gt => 4,
            CmpKind::Ge => 5,
        }
    }
    /// arith.cmpf predicate (ordered; `ne` is unordered-or-not-equal like Python).
    fn cmpf(self) -> i64 {
        match self {
            CmpKind::Eq => 1,
            CmpKind::Gt => 2,
            CmpKind::Ge => 3,
            CmpKind::Lt => 4,
            CmpKind::Le => 5,
            CmpKind::Ne => 13,
        }
    }
}

/// Reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceKind {
    Sum,
    Max,
    Min,
}

impl ReduceKind {
    pub fn from_name(name: &str) -> Option<ReduceKind> {
        match name {
            "sum" => Some(ReduceKind::Sum),
            "max" => Some(ReduceKind::Max),
            "min" => Some(ReduceKind::Min),
            _ => None,
        }
    }
}

fn valid_text(v: Valid) -> String {
    match v {
        Valid::Static(n) => n.to_string(),
        Valid::Dynamic => "?".into(),
    }
}

mod activations;
mod broadcast;
mod casts;
mod compare;
mod constants;
mod elementwise;
mod layouts;
mod matmul;
mod reductions;
mod scalar;
mod selection;
mod shapes;

pub use scalar::fold_binary;
