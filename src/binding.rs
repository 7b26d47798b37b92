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
use crate::jcs::{Tape, TapeRef, MAX_DEPTH};

/// `flags` bit: the tape starts with the agent and tool names; prefix the hash.
const FLAG_HASH: u32 = 1;
/// `flags` bit: failures record a JSON Pointer, read with `lastFailurePath`.
const FLAG_PATH: u32 = 2;
/// `flags` bit (strict decoding): negative zero is an error.
const FLAG_REJECT_NEGATIVE_ZERO: u32 = 4;

/// What a function returns instead of its result when it failed.
const FAILED: u32 = 0xffff_ffff;
/// `checkJson`: the text is a JSON document.
const JSON_OK: u32 = 0;
/// `checkJson`: the text is empty or whitespace only.
const JSON_BLANK: u32 = 1;

/// The 64 hex digits that stand in front of the JSON when a hash was asked for.
const HASH_PREFIX: usize = 64;

type Outcome<T> = std::result::Result<T, Failure>;

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
fn read_utf16(env: &Env, value: &JsString<'_>, buffer: &mut Vec<u16>) -> Outcome<()> {
  buffer.clear();
  append_utf16(env, value.raw(), buffer)
}

/// Encodes `tape` and makes the JavaScript string: Latin-1 when every unit of the tape's
/// text is below 0x100 (V8 keeps such strings one byte per character), UTF-16 otherwise,
/// so V8 copies the result instead of decoding UTF-8. With `names`, the proposal hash of
/// the JSON goes in front as 64 hex digits.
fn encode_to_js<'env>(
  env: &'env Env,
  encoder: &mut Encoder,
  narrow: &mut Vec<u8>,
  wide: &mut Vec<u16>,
  tape: TapeRef<'_>,
  names: Option<(&[u16], &[u16])>,
  track_path: bool,
) -> Outcome<JsString<'env>> {
  let prefix = if names.is_some() { HASH_PREFIX } else { 0 };
  let units_or = std::iter::once(tape.text)
    .chain(tape.bigs.iter().copied())
    .fold(0u16, |acc, units| {
      units.iter().fold(acc, |acc, &unit| acc | unit)
    });
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
      narrow[..prefix].copy_from_slice(&to_hex(&digest));
    }
    env.create_string_latin1(&narrow[..])
  } else {
    wide.clear();
    wide.resize(prefix, 0);
    encoder.encode_into(tape, &mut Utf16Out(wide), track_path)?;
    if let Some((agent, tool)) = names {
      let digest = proposal_hash_of(agent, tool, Canonical::Utf16(&wide[prefix..]))?;
      for (slot, &digit) in wide[..prefix].iter_mut().zip(to_hex(&digest).iter()) {
        *slot = digit as u16;
      }
    }
    env.create_string_utf16(&wide[..])
  };
  // Creating a string fails on valid input only past V8's maximum string length.
  made.map_err(|_| ErrorCode::SizeLimit.into())
}

/// Encodes a tape written by `lib/walk.js` and returns its RFC 8785 JSON, or `FAILED`.
/// `bigs` holds the tape's long strings (`BIG_STRING`), `bigs_len` of them. With
/// `FLAG_HASH`, the first two strings of the tape are the agent and tool names and the
/// result is the 64-character hex proposal hash followed by the canonical JSON.
#[napi(catch_unwind)]
#[allow(clippy::too_many_arguments)]
pub fn encode_tape<'env>(
  env: &'env Env,
  ops: &[u8],
  ops_len: u32,
  nums: &[f64],
  nums_len: u32,
  lens: &[u32],
  lens_len: u32,
  text: JsString<'_>,
  bigs: Array<'_>,
  bigs_len: u32,
  flags: u32,
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
      ..
    } = scratch;
    read_utf16(env, &text, units)?;
    big_text.clear();
    let mut big_ends = Vec::with_capacity(bigs_len as usize);
    for index in 0..bigs_len {
      let big: Unknown<'_> = bigs.get(index).ok().flatten().ok_or_else(internal)?;
      append_utf16(env, big.raw(), big_text)?;
      big_ends.push(big_text.len());
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
    let (ops_len, nums_len, lens_len) = (ops_len as usize, nums_len as usize, lens_len as usize);
    if ops_len > ops.len() || nums_len > nums.len() || lens_len > lens.len() {
      return Err(internal());
    }
    own_ops.clear();
    own_ops.extend_from_slice(&ops[..ops_len]);
    own_nums.clear();
    own_nums.extend_from_slice(&nums[..nums_len]);
    own_lens.clear();
    own_lens.extend_from_slice(&lens[..lens_len]);
    let (mut lens, mut text) = (&own_lens[..], &units[..]);
    let mut names = None;
    if flags & FLAG_HASH != 0 {
      let (agent_len, tool_len) = match lens {
        [a, t, ..] => (*a as usize, *t as usize),
        _ => return Err(internal()),
      };
      if agent_len + tool_len > text.len() {
        return Err(internal());
      }
      names = Some((&text[..agent_len], &text[agent_len..agent_len + tool_len]));
      text = &text[agent_len + tool_len..];
      lens = &lens[2..];
    }
    let tape = TapeRef {
      ops: own_ops,
      nums: own_nums,
      lens,
      text,
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
    )
  })
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
