//! The snip dump format (`.snipdump`): a portable, versioned, checksummed copy
//! of a store's live pastes, tenants and tokens.
//!
//! ```text
//! "SNIPDUMP" u32:version
//! record*      kind:u8 (1 tenant, 2 token, 3 paste, 4 program) u32:meta_len meta:JSON
//!              [paste only: u8:encoding u64:body_len body]
//!              [program only: u64:module_len module]
//! trailer      0xFF u64:record_count sha256:32
//! ```
//!
//! Integers are big-endian. The SHA-256 covers every byte before it, so any
//! corruption is detected, and the trailer (with the count) is the last thing
//! written, so any truncation is too. Metadata is the same JSON the model
//! types serialise to, so a paste comes back with its ID, times, delete-token
//! hash, owner and file table (`files`, an empty list for a one-file paste,
//! and absent in dumps made before pastes had files). A body travels as the store keeps it: the encoding byte
//! (`codec`: 0 the body itself, 1 a zstd stream) says how, and the metadata's
//! `size` stays the body's length. Readers check everything before a restore
//! writes anything, a compressed body by decompressing it to exactly `size`
//! bytes. Version 1, without the encoding byte (every body as it is), is
//! still read.
//!
//! A program record (a tenant's WebAssembly module, `crate::programs`)
//! follows its tenant's record; its JSON names the tenant and when the
//! program was set.
//!
//! Every length is bounded before anything is allocated for it: metadata by
//! `MAX_META`, a body by [`MAX_BODY`], so a hostile or damaged dump cannot
//! make a restore reserve memory for a size it merely declares.

use std::io::Read;

use bytes::Bytes;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncWrite, AsyncWriteExt};

use crate::core::PasteMeta;
use crate::core::tenant::{Tenant, TokenRecord};
use crate::programs::MAX_MODULE_BYTES;
use crate::store::{Encoding, codec};

const MAGIC: &[u8; 8] = b"SNIPDUMP";
/// The format version this build writes (and the newest it reads).
pub const VERSION: u32 = 2;
/// The version before, whose bodies have no encoding byte; still read.
const IDENTITY_BODIES: u32 = 1;
const TENANT: u8 = 1;
const TOKEN: u8 = 2;
const PASTE: u8 = 3;
const PROGRAM: u8 = 4;
const TRAILER: u8 = 0xFF;
/// Metadata larger than this is a corrupt length, not a real record.
const MAX_META: u32 = 1 << 20;
/// The largest paste body a dump carries: the largest paste snip stores. A
/// paste whose metadata declares more is refused, by the writer and by the
/// reader, before its body is read or decompressed.
pub const MAX_BODY: u64 = crate::core::paste::MAX_PASTE_BYTES;

/// One entry of a dump.
#[derive(Debug, Clone, PartialEq)]
#[allow(
    clippy::large_enum_variant,
    reason = "records are read and written one at a time; boxing would only add an allocation"
)]
pub enum Record {
    /// A tenant.
    Tenant(Tenant),
    /// A token (its hash, never a secret).
    Token(TokenRecord),
    /// A paste, its body, and its compressed form if it travelled compressed.
    Paste(PasteMeta, Bytes, Option<Bytes>),
    /// A tenant's program, and its module.
    Program(ProgramRecord, Bytes),
}

/// What a dump says of a tenant's program besides its module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramRecord {
    /// The tenant it runs for.
    pub tenant: String,
    /// When it was set.
    pub set_at: crate::core::UnixTime,
}

/// Why a dump cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    /// Reading or writing failed.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The file does not start like a dump.
    #[error("not a snip dump (bad magic bytes)")]
    NotADump,
    /// A dump of a format this build does not know.
    #[error("dump format version {0} is not supported (this snip reads version {VERSION})")]
    Version(u32),
    /// The dump ends before its trailer.
    #[error("the dump is truncated (it ends before its trailer)")]
    Truncated,
    /// The bytes do not add up.
    #[error("the dump is corrupt: {0}")]
    Corrupt(String),
    /// A paste declares a body larger than a dump carries ([`MAX_BODY`]).
    #[error(
        "record {record} (paste {id}) declares a body of {size} bytes; a dump carries bodies of at most {MAX_BODY} bytes"
    )]
    TooLarge {
        /// The record's number, from 1.
        record: u64,
        /// The paste's ID.
        id: String,
        /// The body size its metadata declares.
        size: u64,
    },
}

