//! A finding as a `.mcpr` regression test: the smallest failing input called once within
//! the fuzzing deadline. The suite is built as Suite IR and printed by the compiler's
//! printer, proven by compiling it again, so the file always passes `mcpr check`.

use std::path::{Path, PathBuf};

use mcpr_compiler::ir::{Assert, Status, Step, StepKind, Suite, Target, Test, ToolStep};

use super::Finding;
use crate::adhoc::AdhocOptions;

/// The suite of one finding; the expectation is an error when the input breaks the tool's
/// `inputSchema`, else a result (a tool whose right answer is an error for this input
/// needs `Expect an error` instead: the header says so).
pub fn text(target: &AdhocOptions, seed: u64, f: &Finding) -> Result<String, String> {
    let mut tool = ToolStep::new(f.tool.clone());
    tool.arguments = f.minimal.as_object().filter(|a| !a.is_empty()).cloned();
    if crate::values::mentions_template(&tool.arguments) {
        return Err(format!(
            "the input of {} holds `${{`, which a suite reads as a reference",
            f.tool
        ));
    }
    let mut step = Step::new(StepKind::Tool(tool));
    step.name = Some(format!("Call tool \u{201c}{}\u{201d}", f.tool));
    step.timeout_ms = Some(super::deadline_ms(target));
    step.assert = Some(Box::new(Assert {
        status: Some(if f.minimal_valid {
            Status::Success
        } else {
            Status::Error
        }),
        ..Assert::default()
    }));
    let name = format!(
        "{} answers the input of fuzz case {} (seed {seed})",
        f.tool, f.case
    );
    let server = match &target.url {
        Some(url) => Target::http(url.clone()),
        None => Target::stdio(target.command.clone(), target.args.clone()),
    };
    let mut suite = Suite::new(server, vec![Test::new(name, vec![step])]);
    suite.name = Some(format!("Fuzz regression: {}", f.tool));
    let printed = mcpr_compiler::fmt::to_mcpr_checked(&suite)?;
    let what = if f.input.what.is_empty() {
        String::new()
    } else {
        format!(" ({})", f.input.what)
    };
    let mut header = format!(
        "# Written by mcpr fuzz (seed {seed}, case {} of tool {}: a {} input{what}).\n# It failed with {}: {}\n",
        f.case,
        f.tool,
        f.input.kind.name(),
        f.failure.code,
        one_line(&f.failure.message),
    );
    header.push_str(if f.minimal_valid {
        "# The smallest failing input is allowed by the tool's inputSchema, so the test expects\n# a result; if an error is the right answer, write `Expect an error` instead.\n"
    } else {
        "# The smallest failing input breaks the tool's inputSchema: the test expects an error.\n"
    });
    if target.url.is_some() && !target.headers.is_empty() {
        header.push_str(
            "# The server's HTTP headers are not written: add them under `Server options:`.\n",
        );
    }
    Ok(match printed.split_once('\n') {
        Some((first, rest)) => format!("{first}\n{header}{rest}"),
        None => printed,
    })
}

fn one_line(s: &str) -> String {
    crate::error::shorten(&s.replace(['\n', '\r'], " "), 200)
}

/// Writes the regression test of `f` into `dir` (created if needed) as
/// `TOOL-SEED-CASE.mcpr`; the path written.
pub fn write(dir: &Path, target: &AdhocOptions, seed: u64, f: &Finding) -> Result<PathBuf, String> {
    let text = text(target, seed, f)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut slug = mcpr_compiler::names::slug(&f.tool);
    if slug.is_empty() {
        slug = "tool".into();
    }
    let path = dir.join(format!("{slug}-{seed}-{}.mcpr", f.case));
    crate::files::write_atomic(&path, text.as_bytes(), crate::files::Access::Shared)?;
    Ok(path)
}
