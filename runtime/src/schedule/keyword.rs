//! `mcpr run -k EXPR`: a test selection by words of its name, as pytest's `-k` selects.
//!
//! A word matches a test when it occurs in the test's name, its logical name or its id,
//! ignoring case. Words combine with `and`, `or`, `not` and parentheses (`not` binds
//! tightest, then `and`, then `or`); a word that must contain a space or one of those
//! keywords is quoted (`"slow path"`).

/// A parsed `-k` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyword {
    /// A word, lowercased.
    Word(String),
    /// Both sides match.
    And(Box<Keyword>, Box<Keyword>),
    /// Either side matches.
    Or(Box<Keyword>, Box<Keyword>),
    /// The inner expression does not match.
    Not(Box<Keyword>),
}

/// How deep parentheses and `not`s may nest (an expression is typed by a person).
const MAX_DEPTH: usize = 64;

impl Keyword {
    /// Parses an expression; the error says what was expected and where.
    pub fn parse(text: &str) -> Result<Keyword, String> {
        let tokens = tokenize(text)?;
        if tokens.is_empty() {
            return Err("the expression is empty".into());
        }
        let mut p = Parser {
            tokens: &tokens,
            at: 0,
            depth: 0,
        };
        let k = p.or()?;
        match p.tokens.get(p.at) {
            None => Ok(k),
            Some(t) => Err(format!(
                "unexpected {} after a complete expression",
                t.show()
            )),
        }
    }

    /// Whether a test with these names matches.
    pub fn matches(&self, names: &[&str]) -> bool {
        match self {
            Keyword::Word(w) => names.iter().any(|n| n.to_lowercase().contains(w.as_str())),
            Keyword::And(a, b) => a.matches(names) && b.matches(names),
            Keyword::Or(a, b) => a.matches(names) || b.matches(names),
            Keyword::Not(k) => !k.matches(names),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    And,
    Or,
    Not,
    Open,
    Close,
}

impl Token {
    fn show(&self) -> String {
        match self {
            Token::Word(w) => format!("{w:?}"),
            Token::And => "`and`".into(),
            Token::Or => "`or`".into(),
            Token::Not => "`not`".into(),
            Token::Open => "`(`".into(),
            Token::Close => "`)`".into(),
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' => {
                chars.next();
                tokens.push(Token::Open);
            }
            ')' => {
                chars.next();
                tokens.push(Token::Close);
            }
            '"' | '\'' => {
                chars.next();
                let mut word = String::new();
                loop {
                    match chars.next() {
                        Some(q) if q == c => break,
                        Some(ch) => word.push(ch),
                        None => return Err(format!("a quoted word opened with {c} is not closed")),
                    }
                }
                tokens.push(Token::Word(word.to_lowercase()));
            }
            _ => {
                let mut word = String::new();
                while let Some(&ch) = chars.peek() {
                    if ch.is_whitespace() || ch == '(' || ch == ')' {
                        break;
                    }
                    word.push(ch);
                    chars.next();
                }
                tokens.push(match word.as_str() {
                    "and" => Token::And,
                    "or" => Token::Or,
                    "not" => Token::Not,
                    _ => Token::Word(word.to_lowercase()),
                });
            }
        }
    }
    Ok(tokens)
}

struct Parser<'t> {
    tokens: &'t [Token],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn eat(&mut self, t: &Token) -> bool {
        if self.tokens.get(self.at) == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<Keyword, String> {
        let mut k = self.and()?;
        while self.eat(&Token::Or) {
            k = Keyword::Or(Box::new(k), Box::new(self.and()?));
        }
        Ok(k)
    }

    fn and(&mut self) -> Result<Keyword, String> {
        let mut k = self.not()?;
        while self.eat(&Token::And) {
            k = Keyword::And(Box::new(k), Box::new(self.not()?));
        }
        Ok(k)
    }

    fn not(&mut self) -> Result<Keyword, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!(
                "the expression nests deeper than {MAX_DEPTH} levels"
            ));
        }
        let k = if self.eat(&Token::Not) {
            Keyword::Not(Box::new(self.not()?))
        } else if self.eat(&Token::Open) {
            let inner = self.or()?;
            if !self.eat(&Token::Close) {
                return Err("a `(` is not closed".into());
            }
            inner
        } else {
            match self.tokens.get(self.at) {
                Some(Token::Word(w)) => {
                    self.at += 1;
                    Keyword::Word(w.clone())
                }
                Some(t) => return Err(format!("expected a word, found {}", t.show())),
                None => return Err("expected a word at the end".into()),
            }
        };
        self.depth -= 1;
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(expr: &str, name: &str) -> bool {
        Keyword::parse(expr).expect("parses").matches(&[name])
    }

    #[test]
    fn words_match_anywhere_ignoring_case() {
        assert!(m("add", "Add sums two numbers"));
        assert!(!m("subtract", "Add sums two numbers"));
        assert!(m("\"two num\"", "add sums TWO NUMBERS"));
    }

    #[test]
    fn not_binds_tighter_than_and_than_or() {
        assert!(m("add and not slow", "add quickly"));
        assert!(!m("add and not slow", "add slowly"));
        assert!(m("echo or add and slow", "echo"));
        assert!(!m("(echo or add) and slow", "echo"));
        assert!(m("not not echo", "echo"));
    }

    #[test]
    fn any_name_of_the_test_matches() {
        let k = Keyword::parse("login").expect("parses");
        assert!(k.matches(&["Sign in", "login-flow"]));
    }

    #[test]
    fn mistakes_are_named() {
        assert_eq!(
            Keyword::parse("add and").unwrap_err(),
            "expected a word at the end"
        );
        assert_eq!(Keyword::parse("(add").unwrap_err(), "a `(` is not closed");
        assert_eq!(
            Keyword::parse("add echo").unwrap_err(),
            "unexpected \"echo\" after a complete expression"
        );
        assert_eq!(Keyword::parse("  ").unwrap_err(), "the expression is empty");
        assert!(Keyword::parse(&"(".repeat(10_000)).is_err());
        assert!(Keyword::parse("'open").is_err());
    }
}
