//! `htp._htp`: the native half of the `htp` Python package. It only
//! converts between Python and [`htp_driver`]: source text in, a compiled
//! kernel out; numpy arrays and Python numbers in, a kernel run.
//! Everything users see (decorator, argument checks, errors) is in `htp/`.

mod python_target;

/// The pyo3 this module is built with: a binding that links Rust extensions
/// builds its `#[pymodule]` with it (`#[pymodule(crate = "htp_binding::pyo3")]`).
pub use pyo3;

use std::collections::BTreeMap;
use std::ffi::c_void;

use htp_driver::{Argument, CompileError as DriverError, Request};
use htp_api::{ConstValue, Constants, DimSig, Elem, ParamKind, RunError, RunErrorKind, SourceText};
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::{exceptions::PyTypeError, prelude::*};

pyo3::import_exception!(htp.errors, CompileError);
pyo3::import_exception!(htp.errors, TargetError);
pyo3::import_exception!(htp.errors, ArgumentError);

/// SIGINT's number (POSIX).
const SIGINT: std::ffi::c_int = 2;

fn to_python_error(error: DriverError) -> PyErr {
    match error {
        DriverError::Source(text) => CompileError::new_err(text),
        DriverError::Target(text) => TargetError::new_err(text),
    }
}

/// A dimension of a tensor parameter: a size, or a symbol bound at call time.
#[derive(IntoPyObject)]
enum Dim {
    Size(i64),
    Symbol(String),
}

