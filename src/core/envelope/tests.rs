//! Unit tests of the envelope: round trips, every refusal, and the proof.

use super::proof::hkdf_sha256_32;
use super::*;

const FEW: u32 = 1000;

fn key(byte: u8) -> Key {
    Key::from_bytes([byte; KEY_LEN])
}

fn meta() -> Meta {
    Meta {
        lang: Some("rust".into()),
        name: Some("main.rs".into()),
        media_type: None,
        files: Vec::new(),
    }
}

fn sealed(password: Option<&str>) -> Vec<u8> {
    let (salt, iterations) = match password {
        Some(_) => ([7; SALT_LEN], FEW),
        None => ([0; SALT_LEN], 0),
    };
    seal_with(
        b"fn main() {}",
        &meta(),
        &key(1),
        password,
        salt,
        [9; NONCE_LEN],
        iterations,
    )
    .unwrap()
}

/// Without a password: the header is as specified and the round trip restores everything.
#[test]
fn round_trip_without_password() {
    let envelope = seal(b"hello", &meta(), &key(1), None).unwrap();
    assert_eq!(&envelope[..6], b"SNIP\x01\x00");
    assert_eq!(&envelope[6..26], &[0; 20]);
    assert_eq!(
        envelope.len(),
        HEADER_LEN + 4 + meta().to_json().len() + 5 + TAG_LEN
    );
    let (m, content) = open(&envelope, &key(1), None).unwrap();
    assert_eq!((m, content.as_slice()), (meta(), &b"hello"[..]));
    // A password given for an envelope that needs none is ignored.
    assert!(open(&envelope, &key(1), Some("x")).is_ok());
}

/// With a password: flag, iterations and a random salt are written; the round trip works.
#[test]
fn round_trip_with_password() {
    let envelope = sealed(Some("hunter2"));
    assert_eq!(envelope[5], FLAG_PASSWORD);
    assert_eq!(&envelope[6..10], &FEW.to_be_bytes());
    let (m, content) = open(&envelope, &key(1), Some("hunter2")).unwrap();
    assert_eq!((m, content.as_slice()), (meta(), &b"fn main() {}"[..]));
}

/// `seal` with a password uses the default iterations and fresh salt and nonce each time.
#[test]
fn seal_with_password_uses_defaults() {
    let a = seal(b"x", &Meta::default(), &key(1), Some("pw")).unwrap();
    let b = seal(b"x", &Meta::default(), &key(1), Some("pw")).unwrap();
    let (ha, hb) = (Header::parse(&a).unwrap(), Header::parse(&b).unwrap());
    assert_eq!(ha.iterations, DEFAULT_ITERATIONS);
    assert_ne!(ha.salt, hb.salt);
    assert_ne!(ha.nonce, hb.nonce);
    assert_eq!(open(&a, &key(1), Some("pw")).unwrap().1, b"x");
}

/// Another key fails authentication, with or without a password.
#[test]
fn wrong_key() {
    assert_eq!(
        open(&sealed(None), &key(2), None),
        Err(EnvelopeError::Decrypt)
    );
    assert_eq!(
        open(&sealed(Some("pw")), &key(2), Some("pw")),
        Err(EnvelopeError::Decrypt)
    );
}

/// Another password (including the empty one) fails authentication.
#[test]
fn wrong_password() {
    let envelope = sealed(Some("pw"));
    for wrong in ["pW", "pw ", ""] {
        assert_eq!(
            open(&envelope, &key(1), Some(wrong)),
            Err(EnvelopeError::Decrypt),
            "{wrong:?}"
        );
    }
}

/// The password flag without a password asks for one, before any decryption.
#[test]
fn password_flag_without_password() {
    assert_eq!(
        open(&sealed(Some("pw")), &key(1), None),
        Err(EnvelopeError::PasswordRequired)
    );
    assert!(Header::parse(&sealed(Some("pw"))).unwrap().needs_password());
    assert!(!Header::parse(&sealed(None)).unwrap().needs_password());
}

/// Flipping any bit of the nonce, tag or ciphertext fails authentication.
#[test]
fn tampered_body() {
    let envelope = sealed(Some("pw"));
    for pos in 26..envelope.len() {
        let mut bad = envelope.clone();
        bad[pos] ^= 0x01;
        assert_eq!(
            open(&bad, &key(1), Some("pw")),
            Err(EnvelopeError::Decrypt),
            "byte {pos}"
        );
    }
}

