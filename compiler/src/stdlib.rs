//! The standard flow library: the `.mcpr` files of the top-level `stdlib-flows/` folder,
//! embedded in the binary (so they are versioned with it) and imported as
//! `Import flows from "std:NAME"`. The compiler serves them itself: no loader is asked.
//!
//! Every flow of a library is documented by the comment lines right above its `Flow:` line,
//! one `# Key: value` per line (a line that starts with `# ` and no key continues the value
//! before it):
//!
//! - `Check:` the check's id (`tools.unknown-tool`), unique over every library;
//! - `Checks:` what it checks, one sentence;
//! - `Spec:` the specification section(s), `;`-separated (`server/tools#error-handling`);
//! - `Era:` `all`, or the one protocol version the check is about (`2026-07-28`);
//! - `Level:` `must` (a failure is a FAILURE) or `should` (a failure is a WARNING);
//! - `Requires:` server capabilities (dotted paths, `,`-separated) without which the check
//!   does not apply (optional);
//! - `Unless:` server capabilities (`,`-separated) whose presence makes the check not apply:
//!   the check is about a server that does *not* declare them (optional; `mcpr conformance`
//!   decides it from the capabilities the server declares in the era);
//! - `Input NAME:` what the flow input `NAME` is (one line per input of `Inputs:`).
//!
//! The first block of a file, before any flow, says `Library:` and `Summary:`. The page
//! `docs/stdlib.md` is [`markdown`] of these blocks (a test keeps it in step).

use std::collections::BTreeMap;

/// One library of `stdlib-flows/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Library {
    /// Its name after `std:`.
    pub name: &'static str,
    /// The `.mcpr` text.
    pub text: &'static str,
}

/// Every standard library, by name.
pub const LIBRARIES: &[Library] = &[
    Library {
        name: "protocol",
        text: include_str!("../embedded/stdlib-flows/protocol.mcpr"),
    },
    Library {
        name: "tools",
        text: include_str!("../embedded/stdlib-flows/tools.mcpr"),
    },
    Library {
        name: "resources",
        text: include_str!("../embedded/stdlib-flows/resources.mcpr"),
    },
    Library {
        name: "prompts",
        text: include_str!("../embedded/stdlib-flows/prompts.mcpr"),
    },
    Library {
        name: "logging",
        text: include_str!("../embedded/stdlib-flows/logging.mcpr"),
    },
    Library {
        name: "completion",
        text: include_str!("../embedded/stdlib-flows/completion.mcpr"),
    },
    Library {
        name: "progress",
        text: include_str!("../embedded/stdlib-flows/progress.mcpr"),
    },
    Library {
        name: "cancellation",
        text: include_str!("../embedded/stdlib-flows/cancellation.mcpr"),
    },
    Library {
        name: "tasks",
        text: include_str!("../embedded/stdlib-flows/tasks.mcpr"),
    },
    Library {
        name: "stateless",
        text: include_str!("../embedded/stdlib-flows/stateless.mcpr"),
    },
];

/// The library named `name` (after `std:`).
pub fn library(name: &str) -> Option<&'static Library> {
    LIBRARIES.iter().find(|l| l.name == name)
}

/// The names of every library, as imported (`std:protocol`, …).
pub fn known_names() -> Vec<String> {
    LIBRARIES
        .iter()
        .map(|l| format!("std:{}", l.name))
        .collect()
}

/// The check id of the flow named `flow` in the library `library` (after `std:`).
pub fn check_id(library: &str, flow: &str) -> Option<String> {
    let doc = document(self::library(library)?).ok()?;
    doc.flows
        .into_iter()
        .find(|f| f.name == flow)
        .map(|f| f.check)
}

/// The library (`std:tools`) with a flow whose check id is `check` (`tools.call`).
pub fn library_of_check(check: &str) -> Option<String> {
    LIBRARIES
        .iter()
        .filter_map(|lib| document(lib).ok())
        .find(|doc| doc.flows.iter().any(|f| f.check == check))
        .map(|doc| format!("std:{}", doc.library.name))
}

/// How much a failed check weighs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    /// A MUST of the specification: a failure fails the run.
    Must,
    /// A SHOULD: a failure is a warning.
    Should,
}

/// One input of a standard flow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlowInput {
    /// Its name in `Inputs:`.
    pub name: String,
    /// The default written in `Inputs:` (`arguments={}` → `{}`), if any.
    pub default: Option<String>,
    /// What it is (`Input NAME:`).
    pub doc: String,
}

/// One documented flow of a library: one conformance check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdFlow {
    /// The library's name (after `std:`).
    pub library: &'static str,
    /// The flow's name.
    pub name: String,
    /// The check's id.
    pub check: String,
    /// What it checks.
    pub checks: String,
    /// Specification sections.
    pub spec: Vec<String>,
    /// `None`: every era; else the protocol version it is about.
    pub era: Option<String>,
    /// How a failure weighs.
    pub level: Level,
    /// Capabilities without which the check does not apply.
    pub requires: Vec<String>,
    /// Capabilities with which the check does not apply (it is about their absence).
    pub unless: Vec<String>,
    /// Its inputs, in the order of `Inputs:`.
    pub inputs: Vec<FlowInput>,
    /// Line of the `Flow:` statement (1-based).
    pub line: usize,
}

