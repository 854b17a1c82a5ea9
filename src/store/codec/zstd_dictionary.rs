//! A zstd dictionary trained on a store's own small text bodies, and the
//! samples it is trained from.
//!
//! A 2 KiB log or code paste compressed alone leaves zstd little to learn
//! from: most of what repeats (timestamps' shape, log levels, keywords,
//! indentation) repeats across pastes, not within one. A dictionary of those
//! fragments, learned from the store's first few thousand compressible
//! bodies, shrinks such bodies by a further fifth or so (`docs/design.md`).
//! The price: a stream made with a dictionary cannot be sent to clients as
//! it is (`Content-Encoding: zstd` has no dictionary), so only small bodies,
//! where the gain is, are compressed with one (`codec::INLINE_BYTES`).

use std::cell::RefCell;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};

use super::LEVEL;

/// How many bodies a dictionary is trained on.
pub const SAMPLES: usize = 2048;

/// The bytes of each body that go into the samples: the start of a paste
/// shows its kind as well as the whole, and this bounds the samples' memory
/// (2 MiB, held only until training).
pub const SAMPLE_BYTES: usize = 1024;

/// The largest dictionary trained. Measured on 2 KiB log and code bodies,
/// 16–110 KiB dictionaries differ by a few hundredths of the ratio; each
/// thread that compresses with it keeps a prepared copy.
pub const MAX_BYTES: usize = 32 << 10;

/// Process-wide serial numbers of dictionaries, which the per-thread
/// contexts are keyed by: two stores' dictionaries may share a zstd ID.
static SERIALS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// One compression context per thread with the dictionary it last used
    /// loaded (loading one costs more than compressing a small body).
    static COMPRESSOR: RefCell<Option<(u64, zstd::bulk::Compressor<'static>)>> =
        const { RefCell::new(None) };
    /// Likewise for decompression.
    static DECOMPRESSOR: RefCell<Option<(u64, zstd::bulk::Decompressor<'static>)>> =
        const { RefCell::new(None) };
}

/// A zstd dictionary: its bytes (zstd's format, with an ID that every
/// stream made with it names).
#[derive(Debug)]
pub struct Dictionary {
    serial: u64,
    id: NonZeroU32,
    bytes: Box<[u8]>,
}

impl Dictionary {
    /// A dictionary from its stored bytes: they must be a zstd dictionary
    /// with an ID.
    pub fn new(bytes: Vec<u8>) -> Result<Self, String> {
        let id = zstd::zstd_safe::get_dict_id_from_dict(&bytes)
            .ok_or_else(|| "not a zstd dictionary".to_owned())?;
        // Loading it once here refuses a damaged one before any body needs it.
        zstd::bulk::Decompressor::with_dictionary(&bytes)
            .map_err(|e| format!("not a usable zstd dictionary: {e}"))?;
        Ok(Self {
            serial: SERIALS.fetch_add(1, Ordering::Relaxed),
            id,
            bytes: bytes.into_boxed_slice(),
        })
    }

    /// A dictionary trained on `samples`.
    pub fn train(samples: &Samples) -> Result<Self, String> {
        let bytes = zstd::dict::from_continuous(&samples.bytes, &samples.sizes, MAX_BYTES)
            .map_err(|e| format!("training failed: {e}"))?;
        Self::new(bytes)
    }

    /// The ID streams made with it name.
    pub fn id(&self) -> u32 {
        self.id.get()
    }

    /// Its bytes, as they are to be stored.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// `body` compressed with this dictionary, in at most `limit` bytes.
    pub(super) fn compress(&self, body: &[u8], limit: usize) -> Option<Vec<u8>> {
        COMPRESSOR.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot
                .as_ref()
                .is_none_or(|(serial, _)| *serial != self.serial)
            {
                let compressor =
                    zstd::bulk::Compressor::with_dictionary(LEVEL, &self.bytes).ok()?;
                *slot = Some((self.serial, compressor));
            }
            let (_, compressor) = slot.as_mut()?;
            let mut out = Vec::with_capacity(limit);
            compressor.compress_to_buffer(body, &mut out).ok()?;
            Some(out)
        })
    }

    /// The body `stored` decodes to with this dictionary, into a buffer of
    /// `size` bytes (zstd refuses a stream made with another dictionary).
    pub(super) fn decompress(&self, stored: &[u8], size: usize) -> Result<Vec<u8>, String> {
        DECOMPRESSOR.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot
                .as_ref()
                .is_none_or(|(serial, _)| *serial != self.serial)
            {
                let decompressor = zstd::bulk::Decompressor::with_dictionary(&self.bytes)
                    .map_err(|e| format!("cannot load the dictionary: {e}"))?;
                *slot = Some((self.serial, decompressor));
            }
            let Some((_, decompressor)) = slot.as_mut() else {
                return Err("no decompression context".to_owned());
            };
            let mut out = Vec::with_capacity(size);
            decompressor
                .decompress_to_buffer(stored, &mut out)
                .map_err(|e| format!("does not decompress ({e})"))?;
            Ok(out)
        })
    }
}

