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

/// A number as Cedar `Long` (an integer type, or no hint and an integer that fits 64
/// bits) or `decimal` (at most four fraction digits, within Cedar's range).
pub(super) fn number(text: &str, hint: Option<&json::Value>) -> Option<RestrictedExpression> {
  let kind = match hint {
    Some(json::Value::String(k)) => k.as_str(),
    _ => "",
  };
  let integral = !text.contains(['.', 'e', 'E']);
  if kind == "long" || (kind.is_empty() && integral) {
    if !integral {
      return None;
    }
    return text.parse::<i64>().ok().map(RestrictedExpression::new_long);
  }
  if text.contains(['e', 'E']) {
    return None;
  }
  let (negative, digits) = match text.strip_prefix('-') {
    Some(rest) => (true, rest),
    None => (false, text),
  };
  let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
  if fraction.len() > 4 {
    return None;
  }
  let whole_value: i128 = whole.parse().ok()?;
  let mut scaled = whole_value * 10_000;
  if !fraction.is_empty() {
    let f: i128 = fraction.parse().ok()?;
    scaled += f * 10_i128.pow(4 - fraction.len() as u32);
  }
  let signed = if negative { -scaled } else { scaled };
  if signed < i128::from(i64::MIN) || signed > i128::from(i64::MAX) {
    return None;
  }
  let fraction = if fraction.is_empty() { "0" } else { fraction };
  let sign = if negative { "-" } else { "" };
  Some(RestrictedExpression::new_decimal(format!(
    "{sign}{whole}.{fraction}"
  )))
}
