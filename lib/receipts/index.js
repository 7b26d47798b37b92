'use strict';
// Execution receipts (issue 25, docs/receipts.md): at most once per tool call, not only
// per decision. A receipt is keyed by { agentName, runId, toolCallId } of the prepared
// call and bound to its proposal hash; the first attempt claims it atomically in a store
// (one store object serves grants and receipts: docs/stores.md), later attempts read what
// it says and run nothing. `outcome_unknown` is derived, never stored: a claim still
// `in_progress` whose lease has expired. An unfinished claim is kept whatever the
// retention says (issue 33): only forget ends it.

const { invalidArgument, ToolCallNotAllowedError } = require('../errors');
const { own, optionalInput, defineField } = require('../input');
const { createMemoryStore } = require('../stores/memory');
const { canonicalize } = require('../snapshot');
const P = require('../primordials');
const { ours, isPromise, attach } = require('../promises');

const { ObjectFreeze, StringPrototypeIsWellFormed, isProxy, JSONParse, SafeWeakMap, WeakMapPrototypeGet, WeakMapPrototypeSet } = P;
const { binding } = require('../native');
// Captured when the package loaded (this module loads at first use).
const { NumberIsSafeInteger, DateNow, SafePromise, SafeSetTimeout: timerSet, SafeClearTimeout: timerClear, SafeError, StringPrototypeSlice } = P;
// Random bytes from the operating system through the addon (node:crypto is not loaded).
const randomHex = binding.randomHex;

const METHODS = ObjectFreeze(['claimReceipt', 'completeReceipt', 'releaseReceipt', 'getReceipt', 'deleteReceipt', 'pruneReceipts']);

const DEFAULTS = ObjectFreeze({
  leaseMs: 5 * 60 * 1000,
  retentionMs: 24 * 60 * 60 * 1000,
  timeoutMs: 5000,
});

/** The private state of each receipts object this package made. */
const STATES = new SafeWeakMap();

/** The receipts object each durable store serves by default (grants.executionReceipts()). */
const BY_STORE = new SafeWeakMap();

function readDuration(options, name) {
  const value = own(options, name);
  if (value === undefined) return DEFAULTS[name];
  if (!NumberIsSafeInteger(value) || value <= 0) throw invalidArgument(`options.${name} must be a positive integer (ms)`);
  return value;
}

function readFlag(options, name) {
  const value = own(options, name);
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidArgument(`options.${name} must be a boolean`);
  return value;
}

/** Whether a store has the six receipt operations as own data function properties (nothing runs). */
function holdsReceipts(store) {
  if (store === null || typeof store !== 'object' || isProxy(store)) return false;
  for (let i = 0; i < METHODS.length; i += 1) {
    if (typeof own(store, METHODS[i]) !== 'function') return false;
  }
  return true;
}

/**
 * The default receipts object of a store that holds receipts: made once per store, so
 * every gate and grants object over one store shares it. Undefined for any other store.
 */
function receiptsOfStore(store) {
  if (!holdsReceipts(store)) return undefined;
  let receipts = WeakMapPrototypeGet(BY_STORE, store);
  if (receipts === undefined) {
    receipts = createExecutionReceipts({ store });
    WeakMapPrototypeSet(BY_STORE, store, receipts);
  }
  return receipts;
}

/**
 * The store of a receipts object and its six receipt methods, read once as own data
 * function properties. `durable`: the application gave the store (the default is this
 * process's memory).
 */
function readStore(given) {
  const durable = given !== undefined && given !== null;
  const store = durable ? given : createMemoryStore();
  if (typeof store !== 'object' || isProxy(store)) throw invalidArgument('options.store must be a grant store object');
  const methods = { __proto__: null };
  for (let i = 0; i < METHODS.length; i += 1) {
    const name = METHODS[i];
    const method = own(store, name);
    if (typeof method !== 'function') throw invalidArgument(`options.store has no ${name} method (receipts need the store's receipt operations)`);
    methods[name] = method;
  }
  return { store, methods, durable };
}

/** A receipt key, checked: { agentName, runId, toolCallId }, frozen and null-prototype-free. */
function readKey(key) {
  if (key === null || typeof key !== 'object' || isProxy(key)) throw invalidArgument('key must be an object { agentName, runId, toolCallId }');
  const agentName = own(key, 'agentName');
  const toolCallId = own(key, 'toolCallId');
  let runId = own(key, 'runId');
  if (runId === undefined) runId = null;
  if (typeof agentName !== 'string' || !StringPrototypeIsWellFormed(agentName)) throw invalidArgument('key.agentName must be a well-formed string');
  if (typeof toolCallId !== 'string' || !StringPrototypeIsWellFormed(toolCallId)) throw invalidArgument('key.toolCallId must be a well-formed string');
  if (runId !== null && (typeof runId !== 'string' || !StringPrototypeIsWellFormed(runId)))
    throw invalidArgument('key.runId must be a well-formed string or null');
  return ObjectFreeze({ agentName, runId, toolCallId });
}

