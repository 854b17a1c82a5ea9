//! `snip backup`, `snip restore` and `snip migrate`: dumps of a whole store
//! in the `.snipdump` format ([`crate::store::dump`]).
//!
//! A running server is backed up through its admin API (`GET
//! /api/admin/backup`), because the embedded store's data dir is locked by the
//! server that has it open. PostgreSQL (or a stopped embedded data dir) can
//! also be read directly with `--store`. Restore and migrate open stores
//! directly. A dump is written to `FILE.partial`, checked, then renamed, so a
//! file under the final name is always complete.

use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use clap::Args;
use tokio::io::AsyncWriteExt;

use super::auth::admin_token;
use super::settings::ClientConfig;
use super::store_args::StoreArgs;
use super::{base_url, client, progress, send};
use crate::store::transfer::{self, Summary};
use crate::store::{self, Location, OpenOptions, Store};

/// `snip backup`.
#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// Write the dump to this file.
    #[arg(long, short, value_name = "FILE")]
    pub out: PathBuf,
    /// Read the store directly instead of asking a server: a postgres:// URL or a
    /// stopped server's data dir.
    #[command(flatten)]
    pub store: StoreArgs,
    /// The running server to back up through its admin API, when --store is not
    /// given [default: SNIP_SERVER, then the config file's server, then
    /// http://127.0.0.1:8000].
    #[arg(long)]
    pub server: Option<String>,
    /// Read the admin token from this file [default: the SNIP_ADMIN_TOKEN environment variable].
    #[arg(long, value_name = "PATH")]
    pub admin_token_file: Option<PathBuf>,
}

/// `snip restore`.
#[derive(Debug, Clone, Args)]
pub struct RestoreArgs {
    /// The dump to load.
    pub dump: PathBuf,
    /// The store to load it into (required: a data dir or a postgres:// URL).
    #[command(flatten)]
    pub store: StoreArgs,
}

/// `snip migrate`.
#[derive(Debug, Clone, Args)]
pub struct MigrateArgs {
    /// The store to copy from (a stopped server's data dir, or a postgres:// URL).
    #[arg(long, value_name = "DIR|URL")]
    pub from: Location,
    /// The store to copy into (it must not hold any of the pastes or tenants).
    #[arg(long, value_name = "DIR|URL")]
    pub to: Location,
    /// PostgreSQL schema of --from.
    #[arg(long)]
    pub from_schema: Option<String>,
    /// PostgreSQL schema of --to.
    #[arg(long)]
    pub to_schema: Option<String>,
}

/// Runs `snip backup`.
pub async fn backup(args: BackupArgs) -> anyhow::Result<()> {
    let partial = partial_path(&args.out);
    let result = match &args.store.location {
        Some(location) => {
            let spinner = progress::spinner("backing up", false);
            let result = backup_store(location, &args.store.open_options(), &partial).await;
            progress::finish(spinner);
            result
        }
        None => backup_server(&args, &partial).await,
    };
    let summary = result.inspect_err(|_| {
        let _ = std::fs::remove_file(&partial);
    })?;
    std::fs::rename(&partial, &args.out).with_context(|| {
        format!(
            "cannot rename {} to {}",
            partial.display(),
            args.out.display()
        )
    })?;
    eprintln!("backed up {summary} to {}", args.out.display());
    Ok(())
}

fn partial_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".partial");
    PathBuf::from(name)
}

/// Creates (or empties) the dump file `out`, readable by its owner alone
/// (0600, even if it existed with another mode): it holds every paste,
/// private ones included, and every token hash.
async fn create_private(out: &Path) -> anyhow::Result<tokio::fs::File> {
    use std::os::unix::fs::PermissionsExt;
    let cannot = || format!("cannot create {}", out.display());
    let file = tokio::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(out)
        .await
        .with_context(cannot)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
        .await
        .with_context(cannot)?;
    Ok(file)
}

