//! The envelope test vectors shared with the browser implementation
//! (`tests/vectors/envelope.json`, format in `docs/envelope.md`).
//!
//! `every_vector_both_ways` checks each vector in both directions, and its
//! proof of key and verifier. The file
//! is written by `cargo test --test it -- --ignored vectors::write_vectors`; run
//! it only when adding vectors, and review the diff: existing vectors must
//! never change.

use serde_json::Value;
use snip::core::envelope::{self, Key, Meta, SealedFile};

const PATH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/envelope.json");

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd hex length");
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn unhex_array<const N: usize>(text: &str) -> [u8; N] {
    unhex(text).try_into().unwrap()
}

/// A vector's `meta` as the file holds it: the canonical JSON of the sealed `META`.
fn meta_json(meta: &Meta) -> Value {
    serde_json::from_slice(&meta.to_json()).unwrap()
}

fn meta_from(value: &Value) -> Meta {
    let field =
        |value: &Value, name: &str| value.get(name).and_then(Value::as_str).map(str::to_owned);
    let files = value
        .get("files")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|file| SealedFile {
                    name: field(file, "name").unwrap(),
                    size: file["size"].as_u64().unwrap(),
                    lang: field(file, "lang"),
                    media_type: field(file, "type"),
                })
                .collect()
        })
        .unwrap_or_default();
    Meta {
        lang: field(value, "lang"),
        name: field(value, "name"),
        media_type: field(value, "type"),
        files,
    }
}

/// One vector's inputs.
struct Inputs {
    description: &'static str,
    content: Vec<u8>,
    meta: Meta,
    key: [u8; 32],
    password: Option<&'static str>,
    salt: [u8; 16],
    iterations: u32,
    nonce: [u8; 12],
}

fn meta(lang: Option<&str>, name: Option<&str>, media_type: Option<&str>) -> Meta {
    Meta {
        lang: lang.map(str::to_owned),
        name: name.map(str::to_owned),
        media_type: media_type.map(str::to_owned),
        files: Vec::new(),
    }
}

/// Counting bytes `start, start+step, …`: distinct, easy to recognise in hex.
fn counting<const N: usize>(start: u8, step: u8) -> [u8; N] {
    std::array::from_fn(|i| start.wrapping_add(step.wrapping_mul(i as u8)))
}

fn inputs() -> Vec<Inputs> {
    vec![
        Inputs {
            description: "no password, empty meta",
            content: b"hello, snip\n".to_vec(),
            meta: Meta::default(),
            key: counting(0, 1),
            password: None,
            salt: [0; 16],
            iterations: 0,
            nonce: counting(0xa0, 1),
        },
        Inputs {
            description: "no password, lang and name, unicode content",
            content: "fn main() {\n    println!(\"Grüße, 世界 🦀\");\n}\n"
                .as_bytes()
                .to_vec(),
            meta: meta(Some("rust"), Some("main.rs"), None),
            key: counting(0xff, 0xff),
            password: None,
            salt: [0; 16],
            iterations: 0,
            nonce: counting(0x10, 0x11),
        },
        Inputs {
            description: "password, 1000 iterations, lang only",
            content: b"SELECT 1;\n".to_vec(),
            meta: meta(Some("sql"), None, None),
            key: counting(0x42, 3),
            password: Some("correct horse battery staple"),
            salt: counting(0x50, 1),
            iterations: 1000,
            nonce: counting(0x60, 1),
        },
        Inputs {
            description: "no password, all 256 byte values, name and type",
            content: (0..=255u8).collect(),
            meta: meta(None, Some("bytes.bin"), Some("application/octet-stream")),
            key: [0x5a; 32],
            password: None,
            salt: [0; 16],
            iterations: 0,
            nonce: [0; 12],
        },
        Inputs {
            description: "non-ASCII password, empty content, all meta fields with escapes",
            content: Vec::new(),
            meta: meta(
                Some("c++"),
                Some("\"quoted\" \\ tab\t\u{1}é.txt"),
                Some("text/plain; charset=utf-8"),
            ),
            key: counting(0x80, 7),
            password: Some("pässwörd 🔑"),
            salt: counting(0xf0, 1),
            iterations: 1001,
            nonce: counting(0x01, 2),
        },
        Inputs {
            description: "empty password, 1 iteration",
            content: b"x".to_vec(),
            meta: Meta::default(),
            key: [0; 32],
            password: Some(""),
            salt: [0xee; 16],
            iterations: 1,
            nonce: [0xff; 12],
        },
        Inputs {
            description: "several files in one envelope, password, a name with an escape",
            content: b"fn main() {}\n# Notes\n\x00\x01\x02".to_vec(),
            meta: Meta {
                files: vec![
                    SealedFile {
                        name: "main.rs".into(),
                        size: 13,
                        lang: Some("rust".into()),
                        media_type: Some("text/plain; charset=utf-8".into()),
                    },
                    SealedFile {
                        name: "NOTES \"draft\".md".into(),
                        size: 8,
                        lang: Some("markdown".into()),
                        media_type: None,
                    },
                    SealedFile {
                        name: "bytes".into(),
                        size: 3,
                        lang: None,
                        media_type: Some("application/octet-stream".into()),
                    },
                ],
                ..Meta::default()
            },
            key: counting(0x21, 5),
            password: Some("several"),
            salt: counting(0x30, 2),
            iterations: 1000,
            nonce: counting(0x70, 3),
        },
    ]
}