/** What a store answered, read as a receipt record (own data only); undefined when it is not one. */
function readRecord(value) {
  if (value === null || typeof value !== 'object' || isProxy(value)) return undefined;
  const status = own(value, 'status');
  if (status !== 'in_progress' && status !== 'completed' && status !== 'failed') return undefined;
  const proposalHash = own(value, 'proposalHash');
  if (typeof proposalHash !== 'string') return undefined;
  const resultJson = own(value, 'resultJson');
  const completedAt = own(value, 'completedAt');
  const runId = own(value, 'runId');
  return {
    __proto__: null,
    agentName: own(value, 'agentName'),
    runId: runId === undefined ? null : runId,
    toolCallId: own(value, 'toolCallId'),
    proposalHash,
    claimId: own(value, 'claimId'),
    status,
    claimedAt: own(value, 'claimedAt'),
    leaseExpiresAt: own(value, 'leaseExpiresAt'),
    completedAt: typeof completedAt === 'number' ? completedAt : null,
    resultJson: typeof resultJson === 'string' ? resultJson : null,
    expiresAt: own(value, 'expiresAt'),
  };
}

/** The status a caller sees: `outcome_unknown` for an in-progress claim past its lease. */
function statusAt(record, now) {
  if (record.status === 'in_progress' && !(now < record.leaseExpiresAt)) return 'outcome_unknown';
  return record.status;
}

/** A payload-free view of a record: what receipts.get and call_already_executed give. */
function publicReceipt(record, now) {
  return ObjectFreeze({
    agentName: record.agentName,
    runId: record.runId,
    toolCallId: record.toolCallId,
    status: statusAt(record, now),
    proposalHash: record.proposalHash,
    claimedAt: record.claimedAt,
    leaseExpiresAt: record.leaseExpiresAt,
    completedAt: record.completedAt,
    expiresAt: record.expiresAt,
    hasResult: record.resultJson !== null,
  });
}

/** What callStore returned, to be awaited at once: its promise (the package's own) adopted without a lookup. */
function adopt(answer) {
  return isPromise(answer) ? ours(answer) : answer;
}

/**
 * Calls a store method. A plain answer (a synchronous store) comes back as it is; a
 * promise is awaited, bounded by `timeoutMs`: the result rejects on a throw, a rejection
 * or the timeout.
 */
function callStore(state, name, args) {
  const method = state.methods[name];
  let answer;
  try {
    answer = method.apply(state.store, args);
  } catch (error) {
    return SafePromise.reject(error);
  }
  if (answer === null || typeof answer !== 'object' || isProxy(answer) || typeof answer.then !== 'function') return answer;
  return new SafePromise((resolve, reject) => {
    let done = false;
    const timer = timerSet(() => {
      if (done) return;
      done = true;
      reject(new SafeError(`receipt store ${name} timed out`));
    }, state.timeoutMs);
    const settle = (ok, value) => {
      if (done) return;
      done = true;
      timerClear(timer);
      if (ok) resolve(value);
      else reject(value);
    };
    // A thenable a store returns is the store's promise, adopted by design.
    SafePromise.resolve(answer).then(
      (value) => settle(true, value),
      (error) => settle(false, error),
    );
  });
}

/** A promise of the package's own, bounded by the receipts' `timeoutMs` (rejects past it). */
function bounded(state, name, promise) {
  return new SafePromise((resolve, reject) => {
    let done = false;
    const timer = timerSet(() => {
      if (done) return;
      done = true;
      reject(new SafeError(`receipt store ${name} timed out`));
    }, state.timeoutMs);
    const settle = (ok, value) => {
      if (done) return;
      done = true;
      timerClear(timer);
      if (ok) resolve(value);
      else reject(value);
    };
    attach(
      promise,
      (value) => settle(true, value),
      (error) => settle(false, error),
    );
  });
}

/**
 * Makes an execution receipts object: `{ store?, leaseMs?, retentionMs?, keepResults?,
 * retryFailed?, now?, timeoutMs? }`, read as own data properties (a Proxy is refused
 * unread). Pass it as `receipts` to executeToolCall or authorizeToolCall.
 */
