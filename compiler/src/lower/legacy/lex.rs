//! Lines and words of a legacy `.mcp` script (mcp-tester's scripting, seed 000).
//!
//! One command per line. `#` and `//` start a comment at the start of a word outside quotes
//! (so `"## Heading"`, `http://x` and `a#b` are text). Words are separated by spaces and tabs;
//! inside a word, `"…"` groups text with the escapes `\"` and `\\` (every other backslash is
//! literal) and `'…'` groups text verbatim; an unterminated quote fails the line. `$name`
//! (`\$([A-Za-z_][A-Za-z0-9_]*)`) is recorded per word for substitution after splitting, so
//! a value with spaces stays one argument and an empty value stays an argument. A word
//! `<<MARKER` outside quotes, last on its line, starts a heredoc: the following lines up to
//! the one that is exactly `MARKER` (surrounding spaces ignored) become one more argument,
//! verbatim.

use crate::source::Span;

/// One piece of a word: literal text or a `$name` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text taken as it is.
    Text(String),
    /// A `$name` reference, substituted at run time.
    Var {
        /// The variable's name (without `$`).
        name: String,
        /// Where `$name` is written.
        span: Span,
    },
}

/// One argument (or the command name) of a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// The pieces, quotes removed and escapes applied.
    pub pieces: Vec<Piece>,
    /// The word as written.
    pub span: Span,
    /// The word as written (quotes included).
    pub raw: String,
    /// Whether the word came from a heredoc body.
    pub heredoc: bool,
}

impl Word {
    /// The text with every `$name` written back as `$name` (for command names, numbers and
    /// other words read at compile time).
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.pieces {
            match p {
                Piece::Text(t) => out.push_str(t),
                Piece::Var { name, .. } => {
                    out.push('$');
                    out.push_str(name);
                }
            }
        }
        out
    }

    /// Whether the word holds a `$name` reference.
    pub fn has_vars(&self) -> bool {
        self.pieces.iter().any(|p| matches!(p, Piece::Var { .. }))
    }

    /// The `$name` references of the word.
    pub fn vars(&self) -> impl Iterator<Item = (&str, Span)> {
        self.pieces.iter().filter_map(|p| match p {
            Piece::Var { name, span } => Some((name.as_str(), *span)),
            Piece::Text(_) => None,
        })
    }
}

/// A command line (with its heredoc body, if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The words; never empty.
    pub words: Vec<Word>,
    /// The command as written, from its first word to its last (heredoc body excluded).
    pub span: Span,
    /// The text of `span`.
    pub text: String,
}

/// A line the lexer rejects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LexError {
    /// A quote that is not closed on its line.
    UnterminatedQuote {
        /// `"` or `'`.
        quote: char,
        /// From the opening quote to the end of the line.
        span: Span,
    },
    /// `<<` without a marker, or a marker that is not a plain word.
    HeredocMarker {
        /// The `<<…` word.
        span: Span,
    },
    /// Text after the heredoc marker on its line.
    HeredocNotLast {
        /// The first word after the marker.
        span: Span,
    },
    /// The heredoc body never ends.
    HeredocUnterminated {
        /// The marker.
        marker: String,
        /// The `<<MARKER` word.
        span: Span,
    },
}

/// The outcome of lexing a whole script: its command lines and the lines it rejects.
#[derive(Debug, Default)]
pub struct Lexed {
    /// Lines holding a command, in order.
    pub lines: Vec<Line>,
    /// Rejected lines, in order.
    pub errors: Vec<LexError>,
}

fn is_name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits a script into command lines.
pub fn lex(text: &str) -> Lexed {
    let mut out = Lexed::default();
    // (start offset, line text without the line break)
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let body = piece.strip_suffix('\n').unwrap_or(piece);
        let body = body.strip_suffix('\r').unwrap_or(body);
        lines.push((start, body));
        start += piece.len();
    }
    let mut i = 0;
    while i < lines.len() {
        let (base, line) = lines[i];
        i += 1;
        match split_line(line, base) {
            Err(e) => out.errors.push(e),
            Ok(None) => {}
            Ok(Some((mut words, heredoc))) => {
                let span = Span::new(
                    words.first().map_or(base, |w| w.span.start as usize),
                    words.last().map_or(base, |w| w.span.end as usize),
                );
                let text_of_line = text[span.range()].to_string();
                if let Some(marker) = heredoc {
                    let marker_word = words.pop().expect("the marker is a word");
                    let mut body: Vec<&str> = Vec::new();
                    let mut closed = None;
                    let body_start = lines.get(i).map_or(text.len(), |(s, _)| *s);
                    while i < lines.len() {
                        let (s, l) = lines[i];
                        i += 1;
                        if l.trim() == marker {
                            closed = Some(s);
                            break;
                        }
                        body.push(l);
                    }
                    let Some(end_line) = closed else {
                        out.errors.push(LexError::HeredocUnterminated {
                            marker,
                            span: marker_word.span,
                        });
                        continue;
                    };
                    let body_text = body.join("\n");
                    let body_end = end_line.saturating_sub(1).max(body_start);
                    words.push(Word {
                        pieces: vec![Piece::Text(body_text.clone())],
                        span: Span::new(body_start.min(body_end), body_end),
                        raw: body_text,
                        heredoc: true,
                    });
                }
                if words.is_empty() {
                    continue;
                }
                out.lines.push(Line {
                    words,
                    span,
                    text: text_of_line,
                });
            }
        }
    }
    out
}

