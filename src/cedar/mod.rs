//! Cedar policy sets for `createCedarPolicy` (lib/cedar/): parsing, strict validation
//! against a schema, and authorization of one tool call whose context is built
//! structurally from the snapshot's canonical JSON (never through Cedar's JSON entity
//! format, so an argument key `__entity` or `__extn` stays a plain record attribute).
//!
//! Messages name policy ids and Cedar's diagnostics about the policy text; they never
//! carry an argument value. Plain Rust: `crate::binding::cedar` is its N-API surface.

use std::collections::HashMap;
use std::str::FromStr;

use cedar_policy::{
  AuthorizationError, Authorizer, Context, Decision, Entities, EntityId, EntityTypeName, EntityUid,
  PolicyId, PolicySet, Request, RestrictedExpression, Schema, ValidationMode, Validator,
};

mod hints;
mod json;
#[cfg(test)]
mod tests;
mod values;

use values::to_cedar;

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
/// groups, an action of another entity type) is in every set. An action no policy names
/// gets `other`. Only policies false by their scope are left out, so the decision, its
/// determining policies and its errors are those of the whole set; Cedar no longer builds
/// and evaluates each of the others (about 1.5 us a policy).
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

/// What kind of problem a [`Issue`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IssueCode {
  /// The policy text does not parse.
  ParseError,
  /// Two policies carry the same public id.
  DuplicatePolicyId,
  /// The schema does not parse.
  SchemaError,
  /// A policy fails strict validation against the schema.
  ValidationError,
}

impl IssueCode {
  /// The code's public name.
  pub fn as_str(self) -> &'static str {
    match self {
      IssueCode::ParseError => "parse_error",
      IssueCode::DuplicatePolicyId => "duplicate_policy_id",
      IssueCode::SchemaError => "schema_error",
      IssueCode::ValidationError => "validation_error",
    }
  }
}

/// One problem found while checking a policy set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
  pub code: IssueCode,
  pub policy_id: Option<String>,
  pub message: String,
}

/// How one authorization ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
  Allow,
  Deny,
  /// An evaluation error: the caller denies.
  Error,
  /// The arguments have no Cedar form.
  Unrepresentable,
}

impl Outcome {
  /// The outcome's public name: `allow`, `deny`, `error` or `unrepresentable`.
  pub fn as_str(self) -> &'static str {
    match self {
      Outcome::Allow => "allow",
      Outcome::Deny => "deny",
      Outcome::Error => "error",
      Outcome::Unrepresentable => "unrepresentable",
    }
  }
}

/// The answer of one authorization.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
  pub outcome: Outcome,
  /// The determining policies' public ids (for `Error`, the erroring ones).
  pub policies: Vec<String>,
  /// Whether every determining policy of an allow carries `@approval("required")`.
  pub approval: bool,
}

/// Why a set was not compiled or a call not authorized. The messages name no argument
/// value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CedarError {
  /// An argument is not what the call takes.
  #[error("{0}")]
  Invalid(String),
  /// Cedar refused a name or a set built here from a set it had parsed.
  #[error("{0}")]
  Internal(String),
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

fn issue(code: IssueCode, policy_id: Option<String>, message: String) -> Issue {
  Issue {
    code,
    policy_id,
    message,
  }
}

fn parse_schema(schema: &str, text: bool) -> Result<Schema, String> {
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
pub fn check(policies: &str, schema: Option<&str>, schema_is_text: bool) -> Vec<Issue> {
  let set = match PolicySet::from_str(policies) {
    Ok(set) => set,
    Err(e) => {
      return e
        .iter()
        .map(|d| issue(IssueCode::ParseError, None, d.to_string()))
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
        IssueCode::DuplicatePolicyId,
        Some(id.to_owned()),
        format!("two policies carry the id `{id}`"),
      ));
    }
  }
  if !issues.is_empty() {
    return issues;
  }
  if let Some(schema) = schema {
    let schema = match parse_schema(schema, schema_is_text) {
      Ok(s) => s,
      Err(message) => return vec![issue(IssueCode::SchemaError, None, message)],
    };
    let result = Validator::new(schema).validate(&set, ValidationMode::Strict);
    for e in result.validation_errors() {
      let internal = e.policy_id().to_string();
      let id = ids
        .get(e.policy_id())
        .map_or_else(|| internal.clone(), |v| v.0.clone());
      // Cedar names the policy by the parser's number (`policy0`); the message names its public id.
      let mut message = e.to_string();
      let prefix = format!("for policy `{internal}`");
      message = if message.contains(&prefix) {
        message.replacen(&prefix, &format!("for policy `{id}`"), 1)
      } else {
        // Some of Cedar's messages (incompatible types) name no policy.
        format!("for policy `{id}`, {message}")
      };
      // A decimal compared as a Long (a JSON Schema `number`): what to write instead.
      if let Some(hint) = hints::type_hint(e, policies) {
        message = format!("{message}; {hint}");
      }
      issues.push(issue(IssueCode::ValidationError, Some(id), message));
    }
  }
  issues
}

