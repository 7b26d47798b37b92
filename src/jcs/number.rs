//! Numbers per RFC 8785 section 3.2.2.3: the ECMAScript Number-to-String algorithm,
//! which ryu-js implements; integers get a shorter path with the same output.

use crate::error::ErrorCode;

/// Largest integer magnitude for which the integer path is exact and matches
/// ECMAScript (which prints integers below 1e21 without an exponent).
const EXACT_INTEGER: f64 = 9_007_199_254_740_992.0; // 2^53

/// The canonical form of `value`, written into one of the two buffers; NaN, infinities
/// and negative zero are outside the strict snapshot domain.
#[inline]
pub fn format_number<'b>(
  value: f64,
  ryu: &'b mut ryu_js::Buffer,
  digits: &'b mut [u8; 24],
) -> Result<&'b [u8], ErrorCode> {
  if !value.is_finite() {
    return Err(ErrorCode::NonFiniteNumber);
  }
  if value == 0.0 {
    if value.is_sign_negative() {
      return Err(ErrorCode::NegativeZero);
    }
    return Ok(b"0");
  }
  if value.fract() == 0.0 && value.abs() < EXACT_INTEGER {
    return Ok(format_integer(value as i64, digits));
  }
  Ok(ryu.format_finite(value).as_bytes())
}

/// Appends the canonical form of `value` to UTF-8 (or Latin-1) bytes.
#[inline]
pub fn write_number(value: f64, out: &mut Vec<u8>) -> Result<(), ErrorCode> {
  let mut ryu = ryu_js::Buffer::new();
  let mut digits = [0u8; 24];
  out.extend_from_slice(format_number(value, &mut ryu, &mut digits)?);
  Ok(())
}

#[inline]
fn format_integer(value: i64, digits: &mut [u8; 24]) -> &[u8] {
  let mut pos = digits.len();
  let negative = value < 0;
  let mut rest = value.unsigned_abs();
  loop {
    pos -= 1;
    digits[pos] = b'0' + (rest % 10) as u8;
    rest /= 10;
    if rest == 0 {
      break;
    }
  }
  if negative {
    pos -= 1;
    digits[pos] = b'-';
  }
  &digits[pos..]
}

#[cfg(test)]
mod tests {
  use super::*;

  fn fmt(v: f64) -> Result<String, ErrorCode> {
    let mut out = Vec::new();
    write_number(v, &mut out).map(|_| String::from_utf8(out).unwrap())
  }

  #[test]
  fn integers_print_without_exponent_or_fraction() {
    assert_eq!(fmt(0.0).unwrap(), "0");
    assert_eq!(fmt(-1.0).unwrap(), "-1");
    assert_eq!(fmt(9007199254740991.0).unwrap(), "9007199254740991");
    assert_eq!(fmt(-9007199254740991.0).unwrap(), "-9007199254740991");
  }

  #[test]
  fn integer_path_agrees_with_ryu_js_near_its_boundary() {
    for v in [
      1.0,
      10.0,
      123456789.0,
      4503599627370496.0,
      9007199254740991.0,
      -77.0,
    ] {
      let mut buffer = ryu_js::Buffer::new();
      assert_eq!(fmt(v).unwrap(), buffer.format_finite(v), "{v}");
    }
  }

  #[test]
  fn rejects_values_outside_the_domain() {
    assert_eq!(fmt(f64::NAN), Err(ErrorCode::NonFiniteNumber));
    assert_eq!(fmt(f64::INFINITY), Err(ErrorCode::NonFiniteNumber));
    assert_eq!(fmt(f64::NEG_INFINITY), Err(ErrorCode::NonFiniteNumber));
    assert_eq!(fmt(-0.0), Err(ErrorCode::NegativeZero));
  }
}