/// (name, kind, dtype, shape, is_output, arg_index)
type ParameterTuple = (String, &'static str, Option<&'static str>, Vec<Dim>, bool, Option<usize>, &'static str);

/// A kernel compiled for one target.
#[pyclass(module = "htp._htp")]
struct Compiled {
    kernel: htp_driver::CompiledKernel,
}

// A compiled kernel is immutable after compilation: its signature and IR
// text, and an artifact whose `run` only reads it (JIT code is reentrant;
// packages are files). Python threads may therefore share and call it.
unsafe impl Send for Compiled {}
unsafe impl Sync for Compiled {}

#[pymethods]
impl Compiled {
    fn signature(&self) -> Vec<ParameterTuple> {
        self.kernel
            .signature
            .params
            .iter()
            .map(|p| match &p.kind {
                ParamKind::Tensor { elem, shape, is_output, layout, .. } => {
                    let shape = shape
                        .iter()
                        .map(|d| match d {
                            DimSig::Static(size) => Dim::Size(*size),
                            DimSig::Symbol(name) => Dim::Symbol(name.clone()),
                        })
                        .collect();
                    // A communication window is no argument a caller passes: its own kind.
                    let kind = if p.arg_index.is_some_and(|i| self.kernel.signature.windows.contains(&i)) { "window" } else { "tensor" };
                    (p.name.clone(), kind, Some(elem.mlir()), shape, *is_output, p.arg_index, layout.name())
                }
                ParamKind::Scalar { elem } => (p.name.clone(), "scalar", Some(elem.mlir()), vec![], false, p.arg_index, ""),
                ParamKind::Constant { .. } => (p.name.clone(), "constant", None, vec![], false, None, ""),
            })
            .collect()
    }

    /// (relative path, contents) of the package a vendor runtime runs
    /// (PTO targets); empty for the CPU. Contents are `str` for text files,
    /// `bytes` for binary ones.
    fn files(&self, py: Python<'_>) -> PyResult<Vec<(String, Py<PyAny>)>> {
        self.kernel
            .artifact
            .files()
            .into_iter()
            .map(|file| {
                let contents = match file.contents {
                    htp_api::FileContents::Text(text) => text.into_pyobject(py)?.into_any().unbind(),
                    htp_api::FileContents::Binary(bytes) => pyo3::types::PyBytes::new(py, &bytes).into_any().unbind(),
                };
                Ok((file.path, contents))
            })
            .collect()
    }

    /// The Python module that runs the package (`run_package(directory,
    /// tensors, scalars)`), or None for targets that run in this process.
    fn runner(&self) -> Option<&'static str> {
        self.kernel.artifact.runner()
    }

    /// Static metrics of one call (`Artifact::static_metrics`): tensor
    /// shapes and scalar values in argument order; None when the target
    /// computes none.
    fn static_metrics(&self, shapes: Vec<Vec<i64>>, scalars: Vec<f64>) -> PyResult<Option<Vec<(String, f64)>>> {
        match self.kernel.artifact.static_metrics(&shapes, &scalars) {
            None => Ok(None),
            Some(Ok(metrics)) => Ok(Some(metrics)),
            Some(Err(message)) => Err(TargetError::new_err(format!("error: metrics of {}: {message}", self.kernel.signature.name))),
        }
    }

    /// Checks a call before it runs (`Artifact::check_call`): `arguments`
    /// are the compiled function's arguments in order (numpy arrays,
    /// numbers); a problem raises RuntimeError with its message.
    fn check_call(&self, arguments: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let described: Vec<htp_api::CallArgument> = arguments
            .iter()
            .map(|a| {
                if let Ok(shape) = a.getattr("shape").and_then(|s| s.extract::<Vec<i64>>()) {
                    htp_api::CallArgument::Tensor(shape)
                } else if a.is_instance_of::<pyo3::types::PyBool>() {
                    htp_api::CallArgument::Other
                } else if let Ok(value) = a.extract::<i64>() {
                    htp_api::CallArgument::Integer(value)
                } else {
                    htp_api::CallArgument::Other
                }
            })
            .collect();
        self.kernel.artifact.check_call(&described).map_err(pyo3::exceptions::PyRuntimeError::new_err)
    }

    /// (stage, MLIR text) for each stage of the pipeline.
    fn stages(&self) -> Vec<(String, String)> {
        self.kernel.stages.clone()
    }

    /// Runs the kernel; `arguments` are the compiled function's arguments
    /// in order (numpy arrays for tensors, numbers for scalars), already
    /// checked against the signature by the Python side.
    fn run(&self, py: Python<'_>, arguments: Vec<Bound<'_, PyAny>>) -> PyResult<()> {
        let params: BTreeMap<usize, &ParamKind> =
            self.kernel.signature.params.iter().filter_map(|p| p.arg_index.map(|i| (i, &p.kind))).collect();
        if arguments.len() != params.len() {
            return Err(ArgumentError::new_err(format!(
                "error: {} takes {} run-time arguments, got {}",
                self.kernel.signature.name,
                params.len(),
                arguments.len()
            )));
        }
        let mut packed = Vec::with_capacity(arguments.len());
        for (index, argument) in arguments.iter().enumerate() {
            packed.push(match params[&index] {
                ParamKind::Tensor { .. } => buffer(argument)?,
                ParamKind::Scalar { elem } => scalar(argument, *elem)?,
                ParamKind::Constant { .. } => unreachable!("constants are not run-time arguments"),
            });
        }
        // The Python side checked dtypes, ranks and static sizes against the
        // signature; the arrays stay alive (borrowed in `arguments`) until
        // the call returns. Other Python threads may run meanwhile, as they
        // may while numpy computes.
        let call = SendCall { artifact: &*self.kernel.artifact, kernel: &self.kernel.signature.name, arguments: &packed };
        // A panic in the run path (a runtime bug) becomes an exception, not
        // an abort or a PanicException.
        let run = move || {
            htp_pass::catch_quietly(|| call.run())
                .unwrap_or_else(|what| Err(format!("error: internal error while running the kernel: {what} (this is a bug in HTP)").into()))
        };
        py.detach(run).map_err(|error| {
            let message = error.message;
            match error.kind {
                RunErrorKind::Interrupted => {
                    // The runtime's handler took the signal: hand it to Python's
                    // (KeyboardInterrupt, or the user's signal.signal handler).
                    unsafe { pyo3::ffi::PyErr_SetInterruptEx(SIGINT) };
                    match py.check_signals() {
                        Err(error) => error,
                        Ok(()) => pyo3::exceptions::PyKeyboardInterrupt::new_err(message),
                    }
                }
                RunErrorKind::OutOfBounds => pyo3::exceptions::PyIndexError::new_err(message),
                RunErrorKind::DivisionByZero => pyo3::exceptions::PyZeroDivisionError::new_err(message),
                RunErrorKind::InvalidValue => pyo3::exceptions::PyValueError::new_err(message),
                RunErrorKind::Failed => pyo3::exceptions::PyRuntimeError::new_err(message),
            }
        })
    }
}

