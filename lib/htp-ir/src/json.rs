//! The IR as JSON, for emitters written outside Rust (a Python target's
//! emitter reads a lowered kernel this way instead of parsing MLIR text).
//!
//! An op is `{"name", "location", "operands", "results", "attributes",
//! "regions"}`: operands are value ids (`"v3"`), results and block
//! arguments `{"id", "type"}` (types and attributes as MLIR prints them), a
//! region a list of blocks `{"arguments", "ops"}`, a location
//! `[file, line, column]` or null.

use std::collections::HashMap;
use std::fmt::Write;

use melior::ir::{block::BlockLike, operation::OperationLike, Attribute, OperationRef, RegionLike, Value, ValueLike};

/// `op` (usually a module) and everything nested in it, as JSON.
pub fn to_json(op: OperationRef) -> String {
    let mut writer = JsonWriter { ids: HashMap::new(), out: String::new() };
    writer.op(op);
    writer.out
}

struct JsonWriter {
    ids: HashMap<usize, usize>,
    out: String,
}

impl JsonWriter {
    fn id(&mut self, value: Value) -> String {
        let next = self.ids.len();
        format!("v{}", *self.ids.entry(value.to_raw().ptr as usize).or_insert(next))
    }

    fn value(&mut self, value: Value) {
        let id = self.id(value);
        let _ = write!(self.out, "{{\"id\":\"{id}\",\"type\":{}}}", quoted(&value.r#type().to_string()));
    }

    fn op(&mut self, op: OperationRef) {
        let name = op.name().as_string_ref().as_str().unwrap_or("?").to_string();
        let _ = write!(self.out, "{{\"name\":{},\"location\":", quoted(&name));
        match location(op) {
            Some((file, line, column)) => {
                let _ = write!(self.out, "[{},{line},{column}]", quoted(&file));
            }
            None => self.out.push_str("null"),
        }
        self.out.push_str(",\"operands\":[");
        self.list(0..op.operand_count(), |w, index| {
            let id = op.operand(index).map(|v| w.id(v)).unwrap_or_default();
            let _ = write!(w.out, "\"{id}\"");
        });
        self.out.push_str("],\"results\":[");
        self.list(op.results(), |w, result| w.value(result.into()));
        self.out.push_str("],\"attributes\":{");
        let count = unsafe { mlir_sys::mlirOperationGetNumAttributes(op.to_raw()) };
        self.list(0..count, |w, index| {
            let named = unsafe { mlir_sys::mlirOperationGetAttribute(op.to_raw(), index) };
            let key = unsafe { mlir_sys::mlirIdentifierStr(named.name) };
            let key = unsafe { std::slice::from_raw_parts(key.data as *const u8, key.length) };
            let attribute = unsafe { Attribute::from_raw(named.attribute) };
            let _ = write!(w.out, "{}:{}", quoted(&String::from_utf8_lossy(key)), quoted(&attribute.to_string()));
        });
        self.out.push_str("},\"regions\":[");
        self.list(op.regions(), |w, region| {
            w.out.push('[');
            w.list(std::iter::successors(region.first_block(), |block| block.next_in_region()), |w, block| {
                w.out.push_str("{\"arguments\":[");
                w.list(0..block.argument_count(), |w, index| {
                    if let Ok(argument) = block.argument(index) {
                        w.value(argument.into());
                    }
                });
                w.out.push_str("],\"ops\":[");
                w.list(std::iter::successors(block.first_operation(), |op| op.next_in_block()), |w, nested| w.op(nested));
                w.out.push_str("]}");
            });
            w.out.push(']');
        });
        self.out.push_str("]}");
    }

    /// Writes `items` comma-separated, each with `write`.
    fn list<T>(&mut self, items: impl IntoIterator<Item = T>, mut write: impl FnMut(&mut Self, T)) {
        for (index, item) in items.into_iter().enumerate() {
            if index > 0 {
                self.out.push(',');
            }
            write(self, item);
        }
    }
}

/// (file, line, column) of the first file location inside the op's
/// location (through fused, named and call-site ones).
fn location(op: OperationRef) -> Option<(String, u32, u32)> {
    htp_dialects::diagnostics::source_position(op.location()).map(|p| (p.file, p.line, p.column))
}

/// `text` as a JSON string.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The JSON of the module `source` parses to.
    fn json_of(source: &str) -> String {
        let context = htp_dialects::new_context();
        let module = melior::ir::Module::parse(&context, source).expect("valid module");
        to_json(module.as_operation())
    }

    #[test]
    fn a_fused_location_gives_its_first_file_position() {
        let json = json_of("func.func @f() { return loc(fused[\"a\", \"k.py\":4:2, \"k.py\":5:1]) }");
        assert!(json.contains("\"location\":[\"k.py\",4,2]"), "{json}");
    }

    #[test]
    fn a_function_round_trips_as_json_with_ids_types_attributes_and_locations() {
        let json = json_of("func.func @f(%a: f32) -> f32 { %b = arith.addf %a, %a : f32 loc(\"k.py\":3:7) \n return %b : f32 }");
        assert!(json.starts_with("{\"name\":\"builtin.module\""), "{json}");
        assert!(json.contains("{\"name\":\"func.func\""), "{json}");
        assert!(json.contains("\"sym_name\":\"\\\"f\\\"\""), "{json}");
        assert!(json.contains("\"arguments\":[{\"id\":\"v0\",\"type\":\"f32\"}]"), "{json}");
        assert!(
            json.contains("{\"name\":\"arith.addf\",\"location\":[\"k.py\",3,7],\"operands\":[\"v0\",\"v0\"],\"results\":[{\"id\":\"v1\",\"type\":\"f32\"}]"),
            "{json}"
        );
        assert!(json.contains("{\"name\":\"func.return\",\"location\":null,\"operands\":[\"v1\"]") || json.contains("\"name\":\"func.return\""), "{json}");
    }
}