/// Refuses paste `meta`, record number `record`, if its body is larger
/// than a dump carries.
fn check_size(record: u64, meta: &PasteMeta) -> Result<(), DumpError> {
    if meta.size > MAX_BODY {
        return Err(DumpError::TooLarge {
            record,
            id: meta.id.clone(),
            size: meta.size,
        });
    }
    Ok(())
}

/// Writes a dump record by record.
pub struct DumpWriter<W> {
    out: W,
    hash: Sha256,
    count: u64,
}

impl<W: AsyncWrite + Unpin> DumpWriter<W> {
    /// Writes the header.
    pub async fn new(out: W) -> Result<Self, DumpError> {
        let mut writer = Self {
            out,
            hash: Sha256::new(),
            count: 0,
        };
        let mut header = MAGIC.to_vec();
        header.extend_from_slice(&VERSION.to_be_bytes());
        writer.write(&header).await?;
        Ok(writer)
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), DumpError> {
        self.hash.update(bytes);
        self.out.write_all(bytes).await?;
        Ok(())
    }

    async fn record<T: Serialize>(
        &mut self,
        kind: u8,
        meta: &T,
        body: Option<(Encoding, &[u8])>,
    ) -> Result<(), DumpError> {
        let json = serde_json::to_vec(meta).map_err(|e| DumpError::Corrupt(e.to_string()))?;
        let len = u32::try_from(json.len())
            .ok()
            .filter(|&n| n <= MAX_META)
            .ok_or_else(|| DumpError::Corrupt("metadata too large".into()))?;
        let mut head = vec![kind];
        head.extend_from_slice(&len.to_be_bytes());
        head.extend_from_slice(&json);
        if let Some((encoding, body)) = body {
            head.push(encoding.to_byte());
            head.extend_from_slice(&(body.len() as u64).to_be_bytes());
        }
        self.write(&head).await?;
        if let Some((_, body)) = body {
            self.write(body).await?;
        }
        self.count += 1;
        Ok(())
    }

    /// Appends a tenant.
    pub async fn tenant(&mut self, tenant: &Tenant) -> Result<(), DumpError> {
        self.record(TENANT, tenant, None).await
    }

    /// Appends a tenant's program.
    pub async fn program(
        &mut self,
        record: &ProgramRecord,
        module: &[u8],
    ) -> Result<(), DumpError> {
        let json = serde_json::to_vec(record).map_err(|e| DumpError::Corrupt(e.to_string()))?;
        let mut head = vec![PROGRAM];
        head.extend_from_slice(&(json.len() as u32).to_be_bytes());
        head.extend_from_slice(&json);
        head.extend_from_slice(&(module.len() as u64).to_be_bytes());
        self.write(&head).await?;
        self.write(module).await?;
        self.count += 1;
        Ok(())
    }

    /// Appends a token.
    pub async fn token(&mut self, token: &TokenRecord) -> Result<(), DumpError> {
        self.record(TOKEN, token, None).await
    }

    /// Appends a paste: its compressed form if it has one, else its body.
    pub async fn paste(
        &mut self,
        meta: &PasteMeta,
        body: &[u8],
        compressed: Option<&[u8]>,
    ) -> Result<(), DumpError> {
        // Refused here, so that a backup never writes a dump restore refuses.
        check_size(self.count + 1, meta)?;
        let stored = match compressed {
            Some(compressed) => (Encoding::Zstd, compressed),
            None => (Encoding::Identity, body),
        };
        self.record(PASTE, meta, Some(stored)).await
    }

