//! `mcpr record --url URL`: a Streamable HTTP proxy. mcpr listens on a local address, the
//! client talks to it as to its server, and every request goes on to the upstream server
//! unchanged, its answer (a JSON body or an event stream, as it comes) back to the client
//! ([`super::forward`]). What passes the MCP endpoint feeds the same [`Tape`] as the stdio
//! proxy, and the draft is built by the same [`super::draft`], for a target at the upstream
//! URL ([`super::headers::draft_target`]).
//!
//! The recording ends on a signal, when the client ends its last open session with DELETE
//! ([`Until::Delete`]), or after `idle` without a request; requests in flight are then given
//! [`DRAIN`] to finish.

use std::collections::BTreeSet;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::Url;
use tokio::sync::Notify;

use super::Recorded;
use super::headers::{SeenHeaders, draft_target, public_url};
use super::tape::Tape;
use crate::error::{Error, ErrorKind};
use crate::interrupt::Interrupt;
use crate::redact::Redactor;

/// How long requests still in flight may finish once the recording has ended.
const DRAIN: Duration = Duration::from_secs(2);

/// How long the upstream server may take to accept a connection.
const CONNECT: Duration = Duration::from_secs(10);

/// Largest message kept for the tape (a request body, a JSON answer, one event); a larger
/// one is passed on but not recorded.
pub const MAX_KEPT: usize = 16 * 1024 * 1024;

/// Most notes kept (the same note is kept once).
const MAX_NOTES: usize = 50;

/// When the recording ends, besides a signal (which always ends it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// When the client ends, with DELETE, the last session it had open.
    Delete,
    /// Only on a signal (or `idle`): for clients that open several sessions in turn, and
    /// for 2026-07-28, which has no sessions.
    Signal,
}

/// What `mcpr record --url` needs.
#[derive(Debug, Clone)]
pub struct HttpRecordOptions {
    /// The upstream server's MCP endpoint.
    pub url: String,
    /// Where mcpr listens (`127.0.0.1:0`: a free port).
    pub listen: String,
    /// Where the draft goes (written atomically).
    pub output: PathBuf,
    /// When the recording ends.
    pub until: Until,
    /// End after this long without a request in flight or a new one.
    pub idle: Option<Duration>,
    /// Raised by a signal: the recording ends.
    pub interrupt: Interrupt,
}

/// Why the recording ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Signal,
    Deleted,
    Idle,
    Failed,
}

/// How requests in flight are counted, for `idle`.
#[derive(Debug)]
struct Activity {
    in_flight: usize,
    last: Instant,
}

/// What the exchanges of the proxy share.
pub(super) struct Shared {
    pub(super) tape: Mutex<Tape>,
    pub(super) headers: Mutex<SeenHeaders>,
    redactor: Mutex<Redactor>,
    notes: Mutex<Vec<String>>,
    /// Sessions the upstream server opened (`Mcp-Session-Id`) and the client has not ended.
    sessions: Mutex<BTreeSet<String>>,
    activity: Mutex<Activity>,
    /// Told when the client ended its last open session.
    deleted: Notify,
    /// Exchanges without a session so far (each is a scope of its own on the tape).
    exchanges: std::sync::atomic::AtomicU64,
}

