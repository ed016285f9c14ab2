//! Wording of the problems of codes 6xx: YAML and JSON suites.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        SuiteSyntax { message, json } => suite_syntax(message, json),
        UnknownField {
            context,
            field,
            suggestion,
            valid,
        } => unknown_field(context, field, suggestion, valid),
        WrongType {
            context,
            expected,
            found,
        } => wrong_type(context, expected, found),
        MissingField { context, fields } => missing_field(context, fields),
        InvalidValue {
            context,
            found,
            valid,
        } => invalid_value(context, found, valid),
        YamlAlias { what, name } => yaml_alias(what, name),
        SuiteTooLarge { bytes, limit } => suite_too_large(bytes, limit),
        YamlTooLarge { limit } => yaml_too_large(*limit),
        SchemaViolation { context, rule } => schema_violation(context, rule),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn suite_syntax(message: &str, json: &bool) -> Wording {
    let what = if *json { "JSON" } else { "YAML" };
    w(
        Code::SuiteSyntax,
        format!("invalid {what}"),
        format!("The suite file is not valid {what}: {message}."),
        Some(if *json {
            "fix the JSON at the caret: strings in double quotes, members separated by commas, no trailing comma".into()
        } else {
            "fix the YAML at the caret; quote values that contain `: ` or ` #` or start with a special character".into()
        }),
    )
}

pub(super) fn unknown_field(
    context: &str,
    field: &str,
    suggestion: &Option<String>,
    valid: &[String],
) -> Wording {
    w(
        Code::UnknownField,
        format!("unknown field `{field}`"),
        if valid.is_empty() {
            format!("{} has no field `{field}`.", capitalise(context))
        } else {
            format!(
                "{} has no field `{field}`; its fields are {}.",
                capitalise(context),
                quoted_list(valid)
            )
        },
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => "remove the field; `mcpr schema` prints the whole suite model".into(),
        }),
    )
}

pub(super) fn wrong_type(context: &str, expected: &str, found: &&'static str) -> Wording {
    w(
        Code::WrongType,
        format!("expected {expected}, found {found}"),
        format!(
            "{} must be {expected}, but it is {found}.",
            capitalise(context)
        ),
        Some(if context == "the suite" {
            "a suite is a mapping that starts with `version: 1`, then `target:` and `tests:`".into()
        } else if expected.starts_with("text")
            && found.starts_with('a')
            && !found.contains("list")
            && !found.contains("mapping")
        {
            "put the value in quotes to make it text".into()
        } else {
            format!("write {expected} here")
        }),
    )
}

pub(super) fn missing_field(context: &str, fields: &[String]) -> Wording {
    if fields.len() == 1 {
        w(
            Code::MissingField,
            format!("missing `{}`", fields[0]),
            format!(
                "{} must have the field `{}`.",
                capitalise(context),
                fields[0]
            ),
            Some(format!("add `{}:` here", fields[0])),
        )
    } else {
        w(
            Code::MissingField,
            format!("needs one of {}", or_quoted(fields)),
            format!(
                "{} must have exactly one of the fields {}.",
                capitalise(context),
                or_quoted(fields)
            ),
            Some(format!("add one of {}", or_quoted(fields))),
        )
    }
}

pub(super) fn invalid_value(context: &str, found: &str, valid: &[String]) -> Wording {
    let suggestion = if valid.len() > 1 {
        crate::names::closest(found, valid.iter().map(String::as_str))
    } else {
        None
    };
    w(
        Code::InvalidValue,
        if valid.len() == 1 {
            format!("expected `{}`", valid[0])
        } else {
            "not an allowed value".to_string()
        },
        if valid.len() == 1 {
            format!(
                "{} is `{found}`, but the only allowed value is `{}`.",
                capitalise(context),
                valid[0]
            )
        } else {
            format!(
                "{} is `{found}`, which is not one of {}.",
                capitalise(context),
                or_quoted(valid)
            )
        },
        Some(match suggestion {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("write {}", or_quoted(valid)),
        }),
    )
}

pub(super) fn yaml_alias(what: &AliasKind, name: &str) -> Wording {
    let (label, message) = match what {
            AliasKind::Anchor => (
                format!("anchor `&{name}`"),
                "Suite files may not use YAML anchors: every value is written where it is used, so the file reads the same to people, to generators and to JSON tools.".to_string(),
            ),
            AliasKind::Alias => (
                format!("alias `*{name}`"),
                "Suite files may not use YAML aliases: every value is written where it is used, so the file reads the same to people, to generators and to JSON tools.".to_string(),
            ),
            AliasKind::MergeKey => (
                "merge key `<<`".to_string(),
                "Suite files may not use YAML merge keys (`<<`): every member is written in the mapping it belongs to.".to_string(),
            ),
        };
    w(
        Code::YamlAlias,
        label,
        message,
        Some("write the value out in full at each place it is used".into()),
    )
}

/// Where the size limit of a file is set, as a `Try:` names it.
pub(super) const LIMIT_SETTING: &str = "`--max-file-size` or `MCPR_MAX_FILE_SIZE`";

pub(super) fn suite_too_large(bytes: &usize, limit: &usize) -> Wording {
    w(
        Code::SuiteTooLarge,
        "the limit is crossed here",
        format!(
            "The suite file has {bytes} bytes; a file may have at most {}.",
            crate::size::bytes_and_unit(*limit)
        ),
        Some(format!(
            "split the tests into several suite files, load large data from data files, or raise the limit ({LIMIT_SETTING})"
        )),
    )
}

pub(super) fn yaml_too_large(limit: usize) -> Wording {
    w(
        Code::YamlTooLarge,
        "the limit is crossed here",
        format!(
            "The YAML of this file holds more than {limit} values (keys, list items and scalars together); a file may hold one value per 16 bytes of its size limit."
        ),
        Some(format!(
            "load large data from a data file, split the tests into several files, or raise the size limit ({LIMIT_SETTING}), which raises this limit with it"
        )),
    )
}

pub(super) fn schema_violation(context: &str, rule: &str) -> Wording {
    w(
        Code::SchemaViolation,
        rule.split(" (it is").next().unwrap_or(rule).to_string(),
        format!("{} {rule}.", capitalise(context)),
        Some(
            "see `mcpr schema` (docs/schema/suite.schema.json) for the rules of the suite model"
                .into(),
        ),
    )
}
