//! One thread per open store, owning its SQLite connection (no N-API here).
//!
//! Calls are queued and run in order; each reply is a callback the binding turns into a
//! settled promise. The thread is the store's own, not the libuv pool's: a call waiting
//! for another process's lock (up to the store's timeout) holds no thread that `fs`,
//! `dns` or `crypto` need, and one connection is never used by two threads.

use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant};

use super::sqlite::{
  Grant, GrantKey, Receipt, ReceiptClaim, ReceiptKey, ReceiptOutcome, SqliteGrantStore, StoreError,
};

/// One store operation with its arguments.
pub enum Op {
  Put(Box<Grant>, f64),
  Has(GrantKey, f64),
  Take(GrantKey, f64),
  Delete(GrantKey),
  Prune(f64),
  PutProposal(String, String, Option<f64>),
  GetProposal(String, f64),
  DeleteProposal(String),
  ListProposals(Option<String>, u32, f64),
  ClaimReceipt(Box<ReceiptClaim>, i64),
  ClaimReceiptAndTake(Box<ReceiptClaim>, i64, GrantKey, f64),
  CompleteReceipt(Box<ReceiptOutcome>),
  ReleaseReceipt(ReceiptKey, String),
  GetReceipt(ReceiptKey, i64),
  DeleteReceipt(ReceiptKey),
  PruneReceipts(i64),
}

/// What an operation gives back.
#[derive(Debug, PartialEq)]
pub enum Outcome {
  Bool(bool),
  Count(u64),
  Text(Option<String>),
  /// Kept proposals: key, JSON, key, JSON, ...
  Texts(Vec<String>),
  Receipt(Option<Box<Receipt>>),
  /// A joint claim and take: the refusing record, else whether claimed and taken.
  ClaimTake(Option<Box<Receipt>>, bool),
  Done,
}

/// Called once, on the worker thread (or on the caller's, for a store already closed).
pub type Reply = Box<dyn FnOnce(Result<Outcome, StoreError>) + Send>;

enum Message {
  Call {
    op: Op,
    deadline: Instant,
    reply: Reply,
  },
  Close(Reply),
}

/// The handle JavaScript holds. Dropping it (the handle was collected without `close()`)
/// lets the thread finish the queued calls, close the connection and end.
pub struct Worker {
  sender: Mutex<Option<Sender<Message>>>,
  timeout: Duration,
}

impl Worker {
  /// Starts the thread. The file is opened by the first call (and again by the next call
  /// if opening failed), so the factory never waits for the disk or a lock.
  pub fn start(path: String, table: String, timeout: Duration) -> std::io::Result<Worker> {
    let (sender, receiver) = channel::<Message>();
    thread::Builder::new()
      .name("tas-sqlite-store".into())
      .spawn(move || {
        let mut store: Option<SqliteGrantStore> = None;
        for message in receiver {
          match message {
            Message::Close(reply) => {
              drop(store.take());
              reply(Ok(Outcome::Done));
              // Calls queued before close() already ran; none can be queued after it.
              return;
            }
            Message::Call {
              op,
              deadline,
              reply,
            } => {
              let left = deadline.saturating_duration_since(Instant::now());
              reply(if left.is_zero() {
                Err(StoreError::Timeout)
              } else {
                run(&mut store, &path, &table, left, op)
              });
            }
          }
        }
      })?;
    Ok(Worker {
      sender: Mutex::new(Some(sender)),
      timeout,
    })
  }

  /// Queues `op`; it fails with `Timeout` if it cannot start and finish its waiting for
  /// locks within the store's timeout from now.
  pub fn submit(&self, op: Op, reply: Reply) {
    let deadline = Instant::now() + self.timeout;
    let guard = self
      .sender
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner());
    match guard.as_ref() {
      Some(sender) => {
        if let Err(unsent) = sender.send(Message::Call {
          op,
          deadline,
          reply,
        }) {
          if let Message::Call { reply, .. } = unsent.0 {
            reply(Err(StoreError::Closed));
          }
        }
      }
      None => reply(Err(StoreError::Closed)),
    }
  }

  /// Closes the store after the calls already queued; `reply` runs when the connection is
  /// closed. Later calls fail with `Closed`; closing twice is fine.
  pub fn close(&self, reply: Reply) {
    let sender = self
      .sender
      .lock()
      .unwrap_or_else(|poisoned| poisoned.into_inner())
      .take();
    match sender {
      Some(sender) => {
        if let Err(unsent) = sender.send(Message::Close(reply)) {
          if let Message::Close(reply) = unsent.0 {
            reply(Ok(Outcome::Done));
          }
        }
      }
      None => reply(Ok(Outcome::Done)),
    }
  }
}

