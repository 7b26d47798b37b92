//! Strings per RFC 8785 section 3.2.2.2: UTF-8 output, `"` and `\` escaped, the five
//! short escapes for control characters, `\u00xx` (lowercase hex) for the other
//! control characters, and every other character written as itself. Input is UTF-16,
//! as JavaScript holds it, so a lone surrogate is seen and rejected, never replaced.

use crate::error::ErrorCode;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// What to write for each ASCII unit: 0 means "as itself", otherwise the escape letter
/// (`u` for the `\u00xx` form).
pub(crate) static ESCAPE: [u8; 128] = {
  let mut table = [0u8; 128];
  let mut i = 0;
  while i < 0x20 {
    table[i] = b'u';
    i += 1;
  }
  table[0x08] = b'b';
  table[0x09] = b't';
  table[0x0a] = b'n';
  table[0x0c] = b'f';
  table[0x0d] = b'r';
  table[b'"' as usize] = b'"';
  table[b'\\' as usize] = b'\\';
  table
};

/// The escape sequence for an ASCII unit that needs one, in a fixed buffer.
#[inline]
pub(crate) fn escape_sequence(unit: u8) -> ([u8; 6], usize) {
  let letter = ESCAPE[unit as usize];
  if letter == b'u' {
    (
      [
        b'\\',
        b'u',
        b'0',
        b'0',
        HEX[(unit >> 4) as usize],
        HEX[(unit & 15) as usize],
      ],
      6,
    )
  } else {
    ([b'\\', letter, 0, 0, 0, 0], 2)
  }
}

#[inline]
fn push_escape(unit: u8, out: &mut Vec<u8>) {
  let (sequence, len) = escape_sequence(unit);
  out.extend_from_slice(&sequence[..len]);
}

/// Appends `units` as a canonical JSON string literal, quotes included.
/// Returns whether the written bytes are all ASCII.
pub fn write_string(units: &[u16], out: &mut Vec<u8>) -> Result<bool, ErrorCode> {
  out.reserve(units.len() + 2);
  out.push(b'"');
  let mut ascii = true;
  let mut i = 0;
  let n = units.len();
  while i < n {
    let unit = units[i];
    if unit < 0x80 {
      // Copy a run of plain ASCII in one go; most strings are nothing but that.
      let start = i;
      while i < n && units[i] < 0x80 && ESCAPE[units[i] as usize] == 0 {
        i += 1;
      }
      if i > start {
        out.extend(units[start..i].iter().map(|&u| u as u8));
        continue;
      }
      push_escape(unit as u8, out);
      i += 1;
    } else if unit < 0x800 {
      ascii = false;
      out.extend_from_slice(&[0xc0 | (unit >> 6) as u8, 0x80 | (unit & 0x3f) as u8]);
      i += 1;
    } else if !(0xd800..0xe000).contains(&unit) {
      ascii = false;
      out.extend_from_slice(&[
        0xe0 | (unit >> 12) as u8,
        0x80 | ((unit >> 6) & 0x3f) as u8,
        0x80 | (unit & 0x3f) as u8,
      ]);
      i += 1;
    } else {
      // A high surrogate must be followed by a low one; anything else is lone.
      let low = units.get(i + 1).copied().unwrap_or(0);
      if unit >= 0xdc00 || !(0xdc00..0xe000).contains(&low) {
        return Err(ErrorCode::LoneSurrogate);
      }
      ascii = false;
      let cp = 0x10000 + (((unit as u32) - 0xd800) << 10) + ((low as u32) - 0xdc00);
      out.extend_from_slice(&[
        0xf0 | (cp >> 18) as u8,
        0x80 | ((cp >> 12) & 0x3f) as u8,
        0x80 | ((cp >> 6) & 0x3f) as u8,
        0x80 | (cp & 0x3f) as u8,
      ]);
      i += 2;
    }
  }
  out.push(b'"');
  Ok(ascii)
}

