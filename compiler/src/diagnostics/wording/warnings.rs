//! Wording of the problems of codes 9xx: warnings.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        UnusedFlow { name } => unused_flow(name),
        UnusedDataSource { name } => unused_data_source(name),
        SlowPattern { group } => slow_pattern(group),
        FunctionModuleUnreadable { path, reason } => function_module_unreadable(path, reason),
        UnreadSavedVariable { name } => unread_saved_variable(name),
        UnreadVariable { name } => unread_variable(name),
        UnknownBudgetTest {
            name,
            suggestion,
            surface,
        } => unknown_budget_test(name, suggestion, surface),
        UnusedExport { name, test } => unused_export(name, test),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn unused_flow(name: &str) -> Wording {
    w(
        Code::UnusedFlow,
        "never used",
        format!("No test of this file uses the flow \"{name}\", directly or through another flow."),
        Some(
            "use it with `Use flow`, remove it, or move it into a file that other suites import"
                .into(),
        ),
    )
}

pub(super) fn unused_data_source(name: &str) -> Wording {
    w(
        Code::UnusedDataSource,
        "no test uses it",
        format!(
            "No test takes its rows from the data source \"{name}\", so neither `mcpr run` nor `mcpr check --data` loads it."
        ),
        Some(format!(
            "use it with `For each row from \"{name}\"`, or remove it"
        )),
    )
}

pub(super) fn slow_pattern(group: &str) -> Wording {
    w(
        Code::SlowPattern,
        "nested repetition",
        format!(
            "The group `{group}` repeats without bound something that itself repeats without bound: against a text that almost matches, the pattern can try exponentially many ways before it fails, and the step runs until its deadline."
        ),
        Some(
            "repeat the inner part once (`(a+)+` is `a+`), or bound one of the repetitions".into(),
        ),
    )
}

pub(super) fn function_module_unreadable(path: &str, reason: &str) -> Wording {
    w(
        Code::FunctionModuleUnreadable,
        "module cannot be read",
        format!(
            "The function module `{path}` cannot be read ({reason}), so the names of its functions are not checked; `mcpr run` stops with MCP-EXT-006 when a test calls one."
        ),
        Some("check the path: it is relative to the suite file's folder".into()),
    )
}

pub(super) fn unread_saved_variable(name: &str) -> Wording {
    w(
        Code::UnreadSavedVariable,
        "never read",
        format!("`{name}` is saved here but no later line of the test reads `${{{name}}}`."),
        Some("use the variable, or remove the line".into()),
    )
}

pub(super) fn unread_variable(name: &str) -> Wording {
    w(
        Code::UnreadVariable,
        "never read",
        format!("The variable `{name}` is declared but no line of the test reads `${{{name}}}`."),
        Some("use the variable, or remove the entry".into()),
    )
}

pub(super) fn unknown_budget_test(
    name: &str,
    suggestion: &Option<String>,
    surface: &Surface,
) -> Wording {
    w(
        Code::UnknownBudgetTest,
        "no test with this name",
        format!(
            "No test of this file is named \"{name}\", so this latency budget never measures anything."
        ),
        Some(match suggestion {
            Some(s) => format!("did you mean \"{s}\"?"),
            None if *surface == Surface::Yaml => {
                "name a test exactly as its `name` does, or write `test: \"*\"` for every test"
                    .into()
            }
            None => {
                "name a test exactly as its `Test:` line does, or write `Budget:` for every test"
                    .into()
            }
        }),
    )
}

pub(super) fn unused_export(name: &str, test: &str) -> Wording {
    w(
        Code::UnusedExport,
        "no test reads this output",
        format!(
            "No test reads `${{deps.{test}.{name}}}`, so this export only reaches state files."
        ),
        Some("remove the export, or read it from a test that depends on this one".into()),
    )
}
