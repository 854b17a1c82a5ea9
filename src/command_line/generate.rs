//! `snip completions SHELL` and `snip man`: shell completions and the man
//! page, generated from the clap definitions, so they can never disagree with
//! `--help`.

use std::io::Write;

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::Cli;

/// `snip completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
}

/// Writes the completion script for `shell` to standard output.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "snip", &mut out);
    write_stdout(&out)
}

/// Writes the man page, in roff, to standard output.
pub fn man() -> anyhow::Result<()> {
    let mut out = Vec::new();
    clap_mangen::Man::new(Cli::command()).render(&mut out)?;
    write_stdout(&out)
}

fn write_stdout(bytes: &[u8]) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()?;
    Ok(())
}
