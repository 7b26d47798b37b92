//! The checks shared by the cargo-fuzz targets (fuzz_targets/*.rs), the seeded stable
//! runner (src/bin/smoke.rs) and this crate's `cargo test`. Every check panics on a
//! property violation; a panic inside the core is a finding too.
//!
//! * [`check_decode`]: the strict decoder on arbitrary UTF-16 never panics; for inputs
//!   that decode, the canonical JSON re-decodes and re-encodes to the same bytes (a
//!   fixed point), the decoded tape encodes to exactly `canonicalize_text` of the text,
//!   the UTF-8, Latin-1 and UTF-16 output forms agree, and path tracking changes no
//!   outcome; serde_json agrees on what is JSON.
//! * [`check_encode`]: the encoder on arbitrary tapes built from the bytes never
//!   panics (errors are fine); whatever it accepts is canonical JSON in all three forms,
//!   with one proposal hash.

use tool_argument_snapshot::jcs::encoder::Encoder;
use tool_argument_snapshot::jcs::hash::{proposal_hash_of, Canonical};
use tool_argument_snapshot::jcs::output::{Latin1Out, Utf16Out};
use tool_argument_snapshot::jcs::{self, decode, tape, DecodeOptions, Tape, TapeRef, MAX_DEPTH};
use tool_argument_snapshot::{ErrorCode, Failure};

/// Outcome counters, for the stable runner's report: decode ok / failed, encode ok /
/// failed.
pub static STATS: [std::sync::atomic::AtomicU64; 4] = [
  std::sync::atomic::AtomicU64::new(0),
  std::sync::atomic::AtomicU64::new(0),
  std::sync::atomic::AtomicU64::new(0),
  std::sync::atomic::AtomicU64::new(0),
];

fn stat(index: usize) {
  STATS[index].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
}

/// The failure code of a result, for comparisons.
fn code<T>(result: &Result<T, Failure>) -> Option<ErrorCode> {
  result.as_ref().err().map(|failure| failure.code)
}

/// Turns fuzzer bytes into UTF-16 text and decode options. The first byte selects:
/// bit 0 set: the rest is raw little-endian UTF-16 (any unit, lone surrogates included);
/// bit 0 clear: the rest is UTF-8 (invalid sequences become U+FFFD), which lets a
/// dictionary of JSON tokens work; bit 1: reject negative zero (snapshot text); bit 2:
/// track the failure path.
pub fn text_from_bytes(data: &[u8]) -> (Vec<u16>, DecodeOptions) {
  let Some((&selector, rest)) = data.split_first() else {
    return (Vec::new(), DecodeOptions::request());
  };
  let units = if selector & 1 == 1 {
    rest
      .chunks_exact(2)
      .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
      .collect()
  } else {
    String::from_utf8_lossy(rest).encode_utf16().collect()
  };
  let options = DecodeOptions {
    reject_negative_zero: selector & 2 != 0,
    track_path: selector & 4 != 0,
  };
  (units, options)
}

fn same_tape(a: &Tape, b: &Tape) -> bool {
  a.ops == b.ops
    && a.lens == b.lens
    && a.text == b.text
    && a.nums.len() == b.nums.len()
    && a
      .nums
      .iter()
      .zip(&b.nums)
      .all(|(x, y)| x.to_bits() == y.to_bits())
}

/// The deepest nesting on a decoded tape.
fn tape_depth(tape: &Tape) -> usize {
  // Every container on a decoded tape is non-empty or closed at once; a stack of
  // remaining member counts gives the depth without recursion.
  let (mut depth, mut deepest, mut len) = (0usize, 0usize, 0usize);
  let mut remaining: Vec<u32> = Vec::new();
  let mut is_object: Vec<bool> = Vec::new();
  for &op in &tape.ops {
    // A member value of an object is preceded by its key's length.
    if is_object.last() == Some(&true) {
      len += 1;
    }
    match op {
      tape::STRING => len += 1,
      tape::ARRAY | tape::OBJECT => {
        let count = tape.lens[len];
        len += 1;
        depth += 1;
        deepest = deepest.max(depth);
        if count > 0 {
          remaining.push(count);
          is_object.push(op == tape::OBJECT);
          continue;
        }
        depth -= 1;
      }
      _ => {}
    }
    // A value finished: close every container whose last member this was.
    while let Some(left) = remaining.last_mut() {
      *left -= 1;
      if *left > 0 {
        break;
      }
      remaining.pop();
      is_object.pop();
      depth -= 1;
    }
  }
  deepest
}

