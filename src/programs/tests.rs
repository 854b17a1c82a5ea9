//! The runtime against real modules, compiled from WebAssembly text: the
//! shipped examples (`examples/programs/`) and programs that misbehave.

use std::sync::Arc;

use super::*;

fn example(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/examples/programs/{name}.wat",
        env!("CARGO_MANIFEST_DIR")
    );
    wat::parse_file(&path).expect("an example compiles from text")
}

fn programs() -> Arc<Programs> {
    Arc::new(Programs::new(ProgramSettings {
        defaults: Limits {
            fuel: 10_000_000,
            memory: 4 << 20,
        },
        concurrency: 2,
    }))
}

fn meta(encrypted: bool) -> Vec<u8> {
    CheckMeta {
        tenant: "team",
        name: None,
        lang: None,
        size: 0,
        visibility: crate::core::paste::Visibility::Unlisted,
        burn: false,
        ttl: Some(3600),
        encrypted,
        files: None,
    }
    .to_json()
}

async fn verdict(wasm: &[u8], body: &str, encrypted: bool) -> Result<Verdict, Failure> {
    let programs = programs();
    let program = programs.compile(wasm.into()).await.expect("compiles");
    let defaults = programs.defaults();
    programs
        .run(
            program,
            defaults,
            bytes::Bytes::copy_from_slice(body.as_bytes()),
            meta(encrypted),
            1 << 20,
        )
        .await
}

