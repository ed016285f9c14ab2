//! Source files, byte spans and the line index that turns byte offsets into
//! line/column positions and UTF-16 offsets for the edges (JSON, editors).

use serde::Serialize;

/// A half-open byte range into one source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default, Serialize)]
pub struct Span {
    /// First byte of the range.
    pub start: u32,
    /// One past the last byte of the range.
    pub end: u32,
}

impl Span {
    /// Builds a span from two byte offsets.
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end, "span start {start} after end {end}");
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// An empty span at one byte offset.
    pub fn at(offset: usize) -> Self {
        Span::new(offset, offset)
    }

    /// The range as `usize` bounds, for slicing.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// Number of bytes covered.
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    /// Whether the span covers no bytes.
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering both.
    pub fn cover(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

impl From<std::ops::Range<usize>> for Span {
    fn from(r: std::ops::Range<usize>) -> Self {
        Span::new(r.start, r.end)
    }
}

/// A position as editors see it: 1-based line, 1-based column in UTF-16 code
/// units, and the 0-based UTF-16 offset from the start of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Position {
    /// 1-based line number.
    pub line: u32,
    /// 1-based column, counted in UTF-16 code units.
    pub column: u32,
    /// 0-based offset from the start of the file, in UTF-16 code units.
    pub offset: u32,
}

/// One source file: its display path, its text and its line index.
#[derive(Debug, Clone)]
pub struct SourceFile {
    path: String,
    text: String,
    /// Byte offset at which each line starts.
    line_starts: Vec<u32>,
    /// UTF-16 offset at which each line starts; empty when the text is ASCII, where a byte
    /// is one UTF-16 unit and the byte offsets serve (see [`SourceFile::utf16_starts`]).
    line_starts_utf16: Vec<u32>,
    /// UTF-16 offset of every [`CHECKPOINT`]th byte (empty when the text is ASCII), so a
    /// position on a long line (a suite written as one line of JSON) counts at most that
    /// many bytes instead of the line up to it.
    utf16_checkpoints: Vec<u32>,
}

/// Bytes between two entries of [`SourceFile`]'s UTF-16 checkpoints.
const CHECKPOINT: usize = 4096;

/// UTF-16 units of the characters that start in `bytes`: one per character, two from
/// U+10000 (four UTF-8 bytes).
fn utf16_units(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .map(|&b| u32::from(b & 0xC0 != 0x80) + u32::from(b >= 0xF0))
        .sum()
}

