//! Wording of the problems of codes 4xx: names, flows, dependencies.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        BadStepSettings { reason } => bad_step_settings(reason),
        IncompleteReference { reference } => incomplete_reference(reference),
        BadExtensions { reason } => bad_extensions(reason),
        BadClientBehavior { reason } => bad_client_behavior(reason),
        UnknownFlow {
            name,
            suggestion,
            library,
        } => unknown_flow(name, suggestion, library),
        RecursiveFlow { chain } => recursive_flow(chain),
        FlowTooLarge { flow, over } => flow_too_large(flow, over),
        DuplicateTestId {
            id,
            explicit,
            surface,
        } => duplicate_test_id(id, explicit, surface),
        UnknownDependency {
            id,
            suggestion,
            surface,
        } => unknown_dependency(id, suggestion, surface),
        DependencyCycle { chain, surface } => dependency_cycle(chain, surface),
        DependsOnSkipped { id, surface } => depends_on_skipped(id, surface),
        DepsNotDeclared { id, test, surface } => deps_not_declared(id, test, surface),
        UnknownServer {
            name,
            known,
            surface,
        } => unknown_server(name, known, surface),
        SingleTarget { kind } => single_target(kind),
        MissingFlowInput { flow, inputs } => missing_flow_input(flow, inputs),
        UnknownFlowInput {
            flow,
            inputs,
            declared,
        } => unknown_flow_input(flow, inputs, declared),
        OptionsForUndeclared { kind, name, known } => options_for_undeclared(kind, name, known),
        OptionsBeforeTarget => options_before_target(),
        UnknownFunction {
            name,
            suggestion,
            surface,
            modules,
        } => unknown_function(name, suggestion, surface, modules),
        UnknownLintRule { code, suggestion } => unknown_lint_rule(code, suggestion),
        MisplacedFault { phrase, step } => misplaced_fault(phrase, step),
        BadResultPath { path, reason } => bad_result_path(path, reason),
        NoTarget => no_target(),
        BadServerOption { key, reason } => bad_server_option(key, reason),
        NoTests => no_tests(),
        VariableSavedLater { name, line } => variable_saved_later(name, line),
        UnknownVariable {
            reference,
            flow,
            suggestion,
            surface,
        } => unknown_variable(reference, flow, suggestion, surface),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn bad_step_settings(reason: &str) -> Wording {
    w(
        Code::BadStepSettings,
        "not a step",
        format!("The block of `Run step with:` must be one step of the suite model: {reason}."),
        Some("write exactly one of `tool`, `request`, `set` or `native`, plus `assert`, `capture`, `export`, … as in a YAML suite (see `docs/ir.md`, Step)".into()),
    )
}

pub(super) fn incomplete_reference(reference: &str) -> Wording {
    let head = reference.split('.').next().unwrap_or(reference);
    w(
        Code::IncompleteReference,
        "incomplete reference",
        format!(
            "`${{{reference}}}` names no value: `{head}.` must be followed by a name, and every `.` by another one."
        ),
        Some(match head {
            "env" => "name the variable: `${env.API_TOKEN}`".to_string(),
            "row" => "name the column: `${row.email}`".to_string(),
            "deps" => "name the test and its export: `${deps.create-customer.id}`".to_string(),
            _ => "name the test and the value: `${state.create-customer.customerId}`".to_string(),
        }),
    )
}

pub(super) fn bad_extensions(reason: &str) -> Wording {
    w(
        Code::BadExtensions,
        "invalid extensions settings",
        format!("The `Extensions:` block does not fit the extensions settings: {reason}."),
        Some("use `functions`, `permissions` (environment, filesystem-read, network), `allowlist` and `unsafeLegacy`".into()),
    )
}

pub(super) fn bad_client_behavior(reason: &str) -> Wording {
    w(
        Code::BadClientBehavior,
        "invalid client behavior settings",
        format!("The `Client behavior:` block does not fit the client behaviour settings: {reason}."),
        Some("use `roots` (URIs, or `uri` and `name`), `sampling` (`model`, `text`), `elicitation` (`action`, `content`), `extensions` and `preparedAnswersOnly`".into()),
    )
}

pub(super) fn unknown_flow(
    name: &str,
    suggestion: &Option<String>,
    library: &Option<String>,
) -> Wording {
    let help = match (library, suggestion) {
        (Some(lib), _) => format!(
            "\"{name}\" is a flow of the standard library {lib}: add `Import flows from \"{lib}\"` to the file"
        ),
        (None, Some(s)) => format!("did you mean \"{s}\"?"),
        (None, None) => {
            "declare it with `Flow: \"name\"` or import the file that declares it".into()
        }
    };
    w(
        Code::UnknownFlow,
        "no flow with this name",
        format!("No flow named \"{name}\" is declared in this file or in the files it imports."),
        Some(help),
    )
}

