//! Data-source errors: a stable `MCP-DATA-*` (or `MCP-EXT-*`) code, what is wrong, and where
//! in the data — file, line and column for text files, row and column for every provider —
//! rendered the way compile diagnostics are (header, source line, caret, explanation, `Try:`).

use std::fmt;

use crate::codes::{RunClass, RunCode};
use mcpr_compiler::style;

/// Where in the data a problem is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DataLocation {
    /// The file (as shown to the user), URL or provider name.
    pub file: String,
    /// 1-based line in a text file.
    pub line: Option<u64>,
    /// 1-based column (characters) in that line.
    pub column: Option<u64>,
    /// 1-based data row (after the header, counting only rows that were read).
    pub row: Option<u64>,
    /// The data column (field name) concerned.
    pub field: Option<String>,
    /// For a workbook: the cell as the sheet names it, `Sheet1!B3` (then `line` and `column`
    /// are the sheet's own row and column numbers).
    pub cell: Option<String>,
    /// The source line and the byte range of the caret within it.
    pub snippet: Option<Snippet>,
    /// Byte range of the caret in the text file, when known (for machine positions).
    pub span: Option<(u64, u64)>,
}

/// One line of a data file with the part a caret points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snippet {
    /// The line, without its line break.
    pub text: String,
    /// Byte range inside `text` that the caret underlines (may be empty).
    pub start: usize,
    /// End of the range (exclusive).
    pub end: usize,
    /// Short text at the caret.
    pub label: String,
}

/// A data source that cannot be loaded or whose rows are not what the suite declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataError {
    /// Stable code: `MCP-DATA-001` … `MCP-DATA-039`, or `MCP-EXT-103` … `MCP-EXT-108` for
    /// plugins, as the registry ([`RunCode`]) spells it.
    pub code: RunCode,
    /// The explanation, one or two sentences.
    pub message: String,
    /// The data source: its declared name, or the test that names a file or table.
    pub source_name: Option<SourceRef>,
    /// Where in the data.
    pub at: Option<Box<DataLocation>>,
    /// A suggested fix, printed after `Try:`.
    pub help: Option<String>,
}

impl DataError {
    /// An error with a code and a message and nothing else yet.
    pub fn new(code: RunCode, message: impl Into<String>) -> DataError {
        DataError {
            code,
            message: message.into(),
            source_name: None,
            at: None,
            help: None,
        }
    }

    /// Sets the location.
    pub fn at(mut self, at: DataLocation) -> DataError {
        self.at = Some(Box::new(at));
        self
    }

    /// Names the file (or URL) when no location is known yet.
    pub fn in_file(mut self, file: &str) -> DataError {
        if self.at.is_none() {
            self.at = Some(Box::new(DataLocation {
                file: file.to_string(),
                ..DataLocation::default()
            }));
        }
        self
    }

    /// Sets the `Try:` line.
    pub fn help(mut self, help: impl Into<String>) -> DataError {
        self.help = Some(help.into());
        self
    }

    /// Names the data source, unless an inner source was named already.
    pub fn source_named(mut self, name: &SourceRef) -> DataError {
        if self.source_name.is_none() {
            self.source_name = Some(name.clone());
        }
        self
    }

    /// Whether the environment rather than the suite is at fault (an unreachable host, a
    /// server error, a plugin that crashed or hung): `mcpr run` exits 3 for these, 2 otherwise.
    pub fn is_environment(&self) -> bool {
        self.code.class() == RunClass::Environment
    }

    /// The registered code.
    pub fn run_code(&self) -> RunCode {
        self.code
    }

    /// `file:line:col` (or `file`, or nothing) of the error; `file Sheet!B3` for a cell of
    /// a workbook.
    pub fn position(&self) -> Option<String> {
        let at = self.at.as_ref()?;
        if let Some(cell) = &at.cell {
            return Some(format!("{} {cell}", at.file));
        }
        Some(match (at.line, at.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", at.file),
            (Some(l), None) => format!("{}:{l}", at.file),
            _ => at.file.clone(),
        })
    }

