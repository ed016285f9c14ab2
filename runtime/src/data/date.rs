//! `date` columns: text or numbers read as an instant and written as ISO 8601 UTC with
//! milliseconds (`2024-03-07T00:00:00.000Z`), as JavaScript's `new Date(v).toISOString()`.
//!
//! Accepted: ISO 8601 dates and date-times (`2024-03-07`, `2024-03`, `2024`,
//! `2024-03-07T10:30`, `…:45.123Z`, `…+02:00`, a space instead of `T`); `YYYY/MM/DD` and
//! `MM/DD/YYYY`; English month-name forms (`March 7, 2024`, `7 Mar 2024 10:00 GMT`,
//! `Thu, 07 Mar 2024 10:00:00 +0000`); and numbers as milliseconds since 1970. A date alone
//! means UTC midnight. Unlike a browser, a time without an offset is read as UTC too, so a
//! suite gives the same rows on every machine.

/// Days from 1970-01-01 to a proleptic Gregorian date.
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date (year, month, day) of a day number since 1970-01-01 (inverse of
/// [`days_from_civil`]; Howard Hinnant's algorithm): the one civil-date conversion of mcpr.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// Largest magnitude of a JavaScript date, in milliseconds (±100,000,000 days).
const MAX_MS: i64 = 8_640_000_000_000_000;

/// An instant as `YYYY-MM-DDTHH:MM:SS.mmmZ` (six-digit signed years outside 0–9999).
pub fn iso_from_millis(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rest = ms.rem_euclid(86_400_000);
    let (y, m, d) = civil_from_days(days);
    let (h, mi, s, milli) = (
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000,
    );
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:06}", -y)
    } else {
        format!("+{y:06}")
    };
    format!("{year}-{m:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

/// Milliseconds since 1970 of a date and time, after checking every field's range.
#[allow(clippy::too_many_arguments)]
fn millis(
    y: i64,
    m: u32,
    d: u32,
    h: u32,
    mi: u32,
    s: u32,
    ms: u32,
    offset_min: i64,
) -> Option<i64> {
    // A year far past the range of a JavaScript date (±275,760) is no date, and its days
    // would overflow the arithmetic below.
    if y.abs() > 300_000 || !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    if h > 24 || mi > 59 || s > 59 || (h == 24 && (mi, s, ms) != (0, 0, 0)) {
        return None;
    }
    let total = days_from_civil(y, m, d) * 86_400_000
        + i64::from(h) * 3_600_000
        + i64::from(mi) * 60_000
        + i64::from(s) * 1000
        + i64::from(ms)
        - offset_min * 60_000;
    (total.abs() <= MAX_MS).then_some(total)
}

/// Reads `text` as an instant and returns its ISO form, or `None` when it is no date.
pub fn parse_date_text(text: &str) -> Option<String> {
    let t = text.trim();
    iso(t).or_else(|| legacy(t)).map(iso_from_millis)
}

/// A number of milliseconds since 1970 as an ISO instant (`None` outside the date range).
pub fn date_from_millis(ms: f64) -> Option<String> {
    if !ms.is_finite() || ms.abs() > MAX_MS as f64 {
        return None;
    }
    Some(iso_from_millis(ms.trunc() as i64))
}

/// The number of two ASCII digits.
fn two_digits(a: u8, b: u8) -> Option<u32> {
    (a.is_ascii_digit() && b.is_ascii_digit())
        .then(|| u32::from(a - b'0') * 10 + u32::from(b - b'0'))
}

fn digits(s: &str, n: usize) -> Option<u32> {
    (s.len() == n && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().ok())
        .flatten()
}

/// The ISO 8601 subset of `Date.parse`.
fn iso(t: &str) -> Option<i64> {
    let (date, time) = match t.find(['T', 't', ' ']) {
        Some(i) => (&t[..i], Some(&t[i + 1..])),
        None => (t, None),
    };
    let (y, rest) = if let Some(r) = date.strip_prefix('+') {
        (i64::from(digits(r.get(..6)?, 6)?), &r[6..])
    } else if let Some(r) = date.strip_prefix('-') {
        (-i64::from(digits(r.get(..6)?, 6)?), &r[6..])
    } else {
        (i64::from(digits(date.get(..4)?, 4)?), &date[4..])
    };
    let mut parts = rest.split('-').skip(1);
    if !rest.is_empty() && !rest.starts_with('-') {
        return None;
    }
    let m = match parts.next() {
        Some(p) => digits(p, 2)?,
        None => 1,
    };
    let d = match parts.next() {
        Some(p) => digits(p, 2)?,
        None => 1,
    };
    if parts.next().is_some() {
        return None;
    }
    let Some(time) = time else {
        return millis(y, m, d, 0, 0, 0, 0, 0);
    };
    // Offset: Z, or ±HH:MM / ±HHMM at the end.
    let (clock, offset) = if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, 0)
    } else if let Some(i) = time.rfind(['+', '-']) {
        // Compared as bytes: the text after the sign may hold any character, and a slice
        // at a byte offset would cut one in two.
        let (oh, om) = match time.as_bytes()[i + 1..] {
            [a, b, b':', c, d] | [a, b, c, d] => (two_digits(a, b)?, two_digits(c, d)?),
            [a, b] => (two_digits(a, b)?, 0),
            _ => return None,
        };
        let sign = if time.as_bytes()[i] == b'-' { -1 } else { 1 };
        (&time[..i], sign * i64::from(oh * 60 + om))
    } else {
        (time, 0)
    };
    let (hms, frac) = match clock.split_once('.') {
        Some((a, f)) => (a, Some(f)),
        None => (clock, None),
    };
    let mut fields = hms.split(':');
    let h = digits(fields.next()?, 2)?;
    let mi = digits(fields.next()?, 2)?;
    let s = match fields.next() {
        Some(p) => digits(p, 2)?,
        None => 0,
    };
    if fields.next().is_some() {
        return None;
    }
    let ms = match frac {
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => {
            let three: String = f.chars().chain("00".chars()).take(3).collect();
            three.parse().ok()?
        }
        Some(_) => return None,
        None => 0,
    };
    millis(y, m, d, h, mi, s, ms, offset)
}

