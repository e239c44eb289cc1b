//! Creating MLIR operations with melior's `OperationBuilder` at the current
//! insertion block, each with the location of the Python node that asked
//! for it. Operation creation failures are HTP bugs (the lowering checks
//! user errors before building) and surface as internal diagnostics.

use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    block::BlockLike,
    operation::{OperationBuilder, OperationLike},
    Attribute, BlockRef, Identifier, Location, Region, Type, Value, ValueLike,
};
use mlir_sys::MlirValue;
use ruff_text_size::TextRange;

use super::types::{parse_type, Elem, ScalarTy, TileTy};
use super::{LResult, Lowerer};
use crate::diagnostics::DiagnosticKind;

/// One operation to build.
pub struct OpSpec<'c, 'a> {
    pub name: &'a str,
    pub operands: &'a [MlirValue],
    pub results: &'a [Type<'c>],
    pub attributes: Vec<(&'a str, Attribute<'c>)>,
    pub regions: Vec<Region<'c>>,
}

impl<'c, 'a> OpSpec<'c, 'a> {
    pub fn new(name: &'a str, operands: &'a [MlirValue], results: &'a [Type<'c>]) -> Self {
        Self { name, operands, results, attributes: Vec::new(), regions: Vec::new() }
    }
    pub fn attr(mut self, name: &'a str, value: Attribute<'c>) -> Self {
        self.attributes.push((name, value));
        self
    }
    pub fn region(mut self, region: Region<'c>) -> Self {
        self.regions.push(region);
        self
    }
}

impl<'c> Lowerer<'c, '_> {
    pub fn loc(&self, range: TextRange) -> Location<'c> {
        let src = self.source();
        let pos = src.range_start(range);
        Location::new(self.ctx, &src.file_name, pos.line as usize, pos.col as usize)
    }

    pub fn internal(&self, range: TextRange, message: impl Into<String>) -> crate::diagnostics::Diagnostic {
        self.error(range, DiagnosticKind::Internal, format!("internal error (an HTP bug): {}", message.into()))
    }

    /// Builds `spec` at `range`, appends it to the current block and returns
    /// its results.
    pub fn emit(&self, range: TextRange, spec: OpSpec<'c, '_>) -> LResult<Vec<MlirValue>> {
        let operands: Vec<Value<'c, '_>> = spec.operands.iter().map(|v| unsafe { Value::from_raw(*v) }).collect();
        let attributes: Vec<(Identifier<'c>, Attribute<'c>)> =
            spec.attributes.into_iter().map(|(n, a)| (Identifier::new(self.ctx, n), a)).collect();
        let op = OperationBuilder::new(spec.name, self.loc(range))
            .add_operands(&operands)
            .add_results(spec.results)
            .add_attributes(&attributes)
            .add_regions_vec(spec.regions)
            .build()
            .map_err(|e| self.internal(range, format!("cannot build {}: {e}", spec.name)))?;
        let block = unsafe { BlockRef::from_raw(self.block) };
        let op = block.append_operation(op);
        Ok(op.results().map(|r| r.to_raw()).collect())
    }

    /// Builds an op with exactly one result.
    /// Places an op made by a typed ODS builder (`htp_dialects::ods`) at
    /// the end of the current block; returns its first result.
    pub fn place1(&self, range: TextRange, op: impl Into<melior::ir::Operation<'c>>) -> LResult<MlirValue> {
        let block = unsafe { BlockRef::from_raw(self.block) };
        let op = block.append_operation(op.into());
        let name = op.name().as_string_ref().as_str().unwrap_or("?").to_string();
        let first = op.results().next().map(|r| r.to_raw());
        first.ok_or_else(|| self.internal(range, format!("{name} has no result")))
    }

    /// Places an op made by a typed ODS builder that has no result needed.
    pub fn place(&self, op: impl Into<melior::ir::Operation<'c>>) {
        let block = unsafe { BlockRef::from_raw(self.block) };
        block.append_operation(op.into());
    }

    /// A raw value the lowering holds, for a typed builder.
    pub fn value(&self, raw: MlirValue) -> Value<'c, 'c> {
        unsafe { Value::from_raw(raw) }
    }

    /// Raw values, for a typed builder's variadic operands.
    pub fn values(&self, raws: &[MlirValue]) -> Vec<Value<'c, 'c>> {
        raws.iter().map(|raw| self.value(*raw)).collect()
    }

    pub fn emit1(&self, range: TextRange, spec: OpSpec<'c, '_>) -> LResult<MlirValue> {
        let name = spec.name;
        self.emit(range, spec)?
            .into_iter()
            .next()
            .ok_or_else(|| self.internal(range, format!("{name} has no result")))
    }

    pub fn ty(&self, range: TextRange, text: &str) -> LResult<Type<'c>> {
        parse_type(self.ctx, text).map_err(|m| self.internal(range, m))
    }

    pub fn tile_ty(&self, range: TextRange, tile: &TileTy) -> LResult<Type<'c>> {
        self.ty(range, &tile.mlir())
    }

    pub fn scalar_ty(&self, range: TextRange, ty: ScalarTy) -> LResult<Type<'c>> {
        self.ty(range, ty.mlir())
    }

    pub fn index_const(&self, range: TextRange, value: i64) -> LResult<MlirValue> {
        let index = self.ty(range, "index")?;
        let attr = IntegerAttribute::new(index, value).into();
        self.emit1(range, OpSpec::new("arith.constant", &[], &[index]).attr("value", attr))
    }

    /// A typed attribute holding a Python number converted to `elem`.
    pub fn number_attr(&self, range: TextRange, value: f64, int_value: Option<i64>, ty: ScalarTy) -> LResult<Attribute<'c>> {
        let mlir_ty = self.scalar_ty(range, ty)?;
        Ok(match ty {
            ScalarTy::Elem(e) if e.is_float() => FloatAttribute::new(self.ctx, mlir_ty, value).into(),
            _ => {
                let v = int_value.unwrap_or(value as i64);
                // i1 true is all ones.
                let v = if ty == ScalarTy::Elem(Elem::I1) && v != 0 { -1 } else { v };
                IntegerAttribute::new(mlir_ty, v).into()
            }
        })
    }

    /// `arith.constant` of a Python number in type `ty`.
    pub fn scalar_const(&self, range: TextRange, value: f64, int_value: Option<i64>, ty: ScalarTy) -> LResult<MlirValue> {
        let mlir_ty = self.scalar_ty(range, ty)?;
        let attr = self.number_attr(range, value, int_value, ty)?;
        self.emit1(range, OpSpec::new("arith.constant", &[], &[mlir_ty]).attr("value", attr))
    }

    pub fn i32_attr(&self, value: i64) -> Attribute<'c> {
        IntegerAttribute::new(melior::ir::r#type::IntegerType::new(self.ctx, 32).into(), value).into()
    }

    pub fn i64_attr(&self, value: i64) -> Attribute<'c> {
        IntegerAttribute::new(melior::ir::r#type::IntegerType::new(self.ctx, 64).into(), value).into()
    }

    pub fn parse_attr(&self, range: TextRange, text: &str) -> LResult<Attribute<'c>> {
        Attribute::parse(self.ctx, text).ok_or_else(|| self.internal(range, format!("MLIR rejected the attribute `{text}`")))
    }
}
