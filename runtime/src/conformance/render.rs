//! The terminal lines of `mcpr conformance`: each check with its verdict and specification
//! reference, grouped by protocol version, then a summary; and the JSON of the checks.

use super::{CheckResult, ConformanceOutcome, Verdict};
use mcpr_compiler::names::count;
use mcpr_compiler::style;

fn paint(text: &str, verdict: Verdict, color: bool) -> String {
    let look = match verdict {
        Verdict::Success => style::GREEN,
        Verdict::Failure => style::RED,
        Verdict::Warning => style::YELLOW,
        Verdict::Info => style::CYAN,
    };
    style::paint(color, look, text)
}

fn line(c: &CheckResult, color: bool) -> String {
    let word = format!("{:<7}", c.verdict.as_str());
    let mut s = format!(
        "  {} {:<34} {}  [{}]\n",
        paint(&word, c.verdict, color),
        c.check,
        c.flow,
        c.spec.join("; ")
    );
    if c.expected {
        s.push_str("          expected failure (baseline)\n");
    }
    if let Some(d) = &c.detail {
        for l in d.lines() {
            s.push_str(&format!("          {l}\n"));
        }
    }
    s
}

/// Every check by version, then the counts.
pub fn human(out: &ConformanceOutcome, color: bool) -> String {
    let mut s = String::new();
    for version in &out.versions {
        let era = match crate::protocol::version::era_of(version) {
            Some(crate::protocol::Era::Modern) => "stateless",
            _ => "initialize",
        };
        s.push_str(&format!("protocol {version} ({era})\n"));
        for c in out.checks.iter().filter(|c| &c.version == version) {
            s.push_str(&line(c, color));
        }
    }
    for e in &out.unused_baseline {
        s.push_str(&format!(
            "note: baseline entry `{e}` matched no check that ran\n"
        ));
    }
    let expected = out.checks.iter().filter(|c| c.expected).count();
    s.push_str(&format!(
        "conformance: {}, {}, {}, {} info{} over {}\n",
        count(out.count(Verdict::Success), "success"),
        count(out.count(Verdict::Failure), "failure"),
        count(out.count(Verdict::Warning), "warning"),
        out.count(Verdict::Info),
        if expected > 0 {
            format!(", {}", count(expected, "expected failure"))
        } else {
            String::new()
        },
        count(out.versions.len(), "protocol version")
    ));
    s
}

/// The checks as a JSON document: `{versions, checks, summary}`.
pub fn json(out: &ConformanceOutcome) -> serde_json::Value {
    serde_json::json!({
        "versions": out.versions,
        "checks": out.checks,
        "summary": {
            "success": out.count(Verdict::Success),
            "failure": out.count(Verdict::Failure),
            "warning": out.count(Verdict::Warning),
            "info": out.count(Verdict::Info),
            "expectedFailures": out.checks.iter().filter(|c| c.expected).count(),
        },
        "unusedBaseline": out.unused_baseline,
    })
}
