//! The body of a test or flow: sections, actions and the steps they become.

use super::*;

/// The step name for quoted subjects: `Call tool “add”`.
pub(super) fn named(verb: &str, subject: &str) -> String {
    let mut s = String::with_capacity(verb.len() + subject.len() + 7);
    s.push_str(verb);
    s.push_str(" \u{201c}");
    s.push_str(subject);
    s.push('\u{201d}');
    s
}

/// `“subject”`: a quoted subject inside a step name.
fn named_subject(subject: &str) -> String {
    format!("\u{201c}{subject}\u{201d}")
}

/// A step made by an action line: its kind, its name and its `always`.
type Action = (StepKind, String, Option<bool>);

/// A body being walked: its statements (`None`: the test's own, held apart since their
/// blocks may be taken), the next one, its scope, and for a flow's body the phase to restore
/// when it ends (section markers inside a flow change phases only inside it).
struct Walk<'n, 'f> {
    nodes: Option<&'n [Node]>,
    next: usize,
    scope: Scope<'f>,
    phase: Option<Phase>,
}

/// Walks a test's body (`own`: its statements, and whether nothing reads their blocks once
/// the test is lowered, so that its steps take them instead of copying them), appending
/// steps. Each `Use flow` walks the flow's body in its place; the bodies being walked are
/// kept on a stack of their own, not the call stack.
pub fn body<'f>(
    l: &mut Lower<'_>,
    flows: &'f Flows<'_>,
    b: &mut TestBuilder,
    (own, give_up): (&mut [Node], bool),
    scope: &Scope<'f>,
    functions_declared: bool,
) {
    let mut walks = vec![Walk {
        nodes: None,
        next: 0,
        scope: scope.clone(),
        phase: None,
    }];
    while let Some(walk) = walks.last_mut() {
        let at = walk.next;
        let next = match walk.nodes {
            Some(nodes) => nodes.get(at).map(|n| (n, false)),
            None => own.get_mut(at).map(|n| (&*n, give_up)),
        };
        let Some((node, takes)) = next else {
            if let Some(phase) = walk.phase {
                b.phase = phase;
            }
            walks.pop();
            continue;
        };
        walk.next += 1;
        let scope = &walk.scope;
        let file = scope.file;
        collect_deps_refs(l, b, node, file);
        // A `Use flow` line's block is read by the flow's inputs, in place.
        let mut block = if takes && !matches!(node.stmt, Stmt::UseFlow { .. }) {
            let taken = own[at].yaml.as_mut().and_then(|y| y.value.take());
            Block::taken(&own[at], taken)
        } else {
            Block::of(node)
        };
        let node = block.node();
        let phase = b.phase;
        match &node.stmt {
            Stmt::Setup | Stmt::Steps | Stmt::Cleanup => {
                b.phase = match node.stmt {
                    Stmt::Setup => Phase::Setup,
                    Stmt::Cleanup => Phase::Cleanup,
                    _ => Phase::Test,
                };
                b.current = None;
            }
            Stmt::SetUsing { .. } => set_using(l, b, &mut block, scope, functions_declared),
            Stmt::UseFlow { name, .. } => {
                if let Some((inner, nodes)) = flows::enter(l, flows, b, node, name, scope) {
                    walks.push(Walk {
                        nodes: Some(nodes),
                        next: 0,
                        scope: inner,
                        phase: Some(phase),
                    });
                }
            }
            Stmt::RunStep => run_step_block(l, b, &mut block, scope),
            // Expectations and modifiers attach to the current step.
            _ if node.stmt.decl_kind() == crate::syntax::DeclKind::Expectation
                || node.stmt.decl_kind() == crate::syntax::DeclKind::Modifier =>
            {
                if let Some(i) = b.current {
                    attach(l, b, i, &mut block, scope);
                }
            }
            Stmt::ExpectLintClean { ignoring, .. } if !ignoring.is_empty() => {
                unknown_lint_rules(l, ignoring, file);
                action_step(l, b, &mut block, scope, phase);
            }
            _ => action_step(l, b, &mut block, scope, phase),
        }
    }
}

