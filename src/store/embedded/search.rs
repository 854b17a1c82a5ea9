//! The embedded store's search index: a tantivy index in `search/` beside
//! fjall, of every paste with an owner (only tenants search), kept by one
//! thread of its own.
//!
//! A create, delete, reveal or sweep only queues the paste's ID (a bounded
//! queue: a writer waits when the index lags that far behind). The thread
//! takes what is queued, looks each added paste up in the store, indexes
//! what `core::search` says is searchable (its names and languages, and the
//! first `INDEXED_BYTES` of its text), and commits the lot as one tantivy
//! commit. It makes tantivy's writer (its threads and buffers) at the first
//! change, so a server whose tenants never write holds none. Looking the
//! paste up when it is indexed, not when it is queued, keeps a removal that
//! overtakes its create from leaving it in the index.
//!
//! A paste is one document of two indexed fields: its owner, and its
//! words: the words of its names [`NAME_WEIGHT`] times, of its languages
//! [`LANG_WEIGHT`] times, and of its text once. Repeating a field's words
//! weighs them in BM25 (BM25F's field weights, as whole numbers): a match
//! in a name counts most, in a language next, in the text least. A search
//! is then the intersection of plain term queries (the owner's, scored
//! zero, and one per word), which tantivy ranks with block-max pruning: it
//! skips the blocks of postings that cannot reach the page being asked
//! for, so a common word does not cost a score for every paste holding it.
//!
//! A search first waits until the thread has applied everything queued
//! before it began (so it finds every paste whose create was answered
//! before it), then reads each hit's metadata back from the store, which
//! drops any paste gone meanwhile.
//!
//! The index is derived data. A clean close leaves the file `search/clean`
//! holding [`SCHEMA`]; an open that does not find it (first start, index
//! deleted, `kill -9`, which may have lost the last commits, or an index of
//! another schema) deletes what is there and rebuilds the index from the
//! store on a thread of its own, while searches wait.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tantivy::collector::TopDocs;
use tantivy::directory::MmapDirectory;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions, Value,
};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::body_files::{self, is_file_backed};
use super::{Inner, lock};
use crate::core::search::{INDEXED_BYTES, Searchable, content_searchable};
use crate::core::{PasteMeta, UnixTime};
use crate::store::{ListPage, SearchQuery, StoreError};

/// The index's directory in the data dir.
const DIR_NAME: &str = "search";
/// The file a clean close leaves in it, holding [`SCHEMA`].
const CLEAN: &str = "clean";
/// The version of the index's layout ([`Fields`] and what goes in them);
/// an index of another version is rebuilt.
const SCHEMA: &str = "2";
/// Operations the queue holds before writers wait: one commit's worth
/// (its slots, an ID each, are allocated whole at start).
const QUEUE: usize = BATCH;
/// Most operations applied in one tantivy commit.
const BATCH: usize = 4096;
/// tantivy's smallest indexing budget (one thread); memory is taken as
/// documents arrive, up to it.
const WRITER_BYTES: usize = 15_000_000;
/// How long a search waits for the index to catch up (a rebuild of a large
/// store takes longer: the search is then refused, to be retried).
const CATCH_UP: Duration = Duration::from_secs(10);
/// Pastes read per page of a rebuild's scan.
const SCAN_PAGE: usize = 256;
/// How many times a paste's names are in its words (a word in a name
/// counts most).
const NAME_WEIGHT: usize = 4;
/// How many times its languages are in its words.
const LANG_WEIGHT: usize = 2;

/// One change for the index thread.
enum Op {
    /// Index the paste with this ID (again), as the store holds it then.
    Add(String),
    /// Forget the paste with this ID.
    Remove(String),
    /// A rebuild has queued every paste: the index is complete once
    /// this is applied.
    Rebuilt,
}