/// Encodes `tape` in the three output forms and checks that they agree; returns the
/// UTF-8 bytes, or the failure code (which must be the same in every form).
fn encode_all_forms(tape: TapeRef<'_>) -> Result<Vec<u8>, ErrorCode> {
  let mut encoder = Encoder::default();
  let mut utf8 = Vec::new();
  let result = encoder.encode(tape, &mut utf8, false).map(|_| ());
  let traced = Encoder::default()
    .encode(tape, &mut Vec::new(), true)
    .map(|_| ());
  assert_eq!(
    code(&result),
    code(&traced),
    "path tracking changed the encoder's outcome"
  );
  let mut wide = Vec::new();
  let wide_result = encoder.encode_into(tape, &mut Utf16Out(&mut wide), false);
  assert_eq!(
    code(&result),
    code(&wide_result),
    "UTF-8 and UTF-16 encodings disagree"
  );
  let latin1_possible = tape
    .text
    .iter()
    .chain(tape.bigs.iter().flat_map(|b| b.iter()))
    .all(|&u| u < 0x100);
  let mut narrow = Vec::new();
  let narrow_result = encoder.encode_into(tape, &mut Latin1Out(&mut narrow), false);
  if latin1_possible {
    assert_eq!(
      code(&result),
      code(&narrow_result),
      "UTF-8 and Latin-1 encodings disagree"
    );
  }
  if let Err(failure) = result {
    return Err(failure.code);
  }
  let text = std::str::from_utf8(&utf8).expect("the encoder writes UTF-8");
  assert_eq!(
    String::from_utf16(&wide).expect("the UTF-16 form is well-formed"),
    text,
    "the UTF-16 form differs"
  );
  if latin1_possible {
    let latin1: String = narrow.iter().map(|&b| b as char).collect();
    assert_eq!(latin1, text, "the Latin-1 form differs");
  }
  // One proposal hash, whatever form it is computed from.
  let (agent, tool): (Vec<u16>, Vec<u16>) = (
    "agent é".encode_utf16().collect(),
    "tool 😀".encode_utf16().collect(),
  );
  let from_utf8 = proposal_hash_of(&agent, &tool, Canonical::Utf8(&utf8)).expect("hash");
  assert_eq!(
    from_utf8,
    proposal_hash_of(&agent, &tool, Canonical::Utf16(&wide)).expect("hash"),
    "UTF-16 hash differs"
  );
  if latin1_possible {
    assert_eq!(
      from_utf8,
      proposal_hash_of(&agent, &tool, Canonical::Latin1(&narrow)).expect("hash"),
      "Latin-1 hash differs"
    );
  }
  Ok(utf8)
}

/// Canonical JSON must be a fixed point: decoded as snapshot text and encoded again, it
/// gives the same bytes.
fn assert_fixed_point(canonical: &[u8]) {
  let units: Vec<u16> = std::str::from_utf8(canonical)
    .expect("UTF-8")
    .encode_utf16()
    .collect();
  let again = jcs::canonicalize_text(&units, DecodeOptions::snapshot()).unwrap_or_else(|failure| {
    panic!(
      "canonical JSON does not re-decode: {failure}: {}",
      String::from_utf8_lossy(canonical)
    )
  });
  assert_eq!(again, canonical, "canonical JSON is not a fixed point");
}

