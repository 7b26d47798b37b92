'use strict';
// Shared fixtures for run/pipeline.test.js: the two zod flavors, a realistic tool schema that
// coerces, defaults, strips unknown keys and transforms, counters for every place a schema
// can run, reference-sharing checks, and the aioc 0.2.8 fingerprint algorithm as an oracle.
// node --test does not run this file: its name matches no test-file pattern.

const assert = require('node:assert/strict');
const { createHash } = require('node:crypto');

const zod3 = require('zod3');
const zod4 = require('zod/v4');

const { prepareToolCall, authorizeToolCall, evaluateToolCall, executeToolCall, ToolCallNotAllowedError } = require('../..');

const AGENT = 'Trip planner agent';
const TOOL = 'book_trip';

/** Both zod majors shipped by the installed zod package. */
const FLAVORS = [
  { name: 'zod 3', z: zod3, ZodError: zod3.ZodError },
  { name: 'zod 4 (zod/v4)', z: zod4, ZodError: zod4.ZodError },
];

/** Counts every run of a schema: the wrapping function, a .transform and a .refine. */
function newCounters() {
  return { schema: 0, transform: 0, refine: 0 };
}

/**
 * The trip schema: `city` is trimmed by a transform, `days` is coerced from a string and
 * refined, `units` and `stops` have defaults, nested objects and the root strip unknown keys.
 */
function tripSchema(z, counters = newCounters()) {
  return z.object({
    city: z.string().transform((city) => {
      counters.transform += 1;
      return city.trim();
    }),
    days: z.coerce
      .number()
      .int()
      .refine(
        (days) => {
          counters.refine += 1;
          return days > 0;
        },
        { message: 'days must be positive' },
      ),
    units: z.enum(['metric', 'imperial']).default('metric'),
    stops: z.array(z.object({ name: z.string() })).default([]),
    filters: z.object({ from: z.string(), to: z.string() }).optional(),
  });
}

/** A schema function that counts its calls around a zod schema, and keeps its last output. */
function countingSchema(zodSchema, counters) {
  const schema = (value) => {
    counters.schema += 1;
    schema.lastOutput = zodSchema.parse(value);
    return schema.lastOutput;
  };
  schema.lastOutput = undefined;
  return schema;
}

/** Provider text exercising coercion ("3"), defaults (units), stripping (extra, note) and the transform (city). */
const TRIP_RAW =
  '{"city":"  Oslo ","days":"3","extra":"dropped","stops":[{"name":"Bergen","note":"stripped"},{"name":"Voss"}],' +
  '"filters":{"from":"2026-07-01","to":"2026-07-04"}}';

/** The schema output of TRIP_RAW, as plain data. */
function tripExpected() {
  return {
    city: 'Oslo',
    days: 3,
    units: 'metric',
    stops: [{ name: 'Bergen' }, { name: 'Voss' }],
    filters: { from: '2026-07-01', to: '2026-07-04' },
  };
}

const TRIP_CANONICAL =
  '{"city":"Oslo","days":3,"filters":{"from":"2026-07-01","to":"2026-07-04"},' + '"stops":[{"name":"Bergen"},{"name":"Voss"}],"units":"metric"}';

/** Every object and array reachable from `value` (own data properties only). */
function objectsIn(value) {
  const found = new Set();
  const stack = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object' || found.has(current)) continue;
    found.add(current);
    for (const key of Object.keys(current)) {
      const descriptor = Object.getOwnPropertyDescriptor(current, key);
      if ('value' in descriptor) stack.push(descriptor.value);
    }
  }
  return found;
}

/** Asserts that two argument trees share no object or array at any depth. */
function assertNoSharedObjects(left, right, label) {
  assert.notEqual(left, right, `${label}: the two views are the same object`);
  const rightObjects = objectsIn(right);
  for (const object of objectsIn(left)) {
    assert.ok(!rightObjects.has(object), `${label}: the two views share a nested object or array`);
  }
}

