//! The op kinds the backend dispatches on, derived from the dialects' ODS:
//! [`PtoOp`] (every `pto` op, `crate::ods::pto`) and [`TileOp`] (every
//! `tile` op, the core's `htp_dialects::ods::TileOp`). Each kind's name is its generated
//! wrapper's `T::name()`, so no op name is spelled as a string here or in
//! the `match`es that use them.

pub use htp_dialects::ods::TileOp;

use crate::ods::pto;

htp_dialects::op_kinds! {
    /// A `pto` op's kind.
    PtoOp in pto {
    AllocTensor = AllocTensorOperation,
    AllocTile = AllocTileOperation,
    AvailableCores = AvailableCoresOperation,
    Barrier = BarrierOperation,
    ClusterRecv = ClusterRecvOperation,
    ClusterSend = ClusterSendOperation,
    CommNotify = CommNotifyOperation,
    CommPut = CommPutOperation,
    CommRank = CommRankOperation,
    CommSize = CommSizeOperation,
    CommWait = CommWaitOperation,
    CreateTensor = CreateTensorOperation,
    GlobalView = GlobalViewOperation,
    Guard = GuardOperation,
    MGather = MGatherOperation,
    MScatter = MScatterOperation,
    OrderBarrier = OrderBarrierOperation,
    Ordered = OrderedOperation,
    Schedule = ScheduleOperation,
    Scope = ScopeOperation,
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
    TConcat = TConcatOperation,
    TCvt = TCvtOperation,
    TDiv = TDivOperation,
    TDivS = TDivSOperation,
    TExp = TExpOperation,
    TExpandS = TExpandSOperation,
    TExtract = TExtractOperation,
    TFillPad = TFillPadOperation,
    TFree = TFreeOperation,
    TGatherMask = TGatherMaskOperation,
    TGather = TGatherOperation,
    TInsert = TInsertOperation,
    TLoad = TLoadOperation,
    TLog = TLogOperation,
    TMatmulAcc = TMatmulAccOperation,
    TMatmul = TMatmulOperation,
    TMax = TMaxOperation,
    TMaxS = TMaxSOperation,
    TMin = TMinOperation,
    TMinS = TMinSOperation,
    TMov = TMovOperation,
    TMrgSort = TMrgSortOperation,
    TMul = TMulOperation,
    TMulS = TMulSOperation,
    TNeg = TNegOperation,
    TPop = TPopOperation,
    TPush = TPushOperation,
    TRecip = TRecipOperation,
    TRelu = TReluOperation,
    TReshape = TReshapeOperation,
    TRowArgMax = TRowArgMaxOperation,
    TRowArgMin = TRowArgMinOperation,
    TRowExpandBin = TRowExpandBinOperation,
    TRowExpand = TRowExpandOperation,
    TRowMax = TRowMaxOperation,
    TRowMin = TRowMinOperation,
    TRowSum = TRowSumOperation,
    TRsqrt = TRsqrtOperation,
    TScatter = TScatterOperation,
    TSel = TSelOperation,
    TSort32 = TSort32Operation,
    TSqrt = TSqrtOperation,
    TStore = TStoreOperation,
    TSub = TSubOperation,
    TSubS = TSubSOperation,
    TTrans = TTransOperation,
    Task = TaskOperation,
    TensorView = TensorViewOperation,
    TileView = TileViewOperation,
    WaitFlag = WaitFlagOperation
    }
}

/// The name of the attribute marking a PTO kernel (`pto.core = "aiv"`).
pub const CORE_ATTRIBUTE: &str = "pto.core";
/// The name of the attribute marking a kernel of a cluster task and its pipes.
pub const FIFO_ATTRIBUTE: &str = "pto.fifo";
/// The attribute marking a tile kernel as one core of a cluster program
/// (`pto.cluster = "attention"`, with `pto.core`): the kernels of one name
/// become one cluster task.
pub const CLUSTER_ATTRIBUTE: &str = "pto.cluster";
/// A cluster program's pipe depths: `array<i64: c2v, v2c>` slots.
pub const CLUSTER_SLOTS_ATTRIBUTE: &str = "pto.cluster_slots";
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

impl PtoOp {
    /// An instruction on tiles (`pto.t*`, `pto.mgather`): not a buffer
    /// (`alloc_tile`, `tile_view`), a GM view, a flag or barrier, or
    /// orchestration work.
    pub fn is_tile_instruction(self) -> bool {
        use PtoOp::*;
        !matches!(self, AllocTile | TileView | GlobalView | CreateTensor | AvailableCores | Submit | SetFlag | WaitFlag | Barrier | ClusterSend | ClusterRecv)
            && !self.is_comm()
    }

    /// Communication between chips (`comm_put`, `comm_notify`, ...): each a
    /// full barrier (`pipe_barrier(PIPE_ALL)` before and after it).
    pub fn is_comm(self) -> bool {
        matches!(self, PtoOp::CommNotify | PtoOp::CommPut | PtoOp::CommRank | PtoOp::CommSize | PtoOp::CommWait)
    }

    /// A communication op that orders the kernel's pipes (the queries do not).
    pub fn is_comm_barrier(self) -> bool {
        matches!(self, PtoOp::CommNotify | PtoOp::CommPut | PtoOp::CommWait)
    }

    /// Tile-level hand-overs of a cluster program, which `convert-tile-to-pto` turns into pipes.
    pub fn is_cluster_transfer(self) -> bool {
        matches!(self, PtoOp::ClusterSend | PtoOp::ClusterRecv)
    }

    /// Ops that run only in an orchestration.
    pub fn is_orchestration(self) -> bool {
        matches!(self, PtoOp::AvailableCores | PtoOp::Submit | PtoOp::CreateTensor)
    }
}