/// `ignoring MCP0##, …` naming codes that are no lint rule.
fn unknown_lint_rules(l: &mut Lower<'_>, codes: &[Text], file: usize) {
    for code in codes {
        if crate::lint_rules::rule_of(&code.value).is_none() {
            l.report(
                Problem::UnknownLintRule {
                    code: code.value.clone(),
                    suggestion: closest(
                        &code.value.to_ascii_uppercase(),
                        crate::lint_rules::RULES.iter().map(|r| r.code),
                    ),
                },
                file,
                code.span,
            );
        }
    }
}

/// The step of an action line, appended to the body.
fn action_step(
    l: &mut Lower<'_>,
    b: &mut TestBuilder,
    block: &mut Block<'_>,
    scope: &Scope<'_>,
    phase: Phase,
) {
    let node = block.node();
    let cleanup = phase == Phase::Cleanup;
    let made =
        request_action(block, scope, cleanup).or_else(|| native_action(block, scope, cleanup));
    if let Some((kind, name, always)) = made {
        let mut s = Step::new(kind);
        s.name = Some(name);
        s.phase = Some(phase);
        s.always = always;
        s.source = Some(l.location(scope.file, node.span));
        s.flow = scope.frames.clone();
        b.current = Some(b.steps.len());
        b.steps.push(s);
    }
}

/// The statement's `with:` block with the scope's variable names.
fn scoped_block(block: &mut Block<'_>, scope: &Scope<'_>) -> Option<Map<String, Value>> {
    block.map().map(|m| scope.rename_map(m))
}

/// The step of a line that calls the server with a request: tools, resources, prompts and
/// `Send`.
fn request_action(block: &mut Block<'_>, scope: &Scope<'_>, cleanup: bool) -> Option<Action> {
    let node = block.node();
    let mut block = || scoped_block(block, scope);
    Some(match &node.stmt {
        Stmt::CallTool { name, .. } => (
            StepKind::Tool(ToolStep {
                arguments: block(),
                ..ToolStep::new(scope.rename_str(&name.value))
            }),
            named("Call tool", &name.value),
            Some(cleanup),
        ),
        Stmt::CallToolWithValues { name, values } => {
            let mut arguments = Map::new();
            let mut positional = Vec::new();
            // A malformed list was reported by the syntax checks.
            let values = crate::syntax::grammar::split_values(values).unwrap_or_default();
            for v in &values {
                let text = Value::String(scope.rename_str(&v.value.value));
                match &v.name {
                    Some(n) => {
                        arguments.insert(n.value.clone(), text);
                    }
                    None => positional.push(text),
                }
            }
            (
                StepKind::Tool(ToolStep {
                    arguments: (!arguments.is_empty()).then_some(arguments),
                    positional: (!positional.is_empty()).then_some(positional),
                    coerce: Some(true),
                    ..ToolStep::new(scope.rename_str(&name.value))
                }),
                named("Call tool", &name.value),
                Some(cleanup),
            )
        }
        Stmt::CallToolWithProgress {
            name, cancel_after, ..
        } => {
            let n = NativeStep::Request(ir::RequestAction {
                method: Some("tools/call".into()),
                params: Some(json!({
                    "name": scope.rename_str(&name.value),
                    "arguments": Value::Object(block().unwrap_or_default()),
                })),
                progress: Some(true),
                cancel_after_ms: cancel_after.as_ref().and_then(|d| d.ms),
                timeout_ms: None,
            });
            (
                StepKind::native(n),
                format!("{} with progress", named("Call tool", &name.value)),
                None,
            )
        }
        Stmt::ReadResource { uri } => (
            StepKind::Request(RequestStep {
                method: "resources/read".into(),
                params: Some(json!({ "uri": scope.rename_str(&uri.value) })),
            }),
            named("Read resource", &uri.value),
            Some(cleanup),
        ),
        Stmt::GetPrompt { name, .. } => (
            StepKind::Request(RequestStep {
                method: "prompts/get".into(),
                params: Some(json!({
                    "name": scope.rename_str(&name.value),
                    "arguments": Value::Object(block().unwrap_or_default()),
                })),
            }),
            named("Get prompt", &name.value),
            Some(cleanup),
        ),
        Stmt::Send { method, .. } => (
            StepKind::Request(RequestStep {
                method: method.value.clone(),
                params: block().map(Value::Object),
            }),
            format!("Send {}", method.value),
            Some(cleanup),
        ),
        _ => return None,
    })
}

