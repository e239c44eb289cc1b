//! The protocol of a `@csp.program` function, read off its IR: its
//! channels, its processes, and in each process the integer code and the
//! loops and branches around every channel operation. Values the protocol
//! cannot compute (tiles, floats, tensor elements) are `Expr::Data`.

use std::collections::HashMap;

use htp_dialects::tile::TileType;
use htp_ir::query::key;
use melior::ir::{
    attribute::IntegerAttribute,
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    BlockRef, Location, OperationRef, RegionLike, TypeLike, Value, ValueLike,
};

use super::{Channel, Expr, Op, Process, Protocol, Reg, Stmt};
use htp_ir::arith::{IntBinary, IntPredicate};
use crate::ir::{integer_attribute, name_of, string_attribute, ChannelType};

/// A protocol and, per site, the location of its op (for diagnostics
/// while the IR is alive).
pub struct Extracted<'c> {
    pub protocol: Protocol,
    pub locations: Vec<Location<'c>>,
}

/// What cannot be part of a program, at its op.
pub type Refusal<'c> = (Location<'c>, String);

struct Reader<'c> {
    protocol: Protocol,
    locations: Vec<Location<'c>>,
    registers: HashMap<usize, Reg>,
    constants: HashMap<Reg, i64>,
    channels: HashMap<usize, usize>,
    arguments: HashMap<usize, usize>,
    /// The scalar arguments' registers, set at the start of every process.
    prelude: Vec<Stmt>,
}

/// The protocol of `program`; an op a program cannot hold is refused at its line.
pub fn extract<'c>(program: OperationRef<'c, '_>) -> Result<Extracted<'c>, Refusal<'c>> {
    let mut reader = Reader { protocol: Protocol::default(), locations: Vec::new(), registers: HashMap::new(), constants: HashMap::new(), channels: HashMap::new(), arguments: HashMap::new(), prelude: Vec::new() };
    let Some(body) = program.region(0).ok().and_then(|r| r.first_block()) else { return Ok(reader.finish()) };
    for i in 0..body.argument_count() {
        if let Ok(argument) = body.argument(i) {
            let value: Value = argument.into();
            reader.arguments.insert(key(value), i);
            let reg = reader.reg(value);
            if value.r#type().is_integer() || value.r#type().is_index() {
                reader.prelude.push(Stmt::Let(reg, Expr::Scalar(i)));
            }
        }
    }
    reader.top(body)?;
    Ok(reader.finish())
}