/** A promise with its resolve function, for ordering events across tasks. */
function deferred() {
  let resolve;
  const promise = new Promise((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Waits for a macrotask turn (timers and immediates scheduled before it have run). */
function nextMacrotask() {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A policy that records every input and answers with `decide(input)`; `calls` holds the
 * inputs in order.
 */
function recordingPolicy(decide) {
  const calls = [];
  const policy = (input) => {
    calls.push(input);
    return decide(input);
  };
  return { policy, calls };
}

/** A tool handler that records the arguments it receives and returns `result`. */
function recordingHandler(result = 'executed') {
  const calls = [];
  const execute = (args) => {
    calls.push(args);
    return result;
  };
  return { execute, calls };
}

const ALLOW = Object.freeze({ decision: 'allow', reason: 'allowed by test policy' });
const DENY = Object.freeze({ decision: 'deny', reason: 'denied by test policy' });
const REQUIRE_APPROVAL = Object.freeze({ decision: 'require_approval', reason: 'needs a human' });

/**
 * authorizeToolCall's outcome, made through the three steps a run loop takes:
 * evaluateToolCall, then executeToolCall. Every decision is handed to executeToolCall,
 * with no check first: anything but an allow must be refused (not_allowed) with nothing
 * run, and an allow runs once (a second executeToolCall is already_executed).
 */
async function authorizeInThreeSteps({ prepared, policy, execute, policyContext }) {
  const decision = await evaluateToolCall({ prepared, policy, policyContext });
  assert.ok(Object.isFrozen(decision), 'the decision is frozen');
  const outcome = { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy };
  for (const key of ['policyResult', 'error', 'proposal']) if (Object.hasOwn(decision, key)) outcome[key] = decision[key];
  let refused = null;
  try {
    outcome.result = await executeToolCall(decision, execute);
  } catch (error) {
    if (!(error instanceof ToolCallNotAllowedError)) throw error;
    refused = error;
  }
  if (decision.decision === 'allow') {
    assert.equal(refused, null, 'an allow was refused');
    await assert.rejects(executeToolCall(decision, execute), (error) => error instanceof ToolCallNotAllowedError && error.code === 'already_executed');
  } else {
    assert.ok(refused !== null && refused.code === 'not_allowed', `a ${decision.decision} decision was executed`);
  }
  return outcome;
}

/** The two ways a run loop authorizes: one call, or evaluate then execute. */
const PATHS = [
  { name: 'one call (authorizeToolCall)', authorize: authorizeToolCall },
  { name: 'three steps (evaluateToolCall, executeToolCall)', authorize: authorizeInThreeSteps },
];

/** One execution attempt of a run loop: prepare (schema runs once), then authorize. */
async function attemptWith(authorize, { agentName = AGENT, toolName = TOOL, rawArguments, schema, policy, execute, policyContext }) {
  const prepared = prepareToolCall({ agentName, toolName, rawArguments, schema });
  const outcome = await authorize({ prepared, policy, execute, policyContext });
  return { prepared, outcome };
}

/** One execution attempt through authorizeToolCall. */
function attempt(input) {
  return attemptWith(authorizeToolCall, input);
}

// ---------------------------------------------------------------------------------------
// The aioc 0.2.8 fingerprint (src/canonical-json.ts and src/proposal-hashing.ts), written
// again for JSON data only: recursively key-sorted copies (default sort: UTF-16 code
// units), serialized with JSON.stringify, hashed with SHA-256.

function aioc028Normalize(value) {
  if (Array.isArray(value)) return value.map(aioc028Normalize);
  if (value === null || typeof value !== 'object') return value;
  const normalized = {};
  for (const key of Object.keys(value).sort()) normalized[key] = aioc028Normalize(value[key]);
  return normalized;
}

function aioc028ArgsCanonicalJson(parsedArguments) {
  return JSON.stringify(aioc028Normalize(parsedArguments));
}

function aioc028ProposalHash({ agentName, toolName, argsCanonicalJson }) {
  const envelope = JSON.stringify(aioc028Normalize({ kind: 'tool', agentName, toolName, argsCanonicalJson }));
  return createHash('sha256').update(envelope).digest('hex');
}

let secretCounter = 0;
/** A string that appears nowhere else, for checking that messages carry no payload. */
function newSecret(prefix = 'Secret') {
  secretCounter += 1;
  return `${prefix}${secretCounter}x${Math.random().toString(36).slice(2)}Zq`;
}

/**
 * A new execution view of a prepared call, as a handler gets it: evaluated with an allow
 * policy, then executed (there is no execution view outside executeToolCall).
 */
async function executionViewOf(prepared) {
  const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'allow', reason: 'view' }) });
  return executeToolCall(decision, (view) => view);
}

module.exports = {
  executionViewOf,
  AGENT,
  TOOL,
  FLAVORS,
  newCounters,
  tripSchema,
  countingSchema,
  TRIP_RAW,
  tripExpected,
  TRIP_CANONICAL,
  objectsIn,
  assertNoSharedObjects,
  deferred,
  nextMacrotask,
  recordingPolicy,
  recordingHandler,
  ALLOW,
  DENY,
  REQUIRE_APPROVAL,
  attempt,
  attemptWith,
  authorizeInThreeSteps,
  PATHS,
  aioc028ArgsCanonicalJson,
  aioc028ProposalHash,
  newSecret,
};
