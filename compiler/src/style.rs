//! The terminal styles of every human output (diagnostics, run results, diffs, data errors,
//! conformance verdicts), on `anstyle`: one name per look, so that a colour means the same
//! everywhere (red failed, green passed, yellow skipped or a warning, magenta blocked, dim a
//! side note), and [`paint`] to apply one when colour is on.

pub use anstyle::Style;
use anstyle::{AnsiColor, Color};

const fn fg(color: AnsiColor) -> Option<Color> {
    Some(Color::Ansi(color))
}

/// Headings and names.
pub const BOLD: Style = Style::new().bold();
/// Side notes: a test's output, a quarantined test, `at`.
pub const DIM: Style = Style::new().dimmed();
/// Failed, an error, what was found.
pub const RED: Style = Style::new().fg_color(fg(AnsiColor::Red));
/// Errored; an error code.
pub const BOLD_RED: Style = Style::new().bold().fg_color(fg(AnsiColor::Red));
/// Passed, what was expected.
pub const GREEN: Style = Style::new().fg_color(fg(AnsiColor::Green));
/// Skipped, a warning.
pub const YELLOW: Style = Style::new().fg_color(fg(AnsiColor::Yellow));
/// Flaky, interrupted; a warning code.
pub const BOLD_YELLOW: Style = Style::new().bold().fg_color(fg(AnsiColor::Yellow));
/// Blocked.
pub const MAGENTA: Style = Style::new().fg_color(fg(AnsiColor::Magenta));
/// Where a data error is.
pub const BLUE: Style = Style::new().fg_color(fg(AnsiColor::Blue));
/// Information.
pub const CYAN: Style = Style::new().fg_color(fg(AnsiColor::Cyan));
/// Characters a diff takes away.
pub const STRUCK_RED: Style = Style::new().strikethrough().fg_color(fg(AnsiColor::Red));
/// Characters a diff adds.
pub const UNDERLINED_GREEN: Style = Style::new().underline().fg_color(fg(AnsiColor::Green));

/// Clears the screen and its scrollback and puts the cursor at the top (`run --watch`).
pub const CLEAR_SCREEN: &str = "\x1b[2J\x1b[3J\x1b[H";

/// `text` in `style` when `color` is on, as it is otherwise.
pub fn paint(color: bool, style: Style, text: &str) -> String {
    if color {
        format!("{style}{text}{style:#}")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_painted_text_is_reset_after_and_plain_without_colour() {
        assert_eq!(paint(true, RED, "x"), "\x1b[31mx\x1b[0m");
        assert_eq!(paint(true, BOLD_RED, "x"), "\x1b[1m\x1b[31mx\x1b[0m");
        assert_eq!(paint(false, BOLD_RED, "x"), "x");
    }
}
