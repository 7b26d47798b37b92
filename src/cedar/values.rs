//! Canonical JSON values as Cedar values (the context of a request), by the tool schema's number hints.

use cedar_policy::RestrictedExpression;

use super::json;

/// A canonical JSON value as a Cedar value: `None` when it has no Cedar form.
pub(super) fn to_cedar(
  value: &json::Value,
  hint: Option<&json::Value>,
) -> Option<RestrictedExpression> {
  use json::Value;
  match value {
    Value::Null => None,
    Value::Bool(b) => Some(RestrictedExpression::new_bool(*b)),
    Value::String(s) => Some(RestrictedExpression::new_string(s.clone())),
    Value::Number(text) => number(text, hint),
    Value::Array(items) => {
      let element = match hint {
        Some(Value::Array(h)) => h.first(),
        _ => None,
      };
      let mut out = Vec::with_capacity(items.len());
      for item in items {
        out.push(to_cedar(item, element)?);
      }
      Some(RestrictedExpression::new_set(out))
    }
    Value::Object(fields) => {
      let mut out = Vec::with_capacity(fields.len());
      for (key, item) in fields {
        // A null is an absent attribute.
        if matches!(item, Value::Null) {
          continue;
        }
        let attr = match hint {
          Some(Value::Object(h)) => h.iter().find(|(k, _)| k == key).map(|(_, v)| v),
          _ => None,
        };
        out.push((key.clone(), to_cedar(item, attr)?));
      }
      RestrictedExpression::new_record(out).ok()
    }
  }
}

/// A number of the arguments as Cedar holds it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Number {
  Long(i64),
  /// A `decimal`, as its value times 10^4 (Cedar's own representation).
  Decimal(i64),
}

/// 2^63, the first integer past a Long.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
/// 2^39: below it doubles are at most 2^-14 apart (less than 10^-4), so at most one
/// decimal of four fraction digits rounds to a given double.
const TWO_39: f64 = 549_755_813_888.0;

/// A number as Cedar `Long` (an integer type, or no hint and an integer within 64 bits)
/// or `decimal` (a number type, or no hint and any other number).
pub(super) fn number(text: &str, hint: Option<&json::Value>) -> Option<RestrictedExpression> {
  Some(match cedar_number(text, hint)? {
    Number::Long(n) => RestrictedExpression::new_long(n),
    Number::Decimal(scaled) => RestrictedExpression::new_decimal(decimal_text(scaled)),
  })
}

/// The number the handler receives, as Cedar holds it, or `None` when Cedar cannot.
///
/// The handler's view is `JSON.parse` of the canonical text, so it holds the double
/// nearest to the text (the canonical text is the shortest that rounds back to it); Rust's
/// parse rounds the same way, so `value` is that double. A Long is its exact integer
/// (2^60, canonically `1152921504606847000`, is 1152921504606846976). A decimal is its
/// exact value when that has at most four fraction digits (every integer, `0.5`), else its
/// shortest text when that has at most four fraction digits and is the only such decimal
/// whose nearest double it is (`0.1`). Anything else (a fraction where a Long is expected,
/// an integer outside 64 bits, a decimal out of Cedar's range or with more digits, two
/// decimals naming one double) has no Cedar value.
pub(super) fn cedar_number(text: &str, hint: Option<&json::Value>) -> Option<Number> {
  let kind = match hint {
    Some(json::Value::String(k)) => k.as_str(),
    _ => "",
  };
  let value: f64 = text.parse().ok()?;
  if !value.is_finite() {
    return None;
  }
  // Exact: an integral double within the range of i64.
  let long = (value.fract() == 0.0 && (-TWO_63..TWO_63).contains(&value)).then_some(value as i64);
  if kind == "long" || (kind.is_empty() && long.is_some()) {
    return long.map(Number::Long);
  }
  decimal(value).map(Number::Decimal)
}

/// A double as a Cedar decimal (its value times 10^4), see cedar_number.
fn decimal(value: f64) -> Option<i64> {
  // A double has at most four fraction digits exactly when it is a multiple of 1/16
  // (a fraction of 2^-n needs n decimal digits); times 16 is exact.
  let sixteenths = value * 16.0;
  if sixteenths.fract() == 0.0 {
    if !(-TWO_63..TWO_63).contains(&sixteenths) {
      return None;
    }
    return i64::try_from(i128::from(sixteenths as i64) * 625).ok();
  }
  // Rust's Display of a double is the shortest text that parses back to it, never with
  // an exponent.
  let shortest = format!("{value}");
  let scaled = scaled_decimal(&shortest)?;
  if value.abs() >= TWO_39 {
    // The decimals around it name other doubles, or this one is not the only name.
    for neighbour in [scaled.checked_sub(1)?, scaled.checked_add(1)?] {
      if decimal_text(neighbour).parse::<f64>().ok()? == value {
        return None;
      }
    }
  }
  Some(scaled)
}

/// `[-]digits[.digits]` with at most four fraction digits, times 10^4, within i64.
fn scaled_decimal(text: &str) -> Option<i64> {
  let (negative, digits) = match text.strip_prefix('-') {
    Some(rest) => (true, rest),
    None => (false, text),
  };
  let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
  if fraction.len() > 4
    || whole.is_empty()
    || !whole.bytes().all(|b| b.is_ascii_digit())
    || !fraction.bytes().all(|b| b.is_ascii_digit())
  {
    return None;
  }
  let mut scaled: i128 = whole.parse::<i128>().ok()?.checked_mul(10_000)?;
  if !fraction.is_empty() {
    let f: i128 = fraction.parse().ok()?;
    scaled += f * 10_i128.pow(4 - fraction.len() as u32);
  }
  i64::try_from(if negative { -scaled } else { scaled }).ok()
}

/// Cedar's text of a decimal given times 10^4: `-12.3400`.
pub(super) fn decimal_text(scaled: i64) -> String {
  let sign = if scaled < 0 { "-" } else { "" };
  let magnitude = i128::from(scaled).unsigned_abs();
  format!("{sign}{}.{:04}", magnitude / 10_000, magnitude % 10_000)
}
