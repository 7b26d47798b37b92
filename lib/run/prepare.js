'use strict';
// Step one of the run loop: prepareToolCall and prepareToolCallAsync. Provider text is
// decoded strictly, the tool's schema runs once, and its output becomes the immutable
// snapshot (RFC 8785 JSON and proposal hash) inside a prepared call that nothing outside
// the package can make or copy.

const { invalidArgument } = require('../errors');
const { own, requireInput, requireString } = require('../input');
const { snapshotOf, createSnapshotFromText, decodeView } = require('../snapshot');
const { checkRequest, parseRequest, ArgumentsText } = require('./request');
const { schemaKind, runSchema, runSchemaAsync, asyncSchema, KIND_NONE } = require('./schemas');
const { handleRejection, ours, isThenable, isPromise } = require('../promises');
const { PREPARE, observed, publish, runStarted, traceAsync, attemptIdOf, failureFields, setField } = require('../events');
const P = require('../primordials');

const { ObjectFreeze, ObjectDefineProperty } = P;

let requestedArgumentsGetter;
// What the pipeline reads from a prepared call, set by the class's static block: no
// static method of the class (reachable as `prepared.constructor`) exposes it.
let snapshotOfPrepared;
let requestOfPrepared;
let attemptOfPrepared;
/** Only the package holds this: `new prepared.constructor(...)` without it throws. */
const CONSTRUCT = P.SafeSymbol('construct a prepared call');
// The accessor of every prepared call's requestedArguments: one frozen descriptor made at
// load (a null-prototype literal per call is a dictionary-mode allocation, ~60 ns).
let REQUESTED_ARGUMENTS;

/**
 * The provider text of a prepared call and whether it was blank (undefined: not known
 * yet). A class, not a null-prototype literal (dictionary mode, ~60 ns each): both fields
 * are always own data properties, defined before the constructor body runs, so no read
 * of them reaches a prototype and no setter on Object.prototype sees them.
 */
class ProviderText {
  rawArguments;
  blank;
  constructor(rawArguments, blank) {
    this.rawArguments = rawArguments;
    this.blank = blank;
    ObjectFreeze(this);
  }
}

/**
 * One prepared call's identity for events (docs/events.md): the attempt id, made when an
 * event first needs it, and the call id the caller gave (never hashed). Evaluations and
 * decisions of the prepared call share it.
 */
class Attempt {
  id;
  toolCallId;
  runId;
  constructor(toolCallId, runId) {
    this.id = undefined;
    this.toolCallId = toolCallId;
    // The run the call belongs to (never hashed): part of an execution receipt's key.
    this.runId = runId;
  }
}

class PreparedToolCall {
  // Fields are defined, not assigned, before the constructor body runs, so setters on
  // Object.prototype never see them.
  agentName;
  toolName;
  rawArguments;
  snapshot;
  argsCanonicalJson;
  proposalHash;

  // What the pipeline reads: private, so a prepared call cannot be forged or copied.
  #snapshot;
  #request;
  #attempt;

  constructor(token, agentName, toolName, rawArguments, request, snapshot, attempt) {
    // A prepared call holds a snapshot the package made: no other code can construct one
    // around an object of its own (which it could change after policy approved it).
    if (token !== CONSTRUCT) throw invalidArgument('a PreparedToolCall is made only by prepareToolCall');
    this.agentName = agentName;
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.#snapshot = snapshot;
    this.#request = request;
    this.#attempt = attempt;
    // A new decoded copy of the provider text on every read (each policy input gets its
    // own copy too), so no policy can change what another policy, the proposal or the
    // prepared call shows. Nothing is decoded unless read.
    ObjectDefineProperty(this, 'requestedArguments', REQUESTED_ARGUMENTS);
    this.snapshot = snapshot;
    this.argsCanonicalJson = snapshot.argsCanonicalJson;
    this.proposalHash = snapshot.proposalHash;
    ObjectFreeze(this);
  }

