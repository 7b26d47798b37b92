'use strict';
// The run-loop pipeline of RFC-0016: decodeRequest, prepareToolCall and authorizeToolCall.
// Rows 1 to 9 of the RFC's Minimal Test Matrix run with zod 3 and with zod 4 (zod/v4),
// through real schemas that coerce, default, strip unknown keys and transform, each
// through both paths: authorizeToolCall, and evaluateToolCall then executeToolCall (every
// decision handed to executeToolCall unchecked: only an allow may run, once).
// Then: strict request decoding, own __proto__ data, schema errors without payload,
// policy errors and malformed policy results, fresh execution views, policyContext, and
// proposal hashes compared with the aioc 0.2.8 algorithm on ordinary JSON arguments.

const { describe, test } = require('node:test');
const assert = require('node:assert/strict');
const util = require('node:util');

const { canonicalize, decodeRequest, prepareToolCall, authorizeToolCall, proposalHash, ToolArgumentsValidationError, MAX_DEPTH } = require('../..');

const {
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
  PATHS,
  aioc028ArgsCanonicalJson,
  aioc028ProposalHash,
  newSecret,
  executionViewOf,
} = require('./pipeline-helpers');

/** Application-owned state that a schema transform returns as its output (row 3). */
const APP_OWNED_TRIP = { city: '', days: 0, traveller: { name: 'Ada', seats: ['aisle'] } };
/** Application-owned default object handed to zod's .default() (row 3). */
const APP_DEFAULT_PREFS = { seat: 'window', meals: ['vegetarian'] };

function resetAppOwned() {
  APP_OWNED_TRIP.city = '';
  APP_OWNED_TRIP.days = 0;
  APP_OWNED_TRIP.traveller = { name: 'Ada', seats: ['aisle'] };
  delete APP_OWNED_TRIP.injected;
  APP_DEFAULT_PREFS.seat = 'window';
  APP_DEFAULT_PREFS.meals = ['vegetarian'];
  delete APP_DEFAULT_PREFS.injected;
}

/** Asserts that an outcome is the mutation deny: no execution, no proposal. */
function assertMutationDeny(outcome, handler, label) {
  assert.equal(outcome.decision, 'deny', `${label}: decision`);
  assert.equal(outcome.reason, 'policy_mutated_arguments', `${label}: reason`);
  assert.equal(handler.calls.length, 0, `${label}: the tool ran`);
  assert.ok(!('proposal' in outcome), `${label}: a proposal was made`);
  assert.ok(!('result' in outcome), `${label}: the outcome carries a tool result`);
}

/** Asserts that a deny outcome with `reason` executed nothing and made no proposal. */
function assertDenied(outcome, handler, reason, label) {
  assert.equal(outcome.decision, 'deny', `${label}: decision`);
  assert.equal(outcome.reason, reason, `${label}: reason`);
  assert.equal(handler.calls.length, 0, `${label}: the tool ran`);
  assert.ok(!('proposal' in outcome), `${label}: a proposal was made`);
}

/** Asserts that `fn` throws a ToolArgumentsValidationError with these fields. */
function assertValidationError(fn, { stage, code, toolName }, label) {
  let thrown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  assert.ok(thrown !== undefined, `${label}: nothing was thrown`);
  assert.ok(thrown instanceof ToolArgumentsValidationError, `${label}: threw ${thrown && thrown.name} instead`);
  assert.equal(thrown.name, 'ToolArgumentsValidationError', `${label}: name`);
  assert.equal(thrown.stage, stage, `${label}: stage`);
  assert.equal(thrown.code, code, `${label}: code`);
  if (toolName !== undefined) assert.equal(thrown.toolName, toolName, `${label}: toolName`);
  return thrown;
}

/** Asserts that no rendering of an error contains any of `secrets`. */
function assertNoSecrets(error, secrets, label) {
  const renderings = {
    message: error.message,
    stack: String(error.stack),
    'String()': String(error),
    'util.inspect': util.inspect(error, { depth: 5, showHidden: false }),
    'JSON.stringify': JSON.stringify(error),
  };
  for (const [how, text] of Object.entries(renderings)) {
    for (const secret of secrets) {
      assert.ok(!text.includes(secret), `${label}: ${how} contains the payload ${JSON.stringify(secret)}`);
    }
  }
}

// ---------------------------------------------------------------------------------------
// Immediate policy mutations (row 4): each changes the policy view while policy runs.

const IMMEDIATE_MUTATIONS = [
  [
    'assigning a new value to a top-level key',
    (v) => {
      v.days = 30;
    },
  ],
  [
    'deleting a key',
    (v) => {
      delete v.units;
    },
  ],
  [
    'adding a key',
    (v) => {
      v.approvedBy = 'policy';
    },
  ],
  [
    'replacing an element of a nested array',
    (v) => {
      v.stops[0] = { name: 'Elsewhere' };
    },
  ],
  [
    'changing a member of a nested array element',
    (v) => {
      v.stops[1].name = 'Flam';
    },
  ],
  [
    'appending to a nested array',
    (v) => {
      v.stops.push({ name: 'Extra' });
    },
  ],
  [
    'changing a member of a nested object',
    (v) => {
      v.filters.to = '2026-12-31';
    },
  ],
  [
    'changing only the type of a value (3 to "3")',
    (v) => {
      v.days = '3';
    },
  ],
  [
    'installing a getter that returns the same value',
    (v) => {
      Object.defineProperty(v, 'days', { get: () => 3, enumerable: true, configurable: true });
    },
  ],
  [
    'making a key non-enumerable',
    (v) => {
      Object.defineProperty(v, 'units', { enumerable: false });
    },
  ],
  [
    'adding a symbol key',
    (v) => {
      v[Symbol('approved')] = true;
    },
  ],
  [
    'replacing a nested object with a Proxy of itself',
    (v) => {
      v.filters = new Proxy(v.filters, {});
    },
  ],
  [
    'replacing a nested array with a Proxy of itself',
    (v) => {
      v.stops = new Proxy(v.stops, {});
    },
  ],
  [
    'giving the view another prototype',
    (v) => {
      Object.setPrototypeOf(v, { injected: true });
    },
  ],
  [
    'turning a nested array sparse',
    (v) => {
      v.stops.length = 4;
    },
  ],
  [
    'making two members the same object',
    (v) => {
      v.stops[1] = v.stops[0];
    },
  ],
  [
    'making the view cyclic',
    (v) => {
      v.filters.self = v;
    },
  ],
];

// Policy styles: the mutation happens synchronously, after an await inside an async
// policy, or in a microtask queued by the policy (all before policy resolution is observed).
const POLICY_STYLES = [
  [
    'a synchronous policy',
    (mutate, result) => (input) => {
      mutate(input.parsedArguments);
      return { ...result };
    },
  ],
  [
    'an async policy that mutates after an await',
    (mutate, result) => async (input) => {
      await null;
      await new Promise((resolve) => setImmediate(resolve));
      mutate(input.parsedArguments);
      return { ...result };
    },
  ],
  [
    'a policy that mutates in a queued microtask',
    (mutate, result) => (input) => {
      queueMicrotask(() => mutate(input.parsedArguments));
      return { ...result };
    },
  ],
];

// Late mutation schedules (row 5): the policy resolves first, the mutation runs later.
const LATE_SCHEDULES = [
  ['setTimeout(0)', (fn) => setTimeout(fn, 0)],
  ['setImmediate', (fn) => setImmediate(fn)],
  ['setTimeout(5)', (fn) => setTimeout(fn, 5)],
];

// Schema outputs outside the strict snapshot domain (row 6), as transforms of valid input.
class Money {
  constructor(amount) {
    this.amount = amount;
    this.currency = 'EUR';
  }
}

