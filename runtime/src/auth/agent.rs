//! mcpr as the user agent of the authorization step, without a person: a loopback
//! listener on 127.0.0.1 receives the redirect (RFC 8252 §7.3), and the authorization
//! request is followed redirect by redirect until it comes back there. A page instead of
//! a redirect means a person would have to log in or consent: that is an error naming the
//! settings to give instead. The response is checked before its code is used: the
//! `state`, then `iss` as RFC 9207 §2.4 and the MCP spec's table require.

use std::time::Duration;

use reqwest::Url;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use super::OAuthError;
use super::fetch::Fetch;

/// Most redirects followed from the authorization endpoint.
const MAX_REDIRECTS: usize = 10;

/// The parameters of the authorization response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Callback {
    /// `code`.
    pub code: Option<String>,
    /// `state`.
    pub state: Option<String>,
    /// `iss` (RFC 9207).
    pub iss: Option<String>,
    /// `error`.
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
}

impl Callback {
    fn from_url(u: &Url) -> Callback {
        let mut c = Callback::default();
        for (k, v) in u.query_pairs() {
            let v = Some(v.into_owned());
            match k.as_ref() {
                "code" => c.code = v,
                "state" => c.state = v,
                "iss" => c.iss = v,
                "error" => c.error = v,
                "error_description" => c.error_description = v,
                _ => {}
            }
        }
        c
    }
}

/// A loopback listener for the redirect; it stops when dropped.
pub struct Listener {
    /// The redirect URI it serves (`http://127.0.0.1:PORT/callback`).
    pub redirect_uri: String,
    rx: mpsc::Receiver<Callback>,
    task: tokio::task::AbortHandle,
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Listener {
    /// Listens on `redirect_uri`'s port (an http loopback URI), or on a free port of
    /// 127.0.0.1 with the path `/callback` when `redirect_uri` is `None`. `Ok(None)` for a
    /// redirect URI that is not loopback http: its redirect is read, not received.
    pub async fn start(redirect_uri: Option<&str>) -> Result<Option<Listener>, String> {
        let (bind, path) = match redirect_uri {
            None => ("127.0.0.1:0".to_string(), "/callback".to_string()),
            Some(uri) => {
                let u = Url::parse(uri).map_err(|e| format!("redirectUri {uri:?}: {e}"))?;
                let loopback = matches!(u.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"));
                if u.scheme() != "http" || !loopback {
                    return Ok(None);
                }
                let host = if u.host_str() == Some("[::1]") {
                    "[::1]"
                } else {
                    "127.0.0.1"
                };
                (
                    format!("{host}:{}", u.port_or_known_default().unwrap_or(80)),
                    u.path().to_string(),
                )
            }
        };
        let listener = TcpListener::bind(&bind)
            .await
            .map_err(|e| format!("cannot listen on {bind} for the OAuth redirect: {e}"))?;
        let addr = listener
            .local_addr()
            .map_err(|e| format!("cannot read the redirect listener's address: {e}"))?;
        let redirect_uri = match redirect_uri {
            Some(u) => u.to_string(),
            None => format!("http://{addr}{path}"),
        };
        let (tx, rx) = mpsc::channel(4);
        let task = tokio::spawn(serve(listener, path, tx)).abort_handle();
        Ok(Some(Listener {
            redirect_uri,
            rx,
            task,
        }))
    }
}

/// Answers each connection: the redirect path gives its parameters to the flow, anything
/// else is a 404. Requests are read with a deadline and a size limit.
async fn serve(listener: TcpListener, path: String, tx: mpsc::Sender<Callback>) {
    loop {
        let Ok((mut stream, _)) = listener.accept().await else {
            return;
        };
        let path = path.clone();
        let tx = tx.clone();
        tokio::spawn(async move {
            let mut head = Vec::new();
            let mut buf = [0u8; 2048];
            let read = tokio::time::timeout(Duration::from_secs(10), async {
                while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => head.extend_from_slice(&buf[..n]),
                    }
                }
            })
            .await;
            let line = String::from_utf8_lossy(&head);
            let target = line
                .lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .unwrap_or("/");
            let url = Url::parse(&format!("http://loopback{target}")).ok();
            let hit = read.is_ok() && url.as_ref().is_some_and(|u| u.path() == path);
            let (status, body) = if hit {
                if let Some(u) = &url {
                    let _ = tx.send(Callback::from_url(u)).await;
                }
                (
                    "200 OK",
                    "mcpr received the authorization response; this window can be closed.",
                )
            } else {
                ("404 Not Found", "not found")
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes()).await;
            let _ = stream.shutdown().await;
        });
    }
}

/// True when `url` is the redirect URI (scheme, host, port and path equal).
fn is_redirect(url: &Url, redirect_uri: &Url) -> bool {
    url.scheme() == redirect_uri.scheme()
        && url.host_str() == redirect_uri.host_str()
        && url.port_or_known_default() == redirect_uri.port_or_known_default()
        && url.path() == redirect_uri.path()
}

