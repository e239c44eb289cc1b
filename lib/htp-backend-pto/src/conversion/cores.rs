//! The cores a PTO kernel runs on (a leaf of the conversion).

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Core {
    Aiv,
    Aic,
}

impl Core {
    pub fn keyword(self) -> &'static str {
        match self {
            Core::Aiv => "aiv",
            Core::Aic => "aic",
        }
    }
}
