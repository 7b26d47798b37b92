'use strict';
// Security round 2 (issue 9), the pipeline's items: 4 (own data properties only), 6
// (requestedArguments cannot be changed by a policy), 7 (async schemas: async_schema,
// promise rejections handled without running their code), 8 (the schema's error is no
// property of the package's error) and 10 (tool names escaped in messages and inspect).
// Each test fails on commit 130571d.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const util = require('node:util');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const zod3 = require('zod3');
const zod4 = require('zod');
const v = require('valibot');

const {
  canonicalize,
  createSnapshot,
  decodeView,
  decodeRequest,
  prepareToolCall,
  authorizeToolCall,
  ToolArgumentsValidationError,
  SnapshotDomainError,
} = require('../..');

const ROOT = path.join(__dirname, '..', '..');
const AGENT = 'Security agent';
const TOOL = 'security_tool';

let serial = 0;
function newSecret() {
  serial += 1;
  return `Sekret${serial}q${Math.random().toString(36).slice(2, 10)}Zx`;
}

function capture(fn) {
  try {
    fn();
  } catch (error) {
    return error;
  }
  assert.fail('expected a throw');
}

async function captureAsync(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  return assert.fail('expected a rejection');
}

/** Runs fn with `Object.prototype[key] = value` (a plain data property), then removes it. */
async function withPollution(entries, fn) {
  for (const [key, value] of entries) {
    Object.defineProperty(Object.prototype, key, { value, writable: true, enumerable: true, configurable: true });
  }
  try {
    return await fn();
  } finally {
    for (const [key] of entries) delete Object.prototype[key];
  }
}

