'use strict';
// The Lua scripts of the Redis grant store (./redis.js, which documents the keys they use).
// Every operation that writes is one script, so it is atomic; times are compared with the
// `now` argument the grants give, never the server's clock.

const P = require('../primordials');

const { ObjectFreeze } = P;

// Lua shared by the scripts. `records` reads a grant hash into uses/expiry tables keyed by
// record number (expiry kept as the stored string too, so it is written back exactly);
// `before` orders live records: the earliest expiry first, never-expiring last, then the
// oldest; `settle` removes the given records and re-indexes what is left.
// Receipts (the hash below claimReceipt): `refusal` is the stored record that refuses a claim
// at `now` (an outcome within its retention, or an unfinished claim whatever its retention),
// or nil; `claim` writes the claim of ARGV[b + 1] to ARGV[b + 8] and indexes it; `complete`
// records the outcome of ARGV[b + 1] to ARGV[b + 6] when the claim is still that one's, 1,
// else 0. The single scripts pass b = 0; the batch scripts one offset per item.
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
local function refusal(key, now)
  local e = redis.call('HGET', key, 'e')
  if e and (tonumber(now) < tonumber(e) or redis.call('HGET', key, 's') == 'in_progress') then return redis.call('HGETALL', key) end
  return nil
end
local function claim(key, index, b)
  redis.call('DEL', key)
  redis.call('HSET', key, 'a', ARGV[b + 1], 'r', ARGV[b + 2], 'c', ARGV[b + 3], 'h', ARGV[b + 4], 'i', ARGV[b + 5], 's', 'in_progress', 't', ARGV[b + 6], 'l', ARGV[b + 7], 'e', ARGV[b + 8])
  redis.call('ZADD', index, ARGV[b + 8], key)
