//! Typed op wrappers, accessors and builders for HTP's core dialects, generated
//! from their ODS (`dialects/<ns>/<P>Ops.td`) by melior's `dialect!` macro:
//! `tile::LoadOperation::source()`, `tile::RelayoutOperationBuilder`, ...
//! in place of op names spelled as strings and operands read by index.
//!
//! melior's wrappers own their operation (`TryFrom<Operation>` takes it,
//! and destroys it on a name mismatch), so ops that live in a module are
//! read through [`view`]: the op's name is checked first and the wrapper
//! is never dropped.

use std::{mem::ManuallyDrop, ops::Deref};

use melior::ir::{operation::OperationLike, Operation, OperationRef};

melior::dialect! {
    name: "tile",
    files: ["TileOps.td"],
    // Absolute, set by htp_build::build_dialects (build.rs).
    include_directory_env_vars: ["HTP_ODS_DIR_TILE", "HTP_ODS_ROOT"],
}

/// `op` with its `operandSegmentSizes` set. melior 0.27's generated
/// builders leave it out, and MLIR 22 verifies it (a property of ops with
/// `AttrSizedOperandSegments`, such as `tile.load`): set it here, one size
/// per operand group in ODS order.
pub fn with_segments<'c>(op: impl Into<Operation<'c>>, sizes: &[i32]) -> Operation<'c> {
    use melior::ir::operation::OperationMutLike;
    let mut op = op.into();
    // `to_ref` borrows the ContextRef itself: keep it in a local (a
    // temporary would leave the reference dangling).
    let context = op.context();
    let sizes = melior::ir::attribute::DenseI32ArrayAttribute::new(unsafe { context.to_ref() }, sizes);
    op.set_attribute("operandSegmentSizes", sizes.into());
    op
}

/// A generated op wrapper that [`view`] can build over an op in a module.
pub trait Op<'c>: TryFrom<Operation<'c>> {
    /// The op's name (`tile.load`).
    fn op_name() -> &'static str;
}

/// Makes each listed op wrapper of a `dialect!` module viewable with
/// [`view`]: `ods_ods_ops!(tile: LoadOperation, StoreOperation, ...)`. Crates
/// that own a dialect list theirs the same way.
#[macro_export]
macro_rules! ods_ops {
    ($module:ident: $($name:ident),* $(,)?) => {
        $(impl<'c> $crate::ods::Op<'c> for $module::$name<'c> {
            fn op_name() -> &'static str {
                $module::$name::name()
            }
        })*
    };
}

ods_ops!(tile: LoadOperation, StoreOperation, GatherOperation, ScatterOperation, ConstantOperation, FillOperation, IotaOperation,
    AddOperation, SubOperation, MulOperation, DivOperation, MaxOperation, MinOperation, ExpOperation, LogOperation,
    SqrtOperation, RsqrtOperation, RecipOperation, AbsOperation, NegOperation, ReluOperation, RowReduceOperation,
    ColReduceOperation, RowArgReduceOperation, SortOperation, TakeOperation, PutOperation, BroadcastOperation, PadOperation, SetValidOperation, MatmulOperation, CastOperation,
    CmpOperation, SelectOperation, TransposeOperation, RelayoutOperation, SliceOperation, ConcatOperation, ReshapeOperation,
    IntrinsicOperation, IntrinsicEffectOperation);

