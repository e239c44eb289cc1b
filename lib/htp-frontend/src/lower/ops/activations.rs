//! Activations and special functions, composed from the tile ops every
//! target lowers (exp, recip, log, abs, compare and select): PTO-ISA has
//! no instruction for any of them, and a composition keeps one definition
//! for every target. Each form is chosen to stay accurate where the naive
//! one is not (docs/language.md, "Activations", states the accuracy):
//!
//! - `sigmoid(x) = 1 / (1 + exp(-x))` (exp overflows to inf for x << 0,
//!   whose reciprocal is the right 0);
//! - `tanh(x) = sign(x) (1 - e) / (1 + e)`, `e = exp(-2|x|)` (no overflow);
//! - `erf(x)`: Abramowitz & Stegun 7.1.26 (|error| <= 1.5e-7), odd;
//! - `softplus(x) = max(x, 0) + log(1 + exp(-|x|))` (no overflow);
//! - `silu(x) = x sigmoid(x)`; `gelu(x) = x/2 (1 + erf(x/sqrt 2))`, or with
//!   `approximate="tanh"`, `x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.

use ruff_text_size::TextRange;

use super::super::value::Val;
use super::super::{LResult, Lowerer};
use super::{BinKind, CmpKind};
use crate::diagnostics::DiagnosticKind;


impl<'c> Lowerer<'c, '_> {
    /// `htp.<name>(x)` (`gelu` with `tanh_form` for `approximate="tanh"`).
    pub fn activation(&self, name: &str, x: &Val, tanh_form: bool, range: TextRange) -> LResult<Val> {
        let Val::Tile(_, t) = x else {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.{name} needs a tile, got {}", x.describe())));
        };
        if !t.elem.is_float() {
            return Err(self.error(range, DiagnosticKind::Type, format!("htp.{name} needs a floating-point tile, got a {t} (convert with htp.cast(t, htp.f32))")));
        }
        match name {
            "sigmoid" => self.sigmoid(x, range),
            "silu" => {
                let s = self.sigmoid(x, range)?;
                self.binary(BinKind::Mul, x, &s, range)
            }
            "tanh" => self.tanh(x, range),
            "erf" => self.erf(x, range),
            "softplus" => {
                let positive = self.binary(BinKind::Max, x, &Val::Float(0.0), range)?;
                let magnitude = self.unary("abs", x, range)?;
                let e = self.unary("exp", &self.binary(BinKind::Mul, &magnitude, &Val::Float(-1.0), range)?, range)?;
                let log = self.unary("log", &self.binary(BinKind::Add, &e, &Val::Float(1.0), range)?, range)?;
                self.binary(BinKind::Add, &positive, &log, range)
            }
            "gelu" => {
                let inner = if tanh_form {
                    let cube = self.binary(BinKind::Mul, &self.binary(BinKind::Mul, x, x, range)?, x, range)?;
                    let u = self.binary(BinKind::Add, x, &self.binary(BinKind::Mul, &cube, &Val::Float(0.044715), range)?, range)?;
                    self.tanh(&self.binary(BinKind::Mul, &u, &Val::Float((2.0 / std::f64::consts::PI).sqrt()), range)?, range)?
                } else {
                    self.erf(&self.binary(BinKind::Mul, x, &Val::Float(std::f64::consts::FRAC_1_SQRT_2), range)?, range)?
                };
                let half = self.binary(BinKind::Mul, x, &Val::Float(0.5), range)?;
                self.binary(BinKind::Mul, &half, &self.binary(BinKind::Add, &inner, &Val::Float(1.0), range)?, range)
            }
            other => Err(self.internal(range, &format!("no activation '{other}'"))),
        }
    }

    fn sigmoid(&self, x: &Val, range: TextRange) -> LResult<Val> {
        let e = self.unary("exp", &self.binary(BinKind::Mul, x, &Val::Float(-1.0), range)?, range)?;
        self.unary("recip", &self.binary(BinKind::Add, &e, &Val::Float(1.0), range)?, range)
    }

    /// `x < 0 ? -m : m`.
    fn with_sign_of(&self, x: &Val, magnitude: &Val, range: TextRange) -> LResult<Val> {
        let negative = self.compare(CmpKind::Lt, x, &Val::Float(0.0), range)?;
        let flipped = self.binary(BinKind::Mul, magnitude, &Val::Float(-1.0), range)?;
        self.select(&negative, &flipped, magnitude, range)
    }

    fn tanh(&self, x: &Val, range: TextRange) -> LResult<Val> {
        let magnitude = self.unary("abs", x, range)?;
        let e = self.unary("exp", &self.binary(BinKind::Mul, &magnitude, &Val::Float(-2.0), range)?, range)?;
        let numerator = self.binary(BinKind::Sub, &Val::Float(1.0), &e, range)?;
        let denominator = self.binary(BinKind::Add, &e, &Val::Float(1.0), range)?;
        let t = self.binary(BinKind::Div, &numerator, &denominator, range)?;
        self.with_sign_of(x, &t, range)
    }

    fn erf(&self, x: &Val, range: TextRange) -> LResult<Val> {
        const P: f64 = 0.327_591_1;
        const A: [f64; 5] = [0.254_829_592, -0.284_496_736, 1.421_413_741, -1.453_152_027, 1.061_405_429];
        let magnitude = self.unary("abs", x, range)?;
        let t = self.unary("recip", &self.binary(BinKind::Add, &self.binary(BinKind::Mul, &magnitude, &Val::Float(P), range)?, &Val::Float(1.0), range)?, range)?;
        // Horner: t (a1 + t (a2 + t (a3 + t (a4 + t a5)))).
        let mut polynomial = self.binary(BinKind::Mul, &t, &Val::Float(A[4]), range)?;
        for a in A[..4].iter().rev() {
            polynomial = self.binary(BinKind::Mul, &t, &self.binary(BinKind::Add, &polynomial, &Val::Float(*a), range)?, range)?;
        }
        let square = self.binary(BinKind::Mul, &magnitude, &magnitude, range)?;
        let gauss = self.unary("exp", &self.binary(BinKind::Mul, &square, &Val::Float(-1.0), range)?, range)?;
        let tail = self.binary(BinKind::Mul, &polynomial, &gauss, range)?;
        let value = self.binary(BinKind::Sub, &Val::Float(1.0), &tail, range)?;
        self.with_sign_of(x, &value, range)
    }
}
