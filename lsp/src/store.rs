//! Open documents: their text as the editor holds it, edits applied at UTF-16 positions, and
//! the `file:` URIs editors name them by.

use std::collections::BTreeMap;
use std::str::FromStr;

use lsp_types::{Position, Range, TextDocumentContentChangeEvent, Uri};
use percent_encoding::{AsciiSet, CONTROLS, percent_decode_str, utf8_percent_encode};

/// Characters escaped in the path of a `file:` URI (RFC 3986 `pchar` minus `/`).
const PATH: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// The file-system path of a `file:` URI (`/`-separated), or `None` for other schemes.
pub fn uri_to_path(uri: &Uri) -> Option<String> {
    let s = uri.as_str();
    let rest = s.strip_prefix("file://")?;
    // `file://host/path` names a host; only the local one (empty or `localhost`) is a path.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if &rest[..i] == "localhost" => &rest[i..],
        _ => return None,
    };
    let decoded = percent_decode_str(path).decode_utf8().ok()?;
    let mut p = decoded.into_owned();
    // `file:///C:/x` on Windows: the drive letter follows the slash.
    if p.len() > 2 && p.as_bytes()[2] == b':' && p.as_bytes()[1].is_ascii_alphabetic() {
        p.remove(0);
    }
    Some(p)
}

/// The `file:` URI of an absolute path.
pub fn path_to_uri(path: &str) -> Option<Uri> {
    let path = path.replace('\\', "/");
    let lead = if path.starts_with('/') { "" } else { "/" };
    Uri::from_str(&format!(
        "file://{lead}{}",
        utf8_percent_encode(&path, PATH)
    ))
    .ok()
}

/// One open document.
#[derive(Debug, Clone)]
pub struct Document {
    /// Its text now.
    pub text: String,
    /// The version the editor gave with the last change.
    pub version: i32,
}

/// The open documents, by path.
#[derive(Debug, Default)]
pub struct Store {
    docs: BTreeMap<String, Document>,
}

impl Store {
    /// Opens (or replaces) a document.
    pub fn open(&mut self, path: String, text: String, version: i32) {
        self.docs.insert(path, Document { text, version });
    }

    /// Closes a document.
    pub fn close(&mut self, path: &str) {
        self.docs.remove(path);
    }

    /// The document at a path, when open.
    pub fn get(&self, path: &str) -> Option<&Document> {
        self.docs.get(path)
    }

    /// The paths of every open document.
    pub fn paths(&self) -> impl Iterator<Item = &String> {
        self.docs.keys()
    }

    /// Applies the changes of one `didChange`, in order. A change without a range replaces
    /// the whole text; positions past a line's end or the file's end are clamped.
    pub fn change(
        &mut self,
        path: &str,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
    ) {
        let Some(doc) = self.docs.get_mut(path) else {
            return;
        };
        for c in changes {
            match c.range {
                None => doc.text = c.text,
                Some(range) => {
                    let start = byte_of(&doc.text, range.start);
                    let end = byte_of(&doc.text, range.end).max(start);
                    doc.text.replace_range(start..end, &c.text);
                }
            }
        }
        doc.version = version;
    }
}

/// The byte offset of a UTF-16 position in `text`. A line past the end is the end of the
/// text; a column past the line's end is the line's end (before its line break); a column
/// inside a surrogate pair is the start of the character.
pub fn byte_of(text: &str, pos: Position) -> usize {
    let mut start = 0;
    for _ in 0..pos.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut units = 0u32;
    for (i, ch) in text[start..line_end].char_indices() {
        let w = ch.len_utf16() as u32;
        if units + w > pos.character {
            return start + i;
        }
        units += w;
    }
    // A CR before the LF belongs to the line break.
    if line_end > start && text.as_bytes()[line_end - 1] == b'\r' && line_end < text.len() {
        return line_end - 1;
    }
    line_end
}

/// The UTF-16 position of a byte offset in `text` (rounded down to a character boundary).
pub fn position_of(text: &str, byte: usize) -> Position {
    let mut byte = byte.min(text.len());
    while !text.is_char_boundary(byte) {
        byte -= 1;
    }
    let line_start = text[..byte].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..line_start].bytes().filter(|&b| b == b'\n').count() as u32;
    let character = text[line_start..byte]
        .chars()
        .map(|c| c.len_utf16() as u32)
        .sum();
    Position { line, character }
}

/// A byte range of `text` as an LSP range.
pub fn range_of(text: &str, span: std::ops::Range<usize>) -> Range {
    Range {
        start: position_of(text, span.start),
        end: position_of(text, span.end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(text: &str, sl: u32, sc: u32, el: u32, ec: u32, new: &str) -> String {
        let mut s = Store::default();
        s.open("/f".into(), text.into(), 0);
        s.change(
            "/f",
            1,
            vec![TextDocumentContentChangeEvent {
                range: Some(Range {
                    start: Position::new(sl, sc),
                    end: Position::new(el, ec),
                }),
                range_length: None,
                text: new.into(),
            }],
        );
        s.get("/f").map(|d| d.text.clone()).unwrap_or_default()
    }

    #[test]
    fn edits_count_utf16_units_across_astral_characters() {
        // 😀 is two UTF-16 units (four bytes).
        let text = "a😀b\nx😀😀y\n";
        assert_eq!(change(text, 0, 3, 0, 4, "B"), "a😀B\nx😀😀y\n");
        assert_eq!(change(text, 1, 1, 1, 5, ""), "a😀b\nxy\n");
        // Inside a surrogate pair: the start of the character.
        assert_eq!(change(text, 0, 2, 0, 2, "-"), "a-😀b\nx😀😀y\n");
        // Past the end of a line and of the file: clamped.
        assert_eq!(change(text, 0, 99, 0, 99, "!"), "a😀b!\nx😀😀y\n");
        assert_eq!(change(text, 9, 0, 9, 0, "z"), "a😀b\nx😀😀y\nz");
        // A range across lines.
        assert_eq!(change(text, 0, 1, 1, 1, ""), "a😀😀y\n");
    }

    #[test]
    fn positions_and_bytes_agree() {
        let text = "é😀\r\nz";
        // Every character but the LF of a CR LF (the break is one place for an editor).
        for (i, _) in text.char_indices().filter(|&(i, _)| i != 7) {
            assert_eq!(byte_of(text, position_of(text, i)), i, "byte {i}");
        }
        assert_eq!(position_of(text, text.len()), Position::new(1, 1));
        assert_eq!(byte_of(text, Position::new(0, 50)), 6);
    }

    #[test]
    fn file_uris_round_trip() {
        for p in ["/tmp/a b/c#d.mcpr", "/x/ünï😀.mcpr"] {
            let uri = path_to_uri(p).expect("uri");
            assert_eq!(uri_to_path(&uri).as_deref(), Some(p));
        }
        let u = Uri::from_str("untitled:Untitled-1").expect("uri");
        assert_eq!(uri_to_path(&u), None);
    }
}
