//! Run-time checks a kernel's code makes (an index outside its tensor, an
//! integer division by zero): what each site checks, the module attribute
//! that lists the sites with their messages at the user's file:line:col,
//! and the function a failed check calls on the cpu. Every backend that
//! runs checked code reports a failed site through these.

use melior::ir::{
    attribute::{ArrayAttribute, StringAttribute},
    operation::OperationLike,
    OperationRef,
};

/// The runtime function an out-of-bounds access calls.
pub const ERROR_FUNCTION: &str = "htpRuntimeError";

/// What a run-time check site checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SiteKind {
    OutOfBounds,
    DivisionByZero,
    NonPositiveStep,
}

impl SiteKind {
    const ALL: [SiteKind; 3] = [SiteKind::OutOfBounds, SiteKind::DivisionByZero, SiteKind::NonPositiveStep];

    /// Its message (after "file:line:col: error: ").
    pub fn message(self) -> &'static str {
        match self {
            SiteKind::OutOfBounds => "index out of bounds: this access reaches outside its tensor at run time (HTP skipped the out-of-bounds part; the outputs are incomplete)",
            SiteKind::DivisionByZero => "integer division or modulo by zero at run time (or i64's smallest value divided by -1)",
            SiteKind::NonPositiveStep => "range() step must be positive, and this run-time step is not (HTP ran the loop zero times)",
        }
    }

    /// The kind of error a failed check is for the caller.
    pub fn run_error(self) -> crate::RunErrorKind {
        match self {
            SiteKind::OutOfBounds => crate::RunErrorKind::OutOfBounds,
            SiteKind::DivisionByZero => crate::RunErrorKind::DivisionByZero,
            SiteKind::NonPositiveStep => crate::RunErrorKind::InvalidValue,
        }
    }

    /// Its code in the sites attribute (its position in `ALL`).
    pub fn code(self) -> i64 {
        Self::ALL.iter().position(|k| *k == self).unwrap_or(0) as i64
    }

    fn from_code(code: i64) -> Option<SiteKind> {
        usize::try_from(code).ok().and_then(|i| Self::ALL.get(i)).copied()
    }
}

/// The module attribute listing each site: `[kind code, "file:line:col: error: message"]`.
pub const SITES_ATTRIBUTE: &str = "htp.index_sites";

/// The sites of a module (`tile-check-bounds` and the lowerings that check
/// inside the code they build record them), in id order: each one's kind
/// and message.
pub fn sites(module: OperationRef) -> Vec<(SiteKind, String)> {
    let Some(sites) = module.attribute(SITES_ATTRIBUTE).ok().and_then(|a| ArrayAttribute::try_from(a).ok()) else { return Vec::new() };
    (0..sites.len())
        .filter_map(|i| {
            let site = ArrayAttribute::try_from(sites.element(i).ok()?).ok()?;
            let code = melior::ir::attribute::IntegerAttribute::try_from(site.element(0).ok()?).ok()?.value();
            let message = StringAttribute::try_from(site.element(1).ok()?).ok()?.value().to_string();
            Some((SiteKind::from_code(code)?, message))
        })
        .collect()
}

