//! URI checks of the resource rules: an absolute URI (RFC 3986: a scheme, `:`, and no
//! character a URI cannot hold) for MCP016, and RFC 6570 URI templates (levels 1–4) for
//! MCP018.

/// ASCII characters that may not appear unencoded in a URI or in a template's literals.
fn forbidden_ascii(c: char) -> bool {
    c.is_ascii_control()
        || matches!(
            c,
            ' ' | '"' | '<' | '>' | '\\' | '^' | '`' | '{' | '|' | '}'
        )
}

/// `None` when `uri` is an absolute URI, else why not.
pub fn absolute_uri_error(uri: &str) -> Option<String> {
    if uri.is_empty() {
        return Some("it is empty".into());
    }
    let Some(colon) = uri.find(':') else {
        return Some("it has no scheme (such as file: or https:)".into());
    };
    let scheme = &uri[..colon];
    let mut chars = scheme.chars();
    let valid_scheme = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    if !valid_scheme {
        return Some(format!("'{scheme}' is not a URI scheme"));
    }
    if let Some((i, c)) = uri.chars().enumerate().find(|(_, c)| forbidden_ascii(*c)) {
        return Some(format!(
            "character {} ({}) must be percent-encoded",
            i + 1,
            describe(c)
        ));
    }
    bad_percent(uri).map(|i| format!("'%' at character {i} is not followed by two hex digits"))
}

fn describe(c: char) -> String {
    if c == ' ' {
        "a space".into()
    } else if c.is_ascii_control() {
        format!("control character U+{:04X}", c as u32)
    } else {
        format!("'{c}'")
    }
}

/// The 1-based character position of a `%` not followed by two hex digits.
fn bad_percent(s: &str) -> Option<usize> {
    let chars: Vec<char> = s.chars().collect();
    (0..chars.len()).find_map(|i| {
        let ok = chars[i] != '%'
            || (chars.get(i + 1).is_some_and(char::is_ascii_hexdigit)
                && chars.get(i + 2).is_some_and(char::is_ascii_hexdigit));
        (!ok).then_some(i + 1)
    })
}

/// A parsed template: its variable names, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The variables of every expression.
    pub variables: Vec<String>,
}

/// Parses an RFC 6570 URI template; the error says what is wrong and where (1-based
/// character positions).
pub fn parse_template(t: &str) -> Result<Template, String> {
    let chars: Vec<char> = t.chars().collect();
    let mut variables = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' => {
                let start = i;
                let Some(len) = chars[i + 1..].iter().position(|&c| c == '}') else {
                    return Err(format!(
                        "the '{{' at character {} is never closed",
                        start + 1
                    ));
                };
                let body: String = chars[i + 1..i + 1 + len].iter().collect();
                expression(&body, start + 1, &mut variables)?;
                i += len + 2;
            }
            '}' => return Err(format!("'}}' at character {} closes no expression", i + 1)),
            '%' => {
                let hex = chars.get(i + 1).is_some_and(char::is_ascii_hexdigit)
                    && chars.get(i + 2).is_some_and(char::is_ascii_hexdigit);
                if !hex {
                    return Err(format!(
                        "'%' at character {} is not followed by two hex digits",
                        i + 1
                    ));
                }
                i += 3;
            }
            c if forbidden_ascii(c) || c == '\'' => {
                return Err(format!(
                    "character {} ({}) is not allowed in a template's literal text",
                    i + 1,
                    describe(c)
                ));
            }
            _ => i += 1,
        }
    }
    Ok(Template { variables })
}

