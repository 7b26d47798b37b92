//! Cedar policy sets for `createCedarPolicy` (`lib/cedar/`): the N-API surface of
//! `crate::cedar`, which converts its plain results to JavaScript objects and its errors
//! to thrown ones (`InvalidArg` for an argument the call does not take, `GenericFailure`
//! otherwise), with the core's messages.

use napi::bindgen_prelude::External;
use napi::{Error, Result, Status};
use napi_derive::napi;

use crate::cedar::{self, Answer, CedarError, CedarSet, Issue};

/// One problem found while checking a policy set.
#[napi(object)]
pub struct CedarIssue {
  pub code: String,
  pub policy_id: Option<String>,
  pub message: String,
}

impl From<Issue> for CedarIssue {
  fn from(issue: Issue) -> Self {
    CedarIssue {
      code: issue.code.as_str().to_owned(),
      policy_id: issue.policy_id,
      message: issue.message,
    }
  }
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

impl From<Answer> for CedarAnswer {
  fn from(answer: Answer) -> Self {
    CedarAnswer {
      outcome: answer.outcome.as_str().to_owned(),
      policies: answer.policies,
      approval: answer.approval,
    }
  }
}

fn thrown(error: CedarError) -> Error {
  match error {
    CedarError::Invalid(message) => Error::new(Status::InvalidArg, message),
    CedarError::Internal(message) => Error::new(Status::GenericFailure, message),
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
  cedar::check(&policies, schema.as_deref(), schema_is_text)
    .into_iter()
    .map(CedarIssue::from)
    .collect()
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
  CedarSet::compile(&policies, entities.as_deref(), hints.as_deref())
    .map(External::new)
    .map_err(thrown)
}

/// The SHA-256 (hex) of the policy text a set was compiled from, as given.
#[napi]
pub fn cedar_set_hash(
  #[napi(ts_arg_type = "ExternalObject<'CedarSet'>")] set: &External<CedarSet>,
) -> String {
  set.hash().to_owned()
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
  set
    .authorize(
      &principal_type,
      &principal_id,
      &action,
      &resource_id,
      &input,
      scope.as_deref(),
    )
    .map(CedarAnswer::from)
    .map_err(thrown)
}