type Split = Option<(Vec<Word>, Option<String>)>;

/// Splits one line into words; `None` for a blank or comment line. The second member is the
/// heredoc marker when the line ends with `<<MARKER` (kept as the last word).
fn split_line(line: &str, base: usize) -> Result<Split, LexError> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut words: Vec<Word> = Vec::new();
    let mut heredoc: Option<String> = None;
    let mut k = 0;
    let at = |k: usize| chars.get(k).map_or(line.len(), |(o, _)| *o);
    while k < chars.len() {
        let c = chars[k].1;
        if c == ' ' || c == '\t' {
            k += 1;
            continue;
        }
        // A word starts here.
        if c == '#' || (c == '/' && chars.get(k + 1).is_some_and(|(_, n)| *n == '/')) {
            break; // comment to the end of the line
        }
        let word_start = at(k);
        if heredoc.is_some() {
            let end = chars[k..]
                .iter()
                .find(|(_, c)| *c == ' ' || *c == '\t')
                .map_or(line.len(), |(o, _)| *o);
            return Err(LexError::HeredocNotLast {
                span: Span::new(base + word_start, base + end),
            });
        }
        if c == '<' && chars.get(k + 1).is_some_and(|(_, n)| *n == '<') {
            let mut j = k + 2;
            while j < chars.len() && chars[j].1 != ' ' && chars[j].1 != '\t' {
                j += 1;
            }
            let marker = &line[at(k + 2)..at(j)];
            let span = Span::new(base + word_start, base + at(j));
            if marker.is_empty() || !marker.chars().all(|c| is_name_char(c) || c == '-') {
                return Err(LexError::HeredocMarker { span });
            }
            heredoc = Some(marker.to_string());
            words.push(Word {
                pieces: Vec::new(),
                span,
                raw: line[word_start..at(j)].to_string(),
                heredoc: false,
            });
            k = j;
            continue;
        }
        let mut pieces: Vec<Piece> = Vec::new();
        let mut text = String::new();
        while k < chars.len() {
            let (off, c) = chars[k];
            match c {
                ' ' | '\t' => break,
                '"' => {
                    let open = off;
                    k += 1;
                    let mut closed = false;
                    while k < chars.len() {
                        let c = chars[k].1;
                        match c {
                            '"' => {
                                closed = true;
                                k += 1;
                                break;
                            }
                            '\\' if matches!(chars.get(k + 1), Some((_, '"' | '\\'))) => {
                                text.push(chars[k + 1].1);
                                k += 2;
                            }
                            '$' => {
                                k = take_var(&chars, k, base, line, &mut text, &mut pieces);
                            }
                            _ => {
                                text.push(c);
                                k += 1;
                            }
                        }
                    }
                    if !closed {
                        return Err(LexError::UnterminatedQuote {
                            quote: '"',
                            span: Span::new(base + open, base + line.len()),
                        });
                    }
                }
                '\'' => {
                    let open = off;
                    k += 1;
                    let mut closed = false;
                    while k < chars.len() {
                        let c = chars[k].1;
                        if c == '\'' {
                            closed = true;
                            k += 1;
                            break;
                        }
                        if c == '$' {
                            k = take_var(&chars, k, base, line, &mut text, &mut pieces);
                        } else {
                            text.push(c);
                            k += 1;
                        }
                    }
                    if !closed {
                        return Err(LexError::UnterminatedQuote {
                            quote: '\'',
                            span: Span::new(base + open, base + line.len()),
                        });
                    }
                }
                '$' => {
                    k = take_var(&chars, k, base, line, &mut text, &mut pieces);
                }
                _ => {
                    text.push(c);
                    k += 1;
                }
            }
        }
        if !text.is_empty() || pieces.is_empty() {
            pieces.push(Piece::Text(text));
        }
        let end = at(k);
        words.push(Word {
            pieces,
            span: Span::new(base + word_start, base + end),
            raw: line[word_start..end].to_string(),
            heredoc: false,
        });
    }
    if words.is_empty() {
        return Ok(None);
    }
    Ok(Some((words, heredoc)))
}

