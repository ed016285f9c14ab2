//! The conversation with the editor: the handshake, the main loop, documents kept in step
//! with the editor's edits, diagnostics published after each change, and one handler per
//! request kind. A handler that panics answers its request with an internal error and the
//! server goes on.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::*;
use serde_json::Value;

use crate::analysis::Analysis;
use crate::index::Index;
use crate::open::Open;
use crate::store::{self, Store};
use crate::{complete, convert, edits, explain, navigate, outline};

/// How the server is set up.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The folder (or `http(s)://` address) of the diagnostic pages (`CODE.md`), linked from
    /// each diagnostic. The client may set it with the initialization option `docs`.
    pub docs: Option<String>,
}

impl Default for Settings {
    /// The `docs/diagnostics` folder of the source tree mcpr was built from, when it exists.
    fn default() -> Self {
        let built = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/diagnostics");
        let docs = std::fs::canonicalize(built)
            .ok()
            .map(|p| p.to_string_lossy().into_owned());
        Settings { docs }
    }
}

/// The state of the server.
pub(crate) struct State {
    pub store: Store,
    pub open: BTreeMap<String, Open>,
    pub settings: Settings,
}

/// What the server can do (the `initialize` answer).
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        position_encoding: Some(PositionEncodingKind::UTF16),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(["{", ".", "\""].iter().map(|s| s.to_string()).collect()),
            ..CompletionOptions::default()
        }),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
        document_formatting_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::SOURCE_FIX_ALL,
            ]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// Serves one client on `connection`: the handshake, then requests and notifications until
