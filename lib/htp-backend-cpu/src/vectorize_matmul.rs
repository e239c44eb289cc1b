//! `cpu-vectorize-matmul`: a tile matmul (the `(i, k, j)` `linalg.generic`
//! `convert-tile-to-linalg` builds, bufferized) becomes a call of a
//! register-blocked micro-kernel: a block of `ROWS` x `COLUMNS` of C stays
//! in vector registers for the whole k loop, each step one broadcast of an
//! element of A per row and one vector load of B per 16 columns, then a
//! fused multiply-add per accumulator. The rows and columns past the last
//! whole block run the original contraction (lowered to loops).
//!
//! Why: lowered to loops, the contraction loads and stores a row of C for
//! every k — one FMA per load/store pair, about 27% of one-thread
//! OpenBLAS (docs/performance.md). The micro-kernel is written once per
//! element-type triple as MLIR text (vector + scf + memref), parsed into
//! the module as a private function; LLVM inlines or calls it.
//!
//! Matches only the plain contraction: maps `A(d0, d1)`, `B(d1, d2)` (or
//! `B(d2, d1)`, a transpose fused into it: B is transposed into a buffer
//! first), `C(d0, d2)`, iterators (parallel, reduction, parallel), a body of at
//! most two `arith.extf`, one `arith.mulf` and one `arith.addf` of the
//! accumulator, an f32 result, operands whose innermost stride is 1.
//! Anything else (a producer fused into the body, integer matmuls) keeps
//! the loops.

use htp_ir::builder::{detach, element_of, Builder, Emitter, V};
use htp_pass::Failure;
use melior::{
    ir::{
        block::BlockLike,
        operation::{OperationLike, WalkOrder, WalkResult},
        BlockRef, Module, OperationRef, RegionLike, Type, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"cpu-vectorize-matmul", "builtin.module"> {
        summary: "Run bufferized tile matmuls as a register-blocked, vectorised micro-kernel (the cpu target)",
        dialects: [vector, scf, memref, func],
        run: run,
    }
}

/// Rows of C kept in registers.
const ROWS: usize = 4;
/// Columns of C kept in registers: four vectors of 16 f32 (then single
/// vectors for the columns past the last block).
const COLUMNS: usize = 64;
const LANES: usize = 16;

/// A contraction the micro-kernel runs: A's and B's element types, and
/// whether B is read transposed (`B(d2, d1)`: a `tile.transpose` fused
/// into the matmul, as in `q @ transpose(k)`).
struct Contraction {
    a: String,
    b: String,
    transposed_b: bool,
}

fn run<'c>(context: &'c Context, module: OperationRef<'c, '_>) -> Result<(), Failure<'c>> {
    let mut matmuls: Vec<(OperationRef<'c, 'c>, Contraction)> = Vec::new();
    module.walk(WalkOrder::PreOrder, |op| {
        if op.name().as_string_ref().as_str() == Ok("linalg.generic") {
            if let Some(contraction) = plain_contraction(op) {
                matmuls.push((unsafe { OperationRef::from_raw(op.to_raw()) }, contraction));
            }
        }
        WalkResult::Advance
    });
    let body = module.region(0).expect("a module has a body").first_block().expect("a module body block");
    let body: BlockRef<'c, 'c> = unsafe { BlockRef::from_raw(body.to_raw()) };
    for (generic, Contraction { a, b, transposed_b }) in matmuls {
        htp_pass::processing(generic.location());
        // One f32 micro-kernel; other element types and a transposed B go
        // through a function that prepares f32 operands first.
        let kernel = format!("__htp_matmul_{ROWS}x{COLUMNS}_f32");
        define(context, body, &kernel, || micro_kernel(&kernel)).map_err(|message| (generic.location(), message))?;
        let name = if a != "f32" || b != "f32" || transposed_b {
            let name = format!("__htp_matmul_{}{a}_{b}", if transposed_b { "bt_" } else { "" });
            define(context, body, &name, || prepared_kernel(&name, &kernel, &a, &b, transposed_b)).map_err(|message| (generic.location(), message))?;
            name
        } else {
            kernel
        };
        let at = Emitter { context, block: generic.block().expect("a generic in a block"), anchor: generic, location: generic.location() };
        let operands: Vec<V<'c>> = (0..3).map(|i| detach(generic.operand(i).expect("A, B and C"))).collect();
        let casts: Vec<V<'c>> = operands
            .iter()
            .map(|value| {
                let element = element_of(value.r#type()).to_string();
                let ty = Type::parse(context, &dynamic_memref(&element)).expect("a memref type");
                if value.r#type() == ty { *value } else { at.value("memref.cast", &[*value], ty) }
            })
            .collect();
        at.op(
            "func.call",
            &casts,
            &[],
            &[("callee", melior::ir::attribute::FlatSymbolRefAttribute::new(context, &name).into())],
            vec![],
        );
        unsafe { mlir_sys::mlirOperationDestroy(generic.to_raw()) };
    }
    Ok(())
}

