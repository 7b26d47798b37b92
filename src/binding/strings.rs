//! Results as JavaScript strings: encoding a tape into Latin-1 or UTF-16 output (with
//! the proposal hash in front when asked), and making the string, external when long
//! and the runtime has them (their released buffers kept for the next large result).

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::ptr;

use napi::bindgen_prelude::*;
use napi::{sys, JsString};

use crate::error::ErrorCode;
use crate::jcs::encoder::Encoder;
use crate::jcs::hash::{proposal_hash_of, to_hex, Canonical};
use crate::jcs::output::{AdaptiveOut, Latin1Out, Utf16Out};
use crate::jcs::tape::{LongStrings, Views};
use crate::jcs::TapeRef;

use super::scratch::{Outcome, Skeleton};
use super::HASH_PREFIX;

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
pub(super) fn encode_to_js<'env>(
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
    // Parsed views of a value with no object too wide to copy are `3`: the run loop still
    // copies the policy's view from a parse, so that its mutation check can tell an
    // untouched copy without canonicalizing it again (lib/snapshot/view.js).
    let flag = match views {
      Views::Parse if encoder.shape().copyable() => b'3',
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
pub(super) fn string_utf16<'env>(env: &'env Env, units: &mut Vec<u16>) -> Option<JsString<'env>> {
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
pub(super) fn string_latin1<'env>(env: &'env Env, bytes: &mut Vec<u8>) -> Option<JsString<'env>> {
  if bytes.len() >= EXTERNAL_MIN && external_strings(env) {
    match external(env, std::mem::take(bytes), false) {
      // SAFETY: a string value made in this call's scope.
      Ok(value) => return unsafe { JsString::from_napi_value(env.raw(), value) }.ok(),
      Err(back) => *bytes = back,
    }
  }
  env.create_string_latin1(bytes).ok()
}
