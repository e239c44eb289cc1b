//! The capability model: every target declares what it provides (named
//! capabilities: `model:kernel`, `intrinsic:pto.tadd`, ...); a program needs
//! what its IR uses. [`check`] compares the two before any lowering and
//! turns the first unmet need into a diagnostic at the user's line that
//! needed it, naming the targets that provide it.

use htp_dialects::diagnostics::{source_position, MlirError};
use htp_dialects::ods::{tile, view};
use crate::intrinsics::intrinsic_sets;
use melior::ir::{
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    r#type::ShapedTypeLike,
    Location, Module, RegionLike, ValueLike,
};

use crate::{registry::targets, Target};

/// The programming model of `@htp.kernel` functions (tile IR).
pub const KERNEL_MODEL: &str = "model:kernel";
/// Every tile op (`op:tile.<name>` names one).
pub const ALL_TILE_OPS: &str = "op:tile.*";
/// Every element type (`dtype:<type>` names one: `dtype:f32`, `dtype:i1`).
pub const ALL_DTYPES: &str = "dtype:*";

/// Every layout (`layout:<facet>` names one facet, `layout:axe` a layout no
/// registered facet names).
pub const ALL_LAYOUTS: &str = "layout:*";
/// The need of a tile layout no registered facet names.
pub const UNNAMED_LAYOUT: &str = "layout:axe";
/// The need of a kernel taking a communication window (`comm.Window[...]`):
/// memory the target allocates in every chip of a group for each run, which
/// the `comm` set's puts and signals address on a peer.
pub const WINDOW: &str = "intrinsic:comm.window";
/// The suffix of a strided access's need: `op:tile.load.strided` for a
/// `tile.load` with `strides` (a slice with a step), which a target
/// providing `op:tile.load` does not provide by that.
pub const STRIDED: &str = ".strided";

/// What the in-tree backends provide of the kernel language: the model,
/// every tile op and every element type (their own passes report the
/// limits of a particular instruction at the user's line).
pub fn whole_kernel_language() -> Vec<String> {
    vec![KERNEL_MODEL.to_string(), ALL_TILE_OPS.to_string(), ALL_DTYPES.to_string()]
}

/// Whether `provided` covers `capability`: the same name, or a pattern
/// ending in `*` that is a prefix of it.
pub fn provides(provided: &[String], capability: &str) -> bool {
    provided.iter().any(|p| p == capability || p.strip_suffix('*').is_some_and(|prefix| capability.starts_with(prefix)))
}

/// What `target` provides: its own capabilities and those of its
/// registered extensions (`crate::extensions`).
pub fn provided(target: &dyn Target) -> Vec<String> {
    let mut provided = target.capabilities();
    for extension in crate::extensions::target_extensions(target.name()) {
        provided.extend(extension.capabilities);
    }
    provided
}

/// Dialects every target's input may use without declaring them: the tile
/// dialect and the upstream dialects the front end builds kernels with.
const CORE_DIALECTS: &[&str] = &["builtin", "func", "arith", "scf", "memref", "math", "tile"];

/// One need of a program: the capability and the op that needs it.
pub struct Need<'c> {
    pub capability: String,
    pub location: Location<'c>,
}

