//! `mcpr fuzz`: every tool of a server called with inputs made from its `inputSchema`
//! ([`inputs`]), each call through the runtime's own client. A call must be answered within
//! its deadline with a result or a JSON-RPC error; a crash, a hang, or a protocol violation
//! (a malformed answer, `structuredContent` against the `outputSchema`) is a finding. A
//! finding ends its session (the next case starts a new one), its input is made as small
//! as it can be while it still fails the same way ([`shrink`]), and it is written as a
//! `.mcpr` regression test ([`regression`]).

pub mod inputs;
pub mod regression;
pub mod shrink;

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;

use crate::adhoc::AdhocOptions;
use crate::client::{CallOptions, Client};
use crate::error::{Error, ErrorKind};
use crate::interrupt::Interrupt;

/// Cases per tool when `--cases` is not given.
pub const DEFAULT_CASES: usize = 100;

/// What `mcpr fuzz` needs.
#[derive(Debug, Clone)]
pub struct FuzzOptions {
    /// The server (`-- CMD` or `--url`), its protocol and the deadline of each call.
    pub target: AdhocOptions,
    /// Only this tool.
    pub tool: Option<String>,
    /// Cases per tool.
    pub cases: usize,
    /// The seed of every input.
    pub seed: u64,
    /// Where regression tests go (not written when `None`).
    pub output: Option<PathBuf>,
    /// Most calls spent minimising one finding.
    pub shrink_calls: usize,
    /// Raised by a signal: the fuzzer stops after the call under way.
    pub interrupt: Interrupt,
}

/// How a call failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The run-time code (`MCP-EXIT-001`, `MCP-TIMEOUT-001`, `MCP-PROTOCOL-008`, …).
    pub code: crate::codes::RunCode,
    /// What happened.
    pub message: String,
}

/// One failing input.
#[derive(Debug, Clone)]
pub struct Finding {
    /// The tool.
    pub tool: String,
    /// The case's number (from 1) among the tool's cases.
    pub case: usize,
    /// The input as generated.
    pub input: inputs::Case,
    /// The smallest input found that fails the same way.
    pub minimal: Value,
    /// Whether `minimal` is allowed by the tool's `inputSchema`.
    pub minimal_valid: bool,
    /// How it failed.
    pub failure: Failure,
    /// Further cases of the same tool that failed with the same code.
    pub repeats: usize,
    /// The regression test written for it.
    pub file: Option<PathBuf>,
}

/// The cases of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSummary {
    /// The tool.
    pub name: String,
    /// Cases called.
    pub cases: usize,
    /// Cases answered with a result (`isError` included).
    pub results: usize,
    /// Cases answered with a JSON-RPC error.
    pub errors: usize,
    /// Cases that failed.
    pub failed: usize,
}

/// What a fuzzing session found.
#[derive(Debug, Clone)]
pub struct FuzzReport {
    /// The seed (print it: the same seed gives the same inputs).
    pub seed: u64,
    /// Each tool fuzzed.
    pub tools: Vec<ToolSummary>,
    /// The findings, by tool and case.
    pub findings: Vec<Finding>,
    /// True when a signal stopped the session early.
    pub interrupted: bool,
}

/// What one call did.
enum Verdict {
    Result,
    RpcError,
    Failed(Failure),
}

/// A session that is started again after a finding ended it.
pub(crate) struct Sessions<'a> {
    opts: &'a AdhocOptions,
    client: Option<Client>,
}

impl<'a> Sessions<'a> {
    pub(crate) fn new(opts: &'a AdhocOptions) -> Self {
        Sessions { opts, client: None }
    }

    async fn client(&mut self) -> Result<&Client, Error> {
        if self.client.is_none() {
            let config = crate::session::SessionConfig {
                behaviour: crate::init::behaviour(),
                ..self.opts.session_config()
            };
            self.client = Some(Client::connect_to(self.opts.target(), config).await?);
        }
        Ok(self.client.as_ref().expect("connected above"))
    }

    /// Ends the session (after a finding: the server may be gone or stuck).
    pub(crate) async fn reset(&mut self) {
        if let Some(c) = self.client.take() {
            c.close().await;
        }
    }

    /// Calls `tool`; a failure ends the session. `Err` only when no session can be had.
    async fn call(&mut self, tool: &str, arguments: &Value) -> Result<Verdict, Error> {
        let timeout = self.opts.timeout;
        let client = self.client().await?;
        let copts = CallOptions {
            timeout: Some(timeout),
            allow_error: true,
            ..CallOptions::default()
        };
        let verdict = match client.call_tool(tool, arguments.clone(), &copts).await {
            Ok(_) => Verdict::Result,
            Err(e) if e.rpc_error().is_some() => Verdict::RpcError,
            Err(e) if matches!(e.kind, ErrorKind::Usage(_)) => return Err(e),
            Err(e) => {
                let code = e.kind.run_code();
                let text = e.to_string();
                let first = text.lines().next().unwrap_or_default();
                let message = first
                    .strip_prefix(code.as_str())
                    .map(|m| m.trim_start_matches([':', ' ']))
                    .unwrap_or(first)
                    .to_string();
                Verdict::Failed(Failure { code, message })
            }
        };
        if matches!(verdict, Verdict::Failed(_)) {
            self.reset().await;
        }
        Ok(verdict)
    }

