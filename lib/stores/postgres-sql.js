'use strict';
// The SQL of the PostgreSQL store (lib/stores/postgres.js): the migration and every
// statement for one table (statements), and the names they are prepared under
// (statementName). Text only: nothing here sends a statement.

const P = require('../primordials');

const { ObjectFreeze, StringPrototypeCharCodeAt } = P;
// Captured when the package loaded (this module loads at first use).
const { MathImul, NumberPrototypeToString } = P;

/**
 * A stable number for the advisory lock that serializes migrate() per table (concurrent
 * CREATE TABLE IF NOT EXISTS can fail on PostgreSQL's catalog): FNV-1a of the qualified
 * name, as a signed 32-bit integer.
 */
function lockKey(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= StringPrototypeCharCodeAt(text, i);
    hash = MathImul(hash, 0x01000193);
  }
  return hash | 0;
}

/**
 * A prepared statement's name for a text: two 32-bit FNV-1a digests (two offset bases) and
 * the length, so that two stores (or two copies of the package) over one pool never give
 * one name to two texts.
 */
function statementName(text) {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    a = MathImul(a ^ c, 0x01000193);
    b = MathImul(b ^ c, 0x01000193) ^ (b >>> 15);
  }
  return `tas_${NumberPrototypeToString(a >>> 0, 16)}_${NumberPrototypeToString(b >>> 0, 16)}_${NumberPrototypeToString(text.length, 16)}`;
}

// A claim's columns, each kept unless the stored record is an outcome past its retention:
// an unfinished claim (in_progress) is kept whatever its retention says.
const CLAIMED = ObjectFreeze([
  'agent_name',
  'run_id',
  'tool_call_id',
  'proposal_hash',
  'claim_id',
  'status',
  'claimed_at',
  'lease_expires_at',
  'completed_at',
  'result_json',
  'expires_at',
]);

/** The SET list of a claim's upsert: each claimed column from EXCLUDED when `expired` holds, else kept. */
function keptUnless(expired) {
  let text = '';
  for (let i = 0; i < CLAIMED.length; i++) {
    text += `${i === 0 ? '' : ', '}${CLAIMED[i]} = CASE WHEN ${expired} THEN EXCLUDED.${CLAIMED[i]} ELSE kept.${CLAIMED[i]} END`;
  }
  return text;
}

/** The migration and every statement, for one table. */
function statements(table) {
  const schema = table.schema === null ? '' : `"${table.schema}".`;
  const name = table.name;
  const g = `${schema}"${name}"`;
  const n = `${schema}"${name}_nonces"`;
  const p = `${schema}"${name}_proposals"`;
  const r = `${schema}"${name}_receipts"`;
  const names = ObjectFreeze({ __proto__: null, name, g, n, p, r });
  return ObjectFreeze({
    ddl: migration(names),
    ...receiptStatements(names),
    ...grantStatements(names),
  });
}

/** The migration: the four tables and their indexes, under a per-table advisory lock. */
function migration(names) {
  const { name, g, n, p, r } = names;
  return `SELECT pg_advisory_xact_lock(${lockKey(`tool-argument-snapshot ${g}`)});
CREATE TABLE IF NOT EXISTS ${g} (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  agent_name text NOT NULL,
  tool_name text NOT NULL,
  proposal_hash text NOT NULL,
  scope text,
  args_canonical_json text NOT NULL,
  expires_at double precision,
  uses bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS "${name}_key" ON ${g} (proposal_hash);
CREATE INDEX IF NOT EXISTS "${name}_expires" ON ${g} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${n} (
  nonce text PRIMARY KEY,
  expires_at double precision
);
CREATE INDEX IF NOT EXISTS "${name}_nonces_expires" ON ${n} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${p} (
  proposal_key text PRIMARY KEY,
  json text NOT NULL,
  expires_at double precision
);
CREATE INDEX IF NOT EXISTS "${name}_proposals_expires" ON ${p} (expires_at) WHERE expires_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS ${r} (
  receipt_id text PRIMARY KEY,
  agent_name text NOT NULL,
  run_id text,
  tool_call_id text NOT NULL,
  proposal_hash text NOT NULL,
  claim_id text NOT NULL,
  status text NOT NULL,
  claimed_at bigint NOT NULL,
  lease_expires_at bigint NOT NULL,
  completed_at bigint,
  result_json text,
  expires_at bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS "${name}_receipts_expires" ON ${r} (expires_at);
`;
}