pub(super) fn recursive_flow(chain: &[String]) -> Wording {
    w(
        Code::RecursiveFlow,
        "this call makes the flow recursive",
        format!(
            "Flows may not call themselves, directly or through other flows: {}.",
            chain.join(" → ")
        ),
        Some("remove the call that leads back, or move the shared steps into a third flow".into()),
    )
}

pub(super) fn flow_too_large(flow: &str, over: &FlowExcess) -> Wording {
    match over {
        FlowExcess::Depth { depth, limit } => w(
            Code::FlowTooLarge,
            format!("flow calls nested {depth} deep"),
            format!(
                "Flow \"{flow}\" calls flows nested {depth} deep with this call; flow calls may be nested at most {limit} deep. The call is not expanded."
            ),
            Some(
                "call the inner flows directly from the test instead of through a chain of flows"
                    .into(),
            ),
        ),
        FlowExcess::Statements { total, limit } => w(
            Code::FlowTooLarge,
            format!("the test would take in {total} statements"),
            format!(
                "With this call the test would take in {total} statements through flows; a test may take in at most {limit}. The call is not expanded."
            ),
            Some("split the test, or call the flows that repeat a large flow fewer times".into()),
        ),
        FlowExcess::Suite { limit } => w(
            Code::FlowTooLarge,
            format!("the suite would take in more than {limit} statements"),
            format!(
                "With this call the tests of the suite would take in more than {limit} statements through flows together. The call is not expanded."
            ),
            Some(
                "split the suite into several files, or make the flows its tests use smaller"
                    .into(),
            ),
        ),
    }
}

pub(super) fn duplicate_test_id(id: &str, explicit: &bool, surface: &Surface) -> Wording {
    w(
        Code::DuplicateTestId,
        format!("second test with id `{id}`"),
        if *explicit {
            format!(
                "Two tests have the id `{id}`; ids must be unique so dependencies, outputs and snapshots can tell them apart."
            )
        } else {
            format!(
                "Two tests get the id `{id}` (made from their names); ids must be unique so dependencies, outputs and snapshots can tell them apart."
            )
        },
        Some(match surface {
            Surface::Mcpr => "give one of the tests its own `Id:`".into(),
            Surface::Yaml => "give one of the tests its own `id:`".into(),
        }),
    )
}

pub(super) fn unknown_dependency(
    id: &str,
    suggestion: &Option<String>,
    surface: &Surface,
) -> Wording {
    w(
        Code::UnknownDependency,
        "no test with this id",
        match surface {
            Surface::Mcpr => format!(
                "No test has the id `{id}`. A test's id is its `Id:`, or its name in lower case with every run of other characters turned into `-`."
            ),
            Surface::Yaml => format!(
                "No test has the id `{id}`. A test's id is its `id`, or its `name` in lower case with every run of other characters turned into `-`."
            ),
        },
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => "name the id of a test of this file".into(),
        }),
    )
}

pub(super) fn dependency_cycle(chain: &[String], surface: &Surface) -> Wording {
    w(
        Code::DependencyCycle,
        "dependency cycle",
        format!(
            "These tests depend on each other in a circle, so none of them can run first: {}.",
            chain.join(" → ")
        ),
        Some(match surface {
            Surface::Mcpr => "remove one of the `Depends on:` entries of the cycle".into(),
            Surface::Yaml => "remove one of the `dependsOn` entries of the cycle".into(),
        }),
    )
}

pub(super) fn depends_on_skipped(id: &str, surface: &Surface) -> Wording {
    w(
        Code::DependsOnSkipped,
        "this test is skipped",
        match surface {
            Surface::Mcpr => format!(
                "The test `{id}` is marked `Skip`, so it never passes and this test is always blocked."
            ),
            Surface::Yaml => format!(
                "The test `{id}` has `skip` set, so it never passes and this test is always blocked."
            ),
        },
        Some(match surface {
            Surface::Mcpr => format!("remove `Skip` from `{id}`, or skip this test too"),
            Surface::Yaml => format!("remove `skip` from `{id}`, or skip this test too"),
        }),
    )
}

pub(super) fn deps_not_declared(id: &str, test: &str, surface: &Surface) -> Wording {
    w(
        Code::DepsNotDeclared,
        "not a dependency of this test",
        format!(
            "`${{deps.{id}.…}}` reads an output of `{id}`, but the test \"{test}\" does not depend on it, so the value is never there."
        ),
        Some(match surface {
            Surface::Mcpr => format!("add `Depends on: {id}` to the test"),
            Surface::Yaml => format!("add `{id}` to the test's `dependsOn`"),
        }),
    )
}