/// Adds the function `name` (the first op of the MLIR text from `text`;
/// declarations of what it calls may follow it) to the module body unless
/// it is there already.
fn define<'c>(context: &'c Context, body: BlockRef<'c, 'c>, name: &str, text: impl FnOnce() -> String) -> Result<(), String> {
    let symbol = format!("\"{name}\"");
    let mut next = body.first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.attribute("sym_name").is_ok_and(|n| n.to_string() == symbol) {
            return Ok(());
        }
    }
    let parsed = Module::parse(context, &text()).ok_or_else(|| format!("internal error: the micro-kernel {name} does not parse"))?;
    let function = parsed.body().first_operation().ok_or_else(|| format!("internal error: the micro-kernel {name} is empty"))?;
    unsafe {
        mlir_sys::mlirOperationRemoveFromParent(function.to_raw());
        mlir_sys::mlirBlockAppendOwnedOperation(body.to_raw(), function.to_raw());
    }
    Ok(())
}

/// `C += A B` for A of `a`, B of `b` (given as `[N, K]` when
/// `transposed_b`): each operand that is not f32 or is transposed is
/// first copied, widened and laid out as `[rows, K]` / `[K, N]` f32, into a
/// fresh buffer (freed by the deallocation pipeline that runs later), then
/// the f32 micro-kernel `kernel` runs (declared after the function, for the
/// parser). The copies are M K + K N elements for M K N products, and take
/// the conversions out of the inner loop.
fn prepared_kernel(name: &str, kernel: &str, a: &str, b: &str, transposed_b: bool) -> String {
    let (ta, tb, tc) = (dynamic_memref(a), dynamic_memref(b), dynamic_memref("f32"));
    let mut s = format!(
        "func.func private @{name}(%A: {ta}, %B: {tb}, %C: {tc}) {{\n\
         \x20 %c0 = arith.constant 0 : index\n\
         \x20 %c1 = arith.constant 1 : index\n"
    );
    let mut prepare = |operand: &str, ty: &str, element: &str, transposed: bool| -> String {
        if element == "f32" && !transposed {
            return operand.to_string();
        }
        let (rows, columns) = if transposed { ("%c1", "%c0") } else { ("%c0", "%c1") };
        let out_map = if transposed { "(d0, d1) -> (d1, d0)" } else { "(d0, d1) -> (d0, d1)" };
        let tag = &operand[1..];
        let widen = if element == "f32" { "%in".to_string() } else { format!("%w{tag}") };
        let widen_line = if element == "f32" { String::new() } else { format!("    {widen} = arith.extf %in : {element} to f32\n") };
        s.push_str(&format!(
            "  %r{tag} = memref.dim {operand}, {rows} : {ty}\n\
             \x20 %k{tag} = memref.dim {operand}, {columns} : {ty}\n\
             \x20 %p{tag} = memref.alloc(%r{tag}, %k{tag}) : memref<?x?xf32>\n\
             \x20 linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<{out_map}>], iterator_types = [\"parallel\", \"parallel\"]}} \
             ins({operand} : {ty}) outs(%p{tag} : memref<?x?xf32>) {{\n\
             ^bb0(%in: {element}, %out: f32):\n{widen_line}    linalg.yield {} : f32\n  }}\n\
             \x20 %q{tag} = memref.cast %p{tag} : memref<?x?xf32> to {tc}\n",
            widen
        ));
        format!("%q{tag}")
    };
    let a_ready = prepare("%A", &ta, a, false);
    let b_ready = prepare("%B", &tb, b, transposed_b);
    s.push_str(&format!(
        "  func.call @{kernel}({a_ready}, {b_ready}, %C) : ({tc}, {tc}, {tc}) -> ()\n\
         \x20 return\n\
         }}\n\
         func.func private @{kernel}({tc}, {tc}, {tc})\n"
    ));
    s
}

/// `memref<?x?xT, strided<[?, 1], offset: ?>>`: what every tile operand
/// casts to.
fn dynamic_memref(element: &str) -> String {
    format!("memref<?x?x{element}, strided<[?, 1], offset: ?>>")
}

