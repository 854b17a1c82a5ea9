//! The I/O-free core shared by the server and the CLI: IDs and the paste model.

pub mod id;
pub mod paste;
pub mod tenant;

pub use id::{IdError, PasteId};
pub use paste::{PasteMeta, Ttl, UnixTime, Visibility};
