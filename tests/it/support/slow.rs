//! A create whose body arrives in two parts on a raw connection: the request
//! head and the first bytes once the server has decided who the caller is,
//! the rest only when the test says so. What a test does in between (revoke
//! a token, delete a tenant, sign out) happens, without any timing, after
//! the caller was checked and before the create can be stored.

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::server::Server;

/// How many bytes of the body are sent before the pause.
const FIRST: usize = 5;

/// A create paused in the middle of its body.
pub struct SlowCreate {
    stream: TcpStream,
    rest: Vec<u8>,
}

impl SlowCreate {
    /// Sends `POST target` with the `headers` lines (each ending in `\r\n`:
    /// the caller's credentials, the content type) and a body of `body`,
    /// waits for the server's `100 Continue` (hyper sends it when the
    /// handler first reads the body, after the caller was checked), then
    /// sends the first few bytes of the body.
    pub async fn begin(server: &Server, target: &str, headers: &str, body: &[u8]) -> Self {
        assert!(body.len() > FIRST, "the body is too short to pause in");
        let mut stream = TcpStream::connect(server.url.trim_start_matches("http://"))
            .await
            .unwrap();
        let head = format!(
            "POST {target} HTTP/1.1\r\nHost: {}\r\n{headers}Accept: application/json\r\n\
             Content-Length: {}\r\nExpect: 100-continue\r\n\r\n",
            server.url.trim_start_matches("http://"),
            body.len()
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let mut interim = Vec::new();
        while !interim.ends_with(b"\r\n\r\n") {
            let mut byte = [0u8; 1];
            assert_eq!(
                stream.read(&mut byte).await.unwrap(),
                1,
                "connection closed"
            );
            interim.push(byte[0]);
        }
        assert!(
            interim.starts_with(b"HTTP/1.1 100"),
            "{}",
            String::from_utf8_lossy(&interim)
        );
        stream.write_all(&body[..FIRST]).await.unwrap();
        Self {
            stream,
            rest: body[FIRST..].to_vec(),
        }
    }

    /// Sends the rest of the body; returns the answer's status and body.
    pub async fn finish(mut self) -> (u16, String) {
        self.stream.write_all(&self.rest).await.unwrap();
        super::http::read_response(&mut self.stream).await
    }
}
