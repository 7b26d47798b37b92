'use strict';
// Payload-free decision events on node:diagnostics_channel TracingChannels, for tracing
// and audit (docs/events.md): `tool-argument-snapshot.prepare`, `.evaluate`, `.execute`,
// `.grant` and `.spend`. Subscribers see them through
// `diagnostics_channel.tracingChannel(name)` (start, end, asyncStart, asyncEnd, error).
//
// The package publishes on the sub-channels itself, never with traceSync/tracePromise,
// which put the result (a decision holds the canonical JSON) and the error object on the
// context. A context holds only the fields docs/events.md lists: never raw text, canonical
// JSON, views, schema errors or issue messages. Nothing is read back from a context, and a
// subscriber that throws or calls the package again changes no outcome. Without a
// subscriber, a step costs a check of its sub-channels' `hasSubscribers`. A runtime without
// `tracingChannel` publishes nothing.

const P = require('./primordials');
const { ours } = require('./promises');
const { ERROR_CODES, GRANT_ERROR_CODES, NOT_ALLOWED_CODES, CALL_CODES } = require('./errors');

const { ObjectFreeze, ObjectGetOwnPropertyDescriptor, ObjectHasOwn, StringPrototypeSlice, isProxy } = P;
// Captured when the package loaded (the run loop loads at its first use).
const { MathRandom, NumberPrototypeToString } = P;

let diagnostics;
try {
  diagnostics = require('node:diagnostics_channel');
} catch {
  diagnostics = undefined;
}

/** The five sub-channels of a TracingChannel, or null where the runtime has none. */
function tracing(name) {
  if (diagnostics === undefined || typeof diagnostics.tracingChannel !== 'function') return null;
  try {
    const channel = diagnostics.tracingChannel(`tool-argument-snapshot.${name}`);
    const { start, end, asyncStart, asyncEnd, error } = channel;
    if (start === undefined || end === undefined || asyncStart === undefined || asyncEnd === undefined || error === undefined) return null;
    return ObjectFreeze({ __proto__: null, start, end, asyncStart, asyncEnd, error });
  } catch {
    return null;
  }
}

const PREPARE = tracing('prepare');
const EVALUATE = tracing('evaluate');
const EXECUTE = tracing('execute');
const GRANT = tracing('grant');
const SPEND = tracing('spend');

/**
 * Whether anyone listens to a step: the only cost of an unobserved step. Every sub-channel
 * is asked (short-circuit), not only `start`: a subscriber of `asyncEnd` or `error` alone
 * must see its events too. Unobserved, that is five getter reads, about 10 ns on a step of
 * at least 2 µs. (Bun has no TracingChannel.hasSubscribers; every runtime has the
 * sub-channels'.)
 */
function observed(channels) {
  return (
    channels !== null &&
    (channels.start.hasSubscribers === true ||
      channels.end.hasSubscribers === true ||
      channels.asyncStart.hasSubscribers === true ||
      channels.asyncEnd.hasSubscribers === true ||
      channels.error.hasSubscribers === true)
  );
}

/** Publishes on a sub-channel; whatever a subscriber (or a patched channel) throws is dropped. */
function publish(channel, context) {
  try {
    channel.publish(context);
  } catch {
    // An observer cannot change an outcome.
  }
}

/**
 * Publishes `start` with `context` applied to the channel's bound stores (so APM context
 * propagation works) and runs `fn` inside them; if the stores or a subscriber fail before
 * `fn` runs, `fn` runs without them. Returns what `fn` returns; rethrows what `fn` throws.
 */
function runStarted(channels, context, fn) {
  let ran = false;
  const inner = () => {
    ran = true;
    return fn();
  };
  try {
    return channels.start.runStores(context, inner);
  } catch (error) {
    if (ran) throw error;
    return fn();
  }
}

/**
 * Sets a field of a context: defined, never assigned (no setter runs, also none a
 * subscriber put on the context); a context a subscriber froze is left as it is.
 */
