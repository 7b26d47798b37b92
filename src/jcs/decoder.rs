//! Strict JSON decoding (RFC 8259 grammar) of UTF-16 text into a tape. Stricter than
//! `JSON.parse` in exactly the ways an authorization payload needs: duplicate keys,
//! lone surrogates (raw or escaped), numbers that overflow to infinity and nesting past
//! [`MAX_DEPTH`] are errors. It never recurses, so no input can exhaust the stack.
//!
//! Text that is not JSON is `invalid_json` before any value rule: a duplicate key, a lone
//! surrogate, a number that overflows or a negative zero is only recorded where it is
//! found, the grammar is checked to the end, and the recorded failure is returned only
//! when the whole text is JSON (`-01` is `invalid_json`, `-0` is `negative_zero`). The
//! depth limit is a resource limit, not a value rule: it stops decoding where it is hit.

use super::pointer::{self, Segment};
use super::string::is_well_formed;
use super::tape::{self, key_chunk, sort_keys, Tape};
use super::MAX_DEPTH;
use crate::error::{ErrorCode, Failure};

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeOptions {
  /// Reject `-0` (and `-0.0`, `-0e5`...), for text that must be a snapshot value.
  pub reject_negative_zero: bool,
  /// Build a JSON Pointer for failures.
  pub track_path: bool,
}

impl DecodeOptions {
  /// Provider arguments: any strict JSON; negative zero is left for the snapshot stage.
  pub fn request() -> Self {
    DecodeOptions {
      reject_negative_zero: false,
      track_path: false,
    }
  }

  /// Text that must decode to a value of the strict snapshot domain.
  pub fn snapshot() -> Self {
    DecodeOptions {
      reject_negative_zero: true,
      track_path: false,
    }
  }

  pub fn with_path(self, track_path: bool) -> Self {
    DecodeOptions { track_path, ..self }
  }
}

#[derive(Debug, Clone, Copy)]
struct Frame {
  object: bool,
  /// Index in `lens` of this container's count.
  count_slot: usize,
  count: u32,
  /// Start of this object's keys in the shared key list.
  keys_base: usize,
}

struct Parser<'a, 't> {
  input: &'a [u16],
  pos: usize,
  options: DecodeOptions,
  tape: &'t mut Tape,
  stack: Vec<Frame>,
  /// (start, len) in `tape.text` of the keys of every open object, for duplicates.
  keys: Vec<(usize, usize)>,
  /// The first value rule broken so far, returned if the whole text turns out to be JSON.
  pending: Option<Failure>,
  /// The sort order of one object's keys (check_duplicates), reused from object to object.
  order: Vec<(u64, u32)>,
}

const WS: [bool; 128] = {
  let mut t = [false; 128];
  t[b' ' as usize] = true;
  t[b'\t' as usize] = true;
  t[b'\n' as usize] = true;
  t[b'\r' as usize] = true;
  t
};

/// Decodes `input` into `tape` (appending). Whitespace-only input is an error here;
/// callers that treat it as `{}` check with [`is_blank`] first.
pub fn decode(input: &[u16], options: DecodeOptions, tape: &mut Tape) -> Result<(), Failure> {
  let mut parser = Parser {
    input,
    pos: 0,
    options,
    tape,
    // Room for a typical tool call's nesting and keys at once, instead of growing by
    // doubling from nothing (a few allocations fewer per call).
    stack: Vec::with_capacity(16),
    keys: Vec::with_capacity(32),
    pending: None,
    order: Vec::new(),
  };
  parser.run()
}

/// Whether `input` is empty or only JSON whitespace.
pub fn is_blank(input: &[u16]) -> bool {
  input.iter().all(|&u| u < 128 && WS[u as usize])
}

impl Parser<'_, '_> {
  fn peek(&self) -> Option<u16> {
    self.input.get(self.pos).copied()
  }

  fn skip_ws(&mut self) {
    while let Some(u) = self.peek() {
      if u < 128 && WS[u as usize] {
        self.pos += 1;
      } else {
        break;
      }
    }
  }

