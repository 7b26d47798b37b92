//! What to write instead, for the validation errors a JSON Schema `number` causes: it is a
//! Cedar `decimal`, which `<`, `<=`, `>`, `>=`, arithmetic and equality with a Long refuse.
//! A hint quotes only the policy text (the expression Cedar's error points at and the
//! literal beside it), never an argument value.

use cedar_policy::ValidationError;
use miette::Diagnostic;

/// The hint to append to a validation error's message, if it is one about a decimal.
pub(super) fn type_hint(error: &ValidationError, text: &str) -> Option<String> {
  let label = error.labels()?.next()?;
  let start = label.offset();
  let end = start.checked_add(label.len())?;
  let snippet = text.get(start..end)?;
  let message = error.to_string();
  match error {
    ValidationError::UnexpectedType(_) if message.ends_with("expected Long but saw decimal") => {
      Some(decimal_operand(
        snippet,
        text.get(..start)?,
        text.get(end..)?,
      ))
    }
    ValidationError::UnexpectedType(_) if message.ends_with("expected decimal but saw Long") => {
      Some(format!(
        "`{snippet}` applies a decimal method to a Long (a JSON Schema `integer` is a Cedar Long): \
         compare a Long with `<`, `<=`, `>`, `>=` and an integer, such as `< 100`"
      ))
    }
    ValidationError::IncompatibleTypes(_) if message.contains("Long and decimal") => {
      Some(decimal_equality(snippet))
    }
    ValidationError::FunctionArgumentValidation(_) => {
      let literal = snippet.strip_prefix("decimal(\"")?.strip_suffix("\")")?;
      let digits = literal.strip_prefix('-').unwrap_or(literal);
      (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then(|| {
        format!(
          "a decimal literal has digits on both sides of the point: write `decimal(\"{literal}.0\")`"
        )
      })
    }
    _ => None,
  }
}

/// The comparisons Cedar refuses on a decimal, with the method that replaces each and the
/// method when the decimal is on the right (`100 > x` is `x.lessThan(...)`).
const COMPARISONS: [(&str, &str, &str); 4] = [
  ("<=", "lessThanOrEqual", "greaterThanOrEqual"),
  (">=", "greaterThanOrEqual", "lessThanOrEqual"),
  ("<", "lessThan", "greaterThan"),
  (">", "greaterThan", "lessThan"),
];

const TYPE: &str = "is a decimal (a JSON Schema `number` is a Cedar decimal)";

/// A leading integer literal of Cedar text (`-12`), with what follows it.
fn leading_integer(text: &str) -> Option<(&str, &str)> {
  let digits = text.strip_prefix('-').unwrap_or(text);
  let n = digits.bytes().take_while(u8::is_ascii_digit).count();
  if n == 0 {
    return None;
  }
  let len = text.len() - digits.len() + n;
  let rest = &text[len..];
  let next = rest.bytes().next();
  (!next.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
    .then(|| (&text[..len], rest))
}

/// A trailing integer literal of Cedar text, with what precedes it.
fn trailing_integer(text: &str) -> Option<(&str, &str)> {
  let n = text.bytes().rev().take_while(u8::is_ascii_digit).count();
  if n == 0 {
    return None;
  }
  let mut start = text.len() - n;
  if text[..start].ends_with('-') {
    start -= 1;
  }
  let before = &text[..start];
  let prev = before.bytes().next_back();
  (!prev.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'"'))
    .then(|| (&text[start..], before))
}

/// The hint for a decimal operand where Cedar expects a Long: the method call that
/// replaces `operand <= 100` (or `100 >= operand`) when the policy compares it with an
/// integer literal, else the methods to use.
fn decimal_operand(operand: &str, before: &str, after: &str) -> String {
  let right = after.trim_start();
  for (op, method, _) in COMPARISONS {
    if let Some(rest) = right.strip_prefix(op) {
      if let Some((literal, _)) = leading_integer(rest.trim_start()) {
        return format!(
          "`{operand}` {TYPE}, compared by its methods, not `{op}`: write \
           `{operand}.{method}(decimal(\"{literal}.0\"))`"
        );
      }
    }
  }
  let left = before.trim_end();
  for (op, _, flipped) in COMPARISONS {
    if let Some(rest) = left.strip_suffix(op) {
      if let Some((literal, _)) = trailing_integer(rest.trim_end()) {
        return format!(
          "`{operand}` {TYPE}, compared by its methods, not `{op}`: write \
           `{operand}.{flipped}(decimal(\"{literal}.0\"))`"
        );
      }
    }
  }
  format!(
    "`{operand}` {TYPE}: compare it with `.lessThan`, `.lessThanOrEqual`, `.greaterThan` or \
     `.greaterThanOrEqual` and a decimal literal, such as \
     `{operand}.lessThanOrEqual(decimal(\"100.0\"))`; `<`, `<=`, `>`, `>=` and arithmetic \
     take Longs only"
  )
}

/// The hint for an expression that compares a decimal with a Long (`==`, `!=`,
/// `contains`): the integer literal written as a decimal.
fn decimal_equality(expression: &str) -> String {
  let rewrite = if let Some(inner) = expression.strip_suffix(')') {
    trailing_integer(inner)
      .filter(|(_, before)| before.trim_end().ends_with(".contains("))
      .map(|(literal, before)| format!("{before}decimal(\"{literal}.0\"))"))
  } else {
    trailing_integer(expression)
      .filter(|(_, before)| {
        let b = before.trim_end();
        b.ends_with("==") || b.ends_with("!=")
      })
      .map(|(literal, before)| format!("{before}decimal(\"{literal}.0\")"))
      .or_else(|| {
        leading_integer(expression)
          .filter(|(_, rest)| {
            let r = rest.trim_start();
            r.starts_with("==") || r.starts_with("!=")
          })
          .map(|(literal, rest)| format!("decimal(\"{literal}.0\"){rest}"))
      })
  };
  match rewrite {
    Some(rewrite) => format!(
      "`{expression}` compares a decimal (a JSON Schema `number` is a Cedar decimal) with a \
       Long, which are never equal: write `{rewrite}`"
    ),
    None => format!(
      "`{expression}` compares a decimal (a JSON Schema `number` is a Cedar decimal) with a \
       Long, which are never equal: write the integer as a decimal, such as `decimal(\"100.0\")`"
    ),
  }
}
