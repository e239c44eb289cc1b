//! The pto-runtime package of a lowered module: one PTO-ISA C++ source per
//! `pto.core` kernel, the orchestration source, the IR of every stage and
//! `manifest.json` (docs/targets/pto.md).

use std::collections::HashMap;

use melior::ir::{
    attribute::{FlatSymbolRefAttribute, StringAttribute},
    block::BlockLike,
    operation::{OperationLike, WalkOrder, WalkResult},
    r#type::{DimSize, MemRefType},
    Module, OperationRef, RegionLike, ShapedTypeLike, TypeLike, ValueLike,
};
use serde::Serialize;

use super::{kernel, orchestration, writer};
use crate::Flavour;
use crate::ods::pto;
use crate::ops::{PtoOp, CORE_ATTRIBUTE, ORCHESTRATION_ATTRIBUTE};

/// A generated package: relative path -> contents.
pub struct Package {
    pub files: Vec<(String, String)>,
}

/// One argument of the program, for the manifest.
pub struct ArgumentInfo {
    pub name: String,
    /// "tensor" or "scalar".
    pub kind: &'static str,
    /// numpy dtype name.
    pub dtype: String,
    /// The shape, tensors only (empty for scalars).
    pub shape: Vec<Dim>,
}

/// One dimension of a tensor argument: a size, or the name of a size known
/// at run time (`"N"`, or `"?"` when nothing names it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Dim {
    Static(i64),
    Symbol(String),
}

/// `manifest.json` (format `htp-pto-package/1`, docs/targets/pto.md).
#[derive(Serialize)]
pub struct Manifest {
    pub format: &'static str,
    pub htp_version: &'static str,
    pub target: &'static str,
    pub platform: &'static str,
    pub runtime: &'static str,
    pub program: String,
    pub arguments: Vec<ManifestArgument>,
    pub orchestration: ManifestOrchestration,
    pub kernels: Vec<ManifestKernel>,
    /// `CallConfig.runtime_env` settings a run of the package needs
    /// (`ring_task_window`, ...): the entry's [`RUNTIME_ENV_ATTRIBUTE`].
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "optional_ordered_numbers")]
    pub runtime_env: Option<Vec<(String, i64)>>,
    /// Stage name -> the path of its IR, in pipeline order.
    #[serde(serialize_with = "ordered_map")]
    pub ir: Vec<(String, String)>,
}

#[derive(Serialize)]
pub struct ManifestArgument {
    pub name: String,
    pub kind: &'static str,
    pub dtype: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Vec<Dim>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<String>,
    /// `"window"`: a communication window the runner allocates on every
    /// chip of a group for each run (no caller passes it); `"context"`: the
    /// scalar that receives the chip's `CommContext` address
    /// (`conversion/comm.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comm: Option<String>,
}

#[derive(Serialize)]
pub struct ManifestOrchestration {
    pub source: String,
    pub function: &'static str,
}

#[derive(Serialize)]
pub struct ManifestKernel {
    pub func_id: usize,
    pub name: String,
    pub source: String,
    pub core_type: String,
    pub signature: Vec<&'static str>,
}

fn optional_ordered_numbers<S: serde::Serializer>(entries: &Option<Vec<(String, i64)>>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(entries.iter().flatten().map(|(k, v)| (k, v)))
}

/// An orchestration function's dictionary of integers that a run of the
/// package sets in pto-runtime's `CallConfig.runtime_env`
/// (`{ring_task_window = 64}`), written to the manifest's `runtime_env`.
pub const RUNTIME_ENV_ATTRIBUTE: &str = "pto.runtime_env";

/// An argument attribute of the entry orchestration: the tensor's
/// direction (`"in"`, `"out"`, `"inout"`) when its tasks receive views of
/// it, which the package cannot read off the entry's own `pto.submit`s.
pub const DIRECTION_ATTRIBUTE: &str = "pto.direction";

