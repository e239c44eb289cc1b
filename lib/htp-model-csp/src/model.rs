//! The `csp` programming model: what `csp.<name>(...)` means inside a
//! `@csp.program` function. Channels (`channel`), processes (the block
//! `process`, the loop `processes` for replicas), and the channel
//! operations (`send`, `recv`, the block `consume`). Everything a process
//! computes is the kernel language's.

use htp_api::models::{arguments_of, results_of, Construct, ConstructSite, LoopBody, LoopConstructor, ModelIr, ModelType, ModelValue, ProgrammingModel, TensorView, ViewExtent};
use htp_dialects::tile::{TileType, ValidSize};
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

/// A positive compile-time integer argument.
fn positive(value: &ModelValue, what: &str) -> Result<i64, String> {
    match value {
        ModelValue::Int(n) if *n >= 1 => Ok(*n),
        ModelValue::Int(n) => Err(format!("{what} must be at least 1, got {n}")),
        _ => Err(format!("{what} must be a compile-time integer (a Python int)")),
    }
}

/// The `name=` keyword, or a name made of the construct's line.
fn name_of(site: &ConstructSite, default: &str) -> Result<String, String> {
    match site.keyword("name") {
        Some(ModelValue::Str(name)) if !name.is_empty() => Ok(name.clone()),
        Some(_) => Err("name= must be a non-empty string".into()),
        None => Ok(match htp_dialects::diagnostics::source_position(site.location) {
            Some(p) => format!("{default}@{}", p.line),
            None => default.to_string(),
        }),
    }
}

/// Keywords other than `allowed` are a mistake the user hears about.
fn only_keywords(site: &ConstructSite, allowed: &[&str]) -> Result<(), String> {
    match site.keywords.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        Some((other, _)) => Err(format!("takes no keyword '{other}' ({})", allowed.iter().map(|k| format!("{k}=")).collect::<Vec<_>>().join(", "))),
        None => Ok(()),
    }
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
    only_keywords(site, &["depth", "name", "count"])?;
    let [ModelValue::Type(element), ModelValue::Tuple(shape)] = site.positional else {
        return Err("takes the element type and the tile's shape: csp.channel(f32, (16, 64), depth=2)".into());
    };
    let [rows, cols] = shape.as_slice() else { return Err("a channel carries 2-D tiles: give its shape as (rows, columns)".into()) };
    let (rows, cols) = (positive(rows, "the tile's rows")?, positive(cols, "the tile's columns")?);
    if element.is_integer() && IntegerType::try_from(*element).is_ok_and(|i| i.width() == 1) {
        return Err("a channel carries numbers; send a mask as i8 (htp.cast)".into());
    }
    let depth = match site.keyword("depth") {
        Some(depth) => positive(depth, "depth=")?,
        None => return Err("takes depth= (how many tiles it holds before its sender blocks; 2 lets one be filled while one is used)".into()),
    };
    let count = site.keyword("count").map(|c| positive(c, "count=")).transpose()?.unwrap_or(1);
    let tile = TileType::new(site.context, rows, cols, *element).ok_or_else(|| format!("cannot make a {rows}x{cols} tile of {element}"))?;
    let ty = ChannelType::new(tile.into(), count);
    let name = name_of(site, "channel")?;
    let made = site.emit("csp.channel", &[], &[ty.r#type()], &[("name", string(site, &name)), ("depth", i64_attribute(site, depth))])?;
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
        Some(_) if ty.count() == 1 => return Err("at= indexes an array of channels (csp.channel(..., count=n)); this is one channel".into()),
        Some(ModelValue::Int(i)) if !(0..ty.count()).contains(i) => return Err(format!("at={i} is outside the array of {} channels", ty.count())),
        Some(value) => Some(index(site, value)?),
    };
    Ok((channel, ty, index))
}

