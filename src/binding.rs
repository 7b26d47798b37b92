//! The N-API surface, and the only place that converts between JavaScript values and
//! the plain-Rust core. It is called by `lib/walk.js`, `lib/snapshot.js` and
//! `lib/pipeline.js`; the public API is JavaScript. Strings are read as UTF-16 (never
//! UTF-8, which would hide lone surrogates) into per-thread scratch buffers, and failures
//! are thrown as errors whose `code` is the public error code; `lib/errors.js` turns
//! them into the exported error classes.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue};
use napi_derive::napi;

use crate::error::{ErrorCode, Failure};
use crate::jcs::decoder::{self, is_blank, DecodeOptions};
use crate::jcs::encoder::Encoder;
use crate::jcs::hash::{proposal_hash as hash_envelope, proposal_hash_of, to_hex, Canonical};
use crate::jcs::output::{Latin1Out, Utf16Out};
use crate::jcs::{Tape, TapeRef, MAX_DEPTH};

/// `flags` bit: the tape starts with the agent and tool names; prefix the hash.
const FLAG_HASH: u32 = 1;
/// `flags` bit: failures record a JSON Pointer, read with `lastFailurePath`.
const FLAG_PATH: u32 = 2;
/// `flags` bit (strict decoding): negative zero is an error.
const FLAG_REJECT_NEGATIVE_ZERO: u32 = 4;

/// The 64 hex digits that stand in front of the JSON when a hash was asked for.
const HASH_PREFIX: usize = 64;

#[derive(Default)]
struct Scratch {
  text: Vec<u16>,
  /// The long strings of a tape, read one after the other.
  big_text: Vec<u16>,
  narrow: Vec<u8>,
  wide: Vec<u16>,
  encoder: Encoder,
  tape: Tape,
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

/// Drops scratch buffers that grew past what is worth keeping between calls.
fn release(scratch: &mut Scratch) {
  trim(&mut scratch.tape.ops);
  trim(&mut scratch.tape.nums);
  trim(&mut scratch.tape.lens);
  trim(&mut scratch.tape.text);
  trim(&mut scratch.text);
  trim(&mut scratch.big_text);
  trim(&mut scratch.narrow);
  trim(&mut scratch.wide);
}

fn status_error(code: ErrorCode) -> Error<ErrorCode> {
  Error::new(code, code.to_string())
}

/// Remembers the failure's path for `lastFailurePath` and makes the thrown error.
fn failed(failure_path: &mut Vec<u16>, failure: Failure) -> Error<ErrorCode> {
  *failure_path = failure.path.unwrap_or_default();
  status_error(failure.code)
}

/// Copies a JavaScript string's UTF-16 units into `buffer`.
fn read_utf16(env: &Env, value: &JsString<'_>, buffer: &mut Vec<u16>) -> Result<(), ErrorCode> {
  buffer.clear();
  append_utf16(env, value, buffer)
}

/// Appends a JavaScript string's UTF-16 units to `buffer`.
fn append_utf16(env: &Env, value: &JsString<'_>, buffer: &mut Vec<u16>) -> Result<(), ErrorCode> {
  let mut len = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(env.raw(), value.raw(), ptr::null_mut(), 0, &mut len)
  };
  if status != sys::Status::napi_ok {
    return Err(status_error(ErrorCode::Internal));
  }
  let start = buffer.len();
  buffer.reserve(len + 1);
  let mut written = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(
      env.raw(),
      value.raw(),
      buffer.as_mut_ptr().add(start),
      len + 1,
      &mut written,
    )
  };
  if status != sys::Status::napi_ok || written != len {
    return Err(status_error(ErrorCode::Internal));
  }
  // SAFETY: N-API wrote `written` units into the reserved capacity after `start`.
  unsafe { buffer.set_len(start + written) };
  Ok(())
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
) -> std::result::Result<JsString<'env>, Failure> {
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

