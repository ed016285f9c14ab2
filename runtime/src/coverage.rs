//! Coverage of a run (`mcpr run --coverage`, `--min-coverage`, `Minimum coverage:`): which
//! of the tools, resources, resource templates and prompts each server advertises the run's
//! steps exercised — a tool called (`tools/call`), a resource read (`resources/read`; a
//! template counts when a URI read matches it), a prompt got (`prompts/get`).
//!
//! Steps record what they exercised ([`Exercised`], kept in each test's result); after the
//! suite, each server the tests used is listed once more ([`crate::surface::list`]) and
//! [`of_server`] compares the two. The shape in the JSON report is in docs/run-report.md.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::surface::Surface;

/// What one test's steps exercised, and on which of the suite's servers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exercised {
    /// The named server the test ran against (`None`: the suite's default server).
    pub server: Option<String>,
    /// Tools called.
    pub tools: Names,
    /// Resource URIs read.
    pub resources: Names,
    /// Prompts got.
    pub prompts: Names,
}

/// The names a test exercised of one kind: a sorted list without repeats. A test uses a
/// few, and every result keeps its own, so a list costs a fraction of a tree's node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names(Vec<String>);

impl Names {
    /// Whether `name` is among them.
    pub fn contains(&self, name: &str) -> bool {
        self.0.binary_search_by(|n| n.as_str().cmp(name)).is_ok()
    }

    /// The names, sorted.
    pub fn iter(&self) -> std::slice::Iter<'_, String> {
        self.0.iter()
    }
}

impl Extend<String> for Names {
    fn extend<I: IntoIterator<Item = String>>(&mut self, names: I) {
        for name in names {
            if let Err(at) = self.0.binary_search(&name) {
                self.0.insert(at, name);
            }
        }
    }
}

impl Exercised {
    /// Records a request that was sent: `tools/call`, `resources/read`, `prompts/get`
    /// (other methods exercise nothing this counts).
    pub fn record(&mut self, method: &str, params: Option<&Value>) {
        let member = |key: &str| {
            params
                .and_then(|p| p.get(key))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        match method {
            "tools/call" => self.tools.extend(member("name")),
            "resources/read" => self.resources.extend(member("uri")),
            "prompts/get" => self.prompts.extend(member("name")),
            _ => {}
        }
    }

    /// Adds what `other` exercised.
    pub fn merge(&mut self, other: &Exercised) {
        self.tools.extend(other.tools.iter().cloned());
        self.resources.extend(other.resources.iter().cloned());
        self.prompts.extend(other.prompts.iter().cloned());
    }
}

/// Coverage of one kind of definition.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KindCoverage {
    /// How many the server advertises.
    pub advertised: usize,
    /// How many of them the run exercised.
    pub exercised: usize,
    /// The advertised ones the run did not exercise (names, URIs, URI templates), sorted.
    pub missing: Vec<String>,
}

/// Coverage of one server of the suite.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCoverage {
    /// The suite's name for the server: `default`, or the name of a named server.
    pub target: String,
    /// The server's `serverInfo.name`.
    pub server: String,
    /// Tools.
    pub tools: KindCoverage,
    /// Resources.
    pub resources: KindCoverage,
    /// Resource templates.
    pub resource_templates: KindCoverage,
    /// Prompts.
    pub prompts: KindCoverage,
    /// Exercised definitions of every kind together.
    pub covered: usize,
    /// Advertised definitions of every kind together.
    pub total: usize,
    /// `covered / total` in percent (100 when the server advertises nothing).
    pub percent: f64,
}

/// Coverage of a suite's run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    /// Each server the tests used, the default one first, then named ones by name.
    pub servers: Vec<ServerCoverage>,
    /// Exercised definitions of every server together.
    pub covered: usize,
    /// Advertised definitions of every server together.
    pub total: usize,
    /// `covered / total` in percent, rounded to one decimal (100 when nothing is advertised).
    pub percent: f64,
    /// The minimum in percent (`--min-coverage`, `Minimum coverage:`), when one is set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// False when `percent` is under `minimum`.
    pub passed: bool,
    /// Servers that could not be listed after the run, with why (they count as nothing
    /// advertised).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unlisted: Vec<String>,
}

impl Coverage {
    /// Coverage over `servers`, checked against `minimum`.
    pub fn new(servers: Vec<ServerCoverage>, minimum: Option<f64>, unlisted: Vec<String>) -> Self {
        let covered = servers.iter().map(|s| s.covered).sum();
        let total = servers.iter().map(|s| s.total).sum();
        let percent = percent(covered, total);
        Coverage {
            servers,
            covered,
            total,
            percent,
            minimum,
            passed: minimum.is_none_or(|m| percent + 1e-9 >= m),
            unlisted,
        }
    }

