//! The grant store's tables and statements in one SQLite file (no N-API here).
//!
//! Every process on a host that opens the same file shares the grants: SQLite's file locks
//! make each operation atomic across processes. Writes run in `BEGIN IMMEDIATE`
//! transactions (the write lock is taken first, so a busy database waits in the busy
//! handler instead of failing a read that turned into a write), reads are single
//! statements, and the journal is a WAL synced at every commit (`synchronous=FULL`): a
//! spent use stays spent through a power loss, so a crash never gives a use back.
//!
//! Expiry compares with the `now` each call is given (the grants' clock), never SQLite's.

use std::time::Duration;

use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};

/// The longest table name: every derived name (`<table>_proposals_expires`) stays within
/// the 63 bytes PostgreSQL keeps, so one name works for both SQL stores.
pub const MAX_TABLE_NAME: usize = 41;

/// Why an operation failed. No variant carries a key, a value or SQLite's message text
/// (which can quote SQL); `Sqlite` carries SQLite's numeric (extended) result code only.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
  /// The deadline passed before the operation could start, or the database stayed locked
  /// by another connection until it did.
  #[error("timeout")]
  Timeout,
  /// `close()` was called.
  #[error("closed")]
  Closed,
  /// The table name is not an SQL identifier of at most [`MAX_TABLE_NAME`] characters.
  #[error("invalid table name")]
  InvalidTable,
  /// SQLite failed with this extended result code.
  #[error("sqlite error {0}")]
  Sqlite(i32),
  /// Anything else (a row that does not have the expected shape).
  #[error("internal error")]
  Internal,
}

impl From<rusqlite::Error> for StoreError {
  fn from(error: rusqlite::Error) -> Self {
    match error {
      rusqlite::Error::SqliteFailure(failure, _) => match failure.code {
        ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked => StoreError::Timeout,
        _ => StoreError::Sqlite(failure.extended_code),
      },
      _ => StoreError::Internal,
    }
  }
}

type Result<T> = std::result::Result<T, StoreError>;

/// The store key of a grant: `scope: None` is its own key, distinct from every string.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantKey {
  pub agent_name: String,
  pub tool_name: String,
  pub proposal_hash: String,
  pub scope: Option<String>,
}

/// A grant record as `put` receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Grant {
  pub key: GrantKey,
  pub args_canonical_json: String,
  /// Milliseconds since the epoch on the grants' clock; `None` never expires.
  pub expires_at: Option<f64>,
  pub uses: i64,
  pub nonce: Option<String>,
  pub nonce_expires_at: Option<f64>,
}

/// The key of an execution receipt: `run_id: None` is its own key, distinct from every
/// string (stored as `run_key`: `-` for none, `+` and the id otherwise).
#[derive(Debug, Clone, PartialEq)]
pub struct ReceiptKey {
  pub agent_name: String,
  pub run_id: Option<String>,
  pub tool_call_id: String,
}

impl ReceiptKey {
  fn run_key(&self) -> String {
    match &self.run_id {
      None => "-".into(),
      Some(id) => format!("+{id}"),
    }
  }
}

/// A claim as `claim_receipt` receives it (times in ms on the receipts' clock).
#[derive(Debug, Clone, PartialEq)]
pub struct ReceiptClaim {
  pub key: ReceiptKey,
  pub proposal_hash: String,
  pub claim_id: String,
  pub claimed_at: i64,
  pub lease_expires_at: i64,
  pub expires_at: i64,
}

/// An outcome as `complete_receipt` receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceiptOutcome {
  pub key: ReceiptKey,
  pub claim_id: String,
  /// `completed` or `failed`.
  pub status: String,
  pub completed_at: i64,
  pub result_json: Option<String>,
  pub expires_at: i64,
}

/// A stored receipt record.
#[derive(Debug, Clone, PartialEq)]
pub struct Receipt {
  pub key: ReceiptKey,
  pub proposal_hash: String,
  pub claim_id: String,
  pub status: String,
  pub claimed_at: i64,
  pub lease_expires_at: i64,
  pub completed_at: Option<i64>,
  pub result_json: Option<String>,
  pub expires_at: i64,
}

