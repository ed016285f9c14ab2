//! The suite of one era: a `.mcpr` text that imports the chosen standard libraries and
//! uses each flow that applies to the era in a test of its own, compiled by the compiler
//! like any suite (the `std:` files are served by the compiler itself).

use std::collections::BTreeMap;

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::Diagnostic;
use mcpr_compiler::diagnostics::render::short;
use mcpr_compiler::ir::Suite;
use mcpr_compiler::lower::{self, MemoryLoader, Options};
use mcpr_compiler::names::slug;
use mcpr_compiler::source::SourceFile;
use mcpr_compiler::stdlib::{LibraryDoc, StdFlow};
use serde_json::Value;

/// The name the generated suite is shown under.
pub const SHOWN: &str = "mcpr-conformance.mcpr";

/// One check of the era's suite.
#[derive(Debug, Clone)]
pub struct Planned {
    /// The flow and its documentation.
    pub flow: StdFlow,
    /// The id of its test in the suite.
    pub test_id: String,
    /// Inputs without a default that were not given: the check does not run.
    pub missing: Vec<String>,
    /// Capabilities of the flow's `Unless:` that the server declares: the check does not
    /// apply and does not run.
    pub declared: Vec<String>,
    /// The flow has `Unless:` and the server's capabilities could not be read: not run.
    pub unknown_capabilities: bool,
}

/// The text of the era's suite and its checks.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The `.mcpr` text.
    pub source: String,
    /// Every check of the chosen libraries that applies to the era, in library order.
    pub checks: Vec<Planned>,
}

impl Planned {
    /// Whether the check is a test of the suite (else it is INFO without running).
    pub fn runs(&self) -> bool {
        self.missing.is_empty() && self.declared.is_empty() && !self.unknown_capabilities
    }
}

impl Generated {
    /// Whether any check runs (a suite without tests is not compiled).
    pub fn runs_any(&self) -> bool {
        self.checks.iter().any(Planned::runs)
    }
}

/// The test id of a check (`tools.unknown-tool` → `tools-unknown-tool`).
pub fn test_id(check: &str) -> String {
    slug(&check.replace('.', "-"))
}

/// Whether the capabilities object `capabilities` declares the dotted path `path`
/// (`resources.subscribe`; see [`crate::client::Client::capability_path`]).
pub fn declares(capabilities: &Value, path: &str) -> bool {
    crate::client::Client::capability_path(path)
        .into_iter()
        .try_fold(capabilities, |v, key| v.get(key))
        .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
}

/// The suite of `version` over `libraries`, with the flows' inputs from `inputs`;
/// `capabilities` (what the server declares in this era, when it could be read) decides the
/// flows with `Unless:`.
pub fn generate(
    version: &str,
    libraries: &[LibraryDoc],
    inputs: &BTreeMap<String, Value>,
    capabilities: Option<&Value>,
) -> Generated {
    let mut s = format!(
        "MCP Test 1\nSuite: \"mcpr conformance {version}\"\nServer from the command line\n"
    );
    for lib in libraries {
        s.push_str(&format!("Import flows from \"std:{}\"\n", lib.library.name));
    }
    let mut checks = Vec::new();
    for lib in libraries {
        for flow in lib.flows.iter().filter(|f| f.applies_to(version)) {
            let id = test_id(&flow.check);
            let missing: Vec<String> = flow
                .inputs
                .iter()
                .filter(|i| i.default.is_none() && !inputs.contains_key(&i.name))
                .map(|i| i.name.clone())
                .collect();
            let declared: Vec<String> = match capabilities {
                Some(caps) => flow
                    .unless
                    .iter()
                    .filter(|c| declares(caps, c))
                    .cloned()
                    .collect(),
                None => Vec::new(),
            };
            let unknown_capabilities = capabilities.is_none() && !flow.unless.is_empty();
            if missing.is_empty() && declared.is_empty() && !unknown_capabilities {
                s.push_str(&format!("\nTest: \"{}\"\n  Id: {id}\n", flow.check));
                if !flow.requires.is_empty() {
                    s.push_str(&format!("  Require: {}\n", flow.requires.join(", ")));
                }
                let given: Vec<_> = flow
                    .inputs
                    .iter()
                    .filter_map(|i| inputs.get(&i.name).map(|v| (&i.name, v)))
                    .collect();
                if given.is_empty() {
                    s.push_str(&format!("  Use flow \"{}\"\n", flow.name));
                } else {
                    s.push_str(&format!("  Use flow \"{}\" with:\n", flow.name));
                    for (name, value) in given {
                        // JSON is YAML: each value is written as JSON on one line.
                        s.push_str(&format!("    {name}: {value}\n"));
                    }
                }
            }
            checks.push(Planned {
                flow: flow.clone(),
                test_id: id,
                missing,
                declared,
                unknown_capabilities,
            });
        }
    }
    Generated { source: s, checks }
}

/// Compiles a generated suite; the error lists the diagnostics (a flow library or an input
/// that does not compile).
pub fn compile(source: &str) -> Result<Suite, String> {
    let mut map = SourceMap::new();
    let id = map.add(SourceFile::new(SHOWN.to_string(), source.to_string()));
    let compiled = lower::compile(&mut map, id, &MemoryLoader::new(), &Options::default());
    let errors: Vec<Diagnostic> = compiled
        .diagnostics
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect();
    match compiled.suite {
        Some(suite) if errors.is_empty() => Ok(suite),
        _ => Err(format!(
            "the conformance suite does not compile:\n{}\n--- the suite ---\n{source}",
            short(&errors, &map).trim_end()
        )),
    }
}