end
local function complete(key, index, b)
  if redis.call('HGET', key, 's') ~= 'in_progress' or redis.call('HGET', key, 'i') ~= ARGV[b + 1] then return 0 end
  redis.call('HSET', key, 's', ARGV[b + 2], 'd', ARGV[b + 3], 'e', ARGV[b + 6])
  if ARGV[b + 4] == '1' then redis.call('HSET', key, 'j', ARGV[b + 5]) end
  redis.call('ZADD', index, ARGV[b + 6], key)
  return 1
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
      redis.call('ZREM', base .. 'proposals', string.sub(m, #base + 3))
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
  // KEYS proposal, index, proposals (the listing); ARGV json, expiresAt|'', the proposal key
  putProposal: `
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[3], 0, ARGV[3])
if ARGV[2] == '' then
  redis.call('HSET', KEYS[1], 'j', ARGV[1])
  redis.call('ZREM', KEYS[2], KEYS[1])
else
  redis.call('HSET', KEYS[1], 'j', ARGV[1], 'e', ARGV[2])
  redis.call('ZADD', KEYS[2], ARGV[2], KEYS[1])
end
return 1`,
  // Receipts: KEYS receipt, receipts index. A receipt is a hash: a agentName, r runKey
  // ('-' null, '+' and the runId), c toolCallId, h proposalHash, i claimId, s status,
  // t claimedAt, l leaseExpiresAt, d completedAt (absent: null), j resultJson (absent:
  // null), e expiresAt; scored by e in the receipts index.
  // ARGV agentName, runKey, toolCallId, proposalHash, claimId, claimedAt, leaseExpiresAt, expiresAt, now.
  // Returns 0 when claimed, else the stored record's HGETALL: an outcome within its
  // retention, or an unfinished claim (in_progress) whatever its retention says.
  claimReceipt: `
local refused = refusal(KEYS[1], ARGV[9])
if refused then return refused end
claim(KEYS[1], KEYS[2], 0)
return 0`,
  // Claims sent in one turn of the event loop (issue 35): KEYS receipts index, then each
  // claim's receipt; ARGV nine per claim, as claimReceipt's. Each claim as claimReceipt
  // runs it, in order; returns one reply per claim (0 or the record that refuses it).
  claimReceipts: `
local out = {}
for n = 2, #KEYS do
  local b = (n - 2) * 9
  local refused = refusal(KEYS[n], ARGV[b + 9])
  if refused then
    out[n - 1] = refused
  else
    claim(KEYS[n], KEYS[1], b)
    out[n - 1] = 0
  end
end
return out`,
  // The claim and one use of a grant together. KEYS receipt, receipts index, meta, args,
  // index; ARGV as claimReceipt's, then the grants' now. Returns the receipt that refuses
  // the claim (nothing stored, no use taken), 0 when no live grant is left (nothing
  // claimed), or 1: claimed and one use taken.
  claimReceiptAndTake: `
local key, rindex, meta, args, index = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local refused = refusal(key, ARGV[9])
if refused then return refused end
local now = tonumber(ARGV[10])
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
claim(key, rindex, 0)
return 1`,
  // ARGV claimId, status, completedAt, hasResult ('1'/'0'), resultJson, expiresAt
  completeReceipt: `
return complete(KEYS[1], KEYS[2], 0)`,
  // Completions sent in one turn of the event loop: KEYS receipts index, then each
  // completion's receipt; ARGV six per completion, as completeReceipt's. Returns 0 or 1 per
  // completion, in order.
  completeReceipts: `
local out = {}
for n = 2, #KEYS do
  out[n - 1] = complete(KEYS[n], KEYS[1], (n - 2) * 6)
end
return out`,
  // ARGV claimId
  releaseReceipt: `
local key, index = KEYS[1], KEYS[2]
if redis.call('HGET', key, 's') ~= 'in_progress' or redis.call('HGET', key, 'i') ~= ARGV[1] then return 0 end
redis.call('DEL', key)
redis.call('ZREM', index, key)
return 1`,
  // KEYS receipt (reads only)
  getReceipt: `
return redis.call('HGETALL', KEYS[1])`,
  deleteReceipt: `
local gone = redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
return gone`,
  // KEYS receipts index; ARGV now, batch size. Returns { removed, members looked at }.
  // An unfinished claim (in_progress) is kept: it leaves the index (completeReceipt puts
  // it back with its outcome's retention), so each batch makes progress.
  pruneReceipts: `
local index = KEYS[1]
local now = tonumber(ARGV[1])
local members = redis.call('ZRANGEBYSCORE', index, '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
local removed = 0
for _, m in ipairs(members) do
  local e = redis.call('HGET', m, 'e')
  if e and redis.call('HGET', m, 's') == 'in_progress' then
    redis.call('ZREM', index, m)
  elseif e and now >= tonumber(e) then
    redis.call('DEL', m)
    removed = removed + 1
    redis.call('ZREM', index, m)
  elseif e then
    redis.call('ZADD', index, e, m)
  else
    redis.call('ZREM', index, m)
  end
end
return { removed, #members }`,
  // KEYS proposal, index, proposals; ARGV the proposal key
  deleteProposal: `
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[1])
return 1`,
  // KEYS proposals; ARGV after ('' from the first), limit, now, how many members to look
  // at most. Reads only. Returns { more (1/0), the last member looked at, key, json, ... }:
  // live proposals in the byte order of their keys; members whose hash is gone or expired
  // are skipped (prune removes them).
  listProposals: `
local set = KEYS[1]
local base = string.sub(set, 1, -10)
local min = '-'
if ARGV[1] ~= '' then min = '(' .. string.sub(ARGV[1], 2) end
local limit, now, most = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local members = redis.call('ZRANGEBYLEX', set, min, '+', 'LIMIT', 0, most)
local out, found, last = {}, 0, ''
local more = 0
if #members == most then more = 1 end
for i, m in ipairs(members) do
  if found == limit then more = 1; break end
  last = m
  local f = redis.call('HMGET', base .. 'p:' .. m, 'j', 'e')
  if f[1] and (not f[2] or now < tonumber(f[2])) then
    out[#out + 1] = m
    out[#out + 1] = f[1]
    found = found + 1
  end
end
return { more, last, out }`,
};

/**
 * Each script's text (the shared Lua first) and SHA-1 (the name EVALSHA runs it by), made
 * once at load. This module loads with the Redis store, at its first use: node:crypto
 * (the only SHA-1 here; the addon has none) is loaded then, not with the package. A SHA-1
 * that named no script Redis has cached only costs an EVAL of the text (./redis.js).
 */
const { createHash } = require('node:crypto');
const NAMES = [
  'put',
  'has',
  'take',
  'delete',
  'prune',
  'putProposal',
  'deleteProposal',
  'listProposals',
  'claimReceipt',
  'claimReceipts',
  'claimReceiptAndTake',
  'completeReceipt',
  'completeReceipts',
  'releaseReceipt',
  'getReceipt',
  'deleteReceipt',
  'pruneReceipts',
];
const LOADED = {};
for (let i = 0; i < NAMES.length; i++) {
  const name = NAMES[i];
  const text = LUA_COMMON + SCRIPTS[name];
  LOADED[name] = ObjectFreeze({ text, sha: createHash('sha1').update(text).digest('hex') });
}
ObjectFreeze(LOADED);

module.exports = { LOADED };
