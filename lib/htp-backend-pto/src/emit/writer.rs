//! Writes C++ from MLIR: names for values, one statement per op, scalar
//! arithmetic, kernel-local scalar arrays (`crate::arrays`) and structured
//! control flow (`scf.for`, `scf.if`, `scf.while`). The kernel and
//! orchestration emitters add their own ops through [`Ops`].

use std::collections::HashMap;

use htp_dialects::diagnostics::source_position;
use htp_ir::query::{constant_int, key};
use melior::ir::{
    attribute::{AttributeLike, FloatAttribute, IntegerAttribute},
    block::BlockLike,
    operation::OperationLike,
    r#type::IntegerType,
    BlockRef, OperationRef, RegionLike, Type, TypeLike, Value, ValueLike,
};

/// The source line under a location (for `// file:line: text` comments).
pub type SourceLines<'s> = &'s dyn Fn(&str, u32) -> Option<String>;

/// Emitter-specific ops. `op` returns false for ops it leaves to the writer.
pub trait Ops {
    fn op(&mut self, w: &mut Writer, op: OperationRef) -> Result<bool, String>;
    /// The C++ expression for dim `dim` of the tensor argument `tensor`.
    fn dim(&self, tensor: &str, dim: i64) -> String;
}

pub struct Writer<'s> {
    pub out: String,
    indent: usize,
    names: HashMap<usize, String>,
    /// Identifiers in use (parameters and every `fresh` name so far).
    taken: std::collections::HashSet<String>,
    /// Per base name, the suffix `fresh` tries next.
    next_suffix: HashMap<String, usize>,
    lines: SourceLines<'s>,
    last_comment: Option<(String, u32)>,
}

pub use htp_ir::query::op_name;

/// The C++ type of a scalar MLIR type.
pub fn c_type(ty: Type) -> Result<&'static str, String> {
    if ty.is_index() {
        return Ok("int64_t");
    }
    if let Ok(int) = IntegerType::try_from(ty) {
        if int.is_unsigned() {
            return Ok(match int.width() {
                8 => "uint8_t",
                16 => "uint16_t",
                32 => "uint32_t",
                64 => "uint64_t",
                w => return Err(format!("no C++ type for ui{w}")),
            });
        }
        return Ok(match int.width() {
            1 => "bool",
            8 => "int8_t",
            16 => "int16_t",
            32 => "int32_t",
            64 => "int64_t",
            w => return Err(format!("no C++ type for i{w}")),
        });
    }
    match ty.to_string().as_str() {
        "f32" => Ok("float"),
        "f16" => Ok("half"),
        "bf16" => Ok("bfloat16_t"),
        other => Err(format!("no C++ type for {other}")),
    }
}

/// `// text` as one line of C++ that stays a comment, whatever `text` holds
/// (user text: a source line, a file name, a kernel name). A backslash at
/// the end of a line, even before trailing blanks, splices the next line
/// into the comment (translation phase 2 runs before comments are seen), so
/// it gets a closing `(line continues)`; a line break or any other control
/// character becomes a space.
pub fn comment(text: &str) -> String {
    let flat: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let flat = flat.trim_end();
    if flat.ends_with('\\') {
        format!("// {flat} (line continues)")
    } else {
        format!("// {flat}")
    }
}

