//! What every part of the CSP crate reads off the IR: the channel type,
//! op names, a process's name and replicas, which functions are programs.

use melior::ir::{
    attribute::{IntegerAttribute, StringAttribute},
    operation::OperationLike,
    OperationRef, Type, TypeLike,
};

unsafe extern "C" {
    fn htpCspChannelTypeGet(element: mlir_sys::MlirType, count: i64) -> mlir_sys::MlirType;
    fn htpCspTypeIsAChannel(ty: mlir_sys::MlirType) -> bool;
    fn htpCspChannelTypeGetElement(ty: mlir_sys::MlirType) -> mlir_sys::MlirType;
    fn htpCspChannelTypeGetCount(ty: mlir_sys::MlirType) -> i64;
}

/// `!csp.channel<element, count>`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChannelType<'c>(Type<'c>);

impl<'c> ChannelType<'c> {
    /// Channels of `element` values; `count` of them (an array) when above 1.
    pub fn new(element: Type<'c>, count: i64) -> Self {
        ChannelType(unsafe { Type::from_raw(htpCspChannelTypeGet(element.to_raw(), count)) })
    }

    /// The channel type `ty` is, if it is one.
    pub fn of(ty: Type<'c>) -> Option<Self> {
        unsafe { htpCspTypeIsAChannel(ty.to_raw()) }.then_some(ChannelType(ty))
    }

    pub fn element(&self) -> Type<'c> {
        unsafe { Type::from_raw(htpCspChannelTypeGetElement(self.0.to_raw())) }
    }

    /// How many channels (1 for one, n for an array of n).
    pub fn count(&self) -> i64 {
        unsafe { htpCspChannelTypeGetCount(self.0.to_raw()) }
    }

    pub fn r#type(&self) -> Type<'c> {
        self.0
    }
}

/// The op's name (`csp.send`).
pub fn name_of(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// A string attribute of `op`.
pub fn string_attribute(op: OperationRef, name: &str) -> Option<String> {
    op.attribute(name).ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string())
}

/// An integer attribute of `op`.
pub fn integer_attribute(op: OperationRef, name: &str) -> Option<i64> {
    op.attribute(name).ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|i| i.value())
}

/// Whether `function` is a `@csp.program`.
pub fn is_program(function: OperationRef) -> bool {
    string_attribute(function, htp_api::models::MODEL_ATTRIBUTE).is_some_and(|m| m == crate::MODEL_NAME)
}

/// "file:line:col" of an op (the user's Python line).
pub fn position(op: OperationRef) -> String {
    htp_dialects::diagnostics::position_text(op.location())
}

/// The index operand of a channel operation (`csp.send %c[%i], ...`), if it has one.
pub fn channel_index<'c>(op: OperationRef<'c, '_>) -> Option<melior::ir::Value<'c, 'c>> {
    use melior::ir::attribute::DenseI32ArrayAttribute;
    let indexed = match name_of(op).as_str() {
        "csp.send" => op.operand_count() == 3,
        "csp.recv" => op.operand_count() == 2,
        "csp.consume" => op
            .attribute("operandSegmentSizes")
            .ok()
            .and_then(|a| DenseI32ArrayAttribute::try_from(a).ok())
            .and_then(|segments| segments.element(1).ok())
            .is_some_and(|n| n == 1),
        _ => false,
    };
    indexed.then(|| op.operand(1).ok()).flatten().map(|v| unsafe { melior::ir::Value::from_raw(melior::ir::ValueLike::to_raw(&v)) })
}

/// The channels and the processes at the top of a program, in order.
pub fn parts<'c>(program: OperationRef<'c, '_>) -> (Vec<OperationRef<'c, 'c>>, Vec<OperationRef<'c, 'c>>) {
    use melior::ir::{block::BlockLike, RegionLike};
    let (mut channels, mut processes) = (Vec::new(), Vec::new());
    let mut op = program.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
    while let Some(current) = op {
        op = current.next_in_block();
        let current = unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) };
        match name_of(current).as_str() {
            "csp.channel" => channels.push(current),
            "csp.process" => processes.push(current),
            _ => {}
        }
    }
    (channels, processes)
}

/// The `@csp.program`s of `module`, in order.
pub fn programs<'c>(module: OperationRef<'c, '_>) -> Vec<OperationRef<'c, 'c>> {
    use melior::ir::{block::BlockLike, RegionLike};
    let mut programs = Vec::new();
    let mut op = module.region(0).ok().and_then(|r| r.first_block()).and_then(|b| b.first_operation());
    while let Some(current) = op {
        op = current.next_in_block();
        if name_of(current) == "func.func" && is_program(current) {
            programs.push(unsafe { OperationRef::<'c, 'c>::from_raw(current.to_raw()) });
        }
    }
    programs
}