/// Header bytes are authenticated too; those that parse differently are refused early.
#[test]
fn tampered_header() {
    let envelope = sealed(Some("pw"));
    let mut flag = envelope.clone();
    flag[5] = 0;
    assert!(matches!(
        open(&flag, &key(1), Some("pw")),
        Err(EnvelopeError::Malformed(_))
    ));
    let mut unknown_flag = envelope.clone();
    unknown_flag[5] |= 0x80;
    assert_eq!(
        open(&unknown_flag, &key(1), Some("pw")),
        Err(EnvelopeError::UnsupportedVersion {
            version: 1,
            flags: 0x81
        })
    );
    // The low iteration bytes (high ones would ask for millions) and the salt.
    for pos in 8..26 {
        let mut bad = envelope.clone();
        bad[pos] ^= 0x01;
        assert_eq!(
            open(&bad, &key(1), Some("pw")),
            Err(EnvelopeError::Decrypt),
            "byte {pos}"
        );
    }
    let plain = sealed(None);
    let mut with_flag = plain.clone();
    with_flag[5] = FLAG_PASSWORD;
    with_flag[9] = 1;
    assert_eq!(
        open(&with_flag, &key(1), Some("pw")),
        Err(EnvelopeError::Decrypt)
    );
    let mut salted = plain;
    salted[20] = 1;
    assert!(matches!(
        open(&salted, &key(1), None),
        Err(EnvelopeError::Malformed(_))
    ));
}

/// Magic, version and iteration limits are checked before any key is used.
#[test]
fn header_checks() {
    let envelope = sealed(Some("pw"));
    let mut magic = envelope.clone();
    magic[0] = b's';
    assert_eq!(
        open(&magic, &key(1), None),
        Err(EnvelopeError::NotAnEnvelope)
    );
    let mut version = envelope.clone();
    version[4] = 2;
    assert_eq!(
        open(&version, &key(1), None),
        Err(EnvelopeError::UnsupportedVersion {
            version: 2,
            flags: 1
        })
    );
    let mut many = envelope.clone();
    many[6..10].copy_from_slice(&(MAX_ITERATIONS + 1).to_be_bytes());
    assert_eq!(
        open(&many, &key(1), None),
        Err(EnvelopeError::TooManyIterations(MAX_ITERATIONS + 1))
    );
    let mut zero = envelope;
    zero[6..10].copy_from_slice(&[0; 4]);
    assert!(matches!(
        open(&zero, &key(1), Some("pw")),
        Err(EnvelopeError::Malformed(_))
    ));
    assert_eq!(
        open(b"hello, world", &key(1), None),
        Err(EnvelopeError::NotAnEnvelope)
    );
}

/// Every truncation fails: short ones are not envelopes, longer ones do not authenticate.
#[test]
fn truncated() {
    let envelope = sealed(None);
    for len in 0..envelope.len() {
        let expected = if len < MIN_LEN {
            EnvelopeError::NotAnEnvelope
        } else {
            EnvelopeError::Decrypt
        };
        assert_eq!(
            open(&envelope[..len], &key(1), None),
            Err(expected),
            "length {len}"
        );
    }
    let mut longer = envelope;
    longer.push(0);
    assert_eq!(open(&longer, &key(1), None), Err(EnvelopeError::Decrypt));
}

/// An envelope of exactly `plaintext` under `key(1)`, however it is laid out.
fn seal_raw(plaintext: &[u8]) -> Vec<u8> {
    let header = Header {
        flags: 0,
        iterations: 0,
        salt: [0; SALT_LEN],
        nonce: [3; NONCE_LEN],
    }
    .to_bytes();
    let sealed = FinalKey::derive(&key(1), None, &[0; SALT_LEN], 0)
        .cipher()
        .encrypt(
            &Nonce::from([3; NONCE_LEN]),
            Payload {
                msg: plaintext,
                aad: &header,
            },
        )
        .unwrap();
    [header.as_slice(), &sealed].concat()
}

/// The plaintext of `meta` (JSON text) and `content`.
fn plaintext(meta: &str, content: &[u8]) -> Vec<u8> {
    let len = u32::try_from(meta.len()).unwrap().to_be_bytes();
    [&len[..], meta.as_bytes(), content].concat()
}

