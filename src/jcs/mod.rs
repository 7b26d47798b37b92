//! RFC 8785 (JSON Canonicalization Scheme) for the strict snapshot domain of RFC-0016.
//! Nothing here knows about N-API: the JavaScript side hands over a tape, the strict
//! decoder produces one from text, and the encoder turns a tape into canonical bytes.

pub mod decoder;
pub mod encoder;
pub mod hash;
pub mod number;
pub mod output;
pub mod pointer;
pub mod string;
pub mod tape;

/// The deepest nesting of arrays and objects accepted anywhere: the JavaScript walker,
/// the strict decoder and the encoder all stop at the same level. A value with
/// `MAX_DEPTH` nested containers passes; one more gives `depth_limit`.
pub const MAX_DEPTH: usize = 1024;

pub use decoder::{decode, DecodeOptions};
pub use encoder::{encode, Encoded};
pub use hash::{proposal_hash, proposal_hash_hex};
pub use tape::{Tape, TapeRef};

use crate::error::Failure;

/// Strict-decodes JSON text and returns its RFC 8785 form.
pub fn canonicalize_text(input: &[u16], options: DecodeOptions) -> Result<Vec<u8>, Failure> {
  let mut tape = Tape::default();
  decode(input, options, &mut tape)?;
  let mut out = Vec::with_capacity(input.len());
  encode(tape.as_ref(), &mut out, options.track_path)?;
  Ok(out)
}

/// Convenience for Rust callers with UTF-8 text.
pub fn canonicalize_str(input: &str) -> Result<String, Failure> {
  let units: Vec<u16> = input.encode_utf16().collect();
  let bytes = canonicalize_text(&units, DecodeOptions::snapshot())?;
  // The encoder only writes well-formed UTF-8.
  Ok(String::from_utf8(bytes).expect("encoder output is UTF-8"))
}
