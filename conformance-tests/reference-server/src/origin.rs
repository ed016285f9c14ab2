//! Origin validation of the HTTP mode (DNS rebinding protection): a request whose `Origin`
//! is not a loopback origin is refused with 403; requests without `Origin` (not from a
//! browser) pass. `--broken no-origin-check` turns the validation off, for the Origin check
//! of `mcpr conformance`.

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

/// The `--broken` rule that turns Origin validation off.
pub const NO_ORIGIN_CHECK: &str = "no-origin-check";

/// The origins a local page may have: loopback hosts, any port, http or https.
const LOOPBACK: &[&str] = &[
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

/// `config` with Origin validation on (or off when `broken`).
pub fn validate(config: StreamableHttpServerConfig, broken: bool) -> StreamableHttpServerConfig {
    if broken {
        config.disable_allowed_origins()
    } else {
        config.with_allowed_origins(LOOPBACK.iter().copied())
    }
}
