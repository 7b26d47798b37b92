//! The embedded grant store's N-API surface (`crate::store`), called only by
//! `lib/stores/sqlite.js`.
//!
//! Each call queues an operation on the store's worker and returns a promise that the
//! worker settles from its thread with the operation's plain [`Outcome`], converted here.
//! A rejection's message is one of the codes of [`failure_code`], never SQLite's text.

use std::time::Duration;

use napi::bindgen_prelude::*;
use napi::sys;
use napi_derive::napi;

use crate::store::sqlite::{
  Grant, GrantKey, Receipt, ReceiptClaim, ReceiptKey, ReceiptOutcome, StoreError,
};
use crate::store::worker::{Op, Outcome, Worker};

impl ToNapiValue for Outcome {
  unsafe fn to_napi_value(env: sys::napi_env, value: Self) -> Result<sys::napi_value> {
    unsafe {
      match value {
        Outcome::Bool(flag) => bool::to_napi_value(env, flag),
        Outcome::Count(count) => f64::to_napi_value(env, count as f64),
        Outcome::Text(text) => Option::<String>::to_napi_value(env, text),
        Outcome::Texts(texts) => Vec::<String>::to_napi_value(env, texts),
        Outcome::Receipt(row) => {
          Option::<SqliteReceiptRow>::to_napi_value(env, row.map(|r| SqliteReceiptRow::from(*r)))
        }
        Outcome::Done => <()>::to_napi_value(env, ()),
      }
    }
  }
}

/// A receipt record as the store keeps it (text still encoded: the JavaScript wrapper
/// decodes it and builds the ReceiptRecord).
#[napi(object)]
pub struct SqliteReceiptRow {
  pub agent_name: String,
  pub run_id: Option<String>,
  pub tool_call_id: String,
  pub proposal_hash: String,
  pub claim_id: String,
  pub status: String,
  pub claimed_at: i64,
  pub lease_expires_at: i64,
  pub completed_at: Option<i64>,
  pub result_json: Option<String>,
  pub expires_at: i64,
}

impl From<Receipt> for SqliteReceiptRow {
  fn from(r: Receipt) -> Self {
    SqliteReceiptRow {
      agent_name: r.key.agent_name,
      run_id: r.key.run_id,
      tool_call_id: r.key.tool_call_id,
      proposal_hash: r.proposal_hash,
      claim_id: r.claim_id,
      status: r.status,
      claimed_at: r.claimed_at,
      lease_expires_at: r.lease_expires_at,
      completed_at: r.completed_at,
      result_json: r.result_json,
      expires_at: r.expires_at,
    }
  }
}

/// The rejection message of each failure: `timeout`, `closed`, `invalid_table`,
/// `sqlite_<extended result code>` or `internal`.
fn failure_code(error: &StoreError) -> String {
  match error {
    StoreError::Timeout => "timeout".into(),
    StoreError::Closed => "closed".into(),
    StoreError::InvalidTable => "invalid_table".into(),
    StoreError::Sqlite(code) => format!("sqlite_{code}"),
    StoreError::Internal => "internal".into(),
  }
}

type Resolver = Box<dyn FnOnce(Env) -> Result<Outcome>>;

/// Queues `op` and returns the promise of its outcome.
fn queue<'env>(env: &'env Env, store: &External<Worker>, op: Op) -> Result<Object<'env>> {
  let (deferred, promise) = env.create_deferred::<Outcome, Resolver>()?;
  store.submit(
    op,
    Box::new(move |result| match result {
      Ok(outcome) => deferred.resolve(Box::new(move |_| Ok(outcome))),
      Err(error) => deferred.reject(Error::new(Status::GenericFailure, failure_code(&error))),
    }),
  );
  Ok(promise)
}

fn key(
  agent_name: String,
  tool_name: String,
  proposal_hash: String,
  scope: Option<String>,
) -> GrantKey {
  GrantKey {
    agent_name,
    tool_name,
    proposal_hash,
    scope,
  }
}

/// Starts a store on the SQLite file at `path` (created when missing, with its tables).
/// Every call waits at most `timeoutMs` for its turn and for other processes' locks.
#[napi(ts_return_type = "ExternalObject<'SqliteGrantStore'>")]
pub fn sqlite_store_open(path: String, table: String, timeout_ms: u32) -> Result<External<Worker>> {
  Worker::start(path, table, Duration::from_millis(timeout_ms.into()))
    .map(External::new)
    .map_err(|_| Error::new(Status::GenericFailure, "the store's thread could not start"))
}

/// Inserts a grant record (with its nonce, when given, in the same transaction).
#[napi(ts_return_type = "Promise<boolean>")]
#[allow(clippy::too_many_arguments)]
pub fn sqlite_store_put<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  tool_name: String,
  proposal_hash: String,
  scope: Option<String>,
  args_canonical_json: String,
  expires_at: Option<f64>,
  uses: i64,
  nonce: Option<String>,
  nonce_expires_at: Option<f64>,
  now: f64,
) -> Result<Object<'env>> {
  let grant = Grant {
    key: key(agent_name, tool_name, proposal_hash, scope),
    args_canonical_json,
    expires_at,
    uses,
    nonce,
    nonce_expires_at,
  };
  queue(env, store, Op::Put(Box::new(grant), now))
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn sqlite_store_has<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  tool_name: String,
  proposal_hash: String,
  scope: Option<String>,
  now: f64,
) -> Result<Object<'env>> {
  queue(
    env,
    store,
    Op::Has(key(agent_name, tool_name, proposal_hash, scope), now),
  )
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn sqlite_store_take<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  tool_name: String,
  proposal_hash: String,
  scope: Option<String>,
  now: f64,
) -> Result<Object<'env>> {
  queue(
    env,
    store,
    Op::Take(key(agent_name, tool_name, proposal_hash, scope), now),
  )
}