/// One expression's body (between the braces); `at` is the position of its `{`.
fn expression(body: &str, at: usize, variables: &mut Vec<String>) -> Result<(), String> {
    let mut rest = body;
    if let Some(op) = rest.chars().next() {
        if matches!(op, '+' | '#' | '.' | '/' | ';' | '?' | '&') {
            rest = &rest[1..];
        } else if matches!(op, '=' | ',' | '!' | '@' | '|') {
            return Err(format!(
                "the operator '{op}' of the expression at character {at} is reserved by RFC 6570"
            ));
        }
    }
    if rest.is_empty() {
        return Err(format!(
            "the expression at character {at} names no variable"
        ));
    }
    for spec in rest.split(',') {
        let (name, modifier) = match spec.find([':', '*']) {
            Some(m) => (&spec[..m], &spec[m..]),
            None => (spec, ""),
        };
        if !valid_varname(name) {
            return Err(format!(
                "'{name}' in the expression at character {at} is not a variable name (letters, digits, _, %XX and inner dots)"
            ));
        }
        let modifier_ok = match modifier {
            "" | "*" => true,
            m => m.strip_prefix(':').is_some_and(|n| {
                (1..=4).contains(&n.len())
                    && n.bytes().all(|b| b.is_ascii_digit())
                    && !n.starts_with('0')
            }),
        };
        if !modifier_ok {
            return Err(format!(
                "'{modifier}' after '{name}' at character {at} is not a modifier (':' and 1 to 9999, or '*')"
            ));
        }
        variables.push(name.to_string());
    }
    Ok(())
}

fn valid_varname(name: &str) -> bool {
    let b = name.as_bytes();
    if b.is_empty() || b[0] == b'.' || b[b.len() - 1] == b'.' {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if !(b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                    && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit))
                {
                    return false;
                }
                i += 3;
                continue;
            }
            b'.' if b.get(i + 1) == Some(&b'.') => return false,
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'.' => {}
            _ => return false,
        }
        i += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_uris() {
        assert_eq!(absolute_uri_error("fixture://status"), None);
        assert_eq!(absolute_uri_error("file:///tmp/a%20b"), None);
        assert_eq!(absolute_uri_error("urn:isbn:0451450523"), None);
        assert_eq!(
            absolute_uri_error("not a uri"),
            Some("it has no scheme (such as file: or https:)".into())
        );
        assert_eq!(
            absolute_uri_error("file:///a b"),
            Some("character 10 (a space) must be percent-encoded".into())
        );
        assert_eq!(
            absolute_uri_error("1x:y"),
            Some("'1x' is not a URI scheme".into())
        );
        assert_eq!(
            absolute_uri_error("x:%zz"),
            Some("'%' at character 3 is not followed by two hex digits".into())
        );
    }

    #[test]
    fn rfc6570_templates() {
        let vars = |t: &str| parse_template(t).unwrap().variables;
        assert_eq!(vars("fixture://items/{id}"), ["id"]);
        assert_eq!(
            vars("https://x/{+path}{?q,lang}{#frag}"),
            ["path", "q", "lang", "frag"]
        );
        assert_eq!(
            vars("x:{var:3}{list*}{a.b}{%41b}"),
            ["var", "list", "a.b", "%41b"]
        );
        assert!(vars("fixture://fixed").is_empty());
        for (bad, why) in [
            ("file:///{path", "the '{' at character 9 is never closed"),
            ("x:{}", "the expression at character 3 names no variable"),
            (
                "x:{=a}",
                "the operator '=' of the expression at character 3 is reserved by RFC 6570",
            ),
            (
                "x:{a b}",
                "'a b' in the expression at character 3 is not a variable name (letters, digits, _, %XX and inner dots)",
            ),
            (
                "x:{a:0}",
                "':0' after 'a' at character 3 is not a modifier (':' and 1 to 9999, or '*')",
            ),
            (
                "x:{a:10000}",
                "':10000' after 'a' at character 3 is not a modifier (':' and 1 to 9999, or '*')",
            ),
            ("x:a}", "'}' at character 4 closes no expression"),
            (
                "x:a b",
                "character 4 (a space) is not allowed in a template's literal text",
            ),
            ("x:{.}", "the expression at character 3 names no variable"),
        ] {
            assert_eq!(parse_template(bad).unwrap_err(), why, "{bad}");
        }
    }
}
