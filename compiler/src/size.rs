//! Sizes in bytes as people write and read them: `16 MiB`, `500KB`, `2000000`.

/// The size limit of every file a compilation reads, unless `lower::Options::max_file_bytes`
/// says otherwise: far above any suite written by hand, and above what `mcpr compile` and
/// `mcpr convert` write for the largest suites `check` handles comfortably, while keeping
/// the memory of checking an untrusted file bounded.
pub const DEFAULT_MAX_FILE_BYTES: usize = 16 * 1024 * 1024;

const UNITS: [(&str, usize); 7] = [
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
    ("GB", 1_000_000_000),
    ("MB", 1_000_000),
    ("KB", 1_000),
    ("B", 1),
];

/// A size for people: in the largest binary unit that divides it (`16 MiB`, `4 KiB`), else
/// in bytes.
pub fn shown(bytes: usize) -> String {
    for (unit, factor) in &UNITS[..3] {
        if bytes >= *factor && bytes.is_multiple_of(*factor) {
            return format!("{} {unit}", bytes / factor);
        }
    }
    format!("{bytes} bytes")
}

/// A number of bytes with its binary unit when one divides it: `16777216 bytes (16 MiB)`,
/// `300 bytes`.
pub fn bytes_and_unit(bytes: usize) -> String {
    let unit = shown(bytes);
    if unit.ends_with(" bytes") {
        unit
    } else {
        format!("{bytes} bytes ({unit})")
    }
}

/// Reads a size: a whole number of bytes, optionally followed by a unit (`KiB`, `MiB`,
/// `GiB` are powers of 1024, `KB`, `MB`, `GB` powers of 1000, `B` bytes; the case of the
/// unit and a space before it do not matter).
pub fn parse(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let digits = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (number, unit) = t.split_at(digits);
    let unit = unit.trim_start();
    let bad = || {
        format!(
            "`{text}` is not a size: write a number of bytes, optionally with a unit such as KiB, MiB or MB (e.g. `32MiB`)"
        )
    };
    let n: usize = number.parse().map_err(|_| bad())?;
    let factor = if unit.is_empty() {
        1
    } else {
        UNITS
            .iter()
            .find(|(u, _)| u.eq_ignore_ascii_case(unit))
            .map(|(_, f)| *f)
            .ok_or_else(bad)?
    };
    n.checked_mul(factor)
        .ok_or_else(|| format!("`{text}` is larger than this machine can count"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_with_and_without_units() {
        assert_eq!(parse("2000000"), Ok(2_000_000));
        assert_eq!(parse("32MiB"), Ok(32 << 20));
        assert_eq!(parse("32 mib"), Ok(32 << 20));
        assert_eq!(parse("500KB"), Ok(500_000));
        assert_eq!(parse("1 GiB"), Ok(1 << 30));
        assert_eq!(parse("7B"), Ok(7));
        assert!(parse("").is_err());
        assert!(parse("12 parsecs").is_err());
        assert!(parse("-5").is_err());
        assert!(parse("1.5MiB").is_err());
        assert!(parse("99999999999999999999 GiB").is_err());
    }

    #[test]
    fn sizes_are_shown_in_the_largest_unit_that_divides_them() {
        assert_eq!(shown(16 << 20), "16 MiB");
        assert_eq!(shown(4096), "4 KiB");
        assert_eq!(shown(1_000_000), "1000000 bytes");
        assert_eq!(shown(0), "0 bytes");
        assert_eq!(bytes_and_unit(16 << 20), "16777216 bytes (16 MiB)");
        assert_eq!(bytes_and_unit(300), "300 bytes");
    }
}