function createExecutionReceipts(options) {
  const input = optionalInput(options, 'options must be an object');
  const opts = input === null ? { __proto__: null } : input;
  const { store, methods, durable } = readStore(own(opts, 'store'));
  const leaseMs = readDuration(opts, 'leaseMs');
  const retentionMs = readDuration(opts, 'retentionMs');
  const timeoutMs = readDuration(opts, 'timeoutMs');
  const keepResults = readFlag(opts, 'keepResults');
  const retryFailed = readFlag(opts, 'retryFailed');
  let now = own(opts, 'now');
  if (now === undefined) now = DateNow;
  if (typeof now !== 'function') throw invalidArgument('options.now must be a function');
  if (leaseMs > retentionMs) throw invalidArgument('options.leaseMs must not exceed options.retentionMs');
  const state = { __proto__: null, store, methods, leaseMs, retentionMs, timeoutMs, keepResults, retryFailed, now };
  const clock = () => {
    const t = now();
    if (!NumberIsSafeInteger(t)) throw invalidArgument('options.now must return an integer (ms)');
    return t;
  };
  state.clock = clock;
  const receipts = ObjectFreeze({
    __proto__: null,
    /** The receipt of a key (payload-free), or null. */
    async get(key) {
      const k = readKey(key);
      const t = clock();
      const record = readRecord(await adopt(callStore(state, 'getReceipt', [k, t])));
      return record === undefined ? null : publicReceipt(record, t);
    },
    /** Deletes the receipt of a key, whatever it says: an operator allows a new run. */
    async forget(key) {
      const k = readKey(key);
      return (await adopt(callStore(state, 'deleteReceipt', [k]))) === true;
    },
    /** Deletes every receipt whose outcome is past its retention (never an unfinished claim); resolves how many. */
    async prune() {
      const count = await adopt(callStore(state, 'pruneReceipts', [clock()]));
      return typeof count === 'number' ? count : 0;
    },
    /** Whether the application gave the store (false: this process's memory). */
    durable,
  });
  WeakMapPrototypeSet(STATES, receipts, state);
  return receipts;
}

/** The state of a receipts object, or a TypeError. */
function receiptsState(value) {
  const state = value !== null && (typeof value === 'object' || typeof value === 'function') ? WeakMapPrototypeGet(STATES, value) : undefined;
  if (state === undefined) throw invalidArgument('options.receipts must be an object made by createExecutionReceipts');
  return state;
}

// Claim ids: 16 random bytes each (32 hex digits), taken from a pool of 4 KiB filled at
// once, when the pool is first needed and whenever it runs out.
const POOL_SIZE = 4096;
let pool = '';
let poolOffset = 0;
function hex32() {
  if (poolOffset + 32 > pool.length) {
    pool = randomHex(POOL_SIZE);
    poolOffset = 0;
  }
  const id = StringPrototypeSlice(pool, poolOffset, poolOffset + 32);
  poolOffset += 32;
  return id;
}

/** The claim record of an attempt made at `t`. */
function claimRecordOf(state, key, proposalHash, t) {
  return ObjectFreeze({
    agentName: key.agentName,
    runId: key.runId,
    toolCallId: key.toolCallId,
    proposalHash,
    claimId: hex32(),
    claimedAt: t,
    leaseExpiresAt: t + state.leaseMs,
    expiresAt: t + state.retentionMs,
  });
}

/**
 * Claims the receipt of a call. Resolves `{ claimed: true, claim }` when this attempt
 * runs, `{ claimed: false, replay }` when a kept result comes back, or
 * `{ claimed: false, error }` (a ToolCallNotAllowedError) when nothing runs.
 */
async function claim(state, key, proposalHash, toolName, decisionName) {
  let t;
  let answer;
  try {
    t = state.clock();
    const claimRecord = claimRecordOf(state, key, proposalHash, t);
    answer = await adopt(callStore(state, 'claimReceipt', [claimRecord, t]));
    if (answer === null || answer === undefined) return { claimed: true, claim: claimRecord };
  } catch {
    return { claimed: false, error: new ToolCallNotAllowedError('receipt_store_unavailable', toolName, decisionName) };
  }
  return refusal(state, answer, t, proposalHash, toolName, decisionName);
}

/**
 * Claims the receipt and spends the one grant use `evaluation` relied on in one store call,
 * when the evaluation's grants object keeps its grants in this receipts' store and can
 * (the store's optional claimReceiptAndTake; registry.js spendWithClaim). Undefined, with
 * nothing done, when it cannot: the caller then claims and spends in two steps. Otherwise
 * resolves as claim() does, `{ claimed: true, claim }` meaning claimed and the use taken;
 * `{ claimed: false, error: grant_unavailable, how: 'none' }` when no live grant was left
 * (nothing was claimed). A refused receipt takes no use (`how: 'receipt'`: the store's
 * record refused the claim, whether a grant is live or not); a missing grant leaves no
 * claim; `how: 'failed'` when the store call failed.
 */
