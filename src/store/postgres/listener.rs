//! The instance's one listening connection: it hears every change other
//! instances (and this one) commit, evicts it from the cache, and decides
//! whether the cache may be served at all.
//!
//! The connection is its own (`tokio_postgres::connect`), not the pool's:
//! a pooled connection is handed to requests, and notifications arrive only
//! on the connection that listens. Its `application_name` is
//! `NAME listener PID`, so an operator (or a test) finds it in
//! `pg_stat_activity`.
//!
//! Once connected, it runs `LISTEN`, then empties the cache and trusts it
//! (`CoherentCache::restart`): every change committed from then on is heard, and
//! everything cached before is gone. It pings every [`PING_EVERY`], and
//! stops once the cache has gone unread for [`PARK_AFTER`], until the next
//! read (`coherent_cache`). Each ping answered within [`PING_TIMEOUT`] extends the
//! trust to [`TRUST`](super::coherent_cache::TRUST) after it was sent. A slower ping extends nothing,
//! so the trust lapses on its own, but the connection is kept: it lost no
//! notification, and emptying the cache and reconnecting on a busy machine
//! would only send every read to the database at once. A late answer does
//! not vouch either: a stalled backend answers the pending ping first and
//! sends what was notified meanwhile only when it is idle again, before the
//! next ping's answer. A ping that fails or is unanswered after
//! [`PING_GIVE_UP`], or a connection that ends, withdraws the trust at once,
//! and it connects again with backoff.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use tokio_postgres::{AsyncMessage, NoTls};

use super::coherent_cache::{CoherentCache, TRUST};
use super::notify::Invalidation;

/// How often the connection is pinged.
pub const PING_EVERY: Duration = Duration::from_secs(1);
/// How long the cache may go unread before the listener stops pinging. Not
/// at once: a read after the pause misses and goes to the database, which
/// a load that pauses for a few seconds should not pay each time it resumes.
pub const PARK_AFTER: Duration = Duration::from_secs(30);
/// How long a ping may take and still extend the cache's trust.
pub const PING_TIMEOUT: Duration = Duration::from_secs(1);
/// How long a ping may go unanswered before the connection counts as lost.
pub const PING_GIVE_UP: Duration = Duration::from_secs(30);
/// The first wait before connecting again, doubled after every failure.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
/// The longest wait between two attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// Why a listening connection ended.
#[derive(Debug, thiserror::Error)]
enum Lost {
    #[error("cannot connect: {0}")]
    Connect(tokio_postgres::Error),
    #[error("LISTEN failed: {0}")]
    Listen(tokio_postgres::Error),
    #[error("the connection ended")]
    Ended,
    #[error("a ping failed: {0}")]
    Ping(tokio_postgres::Error),
    #[error("a ping went unanswered for {PING_GIVE_UP:?}")]
    Silent,
}

/// Where and how to listen.
pub struct Listener {
    /// The store's connection settings, its `application_name` replaced.
    pub config: tokio_postgres::Config,
    /// The deployment's channel (`notify::channel`).
    pub channel: String,
    /// The cache it keeps coherent.
    pub cache: Arc<CoherentCache>,
}

impl Listener {
    /// The listener's connection settings: the store's, named `NAME listener PID`.
    pub fn config_from(store: &tokio_postgres::Config) -> tokio_postgres::Config {
        let mut config = store.clone();
        let name = store.get_application_name().unwrap_or("snip");
        let mut label = format!("{name} listener {}", std::process::id());
        // application_name is cut by the server at 63 bytes; cut it here, on a character boundary.
        while label.len() > 63 {
            label.pop();
        }
        config.application_name(&label);
        config
    }

    /// Listens until the runtime shuts down, reconnecting whenever the connection is lost.
    pub async fn run(self) {
        let mut backoff = FIRST_BACKOFF;
        loop {
            let lost = self.listen(&mut backoff).await;
            self.cache.distrust();
            tracing::warn!(
                error = %lost,
                retry_in = ?backoff,
                "the cache invalidation listener lost its connection; reading through to the database until it listens again"
            );
            tokio::time::sleep(backoff).await;
            backoff = (backoff * 2).min(MAX_BACKOFF);
        }
    }

    /// One connection: connect, `LISTEN`, empty and trust the cache, then
    /// ping until something fails. Resets `backoff` once it listens.
    async fn listen(&self, backoff: &mut Duration) -> Lost {
        let (client, mut connection) = match self.config.connect(NoTls).await {
            Ok(pair) => pair,
            Err(e) => return Lost::Connect(e),
        };
        let cache = self.cache.clone();
        // The connection's own task: it carries the queries and hands out
        // the notifications, evicting each before reading the next message.
        // When the connection ends, the cache is distrusted there and then,
        // not at the next ping.
        let mut messages =
            futures_util::stream::poll_fn(move |cx| connection.poll_message(cx)).boxed();
        let mut receiver = tokio::spawn(async move {
            while let Some(Ok(message)) = messages.next().await {
                if let AsyncMessage::Notification(n) = message {
                    cache.received(&Invalidation::parse(n.payload()));
                }
            }
            cache.distrust();
        });
        let lost = tokio::select! {
            lost = self.serve(&client, backoff) => Some(lost),
            _ = &mut receiver => None,
        };
        match lost {
            Some(lost) => {
                receiver.abort();
                let _ = receiver.await;
                lost
            }
            None => Lost::Ended,
        }
    }

    async fn serve(&self, client: &tokio_postgres::Client, backoff: &mut Duration) -> Lost {
        // The channel is quoted: it holds the schema name, validated to [a-z0-9_].
        let listen = format!("LISTEN \"{}\"", self.channel);
        // Every change committed after the LISTEN reached the database is
        // heard; the restart empties what was cached before it.
        let sent = Instant::now();
        if let Err(e) = client.batch_execute(&listen).await {
            return Lost::Listen(e);
        }
        self.cache.restart(sent + TRUST);
        // Only a listener that lost its connection has waited longer than
        // the first backoff: its return is news, the first start's is not
        // (the start-up log's first line says where snip listens).
        if *backoff == FIRST_BACKOFF {
            tracing::debug!(channel = %self.channel, "listening for cache invalidations");
        } else {
            tracing::info!(channel = %self.channel, "listening for cache invalidations again");
        }
        *backoff = FIRST_BACKOFF;
        let mut tick = tokio::time::interval(PING_EVERY);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // `restart` has just trusted the cache, as a timely ping would.
        let mut vouched = true;
        let mut last_read = Instant::now();
        loop {
            if self.cache.take_reads() {
                last_read = Instant::now();
            }
            if vouched && last_read.elapsed() >= PARK_AFTER {
                // Let the trust lapse rather than ping an unread cache.
                self.cache.until_read().await;
                tick.reset();
            } else {
                tick.tick().await;
            }
            let sent = Instant::now();
            let Ok(answer) =
                tokio::time::timeout(PING_GIVE_UP, client.simple_query("SELECT 1")).await
            else {
                return Lost::Silent;
            };
            vouched = answer.is_ok() && sent.elapsed() <= PING_TIMEOUT;
            match answer {
                Ok(_) if vouched => self.cache.vouch(sent + TRUST),
                Ok(_) => tracing::info!(
                    "a ping of the cache invalidation listener was slow; the next one vouches"
                ),
                Err(e) if e.is_closed() => return Lost::Ended,
                Err(e) => return Lost::Ping(e),
            }
        }
    }
}