/// Makes `function` an entry orchestration a conversion built (WSP's
/// workloads, CSP's task programs): marks it `pto.orchestration`, adds
/// each tensor argument's [`DIRECTION_ATTRIBUTE`] (`directions[i]`, `None`
/// for a scalar) to the argument attributes it has, and records a task
/// window other than the runtime's default in [`RUNTIME_ENV_ATTRIBUTE`].
pub fn mark_entry(context: &melior::Context, function: OperationRef, directions: &[Option<&str>], window: Option<i64>) -> Result<(), String> {
    use melior::ir::operation::OperationMutLike;
    let existing = function.attribute("arg_attrs").ok().and_then(|a| melior::ir::attribute::ArrayAttribute::try_from(a).ok());
    let mut argument_attributes = Vec::new();
    for (index, direction) in directions.iter().enumerate() {
        let old = existing.as_ref().and_then(|a| a.element(index).ok()).map(|d| d.to_string()).unwrap_or_else(|| "{}".into());
        let inner = old.trim().trim_start_matches('{').trim_end_matches('}').trim().to_string();
        let mut entries = if inner.is_empty() { vec![] } else { vec![inner] };
        if let Some(direction) = direction {
            entries.push(format!("{DIRECTION_ATTRIBUTE} = \"{direction}\""));
        }
        argument_attributes.push(format!("{{{}}}", entries.join(", ")));
    }
    let attribute = |text: &str| melior::ir::Attribute::parse(context, text).ok_or_else(|| format!("internal error: cannot parse {text}"));
    let mut function = unsafe { melior::ir::operation::OperationRefMut::from_raw(function.to_raw()) };
    function.set_attribute("arg_attrs", attribute(&format!("[{}]", argument_attributes.join(", ")))?);
    if let Some(window) = window {
        function.set_attribute(RUNTIME_ENV_ATTRIBUTE, attribute(&format!("{{ring_task_window = {window} : i64}}"))?);
    }
    function.set_attribute(ORCHESTRATION_ATTRIBUTE, attribute("unit")?);
    Ok(())
}

fn ordered_map<S: serde::Serializer>(entries: &[(String, String)], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_map(entries.iter().map(|(k, v)| (k, v)))
}

/// The members of the manifest written one per line (its top level, and
/// the entries of `arguments`, `kernels` and `ir`); everything else on one
/// line, `", "` and `": "` between items.
const MULTILINE: &[&str] = &["arguments", "kernels", "ir"];

#[derive(Default)]
struct ManifestFormatter {
    depth: usize,
    /// Per open container: whether its items go one per line.
    multiline: Vec<bool>,
    in_key: bool,
    key: String,
    /// Whether the innermost open container has no item yet.
    empty: bool,
}

impl ManifestFormatter {
    fn begin<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, open: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        let multiline = self.depth == 1 || (self.depth == 2 && MULTILINE.contains(&self.key.as_str()));
        self.multiline.push(multiline);
        self.empty = true;
        writer.write_all(open)
    }

    fn end<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, close: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.multiline.pop() == Some(true) && !self.empty {
            writer.write_all(b"\n")?;
            writer.write_all(&b"  ".repeat(self.depth))?;
        }
        self.empty = false;
        writer.write_all(close)
    }

    fn item<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.empty = false;
        if !first {
            writer.write_all(b",")?;
        }
        if self.multiline.last() == Some(&true) {
            writer.write_all(b"\n")?;
            writer.write_all(&b"  ".repeat(self.depth))
        } else if first {
            Ok(())
        } else {
            writer.write_all(b" ")
        }
    }
}

impl serde_json::ser::Formatter for ManifestFormatter {
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.begin(writer, b"[")
    }

    fn end_array<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.end(writer, b"]")
    }

    fn begin_array_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.item(writer, first)
    }

    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.begin(writer, b"{")
    }

    fn end_object<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        self.end(writer, b"}")
    }

    fn begin_object_key<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, first: bool) -> std::io::Result<()> {
        self.item(writer, first)?;
        if self.depth == 1 {
            self.in_key = true;
            self.key.clear();
        }
        Ok(())
    }

    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        self.in_key = false;
        Ok(())
    }

    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, writer: &mut W) -> std::io::Result<()> {
        writer.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, _writer: &mut W) -> std::io::Result<()> {
        Ok(())
    }

    fn write_string_fragment<W: ?Sized + std::io::Write>(&mut self, writer: &mut W, fragment: &str) -> std::io::Result<()> {
        if self.in_key {
            self.key.push_str(fragment);
        }
        writer.write_all(fragment.as_bytes())
    }
}