function unsupportedOutputs(z, secret) {
  const shared = { note: secret };
  return [
    [
      'a transform returning a Date',
      'non_plain_object',
      '/when',
      z.object({ when: z.string().transform((text) => new Date(text)), note: z.string() }),
      { when: '2026-07-01T00:00:00Z', note: secret },
    ],
    [
      'a transform returning a Map',
      'non_plain_object',
      '/tags',
      z.object({ tags: z.record(z.string(), z.string()).transform((tags) => new Map(Object.entries(tags))) }),
      { tags: { [secret]: secret } },
    ],
    ['a transform returning a Set', 'non_plain_object', '/ids', z.object({ ids: z.array(z.string()).transform((ids) => new Set(ids)) }), { ids: [secret] }],
    [
      'a transform returning negative zero',
      'negative_zero',
      '/offset',
      z.object({ offset: z.number().transform((offset) => -offset), note: z.string() }),
      { offset: 0, note: secret },
    ],
    [
      'a transform returning an undefined member',
      'unsupported_type',
      '/note',
      z.object({ note: z.string().transform(() => undefined), city: z.string() }),
      { note: secret, city: secret },
    ],
    [
      'a transform returning a class instance',
      'non_plain_object',
      '/price',
      z.object({ price: z.number().transform((amount) => new Money(amount)), note: z.string() }),
      { price: 12.5, note: secret },
    ],
    [
      'a coercion producing a bigint',
      'unsupported_type',
      '/id',
      z.object({ id: z.coerce.bigint(), note: z.string() }),
      { id: '12345678901234567890', note: secret },
    ],
    [
      'a transform returning a function',
      'unsupported_type',
      '/callback',
      z.object({
        callback: z.string().transform(
          (name) =>
            function callback() {
              return name;
            },
        ),
      }),
      { callback: secret },
    ],
    [
      'a transform returning Infinity',
      'non_finite_number',
      '/ratio',
      z.object({ ratio: z.number().transform((n) => n / 0), note: z.string() }),
      { ratio: 1, note: secret },
    ],
    [
      'a transform truncating a string inside a surrogate pair',
      'lone_surrogate',
      '/title',
      z.object({ title: z.string().transform((title) => title.slice(0, 1)), note: z.string() }),
      { title: '\u{1F600}smile', note: secret },
    ],
    [
      'a transform returning the same object twice',
      'repeated_reference',
      '/b',
      z.object({ a: z.string() }).transform(() => ({ a: shared, b: shared })),
      { a: secret },
    ],
    [
      'a transform returning a cyclic object',
      'cycle',
      '/self',
      z.object({ a: z.string() }).transform((value) => Object.assign(value, { self: value })),
      { a: secret },
    ],
  ];
}

/** A policy that counts calls and executes nothing; for prepare failures. */
function neverCalled() {
  return { policy: recordingPolicy(() => ({ ...ALLOW })), handler: recordingHandler() };
}