    /// Why the run fails its minimum (`None` when it does not): the percentage, the minimum
    /// and what was not exercised.
    pub fn shortfall(&self) -> Option<String> {
        if self.passed {
            return None;
        }
        let mut out = format!(
            "{}: coverage {}% is under the minimum of {}% ({} of {} definitions exercised); not exercised:",
            crate::codes::RunCode::CoverageBelowMinimum,
            shown(self.percent),
            shown(self.minimum.unwrap_or_default()),
            self.covered,
            self.total
        );
        for s in &self.servers {
            for (noun, k) in s.kinds() {
                if !k.missing.is_empty() {
                    out.push_str(&format!(
                        "\n  {} {noun}: {}",
                        s.target,
                        k.missing.join(", ")
                    ));
                }
            }
        }
        Some(out)
    }
}

impl ServerCoverage {
    /// The four kinds with their plural nouns, in report order.
    pub fn kinds(&self) -> [(&'static str, &KindCoverage); 4] {
        [
            ("tools", &self.tools),
            ("resources", &self.resources),
            ("resource templates", &self.resource_templates),
            ("prompts", &self.prompts),
        ]
    }
}

/// The coverage of shards of one run (`mcpr report merge`): a definition is exercised when
/// any shard exercised it (missing from all); the first shard's minimum is checked again.
/// `None` when no shard measured coverage.
pub fn merge<'c>(parts: impl Iterator<Item = &'c Coverage>) -> Option<Coverage> {
    let parts: Vec<&Coverage> = parts.collect();
    let first = parts.first()?;
    let both = |a: &KindCoverage, b: &KindCoverage| KindCoverage {
        advertised: a.advertised,
        exercised: a.advertised - a.missing.iter().filter(|m| b.missing.contains(m)).count(),
        missing: a
            .missing
            .iter()
            .filter(|m| b.missing.contains(m))
            .cloned()
            .collect(),
    };
    let mut servers: Vec<ServerCoverage> = first.servers.clone();
    for part in &parts[1..] {
        for s in &mut servers {
            if let Some(o) = part.servers.iter().find(|o| o.target == s.target) {
                s.tools = both(&s.tools, &o.tools);
                s.resources = both(&s.resources, &o.resources);
                s.resource_templates = both(&s.resource_templates, &o.resource_templates);
                s.prompts = both(&s.prompts, &o.prompts);
            }
        }
    }
    for s in &mut servers {
        s.covered = s.kinds().iter().map(|(_, k)| k.exercised).sum();
        s.percent = percent(s.covered, s.total);
    }
    let mut unlisted: Vec<String> = parts.iter().flat_map(|p| p.unlisted.clone()).collect();
    unlisted.sort();
    unlisted.dedup();
    Some(Coverage::new(servers, first.minimum, unlisted))
}

/// A percentage as printed: one decimal, without a trailing `.0`.
pub fn shown(p: f64) -> String {
    let text = format!("{p:.1}");
    text.strip_suffix(".0").map(str::to_string).unwrap_or(text)
}

fn percent(covered: usize, total: usize) -> f64 {
    if total == 0 {
        return 100.0;
    }
    (covered as f64 * 1000.0 / total as f64).round() / 10.0
}

/// The coverage of one server: what it advertises against what the run exercised.
pub fn of_server(target: &str, surface: &Surface, exercised: &Exercised) -> ServerCoverage {
    let names = |items: &[Value], key: &str| -> BTreeSet<String> {
        items
            .iter()
            .filter_map(|i| i.get(key).and_then(Value::as_str).map(str::to_string))
            .collect()
    };
    let kind = |advertised: BTreeSet<String>, hit: &dyn Fn(&str) -> bool| {
        let missing: Vec<String> = advertised.iter().filter(|a| !hit(a)).cloned().collect();
        KindCoverage {
            advertised: advertised.len(),
            exercised: advertised.len() - missing.len(),
            missing,
        }
    };
    let tools = kind(names(&surface.tools, "name"), &|n| {
        exercised.tools.contains(n)
    });
    let resources = kind(names(&surface.resources, "uri"), &|u| {
        exercised.resources.contains(u)
    });
    let resource_templates = kind(names(&surface.resource_templates, "uriTemplate"), &|t| {
        exercised.resources.iter().any(|u| template_matches(t, u))
    });
    let prompts = kind(names(&surface.prompts, "name"), &|n| {
        exercised.prompts.contains(n)
    });
    let kinds = [&tools, &resources, &resource_templates, &prompts];
    let covered = kinds.iter().map(|k| k.exercised).sum();
    let total = kinds.iter().map(|k| k.advertised).sum();
    ServerCoverage {
        target: target.to_string(),
        server: surface.server.clone(),
        tools,
        resources,
        resource_templates,
        prompts,
        covered,
        total,
        percent: percent(covered, total),
    }
}

