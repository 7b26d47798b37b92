// Type declarations of tool-argument-snapshot, room stores (lib/stores/): the store interfaces of grants and receipts, and the durable stores.
// Re-exported by index.d.ts (the package root); imports only from rooms below it.

/**
 * A stored grant. `expiresAt` is milliseconds since the epoch (the grants' clock), or
 * null. `scope` is the grant's scope (null: evaluations without a `grantScope`).
 */
export interface ApprovalGrantRecord {
  readonly agentName: string;
  readonly toolName: string;
  readonly proposalHash: string;
  readonly scope: string | null;
  /** The canonical JSON the approver saw (verified against `proposalHash` before storing). */
  readonly argsCanonicalJson: string;
  readonly expiresAt: number | null;
  /** Executions left; 1 for a single-use grant. */
  readonly uses: number;
  /** The sealed proposal's nonce (with a key ring), recorded with the grant; else null. */
  readonly nonce: string | null;
  /** Until when the nonce is kept (the seal's expiry; null: always). */
  readonly nonceExpiresAt: number | null;
  /** The id of the key whose seal was granted (null without a key ring); stores need not keep it. */
  readonly keyId: string | null;
}

/** What a grant is looked up, spent and revoked by. `scope` absent or null: unscoped. */
export interface ApprovalGrantQuery {
  readonly agentName: string;
  readonly toolName: string;
  readonly proposalHash: string;
  readonly scope?: string | null;
}

/**
 * Where grants live (docs/stores.md). Methods are own function properties of the store
 * object (inherited ones are not read), may be async, and get `now` from the grants'
 * clock (stores never use their server's clock). A record is live when `uses > 0` and
 * (`expiresAt === null` or `now < expiresAt`). The key of a grant is agent, tool, hash
 * and scope (null is a value of its own).
 */
export interface ApprovalGrantStore {
  /**
   * Insert a record (several may exist for one key; each counts separately). With a
   * `nonce`, atomically with the insert: record it, or, if it was recorded before, insert
   * nothing and return `false`.
   */
  put(record: ApprovalGrantRecord, now: number): boolean | void | Promise<boolean | void>;
  /** Whether a live record matches the query. A read: it changes nothing (a clock that steps back finds what it found). */
  has(query: Required<ApprovalGrantQuery>, now: number): boolean | Promise<boolean>;
  /**
   * Atomically: if a live record matches, decrement its `uses` (removing it at 0) and
   * return true; otherwise return false. Of N concurrent callers (in any process) racing
   * for the last use, exactly one gets `true`. Anything but `true` counts as false.
   */
  take(query: Required<ApprovalGrantQuery>, now: number): boolean | Promise<boolean>;
  /** Remove every record matching the query (for `revoke`). */
  delete?(query: Required<ApprovalGrantQuery>): void | Promise<void>;
  /** Remove expired and used-up records, expired nonces and kept proposals; how many. */
  prune?(now: number): number | Promise<number>;
  /** Keep, read and drop a proposal by an opaque key (for adapters; see keepProposal). */
  putProposal?(key: string, json: string, expiresAt: number | null): void | Promise<void>;
  getProposal?(key: string, now: number): string | null | Promise<string | null>;
  deleteProposal?(key: string): void | Promise<void>;
  /**
   * One page of the live kept proposals, in key order after `after` (null: from the start),
   * at most `limit` (1 to 1000); `next` is the cursor of the following page, or null at the
   * end (a page may be short while `next` is not null). For reviewing (listProposals).
   */
  listProposals?(after: string | null, limit: number, now: number): ProposalPage | Promise<ProposalPage>;
  /** Release what the store opened (never a client or pool the application passed in). */
  close?(): void | Promise<void>;
}

/** A page of a store's listProposals: the store key and stored JSON of each kept proposal. */
export interface ProposalPage {
  proposals: { key: string; json: string }[];
  next: string | null;
}

// ---------------------------------------------------------------------------------
// Durable grant stores (lib/stores/, docs/stores.md): synchronous factories.

/** A store of `createSqliteGrantStore`, `createPostgresGrantStore` or `createRedisGrantStore`: every method answers a promise. */
export interface DurableGrantStore extends ApprovalGrantStore, ExecutionReceiptStore {
  put(record: ApprovalGrantRecord, now: number): Promise<boolean>;
  has(query: Required<ApprovalGrantQuery>, now: number): Promise<boolean>;
  take(query: Required<ApprovalGrantQuery>, now: number): Promise<boolean>;
  delete(query: Required<ApprovalGrantQuery>): Promise<void>;
  prune(now: number): Promise<number>;
  putProposal(key: string, json: string, expiresAt: number | null): Promise<void>;
  getProposal(key: string, now: number): Promise<string | null>;
  deleteProposal(key: string): Promise<void>;
  /** Releases what the store opened (SQLite: its file, after the calls already made); later calls reject `store_closed`. Never closes a pool or client it was given. */
  close(): Promise<void>;
}

export interface SqliteGrantStoreOptions {
  /** The database file (created when missing, mode 0600), or ':memory:'. */
  path: string;
  /** Default 'tool_argument_snapshot_grants' (and `<table>_nonces`, `<table>_proposals`): [A-Za-z_][A-Za-z0-9_]*, at most 41 characters. */
  table?: string;
  /** The longest a call takes, waiting for other processes' locks included. Default 5000; whole milliseconds 1..2147483647. */
  timeoutMs?: number;
}