for (const { name: pathName, authorize } of PATHS)
  for (const flavor of FLAVORS) {
    const attempt = (input) => attemptWith(authorize, input);
    const { z } = flavor;

    describe(`the RFC-0016 minimal test matrix with ${flavor.name}, ${pathName}`, () => {
      test('row 1: policy and handler receive distinct argument objects with the same canonical value', async () => {
        const schema = countingSchema(tripSchema(z), newCounters());
        const { policy, calls: policyCalls } = recordingPolicy(() => ({ ...ALLOW }));
        const handler = recordingHandler('booked');
        const { prepared, outcome } = await attempt({ rawArguments: TRIP_RAW, schema, policy, execute: handler.execute });

        assert.equal(prepared.argsCanonicalJson, TRIP_CANONICAL, 'row 1: the snapshot of the coerced, defaulted, stripped, transformed output');
        assert.deepEqual(schema.lastOutput, tripExpected(), 'row 1: the schema output');
        assert.equal(outcome.decision, 'allow', 'row 1: decision');
        assert.equal(outcome.result, 'booked', 'row 1: tool result');
        assert.equal(policyCalls.length, 1, 'row 1: policy calls');
        assert.equal(handler.calls.length, 1, 'row 1: handler calls');

        const policyView = policyCalls[0].parsedArguments;
        const executionArgs = handler.calls[0];
        assert.equal(canonicalize(policyView), prepared.argsCanonicalJson, 'row 1: the policy view canonicalizes to argsCanonicalJson');
        assert.equal(canonicalize(executionArgs), prepared.argsCanonicalJson, 'row 1: the execution view canonicalizes to argsCanonicalJson');
        assert.deepEqual(policyView, tripExpected(), 'row 1: the policy view is structurally the schema output');
        assert.deepEqual(executionArgs, tripExpected(), 'row 1: the execution view is structurally the schema output');
        assertNoSharedObjects(policyView, executionArgs, 'row 1: policy view and execution view');
        assertNoSharedObjects(policyView, schema.lastOutput, 'row 1: policy view and schema output');
        assertNoSharedObjects(executionArgs, schema.lastOutput, 'row 1: execution view and schema output');
        assertNoSharedObjects(policyView, prepared.requestedArguments, 'row 1: policy view and requestedArguments');
        assertNoSharedObjects(executionArgs, prepared.requestedArguments, 'row 1: execution view and requestedArguments');
        assert.equal(policyCalls[0].argsCanonicalJson, prepared.argsCanonicalJson, 'row 1: policy input argsCanonicalJson');
        assert.equal(policyCalls[0].proposalHash, prepared.proposalHash, 'row 1: policy input proposalHash');
      });

      test('row 2: a policy-retained reference cannot mutate the later execution input', async () => {
        let retained;
        let retainedStops;
        const mutatedBeforeHandlerReads = deferred();
        const { policy } = recordingPolicy((input) => {
          retained = input.parsedArguments;
          retainedStops = input.parsedArguments.stops;
          return { ...ALLOW };
        });
        const handlerSaw = [];
        const execute = async (args) => {
          // Asynchronous tracing between authorization and use: the retained reference is
          // mutated (in a timer, after policy resolved) before the handler reads its input.
          await mutatedBeforeHandlerReads.promise;
          handlerSaw.push(canonicalize(args));
          return args;
        };
        const schema = tripSchema(z);
        const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW, schema });
        const running = authorize({ prepared, policy, execute });
        setTimeout(() => {
          retained.days = 365;
          retained.city = 'Anywhere';
          delete retained.filters;
          retainedStops.splice(0, 2, { name: 'Injected' });
          mutatedBeforeHandlerReads.resolve();
        }, 0);
        const outcome = await running;

        assert.equal(outcome.decision, 'allow', 'row 2: decision');
        assert.equal(retained.days, 365, 'row 2: the mutation through the retained reference ran');
        assert.deepEqual(handlerSaw, [TRIP_CANONICAL], 'row 2: the handler input when it read it');
        const executionArgs = outcome.result;
        assertNoSharedObjects(retained, executionArgs, 'row 2: retained policy view and execution view');

        // After authorizeToolCall returned: mutate the retained view again.
        retained.units = 'imperial';
        retainedStops.push({ name: 'Late' });
        assert.deepEqual(executionArgs, tripExpected(), 'row 2: the execution view after authorizeToolCall returned');
        assert.equal(prepared.argsCanonicalJson, TRIP_CANONICAL, 'row 2: argsCanonicalJson after late mutation');
        assert.equal(canonicalize(await executionViewOf(prepared)), TRIP_CANONICAL, 'row 2: a new execution view after late mutation');

        // A second attempt on the same prepared call is unaffected by the retained reference.
        const second = recordingHandler();
        const again = await authorize({ prepared, policy: () => ({ ...ALLOW }), execute: second.execute });
        assert.equal(again.decision, 'allow', 'row 2: second authorization decision');
        assert.equal(canonicalize(second.calls[0]), TRIP_CANONICAL, 'row 2: second authorization execution view');
      });

      test('row 3: a schema transform returning an application-owned alias cannot mutate policy or execution input after snapshot creation', async (t) => {
        await t.test('a transform that returns a module-level object', async () => {
          resetAppOwned();
          const returned = [];
          const schema = z.object({ city: z.string(), days: z.coerce.number() }).transform((trip) => {
            APP_OWNED_TRIP.city = trip.city;
            APP_OWNED_TRIP.days = trip.days;
            returned.push(APP_OWNED_TRIP);
            return APP_OWNED_TRIP;
          });
          const expected = '{"city":"Oslo","days":2,"traveller":{"name":"Ada","seats":["aisle"]}}';
          const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"Oslo","days":"2"}', schema });
          assert.equal(returned[0], APP_OWNED_TRIP, 'row 3 transform: the schema output is the application object');
          assert.equal(prepared.argsCanonicalJson, expected, 'row 3 transform: argsCanonicalJson');

          APP_OWNED_TRIP.days = 99;
          APP_OWNED_TRIP.injected = true;
          APP_OWNED_TRIP.traveller.seats.push('window');
          APP_OWNED_TRIP.traveller.name = 'Mallory';

          let policyView;
          const handler = recordingHandler();
          const outcome = await authorize({
            prepared,
            policy: (input) => {
              policyView = input.parsedArguments;
              APP_OWNED_TRIP.city = 'Changed while policy runs';
              return { ...ALLOW };
            },
            execute: async (args) => {
              APP_OWNED_TRIP.traveller = { name: 'Changed before the handler reads' };
              await nextMacrotask();
              return handler.execute(args);
            },
          });
          assert.equal(outcome.decision, 'allow', 'row 3 transform: decision');
          assert.equal(prepared.argsCanonicalJson, expected, 'row 3 transform: argsCanonicalJson after the alias changed');
          assert.equal(canonicalize(policyView), expected, 'row 3 transform: policy view');
          assert.equal(canonicalize(handler.calls[0]), expected, 'row 3 transform: execution view');
          assert.ok(!objectsIn(policyView).has(APP_OWNED_TRIP), 'row 3 transform: the policy view holds the application object');
          assert.ok(!objectsIn(handler.calls[0]).has(APP_OWNED_TRIP), 'row 3 transform: the execution view holds the application object');
        });

        await t.test('a .default() whose value is an application-owned object', async () => {
          resetAppOwned();
          const schema = countingSchema(
            z.object({ city: z.string(), prefs: z.object({ seat: z.string(), meals: z.array(z.string()) }).default(APP_DEFAULT_PREFS) }),
            newCounters(),
          );
          const expected = '{"city":"Oslo","prefs":{"meals":["vegetarian"],"seat":"window"}}';
          const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"city":"Oslo"}', schema });
          assert.equal(prepared.argsCanonicalJson, expected, 'row 3 default: argsCanonicalJson');
          // zod 4 returns the default object itself; zod 3 parses it into a copy. Either way:
          APP_DEFAULT_PREFS.seat = 'aisle';
          APP_DEFAULT_PREFS.meals.push('kosher');
          APP_DEFAULT_PREFS.injected = 1;
          schema.lastOutput.prefs.seat = 'cockpit';

          const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
          const handler = recordingHandler();
          await authorize({ prepared, policy, execute: handler.execute });
          assert.equal(prepared.argsCanonicalJson, expected, 'row 3 default: argsCanonicalJson after the default changed');
          assert.equal(canonicalize(calls[0].parsedArguments), expected, 'row 3 default: policy view');
          assert.equal(canonicalize(handler.calls[0]), expected, 'row 3 default: execution view');
        });

        const identitySchemas = [
          ['z.any()', () => z.any()],
          ['an object schema with .passthrough()', () => z.object({ city: z.string() }).passthrough()],
          ['a schema function returning its input', () => (value) => value],
          ['no schema', () => undefined],
        ];
        for (const [label, makeSchema] of identitySchemas) {
          await t.test(`${label}: mutating requestedArguments or the returned object cannot change the views`, async () => {
            const raw = '{"city":"Oslo","extra":{"keep":[1,2]}}';
            const expected = '{"city":"Oslo","extra":{"keep":[1,2]}}';
            let schemaOutput;
            const inner = makeSchema();
            const schema = (value) => {
              schemaOutput = inner === undefined ? value : typeof inner === 'function' ? inner(value) : inner.parse(value);
              return schemaOutput;
            };
            const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: raw, schema });
            assert.equal(prepared.argsCanonicalJson, expected, `row 3 ${label}: argsCanonicalJson`);
            assert.notEqual(schemaOutput, prepared.requestedArguments, `row 3 ${label}: the schema got requestedArguments itself`);
            assertNoSharedObjects(schemaOutput, prepared.requestedArguments, `row 3 ${label}: schema output and requestedArguments`);

            schemaOutput.city = 'Changed output';
            schemaOutput.extra.keep.push(3);
            // requestedArguments is a new decoded copy on every read: editing one changes no other.
            const requested = prepared.requestedArguments;
            requested.city = 'Changed request';
            requested.extra.admin = true;
            assert.notEqual(prepared.requestedArguments, requested, `row 3 ${label}: requestedArguments is a new copy`);
            assert.deepEqual(prepared.requestedArguments, JSON.parse(raw), `row 3 ${label}: requestedArguments unchanged`);

            const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
            const handler = recordingHandler();
            const outcome = await authorize({ prepared, policy, execute: handler.execute });
            assert.equal(outcome.decision, 'allow', `row 3 ${label}: decision`);
            assert.equal(prepared.argsCanonicalJson, expected, `row 3 ${label}: argsCanonicalJson after mutation`);
            assert.equal(canonicalize(calls[0].parsedArguments), expected, `row 3 ${label}: policy view`);
            assert.equal(canonicalize(handler.calls[0]), expected, `row 3 ${label}: execution view`);
            assert.equal(canonicalize(prepared.policyView()), expected, `row 3 ${label}: a new policy view`);
            assertNoSharedObjects(handler.calls[0], schemaOutput, `row 3 ${label}: execution view and schema output`);
            assertNoSharedObjects(calls[0].parsedArguments, schemaOutput, `row 3 ${label}: policy view and schema output`);
          });
        }
      });

      test('row 4: immediate policy mutation produces policy_mutated_arguments and no execution', async (t) => {
        for (const [mutationLabel, mutate] of IMMEDIATE_MUTATIONS) {
          await t.test(mutationLabel, async () => {
            for (const [styleLabel, makePolicy] of POLICY_STYLES) {
              for (const decided of [ALLOW, REQUIRE_APPROVAL, DENY]) {
                const label = `row 4 ${mutationLabel}, ${styleLabel} deciding ${decided.decision}`;
                const handler = recordingHandler();
                const { outcome, prepared } = await attempt({
                  rawArguments: TRIP_RAW,
                  schema: tripSchema(z),
                  policy: makePolicy(mutate, decided),
                  execute: handler.execute,
                });
                assertMutationDeny(outcome, handler, label);
                assert.equal(outcome.policyResult.decision, decided.decision, `${label}: the policy result is kept for diagnostics`);
                assert.equal(prepared.argsCanonicalJson, TRIP_CANONICAL, `${label}: argsCanonicalJson`);
                assert.equal(canonicalize(await executionViewOf(prepared)), TRIP_CANONICAL, `${label}: a new view`);
              }
            }
          });
        }

        await t.test('replacing a member with an equal copy is not a mutation (canonical equality, not identity)', async () => {
          const handler = recordingHandler();
          const { outcome } = await attempt({
            rawArguments: TRIP_RAW,
            schema: tripSchema(z),
            policy: (input) => {
              input.parsedArguments.filters = { to: '2026-07-04', from: '2026-07-01' };
              input.parsedArguments.stops = input.parsedArguments.stops.map((stop) => ({ ...stop }));
              return { ...ALLOW };
            },
            execute: handler.execute,
          });
          assert.equal(outcome.decision, 'allow', 'row 4 equal copy: decision');
          assert.equal(canonicalize(handler.calls[0]), TRIP_CANONICAL, 'row 4 equal copy: execution view');
        });

        await t.test('reassigning the parsedArguments field of the policy input changes nothing that executes', async () => {
          const handler = recordingHandler();
          const { outcome } = await attempt({
            rawArguments: TRIP_RAW,
            schema: tripSchema(z),
            policy: (input) => {
              input.parsedArguments = { city: 'Elsewhere', days: 1 };
              input.argsCanonicalJson = '{"city":"Elsewhere","days":1}';
              return { ...ALLOW };
            },
            execute: handler.execute,
          });
          assert.equal(outcome.decision, 'allow', 'row 4 reassigned field: decision');
          assert.equal(canonicalize(handler.calls[0]), TRIP_CANONICAL, 'row 4 reassigned field: execution view');
        });
      });

      test('row 5: late policy mutation cannot change handler input', async (t) => {
        for (const [scheduleLabel, schedule] of LATE_SCHEDULES) {
          await t.test(`a policy that mutates its view in ${scheduleLabel} after resolving`, async () => {
            const label = `row 5 ${scheduleLabel}`;
            const mutated = deferred();
            let policyView;
            const policy = (input) => {
              policyView = input.parsedArguments;
              schedule(() => {
                policyView.days = 999;
                policyView.stops[0].name = 'Late';
                policyView.extra = true;
                mutated.resolve();
              });
              return { ...ALLOW };
            };
            const handlerSaw = [];
            const execute = async (args) => {
              await mutated.promise;
              handlerSaw.push(canonicalize(args));
              return args;
            };
            const { outcome, prepared } = await attempt({ rawArguments: TRIP_RAW, schema: tripSchema(z), policy, execute });
            assert.equal(outcome.decision, 'allow', `${label}: decision`);
            assert.equal(policyView.days, 999, `${label}: the late mutation ran`);
            assert.deepEqual(handlerSaw, [TRIP_CANONICAL], `${label}: the handler input`);
            assert.deepEqual(outcome.result, tripExpected(), `${label}: the execution view after the mutation`);
            assert.equal(prepared.argsCanonicalJson, TRIP_CANONICAL, `${label}: argsCanonicalJson`);
          });
        }

        await t.test('a mutation at any microtask depth is either denied or invisible to the handler', async (sub) => {
          const seen = { denied: 0, allowed: 0 };
          const schedules = [];
          for (let depth = 0; depth <= 6; depth++) {
            schedules.push([
              `a promise chain of depth ${depth}`,
              (fn) => {
                let chain = Promise.resolve();
                for (let i = 0; i < depth; i++) chain = chain.then(() => undefined);
                chain.then(fn);
              },
            ]);
          }
          schedules.push(['process.nextTick', (fn) => process.nextTick(fn)]);
          schedules.push(['queueMicrotask', (fn) => queueMicrotask(fn)]);
          for (const [scheduleLabel, schedule] of schedules) {
            for (const style of ['sync', 'async']) {
              const label = `row 5 ${scheduleLabel} from a ${style} policy`;
              const decide = (input) => {
                const view = input.parsedArguments;
                schedule(() => {
                  view.days = 999;
                  view.filters.to = 'late';
                });
                return { ...ALLOW };
              };
              const policy = style === 'sync' ? decide : async (input) => decide(input);
              const handlerSaw = [];
              const execute = async (args) => {
                await nextMacrotask();
                handlerSaw.push(canonicalize(args));
              };
              const { outcome } = await attempt({ rawArguments: TRIP_RAW, schema: tripSchema(z), policy, execute });
              if (outcome.decision === 'deny') {
                seen.denied += 1;
                assert.equal(outcome.reason, 'policy_mutated_arguments', `${label}: deny reason`);
                assert.deepEqual(handlerSaw, [], `${label}: denied but executed`);
              } else {
                seen.allowed += 1;
                assert.equal(outcome.decision, 'allow', `${label}: decision`);
                assert.deepEqual(handlerSaw, [TRIP_CANONICAL], `${label}: the handler input`);
              }
            }
          }
          sub.diagnostic(`${seen.denied} schedules were caught by the mutation check, ${seen.allowed} ran after it`);
          assert.ok(seen.denied > 0 && seen.allowed > 0, 'row 5 microtask depths: both sides of the mutation check were exercised');
        });

        await t.test('mutating the policy view and the handler view after authorizeToolCall returns changes no evidence', async () => {
          const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
          const handler = recordingHandler();
          const { outcome, prepared } = await attempt({ rawArguments: TRIP_RAW, schema: tripSchema(z), policy, execute: handler.execute });
          assert.equal(outcome.decision, 'allow', 'row 5 after return: decision');
          calls[0].parsedArguments.days = 7;
          handler.calls[0].city = 'Handler-owned change';
          assert.equal(prepared.argsCanonicalJson, TRIP_CANONICAL, 'row 5 after return: argsCanonicalJson');
          assert.equal(
            prepared.proposalHash,
            proposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: TRIP_CANONICAL }),
            'row 5 after return: proposalHash',
          );
          assert.deepEqual(await executionViewOf(prepared), tripExpected(), 'row 5 after return: a new execution view');
        });
      });

      test('row 6: unsupported schema output fails at stage snapshot before policy and tool execution', async (t) => {
        const secret = newSecret();
        for (const [label, code, pointer, schema, args] of unsupportedOutputs(z, secret)) {
          await t.test(label, async () => {
            const rawArguments = JSON.stringify(args);
            const { policy, handler } = neverCalled();
            let rejection;
            await attempt({ rawArguments, schema, policy: policy.policy, execute: handler.execute }).then(
              () => assert.fail(`row 6 ${label}: the attempt resolved`),
              (error) => {
                rejection = error;
              },
            );
            const error = assertValidationError(
              () => {
                throw rejection;
              },
              { stage: 'snapshot', code, toolName: TOOL },
              `row 6 ${label}`,
            );
            assert.equal(error.path, undefined, `row 6 ${label}: a path without includePath`);
            assert.equal(policy.calls.length, 0, `row 6 ${label}: policy calls`);
            assert.equal(handler.calls.length, 0, `row 6 ${label}: tool calls`);
            assertNoSecrets(error, [secret], `row 6 ${label}`);

            const withPath = assertValidationError(
              () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments, schema, includePath: true }),
              { stage: 'snapshot', code, toolName: TOOL },
              `row 6 ${label} with includePath`,
            );
            assert.equal(withPath.path, pointer, `row 6 ${label}: path with includePath`);
          });
        }
      });

      test('row 7: schema parsing occurs exactly once per execution attempt', async (t) => {
        const scenarios = [
          ['the policy allows', () => ({ ...ALLOW }), 'allow'],
          ['the policy requires approval', () => ({ ...REQUIRE_APPROVAL }), 'require_approval'],
          ['the policy denies', () => ({ ...DENY }), 'deny'],
          [
            'the policy mutates its view',
            (input) => {
              input.parsedArguments.days = 1;
              return { ...ALLOW };
            },
            'deny',
          ],
          [
            'the policy throws',
            () => {
              throw new Error('policy failed');
            },
            'deny',
          ],
          ['the policy returns a malformed result', () => ({ decision: 'maybe' }), 'deny'],
        ];
        for (const [label, decide, expectedDecision] of scenarios) {
          await t.test(label, async () => {
            const counters = newCounters();
            const viaFunction = countingSchema(tripSchema(z, counters), counters);
            const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW, schema: viaFunction });
            assert.deepEqual(counters, { schema: 1, transform: 1, refine: 1 }, `row 7 ${label}: counts after prepareToolCall`);
            const handler = recordingHandler();
            const outcome = await authorize({ prepared, policy: decide, execute: handler.execute });
            assert.equal(outcome.decision, expectedDecision, `row 7 ${label}: decision`);
            prepared.policyView();
            await executionViewOf(prepared);
            assert.deepEqual(counters, { schema: 1, transform: 1, refine: 1 }, `row 7 ${label}: counts after authorizeToolCall`);

            // A zod schema passed as it is (its .parse is called): the transform and the refine run once.
            const zodCounters = newCounters();
            const direct = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW, schema: tripSchema(z, zodCounters) });
            await authorize({ prepared: direct, policy: decide, execute: handler.execute });
            assert.deepEqual(zodCounters, { schema: 0, transform: 1, refine: 1 }, `row 7 ${label}: counts of a zod schema passed directly`);

            // The next attempt parses again, exactly once.
            prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW, schema: viaFunction });
            assert.deepEqual(counters, { schema: 2, transform: 2, refine: 2 }, `row 7 ${label}: counts after a second attempt`);
          });
        }
      });

      test('row 8: suspended proposals reuse the policy fingerprint and contain an independently decoded parsedArguments view', async () => {
        let retained;
        const { policy, calls } = recordingPolicy((input) => {
          retained = input.parsedArguments;
          return { ...REQUIRE_APPROVAL };
        });
        const handler = recordingHandler();
        const schema = countingSchema(tripSchema(z), newCounters());
        const { outcome, prepared } = await attempt({ rawArguments: TRIP_RAW, schema, policy, execute: handler.execute });
        const seen = { argsCanonicalJson: calls[0].argsCanonicalJson, proposalHash: calls[0].proposalHash };

        assert.equal(outcome.decision, 'require_approval', 'row 8: decision');
        assert.equal(outcome.reason, REQUIRE_APPROVAL.reason, 'row 8: reason');
        assert.equal(handler.calls.length, 0, 'row 8: the tool ran');
        const { proposal } = outcome;
        assert.deepEqual(
          Object.keys(proposal).sort(),
          ['agentName', 'argsCanonicalJson', 'kind', 'parsedArguments', 'proposalHash', 'rawArguments', 'reason', 'toolName'],
          'row 8: proposal fields',
        );
        assert.equal(proposal.kind, 'tool', 'row 8: kind');
        assert.equal(proposal.agentName, AGENT, 'row 8: agentName');
        assert.equal(proposal.toolName, TOOL, 'row 8: toolName');
        assert.equal(proposal.rawArguments, TRIP_RAW, 'row 8: rawArguments is the exact provider string');
        assert.equal(proposal.reason, REQUIRE_APPROVAL.reason, 'row 8: proposal reason');
        assert.equal(proposal.argsCanonicalJson, seen.argsCanonicalJson, 'row 8: argsCanonicalJson is the one policy saw');
        assert.equal(proposal.proposalHash, seen.proposalHash, 'row 8: proposalHash is the one policy saw');
        assert.equal(proposal.proposalHash, prepared.proposalHash, 'row 8: proposalHash is the prepared one');
        assert.equal(proposal.proposalHash, proposalHash(proposal), 'row 8: proposalHash binds agent, tool and argsCanonicalJson');
        assert.equal(canonicalize(proposal.parsedArguments), proposal.argsCanonicalJson, 'row 8: parsedArguments canonicalizes to argsCanonicalJson');
        assertNoSharedObjects(proposal.parsedArguments, retained, 'row 8: proposal view and policy view');
        assertNoSharedObjects(proposal.parsedArguments, schema.lastOutput, 'row 8: proposal view and schema output');
        assertNoSharedObjects(proposal.parsedArguments, prepared.requestedArguments, 'row 8: proposal view and requestedArguments');

        proposal.parsedArguments.days = 42;
        proposal.parsedArguments.stops.pop();
        assert.equal(canonicalize(retained), TRIP_CANONICAL, 'row 8: mutating the proposal view changed the policy view');
        assert.equal(proposal.argsCanonicalJson, TRIP_CANONICAL, 'row 8: mutating the proposal view changed its argsCanonicalJson');
        assert.equal(proposal.proposalHash, seen.proposalHash, 'row 8: mutating the proposal view changed its proposalHash');
        retained.city = 'Policy-side change';
        assert.equal(proposal.parsedArguments.city, 'Oslo', 'row 8: mutating the policy view changed the proposal view');
      });

      test('row 9: resume approval matches only an identical strict snapshot hash', async (t) => {
        const counters = newCounters();
        const schema = countingSchema(tripSchema(z, counters), counters);
        const approved = new Set();
        const { policy } = recordingPolicy((input) => (approved.has(input.proposalHash) ? { ...ALLOW } : { ...REQUIRE_APPROVAL }));
        const run = async (rawArguments, names = {}) => {
          const handler = recordingHandler();
          const before = counters.schema;
          const { outcome, prepared } = await attempt({ rawArguments, schema, policy, execute: handler.execute, ...names });
          assert.equal(counters.schema, before + 1, `row 9 ${rawArguments}: the schema ran once for this attempt`);
          return { outcome, prepared, handler };
        };

        const original = '{"city":"Oslo","days":3}';
        const first = await run(original);
        assert.equal(first.outcome.decision, 'require_approval', 'row 9: the first attempt is suspended');
        approved.add(first.outcome.proposal.proposalHash);
        const approvedJson = first.outcome.proposal.argsCanonicalJson;
        assert.equal(approvedJson, '{"city":"Oslo","days":3,"stops":[],"units":"metric"}', 'row 9: the approved snapshot');

        const sameValue = [
          ['spelled identically', original],
          ['with added whitespace', ' {\n  "city" : "Oslo" ,\t"days" : 3\r\n} '],
          ['with another key order', '{"days":3,"city":"Oslo"}'],
          ['with 3.0 instead of 3', '{"city":"Oslo","days":3.0}'],
          ['with 3e0 instead of 3', '{"city":"Oslo","days":3e0}'],
          ['with 30E-1 instead of 3', '{"city":"Oslo","days":30E-1}'],
          ['as a string the schema coerces ("3")', '{"city":"Oslo","days":"3"}'],
          ['with \\u escapes in keys and a value', '{"\\u0063ity":"\\u004fsl\\u006F","d\\u0061ys":3}'],
          ['with an upper-case \\u004F escape', '{"city":"\\u004Fslo","days":3}'],
          ['with an unknown key the schema strips', '{"city":"Oslo","days":3,"debug":{"trace":true}}'],
          ['with the defaults spelled out', '{"city":"Oslo","days":3,"units":"metric","stops":[]}'],
          ['with padding the transform trims', '{"city":"   Oslo\\t","days":3}'],
        ];
        for (const [label, raw] of sameValue) {
          await t.test(`the grant matches the same value ${label}`, async () => {
            const { outcome, prepared, handler } = await run(raw);
            assert.equal(prepared.proposalHash, first.outcome.proposal.proposalHash, `row 9 ${label}: proposalHash`);
            assert.equal(outcome.decision, 'allow', `row 9 ${label}: decision`);
            assert.equal(canonicalize(handler.calls[0]), approvedJson, `row 9 ${label}: the executed value is the approved one`);
          });
        }

        const differentValue = [
          ['another number of days', '{"city":"Oslo","days":4}', {}],
          ['another city', '{"city":"Bergen","days":3}', {}],
          ['a city differing only in case', '{"city":"oslo","days":3}', {}],
          ['a non-default units value', '{"city":"Oslo","days":3,"units":"imperial"}', {}],
          ['an added stop', '{"city":"Oslo","days":3,"stops":[{"name":"Voss"}]}', {}],
          ['an added optional member', '{"city":"Oslo","days":3,"filters":{"from":"a","to":"b"}}', {}],
          ['the same arguments from another agent', original, { agentName: 'Another agent' }],
          ['the same arguments for another tool', original, { toolName: 'book_trip_v2' }],
        ];
        for (const [label, raw, names] of differentValue) {
          await t.test(`the grant does not match ${label}`, async () => {
            const { outcome, prepared, handler } = await run(raw, names);
            assert.notEqual(prepared.proposalHash, first.outcome.proposal.proposalHash, `row 9 ${label}: proposalHash`);
            assert.equal(outcome.decision, 'require_approval', `row 9 ${label}: decision`);
            assert.equal(handler.calls.length, 0, `row 9 ${label}: the tool ran`);
          });
        }

        await t.test('strings are not Unicode-normalized: a decomposed spelling does not match a composed grant', async () => {
          const composed = await run('{"city":"Z\\u00fcrich","days":3}');
          approved.add(composed.outcome.proposal.proposalHash);
          const again = await run('{"city":"Z\u00fcrich","days":3}');
          assert.equal(again.outcome.decision, 'allow', 'row 9 composed: the raw character matches the escape');
          const decomposed = await run('{"city":"Zu\\u0308rich","days":3}');
          assert.equal(decomposed.outcome.decision, 'require_approval', 'row 9 decomposed: decision');
        });
      });
    });
  }

