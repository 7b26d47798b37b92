//! `tool-argument-snapshot`: RFC-0016 authorized tool-argument snapshots.
//!
//! [`jcs`] and [`error`] are plain Rust (RFC 8785 encoding, strict decoding, hashing);
//! [`binding`] is the only module that speaks N-API.

pub mod binding;
pub mod error;
pub mod jcs;
pub mod store;

pub use error::{ErrorCode, Failure};
