//! MLIR's `arith` integer semantics on `i64`, for the code that runs index
//! arithmetic ahead of the compiled program (a WSP workload's plan on the
//! host, a CSP program's protocol): one reading of `arith.floordivsi`,
//! `arith.cmpi`'s predicates, and the rest.

/// An integer binary op of `arith`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntBinary {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    FloorDivS,
    CeilDivS,
    MinS,
    MaxS,
    MinU,
    MaxU,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
}

impl IntBinary {
    /// The op `name` (`arith.addi`), if it is one.
    pub fn of(name: &str) -> Option<IntBinary> {
        Some(match name {
            "arith.addi" => IntBinary::Add,
            "arith.subi" => IntBinary::Sub,
            "arith.muli" => IntBinary::Mul,
            "arith.divsi" => IntBinary::DivS,
            "arith.divui" => IntBinary::DivU,
            "arith.remsi" => IntBinary::RemS,
            "arith.remui" => IntBinary::RemU,
            "arith.floordivsi" => IntBinary::FloorDivS,
            "arith.ceildivsi" => IntBinary::CeilDivS,
            "arith.minsi" => IntBinary::MinS,
            "arith.maxsi" => IntBinary::MaxS,
            "arith.minui" => IntBinary::MinU,
            "arith.maxui" => IntBinary::MaxU,
            "arith.andi" => IntBinary::And,
            "arith.ori" => IntBinary::Or,
            "arith.xori" => IntBinary::Xor,
            "arith.shli" => IntBinary::Shl,
            "arith.shrsi" => IntBinary::ShrS,
            "arith.shrui" => IntBinary::ShrU,
            _ => return None,
        })
    }

    /// `x op y` on 64 bits (wrapping); `None` for a division or remainder by zero.
    pub fn eval(self, x: i64, y: i64) -> Option<i64> {
        let (ux, uy) = (x as u64, y as u64);
        Some(match self {
            IntBinary::Add => x.wrapping_add(y),
            IntBinary::Sub => x.wrapping_sub(y),
            IntBinary::Mul => x.wrapping_mul(y),
            IntBinary::DivS => x.checked_div(y).or_else(|| (y != 0).then(|| x.wrapping_div(y)))?,
            IntBinary::DivU => ux.checked_div(uy)? as i64,
            IntBinary::RemS => x.checked_rem(y).or_else(|| (y != 0).then_some(0))?,
            IntBinary::RemU => ux.checked_rem(uy)? as i64,
            IntBinary::FloorDivS => {
                let q = IntBinary::DivS.eval(x, y)?;
                if x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }
            }
            IntBinary::CeilDivS => {
                let q = IntBinary::DivS.eval(x, y)?;
                if x.wrapping_rem(y) != 0 && ((x < 0) == (y < 0)) {
                    q + 1
                } else {
                    q
                }
            }
            IntBinary::MinS => x.min(y),
            IntBinary::MaxS => x.max(y),
            IntBinary::MinU => ux.min(uy) as i64,
            IntBinary::MaxU => ux.max(uy) as i64,
            IntBinary::And => x & y,
            IntBinary::Or => x | y,
            IntBinary::Xor => x ^ y,
            IntBinary::Shl => x.wrapping_shl(y as u32),
            IntBinary::ShrS => x.wrapping_shr(y as u32),
            IntBinary::ShrU => ux.wrapping_shr(y as u32) as i64,
        })
    }
}

/// `arith.cmpi`'s predicates, in its numbering.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntPredicate {
    Eq,
    Ne,
    Slt,
    Sle,
    Sgt,
    Sge,
    Ult,
    Ule,
    Ugt,
    Uge,
}

impl IntPredicate {
    /// The predicate of `arith.cmpi`'s `predicate` attribute value.
    pub fn of(code: i64) -> Option<IntPredicate> {
        use IntPredicate::*;
        [Eq, Ne, Slt, Sle, Sgt, Sge, Ult, Ule, Ugt, Uge].get(usize::try_from(code).ok()?).copied()
    }

    /// Its number in `arith.cmpi`'s `predicate` attribute.
    pub fn code(self) -> i64 {
        self as i64
    }

    pub fn eval(self, x: i64, y: i64) -> bool {
        let (ux, uy) = (x as u64, y as u64);
        match self {
            IntPredicate::Eq => x == y,
            IntPredicate::Ne => x != y,
            IntPredicate::Slt => x < y,
            IntPredicate::Sle => x <= y,
            IntPredicate::Sgt => x > y,
            IntPredicate::Sge => x >= y,
            IntPredicate::Ult => ux < uy,
            IntPredicate::Ule => ux <= uy,
            IntPredicate::Ugt => ux > uy,
            IntPredicate::Uge => ux >= uy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_and_ceil_division_round_toward_their_infinities() {
        for (x, y, floor, ceil) in [(7, 2, 3, 4), (-7, 2, -4, -3), (7, -2, -4, -3), (-7, -2, 3, 4), (6, 3, 2, 2), (0, 5, 0, 0)] {
            assert_eq!(IntBinary::FloorDivS.eval(x, y), Some(floor), "{x} floordiv {y}");
            assert_eq!(IntBinary::CeilDivS.eval(x, y), Some(ceil), "{x} ceildiv {y}");
        }
        assert_eq!(IntBinary::DivS.eval(1, 0), None);
        assert_eq!(IntBinary::RemU.eval(1, 0), None);
        assert_eq!(IntBinary::DivS.eval(i64::MIN, -1), Some(i64::MIN));
    }

    #[test]
    fn predicates_follow_cmpi_numbering() {
        assert_eq!(IntPredicate::of(2), Some(IntPredicate::Slt));
        assert_eq!(IntPredicate::of(9), Some(IntPredicate::Uge));
        assert_eq!(IntPredicate::of(10), None);
        assert!(IntPredicate::Ult.eval(1, -1) && !IntPredicate::Slt.eval(1, -1));
    }
}