// ---------------------------------------------------------------------------------------

describe('decodeRequest: strict decoding of provider text', () => {
  const failures = [
    ['invalid_json', ['{', '[1,]', "{'a':1}", 'NaN', '{"a":1,}', '01', '\uFEFF{}', '{} {}', 'undefined', '\u00a0']],
    ['duplicate_key', ['{"a":1,"a":2}', '{"x":[{"k":1,"k":2}]}', '{"a":1,"\\u0061":2}', '{"o":{"p":{"q":{"r":1,"r":1}}}}', '{"__proto__":1,"__proto__":2}']],
    ['lone_surrogate', ['"\\ud800"', '{"a":"x\\udc00"}', '{"\\udbff":1}', '"\ud800"', '{"a":["\udfff"]}', '{"\ud83d":true}']],
    ['non_finite_number', ['1e400', '[-1e309]', '{"a":{"b":1.8e308}}']],
    ['depth_limit', ['['.repeat(1_000_000), '{"a":'.repeat(1_000_000), `${'['.repeat(MAX_DEPTH + 1)}${']'.repeat(MAX_DEPTH + 1)}`]],
  ];
  for (const [code, texts] of failures) {
    test(`rejects ${code} text at stage json`, () => {
      for (const text of texts) {
        const label = `decodeRequest(${JSON.stringify(text.length > 40 ? `${text.slice(0, 20)}... (${text.length} chars)` : text)})`;
        const error = assertValidationError(() => decodeRequest(text, { toolName: TOOL }), { stage: 'json', code, toolName: TOOL }, label);
        assert.ok(error.message.length < 200, `${label}: message length`);
        const unnamed = assertValidationError(() => decodeRequest(text), { stage: 'json', code }, `${label} without a tool name`);
        assert.equal(unnamed.toolName, '', `${label}: toolName without a tool name`);
        assertValidationError(
          () =>
            prepareToolCall({
              agentName: AGENT,
              toolName: TOOL,
              rawArguments: text,
              schema: () => {
                throw new Error('schema ran');
              },
            }),
          { stage: 'json', code, toolName: TOOL },
          `prepareToolCall with ${label}`,
        );
      }
    });
  }

  test('accepts nesting up to the depth limit, through policy and execution', async () => {
    for (const [label, text] of [
      ['arrays', `${'['.repeat(MAX_DEPTH)}${']'.repeat(MAX_DEPTH)}`],
      ['objects', `${'{"a":'.repeat(MAX_DEPTH - 1)}{}${'}'.repeat(MAX_DEPTH - 1)}`],
    ]) {
      assert.equal(typeof decodeRequest(text), 'object', `decodeRequest of ${MAX_DEPTH} nested ${label}`);
      const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
      const handler = recordingHandler();
      const { prepared, outcome } = await attempt({ rawArguments: text, policy, execute: handler.execute });
      assert.equal(prepared.argsCanonicalJson, text, `${MAX_DEPTH} nested ${label}: argsCanonicalJson`);
      assert.equal(outcome.decision, 'allow', `${MAX_DEPTH} nested ${label}: decision`);
      assert.equal(canonicalize(calls[0].parsedArguments), text, `${MAX_DEPTH} nested ${label}: policy view`);
      assert.equal(canonicalize(handler.calls[0]), text, `${MAX_DEPTH} nested ${label}: execution view`);
      assertNoSharedObjects(calls[0].parsedArguments, handler.calls[0], `${MAX_DEPTH} nested ${label}: views`);
    }
  });

  test('decodes empty and whitespace-only text to a fresh {} each time', () => {
    for (const text of ['', '  \n', ' ', '\t\r\n ']) {
      const label = `decodeRequest(${JSON.stringify(text)})`;
      const first = decodeRequest(text);
      const second = decodeRequest(text);
      assert.deepEqual(first, {}, `${label}: value`);
      assert.equal(Object.getPrototypeOf(first), Object.prototype, `${label}: prototype`);
      assert.notEqual(first, second, `${label}: the same object twice`);
      first.mutated = true;
      assert.deepEqual(decodeRequest(text), {}, `${label}: a mutated result leaked into the next one`);
      const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: text });
      assert.equal(prepared.argsCanonicalJson, '{}', `${label}: argsCanonicalJson through prepareToolCall`);
    }
  });

  test('keeps __proto__, constructor and prototype keys as own data without changing any prototype', async () => {
    const raw = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"nested":{"__proto__":[1]}}';
    const decoded = decodeRequest(raw);
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype, '__proto__: root prototype');
    assert.equal(Object.getPrototypeOf(decoded.nested), Object.prototype, '__proto__: nested prototype');
    assert.ok(Object.hasOwn(decoded, '__proto__'), '__proto__: own key at the root');
    assert.ok(Object.hasOwn(decoded.nested, '__proto__'), '__proto__: own key when nested');
    assert.equal(decoded.polluted, undefined, '__proto__: the root inherits from the payload');
    assert.equal({}.polluted, undefined, '__proto__: Object.prototype was polluted');
    assert.deepEqual(Object.getOwnPropertyDescriptor(decoded, '__proto__').value, { polluted: 'yes' }, '__proto__: own value');

    const expected = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"nested":{"__proto__":[1]}}';
    const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
    const handler = recordingHandler();
    const { prepared } = await attempt({ rawArguments: raw, policy, execute: handler.execute });
    assert.equal(prepared.argsCanonicalJson, expected, '__proto__: argsCanonicalJson keeps the keys');
    for (const [label, view] of [
      ['policy view', calls[0].parsedArguments],
      ['execution view', handler.calls[0]],
    ]) {
      assert.equal(Object.getPrototypeOf(view), Object.prototype, `__proto__: ${label} prototype`);
      assert.ok(Object.hasOwn(view, '__proto__'), `__proto__: ${label} own key`);
      assert.equal(view.polluted, undefined, `__proto__: ${label} inherits from the payload`);
      assert.equal(canonicalize(view), expected, `__proto__: ${label} canonical value`);
    }
    assert.equal({}.polluted, undefined, '__proto__: Object.prototype was polluted by the pipeline');
  });
});