  static {
    snapshotOfPrepared = (value) => (value !== null && typeof value === 'object' && #snapshot in value ? value.#snapshot : undefined);
    requestOfPrepared = (value) => value.#request;
    attemptOfPrepared = (value) => value.#attempt;
    requestedArgumentsGetter = function requestedArguments() {
      if (this === null || typeof this !== 'object' || !(#request in this)) return undefined;
      return parseRequest(this.#request.rawArguments, this.#request.blank);
    };
    REQUESTED_ARGUMENTS = ObjectFreeze({ __proto__: null, get: requestedArgumentsGetter, enumerable: true, configurable: false });
  }

  /**
   * A new decoded view, for a policy evaluated outside evaluateToolCall. There is no
   * execution view here: a handler's view exists only inside executeToolCall, for an
   * allow decision.
   */
  policyView() {
    return decodeView(this.snapshot);
  }
}
// The pipeline never calls this method (it decodes the snapshot itself), and freezing
// the class keeps every prepared call's methods what they are here.
ObjectFreeze(PreparedToolCall.prototype);
ObjectFreeze(PreparedToolCall);

const PREPARE_USAGE = 'prepareToolCall expects { agentName, toolName, rawArguments, schema? }';

/**
 * The checked fields of a prepare input. A class for the reason ProviderText is one:
 * every field is an own data property, defined before the constructor body runs.
 */
class PrepareFields {
  agentName;
  toolName;
  rawArguments;
  includePath;
  schema;
  kind;
  attempt;
  setAside;
  constructor(agentName, toolName, rawArguments, includePath, schema, kind, attempt, setAside) {
    this.agentName = agentName;
    this.toolName = toolName;
    this.rawArguments = rawArguments;
    this.includePath = includePath;
    this.schema = schema;
    this.kind = kind;
    this.attempt = attempt;
    // The ArgumentsText `rawArguments` was given as, else undefined.
    this.setAside = setAside;
  }
}

/** An optional `toolCallId` input: undefined, or a well-formed string (for events only). */
function readToolCallId(value) {
  if (value === undefined || value === null) return undefined;
  return requireString(value, 'toolCallId', true);
}

/** An optional `runId` input: undefined, or a well-formed string (never hashed; a receipt key field). */
function readRunId(value) {
  if (value === undefined || value === null) return undefined;
  return requireString(value, 'runId', true);
}

function requireRawArguments(value) {
  if (typeof value !== 'string') throw invalidArgument('rawArguments must be a string or an ArgumentsText made by decodeRequest');
  return value;
}

/** The checked fields of a prepare input. */
function readPrepareFields(input, async) {
  requireInput(input, PREPARE_USAGE);
  const agentName = requireString(own(input, 'agentName'), 'agentName', true);
  const toolName = requireString(own(input, 'toolName'), 'toolName', true);
  const raw = own(input, 'rawArguments');
  // Provider text, or a member decodeRequest set aside (its text, already strictly checked).
  const setAside = ArgumentsText.is(raw) ? raw : undefined;
  const rawArguments = setAside !== undefined ? setAside.text : requireRawArguments(raw);
  const includePath = own(input, 'includePath') === true;
  const schema = own(input, 'schema');
  const toolCallId = readToolCallId(own(input, 'toolCallId'));
  const runId = readRunId(own(input, 'runId'));
  return new PrepareFields(agentName, toolName, rawArguments, includePath, schema, schemaKind(schema, async), new Attempt(toolCallId, runId), setAside);
}

/**
 * A prepared call of provider text no schema transforms: strict decoding, RFC 8785 and
 * the hash in one native pass (the codes and paths of the two-step path).
 */
function prepareWithoutSchema(fields) {
  const { agentName, toolName, rawArguments } = fields;
  const snapshot = createSnapshotFromText(agentName, toolName, rawArguments, fields.includePath);
  return new PreparedToolCall(CONSTRUCT, agentName, toolName, rawArguments, new ProviderText(rawArguments, undefined), snapshot, fields.attempt);
}

/**
 * Prepare fields with a schema, their provider text checked and the schema's input
 * decoded. A class for the reason PrepareFields is one (a null-prototype literal of ten
 * fields is a dictionary-mode object).
 */
class PrepareRead {
  fields;
  request;
  schemaInput;
  constructor(fields, request, schemaInput) {
    this.fields = fields;
    this.request = request;
    this.schemaInput = schemaInput;
  }
}

/** The decoded request and the schema's input of prepare fields with a schema. */
function readPrepare(fields) {
  const { toolName, rawArguments, includePath, setAside } = fields;
  // A member set aside is strict already (part of text decodeRequest checked) and never
  // blank (a value token): its decoded value is the schema's input, if no one took it.
  if (setAside !== undefined) return new PrepareRead(fields, new ProviderText(rawArguments, false), ArgumentsText.take(setAside));
  const blank = checkRequest(toolName, rawArguments, includePath);
  // The schema gets its own decoded copy; requestedArguments, the diagnostic evidence, is
  // decoded again on every read, so nothing the schema returns can alias it.
  return new PrepareRead(fields, new ProviderText(rawArguments, blank), parseRequest(rawArguments, blank));
}

/** Snapshots the schema output (not referenced afterwards) into a registered prepared call. */
function finishPrepare(read, schemaOutput) {
  const { agentName, toolName, includePath, rawArguments, attempt } = read.fields;
  let snapshot;
  try {
    snapshot = snapshotOf(agentName, toolName, schemaOutput, includePath);
  } catch (error) {
    // Schema output that is a promise or another thenable is outside the snapshot
    // domain (RFC-0016), with its own code; a native promise's rejection is handled.
    if (isPromise(schemaOutput)) {
      handleRejection(schemaOutput);
      throw asyncSchema('snapshot', toolName, includePath);
    }
    if (isThenable(schemaOutput)) throw asyncSchema('snapshot', toolName, includePath);
    throw error;
  }
  return new PreparedToolCall(CONSTRUCT, agentName, toolName, rawArguments, read.request, snapshot, attempt);
}

function prepareFields(fields) {
  if (fields.kind === KIND_NONE) return prepareWithoutSchema(fields);
  const read = readPrepare(fields);
  return finishPrepare(read, runSchema(fields.kind, fields.schema, read.schemaInput, fields.toolName, fields.includePath));
}

async function prepareFieldsAsync(fields) {
  if (fields.kind === KIND_NONE) return prepareWithoutSchema(fields);
  const read = readPrepare(fields);
  const output = await ours(runSchemaAsync(fields.kind, fields.schema, read.schemaInput, fields.toolName, fields.includePath));
  return finishPrepare(read, output.value);
}

/** The context of a prepare event (docs/events.md): no payload. */
function prepareContext(fields) {
  const attemptId = attemptIdOf(fields.attempt);
  const toolCallId = fields.attempt.toolCallId;
  return toolCallId === undefined
    ? { attemptId, agentName: fields.agentName, toolName: fields.toolName }
    : { attemptId, agentName: fields.agentName, toolName: fields.toolName, toolCallId };
}

function prepareToolCall(input) {
  const fields = readPrepareFields(input, false);
  if (!observed(PREPARE)) return prepareFields(fields);
  const context = prepareContext(fields);
  return runStarted(PREPARE, context, () => {
    let prepared;
    try {
      prepared = prepareFields(fields);
    } catch (error) {
      failureFields(context, error, 'prepare', 'error');
      publish(PREPARE.error, context);
      publish(PREPARE.end, context);
      throw error;
    }
    setField(context, 'proposalHash', prepared.proposalHash);
    publish(PREPARE.end, context);
    return prepared;
  });
}

/**
 * prepareToolCall for asynchronous schemas: awaits safeParseAsync, parseAsync or
 * ~standard.validate, so the schema's code runs exactly once per attempt.
 */
async function prepareToolCallAsync(input) {
  const fields = readPrepareFields(input, true);
  if (!observed(PREPARE)) {
    // prepareFieldsAsync's steps, in this async function: no second promise to adopt.
    if (fields.kind === KIND_NONE) return prepareWithoutSchema(fields);
    const read = readPrepare(fields);
    const output = await ours(runSchemaAsync(fields.kind, fields.schema, read.schemaInput, fields.toolName, fields.includePath));
    return finishPrepare(read, output.value);
  }
  const context = prepareContext(fields);
  // Awaited through ours(): returning a promise from an async function would look up its `then`.
  return await ours(
    traceAsync(
      PREPARE,
      context,
      () => prepareFieldsAsync(fields),
      'prepare',
      (prepared) => {
        setField(context, 'proposalHash', prepared.proposalHash);
      },
    ),
  );
}

/** The snapshot of a prepared call, or undefined for anything prepareToolCall did not return. */
function preparedSnapshotOf(value) {
  return snapshotOfPrepared(value);
}

/** The attempt of a prepared call (one preparedSnapshotOf recognized): its event id and call id. */
function preparedAttemptOf(value) {
  return attemptOfPrepared(value);
}

/** The provider text of a prepared call (one preparedSnapshotOf recognized), and whether it was blank. */
function preparedRequestOf(value) {
  return requestOfPrepared(value);
}

module.exports = { prepareToolCall, prepareToolCallAsync, preparedSnapshotOf, preparedRequestOf, preparedAttemptOf, parseRequest, readToolCallId };