/// Follows the authorization request from `auth_url` to the redirect URI and returns the
/// response's parameters (received by `listener`, or read from the redirect).
pub async fn follow(
    fetch: &Fetch,
    auth_url: &Url,
    redirect_uri: &str,
    listener: Option<&mut Listener>,
) -> Result<Callback, OAuthError> {
    let endpoint = {
        let mut e = auth_url.clone();
        e.set_query(None);
        e.to_string()
    };
    let target = Url::parse(redirect_uri)
        .map_err(|e| OAuthError::Settings(format!("redirect URI {redirect_uri:?}: {e}")))?;
    let refused = |reason: String| OAuthError::AuthorizationResponse { reason };
    let mut url = auth_url.clone();
    for _ in 0..MAX_REDIRECTS {
        let answer = fetch.get_manual(url.as_str()).await.map_err(refused)?;
        if (300..400).contains(&answer.status) {
            let Some(location) = &answer.location else {
                return Err(refused(format!(
                    "the authorization endpoint {endpoint} answered HTTP {} without a Location",
                    answer.status
                )));
            };
            let next = url.join(location).map_err(|e| {
                refused(format!("a redirect to {location:?} that is not a URL: {e}"))
            })?;
            if is_redirect(&next, &target) {
                return match listener {
                    Some(l) => deliver(fetch, &next, l).await,
                    None => Ok(Callback::from_url(&next)),
                };
            }
            url = next;
            continue;
        }
        if answer.ok() {
            let kind = if answer.content_type.contains("html") {
                "a page (text/html)"
            } else {
                "a page"
            };
            return Err(OAuthError::LoginRequired {
                endpoint,
                reason: format!(
                    "it answered HTTP {} with {kind} instead of redirecting back to {redirect_uri}",
                    answer.status
                ),
            });
        }
        return Err(refused(format!(
            "the authorization endpoint {endpoint} answered {}",
            answer.oauth_error()
        )));
    }
    Err(refused(format!(
        "the authorization request to {endpoint} was redirected more than {MAX_REDIRECTS} times"
    )))
}

/// Follows the last redirect to the loopback listener and takes what it received.
async fn deliver(
    fetch: &Fetch,
    url: &Url,
    listener: &mut Listener,
) -> Result<Callback, OAuthError> {
    let refused = |reason: String| OAuthError::AuthorizationResponse { reason };
    let answer = fetch.get_manual(url.as_str()).await.map_err(refused)?;
    if !answer.ok() {
        return Err(refused(format!(
            "the redirect listener answered HTTP {}",
            answer.status
        )));
    }
    match tokio::time::timeout(Duration::from_secs(5), listener.rx.recv()).await {
        Ok(Some(c)) => Ok(c),
        _ => Err(refused("the redirect listener received no response".into())),
    }
}

/// Checks the authorization response and returns its code: the `state` must be the one
/// sent; `iss` (after the query's decoding, compared as a plain string, RFC 3986 §6.2.1)
/// must be `issuer` when present, and must be present when the server advertises it. Only
/// then is an `error` acted on. The caller adds the code to the run's learned secrets.
pub fn check(
    cb: &Callback,
    state: &str,
    issuer: &str,
    iss_supported: bool,
) -> Result<String, OAuthError> {
    let refused = |reason: String| OAuthError::AuthorizationResponse { reason };
    if cb.state.as_deref() != Some(state) {
        return Err(refused(match &cb.state {
            None => "it has no `state`; it is not the answer to mcpr's request".into(),
            Some(_) => "its `state` is not the one mcpr sent".into(),
        }));
    }
    match (&cb.iss, iss_supported) {
        (Some(iss), _) if iss != issuer => {
            return Err(refused(format!(
                "its `iss` {iss:?} is not the authorization server's issuer {issuer:?} (RFC 9207: a possible mix-up attack)"
            )));
        }
        (None, true) => {
            return Err(refused(format!(
                "it has no `iss`, which {issuer} advertises (authorization_response_iss_parameter_supported; RFC 9207)"
            )));
        }
        _ => {}
    }
    if let Some(e) = &cb.error {
        return Err(refused(match &cb.error_description {
            Some(d) => format!("the authorization server answered {e}: {d}"),
            None => format!("the authorization server answered {e}"),
        }));
    }
    let code = cb
        .code
        .clone()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| refused("it has no `code`".into()))?;
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cb(state: &str, iss: Option<&str>) -> Callback {
        Callback {
            code: Some("c0de-123".into()),
            state: Some(state.into()),
            iss: iss.map(str::to_string),
            ..Callback::default()
        }
    }

    #[test]
    fn iss_table_of_the_spec() {
        let i = "http://as.example";
        assert!(check(&cb("s", Some(i)), "s", i, true).is_ok());
        assert!(check(&cb("s", None), "s", i, true).is_err());
        assert!(check(&cb("s", Some("https://evil")), "s", i, false).is_err());
        assert!(check(&cb("s", None), "s", i, false).is_ok());
        // No normalization: a trailing slash is another string.
        assert!(check(&cb("s", Some("http://as.example/")), "s", i, true).is_err());
        assert!(check(&cb("t", Some(i)), "s", i, true).is_err());
        let mut e = cb("s", Some("https://evil"));
        e.error = Some("access_denied".into());
        let msg = check(&e, "s", i, false).unwrap_err().to_string();
        assert!(!msg.contains("access_denied"), "{msg}");
    }

    #[tokio::test]
    async fn the_listener_receives_the_redirect() {
        let mut l = Listener::start(None).await.unwrap().unwrap();
        assert!(
            l.redirect_uri.starts_with("http://127.0.0.1:"),
            "{}",
            l.redirect_uri
        );
        let fetch = Fetch::new(Duration::from_secs(5), &Default::default()).unwrap();
        let url = Url::parse(&format!("{}?code=abc&state=s1&iss=x", l.redirect_uri)).unwrap();
        let got = deliver(&fetch, &url, &mut l).await.unwrap();
        assert_eq!(got.code.as_deref(), Some("abc"));
        assert_eq!(got.iss.as_deref(), Some("x"));
        let other = fetch
            .get_manual(&l.redirect_uri.replace("/callback", "/other"))
            .await
            .unwrap();
        assert_eq!(other.status, 404);
        assert!(
            Listener::start(Some("https://app.example/cb"))
                .await
                .unwrap()
                .is_none()
        );
    }
}