async function claimWithGrant(state, key, proposalHash, toolName, decisionName, evaluation) {
  if (evaluation === undefined || typeof evaluation.spendWithClaim !== 'function') return undefined;
  let t;
  let claimRecord;
  let joint;
  try {
    t = state.clock();
    claimRecord = claimRecordOf(state, key, proposalHash, t);
    joint = evaluation.spendWithClaim(state.store, ObjectFreeze({ __proto__: null, claim: claimRecord, now: t }));
  } catch {
    return { claimed: false, error: new ToolCallNotAllowedError('receipt_store_unavailable', toolName, decisionName), how: 'failed' };
  }
  if (joint === undefined) return undefined;
  let box;
  try {
    box = await ours(bounded(state, 'claimReceiptAndTake', joint));
  } catch {
    box = undefined;
  }
  if (box === undefined || box.ok !== true) {
    return { claimed: false, error: new ToolCallNotAllowedError('receipt_store_unavailable', toolName, decisionName), how: 'failed' };
  }
  const answer = box.value;
  if (answer === null) return { claimed: true, claim: claimRecord };
  if (answer === false) return { claimed: false, error: new ToolCallNotAllowedError('grant_unavailable', toolName, decisionName), how: 'none' };
  const refused = refusal(state, answer, t, proposalHash, toolName, decisionName);
  defineField(refused, 'how', 'receipt');
  return refused;
}

/** What a store's answer other than null (claimed) says to an attempt: a replay or a refusal. */
function refusal(state, answer, t, proposalHash, toolName, decisionName) {
  const record = readRecord(answer);
  if (record === undefined) return { claimed: false, error: new ToolCallNotAllowedError('receipt_store_unavailable', toolName, decisionName) };
  if (record.proposalHash !== proposalHash) return { claimed: false, error: new ToolCallNotAllowedError('call_id_conflict', toolName, decisionName) };
  const status = statusAt(record, t);
  if (status === 'in_progress') return { claimed: false, error: new ToolCallNotAllowedError('execution_in_progress', toolName, decisionName) };
  if (status === 'outcome_unknown') return { claimed: false, error: new ToolCallNotAllowedError('outcome_unknown', toolName, decisionName) };
  if (status === 'completed' && state.keepResults && record.resultJson !== null) {
    let value;
    try {
      value = JSONParse(record.resultJson);
    } catch {
      return { claimed: false, error: new ToolCallNotAllowedError('receipt_store_unavailable', toolName, decisionName) };
    }
    return { claimed: false, replay: true, value };
  }
  const receipt = ObjectFreeze({ status, proposalHash: record.proposalHash, completedAt: record.completedAt });
  return { claimed: false, error: new ToolCallNotAllowedError('call_already_executed', toolName, decisionName, receipt) };
}

/** Releases a claim (a refused grant, or retryFailed after a failure); a store failure is ignored. */
async function release(state, claimRecord) {
  try {
    await adopt(
      callStore(state, 'releaseReceipt', [
        ObjectFreeze({ agentName: claimRecord.agentName, runId: claimRecord.runId, toolCallId: claimRecord.toolCallId, claimId: claimRecord.claimId }),
        state.clock(),
      ]),
    );
  } catch {
    // The claim stays: after its lease it reads as outcome_unknown, never a second run.
  }
}

/** The RFC 8785 JSON of a result that is JSON data, or null (not kept). */
function resultJsonOf(value) {
  try {
    return canonicalize(value);
  } catch {
    return null;
  }
}

/**
 * Records the outcome of a claimed run, awaited before the attempt answers: a caller that
 * exits right after its answer leaves a receipt that says what happened (issue 35 kept it
 * so; docs/receipts.md). A store failure is ignored: the handler already ran, and the
 * claim reads as outcome_unknown after its lease, never as a second run.
 */
async function record(state, claimRecord, ok, value) {
  if (!ok && state.retryFailed) return release(state, claimRecord);
  try {
    const t = state.clock();
    await adopt(
      callStore(state, 'completeReceipt', [
        ObjectFreeze({
          agentName: claimRecord.agentName,
          runId: claimRecord.runId,
          toolCallId: claimRecord.toolCallId,
          claimId: claimRecord.claimId,
          status: ok ? 'completed' : 'failed',
          completedAt: t,
          resultJson: ok && state.keepResults ? resultJsonOf(value) : null,
          expiresAt: t + state.retentionMs,
        }),
        t,
      ]),
    );
  } catch {
    // See above.
  }
  return undefined;
}

module.exports = { createExecutionReceipts, receiptsState, claim, claimWithGrant, release, record, METHODS, holdsReceipts, receiptsOfStore };
