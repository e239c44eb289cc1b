//! A process of a `@csp.program` moved into a function of its own, for any
//! target's conversion (CSP → cpu, CSP → PTO): the function takes the
//! program's arguments, then what the target adds; the process's body moves
//! in (its replica index bound to one of the added arguments), and every
//! program value it uses becomes the function's own — an argument, or a
//! clone of the program's shared scalar code (bounds, sizes). Channels stay
//! as they are: the target's conversion rewrites their operations.

use std::collections::HashMap;

use htp_ir::builder::{detach, Builder, V};
use htp_ir::query::key;
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, OperationMutLike, WalkOrder, WalkResult},
    Attribute, BlockRef, Location, OperationRef, RegionLike, Type, Value, ValueLike,
};
use melior::Context;

use crate::ir::name_of;

pub type Failure<'c> = (Location<'c>, String);

/// The function a process became.
pub struct Outlined<'c> {
    pub function: OperationRef<'c, 'c>,
    /// The arguments after the program's (the target's additions), in order.
    pub added: Vec<V<'c>>,
}

/// Moves `process` (of `program`) into a new function `symbol` placed
/// before the program, taking the program's arguments and then
/// `added`; the replica index becomes added argument `replica`. The
/// function carries `attributes`; its body ends with `func.return`.
pub fn outline_process<'c>(
    context: &'c Context,
    program: OperationRef<'c, 'c>,
    process: OperationRef<'c, 'c>,
    symbol: &str,
    added: &[Type<'c>],
    replica: Option<usize>,
    attributes: &[(&str, Attribute<'c>)],
) -> Result<Outlined<'c>, Failure<'c>> {
    let location = process.location();
    let program_body = program.region(0).ok().and_then(|r| r.first_block()).ok_or((location, "a program without a body".to_string()))?;
    let program_body = unsafe { BlockRef::<'c, 'c>::from_raw(program_body.to_raw()) };
    let count = program_body.argument_count();
    // Program arguments keep their locations (and so the names the front end gave them).
    let mut arguments: Vec<(Type<'c>, Location<'c>)> =
        (0..count).filter_map(|i| program_body.argument(i).ok()).map(|a| (a.r#type(), htp_ir::query::value_location(a.into()))).collect();
    arguments.extend(added.iter().map(|t| (*t, location)));
    let (first, rest) = attributes.split_first().ok_or((location, "an outlined process without attributes".to_string()))?;
    let (function, entry) = htp_ir::builder::function(context, location, symbol, &arguments, *first);
    let function = program.block().ok_or((location, "a program outside a module".to_string()))?.insert_operation_before(program, function);
    let function = unsafe { OperationRef::<'c, 'c>::from_raw(function.to_raw()) };
    let mut handle = unsafe { melior::ir::operation::OperationRefMut::from_raw(function.to_raw()) };
    for (name, value) in rest {
        handle.set_attribute(name, *value);
    }
    let returns = htp_ir::builder::BodyBuilder { context, block: entry, location };
    let ret = unsafe { OperationRef::<'c, 'c>::from_raw(returns.op("func.return", &[], &[], &[], vec![]).to_raw()) };
    let mut values = ProgramValues { program_body, clones: HashMap::new() };
    for i in 0..count {
        if let (Ok(old), Ok(new)) = (program_body.argument(i), entry.argument(i)) {
            values.clones.insert(key(old.into()), detach(new.into()));
        }
    }
    let added: Vec<V<'c>> = (count..count + added.len()).filter_map(|i| entry.argument(i).ok()).map(|a| detach(a.into())).collect();

    // The process's body moves into the function (its yield stays).
    let Some(block) = process.region(0).ok().and_then(|r| r.first_block()) else { return Ok(Outlined { function, added }) };
    if let Ok(old) = block.argument(0) {
        // A process of one replica (`csp.processes(1)`) without a replica argument: its index is 0.
        let new = match replica.and_then(|r| added.get(r)) {
            Some(new) => *new,
            None => htp_ir::builder::Emitter { context, block: entry, anchor: ret, location }.index(0),
        };
        unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(old.to_raw(), new.to_raw()) };
    }
    let mut op = block.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        if name_of(current) == "csp.yield" {
            continue;
        }
        unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), ret.to_raw()) };
    }
    values.remap(function, entry)?;
    Ok(Outlined { function, added })
}

/// A symbol for each of `processes` (of the program `program_name`):
/// `<program>__<process name>`, letters and digits kept, made unique.
pub fn process_symbols(program_name: &str, processes: &[OperationRef]) -> Vec<String> {
    let mut taken: Vec<String> = Vec::new();
    for process in processes {
        let name = crate::ir::string_attribute(*process, "name").unwrap_or_default();
        let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        let mut symbol = format!("{program_name}__{clean}");
        while taken.contains(&symbol) {
            symbol.push('_');
        }
        taken.push(symbol);
    }
    taken
}

/// Points every use in `function` of a value of the program's body at the
/// function's own: a value of `mapped` (by key) as given, the program's
/// shared scalar code cloned to the top of `entry`. For a target that
/// builds a process's function its own way (CSP → AIE: a core's block).
pub fn import_program_values<'c>(program_body: BlockRef<'c, 'c>, function: OperationRef<'c, 'c>, entry: BlockRef<'c, 'c>, mapped: HashMap<usize, V<'c>>) -> Result<(), Failure<'c>> {
    ProgramValues { program_body, clones: mapped }.remap(function, entry)
}

