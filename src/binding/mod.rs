//! The N-API surface: every `#[napi]` item of the crate is under this module, the only
//! place that converts between JavaScript values and the plain-Rust core. `lib/native.js`
//! loads it for the rest of `lib/`; the public API is JavaScript.
//!
//! Strings are read as UTF-16 (never UTF-8, which would hide lone surrogates) into
//! per-thread scratch buffers. A failure of a snapshot, decoding or hashing function is
//! not thrown: the function records the code and the path (`lastFailureCode`,
//! `lastFailurePath`) and returns the number `FAILED` instead of its result. Creating an
//! error object would set its `code` with an ordinary assignment, which a setter planted
//! on `Object.prototype` could intercept; `lib/errors.js` builds the exported errors
//! without such assignments. (The store's calls reject with a code as the message, and
//! the Cedar calls throw, for `lib/` to map.)
//!
//! One file per thing bound: [`scratch`] (per-thread buffers and the last failure),
//! [`strings`] (results as JavaScript strings), [`snapshot`] (the snapshot of a value),
//! [`decode`] (provider text and hashes), [`seal`] (sealed proposals), [`random`] (OS
//! randomness and SHA-256 for the JavaScript layers), [`store`] (the embedded grant
//! store), [`cedar`] (Cedar policy sets). This file holds the numbers `lib/` shares with
//! them.

pub mod cedar;
pub mod decode;
pub mod random;
pub mod scratch;
pub mod seal;
pub mod snapshot;
pub mod store;
pub mod strings;

use napi::bindgen_prelude::*;
use napi_derive::napi;

use crate::error::ErrorCode;
use crate::jcs::tape;
use crate::jcs::MAX_DEPTH;

// Every number `lib/` shares with this file is defined here once and exported.

/// Tape op codes (`src/jcs/tape.rs`), for `lib/snapshot/walk.js`.
#[napi]
pub const OP_NULL: u32 = tape::NULL as u32;
#[napi]
pub const OP_FALSE: u32 = tape::FALSE as u32;
#[napi]
pub const OP_TRUE: u32 = tape::TRUE as u32;
#[napi]
pub const OP_NUMBER: u32 = tape::NUMBER as u32;
#[napi]
pub const OP_STRING: u32 = tape::STRING as u32;
#[napi]
pub const OP_ARRAY: u32 = tape::ARRAY as u32;
#[napi]
pub const OP_OBJECT: u32 = tape::OBJECT as u32;
#[napi]
pub const OP_BIG_STRING: u32 = tape::BIG_STRING as u32;

/// `flags` bit: failures record a JSON Pointer, read with `lastFailurePath`.
#[napi]
pub const FLAG_PATH: u32 = 2;
/// `flags` bit (strict decoding): negative zero is an error.
#[napi]
pub const FLAG_REJECT_NEGATIVE_ZERO: u32 = 4;

/// What a function returns instead of its result when it failed.
#[napi]
pub const FAILED: u32 = 0xffff_ffff;
/// What `canonicalizeText` returns when the text is strict JSON but its value is outside
/// the snapshot domain (negative zero): the failure belongs to stage `snapshot`.
#[napi]
pub const FAILED_SNAPSHOT: u32 = 0xffff_fffe;
/// `checkJson`: the text is a JSON document.
#[napi]
pub const JSON_OK: u32 = 0;
/// `checkJson`: the text is empty or whitespace only.
#[napi]
pub const JSON_BLANK: u32 = 1;

/// The tape buffer `lib/snapshot/tape-writer.js` hands to `encodeTape`: one `Uint8Array` that
/// starts with `TAPE_HEADER_WORDS` native-endian u32 words (the lengths of the tape's
/// streams, the flags, and where the numbers, lengths and op codes start in the buffer).
#[napi]
pub const TAPE_HEADER_WORDS: u32 = 16;
/// Header word: the number of op codes.
#[napi]
pub const TAPE_OPS_LEN: u32 = 0;
/// Header word: the number of f64 numbers.
#[napi]
pub const TAPE_NUMS_LEN: u32 = 1;
/// Header word: the number of u32 lengths.
#[napi]
pub const TAPE_LENS_LEN: u32 = 2;
/// Header word: the UTF-16 length of the text.
#[napi]
pub const TAPE_TEXT_LEN: u32 = 3;
/// Header word: the number of long strings.
#[napi]
pub const TAPE_BIGS_LEN: u32 = 4;
/// Header word: the flags (`FLAG_PATH`).
#[napi]
pub const TAPE_FLAGS: u32 = 5;
/// Header word: the byte offset of the numbers (a multiple of 8).
#[napi]
pub const TAPE_NUMS_OFFSET: u32 = 6;
/// Header word: the byte offset of the lengths (a multiple of 4).
#[napi]
pub const TAPE_LENS_OFFSET: u32 = 7;
/// Header word: the byte offset of the op codes.
#[napi]
pub const TAPE_OPS_OFFSET: u32 = 8;

/// The 64 hex digits that stand in front of the JSON when a hash was asked for.
const HASH_PREFIX: usize = 64;

/// Whether a value is an N-API external (`util.types.isExternal`, for runtimes whose
/// `node:util` lacks it). `napi_typeof` reads the value's type and runs none of its code.
#[napi]
pub fn is_external(value: Unknown<'_>) -> bool {
  matches!(value.get_type(), Ok(ValueType::External))
}

/// A public error code and its human sentence.
#[napi(object)]
pub struct ErrorDescription {
  pub code: String,
  pub message: String,
}

/// Every public error code with its sentence, in a stable order, so messages are
/// written once, here.
#[napi]
pub fn error_messages() -> Vec<ErrorDescription> {
  ErrorCode::ALL
    .iter()
    .map(|code| ErrorDescription {
      code: code.as_str().to_owned(),
      message: code.to_string(),
    })
    .collect()
}

/// The nesting limit shared by the walker, the decoder and the encoder.
#[napi]
pub fn max_depth() -> u32 {
  MAX_DEPTH as u32
}