/// A kernel call handed to a thread without the GIL. It holds raw buffer
/// pointers (not `Send`); the buffers are kept alive by the caller's
/// `arguments` for the duration of `Python::detach`.
struct SendCall<'a> {
    artifact: &'a dyn htp_api::Artifact,
    kernel: &'a str,
    arguments: &'a [Argument],
}

unsafe impl Send for SendCall<'_> {}

impl SendCall<'_> {
    fn run(self) -> Result<(), RunError> {
        unsafe { self.artifact.run(self.kernel, self.arguments) }
    }
}

fn buffer(argument: &Bound<'_, PyAny>) -> PyResult<Argument> {
    let array = argument.cast::<PyUntypedArray>().map_err(|_| PyTypeError::new_err("expected a numpy array"))?;
    let item_size = array.dtype().itemsize() as isize;
    let strides = array
        .strides()
        .iter()
        .map(|s| {
            if s % item_size != 0 {
                Err(ArgumentError::new_err("error: array strides must be whole elements"))
            } else {
                Ok((s / item_size) as i64)
            }
        })
        .collect::<PyResult<htp_api::Dims>>()?;
    let data = unsafe { (*array.as_array_ptr()).fields.data } as *mut c_void;
    Ok(Argument::Buffer { data, sizes: array.shape().iter().map(|&s| s as i64).collect(), strides })
}

fn scalar(argument: &Bound<'_, PyAny>, elem: Elem) -> PyResult<Argument> {
    Ok(match elem {
        Elem::F32 => Argument::F32(argument.extract::<f64>()? as f32),
        // The Python side checked the value fits the format; rounding is to
        // nearest even, as numpy's astype does.
        Elem::F16 => Argument::F16(half::f16::from_f64(argument.extract::<f64>()?).to_bits()),
        Elem::BF16 => Argument::BF16(half::bf16::from_f64(argument.extract::<f64>()?).to_bits()),
        Elem::I64 => Argument::I64(argument.extract()?),
        Elem::I32 => Argument::I32(argument.extract()?),
        Elem::I16 => Argument::I16(argument.extract()?),
        Elem::I8 => Argument::I8(argument.extract()?),
        Elem::I1 => Argument::Bool(argument.extract()?),
    })
}

fn constant(value: &Bound<'_, PyAny>) -> PyResult<ConstValue> {
    // bool first: Python's bool is an int.
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Ok(ConstValue::Bool(value.extract()?));
    }
    if let Ok(i) = value.extract::<i64>() {
        return Ok(ConstValue::Int(i));
    }
    if value.is_instance_of::<pyo3::types::PyInt>() {
        return Err(ArgumentError::new_err(format!(
            "error: the compile-time constant {value} is out of range: an int constant is a signed 64-bit integer, in [-2**63, 2**63 - 1]"
        )));
    }
    if let Ok(f) = value.extract::<f64>() {
        return Ok(ConstValue::Float(f));
    }
    Err(ArgumentError::new_err("error: compile-time constants are int, float or bool"))
}

/// Compiles `kernel` for `target` from `sources`: (text, file name, first
/// line, namespaces) of the kernel and of the kernels and helpers it calls;
/// namespaces map the module's names to `htp` or an intrinsic set.
/// `pipelines` run on the tile module first (what extensions' mutators ask
/// for). The GIL is released while compiling: other Python threads run, and
/// a Python target's emitter takes it on the compiling thread.
#[pyfunction]
#[pyo3(signature = (sources, kernel, constants, target, pipelines = Vec::new(), dump_ir = None))]
fn compile(
    py: Python<'_>,
    sources: Vec<Bound<'_, PyAny>>,
    kernel: &str,
    constants: BTreeMap<String, Bound<'_, PyAny>>,
    target: &str,
    pipelines: Vec<String>,
    dump_ir: Option<std::path::PathBuf>,
) -> PyResult<Compiled> {
    let mut values = Constants::new();
    for (name, value) in &constants {
        values.insert(name, constant(value)?);
    }
    let sources = source_texts(&sources)?;
    let request = Request { sources: &sources, kernel, constants: values, target, pipelines: &pipelines, dump_ir: dump_ir.as_deref() };
    py.detach(|| htp_driver::compile(&request).map(|kernel| Compiled { kernel })).map_err(to_python_error)
}