const LOW_BYTES: u64 = 0x0101_0101_0101_0101;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// Bytes of `word` equal to `byte`: the high bit of each such byte (exact for the lowest
/// one; a borrow can only mark bytes above a true match).
#[inline]
fn bytes_equal(word: u64, byte: u8) -> u64 {
  let x = word ^ (LOW_BYTES * byte as u64);
  x.wrapping_sub(LOW_BYTES) & !x & HIGH_BITS
}

/// How many bytes at the start of `bytes` a JSON string holds as themselves (0x20 to
/// 0x7F but `"` and `\`; bytes from 0x80 too when `high_is_plain`), 8 at a time.
#[inline]
pub(crate) fn plain_bytes(bytes: &[u8], high_is_plain: bool) -> usize {
  let mut i = 0;
  while i + 8 <= bytes.len() {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[i..i + 8]);
    let w = u64::from_le_bytes(word);
    let control = w.wrapping_sub(LOW_BYTES * 0x20) & !w & HIGH_BITS;
    let high = if high_is_plain { 0 } else { w & HIGH_BITS };
    let marks = control | high | bytes_equal(w, b'"') | bytes_equal(w, b'\\');
    if marks != 0 {
      return i + (marks.trailing_zeros() / 8) as usize;
    }
    i += 8;
  }
  while i < bytes.len() {
    let b = bytes[i];
    if b < 0x20 || b == b'"' || b == b'\\' || (b >= 0x80 && !high_is_plain) {
      break;
    }
    i += 1;
  }
  i
}

/// Appends `units` as a canonical JSON string literal in Latin-1 bytes. The caller has
/// checked that every unit is below 0x100 (so no surrogate can occur).
pub fn write_string_latin1(units: &[u16], out: &mut Vec<u8>) -> Result<(), ErrorCode> {
  match write_string_latin1_or(units, out) {
    Some(_) => Ok(()),
    None => Err(ErrorCode::Internal),
  }
}

/// [`write_string_latin1`] for units not known to be Latin-1: the bitwise OR of the units
/// written, or None (and `out` as it was) at a unit above 0xFF.
pub fn write_string_latin1_or(units: &[u16], out: &mut Vec<u8>) -> Option<u16> {
  let before = out.len();
  out.reserve(units.len() + 2);
  out.push(b'"');
  let mut or = 0u16;
  let mut i = 0;
  let n = units.len();
  while i < n {
    let start = i;
    while i < n && (units[i] >= 0x80 || ESCAPE[units[i] as usize] == 0) {
      or |= units[i];
      i += 1;
    }
    if or > 0xff {
      out.truncate(before);
      return None;
    }
    out.extend(units[start..i].iter().map(|&u| u as u8));
    if i < n {
      push_escape(units[i] as u8, out);
      i += 1;
    }
  }
  out.push(b'"');
  Some(or)
}

/// Appends `units` as a canonical JSON string literal in UTF-16 units.
pub fn write_string_utf16(units: &[u16], out: &mut Vec<u16>) -> Result<(), ErrorCode> {
  out.reserve(units.len() + 2);
  out.push(b'"' as u16);
  let mut i = 0;
  let n = units.len();
  while i < n {
    let start = i;
    while i < n {
      let unit = units[i];
      if unit < 0x80 {
        if ESCAPE[unit as usize] != 0 {
          break;
        }
      } else if (0xd800..0xe000).contains(&unit) {
        let low = units.get(i + 1).copied().unwrap_or(0);
        if unit >= 0xdc00 || !(0xdc00..0xe000).contains(&low) {
          return Err(ErrorCode::LoneSurrogate);
        }
        i += 1;
      }
      i += 1;
    }
    out.extend_from_slice(&units[start..i]);
    if i < n {
      let (sequence, len) = escape_sequence(units[i] as u8);
      out.extend(sequence[..len].iter().map(|&b| b as u16));
      i += 1;
    }
  }
  out.push(b'"' as u16);
  Ok(())
}