/// The step of a line that becomes a native action: subscriptions, notifications, logging,
/// lists, tasks and the client's answers.
fn native_action(block: &mut Block<'_>, scope: &Scope<'_>, cleanup: bool) -> Option<Action> {
    let node = block.node();
    Some(match &node.stmt {
        Stmt::Subscribe { uri } => subscription(uri, true, scope, cleanup),
        Stmt::Unsubscribe { uri } => subscription(uri, false, scope, cleanup),
        Stmt::WaitForNotification {
            method,
            filter,
            within,
        } => wait_for_notification(method, filter, within.as_ref(), scope, cleanup),
        Stmt::SetLogLevel { level } => {
            let n = NativeStep::SetLogLevel(ir::LogLevelAction {
                level: Some(level.value.clone()),
                timeout_ms: None,
            });
            (
                StepKind::native(n),
                format!("Set log level to {}", level.value),
                None,
            )
        }
        Stmt::ExpectLintClean {
            including,
            ignoring,
        } => lint_clean(*including, ignoring),
        Stmt::ExpectToolsSnapshot {
            file,
            allow_compatible,
        } => tools_snapshot(file, *allow_compatible),
        Stmt::ListAll { what } => list_all(*what),
        Stmt::GetTask { task } => task_action(task, true, scope),
        Stmt::CancelTask { task } => task_action(task, false, scope),
        Stmt::Reconnect => (
            StepKind::native(NativeStep::new(NativeAction::Reconnect)),
            "Reconnect".into(),
            None,
        ),
        Stmt::ListTasks => (
            StepKind::native(NativeStep::new(NativeAction::TaskList)),
            "List tasks".into(),
            None,
        ),
        Stmt::RespondToElicitation { action, .. } => elicitation_answer(block, action, scope),
        Stmt::RespondToSampling { text } => sampling_answer(text, scope),
        _ => return None,
    })
}

/// `Subscribe to URI` (`sub`) or `Unsubscribe from URI`, which runs in cleanup when asked.
fn subscription(uri: &Text, sub: bool, scope: &Scope<'_>, cleanup: bool) -> Action {
    let members = ir::ResourceAction {
        uri: Some(scope.rename_str(&uri.value)),
        timeout_ms: None,
    };
    if sub {
        (
            StepKind::native(NativeStep::Subscribe(members)),
            named("Subscribe to", &uri.value),
            None,
        )
    } else {
        (
            StepKind::native(NativeStep::Unsubscribe(members)),
            named("Unsubscribe from", &uri.value),
            Some(cleanup),
        )
    }
}

/// `Wait for notification METHOD where "a.b" equals V … within D`: the params must hold
/// each V at its dot path; five seconds unless told.
fn wait_for_notification(
    method: &Text,
    filter: &[(Text, Text)],
    within: Option<&crate::syntax::Duration>,
    scope: &Scope<'_>,
    cleanup: bool,
) -> Action {
    let params = (!filter.is_empty()).then(|| {
        let mut m = Map::new();
        for (path, value) in filter {
            let mut v = if value.quoted {
                Value::String(value.value.clone())
            } else {
                values::typed(&value.value)
            };
            scope.rename_value(&mut v);
            m.insert(path.value.clone(), v);
        }
        Value::Object(m)
    });
    let mut name = named("Wait for notification", &method.value);
    for (i, (path, value)) in filter.iter().enumerate() {
        name.push_str(if i == 0 { " where " } else { " and " });
        name.push_str(&named_subject(&path.value));
        name.push_str(" equals ");
        name.push_str(&named_subject(&value.value));
    }
    let n = NativeStep::AwaitNotification(ir::AwaitNotificationAction {
        method: Some(method.value.clone()),
        params,
        timeout_ms: Some(within.and_then(|d| d.ms).unwrap_or(5000)),
    });
    (StepKind::native(n), name, Some(cleanup))
}

