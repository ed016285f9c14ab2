//! Wording of the problems of codes 5xx: data sources.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        UnknownDataSource {
            name,
            suggestion,
            surface,
        } => unknown_data_source(name, suggestion, surface),
        DataSourceWithoutOrigin { name } => data_source_without_origin(name),
        BadDataSourceSettings { reason } => bad_data_source_settings(reason),
        NonNumericFilter { value } => non_numeric_filter(value),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn unknown_data_source(
    name: &str,
    suggestion: &Option<String>,
    surface: &Surface,
) -> Wording {
    w(
        Code::UnknownDataSource,
        "no data source with this name",
        match surface {
            Surface::Mcpr => format!("No `Data source: \"{name}\"` is declared in this file."),
            Surface::Yaml => format!("`dataSources` has no entry `{name}`."),
        },
        Some(match (suggestion, surface) {
            (Some(s), _) => format!("did you mean \"{s}\"?"),
            (None, Surface::Mcpr) => "declare it with a `Data source:` block, or read a file with `For each row in \"file.csv\"`".into(),
            (None, Surface::Yaml) => "declare it under `dataSources`, or read a file with `forEach: {file: data.csv}`".into(),
        }),
    )
}

pub(super) fn data_source_without_origin(name: &str) -> Wording {
    w(
        Code::DataSourceWithoutOrigin,
        "nothing to load",
        format!("The data source \"{name}\" says how to shape rows but not where they come from."),
        Some("add a `From CSV \"file.csv\"` (or JSON, YAML, Excel, REST) line, or `file:`/`url:`/`rows:` settings".into()),
    )
}

pub(super) fn bad_data_source_settings(reason: &str) -> Wording {
    w(
        Code::BadDataSourceSettings,
        "invalid data source settings",
        format!("The data source settings do not fit the data source model: {reason}."),
        Some("see `docs/ir.md` (Data source) for the settings and their shapes".into()),
    )
}

pub(super) fn non_numeric_filter(value: &str) -> Wording {
    w(
        Code::NonNumericFilter,
        "not a number",
        format!(
            "`is greater than` and `is less than` compare numbers, but `{value}` is not a number."
        ),
        Some("write a number, e.g. `Keep rows where \"spend\" is greater than 100`".into()),
    )
}