    /// How `tool` fails with `arguments`, if it does.
    pub(crate) async fn failure(
        &mut self,
        tool: &str,
        arguments: &Value,
    ) -> Result<Option<Failure>, Error> {
        Ok(match self.call(tool, arguments).await? {
            Verdict::Failed(f) => Some(f),
            _ => None,
        })
    }
}

/// Fuzzes every tool (or `opts.tool`); `progress` hears one line per tool and finding.
pub async fn fuzz(
    opts: &FuzzOptions,
    progress: &mut (dyn FnMut(&str) + Send),
) -> Result<FuzzReport, Error> {
    let mut sessions = Sessions::new(&opts.target);
    let mut tools = sessions.client().await?.list_tools().await?;
    tools.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
    if let Some(only) = &opts.tool {
        tools.retain(|t| t["name"].as_str() == Some(only.as_str()));
        if tools.is_empty() {
            sessions.reset().await;
            return Err(Error::new(ErrorKind::Usage(format!(
                "the server has no tool {only:?}"
            ))));
        }
    }
    let mut report = FuzzReport {
        seed: opts.seed,
        tools: Vec::new(),
        findings: Vec::new(),
        interrupted: false,
    };
    'tools: for tool in &tools {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let schema = tool.get("inputSchema");
        let mut rng = inputs::rng_for(opts.seed, name);
        let cases = inputs::cases(schema, opts.cases, &mut rng);
        let mut summary = ToolSummary {
            name: name.to_string(),
            cases: 0,
            results: 0,
            errors: 0,
            failed: 0,
        };
        let first = report.findings.len();
        for (i, case) in cases.iter().enumerate() {
            if opts.interrupt.raised().is_some() {
                report.interrupted = true;
                report.tools.push(summary);
                break 'tools;
            }
            summary.cases += 1;
            match sessions.call(name, &case.arguments).await? {
                Verdict::Result => summary.results += 1,
                Verdict::RpcError => summary.errors += 1,
                Verdict::Failed(failure) => {
                    summary.failed += 1;
                    let seen = report.findings[first..]
                        .iter_mut()
                        .find(|f| f.failure.code == failure.code);
                    if let Some(f) = seen {
                        f.repeats += 1;
                        continue;
                    }
                    progress(&format!(
                        "{name}: case {} ({} input{}) failed: {} {}; minimising",
                        i + 1,
                        case.kind.name(),
                        if case.what.is_empty() {
                            String::new()
                        } else {
                            format!(", {}", case.what)
                        },
                        failure.code,
                        failure.message
                    ));
                    let minimal = shrink::minimise(
                        &mut sessions,
                        name,
                        &case.arguments,
                        failure.code,
                        opts.shrink_calls,
                    )
                    .await?;
                    let minimal_valid = schema
                        .and_then(|s| jsonschema::validator_for(s).ok())
                        .is_none_or(|v| v.is_valid(&minimal));
                    report.findings.push(Finding {
                        tool: name.to_string(),
                        case: i + 1,
                        input: case.clone(),
                        minimal,
                        minimal_valid,
                        failure,
                        repeats: 0,
                        file: None,
                    });
                }
            }
        }
        progress(&format!(
            "{name}: {}, {}, {}, {} failed",
            mcpr_compiler::names::count(summary.cases, "case"),
            mcpr_compiler::names::count(summary.results, "result"),
            mcpr_compiler::names::count(summary.errors, "error"),
            summary.failed
        ));
        report.tools.push(summary);
    }
    sessions.reset().await;
    if let Some(dir) = &opts.output {
        for f in &mut report.findings {
            let path = regression::write(dir, &opts.target, opts.seed, f)
                .map_err(|e| Error::new(ErrorKind::Usage(e)))?;
            f.file = Some(path);
        }
    }
    Ok(report)
}

/// The deadline of each call, as the regression test's `Wait up to`.
pub fn deadline_ms(opts: &AdhocOptions) -> u64 {
    (opts.timeout.as_millis() as u64).clamp(1, 600_000)
}

/// A seed from the clock, for a session that names none.
pub fn fresh_seed() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO);
    (now.as_nanos() as u64) ^ u64::from(std::process::id()).rotate_left(32)
}