/// The strict decoder on arbitrary text.
pub fn check_decode(data: &[u8]) {
  let (units, options) = text_from_bytes(data);
  let mut tape = Tape::default();
  let result = decode(&units, options, &mut tape);
  let mut other = Tape::default();
  let flipped = decode(&units, options.with_path(!options.track_path), &mut other);
  assert_eq!(
    code(&result),
    code(&flipped),
    "path tracking changed the decoder's outcome"
  );
  if let Err(failure) = &result {
    assert_eq!(
      failure.path.is_some(),
      options.track_path,
      "a path without track_path, or none with it"
    );
  }
  let as_string = String::from_utf16(&units).ok();
  stat(if result.is_ok() { 0 } else { 1 });
  match result {
    Err(failure) => {
      let allowed = matches!(
        failure.code,
        ErrorCode::InvalidJson
          | ErrorCode::DuplicateKey
          | ErrorCode::LoneSurrogate
          | ErrorCode::NonFiniteNumber
          | ErrorCode::DepthLimit
      ) || (failure.code == ErrorCode::NegativeZero && options.reject_negative_zero);
      assert!(allowed, "unexpected decoder code {:?}", failure.code);
      // Not RFC 8259 JSON for us: serde_json (also strict RFC 8259) must refuse it too.
      if failure.code == ErrorCode::InvalidJson {
        if let Some(text) = &as_string {
          assert!(
            serde_json::from_str::<serde_json::Value>(text).is_err(),
            "serde_json accepts text the decoder calls invalid: {text:?}"
          );
        }
      }
    }
    Ok(()) => {
      assert!(
        same_tape(&tape, &other),
        "path tracking changed the decoded tape"
      );
      assert!(
        tape_depth(&tape) <= MAX_DEPTH,
        "a decoded tape deeper than MAX_DEPTH"
      );
      // Accepted text is JSON for serde_json too (below its recursion limit of 128).
      if let Some(text) = &as_string {
        if tape_depth(&tape) < 120 {
          assert!(
            serde_json::from_str::<serde_json::Value>(text).is_ok(),
            "serde_json refuses text the decoder accepts: {text:?}"
          );
        }
      }
      match encode_all_forms(tape.as_ref()) {
        Ok(canonical) => {
          assert_fixed_point(&canonical);
          // The decoded tape encodes to exactly what canonicalize_text gives for the text.
          let direct =
            jcs::canonicalize_text(&units, options).expect("canonicalize_text of decodable text");
          assert_eq!(
            direct, canonical,
            "decode + encode differs from canonicalize_text"
          );
        }
        Err(code) => {
          // Provider text may hold -0, which only the snapshot encoder refuses.
          assert_eq!(
            code,
            ErrorCode::NegativeZero,
            "a decoded tape fails to encode"
          );
          assert!(
            !options.reject_negative_zero,
            "-0 passed the snapshot decoder"
          );
        }
      }
    }
  }
}

/// Reads fuzzer bytes as a stream of choices.
struct Reader<'a> {
  data: &'a [u8],
  pos: usize,
}

impl Reader<'_> {
  fn byte(&mut self) -> u8 {
    let b = self.data.get(self.pos).copied().unwrap_or(0);
    self.pos += 1;
    b
  }
  fn u16(&mut self) -> u16 {
    u16::from_le_bytes([self.byte(), self.byte()])
  }
  fn u32(&mut self) -> u32 {
    u32::from_le_bytes([self.byte(), self.byte(), self.byte(), self.byte()])
  }
  fn done(&self) -> bool {
    self.pos >= self.data.len()
  }
}

const UNITS: [u16; 16] = [
  0x61, 0x62, 0x22, 0x5c, 0x00, 0x1f, 0x7f, 0xe9, 0xff, 0x20ac, 0xd83d, 0xde00, 0xd800, 0xdc00,
  0x2028, 0xfeff,
];
const NUMBERS: [f64; 12] = [
  0.0,
  -0.0,
  1.0,
  -1.5,
  1e21,
  1e-7,
  5e-324,
  f64::MAX,
  f64::NAN,
  f64::INFINITY,
  9007199254740993.0,
  0.1,
];

/// An owned tape with its long strings.
#[derive(Debug, Default)]
pub struct OwnedTape {
  pub ops: Vec<u8>,
  pub nums: Vec<f64>,
  pub lens: Vec<u32>,
  pub text: Vec<u16>,
  pub bigs: Vec<Vec<u16>>,
}

fn string_units(r: &mut Reader<'_>, max: usize) -> Vec<u16> {
  let n = r.byte() as usize % (max + 1);
  (0..n)
    .map(|_| {
      let b = r.byte();
      if b < 200 {
        UNITS[b as usize % UNITS.len()]
      } else {
        r.u16()
      }
    })
    .collect()
}

