'use strict';
// The provider texts of a durable agent loop, recorded by a language-model middleware
// placed OUTSIDE the engine's durable model step (Restate's durableCalls, Temporal's model
// activity): what it sees is the model response the engine journaled, so a replay records
// the same texts, in the same order, with the same step numbers. Loaded in a Temporal
// workflow's sandbox too: it requires nothing (no native addon, no Node built-in).

const ObjectFreeze = Object.freeze;
const ArrayIsArray = Array.isArray;
const SafeMap = Map;
const MapGet = Function.prototype.call.bind(Map.prototype.get);
const MapSet = Function.prototype.call.bind(Map.prototype.set);
const ObjectHasOwn = Object.hasOwn;
const LookupGetter = Function.prototype.call.bind(Object.prototype.__lookupGetter__);
const IsWellFormed = Function.prototype.call.bind(String.prototype.isWellFormed);

/** An own data property, or undefined (no getter runs, nothing inherited counts). */
function own(object, key) {
  if (object === null || typeof object !== 'object') return undefined;
  if (!ObjectHasOwn(object, key) || LookupGetter(object, key) !== undefined) return undefined;
  return object[key];
}

function isId(value) {
  return typeof value === 'string' && value !== '' && IsWellFormed(value);
}

/**
 * A recorder: `middleware` (an AI SDK v4 language-model middleware) and `take(toolName,
 * toolCallId)`, which answers `{ text, step }` for the latest response's call of that id,
 * or `{ refusal }`: `missing_call_id`, `no_provider_text` (no recorded call of that tool
 * and id: a repaired call, or a model the recorder does not wrap) or `duplicate_call_id`
 * (two calls of one response share the id). `step` numbers the model responses of the
 * run from 1: it scopes the provider's call ids, which some providers reuse.
 */
function createRecorder(isGuarded) {
  let step = 0;
  const calls = new SafeMap();

  function recordResponse(content, responseStep) {
    const seen = new SafeMap();
    for (let i = 0; i < content.length; i++) {
      const part = content[i];
      if (own(part, 'type') !== 'tool-call' || own(part, 'providerExecuted') === true) continue;
      const id = own(part, 'toolCallId');
      if (!isId(id)) continue;
      MapSet(seen, id, (MapGet(seen, id) ?? 0) + 1);
    }
    for (let i = 0; i < content.length; i++) {
      const part = content[i];
      if (own(part, 'type') !== 'tool-call' || own(part, 'providerExecuted') === true) continue;
      const toolName = own(part, 'toolName');
      const text = own(part, 'input');
      const id = own(part, 'toolCallId');
      if (!isId(id) || typeof toolName !== 'string' || !isGuarded(toolName) || typeof text !== 'string') continue;
      MapSet(calls, id, ObjectFreeze({ toolName, text, step: responseStep, duplicate: MapGet(seen, id) > 1 }));
    }
  }

  const middleware = ObjectFreeze({
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate }) {
      // Numbered before the model step runs: a replay numbers the same responses the same way.
      step += 1;
      const responseStep = step;
      const result = await doGenerate();
      const content = own(result, 'content');
      if (ArrayIsArray(content)) recordResponse(content, responseStep);
      return result;
    },
  });

  function take(toolName, toolCallId) {
    if (!isId(toolCallId)) return { refusal: 'missing_call_id' };
    const call = MapGet(calls, toolCallId);
    if (call === undefined || call.toolName !== toolName) return { refusal: 'no_provider_text' };
    if (call.duplicate) return { refusal: 'duplicate_call_id' };
    return { text: call.text, step: call.step };
  }

  return { middleware, take };
}

module.exports = { createRecorder, own, isId };
