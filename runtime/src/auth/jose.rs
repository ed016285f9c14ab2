//! The little JOSE the client needs, with `ES256` (ECDSA P-256, SHA-256) only: keys from a
//! PKCS #8 PEM or generated, their public JWK and its thumbprint (RFC 7638), compact JWTs,
//! the `private_key_jwt` client assertion (RFC 7523 §2.2) and DPoP proofs (RFC 9449 §4).

use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::{Value, json};

use super::pkce::{random_text, sha256_b64url};

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// An ES256 signing key.
pub struct SigningKey {
    pair: EcdsaKeyPair,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A fresh key (for DPoP, one per target for the run).
    pub fn generate() -> Result<SigningKey, String> {
        let rng = SystemRandom::new();
        let doc = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| "cannot generate a P-256 key".to_string())?;
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, doc.as_ref(), &rng)
            .map_err(|e| format!("cannot use the generated key: {e}"))?;
        Ok(SigningKey { pair })
    }

    /// A key from PEM text (`-----BEGIN PRIVATE KEY-----`, PKCS #8, EC P-256). A value
    /// whose line breaks arrived as the two characters `\n` (an environment variable) is
    /// read too. The error never quotes the key.
    pub fn from_pem(pem: &str) -> Result<SigningKey, String> {
        let pem = pem.replace("\\n", "\n");
        if pem.contains("BEGIN EC PRIVATE KEY") {
            return Err("privateKey is a SEC1 key (BEGIN EC PRIVATE KEY); give it as PKCS #8 (BEGIN PRIVATE KEY), e.g. from `openssl pkcs8 -topk8 -nocrypt`".into());
        }
        let body = pem
            .split("-----BEGIN PRIVATE KEY-----")
            .nth(1)
            .and_then(|rest| rest.split("-----END PRIVATE KEY-----").next())
            .ok_or("privateKey is not a PEM private key (BEGIN PRIVATE KEY … END PRIVATE KEY)")?;
        let b64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .map_err(|_| "privateKey's PEM body is not base64".to_string())?;
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &SystemRandom::new())
                .map_err(|e| {
                    format!("privateKey is not an EC P-256 PKCS #8 key usable for ES256 ({e})")
                })?;
        Ok(SigningKey { pair })
    }

    /// The public key as a JWK (`kty`, `crv`, `x`, `y`; never the private part).
    pub fn jwk(&self) -> Value {
        // Uncompressed point: 0x04 ‖ x (32 bytes) ‖ y (32 bytes).
        let point = self.pair.public_key().as_ref();
        json!({
            "kty": "EC",
            "crv": "P-256",
            "x": b64(&point[1..33]),
            "y": b64(&point[33..65]),
        })
    }

    /// The JWK thumbprint (RFC 7638): SHA-256 of the required members in lexical order.
    pub fn thumbprint(&self) -> String {
        let jwk = self.jwk();
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            jwk["x"].as_str().unwrap_or(""),
            jwk["y"].as_str().unwrap_or("")
        );
        sha256_b64url(&canonical)
    }

    /// A compact JWS of `claims` with `header` (its `alg` is set to `ES256`).
    pub fn sign_jwt(&self, header: Value, claims: &Value) -> Result<String, String> {
        let mut header = header;
        header["alg"] = json!("ES256");
        let input = format!(
            "{}.{}",
            b64(header.to_string().as_bytes()),
            b64(claims.to_string().as_bytes())
        );
        let sig = self
            .pair
            .sign(&SystemRandom::new(), input.as_bytes())
            .map_err(|_| "cannot sign with the key".to_string())?;
        Ok(format!("{input}.{}", b64(sig.as_ref())))
    }
}

/// The `private_key_jwt` client assertion: `iss` = `sub` = the client id, `aud` = the
/// authorization server's issuer, a fresh `jti`, valid for five minutes.
pub fn client_assertion(
    key: &SigningKey,
    client_id: &str,
    audience: &str,
) -> Result<String, String> {
    let iat = now();
    key.sign_jwt(
        json!({"typ": "JWT"}),
        &json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "jti": random_text(16)?,
            "iat": iat,
            "exp": iat + 300,
        }),
    )
}