/// Writes one structurally valid value; nesting is explicit (no recursion).
fn structured_value(r: &mut Reader<'_>, t: &mut OwnedTape) {
  // (members left, is object) per open container.
  let mut open: Vec<(u32, bool)> = Vec::new();
  loop {
    if let Some(&(_, true)) = open.last() {
      let key = string_units(r, 4);
      t.lens.push(key.len() as u32);
      t.text.extend_from_slice(&key);
    }
    let choice = if r.done() { 0 } else { r.byte() % 12 };
    match choice {
      0 => t.ops.push(tape::NULL),
      1 => t.ops.push(tape::FALSE),
      2 => t.ops.push(tape::TRUE),
      3 | 4 => {
        t.ops.push(tape::NUMBER);
        let b = r.byte();
        t.nums.push(if b < 128 {
          NUMBERS[b as usize % NUMBERS.len()]
        } else {
          f64::from_bits(u64::from(r.u32()) << 32 | u64::from(r.u32()))
        });
      }
      5 | 6 => {
        let s = string_units(r, 8);
        t.ops.push(tape::STRING);
        t.lens.push(s.len() as u32);
        t.text.extend_from_slice(&s);
      }
      7 => {
        let mut s = string_units(r, 8);
        s.extend(std::iter::repeat_n(0x78, r.byte() as usize));
        t.ops.push(tape::BIG_STRING);
        t.bigs.push(s);
      }
      8 => {
        // A run of nested arrays, sometimes past the depth limit.
        let levels = if r.byte() == 0xff {
          MAX_DEPTH + (r.byte() as usize % 3)
        } else {
          r.byte() as usize % 8
        };
        for _ in 0..levels {
          t.ops.push(tape::ARRAY);
          t.lens.push(1);
        }
        t.ops.push(tape::NULL);
      }
      _ => {
        let object = choice >= 10;
        let count = u32::from(r.byte() % 4);
        t.ops.push(if object { tape::OBJECT } else { tape::ARRAY });
        t.lens.push(count);
        if count > 0 && open.len() < 2 * MAX_DEPTH {
          open.push((count, object));
          continue;
        }
        if count > 0 {
          // Too deep to keep going: fill the members with nulls.
          for _ in 0..count {
            if object {
              t.lens.push(0);
            }
            t.ops.push(tape::NULL);
          }
        }
      }
    }
    // A value is complete: close finished containers.
    loop {
      match open.last_mut() {
        None => return,
        Some((left, _)) => {
          *left -= 1;
          if *left > 0 {
            break;
          }
          open.pop();
        }
      }
    }
  }
}

/// Builds a tape from fuzzer bytes. First byte: 0-63 raw streams; 64-191 a structurally
/// valid value; 192-255 a valid value then a few corruptions.
pub fn tape_from_bytes(data: &[u8]) -> OwnedTape {
  let mut r = Reader { data, pos: 0 };
  let mode = r.byte();
  let mut t = OwnedTape::default();
  if mode < 64 {
    for _ in 0..r.byte() % 32 {
      let b = r.byte();
      t.ops.push(if b < 230 { b % 8 } else { b });
    }
    for _ in 0..r.byte() % 32 {
      let b = r.byte();
      t.lens
        .push(if b < 240 { u32::from(b % 6) } else { r.u32() });
    }
    for _ in 0..r.byte() % 8 {
      let b = r.byte();
      t.nums.push(NUMBERS[b as usize % NUMBERS.len()]);
    }
    t.text = string_units(&mut r, 40);
    for _ in 0..r.byte() % 3 {
      t.bigs.push(string_units(&mut r, 6));
    }
    return t;
  }
  structured_value(&mut r, &mut t);
  if mode >= 192 {
    for _ in 0..1 + r.byte() % 3 {
      match r.byte() % 6 {
        0 if !t.ops.is_empty() => {
          let i = r.u16() as usize % t.ops.len();
          t.ops[i] = r.byte() % 9;
        }
        1 if !t.lens.is_empty() => {
          let i = r.u16() as usize % t.lens.len();
          t.lens[i] = t.lens[i]
            .wrapping_add(u32::from(r.byte()))
            .wrapping_sub(128);
        }
        2 => {
          t.text.truncate(t.text.len().saturating_sub(1));
        }
        3 => t.text.push(UNITS[r.byte() as usize % UNITS.len()]),
        4 => t.ops.push(r.byte() % 8),
        _ => {
          t.bigs.pop();
        }
      }
    }
  }
  t
}