/// Escapes, in place, the raw UTF-16 units `out[start..]` into the inside of a canonical
/// JSON string literal (what [`write_string_utf16`] writes between the quotes), growing
/// `out` by what the escapes add: the units are read where they will be written, so no
/// copy of a long string is made. A first pass validates surrogates and measures; a
/// second, from the end, moves and escapes (the write position never passes the read
/// position).
pub fn escape_utf16_in_place(out: &mut Vec<u16>, start: usize) -> Result<(), ErrorCode> {
  let n = out.len();
  let mut extra = 0usize;
  let mut i = start;
  while i < n {
    let unit = out[i];
    if unit < 0x80 {
      let letter = ESCAPE[unit as usize];
      if letter == b'u' {
        extra += 5;
      } else if letter != 0 {
        extra += 1;
      }
    } else if (0xd800..0xe000).contains(&unit) {
      let low = if i + 1 < n { out[i + 1] } else { 0 };
      if unit >= 0xdc00 || !(0xdc00..0xe000).contains(&low) {
        return Err(ErrorCode::LoneSurrogate);
      }
      i += 1;
    }
    i += 1;
  }
  if extra == 0 {
    return Ok(());
  }
  out.resize(n + extra, 0);
  let mut read = n;
  let mut write = n + extra;
  while read > start {
    read -= 1;
    let unit = out[read];
    if unit < 0x80 && ESCAPE[unit as usize] != 0 {
      let (sequence, len) = escape_sequence(unit as u8);
      write -= len;
      for (slot, &b) in out[write..write + len].iter_mut().zip(&sequence[..len]) {
        *slot = b as u16;
      }
    } else {
      write -= 1;
      out[write] = unit;
    }
    if write == read {
      // Everything before is plain: already where it belongs.
      break;
    }
  }
  Ok(())
}

/// Room kept per input unit while converting: the longest output of one unit is a
/// six-byte `\u00xx` escape.
const MAX_PER_UNIT: usize = 6;
const CONVERT_CHUNK: usize = 16 * 1024;

/// Feeds canonical JSON held as Latin-1 bytes to `sink` as UTF-8, escaped as the inside
/// of a JSON string literal (for the proposal envelope).
pub fn escape_latin1_into(bytes: &[u8], sink: impl FnMut(&[u8])) {
  escape_units_into(bytes, sink);
}

/// Feeds canonical JSON held as well-formed UTF-16 to `sink` as UTF-8, escaped as the
/// inside of a JSON string literal (for the proposal envelope).
pub fn escape_utf16_into(units: &[u16], sink: impl FnMut(&[u8])) {
  escape_units_into(units, sink);
}

/// Both of the above: Latin-1 bytes are the first 256 UTF-16 units.
fn escape_units_into<T: Copy + Into<u16>>(units: &[T], mut sink: impl FnMut(&[u8])) {
  let mut buffer = [0u8; CONVERT_CHUNK];
  let mut filled = 0;
  let mut i = 0;
  let n = units.len();
  while i < n {
    let end = n.min(i + (CONVERT_CHUNK - filled) / MAX_PER_UNIT);
    while i < end {
      let unit: u16 = units[i].into();
      if unit < 0x80 {
        let b = unit as u8;
        if ESCAPE[b as usize] == 0 {
          buffer[filled] = b;
          filled += 1;
        } else {
          let (sequence, len) = escape_sequence(b);
          buffer[filled..filled + len].copy_from_slice(&sequence[..len]);
          filled += len;
        }
      } else if unit < 0x800 {
        buffer[filled] = 0xc0 | (unit >> 6) as u8;
        buffer[filled + 1] = 0x80 | (unit & 0x3f) as u8;
        filled += 2;
      } else if (0xd800..0xdc00).contains(&unit) && i + 1 < n {
        // A pair: four bytes for two units, within the room kept for them.
        let low: u16 = units[i + 1].into();
        let cp = 0x10000 + (((unit as u32) - 0xd800) << 10) + ((low as u32) - 0xdc00);
        buffer[filled] = 0xf0 | (cp >> 18) as u8;
        buffer[filled + 1] = 0x80 | ((cp >> 12) & 0x3f) as u8;
        buffer[filled + 2] = 0x80 | ((cp >> 6) & 0x3f) as u8;
        buffer[filled + 3] = 0x80 | (cp & 0x3f) as u8;
        filled += 4;
        i += 1;
      } else {
        buffer[filled] = 0xe0 | (unit >> 12) as u8;
        buffer[filled + 1] = 0x80 | ((unit >> 6) & 0x3f) as u8;
        buffer[filled + 2] = 0x80 | (unit & 0x3f) as u8;
        filled += 3;
      }
      i += 1;
    }
    if CONVERT_CHUNK - filled < MAX_PER_UNIT * 64 || i >= n {
      sink(&buffer[..filled]);
      filled = 0;
    }
  }
}

