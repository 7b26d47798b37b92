'use strict';
// gate.model: the model Mastra's agent runs, wrapped so that every complete response
// records the provider text of each gated tool call (generate and stream), with the ids the
// response uses, for the tool's execute to pair with Mastra's value.

const { ArrayIsArray, isProxy, MapPrototypeGet, ObjectDefineProperty, ReflectApply } = require('../gate/primordials');
const { invalidArgument, own, isId } = require('../gate/read');
const { callIdUses } = require('../gate/texts');
const { recordingResult } = require('../gate/recording');
const { modelRouter } = require('./framework');

/** Model properties Mastra may read besides the language model specification's. */
const PASSED_THROUGH = ['supportsStructuredOutputs', 'defaultObjectGenerationMode', 'supportsImageUrls'];

/** Whether a tool-call part is one of a gated tool, run by Mastra (not by the provider). */
function gatedCall(gate, part) {
  if (part === null || typeof part !== 'object' || own(part, 'type') !== 'tool-call') return false;
  if (own(part, 'providerExecuted') === true) return false;
  const toolName = own(part, 'toolName');
  return typeof toolName === 'string' && MapPrototypeGet(gate.byName, toolName) !== undefined;
}

/**
 * Records the gated tool calls of one complete response: `parts` (tool calls, or all the
 * response's content parts) and the ids of other calls it made. An id used twice in the
 * response marks each of its calls.
 */
function recordResponse(gate, parts, otherIds) {
  const uses = callIdUses(parts, otherIds);
  const response = {};
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    if (!gatedCall(gate, part)) continue;
    const id = own(part, 'toolCallId');
    const text = own(part, 'input');
    // A call without an id cannot be paired: its execute refuses it (missing_call_id).
    if (!isId(id) || typeof text !== 'string') continue;
    gate.texts.add(id, { toolName: own(part, 'toolName'), text, response, duplicate: MapPrototypeGet(uses, id) > 1, lenient: undefined });
  }
}

function wrapModel(gate, languageModel) {
  if (languageModel === null || typeof languageModel !== 'object' || isProxy(languageModel)) {
    throw invalidArgument('gate.model expects an AI SDK language model (v2, v3 or v4), a Mastra model id string, or a function returning one');
  }
  const specificationVersion = languageModel.specificationVersion;
  if (specificationVersion !== 'v2' && specificationVersion !== 'v3' && specificationVersion !== 'v4') {
    throw invalidArgument('gate.model expects a language model of specification v2, v3 or v4 (what Mastra runs through its agent loop)');
  }
  const doGenerate = languageModel.doGenerate;
  const doStream = languageModel.doStream;
  if (typeof doGenerate !== 'function' || typeof doStream !== 'function')
    throw invalidArgument('gate.model expects a language model with doGenerate and doStream');
  const wrapped = {
    specificationVersion,
    provider: languageModel.provider,
    modelId: languageModel.modelId,
    get supportedUrls() {
      return languageModel.supportedUrls;
    },
    async doGenerate(callOptions) {
      const result = await ReflectApply(doGenerate, languageModel, [callOptions]);
      const content = own(result, 'content');
      if (ArrayIsArray(content)) recordResponse(gate, content, []);
      return result;
    },
    async doStream(callOptions) {
      const result = await ReflectApply(doStream, languageModel, [callOptions]);
      // The gated calls of the response are held until it is complete, then recorded
      // and passed on together, right before its `finish` part (or at its end).
      return recordingResult(
        result,
        (part) => gatedCall(gate, part),
        (parts, otherIds) => recordResponse(gate, parts, otherIds),
      );
    },
  };
  // What Mastra reads of a model besides the specification (its schema compat layers ask
  // `supportsStructuredOutputs`), read through from the model when it has them.
  for (let i = 0; i < PASSED_THROUGH.length; i++) {
    const name = PASSED_THROUGH[i];
    if (name in languageModel) ObjectDefineProperty(wrapped, name, { __proto__: null, get: () => languageModel[name], enumerable: true, configurable: true });
  }
  return wrapped;
}

/**
 * gate.model: the model Mastra's agent runs, recording provider texts: an AI SDK language
 * model (v2, v3, v4), a Mastra model id such as 'openai/gpt-5' (through Mastra's model
 * router), or a function of the request returning one (Mastra's dynamic model).
 */
function modelOf(gate) {
  return function model(languageModel) {
    if (typeof languageModel === 'function' && !isProxy(languageModel)) {
      const resolve = languageModel;
      return async (args) => model(await resolve(args));
    }
    if (
      typeof languageModel === 'string' ||
      (languageModel !== null &&
        typeof languageModel === 'object' &&
        !isProxy(languageModel) &&
        typeof languageModel.doStream !== 'function' &&
        typeof own(languageModel, 'id') === 'string')
    ) {
      const ModelRouterLanguageModel = modelRouter();
      return wrapModel(gate, new ModelRouterLanguageModel(languageModel));
    }
    return wrapModel(gate, languageModel);
  };
}

module.exports = { modelOf };