impl Manifest {
    /// The manifest's text: its top level and the entries of `arguments`,
    /// `kernels` and `ir` one per line, each entry on one line.
    pub fn to_json(&self) -> Result<String, String> {
        let mut out = Vec::new();
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, ManifestFormatter::default());
        self.serialize(&mut serializer).map_err(|e| e.to_string())?;
        let mut text = String::from_utf8(out).map_err(|e| e.to_string())?;
        text.push('\n');
        Ok(text)
    }
}

fn string_attribute(op: OperationRef, name: &str) -> Option<String> {
    StringAttribute::try_from(op.attribute(name).ok()?).ok().map(|s| s.value().to_string())
}

/// Names the run-time sizes of the program's tensors, which its IR spells
/// `?`: `(argument, dimension) -> "N"` (the kernel's signature knows them).
pub type DimNames<'a> = &'a dyn Fn(usize, usize) -> Option<String>;

/// The program's arguments, in order, read off its orchestration function
/// (which takes the tile kernel's arguments): names from the argument
/// locations (the front end's parameter names), tensor or scalar, numpy
/// dtype and shape from their types; a run-time size is `dim_names`'s
/// name for it, else `"?"`.
pub fn arguments_of(orchestration: OperationRef, dim_names: DimNames) -> Result<Vec<ArgumentInfo>, String> {
    let entry = orchestration.region(0).map_err(|e| e.to_string())?.first_block().ok_or("an orchestration without a body")?;
    (0..entry.argument_count())
        .map(|i| {
            let argument = entry.argument(i).map_err(|e| e.to_string())?;
            let location = unsafe { mlir_sys::mlirValueGetLocation(argument.to_raw()) };
            let name = unsafe {
                if mlir_sys::mlirLocationIsAName(location) {
                    let id = mlir_sys::mlirLocationNameGetName(location);
                    let name = mlir_sys::mlirIdentifierStr(id);
                    String::from_utf8_lossy(std::slice::from_raw_parts(name.data as *const u8, name.length)).into_owned()
                } else {
                    format!("arg{i}")
                }
            };
            let ty = argument.r#type();
            if let Ok(memref) = MemRefType::try_from(ty) {
                let shape = (0..memref.rank())
                    .map(|d| match memref.dim_size(d) {
                        Ok(DimSize::Static(size)) => Dim::Static(size as i64),
                        _ => Dim::Symbol(dim_names(i, d).unwrap_or_else(|| "?".to_string())),
                    })
                    .collect();
                Ok(ArgumentInfo { name, kind: "tensor", dtype: dtype_of(memref.element())?, shape })
            } else {
                Ok(ArgumentInfo { name, kind: "scalar", dtype: dtype_of(ty)?, shape: Vec::new() })
            }
        })
        .collect()
}

fn dtype_of(ty: melior::ir::Type) -> Result<String, String> {
    let text = if ty.is_index() { "i64".to_string() } else { ty.to_string() };
    numpy_dtype(&text).map(str::to_string).ok_or_else(|| format!("no numpy dtype for {text}"))
}

/// The numpy name of an MLIR element type (`f32` -> `float32`).
pub fn numpy_dtype(mlir: &str) -> Option<&'static str> {
    Some(match mlir {
        "f32" => "float32",
        "f16" => "float16",
        "bf16" => "bfloat16",
        "i64" => "int64",
        "i32" => "int32",
        "i16" => "int16",
        "i8" => "int8",
        "i1" => "bool",
        _ => return None,
    })
}

