//! Paste bodies compressed at rest: which bodies are stored zstd-compressed,
//! and how a stored body is read back.
//!
//! Text (logs, code) shrinks to a fifth or less with zstd, so both stores keep
//! such bodies compressed, and clients that accept zstd get the stored bytes as
//! they are (`Content-Encoding: zstd`). A body is compressed only when that
//! saves space: not below [`MIN_BYTES`] (zstd's frame header and the lost
//! zero-copy read cost more than they save), not when it is client-side
//! ciphertext (random bytes never shrink), and kept only if it shrinks to at
//! most `KEEP_AT_MOST` of its size (already compressed media hardly does,
//! and each read would pay for decompressing it).
//!
//! A paste's metadata keeps the plaintext length (`size`): quotas, listings and
//! identity responses all count the user's bytes. Decompression is bounded by
//! that length, so a damaged or hostile stored stream can never make a read
//! allocate more, and a stream that does not decode to exactly that many bytes
//! is [`StoreError::Corrupt`], like a checksum failure.
//!
//! A store may also keep a [`Dictionary`] trained on its own small bodies
//! (`zstd_dictionary`); small bodies are then compressed with it, and such
//! streams are decompressed before they are sent.

use std::cell::RefCell;
use std::io::Read;
use std::sync::Arc;

use bytes::Bytes;

use crate::core::PasteMeta;
use crate::store::{Paste, StoreError};

pub mod zstd_dictionary;

pub use zstd_dictionary::{Dictionary, Samples};

/// Bodies shorter than this are stored as they are.
pub const MIN_BYTES: usize = 256;

/// The share of its size a compressed body may take at most to be kept
/// compressed, in eighths: it must save at least an eighth.
const KEEP_AT_MOST: usize = 7;

/// The zstd level: see `docs/design.md` for the measurement that chose it.
pub const LEVEL: i32 = 3;

/// Bodies at least this long are compressed and decompressed on a blocking
/// thread ([`NewBody::into_stored_off_runtime`], [`paste_off_runtime`]): that holds a
/// thread for tens of microseconds or more, which a runtime thread owes to
/// its other connections.
pub const INLINE_BYTES: usize = 16 << 10;

/// How a stored body's bytes are encoded. Part of every store's format:
/// the values are the bytes and names the stores write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Encoding {
    /// The body itself.
    #[default]
    Identity,
    /// One zstd frame that decodes to the body.
    Zstd,
    /// One zstd frame that decodes to the body with the store's
    /// [`Dictionary`], whose ID the frame names.
    ZstdDictionary,
}

impl Encoding {
    /// The encoding's byte in the embedded store's records.
    pub fn to_byte(self) -> u8 {
        match self {
            Self::Identity => 0,
            Self::Zstd => 1,
            Self::ZstdDictionary => 2,
        }
    }

    /// The encoding a stored byte names, if any.
    pub fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            0 => Some(Self::Identity),
            1 => Some(Self::Zstd),
            2 => Some(Self::ZstdDictionary),
            _ => None,
        }
    }

    /// The encoding's name in PostgreSQL and in dumps (the HTTP content coding's).
    pub fn name(self) -> &'static str {
        match self {
            Self::Identity => "identity",
            Self::Zstd => "zstd",
            Self::ZstdDictionary => "zstd-dictionary",
        }
    }

    /// The encoding a stored name names, if any.
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "identity" => Some(Self::Identity),
            "zstd" => Some(Self::Zstd),
            "zstd-dictionary" => Some(Self::ZstdDictionary),
            _ => None,
        }
    }
}

thread_local! {
    /// One compression context per thread: making one per body would cost
    /// more than compressing a small body.
    static COMPRESSOR: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    /// Likewise for decompression.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// A body as a store keeps it: the bytes stored and their encoding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The bytes stored.
    pub bytes: Bytes,
    /// How they encode the body.
    pub encoding: Encoding,
}

impl Stored {
    /// A body stored as it is.
    pub fn identity(body: Bytes) -> Self {
        Self {
            bytes: body,
            encoding: Encoding::Identity,
        }
    }

