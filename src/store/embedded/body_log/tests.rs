//! Tests of the body log on a temp dir, with a page cache whose answers
//! they choose.
#![allow(clippy::unwrap_used)]

use super::*;
use crate::store::Encoding;
use std::os::unix::fs::FileExt;
use std::sync::atomic::AtomicBool;

fn segment_files(dir: &Path) -> Vec<u32> {
    let mut numbers: Vec<u32> = std::fs::read_dir(dir.join("body-log"))
        .unwrap()
        .filter_map(|e| segment_number(&e.unwrap().path()))
        .collect();
    numbers.sort_unstable();
    numbers
}

/// A page cache whose answers the test chooses: every body cached, or
/// none; and a record of the segments written back.
#[derive(Default)]
pub(in crate::store::embedded) struct Scripted {
    /// Whether every read would have to wait for the disk.
    pub cold: AtomicBool,
    /// The file names of the segments written back, in order.
    pub written_back: Mutex<Vec<String>>,
}

impl PageCache for Scripted {
    fn read_if_cached(&self, file: &File, buf: &mut [u8], offset: u64) -> bool {
        !self.cold.load(Ordering::SeqCst) && file.read_exact_at(buf, offset).is_ok()
    }

    fn write_back(&self, _file: &File, path: &Path) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        lock(&self.written_back).push(name);
    }
}

fn scripted(dir: &Path) -> (BodyLog, Arc<Scripted>) {
    let cache = Arc::new(Scripted::default());
    let log = BodyLog::open_with(dir, false, cache.clone()).unwrap();
    (log, cache)
}

/// Each sealed segment is written back once, the active one is not;
/// bodies read, from the page cache or not.
#[test]
fn sealed_segments_are_written_back() {
    let dir = tempfile::tempdir().unwrap();
    let (log, cache) = scripted(dir.path());
    let filler = vec![7u8; SEGMENT_BYTES as usize];
    let first = log
        .append(&[("aaaa", Encoding::Identity, b"an early body")])
        .unwrap()[0];
    log.append(&[("ffff", Encoding::Identity, &filler)])
        .unwrap();
    log.append(&[("bbbb", Encoding::Identity, b"x")]).unwrap();
    log.writeback.settle();
    assert_eq!(*lock(&cache.written_back), ["1.seg"]);
    log.append(&[("gggg", Encoding::Identity, &filler)])
        .unwrap();
    log.append(&[("cccc", Encoding::Identity, b"y")]).unwrap();
    log.writeback.settle();
    assert_eq!(*lock(&cache.written_back), ["1.seg", "2.seg"]);
    assert_eq!(log.read(first).unwrap(), b"an early body");
    assert_eq!(log.read_cached(first).unwrap().unwrap(), b"an early body");
    cache.cold.store(true, Ordering::SeqCst);
    assert_eq!(log.read_cached(first).unwrap(), None);
    assert_eq!(log.read(first).unwrap(), b"an early body");
}

/// The kernel's answer, whatever it is, is never wrong bytes: a cached
/// read gives exactly the body or nothing.
#[test]
fn the_kernels_cached_reads_are_exact_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), false).unwrap();
    let at = log
        .append(&[("aaaa", Encoding::Identity, b"a body")])
        .unwrap()[0];
    if let Some(body) = log.read_cached(at).unwrap() {
        assert_eq!(body, b"a body");
    }
}

/// A cached read checks the checksum like any other.
#[test]
fn cached_reads_check_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let (log, _cache) = scripted(dir.path());
    let at = log
        .append(&[("aaaa", Encoding::Identity, b"body")])
        .unwrap()[0];
    let wrong = Location {
        checksum: at.checksum ^ 1,
        ..at
    };
    assert!(matches!(
        log.read_cached(wrong),
        Err(StoreError::Corrupt(_))
    ));
}

