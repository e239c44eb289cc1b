//! The op kinds the backend dispatches on, derived from the dialects' ODS:
//! [`PtoOp`] (every `pto` op, `crate::ods::pto`) and [`TileOp`] (every
//! `tile` op, `htp_dialects::ods::tile`). Each kind's name is its generated
//! wrapper's `T::name()`, so no op name is spelled as a string here or in
//! the `match`es that use them.

use std::{collections::HashMap, sync::OnceLock};

use htp_dialects::ods::tile;
use melior::ir::operation::{OperationLike, OperationRef};

use crate::ods::pto;

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
                static BY_NAME: OnceLock<HashMap<&'static str, $kind>> = OnceLock::new();
                BY_NAME.get_or_init(|| $kind::ALL.iter().map(|k| (k.name(), *k)).collect()).get(name).copied()
            }

            /// The kind of `op`, if it is one of this dialect's ops.
            pub fn of(op: OperationRef) -> Option<$kind> {
                $kind::named(op.name().as_string_ref().as_str().ok()?)
            }
        }
    };
}

op_kinds! {
    /// A `pto` op's kind.
    PtoOp in pto {
    AllocTile = AllocTileOperation,
    AvailableCores = AvailableCoresOperation,
    Barrier = BarrierOperation,
    CreateTensor = CreateTensorOperation,
    GlobalView = GlobalViewOperation,
    MGather = MGatherOperation,
    SetFlag = SetFlagOperation,
    Submit = SubmitOperation,
    TAbs = TAbsOperation,
    TAdd = TAddOperation,
    TAddS = TAddSOperation,
    TCi = TCiOperation,
    TCmp = TCmpOperation,
    TCmpS = TCmpSOperation,
    TColExpandBin = TColExpandBinOperation,
    TColExpand = TColExpandOperation,
    TColMax = TColMaxOperation,
    TColMin = TColMinOperation,
    TColSum = TColSumOperation,
    TCvt = TCvtOperation,
    TDiv = TDivOperation,
    TDivS = TDivSOperation,
    TExp = TExpOperation,
    TExpandS = TExpandSOperation,
    TExtract = TExtractOperation,
    TFillPad = TFillPadOperation,
    TFree = TFreeOperation,
    TLoad = TLoadOperation,
    TLog = TLogOperation,
    TMatmulAcc = TMatmulAccOperation,
    TMatmul = TMatmulOperation,
    TMax = TMaxOperation,
    TMaxS = TMaxSOperation,
    TMin = TMinOperation,
    TMinS = TMinSOperation,
    TMov = TMovOperation,
    TMul = TMulOperation,
    TMulS = TMulSOperation,
    TNeg = TNegOperation,
    TPop = TPopOperation,
    TPush = TPushOperation,
    TRecip = TRecipOperation,
    TRelu = TReluOperation,
    TReshape = TReshapeOperation,
    TRowExpandBin = TRowExpandBinOperation,
    TRowExpand = TRowExpandOperation,
    TRowMax = TRowMaxOperation,
    TRowMin = TRowMinOperation,
    TRowSum = TRowSumOperation,
    TRsqrt = TRsqrtOperation,
    TSel = TSelOperation,
    TSqrt = TSqrtOperation,
    TStore = TStoreOperation,
    TSub = TSubOperation,
    TSubS = TSubSOperation,
    TTrans = TTransOperation,
    TileView = TileViewOperation,
    WaitFlag = WaitFlagOperation
    }
}

op_kinds! {
    /// A `tile` op's kind.
    TileOp in tile {
    Load = LoadOperation,
    Store = StoreOperation,
    Gather = GatherOperation,
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
    Broadcast = BroadcastOperation,
    Pad = PadOperation,
    SetValid = SetValidOperation,
    Matmul = MatmulOperation,
    Cast = CastOperation,
    Cmp = CmpOperation,
    Select = SelectOperation,
    Transpose = TransposeOperation,
    Relayout = RelayoutOperation,
    Intrinsic = IntrinsicOperation
    }
}

/// The name of the attribute marking a PTO kernel (`pto.core = "aiv"`).
pub const CORE_ATTRIBUTE: &str = "pto.core";
/// The name of the attribute marking a kernel of a cluster task and its pipes.
pub const FIFO_ATTRIBUTE: &str = "pto.fifo";
/// The name of the attribute marking the orchestration function.
pub const ORCHESTRATION_ATTRIBUTE: &str = "pto.orchestration";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_round_trip_through_their_ods_names() {
        for kind in PtoOp::ALL {
            assert_eq!(PtoOp::named(kind.name()), Some(*kind));
        }
        for kind in TileOp::ALL {
            assert_eq!(TileOp::named(kind.name()), Some(*kind));
        }
        assert_eq!(PtoOp::TRowExpandBin.mnemonic(), "trowexpand_op");
        assert_eq!(TileOp::RowReduce.mnemonic(), "row_reduce");
        assert_eq!(PtoOp::named("tile.add"), None);
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

impl PtoOp {
    /// An instruction on tiles (`pto.t*`, `pto.mgather`): not a buffer
    /// (`alloc_tile`, `tile_view`), a GM view, a flag or barrier, or
    /// orchestration work.
    pub fn is_tile_instruction(self) -> bool {
        use PtoOp::*;
        !matches!(self, AllocTile | TileView | GlobalView | CreateTensor | AvailableCores | Submit | SetFlag | WaitFlag | Barrier)
    }

    /// Ops that run only in an orchestration.
    pub fn is_orchestration(self) -> bool {
        matches!(self, PtoOp::AvailableCores | PtoOp::Submit | PtoOp::CreateTensor)
    }
}