/** Waits two macrotask turns, so that Node has reported any unhandled rejection. */
function settle() {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

/** Counts 'unhandledRejection' events while fn runs, with the default handler set aside. */
async function unhandledDuring(fn) {
  const seen = [];
  const listener = (reason) => seen.push(reason);
  process.on('unhandledRejection', listener);
  try {
    await fn();
    await settle();
  } finally {
    process.off('unhandledRejection', listener);
  }
  return seen;
}

describe('item 4: fields are read as own data properties; inherited values never count', () => {
  test('Object.prototype.includePath = true puts no path into any error', async () => {
    const secret = newSecret();
    await withPollution([['includePath', true]], () => {
      const errors = [
        capture(() => canonicalize({ [secret]: [-0] }, {})),
        capture(() => canonicalize({ [secret]: [-0] }, { toolName: 'x' })),
        capture(() => createSnapshot({ agentName: AGENT, toolName: TOOL, value: { [secret]: new Map() } })),
        capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: `{"${secret}":1,"${secret}":2}` })),
        capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: `{"${secret}":1}`, schema: () => ({ [secret]: -0 }) })),
        capture(() => decodeView(`{"${secret}":-0}`, {})),
        capture(() => decodeRequest(`{"${secret}":1,"${secret}":2}`, { toolName: TOOL })),
      ];
      for (const error of errors) {
        assert.ok(error instanceof SnapshotDomainError || error instanceof ToolArgumentsValidationError, error && error.name);
        assert.equal(Object.hasOwn(error, 'path'), false, `${error.code}: an own path`);
        assert.ok(!JSON.stringify(error).includes(secret), `${error.code}: JSON.stringify holds a key`);
        assert.ok(!util.inspect(error).includes(secret), `${error.code}: util.inspect holds a key`);
      }
    });
  });

  test('Object.prototype.decision = "allow" and .reason do not turn a malformed policy result into an allow', async () => {
    let executed = 0;
    const outcome = await withPollution(
      [
        ['decision', 'allow'],
        ['reason', 'x'],
      ],
      async () => {
        const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}' });
        return authorizeToolCall({
          prepared,
          policy: () => ({ verdict: 'no opinion' }),
          execute: () => {
            executed += 1;
          },
        });
      },
    );
    assert.equal(executed, 0, 'execute ran');
    assert.equal(outcome.decision, 'deny');
    assert.equal(outcome.reason, 'invalid_policy_result');
  });

  test('a throwing decision getter is a deny invalid_policy_result, not a rejected promise', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}' });
    let executed = 0;
    const outcome = await authorizeToolCall({
      prepared,
      policy: () => ({
        get decision() {
          throw new Error('getter');
        },
        reason: 'r',
      }),
      execute: () => {
        executed += 1;
      },
    });
    assert.equal(outcome.decision, 'deny');
    assert.equal(outcome.reason, 'invalid_policy_result');
    assert.equal(executed, 0);
  });

  test('inherited agentName, toolName and rawArguments are not read', () => {
    const inherited = Object.create({ agentName: AGENT, toolName: TOOL, rawArguments: '{}' });
    assert.throws(() => prepareToolCall(inherited), TypeError);
    assert.throws(() => createSnapshot(Object.create({ agentName: AGENT, toolName: TOOL, value: 1 })), TypeError);
  });

  test('an inherited schema, value or policyContext is not used', async () => {
    let schemaRuns = 0;
    await withPollution(
      [
        [
          'schema',
          (x) => {
            schemaRuns += 1;
            return { injected: x };
          },
        ],
        ['value', { injected: true }],
      ],
      async () => {
        const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":1}' });
        assert.equal(prepared.argsCanonicalJson, '{"a":1}');
        const snapshot = createSnapshot({ agentName: AGENT, toolName: TOOL });
        assert.equal(snapshot.argsCanonicalJson, 'null', 'an absent own value is undefined: no inherited one');
      },
    ).catch((error) => {
      // createSnapshot of undefined fails; that is fine as long as nothing inherited was used.
      assert.equal(error.code, 'unsupported_type');
    });
    assert.equal(schemaRuns, 0, 'the inherited schema ran');
  });

  test('inherited policy, execute and prepared are not used', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}' });
    let executed = 0;
    await withPollution(
      [
        [
          'execute',
          () => {
            executed += 1;
          },
        ],
        ['policy', () => ({ decision: 'allow', reason: 'p' })],
      ],
      async () => {
        await assert.rejects(authorizeToolCall({ prepared }), TypeError, 'no own execute');
        const outcome = await authorizeToolCall({
          prepared,
          execute: () => {
            executed += 100;
          },
        });
        assert.equal(outcome.reason, 'policy_not_configured', 'the inherited policy was used');
      },
    );
    await withPollution([['prepared', prepared]], async () => {
      await assert.rejects(
        authorizeToolCall({
          policy: () => ({ decision: 'allow', reason: 'p' }),
          execute: () => {
            executed += 1;
          },
        }),
        TypeError,
      );
    });
    assert.equal(executed, 0);
  });

  test('a policyContext getter is not run and an inherited context field is not copied', async () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}' });
    let getterRuns = 0;
    const policyContext = Object.create(
      { inherited: 'x' },
      {
        turn: { value: 3, enumerable: true },
        runContext: {
          get() {
            getterRuns += 1;
            return 'y';
          },
          enumerable: true,
        },
      },
    );
    let seen;
    await authorizeToolCall({
      prepared,
      policyContext,
      policy: (input) => {
        seen = input;
        return { decision: 'deny', reason: 'r' };
      },
      execute: () => 1,
    });
    assert.equal(getterRuns, 0);
    assert.equal(seen.turn, 3);
    assert.equal(Object.hasOwn(seen, 'inherited'), false);
    assert.equal(Object.hasOwn(seen, 'runContext'), false);
  });

  test("a schema's parse may be inherited and ~standard may be a getter (the schema runs anyway)", () => {
    class Schema {
      parse(value) {
        return { ...value, parsed: true };
      }
    }
    const fromClass = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":1}', schema: new Schema() });
    assert.equal(fromClass.argsCanonicalJson, '{"a":1,"parsed":true}');
    const schema = v.object({ a: v.number() });
    assert.equal(typeof Object.getOwnPropertyDescriptor(schema, '~standard'), 'object');
    const getter = Object.defineProperty({}, '~standard', { get: () => schema['~standard'] });
    const fromGetter = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":1,"b":2}', schema: getter });
    assert.equal(fromGetter.argsCanonicalJson, '{"a":1}');
  });
});

describe('item 6: no policy can change what another policy, the proposal or the prepared call shows as requestedArguments', () => {
  test('a policy editing requestedArguments changes nothing any later policy or the prepared call shows', async () => {
    const raw = '{"city":"Oslo","stops":[{"name":"Bergen"}]}';
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: raw });
    const before = JSON.stringify(prepared.requestedArguments);
    await authorizeToolCall({
      prepared,
      policy: (input) => {
        // Sloppy-mode style edits (no throw in strict code either: Reflect reports false).
        Reflect.set(input.requestedArguments, 'city', 'Evil');
        Reflect.set(input.requestedArguments.stops[0], 'name', 'Evil');
        Reflect.deleteProperty(input.requestedArguments, 'stops');
        try {
          input.requestedArguments.stops.push({ name: 'Injected' });
        } catch {
          /* frozen */
        }
        return { decision: 'require_approval', reason: 'check' };
      },
      execute: () => 1,
    });
    let later;
    const outcome = await authorizeToolCall({
      prepared,
      policy: (input) => {
        later = input.requestedArguments;
        return { decision: 'require_approval', reason: 'again' };
      },
      execute: () => 1,
    });
    assert.equal(JSON.stringify(later), before, 'a later policy saw the edit');
    assert.equal(JSON.stringify(prepared.requestedArguments), before, 'prepared.requestedArguments shows the edit');
    assert.deepEqual(JSON.parse(JSON.stringify(later)), JSON.parse(raw));
    assert.equal(outcome.proposal.rawArguments, raw);
  });
});