/// Sources as the Python side gives them: `(text, file name, first line)`,
/// optionally with the namespaces of the module's names as a fourth item
/// (without it, `htp` and every intrinsic set resolve under their own names).
fn source_texts(sources: &[Bound<'_, PyAny>]) -> PyResult<Vec<SourceText>> {
    sources
        .iter()
        .map(|source| {
            if let Ok((text, file, line, namespaces)) = source.extract::<(String, String, u32, Vec<(String, String)>)>() {
                return Ok(SourceText::new(&text, &file, line).with_namespaces(namespaces));
            }
            let (text, file, line) = source.extract::<(String, String, u32)>()?;
            Ok(SourceText::new(&text, &file, line))
        })
        .collect()
}

/// The targets that can run `kernel` (capabilities cover its needs).
#[pyfunction]
fn supporting_targets(
    sources: Vec<Bound<'_, PyAny>>,
    kernel: &str,
    constants: BTreeMap<String, Bound<'_, PyAny>>,
) -> PyResult<Vec<&'static str>> {
    let mut values = Constants::new();
    for (name, value) in &constants {
        values.insert(name, constant(value)?);
    }
    let sources = source_texts(&sources)?;
    let request = Request { sources: &sources, kernel, constants: values, target: "", pipelines: &[], dump_ir: None };
    htp_driver::supporting_targets(&request).map_err(to_python_error)
}

/// A target's architecture model: ([(level, count, description)],
/// [(memory, bytes or None, alignment, description)], its tile array or None).
type ArchitectureTuple = (Vec<(&'static str, u64, &'static str)>, Vec<MemoryTuple>, Option<ArrayTuple>);

type MemoryTuple = (&'static str, Option<u64>, u64, &'static str);

/// (columns, [row kinds], [(kind, description, computes, [memory], dma in,
/// dma out, locks)], [(from, to, [direction])], [((column, row), kind)]).
type ArrayTuple = (
    u32,
    Vec<&'static str>,
    Vec<(&'static str, &'static str, bool, Vec<MemoryTuple>, u32, u32, u32)>,
    Vec<(&'static str, &'static str, Vec<&'static str>)>,
    Vec<((u32, u32), &'static str)>,
);

fn memory_tuple(m: &htp_api::MemorySpace) -> MemoryTuple {
    (m.name, m.bytes, m.alignment, m.description)
}

fn array_tuple(array: &htp_api::TileArray) -> ArrayTuple {
    let kinds = array
        .kinds
        .iter()
        .map(|k| (k.name, k.description, k.computes, k.memories.iter().map(memory_tuple).collect(), k.dma.input, k.dma.output, k.locks))
        .collect();
    let neighbours = array.neighbours.iter().map(|n| (n.from, n.to, n.directions.iter().map(|d| d.name()).collect())).collect();
    let exceptions = array.exceptions.iter().map(|(at, kind)| ((at.column, at.row), *kind)).collect();
    (array.columns, array.rows.clone(), kinds, neighbours, exceptions)
}

/// (name, description, capabilities, architecture) of every registered target.
#[pyfunction]
fn targets() -> Vec<(&'static str, &'static str, Vec<String>, ArchitectureTuple)> {
    htp_driver::targets()
        .iter()
        .map(|t| {
            let model = t.architecture();
            let levels = model.levels.iter().map(|l| (l.name, l.count, l.description)).collect();
            let memories = model.memories.iter().map(memory_tuple).collect();
            (t.name(), t.description(), htp_api::capabilities::provided(*t), (levels, memories, model.array.as_ref().map(array_tuple)))
        })
        .collect()
}

/// (namespace, description, [(name, instruction, summary)]) of every
/// registered intrinsic set.
#[pyfunction]
fn intrinsic_sets() -> Vec<(&'static str, &'static str, Vec<(&'static str, &'static str, &'static str)>)> {
    htp_api::intrinsics::intrinsic_sets()
        .iter()
        .map(|set| (set.namespace, set.description, set.intrinsics.iter().map(|i| (i.name, i.op, i.summary)).collect()))
        .collect()
}

/// (name, namespace, description, decorator, [(construct, summary)],
/// [(loop, summary)]) of every registered programming model.
#[pyfunction]
fn programming_models() -> Vec<ModelTuple> {
    htp_api::models::models()
        .iter()
        .map(|m| {
            let constructs = m.constructs.iter().map(|c| (c.name, c.summary)).collect();
            let loops = m.loops.iter().map(|l| (l.name, l.summary)).collect();
            (m.name, m.namespace, m.description, m.entry_decorator, constructs, loops)
        })
        .collect()
}

/// The block constructs (`with <ns>.<name>(...):`) of the model `name`.
#[pyfunction]
fn programming_model_blocks(name: &str) -> Vec<&'static str> {
    htp_api::models::model_named(name).map(|m| m.blocks.iter().map(|b| b.name).collect()).unwrap_or_default()
}

/// The types (parameter annotations `<ns>.<Name>`) of the model `name`.
#[pyfunction]
fn programming_model_types(name: &str) -> Vec<&'static str> {
    htp_api::models::model_named(name).map(|m| m.types.iter().map(|t| t.name).collect()).unwrap_or_default()
}

/// The Python source the model `name` adds to its namespace (its surface
/// beyond constructs: schedules, helpers), if any.
#[pyfunction]
fn programming_model_python(name: &str) -> Option<&'static str> {
    htp_api::models::model_named(name).and_then(|m| m.python)
}

