//! GitHub Actions workflow commands that annotate a run (`::error file=…,line=…::message`),
//! built in one place for every output that writes them: compile diagnostics, data errors,
//! test results, lint findings and tool-snapshot changes.
//!
//! A command is `::LEVEL PROPERTIES::MESSAGE` on one line. The message is escaped so that a
//! `%`, a carriage return or a line break stays part of it (`%25`, `%0D`, `%0A`); a property
//! value is escaped the same way and, since `:` ends the properties and `,` separates them,
//! those too (`%3A`, `%2C`).

use std::fmt;

/// How GitHub shows an annotation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// `::error`.
    Error,
    /// `::warning`.
    Warning,
    /// `::notice`.
    Notice,
}

impl Level {
    /// The command's name.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }
}

/// One annotation: a level, a message and where it points. Properties left out are not
/// written; the ones set are written in the order GitHub documents them (`file`, `line`,
/// `col`, `endLine`, `endColumn`, `title`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    level: Level,
    message: String,
    file: Option<String>,
    line: Option<u64>,
    column: Option<u64>,
    end: Option<(u64, u64)>,
    title: Option<String>,
}

impl Annotation {
    /// An annotation of `level` saying `message` (which may span lines).
    pub fn new(level: Level, message: impl Into<String>) -> Self {
        Annotation {
            level,
            message: message.into(),
            file: None,
            line: None,
            column: None,
            end: None,
            title: None,
        }
    }

    /// The file it points at, as the repository names it.
    pub fn file(mut self, file: impl Into<String>) -> Self {
        self.file = Some(file.into());
        self
    }

    /// The 1-based line it points at.
    pub fn line(mut self, line: impl Into<u64>) -> Self {
        self.line = Some(line.into());
        self
    }

    /// The 1-based column it points at.
    pub fn column(mut self, column: impl Into<u64>) -> Self {
        self.column = Some(column.into());
        self
    }

    /// Where the span it points at ends (1-based line and column).
    pub fn end(mut self, line: impl Into<u64>, column: impl Into<u64>) -> Self {
        self.end = Some((line.into(), column.into()));
        self
    }

    /// The title GitHub shows above the message.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// The command, without a line break after it.
impl fmt::Display for Annotation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut properties = Vec::new();
        if let Some(file) = &self.file {
            properties.push(format!("file={}", escape_property(file)));
        }
        if let Some(line) = self.line {
            properties.push(format!("line={line}"));
        }
        if let Some(column) = self.column {
            properties.push(format!("col={column}"));
        }
        if let Some((line, column)) = self.end {
            properties.push(format!("endLine={line}"));
            properties.push(format!("endColumn={column}"));
        }
        if let Some(title) = &self.title {
            properties.push(format!("title={}", escape_property(title)));
        }
        write!(f, "::{}", self.level.as_str())?;
        if !properties.is_empty() {
            write!(f, " {}", properties.join(","))?;
        }
        write!(f, "::{}", escape_data(&self.message))
    }
}

/// A message escaped for a workflow command: `%`, `\r` and `\n`.
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c => out.push(c),
        }
    }
    out
}

/// A property value escaped for a workflow command: as a message, and `:` and `,`.
pub fn escape_property(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape_data(s).chars() {
        match c {
            ':' => out.push_str("%3A"),
            ',' => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_keeps_its_percent_signs_and_line_breaks() {
        assert_eq!(escape_data("50%\r\nnext: a,b"), "50%25%0D%0Anext: a,b");
        assert_eq!(
            escape_data("%0A"),
            "%250A",
            "an escape written by hand stays text"
        );
    }

    #[test]
    fn a_property_also_escapes_its_separators() {
        assert_eq!(
            escape_property("a:b,c%\r\n"),
            "a%3Ab%2Cc%25%0D%0A",
            "`:` ends the properties and `,` separates them"
        );
    }

    #[test]
    fn properties_are_written_in_order_and_only_when_set() {
        let full = Annotation::new(Level::Error, "bad\nline")
            .title("MCPLANG101 x: y")
            .end(3u32, 9u32)
            .column(2u32)
            .line(3u32)
            .file("dir,1/a:b.mcpr");
        assert_eq!(
            full.to_string(),
            "::error file=dir%2C1/a%3Ab.mcpr,line=3,col=2,endLine=3,endColumn=9,title=MCPLANG101 x%3A y::bad%0Aline"
        );
        assert_eq!(
            Annotation::new(Level::Notice, "1 passed").to_string(),
            "::notice::1 passed"
        );
        assert_eq!(
            Annotation::new(Level::Warning, "w").title("t").to_string(),
            "::warning title=t::w"
        );
    }
}
