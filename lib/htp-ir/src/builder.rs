//! Builds ops for the Rust conversions: before an anchor op ([`Emitter`]) or
//! at the end of a block ([`BodyBuilder`]), with helpers for common upstream ops.

use melior::{
    ir::{
        attribute::{DenseI32ArrayAttribute, DenseI64ArrayAttribute, FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        r#type::{FunctionType, IntegerType, RankedTensorType},
        Attribute, Block, BlockRef, Identifier, Location, Operation, OperationRef, Region, RegionLike, Type, TypeLike,
        Value, ValueLike,
    },
    Context,
};

/// `ShapedType::kDynamic`.
pub const DYNAMIC: i64 = i64::MIN;

/// A value whose lifetime is the context's. melior ties values to the
/// borrow of the block or op they came from; within one pass run all IR
/// lives as long as the module, so the lowering works with context-lived
/// values throughout and never keeps one past the run.
pub type V<'c> = Value<'c, 'c>;

pub fn detach<'c>(value: Value<'c, '_>) -> V<'c> {
    unsafe { Value::from_raw(value.to_raw()) }
}

/// Inserts new ops before `anchor` in `block`, at `location`.
pub struct Emitter<'c, 'a> {
    pub context: &'c Context,
    pub block: BlockRef<'c, 'a>,
    pub anchor: OperationRef<'c, 'a>,
    pub location: Location<'c>,
}

/// Appends ops at the end of a block: the body of a linalg.generic /
/// tensor.generate region being built, or a PTO kernel's block (`At`).
#[derive(Clone, Copy)]
pub struct BodyBuilder<'c> {
    pub context: &'c Context,
    pub block: BlockRef<'c, 'c>,
    pub location: Location<'c>,
}

impl<'c> BodyBuilder<'c> {
    /// A builder for a block not yet placed in a region. MLIR owns the
    /// block's storage, so the reference stays valid when the `Block` is
    /// later moved into a region; build into it before that.
    pub fn for_block(context: &'c Context, block: &Block<'c>, location: Location<'c>) -> Self {
        BodyBuilder { context, block: unsafe { BlockRef::from_raw(block.to_raw()) }, location }
    }
}

pub fn named<'c>(context: &'c Context, name: &str) -> Identifier<'c> {
    Identifier::new(context, name)
}

/// A type written in MLIR syntax by this module (never user text).
pub fn parse_type<'c>(context: &'c Context, text: &str) -> Type<'c> {
    Type::parse(context, text).unwrap_or_else(|| panic!("HTP built an invalid type: {text}"))
}

/// An attribute written in MLIR syntax by this module (never user text).
pub fn parse_attribute<'c>(context: &'c Context, text: &str) -> Attribute<'c> {
    Attribute::parse(context, text).unwrap_or_else(|| panic!("HTP built an invalid attribute: {text}"))
}

pub fn tensor_type<'c>(dims: &[i64], element: Type<'c>) -> Type<'c> {
    let dims: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
    RankedTensorType::new(&dims, element, None).into()
}

/// The dims of a ranked tensor/memref type (`DYNAMIC` for `?`).
pub fn shape_of(ty: Type) -> Vec<i64> {
    let raw = ty.to_raw();
    unsafe {
        let rank = mlir_sys::mlirShapedTypeGetRank(raw);
        (0..rank).map(|d| mlir_sys::mlirShapedTypeGetDimSize(raw, d as isize)).collect()
    }
}

/// The strides of a memref type with a `strided<[...]>` layout (`DYNAMIC`
/// for `?`); `None` for any other layout (the identity, an affine map) or
/// type.
pub fn explicit_strides(ty: Type) -> Option<Vec<i64>> {
    let memref = melior::ir::r#type::MemRefType::try_from(ty).ok()?;
    unsafe {
        let layout = mlir_sys::mlirMemRefTypeGetLayout(memref.to_raw());
        if !mlir_sys::mlirAttributeIsAStridedLayout(layout) {
            return None;
        }
        let count = mlir_sys::mlirStridedLayoutAttrGetNumStrides(layout);
        Some((0..count).map(|i| mlir_sys::mlirStridedLayoutAttrGetStride(layout, i)).collect())
    }
}

/// Whether `ty` is a memref of rank 2 or more in Fortran order (the first
/// dimension contiguous: `strided<[1, ...]>`, `htp.layout("col_major")`).
pub fn is_column_major(ty: Type) -> bool {
    explicit_strides(ty).is_some_and(|strides| strides.len() > 1 && strides[0] == 1)
}

pub fn element_of(ty: Type) -> Type {
    unsafe { Type::from_raw(mlir_sys::mlirShapedTypeGetElementType(ty.to_raw())) }
}

