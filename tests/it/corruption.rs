//! Damage found on disk: body segments and body files cut short or with a
//! flipped bit (bodies stored as they are and compressed ones), and a
//! metadata journal whose tail is cut or damaged, all made offline between
//! two runs of the server. Damaged pastes answer a clear
//! error, every other paste is served, and nothing panics. Embedded store only.

use std::path::{Path, PathBuf};

use crate::support::data::XorShift;
use crate::support::http::{client, get_bytes};
use crate::support::postgres::skip_on_postgres;
use crate::support::server::Server;

/// A paste stored by the test: its ID and body.
struct Stored {
    id: String,
    body: Vec<u8>,
}

async fn store(server: &Server, body: Vec<u8>) -> Stored {
    let (id, _) = server.create(body.clone(), "").await;
    Stored { id, body }
}

/// A body unique to `name`, `len` bytes long, that does not compress (so
/// the store keeps it as it is, where the test can find it).
fn body(name: &str, len: usize) -> Vec<u8> {
    let mut body = format!("<{name}>").into_bytes();
    let seed = name
        .bytes()
        .fold(1u64, |h, b| h.wrapping_mul(31) ^ u64::from(b));
    body.extend(XorShift(seed | 1).bytes(len));
    body.truncate(len);
    body
}

/// `len` bytes of text unique to `name`, which the store keeps compressed.
fn text(name: &str, len: usize) -> Vec<u8> {
    let mut text: Vec<u8> = (0..)
        .flat_map(|n: usize| format!("{name} line {n}: all is well\n").into_bytes())
        .take(len)
        .collect();
    text.truncate(len);
    text
}

/// Where the stored stream of a compressed paste starts in its segment:
/// after its record header, which names the paste.
fn stream_of(data_dir: &Path, paste: &Stored) -> (PathBuf, usize) {
    for path in files_under(&data_dir.join("body-log")) {
        let bytes = std::fs::read(&path).unwrap();
        if let Some(at) = bytes
            .windows(paste.id.len())
            .position(|w| w == paste.id.as_bytes())
        {
            // The ID, then the stored length (4 bytes) and checksum (8).
            assert_eq!(&bytes[at - 5..at - 1], b"SNBZ", "stored compressed");
            return (path, at + paste.id.len() + 12);
        }
    }
    panic!("no segment holds paste {}", paste.id);
}

/// Every file under `dir`, searched recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                found.push(path);
            }
        }
    }
    found
}

/// The segment holding `paste`'s body, and the body's offset in it.
fn segment_of(data_dir: &Path, paste: &Stored) -> (PathBuf, usize) {
    for path in files_under(&data_dir.join("body-log")) {
        let bytes = std::fs::read(&path).unwrap();
        if let Some(at) = bytes
            .windows(paste.body.len())
            .position(|w| w == paste.body)
        {
            return (path, at);
        }
    }
    panic!("no segment holds paste {}", paste.id);
}

/// `GET /raw/{id}` answers the body.
async fn assert_served(server: &Server, paste: &Stored) {
    let (status, body) = get_bytes(&client(), &server.at(&format!("/raw/{}", paste.id))).await;
    assert_eq!(status, 200, "paste {}", paste.id);
    assert!(body == paste.body, "paste {} came back changed", paste.id);
}

/// `GET /raw/{id}` answers 500 saying the data is damaged, not the body.
async fn assert_damaged(server: &Server, paste: &Stored) {
    let (status, text) = server.text(&format!("/raw/{}", paste.id)).await;
    assert_eq!(status, 500, "paste {}: {text}", paste.id);
    assert!(text.contains("damaged"), "paste {}: {text}", paste.id);
}

fn assert_no_panic(server: &Server) {
    let logs = server.log_text();
    assert!(!logs.contains("panicked"), "{logs}");
}

/// A flipped bit in one body of a segment, a segment cut inside its last
/// body, a body file cut short and one with a flipped bit, a flipped bit in
/// a compressed body's stream and in a compressed body file: those six
/// pastes answer 500 "damaged"
/// (every time, and the hot cache never holds them); the others, before and
/// after the damage, are served; creates still work.
#[tokio::test]
async fn damaged_bodies_are_refused_and_the_rest_is_served() {
    if skip_on_postgres("damage to the embedded store's files") {
        return;
    }
    let mut server = Server::start();
    let compressed = store(&server, text("compressed", 2000)).await;
    let zstd_flipped = store(&server, text("zstd-flipped", 2000)).await;
    let first = store(&server, body("first", 300)).await;
    let flipped = store(&server, body("flipped", 300)).await;
    let middle = store(&server, body("middle", 300)).await;
    let cut = store(&server, body("cut", 300)).await;
    let large = store(&server, body("large", 100 << 10)).await;
    let large_cut = store(&server, body("large-cut", 100 << 10)).await;
    let large_flipped = store(&server, body("large-flipped", 100 << 10)).await;
    let large_compressed = store(&server, text("large-compressed", 100 << 10)).await;
    let large_zstd_flipped = store(&server, text("large-zstd-flipped", 100 << 10)).await;
    assert!(server.terminate(), "{}", server.log_text());

    let (segment, at) = stream_of(&server.data_dir, &zstd_flipped);
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes[at + 20] ^= 0x10;
    std::fs::write(&segment, bytes).unwrap();

    let (segment, at) = segment_of(&server.data_dir, &flipped);
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes[at + 100] ^= 0x04;
    let (cut_segment, cut_at) = segment_of(&server.data_dir, &cut);
    assert_eq!(cut_segment, segment, "the small bodies share a segment");
    assert_eq!(cut_at + cut.body.len(), bytes.len(), "cut is the last body");
    bytes.truncate(cut_at + 10);
    std::fs::write(&segment, bytes).unwrap();
    let body_file = |paste: &Stored| {
        files_under(&server.data_dir.join("bodies"))
            .into_iter()
            .find(|path| path.ends_with(&paste.id))
            .unwrap()
    };
    let large_file = body_file(&large_cut);
    let whole = std::fs::read(&large_file).unwrap();
    std::fs::write(&large_file, &whole[..whole.len() / 2]).unwrap();
    for (paste, at) in [(&large_flipped, 5000), (&large_zstd_flipped, 50)] {
        let flipped_file = body_file(paste);
        let mut bytes = std::fs::read(&flipped_file).unwrap();
        bytes[at] ^= 0x01;
        std::fs::write(&flipped_file, bytes).unwrap();
    }

    server.restart();
    for paste in [&first, &middle, &large, &compressed, &large_compressed] {
        assert_served(&server, paste).await;
    }
    for _ in 0..2 {
        let damaged = [&flipped, &cut, &large_cut, &large_flipped];
        for paste in damaged
            .into_iter()
            .chain([&zstd_flipped, &large_zstd_flipped])
        {
            assert_damaged(&server, paste).await;
        }
    }
    let after = store(&server, body("after", 300)).await;
    assert_served(&server, &after).await;
    assert_no_panic(&server);
}