/// `Expect the server is lint clean [including …] [ignoring CODES]`.
fn lint_clean(including: Option<crate::syntax::LintLevel>, ignoring: &[Text]) -> Action {
    let a = ir::LintCleanAction {
        ignore: (!ignoring.is_empty()).then(|| {
            ignoring
                .iter()
                .map(|c| c.value.trim().to_ascii_uppercase())
                .collect()
        }),
        fail_on: including,
        timeout_ms: None,
    };
    let name = a.statement();
    (StepKind::native(NativeStep::LintClean(a)), name, None)
}

/// `Expect the tools match snapshot FILE [allowing compatible changes]`.
fn tools_snapshot(file: &Text, allow_compatible: bool) -> Action {
    let a = ir::ToolsSnapshotAction {
        file: Some(file.value.clone()),
        allow_compatible: allow_compatible.then_some(true),
        timeout_ms: None,
    };
    let name = a
        .statement()
        .unwrap_or_else(|| named("Expect the tools match snapshot", &file.value));
    (StepKind::native(NativeStep::ToolsSnapshot(a)), name, None)
}

/// `List all tools|resources|prompts|resource templates`: every page of the list.
fn list_all(what: ListKind) -> Action {
    let (method, field, noun) = match what {
        ListKind::Tools => ("tools/list", "tools", "tools"),
        ListKind::Resources => ("resources/list", "resources", "resources"),
        ListKind::Prompts => ("prompts/list", "prompts", "prompts"),
        ListKind::ResourceTemplates => (
            "resources/templates/list",
            "resourceTemplates",
            "resource templates",
        ),
    };
    let n = NativeStep::ListAll(ir::ListAllAction {
        method: Some(method.into()),
        params: None,
        field: Some(field.into()),
        timeout_ms: None,
    });
    (StepKind::native(n), format!("List all {noun}"), None)
}

/// `Get task ID` (`get`) or `Cancel task ID`.
fn task_action(task: &Text, get: bool, scope: &Scope<'_>) -> Action {
    let members = ir::TaskAction {
        params: None,
        task_id: Some(scope.rename_str(&task.value)),
        timeout_ms: None,
    };
    let (n, verb) = if get {
        (NativeStep::TaskGet(members), "Get task")
    } else {
        (NativeStep::TaskCancel(members), "Cancel task")
    };
    (StepKind::native(n), named(verb, &task.value), None)
}

/// `Respond to elicitation with ACTION` and its block: the client's scripted answer.
fn elicitation_answer(block: &mut Block<'_>, action: &Text, scope: &Scope<'_>) -> Action {
    let a = action.value.to_ascii_lowercase();
    let answer = ir::ScriptedElicitation {
        action: Some(a.clone()),
        content: scoped_block(block, scope).map(Value::Object),
    };
    let n = configure_client(ir::ClientBehavior {
        elicitation: Some(ir::ElicitationAnswer::Scripted(answer)),
        ..Default::default()
    });
    (
        StepKind::native(n),
        format!("Respond to elicitation with {a}"),
        None,
    )
}

/// `Respond to sampling with TEXT`: the client's scripted message.
fn sampling_answer(text: &Text, scope: &Scope<'_>) -> Action {
    let answer = ir::ScriptedSampling {
        model: Some("mcprigor-scripted".into()),
        text: Some(scope.rename_str(&text.value)),
        response: None,
    };
    let n = configure_client(ir::ClientBehavior {
        sampling: Some(ir::SamplingAnswer::Scripted(answer)),
        ..Default::default()
    });
    (
        StepKind::native(n),
        "Respond to sampling with a scripted message".into(),
        None,
    )
}

