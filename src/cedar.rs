//! Cedar policy sets for `createCedarPolicy` (lib/cedar/): parsing, strict validation
//! against a schema, and authorization of one tool call whose context is built
//! structurally from the snapshot's canonical JSON (never through Cedar's JSON entity
//! format, so an argument key `__entity` or `__extn` stays a plain record attribute).
//!
//! Messages name policy ids and Cedar's diagnostics about the policy text; they never
//! carry an argument value.

use std::collections::HashMap;
use std::str::FromStr;

use cedar_policy::{
  AuthorizationError, Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid,
  PolicyId, PolicySet, Request, RestrictedExpression, Schema, ValidationMode, Validator,
};
use napi::bindgen_prelude::External;
use napi::{Error, Result, Status};
use napi_derive::napi;

/// A policy set ready to authorize: its policies split by the action they name, its
/// entities, each policy's public id (`@id` annotation, else Cedar's own) with whether it
/// carries `@approval("required")`, and what every call reuses (the number hints of each
/// tool, the parsed `Agent` and `Action` type names).
///
/// The split: a policy whose scope is `action == Action::"t"` can only apply to the action
/// `t` (Cedar evaluates the scope before the conditions and stops at a false one, so for
/// another action it can neither apply nor error); it is kept only in `t`'s set, and one
/// with `action in [Action::"t", Action::"u"]` in those two when no entity is an action
/// (no action hierarchy). Every other policy (no action constraint, an `in` over action
/// groups, an action of another entity type) is in every set. An action no policy names gets `other`. Only policies false by their
/// scope are left out, so the decision, its determining policies and its errors are those
/// of the whole set; Cedar no longer builds and evaluates each of the others (about 1.5 us
/// a policy).
pub struct CedarSet {
  actions: HashMap<String, ActionSet>,
  other: PolicySet,
  entities: Entities,
  ids: HashMap<PolicyId, (String, bool)>,
  authorizer: Authorizer,
  hints: HashMap<String, json::Value>,
  agent_type: EntityTypeName,
  action_type: EntityTypeName,
  hash: String,
}

/// The policies that can apply to one action, and the action's uid.
struct ActionSet {
  uid: EntityUid,
  set: PolicySet,
}

/// One problem found while checking a policy set.
#[napi(object)]
pub struct CedarIssue {
  pub code: String,
  pub policy_id: Option<String>,
  pub message: String,
}

/// The answer of one authorization.
#[napi(object)]
pub struct CedarAnswer {
  /// `allow`, `deny`, `error` (an evaluation error: the caller denies) or `unrepresentable`.
  pub outcome: String,
  /// The determining policies' public ids (for `error`, the erroring ones).
  pub policies: Vec<String>,
  /// Whether every determining policy of an allow carries `@approval("required")`.
  pub approval: bool,
}

fn public_ids(set: &PolicySet) -> HashMap<PolicyId, (String, bool)> {
  set
    .policies()
    .map(|p| {
      let id = p
        .annotation("id")
        .map_or_else(|| p.id().to_string(), str::to_owned);
      (
        p.id().clone(),
        (id, p.annotation("approval") == Some("required")),
      )
    })
    .collect()
}

fn issue(code: &str, policy_id: Option<String>, message: String) -> CedarIssue {
  CedarIssue {
    code: code.to_owned(),
    policy_id,
    message,
  }
}

fn parse_schema(schema: &str, text: bool) -> std::result::Result<Schema, String> {
  if text {
    Schema::from_cedarschema_str(schema)
      .map(|(s, _)| s)
      .map_err(|e| e.to_string())
  } else {
    Schema::from_json_str(schema).map_err(|e| e.to_string())
  }
}

