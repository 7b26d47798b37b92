//! The N-API surface, and the only place that converts between JavaScript values and
//! the plain-Rust core. It is called by `lib/walk.js`, `lib/snapshot.js` and
//! `lib/pipeline.js`; the public API is JavaScript.
//!
//! Strings are read as UTF-16 (never UTF-8, which would hide lone surrogates) into
//! per-thread scratch buffers. A failure is not thrown: the function records the code
//! and the path (`lastFailureCode`, `lastFailurePath`) and returns the number `FAILED`
//! instead of its result. Creating an error object would set its `code` with an
//! ordinary assignment, which a setter planted on `Object.prototype` could intercept;
//! `lib/errors.js` builds the exported errors without such assignments.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue};
use napi_derive::napi;

use crate::error::{ErrorCode, Failure};
use crate::jcs::decoder::{self, is_blank, DecodeOptions};
use crate::jcs::encoder::Encoder;
use crate::jcs::hash::{proposal_hash_of, to_hex, Canonical};
use crate::jcs::output::{Latin1Out, Utf16Out};
use crate::jcs::tape::{self, Views};
use crate::jcs::{Tape, TapeRef, MAX_DEPTH};

// Every number `lib/` shares with this file is defined here once and exported.

/// Tape op codes (`src/jcs/tape.rs`), for `lib/walk.js`.
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

/// The tape buffer `lib/walk.js` hands to `encodeTape`: one `Uint8Array` that starts
/// with `TAPE_HEADER_WORDS` native-endian u32 words (the lengths of the tape's streams,
/// the flags, and where the numbers, lengths and op codes start in the buffer).
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

type Outcome<T> = std::result::Result<T, Failure>;

#[derive(Default)]
struct Skeleton {
  narrow: Vec<u8>,
  wide: Vec<u16>,
  /// Which of the two holds the skeleton, if any.
  held: Option<bool>,
}

#[derive(Default)]
struct Scratch {
  /// Copies of the tape's typed arrays: JavaScript could share their memory with another
  /// thread, and the encoder must read a tape that holds still.
  ops: Vec<u8>,
  nums: Vec<f64>,
  lens: Vec<u32>,
  text: Vec<u16>,
  /// The long strings of a tape, read one after the other.
  big_text: Vec<u16>,
  narrow: Vec<u8>,
  wide: Vec<u16>,
  encoder: Encoder,
  tape: Tape,
  /// The skeleton of the last `encodeTape` whose views are made from one
  /// ([`Views::Skeleton`]), in the form of its JSON, until `takeSkeleton` takes it.
  skeleton: Skeleton,
  /// The agent and tool names of a hashed call.
  agent: Vec<u16>,
  tool: Vec<u16>,
  failure_code: Option<ErrorCode>,
  failure_path: Vec<u16>,
}