#[test]
fn bodies_read_back_and_records_name_their_pastes() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), false).unwrap();
    let at = log
        .append(&[
            ("aaaa", Encoding::Identity, b"first body"),
            ("bbbb", Encoding::Identity, b""),
            ("cccc", Encoding::Identity, &[0, 255, 7]),
        ])
        .unwrap();
    assert_eq!(log.read(at[0]).unwrap(), b"first body");
    assert_eq!(log.read(at[1]).unwrap(), b"");
    assert_eq!(log.read(at[2]).unwrap(), [0, 255, 7]);
    let records = log.records(at[0].segment).unwrap();
    let ids: Vec<&str> = records.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["aaaa", "bbbb", "cccc"]);
    assert_eq!(records.iter().map(|(_, l)| *l).collect::<Vec<_>>(), at);
}

#[test]
fn a_location_round_trips_through_its_encoding() {
    let at = Location {
        segment: 7,
        offset: 123_456,
        len: 65_535,
        checksum: u64::MAX - 3,
        encoding: Encoding::Zstd,
    };
    let mut raw = Vec::new();
    at.encode_into(&mut raw);
    raw.extend_from_slice(b"rest");
    assert_eq!(Location::decode(&raw), Some((at, &b"rest"[..])));
    assert_eq!(Location::decode(&raw[..20]), None);
    raw[20] = 9;
    assert_eq!(Location::decode(&raw), None, "an unknown encoding");
    let place = Location::decode_place(&raw[..20]).unwrap().0;
    assert_eq!(place.encoding, Encoding::Identity);
    assert_eq!((place.segment, place.len), (7, 65_535));
}

/// A record says how its body is encoded, and the compactor's view of a
/// segment keeps it.
#[test]
fn records_keep_their_encoding() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), false).unwrap();
    let at = log
        .append(&[
            ("aaaa", Encoding::Zstd, b"a stream"),
            ("bbbb", Encoding::Identity, b"plain"),
        ])
        .unwrap();
    assert_eq!(at[0].encoding, Encoding::Zstd);
    assert_eq!(at[1].encoding, Encoding::Identity);
    assert_eq!(log.read(at[0]).unwrap(), b"a stream");
    let records = log.records(1).unwrap();
    assert_eq!(records.iter().map(|(_, l)| *l).collect::<Vec<_>>(), at);
}

#[test]
fn a_damaged_body_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), false).unwrap();
    let at = log
        .append(&[("aaaa", Encoding::Identity, b"precious")])
        .unwrap()[0];
    let path = dir.path().join(format!("body-log/{}.seg", at.segment));
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[at.offset as usize] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    assert!(matches!(log.read(at), Err(StoreError::Corrupt(_))));
}

#[test]
fn a_sealed_segment_is_deleted_when_its_last_body_dies() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), false).unwrap();
    let big = vec![1u8; 60 << 10];
    let mut first = Vec::new();
    while lock(&log.active).number == 1 {
        first.extend(log.append(&[("aaaa", Encoding::Identity, &big)]).unwrap());
    }
    // The append that started segment 2 went there.
    let moved = first.pop().unwrap();
    assert_eq!(moved.segment, 2);
    assert_eq!(segment_files(dir.path()), [1, 2]);
    for at in &first {
        log.release(*at);
    }
    assert_eq!(segment_files(dir.path()), [2]);
    assert_eq!(log.read(moved).unwrap(), big);
}

#[test]
fn with_fsync_a_dead_segment_waits_to_be_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), true).unwrap();
    let at = log
        .append(&[("aaaa", Encoding::Identity, b"gone soon")])
        .unwrap()[0];
    log.release(at);
    log.retire_dead_active().unwrap();
    assert_eq!(segment_files(dir.path()), [1, 2]);
    assert!(log.has_dead());
    log.delete_dead();
    assert_eq!(segment_files(dir.path()), [2]);
    assert!(!log.has_dead());
}

