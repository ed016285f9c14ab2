//! The `oauth:` server option: `true` (or `oauth`, as in `OAuth: oauth`), or a block of
//! client settings. Keys are accepted in
//! the IR's camelCase (as `mcpr fmt` prints them), with spaces (`client id`) or with
//! underscores (`client_id`); values are text except the switches (`dpop`,
//! `offlineAccess`, `tokenCache`), `scope` may be a list, and `idp` is a block of its own.

use super::settings::scalar_text;
use crate::ir::{OAuth, OAuthSettings};
use serde_json::{Map, Value};

/// Settings whose value is text.
const TEXT: &[&str] = &[
    "grant",
    "clientId",
    "clientSecret",
    "clientMetadataUrl",
    "tokenEndpointAuth",
    "privateKey",
    "assertion",
    "refreshToken",
    "redirectUri",
];

/// Settings whose value is `true` or `false`.
const SWITCHES: &[&str] = &["dpop", "offlineAccess", "tokenCache"];

/// Settings of the `idp` block, all text.
const IDP: &[&str] = &[
    "idToken",
    "tokenEndpoint",
    "issuer",
    "clientId",
    "clientSecret",
];

/// The canonical spelling of `key` among `known` (`client id`, `client_id`, `Client ID`
/// and `clientId` are one key), or the key as written.
fn canonical(key: &str, known: &[&str]) -> String {
    let squash = |k: &str| -> String {
        k.chars()
            .filter(|c| !matches!(c, ' ' | '_' | '-'))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let k = squash(key);
    known
        .iter()
        .find(|c| squash(c) == k)
        .map_or_else(|| key.to_string(), |c| c.to_string())
}

fn text_value(key: &str, v: &Value) -> Result<Value, String> {
    scalar_text(v)
        .map(Value::String)
        .ok_or_else(|| format!("has a value for `{key}` that is not text"))
}

fn block(
    m: &Map<String, Value>,
    allowed_text: &[&str],
    switches: &[&str],
    what: &str,
) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    let mut known: Vec<&str> = allowed_text.iter().chain(switches).copied().collect();
    known.extend(["scope", "scopes", "idp"]);
    for (k, v) in m {
        let key = canonical(k, &known);
        let value = if key == "scope" || key == "scopes" {
            let scope = match v {
                Value::Array(items) => items
                    .iter()
                    .filter_map(scalar_text)
                    .collect::<Vec<_>>()
                    .join(" "),
                other => scalar_text(other).ok_or("has a `scope` that is not text")?,
            };
            out.insert("scope".into(), Value::String(scope));
            continue;
        } else if allowed_text.contains(&key.as_str()) {
            text_value(k, v)?
        } else if switches.contains(&key.as_str()) {
            match v {
                Value::Bool(b) => Value::Bool(*b),
                Value::String(s) if s == "true" || s == "false" => Value::Bool(s == "true"),
                _ => return Err(format!("has a `{k}` that is not `true` or `false`")),
            }
        } else if key == "idp" && what == "oauth" {
            let Value::Object(idp) = v else {
                return Err("has an `idp` that is not a block of settings".into());
            };
            Value::Object(block(idp, IDP, &[], "idp")?)
        } else {
            return Err(format!("has an unknown setting `{k}`"));
        };
        out.insert(key, value);
    }
    Ok(out)
}

/// The `oauth` option's value as the IR's [`OAuth`].
pub(super) fn oauth(v: &Value) -> Result<OAuth, String> {
    match v {
        Value::Bool(true) => Ok(OAuth::Enabled(true)),
        // `OAuth: oauth`, the first implementation's spelling of `oauth: true`.
        Value::String(s) if s.trim().eq_ignore_ascii_case("oauth") => Ok(OAuth::Enabled(true)),
        Value::Object(m) => {
            let settings = block(m, TEXT, SWITCHES, "oauth")?;
            serde_json::from_value::<OAuthSettings>(Value::Object(settings))
                .map(OAuth::Settings)
                .map_err(|e| {
                    let e = e.to_string();
                    // serde names the offending value; keep the sentence short.
                    format!("has a setting that cannot be used: {e}")
                })
        }
        // The wording of the first three settings is kept (corpus expectations).
        _ => Err("must be `true` or a block with clientId, clientSecret and scope".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{OAuthGrant, TokenEndpointAuth};
    use serde_json::json;

    #[test]
    fn keys_in_any_spelling_and_typed_values() {
        let o = oauth(&json!({
            "client id": "c1",
            "Client Secret": "${env.S}",
            "scopes": ["a", "b"],
            "grant": "client_credentials",
            "token_endpoint_auth": "private_key_jwt",
            "dpop": "true",
            "idp": {"id token": "t", "token endpoint": "https://idp/token"}
        }))
        .unwrap();
        let OAuth::Settings(s) = o else { panic!() };
        assert_eq!(s.client_id.as_deref(), Some("c1"));
        assert_eq!(s.client_secret.as_deref(), Some("${env.S}"));
        assert_eq!(s.scope.as_deref(), Some("a b"));
        assert_eq!(s.grant, Some(OAuthGrant::ClientCredentials));
        assert_eq!(
            s.token_endpoint_auth,
            Some(TokenEndpointAuth::PrivateKeyJwt)
        );
        assert_eq!(s.dpop, Some(true));
        assert_eq!(
            s.idp.unwrap().token_endpoint.as_deref(),
            Some("https://idp/token")
        );
        assert!(oauth(&json!({"clientMetadataUrl": "https://a/c.json"})).is_ok());
        let e = oauth(&json!({"clientid2": "x"})).unwrap_err();
        assert!(e.contains("unknown setting `clientid2`"), "{e}");
        let e = oauth(&json!({"grant": "password"})).unwrap_err();
        assert!(e.contains("cannot be used"), "{e}");
        assert!(oauth(&json!(false)).is_err());
        assert!(matches!(oauth(&json!("oauth")), Ok(OAuth::Enabled(true))));
        assert!(oauth(&json!("maybe")).is_err());
    }
}