    /// The key problems are sorted by: file, line (or row), column, code.
    fn sort_key(&self) -> (String, u64, u64, u64, &'static str) {
        let at = self.at.as_deref().cloned().unwrap_or_default();
        (
            at.file,
            at.line.or(at.row).unwrap_or(0),
            at.column.unwrap_or(0),
            at.row.unwrap_or(0),
            self.code.as_str(),
        )
    }

    /// Multi-line rendering like a compile diagnostic: `CODE path:line:col`, the data line
    /// with a caret under the value, the explanation and the `Try:` line.
    pub fn render(&self, color: bool) -> String {
        let paint = |look, text: &str| style::paint(color, look, text);
        let mut out = paint(style::BOLD_RED, &self.code.to_string());
        let mut context = Vec::new();
        if let Some(name) = &self.source_name {
            context.push(format!("data source {name}"));
        }
        if let Some(at) = &self.at {
            // A cell (`Cases!B4`) is in the position already; its data row would only
            // confuse next to the sheet's own row number.
            if let (Some(r), None) = (at.row, &at.cell) {
                context.push(format!("row {r}"));
            }
            if let Some(f) = &at.field {
                context.push(format!("column \"{f}\""));
            }
        }
        if let Some(pos) = self.position() {
            out.push_str(&format!(" {}", paint(style::BOLD, &pos)));
        }
        if !context.is_empty() {
            out.push_str(&format!(" ({})", context.join(", ")));
        }
        out.push('\n');
        if let Some(Snippet {
            text,
            start,
            end,
            label,
        }) = self.at.as_ref().and_then(|a| a.snippet.as_ref())
        {
            let at = self.at.as_deref();
            let gutter = match at.and_then(|a| a.cell.as_deref()) {
                Some(cell) => cell.rsplit('!').next().unwrap_or(cell).to_string(),
                None => at.and_then(|a| a.line).unwrap_or(0).to_string(),
            };
            let pad = " ".repeat(gutter.len());
            let shown = shorten_line(text, *start, *end);
            out.push_str(&format!("{}\n", paint(style::BLUE, &format!("{pad} |"))));
            out.push_str(&format!(
                "{} {}\n",
                paint(style::BLUE, &format!("{gutter} |")),
                shown.text
            ));
            let lead: String = shown.text[..shown.start]
                .chars()
                .map(|c| if c == '\t' { '\t' } else { ' ' })
                .collect();
            let width = shown.text[shown.start..shown.end].chars().count().max(1);
            out.push_str(&format!(
                "{} {lead}{} {label}\n",
                paint(style::BLUE, &format!("{pad} |")),
                paint(style::BOLD_RED, &"^".repeat(width))
            ));
        }
        out.push_str(&self.message);
        out.push('\n');
        if let Some(h) = &self.help {
            out.push_str(&format!("Try: {h}\n"));
        }
        out
    }
}

struct Shown {
    text: String,
    start: usize,
    end: usize,
}

/// Keeps long data lines readable: at most ~60 characters around the caret.
fn shorten_line(text: &str, start: usize, end: usize) -> Shown {
    const AROUND: usize = 60;
    let start = start.min(text.len());
    let end = end.clamp(start, text.len());
    if text.chars().count() <= 2 * AROUND + 40 {
        return Shown {
            text: text.to_string(),
            start,
            end,
        };
    }
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let from = floor(start.saturating_sub(AROUND));
    let to = floor((end + AROUND).min(text.len()));
    let mut shown = String::new();
    let mut offset = 0;
    if from > 0 {
        shown.push('…');
        offset = '…'.len_utf8();
    }
    shown.push_str(&text[from..to]);
    if to < text.len() {
        shown.push('…');
    }
    Shown {
        start: start - from + offset,
        end: end.min(to) - from + offset,
        text: shown,
    }
}