/// A DPoP proof for one HTTP request (RFC 9449 §4.2): `htm`, `htu` (the URL without query
/// and fragment), a fresh `jti`, `iat`, the server's `nonce` when it gave one, and for a
/// request to a resource the access token's hash `ath`.
pub fn dpop_proof(
    key: &SigningKey,
    method: &str,
    url: &str,
    nonce: Option<&str>,
    access_token: Option<&str>,
) -> Result<String, String> {
    let htu = match reqwest::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.to_string(),
    };
    let mut claims = json!({
        "jti": random_text(16)?,
        "htm": method,
        "htu": htu,
        "iat": now(),
    });
    if let Some(n) = nonce {
        claims["nonce"] = json!(n);
    }
    if let Some(t) = access_token {
        claims["ath"] = json!(sha256_b64url(t));
    }
    key.sign_jwt(json!({"typ": "dpop+jwt", "jwk": key.jwk()}), &claims)
}

/// The claims of a compact JWT, unverified (the client reads its own tokens only to learn
/// an expiry; it never trusts them).
pub fn claims(jwt: &str) -> Option<Value> {
    let part = jwt.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, UnparsedPublicKey};

    fn verify(key: &SigningKey, jwt: &str) -> bool {
        let (input, sig) = jwt.rsplit_once('.').unwrap();
        let sig = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(sig)
            .unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, key.pair.public_key().as_ref())
            .verify(input.as_bytes(), &sig)
            .is_ok()
    }

    #[test]
    fn proofs_and_assertions_verify_with_the_public_key() {
        let key = SigningKey::generate().unwrap();
        let proof = dpop_proof(
            &key,
            "POST",
            "http://a.example/mcp?x=1#f",
            Some("n1"),
            Some("tok"),
        )
        .unwrap();
        assert!(verify(&key, &proof));
        let header: Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(proof.split('.').next().unwrap())
                .unwrap(),
        )
        .unwrap();
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none());
        let c = claims(&proof).unwrap();
        assert_eq!(c["htu"], "http://a.example/mcp");
        assert_eq!(c["htm"], "POST");
        assert_eq!(c["nonce"], "n1");
        assert_eq!(c["ath"], sha256_b64url("tok"));
        let other = dpop_proof(&key, "POST", "http://a.example/mcp", None, None).unwrap();
        assert_ne!(claims(&other).unwrap()["jti"], c["jti"]);
        let a = client_assertion(&key, "c1", "https://as.example").unwrap();
        assert!(verify(&key, &a));
        let c = claims(&a).unwrap();
        assert_eq!(
            (c["iss"].as_str(), c["sub"].as_str()),
            (Some("c1"), Some("c1"))
        );
        assert_eq!(key.thumbprint().len(), 43);
    }

    #[test]
    fn pem_keys_and_their_errors() {
        // A PKCS #8 P-256 key (generated for this test only).
        let pem = "-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgJqr9qrZ7sdOypKPZ\nQDyFQWjYh2oNCU4VnvLo23brpC6hRANCAAT7puuCyaK27rpbA09aGA7o5aB/oNmN\n3OZzoK06F8r9RDlbyabNij0n8+NXI8C/m3UJ1pdtaY5S05r7kKt5Dzn0\n-----END PRIVATE KEY-----\n";
        let key = SigningKey::from_pem(pem).unwrap();
        assert_eq!(key.jwk()["crv"], "P-256");
        assert!(SigningKey::from_pem(&pem.replace('\n', "\\n")).is_ok());
        let e = SigningKey::from_pem(
            "-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----",
        )
        .unwrap_err();
        assert!(e.contains("PKCS #8"), "{e}");
        let e = SigningKey::from_pem("not a key").unwrap_err();
        assert!(e.contains("not a PEM"), "{e}");
        let e =
            SigningKey::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----")
                .unwrap_err();
        assert!(e.contains("not an EC P-256"), "{e}");
    }
}
