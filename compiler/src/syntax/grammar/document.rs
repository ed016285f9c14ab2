//! Rules of the document level (header, server, settings, imports, block headers) and of
//! the properties of tests and flows.

use super::super::token::Tok;
use super::super::tree::*;
use super::atoms::*;
use super::{Extra, Lab, P};
use crate::source::Span;
use chumsky::label::LabelError;
use chumsky::prelude::*;

pub(crate) fn suite<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("suite")
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|name| Stmt::Suite { name })
        .boxed()
}

pub(crate) fn server<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("server")
        .ignore_then(colon())
        .ignore_then(rest(src))
        .map(|command| Stmt::Server { command })
        .boxed()
}

pub(crate) fn server_from_command_line<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("server from the command line")
        .then_ignore(end())
        .to(Stmt::ServerFromCommandLine)
        .boxed()
}

pub(crate) fn server_options<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("server options")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::ServerOptions)
        .boxed()
}

pub(crate) fn server_options_for<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("server options for")
        .ignore_then(quoted())
        .then_ignore(colon())
        .then_ignore(end())
        .map(|name| Stmt::ServerOptionsFor { name })
        .boxed()
}

pub(crate) fn mcp_url<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["mcp url", "connect to"])
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|url| Stmt::McpUrl { url })
        .boxed()
}

pub(crate) fn named_server<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrase("named server")
        .ignore_then(quoted())
        .then_ignore(colon())
        .then(rest(src))
        .map(|(name, connection)| Stmt::NamedServer { name, connection })
        .boxed()
}

pub(crate) fn compare_target<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["compare target", "parity target"])
        .ignore_then(quoted())
        .then_ignore(colon())
        .then(rest(src))
        .map(|(name, connection)| Stmt::CompareTarget { name, connection })
        .boxed()
}

pub(crate) fn target_options_for<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("target options for")
        .ignore_then(quoted())
        .then_ignore(colon())
        .then_ignore(end())
        .map(|name| Stmt::TargetOptionsFor { name })
        .boxed()
}

pub(crate) fn default_timeout<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("default timeout")
        .ignore_then(colon())
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::DefaultTimeout { duration })
        .boxed()
}

pub(crate) fn default_retries<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("default retries")
        .ignore_then(colon())
        .ignore_then(number())
        .then_ignore(end())
        .map(|count| Stmt::DefaultRetries { count })
        .boxed()
}

pub(crate) fn retries<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("retries")
        .ignore_then(colon())
        .ignore_then(number())
        .then_ignore(end())
        .map(|count| Stmt::Retries { count })
        .boxed()
}

pub(crate) fn shutdown_grace<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("shutdown grace")
        .ignore_then(colon())
        .ignore_then(duration())
        .then_ignore(end())
        .map(|duration| Stmt::ShutdownGrace { duration })
        .boxed()
}

pub(crate) fn session_setting<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("session")
        .ignore_then(colon())
        .ignore_then(choice((
            kw("shared").to(true),
            phrase("per test").to(false),
        )))
        .then_ignore(end())
        .map(|shared| Stmt::SessionSetting { shared })
        .boxed()
}

pub(crate) fn minimum_coverage<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let percent = select! { Tok::Word(w) = e => (w, e.span()) }
        .try_map(|(w, sp): (&str, SimpleSpan), _| {
            let digits = w.strip_suffix('%').unwrap_or(w);
            match digits.parse::<u32>() {
                Ok(n) if n <= 100 && !digits.starts_with('+') => Ok(n),
                _ => Err(LabelError::expected_found(
                    ["a whole percentage from 0% to 100%"],
                    None,
                    sp,
                )),
            }
        })
        .lab::<E>("a whole percentage from 0% to 100%");
    phrase("minimum coverage")
        .ignore_then(colon())
        .ignore_then(percent)
        .then_ignore(kw("percent").or_not())
        .then_ignore(end())
        .map(|percent| Stmt::MinimumCoverage { percent })
        .boxed()
}

pub(crate) fn budget<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    let percentile = select! { Tok::Word(w) = e => (w, e.span()) }
        .try_map(|(w, sp): (&str, SimpleSpan), _| {
            let body = w.strip_prefix('p').or_else(|| w.strip_prefix('P'));
            match body {
                Some(b) => Ok(make_number(b, Span::new(sp.start + 1, sp.end))),
                None => Err(LabelError::expected_found(
                    ["a percentile such as `p95`"],
                    None,
                    sp,
                )),
            }
        })
        .lab::<E>("a percentile such as `p95`");
    let window = kw("over").ignore_then(number()).then(word());
    kw("budget")
        .ignore_then(kw("for").ignore_then(quoted()).or_not())
        .then_ignore(colon())
        .then(percentile)
        .then(duration())
        .then(window.or_not())
        .then_ignore(end())
        .map(|(((test, percentile), max), window)| {
            let (window, window_unit) = match window {
                Some((n, u)) => (Some(n), Some(u)),
                None => (None, None),
            };
            Stmt::Budget(Box::new(Budget {
                test,
                percentile,
                max,
                window,
                window_unit,
            }))
        })
        .boxed()
}