/// Checks a policy set: parse errors, duplicate `@id`s, then (with a schema) strict
/// validation. An empty list means the set is valid.
#[napi]
pub fn cedar_check(
  policies: String,
  schema: Option<String>,
  schema_is_text: bool,
) -> Vec<CedarIssue> {
  let set = match PolicySet::from_str(&policies) {
    Ok(set) => set,
    Err(e) => {
      return e
        .iter()
        .map(|d| issue("parse_error", None, d.to_string()))
        .collect();
    }
  };
  let ids = public_ids(&set);
  let mut seen: HashMap<&str, ()> = HashMap::new();
  let mut issues = Vec::new();
  let mut order: Vec<&PolicyId> = ids.keys().collect();
  order.sort_by_key(|id| id.to_string());
  for pid in order {
    let id = ids[pid].0.as_str();
    if seen.insert(id, ()).is_some() {
      issues.push(issue(
        "duplicate_policy_id",
        Some(id.to_owned()),
        format!("two policies carry the id `{id}`"),
      ));
    }
  }
  if !issues.is_empty() {
    return issues;
  }
  if let Some(schema) = schema {
    let schema = match parse_schema(&schema, schema_is_text) {
      Ok(s) => s,
      Err(message) => return vec![issue("schema_error", None, message)],
    };
    let result = Validator::new(schema).validate(&set, ValidationMode::Strict);
    for e in result.validation_errors() {
      let internal = e.policy_id().to_string();
      let id = ids
        .get(e.policy_id())
        .map_or_else(|| internal.clone(), |v| v.0.clone());
      // Cedar names the policy by the parser's number (`policy0`); the message names its public id.
      let message = e.to_string().replacen(
        &format!("for policy `{internal}`"),
        &format!("for policy `{id}`"),
        1,
      );
      issues.push(issue("validation_error", Some(id), message));
    }
  }
  issues
}

/// Splits a policy set by the actions each policy names (see CedarSet). `action in [...]`
/// names its actions only when no entity is an action (then no action has an ancestor
/// and `in` is equality with one of them).
fn split_by_action(
  set: &PolicySet,
  action_type: &EntityTypeName,
  flat_actions: bool,
) -> std::result::Result<(HashMap<String, ActionSet>, PolicySet), String> {
  let mut named: HashMap<String, Vec<cedar_policy::Policy>> = HashMap::new();
  let mut other = PolicySet::new();
  for policy in set.policies() {
    let uids = match policy.action_constraint() {
      cedar_policy::ActionConstraint::Eq(uid) => vec![uid],
      cedar_policy::ActionConstraint::In(uids) if flat_actions => uids,
      _ => Vec::new(),
    };
    if uids.is_empty() || uids.iter().any(|uid| uid.type_name() != action_type) {
      other.add(policy.clone()).map_err(|e| e.to_string())?;
      continue;
    }
    for uid in uids {
      let list = named.entry(uid.id().unescaped().to_owned()).or_default();
      if !list.iter().any(|p| p.id() == policy.id()) {
        list.push(policy.clone());
      }
    }
  }
  let mut actions = HashMap::with_capacity(named.len());
  for (name, policies) in named {
    let mut set = other.clone();
    for policy in policies {
      set.add(policy).map_err(|e| e.to_string())?;
    }
    let uid = EntityUid::from_type_name_and_id(action_type.clone(), EntityId::new(&name));
    actions.insert(name, ActionSet { uid, set });
  }
  Ok((actions, other))
}

/// A checked policy set (see cedar_check) with its entities (Cedar's JSON entity format)
/// and the number hints of its tools (a JSON object from tool name to hint, see
/// cedar_authorize).
#[napi(ts_return_type = "ExternalObject<'CedarSet'>")]
pub fn cedar_compile(
  policies: String,
  entities: Option<String>,
  hints: Option<String>,
) -> Result<External<CedarSet>> {
  use sha2::{Digest, Sha256};
  let set = PolicySet::from_str(&policies)
    .map_err(|_| Error::new(Status::InvalidArg, "the policies do not parse"))?;
  let entities = match entities {
    Some(json) => Entities::from_json_str(&json, None).map_err(|e| {
      Error::new(
        Status::InvalidArg,
        format!("the entities are not valid Cedar entities: {e}"),
      )
    })?,
    None => Entities::empty(),
  };
  let hints = match hints {
    Some(text) => match json::parse(&text) {
      Some(json::Value::Object(fields)) => fields.into_iter().collect(),
      _ => {
        return Err(Error::new(
          Status::InvalidArg,
          "the number hints are not a JSON object",
        ))
      }
    },
    None => HashMap::new(),
  };
  let type_name = |name: &str| {
    EntityTypeName::from_str(name).map_err(|e| Error::new(Status::GenericFailure, e.to_string()))
  };
  let agent_type = type_name("Agent")?;
  let action_type = type_name("Action")?;
  let flat_actions = !entities.iter().any(|e| e.uid().type_name() == &action_type);
  let (actions, other) = split_by_action(&set, &action_type, flat_actions)
    .map_err(|e| Error::new(Status::GenericFailure, e))?;
  let hash = Sha256::digest(policies.as_bytes())
    .iter()
    .map(|b| format!("{b:02x}"))
    .collect();
  let ids = public_ids(&set);
  Ok(External::new(CedarSet {
    actions,
    other,
    entities,
    ids,
    authorizer: Authorizer::new(),
    hints,
    agent_type,
    action_type,
    hash,
  }))
}

