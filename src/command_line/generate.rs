//! `snip completions SHELL` and `snip man DIR`: shell completions and man
//! pages (snip(1) and one per command, each with the EXAMPLES its `--help`
//! ends with), generated from the clap definitions, so they can never
//! disagree with `--help`.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use clap_complete::Shell;

use super::{command, examples};

/// `snip completions`.
#[derive(Debug, Clone, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    pub shell: Shell,
}

/// `snip man`.
#[derive(Debug, Clone, Args)]
pub struct ManArgs {
    /// Directory to write the pages into (created if missing), e.g.
    /// ~/.local/share/man/man1.
    pub dir: PathBuf,
}

/// Writes the completion script for `shell` to standard output.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<()> {
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut command(), "snip", &mut out);
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(&out)?;
    stdout.flush()?;
    Ok(())
}

/// Writes snip.1 and a page for every command and subcommand
/// (`snip-put.1`, `snip-admin-tenant-create.1`, …) into `args.dir`; every
/// page a page names is among them.
pub fn man(args: &ManArgs) -> anyhow::Result<()> {
    let dir = &args.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut root = without_help_commands(command());
    root.build();
    let mut written = 0;
    write_pages(&root, dir, &mut written)?;
    eprintln!("wrote {written} man pages to {}", dir.display());
    Ok(())
}

/// `cmd` without the `help` subcommands clap adds, which would be pages of
/// their own that say nothing `--help` does not.
fn without_help_commands(cmd: clap::Command) -> clap::Command {
    cmd.disable_help_subcommand(true)
        .mut_subcommands(without_help_commands)
}

/// Writes the page of `cmd` and those of its subcommands, counting them.
fn write_pages(cmd: &clap::Command, dir: &Path, written: &mut usize) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|sub| !sub.is_hide_set()) {
        write_pages(sub, dir, written)?;
    }
    let man = clap_mangen::Man::new(cmd.clone());
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    render(&man, cmd, &mut page)?;
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    *written += 1;
    Ok(())
}

/// clap_mangen's sections, with the examples of `--help` as EXAMPLES
/// (where clap_mangen would print them under EXTRA).
fn render(man: &clap_mangen::Man, cmd: &clap::Command, out: &mut Vec<u8>) -> anyhow::Result<()> {
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if cmd.get_arguments().any(|arg| !arg.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if cmd.get_subcommands().any(|sub| !sub.is_hide_set()) {
        man.render_subcommands_section(out)?;
    }
    if let Some(text) = cmd.get_after_long_help() {
        out.extend_from_slice(examples_section(&text.to_string()).as_bytes());
    }
    if cmd.get_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
}

/// An EXAMPLES section in roff: the lines as they are (no filling), with
/// roff's escape character and leading control characters made literal.
fn examples_section(text: &str) -> String {
    let mut roff = String::from(".SH EXAMPLES\n.nf\n");
    for line in text.lines().filter(|line| *line != examples::HEADING) {
        let escaped = line.replace('\\', "\\e").replace('-', "\\-");
        if escaped.starts_with(['.', '\'']) {
            roff.push_str("\\&");
        }
        roff.push_str(&escaped);
        roff.push('\n');
    }
    roff.push_str(".fi\n");
    roff
}
