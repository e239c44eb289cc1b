//! HTP's pass framework. A pass written in Rust is a body
//! `fn(&Context, OperationRef) -> Result<(), Failure>`; [`RustPass`] runs it
//! inside MLIR's pass manager behind a panic boundary, [`PassDefinition`]
//! names it, and the [`registry`] holds every pass and named pipeline any
//! crate registered, so they work in `--pass-pipeline` strings, in
//! `htp-opt`, in lit tests and in the driver alike. The crate knows no
//! dialect and no backend: backends and transforms register themselves.

mod boundary;
mod definition;
pub mod dialects;
pub mod options;
pub mod dump;
pub mod registry;

pub use boundary::{catch_quietly, processing, Failure, PassBody, RustPass};
pub use definition::PassDefinition;
pub use options::{OptionType, PassOption, PassOptions};
pub use registry::{
    find_pipeline, pipelines, register_passes, register_pipeline, register_upstream_passes, registered_passes, PipelineDefinition,
};

/// Declares a static, 8-byte-aligned object whose address is a pass's
/// MLIR TypeID (MLIR requires the alignment).
#[macro_export]
macro_rules! pass_type_id {
    () => {{
        #[repr(align(8))]
        struct PassTypeId;
        static ID: PassTypeId = PassTypeId;
        $crate::__melior::ir::r#type::TypeId::create(&ID)
    }};
}

/// What [`pass!`] expands to names these through `$crate`, so a crate
/// declaring a pass needs no dependency of its own for them.
#[doc(hidden)]
pub use {melior as __melior, mlir_sys as __mlir_sys};

/// Declares a Rust pass once, as MLIR's `Passes.td` would: its argument
/// and anchor op, the `--help` summary, the dialects it creates ops of,
/// its options (a struct, parsed from `argument{key=value ...}` with type
/// checks and defaults) and its body. Expands to the `PassDefinition`
/// constant the crate lists in its `PASSES` (and the options struct).
///
/// ```ignore
/// htp_pass::pass! {
///     pub DEFINITION = Pass<"cpu-split-large-bodies", "func.func"> {
///         summary: "Split elementwise linalg.generic bodies larger than a budget",
///         dialects: [linalg, tensor],
///         options: Options {
///             #[option("max-body-ops", default = "1024", "the largest body weight left in one generic")]
///             max_body_ops: std::num::NonZeroUsize,
///         },
///         run: run,
///     }
/// }
/// // fn run<'c>(context: &'c Context, op: OperationRef<'c, '_>, options: &Options) -> Result<(), Failure<'c>>
/// ```
///
/// A dialect is one word for those in [`dialects`] (MLIR's, `tile`,
/// `layout`) or the path of a function returning its handle
/// (`htp_dialects::handles::pto`).
///
/// Without `options`, the body is `fn run<'c>(context, op) -> Result<(), Failure<'c>>`.
/// Option types are those with an [`OptionType`] (integers, `bool`,
/// `String`, the `NonZero` integers, or a type of the pass's own); a value
/// that does not parse, or a key the pass does not declare, is an error of
/// the pipeline naming the pass and the option.
#[macro_export]
macro_rules! pass {
    // A dialect by one word is one of `htp_pass::dialects`; by a path, the
    // function at that path.
    (@dialect $dialect:ident) => {
        $crate::dialects::$dialect()
    };
    (@dialect $($dialect:ident)::+) => {
        $($dialect)::+()
    };
    (@define [$(#[$meta:meta])*] $vis:vis $name:ident, $argument:literal, $anchor:literal, $summary:expr, [$($dialect:expr),*], $options:ty, $body:expr) => {
        $(#[$meta])*
        $vis const $name: $crate::PassDefinition = {
            fn instance(options: $options) -> $crate::__mlir_sys::MlirPass {
                $name.instance::<$options>($body, options, $crate::pass_type_id!(), &[$($dialect),*])
            }
            fn create_with_options(text: &str) -> Result<$crate::__mlir_sys::MlirPass, String> {
                <$options as $crate::PassOptions>::parse($argument, text).map(instance)
            }
            unsafe extern "C" fn create() -> $crate::__mlir_sys::MlirPass {
                // The defaults parse: `registered_passes_and_pipelines_parse_in_textual_pipelines`
                // (htp-all) creates every pass with them.
                create_with_options("").unwrap_or_else(|message| panic!("the default options of '{}': {message}", $argument))
            }
            $crate::PassDefinition {
                argument: $argument,
                description: $summary,
                anchor: $anchor,
                create_raw: create,
                create_with_options,
                options: <$options as $crate::PassOptions>::DECLARED,
            }
        };
    };
    (
        $(#[$meta:meta])*
        $vis:vis $name:ident = Pass<$argument:literal, $anchor:literal> {
            summary: $summary:expr,
            dialects: [$($($dialect:ident)::+),* $(,)?],
            options: $options:ident {
                $(
                    #[option($option:literal, default = $default:literal, $description:literal)]
                    $field:ident : $ty:ty
                ),* $(,)?
            },
            run: $run:path $(,)?
        }
    ) => {
        #[doc = concat!("The options of `", $argument, "`.")]
        #[derive(Clone, Debug, PartialEq)]
        $vis struct $options {
            $(#[doc = $description] pub $field: $ty,)*
        }

        impl $crate::PassOptions for $options {
            const DECLARED: &'static [$crate::PassOption] =
                &[$($crate::PassOption {
                    name: $option,
                    description: $description,
                    default: $default,
                    expected: <$ty as $crate::OptionType>::EXPECTED,
                }),*];

            fn parse(argument: &str, text: &str) -> Result<Self, String> {
                let values = $crate::options::values(argument, Self::DECLARED, text)?;
                let mut values = values.iter();
                Ok($options { $($field: $crate::options::typed(argument, $option, values.next().map_or("", |v| v.as_str()))?,)* })
            }
        }

        $crate::pass!(@define [$(#[$meta])*] $vis $name, $argument, $anchor, $summary, [$($crate::pass!(@dialect $($dialect)::+)),*], $options, $run);
    };
    (
        $(#[$meta:meta])*
        $vis:vis $name:ident = Pass<$argument:literal, $anchor:literal> {
            summary: $summary:expr,
            dialects: [$($($dialect:ident)::+),* $(,)?],
            run: $run:path $(,)?
        }
    ) => {
        $crate::pass!(@define [$(#[$meta])*] $vis $name, $argument, $anchor, $summary, [$($crate::pass!(@dialect $($dialect)::+)),*], (), {
            fn without_options<'c>(
                context: &'c $crate::__melior::Context,
                op: $crate::__melior::ir::OperationRef<'c, '_>,
                _: &(),
            ) -> Result<(), $crate::Failure<'c>> {
                $run(context, op)
            }
            without_options
        });
    };
}

#[cfg(test)]
mod tests;
