//! The `csp` programming model: what `csp.<name>(...)` means inside a
//! `@csp.program` function. Channels (`channel`), processes (the block
//! `process`, the loop `processes` for replicas), and the channel
//! operations (`send`, `recv`, the block `consume`). Everything a process
//! computes is the kernel language's.

use htp_api::models::{arguments_of, results_of, Construct, ConstructSite, LoopBody, LoopConstructor, ModelIr, ModelType, ModelValue, ProgrammingModel, TensorView, ViewExtent};
use htp_dialects::tile::{TileType, ValidSize};
use melior::ir::{block::BlockLike, operation::OperationLike, AttributeLike};
use melior::ir::{
    attribute::{DenseI32ArrayAttribute, IntegerAttribute, StringAttribute},
    r#type::{IntegerType, ShapedTypeLike},
    Attribute, Type, TypeLike, ValueLike,
};

use crate::ir::ChannelType;

/// The model, as registered.
pub static CSP: ProgrammingModel = ProgrammingModel {
    name: crate::MODEL_NAME,
    namespace: "csp",
    description: "processes exchanging tiles through bounded channels, checked free of deadlock before they run (docs/csp.md)",
    entry_decorator: "program",
    dialects: &["csp", "tile", "scf", "arith", "memref"],
    rules: &["csp"],
    constructs: &[
        Construct { name: "channel", summary: "a channel of tiles: csp.channel(f32, (16, 64), depth=2, name=\"a\", count=1)", lower: channel },
        Construct { name: "send", summary: "send a tile, blocking while the channel is full: csp.send(a, t, at=i)", lower: send },
        Construct { name: "recv", summary: "receive the next tile, blocking while the channel is empty: t = csp.recv(a, at=i)", lower: recv },
    ],
    loops: &[LoopConstructor { name: "processes", summary: "for w in csp.processes(4, name=\"worker\"): four replicas of a process, each with its index", lower: processes }],
    blocks: &[
        LoopConstructor { name: "process", summary: "with csp.process(name=\"loader\"): a process of the program", lower: process },
        LoopConstructor { name: "consume", summary: "with csp.consume(a, at=i) as t: the next tile, its slot held while the body uses it", lower: consume },
    ],
    types: &[ModelType { name: "Channel", summary: "a channel (a parameter of a helper a process calls)", matches: is_channel }],
    pipeline: Some("csp-verify-protocol"),
    python: None,
};

fn is_channel(ty: Type) -> bool {
    ChannelType::of(ty).is_some()
}

fn i64_attribute<'c>(site: &ConstructSite<'c, '_>, value: i64) -> Attribute<'c> {
    IntegerAttribute::new(IntegerType::new(site.context, 64).into(), value).into()
}

fn string<'c>(site: &ConstructSite<'c, '_>, value: &str) -> Attribute<'c> {
    StringAttribute::new(site.context, value).into()
}

/// How diagnostics name a tile type: "16x64 f32 tile".
pub fn describe(ty: Type) -> String {
    match TileType::try_from(ty) {
        Ok(tile) => format!("{}x{} {} tile", tile.rows(), tile.cols(), tile.element_type()),
        Err(_) => ty.to_string(),
    }
}

