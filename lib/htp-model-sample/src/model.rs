//! The `sample` programming model: its constructs (`cell`, `put`, `get`),
//! loops (`each(n)`, `grid(m, n)`: two indices), block construct
//! (`with sm.scope():`), the type `Cell` for helpers' parameters, and its
//! pipeline.

use htp_api::models::{
    arguments_of, results_of, Construct, ConstructSite, LoopBody, LoopConstructor, ModelIr, ModelType, ModelValue, ProgrammingModel,
    ViewExtent,
};
use melior::ir::{
    attribute::{FloatAttribute, IntegerAttribute},
    r#type::IntegerType,
    Type, ValueLike,
};

/// The model, as registered.
pub static SAMPLE: ProgrammingModel = ProgrammingModel {
    name: "sample",
    namespace: "sample",
    description: "the sample programming model (tests the model recipe): mutable cells, two-index loops, scopes",
    entry_decorator: "program",
    dialects: &["cells", "scf", "arith"],
    rules: &[],
    constructs: &[
        Construct { name: "cell", summary: "a new cell holding a scalar: sm.cell(0.0)", lower: cell },
        Construct { name: "put", summary: "writes a scalar into a cell: sm.put(c, v)", lower: put },
        Construct { name: "get", summary: "the scalar a cell holds: sm.get(c)", lower: get },
        Construct { name: "rows", summary: "how many rows of a tensor's block are inside it, as f32: sm.rows(x[i:i + 16, :])", lower: rows },
    ],
    loops: &[
        LoopConstructor { name: "each", summary: "for i in sm.each(n): 0 .. n", lower: each },
        LoopConstructor { name: "grid", summary: "for i, j in sm.grid(m, n): every (i, j), row by row", lower: grid },
    ],
    blocks: &[LoopConstructor { name: "scope", summary: "with sm.scope(): a region of its own", lower: scope }],
    types: &[ModelType { name: "Cell", summary: "a cell (a parameter of a function a program calls)", matches: crate::is_cell }],
    pipeline: Some("sample-lower-cells"),
    python: None,
};

/// A scalar argument as a value: run-time values as they are, Python
/// numbers as f32 (floats), i64 (ints) or i1 (bools) constants.
fn scalar<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>) -> Result<ModelIr<'c>, String> {
    let context = site.context;
    let constant = |attribute: melior::ir::Attribute<'c>, ty: Type<'c>| {
        site.emit("arith.constant", &[], &[ty], &[("value", attribute)]).map(|results| results[0])
    };
    match value {
        ModelValue::Value(v) => Ok(*v),
        ModelValue::Float(f) => {
            let f32 = Type::float32(context);
            constant(FloatAttribute::new(context, f32, *f).into(), f32)
        }
        ModelValue::Int(i) => {
            let i64 = IntegerType::new(context, 64).into();
            constant(IntegerAttribute::new(i64, *i).into(), i64)
        }
        ModelValue::Bool(b) => {
            let i1 = IntegerType::new(context, 1).into();
            constant(IntegerAttribute::new(i1, *b as i64).into(), i1)
        }
        _ => Err("expected a scalar".into()),
    }
}

/// An index from a Python int or an `index` value.
fn index<'c>(site: &ConstructSite<'c, '_>, value: &ModelValue<'c>) -> Result<ModelIr<'c>, String> {
    let index = Type::index(site.context);
    match value {
        ModelValue::Int(n) => Ok(site.emit("arith.constant", &[], &[index], &[("value", IntegerAttribute::new(index, *n).into())])?[0]),
        ModelValue::Value(v) if v.r#type() == index => Ok(*v),
        _ => Err("a trip count is an int or an index".into()),
    }
}

fn cell<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [init] = site.positional else { return Err("takes the cell's initial value".into()) };
    let init = scalar(site, init)?;
    let ty = crate::cell_type(init.r#type());
    Ok(ModelValue::Value(site.emit("cells.new", &[init], &[ty], &[])?[0]))
}

fn put<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [ModelValue::Value(cell), value] = site.positional else { return Err("takes a cell and a value".into()) };
    let value = scalar(site, value)?;
    site.emit("cells.put", &[*cell, value], &[], &[])?;
    Ok(ModelValue::None)
}

