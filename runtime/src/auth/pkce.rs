//! Random values of the authorization request: the PKCE verifier and its `S256`
//! challenge (RFC 7636), the `state`, JWT ids. Every value comes from the operating
//! system's random source.

use base64::Engine as _;
use ring::rand::{SecureRandom, SystemRandom};
use sha2::{Digest, Sha256};

/// `n` random bytes, base64url without padding; `Err` when the operating system's
/// random source fails (never zeros in their place).
pub fn random_text(n: usize) -> Result<String, String> {
    let mut bytes = vec![0u8; n];
    SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| "the operating system's random source failed".to_string())?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// base64url (no padding) of the SHA-256 of `text`.
pub fn sha256_b64url(text: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(text.as_bytes()))
}

/// One PKCE pair: the secret verifier and the challenge sent in its place.
#[derive(Clone)]
pub struct Pkce {
    /// 43 characters of `[A-Za-z0-9-_]` (32 random bytes), kept secret.
    pub verifier: String,
    /// `BASE64URL(SHA256(verifier))`.
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair.
    pub fn new() -> Result<Pkce, String> {
        let verifier = random_text(32)?;
        let challenge = sha256_b64url(&verifier);
        Ok(Pkce {
            verifier,
            challenge,
        })
    }
}

impl std::fmt::Debug for Pkce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pkce")
            .field("challenge", &self.challenge)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_of_the_rfc_7636_example() {
        // RFC 7636 appendix B.
        assert_eq!(
            sha256_b64url("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        let p = Pkce::new().unwrap();
        assert_eq!(p.verifier.len(), 43);
        assert!(
            p.verifier
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        );
        assert_eq!(p.challenge, sha256_b64url(&p.verifier));
        assert_ne!(Pkce::new().unwrap().verifier, p.verifier);
        assert!(!format!("{p:?}").contains(&p.verifier));
    }
}
