//! Byte searches for the hot paths of the compiler and of the stdio framing. Lines are short,
//! and the standard library's general search spends more on getting started than on searching
//! forty bytes; this one reads eight bytes per step from the first byte on.

const LOW: u64 = 0x0101_0101_0101_0101;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The position of the first `needle` in `hay`.
pub fn find_byte(hay: &[u8], needle: u8) -> Option<usize> {
    let pattern = LOW * u64::from(needle);
    let mut chunks = hay.chunks_exact(8);
    let mut base = 0;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        // A byte equal to the needle becomes zero; the lowest zero byte sets the high bit
        // of its lane exactly (a borrow can only mark lanes above it).
        let x = u64::from_le_bytes(word) ^ pattern;
        let zero = x.wrapping_sub(LOW) & !x & HIGH;
        if zero != 0 {
            return Some(base + (zero.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    chunks
        .remainder()
        .iter()
        .position(|&b| b == needle)
        .map(|i| base + i)
}

/// The position of the first `needle` in `s` at or after `from` (a byte offset).
pub fn find_from(s: &str, from: usize, needle: u8) -> Option<usize> {
    s.as_bytes()
        .get(from..)
        .and_then(|rest| find_byte(rest, needle))
        .map(|i| from + i)
}

/// Whether `needle` occurs in `hay`: a search for its first byte, then a comparison. For a
/// needle whose first byte is rare in the text (`$`), this costs a few steps per line where
/// a general substring search spends hundreds of instructions setting up.
pub fn contains(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return true;
    };
    let mut from = 0;
    while let Some(i) = hay.get(from..).and_then(|rest| find_byte(rest, first)) {
        let at = from + i;
        if hay[at..].starts_with(needle) {
            return true;
        }
        from = at + 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_what_a_plain_search_finds() {
        // Every length up to three chunks, the needle at every place or nowhere, with
        // bytes around it that differ from it by one bit (the borrow's worst case).
        for len in 0..26 {
            for at in (0..len).map(Some).chain([None]) {
                for &(needle, filler) in &[(b'\t', b'\x08'), (b'$', b'%'), (0x80, 0x81), (0, 1)] {
                    let mut hay = vec![filler; len];
                    if let Some(i) = at {
                        hay[i] = needle;
                        // A second one later must not win.
                        if i + 3 < len {
                            hay[i + 3] = needle;
                        }
                    }
                    assert_eq!(
                        find_byte(&hay, needle),
                        hay.iter().position(|&b| b == needle),
                        "len {len}, at {at:?}, needle {needle:#x}"
                    );
                }
            }
        }
    }

    #[test]
    fn contains_as_the_standard_search_does() {
        let needle = "${deps.";
        for hay in [
            "",
            "$",
            "${deps",
            "${deps.",
            "x ${deps.a.b}",
            "$${deps.x}",
            "${dep ${deps.y}",
            "$ {deps.",
            "no reference at all, a long line of forty and more bytes",
            "é${deps.ü}",
        ] {
            assert_eq!(contains(hay, needle), hay.contains(needle), "{hay:?}");
        }
        assert!(contains("anything", ""));
    }

    #[test]
    fn searches_from_an_offset() {
        assert_eq!(find_from("a$b$c", 0, b'$'), Some(1));
        assert_eq!(find_from("a$b$c", 2, b'$'), Some(3));
        assert_eq!(find_from("a$b$c", 4, b'$'), None);
        assert_eq!(find_from("a$b$c", 9, b'$'), None);
    }
}