for (const flavor of FLAVORS) {
  const { z } = flavor;

  describe(`schema errors with ${flavor.name}`, () => {
    test('a schema error becomes stage schema with the ZodError behind getSchemaError() and no payload in the message', () => {
      const secretKey = newSecret('Key');
      const secretValue = newSecret('Value');
      const schema = z.object({ [secretKey]: z.number() });
      const rawArguments = JSON.stringify({ [secretKey]: secretValue });
      const { policy, handler } = neverCalled();
      const error = assertValidationError(
        () => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments, schema }),
        { stage: 'schema', code: 'schema_error', toolName: TOOL },
        'schema error',
      );
      assert.ok(error.getSchemaError() instanceof flavor.ZodError, 'schema error: getSchemaError() is the ZodError');
      assert.deepEqual(error.getSchemaError().issues[0].path, [secretKey], 'schema error: the ZodError keeps its own detail');
      assert.equal('cause' in error, false, 'schema error: no cause');
      assert.equal(error.issueCount, 1, 'schema error: issueCount');
      assert.deepEqual(error.issueCodes, ['invalid_type'], 'schema error: issueCodes');
      assertNoSecrets(error, [secretKey, secretValue], 'schema error');
      assert.equal(policy.calls.length + handler.calls.length, 0, 'schema error: policy or tool ran');
    });

    test('a throwing schema function becomes stage schema with its own error behind getSchemaError()', () => {
      const secret = newSecret();
      const thrown = new RangeError(`rejected ${secret}`);
      const error = assertValidationError(
        () =>
          prepareToolCall({
            agentName: AGENT,
            toolName: TOOL,
            rawArguments: `{"v":"${secret}"}`,
            schema: () => {
              throw thrown;
            },
          }),
        { stage: 'schema', code: 'schema_error', toolName: TOOL },
        'throwing schema function',
      );
      assert.equal(error.getSchemaError(), thrown, 'throwing schema function: getSchemaError()');
      assert.equal(error.issueCount, undefined, 'throwing schema function: no issues reported');
      assertNoSecrets(error, [secret], 'throwing schema function');
    });
  });
}