type ModelTuple = (&'static str, &'static str, &'static str, &'static str, Vec<(&'static str, &'static str)>, Vec<(&'static str, &'static str)>);

/// Registers a target written in Python (see `python_target.rs`): the
/// same registry and capability check as the in-tree backends.
#[pyfunction]
#[pyo3(signature = (name, description, capabilities, emitter, runner, pipeline = None, levels = Vec::new(), memories = Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn register_target(
    name: String,
    description: String,
    capabilities: Vec<String>,
    emitter: Py<PyAny>,
    runner: String,
    pipeline: Option<String>,
    levels: Vec<(String, u64, String)>,
    memories: Vec<(String, Option<u64>, u64, String)>,
) -> PyResult<()> {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    let architecture = htp_api::Architecture {
        levels: levels
            .into_iter()
            .map(|(name, count, description)| htp_api::ParallelLevel { name: leak(name), count, description: leak(description) })
            .collect(),
        memories: memories
            .into_iter()
            .map(|(name, bytes, alignment, description)| htp_api::MemorySpace { name: leak(name), bytes, alignment, description: leak(description) })
            .collect(),
        array: None,
    };
    let target = python_target::PythonTarget {
        name: leak(name),
        description: leak(description),
        capabilities,
        pipeline,
        emitter,
        runner: leak(runner),
        architecture,
    };
    htp_api::register_target(Box::leak(Box::new(target))).map_err(TargetError::new_err)
}

/// Adds `capabilities` and `stages` ((point, pipeline)) to the registered
/// target `target` as its extension `name` (`htp_api::extensions`).
#[pyfunction]
fn register_target_extension(target: String, name: String, capabilities: Vec<String>, stages: Vec<(String, String)>) -> PyResult<()> {
    htp_api::register_target_extension(htp_api::TargetExtension { target, name, capabilities, stages }).map_err(TargetError::new_err)
}

/// (name, description) of the extension points of the target `target`
/// (None: no such target).
#[pyfunction]
fn extension_points(target: &str) -> Option<Vec<(&'static str, &'static str)>> {
    let target = htp_api::find_target(target).ok()?;
    Some(target.extension_points().iter().map(|p| (p.name, p.description)).collect())
}

/// (target, name, capabilities, [(point, pipeline)]) of every registered
/// target extension.
#[pyfunction]
fn target_extensions() -> Vec<(String, String, Vec<String>, Vec<(String, String)>)> {
    htp_api::extensions::all_target_extensions().into_iter().map(|e| (e.target, e.name, e.capabilities, e.stages)).collect()
}

/// Registers a named pipeline (`passes` as inside `builtin.module(...)`),
/// usable by name in other pipelines, targets and `--pass-pipeline`.
#[pyfunction]
fn register_pipeline(name: String, description: String, passes: String) -> PyResult<()> {
    let leak = |s: String| -> &'static str { Box::leak(s.into_boxed_str()) };
    htp_pass::register_pipeline(htp_pass::PipelineDefinition { name: leak(name), description: leak(description), passes: leak(passes) })
        .map_err(TargetError::new_err)
}