async fn open(
    location: &Location,
    options: &OpenOptions,
) -> anyhow::Result<std::sync::Arc<dyn Store>> {
    store::open(location, options)
        .await
        .with_context(|| format!("cannot open the store {}", location.describe()))
}

async fn backup_store(
    location: &Location,
    options: &OpenOptions,
    out: &Path,
) -> anyhow::Result<Summary> {
    let store = open(location, options).await?;
    let file = create_private(out).await?;
    let mut writer = tokio::io::BufWriter::with_capacity(1 << 20, file);
    let summary = transfer::backup(store.as_ref(), &mut writer).await?;
    writer.into_inner().sync_all().await?;
    store.close().await?;
    Ok(summary)
}

async fn backup_server(args: &BackupArgs, out: &Path) -> anyhow::Result<Summary> {
    let token = admin_token(args.admin_token_file.as_deref())
        .map_err(|e| anyhow::anyhow!("{e:#} (or read the store directly with --store)"))?;
    let server = ClientConfig::load()?.server(args.server.as_deref()).value;
    let url = base_url(&server)?.join("api/admin/backup")?;
    let request = client()?.get(url.clone()).bearer_auth(token);
    let mut response = send(request, &url).await?;
    let mut file = create_private(out).await?;
    let spinner = progress::spinner("backing up", true);
    let received = async {
        while let Some(chunk) = response
            .chunk()
            .await
            .context("the server stopped sending the dump")?
        {
            file.write_all(&chunk).await?;
            if let Some(spinner) = &spinner {
                spinner.inc(chunk.len() as u64);
            }
        }
        anyhow::Ok(())
    }
    .await;
    progress::finish(spinner);
    received?;
    file.sync_all().await?;
    // The server cannot signal a failure half way through a response: check the dump.
    transfer::verify(out).context("the server sent a broken dump (see its log)")
}

/// Runs `snip restore`.
pub async fn restore(args: RestoreArgs) -> anyhow::Result<()> {
    let Some(location) = &args.store.location else {
        bail!("restore needs --store: a data dir or a postgres:// URL to load the dump into");
    };
    // Check the dump before even opening the store.
    transfer::verify(&args.dump).with_context(|| format!("{} is refused", args.dump.display()))?;
    let store = open(location, &args.store.open_options()).await?;
    let spinner = progress::spinner("restoring", false);
    let result = transfer::restore(store.as_ref(), &args.dump).await;
    progress::finish(spinner);
    store.close().await?;
    let summary =
        result.with_context(|| format!("nothing was restored from {}", args.dump.display()))?;
    eprintln!("restored {summary} into {}", location.describe());
    Ok(())
}

/// Runs `snip migrate`: a backup of --from into a temporary dump, restored into --to.
pub async fn migrate(args: MigrateArgs) -> anyhow::Result<()> {
    if args.from == args.to && args.from_schema == args.to_schema {
        bail!("--from and --to are the same store");
    }
    let from_options = OpenOptions {
        schema: args.from_schema.clone(),
        ..OpenOptions::default()
    };
    let to_options = OpenOptions {
        schema: args.to_schema.clone(),
        ..OpenOptions::default()
    };
    let mut raw = [0u8; 8];
    getrandom::fill(&mut raw).context("no randomness")?;
    let dump = std::env::temp_dir().join(format!(
        "snip-migrate-{}.snipdump",
        crate::core::hex::encode(&raw)
    ));
    let spinner = progress::spinner("migrating", false);
    let result = async {
        let summary = backup_store(&args.from, &from_options, &dump).await?;
        let target = open(&args.to, &to_options).await?;
        let restored = transfer::restore(target.as_ref(), &dump).await;
        target.close().await?;
        restored.context("nothing was copied")?;
        anyhow::Ok(summary)
    }
    .await;
    progress::finish(spinner);
    let _ = std::fs::remove_file(&dump);
    let summary = result?;
    eprintln!(
        "copied {summary} from {} to {}",
        args.from.describe(),
        args.to.describe()
    );
    Ok(())
}