/// `csp.channel(f32, (16, 64), depth=2, name="a", count=1)`.
fn channel<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    site.only_keywords(&["depth", "name", "count", "pad"])?;
    let [ModelValue::Type(element), ModelValue::Tuple(shape)] = site.positional else {
        return Err("takes the element type and the tile's shape: csp.channel(f32, (16, 64), depth=2)".into());
    };
    let [rows, cols] = shape.as_slice() else { return Err("a channel carries 2-D tiles: give its shape as (rows, columns)".into()) };
    let (rows, cols) = (rows.positive("the tile's rows")?, cols.positive("the tile's columns")?);
    if element.is_integer() && IntegerType::try_from(*element).is_ok_and(|i| i.width() == 1) {
        return Err("a channel carries numbers; send a mask as i8 (htp.cast)".into());
    }
    let depth = match site.keyword("depth") {
        Some(depth) => depth.positive("depth=")?,
        None => return Err("takes depth= (how many tiles it holds before its sender blocks; 2 lets one be filled while one is used)".into()),
    };
    let count = site.keyword("count").map(|c| c.positive("count=")).transpose()?.unwrap_or(1);
    let tile = TileType::new(site.context, rows, cols, *element).ok_or_else(|| format!("cannot make a {rows}x{cols} tile of {element}"))?;
    let ty = ChannelType::new(tile.into(), count);
    let name = site.name_or_line("channel")?;
    let mut attributes = vec![("name", string(site, &name)), ("depth", i64_attribute(site, depth))];
    if let Some(pad) = site.keyword("pad") {
        attributes.push(("pad", scalar_attribute(site, pad, *element)?));
    }
    let made = site.emit("csp.channel", &[], &[ty.r#type()], &attributes)?;
    Ok(ModelValue::Value(made[0]))
}

/// The channel argument of send/recv/consume and its `at=` index.
fn endpoint<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>) -> Result<(ModelIr<'c>, ChannelType<'c>, Option<ModelIr<'c>>), String> {
    let channel = match value {
        ModelValue::Value(v) => ChannelType::of(v.r#type()).map(|ty| (*v, ty)),
        _ => None,
    };
    let Some((channel, ty)) = channel else { return Err("takes a channel (made by csp.channel) first".into()) };
    let index = match site.keyword("at") {
        None if ty.count() > 1 => return Err(format!("the channel is an array of {}: say which with at=", ty.count())),
        None => None,
        Some(ModelValue::Int(i)) if !(0..ty.count()).contains(i) => return Err(format!("at={i} is outside the array of {} channels", ty.count())),
        Some(value) => Some(index(site, value)?),
    };
    Ok((channel, ty, index))
}

fn index<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>) -> Result<ModelIr<'c>, String> {
    site.index(value)?.ok_or_else(|| "at= must be an integer (a replica or loop index)".to_string())
}

/// `x[i:i + 16, :]` as a value to send: the tile loaded from the view
/// (with its valid region where the tensor's edge may cut it).
fn load_view<'c>(site: &ConstructSite<'c, '_>, view: &TensorView<'c>, padded: bool) -> Result<ModelIr<'c>, String> {
    // A block one element wide is whole wherever it is inside the tensor
    // (outside, the load is an index error): never cut.
    let mut view = view.clone();
    for d in 0..2 {
        if view.shape[d] == 1 {
            view.valid[d] = ViewExtent::Static(1);
        }
    }
    let view = &view;
    let cut = view.valid.iter().zip(view.shape).any(|(valid, full)| !matches!(valid, ViewExtent::Static(n) if *n == full));
    if cut && !padded {
        return Err(format!(
            "sends a block of {}x{} that may be cut by the tensor's edge; a channel carries whole tiles: \
             declare the channel with pad=0.0 (a cut block travels padded) or pad it here (htp.pad(x[...], 0.0))",
            view.shape[0], view.shape[1]
        ));
    }
    let tensor_element = melior::ir::r#type::MemRefType::try_from(view.tensor.r#type()).map_err(|_| "expected a tensor")?.element();
    let valid = |extent: &ViewExtent<'c>| match extent {
        ViewExtent::Static(n) => n.to_string(),
        ViewExtent::Dynamic(_) => "?".into(),
    };
    let text = if cut {
        format!("!tile.tile<{}x{}x{tensor_element}, valid = {}x{}>", view.shape[0], view.shape[1], valid(&view.valid[0]), valid(&view.valid[1]))
    } else {
        format!("!tile.tile<{}x{}x{tensor_element}>", view.shape[0], view.shape[1])
    };
    let tile = Type::parse(site.context, &text).ok_or("cannot make the view's tile")?;
    let mut operands = vec![view.tensor];
    operands.extend(view.offsets.iter().copied());
    let sizes: Vec<ModelIr<'c>> = view.valid.iter().filter_map(|e| match e {
        ViewExtent::Dynamic(v) => Some(*v),
        ViewExtent::Static(_) => None,
    }).collect();
    let segments: Attribute = DenseI32ArrayAttribute::new(site.context, &[1, view.offsets.len() as i32, sizes.len() as i32]).into();
    operands.extend(sizes);
    Ok(site.emit("tile.load", &operands, &[tile], &[("operandSegmentSizes", segments)])?[0])
}

