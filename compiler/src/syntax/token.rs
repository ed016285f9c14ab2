//! Tokens of one statement line, produced by a logos lexer. Keywords are not
//! separate tokens: the vocabulary is matched case-insensitively on words by
//! the grammar, which keeps the lexer small and lets a misspelt keyword still
//! lex as a word that "did you mean" can work with.

use chumsky::span::SimpleSpan;
use logos::Logos;
use std::fmt;

/// One token of a statement line.
#[derive(Logos, Debug, Clone, Copy, PartialEq, Eq)]
#[logos(skip r"[ \t\u{a0}\u{feff}\u{2000}-\u{200a}\u{3000}]+")]
pub enum Tok<'s> {
    /// A double-quoted run, quotes included: `"tool name"`.
    #[regex(r#""[^"\n]*""#, |l| l.slice())]
    DoubleQuoted(&'s str),
    /// A single-quoted run, quotes included: `'tool name'`.
    #[regex(r#"'[^'\n]*'"#, |l| l.slice())]
    SingleQuoted(&'s str),
    /// `:`
    #[token(":")]
    Colon,
    /// `,`
    #[token(",")]
    Comma,
    /// `=`
    #[token("=")]
    Equals,
    /// `|`
    #[token("|")]
    Pipe,
    /// Any other run of non-space characters.
    #[regex(r#"[^ \t\u{a0}\u{feff}\u{2000}-\u{200a}\u{3000}"':,=|]+"#, |l| l.slice())]
    Word(&'s str),
    /// A character the lexer could not place, typically a quote that is never
    /// closed on its line.
    Error(&'s str),
}

impl fmt::Display for Tok<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tok::DoubleQuoted(s) | Tok::SingleQuoted(s) | Tok::Word(s) | Tok::Error(s) => {
                write!(f, "`{s}`")
            }
            Tok::Colon => f.write_str("`:`"),
            Tok::Comma => f.write_str("`,`"),
            Tok::Equals => f.write_str("`=`"),
            Tok::Pipe => f.write_str("`|`"),
        }
    }
}

/// Lexes the text of one line (`base` is the byte offset of `line` in the
/// file) and appends `(token, absolute byte span)` pairs to `out`, in the form
/// the grammar reads them.
pub fn lex_line<'s>(line: &'s str, base: usize, out: &mut Vec<(Tok<'s>, SimpleSpan)>) {
    let mut lexer = Tok::lexer(line);
    while let Some(result) = lexer.next() {
        let span = lexer.span();
        let tok = result.unwrap_or(Tok::Error(&line[span.clone()]));
        out.push((tok, SimpleSpan::from(base + span.start..base + span.end)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lex(s: &str) -> Vec<Tok<'_>> {
        let mut v = Vec::new();
        lex_line(s, 0, &mut v);
        v.into_iter().map(|(t, _)| t).collect()
    }

    #[test]
    fn words_quotes_and_punctuation() {
        assert_eq!(
            lex(r#"Call tool "add" with:"#),
            vec![
                Tok::Word("Call"),
                Tok::Word("tool"),
                Tok::DoubleQuoted("\"add\""),
                Tok::Word("with"),
                Tok::Colon
            ]
        );
        assert_eq!(
            lex("a, b=1"),
            vec![
                Tok::Word("a"),
                Tok::Comma,
                Tok::Word("b"),
                Tok::Equals,
                Tok::Word("1")
            ]
        );
    }

    #[test]
    fn unclosed_quote_is_an_error_token() {
        let toks = lex(r#"Call tool "add"#);
        assert!(
            matches!(toks[2], Tok::Error(s) if s.starts_with('"')),
            "{toks:?}"
        );
    }
}