  fn fail(&self, code: ErrorCode) -> Failure {
    if !self.options.track_path {
      return code.into();
    }
    let text = &self.tape.text;
    let mut segments = Vec::with_capacity(self.stack.len());
    for (level, frame) in self.stack.iter().enumerate() {
      if frame.object {
        // The current key of this object is the last one recorded before the next
        // level's keys begin.
        let end = self
          .stack
          .get(level + 1)
          .map_or(self.keys.len(), |f| f.keys_base);
        if end > frame.keys_base {
          let (start, len) = self.keys[end - 1];
          segments.push(Segment::Key(&text[start..start + len]));
        }
      } else {
        segments.push(Segment::Index(frame.count as usize));
      }
    }
    Failure {
      code,
      path: Some(pointer::build(&segments)),
    }
  }

  /// Records a broken value rule (the first one wins, with its path) and lets the grammar
  /// check go on: text that is not JSON must still be reported as `invalid_json`.
  fn break_rule(&mut self, code: ErrorCode) {
    if self.pending.is_none() {
      self.pending = Some(self.fail(code));
    }
  }

  fn expect(&mut self, unit: u8) -> Result<(), Failure> {
    self.skip_ws();
    if self.peek() == Some(unit as u16) {
      self.pos += 1;
      Ok(())
    } else {
      Err(self.fail(ErrorCode::InvalidJson))
    }
  }