/// Whether `name` is a table name the store accepts: `[A-Za-z_][A-Za-z0-9_]*`, at most
/// [`MAX_TABLE_NAME`] characters. It is spliced into SQL (quoted), so nothing else passes.
pub fn is_table_name(name: &str) -> bool {
  let bytes = name.as_bytes();
  !bytes.is_empty()
    && bytes.len() <= MAX_TABLE_NAME
    && (bytes[0].is_ascii_alphabetic() || bytes[0] == b'_')
    && bytes
      .iter()
      .all(|&b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The schema and every statement, for one table name.
struct Sql {
  ddl: String,
  nonce_claim: String,
  insert: String,
  has: String,
  sweep_key: String,
  pick: String,
  spend_last: String,
  spend_one: String,
  delete: String,
  prune_grants: String,
  prune_nonces: String,
  prune_proposals: String,
  put_proposal: String,
  get_proposal: String,
  delete_proposal: String,
  list_proposals_first: String,
  list_proposals_after: String,
  receipt_get: String,
  receipt_put: String,
  receipt_complete: String,
  receipt_release: String,
  receipt_delete: String,
  receipt_prune: String,
}

/// `?1`..`?3` are a receipt's key.
const RKEY: &str = "agent_name = ?1 AND run_key = ?2 AND tool_call_id = ?3";

/// `?1`..`?4` are the key; `scope IS ?4` makes a null scope equal only to null.
const KEY: &str = "proposal_hash = ?1 AND agent_name = ?2 AND tool_name = ?3 AND scope IS ?4";
/// A record that can be used at time `?5`.
const LIVE: &str = "uses > 0 AND (expires_at IS NULL OR expires_at > ?5)";

impl Sql {
  fn new(table: &str) -> Sql {
    let g = format!("\"{table}\"");
    let n = format!("\"{table}_nonces\"");
    let p = format!("\"{table}_proposals\"");
    let r = format!("\"{table}_receipts\"");
    Sql {
      ddl: schema(table),
      // Records the nonce unless a live record of it exists (an expired one is renewed);
      // `changes()` tells which happened.
      nonce_claim: format!(
        "INSERT INTO {n} (nonce, expires_at) VALUES (?1, ?2) ON CONFLICT (nonce) DO UPDATE \
         SET expires_at = excluded.expires_at WHERE expires_at IS NOT NULL AND expires_at <= ?3"
      ),
      insert: format!(
        "INSERT INTO {g} (proposal_hash, agent_name, tool_name, scope, args_canonical_json, \
         expires_at, uses) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
      ),
      has: format!("SELECT EXISTS (SELECT 1 FROM {g} WHERE {KEY} AND {LIVE})"),
      sweep_key: format!("DELETE FROM {g} WHERE {KEY} AND NOT ({LIVE})"),
      // The live record that expires first (never-expiring ones last, then the oldest).
      pick: format!(
        "SELECT id, uses FROM {g} WHERE {KEY} AND {LIVE} \
         ORDER BY expires_at IS NULL, expires_at, id LIMIT 1"
      ),
      spend_last: format!("DELETE FROM {g} WHERE id = ?1"),
      spend_one: format!("UPDATE {g} SET uses = uses - 1 WHERE id = ?1"),
      delete: format!("DELETE FROM {g} WHERE {KEY}"),
      prune_grants: format!("DELETE FROM {g} WHERE uses <= 0 OR expires_at <= ?1"),
      prune_nonces: format!("DELETE FROM {n} WHERE expires_at <= ?1"),
      prune_proposals: format!("DELETE FROM {p} WHERE expires_at <= ?1"),
      put_proposal: format!(
        "INSERT INTO {p} (proposal_key, json, expires_at) VALUES (?1, ?2, ?3) ON CONFLICT \
         (proposal_key) DO UPDATE SET json = excluded.json, expires_at = excluded.expires_at"
      ),
      get_proposal: format!(
        "SELECT json FROM {p} WHERE proposal_key = ?1 AND (expires_at IS NULL OR expires_at > ?2)"
      ),
      delete_proposal: format!("DELETE FROM {p} WHERE proposal_key = ?1"),
      // A page of live kept proposals in key order (the primary key's index), one row
      // more than asked so the caller knows whether another page follows.
      list_proposals_first: format!(
        "SELECT proposal_key, json FROM {p} WHERE (expires_at IS NULL OR expires_at > ?1) \
         ORDER BY proposal_key LIMIT ?2"
      ),
      list_proposals_after: format!(
        "SELECT proposal_key, json FROM {p} WHERE proposal_key > ?3 AND \
         (expires_at IS NULL OR expires_at > ?1) ORDER BY proposal_key LIMIT ?2"
      ),
      receipt_get: format!(
        "SELECT proposal_hash, claim_id, status, claimed_at, lease_expires_at, completed_at, \
         result_json, expires_at FROM {r} WHERE {RKEY}"
      ),
      // Inserts a claim, or replaces an outcome past its retention (the claim's transaction
      // read it first).
      receipt_put: format!(
        "INSERT OR REPLACE INTO {r} (agent_name, run_key, tool_call_id, proposal_hash, \
         claim_id, status, claimed_at, lease_expires_at, completed_at, result_json, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, 'in_progress', ?6, ?7, NULL, NULL, ?8)"
      ),
      receipt_complete: format!(
        "UPDATE {r} SET status = ?5, completed_at = ?6, result_json = ?7, expires_at = ?8 \
         WHERE {RKEY} AND claim_id = ?4 AND status = 'in_progress'"
      ),
      receipt_release: format!(
        "DELETE FROM {r} WHERE {RKEY} AND claim_id = ?4 AND status = 'in_progress'"
      ),
      receipt_delete: format!("DELETE FROM {r} WHERE {RKEY}"),
      // An unfinished claim (in_progress) is kept whatever its retention says.
      receipt_prune: format!("DELETE FROM {r} WHERE expires_at <= ?1 AND status <> 'in_progress'"),
    }
  }
}

/// The tables and indexes the store creates (`IF NOT EXISTS`: every opener runs it).
pub fn schema(table: &str) -> String {
  format!(
    "CREATE TABLE IF NOT EXISTS \"{table}\" (
  id INTEGER PRIMARY KEY,
  agent_name TEXT NOT NULL,
  tool_name TEXT NOT NULL,
  proposal_hash TEXT NOT NULL,
  scope TEXT,
  args_canonical_json TEXT NOT NULL,
  expires_at REAL,
  uses INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS \"{table}_key\" ON \"{table}\" (proposal_hash);
CREATE INDEX IF NOT EXISTS \"{table}_expires\" ON \"{table}\" (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS \"{table}_nonces\" (
  nonce TEXT PRIMARY KEY NOT NULL,
  expires_at REAL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS \"{table}_nonces_expires\" ON \"{table}_nonces\" (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS \"{table}_proposals\" (
  proposal_key TEXT PRIMARY KEY NOT NULL,
  json TEXT NOT NULL,
  expires_at REAL
);
CREATE INDEX IF NOT EXISTS \"{table}_proposals_expires\" ON \"{table}_proposals\" (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS \"{table}_receipts\" (
  agent_name TEXT NOT NULL,
  run_key TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  proposal_hash TEXT NOT NULL,
  claim_id TEXT NOT NULL,
  status TEXT NOT NULL,
  claimed_at INTEGER NOT NULL,
  lease_expires_at INTEGER NOT NULL,
  completed_at INTEGER,
  result_json TEXT,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (agent_name, run_key, tool_call_id)
);
CREATE INDEX IF NOT EXISTS \"{table}_receipts_expires\" ON \"{table}_receipts\" (expires_at);
"
  )
}

