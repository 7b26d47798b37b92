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
// K = <agentName length>:<agentName><toolName length>:<toolName><proposalHash>, then `-`
// for no scope or `+<scope>`. Lengths count UTF-16 units of the stored (encoded) names.

const { escapeName, invalidArgument } = require('../../errors');
const P = require('../../primordials');
const C = require('./common');
const { ours } = require('../../promises');
const emitWarning = process.emitWarning;

const { createHash } = require('node:crypto');

const { ArrayIsArray, ObjectDefineProperty, ObjectFreeze, StringPrototypeCharCodeAt, StringPrototypeIsWellFormed, StringPrototypeSlice, isProxy } = P;
const uncurryThis = Function.prototype.bind.bind(Function.prototype.call);
const StringPrototypeIndexOf = uncurryThis(String.prototype.indexOf);

function NumberToString(n) {
  return `${n}`;
}

// Lua shared by the scripts. `records` reads a grant hash into uses/expiry tables keyed by
// record number (expiry kept as the stored string too, so it is written back exactly);
// `before` orders live records: the earliest expiry first, never-expiring last, then the
// oldest; `settle` removes the given records and re-indexes what is left.
const LUA_COMMON = `
local function records(meta)
  local h = redis.call('HGETALL', meta)
  local uses, exp, raw = {}, {}, {}
  for i = 1, #h, 2 do
    local f, v = h[i], h[i + 1]
    local t = string.sub(f, 1, 1)
    if t == 'u' then uses[string.sub(f, 2)] = tonumber(v)
    elseif t == 'e' then exp[string.sub(f, 2)] = tonumber(v); raw[string.sub(f, 2)] = v end
  end
  return uses, exp, raw
end
local function live(u, e, now)
  return u > 0 and (e == nil or now < e)
end
local function before(e, n, e2, n2)
  if e ~= e2 then
    if e == nil then return false end
    if e2 == nil then return true end
    return e < e2
  end
  return n < n2
end
local function drop(meta, args, id)
  redis.call('HDEL', meta, 'u' .. id, 'e' .. id)
  redis.call('HDEL', args, id)
end
local function reindex(meta, args, index, uses, exp, raw)
  local any, min, minRaw = false, nil, nil
  for id, _ in pairs(uses) do
    any = true
    local e = exp[id]
    if e ~= nil and (min == nil or e < min) then min, minRaw = e, raw[id] end
  end
  if not any then
    redis.call('DEL', meta, args)
    redis.call('ZREM', index, meta)
  elseif min == nil then
    redis.call('ZREM', index, meta)
  else
    redis.call('ZADD', index, minRaw, meta)
  end
end
local function sweep(meta, args, index, uses, exp, raw, now)
  local removed = 0
  for id, u in pairs(uses) do
    if not live(u, exp[id], now) then
      drop(meta, args, id)
      uses[id] = nil
      removed = removed + 1
    end
  end
  return removed
end
`;

const SCRIPTS = {
  // KEYS meta, args, index[, nonce]; ARGV uses, expiresAt|'', argsCanonicalJson, now, nonceExpiresAt|''
  put: `
local meta, args, index, nonce = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
if nonce then
  local kept = redis.call('GET', nonce)
  if kept and (kept == '' or tonumber(ARGV[4]) < tonumber(kept)) then return 0 end
  redis.call('SET', nonce, ARGV[5])
  if ARGV[5] == '' then redis.call('ZREM', index, nonce) else redis.call('ZADD', index, ARGV[5], nonce) end
end
local id = redis.call('HINCRBY', meta, 'n', 1)
redis.call('HSET', meta, 'u' .. id, ARGV[1])
if ARGV[2] ~= '' then
  redis.call('HSET', meta, 'e' .. id, ARGV[2])
  local score = redis.call('ZSCORE', index, meta)
  if not score or tonumber(ARGV[2]) < tonumber(score) then redis.call('ZADD', index, ARGV[2], meta) end
end
redis.call('HSET', args, id, ARGV[3])
return 1`,
  // KEYS meta; ARGV now (reads only)
  has: `
local uses, exp = records(KEYS[1])
local now = tonumber(ARGV[1])
for id, u in pairs(uses) do
  if live(u, exp[id], now) then return 1 end
end
return 0`,
  // KEYS meta, args, index; ARGV now
  take: `
local meta, args, index = KEYS[1], KEYS[2], KEYS[3]
local now = tonumber(ARGV[1])
local uses, exp, raw = records(meta)
if next(uses) == nil then return 0 end
sweep(meta, args, index, uses, exp, raw, now)
local best, bestN
for id, u in pairs(uses) do
  local n = tonumber(id)
  if best == nil or before(exp[id], n, exp[best], bestN) then best, bestN = id, n end
end
if best ~= nil then
  if uses[best] <= 1 then
    drop(meta, args, best)
    uses[best] = nil
  else
    redis.call('HINCRBY', meta, 'u' .. best, -1)
  end
end
reindex(meta, args, index, uses, exp, raw)
if best == nil then return 0 end
return 1`,
  // KEYS meta, args, index
  delete: `
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], KEYS[1])
return 1`,
  // KEYS index; ARGV now, batch size. Returns { removed, members looked at }.
  prune: `
local index = KEYS[1]
local base = string.sub(index, 1, -6)
local now = tonumber(ARGV[1])
local members = redis.call('ZRANGEBYSCORE', index, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local removed = 0
for _, m in ipairs(members) do
  local kind = string.sub(m, #base + 1, #base + 2)
  if kind == 'g:' then
    local args = base .. 'a:' .. string.sub(m, #base + 3)
    local uses, exp, raw = records(m)
    removed = removed + sweep(m, args, index, uses, exp, raw, now)
    reindex(m, args, index, uses, exp, raw)
  elseif kind == 'n:' then
    local kept = redis.call('GET', m)
    if kept and kept ~= '' and now >= tonumber(kept) then
      redis.call('DEL', m)
      removed = removed + 1
      redis.call('ZREM', index, m)
    elseif kept and kept ~= '' then
      redis.call('ZADD', index, kept, m)
    else
      redis.call('ZREM', index, m)
    end
  elseif kind == 'p:' then
    local e = redis.call('HGET', m, 'e')
    if e and now >= tonumber(e) then
      redis.call('DEL', m)
      removed = removed + 1
      redis.call('ZREM', index, m)
    elseif e then
      redis.call('ZADD', index, e, m)
    else
      redis.call('ZREM', index, m)
    end
  else
    redis.call('ZREM', index, m)
  end
end
return { removed, #members }`,
  // KEYS proposal, index; ARGV json, expiresAt|''
  putProposal: `
redis.call('DEL', KEYS[1])
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 'j', ARGV[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
else
  redis.call('HSET', KEYS[1], 'j', ARGV[1], 'e', ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
end
return 1`,
  // KEYS proposal, index
  deleteProposal: `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return 1`,
};

