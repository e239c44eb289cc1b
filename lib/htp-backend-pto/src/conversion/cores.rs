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

    /// The core `pto.core` names.
    pub fn named(keyword: &str) -> Option<Core> {
        [Core::Aiv, Core::Aic].into_iter().find(|c| c.keyword() == keyword)
    }

    /// The direction of the cluster pipe this core pushes into (`c2v` from the cube core).
    pub fn sends(self) -> &'static str {
        match self {
            Core::Aic => "c2v",
            Core::Aiv => "v2c",
        }
    }
}
