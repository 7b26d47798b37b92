//! Where canonical JSON is written. The text is the same in every form; only the code
//! units differ: UTF-8 bytes (Rust callers, the strict decoder's round trip), Latin-1
//! bytes (when every character is below U+0100: JavaScript holds such strings one byte
//! per character and can take them as they are) and UTF-16 units (anything else).
//! Handing JavaScript Latin-1 or UTF-16 spares it decoding UTF-8.

use super::number::format_number;
use super::string::{write_string, write_string_latin1, write_string_utf16};
use crate::error::ErrorCode;

pub trait Output {
  /// Appends ASCII text (punctuation, literals, numbers).
  fn ascii(&mut self, bytes: &[u8]);
  /// Appends a canonical string literal of `units`, quotes included.
  fn string(&mut self, units: &[u16]) -> Result<(), ErrorCode>;

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