impl Shared {
    fn new() -> Shared {
        Shared {
            tape: Mutex::new(Tape::default()),
            headers: Mutex::new(SeenHeaders::default()),
            redactor: Mutex::new(Redactor::new()),
            notes: Mutex::new(Vec::new()),
            sessions: Mutex::new(BTreeSet::new()),
            activity: Mutex::new(Activity {
                in_flight: 0,
                last: Instant::now(),
            }),
            deleted: Notify::new(),
            exchanges: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// A tape scope for one exchange without a session; no session id can equal it (those
    /// hold no spaces).
    pub(super) fn exchange_scope(&self) -> String {
        let n = self
            .exchanges
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        format!("exchange {n}")
    }

    /// Masks every credential the proxy has seen (and anything shaped like one).
    pub(super) fn redact(&self, text: &str) -> String {
        match self.redactor.lock() {
            Ok(r) => r.text(text),
            Err(_) => crate::redact::MASK.to_string(),
        }
    }

    /// Secrets to mask from now on.
    pub(super) fn learn(&self, secrets: Vec<String>) {
        if let Ok(mut r) = self.redactor.lock() {
            for s in secrets {
                r.add(&s);
            }
        }
    }

    /// A note for the person (redacted; the same note once; at most [`MAX_NOTES`]).
    pub(super) fn note(&self, text: &str) {
        let text = self.redact(text);
        if let Ok(mut n) = self.notes.lock()
            && n.len() < MAX_NOTES
            && !n.contains(&text)
        {
            n.push(text);
        }
    }

    /// The upstream server answered with session `id`.
    pub(super) fn session_opened(&self, id: &str) {
        if let Ok(mut s) = self.sessions.lock() {
            s.insert(id.to_string());
        }
    }

    /// The client's DELETE of session `id` succeeded; true when no session is left open.
    pub(super) fn session_ended(&self, id: &str) {
        let last = match self.sessions.lock() {
            Ok(mut s) => s.remove(id) && s.is_empty(),
            Err(_) => false,
        };
        if last {
            self.deleted.notify_one();
        }
    }

    /// An exchange of the client's starts; it counts as in flight until the guard drops.
    pub(super) fn exchange(self: &Arc<Shared>) -> ExchangeGuard {
        if let Ok(mut a) = self.activity.lock() {
            a.in_flight += 1;
            a.last = Instant::now();
        }
        ExchangeGuard(self.clone())
    }

    /// How long until the proxy has been idle for `idle` (zero: it has).
    fn idle_left(&self, idle: Duration) -> Duration {
        match self.activity.lock() {
            Ok(a) if a.in_flight == 0 => (a.last + idle).saturating_duration_since(Instant::now()),
            _ => idle,
        }
    }
}

/// An exchange in flight (a POST until its answer is passed on whole, a DELETE).
pub(super) struct ExchangeGuard(Arc<Shared>);

impl Drop for ExchangeGuard {
    fn drop(&mut self) {
        if let Ok(mut a) = self.0.activity.lock() {
            a.in_flight = a.in_flight.saturating_sub(1);
            a.last = Instant::now();
        }
    }
}

/// What each exchange needs: where things go, and the shared state.
pub(super) struct Proxy {
    pub(super) client: reqwest::Client,
    /// The upstream MCP endpoint.
    pub(super) upstream: Url,
    /// The path of the MCP endpoint, the same on both sides.
    pub(super) path: String,
    pub(super) shared: Arc<Shared>,
}

/// A proxy bound to its address, the upstream server reached once: ready to serve.
pub struct HttpRecorder {
    listener: tokio::net::TcpListener,
    proxy: Arc<Proxy>,
    local: SocketAddr,
}

impl HttpRecorder {
    /// Checks the URLs, listens on `opts.listen` and makes sure the upstream server takes
    /// connections. Errors: a bad URL or an address that cannot be used (usage), an
    /// upstream server that cannot be reached (HTTP).
    pub async fn bind(opts: &HttpRecordOptions) -> Result<HttpRecorder, Error> {
        let upstream = Url::parse(&opts.url)
            .map_err(|e| usage(&format!("--url {:?} is not a URL: {e}", opts.url)))?;
        if !matches!(upstream.scheme(), "http" | "https") || upstream.host_str().is_none() {
            return Err(usage(&format!(
                "--url must be an http:// or https:// URL with a host, not {:?}",
                public_url(&upstream).0.as_str()
            )));
        }
        let shared = Arc::new(Shared::new());
        let (_, _, secrets) = public_url(&upstream);
        shared.learn(secrets);
        let listener = tokio::net::TcpListener::bind(&opts.listen)
            .await
            .map_err(|e| usage(&format!("cannot listen on {}: {e}", opts.listen)))?;
        let local = listener
            .local_addr()
            .map_err(|e| usage(&format!("cannot listen on {}: {e}", opts.listen)))?;
        reachable(&upstream).await.map_err(|reason| {
            Error::new(ErrorKind::Http {
                status: None,
                reason: shared.redact(&format!(
                    "cannot reach the upstream server {}: {reason}",
                    public_url(&upstream).0
                )),
            })
        })?;
        crate::transport::http::install_crypto();
        let client = reqwest::Client::builder()
            .connect_timeout(CONNECT)
            // The client sees redirects as the upstream server sent them.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| usage(&format!("cannot build an HTTP client: {e}")))?;
        let path = upstream.path().to_string();
        Ok(HttpRecorder {
            listener,
            proxy: Arc::new(Proxy {
                client,
                upstream,
                path,
                shared,
            }),
            local,
        })
    }

    /// The URL the client is to use (the address bound, the upstream's path).
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local, self.proxy.path)
    }

    /// The upstream URL without credentials, for messages.
    pub fn upstream(&self) -> String {
        self.proxy
            .shared
            .redact(public_url(&self.proxy.upstream).0.as_str())
    }

