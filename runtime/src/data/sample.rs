//! `sample`: which of the filtered rows a source keeps (mcp-test-language-1.md §4.9).
//!
//! `{count, seed}` is the first implementation's seeded shuffle, bit for bit: a 32-bit linear
//! congruential generator `s = (s × 1664525 + 1013904223) mod 2³²` whose draws are
//! `r = s / 2³²`, a Fisher–Yates shuffle of the row positions from the last index down with
//! `j = floor(r × (i + 1))`, the first `count` positions of the shuffle, put back in source
//! order. The same seed therefore picks the same rows in both tools.

use crate::codes::RunCode;
use mcpr_compiler::ir::Sample;

use super::error::DataError;

/// The seed used when a `{count}` sample names none.
pub const DEFAULT_SEED: u64 = 42;

/// A validated sample specification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// The first N rows.
    First(usize),
    /// The last N rows.
    Last(usize),
    /// Positions 0, N, 2N, …
    Every(usize),
    /// N rows chosen by the seeded shuffle, in source order.
    Random {
        /// How many rows.
        count: usize,
        /// Seed of the generator (taken modulo 2³²).
        seed: u32,
    },
}

/// Checks a sample specification: every number must be at least 1 (`MCP-DATA-023`).
pub fn plan(sample: &Sample) -> Result<Plan, DataError> {
    let (what, n) = match sample {
        Sample::Count(n) => ("sample", *n),
        Sample::First(f) => ("first", f.first),
        Sample::Last(l) => ("last", l.last),
        Sample::Every(e) => ("every", e.every),
        Sample::Random(r) => ("count", r.count),
    };
    if n == 0 {
        return Err(DataError::new(
            RunCode::BadSample,
            format!("The sample's `{what}` is 0; it must be a whole number of at least 1."),
        )
        .help("sample at least one row, or remove the sample"));
    }
    let n = usize::try_from(n).unwrap_or(usize::MAX);
    Ok(match sample {
        Sample::Count(_) | Sample::First(_) => Plan::First(n),
        Sample::Last(_) => Plan::Last(n),
        Sample::Every(_) => Plan::Every(n),
        Sample::Random(r) => Plan::Random {
            count: n,
            seed: (r.seed.unwrap_or(DEFAULT_SEED) % (1u64 << 32)) as u32,
        },
    })
}

/// The generator of the seeded shuffle.
#[derive(Debug, Clone)]
pub struct Lcg(u32);

impl Lcg {
    /// A generator starting from `seed`.
    pub fn new(seed: u32) -> Lcg {
        Lcg(seed)
    }

    /// Advances the state and returns it as a fraction in `[0, 1)`.
    pub fn next_fraction(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        f64::from(self.0) / 4_294_967_296.0
    }
}

/// Positions (ascending) of the `count` rows out of `len` that the seeded shuffle keeps.
pub fn random_positions(len: usize, count: usize, seed: u32) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    let mut rng = Lcg::new(seed);
    for i in (1..len).rev() {
        let j = (rng.next_fraction() * (i as f64 + 1.0)).floor() as usize;
        order.swap(i, j.min(i));
    }
    order.truncate(count.min(len));
    order.sort_unstable();
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_follows_its_definition() {
        // s1 = 42 × 1664525 + 1013904223 = 1083814273 (below 2³², no wrap)
        let mut g = Lcg::new(42);
        assert_eq!(g.next_fraction(), 1_083_814_273.0 / 4_294_967_296.0);
        // s2 = (1083814273 × 1664525 + 1013904223) mod 2³² = 378494188
        assert_eq!(g.next_fraction(), 378_494_188.0 / 4_294_967_296.0);
    }

    #[test]
    fn a_zero_sample_is_refused() {
        let e = plan(&Sample::Count(0)).unwrap_err();
        assert_eq!(e.code, "MCP-DATA-023");
    }
}
