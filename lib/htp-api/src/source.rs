//! The Python source a program is compiled from, as the binding hands it to
//! the driver.

/// One piece of Python source: its text, the file it came from and the line
/// of that file where the text starts (1-based).
#[derive(Clone, Debug)]
pub struct SourceText {
    pub text: String,
    pub file_name: String,
    pub first_line: u32,
    /// What the module's names used as `<name>.f(...)` refer to: `htp` or an
    /// intrinsic set's namespace (the Python side reads them off the
    /// function's globals). `None`: `htp` and every registered set under its
    /// own name (for text without a Python module, e.g. `--import-python`).
    pub namespaces: Option<Vec<(String, String)>>,
}

impl SourceText {
    pub fn new(text: &str, file_name: &str, first_line: u32) -> Self {
        Self { text: text.to_string(), file_name: file_name.to_string(), first_line: first_line.max(1), namespaces: None }
    }

    /// The same source with the namespaces its module's names refer to.
    pub fn with_namespaces(mut self, namespaces: Vec<(String, String)>) -> Self {
        self.namespaces = Some(namespaces);
        self
    }
}