thread_local! {
  static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Scratch buffers larger than this are released after use instead of kept.
const KEEP_BYTES: usize = 4 << 20;

fn trim<T>(buffer: &mut Vec<T>) {
  if buffer.capacity() * std::mem::size_of::<T>() > KEEP_BYTES {
    *buffer = Vec::new();
  }
}

impl Scratch {
  /// Drops buffers that grew past what is worth keeping between calls.
  fn release(&mut self) {
    trim(&mut self.tape.ops);
    trim(&mut self.tape.nums);
    trim(&mut self.tape.lens);
    trim(&mut self.tape.text);
    trim(&mut self.ops);
    trim(&mut self.nums);
    trim(&mut self.lens);
    trim(&mut self.text);
    trim(&mut self.big_text);
    trim(&mut self.narrow);
    trim(&mut self.wide);
    trim(&mut self.skeleton.narrow);
    trim(&mut self.skeleton.wide);
  }

  /// Records a failure for `lastFailureCode` / `lastFailurePath`.
  fn record(&mut self, failure: Failure) {
    self.failure_code = Some(failure.code);
    self.failure_path = failure.path.unwrap_or_default();
  }
}

/// Runs `body` with this thread's scratch space; a failure is recorded and becomes
/// `Either::B(FAILED)`.
fn with_scratch<T>(body: impl FnOnce(&mut Scratch) -> Outcome<T>) -> Either<T, u32> {
  SCRATCH.with(|cell| {
    let mut scratch = cell.borrow_mut();
    let outcome = body(&mut scratch);
    scratch.release();
    match outcome {
      Ok(value) => Either::A(value),
      Err(failure) => {
        scratch.record(failure);
        Either::B(FAILED)
      }
    }
  })
}

fn internal() -> Failure {
  ErrorCode::Internal.into()
}

/// Appends a JavaScript string's UTF-16 units to `buffer`.
fn append_utf16(env: &Env, value: napi::sys::napi_value, buffer: &mut Vec<u16>) -> Outcome<()> {
  let mut len = 0usize;
  let status =
    unsafe { sys::napi_get_value_string_utf16(env.raw(), value, ptr::null_mut(), 0, &mut len) };
  if status != sys::Status::napi_ok {
    return Err(internal());
  }
  let start = buffer.len();
  buffer.reserve(len + 1);
  let mut written = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(
      env.raw(),
      value,
      buffer.as_mut_ptr().add(start),
      len + 1,
      &mut written,
    )
  };
  if status != sys::Status::napi_ok || written != len {
    return Err(internal());
  }
  // SAFETY: N-API wrote `written` units into the reserved capacity after `start`.
  unsafe { buffer.set_len(start + written) };
  Ok(())
}

/// Copies a JavaScript string's UTF-16 units into `buffer`.
/// One N-API call when the string fits in the buffer's capacity (names, and texts no
/// longer than the longest seen on this thread); two otherwise.
fn read_utf16(env: &Env, value: &JsString<'_>, buffer: &mut Vec<u16>) -> Outcome<()> {
  buffer.clear();
  buffer.reserve(64);
  let capacity = buffer.capacity();
  let mut written = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(
      env.raw(),
      value.raw(),
      buffer.as_mut_ptr(),
      capacity,
      &mut written,
    )
  };
  if status != sys::Status::napi_ok {
    return Err(internal());
  }
  if written + 1 < capacity {
    // SAFETY: N-API wrote `written` units (the whole string) into the capacity.
    unsafe { buffer.set_len(written) };
    return Ok(());
  }
  // The string may have been cut at the capacity: read it at its length.
  append_utf16(env, value.raw(), buffer)
}