/// What `module` needs, in op order (first need first).
pub fn needs<'c>(module: &Module<'c>) -> Vec<Need<'c>> {
    let mut needs = Vec::new();
    // Classifying a layout asks every facet (an extension's may be Python):
    // once per type, not per op.
    let mut layouts: std::collections::HashMap<usize, Option<String>> = std::collections::HashMap::new();
    module.as_operation().walk(WalkOrder::PreOrder, |op| {
        let name = op.name().as_string_ref().as_str().unwrap_or("").to_string();
        let capability = match name.as_str() {
            "func.func" if op.attribute("htp.kernel").is_ok() => Some(KERNEL_MODEL.to_string()),
            // A function of a registered programming model (`crate::models`).
            "func.func" if op.attribute(crate::models::MODEL_ATTRIBUTE).is_ok() => op
                .attribute(crate::models::MODEL_ATTRIBUTE)
                .ok()
                .and_then(|a| melior::ir::attribute::StringAttribute::try_from(a).ok())
                .map(|model| format!("model:{}", model.value())),
            "tile.intrinsic" => view::<tile::IntrinsicOperation>(op)
                .and_then(|intrinsic| intrinsic.callee().ok())
                .map(|callee| format!("intrinsic:{}", callee.value())),
            "tile.intrinsic_effect" => view::<tile::IntrinsicEffectOperation>(op)
                .and_then(|intrinsic| intrinsic.callee().ok())
                .map(|callee| format!("intrinsic:{}", callee.value())),
            // A load or store with a step (`x[:, 0::2]`) is a capability of its own.
            "tile.load" | "tile.store" if htp_dialects::tile::access_strides(op) != [1, 1] => Some(format!("op:{name}{STRIDED}")),
            tile if tile.starts_with("tile.") => Some(format!("op:{tile}")),
            _ => {
                let dialect = name.split('.').next().unwrap_or("");
                (!CORE_DIALECTS.contains(&dialect)).then(|| format!("dialect:{dialect}"))
            }
        };
        // Locations live as long as the context; melior ties them to the op borrow.
        let location = unsafe { Location::from_raw(op.location().to_raw()) };
        if let Some(capability) = capability {
            needs.push(Need { capability, location });
        }
        // A kernel's tensors laid out other than row-major, and its
        // communication windows (`comm.Window[...]`), at the parameter.
        // A model's function (a workload) taking windows, at the parameter too.
        let kernel = op.attribute("htp.kernel").is_ok();
        if name == "func.func" && (kernel || op.attribute(crate::models::MODEL_ATTRIBUTE).is_ok()) {
            let windows = crate::signature::declared_arguments(op, crate::signature::WINDOWS_ATTRIBUTE);
            if let Some(entry) = op.region(0).ok().and_then(|r| r.first_block()) {
                for index in 0..entry.argument_count() {
                    let Ok(argument) = entry.argument(index) else { continue };
                    let window = windows.contains(&(index as i64)).then(|| WINDOW.to_string());
                    if let Some(capability) = window.or_else(|| kernel.then(|| tensor_layout_need(argument.r#type())).flatten()) {
                        if !needs.iter().any(|n| n.capability == capability) {
                            let location = htp_ir::query::value_location(htp_ir::builder::detach(argument.into()));
                            // As above: the location lives as long as the context.
                            let location = unsafe { Location::from_raw(location.to_raw()) };
                            needs.push(Need { capability, location });
                        }
                    }
                }
            }
        }
        // The element types and layouts of the tiles and tensors it makes.
        for index in 0..op.result_count() {
            let Ok(result) = op.result(index) else { continue };
            let ty = result.r#type();
            let layout = layouts.entry(melior::ir::TypeLike::to_raw(&ty).ptr as usize).or_insert_with(|| layout_need(ty)).clone();
            let made = [element_type(ty).map(|e| format!("dtype:{e}")), layout];
            for capability in made.into_iter().flatten() {
                if !needs.iter().any(|n| n.capability == capability) {
                    needs.push(Need { capability, location });
                }
            }
        }
        WalkResult::Advance
    });
    needs
}

/// `layout:<facet>` for a tile laid out as a registered facet lays it
/// out, `layout:axe` for another layout, nothing for a tile without one.
fn layout_need(ty: melior::ir::Type) -> Option<String> {
    let tile = htp_dialects::tile::TileType::try_from(ty).ok()?;
    let layout = tile.layout()?;
    let bits = htp_ir::builder::bit_width(tile.element_type());
    Some(match htp_dialects::layout::classify(&layout, tile.rows(), tile.cols(), bits) {
        Some(facet) => format!("layout:{facet}"),
        None => UNNAMED_LAYOUT.to_string(),
    })
}

/// `layout:col_major` for a tensor (memref) in Fortran order (the first
/// dimension contiguous, `strided<[1, ?, ...]>`), `layout:strided` for
/// other strides; nothing for a row-major one.
fn tensor_layout_need(ty: melior::ir::Type) -> Option<String> {
    htp_ir::builder::explicit_strides(ty)?;
    Some(if htp_ir::builder::is_column_major(ty) { "layout:col_major".into() } else { "layout:strided".into() })
}

/// The element type of a tile or memref type.
fn element_type(ty: melior::ir::Type) -> Option<String> {
    if let Ok(tile) = htp_dialects::tile::TileType::try_from(ty) {
        return Some(tile.element_type().to_string());
    }
    melior::ir::r#type::MemRefType::try_from(ty).ok().map(|m| m.element().to_string())
}

/// Checks `module`'s needs against `target`: the first unmet one is an error
/// at its op's location.
pub fn check(module: &Module, target: &dyn Target) -> Result<(), MlirError> {
    let available = provided(target);
    let Some(unmet) = needs(module).into_iter().find(|need| !provides(&available, &need.capability)) else {
        return Ok(());
    };
    let providers: Vec<&str> =
        targets().into_iter().filter(|t| provides(&provided(*t), &unmet.capability)).map(|t| t.name()).collect();
    let offer = if providers.is_empty() {
        "no registered target provides it".to_string()
    } else {
        format!("targets that provide it: {}", providers.join(", "))
    };
    Err(MlirError {
        position: source_position(unmet.location),
        message: format!("{} is not available on target '{}' ({offer})", describe(&unmet.capability), target.name()),
    })
}

/// A capability as users know it: an intrinsic by its Python name.
pub fn describe(capability: &str) -> String {
    if let Some(op) = capability.strip_prefix("intrinsic:") {
        for set in intrinsic_sets() {
            if let Some(intrinsic) = set.intrinsics.iter().find(|i| i.op == op) {
                return format!("the intrinsic {}.{} ({op})", set.namespace, intrinsic.name);
            }
        }
        if capability == WINDOW {
            return "a communication window parameter (comm.Window)".to_string();
        }
        return format!("the intrinsic {op}");
    }
    if let Some(dialect) = capability.strip_prefix("dialect:") {
        return format!("the '{dialect}' dialect");
    }
    if let Some(op) = capability.strip_prefix("op:") {
        if let Some(access) = op.strip_suffix(STRIDED) {
            return format!("a strided '{access}' (a tensor slice with a step, x[:, 0::2])");
        }
        return format!("the tile op '{op}'");
    }
    if let Some(element) = capability.strip_prefix("dtype:") {
        return format!("the element type {element}");
    }
    if capability == UNNAMED_LAYOUT {
        return "a tile layout no registered layout facet names".to_string();
    }
    if let Some(facet) = capability.strip_prefix("layout:") {
        return format!("the layout '{facet}'");
    }
    if let Some(model) = capability.strip_prefix("model:") {
        return format!("the '{model}' programming model");
    }
    capability.to_string()
}

/// The names of the targets whose capabilities cover what `module` needs.
pub fn targets_for(module: &Module) -> Vec<&'static str> {
    let needed: Vec<String> = needs(module).into_iter().map(|n| n.capability).collect();
    targets()
        .into_iter()
        .filter(|t| {
            let available = provided(*t);
            needed.iter().all(|n| provides(&available, n))
        })
        .map(|t| t.name())
        .collect()
}