/// Writes the package for a lowered module.
pub fn package(
    module: &Module,
    program: &str,
    dim_names: DimNames,
    flavour: Flavour,
    lines: writer::SourceLines,
    stages: &[(String, String)],
) -> Result<Package, String> {
    let body = module.body();
    let mut kernels: Vec<(String, OperationRef)> = Vec::new();
    let mut orchestration = None;
    let mut called: Vec<OperationRef> = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        let current = unsafe { OperationRef::from_raw(current.to_raw()) };
        let name = string_attribute(current, "sym_name").unwrap_or_default();
        if current.attribute(CORE_ATTRIBUTE).is_ok() {
            kernels.push((name, current));
        } else if current.attribute(ORCHESTRATION_ATTRIBUTE).is_ok() && name == program {
            orchestration = Some(current);
        } else if current.attribute(ORCHESTRATION_ATTRIBUTE).is_ok() {
            called.push(current);
        }
        op = current.next_in_block();
    }
    let orchestration = orchestration.ok_or_else(|| format!("no orchestration for {program}"))?;
    let arguments = arguments_of(orchestration, dim_names)?;
    // The C++ spelling of each parameter; the manifest keeps the user's names.
    let parameters = super::names::identifiers(&arguments.iter().map(|a| a.name.clone()).collect::<Vec<_>>());
    let banner = crate::emit::writer::comment(&format!(
        "Generated by HTP {} for {} from kernel `{program}`; do not edit.",
        env!("CARGO_PKG_VERSION"),
        flavour.target()
    ));

    let func_ids: HashMap<String, usize> = kernels.iter().enumerate().map(|(i, (n, _))| (n.clone(), i)).collect();
    let mut files = Vec::new();
    let mut manifest_kernels = Vec::new();
    let mut directions = vec![String::new(); arguments.len()];
    for (func_id, (name, function)) in kernels.iter().enumerate() {
        let (kernel_parameters, signature) = kernel_parameters(orchestration, &called, name, &parameters, &mut directions)?;
        let core = string_attribute(*function, CORE_ATTRIBUTE).unwrap_or_default();
        let path = format!("kernels/{core}/{name}.cpp");
        files.push((path.clone(), kernel::emit(*function, &kernel_parameters, flavour, lines, &banner)?));
        manifest_kernels.push(ManifestKernel { func_id, name: name.clone(), source: path, core_type: core, signature });
    }
    let orchestration_path = format!("orchestration/{program}.cpp");
    files.push((orchestration_path.clone(), orchestration::emit(orchestration, &parameters, &func_ids, lines, &banner)?));

    for (index, direction) in declared_directions(orchestration, directions.len()) {
        directions[index] = direction;
    }
    let mut comm = vec![None; arguments.len()];
    for (index, role) in declared_strings(orchestration, comm.len(), crate::conversion::comm::COMM_ARGUMENT) {
        comm[index] = Some(role);
    }
    let runtime_env = runtime_env(orchestration)?;
    let manifest_arguments = arguments
        .into_iter()
        .zip(directions)
        .zip(comm)
        .map(|((a, direction), comm)| {
            let tensor = a.kind == "tensor";
            ManifestArgument {
                name: a.name,
                kind: a.kind,
                dtype: a.dtype,
                shape: tensor.then_some(a.shape),
                direction: tensor.then_some(direction),
                comm,
            }
        })
        .collect();
    let mut ir = Vec::new();
    for (stage, text) in stages {
        let path = format!("ir/{stage}.mlir");
        files.push((path.clone(), text.clone()));
        ir.push((stage.clone(), path));
    }
    let manifest = Manifest {
        format: "htp-pto-package/1",
        htp_version: env!("CARGO_PKG_VERSION"),
        target: flavour.target(),
        platform: flavour.platform(),
        runtime: "tensormap_and_ringbuffer",
        program: program.to_string(),
        arguments: manifest_arguments,
        orchestration: ManifestOrchestration { source: orchestration_path, function: "aicpu_orchestration_entry" },
        kernels: manifest_kernels,
        runtime_env,
        ir,
    };
    files.push(("manifest.json".into(), manifest.to_json()?));
    Ok(Package { files })
}