/// `shutdown` and `exit` (or the client goes away).
pub fn serve(connection: &Connection, mut settings: Settings) -> Result<(), String> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    let (id, init) = connection.initialize_start().map_err(|e| e.to_string())?;
    let result = serde_json::json!({
        "capabilities": caps,
        "serverInfo": { "name": "mcpr", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    if let Some(docs) = init
        .pointer("/initializationOptions/docs")
        .and_then(Value::as_str)
    {
        settings.docs = Some(docs.to_string());
    }
    let mut state = State {
        store: Store::default(),
        open: BTreeMap::new(),
        settings,
    };
    for msg in &connection.receiver {
        match msg {
            Message::Request(r) => {
                if connection.handle_shutdown(&r).map_err(|e| e.to_string())? {
                    return Ok(());
                }
                let id = r.id.clone();
                let answer =
                    catch_unwind(AssertUnwindSafe(|| state.request(r))).unwrap_or_else(|_| {
                        Err((
                            ErrorCode::InternalError,
                            "the request failed inside mcpr".into(),
                        ))
                    });
                let response = match answer {
                    Ok(v) => Response::new_ok(id, v),
                    Err((code, message)) => Response::new_err(id, code as i32, message),
                };
                send(connection, Message::Response(response));
            }
            Message::Notification(n) => {
                let out =
                    catch_unwind(AssertUnwindSafe(|| state.notification(n))).unwrap_or_default();
                for m in out {
                    send(connection, m);
                }
            }
            Message::Response(_) => {}
        }
    }
    Ok(())
}

fn send(connection: &Connection, msg: Message) {
    // A closed channel means the client is gone; the loop ends on its own.
    let _ = connection.sender.send(msg);
}

type Answer = Result<Value, (ErrorCode, String)>;

fn params<P: serde::de::DeserializeOwned>(r: Request) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(r.params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
}

fn json<T: serde::Serialize>(v: T) -> Answer {
    serde_json::to_value(v).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

impl State {
    fn request(&mut self, r: Request) -> Answer {
        match r.method.as_str() {
            req::HoverRequest::METHOD => {
                let p: HoverParams = params(r)?;
                json(self.at(&p.text_document_position_params, explain::hover))
            }
            req::Completion::METHOD => {
                let p: CompletionParams = params(r)?;
                json(
                    self.at(&p.text_document_position, complete::complete)
                        .map(CompletionResponse::Array),
                )
            }
            req::GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = params(r)?;
                json(
                    self.at(&p.text_document_position_params, navigate::definition)
                        .map(GotoDefinitionResponse::Scalar),
                )
            }
            req::References::METHOD => {
                let p: ReferenceParams = params(r)?;
                let decl = p.context.include_declaration;
                json(self.at(&p.text_document_position, |o, off| {
                    navigate::references(o, off, decl)
                }))
            }
            req::DocumentSymbolRequest::METHOD => {
                let p: DocumentSymbolParams = params(r)?;
                json(
                    self.doc(&p.text_document.uri)
                        .map(|o| DocumentSymbolResponse::Nested(outline::symbols(o))),
                )
            }
            req::FoldingRangeRequest::METHOD => {
                let p: FoldingRangeParams = params(r)?;
                json(self.doc(&p.text_document.uri).map(outline::folding))
            }
            req::Formatting::METHOD => {
                let p: DocumentFormattingParams = params(r)?;
                match self.doc(&p.text_document.uri) {
                    Some(o) => json(edits::format(o).map_err(|e| (ErrorCode::RequestFailed, e))?),
                    None => json(Value::Null),
                }
            }
            req::CodeActionRequest::METHOD => {
                let p: CodeActionParams = params(r)?;
                let docs = self.settings.docs.as_deref();
                let only = p.context.only.as_deref();
                json(
                    self.doc(&p.text_document.uri)
                        .map(|o| edits::actions(o, &p.text_document.uri, p.range, only, docs)),
                )
            }
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("mcpr lsp does not answer {}", r.method),
            )),
        }
    }

    /// The open document of a URI.
    fn doc(&self, uri: &Uri) -> Option<&Open> {
        self.open.get(&store::uri_to_path(uri)?)
    }

    /// Runs `f` on the document and byte offset of a position.
    fn at<T>(
        &self,
        p: &TextDocumentPositionParams,
        f: impl Fn(&Open, usize) -> Option<T>,
    ) -> Option<T> {
        let open = self.doc(&p.text_document.uri)?;
        let offset = convert::offset(open.analysis.entry(), p.position);
        f(open, offset)
    }

    /// Handles a notification; returns the messages to send (diagnostics).
    fn notification(&mut self, n: Notification) -> Vec<Message> {
        let changed = match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(p) =
                    n.extract::<DidOpenTextDocumentParams>(note::DidOpenTextDocument::METHOD)
                else {
                    return Vec::new();
                };
                let Some(path) = store::uri_to_path(&p.text_document.uri) else {
                    return Vec::new();
                };
                self.store
                    .open(path.clone(), p.text_document.text, p.text_document.version);
                path
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(p) =
                    n.extract::<DidChangeTextDocumentParams>(note::DidChangeTextDocument::METHOD)
                else {
                    return Vec::new();
                };
                let Some(path) = store::uri_to_path(&p.text_document.uri) else {
                    return Vec::new();
                };
                self.store
                    .change(&path, p.text_document.version, p.content_changes);
                path
            }
            note::DidSaveTextDocument::METHOD => {
                let Ok(p) =
                    n.extract::<DidSaveTextDocumentParams>(note::DidSaveTextDocument::METHOD)
                else {
                    return Vec::new();
                };
                let Some(path) = store::uri_to_path(&p.text_document.uri) else {
                    return Vec::new();
                };
                if let Some(text) = p.text {
                    let version = self.store.get(&path).map_or(0, |d| d.version);
                    self.store.open(path.clone(), text, version);
                }
                path
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(p) =
                    n.extract::<DidCloseTextDocumentParams>(note::DidCloseTextDocument::METHOD)
                else {
                    return Vec::new();
                };
                let Some(path) = store::uri_to_path(&p.text_document.uri) else {
                    return Vec::new();
                };
                self.store.close(&path);
                self.open.remove(&path);
                let mut out = self.recheck_importers(&path);
                out.extend(publish(&p.text_document.uri, Vec::new(), None));
                return out;
            }
            note::DidChangeWatchedFiles::METHOD => {
                let Ok(p) =
                    n.extract::<DidChangeWatchedFilesParams>(note::DidChangeWatchedFiles::METHOD)
                else {
                    return Vec::new();
                };
                let mut out = Vec::new();
                for c in p.changes {
                    if let Some(path) = store::uri_to_path(&c.uri) {
                        out.extend(self.recheck_importers(&path));
                    }
                }
                return out;
            }
            _ => return Vec::new(),
        };
        let mut out = self.recheck(&changed);
        out.extend(self.recheck_importers(&changed));
        out
    }

    /// Compiles an open document again and returns its diagnostics to publish.
    fn recheck(&mut self, path: &str) -> Vec<Message> {
        let Some(doc) = self.store.get(path) else {
            return Vec::new();
        };
        let version = doc.version;
        let analysis = Analysis::of(&self.store, path, &doc.text);
        let index = Index::of(&analysis);
        let Some(uri) = store::path_to_uri(path) else {
            return Vec::new();
        };
        let file = analysis.entry();
        let diags = analysis
            .diagnostics
            .iter()
            .filter(|d| d.file == 0)
            .map(|d| convert::diagnostic(d, file, &uri, self.settings.docs.as_deref()))
            .collect();
        self.open.insert(path.to_string(), Open { analysis, index });
        publish(&uri, diags, Some(version))
    }

    /// Compiles again every other open document that imports `path`.
    fn recheck_importers(&mut self, path: &str) -> Vec<Message> {
        let importers: Vec<String> = self
            .open
            .iter()
            .filter(|(p, o)| p.as_str() != path && o.analysis.imported_paths().any(|i| i == path))
            .map(|(p, _)| p.clone())
            .collect();
        importers.iter().flat_map(|p| self.recheck(p)).collect()
    }
}

fn publish(uri: &Uri, diagnostics: Vec<Diagnostic>, version: Option<i32>) -> Vec<Message> {
    let params = PublishDiagnosticsParams {
        uri: uri.clone(),
        diagnostics,
        version,
    };
    vec![Message::Notification(Notification::new(
        note::PublishDiagnostics::METHOD.to_string(),
        params,
    ))]
}