/// Encodes `tape` and makes the JavaScript string: Latin-1 when every unit of the tape's
/// text is below 0x100 (V8 keeps such strings one byte per character), UTF-16 otherwise,
/// so V8 copies the result instead of decoding UTF-8. With `names`, the proposal hash of
/// the JSON over exactly those names goes in front as 64 hex digits, followed by one
/// character that says how views of the snapshot are made ([`tape::Shape::views`]): `0`
/// parsed each time, `1` copied from a template parsed once, `2` copied from a template
/// made from the skeleton, which is then left in `skeleton` for `takeSkeleton` (only
/// when `skeleton` is given: the tape's numbers and long strings are the caller's).
#[allow(clippy::too_many_arguments)]
fn encode_to_js<'env>(
  env: &'env Env,
  encoder: &mut Encoder,
  narrow: &mut Vec<u8>,
  wide: &mut Vec<u16>,
  tape: TapeRef<'_>,
  names: Option<(&[u16], &[u16])>,
  track_path: bool,
  mut skeleton: Option<&mut Skeleton>,
) -> Outcome<JsString<'env>> {
  if let Some(skeleton) = skeleton.as_deref_mut() {
    skeleton.held = None;
  }
  let prefix = if names.is_some() { HASH_PREFIX + 1 } else { 0 };
  let units_or = std::iter::once(tape.text)
    .chain(tape.bigs.iter().copied())
    .fold(0u16, |acc, units| acc | or_of(units));
  let views = |encoder: &Encoder, json_len: usize, skeleton_allowed: bool| {
    encoder.shape().views(json_len, skeleton_allowed)
  };
  let flag = |views: Views| match views {
    Views::Parse => b'0',
    Views::Copy => b'1',
    Views::Skeleton => b'2',
  };
  let made = if units_or < 0x100 {
    narrow.clear();
    narrow.resize(prefix, 0);
    encoder.encode_into(tape, &mut Latin1Out(narrow), track_path)?;
    if let Some((agent, tool)) = names {
      let json = &narrow[prefix..];
      let canonical = if units_or < 0x80 {
        Canonical::Utf8(json)
      } else {
        Canonical::Latin1(json)
      };
      let digest = proposal_hash_of(agent, tool, canonical)?;
      let chosen = views(encoder, json.len(), skeleton.is_some());
      if let (Views::Skeleton, Some(skeleton)) = (chosen, skeleton) {
        skeleton.narrow.clear();
        encoder.encode_skeleton_into(tape, &mut Latin1Out(&mut skeleton.narrow))?;
        skeleton.held = Some(true);
      }
      narrow[HASH_PREFIX] = flag(chosen);
      narrow[..HASH_PREFIX].copy_from_slice(&to_hex(&digest));
    }
    env.create_string_latin1(&narrow[..])
  } else {
    wide.clear();
    wide.resize(prefix, 0);
    encoder.encode_into(tape, &mut Utf16Out(wide), track_path)?;
    if let Some((agent, tool)) = names {
      let digest = proposal_hash_of(agent, tool, Canonical::Utf16(&wide[prefix..]))?;
      let chosen = views(encoder, wide.len() - prefix, skeleton.is_some());
      if let (Views::Skeleton, Some(skeleton)) = (chosen, skeleton) {
        skeleton.wide.clear();
        encoder.encode_skeleton_into(tape, &mut Utf16Out(&mut skeleton.wide))?;
        skeleton.held = Some(false);
      }
      wide[HASH_PREFIX] = flag(chosen) as u16;
      for (slot, &digit) in wide[..HASH_PREFIX].iter_mut().zip(to_hex(&digest).iter()) {
        *slot = digit as u16;
      }
    }
    env.create_string_utf16(&wide[..])
  };
  // Creating a string fails on valid input only past V8's maximum string length.
  made.map_err(|_| ErrorCode::SizeLimit.into())
}

/// The bitwise OR of all units, 16 at a time (the compiler makes it vector code).
fn or_of(units: &[u16]) -> u16 {
  let mut lanes = [0u16; 16];
  let mut chunks = units.chunks_exact(16);
  for chunk in &mut chunks {
    for (lane, &unit) in lanes.iter_mut().zip(chunk) {
      *lane |= unit;
    }
  }
  let rest = chunks
    .remainder()
    .iter()
    .fold(0u16, |acc, &unit| acc | unit);
  lanes.iter().fold(rest, |acc, &lane| acc | lane)
}

/// Reads header word `index` of a tape buffer.
fn header_word(buffer: &[u8], index: u32) -> Outcome<usize> {
  let at = index as usize * 4;
  let bytes = buffer.get(at..at + 4).ok_or_else(internal)?;
  Ok(u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize)
}

/// The bytes of `count` items of `size` bytes at `offset` in a tape buffer.
fn region(buffer: &[u8], offset: usize, count: usize, size: usize) -> Outcome<&[u8]> {
  let end = count
    .checked_mul(size)
    .and_then(|bytes| bytes.checked_add(offset))
    .ok_or_else(internal)?;
  buffer.get(offset..end).ok_or_else(internal)
}