fn run(
  store: &mut Option<SqliteGrantStore>,
  path: &str,
  table: &str,
  left: Duration,
  op: Op,
) -> Result<Outcome, StoreError> {
  let store = match store {
    Some(open) => {
      open.set_busy_timeout(left)?;
      open
    }
    None => store.insert(SqliteGrantStore::open(path, table, left)?),
  };
  Ok(match op {
    Op::Put(grant, now) => Outcome::Bool(store.put(&grant, now)?),
    Op::Has(key, now) => Outcome::Bool(store.has(&key, now)?),
    Op::Take(key, now) => Outcome::Bool(store.take(&key, now)?),
    Op::Delete(key) => {
      store.delete(&key)?;
      Outcome::Done
    }
    Op::Prune(now) => Outcome::Count(store.prune(now)?),
    Op::PutProposal(key, json, expires_at) => {
      store.put_proposal(&key, &json, expires_at)?;
      Outcome::Done
    }
    Op::GetProposal(key, now) => Outcome::Text(store.get_proposal(&key, now)?),
    Op::DeleteProposal(key) => {
      store.delete_proposal(&key)?;
      Outcome::Done
    }
    Op::ListProposals(after, limit, now) => Outcome::Texts(
      store
        .list_proposals(after.as_deref(), limit, now)?
        .into_iter()
        .flat_map(|(key, json)| [key, json])
        .collect(),
    ),
    Op::ClaimReceipt(claim, now) => {
      Outcome::Receipt(store.claim_receipt(&claim, now)?.map(Box::new))
    }
    Op::ClaimReceiptAndTake(claim, now, key, grant_now) => {
      let (record, taken) = store.claim_receipt_and_take(&claim, now, &key, grant_now)?;
      Outcome::ClaimTake(record.map(Box::new), taken)
    }
    Op::CompleteReceipt(outcome) => Outcome::Bool(store.complete_receipt(&outcome)?),
    Op::ReleaseReceipt(key, claim_id) => Outcome::Bool(store.release_receipt(&key, &claim_id)?),
    Op::GetReceipt(key, now) => Outcome::Receipt(store.get_receipt(&key, now)?.map(Box::new)),
    Op::DeleteReceipt(key) => Outcome::Bool(store.delete_receipt(&key)?),
    Op::PruneReceipts(now) => Outcome::Count(store.prune_receipts(now)?),
  })
}

#[cfg(test)]
mod tests {
  use super::*;
  use std::sync::mpsc;

  fn call(worker: &Worker, op: Op) -> Result<Outcome, StoreError> {
    let (tx, rx) = mpsc::channel();
    worker.submit(op, Box::new(move |result| tx.send(result).unwrap()));
    rx.recv().unwrap()
  }

  fn key() -> GrantKey {
    GrantKey {
      agent_name: "a".into(),
      tool_name: "t".into(),
      proposal_hash: "0".repeat(64),
      scope: None,
    }
  }

  #[test]
  fn calls_run_in_order_and_close_refuses_later_ones() {
    let worker = Worker::start(":memory:".into(), "g".into(), Duration::from_secs(5)).unwrap();
    let grant = Grant {
      key: key(),
      args_canonical_json: "{}".into(),
      expires_at: None,
      uses: 1,
      nonce: None,
      nonce_expires_at: None,
    };
    assert_eq!(
      call(&worker, Op::Put(Box::new(grant), 0.0)),
      Ok(Outcome::Bool(true))
    );
    assert_eq!(call(&worker, Op::Take(key(), 0.0)), Ok(Outcome::Bool(true)));
    assert_eq!(
      call(&worker, Op::Take(key(), 0.0)),
      Ok(Outcome::Bool(false))
    );
    let (tx, rx) = mpsc::channel();
    worker.close(Box::new(move |result| tx.send(result).unwrap()));
    assert_eq!(rx.recv().unwrap(), Ok(Outcome::Done));
    assert_eq!(call(&worker, Op::Has(key(), 0.0)), Err(StoreError::Closed));
    let (tx, rx) = mpsc::channel();
    worker.close(Box::new(move |result| tx.send(result).unwrap()));
    assert_eq!(rx.recv().unwrap(), Ok(Outcome::Done));
  }

  #[test]
  fn a_bad_path_fails_each_call_and_the_store_keeps_working() {
    let worker = Worker::start(
      "/nonexistent-dir/x/y.db".into(),
      "g".into(),
      Duration::from_secs(1),
    )
    .unwrap();
    assert!(matches!(
      call(&worker, Op::Has(key(), 0.0)),
      Err(StoreError::Sqlite(_))
    ));
    assert!(matches!(
      call(&worker, Op::Prune(0.0)),
      Err(StoreError::Sqlite(_))
    ));
  }

  #[test]
  fn a_locked_database_times_out() {
    let dir = std::env::temp_dir().join(format!("tas-store-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("g.db").to_string_lossy().into_owned();
    let worker = Worker::start(path.clone(), "g".into(), Duration::from_millis(200)).unwrap();
    assert_eq!(call(&worker, Op::Prune(0.0)), Ok(Outcome::Count(0)));
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let started = Instant::now();
    assert_eq!(
      call(&worker, Op::Take(key(), 0.0)),
      Err(StoreError::Timeout)
    );
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(150), "{waited:?}");
    assert!(waited < Duration::from_secs(2), "{waited:?}");
    holder.execute_batch("ROLLBACK").unwrap();
    assert_eq!(
      call(&worker, Op::Take(key(), 0.0)),
      Ok(Outcome::Bool(false))
    );
    drop(worker);
    std::fs::remove_dir_all(&dir).unwrap();
  }
}