    /// A zstd stream of a body.
    pub fn zstd(compressed: Bytes) -> Self {
        Self {
            bytes: compressed,
            encoding: Encoding::Zstd,
        }
    }

    /// The compressed form a read hands out beside the body, if it is one.
    pub fn compressed(&self) -> Option<Bytes> {
        (self.encoding == Encoding::Zstd).then(|| self.bytes.clone())
    }
}

/// A new paste's body on its way into a store ([`crate::store::PasteStore::put`]):
/// either the body, which the store keeps compressed if that is worth it, or
/// the form it is to be stored in already (a restore keeps the stream it read).
///
/// The body is compressed only when the store stores it, so the cost lands
/// where the store decides (a large body file's on the blocking thread that
/// writes it).
#[derive(Debug, Clone)]
pub struct NewBody(Form);

#[derive(Debug, Clone)]
enum Form {
    /// The body; the codec's rules decide how it is stored.
    Body(Bytes),
    /// The stored form, kept as it is.
    Stored(Stored),
}

impl NewBody {
    /// A body to store compressed if that is worth it, else as it is.
    pub fn new(body: Bytes) -> Self {
        Self(Form::Body(body))
    }

    /// A body whose stored form is already made, kept as it is instead of
    /// compressing again: a zstd stream must decode to exactly the paste's
    /// `size` bytes (a restore checks it before it stores).
    pub fn stored(stored: Stored) -> Self {
        Self(Form::Stored(stored))
    }

    /// How `meta`'s body is stored: the given form, else compressed if that
    /// is worth it, else as it is. Never with a dictionary: for body files
    /// and dumps, whose streams must stand alone.
    pub fn into_stored(self, meta: &PasteMeta) -> Stored {
        self.into_stored_with(meta, None)
    }

    /// [`Self::into_stored`], a small body compressed with `dictionary`
    /// if there is one.
    pub fn into_stored_with(self, meta: &PasteMeta, dictionary: Option<&Dictionary>) -> Stored {
        match self.0 {
            Form::Stored(stored) => stored,
            Form::Body(body) if !worth_trying(meta, body.len()) => Stored::identity(body),
            Form::Body(body) => {
                let dictionary = dictionary.filter(|_| body.len() < INLINE_BYTES);
                let encoding = match dictionary {
                    Some(_) => Encoding::ZstdDictionary,
                    None => Encoding::Zstd,
                };
                compress(&body, dictionary).map_or(Stored::identity(body), |c| Stored {
                    bytes: Bytes::from(c),
                    encoding,
                })
            }
        }
    }

    /// [`Self::into_stored_with`] from the async runtime: a large body is
    /// compressed on a blocking thread, without the dictionary (which only
    /// small bodies use).
    pub async fn into_stored_off_runtime(
        self,
        meta: &PasteMeta,
        dictionary: Option<&Dictionary>,
    ) -> Stored {
        let body = match self.0 {
            Form::Body(body) if body.len() >= INLINE_BYTES && worth_trying(meta, body.len()) => {
                body
            }
            form => return Self(form).into_stored_with(meta, dictionary),
        };
        let plain = body.clone();
        match tokio::task::spawn_blocking(move || compress(&plain, None)).await {
            Ok(Some(compressed)) => Stored::zstd(Bytes::from(compressed)),
            // Not worth it, or the task failed: the body as it is is never wrong.
            _ => Stored::identity(body),
        }
    }

    /// The body, if it is yet to be encoded (not a stored form given).
    pub fn plain(&self) -> Option<&Bytes> {
        match &self.0 {
            Form::Body(body) => Some(body),
            Form::Stored(_) => None,
        }
    }

    /// The body's first `max` bytes (or all of it, if shorter), decoded
    /// (see [`head`]).
    pub fn head(&self, max: usize) -> Option<Bytes> {
        match &self.0 {
            Form::Body(body) => Some(body.slice(..body.len().min(max))),
            Form::Stored(stored) => head(stored, max),
        }
    }
}

/// Whether a body of `len` bytes of `meta`'s paste may be worth compressing.
fn worth_trying(meta: &PasteMeta, len: usize) -> bool {
    !meta.encrypted && len >= MIN_BYTES
}

