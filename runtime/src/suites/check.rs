//! `mcpr check` over files and folders: every file compiled with its imports, every
//! diagnostic sorted, and with `data` the local data sources of clean files loaded through
//! their pipelines; rendered in one of the diagnostic formats.

use std::path::{Path, PathBuf};

use mcpr_compiler::SourceMap;
use mcpr_compiler::diagnostics::render::{self, Summary};
use mcpr_compiler::diagnostics::{self, Diagnostic, Unshown};
use mcpr_compiler::github::{Annotation, Level};
use mcpr_compiler::lower::Options;
use mcpr_compiler::source::SourceFile;

use super::data_json::DataFiles;
use super::{FsLoader, discover_noting, display_path};
use crate::codes::RunCode;
use crate::data::{self, DataError, DataErrors, DataOptions};

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// Also warn about things that are often intended (an export no test reads).
    pub pedantic: bool,
    /// Also load local data files and report bad values.
    pub data: bool,
    /// The size limit of a file (`None`: the compiler's default).
    pub max_file_bytes: Option<usize>,
    /// The most diagnostics shown for one file; the rest are counted on a closing line
    /// (`--max-diagnostics`). 0 shows them all.
    pub max_diagnostics: usize,
    /// The environment the command was started in (`${env.…}` in data-source settings).
    pub env: crate::environment::Environment,
}

/// The default of `--max-diagnostics`: how many diagnostics `check` shows for one file.
pub const DEFAULT_MAX_DIAGNOSTICS: usize = 100;

/// The diagnostics of one file past the limit of those shown, counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Omitted {
    /// The file, as shown.
    pub file: String,
    /// Errors not shown.
    pub errors: usize,
    /// Warnings not shown.
    pub warnings: usize,
}

impl Omitted {
    /// `… and 12 more in suite.mcpr (10 errors, 2 warnings; --max-diagnostics 0 shows all)`.
    pub fn line(&self) -> String {
        self.line_with("--max-diagnostics 0 shows all")
    }

    /// [`Self::line`] with another way to see them all, `hint`.
    pub fn line_with(&self, hint: &str) -> String {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("1 {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        let what = match (self.errors, self.warnings) {
            (e, 0) => plural(e, "error"),
            (0, w) => plural(w, "warning"),
            (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
        };
        format!(
            "\u{2026} and {} more in {} ({what}; {hint})",
            self.errors + self.warnings,
            self.file
        )
    }
}

/// How a check report is printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckFormat {
    /// Source line, caret, explanation and fix; colour or not.
    Human {
        /// ANSI colour.
        color: bool,
    },
    /// One line per diagnostic.
    Short,
    /// Stable JSON (docs/diagnostics-json.md).
    Json,
    /// GitHub Actions annotations.
    Github,
}

/// Everything `check` found.
#[derive(Debug)]
pub struct CheckReport {
    pub(super) map: SourceMap,
    /// The diagnostics shown (at most `max_diagnostics` per file).
    pub(super) diagnostics: Vec<Diagnostic>,
    /// Per file, the diagnostics past the limit, counted.
    omitted: Vec<Omitted>,
    /// What the search of folders passed over ([`super::Found::notes`]).
    notes: Vec<String>,
    data_errors: DataErrors,
    files: usize,
    with_data: bool,
}

/// Checks the suites of `paths` (see [`discover_noting`]). The error names a path that cannot
/// be read, or a file that is not UTF-8 text.
pub fn check(paths: &[PathBuf], opts: &CheckOptions) -> Result<CheckReport, String> {
    let found = discover_noting(paths)?;
    let files = found.files;
    let mut map = SourceMap::new();
    let mut diags = Vec::new();
    let mut unshown = Vec::new();
    let mut data_errors = DataErrors::default();
    // Imports are read relative to the shown paths, which are relative to the working folder.
    let loader = FsLoader::new(".");
    let options = Options {
        pedantic: opts.pedantic,
        max_file_bytes: opts.max_file_bytes,
        // The compiler words no more than are shown, and keeps the rest to count them.
        keep_diagnostics: opts.max_diagnostics,
        ..Options::default()
    };
    for path in &files {
        let text = read_text(path)?;
        let id = map.add(SourceFile::new(display_path(path), text));
        let found = mcpr_compiler::check(&mut map, id, &loader, &options);
        let clean =
            !found.worded.iter().any(|d| d.is_error()) && !found.unshown.iter().any(|u| u.error);
        diags.extend(found.worded);
        unshown.extend(found.unshown);
        if opts.data && clean {
            data_errors.extend(check_data(&mut map, id, &loader, &options, path, &opts.env));
        }
    }
    diagnostics::sort(&mut diags);
    data_errors.sort();
    let mut report = CheckReport {
        map,
        diagnostics: diags,
        omitted: Vec::new(),
        notes: found.notes,
        data_errors,
        files: files.len(),
        with_data: opts.data,
    };
    report.omitted = keep_first(
        &mut report.diagnostics,
        opts.max_diagnostics,
        unshown,
        &report.map,
    );
    Ok(report)
}

