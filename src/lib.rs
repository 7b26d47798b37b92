//! `tool-argument-snapshot`: RFC-0016 authorized tool-argument snapshots.
//!
//! [`jcs`], [`seal`] and [`error`] are plain Rust (RFC 8785 encoding, strict decoding,
//! hashing, HMAC for sealed proposals); [`store`] is the embedded grant store (bundled
//! SQLite on a thread of its own per store); [`cedar`] holds Cedar policy sets. They
//! return plain Rust types; [`binding`] is the only code that speaks N-API.

pub mod binding;
pub mod cedar;
pub mod error;
pub mod jcs;
pub mod seal;
pub mod store;

pub use error::{ErrorCode, Failure};