fn index<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>) -> Result<ModelIr<'c>, String> {
    let index = Type::index(site.context);
    match value {
        ModelValue::Int(n) => Ok(site.emit("arith.constant", &[], &[index], &[("value", IntegerAttribute::new(index, *n).into())])?[0]),
        ModelValue::Value(v) if v.r#type() == index => Ok(*v),
        ModelValue::Value(v) if v.r#type().is_integer() => Ok(site.emit("arith.index_cast", &[*v], &[index], &[])?[0]),
        _ => Err("at= must be an integer (a replica or loop index)".into()),
    }
}

/// `x[i:i + 16, :]` as a value to send: the tile loaded from the view,
/// which must be whole (a channel carries whole tiles).
fn load_view<'c>(site: &ConstructSite<'c, '_>, view: &TensorView<'c>, element: TileType<'c>) -> Result<ModelIr<'c>, String> {
    if view.valid.iter().zip(view.shape).any(|(valid, full)| !matches!(valid, ViewExtent::Static(n) if *n == full)) {
        return Err(format!(
            "sends a block of {}x{} that may be cut by the tensor's edge; a channel carries whole {}s: pad it first (htp.pad(x[...], 0.0))",
            view.shape[0],
            view.shape[1],
            describe(element.into())
        ));
    }
    let tensor_element = melior::ir::r#type::MemRefType::try_from(view.tensor.r#type()).map_err(|_| "expected a tensor")?.element();
    let tile = TileType::new(site.context, view.shape[0], view.shape[1], tensor_element).ok_or("cannot make the view's tile")?;
    let mut operands = vec![view.tensor];
    operands.extend(view.offsets.iter().copied());
    let segments: Attribute = DenseI32ArrayAttribute::new(site.context, &[1, view.offsets.len() as i32, 0]).into();
    Ok(site.emit("tile.load", &operands, &[tile.into()], &[("operandSegmentSizes", segments)])?[0])
}

/// `csp.send(a, t, at=i)`.
fn send<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    only_keywords(site, &["at"])?;
    let [channel, value] = site.positional else { return Err("takes a channel and a tile: csp.send(a, t)".into()) };
    let (channel, ty, index) = endpoint(site, channel)?;
    let element = TileType::try_from(ty.element()).map_err(|_| "the channel carries no tiles")?;
    let value = match value {
        ModelValue::View(view) => load_view(site, view, element)?,
        ModelValue::Value(v) if TileType::try_from(v.r#type()).is_ok() => *v,
        _ => return Err(format!("sends a tile ({}) on this channel", describe(element.into()))),
    };
    let given = TileType::try_from(value.r#type()).map_err(|_| "sends a tile")?;
    if given.valid_size(0) != ValidSize::Static(given.rows()) || given.valid_size(1) != ValidSize::Static(given.cols()) {
        return Err(format!("sends a tile whose valid region is smaller than {}x{}: a channel carries whole tiles; pad it first (htp.pad)", given.rows(), given.cols()));
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
    only_keywords(site, &["at"])?;
    let [channel] = site.positional else { return Err("takes a channel: t = csp.recv(a)".into()) };
    let (channel, ty, index) = endpoint(site, channel)?;
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
    only_keywords(site, &["name"])?;
    if !site.positional.is_empty() {
        return Err("takes only name=: with csp.process(name=\"loader\"):".into());
    }
    process_body(site, &name_of(site, "process")?, 1, false)
}

/// `for w in csp.processes(4, name="worker"):`.
fn processes<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    only_keywords(site, &["name"])?;
    let [replicas] = site.positional else { return Err("takes the number of replicas: for w in csp.processes(4):".into()) };
    let replicas = positive(replicas, "the number of replicas")?;
    process_body(site, &name_of(site, "process")?, replicas, true)
}

/// `with csp.consume(a, at=i) as t:`.
fn consume<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    only_keywords(site, &["at"])?;
    let [channel] = site.positional else { return Err("takes a channel: with csp.consume(a) as t:".into()) };
    let (channel, ty, index) = endpoint(site, channel)?;
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
