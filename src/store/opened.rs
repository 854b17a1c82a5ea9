//! A paste opened for sending ([`crate::store::PasteStore::open`]): its metadata,
//! and its body either in memory (small bodies, the paste cache's), or as
//! stored, to be read a chunk at a time while it is sent, or withheld.
//!
//! A large body is never read whole to answer a read: a response holds one
//! chunk of it at a time (plus what the connection has queued), however
//! slowly its client reads. A body stored compressed is decoded as it is
//! sent, through zstd's streaming decoder, whose window is the only other
//! memory it takes ([`StoredBody::decoder_bytes`]).
//!
//! Reading a [`StoredBody`] blocks (a file read, a decode): callers run
//! [`BodyReader::next_chunk`] on a blocking thread. A body in a database row
//! is fetched only once the caller has room for it ([`StoredBody::load`]).

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::sync::Arc;

use bytes::Bytes;
use futures_util::future::BoxFuture;

use crate::core::PasteMeta;
use crate::store::{Encoding, Paste, StoreError};

/// A paste opened for sending.
#[derive(Debug)]
pub struct Opened {
    /// Everything but the body.
    pub meta: Arc<PasteMeta>,
    /// The body, as far as it was read.
    pub body: OpenedBody,
}

/// The body of an [`Opened`] paste.
#[derive(Debug)]
pub enum OpenedBody {
    /// In memory, as [`crate::store::PasteStore::get`] reads it.
    Loaded {
        /// The body.
        body: Bytes,
        /// The body's zstd stream, if it is stored so.
        compressed: Option<Bytes>,
    },
    /// As stored, read while it is sent.
    Stored(StoredBody),
    /// Not read: a burn paste, whose body only a reveal reads.
    Withheld,
}

impl From<Paste> for Opened {
    fn from(paste: Paste) -> Self {
        let body = if paste.meta.burn {
            OpenedBody::Withheld
        } else {
            OpenedBody::Loaded {
                body: paste.body,
                compressed: paste.compressed,
            }
        };
        Self {
            meta: paste.meta,
            body,
        }
    }
}

/// Fetches a body's stored bytes from a database; `None` if its row is gone.
pub type Fetch = Box<dyn FnOnce() -> BoxFuture<'static, Result<Option<Bytes>, StoreError>> + Send>;

/// Where a stored body's bytes are.
enum Source {
    /// A file, positioned at the stored bytes' start.
    File(File),
    /// Memory (a row read from a database).
    Memory(Bytes),
    /// A database row, not fetched yet.
    Database(Fetch),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::File(file) => f.debug_tuple("File").field(file).finish(),
            Self::Memory(bytes) => f.debug_tuple("Memory").field(&bytes.len()).finish(),
            Self::Database(_) => f.write_str("Database"),
        }
    }
}

/// A body as stored, not read yet.
#[derive(Debug)]
pub struct StoredBody {
    source: Source,
    /// Length of the stored bytes.
    len: u64,
    encoding: Encoding,
    /// What zstd's decoder allocates for this stream (0 for the body itself).
    decoder: u64,
}

/// Memory a zstd streaming decoder takes besides its window: its context
/// and its input buffer (a block, 128 KiB).
const DECODER_BASE: u64 = 256 << 10;

/// What a zstd streaming decoder allocates for the frame starting with
/// `head`, decoding to `size` bytes: its window (RFC 8878, 3.1.1.1.2), at
/// most the content itself, and [`DECODER_BASE`].
pub fn decoder_bytes(head: &[u8], size: u64) -> u64 {
    let window = match (head.get(4), head.get(5)) {
        // Not a single segment: the window descriptor follows.
        (Some(descriptor), Some(window)) if descriptor & 0x20 == 0 => {
            let base = 1u64 << (10 + u32::from(window >> 3));
            base + base / 8 * u64::from(window & 7)
        }
        _ => size,
    };
    window.min(size) + DECODER_BASE
}

impl StoredBody {
    /// A body stored in `file` (positioned at its start): `len` bytes of
    /// `encoding`, whose decoder takes `decoder` bytes (`decoder_bytes`).
    pub fn file(file: File, len: u64, encoding: Encoding, decoder: u64) -> Self {
        Self {
            source: Source::File(file),
            len,
            encoding,
            decoder,
        }
    }

    /// A body stored as `bytes` of `encoding`, decoding to `size` bytes.
    pub fn memory(bytes: Bytes, encoding: Encoding, size: u64) -> Self {
        let decoder = match encoding {
            Encoding::Identity => 0,
            _ => decoder_bytes(&bytes, size),
        };
        Self {
            len: bytes.len() as u64,
            source: Source::Memory(bytes),
            encoding,
            decoder,
        }
    }

