//! The I/O-free core shared by the server and the CLI: IDs, the paste model,
//! the end-to-end encryption envelope, the JSON of the HTTP API with its
//! error codes, the parsers of sizes and durations, and the lifetime grammar.

pub mod api;
pub mod envelope;
pub mod error_code;
pub mod files;
pub mod hex;
pub mod id;
pub mod id_cipher;
pub mod paste;
pub mod random;
pub mod search;
pub mod tenant;
pub mod ttl;
pub mod units;

pub use error_code::ErrorCode;
pub use id::{IdError, PasteId};
pub use paste::{PasteMeta, UnixTime, Visibility};
pub use ttl::Ttl;