/// The `pto.direction` argument attributes of `function`'s first `count` arguments.
fn declared_directions(function: OperationRef, count: usize) -> Vec<(usize, String)> {
    declared_strings(function, count, DIRECTION_ATTRIBUTE)
}

/// The string argument attributes `name` of `function`'s first `count` arguments.
fn declared_strings(function: OperationRef, count: usize, name: &str) -> Vec<(usize, String)> {
    let Some(attributes) = function.attribute("arg_attrs").ok().and_then(|a| melior::ir::attribute::ArrayAttribute::try_from(a).ok()) else {
        return Vec::new();
    };
    (0..count.min(attributes.len()))
        .filter_map(|i| {
            let dictionary = melior::ir::attribute::DictionaryAttribute::try_from(attributes.element(i).ok()?).ok()?;
            let value = (0..dictionary.len()).filter_map(|k| dictionary.element(k).ok()).find(|(key, _)| key.as_string_ref().as_str() == Ok(name))?.1;
            Some((i, StringAttribute::try_from(value).ok()?.value().to_string()))
        })
        .collect()
}

/// The entry's [`RUNTIME_ENV_ATTRIBUTE`], if it has one.
fn runtime_env(function: OperationRef) -> Result<Option<Vec<(String, i64)>>, String> {
    let Ok(attribute) = function.attribute(RUNTIME_ENV_ATTRIBUTE) else { return Ok(None) };
    let dictionary = melior::ir::attribute::DictionaryAttribute::try_from(attribute).map_err(|_| format!("{RUNTIME_ENV_ATTRIBUTE} must be a dictionary"))?;
    (0..dictionary.len())
        .map(|i| {
            let (key, value) = dictionary.element(i).map_err(|e| e.to_string())?;
            let value = melior::ir::attribute::IntegerAttribute::try_from(value).map_err(|_| format!("{RUNTIME_ENV_ATTRIBUTE}: '{}' must be an integer", key.as_string_ref().as_str().unwrap_or("?")))?;
            Ok((key.as_string_ref().as_str().unwrap_or("").to_string(), value.value()))
        })
        .collect::<Result<Vec<_>, String>>()
        .map(Some)
}