/// `body` compressed (with `dictionary`, if given), if that saves enough to
/// keep it so.
fn compress(body: &[u8], dictionary: Option<&Dictionary>) -> Option<Vec<u8>> {
    // Never larger than the limit: a stream that would be is not kept.
    let limit = body.len() / 8 * KEEP_AT_MOST;
    let compressed = match dictionary {
        Some(dictionary) => dictionary.compress(body, limit)?,
        None => COMPRESSOR.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.is_none() {
                *slot = zstd::bulk::Compressor::new(LEVEL).ok();
            }
            let mut out = Vec::with_capacity(limit);
            slot.as_mut()?
                .compress_to_buffer(body, &mut out)
                .ok()
                .map(|_| out)
        })?,
    };
    worth_keeping(body.len(), compressed.len()).then_some(compressed)
}

/// Whether a body of `size` bytes compressed to `compressed` bytes is kept so.
fn worth_keeping(size: usize, compressed: usize) -> bool {
    compressed <= size / 8 * KEEP_AT_MOST
}

/// The body a stored zstd stream decodes to, which must be exactly `size`
/// bytes; `id` names the paste in errors. Never allocates more than `size`.
pub fn decompress(id: &str, stored: &[u8], size: u64) -> Result<Vec<u8>, StoreError> {
    decode(id, stored, size, None)
}

/// [`decompress`] for a stream made with `dictionary` (`Some`) or without.
fn decode(
    id: &str,
    stored: &[u8],
    size: u64,
    dictionary: Option<&Dictionary>,
) -> Result<Vec<u8>, StoreError> {
    let corrupt =
        |what: &dyn std::fmt::Display| StoreError::Corrupt(format!("body of {id}: {what}"));
    // The frame says how long its content is (snip's always do): a frame
    // that disagrees with the metadata is refused before anything is allocated.
    match zstd::zstd_safe::get_frame_content_size(stored) {
        Ok(Some(declared)) if declared == size => {}
        _ => return Err(corrupt(&"its stream does not declare the paste's size")),
    }
    let size = usize::try_from(size).map_err(|_| corrupt(&"too large for this machine"))?;
    let body = match dictionary {
        Some(dictionary) => dictionary
            .decompress(stored, size)
            .map_err(|e| corrupt(&e))?,
        None => DECOMPRESSOR.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.is_none() {
                *slot = Some(zstd::bulk::Decompressor::new().map_err(|e| corrupt(&e))?);
            }
            let mut out = Vec::with_capacity(size);
            match slot.as_mut() {
                Some(decompressor) => decompressor
                    .decompress_to_buffer(stored, &mut out)
                    .map(|_| out)
                    .map_err(|e| corrupt(&format_args!("does not decompress ({e})"))),
                None => Err(corrupt(&"no decompression context")),
            }
        })?,
    };
    if body.len() != size {
        return Err(corrupt(&format_args!(
            "decompresses to {} bytes, the metadata says {size}",
            body.len()
        )));
    }
    Ok(body)
}

/// The first `max` bytes of the body `stored` holds (or all of it, if
/// shorter), decoded: of a zstd stream, what its start decodes to, so the
/// start of a stream is enough; `None` for a stream made with a dictionary
/// (it does not decode on its own) or one that decodes to nothing.
pub fn head(stored: &Stored, max: usize) -> Option<Bytes> {
    match stored.encoding {
        Encoding::Identity => Some(stored.bytes.slice(..stored.bytes.len().min(max))),
        Encoding::Zstd => {
            let mut head = Vec::new();
            let decoder = zstd::stream::read::Decoder::new(&stored.bytes[..]).ok()?;
            // A stream cut short ends the read with an error, after every
            // byte it decoded is in `head`.
            let _ = decoder.take(max as u64).read_to_end(&mut head);
            Some(Bytes::from(head)).filter(|head| !head.is_empty())
        }
        Encoding::ZstdDictionary => None,
    }
}