/// The schema's fields.
#[derive(Clone, Copy)]
struct Fields {
    /// The paste's ID, stored and indexed whole (deletes go by it).
    id: Field,
    /// Its owner, indexed whole: every search is within one.
    owner: Field,
    /// Its names, languages and text, weighted (see the module's doc).
    words: Field,
}

impl Fields {
    fn schema() -> (Schema, Self) {
        let mut builder = Schema::builder();
        // Frequencies, which block-max pruning needs (the owner's too, to
        // take part in it); no positions: no phrase queries.
        let indexed = |tokenizer| {
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(tokenizer)
                    .set_index_option(IndexRecordOption::WithFreqs),
            )
        };
        let fields = Self {
            id: builder.add_text_field("id", STRING | STORED),
            owner: builder.add_text_field("owner", indexed("raw")),
            words: builder.add_text_field("words", indexed("default")),
        };
        (builder.build(), fields)
    }
}

/// How far the index thread is.
#[derive(Default)]
struct Progress {
    /// Operations queued so far (counted before each is sent).
    queued: AtomicU64,
    state: Mutex<Applied>,
    changed: Condvar,
}

#[derive(Default)]
struct Applied {
    /// Operations the thread has applied and committed.
    ops: u64,
    /// Whether the index holds every paste (no rebuild is under way).
    complete: bool,
    /// Whether a commit failed: the index cannot be trusted until a
    /// restart rebuilds it (the log says why).
    failed: bool,
}