/// Program values → a function's own.
struct ProgramValues<'c> {
    program_body: BlockRef<'c, 'c>,
    clones: HashMap<usize, V<'c>>,
}

impl<'c> ProgramValues<'c> {
    /// Points every use of a program value in `function` at the function's
    /// own: its arguments, or clones of the program's shared scalar code
    /// (placed at the top of `entry`, dependencies first).
    fn remap(&mut self, function: OperationRef<'c, 'c>, entry: BlockRef<'c, 'c>) -> Result<(), Failure<'c>> {
        let mut uses = Vec::new();
        function.walk(WalkOrder::PreOrder, |op| {
            for i in 0..op.operand_count() {
                if let Ok(value) = op.operand(i) {
                    uses.push((unsafe { OperationRef::<'c, 'c>::from_raw(op.to_raw()) }, i, unsafe { Value::<'c, 'c>::from_raw(value.to_raw()) }));
                }
            }
            WalkResult::Advance
        });
        let anchor = entry.first_operation().map(|o| unsafe { OperationRef::<'c, 'c>::from_raw(o.to_raw()) });
        for (op, i, value) in uses {
            if let Some(mapped) = self.map(value, anchor)? {
                unsafe { mlir_sys::mlirOperationSetOperand(op.to_raw(), i as isize, mapped.to_raw()) };
            }
        }
        Ok(())
    }

    /// The function's value for program value `value`, if it is one.
    fn map(&mut self, value: V<'c>, anchor: Option<OperationRef<'c, 'c>>) -> Result<Option<V<'c>>, Failure<'c>> {
        if let Some(mapped) = self.clones.get(&key(value)) {
            return Ok(Some(*mapped));
        }
        let Some(defining) = htp_ir::query::defining_op(value) else { return Ok(None) };
        let in_program = defining.block().is_some_and(|b| b.to_raw().ptr == self.program_body.to_raw().ptr);
        if !in_program || name_of(defining) == "csp.channel" {
            return Ok(None);
        }
        let Some(anchor) = anchor else { return Ok(None) };
        let clone = unsafe { melior::ir::Operation::from_raw(mlir_sys::mlirOperationClone(defining.to_raw())) };
        let clone = anchor.block().map(|b| b.insert_operation_before(anchor, clone)).ok_or((defining.location(), "no block to place a copy in".to_string()))?;
        let clone = unsafe { OperationRef::<'c, 'c>::from_raw(clone.to_raw()) };
        for i in 0..clone.operand_count() {
            let Ok(operand) = clone.operand(i) else { continue };
            if let Some(mapped) = self.map(detach(operand), Some(clone))? {
                unsafe { mlir_sys::mlirOperationSetOperand(clone.to_raw(), i as isize, mapped.to_raw()) };
            }
        }
        for i in 0..defining.result_count() {
            if let (Ok(old), Ok(new)) = (defining.result(i), clone.result(i)) {
                self.clones.insert(key(old.into()), detach(new.into()));
            }
        }
        Ok(self.clones.get(&key(value)).copied())
    }
}

/// `with csp.consume(c) as t: body` inlined where it stands, `element`
/// (the target's value for the slot's tile) as `t`, the carried values
/// flowing through; each result becomes what the body yields, passed
/// through `escape` when the body computed it (a target copies a tile that
/// may still read the slot). The consume op is left, empty, where the body
/// was: the caller adds what follows the body (a release) and removes it.
pub fn inline_consume<'c>(
    consume: OperationRef<'c, 'c>,
    element: V<'c>,
    mut escape: impl FnMut(V<'c>) -> Result<V<'c>, Failure<'c>>,
) -> Result<(), Failure<'c>> {
    let Some(body) = consume.region(0).ok().and_then(|r| r.first_block()) else { return Ok(()) };
    let first_init = 1 + crate::ir::channel_index(consume).is_some() as usize;
    for i in 0..body.argument_count() {
        let Ok(argument) = body.argument(i) else { continue };
        let value = if i == 0 { Some(element) } else { consume.operand(first_init + i - 1).ok().map(detach) };
        if let Some(value) = value {
            unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(argument.to_raw(), value.to_raw()) };
        }
    }
    let mut op = body.first_operation();
    while let Some(current) = op {
        op = current.next_in_block();
        if name_of(current) == "csp.yield" {
            for i in 0..current.operand_count() {
                let (Ok(result), Ok(value)) = (consume.result(i), current.operand(i)) else { continue };
                let value = detach(value);
                let carried_in = consume.operand(first_init + i).ok().is_some_and(|init| key(init) == key(value));
                let value = if carried_in { value } else { escape(value)? };
                unsafe { mlir_sys::mlirValueReplaceAllUsesOfWith(result.to_raw(), value.to_raw()) };
            }
            continue;
        }
        unsafe { mlir_sys::mlirOperationMoveBefore(current.to_raw(), consume.to_raw()) };
    }
    Ok(())
}