/// The paste of `meta` whose body is stored as `stored`: decompressed
/// (bounded by the paste's size), a stream clients can decode kept beside it.
pub fn paste(meta: PasteMeta, stored: Stored) -> Result<Paste, StoreError> {
    paste_with(meta, stored, None)
}

/// [`paste`], for a store whose small bodies may be compressed with
/// `dictionary`.
pub fn paste_with(
    meta: PasteMeta,
    stored: Stored,
    dictionary: Option<&Dictionary>,
) -> Result<Paste, StoreError> {
    let (body, compressed) = match stored.encoding {
        Encoding::Identity => (stored.bytes, None),
        Encoding::Zstd => {
            let body = decompress(&meta.id, &stored.bytes, meta.size)?;
            (Bytes::from(body), Some(stored.bytes))
        }
        Encoding::ZstdDictionary => {
            let Some(dictionary) = dictionary else {
                return Err(StoreError::Corrupt(format!(
                    "body of {}: compressed with a dictionary the store does not have",
                    meta.id
                )));
            };
            let body = decode(&meta.id, &stored.bytes, meta.size, Some(dictionary))?;
            (Bytes::from(body), None)
        }
    };
    Ok(Paste {
        meta: Arc::new(meta),
        body,
        compressed,
    })
}

/// Whether decoding a body of `encoding` and `size` bytes belongs on a
/// blocking thread.
pub fn decodes_off_runtime(encoding: Encoding, size: u64) -> bool {
    encoding != Encoding::Identity && size >= INLINE_BYTES as u64
}

