//! Writes a self-signed certificate for `localhost` and 127.0.0.1 (ECDSA
//! P-256, like a typical ACME certificate) as `cert.pem` and `key.pem` into
//! the directory given as the only argument, for `bench/run`'s HTTPS rows.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args_os().nth(1).map(PathBuf::from) else {
        eprintln!("usage: selfsigned DIR");
        return ExitCode::from(2);
    };
    match write(&dir) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("selfsigned: {e}");
            ExitCode::FAILURE
        }
    }
}

fn write(dir: &std::path::Path) -> Result<(), Box<dyn std::error::Error>> {
    let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned()];
    let key = rcgen::KeyPair::generate()?;
    let cert = rcgen::CertificateParams::new(names)?.self_signed(&key)?;
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("cert.pem"), cert.pem())?;
    std::fs::write(dir.join("key.pem"), key.serialize_pem())?;
    Ok(())
}