describe('item 7: asynchronous schemas give async_schema; promises are handled without running their code', () => {
  const asyncRefinement = (z) => z.object({ a: z.string().refine(async (s) => s.length > 0) });

  for (const [name, z] of [
    ['zod 3', zod3],
    ['zod 4', zod4],
  ]) {
    test(`${name}: an async refinement through prepareToolCall is stage schema async_schema, with a message naming prepareToolCallAsync`, async () => {
      const seen = await unhandledDuring(() => {
        const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":"x"}', schema: asyncRefinement(z) }));
        assert.ok(error instanceof ToolArgumentsValidationError);
        assert.equal(error.stage, 'schema');
        assert.equal(error.code, 'async_schema');
        assert.match(error.message, /prepareToolCallAsync/);
      });
      assert.equal(seen.length, 0);
    });
  }

  test('a Standard Schema whose validate returns a promise (valibot async) is stage schema async_schema, and its rejection is handled', async () => {
    const schema = v.objectAsync({
      a: v.pipeAsync(
        v.string(),
        v.checkAsync(async () => {
          throw new Error('check failed');
        }),
      ),
    });
    const seen = await unhandledDuring(() => {
      const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":"x"}', schema }));
      assert.equal(error.stage, 'schema');
      assert.equal(error.code, 'async_schema');
    });
    assert.equal(seen.length, 0);
  });

  test('a Standard Schema whose validate returns a rejected native promise: the rejection is handled', async () => {
    const secret = newSecret();
    const schema = { '~standard': { version: 1, vendor: 'test', validate: () => Promise.reject(new Error(secret)) } };
    const seen = await unhandledDuring(() => {
      const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema }));
      assert.equal(error.code, 'async_schema');
      assert.equal(error.stage, 'schema');
    });
    assert.equal(seen.length, 0);
  });

  test('a schema function returning a rejected promise is stage snapshot async_schema, and the process does not die', () => {
    const secret = newSecret();
    const child = spawnSync(
      process.execPath,
      [
        '-e',
        `
      const { prepareToolCall } = require(${JSON.stringify(ROOT)});
      try {
        prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: () => Promise.reject(new Error('${secret}')) });
      } catch (error) {
        console.log(JSON.stringify({ stage: error.stage, code: error.code }));
      }
      setTimeout(() => console.log('alive'), 20);
    `,
      ],
      { encoding: 'utf8', timeout: 30000 },
    );
    assert.equal(child.status, 0, `the child died:\n${child.stderr}`);
    assert.ok(!child.stderr.includes(secret), `stderr holds the schema's error:\n${child.stderr}`);
    assert.deepEqual(child.stdout.trim().split('\n'), ['{"stage":"snapshot","code":"async_schema"}', 'alive']);
  });

  test('a schema function returning a non-native thenable is stage snapshot async_schema and its then is never called', () => {
    let thens = 0;
    const thenable = {
      then() {
        thens += 1;
      },
    };
    const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: () => thenable }));
    assert.equal(error.stage, 'snapshot');
    assert.equal(error.code, 'async_schema');
    class Lazy {
      then() {
        thens += 1;
      }
    }
    const fromClass = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: () => new Lazy() }));
    assert.equal(fromClass.code, 'async_schema');
    assert.equal(thens, 0);
  });

  test("a native promise's rejection is handled without running any code reachable from it (constructor getters, species, a Proxy prototype)", async () => {
    let ran = 0;
    const tamperings = [
      [
        'an own constructor getter',
        () =>
          Object.defineProperty(Promise.reject(new Error('own')), 'constructor', {
            get() {
              ran += 1;
              return Promise;
            },
            configurable: true,
          }),
      ],
      [
        'a Proxy as its prototype',
        () =>
          Object.setPrototypeOf(
            Promise.reject(new Error('proxy')),
            new Proxy(Promise.prototype, {
              get(t, k, r) {
                ran += 1;
                return Reflect.get(t, k, r);
              },
              getOwnPropertyDescriptor(t, k) {
                ran += 1;
                return Reflect.getOwnPropertyDescriptor(t, k);
              },
            }),
          ),
      ],
      [
        'a subclass with a species getter',
        () => {
          class Sub extends Promise {
            static get [Symbol.species]() {
              ran += 1;
              return Promise;
            }
          }
          return Sub.reject(new Error('sub'));
        },
      ],
    ];
    for (const [label, make] of tamperings) {
      const seen = await unhandledDuring(() => {
        const promise = make();
        const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: () => promise }));
        assert.equal(error.code, 'async_schema', label);
        if (label === 'an own constructor getter') {
          assert.equal(typeof Object.getOwnPropertyDescriptor(promise, 'constructor').get, 'function', 'the own getter is put back');
        }
      });
      assert.equal(seen.length, 0, `${label}: unhandled rejection`);
    }
    // Global tampering of Promise.prototype.constructor and Promise[Symbol.species].
    const constructorDescriptor = Object.getOwnPropertyDescriptor(Promise.prototype, 'constructor');
    const speciesDescriptor = Object.getOwnPropertyDescriptor(Promise, Symbol.species);
    Object.defineProperty(Promise.prototype, 'constructor', {
      get() {
        ran += 1;
        return Promise;
      },
      configurable: true,
    });
    Object.defineProperty(Promise, Symbol.species, {
      get() {
        ran += 1;
        return Promise;
      },
      configurable: true,
    });
    let error;
    const rejected = Promise.reject(new Error('global'));
    try {
      error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: () => rejected }));
    } finally {
      Object.defineProperty(Promise.prototype, 'constructor', constructorDescriptor);
      Object.defineProperty(Promise, Symbol.species, speciesDescriptor);
    }
    assert.equal(error.code, 'async_schema');
    const seen = await unhandledDuring(() => {});
    assert.equal(seen.length, 0, 'global tampering: unhandled rejection');
    assert.equal(ran, 0, 'code reachable from the promise ran');
  });
});

