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

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue};
use napi_derive::napi;

use crate::error::{ErrorCode, Failure};
use crate::jcs::decoder::{self, is_blank, DecodeOptions};
use crate::jcs::encoder::Encoder;
use crate::jcs::hash::{proposal_hash_of, to_hex, Canonical};
use crate::jcs::output::{AdaptiveOut, Latin1Out, Utf16Out};
use crate::jcs::tape::{self, InMemory, LongStrings, Views};
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
  /// The long string being written (long strings are read one at a time).
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

/// Encodes `tape` (its long strings read from `bigs`) and makes the JavaScript string:
/// Latin-1 while every unit written is below 0x100 (V8 keeps such strings one byte per
/// character), UTF-16 from the first string that has a unit above it on, so V8 copies the
/// result instead of decoding UTF-8. With `names`, the proposal hash of the JSON over
/// exactly those names goes in front as 64 hex digits, followed by one character that
/// says how views of the snapshot are made ([`tape::Shape::views`]): `0` parsed each time,
/// `1` copied from a template parsed once, `2` copied from a template made from the
/// skeleton, which is then left in `skeleton` for `takeSkeleton` (only when `skeleton` is
/// given: the tape's numbers and long strings are the caller's).
#[allow(clippy::too_many_arguments)]
fn encode_to_js<'env>(
  env: &'env Env,
  encoder: &mut Encoder,
  narrow: &mut Vec<u8>,
  wide: &mut Vec<u16>,
  tape: TapeRef<'_>,
  bigs: &mut dyn LongStrings,
  names: Option<(&[u16], &[u16])>,
  track_path: bool,
  mut skeleton: Option<&mut Skeleton>,
) -> Outcome<JsString<'env>> {
  if let Some(skeleton) = skeleton.as_deref_mut() {
    skeleton.held = None;
  }
  let prefix = if names.is_some() { HASH_PREFIX + 1 } else { 0 };
  // The JSON holds every unit of the text and the long strings, a few characters of
  // structure per value and member, and escapes (counted as a quarter more).
  let strings = tape.text.len() + (0..bigs.count()).filter_map(|i| bigs.len(i)).sum::<usize>();
  let expected =
    strings + strings / 4 + 4 * (tape.ops.len() + tape.lens.len()) + 16 * tape.nums.len();
  if prefix + expected >= EXTERNAL_MIN {
    take_spares(narrow, wide, prefix + expected);
  }
  let mut out = AdaptiveOut::new(narrow, wide, prefix, expected);
  encoder.encode_with_long_strings(tape, bigs, &mut out, track_path)?;
  let (is_wide, units_or) = (out.is_wide, out.units_or);
  if let Some((agent, tool)) = names {
    let (digest, json_len) = if is_wide {
      let json = &wide[prefix..];
      (
        proposal_hash_of(agent, tool, Canonical::Utf16(json))?,
        json.len(),
      )
    } else {
      let json = &narrow[prefix..];
      let canonical = if units_or < 0x80 {
        Canonical::Utf8(json)
      } else {
        Canonical::Latin1(json)
      };
      (proposal_hash_of(agent, tool, canonical)?, json.len())
    };
    let views = encoder.shape().views(json_len, skeleton.is_some());
    if let (Views::Skeleton, Some(skeleton)) = (views, skeleton) {
      // The skeleton holds no character the JSON does not: the same form fits it.
      if is_wide {
        skeleton.wide.clear();
        encoder.encode_skeleton_into(tape, bigs, &mut Utf16Out(&mut skeleton.wide))?;
      } else {
        skeleton.narrow.clear();
        encoder.encode_skeleton_into(tape, bigs, &mut Latin1Out(&mut skeleton.narrow))?;
      }
      skeleton.held = Some(!is_wide);
    }
    let flag = match views {
      Views::Parse => b'0',
      Views::Copy => b'1',
      Views::Skeleton => b'2',
    };
    let hex = to_hex(&digest);
    if is_wide {
      wide[HASH_PREFIX] = flag as u16;
      for (slot, &digit) in wide[..HASH_PREFIX].iter_mut().zip(hex.iter()) {
        *slot = digit as u16;
      }
    } else {
      narrow[HASH_PREFIX] = flag;
      narrow[..HASH_PREFIX].copy_from_slice(&hex);
    }
  }
  let made = if is_wide {
    string_utf16(env, wide)
  } else {
    string_latin1(env, narrow)
  };
  // Creating a string fails on valid input only past V8's maximum string length.
  made.ok_or_else(|| ErrorCode::SizeLimit.into())
}

/// Results at least this long (in units) become external strings where the runtime has
/// them (Node-API 10): V8 keeps the buffer instead of a copy, which halves the peak
/// memory of a large snapshot. Shorter ones are copied: the buffer is then reused.
const EXTERNAL_MIN: usize = 256 * 1024;

thread_local! {
  /// Whether this thread's runtime has external strings (asked once, of napi_get_version).
  static EXTERNAL_STRINGS: Cell<Option<bool>> = const { Cell::new(None) };
}