    /// Writes the trailer and flushes; returns the number of records.
    pub async fn finish(mut self) -> Result<u64, DumpError> {
        let mut trailer = vec![TRAILER];
        trailer.extend_from_slice(&self.count.to_be_bytes());
        self.hash.update(&trailer);
        let digest = self.hash.finalize();
        trailer.extend_from_slice(&digest);
        self.out.write_all(&trailer).await?;
        self.out.flush().await?;
        Ok(self.count)
    }
}

/// Reads and checks a dump record by record.
pub struct DumpReader<R> {
    input: R,
    hash: Sha256,
    count: u64,
    done: bool,
    /// The dump's format version.
    version: u32,
}

impl<R: Read> DumpReader<R> {
    /// Reads and checks the header.
    pub fn new(input: R) -> Result<Self, DumpError> {
        let mut reader = Self {
            input,
            hash: Sha256::new(),
            count: 0,
            done: false,
            version: VERSION,
        };
        let mut magic = [0u8; 8];
        reader.fill(&mut magic).map_err(|e| match e {
            DumpError::Truncated => DumpError::NotADump,
            e => e,
        })?;
        if &magic != MAGIC {
            return Err(DumpError::NotADump);
        }
        let version = u32::from_be_bytes(reader.array()?);
        if version != VERSION && version != IDENTITY_BODIES {
            return Err(DumpError::Version(version));
        }
        reader.version = version;
        Ok(reader)
    }

