//! Network safety for remote data: URLs must be http(s), credential-free and at most 8 KiB;
//! the host must resolve, and only to public addresses unless `--allow-private-network`
//! (loopback, RFC 1918, carrier-grade NAT, link-local, unique-local, multicast, broadcast and
//! unspecified addresses are refused). The address checked is the address connected to.

use crate::codes::RunCode;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use super::DataOptions;
use super::error::DataError;

/// Longest URL (`MCP-DATA-013`).
pub const MAX_URL_BYTES: usize = 8 * 1024;

/// A URL as it may appear in messages: without query, fragment or credentials.
pub fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            let _ = u.set_username("");
            let _ = u.set_password(None);
            u.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or_default().to_string(),
    }
}

/// Checks a URL's form (`MCP-DATA-013`).
pub fn check_url(url: &str) -> Result<reqwest::Url, DataError> {
    let bad = |why: &str| {
        DataError::new(
            RunCode::BadDataUrl,
            format!("The data URL {} {why}.", shown_url(url)),
        )
        .help("use an http:// or https:// URL without a user name or password (send credentials in `headers`)")
    };
    if url.len() > MAX_URL_BYTES {
        return Err(bad(&format!("is longer than {MAX_URL_BYTES} bytes")));
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| bad(&format!("is not a valid URL ({e})")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad("is not http or https"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(bad("carries credentials"));
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(bad("has no host"));
    }
    Ok(parsed)
}

/// Whether an address is on the public internet.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => public_v4(v4),
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return public_v4(v4);
            }
            let first = v6.segments()[0];
            !(v6.is_loopback()
                || v6.is_unspecified()
                || v6.is_multicast()
                || (first & 0xfe00) == 0xfc00
                || (first & 0xffc0) == 0xfe80
                || v6 == Ipv6Addr::new(0x64, 0xff9b, 0, 0, 0, 0, 0, 0))
        }
    }
}

fn public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    !(ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_broadcast()
        || ip.is_unspecified()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || a >= 240)
}

/// Resolves `host` and checks every address (`MCP-DATA-016`, `MCP-DATA-017`); returns the
/// addresses to connect to.
pub async fn resolve(
    host: &str,
    port: u16,
    opts: &DataOptions,
) -> Result<Vec<SocketAddr>, DataError> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let addrs: Vec<SocketAddr> = match bare.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((bare, port))
            .await
            .map_err(|e| {
                DataError::new(
                    RunCode::HostUnresolved,
                    format!("The host {bare:?} does not resolve: {e}."),
                )
                .help("check the host name and the network")
            })?
            .collect(),
    };
    if addrs.is_empty() {
        return Err(DataError::new(
            RunCode::HostUnresolved,
            format!("The host {bare:?} resolves to no address."),
        ));
    }
    if !opts.allow_private_network
        && let Some(bad) = addrs.iter().find(|a| !is_public(a.ip()))
    {
        return Err(DataError::new(
            RunCode::PrivateAddress,
            format!(
                "The host {bare:?} resolves to {}, a private, loopback or otherwise non-public address.",
                bad.ip()
            ),
        )
        .help("run with --allow-private-network to load data from this machine or a private network"));
    }
    Ok(addrs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn address_classes() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.1.1",
            "0.0.0.0",
            "100.64.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::1",
            "fc00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "172.32.0.1"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn url_forms() {
        assert!(check_url("https://example.com/rows").is_ok());
        for bad in [
            "ftp://example.com/x",
            "https://user:pw@example.com/x",
            "not a url",
            "file:///etc/passwd",
        ] {
            assert_eq!(check_url(bad).unwrap_err().code, "MCP-DATA-013", "{bad}");
        }
        let long = format!("https://example.com/{}", "a".repeat(9000));
        assert_eq!(check_url(&long).unwrap_err().code, "MCP-DATA-013");
        assert_eq!(shown_url("https://h/x?key=SECRET#f"), "https://h/x");
        assert!(
            !check_url("https://u:SECRET@h/x")
                .unwrap_err()
                .message
                .contains("SECRET")
        );
    }
}
