//! The listing query: a page of an owner's live pastes, newest first, from
//! a bounded scan of its rows ([`PasteStore::list`] runs it).
//!
//! [`PasteStore::list`]: crate::store::PasteStore::list

use super::rows::META_COLUMNS;

/// The column of [`list_statement`]'s rows after [`META_COLUMNS`]: `true` for
/// a paste of the page, `false` for the last row the scan read.
pub(super) const HIT_COLUMN: usize = super::rows::META_LEN;

/// The listing query. Parameters: `$1` owner, `$2` now, `$3` name prefix
/// (or null), `$4` most rows read, `$5` most pastes returned (the page's
/// limit plus one, which tells whether another page follows), `$6` the
/// viewer's subject (or null: only-me pastes of others are left out, as
/// [`ListQuery::admits`] says), `$7` only the viewer's own, and with a
/// cursor `$8`, `$9` its creation time and ID.
///
/// [`ListQuery::admits`]: crate::store::ListQuery::admits
///
/// `scanned` reads at most `$4` of the owner's rows in the order of the
/// `pastes_owner` index (newest first, ties by ID), from the cursor on;
/// the page is picked from those alone. When it read all `$4`, its last row
/// comes after the page's (`hit` false): where the next page starts.
pub(super) fn list_statement(with_cursor: bool) -> String {
    // `created_at <= $6` bounds the index scan; the rest skips the rows of
    // the cursor's own second up to its ID.
    let after = if with_cursor {
        "AND created_at <= $8 AND (created_at < $8 OR id > $9)"
    } else {
        ""
    };
    format!(
        "WITH scanned AS (
             SELECT {META_COLUMNS} FROM pastes
             WHERE owner = $1 {after}
             ORDER BY created_at DESC, id
             LIMIT $4
         ),
         hits AS (
             SELECT *, true AS hit FROM scanned
             WHERE (expires_at IS NULL OR expires_at > $2)
               AND ($3::text IS NULL OR starts_with(name, $3))
               AND (visibility <> 'me' OR author_subject = $6::text) IS TRUE
               AND (NOT $7::boolean OR author_subject = $6::text) IS TRUE
             ORDER BY created_at DESC, id
             LIMIT $5
         ),
         last_read AS (
             SELECT *, false AS hit FROM scanned
             WHERE (SELECT count(*) FROM scanned) = $4
             ORDER BY created_at, id DESC
             LIMIT 1
         )
         SELECT * FROM (SELECT * FROM hits UNION ALL SELECT * FROM last_read) AS page
         ORDER BY hit DESC, created_at DESC, id"
    )
}