fn refused(verdict: Result<Verdict, Failure>) -> String {
    match verdict {
        Ok(Verdict::Refuse(reason)) => reason,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

/// A module whose `check` is `body`, with the ABI's other exports.
fn with_check(body: &str) -> Vec<u8> {
    wat::parse_str(format!(
        r#"(module
          (memory (export "memory") 1)
          (data (i32.const 16) "out")
          (func (export "alloc") (param i32) (result i32) (i32.const 1024))
          (func (export "output_ptr") (result i32) (i32.const 16))
          (func (export "output_len") (result i32) (i32.const 3))
          (func (export "check") (param i32 i32 i32 i32) (result i32) {body}))"#
    ))
    .expect("test module compiles")
}

/// The credential example refuses each kind of credential, naming it, and
/// accepts ordinary text and encrypted pastes.
#[tokio::test]
async fn credentials_are_refused() {
    let wasm = example("refuse_credentials");
    let cases = [
        ("aws_key = AKIAIOSFODNN7EXAMPLE\n", "AWS access key"),
        ("id ASIAY34FZKBOKMUTVV7A", "AWS access key"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow…\n-----END RSA PRIVATE KEY-----",
            "PEM private key",
        ),
        (
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA",
            "PEM private key",
        ),
        (
            "token: ghp_16C7e42F292c6912E7710c838347Ae178B4a",
            "GitHub token",
        ),
        (
            "GITHUB_TOKEN=github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
            "GitHub token",
        ),
        (
            "SLACK=xoxb-263594206564-2343594206574-FGqddMF8t08v8N7Oq4i57vs1",
            "Slack token",
        ),
    ];
    for (body, kind) in cases {
        let reason = refused(verdict(&wasm, body, false).await);
        assert!(reason.contains(kind), "{body:?}: {reason}");
    }
    for body in [
        "",
        "fn main() { println!(\"AKIA is a prefix\"); }",
        "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA",
        "ghp_short and xoxb-12",
    ] {
        assert_eq!(
            verdict(&wasm, body, false).await,
            Ok(Verdict::Accept),
            "{body:?}"
        );
    }
    let sealed = "AKIAIOSFODNN7EXAMPLE";
    assert_eq!(verdict(&wasm, sealed, true).await, Ok(Verdict::Accept));
}

/// The redaction example replaces every address, keeps the text around
/// them, and accepts a paste without any unchanged.
#[tokio::test]
async fn addresses_are_redacted() {
    let wasm = example("redact_emails");
    let body = "Mail ann.lee+x@example.com, or bob@mail.example.org.\nNot me@localhost or @x.y";
    let Ok(Verdict::Replace(redacted)) = verdict(&wasm, body, false).await else {
        panic!("expected a replacement");
    };
    assert_eq!(
        String::from_utf8(redacted).unwrap(),
        "Mail [email], or [email].\nNot me@localhost or @x.y"
    );
    assert_eq!(
        verdict(&wasm, "a@b.c", false).await,
        Ok(Verdict::Replace(b"[email]".to_vec()))
    );
    for body in ["no addresses here", "", "a@b"] {
        assert_eq!(verdict(&wasm, body, false).await, Ok(Verdict::Accept));
    }
    assert_eq!(
        verdict(&wasm, "ann@example.com", true).await,
        Ok(Verdict::Accept)
    );
}

/// The encryption example refuses a plain paste and accepts an encrypted one.
#[tokio::test]
async fn encryption_is_required() {
    let wasm = example("require_encryption");
    let reason = refused(verdict(&wasm, "plain", false).await);
    assert!(reason.contains("only end-to-end encrypted"), "{reason}");
    assert_eq!(verdict(&wasm, "sealed", true).await, Ok(Verdict::Accept));
    let accept = example("accept");
    assert_eq!(verdict(&accept, "x", false).await, Ok(Verdict::Accept));
}

/// A loop runs out of fuel, a trap is a trap, an allocation past the
/// memory limit is named, and answers outside the ABI are nonsense.
#[tokio::test]
async fn misbehaviour_fails_closed() {
    let looping = with_check("(loop (br 0)) (i32.const 0)");
    assert_eq!(verdict(&looping, "x", false).await, Err(Failure::OutOfFuel));
    let trapping = with_check("unreachable");
    assert!(matches!(
        verdict(&trapping, "x", false).await,
        Err(Failure::Trap(_))
    ));
    let hungry = with_check("(drop (memory.grow (i32.const 1000))) (i32.const 0)");
    assert_eq!(
        verdict(&hungry, "x", false).await,
        Err(Failure::OutOfMemory)
    );
    let odd = with_check("(i32.const 7)");
    assert!(
        matches!(verdict(&odd, "x", false).await, Err(Failure::Nonsense(m)) if m.contains('7'))
    );
    let outside = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "alloc") (param i32) (result i32) (i32.const 1024))
          (func (export "output_ptr") (result i32) (i32.const 65530))
          (func (export "output_len") (result i32) (i32.const 100))
          (func (export "check") (param i32 i32 i32 i32) (result i32) (i32.const 1)))"#,
    )
    .unwrap();
    assert!(matches!(
        verdict(&outside, "x", false).await,
        Err(Failure::Nonsense(m)) if m.contains("outside")
    ));
    let bad_alloc = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "alloc") (param i32) (result i32) (i32.const -8))
          (func (export "output_ptr") (result i32) (i32.const 0))
          (func (export "output_len") (result i32) (i32.const 0))
          (func (export "check") (param i32 i32 i32 i32) (result i32) (i32.const 0)))"#,
    )
    .unwrap();
    assert!(matches!(
        verdict(&bad_alloc, "x", false).await,
        Err(Failure::Nonsense(m)) if m.contains("alloc")
    ));
    // The refusal's output is the reason.
    assert_eq!(
        verdict(&with_check("(i32.const 1)"), "x", false).await,
        Ok(Verdict::Refuse("out".into()))
    );
}

/// Nothing survives from one run to the next: a counter in a global starts
/// from its initial value every time.
#[tokio::test]
async fn every_run_is_fresh() {
    let wasm = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (global $runs (mut i32) (i32.const 0))
          (func (export "alloc") (param i32) (result i32) (i32.const 1024))
          (func (export "output_ptr") (result i32) (i32.const 0))
          (func (export "output_len") (result i32) (i32.const 0))
          (func (export "check") (param i32 i32 i32 i32) (result i32)
            (global.set $runs (i32.add (global.get $runs) (i32.const 1)))
            (i32.ne (global.get $runs) (i32.const 1))))"#,
    )
    .unwrap();
    for _ in 0..3 {
        assert_eq!(verdict(&wasm, "x", false).await, Ok(Verdict::Accept));
    }
}