/// Authentic plaintexts that break the layout are reported as malformed.
#[test]
fn malformed_plaintext() {
    for plaintext in [
        &b""[..],
        b"\x00\x00\x00",
        b"\x00\x00\x00\x03{}",
        b"\x00\x00\x00\x02[]",
        b"\x00\x00\x00\x02no",
        b"\x00\x00\x00\x0d{\"lang\":true}x",
        b"\x00\x00\x00\x0c{\"name\":\"\xff\"}",
    ] {
        assert!(
            matches!(
                open(&seal_raw(plaintext), &key(1), None),
                Err(EnvelopeError::Malformed(_))
            ),
            "{plaintext:?}"
        );
    }
    // Lenient where JSON.parse is: unknown fields, null, repeated keys.
    let lenient = b"\x00\x00\x00\x29{\"x\":1,\"name\":null,\"lang\":\"a\",\"lang\":\"b\"}body";
    let (meta, content) = open(&seal_raw(lenient), &key(1), None).unwrap();
    assert_eq!(meta.lang.as_deref(), Some("b"));
    assert_eq!(meta.name, None);
    assert_eq!(content, b"body");
}

/// META is compact JSON, fields in the order lang, name, type, absent ones left out.
#[test]
fn meta_encoding() {
    assert_eq!(Meta::default().to_json(), b"{}");
    let all = Meta {
        lang: Some("py".into()),
        name: Some("a \"b\".py".into()),
        media_type: Some("text/x-python".into()),
        files: Vec::new(),
    };
    assert_eq!(
        String::from_utf8(all.to_json()).unwrap(),
        r#"{"lang":"py","name":"a \"b\".py","type":"text/x-python"}"#
    );
    let name_only = Meta {
        name: Some("é\u{1}\u{1f}\n\u{7f}\u{2028}\"\\/".into()),
        ..Meta::default()
    };
    assert_eq!(
        String::from_utf8(name_only.to_json()).unwrap(),
        // Byte for byte what JSON.stringify writes.
        "{\"name\":\"é\\u0001\\u001f\\n\u{7f}\u{2028}\\\"\\\\/\"}"
    );
    assert_eq!(Meta::from_json(&all.to_json()).unwrap(), all);
}

/// Keys round-trip through fragments; anything but 43 canonical base64url characters is refused.
#[test]
fn key_fragments() {
    let k = Key::generate().unwrap();
    let fragment = k.to_fragment();
    assert_eq!(fragment.len(), 43);
    assert_eq!(Key::from_fragment(&fragment).unwrap(), k);
    assert_eq!(
        key(0xfb).to_fragment(),
        "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_s"
    );
    let fb = key(0xfb).to_fragment();
    for text in [
        String::new(),
        fragment[..42].to_owned(),
        format!("{fragment}A"),
        format!("{fragment}="),
        format!("#{}", &fragment[..42]),
        format!("{}!", &fragment[..42]),
        // The standard alphabet's + and / instead of base64url's - and _.
        fb.replace('-', "+"),
        fb.replace('_', "/"),
        // Non-zero trailing bits: not the canonical encoding of any key.
        "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_t".to_owned(),
    ] {
        assert_eq!(Key::from_fragment(&text), Err(KeyError), "{text:?}");
    }
    assert_eq!(format!("{k:?}"), "Key(…)");
}

/// RFC 5869, test case 3 (SHA-256, no salt, no info): the first 32
/// bytes of its output.
#[test]
fn hkdf_matches_rfc_5869() {
    let okm = hkdf_sha256_32(&[0x0b; 22], b"");
    let hex = crate::core::hex::encode(&okm);
    assert_eq!(
        hex,
        "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
    );
}

/// The proof is derived from the final key: a password changes it, and
/// `seal_proved` gives the proof a reader derives from the header.
#[test]
fn proof_follows_the_final_key() {
    let (envelope, proof) = seal_proved(b"x", &meta(), &key(1), None).unwrap();
    let header = Header::parse(&envelope).unwrap();
    assert_eq!(FinalKey::for_header(&key(1), None, &header).proof(), proof);
    assert_ne!(FinalKey::for_header(&key(2), None, &header).proof(), proof);
    let with = FinalKey::derive(&key(1), Some("pw"), &[7; SALT_LEN], FEW).proof();
    let other = FinalKey::derive(&key(1), Some("pw!"), &[7; SALT_LEN], FEW).proof();
    assert_ne!(with, other);
    assert_eq!(Proof::parse(&with.to_text()), Ok(with.clone()));
    assert_eq!(format!("{with:?}"), "Proof(…)");
    assert!(Proof::parse("short").is_err());
}

