//! A TCP proxy that can freeze: it forwards every connection to a target
//! (PostgreSQL) until frozen, then forwards nothing in either direction
//! while keeping every socket open, as a link that dies without a reset
//! does; thawed, it forwards again (what it held back included).

use std::net::SocketAddr;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

/// The proxy; it stops accepting when dropped.
pub struct FrozenProxy {
    /// Where it listens.
    pub addr: SocketAddr,
    frozen: watch::Sender<bool>,
    accepting: tokio::task::JoinHandle<()>,
}

impl FrozenProxy {
    /// Starts forwarding connections to `target`, on the current runtime.
    pub async fn start(target: SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (frozen, _) = watch::channel(false);
        let switch = frozen.clone();
        let accepting = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let Ok(server) = TcpStream::connect(target).await else {
                    continue;
                };
                let (client_read, client_write) = client.into_split();
                let (server_read, server_write) = server.into_split();
                tokio::spawn(pump(client_read, server_write, switch.subscribe()));
                tokio::spawn(pump(server_read, client_write, switch.subscribe()));
            }
        });
        Self {
            addr,
            frozen,
            accepting,
        }
    }

    /// Stops forwarding; the sockets stay open.
    pub fn freeze(&self) {
        self.frozen.send_replace(true);
    }

    /// Forwards again.
    pub fn thaw(&self) {
        self.frozen.send_replace(false);
    }
}

impl Drop for FrozenProxy {
    fn drop(&mut self) {
        self.accepting.abort();
    }
}

/// Copies `from` to `to` while not frozen, until either side closes.
async fn pump(mut from: OwnedReadHalf, mut to: OwnedWriteHalf, mut frozen: watch::Receiver<bool>) {
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        if frozen.wait_for(|frozen| !frozen).await.is_err() {
            return;
        }
        let read = tokio::select! {
            read = from.read(&mut buffer) => read,
            // Frozen while waiting: stop reading, so nothing more passes.
            _ = frozen.wait_for(|frozen| *frozen) => continue,
        };
        let n = match read {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        // Bytes read just as it froze are held until it thaws.
        if frozen.wait_for(|frozen| !frozen).await.is_err() {
            return;
        }
        if to.write_all(&buffer[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}