impl fmt::Display for DataError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(pos) = self.position() {
            write!(f, "{pos}: ")?;
        }
        write!(f, "{}: ", self.code)?;
        if let Some(name) = &self.source_name {
            write!(f, "data source {name}: ")?;
        }
        if let Some(r) = self
            .at
            .as_ref()
            .filter(|a| a.cell.is_none())
            .and_then(|a| a.row)
        {
            write!(f, "row {r}: ")?;
        }
        write!(f, "{}", self.message)
    }
}

impl std::error::Error for DataError {}

/// Most problems reported for one data source; the others are counted ("and N more").
pub const MAX_PROBLEMS_PER_SOURCE: usize = 100;

/// Which data source a problem belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SourceRef {
    /// A `Data source:` block (`dataSources` entry) by its name.
    Named(String),
    /// The rows a test names itself (`For each row:` or `For each row in "file"`).
    OfTest(String),
}

impl SourceRef {
    /// The declared name, for a named source.
    pub fn name(&self) -> Option<&str> {
        match self {
            SourceRef::Named(n) => Some(n),
            SourceRef::OfTest(_) => None,
        }
    }

    /// The test, for rows a test names itself.
    pub fn test(&self) -> Option<&str> {
        match self {
            SourceRef::OfTest(t) => Some(t),
            SourceRef::Named(_) => None,
        }
    }
}

impl fmt::Display for SourceRef {
    /// `"customers"`, or `of test "T"` (after the words "data source").
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SourceRef::Named(n) => write!(f, "\"{n}\""),
            SourceRef::OfTest(t) => write!(f, "of test \"{t}\""),
        }
    }
}

/// Problems of one source beyond [`MAX_PROBLEMS_PER_SOURCE`]: counted, not shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omitted {
    /// The source.
    pub source: Option<SourceRef>,
    /// The file (as shown), URL or provider the source reads.
    pub file: String,
    /// How many problems were not shown.
    pub count: usize,
}

impl Omitted {
    /// `… and 12 more problems in data source "customers" (only the first 100 of a source
    /// are shown)`.
    pub fn line(&self) -> String {
        let what = if self.count == 1 {
            "problem"
        } else {
            "problems"
        };
        let source = match &self.source {
            Some(s) => format!("data source {s}"),
            None => self.file.clone(),
        };
        format!(
            "… and {} more {what} in {source} (only the first {MAX_PROBLEMS_PER_SOURCE} of a source are shown)",
            self.count
        )
    }
}

/// Every problem of the data of a suite (or of one source), sorted by file and position; at
/// most [`MAX_PROBLEMS_PER_SOURCE`] per source, the rest counted in `omitted`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DataErrors {
    /// The problems, sorted.
    pub errors: Vec<DataError>,
    /// Per source, the problems beyond the limit.
    pub omitted: Vec<Omitted>,
}

impl From<DataError> for DataErrors {
    fn from(e: DataError) -> DataErrors {
        DataErrors {
            errors: vec![e],
            omitted: Vec::new(),
        }
    }
}

impl DataErrors {
    /// Whether there is no problem.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// How many problems are shown.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// How many problems were found, shown or not.
    pub fn total(&self) -> usize {
        self.errors.len() + self.omitted.iter().map(|o| o.count).sum::<usize>()
    }

    /// Adds the problems of `other`.
    pub fn extend(&mut self, other: DataErrors) {
        self.errors.extend(other.errors);
        self.omitted.extend(other.omitted);
    }

    /// Names the source of every problem not named yet.
    pub fn source_named(mut self, name: &SourceRef) -> DataErrors {
        self.errors = self
            .errors
            .into_iter()
            .map(|e| e.source_named(name))
            .collect();
        for o in &mut self.omitted {
            if o.source.is_none() {
                o.source = Some(name.clone());
            }
        }
        self
    }

    /// Sorts the problems by file, position and code, and drops repeats (a source two
    /// tests use is loaded twice).
    pub fn sort(&mut self) {
        self.errors.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
        let mut seen = Vec::<DataError>::new();
        self.errors.retain(|e| {
            let new = !seen.contains(e);
            if new {
                seen.push(e.clone());
            }
            new
        });
        let mut kept = Vec::<Omitted>::new();
        for o in self.omitted.drain(..) {
            if !kept
                .iter()
                .any(|k| k.source == o.source && k.file == o.file)
            {
                kept.push(o);
            }
        }
        self.omitted = kept;
    }

