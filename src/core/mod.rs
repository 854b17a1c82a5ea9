//! The I/O-free core shared by the server and the CLI: IDs, the paste model,
//! and the end-to-end encryption envelope.

pub mod envelope;
pub mod id;
pub mod paste;
pub mod random;
pub mod tenant;

pub use id::{IdError, PasteId};
pub use paste::{PasteMeta, Ttl, UnixTime, Visibility};
