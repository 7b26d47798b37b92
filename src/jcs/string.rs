//! Strings per RFC 8785 section 3.2.2.2: UTF-8 output, `"` and `\` escaped, the five
//! short escapes for control characters, `\u00xx` (lowercase hex) for the other
//! control characters, and every other character written as itself. Input is UTF-16,
//! as JavaScript holds it, so a lone surrogate is seen and rejected, never replaced.

use crate::error::ErrorCode;

const HEX: &[u8; 16] = b"0123456789abcdef";

/// What to write for each ASCII unit: 0 means "as itself", otherwise the escape letter
/// (`u` for the `\u00xx` form).
static ESCAPE: [u8; 128] = {
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
fn escape_sequence(unit: u8) -> ([u8; 6], usize) {
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
/// literal, in as few pieces as the escapes allow. Used to hash the canonical JSON as a
/// string member of the proposal envelope without building the envelope.
pub fn escape_utf8_into(bytes: &[u8], mut sink: impl FnMut(&[u8])) {
  let mut start = 0;
  for (i, &b) in bytes.iter().enumerate() {
    if b < 0x80 && ESCAPE[b as usize] != 0 {
      if i > start {
        sink(&bytes[start..i]);
      }
      let (sequence, len) = escape_sequence(b);
      sink(&sequence[..len]);
      start = i + 1;
    }
  }
  if start < bytes.len() {
    sink(&bytes[start..]);
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
