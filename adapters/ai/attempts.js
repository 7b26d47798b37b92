'use strict';
// The attempt of each call the SDK parses. validate pairs the SDK's value with its provider
// text (or, from message history, its canonical JSON) and prepares the call, once; the
// approval hook and execute find the attempt again by the SDK's input object and check,
// when the SDK names the call, that the text paired is the one recorded for its id.

const { prepareToolCallAsync, canonicalize, ToolArgumentsValidationError } = require('tool-argument-snapshot');
const { ArrayIsArray, SafeTypeError, SafeWeakMap, WeakMapPrototypeGet, WeakMapPrototypeSet } = require('../gate/primordials');
const { setData, isId } = require('../gate/read');
const { BoundedLists, lenientParse } = require('../gate/texts');
const { sameData } = require('../gate/same-data');

const MISSING_CALL_ID = 'missing_call_id';
const DUPLICATE_CALL_ID = 'duplicate_call_id';

/** The attempts of one gate. */
function createAttempts(gate) {
  return {
    gate,
    // Attempts prepared from message history (no provider text), by tool and canonical text.
    resumable: new BoundedLists(),
    // The attempt of each SDK input object: set by validate (the step path) or by the
    // approval hook (the resume path), read by the approval hook and execute.
    byInput: new SafeWeakMap(),
  };
}

/** Takes the oldest recorded call of the tool whose text parses (leniently) to the SDK's value. */
function takeProviderCall(texts, toolName, value) {
  return texts.take(toolName, (candidate) => {
    const lenient = lenientParse(candidate);
    return lenient !== null && sameData(lenient.value, value, 0);
  });
}

function resumeKey(toolName, text) {
  return `${toolName.length}:${toolName}${text}`;
}

/**
 * The text to prepare for the SDK's value: `{ rawArguments, argumentsSource }`, or
 * `{ error }` for the SDK's invalid input. A recorded provider text when one parses to the
 * value; else (message history, or a call that skipped the middleware) the object itself,
 * which must be strict JSON data, in its canonical form.
 */
function argumentsOf(gate, entry, value) {
  const recorded = takeProviderCall(gate.texts, entry.toolName, value);
  if (recorded !== undefined) {
    // A call without an id could be neither paired nor approved: invalid input; so is a
    // call whose id another call of its response has.
    if (recorded.id === undefined) return { error: new ToolArgumentsValidationError('json', entry.toolName, MISSING_CALL_ID) };
    if (recorded.duplicate) return { error: new ToolArgumentsValidationError('json', entry.toolName, DUPLICATE_CALL_ID) };
    return { rawArguments: recorded.text, argumentsSource: 'provider_text' };
  }
  try {
    return { rawArguments: canonicalize(value, { includePath: gate.includePath }), argumentsSource: 'history' };
  } catch (error) {
    return { error };
  }
}

/**
 * The SDK's validate for one tool: every call the SDK parses comes here once (the step
 * path with the lenient parse of the provider text; the resume path with a copy of the
 * history input). Prepares the attempt; a failure is the SDK's invalid input.
 */
async function validate(attempts, entry, value) {
  const { gate } = attempts;
  if (value === null || typeof value !== 'object' || ArrayIsArray(value)) {
    // Kept apart by object identity below, and tool inputs are objects: invalid input.
    return { success: false, error: new SafeTypeError(`the input of tool "${entry.toolName}" must be a JSON object`) };
  }
  const { rawArguments, argumentsSource, error } = argumentsOf(gate, entry, value);
  if (error !== undefined) return { success: false, error };
  let prepared;
  try {
    const prepareInput = { agentName: gate.agentName, toolName: entry.toolName, rawArguments, schema: entry.schema, includePath: gate.includePath };
    // The call's conversation (the receipt's run). Its id is given once, to the evaluation
    // (decide.js): validate cannot know it for certain (a resumed call's comes later, and a
    // recorded text's may be another call's until the approval hook checks it).
    if (gate.receiptRunId !== undefined) setData(prepareInput, 'runId', gate.receiptRunId);
    prepared = await prepareToolCallAsync(prepareInput);
  } catch (failure) {
    return { success: false, error: failure };
  }
  const attempt = {
    entry,
    toolName: entry.toolName,
    toolCallId: undefined,
    argumentsSource,
    rawArguments,
    prepared,
    checked: false,
    deciding: undefined,
    decision: undefined,
    resume: false,
    refusal: undefined,
    approved: false,
  };
  WeakMapPrototypeSet(attempts.byInput, value, attempt);
  if (argumentsSource === 'history') attempts.resumable.add(resumeKey(entry.toolName, rawArguments), attempt);
  return { success: true, value };
}

/**
 * The first time the SDK names a call of this step (validate saw this very object): the
 * id is kept, and the call refused when it has none, no provider text, or a text other
 * than the one recorded for its id.
 */
function checkStep(attempts, known, toolName, toolCallId) {
  known.checked = true;
  known.toolCallId = toolCallId;
  if (!isId(toolCallId)) {
    known.refusal = MISSING_CALL_ID;
  } else if (known.argumentsSource === 'history') {
    // No recorded text (a repaired call, or a model the gate does not wrap): there is no
    // provider text to authorize.
    attempts.resumable.remove(resumeKey(known.toolName, known.rawArguments), known);
    known.refusal = 'no_provider_text';
  } else if (known.toolName !== toolName || attempts.gate.textsById.take(toolCallId, (text) => text === known.rawArguments) === undefined) {
    // The text validate paired with the SDK's value is not the one recorded for this call.
    known.refusal = 'provider_text_mismatch';
  }
}

/** The attempt for the SDK's call; a refused one carries its `refusal`. */
function attemptFor(attempts, toolName, toolCallId, input) {
  if (input === null || typeof input !== 'object') return undefined;
  const known = WeakMapPrototypeGet(attempts.byInput, input);
  if (known !== undefined && !known.resume) {
    if (!known.checked) checkStep(attempts, known, toolName, toolCallId);
    return known;
  }
  // The resume path: a history object (each time it comes back, a new attempt that
  // validate prepared from a copy of it).
  let text;
  try {
    text = canonicalize(input);
  } catch {
    return known;
  }
  const resumed = attempts.resumable.take(resumeKey(toolName, text), undefined, true);
  if (resumed === undefined) return known;
  resumed.resume = true;
  resumed.checked = true;
  resumed.toolCallId = toolCallId;
  // The call's id is known now; the evaluation gives it to the call (prepared once, in validate).
  if (!isId(toolCallId)) resumed.refusal = MISSING_CALL_ID;
  WeakMapPrototypeSet(attempts.byInput, input, resumed);
  return resumed;
}

/** The attempt validate or the approval hook made for an SDK input object, or undefined. */
function attemptOf(attempts, input) {
  return input !== null && typeof input === 'object' ? WeakMapPrototypeGet(attempts.byInput, input) : undefined;
}

module.exports = { DUPLICATE_CALL_ID, createAttempts, validate, attemptFor, attemptOf };
