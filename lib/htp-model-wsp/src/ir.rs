//! What every part of the WSP crate reads off the IR: op names, symbols,
//! which functions are workloads, a task's operand groups and access
//! modes, the user's file:line:col. One reader each.

use std::collections::HashMap;

use melior::ir::{
    attribute::{ArrayAttribute, DenseI32ArrayAttribute, StringAttribute},
    block::BlockLike,
    operation::OperationLike,
    BlockRef, Location, OperationRef, Value, ValueLike,
};

/// The op's name (`wsp.task`).
pub fn name_of(op: OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("").to_string()
}

/// The symbol an op defines (`sym_name`), if any.
pub fn symbol(op: OperationRef) -> Option<String> {
    op.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).map(|s| s.value().to_string())
}

/// Whether `function` is an `@wsp.workload`.
pub fn is_workload(function: OperationRef) -> bool {
    function
        .attribute(htp_api::models::MODEL_ATTRIBUTE)
        .ok()
        .and_then(|a| StringAttribute::try_from(a).ok())
        .is_some_and(|m| m.value() == crate::MODEL_NAME)
}

/// The symbols defined at the top of `body` (a module's block), by name.
pub fn functions<'c, 'a>(body: BlockRef<'c, 'a>) -> HashMap<String, OperationRef<'c, 'a>> {
    let mut functions = HashMap::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        if let Some(name) = symbol(current) {
            functions.insert(name, current);
        }
        op = current.next_in_block();
    }
    functions
}

/// The operands of `op`, in the context's lifetime (the module outlives
/// every pass and emitter that reads it).
pub fn operands<'c>(op: OperationRef<'c, '_>) -> Vec<Value<'c, 'c>> {
    (0..op.operand_count()).filter_map(|i| op.operand(i).ok()).map(|v| unsafe { Value::from_raw(v.to_raw()) }).collect()
}

/// A task's (keys, arguments, stream, worker) operand counts.
pub fn segments(task: OperationRef) -> Vec<usize> {
    task.attribute("operandSegmentSizes")
        .ok()
        .and_then(|a| DenseI32ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).map(|n| n as usize).collect())
        .unwrap_or_default()
}

/// The access modes `wsp-infer-access` recorded on a task (none before).
pub fn access(task: OperationRef) -> Option<Vec<String>> {
    task.attribute("access")
        .ok()
        .and_then(|a| ArrayAttribute::try_from(a).ok())
        .map(|a| (0..a.len()).filter_map(|i| a.element(i).ok()).filter_map(|m| StringAttribute::try_from(m).ok()).map(|m| m.value().to_string()).collect())
}

/// "file:line:col" of `location` (the user's Python line).
pub fn position(location: Location) -> String {
    htp_dialects::diagnostics::position_text(location)
}
