//! The `WWW-Authenticate` challenge of a 401 or 403 (RFC 6750 §3, RFC 9728 §5.1,
//! RFC 9449 §7.1): which scheme, where the protected-resource metadata is, which scope the
//! request needs, which error.

use crate::transport::http::parse_challenges;

/// The parameters of one `Bearer` or `DPoP` challenge.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `Bearer` or `DPoP` (as the server spelt it).
    pub scheme: String,
    /// `resource_metadata`: the URL of the protected-resource metadata.
    pub resource_metadata: Option<String>,
    /// `scope`: what the request needs, space-separated.
    pub scope: Option<String>,
    /// `error` (`invalid_token`, `insufficient_scope`, `use_dpop_nonce`, …).
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
    /// A `DPoP` challenge was among the server's.
    pub dpop_offered: bool,
}

impl Challenge {
    /// The challenged scopes, one each.
    pub fn scopes(&self) -> Vec<String> {
        split_scope(self.scope.as_deref())
    }

    /// True when the server asks for DPoP-bound tokens.
    pub fn wants_dpop(&self) -> bool {
        self.dpop_offered
    }

    /// True for `error="insufficient_scope"`.
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Scopes of a space-separated list, one each, without repeats.
pub fn split_scope(scope: Option<&str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in scope.unwrap_or("").split_whitespace() {
        if !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// The `Bearer` or `DPoP` challenge among the header values (a `DPoP` one when both are
/// there and `prefer_dpop`), or `None` when the server sent neither.
pub fn pick(headers: &[String], prefer_dpop: bool) -> Option<Challenge> {
    let all: Vec<(String, Vec<(String, String)>)> =
        headers.iter().flat_map(|h| parse_challenges(h)).collect();
    let dpop_offered = all.iter().any(|(s, _)| s.eq_ignore_ascii_case("dpop"));
    let is = |s: &str, want: &str| s.eq_ignore_ascii_case(want);
    let chosen = if prefer_dpop && dpop_offered {
        all.iter().find(|(s, _)| is(s, "dpop"))
    } else {
        all.iter()
            .find(|(s, _)| is(s, "bearer"))
            .or_else(|| all.iter().find(|(s, _)| is(s, "dpop")))
    }?;
    let get = |k: &str| {
        chosen
            .1
            .iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.clone())
    };
    Some(Challenge {
        scheme: chosen.0.clone(),
        resource_metadata: get("resource_metadata"),
        scope: get("scope"),
        error: get("error"),
        error_description: get("error_description"),
        dpop_offered,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_and_dpop_challenges() {
        let h = vec![
            r#"Bearer error="insufficient_scope", scope="a b a", resource_metadata="https://r/.well-known/oauth-protected-resource/mcp""#.to_string(),
        ];
        let c = pick(&h, false).unwrap();
        assert_eq!(c.scheme, "Bearer");
        assert!(c.insufficient_scope());
        assert_eq!(c.scopes(), vec!["a", "b"]);
        assert!(!c.wants_dpop());
        let h = vec![
            r#"DPoP error="use_dpop_nonce", resource_metadata="https://r/m""#.to_string(),
            "Bearer realm=\"x\"".to_string(),
        ];
        let c = pick(&h, true).unwrap();
        assert_eq!(c.scheme, "DPoP");
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert!(c.wants_dpop());
        assert_eq!(pick(&h, false).unwrap().scheme, "Bearer");
        assert_eq!(pick(&["Basic realm=\"x\"".to_string()], false), None);
        assert_eq!(pick(&[], false), None);
    }
}