describe('authorizeToolCall: policy failures and malformed results', () => {
  const throwingPolicies = [
    [
      'a policy that throws',
      (failure) => () => {
        throw failure;
      },
    ],
    [
      'an async policy that rejects',
      (failure) => async () => {
        throw failure;
      },
    ],
    ['a policy that returns a rejected promise', (failure) => () => Promise.reject(failure)],
    [
      'a policy that throws a non-Error value',
      () => () => {
        throw 'plain string';
      },
    ], // eslint-disable-line no-throw-literal
  ];
  for (const [label, make] of throwingPolicies) {
    test(`${label} is denied with policy_error`, async () => {
      const failure = new Error('policy exploded');
      const handler = recordingHandler();
      const { outcome } = await attempt({ rawArguments: TRIP_RAW, policy: make(failure), execute: handler.execute });
      assertDenied(outcome, handler, 'policy_error', label);
      assert.equal(outcome.error, label.includes('non-Error') ? 'plain string' : failure, `${label}: error`);
    });
  }

  const malformed = [
    ['null', null],
    ['undefined', undefined],
    ['{}', {}],
    ["{ decision: 'maybe' }", { decision: 'maybe', reason: 'unsure' }],
    ["{ decision: 'allow' } without a reason", { decision: 'allow' }],
    ["{ decision: 'allow', reason: 42 }", { decision: 'allow', reason: 42 }],
    ["{ decision: 'require_approval' } without a reason", { decision: 'require_approval' }],
    ["{ decision: 'ALLOW' }", { decision: 'ALLOW', reason: 'shouting' }],
    ["the string 'allow'", 'allow'],
    ['true', true],
    ["['allow']", ['allow']],
  ];
  test('malformed policy results are denied with invalid_policy_result', async () => {
    for (const [label, result] of malformed) {
      for (const style of ['sync', 'async']) {
        const caseLabel = `${label} from a ${style} policy`;
        const handler = recordingHandler();
        const policy = style === 'sync' ? () => result : async () => result;
        const { outcome } = await attempt({ rawArguments: TRIP_RAW, policy, execute: handler.execute });
        assertDenied(outcome, handler, 'invalid_policy_result', caseLabel);
        assert.equal(outcome.policyResult, result, `${caseLabel}: policyResult`);
      }
    }
  });

  test('a deny decision keeps the policy reason and executes nothing', async () => {
    const handler = recordingHandler();
    const { outcome } = await attempt({ rawArguments: TRIP_RAW, policy: () => ({ ...DENY }), execute: handler.execute });
    assertDenied(outcome, handler, DENY.reason, 'deny');
  });

  test('an error thrown by the tool handler propagates after an allow', async () => {
    const failure = new Error('tool failed');
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW });
    await assert.rejects(
      authorizeToolCall({
        prepared,
        policy: () => ({ ...ALLOW }),
        execute: () => {
          throw failure;
        },
      }),
      (error) => error === failure,
      'handler error: it was not propagated as is',
    );
  });

  test('only PreparedToolCall objects made by prepareToolCall are authorized', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW });
    const forged = Object.freeze({ ...prepared, policyView: () => ({}), executionView: () => ({ city: 'Forged' }) });
    const handler = recordingHandler();
    await assert.rejects(
      authorizeToolCall({ prepared: forged, policy: () => ({ ...ALLOW }), execute: handler.execute }),
      TypeError,
      'forged prepared call: not rejected',
    );
    assert.equal(handler.calls.length, 0, 'forged prepared call: the tool ran');
  });
});