/// The SHA-256 (hex) of the policy text a set was compiled from, as given.
#[napi]
pub fn cedar_set_hash(
  #[napi(ts_arg_type = "ExternalObject<'CedarSet'>")] set: &External<CedarSet>,
) -> String {
  set.hash.clone()
}

/// Authorizes one call. `input` is the snapshot's canonical JSON; the number types come
/// from the hint the set was compiled with for the action (the tool): `"long"`,
/// `"decimal"`, an object of attribute hints, or a one-element array for set elements.
/// The resource is `Agent::"<resource_id>"`.
#[napi]
pub fn cedar_authorize(
  #[napi(ts_arg_type = "ExternalObject<'CedarSet'>")] set: &External<CedarSet>,
  principal_type: String,
  principal_id: String,
  action: String,
  resource_id: String,
  input: String,
  scope: Option<String>,
) -> Result<CedarAnswer> {
  let value = json::parse(&input)
    .ok_or_else(|| Error::new(Status::InvalidArg, "the arguments are not canonical JSON"))?;
  let principal_type = if principal_type == "Agent" {
    set.agent_type.clone()
  } else {
    EntityTypeName::from_str(&principal_type).map_err(|_| {
      Error::new(
        Status::InvalidArg,
        "the principal type is not a Cedar entity type name",
      )
    })?
  };
  Ok(
    authorize(
      set,
      principal_type,
      principal_id,
      action,
      resource_id,
      &value,
      scope,
    )
    .unwrap_or_else(|| CedarAnswer {
      outcome: "unrepresentable".to_owned(),
      policies: Vec::new(),
      approval: false,
    }),
  )
}

/// One authorization: `None` when the arguments have no Cedar form.
fn authorize(
  set: &CedarSet,
  principal_type: EntityTypeName,
  principal_id: String,
  action: String,
  resource_id: String,
  value: &json::Value,
  scope: Option<String>,
) -> Option<CedarAnswer> {
  let input = to_cedar(value, set.hints.get(&action))?;
  let context = match scope {
    Some(scope) => Context::from_pairs([
      ("input".to_owned(), input),
      ("scope".to_owned(), RestrictedExpression::new_string(scope)),
    ]),
    None => Context::from_pairs([("input".to_owned(), input)]),
  }
  .ok()?;
  let principal = EntityUid::from_type_name_and_id(principal_type, EntityId::new(principal_id));
  let resource =
    EntityUid::from_type_name_and_id(set.agent_type.clone(), EntityId::new(resource_id));
  let (action, policies) = match set.actions.get(&action) {
    Some(named) => (named.uid.clone(), &named.set),
    None => (
      EntityUid::from_type_name_and_id(set.action_type.clone(), EntityId::new(action)),
      &set.other,
    ),
  };
  let request = Request::new(principal, action, resource, context, None).ok()?;
  let response = set
    .authorizer
    .is_authorized(&request, policies, &set.entities);
  let name = |pid: &PolicyId| {
    set
      .ids
      .get(pid)
      .map_or_else(|| pid.to_string(), |v| v.0.clone())
  };
  let errors: Vec<String> = response
    .diagnostics()
    .errors()
    .map(|e| match e {
      AuthorizationError::PolicyEvaluationError(e) => name(e.policy_id()),
    })
    .collect();
  if !errors.is_empty() {
    return Some(CedarAnswer {
      outcome: "error".to_owned(),
      policies: errors,
      approval: false,
    });
  }
  let mut ids: Vec<String> = response.diagnostics().reason().map(name).collect();
  ids.sort();
  let allow = response.decision() == Decision::Allow;
  let approval = allow
    && !ids.is_empty()
    && response
      .diagnostics()
      .reason()
      .all(|pid| set.ids.get(pid).is_some_and(|v| v.1));
  Some(CedarAnswer {
    outcome: if allow { "allow" } else { "deny" }.to_owned(),
    policies: ids,
    approval,
  })
}