/// Modules that are not programs are refused with the reason.
#[tokio::test]
async fn non_programs_are_refused() {
    let programs = programs();
    let refuse = |bytes: Vec<u8>| {
        let programs = Arc::clone(&programs);
        async move {
            match programs.compile(bytes.into()).await {
                Err(e) => e.to_string(),
                Ok(_) => panic!("compiled"),
            }
        }
    };
    assert!(
        refuse(b"not wasm".to_vec())
            .await
            .contains("does not compile")
    );
    let importing =
        wat::parse_str(r#"(module (import "env" "clock" (func)) (memory (export "memory") 1))"#)
            .unwrap();
    assert!(refuse(importing).await.contains("`env.clock`"));
    let no_check = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "alloc") (param i32) (result i32) (i32.const 0)))"#,
    )
    .unwrap();
    assert!(refuse(no_check).await.contains("`check("));
    let wrong_type = wat::parse_str(
        r#"(module (memory (export "memory") 1)
          (func (export "alloc") (param i64) (result i32) (i32.const 0)))"#,
    )
    .unwrap();
    assert!(refuse(wrong_type).await.contains("`alloc("));
}

/// The complete example in `docs/programs.md` compiles and does what the
/// document says: refuses pastes over 1000 bytes with its reason.
#[tokio::test]
async fn the_documented_example_works() {
    let doc = include_str!("../../docs/programs.md");
    let text = doc
        .split("```wat\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/programs.md has a wat example");
    let wasm = wat::parse_str(text).expect("the documented example compiles");
    assert_eq!(
        verdict(&wasm, &"x".repeat(1000), false).await,
        Ok(Verdict::Accept)
    );
    assert_eq!(
        verdict(&wasm, &"x".repeat(1001), false).await,
        Ok(Verdict::Refuse("refused: at most 1000 bytes".into()))
    );
}

/// A run yields to the executor between slices of fuel: on a runtime with
/// one thread, a short run started after a long one finishes while the long
/// one is still running.
#[tokio::test(flavor = "current_thread")]
async fn a_long_run_yields_to_other_runs() {
    let programs = programs();
    let looping = programs
        .compile(with_check("(loop (br 0)) (i32.const 0)").into())
        .await
        .expect("compiles");
    let accept = programs
        .compile(example("accept").into())
        .await
        .expect("compiles");
    let long_limits = Limits {
        fuel: 1_000 * YIELD_FUEL,
        ..programs.defaults()
    };
    let long = tokio::spawn({
        let programs = Arc::clone(&programs);
        async move {
            programs
                .run(
                    looping,
                    long_limits,
                    bytes::Bytes::new(),
                    meta(false),
                    1 << 20,
                )
                .await
        }
    });
    // Let the long run start and take its first slice.
    tokio::task::yield_now().await;
    let short = programs
        .run(
            accept,
            programs.defaults(),
            bytes::Bytes::new(),
            meta(false),
            1 << 20,
        )
        .await;
    assert_eq!(short, Ok(Verdict::Accept));
    assert!(!long.is_finished(), "the long run held the only thread");
    assert_eq!(long.await.unwrap(), Err(Failure::OutOfFuel));
}

/// The cost of one run of the do-nothing example through [`Programs::run`]
/// (a permit, instantiate on a pooled fiber stack, place a 2 KiB body and
/// its meta, `check`, drop), on the calling thread:
/// `cargo test --profile fuzz --lib programs::tests::run_cost -- --ignored --nocapture`.
#[tokio::test(flavor = "current_thread")]
#[ignore = "a measurement, run by hand"]
async fn run_cost() {
    let programs = programs();
    let program = programs
        .compile(example("accept").into())
        .await
        .expect("compiles");
    let body = bytes::Bytes::from(vec![b'x'; 2048]);
    let meta = meta(false);
    let run = || {
        programs.run(
            program.clone(),
            programs.defaults(),
            body.clone(),
            meta.clone(),
            1 << 20,
        )
    };
    for _ in 0..1000 {
        assert_eq!(run().await, Ok(Verdict::Accept));
    }
    let runs = 20_000;
    let started = std::time::Instant::now();
    for _ in 0..runs {
        assert_eq!(run().await, Ok(Verdict::Accept));
    }
    let each = started.elapsed().as_secs_f64() * 1e6 / f64::from(runs);
    println!("one run of accept.wat: {each:.2} µs");
}
