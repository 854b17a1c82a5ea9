//! The `snip` binary: parse the command line, then serve or run a client command.

use std::process::ExitCode;

use snip::config::{self, Command};

/// mimalloc: a request passes through some twenty small allocations in
/// hyper, axum and tower, which its thread-local free lists serve more
/// cheaply than glibc's malloc (`docs/performance.md` has the measurement).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match config::parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Through anyhow, whose alternate form appends the causes like every other error snip prints.
            eprintln!("snip: {:#}", anyhow::Error::new(e));
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("snip: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async move {
        match cli.command {
            None => serve(cli.serve).await,
            Some(Command::Serve(args)) => serve(*args).await,
            Some(Command::Put(args)) => snip::cli::put(args).await,
            Some(Command::Get(args)) => snip::cli::get(args).await,
            Some(Command::Delete(args)) => snip::cli::delete(args).await,
            Some(Command::List(args)) => snip::cli::user::list(args).await,
            Some(Command::Shorten(args)) => snip::cli::user::shorten(args).await,
            Some(Command::Admin(args)) => snip::cli::admin::run(args).await,
            Some(Command::Backup(args)) => snip::cli::backup::backup(args).await,
            Some(Command::Restore(args)) => snip::cli::backup::restore(args).await,
            Some(Command::Migrate(args)) => snip::cli::backup::migrate(args).await,
            Some(Command::Config(args)) => snip::cli::settings::show(&args),
            Some(Command::Completions(args)) => config::generate::completions(&args),
            Some(Command::Man) => config::generate::man(),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("snip: {}", snip::cli::report::error_line(&e));
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: config::ServeArgs) -> anyhow::Result<()> {
    // Dropped after the server stops: writes out the last buffered lines.
    let _logs = snip::logging::init(&args.log, args.log_format)?;
    snip::server::serve(args.server_config()?).await
}