#[napi(ts_return_type = "Promise<void>")]
pub fn sqlite_store_delete<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  tool_name: String,
  proposal_hash: String,
  scope: Option<String>,
) -> Result<Object<'env>> {
  queue(
    env,
    store,
    Op::Delete(key(agent_name, tool_name, proposal_hash, scope)),
  )
}

#[napi(ts_return_type = "Promise<number>")]
pub fn sqlite_store_prune<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  now: f64,
) -> Result<Object<'env>> {
  queue(env, store, Op::Prune(now))
}

#[napi(ts_return_type = "Promise<void>")]
pub fn sqlite_store_put_proposal<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  key: String,
  json: String,
  expires_at: Option<f64>,
) -> Result<Object<'env>> {
  queue(env, store, Op::PutProposal(key, json, expires_at))
}

#[napi(ts_return_type = "Promise<string | null>")]
pub fn sqlite_store_get_proposal<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  key: String,
  now: f64,
) -> Result<Object<'env>> {
  queue(env, store, Op::GetProposal(key, now))
}

#[napi(ts_return_type = "Promise<void>")]
pub fn sqlite_store_delete_proposal<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  key: String,
) -> Result<Object<'env>> {
  queue(env, store, Op::DeleteProposal(key))
}

/// Up to `limit` live kept proposals after `after`, flattened: key, JSON, key, JSON, ...
#[napi(ts_return_type = "Promise<string[]>")]
pub fn sqlite_store_list_proposals<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  after: Option<String>,
  limit: u32,
  now: f64,
) -> Result<Object<'env>> {
  queue(env, store, Op::ListProposals(after, limit, now))
}

fn receipt_key(agent_name: String, run_id: Option<String>, tool_call_id: String) -> ReceiptKey {
  ReceiptKey {
    agent_name,
    run_id,
    tool_call_id,
  }
}

/// Claims a receipt key: resolves null when claimed, else the stored record.
#[napi(ts_return_type = "Promise<SqliteReceiptRow | null>")]
#[allow(clippy::too_many_arguments)]
pub fn sqlite_store_claim_receipt<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  run_id: Option<String>,
  tool_call_id: String,
  proposal_hash: String,
  claim_id: String,
  claimed_at: i64,
  lease_expires_at: i64,
  expires_at: i64,
  now: i64,
) -> Result<Object<'env>> {
  let claim = ReceiptClaim {
    key: receipt_key(agent_name, run_id, tool_call_id),
    proposal_hash,
    claim_id,
    claimed_at,
    lease_expires_at,
    expires_at,
  };
  queue(env, store, Op::ClaimReceipt(Box::new(claim), now))
}

/// Records a claimed run's outcome (only `in_progress` under the same claim id).
#[napi(ts_return_type = "Promise<boolean>")]
#[allow(clippy::too_many_arguments)]
pub fn sqlite_store_complete_receipt<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  run_id: Option<String>,
  tool_call_id: String,
  claim_id: String,
  status: String,
  completed_at: i64,
  result_json: Option<String>,
  expires_at: i64,
) -> Result<Object<'env>> {
  if status != "completed" && status != "failed" {
    return Err(Error::new(
      Status::InvalidArg,
      "status must be completed or failed",
    ));
  }
  let outcome = ReceiptOutcome {
    key: receipt_key(agent_name, run_id, tool_call_id),
    claim_id,
    status,
    completed_at,
    result_json,
    expires_at,
  };
  queue(env, store, Op::CompleteReceipt(Box::new(outcome)))
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn sqlite_store_release_receipt<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  run_id: Option<String>,
  tool_call_id: String,
  claim_id: String,
) -> Result<Object<'env>> {
  queue(
    env,
    store,
    Op::ReleaseReceipt(receipt_key(agent_name, run_id, tool_call_id), claim_id),
  )
}

#[napi(ts_return_type = "Promise<SqliteReceiptRow | null>")]
pub fn sqlite_store_get_receipt<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  run_id: Option<String>,
  tool_call_id: String,
  now: i64,
) -> Result<Object<'env>> {
  queue(
    env,
    store,
    Op::GetReceipt(receipt_key(agent_name, run_id, tool_call_id), now),
  )
}

#[napi(ts_return_type = "Promise<boolean>")]
pub fn sqlite_store_delete_receipt<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  agent_name: String,
  run_id: Option<String>,
  tool_call_id: String,
) -> Result<Object<'env>> {
  queue(
    env,
    store,
    Op::DeleteReceipt(receipt_key(agent_name, run_id, tool_call_id)),
  )
}

#[napi(ts_return_type = "Promise<number>")]
pub fn sqlite_store_prune_receipts<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
  now: i64,
) -> Result<Object<'env>> {
  queue(env, store, Op::PruneReceipts(now))
}

/// Closes the store once the calls queued before are done; later calls reject `closed`.
#[napi(ts_return_type = "Promise<void>")]
pub fn sqlite_store_close<'env>(
  env: &'env Env,
  #[napi(ts_arg_type = "ExternalObject<'SqliteGrantStore'>")] store: &External<Worker>,
) -> Result<Object<'env>> {
  let (deferred, promise) = env.create_deferred::<Outcome, Resolver>()?;
  store.close(Box::new(move |result| match result {
    Ok(outcome) => deferred.resolve(Box::new(move |_| Ok(outcome))),
    Err(error) => deferred.reject(Error::new(Status::GenericFailure, failure_code(&error))),
  }));
  Ok(promise)
}