fn month_number(word: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let w = word.to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    NAMES
        .iter()
        .position(|n| w.starts_with(n))
        .map(|i| i as u32 + 1)
}

/// Month-name and slash forms of `Date.parse`.
fn legacy(t: &str) -> Option<i64> {
    let mut year = None;
    let mut month = None;
    let mut day = None;
    let mut clock = (0, 0, 0);
    let mut offset = 0i64;
    let cleaned: String = t.chars().map(|c| if c == ',' { ' ' } else { c }).collect();
    for word in cleaned.split_whitespace() {
        let lower = word.to_ascii_lowercase();
        if word.contains(':') {
            let mut f = word.split(':');
            let h: u32 = f.next()?.parse().ok()?;
            let m: u32 = f.next()?.parse().ok()?;
            let s: u32 = match f.next() {
                Some(x) => x.parse().ok()?,
                None => 0,
            };
            clock = (h, m, s);
        } else if word.contains('/') {
            let f: Vec<&str> = word.split('/').collect();
            if f.len() != 3 {
                return None;
            }
            let n: Vec<i64> = f.iter().map(|x| x.parse().ok()).collect::<Option<_>>()?;
            if f[0].len() == 4 {
                (year, month, day) = (Some(n[0]), Some(n[1] as u32), Some(n[2] as u32));
            } else {
                (month, day, year) = (Some(n[0] as u32), Some(n[1] as u32), Some(n[2]));
            }
        } else if matches!(lower.as_str(), "gmt" | "utc" | "z" | "ut") {
        } else if let Some(rest) = word.strip_prefix(['+', '-']) {
            let sign = if word.starts_with('-') { -1 } else { 1 };
            let v = digits(rest, 4)?;
            offset = sign * i64::from(v / 100 * 60 + v % 100);
        } else if let Some(m) = month_number(word) {
            month = Some(m);
        } else if word.bytes().all(|b| b.is_ascii_digit()) {
            let n: i64 = word.parse().ok()?;
            if word.len() >= 3 || n > 31 || day.is_some() {
                year = Some(n);
            } else {
                day = Some(n as u32);
            }
        } else if ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
            .iter()
            .any(|d| lower.starts_with(d))
        {
        } else {
            return None;
        }
    }
    millis(
        year?,
        month?,
        day.unwrap_or(1),
        clock.0,
        clock.1,
        clock.2,
        0,
        offset,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_forms() {
        for (input, out) in [
            ("2024-03-07", "2024-03-07T00:00:00.000Z"),
            ("2024-03", "2024-03-01T00:00:00.000Z"),
            ("2024", "2024-01-01T00:00:00.000Z"),
            ("2024-03-07T10:30", "2024-03-07T10:30:00.000Z"),
            ("2024-03-07T10:30:45.5Z", "2024-03-07T10:30:45.500Z"),
            ("2024-03-07T10:30:45.123456Z", "2024-03-07T10:30:45.123Z"),
            ("2024-03-07T01:00:00+02:00", "2024-03-06T23:00:00.000Z"),
            ("2024-03-07 10:30:00", "2024-03-07T10:30:00.000Z"),
            ("2024-02-29", "2024-02-29T00:00:00.000Z"),
            ("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"),
        ] {
            assert_eq!(parse_date_text(input).as_deref(), Some(out), "{input}");
        }
    }

    #[test]
    fn legacy_forms() {
        for (input, out) in [
            ("March 7, 2024", "2024-03-07T00:00:00.000Z"),
            ("7 Mar 2024 10:00 GMT", "2024-03-07T10:00:00.000Z"),
            (
                "Thu, 07 Mar 2024 10:00:00 +0100",
                "2024-03-07T09:00:00.000Z",
            ),
            ("2024/03/07", "2024-03-07T00:00:00.000Z"),
            ("03/07/2024", "2024-03-07T00:00:00.000Z"),
        ] {
            assert_eq!(parse_date_text(input).as_deref(), Some(out), "{input}");
        }
    }

    #[test]
    fn non_dates() {
        for input in [
            "",
            "soon",
            "2023-02-29",
            "2024-13-01",
            "2024-03-07T25:00",
            "12",
            // A multi-byte character where an offset's digits stand, and years past any
            // date's range.
            "2024-01-01T10:00+1é1",
            "2024-01-01T10:00+é",
            "2024-01-01T10:00-1é",
            "March 7, 99999999999999999",
            "99999999999/01/01",
        ] {
            assert_eq!(parse_date_text(input), None, "{input}");
        }
        assert_eq!(
            date_from_millis(0.0).as_deref(),
            Some("1970-01-01T00:00:00.000Z")
        );
        assert_eq!(
            date_from_millis(1_709_769_600_000.0).as_deref(),
            Some("2024-03-07T00:00:00.000Z")
        );
    }
}