impl<'c> Reader<'c> {
    fn finish(self) -> Extracted<'c> {
        let mut protocol = self.protocol;
        protocol.registers = self.registers.len();
        Extracted { protocol, locations: self.locations }
    }

    fn reg(&mut self, value: Value) -> Reg {
        let next = self.registers.len();
        *self.registers.entry(key(value)).or_insert(next)
    }

    fn site(&mut self, op: OperationRef<'c, '_>) -> usize {
        self.protocol.sites.push(crate::ir::position(op));
        self.locations.push(op.location());
        self.protocol.sites.len() - 1
    }

    fn results(&mut self, op: OperationRef) -> Vec<Reg> {
        (0..op.result_count()).filter_map(|i| op.result(i).ok()).map(|r| self.reg(r.into())).collect()
    }

    fn operand(&mut self, op: OperationRef, i: usize) -> Reg {
        match op.operand(i) {
            Ok(value) => self.reg(value),
            Err(_) => usize::MAX,
        }
    }

    /// The program's top level: channels, processes, and integer code the processes share.
    fn top(&mut self, body: BlockRef<'c, '_>) -> Result<(), Refusal<'c>> {
        let mut shared = Vec::new();
        let mut op = body.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            let current = unsafe { OperationRef::from_raw(current.to_raw()) };
            match name_of(current).as_str() {
                "csp.channel" => self.channel(current)?,
                "csp.process" => {
                    let site = self.site(current);
                    let block = current.region(0).ok().and_then(|r| r.first_block());
                    let mut statements = self.prelude.clone();
                    statements.extend(shared.iter().cloned());
                    if let Some(block) = block {
                        if let Ok(replica) = block.argument(0) {
                            let reg = self.reg(replica.into());
                            statements.push(Stmt::Let(reg, Expr::Replica));
                        }
                        statements.extend(self.block(block)?);
                    }
                    self.protocol.processes.push(Process {
                        name: string_attribute(current, "name").unwrap_or_default(),
                        replicas: integer_attribute(current, "replicas").unwrap_or(1).max(1) as usize,
                        body: statements,
                        site,
                    });
                }
                "func.return" => {}
                name if name.starts_with("arith.") || name == "memref.dim" => shared.extend(self.op(current)?),
                name => {
                    return Err((current.location(), format!(
                        "a CSP program makes channels and processes; '{name}' belongs inside a process (with csp.process(): ...)"
                    )))
                }
            }
        }
        Ok(())
    }

    fn channel(&mut self, op: OperationRef<'c, '_>) -> Result<(), Refusal<'c>> {
        let site = self.site(op);
        let Some(result) = op.result(0).ok() else { return Ok(()) };
        let value: Value = result.into();
        let Some(ty) = ChannelType::of(value.r#type()) else { return Ok(()) };
        let tile = TileType::try_from(ty.element()).ok();
        let bytes = tile.and_then(|t| t.checked_size_in_bytes()).unwrap_or(0);
        // The pad value's type is the tile's element type (the C++ verifier
        // cannot see into the tile dialect's types).
        if let (Some(tile), Some(pad)) = (tile, op.attribute("pad").ok()) {
            let pad_type = unsafe { melior::ir::Type::from_raw(mlir_sys::mlirAttributeGetType(melior::ir::AttributeLike::to_raw(&pad))) };
            if pad_type != tile.element_type() {
                return Err((op.location(), format!("channel pads with a {pad_type} value, but carries {} tiles", tile.element_type())));
            }
        }
        self.channels.insert(key(value), self.protocol.channels.len());
        self.protocol.channels.push(Channel {
            name: string_attribute(op, "name").unwrap_or_default(),
            depth: integer_attribute(op, "depth").unwrap_or(1).max(1) as usize,
            count: ty.count().max(1) as usize,
            bytes: bytes.max(0) as usize,
            rows: tile.map_or(0, |t| t.rows().max(0) as usize),
            cols: tile.map_or(0, |t| t.cols().max(0) as usize),
            site,
        });
        Ok(())
    }

    fn block(&mut self, block: BlockRef<'c, '_>) -> Result<Vec<Stmt>, Refusal<'c>> {
        let mut statements = Vec::new();
        let mut op = block.first_operation();
        while let Some(current) = op {
            op = current.next_in_block();
            statements.extend(self.op(unsafe { OperationRef::from_raw(current.to_raw()) })?);
        }
        Ok(statements)
    }

    /// The operands of a block's terminator (a yield).
    fn yields(&mut self, block: BlockRef<'c, '_>) -> Vec<Reg> {
        match block.terminator() {
            Some(terminator) => (0..terminator.operand_count()).map(|i| self.operand(terminator, i)).collect(),
            None => vec![],
        }
    }

    fn block_of(op: OperationRef<'c, '_>, region: usize) -> Option<BlockRef<'c, 'c>> {
        op.region(region).ok().and_then(|r| r.first_block()).map(|b| unsafe { BlockRef::from_raw(b.to_raw()) })
    }

    fn channel_of(&mut self, op: OperationRef<'c, '_>) -> Result<usize, Refusal<'c>> {
        let channel = op.operand(0).ok().and_then(|v| self.channels.get(&key(v)).copied());
        channel.ok_or_else(|| (op.location(), "uses a channel the program did not make with csp.channel".into()))
    }

    /// The channel operation's index operand, if it has one.
    fn index_of(&mut self, op: OperationRef<'c, '_>) -> Option<Reg> {
        crate::ir::channel_index(op).map(|index| self.reg(index))
    }

    fn op(&mut self, op: OperationRef<'c, '_>) -> Result<Vec<Stmt>, Refusal<'c>> {
        let name = name_of(op);
        let name = name.as_str();
        let results = self.results(op);
        let first = results.first().copied().unwrap_or(usize::MAX);
        if let Some(binary) = IntBinary::of(name) {
            return Ok(vec![Stmt::Let(first, Expr::Binary(binary, self.operand(op, 0), self.operand(op, 1)))]);
        }
        Ok(match name {
            "arith.constant" => {
                let value = op.attribute("value").ok().and_then(|a| IntegerAttribute::try_from(a).ok()).map(|i| i.value());
                match value {
                    Some(v) => {
                        self.constants.insert(first, v);
                        vec![Stmt::Let(first, Expr::Const(v))]
                    }
                    None => vec![Stmt::Let(first, Expr::Data)],
                }
            }
            "arith.index_cast" | "arith.index_castui" | "arith.extsi" | "arith.extui" | "arith.trunci" => vec![Stmt::Let(first, Expr::Copy(self.operand(op, 0)))],
            "arith.select" => vec![Stmt::Let(first, Expr::Select(self.operand(op, 0), self.operand(op, 1), self.operand(op, 2)))],
            "arith.cmpi" => match integer_attribute(op, "predicate").and_then(IntPredicate::of) {
                Some(predicate) => vec![Stmt::Let(first, Expr::Compare(predicate, self.operand(op, 0), self.operand(op, 1)))],
                None => vec![Stmt::Let(first, Expr::Data)],
            },
            "memref.dim" => {
                let tensor = op.operand(0).ok().and_then(|v| self.arguments.get(&key(v)).copied());
                let dim = self.operand(op, 1);
                match (tensor, self.constants.get(&dim)) {
                    (Some(argument), Some(&d)) if d >= 0 => vec![Stmt::Let(first, Expr::Dim(argument, d as usize))],
                    _ => vec![Stmt::Let(first, Expr::Data)],
                }
            }
            "scf.for" => {
                let site = self.site(op);
                let Some(body) = Self::block_of(op, 0) else { return Ok(vec![]) };
                let (lower, upper, step) = (self.operand(op, 0), self.operand(op, 1), self.operand(op, 2));
                let iv = body.argument(0).map(|a| self.reg(a.into())).unwrap_or(usize::MAX);
                let carried = (1..body.argument_count())
                    .filter_map(|i| body.argument(i).ok())
                    .enumerate()
                    .map(|(i, a)| (self.reg(a.into()), self.operand(op, 3 + i)))
                    .collect();
                let statements = self.block(body)?;
                let yields = self.yields(body);
                vec![Stmt::For { iv, lower, upper, step, carried, yields, results, body: statements, site }]
            }
            "scf.if" => {
                let site = self.site(op);
                let condition = self.operand(op, 0);
                let (mut then, mut then_yields, mut otherwise, mut else_yields) = (vec![], vec![], vec![], vec![]);
                if let Some(block) = Self::block_of(op, 0) {
                    then = self.block(block)?;
                    then_yields = self.yields(block);
                }
                if let Some(block) = Self::block_of(op, 1) {
                    otherwise = self.block(block)?;
                    else_yields = self.yields(block);
                }
                vec![Stmt::If { condition, then, then_yields, otherwise, else_yields, results, site }]
            }
            "csp.send" | "csp.recv" => {
                let site = self.site(op);
                let channel = self.channel_of(op)?;
                let index = self.index_of(op);
                let op_kind = if name == "csp.send" { Op::Send } else { Op::Recv };
                let mut statements = vec![Stmt::Event { channel, index, op: op_kind, site }];
                statements.extend(results.iter().map(|&r| Stmt::Let(r, Expr::Data)));
                statements
            }
            "csp.consume" => {
                let site = self.site(op);
                let channel = self.channel_of(op)?;
                let index = self.index_of(op);
                let mut statements = vec![Stmt::Event { channel, index, op: Op::Acquire, site }];
                if let Some(body) = Self::block_of(op, 0) {
                    let first_init = 1 + index.is_some() as usize;
                    for i in 0..body.argument_count() {
                        let Ok(argument) = body.argument(i) else { continue };
                        let reg = self.reg(argument.into());
                        let value = if i == 0 { Expr::Data } else { Expr::Copy(self.operand(op, first_init + i - 1)) };
                        statements.push(Stmt::Let(reg, value));
                    }
                    statements.extend(self.block(body)?);
                    let yields = self.yields(body);
                    statements.extend(results.iter().zip(yields).map(|(&r, y)| Stmt::Let(r, Expr::Copy(y))));
                }
                // The slot is held while the body runs.
                statements.push(Stmt::Event { channel, index, op: Op::Release, site });
                statements
            }
            "csp.process" | "csp.channel" => {
                return Err((op.location(), format!("'{name}' must be at the top of the program, not inside a process")));
            }
            _ if op.region_count() > 0 && has_channel_ops(op) => {
                let site = self.site(op);
                vec![Stmt::Opaque { site, why: format!("'{name}' repeats channel operations a number of times nothing can count before it runs") }]
            }
            _ => results.iter().map(|&r| Stmt::Let(r, Expr::Data)).collect(),
        })
    }
}

/// Whether `op`'s regions hold channel operations.
fn has_channel_ops(op: OperationRef) -> bool {
    let mut found = false;
    op.walk(WalkOrder::PreOrder, |inner| {
        if matches!(name_of(inner).as_str(), "csp.send" | "csp.recv" | "csp.consume") {
            found = true;
            return WalkResult::Interrupt;
        }
        WalkResult::Advance
    });
    found
}
