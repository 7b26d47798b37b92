//! The proposal hash: lowercase hex SHA-256 of the UTF-8 bytes of the RFC 8785 form of
//! `{"agentName":A,"argsCanonicalJson":J,"kind":"tool","toolName":T}`. The envelope is
//! streamed into the hasher piece by piece rather than built, so hashing a large
//! snapshot costs no second copy of its canonical JSON.

use sha2::{Digest, Sha256};

use super::string::{
  escape_latin1_into, escape_utf16_into, escape_utf8_into, plain_bytes, write_string,
};
use crate::error::ErrorCode;

/// Canonical JSON in one of the forms the encoder writes.
#[derive(Debug, Clone, Copy)]
pub enum Canonical<'a> {
  Utf8(&'a [u8]),
  Latin1(&'a [u8]),
  Utf16(&'a [u16]),
}

/// SHA-256 of the envelope. `canonical_json` must be well-formed UTF-8 (the encoder's
/// output always is); names are UTF-16 and must be well-formed.
pub fn proposal_hash(
  agent_name: &[u16],
  tool_name: &[u16],
  canonical_json: &[u8],
) -> Result<[u8; 32], ErrorCode> {
  proposal_hash_of(agent_name, tool_name, Canonical::Utf8(canonical_json))
}

/// [`proposal_hash`] of canonical JSON in any form; the hash is always of its UTF-8.
pub fn proposal_hash_of(
  agent_name: &[u16],
  tool_name: &[u16],
  canonical_json: Canonical<'_>,
) -> Result<[u8; 32], ErrorCode> {
  if let Some(envelope) = small_envelope(agent_name, tool_name, canonical_json)? {
    return Ok(Sha256::digest(&envelope).into());
  }
  proposal_hash_streamed(agent_name, tool_name, canonical_json)
}

/// Canonical JSON up to this many characters is hashed from an envelope built in memory:
/// the streaming escapers' 16 KiB conversion buffer costs more to set up than a small
/// tool call takes to hash.
const BUILT_ENVELOPE_MAX: usize = 4096;

/// The envelope of small canonical JSON, written in memory, or None for large JSON (and
/// for UTF-8 that is not ASCII, which only Rust callers pass).
fn small_envelope(
  agent_name: &[u16],
  tool_name: &[u16],
  canonical_json: Canonical<'_>,
) -> Result<Option<Vec<u8>>, ErrorCode> {
  let len = match canonical_json {
    Canonical::Utf8(bytes) if bytes.len() <= BUILT_ENVELOPE_MAX && bytes.is_ascii() => bytes.len(),
    Canonical::Latin1(bytes) if bytes.len() <= BUILT_ENVELOPE_MAX => bytes.len(),
    Canonical::Utf16(units) if units.len() <= BUILT_ENVELOPE_MAX => units.len(),
    _ => return Ok(None),
  };
  let mut envelope = Vec::with_capacity(72 + 3 * (agent_name.len() + tool_name.len()) + 2 * len);
  // Members in RFC 8785 order: agentName < argsCanonicalJson < kind < toolName.
  envelope.extend_from_slice(b"{\"agentName\":");
  write_string(agent_name, &mut envelope)?;
  envelope.extend_from_slice(b",\"argsCanonicalJson\":");
  match canonical_json {
    Canonical::Utf8(bytes) | Canonical::Latin1(bytes) => {
      envelope.push(b'"');
      escape_bytes_into(bytes, &mut envelope);
      envelope.push(b'"');
    }
    Canonical::Utf16(units) => {
      write_string(units, &mut envelope)?;
    }
  }
  envelope.extend_from_slice(b",\"kind\":\"tool\",\"toolName\":");
  write_string(tool_name, &mut envelope)?;
  envelope.push(b'}');
  Ok(Some(envelope))
}

/// Appends Latin-1 (or ASCII) text as UTF-8, escaped as the inside of a JSON string
/// (RFC 8785: the two-character escapes, `\u00xx` for the other control characters).
/// Runs of characters that stand for themselves are copied at once.
fn escape_bytes_into(bytes: &[u8], out: &mut Vec<u8>) {
  const HEX: &[u8; 16] = b"0123456789abcdef";
  let mut start = 0;
  while start < bytes.len() {
    let run = plain_bytes(&bytes[start..], false);
    out.extend_from_slice(&bytes[start..start + run]);
    start += run;
    let Some(&b) = bytes.get(start) else { break };
    match b {
      b'"' => out.extend_from_slice(b"\\\""),
      b'\\' => out.extend_from_slice(b"\\\\"),
      0x08 => out.extend_from_slice(b"\\b"),
      0x09 => out.extend_from_slice(b"\\t"),
      0x0a => out.extend_from_slice(b"\\n"),
      0x0c => out.extend_from_slice(b"\\f"),
      0x0d => out.extend_from_slice(b"\\r"),
      0x00..=0x1f => out.extend_from_slice(&[
        b'\\',
        b'u',
        b'0',
        b'0',
        HEX[(b >> 4) as usize],
        HEX[(b & 15) as usize],
      ]),
      _ => out.extend_from_slice(&[0xc0 | (b >> 6), 0x80 | (b & 0x3f)]),
    }
    start += 1;
  }
}

/// The envelope streamed into the hasher piece by piece, for large canonical JSON.
fn proposal_hash_streamed(
  agent_name: &[u16],
  tool_name: &[u16],
  canonical_json: Canonical<'_>,
) -> Result<[u8; 32], ErrorCode> {
  let mut scratch = Vec::with_capacity(agent_name.len() + tool_name.len() + 8);
  let mut hasher = Sha256::new();
  // Members in RFC 8785 order: agentName < argsCanonicalJson < kind < toolName.
  hasher.update(b"{\"agentName\":");
  write_string(agent_name, &mut scratch)?;
  hasher.update(&scratch);
  hasher.update(b",\"argsCanonicalJson\":\"");
  let mut feed = |piece: &[u8]| hasher.update(piece);
  match canonical_json {
    Canonical::Utf8(bytes) => escape_utf8_into(bytes, &mut feed),
    Canonical::Latin1(bytes) => escape_latin1_into(bytes, &mut feed),
    Canonical::Utf16(units) => escape_utf16_into(units, &mut feed),
  }
  hasher.update(b"\",\"kind\":\"tool\",\"toolName\":");
  scratch.clear();
  write_string(tool_name, &mut scratch)?;
  hasher.update(&scratch);
  hasher.update(b"}");
  Ok(hasher.finalize().into())
}

/// Lowercase hexadecimal of a digest.
pub fn to_hex(digest: &[u8; 32]) -> [u8; 64] {
  const HEX: &[u8; 16] = b"0123456789abcdef";
  let mut out = [0u8; 64];
  for (i, byte) in digest.iter().enumerate() {
    out[2 * i] = HEX[(byte >> 4) as usize];
    out[2 * i + 1] = HEX[(byte & 15) as usize];
  }
  out
}

/// [`proposal_hash`] as a lowercase hex string.
pub fn proposal_hash_hex(
  agent_name: &[u16],
  tool_name: &[u16],
  canonical_json: &[u8],
) -> Result<String, ErrorCode> {
  let digest = proposal_hash(agent_name, tool_name, canonical_json)?;
  Ok(to_hex(&digest).iter().map(|&b| b as char).collect())
}

#[cfg(test)]
mod tests {
  use super::*;

  fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
  }

  #[test]
  fn matches_the_hash_aioc_0_2_8_computes_for_empty_arguments() {
    // Figure measured from aioc 0.2.8 (agent "Policy unit agent", tool "ping", `{}`).
    let hex = proposal_hash_hex(&u("Policy unit agent"), &u("ping"), b"{}").unwrap();
    assert_eq!(
      hex,
      "486e7d858f077daf704366bd7f7742a58955c40c0e173da363ab9fa5f47f4a41"
    );
  }

  #[test]
  fn streaming_equals_hashing_the_built_envelope() {
    let json = br#"{"a":"q\"uote\\d\n","b":[1,2]}"#;
    let envelope = format!(
      r#"{{"agentName":"ag\"ent","argsCanonicalJson":{},"kind":"tool","toolName":"t"}}"#,
      serde_json::to_string(std::str::from_utf8(json).unwrap()).unwrap()
    );
    let expected: [u8; 32] = Sha256::digest(envelope.as_bytes()).into();
    assert_eq!(
      proposal_hash(&u("ag\"ent"), &u("t"), json).unwrap(),
      expected
    );
  }

  #[test]
  fn the_built_envelope_hashes_like_the_streamed_one() {
    let mut samples: Vec<String> = vec![
      r#"{}"#.into(),
      r#"{"a":"q\"uote\\d\n\u001f","b":[1,2]}"#.into(),
      "{\"é\":\"ÿ\u{7f}\u{80}\u{a0}\"}".into(),
      "[\"\u{0}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1f}\"]".into(),
      "[\"€😀\",\"\u{2028}\"]".into(),
    ];
    samples.push(format!("[\"{}\"]", "x\\\"".repeat(1500)));
    for json in &samples {
      let units = u(json);
      let (agent, tool) = (u("agent \"é\""), u("tool\n😀"));
      let streamed = proposal_hash_streamed(&agent, &tool, Canonical::Utf16(&units)).unwrap();
      if let Some(envelope) = small_envelope(&agent, &tool, Canonical::Utf16(&units)).unwrap() {
        assert_eq!(
          <[u8; 32]>::from(Sha256::digest(&envelope)),
          streamed,
          "{json}"
        );
      }
      assert_eq!(
        proposal_hash_of(&agent, &tool, Canonical::Utf16(&units)).unwrap(),
        streamed
      );
      if units.iter().all(|&c| c < 0x100) {
        let latin1: Vec<u8> = units.iter().map(|&c| c as u8).collect();
        assert_eq!(
          proposal_hash_of(&agent, &tool, Canonical::Latin1(&latin1)).unwrap(),
          streamed
        );
      }
      assert_eq!(
        proposal_hash_of(&agent, &tool, Canonical::Utf8(json.as_bytes())).unwrap(),
        streamed
      );
    }
  }

  #[test]
  fn rejects_names_with_lone_surrogates() {
    assert_eq!(
      proposal_hash(&[0xd800], &u("t"), b"{}"),
      Err(ErrorCode::LoneSurrogate)
    );
  }
}