/// [`paste`] from the async runtime: a large body is decompressed on a
/// blocking thread.
pub async fn paste_off_runtime(meta: PasteMeta, stored: Stored) -> Result<Paste, StoreError> {
    if !decodes_off_runtime(stored.encoding, meta.size) {
        return paste(meta, stored);
    }
    tokio::task::spawn_blocking(move || paste(meta, stored))
        .await
        .map_err(|e| StoreError::backend_caused("decompression task failed", e))?
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(encrypted: bool) -> PasteMeta {
        PasteMeta {
            encrypted,
            ..crate::core::paste::tests::test_meta()
        }
    }

    fn text(len: usize) -> Vec<u8> {
        b"2026-11-25T21:40:01Z INFO request completed path=/api/v1/items took=3ms\n"
            .iter()
            .copied()
            .cycle()
            .take(len)
            .collect()
    }

    /// Text is compressed and decompresses to itself; short, encrypted and
    /// random bodies are stored as they are.
    #[test]
    fn compresses_only_what_shrinks() {
        let body = Bytes::from(text(2048));
        let kept = NewBody::new(body.clone()).into_stored(&meta(false));
        assert_eq!(kept.encoding, Encoding::Zstd);
        assert!(kept.bytes.len() < body.len() / 4, "{}", kept.bytes.len());
        assert_eq!(kept.compressed(), Some(kept.bytes.clone()));
        assert_eq!(decompress("x", &kept.bytes, 2048).unwrap(), body);
        let short = Bytes::from(text(MIN_BYTES - 1));
        let plain = NewBody::new(short.clone()).into_stored(&meta(false));
        assert_eq!(plain, Stored::identity(short));
        assert_eq!(plain.compressed(), None);
        let encrypted = NewBody::new(body.clone()).into_stored(&meta(true));
        assert_eq!(encrypted, Stored::identity(body.clone()));
        let given = Bytes::from_static(b"a stream made before");
        assert_eq!(
            NewBody::stored(Stored::zstd(given.clone())).into_stored(&meta(false)),
            Stored::zstd(given)
        );
        let random: Vec<u8> = (0..512u64)
            .flat_map(|i| xxhash_rust::xxh3::xxh3_64(&i.to_le_bytes()).to_le_bytes())
            .collect();
        assert_eq!(compress(&random, None), None);
        assert!(worth_keeping(800, 700) && !worth_keeping(800, 701));
    }

    /// A stream that decodes to more or fewer bytes than the metadata says,
    /// or does not decode, is corrupt; the bound holds for a stream that
    /// claims a huge size.
    #[test]
    fn decompression_is_bounded_and_exact() {
        let body = text(4096);
        let compressed = compress(&body, None).unwrap();
        for size in [4095, 4097, 0] {
            let e = decompress("x", &compressed, size).unwrap_err();
            assert!(matches!(e, StoreError::Corrupt(_)), "{size}: {e:?}");
        }
        let mut damaged = compressed.clone();
        let last = damaged.len() - 1;
        damaged[last / 2] ^= 0x55;
        damaged.truncate(last);
        assert!(matches!(
            decompress("x", &damaged, 4096),
            Err(StoreError::Corrupt(_))
        ));
        // 16 MiB of zeros is a tiny stream; a paste claiming 4 KiB never gets it.
        let bomb = zstd::bulk::compress(&vec![0u8; 1 << 24], 1).unwrap();
        assert!(matches!(
            decompress("x", &bomb, 4096),
            Err(StoreError::Corrupt(_))
        ));
    }

    /// Large bodies are compressed off the runtime, to the same bytes.
    #[tokio::test]
    async fn large_bodies_compress_off_the_runtime() {
        let body = Bytes::from(text(INLINE_BYTES * 2));
        let off = NewBody::new(body.clone())
            .into_stored_off_runtime(&meta(false), None)
            .await;
        assert_eq!(off, NewBody::new(body).into_stored(&meta(false)));
        assert_eq!(off.encoding, Encoding::Zstd);
    }

    /// With a dictionary, a small text body is stored with it and has no
    /// stream for clients; it decodes only with that dictionary. A large
    /// body, and any body of a store without one, stays a standalone stream.
    #[test]
    fn small_bodies_use_the_dictionary() {
        let dictionary = zstd_dictionary::tests::trained();
        let body = Bytes::from(zstd_dictionary::tests::log_bodies(1, 2048).remove(0));
        let stored = NewBody::new(body.clone()).into_stored_with(&meta(false), Some(&dictionary));
        assert_eq!(stored.encoding, Encoding::ZstdDictionary);
        assert_eq!(stored.compressed(), None);
        let decoded = paste_with(meta_of(2048), stored.clone(), Some(&dictionary)).unwrap();
        assert_eq!((decoded.body, decoded.compressed), (body.clone(), None));
        for without in [
            paste(meta_of(2048), stored.clone()),
            paste_with(meta_of(2048), stored.clone(), Some(&other_dictionary())),
        ] {
            assert!(
                matches!(without, Err(StoreError::Corrupt(_))),
                "{without:?}"
            );
        }
        assert!(matches!(
            paste_with(meta_of(2047), stored, Some(&dictionary)),
            Err(StoreError::Corrupt(_))
        ));
        let large = Bytes::from(text(INLINE_BYTES));
        let stored = NewBody::new(large).into_stored_with(&meta(false), Some(&dictionary));
        assert_eq!(stored.encoding, Encoding::Zstd);
        let sealed = NewBody::new(body.clone()).into_stored_with(&meta(true), Some(&dictionary));
        assert_eq!(sealed, Stored::identity(body));
    }

    fn meta_of(size: u64) -> PasteMeta {
        PasteMeta {
            size,
            ..meta(false)
        }
    }

    /// A dictionary learned from other text than the trained one.
    fn other_dictionary() -> Dictionary {
        let mut samples = Samples::default();
        let mut n = 0u64;
        while !samples.add(
            format!(
                "fn item_{n}() -> u64 {{ {n} * {} }}\n// comment {n}\n",
                n % 7
            )
            .repeat(8)
            .as_bytes(),
        ) {
            n += 1;
        }
        Dictionary::train(&samples).unwrap()
    }

    #[test]
    fn encodings_round_trip_their_stored_forms() {
        for encoding in [Encoding::Identity, Encoding::Zstd, Encoding::ZstdDictionary] {
            assert_eq!(Encoding::from_byte(encoding.to_byte()), Some(encoding));
            assert_eq!(Encoding::from_name(encoding.name()), Some(encoding));
        }
        assert_eq!(Encoding::from_byte(3), None);
        assert_eq!(Encoding::from_name("gzip"), None);
    }
}