/// The contraction `op` is, when it is a plain f32 one on memrefs with unit
/// innermost strides.
fn plain_contraction(op: OperationRef) -> Option<Contraction> {
    if op.operand_count() != 3 || op.result_count() != 0 {
        return None; // not bufferized, or not one init
    }
    let maps = op.attribute("indexing_maps").ok()?.to_string();
    let iterators = op.attribute("iterator_types").ok()?.to_string();
    let plain = "[affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]";
    let transposed = "[affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>]";
    let expected_iterators = "[#linalg.iterator_type<parallel>, #linalg.iterator_type<reduction>, #linalg.iterator_type<parallel>]";
    if (maps != plain && maps != transposed) || iterators != expected_iterators {
        return None;
    }
    let types: Vec<Type> = (0..3).map(|i| op.operand(i).expect("counted").r#type()).collect();
    if !types.iter().all(|t| unit_innermost_stride(*t)) || element_of(types[2]).to_string() != "f32" {
        return None;
    }
    let elements: Vec<String> = types[..2].iter().map(|t| element_of(*t).to_string()).collect();
    if !elements.iter().all(|e| matches!(e.as_str(), "f16" | "bf16" | "f32")) {
        return None;
    }
    // The body: extf of either input, one mulf, addf(acc, product), yield.
    let block = op.region(0).ok()?.first_block()?;
    let accumulator = detach(block.argument(2).ok()?.into());
    let mut names = Vec::new();
    let mut next = block.first_operation();
    while let Some(inner) = next {
        next = inner.next_in_block();
        names.push(inner.name().as_string_ref().as_str().ok()?.to_string());
        if names.last().map(String::as_str) == Some("arith.addf") {
            let lhs = detach(inner.operand(0).ok()?);
            if htp_ir::query::key(lhs) != htp_ir::query::key(accumulator) {
                return None;
            }
        }
    }
    let extensions = names.iter().filter(|n| *n == "arith.extf").count();
    let shape_ok = extensions <= 2
        && names.len() == extensions + 3
        && names[extensions..] == ["arith.mulf", "arith.addf", "linalg.yield"];
    shape_ok.then(|| Contraction { a: elements[0].clone(), b: elements[1].clone(), transposed_b: maps == transposed })
}

/// Whether a memref's innermost dimension is contiguous (identity layout,
/// or `strided<[..., 1]>`).
fn unit_innermost_stride(ty: Type) -> bool {
    let text = ty.to_string();
    if !text.starts_with("memref<") {
        return false;
    }
    match text.find("strided<[") {
        None => !text.contains("affine_map"),
        Some(start) => {
            let strides = &text[start + "strided<[".len()..];
            let strides = &strides[..strides.find(']').unwrap_or(0)];
            strides.rsplit(',').next().map(str::trim) == Some("1")
        }
    }
}

/// The f32 micro-kernel as MLIR text: rows in blocks of `ROWS`, columns in
/// blocks of `COLUMNS` then of `LANES`, the rest (rows past the last block,
/// columns past the last vector) the plain contraction; the column parts
/// behind an `scf.if` that they are not empty. Other element types reach it
/// through `prepared_kernel`.
fn micro_kernel(name: &str) -> String {
    let m = dynamic_memref("f32");
    let mut s = String::new();
    let mut line = |text: &str| {
        s.push_str(text);
        s.push('\n');
    };
    line(&format!("func.func private @{name}(%A: {m}, %B: {m}, %C: {m}) {{"));
    for r in 0..ROWS.max(COLUMNS / LANES) {
        line(&format!("  %o{r} = arith.constant {r} : index"));
    }
    for v in 0..COLUMNS / LANES {
        line(&format!("  %l{v} = arith.constant {} : index", v * LANES));
    }
    line(&format!("  %rows = arith.constant {ROWS} : index"));
    line(&format!("  %wide = arith.constant {COLUMNS} : index"));
    line(&format!("  %lanes = arith.constant {LANES} : index"));
    line(&format!("  %M = memref.dim %A, %o0 : {m}"));
    line(&format!("  %K = memref.dim %A, %o1 : {m}"));
    line(&format!("  %N = memref.dim %B, %o1 : {m}"));
    line("  %Mr = arith.remui %M, %rows : index");
    line("  %Mb = arith.subi %M, %Mr : index");
    line("  %Nwr = arith.remui %N, %wide : index");
    line("  %Nw = arith.subi %N, %Nwr : index");
    line("  %Nvr = arith.remui %N, %lanes : index");
    line("  %Nv = arith.subi %N, %Nvr : index");
    line("  %Nr = arith.subi %N, %Nv : index");
    blocked_loop(&mut line, &m, COLUMNS / LANES, "%o0", "%Nw", "%wide", "w");
    // The column parts past the whole blocks run only when they are not
    // empty: their loops go over rows (and k) outside the columns, so an
    // empty column range still costs every row's (and k's) iteration — for
    // the column rest M x K of them per call, 12-22% of a 64x64x32 tile
    // product's time (docs/performance.md, "CPU GEMM"). The row rest's
    // outer loop is over its own rows: empty when they are.
    line("  %some_vectors = arith.cmpi ult, %Nw, %Nv : index");
    line("  scf.if %some_vectors {");
    blocked_loop(&mut line, &m, 1, "%Nw", "%Nv", "%lanes", "v");
    line("  }");
    // The rows past the last whole block (all columns), then the columns
    // past the last whole vector (of the blocked rows).
    line(&format!("  %Ar = memref.subview %A[%Mb, 0] [%Mr, %K] [1, 1] : {m} to {m}"));
    line(&format!("  %Cr = memref.subview %C[%Mb, 0] [%Mr, %N] [1, 1] : {m} to {m}"));
    line(&contraction("%Ar", "%B", "%Cr", &m));
    line("  %some_columns = arith.cmpi ne, %Nr, %o0 : index");
    line("  scf.if %some_columns {");
    line(&format!("  %At = memref.subview %A[0, 0] [%Mb, %K] [1, 1] : {m} to {m}"));
    line(&format!("  %Bc = memref.subview %B[0, %Nv] [%K, %Nr] [1, 1] : {m} to {m}"));
    line(&format!("  %Cc = memref.subview %C[0, %Nv] [%Mb, %Nr] [1, 1] : {m} to {m}"));
    line(&contraction("%At", "%Bc", "%Cc", &m));
    line("  }");
    line("  return");
    line("}");
    s
}

/// Blocks of `ROWS` x `vectors` vectors of C over rows `[0, Mb)` and
/// columns `[from, to)` by `step`, each kept in registers over the k loop.
/// `tag` keeps the SSA names of two such loops apart; `m` is the operands'
/// (f32) memref type.
fn blocked_loop(line: &mut impl FnMut(&str), m: &str, vectors: usize, from: &str, to: &str, step: &str, tag: &str) {
    let vector_f32 = format!("vector<{LANES}xf32>");
    let accumulators: Vec<(usize, usize)> = (0..ROWS).flat_map(|r| (0..vectors).map(move |v| (r, v))).collect();
    let types = vec![vector_f32.clone(); accumulators.len()].join(", ");
    line(&format!("  scf.for %i{tag} = %o0 to %Mb step %rows {{"));
    for r in 0..ROWS {
        line(&format!("    %i{tag}{r} = arith.addi %i{tag}, %o{r} : index"));
    }
    line(&format!("    scf.for %j{tag} = {from} to {to} step {step} {{"));
    for v in 0..vectors {
        line(&format!("      %j{tag}{v} = arith.addi %j{tag}, %l{v} : index"));
    }
    for (r, v) in &accumulators {
        line(&format!("      %init{tag}{r}_{v} = vector.load %C[%i{tag}{r}, %j{tag}{v}] : {m}, {vector_f32}"));
    }
    let inits: Vec<String> = accumulators.iter().map(|(r, v)| format!("%a{tag}{r}_{v} = %init{tag}{r}_{v}")).collect();
    line(&format!(
        "      %sum{tag}:{} = scf.for %k{tag} = %o0 to %K step %o1 iter_args({}) -> ({types}) {{",
        accumulators.len(),
        inits.join(", ")
    ));
    for v in 0..vectors {
        line(&format!("        %b{tag}{v} = vector.load %B[%k{tag}, %j{tag}{v}] : {m}, {vector_f32}"));
    }
    for r in 0..ROWS {
        line(&format!("        %x{tag}{r} = memref.load %A[%i{tag}{r}, %k{tag}] : {m}"));
        line(&format!("        %xb{tag}{r} = vector.broadcast %x{tag}{r} : f32 to {vector_f32}"));
    }
    for (r, v) in &accumulators {
        line(&format!("        %n{tag}{r}_{v} = vector.fma %xb{tag}{r}, %b{tag}{v}, %a{tag}{r}_{v} : {vector_f32}"));
    }
    let next: Vec<String> = accumulators.iter().map(|(r, v)| format!("%n{tag}{r}_{v}")).collect();
    line(&format!("        scf.yield {} : {types}", next.join(", ")));
    line("      }");
    for (index, (r, v)) in accumulators.iter().enumerate() {
        line(&format!("      vector.store %sum{tag}#{index}, %C[%i{tag}{r}, %j{tag}{v}] : {m}, {vector_f32}"));
    }
    line("    }");
    line("  }");
}

/// `C += A B` on f32 memrefs of type `m`, as the (i, k, j) linalg.generic
/// `convert-tile-to-linalg` builds.
fn contraction(a: &str, b: &str, c: &str, m: &str) -> String {
    format!(
        "  linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>], \
         iterator_types = [\"parallel\", \"reduction\", \"parallel\"]}} ins({a}, {b} : {m}, {m}) outs({c} : {m}) {{\n\
         ^bb0(%ea: f32, %eb: f32, %ec: f32):\n    %p = arith.mulf %ea, %eb : f32\n    %s = arith.addf %ec, %p : f32\n    linalg.yield %s : f32\n  }}"
    )
}
