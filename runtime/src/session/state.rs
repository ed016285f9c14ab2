//! The shared core of a session: its state under one lock, and the facts every part uses
//! (elapsed time, failures with context, violations, the transcript).

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde_json::Value;
use tokio::sync::{Notify, mpsc};

use super::Violation;
use super::answers::ServerRequest;
use super::behaviour::ClientBehaviour;
use super::config::SessionConfig;
use super::envelope::Envelope;
use super::inbox::Notification;
use super::pending::Pending;
use super::progress::ProgressState;
use crate::error::{Error, ErrorKind, LastMessage};
use crate::protocol::jsonrpc::RpcError;
use crate::transcript::{Direction, Entry, MessageKind, Transcript};
use crate::transport::http::HttpWire;
use crate::transport::stdio::{ForegroundReader, ProcessHandle, StdinWriter};

pub(super) struct State {
    pub(super) next_id: i64,
    pub(super) pending: Pending,
    // An ordered set: a handful of small integer keys, where SipHash would cost more
    // than the search.
    pub(super) cancelled: BTreeSet<i64>,
    pub(super) inbox: VecDeque<Notification>,
    /// Bytes of the notifications in the inbox.
    pub(super) inbox_bytes: usize,
    pub(super) violations: Vec<Violation>,
    pub(super) fatal: Option<ErrorKind>,
    pub(super) server_requests: Vec<ServerRequest>,
    pub(super) progress: HashMap<String, ProgressState>,
    pub(super) transcript: Transcript,
    pub(super) queued: HashMap<String, VecDeque<Result<Value, RpcError>>>,
    pub(super) eof: bool,
    /// Faults to inject on the answers to these request ids.
    pub(super) faults: HashMap<i64, super::fault::Fault>,
    /// Requests whose answer a fault took (dropped, or delayed past the end of its HTTP
    /// exchange): the exchange ending without it is the fault, not a failure of the server.
    pub(super) held: std::collections::HashSet<i64>,
}

pub(super) struct Inner {
    pub(super) started: Instant,
    pub(super) observer: Option<mpsc::UnboundedSender<Entry>>,
    pub(super) state: Mutex<State>,
    pub(super) inbox_changed: Notify,
    pub(super) writer: Option<StdinWriter>,
    pub(super) behaviour: Mutex<ClientBehaviour>,
    pub(super) envelope: Mutex<Option<Envelope>>,
    pub(super) handle: Option<ProcessHandle>,
    pub(super) http: Option<Arc<HttpWire>>,
    pub(super) negotiated: Mutex<Option<String>>,
    pub(super) request_headers: Mutex<HashMap<i64, Vec<(String, String)>>>,
    pub(super) strict: bool,
    /// See [`SessionConfig::tolerate_stray_lines`].
    pub(super) tolerate_stray_lines: bool,
    pub(super) max_inbox: usize,
    /// Most bytes of messages the session keeps waiting (see [`SessionConfig`]).
    pub(super) max_buffered_bytes: usize,
    pub(super) batching: Mutex<bool>,
    pub(super) max_message_bytes: usize,
    /// Most JSON values of one message (see [`SessionConfig`]).
    pub(super) max_message_values: usize,
    /// Held while an expired HTTP session is initialized again.
    pub(super) renewing: tokio::sync::Mutex<()>,
    /// Reads answers on the waiting thread (stdio on a one-thread runtime, when enabled).
    pub(super) foreground: Option<ForegroundReader>,
    /// When (nanoseconds after `started`) a foreground wait last let the runtime run its
    /// other tasks.
    pub(super) last_turn: std::sync::atomic::AtomicU64,
}