/** Each script's text (the shared Lua first) and SHA-1, made once at load. */
const LOADED = {};
for (const name of ['put', 'has', 'take', 'delete', 'prune', 'putProposal', 'deleteProposal']) {
  const text = LUA_COMMON + SCRIPTS[name];
  LOADED[name] = ObjectFreeze({ text, sha: createHash('sha1').update(text).digest('hex') });
}
ObjectFreeze(LOADED);

/** How many index entries one prune script looks at (scripts block the server while they run). */
const PRUNE_BATCH = 500;

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
  for (let i = 0; i < keys.length; i++) ObjectDefineProperty(list, list.length, { __proto__: null, value: keys[i], writable: true, enumerable: true, configurable: true });
  for (let i = 0; i < args.length; i++) ObjectDefineProperty(list, list.length, { __proto__: null, value: args[i], writable: true, enumerable: true, configurable: true });
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
    const settings = C.then(undefined, () => C.then(send(['CONFIG', 'GET', 'appendonly']), (appendonly) =>
      C.then(send(['CONFIG', 'GET', 'maxmemory-policy']), (policy) => ({
        appendonly: configValue(appendonly, 'appendonly'), policy: configValue(policy, 'maxmemory-policy'),
      }))));
    C.then(settings, (found) => {
      const evicts = typeof found.policy === 'string' && StringPrototypeSlice(found.policy, 0, 8) === 'allkeys-';
      if (found.appendonly === 'no' || evicts) {
        emitWarning(
          `${where}: the Redis server ${found.appendonly === 'no' ? 'does not write an append-only file (appendonly no)' : `evicts keys (maxmemory-policy ${found.policy})`}: ` +
            'after a restart or an eviction, a spent use or a granted seal\'s nonce can be forgotten and an approval run again. ' +
            'Use appendonly yes with appendfsync always, maxmemory-policy noeviction (or volatile-*), and no asynchronous failover (docs/stores.md).',
          { type: 'Warning', code: 'TAS_REDIS_NOT_DURABLE' },
        );
      }
    }, () => undefined);
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

  function flag(reply) {
    if (reply === 1) return true;
    if (reply === 0) return false;
    throw BAD_REPLY;
  }

  function done(reply) {
    if (reply !== 1) throw BAD_REPLY;
  }

  function grantKeys(q) {
    const k = grantKey(q);
    return [`${prefix}g:${k}`, `${prefix}a:${k}`, index];
  }

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

  return ObjectFreeze({
    put: C.method((record, now) => {
      const r = C.readRecord(record);
      const t = C.readNow(now);
      const keys = grantKeys(r);
      if (r.nonce !== null) ObjectDefineProperty(keys, 3, { __proto__: null, value: `${prefix}n:${r.nonce}`, writable: true, enumerable: true, configurable: true });
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
      const keys = [`${prefix}p:${C.readProposalKey(key)}`, index];
      const args = [C.encodeText(C.readString(json, 'json')), timeText(C.readTime(expiresAt, 'expiresAt'))];
      return run('putProposal', () => C.then(script('putProposal', keys, args), done));
    }),
    getProposal: C.method((key, now) => {
      const name = `${prefix}p:${C.readProposalKey(key)}`;
      const t = C.readNow(now);
      return run('getProposal', () => {
        if (closed) throw CLOSED;
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
      const keys = [`${prefix}p:${C.readProposalKey(key)}`, index];
      return run('deleteProposal', () => C.then(script('deleteProposal', keys, []), done));
    }),
    /** Later calls reject (store_closed); the client stays connected: it is the application's. */
    close: C.method(() => {
      closed = true;
      return C.then(undefined, () => undefined);
    }),
  });
}

module.exports = { createRedisGrantStore };