/// Reads `$name` at `k` (a `$`): pushes the text so far and the reference, or the `$` as
/// text when no name follows. Returns the index after what was read.
fn take_var(
    chars: &[(usize, char)],
    k: usize,
    base: usize,
    line: &str,
    text: &mut String,
    pieces: &mut Vec<Piece>,
) -> usize {
    let at = |k: usize| chars.get(k).map_or(line.len(), |(o, _)| *o);
    if !chars.get(k + 1).is_some_and(|(_, c)| is_name_start(*c)) {
        text.push('$');
        return k + 1;
    }
    let mut j = k + 1;
    while j < chars.len() && is_name_char(chars[j].1) {
        j += 1;
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(std::mem::take(text)));
    }
    pieces.push(Piece::Var {
        name: line[at(k + 1)..at(j)].to_string(),
        span: Span::new(base + at(k), base + at(j)),
    });
    j
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<String> {
        let lexed = lex(line);
        assert!(lexed.errors.is_empty(), "{:?}", lexed.errors);
        lexed.lines[0].words.iter().map(Word::text).collect()
    }

    #[test]
    fn quotes_escapes_and_comments() {
        assert_eq!(
            words(r###"echo "## Heading" # a comment"###),
            ["echo", "## Heading"]
        );
        assert_eq!(
            words(r#"assert_contains "missing: [\"code\"]" // note"#),
            ["assert_contains", r#"missing: ["code"]"#]
        );
        assert_eq!(words(r#"echo "a\nb\\c""#), ["echo", r"a\nb\c"]);
        assert_eq!(words(r#"echo 'a\"b'"#), ["echo", r#"a\"b"#]);
        assert_eq!(
            words(r#"call_tool t a:"x y" http://h/p"#),
            ["call_tool", "t", "a:x y", "http://h/p"]
        );
        assert_eq!(
            words(r#"assert_equals $body """#),
            ["assert_equals", "$body", ""]
        );
        assert_eq!(words("echo a#b"), ["echo", "a#b"]);
        assert!(lex("# only a comment\n// another\n\n").lines.is_empty());
    }

    #[test]
    fn variables_are_pieces() {
        let lexed = lex("echo \"id: $user_id!\" $5 $");
        let w = &lexed.lines[0].words;
        assert_eq!(
            w[1].pieces,
            vec![
                Piece::Text("id: ".into()),
                Piece::Var {
                    name: "user_id".into(),
                    span: Span::new(10, 18)
                },
                Piece::Text("!".into()),
            ]
        );
        assert_eq!(w[2].text(), "$5");
        assert_eq!(w[3].text(), "$");
    }

    #[test]
    fn unterminated_quotes_fail_the_line() {
        let lexed = lex("echo ok\necho \"open\necho 'x\n");
        assert_eq!(lexed.lines.len(), 1);
        assert_eq!(
            lexed.errors,
            vec![
                LexError::UnterminatedQuote {
                    quote: '"',
                    span: Span::new(13, 18)
                },
                LexError::UnterminatedQuote {
                    quote: '\'',
                    span: Span::new(24, 26)
                },
            ]
        );
    }

    #[test]
    fn heredocs() {
        let lexed =
            lex("call_tool run <<EOF\nconsole.log(\"# not a comment\");\n  x\n  EOF\necho done\n");
        assert!(lexed.errors.is_empty());
        let w = &lexed.lines[0].words;
        assert_eq!(w.len(), 3);
        assert_eq!(w[2].text(), "console.log(\"# not a comment\");\n  x");
        assert!(w[2].heredoc);
        assert_eq!(lexed.lines[1].words[0].text(), "echo");
        assert_eq!(lexed.lines[0].text, "call_tool run <<EOF");

        let quoted = lex("echo \"<<EOF\"\n");
        assert_eq!(quoted.lines[0].words[1].text(), "<<EOF");

        let open = lex("call_tool x <<END\nbody\n");
        assert!(matches!(
            open.errors[..],
            [LexError::HeredocUnterminated { .. }]
        ));
        assert!(matches!(
            lex("call_tool x <<\n").errors[..],
            [LexError::HeredocMarker { .. }]
        ));
        assert!(matches!(
            lex("call_tool x <<EOF y\nEOF\n").errors[..],
            [LexError::HeredocNotLast { .. }]
        ));
    }
}