describe('item 8: the schema error is never printed or carried by generic renderers or cloning', () => {
  for (const [name, z] of [
    ['zod 3', zod3],
    ['zod 4', zod4],
  ]) {
    test(`${name}: no cause; util.inspect (customInspect: false), structuredClone and JSON carry no payload; getSchemaError() returns it`, () => {
      const secret = newSecret();
      const schema = z.object({ mode: z.enum(['read', 'write']), [secret]: z.number() });
      const error = capture(() =>
        prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: JSON.stringify({ mode: secret, [secret]: secret }), schema }),
      );
      assert.equal(error.code, 'schema_error');
      assert.equal('cause' in error, false);
      for (const rendering of [
        util.inspect(error, { customInspect: false, showHidden: true, depth: Infinity }),
        util.inspect(error, { showHidden: true, depth: Infinity }),
        util.inspect(structuredClone(error), { customInspect: false, showHidden: true, depth: Infinity }),
        JSON.stringify(error),
        String(error),
        error.stack,
      ]) {
        assert.ok(!rendering.includes(secret), `a rendering holds the payload: ${rendering.slice(0, 300)}`);
      }
      const schemaError = error.getSchemaError();
      assert.ok(schemaError instanceof z.ZodError);
      assert.equal(error.issueCount, 2);
      assert.deepEqual(
        error.issueCodes,
        schemaError.issues.map((issue) => issue.code),
      );
      assert.ok(Object.isFrozen(error.issueCodes));
      assert.equal(error.issuePaths, undefined);
    });

    test(`${name}: issue paths only with includePath, from zod's issues`, () => {
      const schema = z.object({ a: z.object({ 'x/y~z': z.number() }), list: z.array(z.string()) });
      const error = capture(() =>
        prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"a":{"x/y~z":"n"},"list":["ok",2]}', schema, includePath: true }),
      );
      assert.deepEqual(error.issuePaths, ['/a/x~1y~0z', '/list/1']);
      assert.ok(!error.message.includes('x/y'));
    });
  }

  test('valibot through Standard Schema: issueCount and paths from its issues, no zod codes, no message or input', () => {
    const secret = newSecret();
    const schema = v.object({ a: v.pipe(v.string(), v.minLength(100, `too short: ${secret}`)) });
    const error = capture(() => prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: JSON.stringify({ a: secret }), schema, includePath: true }));
    assert.equal(error.stage, 'schema');
    assert.equal(error.issueCount, 1);
    assert.equal(error.issueCodes, undefined);
    assert.deepEqual(error.issuePaths, ['/a']);
    assert.ok(!util.inspect(error, { customInspect: false, showHidden: true, depth: Infinity }).includes(secret));
    assert.ok(Array.isArray(error.getSchemaError()), 'the Standard Schema issues');
  });
});