impl Inner {
    pub(super) fn new(
        config: &SessionConfig,
        handle: Option<ProcessHandle>,
        writer: Option<StdinWriter>,
        http: Option<Arc<HttpWire>>,
        max_message_bytes: usize,
        foreground: Option<ForegroundReader>,
    ) -> Arc<Inner> {
        // Blocking the thread is only right where the session's own tasks are the only
        // ones that could have run meanwhile: a runtime of one thread, the caller's.
        let one_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread);
        let foreground = foreground.filter(|_| config.foreground_reads && one_thread);
        Arc::new(Inner {
            started: Instant::now(),
            observer: config.observer.clone().map(|observer| {
                let (tx, mut rx) = mpsc::unbounded_channel::<Entry>();
                tokio::spawn(async move {
                    while let Some(entry) = rx.recv().await {
                        (observer.0)(&entry);
                    }
                });
                tx
            }),
            state: Mutex::new(State {
                next_id: 1,
                pending: Pending::default(),
                cancelled: BTreeSet::new(),
                inbox: VecDeque::new(),
                inbox_bytes: 0,
                violations: Vec::new(),
                fatal: None,
                server_requests: Vec::new(),
                progress: HashMap::new(),
                transcript: Transcript::new(config.transcript_limit)
                    .with_max_bytes(config.max_buffered_bytes / 4),
                queued: HashMap::new(),
                eof: false,
                faults: HashMap::new(),
                held: Default::default(),
            }),
            inbox_changed: Notify::new(),
            writer,
            behaviour: Mutex::new(config.behaviour.clone()),
            envelope: Mutex::new(None),
            handle,
            http,
            negotiated: Mutex::new(None),
            request_headers: Mutex::new(HashMap::new()),
            strict: config.strict,
            tolerate_stray_lines: config.tolerate_stray_lines,
            max_inbox: config.max_inbox,
            max_buffered_bytes: config.max_buffered_bytes,
            batching: Mutex::new(false),
            max_message_bytes,
            max_message_values: config.max_message_values,
            renewing: tokio::sync::Mutex::new(()),
            foreground,
            last_turn: std::sync::atomic::AtomicU64::new(0),
        })
    }

    pub(super) fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    pub(super) fn last_message(&self) -> Option<LastMessage> {
        let st = self.state.lock().ok()?;
        let (direction, kind, text) = st.transcript.last_text()?;
        Some(LastMessage::new(direction, kind, &text))
    }

    /// Wraps a failure with the session's context.
    #[cold]
    pub(super) fn error(&self, kind: ErrorKind) -> Error {
        let mut e = Error::new(kind);
        e.last_message = self.last_message();
        let Some(handle) = &self.handle else { return e };
        let dead =
            handle.exit_status().is_some() || matches!(e.kind, ErrorKind::ServerExited { .. });
        if dead {
            e.exit_status = handle.exit_description();
        }
        if dead
            || matches!(
                e.kind,
                ErrorKind::Handshake { .. } | ErrorKind::UnsupportedVersion { .. }
            )
        {
            e.stderr_tail = Some(handle.stderr_tail());
        }
        e
    }

    #[cold]
    pub(super) fn record_violation(&self, st: &mut State, kind: &ErrorKind, fatal: bool) {
        if st.violations.len() < 1000 {
            st.violations.push(Violation {
                code: kind.run_code(),
                message: kind.to_string(),
                at_ms: self.elapsed_ms(),
            });
        }
        if fatal && self.strict && st.fatal.is_none() {
            st.fatal = Some(kind.clone());
            for slot in st.pending.take_all() {
                let _ = slot.tx.send(Err(kind.clone()));
            }
            self.inbox_changed.notify_waiters();
        }
    }

    pub(super) fn push_transcript(
        &self,
        st: &mut State,
        direction: Direction,
        kind: MessageKind,
        method: Option<&str>,
        text: &[u8],
    ) {
        let at = self.started.elapsed();
        st.transcript.push(at, direction, kind, method, text);
        if let Some(observer) = &self.observer
            && let Some(entry) = st.transcript.last()
        {
            let _ = observer.send(entry);
        }
    }

    /// Drops request `id` from the requests awaiting an answer.
    pub(super) fn forget_pending(&self, id: i64) {
        self.state.lock().expect("state lock").pending.remove(id);
    }
}