describe('authorizeToolCall: views and policy input', () => {
  for (const flavor of FLAVORS) {
    test(`execute receives a fresh view, not the policy view nor the schema output (${flavor.name})`, async () => {
      const schema = countingSchema(tripSchema(flavor.z), newCounters());
      const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW, schema });
      const views = [];
      for (let i = 0; i < 2; i++) {
        const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
        const handler = recordingHandler();
        await authorizeToolCall({ prepared, policy, execute: handler.execute });
        views.push(calls[0].parsedArguments, handler.calls[0]);
      }
      views.push(schema.lastOutput, prepared.requestedArguments, prepared.policyView(), await executionViewOf(prepared));
      const names = [
        'policy view 1',
        'execution view 1',
        'policy view 2',
        'execution view 2',
        'schema output',
        'requestedArguments',
        'policyView()',
        'executeToolCall view',
      ];
      for (let i = 0; i < views.length; i++) {
        for (let j = i + 1; j < views.length; j++) {
          assertNoSharedObjects(views[i], views[j], `fresh views: ${names[i]} and ${names[j]}`);
        }
      }
      for (const index of [0, 1, 2, 3, 6, 7]) {
        assert.equal(canonicalize(views[index]), TRIP_CANONICAL, `fresh views: ${names[index]} canonical value`);
      }
    });
  }

  test('patching the prototype of prepared calls cannot change what policy sees or what executes', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW });
    const prototype = Object.getPrototypeOf(prepared);
    const injected = () => ({ city: 'Injected', days: 1000 });
    assert.equal(prototype.executionView, undefined, 'a prepared call has no execution view: it exists only inside executeToolCall');
    for (const method of ['policyView']) {
      // The prototype is frozen: in strict code the assignment throws, elsewhere it is ignored.
      assert.throws(
        () => {
          prototype[method] = injected;
        },
        TypeError,
        `${method}: assignment to the frozen prototype`,
      );
      assert.notEqual(prototype[method], injected, `${method}: unchanged`);
    }
    const seen = [];
    const handler = recordingHandler();
    await authorizeToolCall({
      prepared,
      policy: (input) => {
        seen.push(input.parsedArguments);
        return { ...ALLOW };
      },
      execute: handler.execute,
    });
    assert.equal(canonicalize(seen[0]), prepared.argsCanonicalJson, 'the policy view');
    assert.equal(canonicalize(handler.calls[0]), prepared.argsCanonicalJson, 'the execution view');
  });

  test('policyContext fields reach the policy input and cannot override the argument fields', async () => {
    const runContext = { context: { userId: 'u-1' }, usage: [] };
    const { policy, calls } = recordingPolicy(() => ({ ...ALLOW }));
    const handler = recordingHandler();
    const { prepared } = await attempt({
      rawArguments: TRIP_RAW,
      schema: tripSchema(FLAVORS[0].z),
      policy,
      execute: handler.execute,
      policyContext: {
        runContext,
        turn: 3,
        agentName: 'Spoofed agent',
        toolName: 'spoofed_tool',
        rawArguments: '{}',
        parsedArguments: { city: 'Spoofed' },
        argsCanonicalJson: '{"city":"Spoofed"}',
        proposalHash: '0'.repeat(64),
      },
    });
    const input = calls[0];
    assert.equal(input.runContext, runContext, 'policyContext: runContext is passed as it is');
    assert.equal(input.turn, 3, 'policyContext: turn');
    assert.equal(input.agentName, AGENT, 'policyContext: agentName was overridden');
    assert.equal(input.toolName, TOOL, 'policyContext: toolName was overridden');
    assert.equal(input.rawArguments, TRIP_RAW, 'policyContext: rawArguments was overridden');
    assert.equal(input.argsCanonicalJson, prepared.argsCanonicalJson, 'policyContext: argsCanonicalJson was overridden');
    assert.equal(input.proposalHash, prepared.proposalHash, 'policyContext: proposalHash was overridden');
    assert.equal(canonicalize(input.parsedArguments), TRIP_CANONICAL, 'policyContext: parsedArguments was overridden');
    assert.deepEqual(input.requestedArguments, JSON.parse(TRIP_RAW), 'policyContext: requestedArguments is the decoded request');
    assert.deepEqual(
      Object.keys(input).sort(),
      ['agentName', 'argsCanonicalJson', 'parsedArguments', 'proposalHash', 'rawArguments', 'requestedArguments', 'runContext', 'toolName', 'turn'],
      'policyContext: policy input fields',
    );
    assert.equal(canonicalize(handler.calls[0]), TRIP_CANONICAL, 'policyContext: execution view');
  });
});

