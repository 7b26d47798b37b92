//! Provider text: strict decoding (`checkJson`), canonical JSON from text
//! (`canonicalizeText`, `canonicalizeJson`) and the proposal hash of JSON already
//! canonical (`hashProposal`).

use napi::bindgen_prelude::*;
use napi::JsString;
use napi_derive::napi;

use crate::error::ErrorCode;
use crate::jcs::decoder::{self, is_blank, DecodeOptions};
use crate::jcs::hash::{proposal_hash_of, to_hex, Canonical};
use crate::jcs::tape::{self, InMemory};

use super::scratch::{read_utf16, with_scratch, Scratch, SCRATCH};
use super::strings::encode_to_js;
use super::{FAILED, FAILED_SNAPSHOT, FLAG_PATH, FLAG_REJECT_NEGATIVE_ZERO, JSON_BLANK, JSON_OK};

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

fn decode_options(flags: u32) -> DecodeOptions {
  DecodeOptions {
    reject_negative_zero: flags & FLAG_REJECT_NEGATIVE_ZERO != 0,
    track_path: flags & FLAG_PATH != 0,
  }
}
