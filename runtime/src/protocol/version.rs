//! Protocol versions and the two eras.

/// The versions that use the `initialize` handshake, oldest first.
pub const HANDSHAKE_VERSIONS: &[&str] = &["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
/// The newest handshake version, offered by default.
pub const LATEST_HANDSHAKE: &str = "2025-11-25";
/// The stateless versions (no handshake, `_meta` envelope on every request), oldest first.
pub const MODERN_VERSIONS: &[&str] = &["2026-07-28"];

/// How a session talks to its server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2024-11-05 … 2025-11-25: `initialize`, session state, server→client requests.
    Legacy,
    /// 2026-07-28: `server/discover`, the `_meta` envelope, multi round-trip requests.
    Modern,
}

/// A protocol version string with helpers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProtocolVersion(pub String);

impl ProtocolVersion {
    /// The era a version belongs to, or `None` for a version this client does not know.
    pub fn era(&self) -> Option<Era> {
        era_of(&self.0)
    }

    /// The version text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True from `other` on (ISO dates compare lexically).
    pub fn at_least(&self, other: &str) -> bool {
        self.0.as_str() >= other
    }
}

impl std::fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The era of a version string, `None` when unknown.
pub fn era_of(version: &str) -> Option<Era> {
    if HANDSHAKE_VERSIONS.contains(&version) {
        Some(Era::Legacy)
    } else if MODERN_VERSIONS.contains(&version) {
        Some(Era::Modern)
    } else {
        None
    }
}

/// True when a JSON-RPC batch is legal in `version`.
pub fn batching_allowed(version: &str) -> bool {
    version == "2025-03-26"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eras() {
        assert_eq!(era_of("2025-06-18"), Some(Era::Legacy));
        assert_eq!(era_of("2026-07-28"), Some(Era::Modern));
        assert_eq!(era_of("1999-01-01"), None);
        assert!(ProtocolVersion("2025-11-25".into()).at_least("2025-06-18"));
        assert!(!ProtocolVersion("2025-03-26".into()).at_least("2025-06-18"));
        assert!(batching_allowed("2025-03-26") && !batching_allowed("2025-06-18"));
    }
}