/// A kernel's parameter names and directions, read off the `pto.submit`
/// of it in the entry orchestration or, failing that, in an orchestration
/// function the entry calls (`called`): that function's arguments keep
/// their names, the chunk bounds are `task_begin`/`task_end`. Records each
/// entry tensor's direction in `directions` (from the entry's submits).
fn kernel_parameters(
    entry_function: OperationRef,
    called: &[OperationRef],
    kernel: &str,
    entry_parameters: &[String],
    directions: &mut [String],
) -> Result<(Vec<String>, Vec<&'static str>), String> {
    let submitting = |orchestration: OperationRef| {
        let mut found = None;
        orchestration.walk(WalkOrder::PreOrder, |op| {
            let calls = |attribute: &str| op.attribute(attribute).ok().and_then(|a| FlatSymbolRefAttribute::try_from(a).ok()).is_some_and(|c| c.value() == kernel);
            let is_call = PtoOp::of(op) == Some(PtoOp::Submit) && (calls("callee") || calls("aiv_callee"));
            if is_call && found.is_none() {
                found = Some(unsafe { OperationRef::from_raw(op.to_raw()) });
            }
            WalkResult::Advance
        });
        found
    };
    let (orchestration, found, parameters, is_entry) = match submitting(entry_function) {
        Some(found) => (entry_function, Some(found), entry_parameters.to_vec(), true),
        None => match called.iter().find_map(|f| submitting(*f).map(|found| (*f, found))) {
            Some((function, found)) => {
                let names: Vec<String> = arguments_of(function, &|_, _| None)?.into_iter().map(|a| a.name).collect();
                (function, Some(found), super::names::identifiers(&names), false)
            }
            None => (entry_function, None, entry_parameters.to_vec(), true),
        },
    };
    let mut ignored = vec![String::new(); parameters.len()];
    let directions: &mut [String] = if is_entry { directions } else { &mut ignored };
    let entry = orchestration.region(0).map_err(|e| e.to_string())?.first_block().ok_or("an orchestration without a body")?;
    let argument_index = |value: melior::ir::Value| {
        (0..entry.argument_count()).find(|&i| entry.argument(i).is_ok_and(|argument| argument.to_raw().ptr == value.to_raw().ptr))
    };
    let submit = found.ok_or_else(|| format!("{kernel} is never submitted"))?;
    let submit = htp_dialects::ods::view::<pto::SubmitOperation>(submit).ok_or("not a pto.submit")?;
    let error = |e: melior::Error| e.to_string();
    let groups: [(Vec<melior::ir::Value>, &str); 4] = [
        (submit.ins().map_err(error)?.collect(), "in"),
        (submit.outs().map_err(error)?.collect(), "out"),
        (submit.inouts().map_err(error)?.collect(), "inout"),
        (submit.scalars().map_err(error)?.collect(), ""),
    ];
    let mut names = Vec::new();
    let mut signature = Vec::new();
    let mut bounds = ["task_begin", "task_end"].into_iter();
    for (values, direction) in groups {
        for value in values {
            match argument_index(value) {
                Some(i) => {
                    names.push(parameters.get(i).cloned().unwrap_or_else(|| format!("arg{i}")));
                    if !direction.is_empty() {
                        directions[i] = direction.to_string();
                    }
                }
                // A tensor the orchestration creates: a cluster's GM ring.
                None if !direction.is_empty() => names.push("fifo".to_string()),
                None => names.push(bounds.next().unwrap_or("bound").to_string()),
            }
            if !direction.is_empty() {
                signature.push(direction);
            }
        }
    }
    Ok((names, signature))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_manifest_is_written_one_entry_per_line() {
        let manifest = Manifest {
            format: "htp-pto-package/1",
            htp_version: "0",
            target: "pto-a2a3sim",
            platform: "a2a3sim",
            runtime: "tensormap_and_ringbuffer",
            program: "k".into(),
            arguments: vec![
                ManifestArgument {
                    name: "a".into(),
                    kind: "tensor",
                    dtype: "float32".into(),
                    shape: Some(vec![Dim::Symbol("N".into()), Dim::Static(256)]),
                    direction: Some("in".into()),
                    comm: None,
                },
                ManifestArgument { name: "n".into(), kind: "scalar", dtype: "int64".into(), shape: None, direction: None, comm: None },
            ],
            orchestration: ManifestOrchestration { source: "orchestration/k.cpp".into(), function: "aicpu_orchestration_entry" },
            kernels: vec![ManifestKernel { func_id: 0, name: "k_aiv".into(), source: "kernels/aiv/k_aiv.cpp".into(), core_type: "aiv".into(), signature: vec!["in"] }],
            runtime_env: None,
            ir: vec![("tile".into(), "ir/tile.mlir".into()), ("pto".into(), "ir/pto.mlir".into())],
        };
        let expected = r#"{
  "format": "htp-pto-package/1",
  "htp_version": "0",
  "target": "pto-a2a3sim",
  "platform": "a2a3sim",
  "runtime": "tensormap_and_ringbuffer",
  "program": "k",
  "arguments": [
    {"name": "a", "kind": "tensor", "dtype": "float32", "shape": ["N", 256], "direction": "in"},
    {"name": "n", "kind": "scalar", "dtype": "int64"}
  ],
  "orchestration": {"source": "orchestration/k.cpp", "function": "aicpu_orchestration_entry"},
  "kernels": [
    {"func_id": 0, "name": "k_aiv", "source": "kernels/aiv/k_aiv.cpp", "core_type": "aiv", "signature": ["in"]}
  ],
  "ir": {
    "tile": "ir/tile.mlir",
    "pto": "ir/pto.mlir"
  }
}
"#;
        assert_eq!(manifest.to_json().unwrap(), expected);
    }
}