  fn run(&mut self) -> Result<(), Failure> {
    'value: loop {
      self.skip_ws();
      let Some(unit) = self.peek() else {
        return Err(self.fail(ErrorCode::InvalidJson));
      };
      match unit {
        0x7b | 0x5b => {
          // '{' or '['
          if self.stack.len() >= MAX_DEPTH {
            return Err(self.fail(ErrorCode::DepthLimit));
          }
          self.pos += 1;
          let object = unit == 0x7b;
          self
            .tape
            .ops
            .push(if object { tape::OBJECT } else { tape::ARRAY });
          let count_slot = self.tape.lens.len();
          self.tape.lens.push(0);
          self.skip_ws();
          if self.peek() == Some(if object { 0x7d } else { 0x5d }) {
            self.pos += 1;
          } else {
            self.stack.push(Frame {
              object,
              count_slot,
              count: 0,
              keys_base: self.keys.len(),
            });
            if object {
              self.key()?;
            }
            continue 'value;
          }
        }
        0x22 => {
          self.pos += 1;
          self.tape.ops.push(tape::STRING);
          let len = self.string()?;
          self.tape.lens.push(len as u32);
        }
        0x74 => self.literal(b"true", tape::TRUE)?,
        0x66 => self.literal(b"false", tape::FALSE)?,
        0x6e => self.literal(b"null", tape::NULL)?,
        0x2d | 0x30..=0x39 => self.number()?,
        _ => return Err(self.fail(ErrorCode::InvalidJson)),
      }
      // A value is complete: close every container that ends here.
      loop {
        let Some(frame) = self.stack.last_mut() else {
          self.skip_ws();
          if self.pos != self.input.len() {
            return Err(self.fail(ErrorCode::InvalidJson));
          }
          return match self.pending.take() {
            None => Ok(()),
            Some(failure) => Err(failure),
          };
        };
        frame.count += 1;
        let frame = *frame;
        self.skip_ws();
        match self.peek() {
          Some(0x2c) => {
            // ','
            self.pos += 1;
            if frame.object {
              self.key()?;
            }
            continue 'value;
          }
          Some(0x7d) if frame.object => {
            self.pos += 1;
            self.check_duplicates(frame);
            self.keys.truncate(frame.keys_base);
            self.close(frame);
          }
          Some(0x5d) if !frame.object => {
            self.pos += 1;
            self.close(frame);
          }
          _ => return Err(self.fail(ErrorCode::InvalidJson)),
        }
      }
    }
  }

  fn close(&mut self, frame: Frame) {
    self.tape.lens[frame.count_slot] = frame.count;
    self.stack.pop();
  }

  /// Reads `"key" :` of an object member.
  fn key(&mut self) -> Result<(), Failure> {
    self.skip_ws();
    if self.peek() != Some(0x22) {
      return Err(self.fail(ErrorCode::InvalidJson));
    }
    self.pos += 1;
    let start = self.tape.text.len();
    let len = self.string()?;
    self.tape.lens.push(len as u32);
    self.keys.push((start, len));
    self.expect(b':')
  }

  fn check_duplicates(&mut self, frame: Frame) {
    let keys = &mut self.keys[frame.keys_base..];
    if keys.len() < 2 || self.pending.is_some() {
      return;
    }
    let text = &self.tape.text;
    let key = |index: u32| {
      let (start, len) = keys[index as usize];
      &text[start..start + len]
    };
    let mut order = std::mem::take(&mut self.order);
    order.clear();
    order.extend((0..keys.len() as u32).map(|index| (key_chunk(key(index), 0), index)));
    sort_keys(&mut order, &key);
    let mut repeated = None;
    for pair in order.windows(2) {
      // Equal keys end up with equal chunks (sort_keys): differing chunks, differing keys.
      if pair[0].0 == pair[1].0 && key(pair[0].1) == key(pair[1].1) {
        repeated = Some(keys[pair[1].1 as usize]);
        break;
      }
    }
    self.order = order;
    if let Some(repeated) = repeated {
      // Point at the repeated key: make it the object's current key.
      self.keys.push(repeated);
      self.break_rule(ErrorCode::DuplicateKey);
      self.keys.pop();
    }
  }

  fn literal(&mut self, word: &[u8], op: u8) -> Result<(), Failure> {
    let end = self.pos + word.len();
    let matches = self
      .input
      .get(self.pos..end)
      .is_some_and(|s| s.iter().zip(word).all(|(&a, &b)| a == b as u16));
    if !matches {
      return Err(self.fail(ErrorCode::InvalidJson));
    }
    self.pos = end;
    self.tape.ops.push(op);
    Ok(())
  }

  fn digits(&mut self) -> usize {
    let start = self.pos;
    while matches!(self.peek(), Some(0x30..=0x39)) {
      self.pos += 1;
    }
    self.pos - start
  }

  fn number(&mut self) -> Result<(), Failure> {
    let start = self.pos;
    if self.peek() == Some(0x2d) {
      self.pos += 1;
    }
    match self.peek() {
      Some(0x30) => self.pos += 1,
      Some(0x31..=0x39) => {
        self.digits();
      }
      _ => return Err(self.fail(ErrorCode::InvalidJson)),
    }
    if self.peek() == Some(0x2e) {
      self.pos += 1;
      if self.digits() == 0 {
        return Err(self.fail(ErrorCode::InvalidJson));
      }
    }
    if matches!(self.peek(), Some(0x65 | 0x45)) {
      self.pos += 1;
      if matches!(self.peek(), Some(0x2b | 0x2d)) {
        self.pos += 1;
      }
      if self.digits() == 0 {
        return Err(self.fail(ErrorCode::InvalidJson));
      }
    }
    // The grammar above admits only ASCII, so this narrowing is exact. Numbers of up to
    // 64 characters (all but contrived ones) are narrowed on the stack.
    let units = &self.input[start..self.pos];
    let mut short = [0u8; 64];
    let long: Vec<u8>;
    let ascii: &[u8] = if units.len() <= short.len() {
      for (slot, &unit) in short.iter_mut().zip(units) {
        *slot = unit as u8;
      }
      &short[..units.len()]
    } else {
      long = units.iter().map(|&u| u as u8).collect();
      &long
    };
    let text = std::str::from_utf8(ascii).map_err(|_| self.fail(ErrorCode::InvalidJson))?;
    let value: f64 = text
      .parse()
      .map_err(|_| self.fail(ErrorCode::InvalidJson))?;
    if !value.is_finite() {
      self.break_rule(ErrorCode::NonFiniteNumber);
    } else if value == 0.0 && value.is_sign_negative() && self.options.reject_negative_zero {
      self.break_rule(ErrorCode::NegativeZero);
    }
    self.tape.ops.push(tape::NUMBER);
    self.tape.nums.push(value);
    Ok(())
  }

  fn hex4(&mut self) -> Result<u16, Failure> {
    let mut value = 0u16;
    for _ in 0..4 {
      let digit = match self.peek() {
        Some(u @ 0x30..=0x39) => u - 0x30,
        Some(u @ 0x61..=0x66) => u - 0x61 + 10,
        Some(u @ 0x41..=0x46) => u - 0x41 + 10,
        _ => return Err(self.fail(ErrorCode::InvalidJson)),
      };
      value = value * 16 + digit;
      self.pos += 1;
    }
    Ok(value)
  }

  /// Reads a string body after its opening quote into `tape.text`; returns its length.
  /// Well-formedness is checked on the decoded units, so escaped and raw surrogate
  /// halves are judged alike; and a pair must be written one way: a raw half next to an
  /// escaped half (`"\u{d83d}\\ude00"`, `"\\ud83d\u{de00}"`) decodes to a pair, but
  /// the text itself holds a lone surrogate, so it is a lone surrogate too.
  fn string(&mut self) -> Result<usize, Failure> {
    let start = self.tape.text.len();
    // The last escape decoded to a high surrogate: a raw low one right after it is mixed.
    let mut escaped_high = false;
    loop {
      // Copy a run of ordinary units at once.
      let run_start = self.pos;
      while let Some(u) = self.peek() {
        if u == 0x22 || u == 0x5c || u < 0x20 {
          break;
        }
        self.pos += 1;
      }
      if escaped_high && self.pos > run_start && is_low_surrogate(self.input[run_start]) {
        self.break_rule(ErrorCode::LoneSurrogate);
      }
      let raw_high_before = self.pos > run_start && is_high_surrogate(self.input[self.pos - 1]);
      self
        .tape
        .text
        .extend_from_slice(&self.input[run_start..self.pos]);
      match self.peek() {
        Some(0x22) => {
          self.pos += 1;
          break;
        }
        Some(0x5c) => {
          self.pos += 1;
          let Some(escape) = self.peek() else {
            return Err(self.fail(ErrorCode::InvalidJson));
          };
          self.pos += 1;
          let unit = match escape {
            0x22 => 0x22,
            0x5c => 0x5c,
            0x2f => 0x2f,
            0x62 => 0x08,
            0x66 => 0x0c,
            0x6e => 0x0a,
            0x72 => 0x0d,
            0x74 => 0x09,
            0x75 => self.hex4()?,
            _ => return Err(self.fail(ErrorCode::InvalidJson)),
          };
          if raw_high_before && is_low_surrogate(unit) {
            self.break_rule(ErrorCode::LoneSurrogate);
          }
          escaped_high = is_high_surrogate(unit);
          self.tape.text.push(unit);
        }
        // A raw control character or the end of the input.
        _ => return Err(self.fail(ErrorCode::InvalidJson)),
      }
    }
    let len = self.tape.text.len() - start;
    if !is_well_formed(&self.tape.text[start..]) {
      self.break_rule(ErrorCode::LoneSurrogate);
    }
    Ok(len)
  }
}