/// `seal_with` refuses parameters that would make an unreadable envelope.
#[test]
fn seal_with_checks_parameters() {
    let m = Meta::default();
    for (password, salt, iterations) in [
        (Some("pw"), [0; SALT_LEN], 0),
        (Some("pw"), [0; SALT_LEN], MAX_ITERATIONS + 1),
        (None, [0; SALT_LEN], 1),
        (None, [1; SALT_LEN], 0),
    ] {
        assert!(matches!(
            seal_with(
                b"x",
                &m,
                &key(1),
                password,
                salt,
                [0; NONCE_LEN],
                iterations
            ),
            Err(SealError::Params(_))
        ));
    }
}

fn bundle() -> Meta {
    let file = |name: &str, size, lang: Option<&str>| SealedFile {
        name: name.into(),
        size,
        lang: lang.map(str::to_owned),
        media_type: None,
    };
    Meta {
        files: vec![
            file("main.rs", 12, Some("rust")),
            file("notes", 3, None),
            file("a.bin", 2, None),
        ],
        ..Meta::default()
    }
}

/// Several files in one envelope: the list is sealed with them, written
/// canonically, and `split` gives each file its own bytes.
#[test]
fn several_files_round_trip() {
    let content = b"fn main() {}abc\x00\xff";
    let sealed = seal(content, &bundle(), &key(1), None).unwrap();
    let (opened, bytes) = open(&sealed, &key(1), None).unwrap();
    assert_eq!(opened, bundle());
    let files: Vec<(&str, &[u8])> = split(&opened, &bytes)
        .into_iter()
        .map(|(file, bytes)| (file.name.as_str(), bytes))
        .collect();
    assert_eq!(
        files,
        [
            ("main.rs", &b"fn main() {}"[..]),
            ("notes", b"abc"),
            ("a.bin", b"\x00\xff")
        ]
    );
    assert_eq!(
        String::from_utf8(bundle().to_json()).unwrap(),
        r#"{"files":[{"name":"main.rs","size":12,"lang":"rust"},{"name":"notes","size":3},{"name":"a.bin","size":2}]}"#
    );
    assert!(split(&Meta::default(), b"one").is_empty());
}

/// A file list that does not describe the content, or names a file unsafely,
/// makes the plaintext malformed, whoever sealed it.
#[test]
fn malformed_file_lists() {
    for (meta, content) in [
        (
            r#"{"files":[{"name":"a","size":1},{"name":"b","size":1}]}"#,
            &b"abc"[..],
        ),
        (
            r#"{"files":[{"name":"a","size":2},{"name":"b","size":2}]}"#,
            b"abc",
        ),
        (
            r#"{"files":[{"name":"a","size":1},{"name":"a","size":2}]}"#,
            b"abc",
        ),
        (
            r#"{"files":[{"name":"a","size":0},{"name":"b","size":3}]}"#,
            b"abc",
        ),
        (r#"{"files":[{"name":"../a","size":3}]}"#, b"abc"),
        (r#"{"files":[{"name":"d/a","size":3}]}"#, b"abc"),
        (r#"{"files":[{"name":"..","size":3}]}"#, b"abc"),
        (r#"{"files":[{"name":"a\u0007","size":3}]}"#, b"abc"),
        (r#"{"files":[{"size":3}]}"#, b"abc"),
        (r#"{"files":[{"name":"a","size":-3}]}"#, b"abc"),
        (r#"{"files":[{"name":"a","size":"3"}]}"#, b"abc"),
        (r#"{"files":[{"name":"a","size":3,"lang":1}]}"#, b"abc"),
        (r#"{"files":["a"]}"#, b"abc"),
        (r#"{"files":{"a":3}}"#, b"abc"),
    ] {
        assert!(
            matches!(
                open(&seal_raw(&plaintext(meta, content)), &key(1), None),
                Err(EnvelopeError::Malformed(_))
            ),
            "{meta}"
        );
    }
    // null and an empty list are one file, as a reader of no list sees it.
    for meta in [r#"{"files":null}"#, r#"{"files":[]}"#] {
        let (opened, bytes) = open(&seal_raw(&plaintext(meta, b"abc")), &key(1), None).unwrap();
        assert!(opened.files.is_empty());
        assert_eq!(bytes, b"abc");
    }
}