/** The receipt statements (the `<table>_receipts` table; claimReceiptAndTake takes a grant's use too). */
function receiptStatements(names) {
  const { g, r } = names;
  // One claim: the stored record's retention against the claim's now ($10).
  const replace = keptUnless("kept.status <> 'in_progress' AND kept.expires_at <= $10::bigint");
  // The same, for a batch of claims: the record's `now` is its row's in the batch.
  const replaceBatch = keptUnless("kept.status <> 'in_progress' AND kept.expires_at <= (SELECT now FROM v WHERE v.receipt_id = kept.receipt_id)");
  const receiptColumns =
    'agent_name AS "agentName", run_id AS "runId", tool_call_id AS "toolCallId", proposal_hash AS "proposalHash", claim_id AS "claimId", status, ' +
    'claimed_at AS "claimedAt", lease_expires_at AS "leaseExpiresAt", completed_at AS "completedAt", result_json AS "resultJson", expires_at AS "expiresAt"';
  return {
    // One statement: the insert, or on a conflict an update that locks the key's row and
    // keeps every column unless the record is past its retention. RETURNING gives the row
    // as it now is (the latest committed version, whatever the statement's snapshot):
    // the caller claimed it when the claim_id is its own.
    claimReceipt:
      `INSERT INTO ${r} AS kept (receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, status, claimed_at, lease_expires_at, completed_at, result_json, expires_at) ` +
      "VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, 'in_progress', $7::bigint, $8::bigint, NULL, NULL, $9::bigint) " +
      `ON CONFLICT (receipt_id) DO UPDATE SET ${replace} RETURNING ${receiptColumns}`,
    // Claims sent while one is in flight go together (issue 35): one statement for the batch,
    // no key twice in it. Each row is the claim above, its own `now` read from the batch
    // (only when the key's stored record conflicts); rows are inserted in key order, so two
    // batches (of two processes) lock the keys they share in one order.
    claimReceipts:
      `WITH v AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) ` +
      'AS v(receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, claimed_at, lease_expires_at, expires_at, now)) ' +
      `INSERT INTO ${r} AS kept (receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, status, claimed_at, lease_expires_at, completed_at, result_json, expires_at) ` +
      "SELECT receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, 'in_progress', claimed_at, lease_expires_at, NULL, NULL, expires_at FROM v ORDER BY receipt_id " +
      `ON CONFLICT (receipt_id) DO UPDATE SET ${replaceBatch} RETURNING receipt_id AS id, ${receiptColumns}`,
    // Claims and completions of other keys in one statement (the two above as CTEs; a row
    // per claim, kind 'claim', and one per completed record, kind 'done').
    receiptWrites:
      `WITH v AS (SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[]) ` +
      'AS v(receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, claimed_at, lease_expires_at, expires_at, now)), ' +
      `done AS (UPDATE ${r} AS kept SET status = w.status, completed_at = w.completed_at, result_json = w.result_json, expires_at = w.expires_at ` +
      'FROM unnest($11::text[], $12::text[], $13::text[], $14::bigint[], $15::text[], $16::bigint[]) AS w(receipt_id, claim_id, status, completed_at, result_json, expires_at) ' +
      "WHERE kept.receipt_id = w.receipt_id AND kept.claim_id = w.claim_id AND kept.status = 'in_progress' RETURNING kept.receipt_id AS id, kept.claim_id AS claim), " +
      `claimed AS (INSERT INTO ${r} AS kept (receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, status, claimed_at, lease_expires_at, completed_at, result_json, expires_at) ` +
      "SELECT receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, 'in_progress', claimed_at, lease_expires_at, NULL, NULL, expires_at FROM v ORDER BY receipt_id " +
      `ON CONFLICT (receipt_id) DO UPDATE SET ${replaceBatch} RETURNING receipt_id AS id, ${receiptColumns}) ` +
      `SELECT 'claim' AS kind, claimed.* FROM claimed UNION ALL ` +
      "SELECT 'done', id, NULL::text, NULL::text, NULL::text, NULL::text, claim, NULL::text, NULL::bigint, NULL::bigint, NULL::bigint, NULL::text, NULL::bigint FROM done",
    // The claim and one use of a grant together (claimReceiptAndTake): `pick` locks the live
    // grant record that expires first (as take's subquery does); the claim is inserted only
    // from its row, so without a live grant nothing is claimed; the use is taken only when
    // the returned claim is this one ($6), so a claim the stored receipt refuses takes no
    // use; the last use deletes the record in the same statement (`pick` returns the locked
    // row's latest `uses`, so exactly one of kept_use and last_use applies). Without a
    // grant, `found` reads the receipt that would refuse the claim (the
    // refusal is the receipt's, as with two steps).
    claimReceiptAndTake:
      `WITH pick AS (SELECT id, uses FROM ${g} WHERE proposal_hash = $11::text AND agent_name = $12::text AND tool_name = $13::text AND scope IS NOT DISTINCT FROM $14::text ` +
      'AND uses > 0 AND (expires_at IS NULL OR expires_at > $15::float8) ORDER BY expires_at ASC NULLS LAST, id LIMIT 1 FOR UPDATE), ' +
      `claim AS (INSERT INTO ${r} AS kept (receipt_id, agent_name, run_id, tool_call_id, proposal_hash, claim_id, status, claimed_at, lease_expires_at, completed_at, result_json, expires_at) ` +
      "SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, 'in_progress', $7::bigint, $8::bigint, NULL, NULL, $9::bigint FROM pick " +
      `ON CONFLICT (receipt_id) DO UPDATE SET ${replace} RETURNING ${receiptColumns}), ` +
      `kept_use AS (UPDATE ${g} SET uses = uses - 1 WHERE id = (SELECT id FROM pick) AND (SELECT uses FROM pick) > 1 AND EXISTS (SELECT 1 FROM claim WHERE "claimId" = $6::text) RETURNING id, uses), ` +
      `last_use AS (DELETE FROM ${g} WHERE id = (SELECT id FROM pick) AND (SELECT uses FROM pick) = 1 AND EXISTS (SELECT 1 FROM claim WHERE "claimId" = $6::text) RETURNING id, 0::bigint AS uses), ` +
      'took AS (SELECT id, uses FROM kept_use UNION ALL SELECT id, uses FROM last_use), ' +
      `found AS (SELECT ${receiptColumns} FROM ${r} WHERE receipt_id = $1::text AND (status = 'in_progress' OR expires_at > $10::bigint) AND NOT EXISTS (SELECT 1 FROM pick)) ` +
      'SELECT claim.*, (SELECT id FROM took) AS "tookId", (SELECT uses FROM took) AS "tookUses" FROM claim ' +
      'UNION ALL SELECT found.*, NULL::bigint, NULL::bigint FROM found',
    // Completions sent while one is in flight go together: one statement for the batch.
    completeReceipts:
      `UPDATE ${r} AS kept SET status = v.status, completed_at = v.completed_at, result_json = v.result_json, expires_at = v.expires_at ` +
      'FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::bigint[]) AS v(receipt_id, claim_id, status, completed_at, result_json, expires_at) ' +
      `WHERE kept.receipt_id = v.receipt_id AND kept.claim_id = v.claim_id AND kept.status = 'in_progress' RETURNING 'done' AS kind, kept.receipt_id AS id, kept.claim_id AS "claimId"`,
    completeReceipt:
      `UPDATE ${r} SET status = $3::text, completed_at = $4::bigint, result_json = $5::text, expires_at = $6::bigint ` +
      "WHERE receipt_id = $1::text AND claim_id = $2::text AND status = 'in_progress' RETURNING 1 AS done",
    releaseReceipt: `DELETE FROM ${r} WHERE receipt_id = $1::text AND claim_id = $2::text AND status = 'in_progress' RETURNING 1 AS done`,
    getReceipt: `SELECT ${receiptColumns} FROM ${r} WHERE receipt_id = $1::text AND (status = 'in_progress' OR expires_at > $2::bigint)`,
    deleteReceipt: `DELETE FROM ${r} WHERE receipt_id = $1::text RETURNING 1 AS done`,
    pruneReceipts:
      `WITH gone AS (DELETE FROM ${r} WHERE receipt_id IN (SELECT receipt_id FROM ${r} WHERE expires_at <= $1::bigint AND status <> 'in_progress' FOR UPDATE SKIP LOCKED) RETURNING 1) ` +
      'SELECT count(*) AS removed FROM gone',
  };
}