/// Registers the dialects an IRDL module defines (for `provider`, an
/// extension); every context HTP makes afterwards loads them. Returns
/// their names.
#[pyfunction]
fn register_irdl(provider: String, source: String) -> PyResult<Vec<String>> {
    htp_dialects::irdl::register(&provider, &source).map_err(TargetError::new_err)
}

/// (dialect, provider) of every dialect registered in IRDL.
#[pyfunction]
fn irdl_dialects() -> Vec<(String, String)> {
    htp_dialects::irdl::registered()
}

/// Registers PDL rewrite patterns under `name`; the pass
/// `htp-apply-pdl{patterns=<name>}` applies them.
#[pyfunction]
fn register_pdl_patterns(name: String, provider: String, source: String) -> PyResult<()> {
    htp_transforms::apply_pdl::register_patterns(&name, &provider, &source).map_err(TargetError::new_err)
}

/// (name, description, passes) of every registered pipeline.
#[pyfunction]
fn pipelines() -> Vec<(&'static str, &'static str, &'static str)> {
    htp_pass::pipelines().into_iter().map(|p| (p.name, p.description, p.passes)).collect()
}

/// A layout as Python gives it: per dimension, its parts as
/// (extent, axis, stride); `None` when the facet has no form for a tile.
type PythonLayout = Option<Vec<Vec<(i64, String, i64)>>>;

/// Registers a layout facet written in Python: `build(rows, cols,
/// element_bits)` returns the parts of each dimension (outermost first) or
/// None. A builder that raises, or returns something else, is an error the
/// front end reports at the kernel's `relayout` (with the exception).
#[pyfunction]
fn register_layout_facet(name: String, description: String, provider: String, build: Py<PyAny>) -> PyResult<()> {
    use htp_dialects::layout::{Axe, Facet, Part};
    let build = std::sync::Arc::new(build);
    let facet = Facet {
        name,
        description,
        provider,
        build: std::sync::Arc::new(move |rows, cols, bits| {
            let dims: PythonLayout = Python::attach(|py| {
                build.call1(py, (rows, cols, bits)).and_then(|r| r.extract(py)).map_err(|e| {
                    let kind = e.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "exception".into());
                    format!("{kind}: {}", e.value(py))
                })
            })?;
            Ok(dims.map(|dims| Axe {
                dims: dims.into_iter().map(|parts| parts.into_iter().map(|(extent, axis, stride)| Part { extent, axis, stride }).collect()).collect(),
                replicas: Vec::new(),
                offset: 0,
            }))
        }),
    };
    htp_dialects::layout::register_facet(facet).map_err(TargetError::new_err)
}

/// (name, description, provider) of every registered layout facet.
#[pyfunction]
fn layouts() -> Vec<(String, String, String)> {
    htp_dialects::layout::facets().into_iter().map(|f| (f.name, f.description, f.provider)).collect()
}

/// Whether `name` is an operation of a dialect HTP's contexts register
/// (`tile.add`, `arith.addf`; an IRDL dialect's ops are loaded, not
/// registered: see `known_dialect`). Checks capability names.
#[pyfunction]
fn known_operation(name: &str) -> bool {
    htp_dialects::new_context().is_registered_operation(name)
}

/// Whether HTP's contexts know the dialect `name` (HTP's, MLIR's, or one
/// registered in IRDL). Checks capability names.
#[pyfunction]
fn known_dialect(name: &str) -> bool {
    if htp_dialects::irdl::registered().iter().any(|(dialect, _)| dialect == name) {
        return true;
    }
    let context = htp_dialects::new_context();
    let name = mlir_sys::MlirStringRef { data: name.as_ptr() as *const _, length: name.len() };
    unsafe { !mlir_sys::mlirContextGetOrLoadDialect(context.to_raw(), name).ptr.is_null() }
}

/// Why `source` is not an MLIR module that parses and verifies in HTP's
/// contexts, or None: lets an extension's IRDL and PDL be checked before
/// anything of the extension is registered (registration is all or nothing).
#[pyfunction]
fn module_error(source: &str) -> Option<String> {
    use melior::ir::{operation::OperationLike, Module};
    let context = htp_dialects::new_context();
    let (module, errors) = htp_dialects::diagnostics::collect_errors(&context, || {
        Module::parse(&context, source).filter(|module| module.as_operation().verify())
    });
    match module {
        Some(_) => None,
        None if errors.is_empty() => Some("it does not parse".to_string()),
        None => Some(htp_dialects::diagnostics::joined(&errors)),
    }
}