describe('item 10: tool names are escaped in messages and inspect output', () => {
  const RAW_CHARACTERS = ['\n', '\r', '\u0000', '\u001b', '\u007f', '\u0085', '\u009b', '\u2028', '\u2029', '\u202e', '\u2066', '\u2069', '\u200e', '\u061c'];
  test('every control character, U+0085, U+2028/2029 and bidi control appears escaped, never raw', () => {
    for (const character of RAW_CHARACTERS) {
      const toolName = `deploy${character}ok\nFAKE LOG LINE`;
      const error = capture(() => createSnapshot({ agentName: AGENT, toolName, value: new Map() }));
      assert.equal(error.toolName, toolName, 'the field keeps the name as it is');
      const hex = character.charCodeAt(0).toString(16).padStart(4, '0');
      // The stack and inspect output hold line breaks of their own (one per frame): the
      // message line is the only line that is not a frame, and inspect appends its
      // fields to the last frame.
      const inspected = util.inspect(error);
      const nonFrames = inspected.split('\n').filter((line) => !line.startsWith('    at '));
      assert.equal(nonFrames.length, 1, `U+${hex}: inspect lines ${JSON.stringify(nonFrames)}`);
      const fields = inspected.slice(inspected.lastIndexOf('{ stage:'));
      for (const [label, text] of [
        ['message', error.message],
        ['inspect message line', nonFrames[0]],
        ['inspect fields', fields],
        ['stack', error.stack.split('\n    at ')[0]],
      ]) {
        assert.ok(!text.includes(character), `U+${hex} raw in ${label}`);
        assert.ok(!text.includes('\n'), `a line break in the ${label}`);
        assert.ok(text.includes(`\\u${hex}`), `U+${hex} escaped in ${label}: ${JSON.stringify(text.slice(0, 200))}`);
      }
    }
  });

  test('an ordinary name, including non-ASCII letters and emoji, appears as it is', () => {
    for (const toolName of ['search', 'outil é', '工具', 'tool 😀']) {
      const error = capture(() => createSnapshot({ agentName: AGENT, toolName, value: new Map() }));
      assert.ok(error.message.includes(`"${toolName}"`), error.message);
    }
  });

  test('a stage-json error from decodeRequest escapes the toolName option too', () => {
    const error = capture(() => decodeRequest('{', { toolName: 'a\nb' }));
    assert.ok(!error.message.includes('\n'));
    assert.ok(error.message.includes('a\\u000ab'));
  });
});

