//! Typed op wrappers, accessors and builders of the `pto` dialect,
//! generated from its ODS (`dialects/pto/PTOOps.td`) by melior's `dialect!`
//! macro, and viewable in place with `htp_dialects::ods::view`.

melior::dialect! {
    name: "pto",
    files: ["PTOOps.td"],
    // Absolute, set by htp_build::build_dialects (build.rs).
    include_directory_env_vars: ["HTP_ODS_DIR_PTO", "HTP_ODS_ROOT"],
}

htp_dialects::ods_ops!(pto: AllocTensorOperation, AllocTileOperation, AvailableCoresOperation, BarrierOperation, ClusterRecvOperation, ClusterSendOperation, CreateTensorOperation, GlobalViewOperation, GuardOperation, MGatherOperation, MScatterOperation, OrderBarrierOperation, OrderedOperation, ScheduleOperation, ScopeOperation, SetFlagOperation, SubmitOperation, TAbsOperation, TAddOperation, TAddSOperation, TCiOperation, TCmpOperation, TCmpSOperation, TColExpandBinOperation, TColExpandOperation, TColMaxOperation, TColMinOperation, TColSumOperation, TConcatOperation, TCvtOperation, TDivOperation, TDivSOperation, TExpOperation, TExpandSOperation, TExtractOperation, TFillPadOperation, TFreeOperation, TGatherMaskOperation, TGatherOperation, TInsertOperation, TLoadOperation, TLogOperation, TMatmulAccOperation, TMatmulOperation, TMaxOperation, TMaxSOperation, TMinOperation, TMinSOperation, TMovOperation, TMrgSortOperation, TMulOperation, TMulSOperation, TNegOperation, TPopOperation, TPushOperation, TRecipOperation, TReluOperation, TReshapeOperation, TRowArgMaxOperation, TRowArgMinOperation, TRowExpandBinOperation, TRowExpandOperation, TRowMaxOperation, TRowMinOperation, TRowSumOperation, TRsqrtOperation, TScatterOperation, TSelOperation, TSort32Operation, TSqrtOperation, TStoreOperation, TSubOperation, TSubSOperation, TTransOperation, TaskOperation, TensorViewOperation, TileViewOperation, WaitFlagOperation);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pto_op_names_come_from_its_ods() {
        assert_eq!(pto::TLoadOperation::name(), "pto.tload");
        assert_eq!(pto::TRowExpandBinOperation::name(), "pto.trowexpand_op");
        assert_eq!(pto::TExpandSOperation::name(), "pto.texpands");
        assert_eq!(pto::AvailableCoresOperation::name(), "pto.available_cores");
    }
}