/// The search index and the thread that keeps it.
pub(super) struct SearchIndex {
    dir: PathBuf,
    fields: Fields,
    reader: IndexReader,
    /// `None` once closed.
    queue: Mutex<Option<SyncSender<Op>>>,
    progress: Arc<Progress>,
    /// What [`Self::start`] hands the thread.
    pending: Mutex<Option<(Index, Receiver<Op>)>>,
    /// Whether to rebuild from the store at start.
    rebuild: bool,
    closing: Arc<AtomicBool>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

fn index_error(what: &str, e: impl std::error::Error + Send + Sync + 'static) -> StoreError {
    StoreError::backend_caused(format!("search index: {what}"), e)
}

impl SearchIndex {
    /// Opens the index in `data_dir`, or makes an empty one to rebuild if it
    /// was not closed cleanly. Nothing runs until [`Self::start`].
    pub(super) fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let dir = data_dir.join(DIR_NAME);
        let clean = dir.join(CLEAN);
        let rebuild = !std::fs::read(&clean).is_ok_and(|held| held == SCHEMA.as_bytes());
        if rebuild && dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| index_error("cannot delete", e))?;
        }
        body_files::create_private_dir(&dir).map_err(|e| index_error("cannot create", e))?;
        if !rebuild {
            // From now on, until a clean close, the index may lag the store.
            std::fs::remove_file(&clean).map_err(|e| index_error("cannot mark open", e))?;
            body_files::sync_dir(&dir)?;
        }
        let (schema, fields) = Fields::schema();
        let directory = MmapDirectory::open(&dir).map_err(|e| index_error("cannot open", e))?;
        let index =
            Index::open_or_create(directory, schema).map_err(|e| index_error("cannot open", e))?;
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(|e| index_error("cannot read", e))?;
        let (queue, received) = sync_channel(QUEUE);
        Ok(Self {
            dir,
            fields,
            reader,
            queue: Mutex::new(Some(queue)),
            progress: Arc::new(Progress::default()),
            pending: Mutex::new(Some((index, received))),
            rebuild,
            closing: Arc::new(AtomicBool::new(false)),
            threads: Mutex::new(Vec::new()),
        })
    }

    /// Starts the index thread, and the rebuild if one is needed; both
    /// reach the store through `store`, which they do not keep alive.
    pub(super) fn start(&self, store: Weak<Inner>) {
        let Some((index, received)) = lock(&self.pending).take() else {
            return;
        };
        lock(&self.progress.state).complete = !self.rebuild;
        let keeper = Keeper {
            index,
            writer: None,
            reader: self.reader.clone(),
            fields: self.fields,
            progress: self.progress.clone(),
            store: store.clone(),
            clean: self.dir.join(CLEAN),
        };
        let mut threads = lock(&self.threads);
        threads.push(spawn("snip-search", move || keeper.run(&received)));
        if self.rebuild {
            let queue = lock(&self.queue).clone();
            let (progress, closing) = (self.progress.clone(), self.closing.clone());
            if let Some(queue) = queue {
                threads.push(spawn("snip-search-rebuild", move || {
                    rebuild(&store, &queue, &progress, &closing);
                }));
            }
        }
    }

    /// Queues the paste `id` to be indexed.
    pub(super) fn added(&self, id: &str) {
        self.send(Op::Add(id.to_owned()));
    }

    /// Queues the paste `id` to be forgotten.
    pub(super) fn removed(&self, id: &str) {
        self.send(Op::Remove(id.to_owned()));
    }

    fn send(&self, op: Op) {
        let queue = lock(&self.queue).clone();
        if let Some(queue) = queue {
            send(&queue, &self.progress, op);
        }
    }

    /// A page of `owner`'s live pastes that match `query`, best first.
    /// Blocks; runs on a blocking thread.
    pub(super) fn search(
        &self,
        store: &Inner,
        owner: &str,
        query: &SearchQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let (start, take) = query.window()?;
        self.catch_up()?;
        let mut page = ListPage::default();
        if take == 0 {
            return Ok(page);
        }
        let f = self.fields;
        let term = |field: Field, text: &str| {
            TermQuery::new(
                Term::from_field_text(field, text),
                IndexRecordOption::WithFreqs,
            )
        };
        // The owner's term, scored zero: it only filters, and keeps the
        // whole query an intersection of terms.
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = vec![(
            Occur::Must,
            Box::new(BoostQuery::new(Box::new(term(f.owner, owner)), 0.0)),
        )];
        for w in query.terms.words() {
            clauses.push((Occur::Must, Box::new(term(f.words, w))));
        }
        let searcher = self.reader.searcher();
        let hits = searcher
            .search(
                &BooleanQuery::new(clauses),
                &TopDocs::with_limit(take + 1)
                    .and_offset(start)
                    .order_by_score(),
            )
            .map_err(|e| index_error("cannot search", e))?;
        for (_, address) in hits.iter().take(take) {
            let doc: TantivyDocument = searcher
                .doc(*address)
                .map_err(|e| index_error("cannot read a hit", e))?;
            let Some(id) = doc.get_first(f.id).and_then(|v| v.as_str()) else {
                continue;
            };
            match store.read_meta(id)? {
                Some(meta) if meta.owner.as_deref() == Some(owner) => {
                    if !meta.is_expired(now) && query.admits(&meta) {
                        page.pastes.push(meta);
                    }
                }
                // Gone since it was indexed (its removal is queued or
                // was lost in a crash): forgotten now.
                _ => self.removed(id),
            }
        }
        page.next_cursor = SearchQuery::next_cursor(start, take, hits.len() > take);
        Ok(page)
    }

    /// Waits until the index thread has applied every operation queued
    /// before now, and any rebuild is done; refused after [`CATCH_UP`].
    fn catch_up(&self) -> Result<(), StoreError> {
        let wanted = self.progress.queued.load(Ordering::SeqCst);
        let deadline = Instant::now() + CATCH_UP;
        let mut state = lock(&self.progress.state);
        loop {
            if state.failed {
                return Err(StoreError::SearchUnavailable(
                    "its index cannot be written (the server's log says why); a restart rebuilds it",
                ));
            }
            if state.complete && state.ops >= wanted {
                return Ok(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(StoreError::SearchUnavailable(
                    "its index is being built; try again shortly",
                ));
            }
            state = self
                .progress
                .changed
                .wait_timeout(state, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// Stops the rebuild, lets the index thread apply what is queued and
    /// commit, and waits for both; the thread marks the index clean if it
    /// is complete.
    pub(super) fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
        lock(&self.queue).take();
        let threads = std::mem::take(&mut *lock(&self.threads));
        for thread in threads {
            // The store's last reference may be let go on one of these
            // threads, which then drops this index: it cannot wait for itself.
            if thread.thread().id() == std::thread::current().id() {
                continue;
            }
            if thread.join().is_err() {
                tracing::error!("the search index thread panicked");
            }
        }
    }
}

/// A store dropped without being closed (tests) still lets go of the
/// index's lock before a reopen takes it.
impl Drop for SearchIndex {
    fn drop(&mut self) {
        self.close();
    }
}

fn spawn(name: &str, work: impl FnOnce() + Send + 'static) -> JoinHandle<()> {
    std::thread::Builder::new()
        .name(name.to_owned())
        .spawn(work)
        .unwrap_or_else(|e| {
            tracing::error!(error = %e, "cannot start a search index thread");
            std::thread::spawn(|| {})
        })
}

fn send(queue: &SyncSender<Op>, progress: &Progress, op: Op) {
    progress.queued.fetch_add(1, Ordering::SeqCst);
    // Fails only once the index thread is gone (the store is closing).
    let _ = queue.send(op);
}

/// Queues every paste with an owner, then [`Op::Rebuilt`].
fn rebuild(store: &Weak<Inner>, queue: &SyncSender<Op>, progress: &Progress, closing: &AtomicBool) {
    let mut from: Option<String> = None;
    let mut pastes = 0u64;
    loop {
        if closing.load(Ordering::SeqCst) {
            return;
        }
        let Some(inner) = store.upgrade() else {
            return;
        };
        let page = match inner.scan(from.as_deref(), SCAN_PAGE, crate::core::paste::now()) {
            Ok(page) => page,
            Err(e) => {
                tracing::error!(error = %e, "cannot scan the store to build the search index");
                return;
            }
        };
        drop(inner);
        for meta in page.pastes.iter().filter(|m| m.owner.is_some()) {
            send(queue, progress, Op::Add(meta.id.clone()));
            pastes += 1;
        }
        match page.next {
            Some(next) => from = Some(next),
            None => break,
        }
    }
    send(queue, progress, Op::Rebuilt);
    // A new store has nothing to say here (its first line says where it listens).
    if pastes > 0 {
        tracing::info!(pastes, "rebuilding the search index from the store");
    }
}

/// The index thread's state.
struct Keeper {
    index: Index,
    /// Made at the first change.
    writer: Option<IndexWriter>,
    reader: IndexReader,
    fields: Fields,
    progress: Arc<Progress>,
    store: Weak<Inner>,
    clean: PathBuf,
}

impl Keeper {
    /// Applies what is queued, a batch per commit, until the queue is
    /// closed; then marks the index clean if it is complete.
    fn run(mut self, received: &Receiver<Op>) {
        let mut open = true;
        while open {
            let Ok(first) = received.recv() else {
                break;
            };
            let mut batch = vec![first];
            while batch.len() < BATCH {
                match received.try_recv() {
                    Ok(op) => batch.push(op),
                    Err(TryRecvError::Empty) => break,
                    Err(TryRecvError::Disconnected) => {
                        open = false;
                        break;
                    }
                }
            }
            let count = batch.len() as u64;
            let rebuilt = batch.iter().any(|op| matches!(op, Op::Rebuilt));
            let committed = if batch.iter().all(|op| matches!(op, Op::Rebuilt)) {
                Ok(())
            } else {
                self.apply(batch)
            };
            let mut state = lock(&self.progress.state);
            state.ops += count;
            state.complete |= rebuilt;
            if let Err(e) = committed {
                tracing::error!(error = %e, "the search index cannot be written");
                state.failed = true;
            }
            drop(state);
            self.progress.changed.notify_all();
        }
        let state = lock(&self.progress.state);
        if state.complete && !state.failed {
            drop(state);
            let merged = self.writer.take().map(IndexWriter::wait_merging_threads);
            if let Some(Err(e)) = merged {
                tracing::warn!(error = %e, "the search index did not finish merging");
                return;
            }
            let marked = body_files::private_file()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&self.clean)
                .and_then(|mut file| std::io::Write::write_all(&mut file, SCHEMA.as_bytes()));
            if let Err(e) = marked {
                tracing::warn!(error = %e, "cannot mark the search index clean; the next start rebuilds it");
            }
        }
    }

    /// Applies a batch's changes and commits them, making the writer first
    /// if there is none yet.
    fn apply(&mut self, batch: Vec<Op>) -> Result<(), StoreError> {
        let mut writer = match self.writer.take() {
            Some(writer) => writer,
            None => self
                .index
                .writer_with_num_threads(1, WRITER_BYTES)
                .map_err(|e| index_error("cannot write", e))?,
        };
        for op in batch {
            match op {
                // One paste that cannot be indexed (a damaged body) is
                // left out; the others are not held up by it.
                Op::Add(id) => {
                    if let Err(e) = self.add(&mut writer, &id) {
                        tracing::warn!(error = %e, "cannot index a paste for search");
                    }
                }
                Op::Remove(id) => {
                    writer.delete_term(Term::from_field_text(self.fields.id, &id));
                }
                Op::Rebuilt => {}
            }
        }
        let committed = writer.commit();
        self.writer = Some(writer);
        committed.map_err(|e| index_error("cannot commit", e))?;
        self.reader
            .reload()
            .map_err(|e| index_error("cannot reload", e))
    }

    /// Indexes (again) the paste `id` as the store holds it now; nothing
    /// if it is gone or has no owner.
    fn add(&self, writer: &mut IndexWriter, id: &str) -> Result<(), StoreError> {
        let f = self.fields;
        writer.delete_term(Term::from_field_text(f.id, id));
        let Some(store) = self.store.upgrade() else {
            return Ok(());
        };
        let Some((meta, at)) = store.read_entry(id)? else {
            return Ok(());
        };
        let Some(owner) = meta.owner.clone() else {
            return Ok(());
        };
        // A body that cannot be read (damaged) leaves the paste
        // searchable by its names and languages.
        let head = match content_searchable(&meta) {
            true => head(&store, &meta, at).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "cannot read a paste to index its text");
                None
            }),
            false => None,
        };
        let found = Searchable::of(&meta, head.as_deref());
        let mut doc = TantivyDocument::default();
        doc.add_text(f.id, id);
        doc.add_text(f.owner, &owner);
        for _ in 0..NAME_WEIGHT {
            doc.add_text(f.words, &found.names);
        }
        for _ in 0..LANG_WEIGHT {
            doc.add_text(f.words, &found.langs);
        }
        doc.add_text(f.words, &found.content);
        writer
            .add_document(doc)
            .map_err(|e| index_error("cannot add", e))?;
        Ok(())
    }
}

/// The first [`INDEXED_BYTES`] of a paste's body, decoded.
fn head(
    store: &Inner,
    meta: &PasteMeta,
    at: Option<super::body_log::Location>,
) -> Result<Option<Vec<u8>>, StoreError> {
    if is_file_backed(meta.size) && at.is_none() {
        let Some(body) = store.files.open_body(&meta.id, meta.size)? else {
            return Ok(None);
        };
        // The last byte wanted (`body_reader` takes an inclusive range).
        let end = meta.size.min(INDEXED_BYTES as u64).saturating_sub(1);
        let head = body
            .body_reader(meta.size, 0, end)
            .and_then(|reader| reader.read_to_bytes(INDEXED_BYTES))
            .map_err(|e| StoreError::io("cannot read a body file", e))?;
        return Ok(Some(head.to_vec()));
    }
    Ok(store
        .read_body(meta.clone(), at)?
        .map(|paste| paste.body[..paste.body.len().min(INDEXED_BYTES)].to_vec()))
}