/// An enum of a dialect's op kinds from its `dialect!` module, each named
/// by its generated wrapper's `T::name()`: `op_kinds! { /// doc
/// TileOp in tile { Load = LoadOperation, ... } }` gives `TileOp::of(op)`,
/// `name()`, `mnemonic()`, `named(text)` and `ALL`, so passes `match` on
/// kinds, never on op-name strings.
#[macro_export]
macro_rules! op_kinds {
    ($(#[$doc:meta])* $kind:ident in $module:ident { $($variant:ident = $op:ident),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $kind { $($variant),* }

        impl $kind {
            /// Every kind, in ODS order.
            pub const ALL: &'static [$kind] = &[$($kind::$variant),*];

            /// The op's full name (`pto.tload`), from its generated wrapper.
            pub fn name(self) -> &'static str {
                match self { $($kind::$variant => $module::$op::name()),* }
            }

            /// The op's name without its dialect (`tload`).
            pub fn mnemonic(self) -> &'static str {
                let name = self.name();
                name.split_once('.').map_or(name, |(_, mnemonic)| mnemonic)
            }

            /// The kind of the op named `name`, if it is one of this dialect's.
            pub fn named(name: &str) -> Option<$kind> {
                // Sorted by name, searched by bisection: a few short string
                // compares per lookup, cheaper than hashing the name (passes
                // ask for the kind of every op they visit, often many times).
                static BY_NAME: ::std::sync::OnceLock<Vec<(&'static str, $kind)>> = ::std::sync::OnceLock::new();
                let sorted = BY_NAME.get_or_init(|| {
                    let mut sorted: Vec<(&'static str, $kind)> = $kind::ALL.iter().map(|k| (k.name(), *k)).collect();
                    sorted.sort_unstable_by_key(|(name, _)| *name);
                    sorted
                });
                sorted.binary_search_by(|(known, _)| (*known).cmp(name)).ok().map(|index| sorted[index].1)
            }

            /// The kind of `op`, if it is one of this dialect's ops.
            pub fn of(op: ::melior::ir::OperationRef) -> Option<$kind> {
                use ::melior::ir::operation::OperationLike;
                $kind::named(op.name().as_string_ref().as_str().ok()?)
            }
        }
    };
}

op_kinds! {
    /// A `tile` op's kind.
    TileOp in tile {
    Load = LoadOperation,
    Store = StoreOperation,
    Gather = GatherOperation,
    Scatter = ScatterOperation,
    Constant = ConstantOperation,
    Fill = FillOperation,
    Iota = IotaOperation,
    Add = AddOperation,
    Sub = SubOperation,
    Mul = MulOperation,
    Div = DivOperation,
    Max = MaxOperation,
    Min = MinOperation,
    Exp = ExpOperation,
    Log = LogOperation,
    Sqrt = SqrtOperation,
    Rsqrt = RsqrtOperation,
    Recip = RecipOperation,
    Abs = AbsOperation,
    Neg = NegOperation,
    Relu = ReluOperation,
    RowReduce = RowReduceOperation,
    ColReduce = ColReduceOperation,
    RowArgReduce = RowArgReduceOperation,
    Sort = SortOperation,
    Take = TakeOperation,
    Put = PutOperation,
    Broadcast = BroadcastOperation,
    Pad = PadOperation,
    SetValid = SetValidOperation,
    Matmul = MatmulOperation,
    Cast = CastOperation,
    Cmp = CmpOperation,
    Select = SelectOperation,
    Transpose = TransposeOperation,
    Relayout = RelayoutOperation,
    Slice = SliceOperation,
    Concat = ConcatOperation,
    Reshape = ReshapeOperation,
    Intrinsic = IntrinsicOperation,
    IntrinsicEffect = IntrinsicEffectOperation
    }
}

impl TileOp {
    /// `tile.add`, `tile.sub`, `tile.mul`, `tile.div`, `tile.max`, `tile.min`.
    pub fn is_elementwise_binary(self) -> bool {
        matches!(self, TileOp::Add | TileOp::Sub | TileOp::Mul | TileOp::Div | TileOp::Max | TileOp::Min)
    }

    /// An elementwise binary op whose operands may be swapped.
    pub fn commutes(self) -> bool {
        matches!(self, TileOp::Add | TileOp::Mul | TileOp::Max | TileOp::Min)
    }
}


/// A typed view of an op its block owns (the wrapper is never dropped).
pub struct View<T>(ManuallyDrop<T>);

impl<T> Deref for View<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

/// `op` as the generated wrapper `T`, if it is that op.
pub fn view<'c, T: Op<'c>>(op: OperationRef<'c, '_>) -> Option<View<T>> {
    if op.name().as_string_ref().as_str() != Ok(T::op_name()) {
        return None;
    }
    // Borrowed, not owned: the view never drops it (ManuallyDrop), and the
    // name was checked, so TryFrom cannot fail and destroy it.
    let borrowed = unsafe { Operation::from_raw(op.to_raw()) };
    match T::try_from(borrowed) {
        Ok(typed) => Some(View(ManuallyDrop::new(typed))),
        Err(_) => unreachable!("the op's name was checked"),
    }
}

#[cfg(test)]
mod tests {
    use melior::ir::{block::BlockLike, operation::OperationLike, Block, Location, Type};

    use super::*;
    use crate::new_context;
    use crate::tile::TileType;

    #[test]
    fn builds_a_tile_op_and_views_it_in_its_block() {
        let context = new_context();
        let location = Location::unknown(&context);
        let tile: Type = TileType::new(&context, 16, 64, Type::float32(&context)).unwrap().into();
        let block = Block::new(&[(tile, location), (tile, location)]);
        let (lhs, rhs) = (block.argument(0).unwrap().into(), block.argument(1).unwrap().into());
        let add = tile::AddOperationBuilder::new(&context, location).lhs(lhs).rhs(rhs).result(tile).build();
        let placed = block.append_operation(add.into());
        assert!(placed.verify());
        let view = view::<tile::AddOperation>(placed).expect("a tile.add");
        assert_eq!(view.lhs().unwrap(), lhs);
        assert_eq!(view.rhs().unwrap(), rhs);
        assert!(super::view::<tile::SubOperation>(placed).is_none());
        // The block still owns the op (the views dropped nothing).
        assert_eq!(block.first_operation().unwrap().name().as_string_ref().as_str(), Ok("tile.add"));
    }
}

#[cfg(test)]
mod segment_tests {
    use melior::ir::{block::BlockLike, Module, RegionLike, ValueLike};

    use super::*;
    use crate::new_context;

    #[test]
    fn variadic_operand_groups_are_read_by_name() {
        let context = new_context();
        let module = Module::parse(&context, r#"
func.func @f(%m: memref<?x64xf32>, %i: index, %n: index) {
  %t = tile.load %m[%i, %i] valid [%n] : memref<?x64xf32> -> !tile.tile<16x64xf32, valid = ?x64>
  return
}"#).unwrap();
        let function = module.body().first_operation().unwrap();
        let load = function.region(0).unwrap().first_block().unwrap().first_operation().unwrap();
        let load = view::<tile::LoadOperation>(load).unwrap();
        let block = function.region(0).unwrap().first_block().unwrap();
        let arguments: Vec<_> = (0..3).map(|i| melior::ir::Value::from(block.argument(i).unwrap())).collect();
        assert_eq!(load.source().unwrap(), arguments[0]);
        assert_eq!(load.indices().unwrap().collect::<Vec<_>>(), vec![arguments[1], arguments[1]]);
        assert_eq!(load.valid_sizes().unwrap().collect::<Vec<_>>(), vec![arguments[2]]);
        // Built again through the typed builder: verifies once its segment sizes are set.
        let rebuilt = tile::LoadOperationBuilder::new(&context, melior::ir::Location::unknown(&context))
            .source(arguments[0])
            .indices(&[arguments[1], arguments[1]])
            .valid_sizes(&[arguments[2]])
            .result(load.result().unwrap().r#type())
            .build();
        let rebuilt = block.insert_operation_before(block.terminator().unwrap(), with_segments(rebuilt, &[1, 2, 1]));
        assert!(rebuilt.verify());
    }
}