/// The starts of bodies a dictionary is to be trained on, gathered until
/// there are [`SAMPLES`].
#[derive(Debug, Default)]
pub struct Samples {
    bytes: Vec<u8>,
    sizes: Vec<usize>,
}

impl Samples {
    /// Adds the start of `body`; `true` once there are enough to train on.
    pub fn add(&mut self, body: &[u8]) -> bool {
        if self.sizes.len() < SAMPLES {
            let start = &body[..body.len().min(SAMPLE_BYTES)];
            self.bytes.extend_from_slice(start);
            self.sizes.push(start.len());
        }
        self.is_complete()
    }

    /// How many bodies have been sampled.
    pub fn count(&self) -> usize {
        self.sizes.len()
    }

    /// Whether there are enough samples to train on.
    pub fn is_complete(&self) -> bool {
        self.sizes.len() >= SAMPLES
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// `n` distinct log-like bodies of about `len` bytes.
    pub(crate) fn log_bodies(n: usize, len: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| {
                let mut body = Vec::with_capacity(len + 200);
                let mut line = i * 7919;
                while body.len() < len {
                    line += 1;
                    let h = xxhash_rust::xxh3::xxh3_64(&line.to_le_bytes());
                    body.extend_from_slice(
                        format!(
                            "2026-11-26T{:02}:{:02}:{:02}.{:03}Z {} [worker-{}] req={:012x} \
                             GET /api/v1/items/{} status={} took={}ms\n",
                            h % 24,
                            h / 24 % 60,
                            h / 1440 % 60,
                            h % 1000,
                            ["INFO", "WARN", "DEBUG", "ERROR"][(h % 4) as usize],
                            h % 8,
                            h >> 16,
                            h % 100_000,
                            [200, 201, 404, 500][(h / 7 % 4) as usize],
                            h % 900,
                        )
                        .as_bytes(),
                    );
                }
                body.truncate(len);
                body
            })
            .collect()
    }

    pub(crate) fn trained() -> Dictionary {
        let mut samples = Samples::default();
        for body in log_bodies(SAMPLES, 2048) {
            samples.add(&body);
        }
        Dictionary::train(&samples).unwrap()
    }

    /// A trained dictionary compresses bodies like its samples better than
    /// zstd alone, and they decompress with it only.
    #[test]
    fn a_trained_dictionary_shrinks_bodies_like_its_samples() {
        let dictionary = trained();
        assert!(dictionary.bytes().len() <= MAX_BYTES);
        let (mut alone, mut with) = (0, 0);
        for body in log_bodies(SAMPLES + 100, 2048).iter().skip(SAMPLES) {
            alone += zstd::bulk::compress(body, LEVEL).unwrap().len();
            let stream = dictionary.compress(body, body.len()).unwrap();
            with += stream.len();
            assert_eq!(dictionary.decompress(&stream, body.len()).unwrap(), *body);
            let other = Dictionary::new(dictionary.bytes().to_vec()).unwrap();
            assert_eq!(other.decompress(&stream, body.len()).unwrap(), *body);
        }
        assert!(with * 10 < alone * 9, "{with} vs {alone} bytes");
    }

    /// Stored bytes that are not a zstd dictionary are refused.
    #[test]
    fn only_zstd_dictionaries_are_accepted() {
        assert!(Dictionary::new(b"just some bytes".to_vec()).is_err());
        let mut damaged = trained().bytes().to_vec();
        damaged.truncate(12);
        assert!(Dictionary::new(damaged).is_err());
    }

    /// Samples take the start of each body and stop at [`SAMPLES`].
    #[test]
    fn samples_keep_the_starts_of_enough_bodies() {
        let mut samples = Samples::default();
        for _ in 0..SAMPLES - 1 {
            assert!(!samples.add(&[b'x'; SAMPLE_BYTES * 2]));
        }
        assert!(samples.add(b"short"));
        assert!(samples.add(b"more"));
        assert_eq!(samples.sizes.len(), SAMPLES);
        assert_eq!(samples.bytes.len(), (SAMPLES - 1) * SAMPLE_BYTES + 5);
    }
}
