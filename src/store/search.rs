//! Searching a tenant's pastes ([`PasteStore::search`]): the query a store is
//! handed, and the cursor of a page of results, the same text for every
//! backend.
//!
//! Results are ranked, best first, and ranks move as pastes come and go, so
//! a page is where it starts in the ranking: the cursor is that position,
//! `r` and a decimal number. A search reaches its first
//! [`MAX_SEARCH_RESULTS`] results only (ten pages of 20), which bounds what
//! one request ranks and holds; a person refines the query instead of
//! paging further.
//!
//! [`PasteStore::search`]: super::PasteStore::search

use crate::core::PasteMeta;
use crate::core::search::Terms;

use super::StoreError;

/// The most results a search reaches, over all its pages.
///
/// On PostgreSQL it is also how many of the newest matches a search ranks,
/// and ranking reads each one's vector: the cost of a search of a common
/// word grows with it (docs/performance.md, "Search").
pub const MAX_SEARCH_RESULTS: usize = 200;

/// A page request for [`super::PasteStore::search`].
#[derive(Debug, Clone)]
pub struct SearchQuery {
    /// What to search for.
    pub terms: Terms,
    /// Continue at this cursor (from a previous page's `next_cursor`).
    pub cursor: Option<String>,
    /// Most pastes per page.
    pub limit: usize,
    /// The subject of the person searching, if a person is (as
    /// [`ListQuery::viewer`](super::ListQuery)).
    pub viewer: Option<String>,
    /// Only the viewer's own pastes.
    pub mine: bool,
}

impl SearchQuery {
    /// Whether a hit, a live paste of the owner, is shown to the caller:
    /// as in a listing ([`ListQuery::admits`](super::ListQuery::admits)).
    pub fn admits(&self, meta: &PasteMeta) -> bool {
        super::pastes::listed_for(meta, self.viewer.as_deref(), self.mine)
    }

    /// Where the page starts in the ranking, and how many results it may
    /// hold: at most `limit`, and none past [`MAX_SEARCH_RESULTS`].
    pub fn window(&self) -> Result<(usize, usize), StoreError> {
        let start = match &self.cursor {
            Some(cursor) => decode(cursor)?,
            None => 0,
        };
        Ok((start, self.limit.min(MAX_SEARCH_RESULTS - start)))
    }

    /// The cursor of the page after one that started at `start` and held
    /// `taken` ranks, when `more` says results follow it.
    pub fn next_cursor(start: usize, taken: usize, more: bool) -> Option<String> {
        let next = start + taken;
        (more && next < MAX_SEARCH_RESULTS).then(|| format!("r{next}"))
    }
}

/// The position a cursor names; [`StoreError::BadCursor`] if no search
/// handed it out.
fn decode(cursor: &str) -> Result<usize, StoreError> {
    cursor
        .strip_prefix('r')
        .filter(|n| !n.is_empty() && n.len() <= 4 && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0 && n < MAX_SEARCH_RESULTS)
        .ok_or(StoreError::BadCursor)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(cursor: Option<&str>, limit: usize) -> SearchQuery {
        SearchQuery {
            terms: Terms::parse("x").unwrap(),
            cursor: cursor.map(Into::into),
            limit,
            viewer: None,
            mine: false,
        }
    }

    /// A cursor is a position; the window never passes the last result reached.
    #[test]
    fn windows() {
        assert_eq!(query(None, 50).window().unwrap(), (0, 50));
        assert_eq!(query(Some("r50"), 50).window().unwrap(), (50, 50));
        assert_eq!(query(Some("r180"), 50).window().unwrap(), (180, 20));
        assert_eq!(
            SearchQuery::next_cursor(0, 50, true).as_deref(),
            Some("r50")
        );
        assert_eq!(SearchQuery::next_cursor(0, 50, false), None);
        assert_eq!(SearchQuery::next_cursor(180, 20, true), None);
    }

    /// Text no search handed out is refused.
    #[test]
    fn refuses_foreign_cursors() {
        for bad in [
            "",
            "r",
            "r0",
            "r200",
            "r-1",
            "r+5",
            "50",
            "r 5",
            "r00050",
            "ffffffffffffffef",
        ] {
            assert!(
                matches!(query(Some(bad), 50).window(), Err(StoreError::BadCursor)),
                "{bad:?}"
            );
        }
    }
}