    /// A body stored in a database row, fetched by `fetch` once [`Self::load`]
    /// is called: `len` bytes of `encoding`, whose decoder takes `decoder`
    /// bytes.
    pub fn database(fetch: Fetch, len: u64, encoding: Encoding, decoder: u64) -> Self {
        Self {
            source: Source::Database(fetch),
            len,
            encoding,
            decoder,
        }
    }

    /// The body ready to read: a database row's bytes fetched (`None` if the
    /// row is gone meanwhile), anything else as it is.
    pub async fn load(self) -> Result<Option<Self>, StoreError> {
        let Source::Database(fetch) = self.source else {
            return Ok(Some(self));
        };
        let Some(bytes) = fetch().await? else {
            return Ok(None);
        };
        if bytes.len() as u64 != self.len {
            // Replaced meanwhile (a restore of the same ID): not the body measured.
            return Ok(None);
        }
        Ok(Some(Self {
            source: Source::Memory(bytes),
            ..self
        }))
    }

    /// How the stored bytes encode the body.
    pub fn encoding(&self) -> Encoding {
        self.encoding
    }

    /// Length of the stored bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether there are no stored bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes this body holds in memory for as long as it is sent.
    pub fn resident_bytes(&self) -> u64 {
        match &self.source {
            Source::File(_) => 0,
            Source::Memory(bytes) => bytes.len() as u64,
            Source::Database(_) => self.len,
        }
    }

    /// Bytes a reader that decodes this body allocates (0 for a body stored
    /// as it is).
    pub fn decoder_bytes(&self) -> u64 {
        self.decoder
    }

    /// A reader of the stored bytes as they are (the zstd stream itself,
    /// for a compressed body).
    pub fn stored_reader(self) -> io::Result<BodyReader> {
        let len = self.len;
        Ok(BodyReader {
            reader: self.raw()?,
            skip: 0,
            remaining: len,
        })
    }

    /// A reader of bytes `start..=end` of the body itself, `size` bytes,
    /// decoded if it is stored compressed.
    pub fn body_reader(self, size: u64, start: u64, end: u64) -> io::Result<BodyReader> {
        let remaining = end.saturating_add(1).saturating_sub(start);
        let encoding = self.encoding;
        let mut raw = self.raw()?;
        // The body from `start`, or from its start and `start` bytes to skip.
        let (reader, skip): (Box<dyn Read + Send>, u64) = match encoding {
            Encoding::Identity => {
                raw.seek(SeekFrom::Start(start))?;
                (Box::new(raw.take(size.saturating_sub(start))), 0)
            }
            Encoding::Zstd => {
                let decoder = zstd::stream::read::Decoder::new(raw)?;
                (Box::new(decoder.take(size)), start)
            }
            // Only small bodies, in memory, are stored with a dictionary.
            Encoding::ZstdDictionary => {
                return Err(io::Error::other(
                    "a stored body made with a dictionary cannot be streamed",
                ));
            }
        };
        Ok(BodyReader {
            reader,
            skip,
            remaining,
        })
    }

    /// The stored bytes, from their start; an error if they are still in
    /// the database ([`Self::load`] first).
    fn raw(self) -> io::Result<Box<dyn SeekRead>> {
        Ok(match self.source {
            Source::File(file) => Box::new(Bounded {
                file,
                len: self.len,
                at: 0,
            }),
            Source::Memory(bytes) => Box::new(Cursor::new(bytes)),
            Source::Database(_) => {
                return Err(io::Error::other("a body is read before it is fetched"));
            }
        })
    }
}

/// A reader that can also seek.
trait SeekRead: Read + Seek + Send {}
impl<T: Read + Seek + Send> SeekRead for T {}

/// A file whose reads stop after its first `len` bytes (a body file's
/// trailer is not part of the body).
struct Bounded {
    file: File,
    len: u64,
    at: u64,
}

impl Read for Bounded {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.len.saturating_sub(self.at)).unwrap_or(usize::MAX);
        let want = buf.len().min(left);
        let Some(buf) = buf.get_mut(..want) else {
            return Ok(0);
        };
        let read = self.file.read(buf)?;
        self.at += read as u64;
        Ok(read)
    }
}

impl Seek for Bounded {
    fn seek(&mut self, position: SeekFrom) -> io::Result<u64> {
        let SeekFrom::Start(at) = position else {
            return Err(io::Error::other("a body is only read from an offset"));
        };
        self.at = self.file.seek(SeekFrom::Start(at.min(self.len)))?;
        Ok(self.at)
    }
}