/// A canonical JSON value as a Cedar value: `None` when it has no Cedar form.
fn to_cedar(value: &json::Value, hint: Option<&json::Value>) -> Option<RestrictedExpression> {
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
fn number(text: &str, hint: Option<&json::Value>) -> Option<RestrictedExpression> {
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

/// A reader of canonical JSON (RFC 8785 output) that keeps numbers as their text.
mod json {
  pub enum Value {
    Null,
    Bool(bool),
    Number(String),
    String(String),
    Array(Vec<Value>),
    Object(Vec<(String, Value)>),
  }

  pub fn parse(text: &str) -> Option<Value> {
    let mut p = Parser {
      s: text.as_bytes(),
      i: 0,
      text,
    };
    let v = p.value(0)?;
    (p.i == p.s.len()).then_some(v)
  }

  struct Parser<'a> {
    s: &'a [u8],
    i: usize,
    text: &'a str,
  }

  impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
      self.s.get(self.i).copied()
    }

    fn literal(&mut self, word: &str, v: Value) -> Option<Value> {
      if self.s[self.i..].starts_with(word.as_bytes()) {
        self.i += word.len();
        Some(v)
      } else {
        None
      }
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
      if depth > 1000 {
        return None;
      }
      match self.peek()? {
        b'n' => self.literal("null", Value::Null),
        b't' => self.literal("true", Value::Bool(true)),
        b'f' => self.literal("false", Value::Bool(false)),
        b'"' => self.string().map(Value::String),
        b'[' => {
          self.i += 1;
          let mut items = Vec::new();
          if self.peek()? == b']' {
            self.i += 1;
            return Some(Value::Array(items));
          }
          loop {
            items.push(self.value(depth + 1)?);
            match self.peek()? {
              b',' => self.i += 1,
              b']' => {
                self.i += 1;
                return Some(Value::Array(items));
              }
              _ => return None,
            }
          }
        }
        b'{' => {
          self.i += 1;
          let mut fields = Vec::new();
          if self.peek()? == b'}' {
            self.i += 1;
            return Some(Value::Object(fields));
          }
          loop {
            let key = self.string()?;
            if self.peek()? != b':' {
              return None;
            }
            self.i += 1;
            fields.push((key, self.value(depth + 1)?));
            match self.peek()? {
              b',' => self.i += 1,
              b'}' => {
                self.i += 1;
                return Some(Value::Object(fields));
              }
              _ => return None,
            }
          }
        }
        _ => {
          let start = self.i;
          while matches!(
            self.peek(),
            Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
          ) {
            self.i += 1;
          }
          (self.i > start).then(|| Value::Number(self.text[start..self.i].to_owned()))
        }
      }
    }

    fn hex4(&mut self) -> Option<u32> {
      let h = self.text.get(self.i..self.i + 4)?;
      self.i += 4;
      u32::from_str_radix(h, 16).ok()
    }

    fn string(&mut self) -> Option<String> {
      if self.peek()? != b'"' {
        return None;
      }
      self.i += 1;
      let mut out = String::new();
      loop {
        let start = self.i;
        while !matches!(self.peek()?, b'"' | b'\\') {
          self.i += 1;
        }
        out.push_str(&self.text[start..self.i]);
        let c = self.peek()?;
        self.i += 1;
        if c == b'"' {
          return Some(out);
        }
        let e = self.peek()?;
        self.i += 1;
        match e {
          b'"' => out.push('"'),
          b'\\' => out.push('\\'),
          b'/' => out.push('/'),
          b'b' => out.push('\u{8}'),
          b'f' => out.push('\u{c}'),
          b'n' => out.push('\n'),
          b'r' => out.push('\r'),
          b't' => out.push('\t'),
          b'u' => {
            let u = self.hex4()?;
            out.push(char::from_u32(u)?);
          }
          _ => return None,
        }
      }
    }
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  #[test]
  fn numbers_map_to_long_or_decimal_or_nothing() {
    assert!(number("12", None).is_some());
    assert!(number("9223372036854775808", None).is_none());
    assert!(number("1e+21", None).is_none());
    assert!(number("1.5", None).is_some());
    assert!(number("0.00001", None).is_none());
    assert!(number("1.5", Some(&json::Value::String("long".into()))).is_none());
    assert!(number(
      "922337203685478",
      Some(&json::Value::String("decimal".into()))
    )
    .is_none());
  }

  #[test]
  fn escapes_decode_and_entity_keys_stay_records() {
    let v =
      json::parse(r#"{"__entity":{"id":"x","type":"User"},"s":"a\"\u00e9"}"#).expect("parses");
    assert!(to_cedar(&v, None).is_some());
    assert!(json::parse(r#"{"a":1}x"#).is_none());
  }

  /// The decision, determining policies and erroring policies of Cedar's own authorizer on
  /// the whole set, and of `authorize` on the split one, for every action and input.
  #[test]
  fn the_split_set_decides_as_the_whole_set() {
    let text = r#"
      permit(principal, action == Action::"a", resource) when { context.input.n < 10 };
      permit(principal, action in [Action::"b", Action::"c"], resource) when { context.input.n < 5 };
      forbid(principal, action == Action::"c", resource) when { context.input.n == 3 };
      forbid(principal, action, resource) when { context.input.missing == 1 && action == Action::"d" };
      permit(principal, action in Action::"group", resource);
      permit(principal, action == Ns::Action::"a", resource);
      forbid(principal, action == Action::"b", resource) when { context.input.missing == 2 };
    "#;
    let entities = [
      None,
      Some(
        r#"[{"uid":{"type":"Action","id":"e"},"attrs":{},"parents":[{"type":"Action","id":"group"}]}]"#,
      ),
    ];
    for entities in entities {
      let compiled =
        cedar_compile(text.to_owned(), entities.map(str::to_owned), None).expect("compiles");
      let whole = PolicySet::from_str(text).expect("parses");
      for action in ["a", "b", "c", "d", "e", "group", "zz"] {
        for n in ["1", "3", "7", "12"] {
          let input = format!(r#"{{"n":{n}}}"#);
          let value = json::parse(&input).expect("json");
          let agent = compiled.agent_type.clone();
          let answer = authorize(
            &compiled,
            agent.clone(),
            "x".into(),
            action.into(),
            "x".into(),
            &value,
            None,
          )
          .expect("representable");
          let context =
            Context::from_pairs([("input".to_owned(), to_cedar(&value, None).expect("value"))])
              .expect("context");
          let uid = |t: &EntityTypeName, id: &str| {
            EntityUid::from_type_name_and_id(t.clone(), EntityId::new(id))
          };
          let request = Request::new(
            uid(&agent, "x"),
            uid(&compiled.action_type, action),
            uid(&agent, "x"),
            context,
            None,
          )
          .expect("request");
          let response = Authorizer::new().is_authorized(&request, &whole, &compiled.entities);
          let name = |pid: &PolicyId| compiled.ids[pid].0.clone();
          let mut errors: Vec<String> = response
            .diagnostics()
            .errors()
            .map(|e| match e {
              AuthorizationError::PolicyEvaluationError(e) => name(e.policy_id()),
            })
            .collect();
          errors.sort();
          let mut reasons: Vec<String> = response.diagnostics().reason().map(name).collect();
          reasons.sort();
          let mut got = answer.policies.clone();
          got.sort();
          let case = format!("action {action}, n {n}, entities {}", entities.is_some());
          if errors.is_empty() {
            let outcome = if response.decision() == Decision::Allow {
              "allow"
            } else {
              "deny"
            };
            assert_eq!(answer.outcome, outcome, "{case}");
            assert_eq!(got, reasons, "{case}");
          } else {
            assert_eq!(answer.outcome, "error", "{case}");
            assert_eq!(got, errors, "{case}");
          }
        }
      }
    }
  }
}