/// Copies a JavaScript string of `len` UTF-16 units into `buffer`; a string of any
/// other length is an internal error.
fn read_utf16_exact(
  env: &Env,
  value: &JsString<'_>,
  len: usize,
  buffer: &mut Vec<u16>,
) -> Outcome<()> {
  buffer.clear();
  // Room for one unit more than expected, so that a longer string shows as such.
  buffer.reserve(len + 2);
  let mut written = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(
      env.raw(),
      value.raw(),
      buffer.as_mut_ptr(),
      len + 2,
      &mut written,
    )
  };
  if status != sys::Status::napi_ok || written != len {
    return Err(internal());
  }
  // SAFETY: N-API wrote `written` units into the reserved capacity.
  unsafe { buffer.set_len(written) };
  Ok(())
}

/// Encodes a tape written by `lib/walk.js` and returns its RFC 8785 JSON, or `FAILED`.
/// `tape` is the tape buffer (`TAPE_HEADER_WORDS`), `text` the UTF-16 text of its keys
/// and strings, `bigs` its long strings (`OP_BIG_STRING`, read up to the header's count).
/// With `agentName` and `toolName`, the result is the 64-character hex proposal hash of
/// exactly those names and the JSON, one template character (`1`: views worth copying
/// from a template), then the canonical JSON.
#[napi(catch_unwind)]
pub fn encode_tape<'env>(
  env: &'env Env,
  tape: &[u8],
  text: JsString<'_>,
  bigs: Option<Array<'_>>,
  agent_name: Option<JsString<'_>>,
  tool_name: Option<JsString<'_>>,
) -> Either<JsString<'env>, u32> {
  with_scratch(|scratch| {
    let Scratch {
      ops: own_ops,
      nums: own_nums,
      lens: own_lens,
      text: units,
      big_text,
      narrow,
      wide,
      encoder,
      agent,
      tool,
      skeleton,
      ..
    } = scratch;
    let ops_len = header_word(tape, TAPE_OPS_LEN)?;
    let nums_len = header_word(tape, TAPE_NUMS_LEN)?;
    let lens_len = header_word(tape, TAPE_LENS_LEN)?;
    let text_len = header_word(tape, TAPE_TEXT_LEN)?;
    let bigs_len = header_word(tape, TAPE_BIGS_LEN)?;
    let flags = header_word(tape, TAPE_FLAGS)? as u32;
    // Copies of the tape's streams: the encoder must read a tape that holds still.
    let ops = region(tape, header_word(tape, TAPE_OPS_OFFSET)?, ops_len, 1)?;
    own_ops.clear();
    own_ops.extend_from_slice(ops);
    let nums = region(tape, header_word(tape, TAPE_NUMS_OFFSET)?, nums_len, 8)?;
    own_nums.clear();
    own_nums.extend(
      nums
        .chunks_exact(8)
        .map(|b| f64::from_ne_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])),
    );
    let lens = region(tape, header_word(tape, TAPE_LENS_OFFSET)?, lens_len, 4)?;
    own_lens.clear();
    own_lens.extend(
      lens
        .chunks_exact(4)
        .map(|b| u32::from_ne_bytes([b[0], b[1], b[2], b[3]])),
    );
    read_utf16_exact(env, &text, text_len, units)?;
    big_text.clear();
    let mut big_ends = Vec::with_capacity(bigs_len);
    if bigs_len > 0 {
      let bigs = bigs.ok_or_else(internal)?;
      for index in 0..bigs_len as u32 {
        let big: Unknown<'_> = bigs.get(index).ok().flatten().ok_or_else(internal)?;
        append_utf16(env, big.raw(), big_text)?;
        big_ends.push(big_text.len());
      }
    }
    let mut start = 0;
    let big_slices: Vec<&[u16]> = big_ends
      .iter()
      .map(|&end| {
        let slice = &big_text[start..end];
        start = end;
        slice
      })
      .collect();
    let names = match (agent_name, tool_name) {
      (Some(agent_name), Some(tool_name)) => {
        read_utf16(env, &agent_name, agent)?;
        read_utf16(env, &tool_name, tool)?;
        Some((&agent[..], &tool[..]))
      }
      (None, None) => None,
      _ => return Err(internal()),
    };
    let tape = TapeRef {
      ops: own_ops,
      nums: own_nums,
      lens: own_lens,
      text: units,
      bigs: &big_slices,
    };
    encode_to_js(
      env,
      encoder,
      narrow,
      wide,
      tape,
      names,
      flags & FLAG_PATH != 0,
      Some(skeleton),
    )
  })
}

