//! Where canonical JSON is written. The text is the same in every form; only the code
//! units differ: UTF-8 bytes (Rust callers, the strict decoder's round trip), Latin-1
//! bytes (when every character is below U+0100: JavaScript holds such strings one byte
//! per character and can take them as they are) and UTF-16 units (anything else).
//! Handing JavaScript Latin-1 or UTF-16 spares it decoding UTF-8.

use super::number::format_number;
use super::string::{
  escape_utf16_in_place, units_or, write_string, write_string_latin1, write_string_latin1_or,
  write_string_utf16,
};
use super::tape::LongStrings;
use crate::error::{ErrorCode, Failure};

pub trait Output {
  /// Appends ASCII text (punctuation, literals, numbers).
  fn ascii(&mut self, bytes: &[u8]);
  /// Appends a canonical string literal of `units`, quotes included.
  fn string(&mut self, units: &[u16]) -> Result<(), ErrorCode>;

  /// Appends a canonical string literal of long string `index` of `bigs`. A failure of
  /// the string itself is `Err(Ok(code))`, one of reading it `Err(Err(failure))`.
  fn long_string(
    &mut self,
    bigs: &mut dyn LongStrings,
    index: usize,
  ) -> Result<(), Result<ErrorCode, Failure>> {
    let mut code = None;
    bigs
      .with_units(index, &mut |units| {
        self.string(units).map_err(|c| {
          code = Some(c);
          Failure::from(c)
        })
      })
      .map_err(|failure| match code {
        Some(c) => Ok(c),
        None => Err(failure),
      })
  }

  /// Appends a number; returns how many characters it took.
  fn number(&mut self, value: f64) -> Result<usize, ErrorCode> {
    let mut buffer = ryu_js::Buffer::new();
    let mut digits = [0u8; 24];
    let text = format_number(value, &mut buffer, &mut digits)?;
    self.ascii(text);
    Ok(text.len())
  }
}

/// UTF-8 output that remembers whether it stayed ASCII.
#[derive(Debug)]
pub struct Utf8Out<'a> {
  pub bytes: &'a mut Vec<u8>,
  pub ascii: bool,
}

impl Output for Utf8Out<'_> {
  #[inline]
  fn ascii(&mut self, bytes: &[u8]) {
    self.bytes.extend_from_slice(bytes);
  }

  #[inline]
  fn string(&mut self, units: &[u16]) -> Result<(), ErrorCode> {
    self.ascii &= write_string(units, self.bytes)?;
    Ok(())
  }
}

/// Latin-1 output, for tapes whose text has no unit above 0xFF.
#[derive(Debug)]
pub struct Latin1Out<'a>(pub &'a mut Vec<u8>);

impl Output for Latin1Out<'_> {
  #[inline]
  fn ascii(&mut self, bytes: &[u8]) {
    self.0.extend_from_slice(bytes);
  }

  #[inline]
  fn string(&mut self, units: &[u16]) -> Result<(), ErrorCode> {
    write_string_latin1(units, self.0)
  }
}

/// UTF-16 output.
#[derive(Debug)]
pub struct Utf16Out<'a>(pub &'a mut Vec<u16>);

impl Output for Utf16Out<'_> {
  #[inline]
  fn ascii(&mut self, bytes: &[u8]) {
    self.0.extend(bytes.iter().map(|&b| b as u16));
  }

  #[inline]
  fn string(&mut self, units: &[u16]) -> Result<(), ErrorCode> {
    write_string_utf16(units, self.0)
  }
}

/// Latin-1 output that turns into UTF-16 at the first string with a unit above 0xFF
/// (what was written so far is widened once), so the form is chosen without reading the
/// strings beforehand. Each form may start with a reserved prefix of `prefix` units.
#[derive(Debug)]
pub struct AdaptiveOut<'a> {
  pub narrow: &'a mut Vec<u8>,
  pub wide: &'a mut Vec<u16>,
  /// Whether the output is in `wide` (UTF-16) rather than `narrow` (Latin-1).
  pub is_wide: bool,
  /// The bitwise OR of every unit of every string written (below 0x80: all ASCII).
  pub units_or: u16,
  /// The units expected in all (room reserved in either form).
  expected: usize,
}

