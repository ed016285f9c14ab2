//! Shared output helpers: colour decision, display paths, exit codes.

use crate::args::ColorArg;
use std::io::IsTerminal;
use std::path::Path;

/// Exit code: every check passed.
pub const OK: u8 = 0;
/// Exit code: usage, language or configuration error.
pub const USAGE: u8 = 2;

/// Whether stdout gets colour: only on a terminal, never with `NO_COLOR`.
pub fn use_color(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

/// Whether stderr gets colour: only on a terminal, never with `NO_COLOR`.
pub fn use_stderr_color(arg: ColorArg) -> bool {
    match arg {
        ColorArg::Always => true,
        ColorArg::Never => false,
        ColorArg::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stderr().is_terminal()
        }
    }
}

/// The path as shown to people: relative to the working directory when the
/// file lies below it, with `/` separators.
pub fn display_path(path: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let shown = match (&cwd, path.canonicalize()) {
        (Some(cwd), Ok(abs)) => match abs.strip_prefix(cwd.canonicalize().unwrap_or(cwd.clone())) {
            Ok(rel) => rel.to_path_buf(),
            Err(_) => path.to_path_buf(),
        },
        _ => path.to_path_buf(),
    };
    shown.to_string_lossy().replace('\\', "/")
}