/// The skeleton the last `encodeTape` on this thread left (its template character was
/// `2`), as a string of the same form as its JSON; `FAILED` when there is none. Taking it
/// leaves none.
#[napi(catch_unwind)]
pub fn take_skeleton<'env>(env: &'env Env) -> Either<JsString<'env>, u32> {
  SCRATCH.with(|cell| {
    let mut scratch = cell.borrow_mut();
    let skeleton = &mut scratch.skeleton;
    let made = match skeleton.held.take() {
      Some(true) => env.create_string_latin1(&skeleton.narrow),
      Some(false) => env.create_string_utf16(&skeleton.wide),
      None => return Either::B(FAILED),
    };
    skeleton.narrow.clear();
    skeleton.wide.clear();
    scratch.release();
    match made {
      Ok(value) => Either::A(value),
      Err(_) => Either::B(FAILED),
    }
  })
}

/// Strict-decodes provider text, canonicalizes it and hashes it with the agent and tool
/// names, in one pass: the snapshot of text that no schema transforms. Empty or
/// whitespace-only text is the empty object. Returns what `encodeTape` returns with
/// names, `FAILED` when the text is not strict JSON (stage `json`), or `FAILED_SNAPSHOT`
/// when its value is outside the snapshot domain (negative zero: stage `snapshot`).
/// Flags: `FLAG_PATH`.
#[napi(catch_unwind)]
pub fn canonicalize_text<'env>(
  env: &'env Env,
  text: JsString<'_>,
  agent_name: JsString<'_>,
  tool_name: JsString<'_>,
  flags: u32,
) -> Either<JsString<'env>, u32> {
  SCRATCH.with(|cell| {
    let mut scratch = cell.borrow_mut();
    let Scratch {
      text: units,
      tape,
      encoder,
      narrow,
      wide,
      agent,
      tool,
      ..
    } = &mut *scratch;
    let track_path = flags & FLAG_PATH != 0;
    let decoded = (|| {
      read_utf16(env, &text, units)?;
      read_utf16(env, &agent_name, agent)?;
      read_utf16(env, &tool_name, tool)?;
      tape.clear();
      if is_blank(units) {
        tape.ops.push(tape::OBJECT);
        tape.lens.push(0);
        return Ok(());
      }
      decoder::decode(units, DecodeOptions::request().with_path(track_path), tape)
    })();
    let outcome = decoded.map_err(|failure| (failure, FAILED)).and_then(|()| {
      encode_to_js(
        env,
        encoder,
        narrow,
        wide,
        tape.as_ref(),
        Some((&agent[..], &tool[..])),
        track_path,
        None,
      )
      .map_err(|failure| (failure, FAILED_SNAPSHOT))
    });
    scratch.release();
    match outcome {
      Ok(value) => Either::A(value),
      Err((failure, status)) => {
        scratch.record(failure);
        Either::B(status)
      }
    }
  })
}

/// Whether a value is an N-API external (`util.types.isExternal`, for runtimes whose
/// `node:util` lacks it). `napi_typeof` reads the value's type and runs none of its code.
#[napi]
pub fn is_external(value: Unknown<'_>) -> bool {
  matches!(value.get_type(), Ok(ValueType::External))
}