pub(crate) fn redact<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["redact"], |items| Stmt::Redact { items })
}

pub(crate) fn snapshots<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("snapshots")
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|file| Stmt::Snapshots { file })
        .boxed()
}

pub(crate) fn ignore_snapshot_paths<'a, 's: 'a, E: Extra<'a, 's>>(
    src: &'s str,
) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["ignore snapshot paths"], |paths| {
        Stmt::IgnoreSnapshotPaths { paths }
    })
}

pub(crate) fn client_behavior<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrases(&["client behavior", "client behaviour"])
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::ClientBehavior)
        .boxed()
}

pub(crate) fn extensions<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("extensions")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::Extensions)
        .boxed()
}

pub(crate) fn functions<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["functions", "custom functions"], |paths| {
        Stmt::Functions { paths }
    })
}

pub(crate) fn import_flows<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("import flows from")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|path| Stmt::ImportFlows { path })
        .boxed()
}

pub(crate) fn flow_header<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("flow")
        .ignore_then(colon())
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|name| Stmt::FlowHeader { name })
        .boxed()
}

pub(crate) fn data_source_header<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("data source")
        .ignore_then(colon())
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|name| Stmt::DataSourceHeader { name })
        .boxed()
}

pub(crate) fn test_header<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["test", "scenario"])
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|name| Stmt::TestHeader { name })
        .boxed()
}

pub(crate) fn inputs<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("inputs")
        .ignore_then(colon())
        .ignore_then(rest(src))
        .map(|t| {
            let inputs = split_list_raw(&t)
                .into_iter()
                .map(|item| match item.value.find('=') {
                    Some(eq) => {
                        let base = item.span.start as usize;
                        let name = item.value[..eq].trim_end();
                        let dflt = item.value[eq + 1..].trim_start();
                        let dstart = item.span.end as usize - dflt.len();
                        FlowInput {
                            name: Text::raw(name, Span::new(base, base + name.len())),
                            default: Some(Text::raw(
                                dflt,
                                Span::new(dstart, item.span.end as usize),
                            )),
                        }
                    }
                    None => FlowInput {
                        name: item,
                        default: None,
                    },
                })
                .collect();
            Stmt::Inputs { inputs }
        })
        .boxed()
}

pub(crate) fn outputs<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("outputs")
        .ignore_then(colon())
        .ignore_then(rest(src).or_not())
        .map(|value| Stmt::Outputs { value })
        .boxed()
}

pub(crate) fn id<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&["id", "test id"])
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|id| Stmt::Id { id })
        .boxed()
}

pub(crate) fn on_server<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("on server")
        .ignore_then(quoted())
        .then_ignore(end())
        .map(|name| Stmt::OnServer { name })
        .boxed()
}

pub(crate) fn skip<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    kw("skip")
        .ignore_then(colon().ignore_then(unquoted_rest(src).or_not()).or_not())
        .then_ignore(end())
        .map(|r| Stmt::Skip {
            reason: r.flatten(),
        })
        .boxed()
}

pub(crate) fn continue_on_failure<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("continue on failure")
        .then_ignore(end())
        .to(Stmt::ContinueOnFailure)
        .boxed()
}

pub(crate) fn isolated_session<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("isolated session")
        .then_ignore(end())
        .to(Stmt::IsolatedSession)
        .boxed()
}

pub(crate) fn logical_name<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrase("logical name")
        .ignore_then(colon())
        .ignore_then(unquoted_rest(src))
        .map(|name| Stmt::LogicalName { name })
        .boxed()
}

pub(crate) fn data_row<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    phrase("data row")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::DataRow)
        .boxed()
}

pub(crate) fn variables<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    kw("variables")
        .ignore_then(colon())
        .then_ignore(end())
        .to(Stmt::Variables)
        .boxed()
}

pub(crate) fn require<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    phrases(&[
        "require",
        "given the server supports",
        "given server supports",
    ])
    .ignore_then(colon())
    .ignore_then(rest(src))
    .map(|t| Stmt::Require {
        capabilities: split_list(&t),
    })
    .boxed()
}

pub(crate) fn require_protocol<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["require protocol"], |versions| {
        Stmt::RequireProtocol { versions }
    })
}

pub(crate) fn depends_on<'a, 's: 'a, E: Extra<'a, 's>>(src: &'s str) -> P<'a, 's, Stmt, E> {
    list_setting(src, &["depends on", "after"], |ids| Stmt::DependsOn { ids })
}

pub(crate) fn section<'a, 's: 'a, E: Extra<'a, 's>>() -> P<'a, 's, Stmt, E> {
    choice((
        kw("setup").to(Stmt::Setup),
        choice((kw("steps"), kw("step"), kw("actions"), kw("action"))).to(Stmt::Steps),
        kw("cleanup").to(Stmt::Cleanup),
    ))
    .then_ignore(colon())
    .then_ignore(end())
    .boxed()
}