/// `tile` padded to its whole shape with the channel's `pad` value.
fn pad_tile<'c>(site: &ConstructSite<'c, '_>, tile: ModelIr<'c>, pad: Attribute<'c>) -> Result<ModelIr<'c>, String> {
    let given = TileType::try_from(tile.r#type()).map_err(|_| "pads a tile")?;
    let full = TileType::new(site.context, given.rows(), given.cols(), given.element_type()).ok_or("cannot make the padded tile")?;
    let pad_type = unsafe { Type::from_raw(mlir_sys::mlirAttributeGetType(pad.to_raw())) };
    let value = site.emit("arith.constant", &[], &[pad_type], &[("value", pad)])?[0];
    Ok(site.emit("tile.pad", &[tile, value], &[full.into()], &[])?[0])
}

/// The `pad=` value as an attribute of the channel's element type.
fn scalar_attribute<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>, element: Type<'c>) -> Result<Attribute<'c>, String> {
    use melior::ir::attribute::FloatAttribute;
    match value {
        ModelValue::Int(n) if element.is_integer() => Ok(IntegerAttribute::new(element, *n).into()),
        ModelValue::Int(n) if htp_ir::builder::is_float(element) => Ok(FloatAttribute::new(site.context, element, *n as f64).into()),
        ModelValue::Float(f) if htp_ir::builder::is_float(element) => Ok(FloatAttribute::new(site.context, element, *f).into()),
        _ => Err(format!("pad= is the {element} value a cut tile is padded with (a Python number)")),
    }
}

/// The `csp.process` op enclosing `op`, if its regions reach one.
fn process_of<'c>(op: melior::ir::OperationRef<'c, '_>) -> Option<melior::ir::OperationRef<'c, 'c>> {
    let mut current = op.parent_operation();
    while let Some(parent) = current {
        if parent.name().as_string_ref().as_str() == Ok("csp.process") {
            return Some(unsafe { melior::ir::OperationRef::from_raw(parent.to_raw()) });
        }
        current = parent.parent_operation();
    }
    None
}

/// One sending and one receiving process per channel, checked as the
/// program is lowered so that the error is at the user's line (the
/// dialect's verifier holds the same rule for IR written by hand). The
/// process being lowered is the program's last one; the earlier ones are
/// whole.
fn one_process_per_end(channel: ModelIr, sends: bool) -> Result<(), String> {
    let Some(made) = htp_ir::query::defining_op(channel) else { return Ok(()) };
    let Some(body) = made.block() else { return Ok(()) };
    let mut current = None;
    let mut op = body.first_operation();
    while let Some(candidate) = op {
        if candidate.name().as_string_ref().as_str() == Ok("csp.process") {
            current = Some(unsafe { melior::ir::OperationRef::from_raw(candidate.to_raw()) });
        }
        op = candidate.next_in_block();
    }
    let Some(current) = current else { return Ok(()) };
    let name = |p: melior::ir::OperationRef| crate::ir::string_attribute(p, "name").unwrap_or_default();
    let channel_name = crate::ir::string_attribute(made, "name").unwrap_or_default();
    let role = if sends { "sends on" } else { "receives from" };
    let replicas = crate::ir::integer_attribute(current, "replicas").unwrap_or(1);
    if replicas > 1 && ChannelType::of(channel.r#type()).is_some_and(|t| t.count() == 1) {
        return Err(format!(
            "the {replicas} replicas of process '{}' would all {} channel '{channel_name}': give each replica its own channel \
             (csp.channel(..., count={replicas}) and at=the replica's index)",
            name(current),
            if sends { "send on" } else { "receive from" }
        ));
    }
    // Elements of an array may have different processes at their ends:
    // the protocol's play checks them one by one.
    if ChannelType::of(channel.r#type()).is_some_and(|t| t.count() > 1) {
        return Ok(());
    }
    for user in htp_ir::query::uses(channel) {
        let user_sends = user.name().as_string_ref().as_str() == Ok("csp.send");
        if user_sends != sends {
            continue;
        }
        if let Some(other) = process_of(user).filter(|p| p.to_raw().ptr != current.to_raw().ptr) {
            return Err(format!(
                "process '{}' {role} channel '{channel_name}', which process '{}' already {role}: a channel has one sending and one receiving process",
                name(current),
                name(other)
            ));
        }
    }
    Ok(())
}