fn external_strings(env: &Env) -> bool {
  EXTERNAL_STRINGS.with(|known| {
    if let Some(answer) = known.get() {
      return answer;
    }
    let mut version = 0u32;
    let status = unsafe { sys::napi_get_version(env.raw(), &mut version) };
    let answer = status == sys::Status::napi_ok && version >= 10;
    known.set(Some(answer));
    answer
  })
}

/// What the finalizer of an external string frees: the buffer's allocation.
struct Allocation {
  len: usize,
  capacity: usize,
  wide: bool,
}

/// Buffers of external strings the collector has released, kept for the next large
/// result of this thread: a fresh buffer costs a page fault per 4 KiB written (on this
/// machine's VM about 10 % of a 1 MB snapshot), a released one is already mapped. One of
/// each form, up to SPARE_MAX_BYTES each; anything else is freed.
#[derive(Default)]
struct Spares {
  narrow: Option<Vec<u8>>,
  wide: Option<Vec<u16>>,
}

const SPARE_MAX_BYTES: usize = 16 << 20;

thread_local! {
  static SPARES: RefCell<Spares> = RefCell::new(Spares::default());
}

/// Swaps in a released buffer for whichever of `narrow` and `wide` has less room than
/// `needed` units.
fn take_spares(narrow: &mut Vec<u8>, wide: &mut Vec<u16>, needed: usize) {
  let _ = SPARES.try_with(|cell| {
    let Ok(mut spares) = cell.try_borrow_mut() else {
      return;
    };
    if narrow.capacity() < needed {
      if let Some(spare) = spares.narrow.take_if(|spare| spare.capacity() >= needed) {
        *narrow = spare;
      }
    }
    if wide.capacity() < needed {
      if let Some(spare) = spares.wide.take_if(|spare| spare.capacity() >= needed) {
        *wide = spare;
      }
    }
  });
}

unsafe extern "C" fn free_external(
  _env: sys::node_api_basic_env,
  data: *mut c_void,
  hint: *mut c_void,
) {
  // SAFETY: `hint` is the Box made in `external` and `data` the pointer of the Vec it
  // describes, handed over there; the runtime calls this once.
  let allocation = unsafe { Box::from_raw(hint.cast::<Allocation>()) };
  let (len, capacity) = (allocation.len, allocation.capacity);
  // SAFETY: as above; the Vec owns the allocation from here on.
  let (mut narrow, mut wide) = unsafe {
    if allocation.wide {
      (
        None,
        Some(Vec::from_raw_parts(data.cast::<u16>(), len, capacity)),
      )
    } else {
      (
        Some(Vec::from_raw_parts(data.cast::<u8>(), len, capacity)),
        None,
      )
    }
  };
  // Kept for reuse when there is room (see Spares), else dropped here. This runs no
  // JavaScript and calls no Node-API function: a basic finalizer may run during a
  // collection.
  let _ = SPARES.try_with(|cell| {
    let Ok(mut spares) = cell.try_borrow_mut() else {
      return;
    };
    if let Some(mut buffer) = narrow.take() {
      if spares.narrow.is_none() && buffer.capacity() <= SPARE_MAX_BYTES {
        buffer.clear();
        spares.narrow = Some(buffer);
      }
    }
    if let Some(mut buffer) = wide.take() {
      if spares.wide.is_none() && buffer.capacity() * 2 <= SPARE_MAX_BYTES {
        buffer.clear();
        spares.wide = Some(buffer);
      }
    }
  });
}

/// Hands `buffer` to the runtime as an external string (`wide`: UTF-16 units, else
/// Latin-1 bytes; `T` must be u16 or u8 accordingly). On failure `buffer` is given back
/// (the runtime took nothing: node_api_create_external_string_* call the finalizer only
/// for a string they made).
fn external<T>(
  env: &Env,
  buffer: Vec<T>,
  wide: bool,
) -> std::result::Result<sys::napi_value, Vec<T>> {
  let mut buffer = std::mem::ManuallyDrop::new(buffer);
  let (data, len, capacity) = (buffer.as_mut_ptr(), buffer.len(), buffer.capacity());
  let hint = Box::into_raw(Box::new(Allocation {
    len,
    capacity,
    wide,
  }));
  let mut result = ptr::null_mut();
  let mut copied = false;
  let status = unsafe {
    if wide {
      sys::node_api_create_external_string_utf16(
        env.raw(),
        data.cast::<u16>(),
        len as isize,
        Some(free_external),
        hint.cast(),
        &mut result,
        &mut copied,
      )
    } else {
      sys::node_api_create_external_string_latin1(
        env.raw(),
        data.cast(),
        len as isize,
        Some(free_external),
        hint.cast(),
        &mut result,
        &mut copied,
      )
    }
  };
  if status != sys::Status::napi_ok {
    // SAFETY: not handed over: the Box and the Vec are still ours.
    unsafe {
      drop(Box::from_raw(hint));
      return Err(Vec::from_raw_parts(data, len, capacity));
    }
  }
  Ok(result)
}

