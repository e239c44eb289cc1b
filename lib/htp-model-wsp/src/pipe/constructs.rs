//! The pipe constructs of the `wsp` model: `wsp.channel`, the blocks
//! `wsp.pipe`, `wsp.process`, `wsp.produce` and `wsp.consume`, and
//! `wsp.send` (a produce whose one task takes the slot last).

use htp_api::models::{arguments_of, ConstructSite, LoopBody, ModelValue};
use melior::ir::{
    attribute::StringAttribute,
    r#type::{IntegerType, MemRefType, ShapedTypeLike},
    Type, TypeLike, ValueLike,
};

/// `wsp.channel(f32, (16, 64), depth=2, name="staged")`: the ring.
pub fn channel<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    site.only_keywords(&["depth", "name"])?;
    let [ModelValue::Type(element), ModelValue::Tuple(shape)] = site.positional else {
        return Err("takes the element type and the shape of what it carries: wsp.channel(f32, (16, 64), depth=2)".into());
    };
    if element.is_integer() && IntegerType::try_from(*element).is_ok_and(|i| i.width() == 1) {
        return Err("a channel carries numbers; carry a mask as i8".into());
    }
    if shape.is_empty() {
        return Err("a channel carries tensors: give their shape, (rows, columns)".into());
    }
    let depth = match site.keyword("depth") {
        Some(depth) => depth.positive("depth=")?,
        None => return Err("takes depth= (how many tensors it holds; 2 lets one be filled while one is read)".into()),
    };
    let mut dims = vec![depth];
    for (d, extent) in shape.iter().enumerate() {
        dims.push(extent.positive(&format!("extent {d} of the shape"))?);
    }
    let ring: Type = MemRefType::new(*element, &dims, None, None).into();
    let name = StringAttribute::new(site.context, &site.name_or_line("channel")?).into();
    Ok(ModelValue::Value(site.emit("wsp.channel", &[], &[ring], &[("name", name)])?[0]))
}

/// The channel argument of produce/consume/send and its slot's type.
fn slot_of<'c>(value: &ModelValue<'c>, usage: &str) -> Result<(htp_api::models::ModelIr<'c>, Type<'c>), String> {
    let channel = match value {
        ModelValue::Value(v) if htp_ir::query::defining_op(htp_ir::builder::detach(*v)).is_some_and(|op| crate::ir::name_of(op) == "wsp.channel") => *v,
        _ => return Err(format!("takes a channel (made by wsp.channel) first: {usage}")),
    };
    let ring = MemRefType::try_from(channel.r#type()).map_err(|_| "a channel's ring is a tensor")?;
    let dims = htp_ir::builder::shape_of(channel.r#type());
    Ok((channel, MemRefType::new(ring.element(), &dims[1..], None, None).into()))
}

/// A block whose body only issues tasks: it carries no variables.
fn no_carried(site: &ConstructSite, what: &str) -> Result<(), String> {
    if site.carried.is_empty() {
        Ok(())
    } else {
        Err(format!("a {what} block cannot change variables of the workload (tasks communicate through tensors)"))
    }
}

/// `with wsp.pipe():`.
pub fn pipe<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    if !site.positional.is_empty() || !site.keywords.is_empty() {
        return Err("takes no arguments: with wsp.pipe():".into());
    }
    no_carried(site, "wsp.pipe")?;
    let (_, block) = site.emit_loop("wsp.pipe", &[], &[], &[], &[])?;
    Ok(LoopBody { block, target: vec![], carried: vec![], results: vec![], terminator: Some("wsp.yield") })
}

/// `with wsp.process(name="load"):`.
pub fn process<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    site.only_keywords(&["name"])?;
    if !site.positional.is_empty() {
        return Err("takes only name=: with wsp.process(name=\"load\"):".into());
    }
    no_carried(site, "wsp.process")?;
    let name = StringAttribute::new(site.context, &site.name_or_line("process")?).into();
    let (_, block) = site.emit_loop("wsp.process", &[], &[], &[("name", name)], &[])?;
    Ok(LoopBody { block, target: vec![], carried: vec![], results: vec![], terminator: Some("wsp.yield") })
}

/// `with wsp.produce(c) as slot:` / `with wsp.consume(c) as t:`.
fn slot_block<'c>(site: &ConstructSite<'c, '_>, op: &str, usage: &str) -> Result<LoopBody<'c>, String> {
    site.only_keywords(&[])?;
    let [channel] = site.positional else { return Err(format!("takes a channel: {usage}")) };
    let (channel, slot) = slot_of(channel, usage)?;
    no_carried(site, op)?;
    let (_, block) = site.emit_loop(op, &[channel], &[], &[], &[slot])?;
    Ok(LoopBody { block, target: arguments_of(block), carried: vec![], results: vec![], terminator: Some("wsp.yield") })
}

pub fn produce<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    slot_block(site, "wsp.produce", "with wsp.produce(c) as slot:")
}

pub fn consume<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    slot_block(site, "wsp.consume", "with wsp.consume(c) as t:")
}

/// `wsp.send(c, kernel, args..., keys=...)`: a produce whose task passes
/// the slot as the kernel's last tensor parameter (the arguments fill the
/// others, in order).
pub fn send<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    const USAGE: &str = "wsp.send(c, kernel, arguments...): the kernel writes the slot, its last tensor parameter";
    let Some((channel, task)) = site.positional.split_first() else { return Err(format!("takes a channel and a kernel: {USAGE}")) };
    let Some(ModelValue::Function(kernel)) = task.first() else {
        return Err(format!("takes the kernel after the channel: {USAGE}"));
    };
    let (channel, slot) = slot_of(channel, USAGE)?;
    let (op, block) = site.emit_loop("wsp.produce", &[channel], &[], &[], &[slot])?;
    let inside = site.within(block);
    // The slot is the kernel's last tensor parameter (scalars may follow it).
    let parameters = crate::model::kernel_parameters(site, kernel)?;
    let at = parameters.iter().rposition(|p| p.is_mem_ref()).ok_or_else(|| format!("'{kernel}' takes no tensor to write the slot into: {USAGE}"))?;
    let mut positional = task.to_vec();
    if at + 1 > positional.len() {
        return Err(format!("passes {} arguments to '{kernel}', which takes {} besides the slot", task.len() - 1, parameters.len() - 1));
    }
    positional.insert(at + 1, ModelValue::Value(arguments_of(block)[0]));
    // (The produce op is verified with the workload: the front end is still building its parents.)
    let built = crate::model::task(&inside.with_arguments(&positional, site.keywords)).and_then(|_| inside.emit("wsp.yield", &[], &[], &[]).map(|_| ()));
    if let Err(why) = built {
        unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
        return Err(why);
    }
    Ok(ModelValue::None)
}