/// A request that meets a damaged body is logged once, by the layer that
/// finishes its answer: one `ERROR` line naming what happened, the route and
/// the store's own error; the client's answer names none of it.
#[tokio::test]
async fn a_damaged_body_is_logged_once() {
    if skip_on_postgres("damage to the embedded store's files") {
        return;
    }
    let mut server = Server::start();
    let paste = store(&server, body("logged", 300)).await;
    assert!(server.terminate(), "{}", server.log_text());
    let (segment, at) = segment_of(&server.data_dir, &paste);
    let mut bytes = std::fs::read(&segment).unwrap();
    bytes[at + 100] ^= 0x04;
    std::fs::write(&segment, bytes).unwrap();
    server.restart();

    assert_damaged(&server, &paste).await;
    assert!(
        server.wait_for_request_logs().await,
        "{}",
        server.log_text()
    );
    let lines = server.log_lines();
    let errors: Vec<&String> = lines.iter().filter(|l| l.contains("ERROR")).collect();
    assert_eq!(errors.len(), 1, "{}", server.log_text());
    let line = errors[0];
    for named in [
        "stored data is damaged",
        "status=500",
        "/raw/{id}",
        "stored data is corrupt",
    ] {
        assert!(line.contains(named), "{named:?} missing: {line}");
    }
    let (_, answer) = server.text(&format!("/raw/{}", paste.id)).await;
    assert!(!answer.contains("stored data is corrupt"), "{answer}");
}

/// The newest journal of the metadata store and where its written part
/// ends (journals are preallocated with zeros).
fn journal_tail(data_dir: &Path) -> (PathBuf, usize) {
    let journal = files_under(&data_dir.join("fjall"))
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "jnl"))
        .max_by_key(|path| {
            let stem = path.file_stem().unwrap().to_str().unwrap().to_owned();
            stem.parse::<u64>().unwrap_or(0)
        })
        .expect("a journal");
    let bytes = std::fs::read(&journal).unwrap();
    let end = bytes
        .iter()
        .rposition(|&b| b != 0)
        .expect("a written journal")
        + 1;
    (journal, end)
}

/// Pastes stored one by one (one journal batch each), then the server
/// killed, so their metadata is only in the journal.
async fn stored_then_killed(server: &mut Server) -> Vec<Stored> {
    let mut pastes = Vec::new();
    for name in ["one", "two", "three"] {
        pastes.push(store(server, body(name, 200)).await);
    }
    server.kill9();
    pastes
}

/// A journal cut inside its last batch: the server starts, the pastes of
/// the whole batches are served, the cut one is gone (404, not an error),
/// and new pastes are stored.
#[tokio::test]
async fn a_cut_journal_tail_loses_only_its_last_batch() {
    if skip_on_postgres("damage to the embedded store's journal") {
        return;
    }
    let mut server = Server::start();
    let pastes = stored_then_killed(&mut server).await;
    let (journal, end) = journal_tail(&server.data_dir);
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(&journal)
        .unwrap();
    file.set_len(end as u64 - 5).unwrap();

    server.restart();
    let (last, whole) = pastes.split_last().unwrap();
    for paste in whole {
        assert_served(&server, paste).await;
    }
    assert_eq!(server.status(&format!("/raw/{}", last.id)).await, 404);
    let after = store(&server, body("after", 200)).await;
    assert_served(&server, &after).await;
    assert_no_panic(&server);
}

/// A flipped bit in the journal's last batch: fjall cannot tell which
/// writes are good, so the server refuses to start, saying the journal is
/// damaged and how to recover, without a panic.
#[tokio::test]
async fn a_damaged_journal_tail_is_refused_with_a_clear_message() {
    if skip_on_postgres("damage to the embedded store's journal") {
        return;
    }
    let mut server = Server::start();
    stored_then_killed(&mut server).await;
    let (journal, end) = journal_tail(&server.data_dir);
    let mut bytes = std::fs::read(&journal).unwrap();
    bytes[end - 30] ^= 0x10;
    std::fs::write(&journal, bytes).unwrap();

    let logs = server
        .try_restart()
        .expect_err("started on a damaged journal");
    for part in ["journal", "damaged", "snip restore"] {
        assert!(logs.contains(part), "{part:?} not in {logs}");
    }
    assert!(!logs.contains("panicked"), "{logs}");
}