/// Whether a stored receipt is kept at `now`: an unfinished claim (`in_progress`) always,
/// whatever its retention says (until it is deleted); an outcome until its retention.
fn kept(receipt: &Receipt, now: i64) -> bool {
  receipt.status == "in_progress" || now < receipt.expires_at
}

/// One connection to the store's file.
pub struct SqliteGrantStore {
  conn: Connection,
  sql: Sql,
}

/// SQLite's extended result code for a path it refuses as a symbolic link
/// (SQLITE_CANTOPEN_SYMLINK).
const CANTOPEN_SYMLINK: i32 = 14 | (6 << 8);

/// Creates the database file readable by its owner only, when it does not exist yet: it
/// holds approved arguments. SQLite gives its `-wal` and `-shm` files the same mode.
/// A path that is a symbolic link to nothing is refused: the owner-only create does not
/// follow it, SQLite would, and create the target with the process's umask.
#[cfg(unix)]
fn create_private(path: &str) -> Result<()> {
  use std::os::unix::fs::OpenOptionsExt;
  if path.is_empty() || path == ":memory:" {
    return Ok(());
  }
  // AlreadyExists (another process was first) and every other failure are left to
  // SQLite's own open, which reports them.
  let created = std::fs::OpenOptions::new()
    .write(true)
    .create_new(true)
    .mode(0o600)
    .open(path);
  if created.is_err() {
    let link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if link && std::fs::metadata(path).is_err() {
      return Err(StoreError::Sqlite(CANTOPEN_SYMLINK));
    }
  }
  Ok(())
}

#[cfg(not(unix))]
fn create_private(_path: &str) -> Result<()> {
  Ok(())
}

