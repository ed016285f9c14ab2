//! The part of a file a snippet box shows: the lines its labels touch, each line longer than
//! [`MAX_COLUMNS`] characters cut to a window around its labels (`…` where text was left
//! out). ariadne is given this excerpt instead of the whole file, so drawing a diagnostic costs
//! what its lines cost, not what the file costs, and a label on a line of a megabyte prints a
//! readable box.

use crate::source::SourceFile;
use std::ops::Range;

/// Lines longer than this many characters are cut around their labels.
pub const MAX_COLUMNS: usize = 120;

/// Characters kept before the first label of a cut line.
const CONTEXT: usize = 24;

/// Marks text left out of a cut line.
const ELLIPSIS: &str = "…";

/// An excerpt of a file and how to find a byte offset of the file in it.
pub struct Excerpt {
    /// The text given to ariadne: the file's lines up to the last labelled one, lines without
    /// labels left empty (ariadne numbers lines itself, so the lines before the first label
    /// are kept as empty lines), long lines cut.
    pub text: String,
    /// 0-based index in the file of the first labelled line.
    first_line: usize,
    /// One entry per excerpt line.
    lines: Vec<Piece>,
}

/// Where one line of the file sits in the excerpt.
struct Piece {
    /// The bytes of the file line that were kept.
    kept: Range<usize>,
    /// Where the kept bytes start in the excerpt.
    at: usize,
}

impl Excerpt {
    /// The excerpt of `file` for labels over `ranges` (byte ranges of the file, in bounds).
    pub fn new(file: &SourceFile, ranges: &[Range<usize>]) -> Excerpt {
        let text = file.text();
        let lines_of = |r: &Range<usize>| (file.line_index(r.start), file.line_index(r.end));
        let first = ranges.iter().map(|r| lines_of(r).0).min().unwrap_or(0);
        let last = ranges.iter().map(|r| lines_of(r).1).max().unwrap_or(0);
        let mut out = Excerpt {
            text: "\n".repeat(first),
            first_line: first,
            lines: Vec::with_capacity(last - first + 1),
        };
        for line in first..=last {
            let span = file.line_span(line).range();
            let touched = ranges.iter().any(|r| {
                let (a, b) = lines_of(r);
                a <= line && line <= b
            });
            if !touched {
                // A line between labels: ariadne does not show it, but it keeps the numbering.
                out.lines.push(Piece {
                    kept: span.start..span.start,
                    at: out.text.len(),
                });
                out.text.push('\n');
                continue;
            }
            // Byte offsets of the labels' ends on this line.
            let points: Vec<usize> = ranges
                .iter()
                .flat_map(|r| [r.start, r.end])
                .filter(|&p| span.start <= p && p <= span.end)
                .collect();
            let kept = window(&text[span.clone()], span.start, &points);
            if kept.start > span.start {
                out.text.push_str(ELLIPSIS);
            }
            out.lines.push(Piece {
                kept: kept.clone(),
                at: out.text.len(),
            });
            out.text.push_str(&text[kept.clone()]);
            if kept.end < span.end {
                out.text.push_str(ELLIPSIS);
            }
            out.text.push('\n');
        }
        out
    }

    /// The excerpt offset of a byte offset of the file (clamped into the kept part of its
    /// line; an offset on no excerpt line goes to the nearest end).
    pub fn offset(&self, file: &SourceFile, byte: usize) -> usize {
        let line = file.line_index(byte);
        let Some(piece) = line
            .checked_sub(self.first_line)
            .and_then(|i| self.lines.get(i))
        else {
            return if line < self.first_line {
                line
            } else {
                self.text.len()
            };
        };
        let inside = byte.clamp(piece.kept.start, piece.kept.end);
        piece.at + (inside - piece.kept.start)
    }

    /// An excerpt range for a file range.
    pub fn range(&self, file: &SourceFile, r: &Range<usize>) -> Range<usize> {
        let start = self.offset(file, r.start);
        start..self.offset(file, r.end).max(start)
    }
}

/// The bytes of a line (`line`, starting at file offset `base`) to keep so that `points`
/// (file offsets on the line) show: the whole line when it is short, otherwise about
/// [`MAX_COLUMNS`] characters starting a little before the first point.
fn window(line: &str, base: usize, points: &[usize]) -> Range<usize> {
    let whole = base..base + line.len();
    if line.len() <= MAX_COLUMNS || line.chars().count() <= MAX_COLUMNS {
        return whole;
    }
    let first = points.iter().copied().min().unwrap_or(base) - base;
    let last = points.iter().copied().max().unwrap_or(base) - base;
    // Character boundaries of the line, in bytes (the line is long: walk it once).
    let bounds: Vec<usize> = line
        .char_indices()
        .map(|(i, _)| i)
        .chain([line.len()])
        .collect();
    let char_at = |byte: usize| bounds.partition_point(|&b| b < byte);
    let (first_c, last_c) = (char_at(first), char_at(last));
    let total = bounds.len() - 1;
    let mut start_c = first_c.saturating_sub(CONTEXT);
    // Show the end of the labels when they fit, with context on both sides.
    if last_c + CONTEXT > start_c + MAX_COLUMNS && last_c - first_c + 2 * CONTEXT <= MAX_COLUMNS {
        start_c = (last_c + CONTEXT).saturating_sub(MAX_COLUMNS);
    }
    let end_c = (start_c + MAX_COLUMNS).min(total);
    let start_c = end_c.saturating_sub(MAX_COLUMNS).min(start_c);
    base + bounds[start_c]..base + bounds[end_c]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_lines_are_kept_whole_and_gaps_are_empty() {
        let file = SourceFile::new("a", "one\ntwo\nthree\nfour\n");
        let ex = Excerpt::new(&file, &[4..7, 14..18]);
        assert_eq!(ex.text, "\ntwo\n\nfour\n");
        assert_eq!(ex.range(&file, &(14..18)), 6..10);
    }

    #[test]
    fn a_label_on_a_long_line_is_shown_in_a_window() {
        let line = format!("k: [{}x{}]", "0,".repeat(5000), ",0".repeat(5000));
        let x = line.find('x').unwrap();
        let file = SourceFile::new("a", format!("{line}\n"));
        let label = x..x + 1;
        let ex = Excerpt::new(&file, std::slice::from_ref(&label));
        let shown = ex.text.trim_end();
        assert!(
            shown.starts_with(ELLIPSIS) && shown.ends_with(ELLIPSIS),
            "{shown}"
        );
        assert!(shown.chars().count() <= MAX_COLUMNS + 2);
        let r = ex.range(&file, &(x..x + 1));
        assert_eq!(&ex.text[r], "x");
    }

    #[test]
    fn a_label_at_the_end_of_a_long_line_keeps_the_end() {
        let line = format!("{}END", "é".repeat(3000));
        let file = SourceFile::new("a", line.clone());
        let at = line.len() - 3;
        let label = at..line.len();
        let ex = Excerpt::new(&file, std::slice::from_ref(&label));
        assert!(ex.text.trim_end().ends_with("END"), "{}", ex.text);
        assert_eq!(&ex.text[ex.range(&file, &(at..line.len()))], "END");
    }
}