/// Splits a policy set by the actions each policy names (see [`CedarSet`]). `action in [...]`
/// names its actions only when no entity is an action (then no action has an ancestor
/// and `in` is equality with one of them).
fn split_by_action(
  set: &PolicySet,
  action_type: &EntityTypeName,
  flat_actions: bool,
) -> Result<(HashMap<String, ActionSet>, PolicySet), String> {
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

impl CedarSet {
  /// A checked policy set (see [`check`]) with its entities (Cedar's JSON entity format)
  /// and the number hints of its tools (a JSON object from tool name to hint, see
  /// [`CedarSet::authorize`]).
  pub fn compile(
    policies: &str,
    entities: Option<&str>,
    hints: Option<&str>,
  ) -> Result<CedarSet, CedarError> {
    use sha2::{Digest, Sha256};
    let set = PolicySet::from_str(policies)
      .map_err(|_| CedarError::Invalid("the policies do not parse".to_owned()))?;
    let entities = match entities {
      Some(json) => Entities::from_json_str(json, None).map_err(|e| {
        CedarError::Invalid(format!("the entities are not valid Cedar entities: {e}"))
      })?,
      None => Entities::empty(),
    };
    let hints = match hints {
      Some(text) => match json::parse(text) {
        Some(json::Value::Object(fields)) => fields.into_iter().collect(),
        _ => {
          return Err(CedarError::Invalid(
            "the number hints are not a JSON object".to_owned(),
          ))
        }
      },
      None => HashMap::new(),
    };
    let type_name =
      |name: &str| EntityTypeName::from_str(name).map_err(|e| CedarError::Internal(e.to_string()));
    let agent_type = type_name("Agent")?;
    let action_type = type_name("Action")?;
    let flat_actions = !entities.iter().any(|e| e.uid().type_name() == &action_type);
    let (actions, other) =
      split_by_action(&set, &action_type, flat_actions).map_err(CedarError::Internal)?;
    let hash = Sha256::digest(policies.as_bytes())
      .iter()
      .map(|b| format!("{b:02x}"))
      .collect();
    let ids = public_ids(&set);
    Ok(CedarSet {
      actions,
      other,
      entities,
      ids,
      authorizer: Authorizer::new(),
      hints,
      agent_type,
      action_type,
      hash,
    })
  }

  /// The SHA-256 (hex) of the policy text the set was compiled from, as given.
  pub fn hash(&self) -> &str {
    &self.hash
  }

  /// Authorizes one call. `input` is the snapshot's canonical JSON; the number types come
  /// from the hint the set was compiled with for the action (the tool): `"long"`,
  /// `"decimal"`, an object of attribute hints, or a one-element array for set elements.
  /// The resource is `Agent::"<resource_id>"`.
  pub fn authorize(
    &self,
    principal_type: &str,
    principal_id: &str,
    action: &str,
    resource_id: &str,
    input: &str,
    scope: Option<&str>,
  ) -> Result<Answer, CedarError> {
    let value = json::parse(input)
      .ok_or_else(|| CedarError::Invalid("the arguments are not canonical JSON".to_owned()))?;
    let principal_type = if principal_type == "Agent" {
      self.agent_type.clone()
    } else {
      EntityTypeName::from_str(principal_type).map_err(|_| {
        CedarError::Invalid("the principal type is not a Cedar entity type name".to_owned())
      })?
    };
    Ok(
      authorize(
        self,
        principal_type,
        principal_id,
        action,
        resource_id,
        &value,
        scope,
      )
      .unwrap_or_else(|| Answer {
        outcome: Outcome::Unrepresentable,
        policies: Vec::new(),
        approval: false,
      }),
    )
  }
}

/// One authorization: `None` when the arguments have no Cedar form.
fn authorize(
  set: &CedarSet,
  principal_type: EntityTypeName,
  principal_id: &str,
  action: &str,
  resource_id: &str,
  value: &json::Value,
  scope: Option<&str>,
) -> Option<Answer> {
  let input = to_cedar(value, set.hints.get(action))?;
  let context = match scope {
    Some(scope) => Context::from_pairs([
      ("input".to_owned(), input),
      (
        "scope".to_owned(),
        RestrictedExpression::new_string(scope.to_owned()),
      ),
    ]),
    None => Context::from_pairs([("input".to_owned(), input)]),
  }
  .ok()?;
  let principal = EntityUid::from_type_name_and_id(principal_type, EntityId::new(principal_id));
  let resource =
    EntityUid::from_type_name_and_id(set.agent_type.clone(), EntityId::new(resource_id));
  let (action, policies) = match set.actions.get(action) {
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
    return Some(Answer {
      outcome: Outcome::Error,
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
  Some(Answer {
    outcome: if allow { Outcome::Allow } else { Outcome::Deny },
    policies: ids,
    approval,
  })
}