impl SqliteGrantStore {
  /// Opens (creating when missing) the file at `path` and the store's tables in it.
  /// `busy` is how long a call waits for another connection's lock.
  pub fn open(path: &str, table: &str, busy: Duration) -> Result<SqliteGrantStore> {
    // SQLite compares table names without ASCII case: only lower-case ones are taken, so
    // two stores' tables never fold into one.
    if !is_table_name(table) || table.bytes().any(|b| b.is_ascii_uppercase()) {
      return Err(StoreError::InvalidTable);
    }
    create_private(path)?;
    let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
      | OpenFlags::SQLITE_OPEN_CREATE
      | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(busy)?;
    // WAL: readers never wait for the writer. The mode is kept in the file, so only the
    // first opener converts it (an in-memory database answers "memory").
    let _mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
    conn.execute_batch("PRAGMA synchronous = FULL")?;
    let sql = Sql::new(table);
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(&sql.ddl)?;
    tx.commit()?;
    Ok(SqliteGrantStore { conn, sql })
  }

  /// How long the next calls wait for another connection's lock.
  pub fn set_busy_timeout(&self, busy: Duration) -> Result<()> {
    Ok(self.conn.busy_timeout(busy)?)
  }

  /// Inserts the grant; with a nonce, only when no live record of that nonce exists (then
  /// the nonce is recorded in the same transaction). Returns whether it was stored.
  pub fn put(&mut self, grant: &Grant, now: f64) -> Result<bool> {
    let tx = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate)?;
    if let Some(nonce) = &grant.nonce {
      let claimed = tx.prepare_cached(&self.sql.nonce_claim)?.execute(params![
        nonce,
        grant.nonce_expires_at,
        now
      ])?;
      if claimed == 0 {
        return Ok(false);
      }
    }
    let key = &grant.key;
    tx.prepare_cached(&self.sql.insert)?.execute(params![
      key.proposal_hash,
      key.agent_name,
      key.tool_name,
      key.scope,
      grant.args_canonical_json,
      grant.expires_at,
      grant.uses
    ])?;
    tx.commit()?;
    Ok(true)
  }

  /// Whether a live record of the key exists at `now`.
  pub fn has(&self, key: &GrantKey, now: f64) -> Result<bool> {
    let found: i64 = self.conn.prepare_cached(&self.sql.has)?.query_row(
      params![
        key.proposal_hash,
        key.agent_name,
        key.tool_name,
        key.scope,
        now
      ],
      |row| row.get(0),
    )?;
    Ok(found != 0)
  }

  /// Takes one use of the live record of the key that expires first; removes it when that
  /// was its last use, and removes the key's expired records on the way.
  pub fn take(&mut self, key: &GrantKey, now: f64) -> Result<bool> {
    let tx = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let args = params![
      key.proposal_hash,
      key.agent_name,
      key.tool_name,
      key.scope,
      now
    ];
    tx.prepare_cached(&self.sql.sweep_key)?.execute(args)?;
    let picked: Option<(i64, i64)> = tx
      .prepare_cached(&self.sql.pick)?
      .query_row(args, |row| Ok((row.get(0)?, row.get(1)?)))
      .optional()?;
    let Some((id, uses)) = picked else {
      tx.commit()?;
      return Ok(false);
    };
    let spend = if uses <= 1 {
      &self.sql.spend_last
    } else {
      &self.sql.spend_one
    };
    tx.prepare_cached(spend)?.execute([id])?;
    tx.commit()?;
    Ok(true)
  }

  /// Removes every record of the key (revoke).
  pub fn delete(&self, key: &GrantKey) -> Result<()> {
    self
      .conn
      .prepare_cached(&self.sql.delete)?
      .execute(params![
        key.proposal_hash,
        key.agent_name,
        key.tool_name,
        key.scope
      ])?;
    Ok(())
  }

  /// Removes expired and used-up grants, expired nonces and expired proposals; returns how
  /// many rows went.
  pub fn prune(&mut self, now: f64) -> Result<u64> {
    let tx = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let mut removed = 0;
    for sql in [
      &self.sql.prune_grants,
      &self.sql.prune_nonces,
      &self.sql.prune_proposals,
    ] {
      removed += tx.prepare_cached(sql)?.execute([now])? as u64;
    }
    tx.commit()?;
    Ok(removed)
  }

  /// Keeps `json` under `key` until `expires_at` (overwrites).
  pub fn put_proposal(&self, key: &str, json: &str, expires_at: Option<f64>) -> Result<()> {
    self
      .conn
      .prepare_cached(&self.sql.put_proposal)?
      .execute(params![key, json, expires_at])?;
    Ok(())
  }

  /// The kept proposal under `key`, unless it is missing or expired at `now`.
  pub fn get_proposal(&self, key: &str, now: f64) -> Result<Option<String>> {
    Ok(
      self
        .conn
        .prepare_cached(&self.sql.get_proposal)?
        .query_row(params![key, now], |row| row.get(0))
        .optional()?,
    )
  }

  /// Up to `limit` live kept proposals (key, JSON) after the key `after` (from the first
  /// when `None`), in key order (SQLite's binary order of the stored text).
  pub fn list_proposals(
    &self,
    after: Option<&str>,
    limit: u32,
    now: f64,
  ) -> Result<Vec<(String, String)>> {
    let map = |row: &rusqlite::Row<'_>| Ok((row.get(0)?, row.get(1)?));
    let rows = match after {
      None => self
        .conn
        .prepare_cached(&self.sql.list_proposals_first)?
        .query_map(params![now, limit], map)?
        .collect::<rusqlite::Result<Vec<_>>>()?,
      Some(key) => self
        .conn
        .prepare_cached(&self.sql.list_proposals_after)?
        .query_map(params![now, limit, key], map)?
        .collect::<rusqlite::Result<Vec<_>>>()?,
    };
    Ok(rows)
  }

  pub fn delete_proposal(&self, key: &str) -> Result<()> {
    self
      .conn
      .prepare_cached(&self.sql.delete_proposal)?
      .execute([key])?;
    Ok(())
  }

  fn read_receipt(
    conn: &Connection,
    sql: &str,
    key: &ReceiptKey,
    run_key: &str,
  ) -> Result<Option<Receipt>> {
    Ok(
      conn
        .prepare_cached(sql)?
        .query_row(params![key.agent_name, run_key, key.tool_call_id], |row| {
          Ok(Receipt {
            key: key.clone(),
            proposal_hash: row.get(0)?,
            claim_id: row.get(1)?,
            status: row.get(2)?,
            claimed_at: row.get(3)?,
            lease_expires_at: row.get(4)?,
            completed_at: row.get(5)?,
            result_json: row.get(6)?,
            expires_at: row.get(7)?,
          })
        })
        .optional()?,
    )
  }

  /// Claims the key in one transaction: stores the claim (`None`) when the key has no
  /// record or only an outcome past its retention at `now`; otherwise answers the record
  /// (an unfinished claim, `in_progress`, whatever its retention says).
  pub fn claim_receipt(&mut self, claim: &ReceiptClaim, now: i64) -> Result<Option<Receipt>> {
    let tx = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let key = &claim.key;
    let run_key = key.run_key();
    if let Some(existing) = Self::read_receipt(&tx, &self.sql.receipt_get, key, &run_key)? {
      if kept(&existing, now) {
        tx.commit()?;
        return Ok(Some(existing));
      }
    }
    tx.prepare_cached(&self.sql.receipt_put)?.execute(params![
      key.agent_name,
      run_key,
      key.tool_call_id,
      claim.proposal_hash,
      claim.claim_id,
      claim.claimed_at,
      claim.lease_expires_at,
      claim.expires_at
    ])?;
    tx.commit()?;
    Ok(None)
  }

  /// Claims the receipt and takes one use of the grant `grant` in one transaction: the
  /// record that refuses the claim (nothing stored, no use taken), `(None, false)` when no
  /// live grant is left (nothing claimed), or `(None, true)`: claimed and one use taken.
  pub fn claim_receipt_and_take(
    &mut self,
    claim: &ReceiptClaim,
    now: i64,
    grant: &GrantKey,
    grant_now: f64,
  ) -> Result<(Option<Receipt>, bool)> {
    let tx = self
      .conn
      .transaction_with_behavior(TransactionBehavior::Immediate)?;
    let key = &claim.key;
    let run_key = key.run_key();
    if let Some(existing) = Self::read_receipt(&tx, &self.sql.receipt_get, key, &run_key)? {
      if kept(&existing, now) {
        tx.commit()?;
        return Ok((Some(existing), false));
      }
    }
    let args = params![
      grant.proposal_hash,
      grant.agent_name,
      grant.tool_name,
      grant.scope,
      grant_now
    ];
    tx.prepare_cached(&self.sql.sweep_key)?.execute(args)?;
    let picked: Option<(i64, i64)> = tx
      .prepare_cached(&self.sql.pick)?
      .query_row(args, |row| Ok((row.get(0)?, row.get(1)?)))
      .optional()?;
    let Some((id, uses)) = picked else {
      tx.commit()?;
      return Ok((None, false));
    };
    let spend = if uses <= 1 {
      &self.sql.spend_last
    } else {
      &self.sql.spend_one
    };
    tx.prepare_cached(spend)?.execute([id])?;
    tx.prepare_cached(&self.sql.receipt_put)?.execute(params![
      key.agent_name,
      run_key,
      key.tool_call_id,
      claim.proposal_hash,
      claim.claim_id,
      claim.claimed_at,
      claim.lease_expires_at,
      claim.expires_at
    ])?;
    tx.commit()?;
    Ok((None, true))
  }

  /// Records the outcome when the key's record is `in_progress` under the same claim id.
  pub fn complete_receipt(&mut self, outcome: &ReceiptOutcome) -> Result<bool> {
    let key = &outcome.key;
    let changed = self
      .conn
      .prepare_cached(&self.sql.receipt_complete)?
      .execute(params![
        key.agent_name,
        key.run_key(),
        key.tool_call_id,
        outcome.claim_id,
        outcome.status,
        outcome.completed_at,
        outcome.result_json,
        outcome.expires_at
      ])?;
    Ok(changed > 0)
  }

  /// Deletes the key's record when it is `in_progress` under `claim_id`.
  pub fn release_receipt(&mut self, key: &ReceiptKey, claim_id: &str) -> Result<bool> {
    let changed = self
      .conn
      .prepare_cached(&self.sql.receipt_release)?
      .execute(params![
        key.agent_name,
        key.run_key(),
        key.tool_call_id,
        claim_id
      ])?;
    Ok(changed > 0)
  }

  /// The key's record unless it is missing or an outcome past its retention at `now`.
  pub fn get_receipt(&self, key: &ReceiptKey, now: i64) -> Result<Option<Receipt>> {
    let found = Self::read_receipt(&self.conn, &self.sql.receipt_get, key, &key.run_key())?;
    Ok(found.filter(|r| kept(r, now)))
  }

  /// Deletes whatever record the key has.
  pub fn delete_receipt(&mut self, key: &ReceiptKey) -> Result<bool> {
    let changed = self
      .conn
      .prepare_cached(&self.sql.receipt_delete)?
      .execute(params![key.agent_name, key.run_key(), key.tool_call_id])?;
    Ok(changed > 0)
  }

  /// Deletes every outcome at or past its retention (never an unfinished claim); returns
  /// how many.
  pub fn prune_receipts(&mut self, now: i64) -> Result<u64> {
    Ok(
      self
        .conn
        .prepare_cached(&self.sql.receipt_prune)?
        .execute([now])? as u64,
    )
  }
}

