'use strict';
// createRedisGrantStore: grants in Redis through the application's connected client:
// node-redis 4 or later (`sendCommand([...])`) or ioredis (`call(...)`), duck-typed. Every
// operation that writes is one Lua script (EVALSHA, and EVAL when the server does not
// have it cached), so it is atomic; expiry compares with the `now` argument the grants
// give, never the server's clock, and no key is given a Redis TTL.
//
// Keys (P = the prefix, default `tas:grant:`; K = the grant key below):
//   P g:K      hash   the grant records of key K: `n` (the last record number), and for
//                     record i `u<i>` (uses left) and `e<i>` (expiresAt; absent: never)
//   P a:K      hash   field i: the record's argsCanonicalJson
//   P n:NONCE  string the nonce's expiresAt ('' = kept forever)
//   P p:KEY    hash   a kept proposal: `j` (the JSON), `e` (expiresAt; absent: never)
//   P index    zset   every key above that holds something that expires, scored by the
//                     earliest expiry in it: prune() reads it instead of scanning
//   P proposals zset  every kept proposal's KEY (score 0), for listProposals in byte order
// K = <agentName length>:<agentName><toolName length>:<toolName><proposalHash>, then `-`
// for no scope or `+<scope>`. Lengths count UTF-16 units of the stored (encoded) names.

const { escapeName, invalidArgument } = require('../errors');
const P = require('../primordials');
const C = require('./common');
const R = require('./receipt-records');
const { ours } = require('../promises');
// Captured when the package loaded (this module loads at first use).
const emitWarning = P.ProcessEmitWarning;

const { LOADED } = require('./redis-scripts');

const { ArrayIsArray, ObjectDefineProperty, ObjectFreeze, StringPrototypeCharCodeAt, StringPrototypeIsWellFormed, StringPrototypeSlice, isProxy } = P;
const { StringPrototypeIndexOf, ArrayPrototypePush, ArrayPrototypeSlice, SafePromise, SafeSetImmediate, PromiseReject } = P;

function NumberToString(n) {
  return `${n}`;
}

/** How many index entries one prune script looks at (scripts block the server while they run). */
const PRUNE_BATCH = 500;
/** How many members of the listing one listProposals script looks at beyond its limit (expired ones are skipped). */
const LIST_SCAN = 500;

/** A time as the scripts store it: the shortest text that reads back as the same number. */
function timeText(value) {
  return value === null ? '' : NumberToString(value);
}

/** Marks the rejection of a call made after close(). */
const CLOSED = ObjectFreeze({ closed: true });
const BAD_REPLY = ObjectFreeze({ badReply: true });

/** The first word of a Redis error reply (NOSCRIPT, WRONGTYPE, READONLY, ...), if it is one. */
function replyKind(cause) {
  if (cause === null || typeof cause !== 'object' || isProxy(cause)) return undefined;
  const message = C.own(cause, 'message');
  if (typeof message !== 'string') return undefined;
  const space = StringPrototypeIndexOf(message, ' ');
  const word = space === -1 ? message : StringPrototypeSlice(message, 0, space);
  if (word.length === 0 || word.length > 20) return undefined;
  for (let i = 0; i < word.length; i++) {
    const c = StringPrototypeCharCodeAt(word, i);
    if (c < 0x41 || c > 0x5a) return undefined;
  }
  return word;
}

function classify(cause) {
  if (cause === CLOSED) return { code: 'store_closed' };
  if (cause === BAD_REPLY) return { code: 'store_failed', detail: 'bad_reply' };
  return { code: 'store_failed', detail: C.causeCode(cause) ?? replyKind(cause) };
}

/**
 * How to send one command with the client: ioredis's `call(name, ...args)`, else
 * node-redis's `sendCommand([name, ...args])`. The method is read once, here.
 */
function commandSender(client) {
  const callMethod = client.call;
  if (typeof callMethod === 'function') return (args) => C.call(callMethod, client, args);
  const sendCommand = client.sendCommand;
  if (typeof sendCommand === 'function') return (args) => C.call(sendCommand, client, [args]);
  throw invalidArgument('options.client must be a connected node-redis (sendCommand) or ioredis (call) client');
}