/// One vector as written to the file (fields in this order).
#[derive(serde::Serialize)]
struct Vector {
    description: &'static str,
    content: String,
    meta: Value,
    key: String,
    password: Option<&'static str>,
    salt: String,
    iterations: u32,
    nonce: String,
    envelope: String,
    proof: String,
    verifier: String,
}

/// The proof of key of a vector's envelope and its verifier, in hex.
fn proof_of(envelope: &[u8], key: &Key, password: Option<&str>) -> (String, String) {
    let header = envelope::Header::parse(envelope).unwrap();
    let proof = envelope::FinalKey::for_header(key, password, &header).proof();
    (hex(proof.as_bytes()), hex(&proof.verifier()))
}

/// Regenerates the vector file from `inputs()`.
#[test]
#[ignore = "writes tests/vectors/envelope.json; run by hand when adding vectors"]
fn write_vectors() {
    let vectors: Vec<Vector> = inputs()
        .into_iter()
        .map(|v| {
            let key = Key::from_bytes(v.key);
            let envelope = envelope::seal_with(
                &v.content,
                &v.meta,
                &key,
                v.password,
                v.salt,
                v.nonce,
                v.iterations,
            )
            .unwrap();
            let (proof, verifier) = proof_of(&envelope, &key, v.password);
            Vector {
                description: v.description,
                content: hex(&v.content),
                meta: meta_json(&v.meta),
                key: key.to_fragment(),
                password: v.password,
                salt: hex(&v.salt),
                iterations: v.iterations,
                nonce: hex(&v.nonce),
                envelope: hex(&envelope),
                proof,
                verifier,
            }
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&vectors).unwrap();
    text.push('\n');
    std::fs::create_dir_all(std::path::Path::new(PATH).parent().unwrap()).unwrap();
    std::fs::write(PATH, text).unwrap();
}

/// Every vector: sealing its inputs gives its exact bytes; opening them gives its inputs.
#[test]
fn every_vector_both_ways() {
    let text = std::fs::read_to_string(PATH).unwrap();
    let vectors: Vec<Value> = serde_json::from_str(&text).unwrap();
    assert!(vectors.len() >= 4, "too few vectors");
    for v in &vectors {
        let description = v["description"].as_str().unwrap();
        let content = unhex(v["content"].as_str().unwrap());
        let meta = meta_from(&v["meta"]);
        assert_eq!(
            meta_json(&meta),
            v["meta"],
            "{description}: unknown meta field"
        );
        let key = Key::from_fragment(v["key"].as_str().unwrap()).unwrap();
        let password = v["password"].as_str();
        let salt = unhex_array(v["salt"].as_str().unwrap());
        let nonce = unhex_array(v["nonce"].as_str().unwrap());
        let iterations = u32::try_from(v["iterations"].as_u64().unwrap()).unwrap();
        let expected = unhex(v["envelope"].as_str().unwrap());

        let sealed =
            envelope::seal_with(&content, &meta, &key, password, salt, nonce, iterations).unwrap();
        assert_eq!(hex(&sealed), hex(&expected), "{description}: seal");

        let (opened_meta, opened) = envelope::open(&expected, &key, password).unwrap();
        assert_eq!(opened_meta, meta, "{description}: meta");
        assert_eq!(opened, content, "{description}: content");

        let proof = (v["proof"].as_str(), v["verifier"].as_str());
        let (want_proof, want_verifier) = proof_of(&expected, &key, password);
        assert_eq!(
            proof,
            (Some(want_proof.as_str()), Some(want_verifier.as_str())),
            "{description}: proof of key"
        );

        let header = envelope::Header::parse(&expected).unwrap();
        assert_eq!(header.needs_password(), password.is_some(), "{description}");
        assert_eq!((header.salt, header.nonce), (salt, nonce), "{description}");
        assert_eq!(header.iterations, iterations, "{description}");
        if password.is_some() {
            assert_eq!(
                envelope::open(&expected, &key, None),
                Err(envelope::EnvelopeError::PasswordRequired),
                "{description}"
            );
        }
    }
}
