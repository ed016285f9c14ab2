//! Go to definition and find references: flows, tests, exports, data sources and imported
//! files, over the entry and the files it imports.

use lsp_types::{Location, Position, Range};

use crate::convert;
use crate::index::{Place, Target};
use crate::open::Open;
use crate::store;

/// A place of the compilation as an editor location.
pub(crate) fn location(open: &Open, place: Place) -> Option<Location> {
    let file = open.analysis.map.files().get(place.file)?;
    Some(Location {
        uri: store::path_to_uri(file.path())?,
        range: convert::range(file, place.span),
    })
}

/// Where the name under the cursor is declared (an imported file: its first line).
pub(crate) fn definition(open: &Open, offset: usize) -> Option<Location> {
    let (target, _) = open.index.target_at(0, offset)?;
    if let Target::File(path) = &target {
        return Some(Location {
            uri: store::path_to_uri(path)?,
            range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        });
    }
    location(open, open.index.definition(&target)?)
}

/// Every use of the name under the cursor, with its declaration when asked.
pub(crate) fn references(open: &Open, offset: usize, declaration: bool) -> Option<Vec<Location>> {
    let (target, _) = open.index.target_at(0, offset)?;
    let mut places: Vec<Place> = Vec::new();
    if declaration && let Some(d) = open.index.definition(&target) {
        places.push(d);
    }
    places.extend(open.index.uses_of(&target));
    places.dedup();
    Some(
        places
            .into_iter()
            .filter_map(|p| location(open, p))
            .collect(),
    )
}