/// `csp.send(a, t, at=i)`.
fn send<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    site.only_keywords(&["at"])?;
    let [channel, value] = site.positional else { return Err("takes a channel and a tile: csp.send(a, t)".into()) };
    let (channel, ty, index) = endpoint(site, channel)?;
    one_process_per_end(channel, true)?;
    let element = TileType::try_from(ty.element()).map_err(|_| "the channel carries no tiles")?;
    let pad = htp_ir::query::defining_op(channel).and_then(|made| made.attribute("pad").ok());
    let mut value = match value {
        ModelValue::View(view) => load_view(site, view, pad.is_some())?,
        ModelValue::Value(v) if TileType::try_from(v.r#type()).is_ok() => *v,
        _ => return Err(format!("sends a tile ({}) on this channel", describe(element.into()))),
    };
    let given = TileType::try_from(value.r#type()).map_err(|_| "sends a tile")?;
    if given.valid_size(0) != ValidSize::Static(given.rows()) || given.valid_size(1) != ValidSize::Static(given.cols()) {
        let Some(pad) = pad else {
            return Err(format!(
                "sends a {}x{} tile that may be cut by a tensor's edge (its valid region is smaller); a channel carries whole tiles: \
                 declare the channel with pad=0.0 (a cut tile travels padded) or pad it here (htp.pad(t, 0.0))",
                given.rows(),
                given.cols()
            ));
        };
        value = pad_tile(site, value, pad)?;
    }
    if value.r#type() != ty.element() {
        return Err(format!("sends a {} on a channel of {}s", describe(value.r#type()), describe(ty.element())));
    }
    let mut operands = vec![channel];
    operands.extend(index);
    operands.push(value);
    site.emit("csp.send", &operands, &[], &[])?;
    Ok(ModelValue::None)
}

/// `t = csp.recv(a, at=i)`.
fn recv<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    site.only_keywords(&["at"])?;
    let [channel] = site.positional else { return Err("takes a channel: t = csp.recv(a)".into()) };
    let (channel, ty, index) = endpoint(site, channel)?;
    one_process_per_end(channel, false)?;
    let mut operands = vec![channel];
    operands.extend(index);
    Ok(ModelValue::Value(site.emit("csp.recv", &operands, &[ty.element()], &[])?[0]))
}

/// A process body: nothing carried (processes share no variables).
fn process_body<'c>(site: &ConstructSite<'c, '_>, name: &str, replicas: i64, indexed: bool) -> Result<LoopBody<'c>, String> {
    if !site.carried.is_empty() {
        return Err("a process cannot change the program's variables (processes share nothing but channels)".into());
    }
    let arguments = if indexed { vec![Type::index(site.context)] } else { vec![] };
    let (_, block) = site.emit_loop("csp.process", &[], &[], &[("name", string(site, name)), ("replicas", i64_attribute(site, replicas))], &arguments)?;
    Ok(LoopBody { block, target: arguments_of(block), carried: vec![], results: vec![], terminator: Some("csp.yield") })
}

/// `with csp.process(name="loader"):`.
fn process<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    site.only_keywords(&["name"])?;
    if !site.positional.is_empty() {
        return Err("takes only name=: with csp.process(name=\"loader\"):".into());
    }
    process_body(site, &site.name_or_line("process")?, 1, false)
}

/// `for w in csp.processes(4, name="worker"):`.
fn processes<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    site.only_keywords(&["name"])?;
    let [replicas] = site.positional else { return Err("takes the number of replicas: for w in csp.processes(4):".into()) };
    let replicas = replicas.positive("the number of replicas")?;
    process_body(site, &site.name_or_line("process")?, replicas, true)
}

/// `with csp.consume(a, at=i) as t:`.
fn consume<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    site.only_keywords(&["at"])?;
    let [channel] = site.positional else { return Err("takes a channel: with csp.consume(a) as t:".into()) };
    let (channel, ty, index) = endpoint(site, channel)?;
    one_process_per_end(channel, false)?;
    let mut operands = vec![channel];
    operands.extend(index);
    operands.extend(site.carried.iter().copied());
    let carried = site.carried_types();
    let mut arguments = vec![ty.element()];
    arguments.extend(carried.iter().copied());
    let segments: Attribute = DenseI32ArrayAttribute::new(site.context, &[1, index.is_some() as i32, site.carried.len() as i32]).into();
    let (op, block) = site.emit_loop("csp.consume", &operands, &carried, &[("operandSegmentSizes", segments)], &arguments)?;
    let values = arguments_of(block);
    Ok(LoopBody { block, target: vec![values[0]], carried: values[1..].to_vec(), results: results_of(op), terminator: Some("csp.yield") })
}
