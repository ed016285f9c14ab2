//! Wording of the problems of codes 3xx: imports.

use super::*;

/// Words a problem of this family; [`Problem::describe`] hands it no other.
pub(super) fn describe(p: &Problem) -> Wording {
    use Problem::*;
    match p {
        ImportCycle { chain } => import_cycle(chain),
        ImportUnreadable { path, reason } => import_unreadable(path, reason),
        ImportTooDeep { limit } => import_too_deep(limit),
        AbsoluteImport { path } => absolute_import(path),
        ImportTooLarge { path, bytes, limit } => import_too_large(path, bytes, limit),
        TooManyImports { limit } => too_many_imports(limit),
        ImportOutsideFolder { path } => import_outside_folder(path),
        UnknownStdLibrary { name, known } => unknown_std_library(name, known),
        _ => unreachable!("not a problem of this family: {p:?}"),
    }
}

pub(super) fn import_cycle(chain: &[String]) -> Wording {
    w(
        Code::ImportCycle,
        "this import closes a cycle",
        format!("These imports form a cycle: {}.", chain.join(" → ")),
        Some("move the shared flows into a file that imports neither of the others".into()),
    )
}

pub(super) fn import_unreadable(path: &str, reason: &str) -> Wording {
    w(
        Code::ImportUnreadable,
        "cannot read this file",
        format!("The imported file `{path}` cannot be read: {reason}."),
        Some("check the path; it is relative to the folder of the importing file".into()),
    )
}

pub(super) fn import_too_deep(limit: &usize) -> Wording {
    w(
        Code::ImportTooDeep,
        format!("import nested {limit} levels deep"),
        format!(
            "Imports may be nested at most {} levels deep; this import is number {limit} in a chain.",
            limit - 1
        ),
        Some("import the flows you need directly instead of through a chain of files".into()),
    )
}

pub(super) fn absolute_import(path: &str) -> Wording {
    w(
        Code::AbsoluteImport,
        "absolute path",
        format!(
            "`{path}` is an absolute path; imports are relative to the importing file so a suite can move as a whole."
        ),
        Some("write the path relative to this file, e.g. `./shared/flows.mcpr`".into()),
    )
}

pub(super) fn import_too_large(path: &str, bytes: &usize, limit: &usize) -> Wording {
    w(
        Code::ImportTooLarge,
        "file larger than the size limit",
        format!(
            "The imported file `{path}` has {bytes} bytes; a file may have at most {}.",
            crate::size::bytes_and_unit(*limit)
        ),
        Some(format!(
            "split the flows into several smaller files, or raise the limit ({})",
            suites::LIMIT_SETTING
        )),
    )
}

pub(super) fn too_many_imports(limit: &usize) -> Wording {
    w(
        Code::TooManyImports,
        format!("import number {}", limit + 1),
        format!("A suite may import at most {limit} different files."),
        Some("gather related flows into fewer files".into()),
    )
}

pub(super) fn import_outside_folder(path: &str) -> Wording {
    w(
        Code::ImportOutsideFolder,
        "outside the suite's folder",
        format!(
            "`{path}` resolves outside the folder of the file being checked; imports must stay inside it (symbolic links are followed before comparing)."
        ),
        Some("move the imported file into the suite's folder or a subfolder".into()),
    )
}

pub(super) fn unknown_std_library(name: &str, known: &[String]) -> Wording {
    let close = crate::names::closest(&format!("std:{name}"), known.iter().map(String::as_str));
    w(
        Code::UnknownStdLibrary,
        "unknown standard library",
        format!(
            "`std:{name}` is not a standard flow library of this version of mcpr; it ships {}.",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(match close {
            Some(c) => format!(
                "did you mean `{c}`? (a file of your own is imported by its relative path, e.g. `./flows.mcpr`)"
            ),
            None => {
                "import a file of your own by its relative path instead, e.g. `./flows.mcpr`".into()
            }
        }),
    )
}
