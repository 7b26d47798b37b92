'use strict';
// RFC-0016's Minimal Test Matrix (rows 1 to 11; row 12 is the vectors section) through
// the public run-loop API: prepareToolCall + authorizeToolCall, and, when the package
// exports them, prepareToolCall + evaluateToolCall + executeToolCall. Schemas are plain
// functions that coerce, default, strip and transform, so nothing here depends on a
// schema library that a runtime might load differently.

const AGENT = 'Matrix agent';
const TOOL = 'book_trip';
const RAW = '{"days":"3","city":"Lisbon","unknown":true,"traveller":{"name":"Ada"}}';
const CANONICAL = '{"city":"Lisbon","days":3,"traveller":{"name":"Ada","seats":["aisle"]}}';
const ALLOW = { decision: 'allow', reason: 'ok' };

/** A schema: coerces days, strips unknown keys, defaults seats; counts its calls. */
function tripSchema(counter) {
  return (input) => {
    counter.schema++;
    return { city: input.city, days: Number(input.days), traveller: { name: input.traveller.name, seats: ['aisle'] } };
  };
}

function objectsIn(value, out = []) {
  if (typeof value === 'object' && value !== null) {
    out.push(value);
    for (const key of Object.keys(value)) objectsIn(value[key], out);
  }
  return out;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

module.exports = function pipeline(h, pkg) {
  const { assert, check, skip } = h;
  const { prepareToolCall, authorizeToolCall, canonicalize, proposalHash, ToolArgumentsValidationError } = pkg;
  const threeStep = typeof pkg.evaluateToolCall === 'function' && typeof pkg.executeToolCall === 'function';

  function prepare(counter, extra = {}) {
    return prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: RAW, schema: tripSchema(counter), ...extra });
  }

  /**
   * The paths a run loop can take: one call, or evaluate then execute. Each resolves to
   * { decision, reason, result?, proposal?, decidedBy? } and calls execute at most once.
   */
  const PATHS = [['authorizeToolCall', async (prepared, policy, execute) => authorizeToolCall({ prepared, policy, execute })]];
  if (threeStep) {
    PATHS.push([
      'evaluateToolCall + executeToolCall',
      async (prepared, policy, execute) => {
        const decision = await pkg.evaluateToolCall({ prepared, policy });
        assert.ok(Object.isFrozen(decision), 'the decision is frozen');
        assert.equal(decision.argsCanonicalJson, prepared.argsCanonicalJson, 'decision argsCanonicalJson');
        assert.equal(decision.proposalHash, prepared.proposalHash, 'decision proposalHash');
        if (decision.decision !== 'allow')
          return { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy, proposal: decision.proposal };
        const result = await pkg.executeToolCall(decision, execute);
        return { decision: decision.decision, reason: decision.reason, decidedBy: decision.decidedBy, result };
      },
    ]);
  } else {
    skip('pipeline: evaluateToolCall + executeToolCall', 'not exported by this version of the package');
  }

  for (const [path, run] of PATHS) {
    const id = (row) => `pipeline (${path}): ${row}`;

    check(id('row 1, policy and handler receive distinct objects with the same canonical value'), async () => {
      const counter = { schema: 0 };
      const prepared = prepare(counter);
      assert.equal(prepared.argsCanonicalJson, CANONICAL, 'canonical JSON of the schema output');
      let seen;
      let ran;
      const outcome = await run(
        prepared,
        (input) => {
          seen = input.parsedArguments;
          return ALLOW;
        },
        (args) => {
          ran = args;
          return 'done';
        },
      );
      assert.equal(outcome.decision, 'allow', 'decision');
      assert.equal(outcome.result, 'done', 'the handler result');
      assert.ok(seen !== ran, 'policy and handler got the same object');
      const policyObjects = objectsIn(seen);
      for (const object of objectsIn(ran)) assert.ok(!policyObjects.includes(object), 'policy and handler share a nested object');
      assert.equal(canonicalize(seen), CANONICAL, 'policy view');
      assert.equal(canonicalize(ran), CANONICAL, 'execution view');
    });

    check(id('row 2, a policy-retained reference cannot mutate the later execution input'), async () => {
      let retained;
      let ran;
      await run(
        prepare({ schema: 0 }),
        (input) => {
          retained = input.parsedArguments;
          return ALLOW;
        },
        (args) => {
          retained.city = 'Mordor';
          retained.traveller.seats.push('cockpit');
          ran = canonicalize(args);
        },
      );
      assert.equal(ran, CANONICAL, "the handler saw the retained reference's mutation");
    });

    check(id('row 3, a schema transform returning an application-owned alias cannot reach policy or execution'), async () => {
      const owned = { city: 'Lisbon', days: 3, traveller: { name: 'Ada', seats: ['aisle'] } };
      const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: RAW, schema: () => owned });
      owned.city = 'Mordor';
      owned.traveller.seats.push('cockpit');
      let seen;
      let ran;
      await run(
        prepared,
        (input) => {
          seen = canonicalize(input.parsedArguments);
          return ALLOW;
        },
        (args) => {
          ran = args;
        },
      );
      assert.equal(seen, CANONICAL, 'policy saw the mutated alias');
      assert.equal(canonicalize(ran), CANONICAL, 'the handler saw the mutated alias');
      assert.ok(!objectsIn(ran).some((object) => objectsIn(owned).includes(object)), 'the handler got an application-owned object');
    });

    check(id('row 4, immediate policy mutation is denied with policy_mutated_arguments and nothing executes'), async () => {
      let executed = 0;
      const outcome = await run(
        prepare({ schema: 0 }),
        (input) => {
          input.parsedArguments.days = 30;
          return ALLOW;
        },
        () => {
          executed++;
        },
      );
      assert.equal(outcome.decision, 'deny', 'decision');
      assert.equal(outcome.reason, 'policy_mutated_arguments', 'reason');
      if (threeStep) assert.equal(outcome.decidedBy, 'runtime', 'decidedBy');
      assert.equal(executed, 0, 'the handler ran');
    });

    check(id('row 5, late policy mutation cannot change the handler input'), async () => {
      // The policy's view changes after the mutation check (a timer), before the handler
      // reads its arguments (it waits for a later timer).
      let ran;
      let mutated = false;
      const outcome = await run(
        prepare({ schema: 0 }),
        (input) => {
          setTimeout(() => {
            input.parsedArguments.city = 'Mordor';
            input.parsedArguments.traveller.seats.push('cockpit');
            mutated = true;
          }, 0);
          return ALLOW;
        },
        async (args) => {
          await tick();
          ran = canonicalize(args);
        },
      );
      assert.equal(outcome.decision, 'allow', 'decision');
      assert.ok(mutated, 'the late mutation ran before the handler read its arguments');
      assert.equal(ran, CANONICAL, 'the handler input changed');
    });

    check(id('row 6, unsupported schema output fails at stage snapshot before policy and execution'), async () => {
      const counter = { schema: 0 };
      for (const [label, output, code] of [
        ['a Date', () => new Date(0), 'non_plain_object'],
        ['a Map in a field', () => ({ when: new Map() }), 'non_plain_object'],
        ['undefined in a field', () => ({ a: undefined }), 'unsupported_type'],
      ]) {
        let error;
        try {
          prepareToolCall({
            agentName: AGENT,
            toolName: TOOL,
            rawArguments: RAW,
            schema: () => {
              counter.schema++;
              return output();
            },
          });
        } catch (e) {
          error = e;
        }
        assert.error(error, ToolArgumentsValidationError, { stage: 'snapshot', code, toolName: TOOL }, label);
      }
      assert.equal(counter.schema, 3, 'schema calls');
    });

    check(id('row 7, the schema runs exactly once per execution attempt'), async () => {
      const counter = { schema: 0 };
      const prepared = prepare(counter);
      prepared.policyView();
      prepared.policyView();
      await run(
        prepared,
        () => ALLOW,
        () => {},
      );
      assert.equal(counter.schema, 1, 'schema calls for one attempt');
      await run(
        prepare(counter),
        () => ({ decision: 'deny', reason: 'no' }),
        () => {},
      );
      assert.equal(counter.schema, 2, 'schema calls for two attempts');
    });

    check(id('row 8, a suspended proposal reuses the policy fingerprint with its own decoded view'), async () => {
      const prepared = prepare({ schema: 0 });
      let seen;
      let executed = 0;
      const outcome = await run(
        prepared,
        (input) => {
          seen = input;
          return { decision: 'require_approval', reason: 'review' };
        },
        () => {
          executed++;
        },
      );
      assert.equal(outcome.decision, 'require_approval', 'decision');
      assert.equal(executed, 0, 'the handler ran');
      const { proposal } = outcome;
      assert.equal(proposal.kind, 'tool', 'kind');
      assert.equal(proposal.argsCanonicalJson, seen.argsCanonicalJson, 'the proposal JSON is the one policy evaluated');
      assert.equal(proposal.proposalHash, seen.proposalHash, 'the proposal hash is the one policy evaluated');
      assert.equal(proposal.reason, 'review', 'reason');
      assert.ok(proposal.parsedArguments !== seen.parsedArguments, 'the proposal shares the policy view');
      assert.equal(canonicalize(proposal.parsedArguments), CANONICAL, 'the proposal view');
      seen.parsedArguments.city = 'Mordor';
      assert.equal(canonicalize(proposal.parsedArguments), CANONICAL, 'a later change of the policy view reached the proposal');
    });

    check(id('row 9, resume approval matches only an identical strict snapshot hash'), async () => {
      const approved = prepare({ schema: 0 }).proposalHash;
      const policy = (input) => (input.proposalHash === approved ? ALLOW : { decision: 'require_approval', reason: 'not approved' });
      const respelled = ' { "traveller" : { "name" : "Ada" }, "city":"Lis\\u0062on", "days" : "3" } ';
      const same = await run(
        prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: respelled, schema: tripSchema({ schema: 0 }) }),
        policy,
        () => 'ran',
      );
      assert.equal(same.decision, 'allow', 'the same action spelled differently');
      const other = await run(
        prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: RAW.replace('"3"', '"4"'), schema: tripSchema({ schema: 0 }) }),
        policy,
        () => 'ran',
      );
      assert.equal(other.decision, 'require_approval', 'a different value');
      const otherTool = prepareToolCall({ agentName: AGENT, toolName: 'other_tool', rawArguments: RAW, schema: tripSchema({ schema: 0 }) });
      assert.notEqual(otherTool.proposalHash, approved, 'another tool with the same arguments has the same hash');
      assert.equal(proposalHash({ agentName: AGENT, toolName: TOOL, argsCanonicalJson: CANONICAL }), approved, 'proposalHash() of the fields');
    });

    check(id('row 10, own __proto__, constructor and prototype keys are data'), async () => {
      const raw = '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"prototype":3}';
      const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: raw });
      assert.equal(prepared.argsCanonicalJson, '{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"prototype":3}', 'canonical JSON');
      assert.notEqual(
        prepared.proposalHash,
        prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{"constructor":{"prototype":{"polluted":2}},"prototype":3}' }).proposalHash,
        'the __proto__ key is part of the fingerprint',
      );
      let ran;
      await run(
        prepared,
        () => ALLOW,
        (args) => {
          ran = args;
        },
      );
      assert.equal(Object.getPrototypeOf(ran), Object.prototype, "the view's prototype");
      assert.ok(Object.hasOwn(ran, '__proto__'), 'the view has an own __proto__ key');
      assert.equal(ran.polluted, undefined, 'the view inherits the __proto__ value');
      assert.equal({}.polluted, undefined, 'Object.prototype was polluted');
    });

    check(id('row 11, hostile schema outputs fail deterministically at stage snapshot'), async () => {
      const outputs = [
        ['negative zero', () => ({ a: -0 }), 'negative_zero'],
        ['a lone surrogate', () => ({ a: '\ud800' }), 'lone_surrogate'],
        ['a sparse array', () => ({ a: [1, , 3] }), 'sparse_array'], // eslint-disable-line no-sparse-arrays
        [
          'an alias',
          () => {
            const shared = {};
            return { a: shared, b: shared };
          },
          'repeated_reference',
        ],
        [
          'an accessor',
          () =>
            Object.defineProperty({}, 'a', {
              get() {
                throw new Error('getter ran');
              },
              enumerable: true,
            }),
          'accessor_property',
        ],
        [
          'a cycle',
          () => {
            const o = {};
            o.o = o;
            return o;
          },
          'cycle',
        ],
        ['a host object', () => ({ url: new URL('https://example.com') }), 'non_plain_object'],
      ];
      for (const [label, output, code] of outputs) {
        for (let i = 0; i < 2; i++) {
          let error;
          try {
            prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: '{}', schema: output });
          } catch (e) {
            error = e;
          }
          assert.error(error, ToolArgumentsValidationError, { stage: 'snapshot', code, toolName: TOOL }, `${label}, attempt ${i + 1}`);
        }
      }
    });

    check(id('a throwing policy is denied with policy_error, a malformed result with invalid_policy_result'), async () => {
      let executed = 0;
      const thrown = await run(
        prepare({ schema: 0 }),
        () => {
          throw new Error('policy down');
        },
        () => {
          executed++;
        },
      );
      assert.equal(thrown.reason, 'policy_error', 'throwing policy');
      for (const result of [
        null,
        'allow',
        { decision: 'yes', reason: 'x' },
        { decision: 'allow' },
        Object.create({ decision: 'allow', reason: 'inherited' }),
      ]) {
        const outcome = await run(
          prepare({ schema: 0 }),
          () => result,
          () => {
            executed++;
          },
        );
        assert.equal(outcome.decision, 'deny', `result ${JSON.stringify(result)}`);
        assert.equal(outcome.reason, 'invalid_policy_result', `result ${JSON.stringify(result)}`);
      }
      assert.equal(executed, 0, 'the handler ran');
    });
  }

  if (threeStep) {
    const { evaluateToolCall, executeToolCall, ToolCallNotAllowedError, RUNTIME_REASONS } = pkg;
    check('pipeline: RUNTIME_REASONS lists the five runtime reasons', () => {
      assert.deepEqual(
        [...RUNTIME_REASONS].sort(),
        ['grant_store_unavailable', 'invalid_policy_result', 'policy_error', 'policy_mutated_arguments', 'policy_not_configured'],
        'RUNTIME_REASONS',
      );
      assert.ok(Object.isFrozen(RUNTIME_REASONS), 'frozen');
    });
    check('pipeline: executeToolCall runs an allow once and refuses deny, approval, repeats and copies', async () => {
      let executed = 0;
      const handler = () => {
        executed++;
        return 'ran';
      };
      const allow = await evaluateToolCall({ prepared: prepare({ schema: 0 }), policy: () => ALLOW });
      assert.equal(allow.decidedBy, 'policy', 'decidedBy of a policy allow');
      assert.equal(await executeToolCall(allow, handler), 'ran', 'first execution');
      const again = await assert.rejects(() => executeToolCall(allow, handler), 'second execution');
      assert.error(again, ToolCallNotAllowedError, { code: 'already_executed' }, 'second execution');
      const copy = await assert.rejects(() => executeToolCall({ ...allow }, handler), 'a spread copy');
      assert.error(copy, ToolCallNotAllowedError, { code: 'not_a_decision' }, 'a spread copy');
      for (const policy of [() => ({ decision: 'deny', reason: 'no' }), () => ({ decision: 'require_approval', reason: 'review' })]) {
        const decision = await evaluateToolCall({ prepared: prepare({ schema: 0 }), policy });
        const refused = await assert.rejects(() => executeToolCall(decision, handler), decision.decision);
        assert.error(refused, ToolCallNotAllowedError, { code: 'not_allowed' }, decision.decision);
      }
      const mutated = await evaluateToolCall({
        prepared: prepare({ schema: 0 }),
        policy: (input) => {
          input.parsedArguments.x = 1;
          return ALLOW;
        },
      });
      assert.equal(mutated.decidedBy, 'runtime', 'decidedBy of a mutation');
      const refused = await assert.rejects(() => executeToolCall(mutated, handler), 'a mutated decision');
      assert.error(refused, ToolCallNotAllowedError, { code: 'not_allowed' }, 'a mutated decision');
      assert.equal(executed, 1, 'handler runs');
    });
    check('pipeline: a policy returning reason policy_mutated_arguments is decidedBy policy', async () => {
      const decision = await evaluateToolCall({ prepared: prepare({ schema: 0 }), policy: () => ({ decision: 'deny', reason: 'policy_mutated_arguments' }) });
      assert.equal(decision.decidedBy, 'policy', 'decidedBy');
    });
  }
};
