'use strict';
// The requestState of an approval across a 2026-07-28 retry (docs/mcp-server.md, "Approvals
// across the retry"). The state is a proposal sealed by the grants' key ring (HMAC-SHA256:
// agent, tool, canonical JSON, proposal hash, a random nonce, an expiry) whose grant scope
// names the principal it was issued to and an id of its own. It is the very record kept
// for the reviewer (grants.keepProposal), so `pending` lists it and `grant --id` grants
// exactly it, once (its nonce). A retry runs only on a grant under that scope, spent once;
// its execution receipt is keyed by the seal's nonce, so a replay of the state runs nothing.

const { isApprovalGrantError } = require('tool-argument-snapshot');
const { own } = require('../../gate/read');
const {
  BufferFrom,
  BufferPrototypeToString,
  JSONParse,
  JSONStringify,
  PromisePrototypeThen,
  PromiseResolve,
  NumberParseInt,
  ReflectApply,
  RegExpPrototypeTest,
  SafeTextDecoder,
  StringPrototypeIndexOf,
  StringPrototypeSlice,
  StringPrototypeStartsWith,
  TextDecoderPrototypeDecode,
  randomUUID,
} = require('../../gate/primordials');
const { proposalStore, keptRunId, keptIdOf } = require('../../gate/proposals');

const utf8 = new SafeTextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What starts every requestState the gate mints (a state without it is the tool's own). */
const STATE_PREFIX = 'tas1.';
/** The grant scope of a state: this prefix, the principal (length first, or `-`), its id. */
const SCOPE_PREFIX = 'tool-argument-snapshot/mcp-request-state ';
/** The run id of a state's execution receipt (its call id is the seal's nonce). */
const STATE_RUN_ID = 'tool-argument-snapshot/mcp-request-state';
/** The longest state read (a sealed proposal of 4 MiB of arguments fits). */
const MAX_STATE_LENGTH = 8 * 1024 * 1024;
/** How long a state (and its kept proposal) lives by default: 15 minutes. */
const DEFAULT_STATE_TTL_MS = 15 * 60 * 1000;

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function scopeOf(principal, stateId) {
  return `${SCOPE_PREFIX}${principal === undefined ? '-' : `${principal.length}:${principal}`} ${stateId}`;
}

/** `{ principal, stateId }` of a scope scopeOf made, else undefined. */
function parseScope(scope) {
  if (typeof scope !== 'string' || !StringPrototypeStartsWith(scope, SCOPE_PREFIX)) return undefined;
  let i = SCOPE_PREFIX.length;
  let principal;
  if (StringPrototypeStartsWith(scope, '- ', i)) {
    i += 2;
  } else {
    const colon = StringPrototypeIndexOf(scope, ':', i);
    if (colon === -1) return undefined;
    const digits = StringPrototypeSlice(scope, i, colon);
    if (!RegExpPrototypeTest(/^[1-9][0-9]{0,15}$/, digits)) return undefined;
    const length = NumberParseInt(digits, 10);
    principal = StringPrototypeSlice(scope, colon + 1, colon + 1 + length);
    if (principal.length !== length || scope[colon + 1 + length] !== ' ') return undefined;
    i = colon + 2 + length;
  }
  const stateId = StringPrototypeSlice(scope, i);
  if (stateId === '') return undefined;
  return { __proto__: null, principal, stateId };
}

/** Where the state's proposal is kept for the reviewer: one agent, one principal, one state. */
function keptKey(agentName, principal, stateId) {
  return { runId: keptRunId('mcp-state', agentName, null, principal === undefined ? '-' : `${principal.length}:${principal}`), toolCallId: stateId };
}

function encode(sealed) {
  return STATE_PREFIX + BufferPrototypeToString(BufferFrom(JSONStringify(sealed), 'utf8'), 'base64url');
}

/**
 * A new state for `proposal` (the grants seal: `grants.sealing` is true), issued to
 * `principal` (undefined: none): `{ requestState, sealed, keptId }`. The sealed record is
 * kept for the reviewer when the grants' store keeps proposals (keptId its CLI id), else
 * only sealed (keptId null).
 */
async function mintState(grants, agentName, proposal, principal, ttlMs) {
  const stateId = randomUUID();
  const scope = scopeOf(principal, stateId);
  const store = proposalStore(grants);
  let sealed;
  let keptId = null;
  if (store.present) {
    const key = keptKey(agentName, principal, stateId);
    sealed = await store.keep(key, proposal, { scope, ttlMs });
    keptId = keptIdOf(key);
  } else {
    sealed = ReflectApply(own(grants, 'seal'), grants, [proposal, { scope, ttlMs }]);
  }
  return { __proto__: null, requestState: encode(sealed), sealed, keptId };
}

/**
 * A retry's requestState read back: undefined when it is not one the gate mints (the
 * tool's own); `{ code }` when it is refused (`request_state_invalid`, `request_state_expired`);
 * else `{ sealed, principal, stateId, keptId }`, the seal verified by the grants' key ring
 * (signature, expiry on the grants' clock, hash). Nothing of the state is quoted anywhere.
 */
function readState(grants, state, agentName) {
  if (typeof state !== 'string' || !StringPrototypeStartsWith(state, STATE_PREFIX)) return undefined;
  if (grants === undefined || own(grants, 'sealing') !== true) return { __proto__: null, code: 'request_state_invalid' };
  if (state.length > MAX_STATE_LENGTH) return { __proto__: null, code: 'request_state_invalid' };
  const word = StringPrototypeSlice(state, STATE_PREFIX.length);
  if (!RegExpPrototypeTest(BASE64URL, word)) return { __proto__: null, code: 'request_state_invalid' };
  const bytes = BufferFrom(word, 'base64url');
  if (BufferPrototypeToString(bytes, 'base64url') !== word) return { __proto__: null, code: 'request_state_invalid' };
  let record;
  try {
    record = JSONParse(TextDecoderPrototypeDecode(utf8, bytes));
  } catch {
    return { __proto__: null, code: 'request_state_invalid' };
  }
  let sealed;
  try {
    sealed = ReflectApply(own(grants, 'verify'), grants, [record]);
  } catch (error) {
    if (isApprovalGrantError(error) && own(error, 'code') === 'seal_expired') return { __proto__: null, code: 'request_state_expired' };
    return { __proto__: null, code: 'request_state_invalid' };
  }
  const parsed = parseScope(own(sealed, 'scope'));
  if (parsed === undefined || own(sealed, 'agentName') !== agentName) return { __proto__: null, code: 'request_state_invalid' };
  const key = keptKey(agentName, parsed.principal, parsed.stateId);
  return {
    __proto__: null,
    code: undefined,
    sealed,
    principal: parsed.principal,
    stateId: parsed.stateId,
    keptId: proposalStore(grants).present ? keptIdOf(key) : null,
    requestState: state,
  };
}

/**
 * Drops the kept proposal of a state that ran (a reviewer's list shows what still waits):
 * best effort, never awaited by the call's answer; a failure leaves it to expire with the state.
 */
function forgetState(grants, agentName, read) {
  const store = proposalStore(grants);
  if (!store.present) return;
  try {
    PromisePrototypeThen(PromiseResolve(store.forget(keptKey(agentName, read.principal, read.stateId))), undefined, () => {});
  } catch {
    // It expires with the state.
  }
}

module.exports = { STATE_PREFIX, STATE_RUN_ID, DEFAULT_STATE_TTL_MS, mintState, readState, forgetState };
