//! REST sources (a GET answering a JSON array of row objects, optionally under a dot `path`)
//! and Google Sheets ranges, read through the Sheets REST API (`values.get`).
//!
//! Every request goes to an address checked by [`super::net`]: the connection is pinned to
//! the checked address, redirects are followed by hand (at most 3, each checked again),
//! the whole exchange has 10 seconds, and the body may hold at most 10 MiB.

use crate::codes::RunCode;
use std::time::Duration;

use mcpr_compiler::ir::DataSource;
use serde_json::{Map, Value};

use super::coerce::infer_scalar;
use super::error::{DataError, DataErrors};
use super::net::{check_url, resolve, shown_url};
use super::{DataOptions, Row, follow_path, rows_of};

/// Most redirects followed (`MCP-DATA-014`).
pub const MAX_REDIRECTS: usize = 3;
/// Largest response body (`MCP-DATA-015`).
pub const MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// Time for the whole exchange.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// Default base of the Google Sheets API (a source's `url` replaces it).
pub const SHEETS_API: &str = "https://sheets.googleapis.com/v4";

fn install_crypto() {
    static ONCE: std::sync::OnceLock<()> = std::sync::OnceLock::new();
    ONCE.get_or_init(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// GETs `url` with `headers` and returns the parsed JSON body.
pub async fn get_json(
    url: &str,
    headers: &[(String, String)],
    opts: &DataOptions,
) -> Result<Value, DataError> {
    install_crypto();
    let shown = shown_url(url);
    let deadline = tokio::time::Instant::now() + TIMEOUT;
    let mut current = check_url(url)?;
    let mut redirects = 0;
    loop {
        let host = current.host_str().unwrap_or_default().to_string();
        let port = current.port_or_known_default().unwrap_or(80);
        let addrs = resolve(&host, port, opts).await?;
        let bare = host
            .trim_start_matches('[')
            .trim_end_matches(']')
            .to_string();
        let client = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .timeout(TIMEOUT)
            .resolve_to_addrs(&bare, &addrs)
            .build()
            .map_err(|e| {
                DataError::new(
                    RunCode::DataUnreachable,
                    format!("Cannot prepare the request: {e}."),
                )
            })?;
        let mut request = client.get(current.clone());
        for (k, v) in headers {
            request = request.header(k, v);
        }
        let unreachable = |e: reqwest::Error| {
            let why = if e.is_timeout() {
                "no answer within 10 seconds".to_string()
            } else {
                let mut s = e.to_string();
                let mut src = std::error::Error::source(&e);
                while let Some(inner) = src {
                    s = format!("{s}: {inner}");
                    src = inner.source();
                }
                s.replace(current.as_str(), &shown_url(current.as_str()))
            };
            DataError::new(
                RunCode::DataUnreachable,
                format!("The data URL could not be fetched: {why}."),
            )
            .in_file(&shown)
        };
        let response = tokio::time::timeout_at(deadline, request.send())
            .await
            .map_err(|_| {
                DataError::new(
                    RunCode::DataUnreachable,
                    "The data URL gave no answer within 10 seconds.",
                )
                .in_file(&shown)
            })?
            .map_err(unreachable)?;
        let status = response.status();
        if status.is_redirection() {
            let location = response
                .headers()
                .get(reqwest::header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .ok_or_else(|| {
                    DataError::new(
                        RunCode::DataHttpStatus,
                        format!("The data URL answered {status} without a Location."),
                    )
                    .in_file(&shown)
                })?;
            redirects += 1;
            if redirects > MAX_REDIRECTS {
                return Err(DataError::new(
                    RunCode::TooManyRedirects,
                    format!("The data URL redirected more than {MAX_REDIRECTS} times."),
                )
                .in_file(&shown)
                .help("use the final address of the data"));
            }
            let next = current.join(location).map_err(|e| {
                DataError::new(
                    RunCode::BadDataUrl,
                    format!("The redirect target is not a URL: {e}."),
                )
                .in_file(&shown)
            })?;
            current = check_url(next.as_str())?;
            continue;
        }
        if !status.is_success() {
            return Err(DataError::new(
                RunCode::DataHttpStatus,
                format!("The data URL answered HTTP {status}."),
            )
            .in_file(&shown)
            .help("check the URL and the credentials in `headers`"));
        }
        if response
            .content_length()
            .is_some_and(|l| l > MAX_BODY_BYTES as u64)
        {
            return Err(too_big(&shown));
        }
        let mut body: Vec<u8> = Vec::new();
        let mut response = response;
        loop {
            let chunk = tokio::time::timeout_at(deadline, response.chunk())
                .await
                .map_err(|_| {
                    DataError::new(
                        RunCode::DataUnreachable,
                        "The data did not arrive within 10 seconds.",
                    )
                    .in_file(&shown)
                })?
                .map_err(unreachable)?;
            let Some(chunk) = chunk else { break };
            if body.len() + chunk.len() > MAX_BODY_BYTES {
                return Err(too_big(&shown));
            }
            body.extend_from_slice(&chunk);
        }
        let text = String::from_utf8(body).map_err(|_| {
            DataError::new(RunCode::DataSyntax, "The response is not UTF-8 text.").in_file(&shown)
        })?;
        return super::file::parse_json(&text, &shown);
    }
}

fn too_big(shown: &str) -> DataError {
    DataError::new(
        RunCode::ResponseTooLarge,
        format!("The response is larger than the limit of {MAX_BODY_BYTES} bytes (10 MiB)."),
    )
    .in_file(shown)
    .help("filter the rows on the server, or page through them with several sources")
}

fn header_pairs(ds: &DataSource) -> Vec<(String, String)> {
    ds.headers
        .iter()
        .flat_map(|h| h.iter())
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// A `rest` source: GET `url`, follow `path`, an array of row objects.
pub async fn load_rest(
    ds: &DataSource,
    opts: &DataOptions,
) -> Result<(Vec<Row>, String), DataErrors> {
    let url = ds.url.clone().ok_or_else(|| {
        DataError::new(RunCode::BadDataUrl, "A REST source needs a `url`.")
            .help("add `From REST \"https://…\"`")
    })?;
    let shown = shown_url(&url);
    let doc = get_json(&url, &header_pairs(ds), opts).await?;
    let doc = follow_path(doc, ds.path.as_deref(), &shown)?;
    Ok((rows_of(doc, &shown, "The response")?, shown))
}

/// Percent-encodes a path segment.
fn segment(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~!$'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A `google-sheets` source: `spreadsheetId`, `range` (default `Sheet1`), `apiKey` or
/// `accessToken`. The first row of the range is the header; cells are read as CSV cells.
pub async fn load_google_sheets(
    ds: &DataSource,
    opts: &DataOptions,
) -> Result<(Vec<Row>, String), DataError> {
    let id = ds
        .spreadsheet_id
        .clone()
        .filter(|s| !s.is_empty())
        .ok_or_else(|| {
            DataError::new(
                RunCode::BadDataUrl,
                "A Google Sheets source needs a `spreadsheetId`.",
            )
        })?;
    let range = ds.range.clone().unwrap_or_else(|| "Sheet1".into());
    let base = ds.url.clone().unwrap_or_else(|| SHEETS_API.into());
    let mut url = format!(
        "{}/spreadsheets/{}/values/{}",
        base.trim_end_matches('/'),
        segment(&id),
        segment(&range)
    );
    if let Some(key) = ds.api_key.as_ref().filter(|k| !k.is_empty()) {
        url.push_str(&format!("?key={}", segment(key)));
    }
    let mut headers = header_pairs(ds);
    if let Some(token) = ds.access_token.as_ref().filter(|t| !t.is_empty()) {
        headers.push(("Authorization".into(), format!("Bearer {token}")));
    }
    let shown = shown_url(&url);
    let doc = get_json(&url, &headers, opts).await?;
    let values = doc
        .get("values")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut lines = values.into_iter();
    let header: Vec<String> = match lines.next() {
        Some(Value::Array(h)) => h.iter().map(super::coerce::as_text).collect(),
        Some(_) => {
            return Err(DataError::new(
                RunCode::NotRows,
                "The sheet's `values` are not rows of cells.",
            )
            .in_file(&shown));
        }
        None => return Ok((Vec::new(), shown)),
    };
    let mut rows = Vec::new();
    for line in lines {
        let cells = line.as_array().cloned().unwrap_or_default();
        if cells.iter().all(|c| c.as_str().is_none_or(str::is_empty)) {
            continue;
        }
        let mut row = Map::new();
        for (i, name) in header.iter().enumerate() {
            let v = match cells.get(i) {
                Some(Value::String(s)) => infer_scalar(s),
                Some(other) => other.clone(),
                None => Value::Null,
            };
            row.insert(name.clone(), v);
        }
        rows.push(row);
    }
    Ok((rows, shown))
}
