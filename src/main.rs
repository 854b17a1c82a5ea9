//! The `snip` binary: parse the command line, then serve or run a client command.

use std::process::ExitCode;

use snip::command_line::{self, Command};

/// mimalloc: a request passes through some twenty small allocations in
/// hyper, axum and tower, which its thread-local free lists serve more
/// cheaply than glibc's malloc (`docs/performance.md` has the measurement).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match command_line::parse() {
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
            Some(Command::Put(args)) => snip::client::put(args).await,
            Some(Command::Get(args)) => snip::client::get(args).await,
            Some(Command::Delete(args)) => snip::client::delete(args).await,
            Some(Command::List(args)) => snip::client::user::list(args).await,
            Some(Command::Shorten(args)) => snip::client::user::shorten(args).await,
            Some(Command::Login(args)) => snip::client::login::login(args).await,
            Some(Command::Whoami(args)) => snip::client::login::whoami(args).await,
            Some(Command::Logout(args)) => snip::client::login::logout(args).await,
            Some(Command::Admin(args)) => snip::client::admin::run(args).await,
            Some(Command::Backup(args)) => snip::client::backup::backup(args).await,
            Some(Command::Restore(args)) => snip::client::backup::restore(args).await,
            Some(Command::Migrate(args)) => snip::client::backup::migrate(args).await,
            Some(Command::Config(args)) => snip::client::settings::show(&args),
            Some(Command::Completions(args)) => command_line::generate::completions(&args),
            Some(Command::Man(args)) => command_line::generate::man(&args),
        }
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("snip: {}", snip::client::report::error_line(&e));
            ExitCode::FAILURE
        }
    }
}

async fn serve(args: command_line::ServeArgs) -> anyhow::Result<()> {
    // Dropped after the server stops: writes out the last buffered lines.
    let _logs = snip::logging::init(&args.log, args.log_format)?;
    snip::server::serve(args.server_config()?).await
}
