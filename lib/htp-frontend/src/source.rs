//! Kernel source text and the mapping from parser byte offsets to the
//! user's file:line:col.
//!
//! The Python side hands over the source of a decorated function as
//! `inspect.getsource` gives it: possibly indented (a kernel defined inside
//! a function or class) and starting at some line of a larger file. The
//! text is dedented for the parser and every position is mapped back to the
//! original line and column.

use ruff_text_size::{TextRange, TextSize};

pub use htp_api::SourceText;

/// A 1-based position in the user's file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: u32,
    pub col: u32,
}

/// The dedented text the parser sees, with what is needed to map its
/// offsets back: the original lines (for excerpts) and the removed indent.
#[derive(Debug)]
pub struct PreparedSource {
    pub file_name: String,
    /// See [`SourceText::namespaces`].
    pub namespaces: Option<Vec<(String, String)>>,
    pub first_line: u32,
    /// Text given to the parser.
    pub parsed_text: String,
    /// Original lines, for excerpts.
    pub original_lines: Vec<String>,
    /// Columns (characters) removed from the start of every line.
    pub indent: u32,
    /// Byte offset of each line start in `parsed_text`.
    line_starts: Vec<usize>,
}

impl PreparedSource {
    pub fn new(source: &SourceText) -> Self {
        let original_lines: Vec<String> = source.text.lines().map(str::to_string).collect();
        let indent = common_indent(&original_lines);
        let mut parsed_text = String::with_capacity(source.text.len());
        for line in &original_lines {
            // Blank or shallower lines (only possible for blank/comment
            // continuation lines) are kept as their trimmed remainder.
            let cut = line.char_indices().nth(indent).map(|(i, _)| i).unwrap_or(line.len());
            let removable = line[..cut].chars().all(|c| c == ' ' || c == '\t');
            parsed_text.push_str(if removable { &line[cut..] } else { line.trim_start() });
            parsed_text.push('\n');
        }
        let mut line_starts = vec![0];
        for (i, b) in parsed_text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        Self {
            namespaces: source.namespaces.clone(),
            file_name: source.file_name.clone(),
            first_line: source.first_line,
            parsed_text,
            original_lines,
            indent: indent as u32,
            line_starts,
        }
    }

    /// The HTP namespace a module-level name refers to: through the
    /// namespaces the Python side reported, or, without them, the name
    /// itself. None: the module maps the name to no namespace.
    pub fn namespace_of<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        match &self.namespaces {
            Some(map) => map.iter().find(|(alias, _)| alias == name).map(|(_, namespace)| namespace.as_str()),
            None => Some(name),
        }
    }

    /// The user's file position of a byte offset in `parsed_text`.
    pub fn position(&self, offset: TextSize) -> Position {
        let offset = (u32::from(offset) as usize).min(self.parsed_text.len());
        let line_index = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts.get(line_index).copied().unwrap_or(0);
        let col_chars = self.parsed_text.get(start..offset).map(|s| s.chars().count()).unwrap_or(0);
        Position {
            line: self.first_line + line_index as u32,
            col: col_chars as u32 + 1 + self.indent,
        }
    }

    pub fn range_start(&self, range: TextRange) -> Position {
        self.position(range.start())
    }

    /// The original text of a user line, if it belongs to this source.
    pub fn line_text(&self, line: u32) -> Option<&str> {
        let index = line.checked_sub(self.first_line)? as usize;
        self.original_lines.get(index).map(String::as_str)
    }
}

fn common_indent(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.chars().take_while(|c| *c == ' ' || *c == '\t').count())
        .min()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_offsets_of_an_indented_source_to_the_original_file() {
        let src = SourceText::new("    def f():\n        return 1\n", "k.py", 10);
        let prepared = PreparedSource::new(&src);
        assert_eq!(prepared.parsed_text, "def f():\n    return 1\n");
        let ret = prepared.parsed_text.find("return").unwrap();
        assert_eq!(prepared.position(TextSize::from(ret as u32)), Position { line: 11, col: 9 });
        assert_eq!(prepared.line_text(11), Some("        return 1"));
        assert_eq!(prepared.line_text(9), None);
    }

    #[test]
    fn offsets_past_the_end_do_not_panic() {
        let prepared = PreparedSource::new(&SourceText::new("x", "k.py", 1));
        let p = prepared.position(TextSize::from(1000));
        assert_eq!(p.line, 2);
    }
}
