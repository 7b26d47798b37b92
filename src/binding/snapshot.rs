//! The snapshot of a JavaScript value: `encodeTape` reads the tape that
//! `lib/snapshot/walk.js` wrote through `lib/snapshot/tape-writer.js` (its header, typed arrays,
//! text and long strings) and encodes it; `takeSkeleton` hands over the skeleton it left.

use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString, JsValue};
use napi_derive::napi;

use crate::jcs::tape::LongStrings;
use crate::jcs::TapeRef;

use super::scratch::{
  internal, read_utf16, read_utf16_exact, with_scratch, Outcome, Scratch, SCRATCH,
};
use super::strings::encode_to_js;
use super::{
  FAILED, FLAG_PATH, TAPE_BIGS_LEN, TAPE_FLAGS, TAPE_LENS_LEN, TAPE_LENS_OFFSET, TAPE_NUMS_LEN,
  TAPE_NUMS_OFFSET, TAPE_OPS_LEN, TAPE_OPS_OFFSET, TAPE_TEXT_LEN,
};

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

/// Encodes a tape written by `lib/snapshot/tape-writer.js` and returns its RFC 8785 JSON, or
/// `FAILED`. `tape` is the tape buffer (`TAPE_HEADER_WORDS`), `text` the UTF-16 text of
/// its keys and strings, `bigs` its long strings (`OP_BIG_STRING`, read up to the
/// header's count).
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
/// Copies into `out` the key order of the root object of the value `encodeTape` last
/// encoded, when that was an object wider than the views' copying limit (template
/// character `0`): for each member in RFC 8785 key order, its position among the
/// object's members on the tape. Returns how many it copied, or `FAILED` when there is no
/// such order or `out` is too short.
#[napi(catch_unwind)]
pub fn take_root_order(mut out: Uint32Array) -> u32 {
  SCRATCH.with(|cell| {
    let scratch = cell.borrow();
    let order = scratch.encoder.root_order();
    if order.is_empty() || order.len() > out.len() {
      return FAILED;
    }
    // SAFETY: the array is the caller's own Uint32Array, written here only, on this
    // thread, while no JavaScript runs.
    let target = unsafe { out.as_mut() };
    target[..order.len()].copy_from_slice(order);
    order.len() as u32
  })
}

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