pub fn is_float(ty: Type) -> bool {
    unsafe { mlir_sys::mlirTypeIsAFloat(ty.to_raw()) }
}

pub fn int_width(ty: Type) -> Option<u32> {
    IntegerType::try_from(ty).ok().map(|t| t.width())
}

/// Bit width of a float or integer type.
pub fn bit_width(ty: Type) -> u32 {
    int_width(ty).unwrap_or_else(|| unsafe { mlir_sys::mlirFloatTypeGetWidth(ty.to_raw()) })
}

/// An affine map attribute over loop dims `d0..` with the given results.
pub fn affine_map<'c>(context: &'c Context, dims: usize, results: &str) -> Attribute<'c> {
    let names: Vec<String> = (0..dims).map(|d| format!("d{d}")).collect();
    parse_attribute(context, &format!("affine_map<({}) -> ({results})>", names.join(", ")))
}

fn build_op<'c>(
    context: &'c Context,
    location: Location<'c>,
    name: &str,
    operands: &[V<'c>],
    results: &[Type<'c>],
    attributes: &[(&str, Attribute<'c>)],
    regions: Vec<Region<'c>>,
) -> melior::ir::Operation<'c> {
    let attributes: Vec<_> = attributes.iter().map(|(n, a)| (named(context, n), *a)).collect();
    OperationBuilder::new(name, location)
        .add_operands(operands)
        .add_results(results)
        .add_attributes(&attributes)
        .add_regions_vec(regions)
        .build()
        .unwrap_or_else(|e| panic!("HTP built an invalid {name}: {e}"))
}

/// Sets `function`'s `function_type` inputs to its entry block's argument
/// types, keeping its results: after arguments were added, removed or
/// retyped in place.
pub fn sync_function_inputs<'c>(context: &'c Context, function: OperationRef<'c, '_>) {
    let Some(entry) = function.region(0).ok().and_then(|r| r.first_block()) else { return };
    let inputs: Vec<Type> = (0..entry.argument_count()).filter_map(|i| entry.argument(i).ok()).map(|a| a.r#type()).collect();
    let current = function.attribute("function_type").ok().and_then(|a| TypeAttribute::try_from(a).ok()).and_then(|t| FunctionType::try_from(t.value()).ok());
    let results: Vec<Type> = current.map(|f| (0..f.result_count()).filter_map(|i| f.result(i).ok()).collect()).unwrap_or_default();
    let function_type = TypeAttribute::new(FunctionType::new(context, &inputs, &results).into());
    let mut function = unsafe { melior::ir::operation::OperationRefMut::from_raw(function.to_raw()) };
    melior::ir::operation::OperationMutLike::set_attribute(&mut function, "function_type", function_type.into());
}

/// `func.func @name(arguments) -> ()` with the attribute `marker` and an empty
/// entry block, returned for the caller to fill (it stays valid when the
/// function is inserted into a module).
pub fn function<'c>(
    context: &'c Context,
    location: Location<'c>,
    name: &str,
    arguments: &[(Type<'c>, Location<'c>)],
    marker: (&str, Attribute<'c>),
) -> (Operation<'c>, BlockRef<'c, 'c>) {
    let region = Region::new();
    let block = region.append_block(Block::new(arguments));
    let block: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(block.to_raw()) };
    let inputs: Vec<Type<'c>> = arguments.iter().map(|(t, _)| *t).collect();
    let function_type = FunctionType::new(context, &inputs, &[]);
    let attributes = [
        (named(context, "sym_name"), StringAttribute::new(context, name).into()),
        (named(context, "function_type"), TypeAttribute::new(function_type.into()).into()),
        (named(context, marker.0), marker.1),
    ];
    let function = OperationBuilder::new("func.func", location)
        .add_attributes(&attributes)
        .add_regions([region])
        .build()
        .unwrap_or_else(|e| panic!("HTP built an invalid func.func: {e}"));
    (function, block)
}

/// `func.func private @name(inputs) -> results` at the top of `module`'s
/// body, unless a symbol of that name is already there: the declaration of
/// a runtime function generated code calls.
pub fn declare_private_function<'c>(context: &'c Context, module: OperationRef<'c, '_>, name: &str, inputs: &[Type<'c>], results: &[Type<'c>]) {
    let Some(body) = module.region(0).ok().and_then(|region| region.first_block()) else { return };
    let mut op = body.first_operation();
    while let Some(current) = op {
        if current.attribute("sym_name").ok().and_then(|a| StringAttribute::try_from(a).ok()).is_some_and(|n| n.value() == name) {
            return;
        }
        op = current.next_in_block();
    }
    let function_type = FunctionType::new(context, inputs, results);
    let declaration = OperationBuilder::new("func.func", module.location())
        .add_attributes(&[
            (named(context, "sym_name"), StringAttribute::new(context, name).into()),
            (named(context, "function_type"), TypeAttribute::new(function_type.into()).into()),
            (named(context, "sym_visibility"), StringAttribute::new(context, "private").into()),
        ])
        .add_regions([Region::new()])
        .build()
        .unwrap_or_else(|e| panic!("HTP built an invalid declaration of {name}: {e}"));
    body.insert_operation(0, declaration);
}

