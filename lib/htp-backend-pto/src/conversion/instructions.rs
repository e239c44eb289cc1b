//! Which PTO instruction implements a tile op of a given kind: the names
//! come from the `pto` dialect's ODS (`htp_dialects::ods::pto`), so an
//! instruction the dialect lacks is a compile error here, and a kind with
//! no instruction is a diagnostic instead of an unregistered op.

use htp_dialects::ods::pto;

fn none(what: &str, kind: &str) -> String {
    format!("PTO has no {what} instruction for '{kind}'")
}

/// `tile.<kind> tile, tile`: TADD, TSUB, TMUL, TDIV, TMAX, TMIN.
pub fn binary(kind: &str) -> Result<&'static str, String> {
    Ok(match kind {
        "add" => pto::TAddOperation::name(),
        "sub" => pto::TSubOperation::name(),
        "mul" => pto::TMulOperation::name(),
        "div" => pto::TDivOperation::name(),
        "max" => pto::TMaxOperation::name(),
        "min" => pto::TMinOperation::name(),
        _ => return Err(none("tile-tile", kind)),
    })
}

/// `tile.<kind> tile, scalar`: TADDS, TSUBS, TMULS, TDIVS, TMAXS, TMINS.
pub fn binary_scalar(kind: &str) -> Result<&'static str, String> {
    Ok(match kind {
        "add" => pto::TAddSOperation::name(),
        "sub" => pto::TSubSOperation::name(),
        "mul" => pto::TMulSOperation::name(),
        "div" => pto::TDivSOperation::name(),
        "max" => pto::TMaxSOperation::name(),
        "min" => pto::TMinSOperation::name(),
        _ => return Err(none("tile-scalar", kind)),
    })
}

/// `tile.<kind> tile`: TEXP, TLOG, TSQRT, TRSQRT, TABS, TNEG, TRELU, TRECIP.
pub fn unary(kind: &str) -> Result<&'static str, String> {
    Ok(match kind {
        "exp" => pto::TExpOperation::name(),
        "log" => pto::TLogOperation::name(),
        "sqrt" => pto::TSqrtOperation::name(),
        "rsqrt" => pto::TRsqrtOperation::name(),
        "abs" => pto::TAbsOperation::name(),
        "neg" => pto::TNegOperation::name(),
        "relu" => pto::TReluOperation::name(),
        "recip" => pto::TRecipOperation::name(),
        _ => return Err(none("unary", kind)),
    })
}

/// A reduction along each row: TROWSUM, TROWMAX, TROWMIN.
pub fn row_reduce(kind: &str) -> Result<&'static str, String> {
    Ok(match kind {
        "sum" => pto::TRowSumOperation::name(),
        "max" => pto::TRowMaxOperation::name(),
        "min" => pto::TRowMinOperation::name(),
        _ => return Err(none("row reduction", kind)),
    })
}

/// A reduction along each column: TCOLSUM, TCOLMAX, TCOLMIN.
pub fn col_reduce(kind: &str) -> Result<&'static str, String> {
    Ok(match kind {
        "sum" => pto::TColSumOperation::name(),
        "max" => pto::TColMaxOperation::name(),
        "min" => pto::TColMinOperation::name(),
        _ => return Err(none("column reduction", kind)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_names_a_registered_instruction() {
        let context = htp_dialects::new_context();
        let kinds = ["add", "sub", "mul", "div", "max", "min"];
        let names = kinds
            .iter()
            .flat_map(|k| [binary(k), binary_scalar(k)])
            .chain(["exp", "log", "sqrt", "rsqrt", "abs", "neg", "relu", "recip"].iter().map(|k| unary(k)))
            .chain(["sum", "max", "min"].iter().flat_map(|k| [row_reduce(k), col_reduce(k)]));
        for name in names {
            let name = name.unwrap();
            assert!(context.is_registered_operation(name), "{name}");
        }
        assert_eq!(binary("pow").unwrap_err(), "PTO has no tile-tile instruction for 'pow'");
    }
}
