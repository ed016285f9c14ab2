//! What a data provider that this build leaves out answers: the same functions as the
//! provider's module, each refusing with `MCP-DATA-040`, which names the cargo feature that
//! builds it. The `mcpr` binary (and the wheel and npm packages) has every provider; a crate
//! that links the runtime for other reasons (the language server) leaves the heavy ones out.

#[cfg(not(feature = "excel"))]
pub mod excel;
#[cfg(not(feature = "sql"))]
pub mod sql;

use crate::codes::RunCode;

use super::error::DataError;

/// The refusal of a provider this build leaves out.
#[cfg_attr(all(feature = "sql", feature = "excel"), allow(dead_code))]
pub(super) fn not_built(provider: &str, feature: &str) -> DataError {
    DataError::new(
        RunCode::ProviderNotBuilt,
        format!("This build of mcpr has no {provider} data sources."),
    )
    .help(format!(
        "use the `mcpr` command line, which has them, or build mcpr-runtime with the `{feature}` feature"
    ))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_left_out_provider_names_the_feature_that_builds_it() {
        let e = super::not_built("SQLite", "sql");
        assert_eq!(e.code.as_str(), "MCP-DATA-040");
        let shown = e.render(false);
        assert!(
            shown.contains("This build of mcpr has no SQLite data sources."),
            "{shown}"
        );
        assert!(shown.contains("the `sql` feature"), "{shown}");
    }
}
