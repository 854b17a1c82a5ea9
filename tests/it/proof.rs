//! Proof of key (`docs/envelope.md`): an encrypted paste created with a
//! verifier serves its ciphertext, or burns, only for the right proof; a
//! wrong one is `403` and leaves the paste intact, and an ID alone yields
//! nothing. Over HTTP here; the CLI's side is in `cli_encrypt.rs`.

use reqwest::{Method, StatusCode};
use serde_json::Value;
use snip::core::envelope::{self, FinalKey, Header, Key, Meta, Proof};

use crate::support::{Fetch, Server, client};

/// A sealed paste with what its reader and creator know.
struct Sealed {
    envelope: Vec<u8>,
    proof: Proof,
    key: Key,
}

/// Seals `content` with few PBKDF2 iterations (the format is the same, and
/// tests stay fast) under a fresh key and `password`.
fn seal(content: &str, password: Option<&str>) -> Sealed {
    let key = Key::generate().unwrap();
    let (salt, iterations) = match password {
        Some(_) => ([9; envelope::SALT_LEN], 1000),
        None => ([0; envelope::SALT_LEN], 0),
    };
    let nonce: [u8; envelope::NONCE_LEN] = rand_bytes();
    let envelope = envelope::seal_with(
        content.as_bytes(),
        &Meta::default(),
        &key,
        password,
        salt,
        nonce,
        iterations,
    )
    .unwrap();
    let header = Header::parse(&envelope).unwrap();
    let proof = FinalKey::for_header(&key, password, &header).proof();
    Sealed {
        envelope,
        proof,
        key,
    }
}

fn rand_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).unwrap();
    bytes
}

/// Creates `sealed` with its verifier and `options`; returns the ID.
async fn create(server: &Server, sealed: &Sealed, options: &str) -> String {
    let verifier = b64(&sealed.proof.verifier());
    let (id, _) = server
        .create(
            sealed.envelope.clone(),
            &format!("encrypted=true&verifier={verifier}&{options}"),
        )
        .await;
    id
}

fn b64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A proof that is not the right one.
fn wrong_proof() -> Proof {
    Proof::from_bytes(rand_bytes())
}

/// `method path` with `proof` in `X-Snip-Proof`, if any.
async fn with_proof(
    server: &Server,
    method: Method,
    path: &str,
    proof: Option<&Proof>,
) -> reqwest::Response {
    let mut request = server
        .request(method, path)
        .header("accept", "application/json");
    if let Some(proof) = proof {
        request = request.header("x-snip-proof", proof.to_text());
    }
    request.fetch().await
}

async fn error_code(response: reqwest::Response) -> String {
    let body: Value = response.json().await.unwrap();
    body["error"]["code"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// A non-burn encrypted paste: its ciphertext only with the right proof, on
/// every raw route; metadata and the page stay readable and hold no ciphertext.
#[tokio::test]
async fn ciphertext_needs_the_proof() {
    let server = Server::start();
    let sealed = seal("the ciphertext is not for scanners", None);
    let id = create(&server, &sealed, "").await;
    for path in [
        format!("/raw/{id}"),
        format!("/download/{id}"),
        format!("/{id}"),
    ] {
        let none = with_proof(&server, Method::GET, &path, None).await;
        assert_eq!(none.status(), StatusCode::FORBIDDEN, "{path}");
        assert_eq!(error_code(none).await, "proof_required", "{path}");
        let wrong = with_proof(&server, Method::GET, &path, Some(&wrong_proof())).await;
        assert_eq!(wrong.status(), StatusCode::FORBIDDEN, "{path}");
        assert_eq!(error_code(wrong).await, "wrong_proof", "{path}");
        let right = with_proof(&server, Method::GET, &path, Some(&sealed.proof)).await;
        assert_eq!(right.status(), 200, "{path}");
        assert_eq!(right.bytes().await.unwrap(), sealed.envelope, "{path}");
    }
    let reveal = with_proof(&server, Method::POST, &format!("/{id}/reveal"), None).await;
    assert_eq!(reveal.status(), StatusCode::FORBIDDEN);
    let malformed = server
        .request(Method::GET, &format!("/raw/{id}"))
        .header("x-snip-proof", "not-a-proof")
        .fetch()
        .await;
    assert_eq!(malformed.status(), StatusCode::BAD_REQUEST);

    let (status, meta) = server.metadata(&id).await;
    assert_eq!(status, 200);
    assert_eq!(meta["encrypted"], true);
    assert_eq!(meta["proof"]["iterations"], 0);
    let page = server.get_accepting(&format!("/{id}"), "text/html").await;
    assert_eq!(page.status(), 200);
    let html = page.text().await.unwrap();
    assert!(html.contains("data-proof-iterations=\"0\""), "{html}");
    assert!(!html.contains("SNIP"), "the page holds no envelope");
}

/// A burn paste: no proof and wrong proofs (a wrong password, a wrong key)
/// leave it intact; the right proof reads it once.
#[tokio::test]
async fn wrong_proofs_never_burn() {
    let server = Server::start();
    let sealed = seal("burn me, but only for the right reader", Some("hunter2"));
    let id = create(&server, &sealed, "burn=true").await;
    let (_, meta) = server.metadata(&id).await;
    assert_eq!(meta["proof"]["iterations"], 1000);
    assert_eq!(meta["proof"]["salt"], b64(&[9; 16]));
    let header = Header::parse(&sealed.envelope).unwrap();
    let wrong_password = FinalKey::for_header(&sealed.key, Some("hunter3"), &header).proof();
    let other_key = Key::generate().unwrap();
    let wrong_key = FinalKey::for_header(&other_key, Some("hunter2"), &header).proof();
    let conflict = server.get(&format!("/raw/{id}")).await;
    assert_eq!(conflict.status(), StatusCode::CONFLICT);
    let hint = conflict.text().await.unwrap();
    assert!(
        hint.contains("snip get") && !hint.contains("curl"),
        "{hint}"
    );
    let reveal = format!("/{id}/reveal");
    for proof in [None, Some(&wrong_password), Some(&wrong_key)] {
        let refused = with_proof(&server, Method::POST, &reveal, proof).await;
        assert_eq!(refused.status(), StatusCode::FORBIDDEN);
        let after = server.get(&format!("/api/pastes/{id}")).await;
        assert_eq!(after.status(), 200, "{:?}", after.text().await);
    }
    let right = with_proof(&server, Method::POST, &reveal, Some(&sealed.proof)).await;
    assert_eq!(right.status(), 200);
    assert_eq!(right.headers()["cache-control"], "no-store");
    let bytes = right.bytes().await.unwrap();
    let (_, content) = envelope::open(&bytes, &sealed.key, Some("hunter2")).unwrap();
    assert_eq!(content, b"burn me, but only for the right reader");
    let again = with_proof(&server, Method::POST, &reveal, Some(&sealed.proof)).await;
    assert_eq!(again.status(), 404);
    assert_eq!(server.status(&format!("/api/pastes/{id}")).await, 404);
}

/// Right and wrong proofs revealing at once: exactly one right reader gets
/// the paste, every wrong one is refused or finds it gone, never served.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn race_of_right_and_wrong_proofs_has_one_reader() {
    let server = Server::start_with(&["--ip-rate=off"]);
    for round in 0..4 {
        let sealed = seal(&format!("secret number {round}"), None);
        let id = create(&server, &sealed, "burn=true").await;
        let url = server.at(&format!("/{id}/reveal"));
        let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(48));
        let tasks: Vec<_> = (0..48)
            .map(|i| {
                let right = i % 2 == 0;
                let proof = if right {
                    sealed.proof.clone()
                } else {
                    wrong_proof()
                };
                let (url, barrier) = (url.clone(), barrier.clone());
                tokio::spawn(async move {
                    let client = client();
                    barrier.wait().await;
                    let response = client
                        .post(url)
                        .header("x-snip-proof", proof.to_text())
                        .fetch()
                        .await;
                    (
                        right,
                        response.status().as_u16(),
                        response.bytes().await.unwrap(),
                    )
                })
            })
            .collect();
        let mut readers = Vec::new();
        for task in tasks {
            match task.await.unwrap() {
                (true, 200, body) => readers.push(body),
                (true, 404, _) | (false, 403 | 404, _) => {}
                (right, status, _) => panic!("right={right}: unexpected status {status}"),
            }
        }
        assert_eq!(readers, vec![sealed.envelope.clone()], "round {round}");
    }
}