pub(super) fn unknown_server(name: &str, known: &[String], surface: &Surface) -> Wording {
    match surface {
        Surface::Mcpr => w(
            Code::UnknownServer,
            "no named server with this name",
            format!(
                "No `Named server \"{name}\"` is declared{}.",
                known_list(known)
            ),
            Some(format!(
                "declare it at the top of the file: `Named server \"{name}\": node server.js`"
            )),
        ),
        Surface::Yaml => w(
            Code::UnknownServer,
            "no named server with this name",
            format!("`servers` has no entry `{name}`{}.", known_list(known)),
            Some(format!(
                "add `{name}` to the suite's `servers`, or correct the name"
            )),
        ),
    }
}

pub(super) fn single_target(kind: &&'static str) -> Wording {
    w(
        Code::SingleTarget,
        format!("the only {kind}"),
        if *kind == "compare target" {
            "A parity run compares at least two servers, but the file declares one compare target."
                .to_string()
        } else {
            "A composition routes tests to at least two servers, but the file declares one named \
             server and no default server."
                .to_string()
        },
        Some(if *kind == "compare target" {
            "declare a second `Compare target`, or use `Server:` for a single server".into()
        } else {
            "declare a default `Server:` beside it, or a second `Named server`".into()
        }),
    )
}

pub(super) fn missing_flow_input(flow: &str, inputs: &[String]) -> Wording {
    w(
        Code::MissingFlowInput,
        format!("missing {}", quoted_list(inputs)),
        format!(
            "The flow \"{flow}\" requires {} but this call gives {}.",
            quoted_list(inputs),
            if inputs.len() == 1 {
                "no value for it"
            } else {
                "no values for them"
            }
        ),
        Some(format!(
            "add `{}: …` under `Use flow \"{flow}\" with:`",
            inputs[0]
        )),
    )
}

pub(super) fn unknown_flow_input(flow: &str, inputs: &[String], declared: &[String]) -> Wording {
    w(
        Code::UnknownFlowInput,
        format!("unknown {}", quoted_list(inputs)),
        format!(
            "The flow \"{flow}\" declares no input {}{}.",
            quoted_list(inputs),
            if declared.is_empty() {
                "; it takes no inputs".to_string()
            } else {
                format!("; its inputs are {}", quoted_list(declared))
            }
        ),
        Some("remove the value, or add the input to the flow's `Inputs:` line".into()),
    )
}

pub(super) fn options_for_undeclared(kind: &&'static str, name: &str, known: &[String]) -> Wording {
    w(
        Code::OptionsForUndeclared,
        format!("no {kind} with this name"),
        format!(
            "These options are for the {kind} \"{name}\", which is not declared before this line{}.",
            known_list(known)
        ),
        Some(format!(
            "declare the {kind} above the options, or correct the name"
        )),
    )
}

pub(super) fn options_before_target() -> Wording {
    w(
        Code::OptionsBeforeTarget,
        "no server declared yet",
        "`Server options:` apply to the server declared before them, and none is declared yet.",
        Some("put `Server: command` or `MCP URL: https://…` above the options".into()),
    )
}

pub(super) fn unknown_function(
    name: &str,
    suggestion: &Option<String>,
    surface: &Surface,
    modules: &[String],
) -> Wording {
    let text = match (modules, surface) {
        ([], Surface::Mcpr) => format!(
            "`{name}` is not a built-in utility function, and the file declares no `Functions:` module that could provide it."
        ),
        ([], Surface::Yaml) => format!(
            "`{name}` is not a built-in utility function, and the suite names no `extensions.functions` module that could provide it."
        ),
        ([one], _) => format!(
            "`{name}` is not a built-in utility function, and the module `{one}` does not export it."
        ),
        (many, _) => format!(
            "`{name}` is not a built-in utility function, and none of the modules {} exports it.",
            many.iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    w(
        Code::UnknownFunction,
        "unknown function",
        text,
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None if !modules.is_empty() => "export the function from the module, or use a built-in one (lowercase, uppercase, trim, join, replace, length, number, text, json, round, urlEncode, base64, hash)".into(),
            None => "use one of lowercase, uppercase, trim, join, replace, length, number, text, json, round, urlEncode, base64, hash".into(),
        }),
    )
}