impl<'a> AdaptiveOut<'a> {
  /// Empty Latin-1 output after `prefix` reserved (zero) units, with room for `expected`
  /// units: a buffer grown by doubling leaves its earlier copies behind in the allocator,
  /// which for a large output costs as much memory again as the output.
  pub fn new(
    narrow: &'a mut Vec<u8>,
    wide: &'a mut Vec<u16>,
    prefix: usize,
    expected: usize,
  ) -> Self {
    narrow.clear();
    narrow.reserve(prefix + expected);
    narrow.resize(prefix, 0);
    wide.clear();
    AdaptiveOut {
      narrow,
      wide,
      is_wide: false,
      units_or: 0,
      expected: prefix + expected,
    }
  }

  fn widen(&mut self) {
    self.wide.clear();
    self.wide.reserve(self.expected.max(self.narrow.len() + 64));
    self.wide.extend(self.narrow.iter().map(|&b| b as u16));
    self.narrow.clear();
    self.is_wide = true;
  }
}

impl Output for AdaptiveOut<'_> {
  /// The long string's units are read into the UTF-16 buffer where they will stay if the
  /// output is (or turns) UTF-16, then escaped in place: no other copy of them is made.
  /// If they are all Latin-1 and the output still is, they are written from there to the
  /// Latin-1 buffer.
  fn long_string(
    &mut self,
    bigs: &mut dyn LongStrings,
    index: usize,
  ) -> Result<(), Result<ErrorCode, Failure>> {
    let base = if self.is_wide {
      self.wide.len()
    } else {
      // Room for the Latin-1 output so far, widened, should the string need UTF-16.
      self.wide.clear();
      self.wide.reserve(self.expected.max(self.narrow.len() + 64));
      self.wide.resize(self.narrow.len(), 0);
      self.narrow.len()
    };
    self.wide.push(b'"' as u16);
    bigs.read_into(index, self.wide).map_err(Err)?;
    let or = units_or(&self.wide[base + 1..]);
    self.units_or |= or;
    if !self.is_wide {
      if or < 0x100 {
        let result = write_string_latin1(&self.wide[base + 1..], self.narrow);
        self.wide.clear();
        return result.map_err(Ok);
      }
      for (slot, &b) in self.wide[..base].iter_mut().zip(self.narrow.iter()) {
        *slot = b as u16;
      }
      self.narrow.clear();
      self.is_wide = true;
    }
    escape_utf16_in_place(self.wide, base + 1).map_err(Ok)?;
    self.wide.push(b'"' as u16);
    Ok(())
  }

  #[inline]
  fn ascii(&mut self, bytes: &[u8]) {
    if self.is_wide {
      self.wide.extend(bytes.iter().map(|&b| b as u16));
    } else {
      self.narrow.extend_from_slice(bytes);
    }
  }

  #[inline]
  fn string(&mut self, units: &[u16]) -> Result<(), ErrorCode> {
    if !self.is_wide {
      if let Some(or) = write_string_latin1_or(units, self.narrow) {
        self.units_or |= or;
        return Ok(());
      }
      self.widen();
    }
    write_string_utf16(units, self.wide)
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn adaptive_output_widens_once_at_the_first_unit_above_0xff() {
    let (mut narrow, mut wide) = (Vec::new(), Vec::new());
    let mut out = AdaptiveOut::new(&mut narrow, &mut wide, 2, 0);
    out.ascii(b"[");
    out
      .string(&"caf\u{e9}".encode_utf16().collect::<Vec<_>>())
      .unwrap();
    assert!(!out.is_wide);
    assert!((0x80..0x100).contains(&out.units_or), "Latin-1, not ASCII");
    out.ascii(b",");
    out
      .string(&"\u{6771}\u{1f600}".encode_utf16().collect::<Vec<_>>())
      .unwrap();
    assert!(out.is_wide);
    out.ascii(b"]");
    assert_eq!(
      String::from_utf16(&wide[2..]).unwrap(),
      "[\"caf\u{e9}\",\"\u{6771}\u{1f600}\"]"
    );
    assert_eq!(&wide[..2], &[0, 0]);
  }
}