/// The encoder on an arbitrary tape.
pub fn check_encode(data: &[u8]) {
  let t = tape_from_bytes(data);
  let bigs: Vec<&[u16]> = t.bigs.iter().map(Vec::as_slice).collect();
  let tape = TapeRef {
    ops: &t.ops,
    nums: &t.nums,
    lens: &t.lens,
    text: &t.text,
    bigs: &bigs,
  };
  let result = encode_all_forms(tape);
  stat(if result.is_ok() { 2 } else { 3 });
  if let Ok(canonical) = result {
    assert_fixed_point(&canonical);
  }
}

/// A small deterministic generator for the stable runner and `cargo test`.
pub struct XorShift(pub u64);

impl XorShift {
  pub fn next_u64(&mut self) -> u64 {
    let mut x = self.0;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    self.0 = x;
    x.wrapping_mul(0x2545_f491_4f6c_dd1d)
  }
  pub fn below(&mut self, n: usize) -> usize {
    (self.next_u64() % n.max(1) as u64) as usize
  }
}

const TOKENS: [&str; 34] = [
  "{",
  "}",
  "[",
  "]",
  ":",
  ",",
  "\"",
  "\\",
  "\\u",
  "\\ud800",
  "\\udc00",
  "\\ud83d\\ude00",
  "true",
  "false",
  "null",
  "-0",
  "0",
  "1",
  "1e400",
  "-1e-400",
  "1E+2",
  "0.5",
  ".",
  "e",
  "-",
  " ",
  "\n",
  "\"a\"",
  "\"a\":1",
  "__proto__",
  "é",
  "😀",
  "\u{1}",
  "\u{feff}",
];

/// Generates one input for either target: random bytes, a token soup, or a mutated
/// valid document (decode: first byte chosen for UTF-8 mode half of the time).
pub fn generate(rng: &mut XorShift, out: &mut Vec<u8>) {
  out.clear();
  match rng.below(4) {
    0 => {
      for _ in 0..rng.below(256) {
        out.push(rng.next_u64() as u8);
      }
    }
    1 | 2 => {
      out.push((rng.below(4) as u8) << 1); // UTF-8 mode, random -0 / path flags
      let mut depth = 0i32;
      for _ in 0..rng.below(64) {
        let token = TOKENS[rng.below(TOKENS.len())];
        match token {
          "{" | "[" => depth += 1,
          "}" | "]" => depth -= 1,
          _ => {}
        }
        out.extend_from_slice(token.as_bytes());
      }
      if rng.below(2) == 0 {
        for _ in 0..depth.max(0) {
          out.extend_from_slice(if rng.below(2) == 0 { b"]" } else { b"}" });
        }
      }
    }
    _ => {
      out.push((rng.below(4) as u8) << 1);
      let docs = [
        r#"{"b":[1,2.50,"x"],"a":{"__proto__":{"c":null}},"10":true,"9":false}"#,
        r#"[{"k":1,"\u006b":2}]"#,
        r#"{"s":"\ud83d\ude00\u00e9\n\"","n":[1e21,1e-7,-5e-324,123456789012345678901234567890]}"#,
        r#"[[[[[[[[[[{"deep":[-0.0]}]]]]]]]]]]"#,
      ];
      let mut doc = docs[rng.below(docs.len())].as_bytes().to_vec();
      for _ in 0..rng.below(4) {
        if doc.is_empty() {
          break;
        }
        let i = rng.below(doc.len());
        match rng.below(3) {
          0 => {
            doc.remove(i);
          }
          1 => doc.insert(i, TOKENS[rng.below(TOKENS.len())].as_bytes()[0]),
          _ => {
            let j = rng.below(doc.len());
            doc.swap(i, j);
          }
        }
      }
      out.extend_from_slice(&doc);
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn seeded_inputs_pass_both_checks() {
    let iterations: usize = std::env::var("FUZZ_ITERATIONS")
      .ok()
      .and_then(|s| s.parse().ok())
      .unwrap_or(20_000);
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut input = Vec::new();
    for _ in 0..iterations {
      generate(&mut rng, &mut input);
      check_decode(&input);
      check_encode(&input);
    }
  }

  #[test]
  fn a_million_brackets_give_depth_limit() {
    let mut input = vec![0u8];
    input.extend(std::iter::repeat_n(b'[', 1_000_000));
    check_decode(&input);
  }

  #[test]
  fn deep_valid_tapes_encode() {
    let mut data = vec![100u8, 8, 0xff, 0];
    data.extend([0u8; 8]);
    check_encode(&data);
  }
}