/// The bitwise OR of all units, 16 at a time (the compiler makes it vector code): below
/// 0x80 means ASCII, below 0x100 Latin-1.
pub fn units_or(units: &[u16]) -> u16 {
  let mut lanes = [0u16; 16];
  let mut chunks = units.chunks_exact(16);
  for chunk in &mut chunks {
    for (lane, &unit) in lanes.iter_mut().zip(chunk) {
      *lane |= unit;
    }
  }
  let rest = chunks
    .remainder()
    .iter()
    .fold(0u16, |acc, &unit| acc | unit);
  lanes.iter().fold(rest, |acc, &lane| acc | lane)
}

/// Whether `units` has no lone surrogate.
pub fn is_well_formed(units: &[u16]) -> bool {
  let mut i = 0;
  while i < units.len() {
    let unit = units[i];
    if (0xd800..0xe000).contains(&unit) {
      let low = units.get(i + 1).copied().unwrap_or(0);
      if unit >= 0xdc00 || !(0xdc00..0xe000).contains(&low) {
        return false;
      }
      i += 2;
    } else {
      i += 1;
    }
  }
  true
}

/// Feeds `bytes` (well-formed UTF-8) to `sink` as the inside of a canonical JSON string
/// literal. Used to hash the canonical JSON as a string member of the proposal envelope
/// without building the envelope. Short runs and escapes are gathered in a buffer so the
/// sink sees few, large pieces; long runs go to it directly.
pub fn escape_utf8_into(bytes: &[u8], mut sink: impl FnMut(&[u8])) {
  const CHUNK: usize = 16 * 1024;
  const DIRECT: usize = 512;
  let mut buffer = [0u8; CHUNK];
  let mut filled = 0;
  let mut start = 0;
  let emit_run =
    |run: &[u8], buffer: &mut [u8; CHUNK], filled: &mut usize, sink: &mut dyn FnMut(&[u8])| {
      if run.len() >= DIRECT || *filled + run.len() > CHUNK {
        if *filled > 0 {
          sink(&buffer[..*filled]);
          *filled = 0;
        }
        if run.len() >= DIRECT {
          sink(run);
          return;
        }
      }
      buffer[*filled..*filled + run.len()].copy_from_slice(run);
      *filled += run.len();
    };
  let mut i = 0;
  while i < bytes.len() {
    i += plain_bytes(&bytes[i..], true);
    let Some(&b) = bytes.get(i) else { break };
    emit_run(&bytes[start..i], &mut buffer, &mut filled, &mut sink);
    let (sequence, len) = escape_sequence(b);
    emit_run(&sequence[..len], &mut buffer, &mut filled, &mut sink);
    i += 1;
    start = i;
  }
  emit_run(&bytes[start..], &mut buffer, &mut filled, &mut sink);
  if filled > 0 {
    sink(&buffer[..filled]);
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn lit(s: &[u16]) -> Result<String, ErrorCode> {
    let mut out = Vec::new();
    write_string(s, &mut out).map(|_| String::from_utf8(out).unwrap())
  }

  fn utf16(s: &str) -> Vec<u16> {
    s.encode_utf16().collect()
  }

  #[test]
  fn escapes_exactly_the_characters_rfc_8785_names() {
    assert_eq!(lit(&utf16("a\"b\\c")).unwrap(), r#""a\"b\\c""#);
    assert_eq!(
      lit(&utf16("\u{8}\u{9}\u{a}\u{c}\u{d}")).unwrap(),
      r#""\b\t\n\f\r""#
    );
    assert_eq!(
      lit(&utf16("\u{0}\u{1f}\u{b}")).unwrap(),
      r#""\u0000\u001f\u000b""#
    );
    // Solidus, DEL and the line separators stay as they are.
    assert_eq!(
      lit(&utf16("/\u{7f}\u{2028}\u{2029}")).unwrap(),
      "\"/\u{7f}\u{2028}\u{2029}\""
    );
  }

  #[test]
  fn writes_utf8_for_every_plane() {
    let s = "é€😀\u{10ffff}";
    assert_eq!(lit(&utf16(s)).unwrap(), format!("\"{s}\""));
  }

  #[test]
  fn rejects_lone_surrogates_anywhere() {
    for bad in [
      vec![0xd800],
      vec![0xdc00],
      vec![0x61, 0xd83d],
      vec![0xd83d, 0x61],
      vec![0xde00, 0xd83d],
    ] {
      assert_eq!(lit(&bad), Err(ErrorCode::LoneSurrogate), "{bad:x?}");
      assert!(!is_well_formed(&bad));
    }
    assert!(is_well_formed(&[0xd83d, 0xde00]));
  }

  #[test]
  fn escaping_utf8_in_pieces_equals_serde_json_across_buffer_boundaries() {
    // Long runs, short runs and escapes mixed, well past the internal buffer size.
    let mut text = String::new();
    for i in 0..5_000 {
      text.push_str(&"x".repeat(i % 700));
      text.push_str(["\"", "\\", "\n", "é\u{1}", "😀\t"][i % 5]);
    }
    let mut pieces = Vec::new();
    escape_utf8_into(text.as_bytes(), |p| pieces.extend_from_slice(p));
    let expected = serde_json::to_string(&text).unwrap();
    assert_eq!(
      format!("\"{}\"", String::from_utf8(pieces).unwrap()),
      expected
    );
  }

  #[test]
  fn latin1_and_utf16_writers_agree_with_the_utf8_writer() {
    for text in [
      "plain",
      "a\"b\\c\n\u{1}\u{7f}",
      "café ÿ",
      "東京 😀 \u{2028}",
      "",
    ] {
      let units = utf16(text);
      let utf8 = lit(&units).unwrap();
      let mut wide = Vec::new();
      write_string_utf16(&units, &mut wide).unwrap();
      assert_eq!(String::from_utf16(&wide).unwrap(), utf8, "{text:?}");
      if units.iter().all(|&u| u < 0x100) {
        let mut narrow = Vec::new();
        write_string_latin1(&units, &mut narrow).unwrap();
        assert_eq!(
          narrow.iter().map(|&b| b as char).collect::<String>(),
          utf8,
          "{text:?}"
        );
      }
    }
    assert_eq!(
      write_string_utf16(&[0x61, 0xd800], &mut Vec::new()),
      Err(ErrorCode::LoneSurrogate)
    );
    assert_eq!(
      write_string_latin1(&[0x100], &mut Vec::new()),
      Err(ErrorCode::Internal)
    );
  }

  #[test]
  fn escaping_in_place_writes_what_the_utf16_writer_writes() {
    let mut cases: Vec<Vec<u16>> = [
      "",
      "plain",
      "a\"b\\c\n\u{1}\u{7f}",
      "\u{1f}\u{0}x\t",
      "東京 😀 \u{2028}",
      "é\"\\\n😀",
    ]
    .iter()
    .map(|s| utf16(s))
    .collect();
    let mut seed = 7u32;
    for len in [1usize, 2, 17, 300, 5000] {
      let mut units = Vec::new();
      for _ in 0..len {
        seed = seed.wrapping_mul(1103515245).wrapping_add(12345);
        let pick = [0x22u16, 0x5c, 0x0a, 0x01, 0x41, 0xe9, 0x6771, 0x20][(seed >> 16) as usize % 8];
        units.push(pick);
      }
      cases.push(units);
    }
    for units in cases {
      let mut expected = Vec::new();
      write_string_utf16(&units, &mut expected).unwrap();
      let mut out: Vec<u16> = utf16("prefix\"");
      let start = out.len();
      out.extend_from_slice(&units);
      escape_utf16_in_place(&mut out, start).unwrap();
      out.push(b'"' as u16);
      assert_eq!(&out[start - 1..], &expected[..], "{units:x?}");
      assert_eq!(&out[..start], &utf16("prefix\"")[..]);
    }
    for bad in [
      vec![0x61, 0xd800],
      vec![0xdc00, 0x22],
      vec![0xd83d, 0x22, 0xde00],
    ] {
      let mut out = bad.clone();
      assert_eq!(
        escape_utf16_in_place(&mut out, 0),
        Err(ErrorCode::LoneSurrogate)
      );
    }
  }

  #[test]
  fn envelope_escaping_is_the_same_from_every_representation() {
    let mut text = String::new();
    for i in 0..3_000 {
      text.push_str(&"y".repeat(i % 50));
      text.push_str(["\"", "\\", "é", "😀", "東"][i % 5]);
    }
    let expected = serde_json::to_string(&text).unwrap();
    let mut from_utf16 = Vec::new();
    escape_utf16_into(&utf16(&text), |p| from_utf16.extend_from_slice(p));
    assert_eq!(
      format!("\"{}\"", String::from_utf8(from_utf16).unwrap()),
      expected
    );
    let latin: String = text.chars().filter(|&c| (c as u32) < 0x100).collect();
    let bytes: Vec<u8> = latin.chars().map(|c| c as u32 as u8).collect();
    let mut from_latin1 = Vec::new();
    escape_latin1_into(&bytes, |p| from_latin1.extend_from_slice(p));
    assert_eq!(
      format!("\"{}\"", String::from_utf8(from_latin1).unwrap()),
      serde_json::to_string(&latin).unwrap()
    );
  }

  #[test]
  fn plain_bytes_stops_at_the_first_byte_a_json_string_escapes() {
    let mut seed = 11u32;
    for len in 0..80usize {
      let mut bytes = Vec::new();
      for _ in 0..len {
        seed = seed.wrapping_mul(1103515245).wrapping_add(12345);
        bytes
          .push([b'a', b'"', b'\\', 0x1f, 0x20, 0x7f, 0x80, 0xe9, b'0'][(seed >> 16) as usize % 9]);
      }
      for high_is_plain in [false, true] {
        let expected = bytes
          .iter()
          .position(|&b| b < 0x20 || b == b'"' || b == b'\\' || (b >= 0x80 && !high_is_plain))
          .unwrap_or(bytes.len());
        assert_eq!(plain_bytes(&bytes, high_is_plain), expected, "{bytes:x?}");
      }
    }
  }

  #[test]
  fn escaping_utf8_matches_escaping_utf16() {
    let s = "x\"y\\z\n\u{1}é";
    let mut pieces = Vec::new();
    escape_utf8_into(s.as_bytes(), |p| pieces.extend_from_slice(p));
    let quoted = lit(&utf16(s)).unwrap();
    assert_eq!(
      format!("\"{}\"", String::from_utf8(pieces).unwrap()),
      quoted
    );
  }
}