#[cfg(test)]
mod tests {
  use super::*;

  fn key(agent: &str, tool: &str, scope: Option<&str>) -> GrantKey {
    GrantKey {
      agent_name: agent.into(),
      tool_name: tool.into(),
      proposal_hash: "a".repeat(64),
      scope: scope.map(Into::into),
    }
  }

  fn grant(key: &GrantKey, expires_at: Option<f64>, uses: i64, nonce: Option<&str>) -> Grant {
    Grant {
      key: key.clone(),
      args_canonical_json: "{}".into(),
      expires_at,
      uses,
      nonce: nonce.map(Into::into),
      nonce_expires_at: None,
    }
  }

  fn memory() -> SqliteGrantStore {
    SqliteGrantStore::open(":memory:", "grants", Duration::from_millis(100)).unwrap()
  }

  #[test]
  fn table_names() {
    assert!(is_table_name("tool_argument_snapshot_grants"));
    assert!(is_table_name("_a1"));
    assert!(is_table_name(&"a".repeat(MAX_TABLE_NAME)));
    for bad in ["", "1a", "a-b", "a\"b", "a b", "é", "s.t"] {
      assert!(!is_table_name(bad), "{bad:?}");
    }
    assert!(!is_table_name(&"a".repeat(MAX_TABLE_NAME + 1)));
    assert_eq!(
      SqliteGrantStore::open(":memory:", "a;b", Duration::ZERO).err(),
      Some(StoreError::InvalidTable)
    );
    // SQLite folds ASCII case: an upper-case name could meet its lower-case twin.
    assert_eq!(
      SqliteGrantStore::open(":memory:", "Approvals", Duration::ZERO).err(),
      Some(StoreError::InvalidTable)
    );
  }