/// Keeps the first `limit` diagnostics of each file of the sorted `diags` (all of them when
/// `limit` is 0) and counts the rest, file by file, with those the compiler let go
/// unworded (`unshown`; a file imported by two suites reports its problems to each: they
/// are counted once).
fn keep_first(
    diags: &mut Vec<Diagnostic>,
    limit: usize,
    mut unshown: Vec<Unshown>,
    map: &SourceMap,
) -> Vec<Omitted> {
    if limit == 0 {
        return Vec::new();
    }
    let mut file = None;
    let mut shown = 0;
    diags.retain(|d| {
        if file != Some(d.file) {
            file = Some(d.file);
            shown = 0;
        }
        shown += 1;
        if shown > limit {
            unshown.push(Unshown::of(d));
        }
        shown <= limit
    });
    omitted(unshown, diags, map)
}

/// The diagnostics a compilation let go unworded (`unshown`), counted file by file: each
/// problem once, and none of those in `shown` (sorted).
pub fn omitted(mut unshown: Vec<Unshown>, shown: &[Diagnostic], map: &SourceMap) -> Vec<Omitted> {
    let key = |u: &Unshown| (u.file, u.start, u.end, u.code);
    unshown.sort_unstable();
    unshown.dedup_by(|a, b| key(a) == key(b));
    // A problem shown (from one suite) is not counted again (from another).
    unshown.retain(|u| {
        shown
            .binary_search_by(|d| {
                let at = (d.file as u32, d.span.start, d.span.end, d.code);
                at.cmp(&key(u))
            })
            .is_err()
    });
    let mut omitted: Vec<Omitted> = Vec::new();
    for u in unshown {
        let path = map.get(u.file as usize).path();
        if omitted.last().is_none_or(|o| o.file != path) {
            omitted.push(Omitted {
                file: path.to_string(),
                errors: 0,
                warnings: 0,
            });
        }
        if let Some(o) = omitted.last_mut() {
            if u.error {
                o.errors += 1;
            } else {
                o.warnings += 1;
            }
        }
    }
    omitted
}

fn read_text(path: &Path) -> Result<String, String> {
    let bytes = crate::files::read_regular(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "{} is not UTF-8 text (invalid byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        )
    })
}

/// Compiles a file that checked clean and loads its local data sources.
fn check_data(
    map: &mut SourceMap,
    id: usize,
    loader: &FsLoader,
    options: &Options,
    path: &Path,
    env: &crate::environment::Environment,
) -> DataErrors {
    let compiled = mcpr_compiler::lower::compile(map, id, loader, options);
    let Some(suite) = compiled.suite else {
        return DataErrors::default();
    };
    let opts = DataOptions {
        base_dir: match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
        env: env.clone(),
        ..DataOptions::default()
    };
    match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt.block_on(data::check_suite(&suite, &opts)),
        Err(e) => DataError::new(
            RunCode::DataUnreadable,
            format!("cannot start the async runtime: {e}"),
        )
        .into(),
    }
}

impl CheckReport {
    /// Keeps the first `limit` diagnostics of each file (all of them when `limit` is 0) and
    /// counts the rest, file by file: for a report checked with every diagnostic worded
    /// (`check --fix`).
    pub fn limit(&mut self, limit: usize) {
        let more = keep_first(&mut self.diagnostics, limit, Vec::new(), &self.map);
        self.omitted.extend(more);
    }

    /// Whether the files cannot run as they are (a compile error or a data error).
    pub fn has_errors(&self) -> bool {
        self.summary().errors > 0 || !self.data_errors.is_empty()
    }

    /// The counts of every diagnostic, those not shown included.
    fn summary(&self) -> Summary {
        let mut summary = Summary::of(&self.diagnostics, self.files);
        for o in &self.omitted {
            summary.errors += o.errors;
            summary.warnings += o.warnings;
        }
        summary
    }

    /// The notes of the search, `note: …` each, and an empty line after them.
    fn note_lines(&self) -> String {
        if self.notes.is_empty() {
            return String::new();
        }
        let mut out: String = self.notes.iter().map(|n| format!("note: {n}\n")).collect();
        out.push('\n');
        out
    }

    /// The lines that count the diagnostics not shown, each ending in a newline.
    fn omitted_lines(&self, prefix: &str) -> String {
        self.omitted
            .iter()
            .map(|o| format!("{prefix}{}\n", o.line()))
            .collect()
    }

