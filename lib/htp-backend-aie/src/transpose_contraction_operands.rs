//! `aie-transpose-contraction-operands`: a `vector.contract` whose B reads
//! `[n, k]` (a matmul by a transposed operand, `q @ k.T`) gets its B tile
//! transposed by a `vector.transpose` and the standard maps (A `[m, k]`,
//! B `[k, n]`, C `[m, n]`). MLIR's vectorizer folds the transpose into the
//! contraction's indexing map; mlir-aie's aievec conversion (at the pinned
//! commit) lowers only the standard maps to a MAC, and a 512-bit
//! `vector.transpose` to one register shuffle (`aievec.shuffle`, modes
//! `T16_4X8`, `T8_8X8`, ...). An A read `[k, m]` is transposed the same way.

use melior::{
    ir::{
        attribute::{ArrayAttribute, AttributeLike},
        block::BlockLike,
        operation::{OperationBuilder, OperationLike},
        OperationRef, Type, ValueLike,
    },
    Context,
};

htp_pass::pass! {
    pub DEFINITION = Pass<"aie-transpose-contraction-operands", "func.func"> {
        summary: "Give a vector.contract whose operand is read transposed the standard matmul maps, with the operand transposed by vector.transpose (what mlir-aie's aievec conversion lowers)",
        dialects: [vector],
        run: run,
    }
}

fn run<'c>(context: &'c Context, function: OperationRef<'c, '_>) -> Result<(), htp_pass::Failure<'c>> {
    for contract in htp_ir::query::ops_named(function, "vector.contract") {
        let Some(maps) = contract.attribute("indexing_maps").ok().and_then(|a| ArrayAttribute::try_from(a).ok()) else { continue };
        let Some(loops) = crate::vectorize_cores::reduction_loops(contract).filter(|l| l.len() == 3) else { continue };
        let reductions: Vec<i64> = (0..3).filter(|&i| loops[i as usize]).collect();
        let results = |i: usize| maps.element(i).ok().and_then(crate::vectorize_cores::map_results);
        let (Some(a), Some(b), Some(c)) = (results(0), results(1), results(2)) else { continue };
        // A matmul of 2-D operands: C [m, n], one reduction k.
        let ([Some(m), Some(n)], [k]) = (c.as_slice(), reductions.as_slice()) else { continue };
        let (m, n, k) = (*m, *n, *k);
        let wanted = [[Some(m), Some(k)], [Some(k), Some(n)]];
        let transposed = |map: &[Option<i64>], want: [Option<i64>; 2]| map == [want[1], want[0]];
        let flips: Vec<usize> = [a.as_slice(), b.as_slice()].iter().enumerate().filter(|(i, map)| transposed(map, wanted[*i])).map(|(i, _)| i).collect();
        let standard = |i: usize, map: &[Option<i64>]| map == wanted[i] || flips.contains(&i);
        if flips.is_empty() || !standard(0, &a) || !standard(1, &b) {
            continue;
        }
        htp_pass::processing(contract.location());
        let block = contract.block().expect("an op in a block");
        for &index in &flips {
            let Some(operand) = htp_ir::query::operand_at(contract, index) else { continue };
            let shape = htp_ir::builder::shape_of(operand.r#type());
            let flipped = Type::vector(&[shape[1] as u64, shape[0] as u64], htp_ir::builder::element_of(operand.r#type()));
            let permutation = htp_ir::builder::parse_attribute(context, "array<i64: 1, 0>");
            let transpose = OperationBuilder::new("vector.transpose", contract.location())
                .add_operands(&[operand])
                .add_attributes(&[(htp_ir::builder::named(context, "permutation"), permutation)])
                .add_results(&[flipped])
                .build()
                .expect("a transpose");
            let transpose = block.insert_operation_before(contract, transpose);
            unsafe { mlir_sys::mlirOperationSetOperand(contract.to_raw(), index as isize, transpose.result(0).expect("a result").to_raw()) };
        }
        let map = |results: [i64; 2]| htp_ir::builder::parse_attribute(context, &format!("affine_map<(d0, d1, d2) -> (d{}, d{})>", results[0], results[1]));
        let standard_maps = ArrayAttribute::new(context, &[map([m, k]), map([k, n]), map([m, n])]);
        unsafe { mlir_sys::mlirOperationSetAttributeByName(contract.to_raw(), melior::StringRef::new("indexing_maps").to_raw(), standard_maps.to_raw()) };
    }
    Ok(())
}