    /// The registered code of the first problem.
    pub fn run_code(&self) -> RunCode {
        self.first().code
    }

    /// Whether the environment is at fault for any problem (`mcpr run` exits 3).
    pub fn is_environment(&self) -> bool {
        self.errors.iter().any(DataError::is_environment)
    }

    /// The first problem.
    pub fn first(&self) -> &DataError {
        static NONE: std::sync::LazyLock<DataError> = std::sync::LazyLock::new(|| {
            DataError::new(RunCode::DataUnreadable, "No data problem was recorded.")
        });
        self.errors.first().unwrap_or(&NONE)
    }

    /// Every problem rendered like a compile diagnostic, a blank line between two, then the
    /// "and N more" lines.
    pub fn render(&self, color: bool) -> String {
        let mut out = self
            .errors
            .iter()
            .map(|e| e.render(color))
            .collect::<Vec<_>>()
            .join("\n");
        for o in &self.omitted {
            out.push('\n');
            out.push_str(&o.line());
            out.push('\n');
        }
        out
    }
}

/// A set of problems reads like its first one (`errors.code`, `errors.message`): what a
/// caller that acts on one problem needs.
impl std::ops::Deref for DataErrors {
    type Target = DataError;

    fn deref(&self) -> &DataError {
        self.first()
    }
}

impl fmt::Display for DataErrors {
    /// One line per problem, then the "and N more" lines.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines: Vec<String> = self.errors.iter().map(ToString::to_string).collect();
        lines.extend(self.omitted.iter().map(Omitted::line));
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for DataErrors {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_like_a_compile_diagnostic() {
        let e = DataError::new(
            RunCode::WrongType,
            "Column \"spend\" is a number, but row 2 has \"abc\".",
        )
        .at(DataLocation {
            file: "data/customers.csv".into(),
            line: Some(3),
            column: Some(5),
            row: Some(2),
            field: Some("spend".into()),
            cell: None,
            span: None,
            snippet: Some(Snippet {
                text: "C-2,abc,gold".into(),
                start: 4,
                end: 7,
                label: "not a number".into(),
            }),
        })
        .source_named(&SourceRef::Named("customers".into()))
        .help("fix the value or declare the column as string");
        assert_eq!(
            e.render(false),
            "MCP-DATA-021 data/customers.csv:3:5 (data source \"customers\", row 2, column \"spend\")\n  |\n3 | C-2,abc,gold\n  |     ^^^ not a number\nColumn \"spend\" is a number, but row 2 has \"abc\".\nTry: fix the value or declare the column as string\n"
        );
        assert_eq!(
            e.to_string(),
            "data/customers.csv:3:5: MCP-DATA-021: data source \"customers\": row 2: Column \"spend\" is a number, but row 2 has \"abc\"."
        );
    }

    #[test]
    fn environment_codes_are_the_registry_s() {
        let env: Vec<&str> = RunCode::ALL
            .iter()
            .filter(|c| DataError::new(**c, "").is_environment())
            .map(|c| c.as_str())
            .collect();
        assert_eq!(
            env,
            [
                "MCP-EXT-007",
                "MCP-EXT-008",
                "MCP-DATA-010",
                "MCP-DATA-016",
                "MCP-DATA-035",
                "MCP-EXT-105",
                "MCP-EXT-108"
            ]
        );
    }

    #[test]
    fn long_lines_are_cut_around_the_caret() {
        let text = format!("{}XYZ{}", "a".repeat(500), "b".repeat(500));
        let s = shorten_line(&text, 500, 503);
        assert!(s.text.starts_with('…') && s.text.ends_with('…'));
        assert_eq!(&s.text[s.start..s.end], "XYZ");
    }
}