    /// Reads exactly `buf.len()` bytes, hashing them.
    fn fill(&mut self, buf: &mut [u8]) -> Result<(), DumpError> {
        self.input.read_exact(buf).map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => DumpError::Truncated,
            _ => DumpError::Io(e),
        })?;
        self.hash.update(&*buf);
        Ok(())
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], DumpError> {
        let mut buf = [0u8; N];
        self.fill(&mut buf)?;
        Ok(buf)
    }

    fn json<T: DeserializeOwned>(&mut self, what: &str) -> Result<T, DumpError> {
        let len = u32::from_be_bytes(self.array()?);
        if len > MAX_META {
            return Err(DumpError::Corrupt(format!(
                "{what} record has a length of {len} bytes"
            )));
        }
        let mut buf = vec![0u8; len as usize];
        self.fill(&mut buf)?;
        serde_json::from_slice(&buf)
            .map_err(|e| DumpError::Corrupt(format!("record {} ({what}): {e}", self.count + 1)))
    }

    /// A paste's body (and its compressed form, if it travelled so), which
    /// must be `meta.size` bytes.
    fn body(&mut self, meta: &PasteMeta) -> Result<(Bytes, Option<Bytes>), DumpError> {
        let record = self.count + 1;
        check_size(record, meta)?;
        let corrupt = |what: String| DumpError::Corrupt(format!("record {record}: {what}"));
        // A file table is checked as a create checks it: its names are
        // written to disk by `snip get -o DIR`.
        crate::core::files::check_table(&meta.files, meta.size, None)
            .map_err(|e| corrupt(e.to_string()))?;
        let encoding = match self.version {
            IDENTITY_BODIES => Encoding::Identity,
            _ => {
                let [byte] = self.array::<1>()?;
                Encoding::from_byte(byte)
                    .ok_or_else(|| corrupt(format!("unknown body encoding {byte}")))?
            }
        };
        let len = u64::from_be_bytes(self.array()?);
        // A compressed body is never longer than the body (it is kept only if it saves).
        if len != meta.size && (encoding == Encoding::Identity || len > meta.size) {
            return Err(corrupt(format!(
                "body of {len} bytes, metadata says {}",
                meta.size
            )));
        }
        let mut stored = Vec::new();
        let read = (&mut self.input).take(len).read_to_end(&mut stored)?;
        if read as u64 != len {
            return Err(DumpError::Truncated);
        }
        self.hash.update(&stored);
        match encoding {
            Encoding::Identity => Ok((Bytes::from(stored), None)),
            Encoding::Zstd => {
                let body = codec::decompress(&meta.id, &stored, meta.size)
                    .map_err(|e| corrupt(e.to_string()))?;
                Ok((Bytes::from(body), Some(Bytes::from(stored))))
            }
            // Dumps stand alone: a store's dictionary never travels in one.
            Encoding::ZstdDictionary => Err(corrupt(format!(
                "unknown body encoding {}",
                encoding.to_byte()
            ))),
        }
    }

    /// The next record, or `None` after a trailer that checks out.
    pub fn next_record(&mut self) -> Result<Option<Record>, DumpError> {
        if self.done {
            return Ok(None);
        }
        let [kind] = self.array::<1>()?;
        let record = match kind {
            TENANT => Record::Tenant(self.json("tenant")?),
            TOKEN => Record::Token(self.json("token")?),
            PASTE => {
                let meta: PasteMeta = self.json("paste")?;
                let (body, compressed) = self.body(&meta)?;
                Record::Paste(meta, body, compressed)
            }
            PROGRAM => {
                let record: ProgramRecord = self.json("program")?;
                let len = u64::from_be_bytes(self.array()?);
                if len > MAX_MODULE_BYTES {
                    return Err(DumpError::Corrupt(format!(
                        "record {} declares a program of {len} bytes",
                        self.count + 1
                    )));
                }
                let mut module = vec![0u8; len as usize];
                self.fill(&mut module)?;
                Record::Program(record, Bytes::from(module))
            }
            TRAILER => {
                self.trailer()?;
                return Ok(None);
            }
            other => {
                return Err(DumpError::Corrupt(format!(
                    "record {} has unknown kind {other}",
                    self.count + 1
                )));
            }
        };
        self.count += 1;
        Ok(Some(record))
    }

    fn trailer(&mut self) -> Result<(), DumpError> {
        let count = u64::from_be_bytes(self.array()?);
        let computed = self.hash.clone().finalize();
        let mut stored = [0u8; 32];
        self.input
            .read_exact(&mut stored)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => DumpError::Truncated,
                _ => DumpError::Io(e),
            })?;
        if stored.as_slice() != computed.as_slice() {
            return Err(DumpError::Corrupt("checksum mismatch".into()));
        }
        if count != self.count {
            return Err(DumpError::Corrupt(format!(
                "the trailer counts {count} records, the dump has {}",
                self.count
            )));
        }
        let mut extra = [0u8; 1];
        if self.input.read(&mut extra)? != 0 {
            return Err(DumpError::Corrupt("data after the trailer".into()));
        }
        self.done = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::paste::Visibility;

    fn paste(id: &str, body: &[u8]) -> (PasteMeta, Bytes) {
        let meta = PasteMeta {
            id: id.into(),
            created_at: 7,
            expires_at: Some(99),
            burn: true,
            encrypted: false,
            lang: Some("rust".into()),
            name: None,
            content_type: crate::core::paste::TEXT_PLAIN.into(),
            size: body.len() as u64,
            delete_token_hash: [3; 32],
            owner: Some("team".into()),
            visibility: Visibility::Team,
            redirect: None,
            key_check: None,
            files: Vec::new(),
            author: None,
        };
        (meta, Bytes::copy_from_slice(body))
    }

    /// A body that compresses.
    fn text() -> Vec<u8> {
        b"fn main() { println!(\"hello\"); }\n".repeat(20)
    }

    async fn sample() -> Vec<u8> {
        let mut out = Vec::new();
        let mut writer = DumpWriter::new(&mut out).await.unwrap();
        let tenant = Tenant {
            name: "team".into(),
            created_at: 1,
            max_bytes: Some(10),
            max_paste_bytes: None,
            rate: None,
            burst: Some(3),
            program: None,
            program_fuel: None,
            program_memory: None,
            group: None,
        };
        writer.tenant(&tenant).await.unwrap();
        for (n, body) in [&b"hello"[..], &[0u8, 255, 1][..], &[][..]]
            .iter()
            .enumerate()
        {
            let (meta, body) = paste(&format!("id{n}"), body);
            writer.paste(&meta, &body, None).await.unwrap();
        }
        let (meta, body) = paste("idz", &text());
        let compressed = codec::NewBody::new(body.clone())
            .into_stored(&meta)
            .compressed();
        assert!(compressed.is_some());
        writer
            .paste(&meta, &body, compressed.as_deref())
            .await
            .unwrap();
        assert_eq!(writer.finish().await.unwrap(), 5);
        out
    }

    fn read_all(bytes: &[u8]) -> Result<Vec<Record>, DumpError> {
        let mut reader = DumpReader::new(bytes)?;
        let mut records = Vec::new();
        while let Some(record) = reader.next_record()? {
            records.push(record);
        }
        Ok(records)
    }

    /// A dump reads back record for record, byte for byte; a compressed
    /// body travels compressed and reads back as itself.
    #[tokio::test]
    async fn round_trip() {
        let dump = sample().await;
        let records = read_all(&dump).unwrap();
        assert_eq!(records.len(), 5);
        assert_eq!(records[2], {
            let (m, b) = paste("id1", &[0, 255, 1]);
            Record::Paste(m, b, None)
        });
        let Record::Paste(meta, body, Some(compressed)) = &records[4] else {
            panic!("not a compressed paste: {:?}", records[4]);
        };
        assert_eq!((meta.size, &body[..]), (text().len() as u64, &text()[..]));
        assert!(compressed.len() < body.len() / 4);
    }

    /// A dump of version 1 (no encoding byte; bodies as they are) reads.
    #[test]
    fn reads_version_1() {
        let (meta, body) = paste("id0", b"an old body");
        let json = serde_json::to_vec(&meta).unwrap();
        let mut dump = MAGIC.to_vec();
        dump.extend_from_slice(&IDENTITY_BODIES.to_be_bytes());
        dump.push(PASTE);
        dump.extend_from_slice(&(json.len() as u32).to_be_bytes());
        dump.extend_from_slice(&json);
        dump.extend_from_slice(&(body.len() as u64).to_be_bytes());
        dump.extend_from_slice(&body);
        dump.push(TRAILER);
        dump.extend_from_slice(&1u64.to_be_bytes());
        let digest = Sha256::digest(&dump);
        dump.extend_from_slice(&digest);
        assert_eq!(
            read_all(&dump).unwrap(),
            vec![Record::Paste(meta, body, None)]
        );
    }

    /// A paste declaring a body larger than [`MAX_BODY`] is refused, naming
    /// its record, before its body is read: here a zstd frame whose header
    /// declares the same huge size, which decompression would otherwise
    /// reserve memory for. The writer refuses to write one.
    #[tokio::test]
    async fn declared_sizes_are_bounded() {
        let (mut meta, _) = paste("idhuge", b"");
        meta.size = 1 << 40;
        // A frame header: magic, a single-segment descriptor with an 8-byte
        // content size, that size; then one raw block's header and a byte.
        let mut frame = vec![0x28, 0xB5, 0x2F, 0xFD, 0xE0];
        frame.extend_from_slice(&meta.size.to_le_bytes());
        frame.extend_from_slice(&[0x09, 0x00, 0x00, 0x41]);
        assert!(matches!(
            zstd::zstd_safe::get_frame_content_size(&frame),
            Ok(Some(size)) if size == meta.size
        ));
        // A tenant first, so the paste is record 2.
        let tenant = serde_json::to_vec(&Tenant {
            name: "team".into(),
            created_at: 1,
            max_bytes: None,
            max_paste_bytes: None,
            rate: None,
            burst: None,
            program: None,
            program_fuel: None,
            program_memory: None,
            group: None,
        })
        .unwrap();
        let mut dump = header();
        dump.push(TENANT);
        dump.extend_from_slice(&(tenant.len() as u32).to_be_bytes());
        dump.extend_from_slice(&tenant);
        dump.extend(paste_record(&meta, Encoding::Zstd.to_byte(), &frame));
        let e = read_all(&dump).unwrap_err();
        assert!(
            matches!(&e, DumpError::TooLarge { record: 2, id, size } if id == "idhuge" && *size == 1 << 40),
            "{e:?}"
        );
        assert!(e.to_string().contains("record 2 (paste idhuge)"), "{e}");

        let mut out = Vec::new();
        let mut writer = DumpWriter::new(&mut out).await.unwrap();
        let e = writer.paste(&meta, b"", Some(&frame)).await.unwrap_err();
        assert!(matches!(e, DumpError::TooLarge { record: 1, .. }), "{e:?}");
        meta.size = MAX_BODY;
        assert!(check_size(1, &meta).is_ok());
    }

    /// The start of a dump of the current version.
    fn header() -> Vec<u8> {
        let mut dump = MAGIC.to_vec();
        dump.extend_from_slice(&VERSION.to_be_bytes());
        dump
    }

    /// A paste record of `meta`, its body `stored` with the encoding `byte`.
    fn paste_record(meta: &PasteMeta, byte: u8, stored: &[u8]) -> Vec<u8> {
        let json = serde_json::to_vec(meta).unwrap();
        let mut record = vec![PASTE];
        record.extend_from_slice(&(json.len() as u32).to_be_bytes());
        record.extend_from_slice(&json);
        record.push(byte);
        record.extend_from_slice(&(stored.len() as u64).to_be_bytes());
        record.extend_from_slice(stored);
        record
    }

    /// A compressed body that does not decompress to the paste's size, or
    /// an unknown encoding, is refused like any damage.
    #[tokio::test]
    async fn bad_streams_are_refused() {
        let (mut meta, body) = paste("idz", &text());
        let stream = codec::NewBody::new(body.clone()).into_stored(&meta).bytes;
        meta.size -= 1;
        let mut out = Vec::new();
        let mut writer = DumpWriter::new(&mut out).await.unwrap();
        writer.paste(&meta, &body, Some(&stream)).await.unwrap();
        writer.finish().await.unwrap();
        let e = read_all(&out).unwrap_err();
        assert!(matches!(e, DumpError::Corrupt(_)), "{e:?}");

        // A stream made with a store's dictionary never travels in a dump.
        meta.size += 1;
        for byte in [Encoding::ZstdDictionary.to_byte(), 9] {
            let mut dump = header();
            dump.extend(paste_record(&meta, byte, &stream));
            let e = read_all(&dump).unwrap_err();
            let expected = format!("unknown body encoding {byte}");
            assert!(e.to_string().contains(&expected), "{e}");
        }
    }

    /// A several-file paste's file table is carried; a table that would not
    /// pass a create (an unsafe name, sizes that do not add up) is refused.
    #[tokio::test]
    async fn file_tables_are_carried_and_checked() {
        use crate::core::files::PasteFile;
        let (mut meta, body) = paste("idf", b"fn a() {}\n# notes\n");
        let file = |name: &str, size| PasteFile {
            name: name.into(),
            size,
            lang: None,
            content_type: crate::core::paste::TEXT_PLAIN.into(),
        };
        meta.files = vec![file("a.rs", 10), file("notes.md", 8)];
        let mut out = Vec::new();
        let mut writer = DumpWriter::new(&mut out).await.unwrap();
        writer.paste(&meta, &body, None).await.unwrap();
        writer.finish().await.unwrap();
        assert_eq!(
            read_all(&out).unwrap(),
            vec![Record::Paste(meta.clone(), body.clone(), None)]
        );
        for files in [
            vec![file("../a.rs", 10), file("notes.md", 8)],
            vec![file("a.rs", 10), file("notes.md", 9)],
        ] {
            let bad = PasteMeta {
                files,
                ..meta.clone()
            };
            let mut dump = header();
            dump.extend(paste_record(&bad, 0, &body));
            assert!(matches!(read_all(&dump), Err(DumpError::Corrupt(_))));
        }
    }

    /// A paste's key check (proof of key) is carried; a paste of a dump
    /// written without one reads as having none.
    #[tokio::test]
    async fn key_checks_are_carried() {
        let (mut meta, body) = paste("idk", b"SNIP");
        meta.key_check = Some(crate::core::paste::KeyCheck {
            verifier: [9; 32],
            iterations: 600_000,
            salt: [4; 16],
        });
        let mut out = Vec::new();
        let mut writer = DumpWriter::new(&mut out).await.unwrap();
        writer.paste(&meta, &body, None).await.unwrap();
        writer.finish().await.unwrap();
        assert_eq!(
            read_all(&out).unwrap(),
            vec![Record::Paste(meta.clone(), body, None)]
        );

        let mut json = serde_json::to_value(&meta).unwrap();
        json.as_object_mut().unwrap().remove("key_check");
        let older: PasteMeta = serde_json::from_value(json).unwrap();
        assert_eq!(older.key_check, None);
    }

    /// Every truncation and every single flipped byte is refused.
    #[tokio::test]
    async fn damage_is_detected() {
        let dump = sample().await;
        for len in 0..dump.len() {
            assert!(read_all(&dump[..len]).is_err(), "truncated to {len}");
        }
        for at in 0..dump.len() {
            let mut bad = dump.clone();
            bad[at] ^= 0x20;
            assert!(read_all(&bad).is_err(), "byte {at} flipped");
        }
        let mut longer = dump.clone();
        longer.push(0);
        assert!(matches!(read_all(&longer), Err(DumpError::Corrupt(_))));
        assert!(matches!(
            read_all(b"hello world, not a dump"),
            Err(DumpError::NotADump)
        ));
    }

    /// Property tests of the `.snipdump` reader, which `snip restore` feeds
    /// with whatever file it is given;
    /// `bench/fuzz` runs them long.
    mod fuzz {
        use std::sync::LazyLock;

        use proptest::prelude::*;

        use super::*;

        /// A valid dump, to damage.
        static SAMPLE: LazyLock<Vec<u8>> = LazyLock::new(|| {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(sample())
        });

        /// One change to a dump: a byte replaced, bytes cut out, bytes
        /// inserted (at a position taken modulo the dump's length).
        #[derive(Debug, Clone)]
        enum Edit {
            Set(usize, u8),
            Cut(usize, usize),
            Insert(usize, Vec<u8>),
        }

        fn edit() -> impl Strategy<Value = Edit> {
            prop_oneof![
                (any::<usize>(), any::<u8>()).prop_map(|(at, b)| Edit::Set(at, b)),
                (any::<usize>(), 0usize..40).prop_map(|(at, n)| Edit::Cut(at, n)),
                (
                    any::<usize>(),
                    proptest::collection::vec(any::<u8>(), 0..12)
                )
                    .prop_map(|(at, bytes)| Edit::Insert(at, bytes)),
            ]
        }

        fn apply(dump: &mut Vec<u8>, edit: Edit) {
            let at = |n: usize, len: usize| if len == 0 { 0 } else { n % len };
            match edit {
                Edit::Set(n, b) if !dump.is_empty() => {
                    let i = at(n, dump.len());
                    dump[i] = b;
                }
                Edit::Set(..) => {}
                Edit::Cut(n, len) => {
                    let i = at(n, dump.len());
                    dump.drain(i..(i + len).min(dump.len()));
                }
                Edit::Insert(n, bytes) => {
                    let i = at(n, dump.len() + 1);
                    dump.splice(i..i, bytes);
                }
            }
        }

        /// Damaged dumps and random bytes after a valid header.
        fn dump_like() -> impl Strategy<Value = Vec<u8>> {
            prop_oneof![
                proptest::collection::vec(edit(), 1..4).prop_map(|edits| {
                    let mut dump = SAMPLE.clone();
                    for edit in edits {
                        apply(&mut dump, edit);
                    }
                    dump
                }),
                (
                    any::<bool>(),
                    proptest::collection::vec(any::<u8>(), 0..300)
                )
                    .prop_map(|(old, tail)| {
                        let version: &[u8] = if old { b"\0\0\0\x01" } else { b"\0\0\0\x02" };
                        [&b"SNIPDUMP"[..], version, &tail].concat()
                    }),
            ]
        }

        proptest! {
            /// Any bytes read as records or are refused, never a panic, and
            /// never more records than a valid dump of that size could hold.
            #[test]
            fn fuzz_snipdump_reader(dump in dump_like()) {
                let read = read_all(&dump);
                if let Ok(records) = &read {
                    prop_assert!(records.len() <= dump.len() / 10);
                }
            }
        }
    }
}