/// (name, provider) of every registered PDL pattern set.
#[pyfunction]
fn pdl_pattern_sets() -> Vec<(String, String)> {
    htp_transforms::apply_pdl::pattern_sets()
}

/// The names of every registered pass (a pipeline may not take one).
#[pyfunction]
fn pass_names() -> Vec<&'static str> {
    htp_pass::registered_passes().into_iter().map(|p| p.argument).collect()
}

#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// A Rust extension linked into this binding: its crate name and its
/// `register()` (the same API the in-tree crates' `register` use).
pub type RustExtension = (&'static str, fn() -> Result<(), String>);

static RUST_EXTENSIONS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();

/// The crate names of the Rust extensions linked into this build of
/// `htp._htp`, in registration order (scripts/install-python with
/// `HTP_RUST_EXTENSIONS`); empty for the plain package.
#[pyfunction]
fn rust_extensions() -> Vec<&'static str> {
    RUST_EXTENSIONS.get().cloned().unwrap_or_default()
}

/// Builds the `htp._htp` module: registers HTP's in-tree extensions
/// (`htp_all::register_all`), then each of `extensions` in order, then adds
/// the module's functions. The plain package's `#[pymodule]` passes none; a
/// binding generated by scripts/install-python for `HTP_RUST_EXTENSIONS`
/// passes its crates' `register` functions. A `register` that fails makes
/// `import htp` fail with a `TargetError` naming the crate.
pub fn init_module(module: &Bound<'_, PyModule>, extensions: &[RustExtension]) -> PyResult<()> {
    htp_all::register_all().map_err(TargetError::new_err)?;
    for (name, register) in extensions {
        register().map_err(|e| TargetError::new_err(format!("the Rust extension '{name}' failed to register: {e}")))?;
    }
    let _ = RUST_EXTENSIONS.set(extensions.iter().map(|(name, _)| *name).collect());
    module.add_function(wrap_pyfunction!(rust_extensions, module)?)?;
    module.add_class::<Compiled>()?;
    module.add_function(wrap_pyfunction!(compile, module)?)?;
    module.add_function(wrap_pyfunction!(targets, module)?)?;
    module.add_function(wrap_pyfunction!(intrinsic_sets, module)?)?;
    module.add_function(wrap_pyfunction!(programming_models, module)?)?;
    module.add_function(wrap_pyfunction!(programming_model_python, module)?)?;
    module.add_function(wrap_pyfunction!(programming_model_blocks, module)?)?;
    module.add_function(wrap_pyfunction!(programming_model_types, module)?)?;
    module.add_function(wrap_pyfunction!(supporting_targets, module)?)?;
    module.add_function(wrap_pyfunction!(version, module)?)?;
    module.add_function(wrap_pyfunction!(register_target, module)?)?;
    module.add_function(wrap_pyfunction!(register_pipeline, module)?)?;
    module.add_function(wrap_pyfunction!(register_target_extension, module)?)?;
    module.add_function(wrap_pyfunction!(extension_points, module)?)?;
    module.add_function(wrap_pyfunction!(target_extensions, module)?)?;
    module.add_function(wrap_pyfunction!(pipelines, module)?)?;
    module.add_function(wrap_pyfunction!(register_irdl, module)?)?;
    module.add_function(wrap_pyfunction!(irdl_dialects, module)?)?;
    module.add_function(wrap_pyfunction!(register_pdl_patterns, module)?)?;
    module.add_function(wrap_pyfunction!(register_layout_facet, module)?)?;
    module.add_function(wrap_pyfunction!(layouts, module)?)?;
    module.add_function(wrap_pyfunction!(known_operation, module)?)?;
    module.add_function(wrap_pyfunction!(known_dialect, module)?)?;
    module.add_function(wrap_pyfunction!(pass_names, module)?)?;
    module.add_function(wrap_pyfunction!(module_error, module)?)?;
    module.add_function(wrap_pyfunction!(pdl_pattern_sets, module)?)?;
    Ok(())
}

