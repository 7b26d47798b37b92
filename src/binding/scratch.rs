//! This thread's scratch space: the buffers every binding reuses between calls, the
//! last failure (`lastFailureCode`, `lastFailurePath`), and reading JavaScript strings
//! as UTF-16 into those buffers.

use std::cell::RefCell;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue};
use napi_derive::napi;

use crate::error::{ErrorCode, Failure};
use crate::jcs::encoder::Encoder;
use crate::jcs::Tape;

use super::FAILED;

pub(super) type Outcome<T> = std::result::Result<T, Failure>;

#[derive(Default)]
pub(super) struct Skeleton {
  pub(super) narrow: Vec<u8>,
  pub(super) wide: Vec<u16>,
  /// Which of the two holds the skeleton, if any.
  pub(super) held: Option<bool>,
}

#[derive(Default)]
pub(super) struct Scratch {
  /// Copies of the tape's typed arrays: JavaScript could share their memory with another
  /// thread, and the encoder must read a tape that holds still.
  pub(super) ops: Vec<u8>,
  pub(super) nums: Vec<f64>,
  pub(super) lens: Vec<u32>,
  pub(super) text: Vec<u16>,
  /// The long string being written (long strings are read one at a time).
  pub(super) big_text: Vec<u16>,
  pub(super) narrow: Vec<u8>,
  pub(super) wide: Vec<u16>,
  pub(super) encoder: Encoder,
  pub(super) tape: Tape,
  /// The skeleton of the last `encodeTape` whose views are made from one
  /// ([`Views::Skeleton`]), in the form of its JSON, until `takeSkeleton` takes it.
  pub(super) skeleton: Skeleton,
  /// The agent and tool names of a hashed call.
  pub(super) agent: Vec<u16>,
  pub(super) tool: Vec<u16>,
  pub(super) failure_code: Option<ErrorCode>,
  pub(super) failure_path: Vec<u16>,
}

thread_local! {
  pub(super) static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
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
  pub(super) fn release(&mut self) {
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
  pub(super) fn record(&mut self, failure: Failure) {
    self.failure_code = Some(failure.code);
    self.failure_path = failure.path.unwrap_or_default();
  }
}

/// Runs `body` with this thread's scratch space; a failure is recorded and becomes
/// `Either::B(FAILED)`.
pub(super) fn with_scratch<T>(body: impl FnOnce(&mut Scratch) -> Outcome<T>) -> Either<T, u32> {
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

pub(super) fn internal() -> Failure {
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
pub(super) fn read_utf16(env: &Env, value: &JsString<'_>, buffer: &mut Vec<u16>) -> Outcome<()> {
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

/// Copies a JavaScript string of `len` UTF-16 units into `buffer`; a string of any
/// other length is an internal error.
pub(super) fn read_utf16_exact(
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