/// Where new ops go, and the ops both kinds of builder make. Implemented by
/// [`Emitter`] (before the tile op being lowered) and [`BodyBuilder`] (at
/// the end of a region body being built).
pub trait Builder<'c> {
    fn context(&self) -> &'c Context;
    fn location(&self) -> Location<'c>;
    /// Places `op` and returns it.
    fn place(&self, op: Operation<'c>) -> OperationRef<'c, '_>;

    /// Builds and places `name(operands) {attributes} (regions) : results`.
    fn op(
        &self,
        name: &str,
        operands: &[V<'c>],
        results: &[Type<'c>],
        attributes: &[(&str, Attribute<'c>)],
        regions: Vec<Region<'c>>,
    ) -> OperationRef<'c, '_> {
        self.place(build_op(self.context(), self.location(), name, operands, results, attributes, regions))
    }

    /// A single-result op with attributes; returns the result.
    fn value_with(&self, name: &str, operands: &[V<'c>], result: Type<'c>, attributes: &[(&str, Attribute<'c>)]) -> V<'c> {
        detach(self.op(name, operands, &[result], attributes, vec![]).result(0).unwrap().into())
    }

    /// A single-result op without attributes.
    fn value(&self, name: &str, operands: &[V<'c>], result: Type<'c>) -> V<'c> {
        self.value_with(name, operands, result, &[])
    }

    fn constant(&self, value: Attribute<'c>, ty: Type<'c>) -> V<'c> {
        self.value_with("arith.constant", &[], ty, &[("value", value)])
    }

    /// An `index` constant.
    fn index(&self, value: i64) -> V<'c> {
        let ty = Type::index(self.context());
        self.constant(IntegerAttribute::new(ty, value).into(), ty)
    }

    /// A loop's bounds made safe for a run-time `step`: where it is not
    /// positive (scf.for would never end; a task split would divide by
    /// it), upper := lower and step := 1, so the loop runs zero times.
    /// Returns (the step is not positive, upper, step); callers may report
    /// the condition.
    fn zero_trips_unless_positive(&self, lower: V<'c>, upper: V<'c>, step: V<'c>) -> (V<'c>, V<'c>, V<'c>) {
        let ty = step.r#type();
        let i1: Type<'c> = melior::ir::r#type::IntegerType::new(self.context(), 1).into();
        let i64_type: Type<'c> = melior::ir::r#type::IntegerType::new(self.context(), 64).into();
        let zero = self.constant(IntegerAttribute::new(ty, 0).into(), ty);
        let one = self.constant(IntegerAttribute::new(ty, 1).into(), ty);
        // predicate 3: sle
        let bad = self.value_with("arith.cmpi", &[step, zero], i1, &[("predicate", IntegerAttribute::new(i64_type, 3).into())]);
        let upper = self.value("arith.select", &[bad, lower, upper], upper.r#type());
        let step = self.value("arith.select", &[bad, one, step], ty);
        (bad, upper, step)
    }

    /// A float or integer constant of `ty`.
    fn number(&self, ty: Type<'c>, value: f64) -> V<'c> {
        let attribute = if is_float(ty) {
            FloatAttribute::new(self.context(), ty, value).into()
        } else {
            IntegerAttribute::new(ty, value as i64).into()
        };
        self.constant(attribute, ty)
    }
}

impl<'c> Builder<'c> for Emitter<'c, '_> {
    fn context(&self) -> &'c Context {
        self.context
    }
    fn location(&self) -> Location<'c> {
        self.location
    }
    fn place(&self, op: Operation<'c>) -> OperationRef<'c, '_> {
        self.block.insert_operation_before(self.anchor, op)
    }
}

impl<'c> Builder<'c> for BodyBuilder<'c> {
    fn context(&self) -> &'c Context {
        self.context
    }
    fn location(&self) -> Location<'c> {
        self.location
    }
    fn place(&self, op: Operation<'c>) -> OperationRef<'c, '_> {
        self.block.append_operation(op)
    }
}

impl<'c, 'a> Emitter<'c, 'a> {
    /// `tensor.dim %tensor, dim`
    pub fn dim(&self, tensor: V<'c>, dim: i64) -> V<'c> {
        let index = self.index(dim);
        self.value("tensor.dim", &[tensor, index], Type::index(self.context))
    }

    /// The SSA sizes for the dynamic dims of `ty`, taken from `sizes` (one
    /// per dim; only the dynamic ones are used).
    pub fn dynamic_sizes(&self, ty: Type<'c>, sizes: &[Option<V<'c>>]) -> Vec<V<'c>> {
        shape_of(ty)
            .iter()
            .zip(sizes)
            .filter(|(dim, _)| **dim == DYNAMIC)
            .map(|(_, size)| size.expect("a dynamic dim has a run-time size"))
            .collect()
    }

    /// `tensor.splat %scalar[dyn sizes] : ty`
    pub fn splat(&self, scalar: V<'c>, ty: Type<'c>, dynamic: &[V<'c>]) -> V<'c> {
        let mut operands = vec![scalar];
        operands.extend_from_slice(dynamic);
        self.value("tensor.splat", &operands, ty)
    }

    /// A `linalg.generic` with one init and the given indexing maps (inputs
    /// first) and iterator kinds; `body` gets the block arguments (inputs,
    /// then the init element) and returns the value to yield.
    pub fn generic(
        &self,
        inputs: &[V<'c>],
        init: V<'c>,
        maps: &[Attribute<'c>],
        iterators: &[&str],
        body: impl FnOnce(&BodyBuilder<'c>, &[V<'c>]) -> V<'c>,
    ) -> V<'c> {
        let mut argument_types: Vec<(Type<'c>, Location<'c>)> =
            inputs.iter().map(|v| (scalar_of(v.r#type()), self.location)).collect();
        argument_types.push((element_of(init.r#type()), self.location));
        let block = Block::new(&argument_types);
        let arguments: Vec<V<'c>> = (0..block.argument_count()).map(|i| detach(block.argument(i).unwrap().into())).collect();
        let builder = BodyBuilder::for_block(self.context, &block, self.location);
        let yielded = body(&builder, &arguments);
        builder.op("linalg.yield", &[yielded], &[], &[], vec![]);
        let region = Region::new();
        region.append_block(block);

        let iterators: Vec<String> = iterators.iter().map(|k| format!("#linalg.iterator_type<{k}>")).collect();
        let iterator_types = parse_attribute(self.context, &format!("[{}]", iterators.join(", ")));
        let indexing_maps = melior::ir::attribute::ArrayAttribute::new(self.context, maps).into();
        let segments = DenseI32ArrayAttribute::new(self.context, &[inputs.len() as i32, 1]).into();
        let mut operands: Vec<V<'c>> = inputs.to_vec();
        operands.push(init);
        detach(
            self.op(
                "linalg.generic",
                &operands,
                &[init.r#type()],
                &[("indexing_maps", indexing_maps), ("iterator_types", iterator_types), ("operandSegmentSizes", segments)],
                vec![region],
            )
            .result(0)
            .unwrap()
            .into(),
        )
    }

    /// `tensor.generate` of `ty`: `body` gets one index per dim.
    pub fn generate(
        &self,
        ty: Type<'c>,
        dynamic: &[V<'c>],
        body: impl FnOnce(&BodyBuilder<'c>, &[V<'c>]) -> V<'c>,
    ) -> V<'c> {
        let rank = shape_of(ty).len();
        let block = Block::new(&vec![(Type::index(self.context), self.location); rank]);
        let indices: Vec<V<'c>> = (0..rank).map(|i| detach(block.argument(i).unwrap().into())).collect();
        let builder = BodyBuilder::for_block(self.context, &block, self.location);
        let yielded = body(&builder, &indices);
        builder.op("tensor.yield", &[yielded], &[], &[], vec![]);
        let region = Region::new();
        region.append_block(block);
        detach(self.op("tensor.generate", dynamic, &[ty], &[], vec![region]).result(0).unwrap().into())
    }

    pub fn i64_array(&self, values: &[i64]) -> Attribute<'c> {
        DenseI64ArrayAttribute::new(self.context, values).into()
    }

    pub fn i32_array(&self, values: &[i32]) -> Attribute<'c> {
        DenseI32ArrayAttribute::new(self.context, values).into()
    }

    pub fn unit(&self) -> Attribute<'c> {
        parse_attribute(self.context, "unit")
    }
}

/// Whether `ty` is a memref (a tensor argument in GM / a numpy array).
pub fn is_memref(ty: Type) -> bool {
    unsafe { mlir_sys::mlirTypeIsAMemRef(ty.to_raw()) }
}

pub fn is_shaped(ty: Type) -> bool {
    unsafe { mlir_sys::mlirTypeIsAShaped(ty.to_raw()) }
}

/// The element type of a shaped value, or the value's type for a scalar.
pub fn scalar_of(ty: Type) -> Type {
    if is_shaped(ty) {
        element_of(ty)
    } else {
        ty
    }
}
