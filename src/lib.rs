//! `tool-argument-snapshot`: RFC-0016 authorized tool-argument snapshots.
//!
//! [`jcs`], [`seal`] and [`error`] are plain Rust (RFC 8785 encoding, strict decoding,
//! hashing, HMAC for sealed proposals);
//! [`binding`] is the only module that speaks N-API.

pub mod binding;
pub mod error;
pub mod jcs;
pub mod seal;
pub mod store;

pub use error::{ErrorCode, Failure};