#[test]
fn an_active_segment_whose_bodies_all_died_is_retired() {
    let dir = tempfile::tempdir().unwrap();
    let log = BodyLog::open(dir.path(), false).unwrap();
    let at = log
        .append(&[("aaaa", Encoding::Identity, b"gone soon")])
        .unwrap()[0];
    log.retire_dead_active().unwrap();
    assert_eq!(segment_files(dir.path()), [1], "a live body keeps it");
    log.release(at);
    log.retire_dead_active().unwrap();
    assert_eq!(segment_files(dir.path()), [2]);
    log.retire_dead_active().unwrap();
    assert_eq!(segment_files(dir.path()), [2], "an empty one stays");
}

#[test]
fn reopening_keeps_live_segments_and_deletes_dead_ones() {
    let dir = tempfile::tempdir().unwrap();
    let (kept, dropped) = {
        let log = BodyLog::open(dir.path(), true).unwrap();
        let kept = log
            .append(&[("aaaa", Encoding::Identity, b"kept")])
            .unwrap()[0];
        log.sync().unwrap();
        let log = BodyLog::open(dir.path(), true).unwrap();
        let dropped = log
            .append(&[("bbbb", Encoding::Identity, b"dropped")])
            .unwrap()[0];
        (kept, dropped)
    };
    assert_eq!((kept.segment, dropped.segment), (1, 2));
    let log = BodyLog::open(dir.path(), false).unwrap();
    assert_eq!(segment_files(dir.path()), [1, 2, 3]);
    let deleted = log.count_live(&HashMap::from([(1, 4)]));
    assert_eq!(deleted, 1);
    assert_eq!(segment_files(dir.path()), [1, 3]);
    assert_eq!(log.read(kept).unwrap(), b"kept");
    assert_eq!(
        log.append(&[("cccc", Encoding::Identity, b"new")]).unwrap()[0].segment,
        3
    );
}

/// A start that writes nothing leaves no file behind: the next takes up
/// its empty segment again, and appends to it.
#[test]
fn an_empty_active_segment_is_taken_up_again() {
    let dir = tempfile::tempdir().unwrap();
    let first = {
        let log = BodyLog::open(dir.path(), true).unwrap();
        log.append(&[("aaaa", Encoding::Identity, b"first")])
            .unwrap()[0]
    };
    for _ in 0..3 {
        let log = BodyLog::open(dir.path(), true).unwrap();
        assert_eq!(log.count_live(&HashMap::from([(1, 5)])), 0);
    }
    assert_eq!(segment_files(dir.path()), [1, 2]);
    let log = BodyLog::open(dir.path(), false).unwrap();
    let second = log
        .append(&[("bbbb", Encoding::Identity, b"second")])
        .unwrap()[0];
    assert_eq!(
        (first.segment, second.segment, second.offset),
        (1, 2, first.offset)
    );
    assert_eq!(log.read(first).unwrap(), b"first");
    assert_eq!(log.read(second).unwrap(), b"second");
}

/// A log holding two bodies, "whole" and "cut off", whose segment file then
/// lost its last two bytes (a write torn by a crash, or a file cut short).
fn log_cut_short(dir: &Path) -> (BodyLog, Vec<Location>) {
    let log = BodyLog::open(dir, false).unwrap();
    let at = log
        .append(&[
            ("aaaa", Encoding::Identity, b"whole"),
            ("bbbb", Encoding::Identity, b"cut off"),
        ])
        .unwrap();
    let path = dir.join("body-log/1.seg");
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
    (log, at)
}

/// A segment cut short is damage like a wrong checksum, for the bodies
/// it lost; the bodies before the cut still read.
#[test]
fn a_truncated_segment_is_corrupt_past_the_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (log, at) = log_cut_short(dir.path());
    assert_eq!(log.read(at[0]).unwrap(), b"whole");
    let e = log.read(at[1]).unwrap_err();
    assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
}

/// Listing a segment's records stops at a torn tail: the records before it
/// are listed, the one it cut is not.
#[test]
fn a_torn_tail_ends_the_records() {
    let dir = tempfile::tempdir().unwrap();
    let (log, at) = log_cut_short(dir.path());
    let records = log.records(1).unwrap();
    assert_eq!(records, vec![("aaaa".to_owned(), at[0])]);
}
