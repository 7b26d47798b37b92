'use strict';
// The provider's raw argument strings, captured from the model's response per run turn (the
// turn's tracing span) and taken once by the call id.

const { own } = require('../gate/read');
const {
  ArrayIsArray,
  SafeMap,
  SafeWeakMap,
  MapPrototypeGet,
  MapPrototypeSet,
  MapPrototypeDelete,
  WeakMapPrototypeGet,
  WeakMapPrototypeSet,
  isProxy,
} = require('../gate/primordials');
const { sdk, invalidArgument } = require('./common');

/** The SDK's getCurrentSpan(), called as it was taken from the SDK (no `this`). */
function getCurrentSpan() {
  const current = sdk().getCurrentSpan;
  return current();
}

/** `model(inner)` wraps a Model so its function calls are recorded; `takeCaptured(callId)` reads one. */
function createCapture() {
  /** span -> (callId -> { name, rawArguments }): the function calls of one turn's model response. */
  const captured = new SafeWeakMap();

  function captureOutput(span, output) {
    if (!ArrayIsArray(output) || span === null || span === undefined || (typeof span !== 'object' && typeof span !== 'function')) return;
    let calls = WeakMapPrototypeGet(captured, span);
    if (calls === undefined) {
      calls = new SafeMap();
      WeakMapPrototypeSet(captured, span, calls);
    }
    for (let i = 0; i < output.length; i++) {
      const item = output[i];
      if (own(item, 'type') !== 'function_call') continue;
      const callId = own(item, 'callId');
      const rawArguments = own(item, 'arguments');
      if (typeof callId === 'string' && typeof rawArguments === 'string') {
        MapPrototypeSet(calls, callId, { __proto__: null, name: own(item, 'name'), rawArguments });
      }
    }
  }

  /** The text the model sent for `callId` in the current turn of the current run, taken once. */
  function takeCaptured(callId) {
    const span = getCurrentSpan();
    if (span === null || span === undefined) return undefined;
    const calls = WeakMapPrototypeGet(captured, span);
    if (calls === undefined) return undefined;
    const call = MapPrototypeGet(calls, callId);
    MapPrototypeDelete(calls, callId);
    return call;
  }

  function model(inner) {
    if (inner === null || typeof inner !== 'object' || isProxy(inner) || typeof inner.getResponse !== 'function') {
      throw invalidArgument('model expects a Model instance (getResponse, getStreamedResponse)');
    }
    const wrapped = {
      async getResponse(request) {
        const span = getCurrentSpan();
        const response = await inner.getResponse(request);
        captureOutput(span, own(response, 'output'));
        return response;
      },
      async *getStreamedResponse(request) {
        const span = getCurrentSpan();
        for await (const event of inner.getStreamedResponse(request)) {
          if (own(event, 'type') === 'response_done') captureOutput(span, own(own(event, 'response'), 'output'));
          yield event;
        }
      },
    };
    if (typeof inner.getRetryAdvice === 'function') wrapped.getRetryAdvice = (args) => inner.getRetryAdvice(args);
    if (inner.supportsPromptModelSelection !== undefined) wrapped.supportsPromptModelSelection = inner.supportsPromptModelSelection;
    return wrapped;
  }

  return { model, takeCaptured };
}

module.exports = { createCapture };