/** [verb, script, key count, ...keys, ...args] (built by index: no iterator runs). */
function command(verb, script, keys, args) {
  const list = [verb, script, `${keys.length}`];
  // Defined, not assigned: a setter on Array.prototype for an index is never reached.
  for (let i = 0; i < keys.length; i++)
    ObjectDefineProperty(list, list.length, { __proto__: null, value: keys[i], writable: true, enumerable: true, configurable: true });
  for (let i = 0; i < args.length; i++)
    ObjectDefineProperty(list, list.length, { __proto__: null, value: args[i], writable: true, enumerable: true, configurable: true });
  return list;
}

function isNoScript(cause) {
  return replyKind(cause) === 'NOSCRIPT';
}

/** The value of a CONFIG GET reply: [name, value] (ioredis), { name: value } (node-redis), or undefined. */
function configValue(reply, name) {
  if (ArrayIsArray(reply) && !isProxy(reply)) return reply.length === 2 && reply[0] === name && typeof reply[1] === 'string' ? reply[1] : undefined;
  if (reply === null || typeof reply !== 'object' || isProxy(reply)) return undefined;
  const value = C.own(reply, name);
  return typeof value === 'string' ? value : undefined;
}

/** A key part as stored: a string the client sends as UTF-8 without loss (see common.js). */
function grantKey(q) {
  return `${q.agentName.length}:${q.agentName}${q.toolName.length}:${q.toolName}${q.proposalHash}${q.scope === null ? '-' : `+${q.scope}`}`;
}

function flag(reply) {
  if (reply === 1) return true;
  if (reply === 0) return false;
  throw BAD_REPLY;
}

function done(reply) {
  if (reply !== 1) throw BAD_REPLY;
}

/** A receipt hash's HGETALL reply (a flat list) as a ReceiptRecord, or null when empty. */
function receiptOf(reply) {
  if (reply === 0) return null;
  if (!ArrayIsArray(reply) || isProxy(reply)) throw BAD_REPLY;
  if (reply.length === 0) return null;
  const f = { __proto__: null };
  for (let i = 0; i + 1 < reply.length; i += 2) {
    if (typeof reply[i] !== 'string' || typeof reply[i + 1] !== 'string') throw BAD_REPLY;
    f[reply[i]] = reply[i + 1];
  }
  const run = f.r;
  if (typeof f.a !== 'string' || typeof f.c !== 'string' || typeof f.i !== 'string' || typeof run !== 'string' || run.length === 0) throw BAD_REPLY;
  const record = R.receiptFromRow({
    agentName: f.a,
    runId: run === '-' ? null : StringPrototypeSlice(run, 1),
    toolCallId: f.c,
    proposalHash: f.h,
    claimId: f.i,
    status: f.s,
    claimedAt: f.t,
    leaseExpiresAt: f.l,
    completedAt: f.d,
    resultJson: f.j,
    expiresAt: f.e,
  });
  record.claimId = C.decodeText(record.claimId);
  return record;
}

/**
 * The process warning (code TAS_REDIS_NOT_DURABLE) for a server that does not keep what it
 * acknowledged, from what CONFIG GET answered (checkDurability below).
 */
function warnIfNotDurable(where, found) {
  const evicts = typeof found.policy === 'string' && StringPrototypeSlice(found.policy, 0, 8) === 'allkeys-';
  // appendfsync everysec (Redis's default) or no acknowledges writes the disk may not hold yet.
  const lazyFsync = found.appendonly === 'yes' && (found.fsync === 'everysec' || found.fsync === 'no');
  if (found.appendonly === 'no' || lazyFsync || evicts) {
    const cause =
      found.appendonly === 'no'
        ? 'does not write an append-only file (appendonly no)'
        : lazyFsync
          ? `acknowledges writes before they reach the disk (appendfsync ${found.fsync})`
          : `evicts keys (maxmemory-policy ${found.policy})`;
    emitWarning(
      `${where}: the Redis server ${cause}: ` +
        "after a restart or an eviction, a spent use or a granted seal's nonce can be forgotten and an approval run again. " +
        'Use appendonly yes with appendfsync always, maxmemory-policy noeviction (or volatile-*), and no asynchronous failover (docs/stores.md).',
      { type: 'Warning', code: 'TAS_REDIS_NOT_DURABLE' },
    );
  }
}

/**
 * An ApprovalGrantStore in Redis through `options.client` (connected; never closed by the
 * store). `options.prefix` (default `tas:grant:`) starts every key; `options.timeoutMs`
 * (default 5000) bounds every call (a disconnected client that queues commands is
 * answered by the timeout).
 */