/// Reads a body a chunk at a time (blocking).
pub struct BodyReader {
    reader: Box<dyn Read + Send>,
    /// Bytes still to skip before the first chunk (the start of a range of
    /// a body decoded as it is read).
    skip: u64,
    /// Bytes still to read.
    remaining: u64,
}

impl BodyReader {
    /// Bytes still to read.
    pub fn remaining(&self) -> u64 {
        self.remaining
    }

    /// The next at most `max` bytes; empty once all are read. A body that
    /// ends early (a stream that decodes to less than its size) is an error.
    pub fn next_chunk(&mut self, max: usize) -> io::Result<Vec<u8>> {
        let mut chunk = self.chunk_buffer(max);
        self.fill_chunk(&mut chunk)?;
        Ok(chunk)
    }

    /// A buffer for the next at most `max` bytes (for [`Self::fill_chunk`]).
    pub fn chunk_buffer(&self, max: usize) -> Vec<u8> {
        vec![
            0;
            usize::try_from(self.remaining)
                .unwrap_or(usize::MAX)
                .min(max)
        ]
    }

    /// Reads the next `chunk.len()` bytes into `chunk`.
    pub fn fill_chunk(&mut self, chunk: &mut [u8]) -> io::Result<()> {
        if self.skip > 0 {
            let skipped = io::copy(&mut (&mut self.reader).take(self.skip), &mut io::sink())?;
            if skipped < self.skip {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            self.skip = 0;
        }
        self.reader.read_exact(chunk)?;
        self.remaining -= chunk.len() as u64;
        Ok(())
    }

    /// The rest, at most `max` bytes, in one buffer.
    pub fn read_to_bytes(mut self, max: usize) -> io::Result<Bytes> {
        self.next_chunk(max).map(Bytes::from)
    }
}

impl std::fmt::Debug for BodyReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BodyReader")
            .field("remaining", &self.remaining)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(len: usize) -> Vec<u8> {
        (0..len).map(|i| b"snip paste\n"[i % 11]).collect()
    }

    /// A compressed body and the body itself read by range, in chunks, from
    /// memory and from a file.
    #[test]
    fn reads_ranges_in_chunks() {
        let body = text(300_000);
        let compressed = zstd::bulk::compress(&body, 3).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        for (stored, encoding) in [(&body, Encoding::Identity), (&compressed, Encoding::Zstd)] {
            let path = tmp.path().join("body");
            let mut with_trailer = stored.clone();
            with_trailer.extend_from_slice(b"trailer");
            std::fs::write(&path, &with_trailer).unwrap();
            let size = body.len() as u64;
            let opened = || {
                [
                    StoredBody::memory(Bytes::from(stored.clone()), encoding, size),
                    StoredBody::file(File::open(&path).unwrap(), stored.len() as u64, encoding, 0),
                ]
            };
            for (start, end) in [
                (0, size - 1),
                (5, 5),
                (70_000, 250_001),
                (size - 3, size - 1),
            ] {
                for stored_body in opened() {
                    let mut reader = stored_body.body_reader(size, start, end).unwrap();
                    let mut read = Vec::new();
                    loop {
                        let chunk = reader.next_chunk(64 << 10).unwrap();
                        if chunk.is_empty() {
                            break;
                        }
                        assert!(chunk.len() <= 64 << 10);
                        read.extend_from_slice(&chunk);
                    }
                    assert_eq!(read, &body[start as usize..=end as usize]);
                }
            }
            for stored_body in opened() {
                let as_stored = stored_body
                    .stored_reader()
                    .unwrap()
                    .read_to_bytes(1 << 20)
                    .unwrap();
                assert_eq!(&as_stored[..], &stored[..]);
            }
        }
    }

    /// A stream that decodes to less than the body's size fails.
    #[test]
    fn a_short_stream_fails() {
        let compressed = zstd::bulk::compress(&text(1000), 3).unwrap();
        let stored = StoredBody::memory(Bytes::from(compressed), Encoding::Zstd, 2000);
        let mut reader = stored.body_reader(2000, 0, 1999).unwrap();
        assert!(reader.next_chunk(4096).is_err());
    }

    /// The decoder's memory follows the frame's window, at most the body.
    #[test]
    fn decoder_memory_follows_the_window() {
        let small = zstd::bulk::compress(&text(1000), 3).unwrap();
        assert_eq!(decoder_bytes(&small, 1000), 1000 + DECODER_BASE);
        let large = zstd::bulk::compress(&text(16 << 20), 3).unwrap();
        let bytes = decoder_bytes(&large, 16 << 20);
        assert!(bytes <= (8 << 20) + DECODER_BASE, "{bytes}");
    }
}