  #[test]
  fn uses_are_taken_one_at_a_time_and_the_record_goes_with_the_last() {
    let mut store = memory();
    let k = key("a", "t", None);
    assert!(store.put(&grant(&k, None, 2, None), 0.0).unwrap());
    assert!(store.has(&k, 0.0).unwrap());
    assert!(store.take(&k, 0.0).unwrap());
    assert!(store.take(&k, 0.0).unwrap());
    assert!(!store.take(&k, 0.0).unwrap());
    assert!(!store.has(&k, 0.0).unwrap());
    let rows: i64 = store
      .conn
      .query_row("SELECT count(*) FROM grants", [], |r| r.get(0))
      .unwrap();
    assert_eq!(rows, 0);
  }

  #[test]
  fn expiry_is_the_callers_clock() {
    let mut store = memory();
    let k = key("a", "t", None);
    store.put(&grant(&k, Some(1000.5), 1, None), 0.0).unwrap();
    assert!(store.has(&k, 1000.4).unwrap());
    assert!(!store.has(&k, 1000.5).unwrap());
    assert!(!store.take(&k, 2000.0).unwrap());
    // The expired record was removed on the way: an earlier clock no longer finds it.
    assert!(!store.has(&k, 0.0).unwrap());
  }

  #[test]
  fn the_record_that_expires_first_is_used_first() {
    let mut store = memory();
    let k = key("a", "t", None);
    store.put(&grant(&k, None, 1, None), 0.0).unwrap();
    store.put(&grant(&k, Some(50.0), 1, None), 0.0).unwrap();
    store.put(&grant(&k, Some(10.0), 1, None), 0.0).unwrap();
    assert!(store.take(&k, 0.0).unwrap());
    assert!(store.take(&k, 0.0).unwrap());
    // Only the never-expiring record is left: at time 60 it is still there.
    assert!(store.has(&k, 60.0).unwrap());
    assert!(store.take(&k, 60.0).unwrap());
    assert!(!store.has(&k, 0.0).unwrap());
  }