fn get<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [ModelValue::Value(cell)] = site.positional else { return Err("takes a cell".into()) };
    let element = crate::cell_element(cell.r#type()).ok_or("takes a cell")?;
    Ok(ModelValue::Value(site.emit("cells.get", &[*cell], &[element], &[])?[0]))
}

/// The valid rows of a tensor view (fewer than its block's at a ragged
/// edge), as an f32.
fn rows<'c>(site: &ConstructSite<'c, '_>) -> Result<ModelValue<'c>, String> {
    let [ModelValue::View(view)] = site.positional else { return Err("takes a block of a tensor, x[i:i + R, :]".into()) };
    match view.valid[0] {
        ViewExtent::Static(n) => Ok(ModelValue::Float(n as f64)),
        ViewExtent::Dynamic(count) => {
            let i64 = IntegerType::new(site.context, 64).into();
            let wide = site.emit("arith.index_cast", &[count], &[i64], &[])?[0];
            Ok(ModelValue::Value(site.emit("arith.sitofp", &[wide], &[Type::float32(site.context)], &[])?[0]))
        }
    }
}

/// An `scf.for` from 0 to `stop` by 1 at `site`, carrying `carried`: the
/// op's results, its body block, its induction variable and the block
/// arguments standing for `carried`.
fn for_loop<'c>(site: &ConstructSite<'c, '_>, stop: ModelIr<'c>, carried: &[ModelIr<'c>]) -> Result<LoopBody<'c>, String> {
    let index = Type::index(site.context);
    let zero = index_constant(site, 0)?;
    let one = index_constant(site, 1)?;
    let types: Vec<Type<'c>> = carried.iter().map(|v| v.r#type()).collect();
    let mut operands = vec![zero, stop, one];
    operands.extend_from_slice(carried);
    let block_types: Vec<Type<'c>> = std::iter::once(index).chain(types.iter().copied()).collect();
    let (op, block) = site.emit_loop("scf.for", &operands, &types, &[], &block_types)?;
    let arguments = arguments_of(block);
    Ok(LoopBody { block, target: vec![arguments[0]], carried: arguments[1..].to_vec(), results: results_of(op), terminator: Some("scf.yield") })
}

fn index_constant<'c>(site: &ConstructSite<'c, '_>, value: i64) -> Result<ModelIr<'c>, String> {
    let index = Type::index(site.context);
    Ok(site.emit("arith.constant", &[], &[index], &[("value", IntegerAttribute::new(index, value).into())])?[0])
}

fn each<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    let [stop] = site.positional else { return Err("takes one trip count".into()) };
    let stop = index(site, stop)?;
    for_loop(site, stop, site.carried)
}

/// Two nested `scf.for`s; the body goes in the inner one, the outer one
/// yields what the inner one carried out.
fn grid<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    let [rows, cols] = site.positional else { return Err("takes two trip counts".into()) };
    let (rows, cols) = (index(site, rows)?, index(site, cols)?);
    let outer = for_loop(site, rows, site.carried)?;
    let inner_site = site.within(outer.block);
    let inner = for_loop(&inner_site, cols, &outer.carried)?;
    inner_site.emit("scf.yield", &inner.results, &[], &[])?;
    Ok(LoopBody {
        block: inner.block,
        target: vec![outer.target[0], inner.target[0]],
        carried: inner.carried,
        results: outer.results,
        terminator: Some("scf.yield"),
    })
}

/// `scf.execute_region`: its body sees the enclosing values (no block
/// arguments) and yields the carried ones as its results.
fn scope<'c>(site: &ConstructSite<'c, '_>) -> Result<LoopBody<'c>, String> {
    if !site.positional.is_empty() || !site.keywords.is_empty() {
        return Err("takes no arguments".into());
    }
    let (op, block) = site.emit_loop("scf.execute_region", &[], &site.carried_types(), &[], &[])?;
    Ok(LoopBody { block, target: vec![], carried: site.carried.to_vec(), results: results_of(op), terminator: Some("scf.yield") })
}