/// `Set "v" using "f" with:`: a `set` step, which no expectation attaches to.
fn set_using(
    l: &mut Lower<'_>,
    b: &mut TestBuilder,
    block: &mut Block<'_>,
    scope: &Scope<'_>,
    functions_declared: bool,
) {
    let node = block.node();
    let file = scope.file;
    let phase = b.phase;
    let cleanup = phase == Phase::Cleanup;
    let Stmt::SetUsing {
        variable, function, ..
    } = &node.stmt
    else {
        return;
    };
    let modules = l.functions;
    let name = function.value.as_str();
    let provided = functions_declared && modules.may_provide(name);
    if functions_declared && !BUILT_IN_FUNCTIONS.contains(&name) {
        // The call cannot be checked against a module that cannot be read (reported once:
        // the copies are merged when the diagnostics are sorted).
        l.diags.extend(modules.unreadable.iter().cloned());
    }
    if !provided && !BUILT_IN_FUNCTIONS.contains(&name) {
        let declared = modules.names.iter().flatten().map(String::as_str);
        l.report(
            Problem::UnknownFunction {
                name: function.value.clone(),
                suggestion: closest(name, BUILT_IN_FUNCTIONS.iter().copied().chain(declared)),
                surface: l.surface,
                modules: if functions_declared {
                    modules.modules.clone()
                } else {
                    Vec::new()
                },
            },
            file,
            function.span,
        );
    }
    let mut s = Step::new(StepKind::Set(SetStep {
        variable: variable.value.clone(),
        function: function.value.clone(),
        arguments: scoped_block(block, scope),
    }));
    s.name = Some(format!(
        "{} using {}",
        named("Set", &variable.value),
        function.value
    ));
    s.phase = Some(phase);
    s.always = Some(cleanup);
    s.source = Some(l.location(file, node.span));
    s.flow = scope.frames.clone();
    if scope.frames.is_empty() && file == l.entry {
        b.saves.push((
            variable.value.clone(),
            variable.span,
            b.flushed + b.steps.len(),
        ));
    }
    b.steps.push(s);
    b.current = None;
}

/// `Run step with:`: the block is a step of the suite model.
fn run_step_block(
    l: &mut Lower<'_>,
    b: &mut TestBuilder,
    block: &mut Block<'_>,
    scope: &Scope<'_>,
) {
    let node = block.node();
    let file = scope.file;
    let phase = b.phase;
    // Invalid YAML or a block that is no mapping was reported by the parser.
    if let Some(block) = scoped_block(block, scope) {
        match run_step(block, phase) {
            Ok(mut s) => {
                s.source = Some(l.location(file, node.span));
                s.flow = scope.frames.clone();
                if let StepKind::Set(set) = &s.kind
                    && scope.frames.is_empty()
                    && file == l.entry
                {
                    b.saves
                        .push((set.variable.clone(), node.span, b.flushed + b.steps.len()));
                }
                b.current = Some(b.steps.len());
                b.steps.push(s);
            }
            Err(reason) => {
                let at = block_first_line(l, file, node);
                l.report(Problem::BadStepSettings { reason }, file, at);
                b.current = None;
            }
        }
    }
}

/// The step of a `Run step with:` block: the suite model's step, in the current section's
/// phase unless the block names one (`phase: null` leaves it unset).
pub(super) fn run_step(block: Map<String, Value>, phase: Phase) -> Result<Step, String> {
    for reserved in ["source", "flow"] {
        if block.contains_key(reserved) {
            return Err(format!(
                "`{reserved}` is written by mcpr itself and cannot be set"
            ));
        }
    }
    let phase_given = block.contains_key("phase");
    let mut step: Step = serde_json::from_value(Value::Object(block)).map_err(|e| e.to_string())?;
    if !phase_given {
        step.phase = Some(phase);
    }
    Ok(step)
}

/// A `configure-client` step setting `behavior`.
pub(super) fn configure_client(behavior: ir::ClientBehavior) -> NativeStep {
    NativeStep::ConfigureClient(ir::ConfigureClientAction {
        behavior: Some(behavior),
        timeout_ms: None,
    })
}