/** The grant, nonce and kept-proposal statements. */
function grantStatements(names) {
  const { g, n, p } = names;
  const key = 'proposal_hash = $1::text AND agent_name = $2::text AND tool_name = $3::text AND scope IS NOT DISTINCT FROM $4::text';
  const columns = '(proposal_hash, agent_name, tool_name, scope, args_canonical_json, expires_at, uses)';
  const values = '$1::text, $2::text, $3::text, $4::text, $5::text, $6::float8, $7::bigint';
  return {
    put: `INSERT INTO ${g} ${columns} VALUES (${values}) RETURNING id`,
    // The nonce is claimed (inserted, or renewed when its record has expired) and the
    // grant inserted only from the claim's row: one statement, so both or neither. A
    // concurrent put of the same nonce waits on the claim and then finds it live.
    putWithNonce:
      `WITH claim AS (INSERT INTO ${n} AS kept (nonce, expires_at) VALUES ($8::text, $9::float8) ` +
      'ON CONFLICT (nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at ' +
      'WHERE kept.expires_at IS NOT NULL AND kept.expires_at <= $10::float8 RETURNING nonce) ' +
      `INSERT INTO ${g} ${columns} SELECT ${values} FROM claim RETURNING id`,
    has: `SELECT EXISTS (SELECT 1 FROM ${g} WHERE ${key} AND uses > 0 AND (expires_at IS NULL OR expires_at > $5::float8)) AS found`,
    // The subquery picks the live record that expires first and locks it; a concurrent
    // take waits for that lock, then re-checks `uses > 0` on the row as committed (and, if
    // the row is gone or spent, the subquery goes on to the next record). The key's dead
    // records go in the same statement, skipping any another call holds.
    take:
      `WITH swept AS (DELETE FROM ${g} WHERE id IN (SELECT id FROM ${g} WHERE ${key} AND (uses <= 0 OR expires_at <= $5::float8) ` +
      'FOR UPDATE SKIP LOCKED)) ' +
      `UPDATE ${g} SET uses = uses - 1 WHERE id = (SELECT id FROM ${g} WHERE ${key} AND uses > 0 ` +
      'AND (expires_at IS NULL OR expires_at > $5::float8) ORDER BY expires_at ASC NULLS LAST, id LIMIT 1 FOR UPDATE) ' +
      'AND uses > 0 RETURNING id, uses',
    // After the last use: the spent row goes (it is already unusable: uses = 0).
    dropSpent: `DELETE FROM ${g} WHERE id = $1::bigint AND uses <= 0`,
    delete: `DELETE FROM ${g} WHERE ${key}`,
    prune:
      `WITH grants AS (DELETE FROM ${g} WHERE id IN (SELECT id FROM ${g} WHERE uses <= 0 OR expires_at <= $1::float8 FOR UPDATE SKIP LOCKED) RETURNING 1), ` +
      `nonces AS (DELETE FROM ${n} WHERE nonce IN (SELECT nonce FROM ${n} WHERE expires_at <= $1::float8 FOR UPDATE SKIP LOCKED) RETURNING 1), ` +
      `proposals AS (DELETE FROM ${p} WHERE proposal_key IN (SELECT proposal_key FROM ${p} WHERE expires_at <= $1::float8 FOR UPDATE SKIP LOCKED) RETURNING 1) ` +
      'SELECT (SELECT count(*) FROM grants) + (SELECT count(*) FROM nonces) + (SELECT count(*) FROM proposals) AS removed',
    putProposal:
      `INSERT INTO ${p} (proposal_key, json, expires_at) VALUES ($1::text, $2::text, $3::float8) ` +
      'ON CONFLICT (proposal_key) DO UPDATE SET json = EXCLUDED.json, expires_at = EXCLUDED.expires_at',
    getProposal: `SELECT json FROM ${p} WHERE proposal_key = $1::text AND (expires_at IS NULL OR expires_at > $2::float8)`,
    deleteProposal: `DELETE FROM ${p} WHERE proposal_key = $1::text`,
    // A page in the order of the primary key's index (the column's collation), one row
    // more than asked.
    listProposalsFirst: `SELECT proposal_key, json FROM ${p} WHERE (expires_at IS NULL OR expires_at > $1::float8) ORDER BY proposal_key LIMIT $2::bigint`,
    listProposalsAfter: `SELECT proposal_key, json FROM ${p} WHERE proposal_key > $3::text AND (expires_at IS NULL OR expires_at > $1::float8) ORDER BY proposal_key LIMIT $2::bigint`,
  };
}

module.exports = { statements, statementName };