impl SourceFile {
    /// Indexes a file. Lines end at LF; a CR directly before the LF belongs to
    /// the line break, a lone CR is ordinary text.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> Self {
        let text = text.into();
        let bytes = text.as_bytes();
        let mut line_starts = vec![0u32];
        let mut start = 0;
        while let Some(at) = crate::bytes::find_byte(&bytes[start..], b'\n') {
            start += at + 1;
            line_starts.push(start as u32);
        }
        // Kept for the file's life: a large file has hundreds of thousands of lines.
        line_starts.shrink_to_fit();
        let lines = line_starts.len();
        let (line_starts_utf16, utf16_checkpoints) = if text.is_ascii() {
            (Vec::new(), Vec::new())
        } else {
            let mut utf16 = 0u32;
            let mut lines16 = Vec::with_capacity(lines);
            lines16.push(0u32);
            for w in line_starts.windows(2) {
                utf16 += utf16_units(&bytes[w[0] as usize..w[1] as usize]);
                lines16.push(utf16);
            }
            let mut utf16 = 0u32;
            let checkpoints = bytes
                .chunks(CHECKPOINT)
                .map(|chunk| {
                    let at = utf16;
                    utf16 += utf16_units(chunk);
                    at
                })
                .collect();
            (lines16, checkpoints)
        };
        SourceFile {
            path: path.into(),
            text,
            line_starts,
            line_starts_utf16,
            utf16_checkpoints,
        }
    }

    /// UTF-16 offset at which each line starts.
    fn utf16_starts(&self) -> &[u32] {
        if self.line_starts_utf16.is_empty() {
            &self.line_starts
        } else {
            &self.line_starts_utf16
        }
    }

    /// The path shown in diagnostics.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The whole text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Number of lines (a trailing newline opens one last, empty line).
    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// 0-based index of the line holding a byte offset.
    pub fn line_index(&self, byte: usize) -> usize {
        match self.line_starts.binary_search(&(byte as u32)) {
            Ok(i) => i,
            Err(i) => i - 1,
        }
    }

    /// Byte range of a 0-based line without its line break (LF or CR LF).
    pub fn line_span(&self, line: usize) -> Span {
        let start = self.line_starts[line] as usize;
        let mut end = self
            .line_starts
            .get(line + 1)
            .map(|&s| s as usize - 1)
            .unwrap_or(self.text.len());
        // A CR directly before the LF is part of the line break; the last
        // line has no LF after it, so a CR there is ordinary text.
        if end > start && end < self.text.len() && self.text.as_bytes()[end - 1] == b'\r' {
            end -= 1;
        }
        Span::new(start, end)
    }

    /// Text of a 0-based line without its line break.
    pub fn line_text(&self, line: usize) -> &str {
        &self.text[self.line_span(line).range()]
    }

    /// Position of a byte offset. Offsets inside a multi-byte character are
    /// rounded down to the character's start.
    pub fn position(&self, byte: usize) -> Position {
        let byte = self.floor_char_boundary(byte.min(self.text.len()));
        let line = self.line_index(byte);
        let offset = self.utf16_at(byte);
        Position {
            line: line as u32 + 1,
            column: offset - self.utf16_starts()[line] + 1,
            offset,
        }
    }

    /// UTF-16 offset of a byte offset on a character boundary: the byte offset itself in
    /// ASCII text, else the nearest checkpoint before it and the characters after that.
    fn utf16_at(&self, byte: usize) -> u32 {
        if self.utf16_checkpoints.is_empty() {
            return byte as u32;
        }
        // The end of a text whose length is a whole number of checkpoints has none of its own.
        let k = (byte / CHECKPOINT).min(self.utf16_checkpoints.len() - 1);
        self.utf16_checkpoints[k] + utf16_units(&self.text.as_bytes()[k * CHECKPOINT..byte])
    }

    /// UTF-16 offset of a byte offset.
    pub fn utf16_offset(&self, byte: usize) -> u32 {
        self.position(byte).offset
    }

    /// Byte offset of a 0-based UTF-16 offset (rounded down to a character
    /// boundary when it falls inside a surrogate pair).
    pub fn byte_of_utf16(&self, utf16: u32) -> usize {
        let line = match self.utf16_starts().binary_search(&utf16) {
            Ok(i) => {
                // Several lines cannot share a UTF-16 start, but keep the last.
                i
            }
            Err(i) => i - 1,
        };
        let mut remaining = utf16 - self.utf16_starts()[line];
        let start = self.line_starts[line] as usize;
        for (i, ch) in self.text[start..].char_indices() {
            let w = ch.len_utf16() as u32;
            if remaining < w {
                return start + i;
            }
            remaining -= w;
        }
        self.text.len()
    }

    /// Byte offset of a 1-based line and 1-based UTF-16 column.
    pub fn byte_of_line_column(&self, line: u32, column: u32) -> Option<usize> {
        let idx = (line as usize).checked_sub(1)?;
        let span = *self.line_starts.get(idx)?;
        let utf16 = self.utf16_starts()[idx] + column.checked_sub(1)?;
        let byte = self.byte_of_utf16(utf16);
        (byte >= span as usize).then_some(byte)
    }

    /// Largest char boundary not after `byte`.
    pub fn floor_char_boundary(&self, mut byte: usize) -> usize {
        while byte > 0 && !self.text.is_char_boundary(byte) {
            byte -= 1;
        }
        byte
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units() {
        let f = SourceFile::new("t.mcpr", "ab\nü𝄞x\r\nend");
        assert_eq!(f.line_count(), 3);
        assert_eq!(f.line_text(1), "ü𝄞x");
        let x = f.text().find('x').unwrap();
        let p = f.position(x);
        assert_eq!((p.line, p.column), (2, 4));
        assert_eq!(p.offset, 3 + 1 + 2);
        assert_eq!(f.byte_of_utf16(p.offset), x);
        assert_eq!(f.byte_of_line_column(2, 4), Some(x));
        assert_eq!(f.line_text(2), "end");
    }

    #[test]
    fn line_starts_count_every_character() {
        let text = "ab\nü𝄞x\r\n\n日本\n😀😀\nend\n";
        let f = SourceFile::new("t", text);
        let (mut bytes, mut units) = (vec![0u32], vec![0u32]);
        let mut utf16 = 0;
        for (i, ch) in text.char_indices() {
            utf16 += ch.len_utf16() as u32;
            if ch == '\n' {
                bytes.push(i as u32 + 1);
                units.push(utf16);
            }
        }
        assert_eq!(f.line_starts, bytes);
        assert_eq!(f.utf16_starts(), units);
        // An ASCII text keeps no second table: its UTF-16 starts are its byte starts.
        let ascii = SourceFile::new("t", "ab\r\n\ncd\ne");
        assert!(ascii.line_starts_utf16.is_empty());
        assert_eq!(ascii.utf16_starts(), [0, 4, 5, 8]);
        assert_eq!(ascii.position(9).offset, 9);
        assert_eq!(ascii.byte_of_line_column(3, 2), Some(6));
    }

    #[test]
    fn positions_on_long_lines_agree_with_counting_every_character() {
        // One long line (as a generated JSON suite is written) and a few short ones, with
        // characters of one to four bytes across several checkpoints; the lengths put the
        // end of the text on a checkpoint and off one.
        for extra in [0usize, 1, 3] {
            let mut text = String::from("é\n");
            let mut n = 0;
            while text.len() < 3 * CHECKPOINT {
                text.push_str(["a", "ü", "日", "𝄞"][n % 4]);
                n += 1;
            }
            text.push_str("\nend");
            let pad = (CHECKPOINT - text.len() % CHECKPOINT) % CHECKPOINT;
            text.push_str(&"x".repeat(pad + extra));
            let f = SourceFile::new("t", text.as_str());
            let (mut line, mut column, mut offset) = (1, 1, 0);
            let mut expected = Vec::new();
            for (i, ch) in text.char_indices() {
                expected.push((
                    i,
                    Position {
                        line,
                        column,
                        offset,
                    },
                ));
                let w = ch.len_utf16() as u32;
                offset += w;
                if ch == '\n' {
                    (line, column) = (line + 1, 1);
                } else {
                    column += w;
                }
            }
            expected.push((
                text.len(),
                Position {
                    line,
                    column,
                    offset,
                },
            ));
            for (byte, want) in expected {
                assert_eq!(f.position(byte), want, "byte {byte}, {extra} extra");
                assert_eq!(f.byte_of_utf16(want.offset), byte);
            }
            // Inside a character: its start.
            let u = text.find('ü').unwrap();
            assert_eq!(f.position(u + 1), f.position(u));
        }
    }

    #[test]
    fn lone_cr_is_text() {
        let f = SourceFile::new("t", "a\rb\n");
        assert_eq!(f.line_count(), 2);
        assert_eq!(f.line_text(0), "a\rb");
    }
}
