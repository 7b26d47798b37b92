//! The embedded grant store behind `createSqliteGrantStore` (`lib/stores/sqlite.js`).
//!
//! [`sqlite`] holds the tables and the statements (plain Rust, tested without Node);
//! [`worker`] runs one store's connection on a thread of its own, so no call waits on
//! the JavaScript thread, nor on the libuv pool that `fs`, `dns` and `crypto` share.
//! Both are plain Rust; `crate::binding::store` is the store's N-API surface: it queues a
//! call and returns a promise the worker settles.

pub mod sqlite;
pub mod worker;

pub use sqlite::{Grant, GrantKey, SqliteGrantStore, StoreError};
pub use worker::{Op, Outcome, Worker};
