//! Element types of tensors, tiles and scalars, shared by the front end and
//! every backend.

use std::fmt;

/// Element types of tensors, tiles and scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elem {
    F32,
    F16,
    BF16,
    I64,
    I32,
    I16,
    I8,
    /// `bool`: the element type of masks.
    I1,
}

impl Elem {
    /// The name a kernel writes (`htp.f32`, ...); `bool` also spells i1.
    pub fn from_name(name: &str) -> Option<Elem> {
        Some(match name {
            "f32" | "float32" => Elem::F32,
            "f16" | "float16" => Elem::F16,
            "bf16" | "bfloat16" => Elem::BF16,
            "i64" | "int64" => Elem::I64,
            "i32" | "int32" => Elem::I32,
            "i16" | "int16" => Elem::I16,
            "i8" | "int8" => Elem::I8,
            "i1" | "bool_" => Elem::I1,
            _ => return None,
        })
    }

    /// MLIR's name of the type.
    pub fn mlir(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F16 => "f16",
            Elem::BF16 => "bf16",
            Elem::I64 => "i64",
            Elem::I32 => "i32",
            Elem::I16 => "i16",
            Elem::I8 => "i8",
            Elem::I1 => "i1",
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Elem::F32 | Elem::F16 | Elem::BF16)
    }

    pub fn is_int(self) -> bool {
        !self.is_float()
    }

    pub fn bits(self) -> u32 {
        match self {
            Elem::F32 | Elem::I32 => 32,
            Elem::F16 | Elem::BF16 | Elem::I16 => 16,
            Elem::I64 => 64,
            Elem::I8 => 8,
            Elem::I1 => 1,
        }
    }
}

impl fmt::Display for Elem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if *self == Elem::I1 { "bool" } else { self.mlir() })
    }
}