    /// The report in `format`, as printed on stdout.
    pub fn render(&self, format: CheckFormat) -> String {
        let mut out = String::new();
        match format {
            CheckFormat::Human { color } => {
                let text = render::human(&self.diagnostics, &self.map, color);
                if !text.is_empty() {
                    out.push_str(&text);
                    out.push('\n');
                }
                if !self.omitted.is_empty() {
                    out.push_str(&self.omitted_lines(""));
                    out.push('\n');
                }
                out.push_str(&self.note_lines());
                for e in &self.data_errors.errors {
                    out.push_str(&e.render(color));
                    out.push('\n');
                }
                for o in &self.data_errors.omitted {
                    out.push_str(&o.line());
                    out.push_str("\n\n");
                }
                out.push_str(&self.summary_line());
                out.push('\n');
            }
            CheckFormat::Short => {
                out.push_str(&render::short(&self.diagnostics, &self.map));
                out.push_str(&self.omitted_lines(""));
                out.push_str(&self.note_lines());
                for e in &self.data_errors.errors {
                    out.push_str(&format!("{e}\n"));
                }
                for o in &self.data_errors.omitted {
                    out.push_str(&format!("{}\n", o.line()));
                }
                out.push_str(&self.summary_line());
                out.push('\n');
            }
            CheckFormat::Json => {
                let mut v = render::json(&self.diagnostics, &self.map, self.files);
                if let Some(summary) = v.get_mut("summary").and_then(|s| s.as_object_mut()) {
                    let all = self.summary();
                    summary.insert("errors".into(), all.errors.into());
                    summary.insert("warnings".into(), all.warnings.into());
                    // Only when some were left out, so the shape of a short report is as it was.
                    let omitted: usize = self.omitted.iter().map(|o| o.errors + o.warnings).sum();
                    if omitted > 0 {
                        summary.insert("omitted".into(), omitted.into());
                    }
                }
                if let Some(obj) = v.as_object_mut()
                    && !self.notes.is_empty()
                {
                    obj.insert("notes".into(), self.notes.clone().into());
                }
                if self.with_data
                    && let Some(obj) = v.as_object_mut()
                {
                    let mut files = DataFiles::default();
                    let list = self
                        .data_errors
                        .errors
                        .iter()
                        .map(|e| files.diagnostic(e))
                        .collect();
                    obj.insert("dataErrors".into(), serde_json::Value::Array(list));
                    let shown = self.data_errors.len();
                    let omitted = self.data_errors.total() - shown;
                    if let Some(summary) = obj.get_mut("summary").and_then(|s| s.as_object_mut()) {
                        let errors = summary.get("errors").and_then(|e| e.as_u64()).unwrap_or(0);
                        summary.insert("errors".into(), (errors + shown as u64).into());
                        summary.insert("dataErrors".into(), shown.into());
                        summary.insert("dataErrorsOmitted".into(), omitted.into());
                    }
                }
                out.push_str(&serde_json::to_string_pretty(&v).unwrap_or_default());
                out.push('\n');
            }
            CheckFormat::Github => {
                out.push_str(&render::github(&self.diagnostics, &self.map));
                let warning =
                    |line: String, file: &str| Annotation::new(Level::Warning, line).file(file);
                let annotations = (self.omitted.iter())
                    .map(|o| warning(o.line(), &o.file))
                    .chain(self.notes.iter().map(|n| Annotation::new(Level::Notice, n)))
                    .chain(self.data_errors.errors.iter().map(github_annotation))
                    .chain((self.data_errors.omitted.iter()).map(|o| warning(o.line(), &o.file)));
                for annotation in annotations {
                    out.push_str(&format!("{annotation}\n"));
                }
            }
        }
        out
    }

    /// The summary line, counting data errors too (they are not compiler diagnostics).
    fn summary_line(&self) -> String {
        let summary = self.summary();
        let n = self.data_errors.total();
        if n == 0 {
            return summary.line();
        }
        let mut errors = mcpr_compiler::names::count(n, "data error");
        if n > self.data_errors.len() {
            errors.push_str(&format!(" ({} shown)", self.data_errors.len()));
        }
        if summary.errors + summary.warnings == 0 {
            let files = mcpr_compiler::names::count(self.files, "file");
            format!("{files} checked: {errors}")
        } else {
            format!("{}; {errors}", summary.line())
        }
    }
}

/// A data error as a GitHub Actions `::error` annotation.
fn github_annotation(e: &DataError) -> Annotation {
    let full = e.to_string();
    let msg = match e.position() {
        Some(pos) => full
            .strip_prefix(&format!("{pos}: "))
            .unwrap_or(&full)
            .to_string(),
        None => full.clone(),
    };
    let mut annotation = Annotation::new(Level::Error, msg);
    if let Some(at) = &e.at {
        annotation = annotation.file(&at.file);
        if let Some(l) = at.line {
            annotation = annotation.line(l);
        }
        if let Some(c) = at.column {
            annotation = annotation.column(c);
        }
    }
    annotation
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_data_error_annotation_escapes_its_file_and_message() {
        let placed = DataError::new(RunCode::DataUnreachable, "first\r\nsecond 100%").at(
            data::DataLocation {
                file: "data/a,b:c.csv".into(),
                line: Some(3),
                column: Some(7),
                ..Default::default()
            },
        );
        let line = github_annotation(&placed).to_string();
        assert!(
            line.starts_with("::error file=data/a%2Cb%3Ac.csv,line=3,col=7::"),
            "{line}"
        );
        assert!(line.ends_with("first%0D%0Asecond 100%25"), "{line}");
        let nowhere = DataError::new(RunCode::DataUnreachable, "gone");
        assert_eq!(
            github_annotation(&nowhere).to_string(),
            "::error::MCP-DATA-035: gone"
        );
    }
}
