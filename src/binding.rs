//! The N-API surface, and the only place that converts between JavaScript values and
//! the plain-Rust core. It is called by `lib/native.js`; the public API is JavaScript.
//! Strings are read as UTF-16 (never UTF-8, which would hide lone surrogates) into
//! per-thread scratch buffers, and failures are thrown as errors whose `code` is the
//! public error code; `lib/errors.js` turns them into the exported error classes.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue};
use napi_derive::napi;

use crate::error::{ErrorCode, Failure};
use crate::jcs::decoder::{self, is_blank, DecodeOptions};
use crate::jcs::encoder::Encoder;
use crate::jcs::hash::{proposal_hash as hash_envelope, to_hex};
use crate::jcs::{Tape, TapeRef, MAX_DEPTH};

/// `flags` bit: the tape starts with the agent and tool names; prefix the hash.
const FLAG_HASH: u32 = 1;
/// `flags` bit: failures record a JSON Pointer, read with `lastFailurePath`.
const FLAG_PATH: u32 = 2;
/// `flags` bit (strict decoding): negative zero is an error.
const FLAG_REJECT_NEGATIVE_ZERO: u32 = 4;

#[derive(Default)]
struct Scratch {
  text: Vec<u16>,
  out: Vec<u8>,
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

fn failed(scratch: &mut Scratch, failure: Failure) -> Error<ErrorCode> {
  scratch.failure_path = failure.path.unwrap_or_default();
  Error::new(failure.code, failure.code.to_string())
}

fn status_error(code: ErrorCode) -> Error<ErrorCode> {
  Error::new(code, code.to_string())
}

/// Copies a JavaScript string's UTF-16 units into `buffer`.
fn read_utf16(env: &Env, value: &JsString<'_>, buffer: &mut Vec<u16>) -> Result<(), ErrorCode> {
  let mut len = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(env.raw(), value.raw(), ptr::null_mut(), 0, &mut len)
  };
  if status != sys::Status::napi_ok {
    return Err(status_error(ErrorCode::Internal));
  }
  buffer.clear();
  buffer.reserve(len + 1);
  let mut written = 0usize;
  let status = unsafe {
    sys::napi_get_value_string_utf16(
      env.raw(),
      value.raw(),
      buffer.as_mut_ptr(),
      len + 1,
      &mut written,
    )
  };
  if status != sys::Status::napi_ok || written != len {
    return Err(status_error(ErrorCode::Internal));
  }
  // SAFETY: N-API wrote `written` units into the reserved capacity.
  unsafe { buffer.set_len(written) };
  Ok(())
}

/// Makes a JavaScript string of `bytes`; Latin-1 (a plain copy) when they are ASCII.
fn make_string<'env>(
  env: &'env Env,
  bytes: &[u8],
  ascii: bool,
) -> Result<JsString<'env>, ErrorCode> {
  let made = if ascii {
    env.create_string_latin1(bytes)
  } else {
    unsafe { env.create_string_from_c_char(bytes.as_ptr().cast(), bytes.len() as isize) }
  };
  // The only way creating a string fails on valid input is exceeding V8's maximum length.
  made.map_err(|_| status_error(ErrorCode::SizeLimit))
}

/// Encodes a tape written by `lib/walk.js` and returns its RFC 8785 JSON. With
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
  flags: u32,
) -> Result<JsString<'env>, ErrorCode> {
  SCRATCH.with(|cell| {
    let mut guard = cell.borrow_mut();
    let scratch = &mut *guard;
    read_utf16(env, &text, &mut scratch.text)?;
    let (ops_len, nums_len, lens_len) = (ops_len as usize, nums_len as usize, lens_len as usize);
    if ops_len > ops.len() || nums_len > nums.len() || lens_len > lens.len() {
      return Err(status_error(ErrorCode::Internal));
    }
    let hashed = flags & FLAG_HASH != 0;
    let (mut lens, mut text) = (&lens[..lens_len], &scratch.text[..]);
    let mut names: (&[u16], &[u16]) = (&[], &[]);
    if hashed {
      let (agent_len, tool_len) = match lens {
        [a, t, ..] => (*a as usize, *t as usize),
        _ => return Err(status_error(ErrorCode::Internal)),
      };
      if agent_len + tool_len > text.len() {
        return Err(status_error(ErrorCode::Internal));
      }
      names = (&text[..agent_len], &text[agent_len..agent_len + tool_len]);
      text = &text[agent_len + tool_len..];
      lens = &lens[2..];
    }
    let tape = TapeRef {
      ops: &ops[..ops_len],
      nums: &nums[..nums_len],
      lens,
      text,
    };
    let mut out = std::mem::take(&mut scratch.out);
    out.clear();
    if hashed {
      out.extend_from_slice(&[0u8; 64]);
    }
    let encoded = scratch
      .encoder
      .encode(tape, &mut out, flags & FLAG_PATH != 0);
    let result = match encoded {
      Ok(encoded) => {
        if hashed {
          let digest = hash_envelope(names.0, names.1, &out[64..]).map_err(status_error)?;
          out[..64].copy_from_slice(&to_hex(&digest));
        }
        make_string(env, &out, encoded.ascii)
      }
      Err(failure) => Err(failed(scratch, failure)),
    };
    trim(&mut out);
    scratch.out = out;
    trim(&mut scratch.text);
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
    let scratch = &mut *guard;
    read_utf16(env, &text, &mut scratch.text)?;
    if is_blank(&scratch.text) {
      return Ok(1);
    }
    let options = decode_options(flags);
    scratch.tape.clear();
    let result = decoder::decode(&scratch.text, options, &mut scratch.tape);
    let result = match result {
      Ok(()) => Ok(0),
      Err(failure) => Err(failed(scratch, failure)),
    };
    release_tape(scratch);
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
    let scratch = &mut *guard;
    read_utf16(env, &text, &mut scratch.text)?;
    let options = decode_options(flags);
    scratch.tape.clear();
    let mut out = Vec::new();
    let result = decoder::decode(&scratch.text, options, &mut scratch.tape).and_then(|()| {
      scratch
        .encoder
        .encode(scratch.tape.as_ref(), &mut out, options.track_path)
    });
    let result = match result {
      Ok(encoded) => make_string(env, &out, encoded.ascii),
      Err(failure) => Err(failed(scratch, failure)),
    };
    release_tape(scratch);
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

fn release_tape(scratch: &mut Scratch) {
  trim(&mut scratch.tape.ops);
  trim(&mut scratch.tape.nums);
  trim(&mut scratch.tape.lens);
  trim(&mut scratch.tape.text);
  trim(&mut scratch.text);
}