/** A pg Pool or Client (or anything with pg's `query(config)` resolving to `{ rows }`). */
export interface PostgresQueryable {
  query(config: { text: string; values?: unknown[]; query_timeout?: number }): unknown;
}

export interface PostgresGrantStoreOptions {
  /** Never ended by the store. */
  pool: PostgresQueryable;
  /** Default 'tool_argument_snapshot_grants'; may be schema-qualified ('schema.table'). */
  table?: string;
  /** Default 5000; also pg's query_timeout. */
  timeoutMs?: number;
}

export interface PostgresGrantStore extends DurableGrantStore {
  /** Creates the tables and indexes when missing (idempotent; the DDL is in docs/stores.md). */
  migrate(): Promise<void>;
}

/** A connected node-redis (4 or later) or ioredis client. */
export type RedisCommandClient = { sendCommand(args: string[]): PromiseLike<unknown> } | { call(command: string, ...args: string[]): PromiseLike<unknown> };

export interface RedisGrantStoreOptions {
  /** Never closed by the store. */
  client: RedisCommandClient;
  /** Default 'tas:grant:'. */
  prefix?: string;
  /** Default 5000. */
  timeoutMs?: number;
}

/** What a store call rejects with when the store fails, times out or was closed (a bad argument is a TypeError). */
export interface GrantStoreError extends Error {
  readonly name: 'GrantStoreError';
  readonly code: 'store_timeout' | 'store_failed' | 'store_closed';
  /** The store method: 'put', 'has', 'take', 'delete', 'prune', 'putProposal', 'getProposal', 'deleteProposal', 'close' or 'migrate'. */
  readonly operation: string;
  /** A bare code when the cause had one: an SQLSTATE ('42P01'), a system error ('ECONNREFUSED'), a Redis error kind ('WRONGTYPE'), 'sqlite_<code>', 'bad_result' or 'bad_reply'. */
  readonly detail?: string;
}

export declare function createSqliteGrantStore(options: SqliteGrantStoreOptions): DurableGrantStore;
export declare function createPostgresGrantStore(options: PostgresGrantStoreOptions): PostgresGrantStore;
export declare function createRedisGrantStore(options: RedisGrantStoreOptions): DurableGrantStore;

/** The key of an execution receipt: the prepared call's agentName, runId (null when absent) and toolCallId. */
export interface ExecutionReceiptKey {
  agentName: string;
  runId?: string | null;
  toolCallId: string;
}

/** What a store keeps of a receipt (docs/stores.md); `status` is never `outcome_unknown` there. */
export interface ExecutionReceiptRecord {
  agentName: string;
  runId: string | null;
  toolCallId: string;
  proposalHash: string;
  claimId: string;
  status: 'in_progress' | 'completed' | 'failed';
  claimedAt: number;
  leaseExpiresAt: number;
  completedAt: number | null;
  resultJson: string | null;
  expiresAt: number;
}

/** The receipt operations of a grant store (each atomic; a value or a promise). */
export interface ExecutionReceiptStore {
  claimReceipt(
    claim: Readonly<{
      agentName: string;
      runId: string | null;
      toolCallId: string;
      proposalHash: string;
      claimId: string;
      claimedAt: number;
      leaseExpiresAt: number;
      expiresAt: number;
    }>,
    now: number,
  ): ExecutionReceiptRecord | null | Promise<ExecutionReceiptRecord | null>;
  completeReceipt(
    outcome: Readonly<{
      agentName: string;
      runId: string | null;
      toolCallId: string;
      claimId: string;
      status: 'completed' | 'failed';
      completedAt: number;
      resultJson: string | null;
      expiresAt: number;
    }>,
    now: number,
  ): boolean | Promise<boolean>;
  releaseReceipt(key: Readonly<{ agentName: string; runId: string | null; toolCallId: string; claimId: string }>, now: number): boolean | Promise<boolean>;
  getReceipt(
    key: Readonly<{ agentName: string; runId: string | null; toolCallId: string }>,
    now: number,
  ): ExecutionReceiptRecord | null | Promise<ExecutionReceiptRecord | null>;
  deleteReceipt(key: Readonly<{ agentName: string; runId: string | null; toolCallId: string }>): boolean | Promise<boolean>;
  pruneReceipts(now: number): number | Promise<number>;
}

// openGrantStore

export interface OpenGrantStoreOptions {
  /** SQLite and PostgreSQL: the grants table (as the factories take it). */
  table?: string;
  /** Redis: the key prefix. */
  prefix?: string;
  /** Every call's bound (default 5000); for Redis also the connect's. */
  timeoutMs?: number;
  /** Redis: which client to load from the application (default: 'redis' when installed, else 'ioredis'). */
  redisClient?: 'redis' | 'ioredis';
}

/**
 * A grant store from a URL: `sqlite:PATH`, `sqlite::memory:`, `postgres://...`, `postgresql://...`
 * (migrate() is run), `redis://...`, `rediss://...`. pg, redis or ioredis is loaded from the
 * application (optional peers; MODULE_NOT_FOUND naming it when missing). close() closes the store
 * and what was opened for it. No message shows the URL.
 */
export declare function openGrantStore(url: `sqlite:${string}`, options?: OpenGrantStoreOptions): Promise<DurableGrantStore>;
export declare function openGrantStore(url: `postgres://${string}` | `postgresql://${string}`, options?: OpenGrantStoreOptions): Promise<PostgresGrantStore>;
export declare function openGrantStore(url: string, options?: OpenGrantStoreOptions): Promise<DurableGrantStore>;