/// Whether `uri` is one of the URIs the RFC 6570 template `template` expands to: its
/// literal text in order, each `{…}` expression standing for any text (a template that is
/// not well formed matches nothing).
pub fn template_matches(template: &str, uri: &str) -> bool {
    let mut pattern = String::from("^");
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            return false;
        };
        pattern.push_str(&regex::escape(&rest[..open]));
        pattern.push_str(".*?");
        rest = &rest[open + close + 1..];
    }
    if rest.contains('}') {
        return false;
    }
    pattern.push_str(&regex::escape(rest));
    pattern.push('$');
    regex::Regex::new(&pattern).is_ok_and(|r| r.is_match(uri))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_stay_sorted_without_repeats() {
        let mut names = Names::default();
        names.extend(["echo", "add", "echo", "zeta", "add"].map(String::from));
        assert_eq!(names.iter().collect::<Vec<_>>(), ["add", "echo", "zeta"]);
        assert!(names.contains("echo") && !names.contains("ech"));
    }

    #[test]
    fn advertised_against_exercised() {
        let surface = Surface {
            server: "s".into(),
            tools: vec![json!({"name": "add"}), json!({"name": "echo"})],
            resources: vec![json!({"uri": "fixture://status"})],
            resource_templates: vec![json!({"uriTemplate": "fixture://items/{id}"})],
            prompts: vec![json!({"name": "greet"})],
        };
        let mut ex = Exercised::default();
        ex.record("tools/call", Some(&json!({"name": "add"})));
        ex.record("tools/call", Some(&json!({"name": "not-listed"})));
        ex.record("resources/read", Some(&json!({"uri": "fixture://items/7"})));
        ex.record("tools/list", None);
        let c = of_server("default", &surface, &ex);
        assert_eq!((c.covered, c.total, c.percent), (2, 5, 40.0));
        assert_eq!(c.tools.missing, ["echo"]);
        assert_eq!(c.resources.missing, ["fixture://status"]);
        assert!(c.resource_templates.missing.is_empty());
        let run = Coverage::new(vec![c], Some(50.0), Vec::new());
        assert!(!run.passed);
        let why = run.shortfall().unwrap();
        assert!(
            why.starts_with("MCP-COVERAGE-001: coverage 40% is under the minimum of 50% (2 of 5 definitions exercised); not exercised:\n  default tools: echo\n"),
            "{why}"
        );
        assert!(Coverage::new(Vec::new(), Some(100.0), Vec::new()).passed);
        assert_eq!(shown(66.7), "66.7");
    }

    #[test]
    fn shards_merge_what_any_of_them_exercised() {
        let surface = Surface {
            server: "s".into(),
            tools: vec![
                json!({"name": "a"}),
                json!({"name": "b"}),
                json!({"name": "c"}),
            ],
            ..Surface::default()
        };
        let shard = |tool: &str| {
            let mut ex = Exercised::default();
            ex.record("tools/call", Some(&json!({ "name": tool })));
            Coverage::new(
                vec![of_server("default", &surface, &ex)],
                Some(60.0),
                Vec::new(),
            )
        };
        let (one, two) = (shard("a"), shard("b"));
        assert!(!one.passed && !two.passed);
        let merged = merge([&one, &two].into_iter()).unwrap();
        assert_eq!((merged.covered, merged.total), (2, 3));
        assert_eq!(merged.servers[0].tools.missing, ["c"]);
        assert!(merged.passed);
        assert!(merge(std::iter::empty()).is_none());
    }

    #[test]
    fn templates_match_their_expansions() {
        assert!(template_matches(
            "fixture://items/{id}",
            "fixture://items/7"
        ));
        assert!(template_matches("a://{x}/b{?q}", "a://1/b?q=2"));
        assert!(!template_matches(
            "fixture://items/{id}",
            "fixture://other/7"
        ));
        assert!(!template_matches(
            "fixture://items/{id",
            "fixture://items/7"
        ));
    }
}