describe('proposal hashes compared with aioc 0.2.8', () => {
  test('the fixed vector of aioc 0.2.8: agent "Policy unit agent", tool "ping", arguments {}', () => {
    const expected = '486e7d858f077daf704366bd7f7742a58955c40c0e173da363ab9fa5f47f4a41';
    assert.equal(aioc028ProposalHash({ agentName: 'Policy unit agent', toolName: 'ping', argsCanonicalJson: '{}' }), expected, 'the oracle itself');
    for (const rawArguments of ['', '{}', ' { } ']) {
      const prepared = prepareToolCall({ agentName: 'Policy unit agent', toolName: 'ping', rawArguments });
      assert.equal(prepared.proposalHash, expected, `fixed vector with rawArguments ${JSON.stringify(rawArguments)}`);
    }
  });

  const ordinary = [
    ['an empty object', {}],
    ['flat scalars', { city: 'Oslo', days: 3, ok: true, no: false, none: null }],
    ['nested objects and arrays', { b: [1, { y: [], x: {} }, [2, [3]]], a: { z: null, y: true, x: false } }],
    ['numbers in every JSON form', { n: [0, -1, 2.5, -3.75, 1e21, 1e-7, 0.1, 1 / 3, 5e-324, 1.7976931348623157e308, 9007199254740993, 123456789.125] }],
    ['strings that need escaping', { text: 'quote " backslash \\ slash / tab \t newline \n nul \u0000 del \u007f \u2028 \u2029 \u001f' }],
    ['non-ASCII strings', { text: 'caf\u00e9 \u{1F600} \u4e2d\u6587 \u05e2\u05d1\u05e8\u05d9\u05ea \ufb00', empty: '' }],
    ['keys sorted by UTF-16 code units', { '\u00e9': 1, Z: 2, a: 3, '\u20ac': 4, '\u{1F600}': 5, '\u0080': 6, '\ufb00': 7, aa: 8, 'a b': 9, _: 10, '': 11 }],
    [
      'arrays of objects with unsorted keys',
      {
        items: [
          { id: 'a', qty: 1 },
          { qty: 2, id: 'b', tags: ['x', 'y'] },
        ],
      },
    ],
    ['a top-level array', [3, 'x', { b: 1, a: 2 }]],
    ['a top-level string', 'just text'],
    ['deep nesting', { l1: { l2: { l3: { l4: { l5: [[[{ leaf: 'ok' }]]] } } } } }],
  ];
  const names = [
    [AGENT, TOOL],
    ['Agente citt\u00e0 \u{1F916}', 'm\u00e9t\u00e9o.lookup'],
    ['agent "quoted"', 'tool\\with\\backslashes'],
  ];
  test('proposalHash and argsCanonicalJson equal aioc 0.2.8 values for ordinary JSON arguments', () => {
    for (const [label, value] of ordinary) {
      for (const [agentName, toolName] of names) {
        const caseLabel = `0.2.8 oracle, ${label}, agent ${JSON.stringify(agentName)}`;
        const rawArguments = JSON.stringify(value, null, 1);
        const prepared = prepareToolCall({ agentName, toolName, rawArguments });
        const oracleJson = aioc028ArgsCanonicalJson(JSON.parse(rawArguments));
        assert.equal(prepared.argsCanonicalJson, oracleJson, `${caseLabel}: argsCanonicalJson`);
        assert.equal(prepared.proposalHash, aioc028ProposalHash({ agentName, toolName, argsCanonicalJson: oracleJson }), `${caseLabel}: proposalHash`);
      }
    }
  });

  test('proposal hashes of zod-parsed arguments equal aioc 0.2.8 values computed on the same output', () => {
    for (const flavor of FLAVORS) {
      const schema = countingSchema(tripSchema(flavor.z), newCounters());
      const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: TRIP_RAW, schema });
      const oracleJson = aioc028ArgsCanonicalJson(schema.lastOutput);
      assert.equal(prepared.argsCanonicalJson, oracleJson, `0.2.8 oracle with ${flavor.name}: argsCanonicalJson`);
      assert.equal(
        prepared.proposalHash,
        aioc028ProposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: oracleJson }),
        `0.2.8 oracle with ${flavor.name}: proposalHash`,
      );
    }
  });

  test('integer-like keys are where aioc 0.2.8 differs: JCS orders them as strings', () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"9":"nine","10":"ten","a":1}' });
    assert.equal(prepared.argsCanonicalJson, '{"10":"ten","9":"nine","a":1}', 'integer-like keys: JCS order');
    assert.equal(aioc028ArgsCanonicalJson({ 9: 'nine', 10: 'ten', a: 1 }), '{"9":"nine","10":"ten","a":1}', 'integer-like keys: 0.2.8 order');
    assert.notEqual(
      prepared.proposalHash,
      aioc028ProposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: '{"9":"nine","10":"ten","a":1}' }),
      'integer-like keys: hashes differ',
    );
  });
});