impl StdFlow {
    /// Whether the check is about the protocol version `version`.
    pub fn applies_to(&self, version: &str) -> bool {
        self.era.as_deref().is_none_or(|v| v == version)
    }
}

/// A library's documentation: its header and its flows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryDoc {
    /// The library.
    pub library: &'static Library,
    /// What the library is about (`Summary:`).
    pub summary: String,
    /// Its flows, in file order.
    pub flows: Vec<StdFlow>,
}

/// The comment block of lines `# Key: value` as a map (keys as written).
fn comment_block(lines: &[&str]) -> Result<BTreeMap<String, String>, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut last: Option<String> = None;
    for line in lines {
        let body = line.trim_start_matches('#').trim();
        let key = body.split_once(':').filter(|(k, _)| {
            let k = k.trim();
            !k.is_empty()
                && k.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && k.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == '_')
        });
        match key {
            Some((k, v)) => {
                let k = k.trim().to_string();
                if out.contains_key(&k) {
                    return Err(format!("`{k}:` is written twice"));
                }
                out.insert(k.clone(), v.trim().to_string());
                last = Some(k);
            }
            None => {
                let Some(k) = &last else {
                    return Err(format!("`{line}` is not a `# Key: value` line"));
                };
                let v = out.entry(k.clone()).or_default();
                v.push(' ');
                v.push_str(body);
            }
        }
    }
    Ok(out)
}

/// The quoted name of a `Flow: "NAME"` line.
fn flow_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("Flow:")?.trim();
    let q = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let inner = rest.strip_prefix(q)?.strip_suffix(q)?;
    Some(inner.to_string())
}

/// The inputs of `Inputs: a, b=1` (names and defaults).
fn inputs_line(line: &str) -> Vec<(String, Option<String>)> {
    line.split(',')
        .map(|part| match part.split_once('=') {
            Some((n, d)) => (n.trim().to_string(), Some(d.trim().to_string())),
            None => (part.trim().to_string(), None),
        })
        .filter(|(n, _)| !n.is_empty())
        .collect()
}

/// Reads the documentation of one library; the error says what is missing or wrong, with
/// the line.
pub fn document(library: &'static Library) -> Result<LibraryDoc, String> {
    let lines: Vec<&str> = library.text.lines().collect();
    let fail = |line: usize, what: String| format!("std:{} line {line}: {what}", library.name);
    let mut summary = None;
    let mut flows = Vec::new();
    let mut block: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with('#') {
            block.push(line);
            i += 1;
            continue;
        }
        if line.trim().is_empty() {
            if summary.is_none() && !block.is_empty() {
                let map = comment_block(&block).map_err(|e| fail(i, e))?;
                if map.get("Library").map(String::as_str) != Some(&format!("std:{}", library.name))
                {
                    return Err(fail(
                        1,
                        format!("the header must say `# Library: std:{}`", library.name),
                    ));
                }
                summary = Some(
                    map.get("Summary")
                        .cloned()
                        .ok_or_else(|| fail(1, "the header has no `Summary:`".into()))?,
                );
            }
            block.clear();
            i += 1;
            continue;
        }
        if let Some(name) = flow_name(line) {
            let map = comment_block(&block).map_err(|e| fail(i + 1, e))?;
            let get = |k: &str| {
                map.get(k)
                    .cloned()
                    .ok_or_else(|| fail(i + 1, format!("flow \"{name}\" has no `# {k}:` line")))
            };
            let level = match get("Level")?.as_str() {
                "must" => Level::Must,
                "should" => Level::Should,
                other => {
                    return Err(fail(
                        i + 1,
                        format!("`Level: {other}` is not must or should"),
                    ));
                }
            };
            let era = match get("Era")?.as_str() {
                "all" => None,
                v => Some(v.to_string()),
            };
            let list = |key: &str| -> Vec<String> {
                map.get(key)
                    .map(|r| {
                        r.split(',')
                            .map(|c| c.trim().to_string())
                            .filter(|c| !c.is_empty())
                            .collect()
                    })
                    .unwrap_or_default()
            };
            let (requires, unless) = (list("Requires"), list("Unless"));
            let mut inputs = Vec::new();
            let mut j = i + 1;
            while j < lines.len() && (lines[j].starts_with(' ') || lines[j].trim().is_empty()) {
                if let Some(rest) = lines[j].trim().strip_prefix("Inputs:") {
                    for (n, default) in inputs_line(rest) {
                        let doc = map.get(&format!("Input {n}")).cloned().ok_or_else(|| {
                            fail(
                                j + 1,
                                format!("input `{n}` of \"{name}\" has no `# Input {n}:` line"),
                            )
                        })?;
                        inputs.push(FlowInput {
                            name: n,
                            default,
                            doc,
                        });
                    }
                }
                j += 1;
            }
            for k in map.keys() {
                let known = [
                    "Check", "Checks", "Spec", "Era", "Level", "Requires", "Unless",
                ]
                .contains(&k.as_str())
                    || k.strip_prefix("Input ")
                        .is_some_and(|n| inputs.iter().any(|x| x.name == n));
                if !known {
                    return Err(fail(
                        i + 1,
                        format!("`# {k}:` is not a documentation key of a flow"),
                    ));
                }
            }
            let (check, checks) = (get("Check")?, get("Checks")?);
            let spec = get("Spec")?
                .split(';')
                .map(|s| s.trim().to_string())
                .collect();
            flows.push(StdFlow {
                library: library.name,
                name,
                check,
                checks,
                spec,
                era,
                level,
                requires,
                unless,
                inputs,
                line: i + 1,
            });
            block.clear();
            i = j;
            continue;
        }
        block.clear();
        i += 1;
    }
    Ok(LibraryDoc {
        library,
        summary: summary.ok_or_else(|| fail(1, "the file has no `# Library:` header".into()))?,
        flows,
    })
}