/// A verifier is only for envelopes: refused on a plain paste, a body that
/// is not an envelope, a short link, or when malformed.
#[tokio::test]
async fn verifier_is_checked_at_create() {
    let server = Server::start();
    let sealed = seal("x", None);
    let verifier = b64(&sealed.proof.verifier());
    for (body, options) in [
        (sealed.envelope.clone(), format!("verifier={verifier}")),
        (
            b"not an envelope".to_vec(),
            format!("encrypted=true&verifier={verifier}"),
        ),
        (
            sealed.envelope.clone(),
            "encrypted=true&verifier=short".to_owned(),
        ),
    ] {
        let response = server
            .request(Method::POST, &format!("/?{options}"))
            .body(body)
            .fetch()
            .await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST, "{options}");
    }
}

/// Without a verifier, an encrypted paste is served as before: to anyone
/// with its ID.
#[tokio::test]
async fn without_a_verifier_nothing_changes() {
    let server = Server::start();
    let sealed = seal("older clients", None);
    let (id, _) = server
        .create(sealed.envelope.clone(), "encrypted=true&burn=true")
        .await;
    let (_, meta) = server.metadata(&id).await;
    assert!(meta.get("proof").is_none(), "{meta}");
    let reveal = with_proof(&server, Method::POST, &format!("/{id}/reveal"), None).await;
    assert_eq!(reveal.status(), 200);
    assert_eq!(reveal.bytes().await.unwrap(), sealed.envelope);
    // A plain paste does not even read the header.
    let (plain, _) = server.create("plain", "").await;
    let read = server
        .request(Method::GET, &format!("/raw/{plain}"))
        .header("x-snip-proof", "junk")
        .fetch()
        .await;
    assert_eq!(read.status(), 200);
    assert_eq!(read.text().await.unwrap(), "plain");
}

/// Wrong proofs count against the client's rate bucket (twice each: the
/// request and the wrong guess), so guessing is throttled sooner than reading.
#[tokio::test]
async fn wrong_proofs_count_against_the_bucket() {
    let server = Server::start_with(&["--ip-rate=1/h", "--ip-burst=6"]);
    let sealed = seal("guarded", None);
    let id = create(&server, &sealed, "").await; // 1 of 6
    let path = format!("/raw/{id}");
    // Each wrong proof costs 2: after two, one unit is left for this read.
    for _ in 0..2 {
        let wrong = with_proof(&server, Method::GET, &path, Some(&wrong_proof())).await;
        assert_eq!(wrong.status(), StatusCode::FORBIDDEN);
    }
    let right = with_proof(&server, Method::GET, &path, Some(&sealed.proof)).await;
    assert_eq!(right.status(), 200);
    let limited = with_proof(&server, Method::GET, &path, Some(&sealed.proof)).await;
    assert_eq!(limited.status(), StatusCode::TOO_MANY_REQUESTS);
}