/// Strict-decodes JSON text without building a value: `JSON_OK`, `JSON_BLANK` (empty or
/// whitespace only) or `FAILED`. Flags: `FLAG_PATH`, `FLAG_REJECT_NEGATIVE_ZERO`.
#[napi(catch_unwind)]
pub fn check_json(env: &Env, text: JsString<'_>, flags: u32) -> u32 {
  let outcome = with_scratch(|scratch| {
    let Scratch {
      text: units, tape, ..
    } = scratch;
    read_utf16(env, &text, units)?;
    if is_blank(units) {
      return Ok(JSON_BLANK);
    }
    tape.clear();
    decoder::decode(units, decode_options(flags), tape)?;
    Ok(JSON_OK)
  });
  match outcome {
    Either::A(status) | Either::B(status) => status,
  }
}

/// Strict-decodes JSON text and returns its RFC 8785 form, or `FAILED`.
#[napi(catch_unwind)]
pub fn canonicalize_json<'env>(
  env: &'env Env,
  text: JsString<'_>,
  flags: u32,
) -> Either<JsString<'env>, u32> {
  with_scratch(|scratch| {
    let Scratch {
      text: units,
      tape,
      encoder,
      narrow,
      wide,
      ..
    } = scratch;
    read_utf16(env, &text, units)?;
    let options = decode_options(flags);
    tape.clear();
    decoder::decode(units, options, tape)?;
    encode_to_js(
      env,
      encoder,
      narrow,
      wide,
      tape.as_ref(),
      None,
      options.track_path,
      None,
    )
  })
}

/// The proposal hash of an agent, a tool and canonical JSON already computed, or
/// `FAILED` (a lone surrogate in any of them).
#[napi(catch_unwind)]
pub fn hash_proposal(
  env: &Env,
  agent_name: JsString<'_>,
  tool_name: JsString<'_>,
  args_canonical_json: JsString<'_>,
) -> Either<String, u32> {
  with_scratch(|_| {
    let (mut agent, mut tool, mut json) = (Vec::new(), Vec::new(), Vec::new());
    read_utf16(env, &agent_name, &mut agent)?;
    read_utf16(env, &tool_name, &mut tool)?;
    read_utf16(env, &args_canonical_json, &mut json)?;
    if !crate::jcs::string::is_well_formed(&json) {
      return Err(ErrorCode::LoneSurrogate.into());
    }
    let digest = proposal_hash_of(&agent, &tool, Canonical::Utf16(&json))?;
    Ok(to_hex(&digest).iter().map(|&b| b as char).collect())
  })
}

/// The lowercase hex HMAC-SHA256 of the UTF-8 `message` under `key`: a sealed proposal's
/// signature (`message` is its RFC 8785 form without the signature).
#[napi(catch_unwind)]
pub fn seal_signature(key: &[u8], message: String) -> String {
  let mac = crate::seal::hmac_sha256(key, message.as_bytes());
  to_hex(&mac).iter().map(|&b| b as char).collect()
}

/// Whether `signature` (64 lowercase hex digits) is the HMAC-SHA256 of the UTF-8
/// `message` under `key`, compared in constant time.
#[napi(catch_unwind)]
pub fn seal_verify(key: &[u8], message: String, signature: String) -> bool {
  let mac = crate::seal::hmac_sha256(key, message.as_bytes());
  match crate::seal::from_lower_hex(signature.as_bytes()) {
    Some(given) => crate::seal::constant_time_eq(&mac, &given),
    None => false,
  }
}

/// The code of the last failure on this thread.
#[napi]
pub fn last_failure_code() -> &'static str {
  SCRATCH.with(|cell| {
    cell
      .borrow()
      .failure_code
      .unwrap_or(ErrorCode::Internal)
      .as_str()
  })
}

/// The JSON Pointer of the last failure on this thread (empty unless `FLAG_PATH`).
#[napi]
pub fn last_failure_path<'env>(env: &'env Env) -> Result<JsString<'env>> {
  SCRATCH.with(|cell| env.create_string_utf16(&cell.borrow().failure_path))
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

fn decode_options(flags: u32) -> DecodeOptions {
  DecodeOptions {
    reject_negative_zero: flags & FLAG_REJECT_NEGATIVE_ZERO != 0,
    track_path: flags & FLAG_PATH != 0,
  }
}