fn is_high_surrogate(unit: u16) -> bool {
  (0xd800..=0xdbff).contains(&unit)
}

fn is_low_surrogate(unit: u16) -> bool {
  (0xdc00..=0xdfff).contains(&unit)
}

#[cfg(test)]
mod tests {
  use super::*;
  use crate::jcs::canonicalize_text;

  fn u(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
  }

  fn code(s: &str) -> ErrorCode {
    decode(&u(s), DecodeOptions::request(), &mut Tape::default())
      .unwrap_err()
      .code
  }

  fn path(s: &str) -> String {
    let failure = decode(
      &u(s),
      DecodeOptions::request().with_path(true),
      &mut Tape::default(),
    )
    .unwrap_err();
    String::from_utf16(&failure.path.unwrap()).unwrap()
  }

  #[test]
  fn accepts_what_serde_json_accepts_on_ordinary_documents() {
    for doc in [
      "0",
      "-1.5e-3",
      "\"a\\u00e9\\ud83d\\ude00\"",
      "[]",
      "{}",
      " { \"a\" : [ true , false , null ] , \"b\" : { } } ",
      "[1E+2, 0.5, -0, 123456789012345678901234567890]",
    ] {
      assert!(
        serde_json::from_str::<serde_json::Value>(doc).is_ok(),
        "{doc}"
      );
      assert!(
        decode(&u(doc), DecodeOptions::request(), &mut Tape::default()).is_ok(),
        "{doc}"
      );
    }
  }