function createRedisGrantStore(options) {
  const opts = C.readOptions(options, 'createRedisGrantStore');
  const client = C.own(opts, 'client');
  if (client === null || typeof client !== 'object' || isProxy(client)) {
    throw invalidArgument('options.client must be a connected node-redis (sendCommand) or ioredis (call) client');
  }
  const send = commandSender(client);
  let prefix = C.own(opts, 'prefix');
  if (prefix === undefined) prefix = C.DEFAULT_PREFIX;
  else if (typeof prefix !== 'string' || prefix.length === 0 || !StringPrototypeIsWellFormed(prefix)) {
    throw invalidArgument('options.prefix must be a non-empty well-formed string');
  }
  const timeoutMs = C.readTimeout(C.own(opts, 'timeoutMs'));
  const where = `Redis grant store (prefix "${escapeName(prefix)}")`;
  const index = `${prefix}index`;
  const receiptIndex = `${prefix}rindex`;
  const proposalSet = `${prefix}proposals`;
  let closed = false;
  let durabilityChecked = false;

  /**
   * Once, at the first write: whether the server keeps what it acknowledged. A spent use
   * or a recorded nonce lost to a restart (RDB snapshots without the append-only file) or
   * to eviction is a grant that can run again. A server that does not keep them gets one
   * process warning (code TAS_REDIS_NOT_DURABLE); one that refuses CONFIG (managed Redis
   * often does) is not judged. Nothing waits for this check.
   */
  function checkDurability() {
    if (durabilityChecked || closed) return;
    durabilityChecked = true;
    // Sent from inside C.then: a client whose command throws rejects, it never throws here.
    const settings = C.then(undefined, () =>
      C.then(send(['CONFIG', 'GET', 'appendonly']), (appendonly) =>
        C.then(send(['CONFIG', 'GET', 'appendfsync']), (fsync) =>
          C.then(send(['CONFIG', 'GET', 'maxmemory-policy']), (policy) => ({
            appendonly: configValue(appendonly, 'appendonly'),
            fsync: configValue(fsync, 'appendfsync'),
            policy: configValue(policy, 'maxmemory-policy'),
          })),
        ),
      ),
    );
    C.then(
      settings,
      (found) => warnIfNotDurable(where, found),
      () => undefined,
    );
  }

  /** EVALSHA, and EVAL when the server has not cached the script (a restart, SCRIPT FLUSH). */
  function script(name, keys, args) {
    if (closed) throw CLOSED;
    const loaded = LOADED[name];
    return C.then(send(command('EVALSHA', loaded.sha, keys, args)), undefined, (cause) => {
      if (!isNoScript(cause) || closed) throw cause;
      return send(command('EVAL', loaded.text, keys, args));
    });
  }

  function run(operation, start) {
    return C.run(where, operation, timeoutMs, classify, start);
  }

  function grantKeys(q) {
    const k = grantKey(q);
    return [`${prefix}g:${k}`, `${prefix}a:${k}`, index];
  }

  function receiptKeys(key) {
    return [`${prefix}r:${R.receiptId(key)}`, receiptIndex];
  }

  /** What the grant and the receipt operations below are given of this store. */
  const conn = ObjectFreeze({
    __proto__: null,
    send,
    script,
    run,
    checkDurability,
    grantKeys,
    receiptKeys,
    prefix,
    index,
    receiptIndex,
    proposalSet,
    isClosed: () => closed,
  });
  return ObjectFreeze({
    ...redisGrants(conn),
    ...redisReceipts(conn),
    /** Later calls reject (store_closed); the client stays connected: it is the application's. */
    close: C.method(() => {
      closed = true;
      return C.then(undefined, () => undefined);
    }),
  });
}