pub(super) fn unknown_lint_rule(code: &str, suggestion: &Option<String>) -> Wording {
    let last = crate::lint_rules::RULES.last().map_or("MCP001", |r| r.code);
    w(
        Code::UnknownLintRule,
        "unknown lint rule",
        format!("`{code}` is not a lint rule, so it cannot be ignored."),
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`? (`mcpr lint --rules` lists every rule)"),
            None => format!("lint rules are MCP001 to {last}; `mcpr lint --rules` lists them"),
        }),
    )
}

pub(super) fn misplaced_fault(phrase: &str, step: &Option<String>) -> Wording {
    match step {
        Some(step) => w(
            Code::MisplacedFault,
            "no request to fault",
            format!(
                "`{phrase}` acts on one request and its answer, which only a tool call or a request step has (`Call tool`, `Send`, `Read resource`, `Get prompt`); the step before it is {step}."
            ),
            Some("put the fault below the step that sends the request to be faulted".into()),
        ),
        None => w(
            Code::MisplacedFault,
            "second fault",
            format!("`{phrase}` is a second fault on the same step; a step takes one fault."),
            Some("keep one fault on this step, and put the other below a step of its own".into()),
        ),
    }
}

pub(super) fn bad_result_path(path: &str, reason: &str) -> Wording {
    w(
        Code::BadResultPath,
        "malformed path",
        format!("The result path `{path}` cannot be evaluated: {reason}."),
        Some("write member names separated by dots and list indexes in brackets, e.g. `content[0].text`".into()),
    )
}

pub(super) fn no_target() -> Wording {
    w(
        Code::NoTarget,
        "no server declared",
        "The file has tests but declares no server to run them against.",
        Some("add `Server: node server.js` or `MCP URL: https://…` at the top of the file".into()),
    )
}

pub(super) fn bad_server_option(key: &str, reason: &str) -> Wording {
    w(
        Code::BadServerOption,
        format!("`{key}` {reason}"),
        format!("In a server options block, `{key}` {reason}."),
        Some("stdio servers take `cwd`, `env` and `inherit env`; HTTP servers take `headers`, `Token from` and `OAuth`".into()),
    )
}

pub(super) fn no_tests() -> Wording {
    w(
        Code::NoTests,
        "nothing to run",
        "The file declares no test and no flow.",
        Some("add a test: `Test: \"name\"` followed by an indented action".into()),
    )
}

pub(super) fn variable_saved_later(name: &str, line: &usize) -> Wording {
    w(
        Code::UnknownVariable,
        "read before it is saved",
        format!(
            "`{name}` gets its value from the statement on line {line}, which has not finished when this reference is read, so `${{{name}}}` has no value here."
        ),
        Some(format!(
            "move the line that saves `{name}` above this one, or give it a starting value under `Variables:`"
        )),
    )
}

pub(super) fn unknown_variable(
    reference: &str,
    flow: &Option<String>,
    suggestion: &Option<String>,
    surface: &Surface,
) -> Wording {
    match surface {
        Surface::Yaml => {
            let head = reference.split('.').next().unwrap_or(reference);
            let _ = flow;
            w(
                Code::UnknownVariable,
                "unknown variable",
                if head == "row" {
                    "`${row.…}` reads the current data row, but this test has no `forEach` and no `row` variable.".to_string()
                } else {
                    format!(
                        "No variable `{head}` is declared in this test: it is not in `variables`, and no step captures it or sets it."
                    )
                },
                Some(match suggestion {
                    Some(s) => format!("did you mean `${{{s}}}`?"),
                    None if head == "row" => {
                        "add `forEach` (rows, a data source or a file) to the test".to_string()
                    }
                    None => format!(
                        "add `{head}` to the test's `variables`, or capture it in an earlier step (`capture: {{{head}: $.…}}`)"
                    ),
                }),
            )
        }
        Surface::Mcpr => {
            let head = reference.split('.').next().unwrap_or(reference);
            let message = match flow {
                Some(f) => format!("The flow \"{f}\" reads `${{{reference}}}`, but `{head}` is not one of its inputs and the flow does not save it; a flow sees only its inputs, what it saves, and `env.`, `row.`, `deps.` and `state.` values."),
                None if head == "row" => "`${row.…}` reads the current data row, but this test does not iterate over data.".to_string(),
                None => format!("No variable `{head}` is declared in this test: it is not in `Variables:`, and no step saves or sets it."),
            };
            w(
                Code::UnknownVariable,
                "unknown variable",
                message,
                Some(match (suggestion, flow) {
                    (Some(s), _) => format!("did you mean `${{{s}}}`?"),
                    (None, Some(_)) => format!("add `{head}` to the flow's `Inputs:` and pass it with `Use flow … with:`"),
                    (None, None) if head == "row" => "add `For each row:` with a table, `For each row in \"file.csv\"` or `For each row from \"source\"` to the test".to_string(),
                    (None, None) => format!("declare it under `Variables:`, or save it with `Save \"path\" as \"{head}\"` before this line"),
                }),
            )
        }
    }
}