/// Every library's documentation (an error names the first problem).
pub fn documents() -> Result<Vec<LibraryDoc>, String> {
    LIBRARIES.iter().map(document).collect()
}

/// The page `docs/stdlib.md`, made from the libraries' documentation.
pub fn markdown() -> Result<String, String> {
    let docs = documents()?;
    let mut s = String::from(
        "# The standard flow library\n\n\
         <!-- Generated from the comments of stdlib-flows/*.mcpr; a test keeps it in step \
         (`MCPR_BLESS=1 cargo test --workspace --test generated` rewrites it). -->\n\n\
         mcpr ships flow libraries of its own, embedded in the binary and versioned with it. A suite\n\
         imports one with `Import flows from \"std:NAME\"` and uses its flows like its own; `mcpr\n\
         conformance` runs every flow of every library against a server as one check each (see\n\
         [conformance.md](conformance.md)). A name that is not below is MCPLANG308.\n\n\
         An imported flow is used by its name or by its check id, the heading of its section\n\
         below:\n\n\
         ```mcpr\n\
         Import flows from \"std:tools\"\n\n\
         Test: \"Echo answers\"\n  \
         Use flow \"tools.call\" with:\n    \
         tool: echo\n\
         ```\n\n\
         A check id of a library the file does not import is MCPLANG401, which names the import\n\
         to add.\n\n\
         Each check names the specification section it is about (relative to the specification of\n\
         the protocol version being tested), its level (`must`: a failure is a FAILURE; `should`: a\n\
         WARNING), the protocol versions it applies to, the server capabilities without which it\n\
         does not apply (the check is then INFO, not offered), the capabilities whose absence it is\n\
         about (a server that declares one of them gets INFO, not applicable), and its inputs: the\n\
         server's own names the flow needs (`mcpr conformance --input NAME=VALUE`).\n\n",
    );
    s.push_str("| library | flows | about |\n|---|---|---|\n");
    for d in &docs {
        s.push_str(&format!(
            "| [`std:{0}`](#std{0}) | {1} | {2} |\n",
            d.library.name,
            d.flows.len(),
            d.summary
        ));
    }
    for d in &docs {
        s.push_str(&format!("\n## std:{}\n\n{}\n", d.library.name, d.summary));
        for f in &d.flows {
            s.push_str(&format!(
                "\n### {} — \"{}\"\n\n{}\n\n",
                f.check, f.name, f.checks
            ));
            s.push_str(&format!(
                "- spec: {}\n- level: {}\n- protocol versions: {}\n",
                f.spec
                    .iter()
                    .map(|x| format!("`{x}`"))
                    .collect::<Vec<_>>()
                    .join(", "),
                match f.level {
                    Level::Must => "must",
                    Level::Should => "should",
                },
                f.era.as_deref().unwrap_or("all"),
            ));
            if !f.requires.is_empty() {
                s.push_str(&format!(
                    "- requires: {}\n",
                    f.requires
                        .iter()
                        .map(|x| format!("`{x}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !f.unless.is_empty() {
                s.push_str(&format!(
                    "- only for a server without: {}\n",
                    f.unless
                        .iter()
                        .map(|x| format!("`{x}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            for input in &f.inputs {
                let default = input
                    .default
                    .as_deref()
                    .map(|d| format!(" (default `{d}`)"))
                    .unwrap_or_default();
                s.push_str(&format!(
                    "- input `{}`{default}: {}\n",
                    input.name, input.doc
                ));
            }
        }
    }
    Ok(s)
}