/// Encodes a tape written by `lib/walk.js` and returns its RFC 8785 JSON. `bigs` holds
/// the tape's long strings (`BIG_STRING`), `bigs_len` of them. With `FLAG_HASH`, the
/// first two strings of the tape are the agent and tool names and the result is the
/// 64-character hex proposal hash followed by the canonical JSON.
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
) -> Result<JsString<'env>, ErrorCode> {
  SCRATCH.with(|cell| {
    let mut guard = cell.borrow_mut();
    let Scratch {
      text: units,
      big_text,
      narrow,
      wide,
      encoder,
      failure_path,
      ..
    } = &mut *guard;
    read_utf16(env, &text, units)?;
    big_text.clear();
    let mut big_ends = Vec::with_capacity(bigs_len as usize);
    for index in 0..bigs_len {
      let big: Option<JsString<'_>> = bigs
        .get(index)
        .map_err(|_| status_error(ErrorCode::Internal))?;
      let big = big.ok_or_else(|| status_error(ErrorCode::Internal))?;
      append_utf16(env, &big, big_text)?;
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
      return Err(status_error(ErrorCode::Internal));
    }
    let (mut lens, mut text) = (&lens[..lens_len], &units[..]);
    let mut names = None;
    if flags & FLAG_HASH != 0 {
      let (agent_len, tool_len) = match lens {
        [a, t, ..] => (*a as usize, *t as usize),
        _ => return Err(status_error(ErrorCode::Internal)),
      };
      if agent_len + tool_len > text.len() {
        return Err(status_error(ErrorCode::Internal));
      }
      names = Some((&text[..agent_len], &text[agent_len..agent_len + tool_len]));
      text = &text[agent_len + tool_len..];
      lens = &lens[2..];
    }
    let tape = TapeRef {
      ops: &ops[..ops_len],
      nums: &nums[..nums_len],
      lens,
      text,
      bigs: &big_slices,
    };
    let track_path = flags & FLAG_PATH != 0;
    let result = encode_to_js(env, encoder, narrow, wide, tape, names, track_path)
      .map_err(|failure| failed(failure_path, failure));
    release(&mut guard);
    result
  })
}

/// Strict-decodes JSON text without building a value. Returns 0 when it is a JSON
/// document and 1 when it is empty or whitespace only. Flags: `FLAG_PATH`,
/// `FLAG_REJECT_NEGATIVE_ZERO`.
#[napi(catch_unwind)]
pub fn check_json(env: &Env, text: JsString<'_>, flags: u32) -> Result<u32, ErrorCode> {
  SCRATCH.with(|cell| {
    let mut guard = cell.borrow_mut();
    let Scratch {
      text: units,
      tape,
      failure_path,
      ..
    } = &mut *guard;
    read_utf16(env, &text, units)?;
    if is_blank(units) {
      return Ok(1);
    }
    tape.clear();
    let result = decoder::decode(units, decode_options(flags), tape)
      .map(|()| 0)
      .map_err(|failure| failed(failure_path, failure));
    release(&mut guard);
    result
  })
}

/// Strict-decodes JSON text and returns its RFC 8785 form.
#[napi(catch_unwind)]
pub fn canonicalize_json<'env>(
  env: &'env Env,
  text: JsString<'_>,
  flags: u32,
) -> Result<JsString<'env>, ErrorCode> {
  SCRATCH.with(|cell| {
    let mut guard = cell.borrow_mut();
    let Scratch {
      text: units,
      tape,
      encoder,
      narrow,
      wide,
      failure_path,
      ..
    } = &mut *guard;
    read_utf16(env, &text, units)?;
    let options = decode_options(flags);
    tape.clear();
    let result = decoder::decode(units, options, tape)
      .and_then(|()| {
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
      .map_err(|failure| failed(failure_path, failure));
    release(&mut guard);
    result
  })
}

/// The proposal hash of an agent, a tool and canonical JSON already computed.
#[napi(catch_unwind)]
pub fn hash_proposal(
  env: &Env,
  agent_name: JsString<'_>,
  tool_name: JsString<'_>,
  args_canonical_json: JsString<'_>,
) -> Result<String, ErrorCode> {
  let (mut agent, mut tool, mut json) = (Vec::new(), Vec::new(), Vec::new());
  read_utf16(env, &agent_name, &mut agent)?;
  read_utf16(env, &tool_name, &mut tool)?;
  read_utf16(env, &args_canonical_json, &mut json)?;
  let json = String::from_utf16(&json).map_err(|_| status_error(ErrorCode::LoneSurrogate))?;
  let digest = hash_envelope(&agent, &tool, json.as_bytes()).map_err(status_error)?;
  Ok(to_hex(&digest).iter().map(|&b| b as char).collect())
}

/// The JSON Pointer of the last failure raised with `FLAG_PATH` on this thread.
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