/// A string of `units` (UTF-16): external when long and the runtime has them, else a copy.
fn string_utf16<'env>(env: &'env Env, units: &mut Vec<u16>) -> Option<JsString<'env>> {
  if units.len() >= EXTERNAL_MIN && external_strings(env) {
    match external(env, std::mem::take(units), true) {
      // SAFETY: a string value made in this call's scope.
      Ok(value) => return unsafe { JsString::from_napi_value(env.raw(), value) }.ok(),
      Err(back) => *units = back,
    }
  }
  env.create_string_utf16(units).ok()
}

/// A string of Latin-1 `bytes`: external when long and the runtime has them, else a copy.
fn string_latin1<'env>(env: &'env Env, bytes: &mut Vec<u8>) -> Option<JsString<'env>> {
  if bytes.len() >= EXTERNAL_MIN && external_strings(env) {
    match external(env, std::mem::take(bytes), false) {
      // SAFETY: a string value made in this call's scope.
      Ok(value) => return unsafe { JsString::from_napi_value(env.raw(), value) }.ok(),
      Err(back) => *bytes = back,
    }
  }
  env.create_string_latin1(bytes).ok()
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
    let mut long_strings = JsLongStrings::new(env, bigs, bigs_len, big_text)?;
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
      bigs: &[],
    };
    encode_to_js(
      env,
      encoder,
      narrow,
      wide,
      tape,
      &mut long_strings,
      names,
      flags & FLAG_PATH != 0,
      Some(skeleton),
    )
  })
}

/// The long strings of a tape, as `encodeTape` was handed them: each element of the
/// array is taken once, when the call starts (its length is read then), and its units
/// are copied into one reused buffer when the encoder writes it, so that no more than the
/// longest of them is copied at a time.
struct JsLongStrings<'b> {
  env: sys::napi_env,
  values: Vec<sys::napi_value>,
  lens: Vec<usize>,
  buffer: &'b mut Vec<u16>,
}

impl<'b> JsLongStrings<'b> {
  fn new(
    env: &Env,
    bigs: Option<Array<'_>>,
    count: usize,
    buffer: &'b mut Vec<u16>,
  ) -> Outcome<Self> {
    let mut values = Vec::with_capacity(count);
    let mut lens = Vec::with_capacity(count);
    if count > 0 {
      let bigs = bigs.ok_or_else(internal)?;
      for index in 0..count as u32 {
        let big: Unknown<'_> = bigs.get(index).ok().flatten().ok_or_else(internal)?;
        let mut len = 0usize;
        let status = unsafe {
          sys::napi_get_value_string_utf16(env.raw(), big.raw(), ptr::null_mut(), 0, &mut len)
        };
        if status != sys::Status::napi_ok {
          return Err(internal());
        }
        values.push(big.raw());
        lens.push(len);
      }
    }
    Ok(JsLongStrings {
      env: env.raw(),
      values,
      lens,
      buffer,
    })
  }
}

impl LongStrings for JsLongStrings<'_> {
  fn count(&self) -> usize {
    self.values.len()
  }

  fn len(&self, index: usize) -> Option<usize> {
    self.lens.get(index).copied()
  }

  fn with_units(
    &mut self,
    index: usize,
    write: &mut dyn FnMut(&[u16]) -> Outcome<()>,
  ) -> Outcome<()> {
    let (value, len) = match (self.values.get(index), self.lens.get(index)) {
      (Some(&value), Some(&len)) => (value, len),
      _ => return Err(internal()),
    };
    self.buffer.clear();
    // Room for one unit more than expected, so that a longer string shows as such.
    self.buffer.reserve(len + 2);
    let mut written = 0usize;
    let status = unsafe {
      sys::napi_get_value_string_utf16(
        self.env,
        value,
        self.buffer.as_mut_ptr(),
        len + 2,
        &mut written,
      )
    };
    if status != sys::Status::napi_ok || written != len {
      return Err(internal());
    }
    // SAFETY: N-API wrote `written` units into the reserved capacity.
    unsafe { self.buffer.set_len(written) };
    write(self.buffer)
  }

  /// Reads the units straight to the end of `out`: no buffer of its own.
  fn read_into(&mut self, index: usize, out: &mut Vec<u16>) -> Outcome<()> {
    let (value, len) = match (self.values.get(index), self.lens.get(index)) {
      (Some(&value), Some(&len)) => (value, len),
      _ => return Err(internal()),
    };
    let start = out.len();
    // Room for one unit more than expected, so that a longer string shows as such.
    out.reserve(len + 2);
    let mut written = 0usize;
    let status = unsafe {
      sys::napi_get_value_string_utf16(
        self.env,
        value,
        out.as_mut_ptr().add(start),
        len + 2,
        &mut written,
      )
    };
    if status != sys::Status::napi_ok || written != len {
      return Err(internal());
    }
    // SAFETY: N-API wrote `written` units into the reserved capacity after `start`.
    unsafe { out.set_len(start + written) };
    Ok(())
  }
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
        &mut InMemory(&[]),
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
      &mut InMemory(&[]),
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