  #[test]
  fn scopes_are_distinct_keys() {
    let mut store = memory();
    let none = key("a", "t", None);
    let empty = key("a", "t", Some(""));
    let x = key("a", "t", Some("x"));
    store.put(&grant(&empty, None, 1, None), 0.0).unwrap();
    assert!(!store.has(&none, 0.0).unwrap());
    assert!(!store.has(&x, 0.0).unwrap());
    assert!(store.has(&empty, 0.0).unwrap());
    store.delete(&none).unwrap();
    assert!(store.has(&empty, 0.0).unwrap());
    store.delete(&empty).unwrap();
    assert!(!store.has(&empty, 0.0).unwrap());
  }

  #[test]
  fn a_nonce_is_granted_once_while_it_lives() {
    let mut store = memory();
    let k = key("a", "t", None);
    let mut g = grant(&k, None, 1, Some("n1"));
    g.nonce_expires_at = Some(100.0);
    assert!(store.put(&g, 0.0).unwrap());
    assert!(!store.put(&g, 99.0).unwrap());
    assert!(store.take(&k, 0.0).unwrap());
    assert!(
      !store.take(&k, 0.0).unwrap(),
      "the refused put inserted nothing"
    );
    assert!(
      store.put(&g, 100.0).unwrap(),
      "an expired nonce record no longer counts"
    );
  }

  #[test]
  fn prune_counts_what_it_removes() {
    let mut store = memory();
    let k = key("a", "t", None);
    store.put(&grant(&k, Some(10.0), 1, None), 0.0).unwrap();
    store.put(&grant(&k, None, 1, None), 0.0).unwrap();
    let mut g = grant(&key("b", "t", None), None, 1, Some("n"));
    g.nonce_expires_at = Some(5.0);
    store.put(&g, 0.0).unwrap();
    store.put_proposal("p", "{}", Some(7.0)).unwrap();
    store.put_proposal("q", "{}", None).unwrap();
    assert_eq!(store.prune(20.0).unwrap(), 3);
    assert_eq!(store.prune(20.0).unwrap(), 0);
    assert_eq!(
      store.get_proposal("q", 1e300).unwrap().as_deref(),
      Some("{}")
    );
  }

  fn rkey(run: Option<&str>) -> ReceiptKey {
    ReceiptKey {
      agent_name: "a".into(),
      run_id: run.map(Into::into),
      tool_call_id: "c\u{0}".into(),
    }
  }

  fn claim(key: &ReceiptKey, id: &str, at: i64) -> ReceiptClaim {
    ReceiptClaim {
      key: key.clone(),
      proposal_hash: "b".repeat(64),
      claim_id: id.into(),
      claimed_at: at,
      lease_expires_at: at + 10,
      expires_at: at + 100,
    }
  }

