//! Runs a Rust pass body inside MLIR's pass manager. A failure the body
//! returns, and any panic it raises, becomes an error diagnostic at a
//! source location and fails the pass: nothing a pass does may abort the
//! user's process.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use htp_ir::query::emit_error;
use melior::{
    ir::{operation::OperationLike, Location, OperationRef},
    pass::{ExternalPass, RunExternalPass},
    Context, ContextRef,
};
use mlir_sys::MlirLocation;

/// A user-facing failure: the message and where it points (the user's
/// source, through the op's location).
pub type Failure<'c> = (Location<'c>, String);

/// What a Rust pass does to the op it runs on (a module or a function),
/// given its options `O` (`()` for a pass without any).
pub type PassBody<O> = for<'c, 'a> fn(&'c Context, OperationRef<'c, 'a>, &O) -> Result<(), Failure<'c>>;

thread_local! {
    /// The location of the op the running pass works on (see [`processing`]);
    /// null outside a pass.
    static CURRENT: Cell<MlirLocation> = const { Cell::new(MlirLocation { ptr: std::ptr::null() }) };
    /// Set while a guarded body (a pass, a compile, a run) runs on this
    /// thread: its panics are reported as errors, not printed by the
    /// default hook.
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Tells the boundary which op the pass is working on: an unexpected panic
/// is then reported at that op's (the user's) location instead of the
/// pass's anchor. Cheap; call it per op in a conversion's main loop.
pub fn processing(location: Location) {
    CURRENT.with(|current| current.set(location.to_raw()));
}

/// Every HTP Rust pass: its body runs on the anchor op; a failure becomes
/// an error diagnostic at its location and fails the pass.
pub struct RustPass<O> {
    pub body: PassBody<O>,
    /// This instance's options (`crate::options`).
    pub options: O,
}

impl<O: Clone> Clone for RustPass<O> {
    fn clone(&self) -> Self {
        RustPass { body: self.body, options: self.options.clone() }
    }
}

impl<'c, O: Clone> RunExternalPass<'c> for RustPass<O> {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        // `to_ref` views the ContextRef value itself as a Context: it must
        // outlive every use of the reference.
        let context_ref = op.context();
        let context = unsafe { context_ref.to_ref() };
        CURRENT.with(|current| current.set(op.location().to_raw()));
        let (body, options) = (self.body, &self.options);
        let failure = match catch_quietly(|| body(context, op, options)) {
            Ok(Ok(())) => None,
            Ok(Err((location, message))) => Some((location, message)),
            Err(what) => {
                let location = CURRENT.with(|current| unsafe { Location::from_raw(current.get()) });
                let anchor = op.name().as_string_ref().as_str().unwrap_or("?").to_string();
                Some((location, format!("internal error in an HTP pass on '{anchor}': {what} (this is a bug in HTP; please report it with this kernel)")))
            }
        };
        CURRENT.with(|current| current.set(MlirLocation { ptr: std::ptr::null() }));
        if let Some((location, message)) = failure {
            emit_error(location, &message);
            pass.signal_failure();
        }
    }
}

/// Runs `body`; a panic in it becomes `Err(its message)` without the
/// default hook printing it (the caller reports it as an error). Used by
/// every boundary between HTP and its caller: passes, the driver, the run
/// path.
pub fn catch_quietly<R>(body: impl FnOnce() -> R) -> Result<R, String> {
    quiet_guarded_panics();
    let was_guarded = GUARDED.with(|flag| flag.replace(true));
    let outcome = panic::catch_unwind(AssertUnwindSafe(body));
    GUARDED.with(|flag| flag.set(was_guarded));
    outcome.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".into())
    })
}

/// Installs (once) a panic hook that stays silent for panics inside a
/// guarded body and defers to the previous hook everywhere else.
fn quiet_guarded_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(|flag| flag.get()) {
                previous(info);
            }
        }));
    });
}