/** The grant and kept-proposal operations of one Redis store over its connection. */
function redisGrants(conn) {
  const { send, script, run, checkDurability, grantKeys, isClosed, prefix, index, proposalSet } = conn;

  async function prune(now) {
    let removed = 0;
    for (;;) {
      // script() answers the package's own promise (C.then): adopted without a lookup.
      const reply = await ours(script('prune', [index], [NumberToString(now), `${PRUNE_BATCH}`]));
      if (!ArrayIsArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') throw BAD_REPLY;
      removed += reply[0];
      if (reply[1] < PRUNE_BATCH) return removed;
    }
  }

  return {
    put: C.method((record, now) => {
      const r = C.readRecord(record);
      const t = C.readNow(now);
      const keys = grantKeys(r);
      if (r.nonce !== null)
        ObjectDefineProperty(keys, 3, { __proto__: null, value: `${prefix}n:${r.nonce}`, writable: true, enumerable: true, configurable: true });
      const args = [`${r.uses}`, timeText(r.expiresAt), r.argsCanonicalJson, NumberToString(t), timeText(r.nonceExpiresAt)];
      checkDurability();
      return run('put', () => C.then(script('put', keys, args), flag));
    }),
    has: C.method((query, now) => {
      const q = C.readQuery(query);
      const t = C.readNow(now);
      return run('has', () => C.then(script('has', [grantKeys(q)[0]], [NumberToString(t)]), flag));
    }),
    take: C.method((query, now) => {
      const q = C.readQuery(query);
      const t = C.readNow(now);
      return run('take', () => C.then(script('take', grantKeys(q), [NumberToString(t)]), flag));
    }),
    delete: C.method((query) => {
      const q = C.readQuery(query);
      return run('delete', () => C.then(script('delete', grantKeys(q), []), done));
    }),
    prune: C.method((now) => {
      const t = C.readNow(now);
      return run('prune', () => prune(t));
    }),
    putProposal: C.method((key, json, expiresAt) => {
      const stored = C.readProposalKey(key);
      const keys = [`${prefix}p:${stored}`, index, proposalSet];
      const args = [C.encodeText(C.readString(json, 'json')), timeText(C.readTime(expiresAt, 'expiresAt')), stored];
      return run('putProposal', () => C.then(script('putProposal', keys, args), done));
    }),
    getProposal: C.method((key, now) => {
      const name = `${prefix}p:${C.readProposalKey(key)}`;
      const t = C.readNow(now);
      return run('getProposal', () => {
        if (isClosed()) throw CLOSED;
        return C.then(send(['HMGET', name, 'j', 'e']), (reply) => {
          if (!ArrayIsArray(reply)) throw BAD_REPLY;
          const json = reply[0];
          const expiresAt = reply[1];
          if (typeof json !== 'string') return null;
          if (typeof expiresAt === 'string' && !(t < +expiresAt)) return null;
          return C.decodeText(json);
        });
      });
    }),
    deleteProposal: C.method((key) => {
      const stored = C.readProposalKey(key);
      const keys = [`${prefix}p:${stored}`, index, proposalSet];
      return run('deleteProposal', () => C.then(script('deleteProposal', keys, [stored]), done));
    }),
    listProposals: C.method((after, limit, now) => {
      const a = C.readListAfter(after);
      const n = C.readListLimit(limit);
      const t = C.readNow(now);
      const args = [a === null ? '' : `+${a}`, `${n}`, NumberToString(t), `${n + LIST_SCAN}`];
      return run('listProposals', () =>
        C.then(script('listProposals', [proposalSet], args), (reply) => {
          if (!ArrayIsArray(reply) || isProxy(reply) || reply.length !== 3) throw BAD_REPLY;
          const more = reply[0];
          const last = reply[1];
          const flat = reply[2];
          if ((more !== 0 && more !== 1) || typeof last !== 'string' || !ArrayIsArray(flat) || isProxy(flat) || flat.length % 2 !== 0) throw BAD_REPLY;
          const keys = [];
          const jsons = [];
          for (let i = 0; i < flat.length / 2; i++) {
            if (typeof flat[2 * i] !== 'string' || typeof flat[2 * i + 1] !== 'string') throw BAD_REPLY;
            keys[i] = flat[2 * i];
            jsons[i] = flat[2 * i + 1];
          }
          return C.proposalPage(keys, jsons, more === 1 ? last : null);
        }),
      );
    }),
  };
}

/**
 * The receipt keys this store has a claim or a completion in flight for (issue 35), as the
 * PostgreSQL store's batches keep them: a claim of such a key waits until the key is free,
 * then goes at the event loop's next check phase (so that the completion which the first
 * claim's answer let a handler send is in flight by then and is waited for too). Two claims
 * of one key sent at once by one process (two retries of one call) then read the first
 * call's outcome when its handler is done by then, instead of `execution_in_progress`.
 * `sendWhenFree(key, start)` calls `start()` (a promise of the script's reply) once `key` is
 * free; `sendNow(key, start)` at once, marking the key busy until it settles.
 */
function keyQueue() {
  const busy = { __proto__: null };
  const waiting = { __proto__: null };

  function release(list) {
    for (let i = 0; i < list.length; i++) list[i]();
  }

  function sendNow(key, start) {
    const sent = start();
    busy[key] = (busy[key] ?? 0) + 1;
    const done = () => {
      busy[key] -= 1;
      if (busy[key] !== 0) return;
      delete busy[key];
      const list = waiting[key];
      if (list === undefined) return;
      delete waiting[key];
      SafeSetImmediate(release, list);
    };
    C.then(sent, done, done);
    return sent;
  }

  function sendWhenFree(key, start) {
    if (busy[key] === undefined) return sendNow(key, start);
    return new SafePromise((resolve, reject) => {
      const list = waiting[key] ?? (waiting[key] = []);
      ArrayPrototypePush(list, () => {
        // Settled through C.then (hook-free): resolve() is never handed a promise.
        let sent;
        try {
          sent = sendWhenFree(key, start);
        } catch (cause) {
          reject(cause);
          return;
        }
        C.then(sent, resolve, reject);
      });
    });
  }

  return { sendNow, sendWhenFree };
}

/** At most this many claims, or completions, go in one script. */
const MAX_BATCH = 256;

/**
 * The claims and completions of one Redis store, batched per turn of the event loop (issue
 * 35): what is queued until the next check phase goes as one script each (claimReceipts,
 * completeReceipts, which run each item as the single scripts do, in order; the single
 * scripts when one item waits), and each caller is answered its own reply. The client
 * pipelines the two scripts into one write. `claim(keys, args)` and `complete(keys, args)`
 * resolve with the item's reply as the single script gives it.
 */
function writeBatches(script, receiptIndex) {
  let claims = [];
  let completions = [];
  let scheduled = false;

  function sendBatch(batch, single, multi, width) {
    let sent;
    try {
      if (batch.length === 1) {
        sent = C.then(script(single, batch[0].keys, batch[0].args), (reply) => [reply]);
      } else {
        const keys = [receiptIndex];
        const args = [];
        for (let i = 0; i < batch.length; i++) {
          ArrayPrototypePush(keys, batch[i].keys[0]);
          const itemArgs = batch[i].args;
          for (let j = 0; j < width; j++) ArrayPrototypePush(args, itemArgs[j]);
        }
        sent = C.then(script(multi, keys, args), (reply) => {
          if (!ArrayIsArray(reply) || isProxy(reply) || reply.length !== batch.length) throw BAD_REPLY;
          return reply;
        });
      }
    } catch (cause) {
      sent = PromiseReject(cause);
    }
    C.then(
      sent,
      (replies) => {
        for (let i = 0; i < batch.length; i++) batch[i].resolve(replies[i]);
      },
      (cause) => {
        for (let i = 0; i < batch.length; i++) batch[i].reject(cause);
      },
    );
  }

  function flush() {
    scheduled = false;
    const claimBatch = claims.length > MAX_BATCH ? ArrayPrototypeSlice(claims, 0, MAX_BATCH) : claims;
    const completeBatch = completions.length > MAX_BATCH ? ArrayPrototypeSlice(completions, 0, MAX_BATCH) : completions;
    claims = claims.length > MAX_BATCH ? ArrayPrototypeSlice(claims, MAX_BATCH) : [];
    completions = completions.length > MAX_BATCH ? ArrayPrototypeSlice(completions, MAX_BATCH) : [];
    if (claims.length > 0 || completions.length > 0) schedule();
    if (completeBatch.length > 0) sendBatch(completeBatch, 'completeReceipt', 'completeReceipts', 6);
    if (claimBatch.length > 0) sendBatch(claimBatch, 'claimReceipt', 'claimReceipts', 9);
  }

  function schedule() {
    if (scheduled) return;
    scheduled = true;
    SafeSetImmediate(flush);
  }

  function queued(queue, keys, args) {
    return new SafePromise((resolve, reject) => {
      ArrayPrototypePush(queue === 'claim' ? claims : completions, { keys, args, resolve, reject });
      schedule();
    });
  }

  return {
    claim: (keys, args) => queued('claim', keys, args),
    complete: (keys, args) => queued('complete', keys, args),
  };
}

/** The receipt operations of one Redis store over its connection. */
function redisReceipts(conn) {
  const { script, run, checkDurability, grantKeys, receiptKeys, receiptIndex } = conn;
  const { sendNow, sendWhenFree } = keyQueue();
  const batches = writeBatches(script, receiptIndex);

  async function pruneReceipts(now) {
    let removed = 0;
    for (;;) {
      const reply = await ours(script('pruneReceipts', [receiptIndex], [NumberToString(now), `${PRUNE_BATCH}`]));
      if (!ArrayIsArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') throw BAD_REPLY;
      removed += reply[0];
      if (reply[1] < PRUNE_BATCH) return removed;
    }
  }

  return {
    // Receipts (docs/stores.md): a hash per receipt key, one script each.
    claimReceipt: C.method((claim, now) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const args = [
        C.encodeText(c.agentName),
        c.runId === null ? '-' : `+${C.encodeText(c.runId)}`,
        C.encodeText(c.toolCallId),
        c.proposalHash,
        C.encodeText(c.claimId),
        NumberToString(c.claimedAt),
        NumberToString(c.leaseExpiresAt),
        NumberToString(c.expiresAt),
        NumberToString(t),
      ];
      checkDurability();
      const keys = receiptKeys(c);
      return run('claimReceipt', () =>
        C.then(
          sendWhenFree(keys[0], () => batches.claim(keys, args)),
          (reply) => {
            if (reply === 0) return null;
            const record = receiptOf(reply);
            if (record === null) throw BAD_REPLY;
            return record;
          },
        ),
      );
    }),
    claimReceiptAndTake: C.method((claim, now, query, grantNow) => {
      const c = R.readReceiptClaim(claim);
      const t = R.readReceiptNow(now);
      const q = C.readQuery(query);
      const gt = C.readNow(grantNow);
      const args = [
        C.encodeText(c.agentName),
        c.runId === null ? '-' : `+${C.encodeText(c.runId)}`,
        C.encodeText(c.toolCallId),
        c.proposalHash,
        C.encodeText(c.claimId),
        NumberToString(c.claimedAt),
        NumberToString(c.leaseExpiresAt),
        NumberToString(c.expiresAt),
        NumberToString(t),
        NumberToString(gt),
      ];
      const rkeys = receiptKeys(c);
      const gkeys = grantKeys(q);
      checkDurability();
      return run('claimReceiptAndTake', () =>
        C.then(script('claimReceiptAndTake', [rkeys[0], rkeys[1], gkeys[0], gkeys[1], gkeys[2]], args), (reply) => {
          if (reply === 1) return null;
          if (reply === 0) return false;
          const record = receiptOf(reply);
          if (record === null) throw BAD_REPLY;
          return record;
        }),
      );
    }),
    completeReceipt: C.method((outcome, now) => {
      const o = R.readReceiptOutcome(outcome);
      R.readReceiptNow(now);
      const args = [
        C.encodeText(o.claimId),
        o.status,
        NumberToString(o.completedAt),
        o.resultJson === null ? '0' : '1',
        o.resultJson === null ? '' : C.encodeText(o.resultJson),
        NumberToString(o.expiresAt),
      ];
      const keys = receiptKeys(o);
      return run('completeReceipt', () =>
        C.then(
          sendNow(keys[0], () => batches.complete(keys, args)),
          flag,
        ),
      );
    }),
    releaseReceipt: C.method((release, now) => {
      const r = R.readReceiptRelease(release);
      R.readReceiptNow(now);
      return run('releaseReceipt', () => C.then(script('releaseReceipt', receiptKeys(r), [C.encodeText(r.claimId)]), flag));
    }),
    getReceipt: C.method((key, now) => {
      const keys = receiptKeys(R.readReceiptKey(key));
      const t = R.readReceiptNow(now);
      return run('getReceipt', () =>
        C.then(script('getReceipt', [keys[0]], []), (reply) => {
          const record = receiptOf(reply);
          // An unfinished claim is kept whatever its retention says; an outcome, until it.
          return record === null || (record.status !== 'in_progress' && !(t < record.expiresAt)) ? null : record;
        }),
      );
    }),
    deleteReceipt: C.method((key) => {
      const keys = receiptKeys(R.readReceiptKey(key));
      return run('deleteReceipt', () => C.then(script('deleteReceipt', keys, []), flag));
    }),
    pruneReceipts: C.method((now) => {
      const t = R.readReceiptNow(now);
      return run('pruneReceipts', () => pruneReceipts(t));
    }),
  };
}

module.exports = { createRedisGrantStore };