    /// Serves until the recording ends, then writes the draft.
    pub async fn run(self, opts: &HttpRecordOptions) -> Result<Recorded, Error> {
        let HttpRecorder {
            listener, proxy, ..
        } = self;
        let shared = proxy.shared.clone();
        let router = axum::Router::new()
            .fallback(super::forward::exchange)
            .with_state(proxy.clone());
        let stop = Arc::new(Notify::new());
        let stopped = stop.clone();
        let mut server = tokio::spawn(async move {
            axum::serve(listener, router)
                .with_graceful_shutdown(async move { stopped.notified().await })
                .await
        });
        let idle = async {
            match opts.idle {
                Some(idle) => loop {
                    let left = shared.idle_left(idle);
                    if left.is_zero() {
                        break;
                    }
                    tokio::time::sleep(left).await;
                },
                None => std::future::pending().await,
            }
        };
        let deleted = async {
            match opts.until {
                Until::Delete => shared.deleted.notified().await,
                Until::Signal => std::future::pending().await,
            }
        };
        let end = tokio::select! {
            _ = opts.interrupt.wait() => End::Signal,
            _ = deleted => End::Deleted,
            _ = idle => End::Idle,
            r = &mut server => {
                let why = match r {
                    Ok(Ok(())) => "it stopped".to_string(),
                    Ok(Err(e)) => e.to_string(),
                    Err(e) => e.to_string(),
                };
                shared.note(&format!("the proxy stopped serving: {why}"));
                End::Failed
            }
        };
        stop.notify_one();
        // Answers still streaming get a moment; then the connections are dropped.
        if end != End::Failed && tokio::time::timeout(DRAIN, &mut server).await.is_err() {
            server.abort();
        }
        shared.note(match end {
            End::Signal => "the recording ended on a signal",
            End::Deleted => "the recording ended when the client ended its session (DELETE)",
            End::Idle => "the recording ended: no request for the --idle time",
            End::Failed => "the recording ended because the proxy stopped",
        });
        write_draft(&proxy, &opts.output)
    }
}

/// The draft of what passed, written to `output`.
fn write_draft(proxy: &Proxy, output: &std::path::Path) -> Result<Recorded, Error> {
    let shared = &proxy.shared;
    let mut tape = shared
        .tape
        .lock()
        .map(|mut t| std::mem::take(&mut *t))
        .unwrap_or_default();
    redact_tape(shared, &mut tape);
    let (target, comments) = match shared.headers.lock() {
        Ok(seen) => draft_target(&proxy.upstream, &seen),
        Err(_) => draft_target(&proxy.upstream, &SeenHeaders::default()),
    };
    for (from_client, line) in &tape.not_json {
        let who = if *from_client { "client" } else { "server" };
        shared.note(&format!(
            "the {who} sent a message that is not JSON-RPC: {line}"
        ));
    }
    let notes = shared.notes.lock().map(|n| n.clone()).unwrap_or_default();
    // Without a draft, the notes say why (an upstream server that never answered, …).
    let draft = super::write_draft(&tape, target, &comments, output).map_err(|e| {
        let ErrorKind::Usage(why) = &e.kind else {
            return e;
        };
        let mut text = why.clone();
        for n in &notes {
            text.push_str(&format!("\n  note: {n}"));
        }
        usage(&text)
    })?;
    Ok(Recorded {
        draft,
        calls: tape.calls.len(),
        notes,
    })
}

/// Masks the credentials the proxy saw wherever the client or the server repeated them in
/// a message, so the draft cannot hold them.
fn redact_tape(shared: &Shared, tape: &mut Tape) {
    let Ok(r) = shared.redactor.lock() else {
        tape.calls.clear();
        return;
    };
    for call in &mut tape.calls {
        if let Some(p) = &mut call.params {
            r.value(p);
        }
        match &mut call.answer {
            Some(super::tape::Answer::Result(v)) => r.value(v),
            Some(super::tape::Answer::Error { message, .. }) => *message = r.text(message),
            None => {}
        }
    }
}

/// Whether the upstream server takes a TCP connection (resolved as the client would).
async fn reachable(url: &Url) -> Result<(), String> {
    let host = url.host_str().unwrap_or_default();
    let port = url.port_or_known_default().unwrap_or(80);
    let connect = async {
        let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.trim_matches(['[', ']']), port))
            .await
            .map_err(|e| format!("cannot resolve {host}: {e}"))?
            .collect();
        let mut last = format!("{host} has no address");
        for a in addrs {
            match tokio::net::TcpStream::connect(a).await {
                Ok(_) => return Ok(()),
                Err(e) => last = format!("{a}: {e}"),
            }
        }
        Err(last)
    };
    tokio::time::timeout(CONNECT, connect)
        .await
        .unwrap_or_else(|_| Err(format!("no connection within {}s", CONNECT.as_secs())))
}

fn usage(msg: &str) -> Error {
    Error::new(ErrorKind::Usage(msg.to_string()))
}
