//! Documentation pages of diagnostic codes.
use super::Code;
/// The page of a code.
pub fn page(_code: Code) -> Option<&'static str> {
    None
}