function setField(context, key, value) {
  try {
    P.ObjectDefineProperty(context, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
  } catch {
    // The subscriber's choice: the outcome does not depend on it.
  }
}

/**
 * An asynchronous step: `start` (with the stores applied while `fn` starts), `end` when
 * `fn` has returned its promise, then `asyncStart` and `asyncEnd` once it settles, with
 * `onResult(result)` filling in the context first; on a rejection, `error` (stage and
 * code only) before them. Resolves and rejects as `fn`'s promise does.
 */
async function traceAsync(channels, context, fn, stage, onResult, fallback = 'error') {
  let promise;
  try {
    promise = runStarted(channels, context, fn);
  } catch (error) {
    failureFields(context, error, stage, fallback);
    publish(channels.error, context);
    publish(channels.end, context);
    throw error;
  }
  publish(channels.end, context);
  let result;
  try {
    result = await ours(promise);
  } catch (error) {
    failureFields(context, error, stage, fallback);
    publish(channels.error, context);
    publish(channels.asyncStart, context);
    publish(channels.asyncEnd, context);
    throw error;
  }
  onResult(result);
  publish(channels.asyncStart, context);
  publish(channels.asyncEnd, context);
  return result;
}

// Attempt ids: unique in the process (a counter) and, with high probability, across
// processes (a random prefix made at load); cheap enough to make only when observed.
let PREFIX = '';
while (PREFIX.length < 8) PREFIX += NumberPrototypeToString((MathRandom() * 0x100000000) >>> 0, 36);
PREFIX = StringPrototypeSlice(PREFIX, 0, 8);
let counter = 0;
function newAttemptId() {
  counter++;
  return `${PREFIX}-${NumberPrototypeToString(counter, 36)}`;
}

/** The attempt record of a prepared call: its id, made when an event first needs it. */
function attemptIdOf(attempt) {
  if (attempt.id === undefined) attempt.id = newAttemptId();
  return attempt.id;
}

/** Every code a context may carry: the package's own vocabulary, nothing else. */
const CODES = { __proto__: null, schema_error: true, ERR_INVALID_ARG_TYPE: true };
// Indexed loops: this module loads with the run loop, at its first use, when
// Array.prototype[Symbol.iterator] may have been replaced.
const CODE_LISTS = [ERROR_CODES, GRANT_ERROR_CODES, NOT_ALLOWED_CODES, CALL_CODES];
for (let j = 0; j < CODE_LISTS.length; j++) for (let i = 0; i < CODE_LISTS[j].length; i++) CODES[CODE_LISTS[j][i]] = true;
const STAGES = { __proto__: null, json: true, schema: true, snapshot: true };

/** An own data string field of an error that is in `vocabulary`, or undefined (no getter, no trap runs). */
function known(error, key, vocabulary) {
  const descriptor = ObjectGetOwnPropertyDescriptor(error, key);
  if (descriptor === undefined || !ObjectHasOwn(descriptor, 'value')) return undefined;
  const value = descriptor.value;
  return typeof value === 'string' && vocabulary[value] === true ? value : undefined;
}

/**
 * The stage and code of a failure, as a context may hold them: never the error object,
 * and only words of the package's own vocabulary (its error codes and stages, and the
 * ERR_INVALID_ARG_TYPE of its argument checks). Anything else (what a handler or a store
 * threw, whatever fields it has) is `stage` and `fallback`.
 */
function failureFields(context, error, stage, fallback) {
  let code;
  let errorStage;
  if (error !== null && typeof error === 'object' && !isProxy(error)) {
    code = known(error, 'code', CODES);
    errorStage = known(error, 'stage', STAGES);
  }
  setField(context, 'stage', errorStage ?? stage);
  setField(context, 'code', code ?? fallback);
}

module.exports = {
  PREPARE,
  EVALUATE,
  EXECUTE,
  GRANT,
  SPEND,
  observed,
  publish,
  runStarted,
  traceAsync,
  setField,
  attemptIdOf,
  failureFields,
};