describe('the pipeline uses only built-ins captured at load, on success and failure paths', () => {
  test('with Object, Reflect, Array, JSON, Promise, WeakMap, Function.prototype.call/bind and util.types patched after load, every outcome is the same and no patch runs', () => {
    const script = `
      'use strict';
      const pkg = require(${JSON.stringify(ROOT)});
      const util = require('node:util');
      const ownKeys = Object.keys;
      const hits = [];
      // The scenario's own code calls no built-in the patches replace (the schema is a
      // function, results are stored by index), so every patch hit would be the package's.
      const schema = (value) => {
        if (typeof value.a !== 'number') throw new TypeError('a must be a number');
        return { a: value.a };
      };
      const policies = {
        allow: () => ({ decision: 'allow', reason: 'ok' }),
        deny: () => ({ decision: 'deny', reason: 'no' }),
        approval: async () => ({ decision: 'require_approval', reason: 'human' }),
        mutate: (input) => { input.parsedArguments.a = 2; return { decision: 'allow', reason: 'ok' }; },
        invalid: () => ({ verdict: 'x' }),
        throws: () => { throw new Error('policy'); },
        rejects: async () => { throw new Error('policy'); },
        none: undefined,
      };
      async function scenario() {
        const out = [];
        for (const name of ownKeys(policies)) {
          const policy = policies[name];
          const prepared = pkg.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"a":1}', schema });
          const decision = await pkg.evaluateToolCall({ prepared, policy, policyContext: { turn: 1 } });
          let executed;
          try { executed = await pkg.executeToolCall(decision, (args) => pkg.canonicalize(args), { grants: { spend: async () => true } }); }
          catch (error) { executed = error.code; }
          const outcome = await pkg.authorizeToolCall({ prepared, policy, execute: (args) => args.a });
          out[out.length] = [name, decision.decision, decision.decidedBy, decision.reason, executed, outcome.decision, outcome.reason, outcome.result];
        }
        for (const [label, fn] of [
          ['json', () => pkg.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"a":1,"a":2}' })],
          ['schema', () => pkg.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"a":"x"}', schema })],
          ['async schema', () => pkg.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: () => new Promise((resolve, reject) => reject(new Error('r'))) })],
          ['thenable', () => pkg.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: () => ({ then() {} }) })],
          ['stored', () => pkg.verifySnapshot({ agentName: 'a', toolName: 't', argsCanonicalJson: '{"b":1,"a":2}', proposalHash: '0' })],
          ['hash', () => pkg.verifySnapshot({ agentName: 'a', toolName: 't', argsCanonicalJson: '{"a":2}', proposalHash: '0' })],
        ]) {
          try { fn(); out[out.length] = [label, 'accepted']; } catch (error) { out[out.length] = [label, error.name, error.stage, error.code]; }
        }
        let forged;
        try { await pkg.executeToolCall({ decision: 'allow' }, () => 1); } catch (error) { forged = error.code; }
        out[out.length] = ['forged', forged];
        return JSON.stringify(out);
      }
      (async () => {
        const before = await scenario();
        let ran = 0;
        const hit = (what) => { ran += 1; if (hits.length < 20) hits[hits.length] = what + (process.env.HIT_STACK ? String(new Error().stack).slice(0, 600) : ''); };
        const patch = (target, key) => {
          const original = target[key];
          Object.defineProperty(target, key, { configurable: true, writable: true, value: function (...args) { hit(key); return original.apply(this, args); } });
        };
        for (const key of ['getOwnPropertyDescriptor', 'defineProperty', 'freeze', 'hasOwn', 'keys', 'getPrototypeOf', 'isExtensible']) patch(Object, key);
        for (const key of ['ownKeys', 'deleteProperty', 'apply']) patch(Reflect, key);
        for (const key of ['push', 'slice', 'map', 'join', 'includes']) patch(Array.prototype, key);
        patch(Array, 'isArray');
        patch(JSON, 'parse');
        for (const key of ['then', 'catch', 'finally']) patch(Promise.prototype, key);
        for (const key of ['resolve', 'reject']) patch(Promise, key);
        for (const key of ['get', 'set', 'has']) patch(WeakMap.prototype, key);
        for (const key of ['charCodeAt', 'slice', 'isWellFormed']) patch(String.prototype, key);
        for (const key of ['isPromise', 'isProxy', 'isNativeError']) patch(util.types, key);
        // Looked up by every await and by the resolution of every promise with an object
        // (the caller's own awaits, and the promise an async API resolves with its
        // result): installed so the outcomes are checked under them, not counted.
        let lookups = 0;
        Object.defineProperty(Promise.prototype, 'constructor', { configurable: true, get() { lookups += 1; return Promise; } });
        Object.defineProperty(Object.prototype, 'then', { configurable: true, get() { lookups += 1; return undefined; } });
        const patchedBefore = ran;
        hits.length = 0;
        const after = await scenario();
        console.log(JSON.stringify({ same: before === after, before, after, patchHits: ran - patchedBefore, hits }));
      })();
    `;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000, cwd: ROOT });
    assert.equal(child.status, 0, child.stderr);
    const report = JSON.parse(child.stdout.trim().split('\n').pop());
    assert.equal(report.after, report.before, 'an outcome changed under the patches');
    const rows = JSON.parse(report.before);
    assert.deepEqual(rows.find((row) => row[0] === 'mutate').slice(1, 4), ['deny', 'runtime', 'policy_mutated_arguments']);
    assert.deepEqual(rows.find((row) => row[0] === 'none').slice(1, 4), ['deny', 'runtime', 'policy_not_configured']);
    assert.deepEqual(rows.find((row) => row[0] === 'allow').slice(4), ['{"a":1}', 'allow', 'ok', 1]);
    assert.deepEqual(
      rows.find((row) => row[0] === 'async schema'),
      ['async schema', 'ToolArgumentsValidationError', 'snapshot', 'async_schema'],
    );
    assert.equal(report.patchHits, 0, `patched built-ins ran: ${report.hits.join(', ')}`);
  });
});