  #[test]
  fn receipts_claim_once_complete_by_claim_id_and_expire() {
    let mut store = memory();
    let none = rkey(None);
    let empty = rkey(Some(""));
    assert_eq!(store.claim_receipt(&claim(&none, "x", 0), 0).unwrap(), None);
    let held = store
      .claim_receipt(&claim(&none, "y", 5), 5)
      .unwrap()
      .unwrap();
    assert_eq!(
      (held.claim_id.as_str(), held.status.as_str()),
      ("x", "in_progress")
    );
    assert_eq!(held.key.run_id, None);
    assert_eq!(
      store.claim_receipt(&claim(&empty, "z", 5), 5).unwrap(),
      None,
      "'' is not null"
    );
    let done = ReceiptOutcome {
      key: none.clone(),
      claim_id: "y".into(),
      status: "completed".into(),
      completed_at: 20,
      result_json: Some("1".into()),
      expires_at: 200,
    };
    assert!(!store.complete_receipt(&done).unwrap(), "another claim id");
    let done = ReceiptOutcome {
      claim_id: "x".into(),
      ..done
    };
    assert!(store.complete_receipt(&done).unwrap());
    assert!(
      !store.complete_receipt(&done).unwrap(),
      "no longer in progress"
    );
    assert!(
      !store.release_receipt(&none, "x").unwrap(),
      "completed is kept"
    );
    let got = store.get_receipt(&none, 199).unwrap().unwrap();
    assert_eq!(
      (
        got.status.as_str(),
        got.completed_at,
        got.result_json.as_deref()
      ),
      ("completed", Some(20), Some("1"))
    );
    assert_eq!(store.get_receipt(&none, 200).unwrap(), None);
    assert!(store.release_receipt(&empty, "z").unwrap());
    assert_eq!(
      store.claim_receipt(&claim(&none, "w", 200), 200).unwrap(),
      None,
      "past retention"
    );
    // "w" is never finished: kept past its retention (300), read, refused and never pruned.
    assert_eq!(
      store.prune_receipts(10_000).unwrap(),
      0,
      "an unfinished claim is kept"
    );
    let kept = store.get_receipt(&none, 10_000).unwrap().unwrap();
    assert_eq!(
      (kept.claim_id.as_str(), kept.status.as_str()),
      ("w", "in_progress")
    );
    let refused = store
      .claim_receipt(&claim(&none, "v", 10_000), 10_000)
      .unwrap()
      .expect("an unfinished claim is never claimed again");
    assert_eq!(refused.claim_id, "w");
    // A late outcome still records, and its retention then counts.
    let late = ReceiptOutcome {
      key: none.clone(),
      claim_id: "w".into(),
      status: "completed".into(),
      completed_at: 10_000,
      result_json: None,
      expires_at: 10_100,
    };
    assert!(store.complete_receipt(&late).unwrap());
    assert_eq!(store.prune_receipts(10_099).unwrap(), 0);
    assert_eq!(store.prune_receipts(10_100).unwrap(), 1);
    assert!(!store.delete_receipt(&none).unwrap());
  }

  #[test]
  fn proposals_overwrite_expire_and_go() {
    let store = memory();
    store
      .put_proposal("k\u{0}é", "{\"a\":1}", Some(10.0))
      .unwrap();
    store
      .put_proposal("k\u{0}é", "{\"a\":2}", Some(20.0))
      .unwrap();
    assert_eq!(
      store.get_proposal("k\u{0}é", 15.0).unwrap().as_deref(),
      Some("{\"a\":2}")
    );
    assert_eq!(store.get_proposal("k", 15.0).unwrap(), None);
    assert_eq!(store.get_proposal("k\u{0}é", 20.0).unwrap(), None);
    store.delete_proposal("k\u{0}é").unwrap();
    assert_eq!(store.get_proposal("k\u{0}é", 0.0).unwrap(), None);
  }

  #[test]
  fn proposals_list_in_key_order_by_pages() {
    let store = memory();
    for key in ["b", "a", "d", "c", "e"] {
      store.put_proposal(key, key, None).unwrap();
    }
    store.put_proposal("bb", "gone", Some(5.0)).unwrap();
    let texts =
      |rows: Vec<(String, String)>| -> Vec<String> { rows.into_iter().map(|(k, _)| k).collect() };
    assert_eq!(
      texts(store.list_proposals(None, 2, 10.0).unwrap()),
      ["a", "b"]
    );
    assert_eq!(
      texts(store.list_proposals(Some("b"), 2, 10.0).unwrap()),
      ["c", "d"]
    );
    assert_eq!(
      texts(store.list_proposals(Some("d"), 2, 10.0).unwrap()),
      ["e"]
    );
    assert!(store.list_proposals(Some("e"), 2, 10.0).unwrap().is_empty());
    // Live at 4: the expiring one is listed between "b" and "c".
    assert_eq!(
      texts(store.list_proposals(Some("a"), 2, 4.0).unwrap()),
      ["b", "bb"]
    );
    let rows = store.list_proposals(Some("a"), 1, 10.0).unwrap();
    assert_eq!(rows, [("b".to_string(), "b".to_string())]);
  }
}
