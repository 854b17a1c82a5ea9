//! The flags that name a store and how to reach it, shared by `snip serve`
//! (through `command_line`) and by `snip backup`, `restore` and `migrate`.

use std::path::Path;
use std::time::Duration;

use clap::Args;

use crate::core::units::parse_duration;
use crate::store::postgres::schema::validate_schema;
use crate::store::{Location, OpenOptions};

/// Where the pastes live: shared by `serve`, `backup`, `restore` and `migrate`.
#[derive(Debug, Clone, Args)]
pub struct StoreArgs {
    /// The store: a directory (embedded, the default: --data-dir) or a
    /// postgres:// URL shared by several instances.
    #[arg(long = "store", env = "SNIP_STORE", value_name = "DIR|URL")]
    pub location: Option<Location>,

    /// PostgreSQL: keep snip's tables in this schema (created if absent) [default: the search path].
    #[arg(long, env = "SNIP_STORE_SCHEMA", value_parser = parse_schema)]
    pub store_schema: Option<String>,

    /// PostgreSQL: most connections this instance opens.
    #[arg(long, env = "SNIP_STORE_POOL_SIZE", default_value_t = 16)]
    pub store_pool_size: usize,

    /// PostgreSQL: longest wait for a connection, and longest an operation's
    /// statements and transaction may take; past it a request fails with 503
    /// and its connection is closed.
    #[arg(long, env = "SNIP_STORE_TIMEOUT", default_value = "5s", value_parser = parse_duration)]
    pub store_timeout: Duration,
}

impl StoreArgs {
    /// The store's location: `--store`, or the embedded store in `data_dir`.
    pub fn location_or(&self, data_dir: &Path) -> Location {
        self.location
            .clone()
            .unwrap_or_else(|| Location::Embedded(data_dir.to_path_buf()))
    }

    /// Open options with the PostgreSQL settings filled in.
    pub fn open_options(&self) -> OpenOptions {
        OpenOptions {
            schema: self.store_schema.clone(),
            pool_size: self.store_pool_size,
            timeout: self.store_timeout,
            ..OpenOptions::default()
        }
    }
}

/// A PostgreSQL schema name snip accepts.
pub fn parse_schema(input: &str) -> Result<String, String> {
    validate_schema(input).map(|()| input.to_owned())
}