  #[test]
  fn rejects_what_rfc_8259_does_not_allow() {
    for doc in [
      "",
      " ",
      "01",
      "1.",
      ".5",
      "+1",
      "1e",
      "-",
      "[1,]",
      "{\"a\":1,}",
      "{'a':1}",
      "[1 2]",
      "\"\u{1}\"",
      "\"\\x\"",
      "\"\\u12\"",
      "nul",
      "truex",
      "[",
      "{\"a\"}",
      "{1:2}",
      "\u{feff}{}",
      "NaN",
      "Infinity",
      "[1]]",
      "\"abc",
      "-00",
      "-0.",
      "-01",
    ] {
      assert_eq!(code(doc), ErrorCode::InvalidJson, "{doc:?}");
      assert_eq!(
        code_with(doc, DecodeOptions::snapshot()),
        ErrorCode::InvalidJson,
        "{doc:?} as a snapshot"
      );
    }
  }

  #[test]
  fn rejects_duplicate_keys_at_any_depth_even_when_spelled_differently() {
    assert_eq!(code(r#"{"a":1,"a":2}"#), ErrorCode::DuplicateKey);
    assert_eq!(
      code(r#"[{"x":{"k":1,"\u006b":2}}]"#),
      ErrorCode::DuplicateKey
    );
    assert_eq!(path(r#"[{"x":{"k":1,"\u006b":2}}]"#), "/0/x/k");
    assert!(decode(
      &u(r#"{"a":{"a":1},"b":{"a":2}}"#),
      DecodeOptions::request(),
      &mut Tape::default()
    )
    .is_ok());
  }

  #[test]
  fn rejects_lone_surrogates_escaped_or_raw() {
    assert_eq!(code(r#""\ud800""#), ErrorCode::LoneSurrogate);
    assert_eq!(code(r#"{"\udc00":1}"#), ErrorCode::LoneSurrogate);
    assert_eq!(code(r#""\ud83d\u0041""#), ErrorCode::LoneSurrogate);
    let mut raw = u("\"x");
    raw.push(0xd800);
    raw.push(0x22);
    assert_eq!(
      decode(&raw, DecodeOptions::request(), &mut Tape::default())
        .unwrap_err()
        .code,
      ErrorCode::LoneSurrogate
    );
  }

  #[test]
  fn a_pair_written_half_raw_half_escaped_is_a_lone_surrogate() {
    let failing = |units: Vec<u16>| {
      decode(&units, DecodeOptions::request(), &mut Tape::default())
        .unwrap_err()
        .code
    };
    // A raw high surrogate, then an escaped low one.
    let mut raw_high = vec![0x22, 0xd83d];
    raw_high.extend(u(r#"\ude00""#));
    assert_eq!(failing(raw_high), ErrorCode::LoneSurrogate);
    // An escaped high surrogate, then a raw low one; also in a key.
    let mut raw_low = u(r#""\ud83d"#);
    raw_low.extend([0xde00, 0x22]);
    assert_eq!(failing(raw_low.clone()), ErrorCode::LoneSurrogate);
    let mut key = vec![0x7b];
    key.extend(raw_low);
    key.extend(u(":1}"));
    assert_eq!(failing(key), ErrorCode::LoneSurrogate);
    // Both halves raw, or both escaped, are a pair.
    let mut both_raw = vec![0x22, 0xd83d, 0xde00, 0x22];
    assert!(decode(&both_raw, DecodeOptions::request(), &mut Tape::default()).is_ok());
    both_raw = u(r#""\ud83d\ude00""#);
    assert!(decode(&both_raw, DecodeOptions::request(), &mut Tape::default()).is_ok());
  }

  #[test]
  fn rejects_numbers_that_overflow_and_only_optionally_negative_zero() {
    assert_eq!(code("1e400"), ErrorCode::NonFiniteNumber);
    assert_eq!(code("[-1e309]"), ErrorCode::NonFiniteNumber);
    assert!(decode(&u("1e-400"), DecodeOptions::request(), &mut Tape::default()).is_ok());
    assert!(decode(&u("-0"), DecodeOptions::request(), &mut Tape::default()).is_ok());
    for z in ["-0", "-0.0", "[-0e7]"] {
      let e = decode(&u(z), DecodeOptions::snapshot(), &mut Tape::default()).unwrap_err();
      assert_eq!(e.code, ErrorCode::NegativeZero, "{z}");
    }
  }

  fn code_with(s: &str, options: DecodeOptions) -> ErrorCode {
    decode(&u(s), options, &mut Tape::default())
      .unwrap_err()
      .code
  }

  #[test]
  fn text_that_is_not_json_is_invalid_json_before_any_value_rule() {
    // Each text breaks a value rule (negative zero, overflow, lone surrogate, duplicate
    // key) before, or while, it stops being JSON: the grammar decides first.
    for doc in [
      "-01",
      "-00",
      "-0.",
      "-0e",
      "-0e+",
      "-0x",
      "-0 1",
      "[-0 1]",
      "[-0,]",
      "{\"a\":-0",
      "{\"a\":-0,}",
      "-0.0.0",
      "[1e400,]",
      "1e400x",
      "[1e400",
      "[\"\\ud800\",]",
      "\"\\udc00",
      "{\"\\ud800\":1",
      "{\"a\":1,\"a\":2}x",
      "{\"a\":1,\"a\":2},",
      "[{\"a\":1,\"a\":2}",
      "[{\"a\":1,\"a\":2}]]",
      "[-0, 1e400, \"\\ud800\", {\"k\":1,\"k\":1}, 01]",
    ] {
      for options in [DecodeOptions::request(), DecodeOptions::snapshot()] {
        assert_eq!(
          code_with(doc, options),
          ErrorCode::InvalidJson,
          "{doc:?} {options:?}"
        );
        assert_eq!(
          code_with(doc, options.with_path(true)),
          ErrorCode::InvalidJson,
          "{doc:?} {options:?} with a path"
        );
      }
    }
  }

  #[test]
  fn json_text_reports_the_first_value_rule_it_breaks_with_its_path() {
    let snapshot = DecodeOptions::snapshot().with_path(true);
    for (doc, expected, pointer) in [
      ("-0", ErrorCode::NegativeZero, ""),
      (" -0.0e5 ", ErrorCode::NegativeZero, ""),
      ("[1e400, -0]", ErrorCode::NonFiniteNumber, "/0"),
      (
        "{\"b\":-0,\"a\":\"\\ud800\"}",
        ErrorCode::NegativeZero,
        "/b",
      ),
      (
        "[{\"k\":1,\"k\":2}, 1e999]",
        ErrorCode::DuplicateKey,
        "/0/k",
      ),
      (
        "{\"x\":[\"\\udc00\"],\"y\":{\"a\":1,\"a\":1}}",
        ErrorCode::LoneSurrogate,
        "/x/0",
      ),
      (
        "{\"o\":{\"a\":1,\"a\":1},\"p\":{\"b\":1,\"b\":1}}",
        ErrorCode::DuplicateKey,
        "/o/a",
      ),
    ] {
      let failure = decode(&u(doc), snapshot, &mut Tape::default()).unwrap_err();
      assert_eq!(failure.code, expected, "{doc:?}");
      assert_eq!(
        String::from_utf16(&failure.path.unwrap()).unwrap(),
        pointer,
        "{doc:?}"
      );
    }
  }

  #[test]
  fn stops_at_the_depth_limit_without_recursing() {
    let ok = format!("{}{}", "[".repeat(MAX_DEPTH), "]".repeat(MAX_DEPTH));
    assert!(decode(&u(&ok), DecodeOptions::request(), &mut Tape::default()).is_ok());
    let deep = "[".repeat(1_000_000);
    assert_eq!(code(&deep), ErrorCode::DepthLimit);
    let deep_objects = "{\"a\":".repeat(1_000_000);
    assert_eq!(code(&deep_objects), ErrorCode::DepthLimit);
  }

  #[test]
  fn reports_paths_as_json_pointers() {
    assert_eq!(path(r#"{"a/b":[0,{"m~n":1e999}]}"#), "/a~1b/1/m~0n");
    assert_eq!(path("[1,2,x]"), "/2");
  }

  #[test]
  fn decoded_tapes_encode_canonically() {
    let out = canonicalize_text(
      &u(r#"{"b":"\u00e9\n","a":[1.0,1e2,-5e-7]}"#),
      DecodeOptions::snapshot(),
    )
    .unwrap();
    assert_eq!(
      String::from_utf8(out).unwrap(),
      "{\"a\":[1,100,-5e-7],\"b\":\"é\\n\"}"
    );
  }
}
