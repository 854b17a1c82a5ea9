//! Searching on PostgreSQL: its own full-text search over `paste_search`
//! (migrations 9 and 11), a narrow row per paste with an owner holding a
//! `tsvector` of the words `core::search` finds searchable in it, written
//! with the paste (`insert`) and ranked with `ts_rank` (`search.sql`), the
//! newest [`RANKED_MATCHES`] matches of a search.
//!
//! snip computes the words, not SQL: a body may be compressed or
//! encrypted, and reducing every text to words joined by spaces makes
//! PostgreSQL's parser see the same words as the embedded index (never a
//! URL or a path as one token). Rows with an owner stored before the
//! migration are filled in at start ([`PostgresStore::fill_search`]).

use std::sync::LazyLock;

use tokio_postgres::types::Type;

use super::rows::{META_COLUMNS, META_LEN, meta_from_row, to_i64};
use super::{PostgresStore, db_error};
use crate::core::UnixTime;
use crate::core::search::{INDEXED_BYTES, Searchable, content_searchable};
use crate::store::codec::{self, Stored};
use crate::store::{Encoding, ListPage, MAX_SEARCH_RESULTS, SearchQuery, StoreError};

/// The search statement (`search.sql`), with the metadata columns.
static SEARCH: LazyLock<String> =
    LazyLock::new(|| include_str!("search.sql").replace("{META_COLUMNS}", META_COLUMNS));

/// The most matches a search ranks, the newest (`search.sql`): as many as
/// a search may reach.
const RANKED_MATCHES: i64 = MAX_SEARCH_RESULTS as i64;

/// Rows [`PostgresStore::fill_search`] fills in per statement.
const FILL_BATCH: i64 = 100;

/// The three parameters of `snip_search_vector` (migration 9) for a
/// paste: all NULL, and so the vector, for one without an owner.
pub(super) fn vector_params(searchable: Option<&Searchable>) -> [Option<&str>; 3] {
    match searchable {
        Some(s) => [Some(&s.names), Some(&s.langs), Some(&s.content)],
        None => [None; 3],
    }
}

impl PostgresStore {
    /// A page of `owner`'s live pastes that match `query`, best first.
    pub(super) async fn search_page(
        &self,
        owner: &str,
        query: &SearchQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let (start, take) = query.window()?;
        let mut page = ListPage::default();
        if take == 0 {
            return Ok(page);
        }
        let client = self.client().await?;
        let words = query.terms.joined();
        // Unprepared (PostgreSQL's unnamed statement, in one round trip):
        // planned for these words every time (`search.sql`).
        let rows = client
            .query_typed(
                &SEARCH,
                &[
                    (&owner, Type::TEXT),
                    (&words, Type::TEXT),
                    (&to_i64(now), Type::INT8),
                    (&to_i64(take as u64 + 1), Type::INT8),
                    (&to_i64(start as u64), Type::INT8),
                    (&RANKED_MATCHES, Type::INT8),
                ],
            )
            .await
            .map_err(db_error)?;
        for row in rows.iter().take(take) {
            let meta = meta_from_row(row)?;
            if query.admits(&meta) {
                page.pastes.push(meta);
            }
        }
        page.next_cursor = SearchQuery::next_cursor(start, take, rows.len() > take);
        Ok(page)
    }
}

impl PostgresStore {
    /// Makes the pastes with an owner stored before migration 9
    /// searchable, a batch at a time (none after the first start: an index
    /// of the rows left says so at once). Instances starting together may
    /// fill the same rows; each writes the same vector.
    pub(super) async fn fill_search(&self) -> Result<u64, StoreError> {
        let select = format!(
            "SELECT {META_COLUMNS}, substring(body from 1 for {INDEXED_BYTES}), body_encoding
             FROM pastes WHERE id IN (
                SELECT id FROM paste_search WHERE words IS NULL LIMIT {FILL_BATCH}
             )"
        );
        let mut filled = 0;
        loop {
            let client = self.client().await?;
            let rows = client.query(&select, &[]).await.map_err(db_error)?;
            if rows.is_empty() {
                return Ok(filled);
            }
            let update = client
                .prepare_cached(
                    "UPDATE paste_search SET words = snip_search_vector($2, $3, $4)
                     WHERE id = $1 AND words IS NULL",
                )
                .await
                .map_err(db_error)?;
            for row in &rows {
                let id: String = row.get(0);
                // A row that does not decode is given an empty vector, so
                // that it is not read again at every start.
                let searchable = match meta_from_row(row) {
                    Ok(meta) => {
                        let head = match content_searchable(&meta) {
                            true => row_head(row),
                            false => None,
                        };
                        Searchable::of(&meta, head.as_deref())
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot make a stored paste searchable");
                        Searchable::default()
                    }
                };
                let [names, langs, content] = vector_params(Some(&searchable));
                client
                    .execute(&update, &[&id, &names, &langs, &content])
                    .await
                    .map_err(db_error)?;
                filled += 1;
            }
        }
    }
}

/// The start of the body of a row [`PostgresStore::fill_search`] read,
/// decoded: the start of a zstd stream decodes to the start of its body.
fn row_head(row: &tokio_postgres::Row) -> Option<bytes::Bytes> {
    let start: Vec<u8> = row.get::<_, Option<Vec<u8>>>(META_LEN)?;
    let encoding = Encoding::from_name(row.get::<_, &str>(META_LEN + 1))?;
    codec::head(
        &Stored {
            bytes: start.into(),
            encoding,
        },
        INDEXED_BYTES,
    )
}