/// A C++ literal for a float or integer attribute.
pub fn literal(attribute: melior::ir::Attribute) -> Result<String, String> {
    if let Ok(float) = FloatAttribute::try_from(attribute) {
        let value = float.value() as f32;
        if value.is_infinite() {
            return Ok(format!("{}std::numeric_limits<float>::infinity()", if value < 0.0 { "-" } else { "" }));
        }
        let text = format!("{value:?}");
        return Ok(if text.contains(['.', 'e']) { format!("{text}f") } else { format!("{text}.0f") });
    }
    if let Ok(int) = IntegerAttribute::try_from(attribute) {
        return Ok(if int.r#type().to_string() == "i1" { (int.value() != 0).to_string() } else { int.value().to_string() });
    }
    Err(format!("unsupported constant {attribute}"))
}

impl<'s> Writer<'s> {
    pub fn new(lines: SourceLines<'s>) -> Self {
        Writer { out: String::new(), indent: 0, names: HashMap::new(), taken: std::collections::HashSet::new(), next_suffix: HashMap::new(), lines, last_comment: None }
    }

    pub fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    pub fn open(&mut self, text: &str) {
        self.line(text);
        self.indent += 1;
    }

    pub fn close(&mut self, text: &str) {
        self.indent -= 1;
        self.line(text);
    }

    /// A new C++ identifier starting with `base` (`exp`, `exp_1`, ...).
    pub fn fresh(&mut self, base: &str) -> String {
        // Resume where the last name with this base stopped: probing from
        // `base` every time made naming quadratic in the number of values.
        let next = self.next_suffix.entry(base.to_string()).or_insert(0);
        let mut candidate = if *next == 0 { base.to_string() } else { format!("{base}_{next}") };
        while self.taken.contains(&candidate) {
            *next += 1;
            candidate = format!("{base}_{next}");
        }
        *next += 1;
        self.taken.insert(candidate.clone());
        candidate
    }

    /// Keeps `fresh` from handing out `name` (a parameter's, say).
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_string());
    }

    pub fn bind(&mut self, value: Value, name: String) {
        self.names.insert(key(value), name);
    }

    pub fn name(&self, value: Value) -> Result<String, String> {
        self.names.get(&key(value)).cloned().ok_or_else(|| format!("no C++ name for a value of type {}", value.r#type()))
    }

    /// `// file:line: source text` before the first op of each source line.
    pub fn source_comment(&mut self, op: OperationRef) {
        let Some(position) = source_position(op.location()) else { return };
        let here = (position.file.clone(), position.line);
        if self.last_comment.as_ref() == Some(&here) {
            return;
        }
        let file = std::path::Path::new(&position.file).file_name().map(|f| f.to_string_lossy().to_string()).unwrap_or_default();
        let text = (self.lines)(&position.file, position.line).map(|t| format!(": {}", t.trim())).unwrap_or_default();
        self.line(&comment(&format!("{file}:{}{text}", position.line)));
        self.last_comment = Some(here);
    }

    /// Emits a block's ops (its terminator's operands are returned: what
    /// `scf.yield` yields, or `scf.condition`'s condition then its values).
    pub fn block(&mut self, block: BlockRef, ops: &mut dyn Ops) -> Result<Vec<String>, String> {
        let mut op = block.first_operation();
        while let Some(current) = op {
            if matches!(op_name(current).as_str(), "scf.yield" | "scf.condition") {
                return current.operands().map(|v| self.name(v)).collect();
            }
            self.op(current, ops)?;
            op = current.next_in_block();
        }
        Ok(vec![])
    }

    /// Emits one op that is not a terminator.
    pub fn op(&mut self, op: OperationRef, ops: &mut dyn Ops) -> Result<(), String> {
        if ops.op(self, op)? {
            return Ok(());
        }
        match op_name(op).as_str() {
            "scf.for" => self.for_loop(op, ops),
            "scf.if" => self.if_else(op, ops),
            "scf.while" => self.while_loop(op, ops),
            crate::arrays::ALLOCA => self.local_array(op),
            crate::arrays::LOAD | crate::arrays::STORE => self.array_access(op),
            _ => self.scalar(op, ops),
        }
    }

    /// The current indentation, set to none (to write another function); see `restore_indent`.
    pub fn take_indent(&mut self) -> usize {
        std::mem::take(&mut self.indent)
    }

    pub fn restore_indent(&mut self, indent: usize) {
        self.indent = indent;
    }

    fn declare_results(&mut self, op: OperationRef, base: &str) -> Result<Vec<String>, String> {
        let mut names = Vec::new();
        for result in op.results() {
            let name = self.fresh(base);
            self.line(&format!("{} {name};", c_type(result.r#type())?));
            self.bind(result.into(), name.clone());
            names.push(name);
        }
        Ok(names)
    }

    fn for_loop(&mut self, op: OperationRef, ops: &mut dyn Ops) -> Result<(), String> {
        self.for_loop_with(op, ops, &mut |w, body, ops| w.block(body, ops))
    }

    /// `scf.for` with its body written by `body` (which returns the yielded names): a kernel
    /// writes a large body as outlined parts (`parts.rs`).
    pub fn for_loop_with(
        &mut self,
        op: OperationRef,
        ops: &mut dyn Ops,
        write_body: &mut dyn FnMut(&mut Writer<'s>, BlockRef, &mut dyn Ops) -> Result<Vec<String>, String>,
    ) -> Result<(), String> {
        let operand = |i: usize| self.name(op.operand(i).map_err(|e| e.to_string())?);
        let (lower, upper, step) = (operand(0)?, operand(1)?, operand(2)?);
        let carried = self.declare_results(op, "carried")?;
        for (k, name) in carried.iter().enumerate() {
            let init = self.name(op.operand(3 + k).map_err(|e| e.to_string())?)?;
            self.line(&format!("{name} = {init};"));
        }
        let body = op.region(0).map_err(|e| e.to_string())?.first_block().ok_or("scf.for without a body")?;
        let iv = self.fresh("i");
        self.bind(body.argument(0).map_err(|e| e.to_string())?.into(), iv.clone());
        for (k, name) in carried.iter().enumerate() {
            self.bind(body.argument(k + 1).map_err(|e| e.to_string())?.into(), name.clone());
        }
        self.source_comment(op);
        self.open(&format!("for (int64_t {iv} = {lower}; {iv} < {upper}; {iv} += {step}) {{"));
        let yielded = write_body(self, body, ops)?;
        self.assign_all(&carried, &yielded)?;
        self.close("}");
        Ok(())
    }

    /// `names[k] = values[k]` for every k at once, as a loop's carried
    /// values are updated: a value that is one of the names assigned (a
    /// swap, `scf.yield %b, %a`) is first copied to a temporary, or the
    /// assignment before it would have overwritten it.
    fn assign_all(&mut self, names: &[String], values: &[String]) -> Result<(), String> {
        if names.len() != values.len() {
            return Err(format!("{} carried values updated with {} values", names.len(), values.len()));
        }
        let changed: Vec<(&String, &String)> = names.iter().zip(values).filter(|(name, value)| name != value).collect();
        let overwritten = |value: &String| changed.iter().any(|(name, _)| *name == value);
        let mut reads = Vec::new();
        for (_, value) in &changed {
            if overwritten(value) {
                let copy = self.fresh("next");
                self.line(&format!("const auto {copy} = {value};"));
                reads.push(copy);
            } else {
                reads.push((*value).clone());
            }
        }
        for ((name, _), value) in changed.iter().zip(reads) {
            self.line(&format!("{name} = {value};"));
        }
        Ok(())
    }

    /// `scf.while` (scalar code: the conversion refuses tiles in it). Its
    /// carried values (the before region's arguments) and results are
    /// declared first; each trip runs the before region, sets the results
    /// to the values `scf.condition` forwards, leaves when the condition is
    /// false, else runs the after region (which reads the forwarded values
    /// under the results' names) and updates the carried values.
    fn while_loop(&mut self, op: OperationRef, ops: &mut dyn Ops) -> Result<(), String> {
        let region = |i: usize| op.region(i).map_err(|e| e.to_string())?.first_block().ok_or("scf.while without its two regions".to_string());
        let (before, after) = (region(0)?, region(1)?);
        let mut carried = Vec::new();
        for k in 0..before.argument_count() {
            let argument = before.argument(k).map_err(|e| e.to_string())?;
            let init = self.name(op.operand(k).map_err(|e| e.to_string())?)?;
            let name = self.fresh("carried");
            self.line(&format!("{} {name} = {init};", c_type(argument.r#type())?));
            self.bind(argument.into(), name.clone());
            carried.push(name);
        }
        let results = self.declare_results(op, "found")?;
        if after.argument_count() != results.len() {
            return Err("scf.while whose after region does not take its results".into());
        }
        for (k, name) in results.iter().enumerate() {
            self.bind(after.argument(k).map_err(|e| e.to_string())?.into(), name.clone());
        }
        self.source_comment(op);
        self.open("while (true) {");
        let forwarded = self.block(before, ops)?;
        let (condition, values) = forwarded.split_first().ok_or("scf.while's before region without scf.condition")?;
        self.assign_all(&results, values)?;
        self.line(&format!("if (!({condition})) break;"));
        let yielded = self.block(after, ops)?;
        self.assign_all(&carried, &yielded)?;
        self.close("}");
        Ok(())
    }

    /// A kernel-local array (`crate::arrays`): `int64_t array[N] = {};`.
    /// Zeroed: MLIR leaves an alloca's contents undefined, and zeros make a
    /// read before the first write the same on every run (and what the
    /// metrics interpreter assumes).
    fn local_array(&mut self, op: OperationRef) -> Result<(), String> {
        let result = op.result(0).map_err(|e| e.to_string())?;
        let (element, length) = crate::arrays::element_and_length(result.r#type())?;
        let name = self.fresh("array");
        self.line(&format!("{} {name}[{length}] = {{}};", c_type(element)?));
        self.bind(result.into(), name);
        Ok(())
    }

    /// `memref.load` / `memref.store` of a kernel-local array: `array[i]`.
    fn array_access(&mut self, op: OperationRef) -> Result<(), String> {
        let name = op_name(op);
        let store = name == crate::arrays::STORE;
        // load: array, index; store: value, array, index.
        let array = op.operand(usize::from(store)).map_err(|e| e.to_string())?;
        if !crate::arrays::is_local_array(array) {
            if !store && htp_ir::builder::is_memref(array.r#type()) {
                return self.tensor_element(op);
            }
            return Err(format!("'{name}' of {}: a kernel moves tensor data with tile loads and stores, and writes only kernel-local arrays (memref.alloca) element by element", array.r#type()));
        }
        let index = op.operand(usize::from(store) + 1).map_err(|_| format!("'{name}' without its index"))?;
        let element = format!("{}[{}]", self.name(array)?, self.name(index)?);
        if store {
            let value = self.name(op.operand(0).map_err(|e| e.to_string())?)?;
            self.line(&format!("{element} = {value};"));
        } else {
            let result = op.result(0).map_err(|e| e.to_string())?;
            let variable = self.fresh("v");
            self.line(&format!("const {} {variable} = {element};", c_type(result.r#type())?));
            self.bind(result.into(), variable);
        }
        Ok(())
    }

    /// `memref.load` of a kernel's tensor (`lens[b]` in the user's kernel):
    /// the element at its row-major offset, read by the scalar unit from GM
    /// after invalidating its cache line (`dcci`: AI Core data caches are not
    /// coherent with what other cores and DMA wrote; a no-op on a2a3sim).
    fn tensor_element(&mut self, op: OperationRef) -> Result<(), String> {
        let tensor = op.operand(0).map_err(|e| e.to_string())?;
        let element_type = htp_ir::builder::element_of(tensor.r#type());
        let base = self.name(tensor)?;
        let (offset, _) = self.element_offset(op, 0)?;
        // A bool tensor holds one byte per element.
        let (pointer, read) = if htp_ir::builder::int_width(element_type) == Some(1) {
            let bytes = format!("reinterpret_cast<__gm__ uint8_t *>({base})");
            (format!("{bytes} + {offset}"), format!("({bytes}[{offset}] != 0)"))
        } else {
            (format!("{base} + {offset}"), format!("{base}[{offset}]"))
        };
        self.line(&format!("dcci(reinterpret_cast<__gm__ void *>({pointer}), cache_line_t::SINGLE_CACHE_LINE);"));
        let result = op.result(0).map_err(|e| e.to_string())?;
        let variable = self.fresh("element");
        self.line(&format!("const {} {variable} = {read};", c_type(result.r#type())?));
        self.bind(result.into(), variable);
        Ok(())
    }

    /// The row-major offset of the element `op` addresses with its operand
    /// `at` (a kernel's tensor) and the indices after it, one per
    /// dimension: declared as a `const int64_t`; returns its name and the
    /// operand position after the indices.
    pub fn element_offset(&mut self, op: OperationRef, at: usize) -> Result<(String, usize), String> {
        let tensor = op.operand(at).map_err(|e| e.to_string())?;
        let shape = htp_ir::builder::shape_of(tensor.r#type());
        let base = self.name(tensor)?;
        let rank = shape.len();
        let indices: Vec<String> = (0..rank).map(|d| op.operand(at + 1 + d).map_err(|e| e.to_string()).and_then(|v| self.name(v))).collect::<Result<_, _>>()?;
        let extent = |k: usize| if shape[k] >= 0 { shape[k].to_string() } else { format!("static_cast<int64_t>({base}_desc->shapes[{k}])") };
        let terms: Vec<String> = (0..rank)
            .map(|d| {
                let inner: Vec<String> = (d + 1..rank).map(extent).collect();
                let index = format!("static_cast<int64_t>({})", indices[d]);
                if inner.is_empty() { index } else { format!("{index} * {}", inner.join(" * ")) }
            })
            .collect();
        let offset = self.fresh("offset");
        self.line(&format!("const int64_t {offset} = {};", if terms.is_empty() { "0".to_string() } else { terms.join(" + ") }));
        Ok((offset, at + 1 + rank))
    }

    fn if_else(&mut self, op: OperationRef, ops: &mut dyn Ops) -> Result<(), String> {
        let condition = self.name(op.operand(0).map_err(|e| e.to_string())?)?;
        let results = self.declare_results(op, "chosen")?;
        self.open(&format!("if ({condition}) {{"));
        for index in 0..op.region_count() {
            if index == 1 {
                match op.region(1).map_err(|e| e.to_string())?.first_block() {
                    Some(_) => {
                        self.close("} else {");
                        self.indent += 1;
                    }
                    None => break,
                }
            }
            let block = op.region(index).map_err(|e| e.to_string())?.first_block().ok_or("scf.if without a then block")?;
            let yielded = self.block(block, ops)?;
            for (name, value) in results.iter().zip(yielded) {
                self.line(&format!("{name} = {value};"));
            }
        }
        self.close("}");
        Ok(())
    }

    /// arith and memref.dim as C++ expressions.
    fn scalar(&mut self, op: OperationRef, ops: &mut dyn Ops) -> Result<(), String> {
        let name = op_name(op);
        if name == "arith.constant" {
            let value = literal(op.attribute("value").map_err(|e| e.to_string())?)?;
            self.bind(op.result(0).map_err(|e| e.to_string())?.into(), value);
            return Ok(());
        }
        let operands: Vec<String> = op.operands().map(|v| self.name(v)).collect::<Result<_, _>>()?;
        let result = op.result(0).map_err(|_| format!("'{name}' has no C++ lowering"))?;
        let ty = c_type(result.r#type())?;
        let binary = |symbol: &str| format!("{} {symbol} {}", operands[0], operands[1]);
        let expression = match name.as_str() {
            "arith.addi" | "arith.addf" => binary("+"),
            "arith.subi" | "arith.subf" => binary("-"),
            "arith.muli" | "arith.mulf" => binary("*"),
            "arith.divsi" | "arith.divf" => binary("/"),
            "arith.remsi" => binary("%"),
            // C++ truncates; arith.floordivsi floors (Python's `//`).
            "arith.floordivsi" => {
                let (a, b) = (&operands[0], &operands[1]);
                format!("{a} / {b} - static_cast<{ty}>(({a} % {b} != 0) && (({a} % {b} < 0) != ({b} < 0)))")
            }
            "arith.andi" => binary("&"),
            "arith.ori" => binary("|"),
            "arith.xori" => binary("^"),
            "arith.ceildivsi" => format!("({} + {} - 1) / {}", operands[0], operands[1], operands[1]),
            "arith.minsi" | "arith.minimumf" => format!("std::min<{ty}>({}, {})", operands[0], operands[1]),
            "arith.maxsi" | "arith.maximumf" => format!("std::max<{ty}>({}, {})", operands[0], operands[1]),
            "arith.negf" => format!("-{}", operands[0]),
            "arith.select" => format!("{} ? {} : {}", operands[0], operands[1], operands[2]),
            "arith.index_cast" | "arith.sitofp" | "arith.fptosi" | "arith.extf" | "arith.truncf" | "arith.extsi"
            | "arith.trunci" => format!("static_cast<{ty}>({})", operands[0]),
            "arith.cmpi" | "arith.cmpf" => {
                let predicate = IntegerAttribute::try_from(op.attribute("predicate").map_err(|e| e.to_string())?)
                    .map_err(|_| "cmp predicate")?
                    .value();
                let symbol = if name == "arith.cmpi" {
                    ["==", "!=", "<", "<=", ">", ">=", "<", "<=", ">", ">="].get(predicate as usize)
                } else {
                    [
                        "false", "==", ">", ">=", "<", "<=", "!=", "ord", "==", ">", ">=", "<", "<=", "!=", "uno", "true",
                    ]
                    .get(predicate as usize)
                };
                binary(symbol.ok_or("cmp predicate")?)
            }
            "memref.dim" => {
                let dim = op.operand(1).map_err(|e| e.to_string())?;
                let index = constant_int(unsafe { Value::from_raw(dim.to_raw()) }).ok_or("memref.dim with a run-time dim")?;
                format!("static_cast<int64_t>({})", ops.dim(&operands[0], index))
            }
            _ => return Err(format!("'{name}' has no C++ lowering")),
        };
        let base = if name == "memref.dim" { "extent" } else { "v" };
        let variable = self.fresh(base);
        self.line(&format!("const {ty} {variable} = {expression};"));
        self.bind(result.into(), variable);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{comment, Ops, Writer};
    use melior::ir::{block::BlockLike, operation::OperationLike, Module, OperationRef, RegionLike};

    /// The writer writes everything but the return (as the emitters, which end functions themselves).
    struct Plain;

    impl Ops for Plain {
        fn op(&mut self, _: &mut Writer, op: OperationRef) -> Result<bool, String> {
            Ok(super::op_name(op) == "func.return")
        }
        fn dim(&self, tensor: &str, dim: i64) -> String {
            format!("{tensor}.shape[{dim}]")
        }
    }

    /// The C++ of the body of `@f(%a: index, %b: index)` in `text`, without
    /// its source comments (the test module's locations).
    fn body_of(text: &str) -> String {
        let context = crate::new_context().unwrap();
        let module = Module::parse(&context, text).expect("the test module parses");
        let function = module.body().first_operation().expect("a function");
        let body = function.region(0).unwrap().first_block().unwrap();
        let lines = |_: &str, _: u32| None;
        let mut w = Writer::new(&lines);
        for (i, name) in ["a", "b"].into_iter().enumerate() {
            w.reserve(name);
            w.bind(body.argument(i).unwrap().into(), name.to_string());
        }
        w.block(body, &mut Plain).unwrap();
        w.out.lines().filter(|line| !line.trim_start().starts_with("//")).map(|line| format!("{line}\n")).collect()
    }

    #[test]
    fn carried_values_are_updated_at_once() {
        // A swap: each new value is the other's old one.
        let out = body_of(
            "func.func @f(%a: index, %b: index) {
               %c0 = arith.constant 0 : index
               %c1 = arith.constant 1 : index
               %r:2 = scf.for %i = %c0 to %c1 step %c1 iter_args(%x = %a, %y = %b) -> (index, index) {
                 scf.yield %y, %x : index, index
               }
               return
             }",
        );
        let update = "    const auto next = carried_1;\n    const auto next_1 = carried;\n    carried = next;\n    carried_1 = next_1;\n}";
        assert!(out.contains(update), "{out}");
    }

    #[test]
    fn a_while_loop_binds_its_results_to_what_its_condition_forwards() {
        let out = body_of(
            "func.func @f(%a: index, %b: index) {
               %r = scf.while (%k = %a) : (index) -> index {
                 %more = arith.cmpi slt, %k, %b : index
                 scf.condition(%more) %k : index
               } do {
               ^bb0(%k: index):
                 %c2 = arith.constant 2 : index
                 %next = arith.muli %k, %c2 : index
                 scf.yield %next : index
               }
               %s = arith.addi %r, %b : index
               return
             }",
        );
        let expected = "int64_t carried = a;
int64_t found;
while (true) {
    const bool v = carried < b;
    found = carried;
    if (!(v)) break;
    const int64_t v_1 = found * 2;
    carried = v_1;
}
const int64_t v_2 = found + b;
";
        assert_eq!(out, expected);
    }

    #[test]
    fn user_text_stays_inside_its_comment() {
        // A Python statement continued with a backslash (issue 18).
        assert_eq!(comment("k.py:7: t = x[i:i + 16, :] + \\"), "// k.py:7: t = x[i:i + 16, :] + \\ (line continues)");
        // Blanks between the backslash and the line's end splice too.
        assert_eq!(comment("a \\ \t "), "// a \\ (line continues)");
        // A line break (a file name may hold one) or another control character.
        assert_eq!(comment("dir/a\nb.py:3: y = 1\r"), "// dir/a b.py:3: y = 1");
        assert_eq!(comment("x = 1 # \\ inside"), "// x = 1 # \\ inside");
    }
}
