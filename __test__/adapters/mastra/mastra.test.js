'use strict';
// tool-argument-snapshot/mastra with real Mastra agents (@mastra/core 1.x): Mastra's own
// mock model (MastraLanguageModelV2Mock), its in-memory storage, and LibSQL storage shared
// by child processes. Each scenario shows what Mastra alone executes (as the pinned version
// does it) beside what executes through the gate. Mastra needs Node >= 22.13: under an
// older Node these tests skip with the reason and package/node-lines.test.js runs this file again
// under the newest Node line.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { z } = require('zod');
const api = require('tool-argument-snapshot');
const { MASTRA_SKIP, mastra, scriptedModel, drain, callChunks, resultsOf } = require('./mastra-support');

const { createApprovalGrants, canonicalize } = api;
const skip = MASTRA_SKIP;

/** The adapter, required only where Mastra runs (it loads @mastra/core). */
function adapter() {
  return require('tool-argument-snapshot/mastra');
}

const PaySchema = z.object({ to: z.string(), cents: z.number().int().positive() });

/** createTool options of a pay tool whose handler records what it ran. */
function payOptions(executed, extra = {}) {
  return {
    id: 'pay',
    description: 'Pays an amount in cents to someone',
    inputSchema: PaySchema,
    execute: async (args) => {
      executed.push(canonicalize(args));
      return { paid: args.cents };
    },
    ...extra,
  };
}

/** Small payments run; large ones need a person. */
const payPolicy = ({ parsedArguments }) =>
  parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large payment' };

/** A Mastra app with one agent: { agent, storage, prompts }. */
function app({ model, tools, storage }) {
  const { Agent, Mastra, InMemoryStore } = mastra();
  const store = storage ?? new InMemoryStore();
  const agent = new Agent({ id: 'billing', name: 'billing', instructions: 'Pay what the user asks.', model, tools });
  const instance = new Mastra({ agents: { billing: agent }, storage: store, logger: false });
  return { agent: instance.getAgent('billing'), storage: store };
}

/** A gated app: the gate, the agent, what executed, what the provider received. */
function gatedApp({ steps, policy = { pay: payPolicy }, grants, grantScope, tools, storage, executed = [] }) {
  const { createToolGate } = adapter();
  const prompts = [];
  const options = { agentName: 'billing', tools: tools ?? { pay: payOptions(executed) }, policy };
  if (grants !== undefined) options.grants = grants;
  if (grantScope !== undefined) options.grantScope = grantScope;
  const gate = createToolGate(options);
  const { agent, storage: store } = app({ model: gate.model(scriptedModel(steps, prompts)), tools: gate.tools, storage });
  return { gate, agent, executed, prompts, storage: store };
}

/** The same agent without the gate: Mastra's createTool and `requireApproval`. */
function aloneApp({ steps, requireApproval = true, inputSchema = PaySchema, execute, storage }) {
  const { createTool } = mastra();
  const executed = [];
  const pay = createTool({
    id: 'pay',
    description: 'Pays an amount in cents to someone',
    inputSchema,
    requireApproval,
    execute:
      execute ??
      (async (args) => {
        executed.push(JSON.stringify(args));
        return { paid: args.cents };
      }),
  });
  const { agent, storage: store } = app({ model: scriptedModel(steps), tools: { pay }, storage });
  return { agent, executed, storage: store };
}

const call = (id, input, name = 'pay') => ({ id, name, input });

/** Warnings of code TAS_APPROVED_WITHOUT_GRANT emitted while `fn` runs (and its ticks). */
async function approvalWarnings(fn) {
  const seen = [];
  const listener = (warning) => {
    if (warning.code === 'TAS_APPROVED_WITHOUT_GRANT') seen.push(warning.message);
  };
  process.on('warning', listener);
  try {
    await fn();
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', listener);
  }
  return seen;
}

// ---------------------------------------------------------------------------------
// The subpath, loaded lazily.

test('tool-argument-snapshot/mastra is exported, shipped and an optional peer on @mastra/core 1.x', () => {
  const manifest = require('../../../package.json');
  assert.deepEqual(manifest.exports['./mastra'], { types: './adapters/mastra/index.d.ts', default: './adapters/mastra/entry.js' });
  assert.ok(manifest.files.includes('adapters/'));
  assert.equal(manifest.peerDependencies['@mastra/core'], '^1.71.0');
  assert.deepEqual(manifest.peerDependenciesMeta['@mastra/core'], { optional: true });
  assert.match(manifest.devDependencies['@mastra/core'], /^\^1\./, 'tested against @mastra/core pinned by major');
  // The package root never loads a framework.
  const loaded = spawnSync(
    process.execPath,
    [
      '-e',
      `
    require('tool-argument-snapshot');
    console.log(Object.keys(require.cache).some((file) => file.includes('@mastra')));
  `,
    ],
    { cwd: __dirname, encoding: 'utf8' },
  );
  assert.equal(loaded.stdout, 'false\n', loaded.stderr);
});

test('requiring the subpath without @mastra/core throws MODULE_NOT_FOUND naming @mastra/core (any Node)', () => {
  // A child in which @mastra/core cannot be resolved, as in an app that never installed it.
  const script = `
    const Module = require('node:module');
    const resolve = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request.startsWith('@mastra/core')) {
        const error = new Error("Cannot find module '" + request + "'");
        error.code = 'MODULE_NOT_FOUND';
        throw error;
      }
      return resolve.call(this, request, ...rest);
    };
    try { require('tool-argument-snapshot/mastra'); console.log('loaded'); }
    catch (error) { console.log(JSON.stringify({ code: error.code, packageName: error.packageName, message: error.message })); }
    console.log(typeof require('tool-argument-snapshot').prepareToolCall);
  `;
  const result = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', cwd: __dirname });
  assert.equal(result.status, 0, result.stderr);
  const [first, second] = result.stdout.trim().split('\n');
  const refused = JSON.parse(first);
  assert.equal(refused.code, 'MODULE_NOT_FOUND');
  assert.equal(refused.packageName, '@mastra/core');
  assert.equal(refused.message, 'tool-argument-snapshot/mastra needs Mastra (@mastra/core 1.x) (an optional peer dependency): npm install @mastra/core');
  assert.equal(second, 'function', 'the package itself still loads');
});

test('installed from its tarball without Mastra, the package pulls no framework and the subpath names @mastra/core', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mastra-pack-'));
  try {
    const npm = (args, cwd) => spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, { cwd, encoding: 'utf8' });
    const packed = npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], path.join(__dirname, '..', '..', '..'));
    assert.equal(packed.status, 0, packed.stderr);
    const tarball = path.join(dir, JSON.parse(packed.stdout)[0].filename);
    const project = path.join(dir, 'app');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', private: true }));
    const installed = npm(['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball], project);
    assert.equal(installed.status, 0, installed.stderr);
    assert.ok(fs.existsSync(path.join(project, 'node_modules', 'tool-argument-snapshot', 'adapters', 'mastra', 'index.js')));
    assert.ok(fs.existsSync(path.join(project, 'node_modules', 'tool-argument-snapshot', 'adapters', 'mastra', 'index.d.ts')));
    assert.equal(fs.existsSync(path.join(project, 'node_modules', '@mastra')), false, 'no framework was installed');
    const loaded = spawnSync(
      process.execPath,
      [
        '-e',
        `
      try { require('tool-argument-snapshot/mastra'); console.log('loaded'); }
      catch (error) { console.log(JSON.stringify({ code: error.code, packageName: error.packageName })); }
    `,
      ],
      { cwd: project, encoding: 'utf8' },
    );
    assert.equal(loaded.status, 0, loaded.stderr);
    assert.deepEqual(JSON.parse(loaded.stdout), { code: 'MODULE_NOT_FOUND', packageName: '@mastra/core' });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---------------------------------------------------------------------------------
// Allow, the schema once, invalid input.

test('the schema runs once, on the provider text: Mastra alone runs a zod transform twice ("hi!!"), the gate once ("hi!")', { skip }, async () => {
  const make = () => {
    const state = { parses: 0, executed: [] };
    state.options = {
      id: 'note',
      description: 'Writes a note',
      inputSchema: z.object({
        text: z.string().transform((s) => {
          state.parses++;
          return `${s}!`;
        }),
      }),
      execute: async (args) => {
        state.executed.push(args.text);
        return { saved: true };
      },
    };
    return state;
  };
  const steps = () => [[call('c1', '{"text":"hi"}', 'note')], 'Saved.'];

  const alone = make();
  const { agent: aloneAgent } = app({ model: scriptedModel(steps()), tools: { note: mastra().createTool(alone.options) } });
  await drain(await aloneAgent.stream('note hi'));
  assert.deepEqual(
    { parses: alone.parses, executed: alone.executed },
    { parses: 2, executed: ['hi!!'] },
    'Mastra 1.x validates in its tool builder and again in the Tool wrapper',
  );

  const gated = make();
  const { gate, agent } = gatedApp({ steps: steps(), tools: { note: gated.options }, policy: () => ({ decision: 'allow', reason: 'notes are fine' }) });
  const chunks = await drain(await agent.stream('note hi'));
  assert.deepEqual({ parses: gated.parses, executed: gated.executed }, { parses: 1, executed: ['hi!'] });
  assert.deepEqual(resultsOf(chunks), { c1: { saved: true } });
  assert.deepEqual(Object.keys(gate.tools), ['note']);
});

test('a duplicate key: Mastra alone executes the last value; the gate answers invalid input (json/duplicate_key) and runs nothing', { skip }, async () => {
  const steps = () => [[call('c1', '{"to":"bob","cents":5,"cents":500000}')], 'Done.'];
  const alone = aloneApp({ steps: steps(), requireApproval: false });
  await drain(await alone.agent.stream('pay bob'));
  assert.deepEqual(alone.executed, ['{"to":"bob","cents":500000}']);

  const { agent, executed } = gatedApp({ steps: steps() });
  const chunks = await drain(await agent.stream('pay bob'));
  assert.deepEqual(executed, []);
  const result = resultsOf(chunks).c1;
  assert.equal(result.error, true);
  assert.equal(result.stage, 'json');
  assert.equal(result.code, 'duplicate_key');
  assert.deepEqual(Object.keys(result.validationErrors), ['errors', 'fields'], "the shape of Mastra's own invalid input");
  assert.doesNotMatch(JSON.stringify(result), /bob|500000/, 'no payload in what the model is told');
});

test('allow runs the handler once on a fresh view; deny answers the model and runs nothing; schema failures are invalid input', { skip }, async () => {
  const decisions = [];
  const { createToolGate } = adapter();
  const executed = [];
  const gate = createToolGate({
    agentName: 'billing',
    tools: { pay: payOptions(executed) },
    policy: {
      pay: ({ parsedArguments }) => (parsedArguments.to === 'mallory' ? { decision: 'deny', reason: 'blocked payee' } : { decision: 'allow', reason: 'ok' }),
    },
    onDecision: (decision, info) => decisions.push([info.toolCallId, decision.decision, decision.reason, info.argumentsSource, info.resume]),
  });
  const steps = [[call('c1', '{"to":"bob","cents":5}'), call('c2', '{"to":"mallory","cents":5}'), call('c3', '{"to":"eve","cents":-1}')], 'Done.'];
  const { agent } = app({ model: gate.model(scriptedModel(steps)), tools: gate.tools });
  const chunks = await drain(await agent.stream('pay'));
  assert.deepEqual(executed, ['{"cents":5,"to":"bob"}']);
  const results = resultsOf(chunks);
  assert.deepEqual(results.c1, { paid: 5 });
  assert.deepEqual(results.c2, {
    error: true,
    message: 'The tool call was not executed (deny: blocked payee).',
    decision: 'deny',
    reason: 'blocked payee',
    decidedBy: 'policy',
  });
  assert.equal(results.c3.stage, 'schema');
  assert.deepEqual(decisions.sort(), [
    ['c1', 'allow', 'ok', 'provider_text', false],
    ['c2', 'deny', 'blocked payee', 'provider_text', false],
  ]);
});

test('policy mutation: Mastra alone executes what its requireApproval function changed; the gate denies (policy_mutated_arguments)', { skip }, async () => {
  const Nested = z.object({ payment: z.object({ to: z.string(), cents: z.number() }) });
  const steps = () => [[call('c1', '{"payment":{"to":"bob","cents":5}}')], 'Done.'];
  const alone = aloneApp({
    steps: steps(),
    inputSchema: Nested,
    // Looks at the amount, decides no approval is needed, and changes it on the way.
    requireApproval: (input) => {
      const small = input.payment.cents < 100;
      input.payment.cents = 9999900;
      return !small;
    },
  });
  await drain(await alone.agent.stream('pay bob'));
  assert.deepEqual(alone.executed, ['{"payment":{"to":"bob","cents":9999900}}']);

  const executed = [];
  const { agent } = gatedApp({
    steps: steps(),
    tools: {
      pay: {
        id: 'pay',
        description: 'pay',
        inputSchema: Nested,
        execute: async (args) => {
          executed.push(canonicalize(args));
          return {};
        },
      },
    },
    policy: {
      pay: ({ parsedArguments }) => {
        const small = parsedArguments.payment.cents < 100;
        try {
          parsedArguments.payment.cents = 9999900;
        } catch {
          // The view is frozen in strict code; a sloppy policy could still try.
        }
        return small ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };
      },
    },
  });
  const chunks = await drain(await agent.stream('pay bob'));
  assert.deepEqual(executed, []);
  assert.deepEqual(resultsOf(chunks).c1, {
    error: true,
    message: 'The tool call was not executed (deny: policy_mutated_arguments).',
    decision: 'deny',
    reason: 'policy_mutated_arguments',
    decidedBy: 'runtime',
  });
});

test(
  'OpenAI models (Mastra\'s compat layer asks for null at optional fields): Mastra alone turns an accepted null ("unassign") into "unchanged"; the gate keeps it and drops only nulls the schema refuses',
  { skip },
  async () => {
    const Update = z.object({ title: z.string(), assignee: z.union([z.string(), z.literal(null)]).optional(), memo: z.string().optional() });
    const openai = { provider: 'openai.chat', modelId: 'gpt-4o' };
    const steps = () => [[call('c1', '{"title":"t","assignee":null,"memo":null}', 'update')], 'Done.'];
    const options = (executed) => ({
      id: 'update',
      description: 'Updates a ticket',
      inputSchema: Update,
      execute: async (args) => {
        executed.push(args);
        return { ok: true };
      },
    });

    const aloneRan = [];
    const prompts = [];
    const { agent: alone } = app({ model: scriptedModel(steps(), prompts, openai), tools: { update: mastra().createTool(options(aloneRan)) } });
    await drain(await alone.stream('unassign'));
    assert.deepEqual(
      aloneRan.map((args) => [Object.hasOwn(args, 'assignee'), args.assignee]),
      [[true, undefined]],
      'the null the schema accepts is gone',
    );

    const executed = [];
    const { createToolGate } = adapter();
    const gate = createToolGate({ agentName: 'tickets', tools: { update: options(executed) }, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    const gatedPrompts = [];
    const { agent } = app({ model: gate.model(scriptedModel(steps(), gatedPrompts, openai)), tools: gate.tools });
    await drain(await agent.stream('unassign'));
    assert.deepEqual(
      executed.map((args) => canonicalize(args)),
      ['{"assignee":null,"title":"t"}'],
      'unassign, and the refused memo null read as absent',
    );
    // The provider was shown what Mastra alone shows it (the compat layer's nullable, required fields).
    assert.deepEqual(gatedPrompts.length, prompts.length);
  },
);

test(
  "OpenAI models: approved calls resume under Mastra's compat layer; one whose accepted null Mastra dropped from its stored arguments never runs without it",
  { skip },
  async () => {
    const Update = z.object({ title: z.string(), assignee: z.union([z.string(), z.literal(null)]).optional(), memo: z.string().optional() });
    const { createToolGate } = adapter();
    const executed = [];
    const gate = createToolGate({
      agentName: 'tickets',
      tools: {
        update: {
          id: 'update',
          description: 'Updates a ticket',
          inputSchema: Update,
          execute: async (args) => {
            executed.push(canonicalize(args));
            return { ok: true };
          },
        },
      },
      policy: () => ({ decision: 'require_approval', reason: 'review' }),
    });
    const steps = [
      [call('c1', '{"title":"t","assignee":"al","memo":null}', 'update'), call('c2', '{"title":"t","assignee":null,"memo":null}', 'update')],
      'Done.',
    ];
    const { agent } = app({ model: gate.model(scriptedModel(steps, [], { provider: 'openai.chat', modelId: 'gpt-4o' })), tools: gate.tools });
    const run = await agent.stream('update');
    await drain(run);
    let results = {};
    for (const toolCallId of ['c1', 'c2']) {
      await gate.approve({ runId: run.runId, toolCallId });
      results = { ...results, ...resultsOf(await drain(await agent.approveToolCall({ runId: run.runId, toolCallId }))) };
    }
    assert.equal(executed[0], '{"assignee":"al","title":"t"}');
    // On resume Mastra's compat layer may rewrite the stored `assignee: null` to undefined
    // (seen with its CommonJS build): what would run is then "unchanged", not the approved
    // "unassign", and the gate refuses it. It never runs the call without the null.
    if (executed.length === 2) assert.equal(executed[1], '{"assignee":null,"title":"t"}');
    else assert.equal(results.c2.reason, 'proposal_changed');
    assert.equal(executed.includes('{"title":"t"}'), false);
  },
);

// ---------------------------------------------------------------------------------
// Approvals through Mastra's own flow.

test(
  "require_approval suspends through Mastra's approval flow; gate.approve + approveToolCall executes exactly that call once; the provider never receives the proposal",
  { skip },
  async () => {
    const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'a secret of at least thirty-two bytes!' }] });
    const { gate, agent, executed, prompts } = gatedApp({ steps: [[call('call_1', '{"to":"bob","cents":250000}')], 'Paid bob.'], grants });
    const output = await agent.stream('Pay bob 2500 dollars');
    const chunks = await drain(output);
    assert.deepEqual(callChunks(chunks), ['tool-call:call_1', 'tool-call-approval:call_1']);
    assert.deepEqual(executed, []);
    // Mastra's own approval request and its record of the suspended run.
    const approval = chunks.find((c) => c.type === 'tool-call-approval');
    assert.deepEqual(approval.payload.args, { to: 'bob', cents: 250000 });
    const { runs } = await agent.listSuspendedRuns();
    assert.deepEqual(
      runs.map((r) => [r.runId, r.toolCalls.map((c) => c.toolCallId)]),
      [[output.runId, ['call_1']]],
    );

    // What the reviewer sees: the sealed proposal kept for Mastra's run and the call.
    const sealed = await gate.keptProposal(approval);
    assert.equal(sealed.argsCanonicalJson, '{"cents":250000,"to":"bob"}');
    assert.equal(sealed.agentName, 'billing');
    assert.equal(sealed.toolName, 'pay');
    assert.equal(typeof sealed.signature, 'string');

    assert.deepEqual(await gate.approve({ runId: output.runId, toolCallId: 'call_1' }), sealed);
    const resumed = await drain(await agent.approveToolCall({ runId: output.runId, toolCallId: 'call_1' }));
    assert.deepEqual(resultsOf(resumed), { call_1: { paid: 250000 } });
    assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);
    // Answered: nothing is waiting any more, and the run cannot be resumed again.
    assert.equal(await gate.keptProposal({ runId: output.runId, toolCallId: 'call_1' }), undefined);
    await assert.rejects(gate.approve({ runId: output.runId, toolCallId: 'call_1' }), { code: 'TAS_NO_PENDING_PROPOSAL' });
    await assert.rejects(async () => drain(await agent.approveToolCall({ runId: output.runId, toolCallId: 'call_1' })));
    assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}'], 'executed once');

    // The carrier is the package's grants store, never the conversation: no prompt holds it.
    const sent = JSON.stringify(prompts);
    assert.equal(prompts.length, 2);
    for (const value of [sealed.proposalHash, sealed.signature, sealed.nonce, 'require_approval', 'large payment']) {
      assert.equal(sent.includes(value), false, `the provider never receives ${value.slice(0, 12)}`);
    }
  },
);

test('approved the Mastra way without a grant: reason approved_without_grant, nothing runs, one warning per gate (none in production)', { skip }, async () => {
  const first = gatedApp({ steps: [[call('c1', '{"to":"bob","cents":250000}'), call('c2', '{"to":"eve","cents":350000}')], 'Done.'] });
  const output = await first.agent.stream('pay');
  await drain(output);
  let resumed = [];
  const warnings = await approvalWarnings(async () => {
    resumed = resumed.concat(await drain(await first.agent.approveToolCall({ runId: output.runId, toolCallId: 'c1' })));
    resumed = resumed.concat(await drain(await first.agent.approveToolCall({ runId: output.runId, toolCallId: 'c2' })));
  });
  assert.deepEqual(first.executed, []);
  const results = resultsOf(resumed);
  for (const id of ['c1', 'c2']) {
    assert.deepEqual(results[id], {
      error: true,
      message: 'The tool call was not executed (deny: approved_without_grant).',
      decision: 'deny',
      reason: 'approved_without_grant',
      decidedBy: 'runtime',
    });
  }
  assert.equal(warnings.length, 1, 'one warning for the gate');
  assert.match(warnings[0], /^tool-argument-snapshot\/mastra: a tool call was approved the framework's own way, without a grant/);
  assert.match(warnings[0], /gate\.approve/);
  assert.doesNotMatch(warnings[0], /bob|250000/);

  const previous = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    const second = gatedApp({ steps: [[call('c1', '{"to":"bob","cents":250000}')], 'Done.'] });
    const out = await second.agent.stream('pay');
    await drain(out);
    const quiet = await approvalWarnings(async () => drain(await second.agent.approveToolCall({ runId: out.runId, toolCallId: 'c1' })));
    assert.deepEqual(quiet, []);
    assert.deepEqual(second.executed, []);
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
});

test(
  'a stale approval: Mastra alone applies it to whichever call is suspended (executes eve 999999); through the gate it executes nothing',
  { skip },
  async () => {
    // The run suspends on c1 (bob), the reviewer declines it elsewhere, the model retries
    // with c2 (eve), and an approval made earlier for c1 arrives late, as approveToolCall({ runId }).
    const steps = () => [[call('c1', '{"to":"bob","cents":5000}')], [call('c2', '{"to":"eve","cents":99999900}')], 'Done.'];
    const alone = aloneApp({ steps: steps() });
    const aloneRun = await alone.agent.stream('pay');
    await drain(aloneRun);
    await drain(await alone.agent.declineToolCall({ runId: aloneRun.runId, toolCallId: 'c1' }));
    // With the call id, Mastra 1.x refuses the stale target; without it (its docs' form), it resumes c2.
    await assert.rejects(async () => drain(await alone.agent.approveToolCall({ runId: aloneRun.runId, toolCallId: 'c1' })), {
      id: 'AGENT_RESUME_TOOL_CALL_NOT_SUSPENDED',
    });
    await drain(await alone.agent.approveToolCall({ runId: aloneRun.runId }));
    assert.deepEqual(alone.executed, ['{"to":"eve","cents":99999900}']);

    // Through the gate, the reviewer's approval of c1 is a grant for c1's hash only.
    const { gate, agent, executed } = gatedApp({ steps: steps() });
    const run = await agent.stream('pay');
    await drain(run);
    const approved = await gate.approve({ runId: run.runId, toolCallId: 'c1' }); // the stale approval, granted
    assert.equal(await gate.keptProposal({ runId: run.runId, toolCallId: 'c1' }), undefined, 'approved: no longer waiting');
    await drain(await agent.declineToolCall({ runId: run.runId, toolCallId: 'c1' })); // declined elsewhere (Mastra's way)
    const late = await drain(await agent.approveToolCall({ runId: run.runId }));
    assert.deepEqual(executed, []);
    assert.equal(resultsOf(late).c2.reason, 'approved_without_grant');
    assert.ok(
      await gate.grants.has({ agentName: 'billing', toolName: 'pay', proposalHash: approved.proposalHash }),
      "the grant for bob's call is unspent: it never executed eve's",
    );
  },
);

test(
  'a decline never executes: Mastra 1.x alone executes nothing either; the gate also forgets the proposal, so no later approval can run it',
  { skip },
  async () => {
    const steps = () => [[call('c1', '{"to":"bob","cents":250000}')], 'Not paid.'];
    for (const form of ['tool requireApproval', 'agent requireToolApproval']) {
      const alone = aloneApp({ steps: steps(), requireApproval: form === 'tool requireApproval' });
      const run = await alone.agent.stream('pay', form === 'tool requireApproval' ? {} : { requireToolApproval: true });
      await drain(run);
      const declined = await drain(await alone.agent.declineToolCall({ runId: run.runId, toolCallId: 'c1' }));
      assert.deepEqual(callChunks(declined), ['tool-output-denied:c1'], form);
      assert.deepEqual(alone.executed, [], `${form}: Mastra 1.71 no longer executes a declined call (mastra-ai/mastra#20470, fixed by #20487)`);
    }

    const { gate, agent, executed } = gatedApp({ steps: steps() });
    const run = await agent.stream('pay');
    await drain(run);
    await gate.decline({ runId: run.runId, toolCallId: 'c1' });
    const declined = await drain(await agent.declineToolCall({ runId: run.runId, toolCallId: 'c1' }));
    assert.deepEqual(callChunks(declined), ['tool-output-denied:c1']);
    await assert.rejects(gate.approve({ runId: run.runId, toolCallId: 'c1' }), { code: 'TAS_NO_PENDING_PROPOSAL' });
    assert.deepEqual(executed, []);
  },
);

test(
  'stored arguments edited after the request: Mastra alone executes the edit; through the gate nothing runs (proposal_changed) and the grant stays unspent',
  { skip },
  async () => {
    async function edit(storage, runId) {
      const workflows = await storage.getStore('workflows');
      for (const workflowName of ['agentic-loop', 'executionWorkflow']) {
        const snapshot = await workflows.loadWorkflowSnapshot({ workflowName, runId });
        const edited = JSON.parse(JSON.stringify(snapshot).replaceAll('"cents":250000', '"cents":99999900'));
        await workflows.persistWorkflowSnapshot({ workflowName, runId, snapshot: edited });
      }
    }
    const steps = () => [[call('c1', '{"to":"bob","cents":250000}')], 'Done.'];
    const alone = aloneApp({ steps: steps() });
    const aloneRun = await alone.agent.stream('pay');
    await drain(aloneRun);
    await edit(alone.storage, aloneRun.runId);
    await drain(await alone.agent.approveToolCall({ runId: aloneRun.runId, toolCallId: 'c1' }));
    assert.deepEqual(alone.executed, ['{"to":"bob","cents":99999900}']);

    const { gate, agent, executed, storage } = gatedApp({ steps: steps() });
    const run = await agent.stream('pay');
    await drain(run);
    const approved = await gate.approve({ runId: run.runId, toolCallId: 'c1' });
    await edit(storage, run.runId);
    const resumed = await drain(await agent.approveToolCall({ runId: run.runId, toolCallId: 'c1' }));
    assert.deepEqual(executed, []);
    assert.equal(resultsOf(resumed).c1.reason, 'proposal_changed');
    assert.equal(await gate.grants.has({ agentName: 'billing', toolName: 'pay', proposalHash: approved.proposalHash }), true);
  },
);

test(
  'a kept proposal changed in the grants store executes nothing: its seal no longer verifies (proposal_changed), and it cannot be granted',
  { skip },
  async () => {
    const { createFileStandInGrantStore } = require('./mastra-support');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mastra-kept-'));
    try {
      const file = path.join(dir, 'grants.json');
      const grants = createApprovalGrants({ store: createFileStandInGrantStore(file), keys: [{ id: 'k1', secret: 's'.repeat(40) }] });
      const { gate, agent, executed } = gatedApp({
        steps: [[call('c1', '{"to":"bob","cents":250000}'), call('c2', '{"to":"eve","cents":350000}')], 'Done.'],
        grants,
      });
      const run = await agent.stream('pay');
      await drain(run);
      // Whoever can write the store rewrites the arguments of both kept proposals.
      const data = JSON.parse(fs.readFileSync(file, 'utf8'));
      for (const key of Object.keys(data.proposals))
        data.proposals[key].json = data.proposals[key].json.replace(/"to\\":\\"(bob|eve)\\"/, '"to\\":\\"mallory\\"');
      fs.writeFileSync(file, JSON.stringify(data));
      assert.ok(JSON.stringify(data).includes('mallory'));
      await assert.rejects(gate.approve({ runId: run.runId, toolCallId: 'c1' }), { name: 'ApprovalGrantError', code: 'bad_signature' });
      const resumed = [];
      for (const toolCallId of ['c1', 'c2']) resumed.push(...(await drain(await agent.approveToolCall({ runId: run.runId, toolCallId }))));
      assert.deepEqual(executed, []);
      assert.equal(resultsOf(resumed).c1.reason, 'proposal_changed');
      assert.equal(resultsOf(resumed).c2.reason, 'proposal_changed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

test('parallel calls: each decided on its own; approving one runs it and leaves the other pending until it is approved', { skip }, async () => {
  const steps = [[call('c1', '{"to":"bob","cents":250000}'), call('c2', '{"to":"eve","cents":350000}'), call('c3', '{"to":"al","cents":100}')], 'Done.'];
  const { gate, agent, executed } = gatedApp({ steps });
  const run = await agent.stream('pay three');
  const chunks = await drain(run);
  assert.deepEqual(
    callChunks(chunks)
      .filter((c) => c.startsWith('tool-call-approval'))
      .sort(),
    ['tool-call-approval:c1', 'tool-call-approval:c2'],
  );
  assert.deepEqual(executed, ['{"cents":100,"to":"al"}'], 'the small one ran at once');

  await gate.approve({ runId: run.runId, toolCallId: 'c2' });
  await drain(await agent.approveToolCall({ runId: run.runId, toolCallId: 'c2' }));
  assert.deepEqual(executed, ['{"cents":100,"to":"al"}', '{"cents":350000,"to":"eve"}']);
  const { runs } = await agent.listSuspendedRuns();
  assert.deepEqual(
    runs.map((r) => r.toolCalls.map((c) => c.toolCallId)),
    [['c1']],
    'c1 is still waiting',
  );
  assert.equal((await gate.keptProposal({ runId: run.runId, toolCallId: 'c1' })).argsCanonicalJson, '{"cents":250000,"to":"bob"}');

  await gate.approve({ runId: run.runId, toolCallId: 'c1' });
  const last = await drain(await agent.approveToolCall({ runId: run.runId, toolCallId: 'c1' }));
  assert.deepEqual(resultsOf(last), { c1: { paid: 250000 }, c2: { paid: 350000 }, c3: { paid: 100 } });
  assert.deepEqual(executed, ['{"cents":100,"to":"al"}', '{"cents":350000,"to":"eve"}', '{"cents":250000,"to":"bob"}']);
});

test('generate() (not streamed) takes the same path: approveToolCallGenerate after gate.approve', { skip }, async () => {
  const { gate, agent, executed } = gatedApp({ steps: [[call('c1', '{"to":"bob","cents":250000}'), call('c2', '{"to":"al","cents":7,"cents":8}')], 'Paid.'] });
  const result = await agent.generate('Pay bob');
  assert.equal(result.finishReason, 'suspended');
  assert.equal(result.suspendPayload.toolCallId, 'c1');
  await gate.approve(result);
  const done = await agent.approveToolCallGenerate({ runId: result.runId, toolCallId: 'c1' });
  assert.equal(done.text, 'Paid.');
  assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);
  assert.equal(done.toolResults.find((r) => r.payload.toolCallId === 'c2').payload.result.code, 'duplicate_key');
});

// ---------------------------------------------------------------------------------
// Call ids: the run's own text, or nothing.

test(
  "two concurrent runs with the same call id and text: each run is decided with its own context (the guest's denied call never runs under the admin's allow)",
  { skip },
  async () => {
    const { RequestContext } = mastra();
    const { createToolGate } = adapter();
    const executed = [];
    const seen = [];
    const gate = createToolGate({
      agentName: 'billing',
      tools: { pay: payOptions(executed) },
      policy: {
        pay: (input) => {
          const role = input.requestContext.get('role');
          seen.push([role, input.runId, input.toolCallId, input.argsCanonicalJson]);
          return role === 'admin' ? { decision: 'allow', reason: 'admin' } : { decision: 'deny', reason: 'guests cannot pay' };
        },
      },
    });
    const same = [call('call_0', '{"to":"bob","cents":700}')];
    const { agent } = app({ model: gate.model(scriptedModel([same, same, 'ok', 'ok'])), tools: gate.tools });
    const contextOf = (role) => {
      const rc = new RequestContext();
      rc.set('role', role);
      return rc;
    };
    const [guest, admin] = await Promise.all([
      agent.stream('pay', { requestContext: contextOf('guest') }).then(async (out) => ({ runId: out.runId, chunks: await drain(out) })),
      agent.stream('pay', { requestContext: contextOf('admin') }).then(async (out) => ({ runId: out.runId, chunks: await drain(out) })),
    ]);
    assert.deepEqual(executed, ['{"cents":700,"to":"bob"}'], "one execution: the admin's");
    assert.deepEqual(resultsOf(admin.chunks).call_0, { paid: 700 });
    assert.equal(resultsOf(guest.chunks).call_0.reason, 'guests cannot pay');
    assert.deepEqual(
      seen.map(([role, runId]) => [role, runId]).sort(),
      [
        ['admin', admin.runId],
        ['guest', guest.runId],
      ].sort(),
    );
  },
);

test(
  'two concurrent runs sharing a call id with different texts each get their own text; texts that parse alike but differ are refused',
  { skip },
  async () => {
    const { createToolGate } = adapter();
    const executed = [];
    const gate = createToolGate({ agentName: 'billing', tools: { pay: payOptions(executed) }, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    const a = [call('call_0', '{"to":"bob","cents":5}')];
    const b = [call('call_0', '{"to":"eve","cents":9}')];
    let { agent } = app({ model: gate.model(scriptedModel([a, b, 'ok', 'ok'])), tools: gate.tools });
    const outs = await Promise.all([agent.stream('one'), agent.stream('two')]);
    const results = await Promise.all(outs.map(async (out) => resultsOf(await drain(out)).call_0));
    assert.deepEqual(executed.sort(), ['{"cents":5,"to":"bob"}', '{"cents":9,"to":"eve"}']);
    assert.deepEqual(results.map((r) => r.paid).sort(), [5, 9]);

    // Same parsed arguments, different texts (one with a duplicate key): which is whose cannot be told.
    executed.length = 0;
    const c = [call('call_1', '{"to":"bob","cents":9}')];
    const d = [call('call_1', '{"to":"bob","cents":5,"cents":9}')];
    ({ agent } = app({ model: gate.model(scriptedModel([c, d, 'ok', 'ok'])), tools: gate.tools }));
    const both = await Promise.all([agent.stream('one'), agent.stream('two')]);
    const answers = await Promise.all(both.map(async (out) => resultsOf(await drain(out)).call_1));
    assert.deepEqual(executed, [], 'neither runs: the duplicate key would otherwise be lost');
    for (const answer of answers) assert.ok(['unpaired_call', 'no_provider_text'].includes(answer.code), JSON.stringify(answer));
  },
);

test("a resumed call never takes another run's recorded text that shares its call id", { skip }, async () => {
  const { createToolGate } = adapter();
  const executed = [];
  const seen = [];
  const gate = createToolGate({
    agentName: 'billing',
    tools: { pay: payOptions(executed) },
    policy: { pay: payPolicy },
    onDecision: (decision, info) => seen.push([info.argumentsSource, decision.argsCanonicalJson, decision.reason]),
  });
  const { agent } = app({ model: gate.model(scriptedModel([[call('call_0', '{"to":"bob","cents":250000}')], 'Paid.'])), tools: gate.tools });
  const run = await agent.stream('pay bob');
  await drain(run);
  // Another run of the same gate's model, whose provider reuses the id: its text waits
  // (here for ever: that agent runs its own copy of the tool).
  const other = app({
    model: gate.model(scriptedModel([[call('call_0', '{"to":"mallory","cents":900}')], 'ok'])),
    tools: { pay: mastra().createTool(payOptions([], { requireApproval: true })) },
  });
  await drain(await other.agent.stream('pay mallory'));
  await gate.approve({ runId: run.runId, toolCallId: 'call_0' });
  const resumed = await drain(await agent.approveToolCall({ runId: run.runId, toolCallId: 'call_0' }));
  assert.deepEqual(resultsOf(resumed), { call_0: { paid: 250000 } });
  assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);
  assert.deepEqual(
    seen,
    [
      ['provider_text', '{"cents":250000,"to":"bob"}', 'large payment'],
      ['history', '{"cents":250000,"to":"bob"}', 'approval_granted'],
    ],
    "mallory's text was never evaluated in bob's run",
  );
});

test('a call id used twice in one response: Mastra alone runs one call and drops the other; the gate refuses both (duplicate_call_id)', { skip }, async () => {
  const steps = () => [[call('c1', '{"to":"bob","cents":5}'), call('c1', '{"to":"eve","cents":999999}')], 'Done.'];
  const alone = aloneApp({ steps: steps(), requireApproval: false });
  const aloneChunks = await drain(await alone.agent.stream('pay'));
  assert.deepEqual(alone.executed, ['{"to":"bob","cents":5}']);
  assert.deepEqual(callChunks(aloneChunks), ['tool-call:c1', 'tool-result:c1'], "eve's call was never decided nor answered");

  const { agent, executed } = gatedApp({ steps: steps(), policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const chunks = await drain(await agent.stream('pay'));
  assert.deepEqual(executed, []);
  assert.equal(resultsOf(chunks).c1.code, 'duplicate_call_id');
  assert.equal(resultsOf(chunks).c1.stage, 'json');
});

test('a call without an id: Mastra alone runs it; the gate answers invalid input (missing_call_id)', { skip }, async () => {
  const steps = () => [[call('', '{"to":"bob","cents":5}')], 'Done.'];
  const alone = aloneApp({ steps: steps(), requireApproval: false });
  await drain(await alone.agent.stream('pay'));
  assert.deepEqual(alone.executed, ['{"to":"bob","cents":5}']);

  const { agent, executed } = gatedApp({ steps: steps(), policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const chunks = await drain(await agent.stream('pay'));
  assert.deepEqual(executed, []);
  assert.equal(resultsOf(chunks)[''].code, 'missing_call_id');
  assert.equal(resultsOf(chunks)[''].stage, 'json');
});

test("gated tools need the gate's model: a call whose text never passed gate.model is invalid input (json/no_provider_text)", { skip }, async () => {
  const { createToolGate } = adapter();
  const executed = [];
  const gate = createToolGate({ agentName: 'billing', tools: { pay: payOptions(executed) }, policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const { agent } = app({ model: scriptedModel([[call('c1', '{"to":"bob","cents":5}')], 'Done.']), tools: gate.tools });
  const chunks = await drain(await agent.stream('pay'));
  assert.deepEqual(executed, []);
  assert.equal(resultsOf(chunks).c1.code, 'no_provider_text');
  assert.equal(resultsOf(chunks).c1.stage, 'json');
});

// ---------------------------------------------------------------------------------
// Tools, options and inputs.

test(
  'tools: createTool options, or tools made by createTool of this module (a plain Mastra tool is refused: its execute would parse again)',
  { skip },
  async () => {
    const { createToolGate, createTool } = adapter();
    const executed = [];
    const made = createTool(payOptions(executed));
    assert.equal(made.id, 'pay', 'a real Mastra tool, usable without the gate');
    const direct = await made.execute({ to: 'x', cents: 1 }, {});
    assert.deepEqual(direct, { paid: 1 });
    const gate = createToolGate({ agentName: 'billing', tools: { pay: made }, policy: () => ({ decision: 'allow', reason: 'ok' }) });
    const { agent } = app({ model: gate.model(scriptedModel([[call('c1', '{"to":"bob","cents":5}')], 'Done.'])), tools: gate.tools });
    await drain(await agent.stream('pay'));
    assert.deepEqual(executed, ['{"cents":1,"to":"x"}', '{"cents":5,"to":"bob"}']);

    const plain = mastra().createTool(payOptions([]));
    assert.throws(() => createToolGate({ agentName: 'billing', tools: { pay: plain } }), { name: 'TypeError', message: /run its schema a second time/ });
    assert.throws(() => createToolGate({ agentName: 'billing', tools: { pay: payOptions([], { suspendSchema: z.object({}) }) } }), {
      name: 'TypeError',
      message: /suspends itself/,
    });
    assert.throws(() => createToolGate({ agentName: 'billing', tools: { pay: { id: 'pay', description: 'x' } } }), {
      name: 'TypeError',
      message: /no execute/,
    });
    assert.throws(
      () => createToolGate({ agentName: 'billing', tools: { pay: payOptions([]) }, policy: { send: () => ({ decision: 'allow', reason: 'x' }) } }),
      { name: 'TypeError' },
    );
  },
);

test(
  "JSON Schema tools: a plain JSON Schema inputSchema runs once through the package's fromJsonSchema (Ajv); the provider sees the same schema",
  { skip },
  async () => {
    const { createToolGate } = adapter();
    const executed = [];
    const Pay = {
      type: 'object',
      properties: { to: { type: 'string', minLength: 1 }, cents: { type: 'integer', minimum: 1 }, memo: { type: 'string' } },
      required: ['to', 'cents'],
      additionalProperties: false,
    };
    const gate = createToolGate({
      agentName: 'billing',
      tools: {
        pay: {
          id: 'pay',
          description: 'Pays cents',
          inputSchema: Pay,
          execute: async (args) => {
            executed.push(canonicalize(args));
            return 'ok';
          },
        },
      },
      policy: { pay: ({ parsedArguments }) => ({ decision: 'allow', reason: `${parsedArguments.cents}` }) },
    });
    const prompts = [];
    let tools;
    const model = scriptedModel(
      [[call('c1', '{"to":"bob","cents":5}'), call('c2', '{"to":"bob","cents":0}'), call('c3', '{"to":"bob","cents":5,"cents":6}')], 'Done.'],
      prompts,
    );
    const { agent } = app({
      model: gate.model(
        Object.assign(model, {
          doStream: ((inner) => async (options) => {
            tools ??= options.tools;
            return inner(options);
          })(model.doStream.bind(model)),
        }),
      ),
      tools: gate.tools,
    });
    const results = resultsOf(await drain(await agent.stream('pay')));
    assert.deepEqual(executed, ['{"cents":5,"to":"bob"}']);
    assert.equal(results.c1, 'ok');
    assert.equal(results.c2.stage, 'schema');
    assert.equal(results.c3.code, 'duplicate_key');
    const sent = tools.find((t) => t.name === 'pay').inputSchema;
    assert.deepEqual(sent.properties, Pay.properties);
    assert.deepEqual(sent.required, Pay.required);
    // A JSON Schema that does not compile is refused when the gate is made, not at the first call.
    assert.throws(
      () =>
        createToolGate({
          agentName: 'billing',
          tools: { pay: { id: 'pay', description: 'x', inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } }, execute: async () => 'x' } },
        }),
      { name: 'TypeError', message: /JSON Schema of tool "pay"/ },
    );
  },
);

test('Proxy options, tools, policies and approval requests are refused unread', { skip }, async () => {
  const { createToolGate } = adapter();
  let reads = 0;
  const trap = (target) =>
    new Proxy(target, {
      get: (t, k) => {
        reads++;
        return t[k];
      },
      getOwnPropertyDescriptor: (t, k) => {
        reads++;
        return Object.getOwnPropertyDescriptor(t, k);
      },
      ownKeys: (t) => {
        reads++;
        return Reflect.ownKeys(t);
      },
    });
  assert.throws(() => createToolGate(trap({ agentName: 'billing', tools: {} })), { name: 'TypeError' });
  assert.throws(() => createToolGate({ agentName: 'billing', tools: trap({ pay: payOptions([]) }) }), { name: 'TypeError' });
  assert.throws(() => createToolGate({ agentName: 'billing', tools: { pay: trap(payOptions([])) } }), { name: 'TypeError' });
  assert.throws(() => createToolGate({ agentName: 'billing', tools: { pay: payOptions([]) }, policy: trap({ pay: payPolicy }) }), { name: 'TypeError' });
  const gate = createToolGate({ agentName: 'billing', tools: { pay: payOptions([]) }, policy: { pay: payPolicy } });
  await assert.rejects(gate.approve(trap({ runId: 'r', toolCallId: 'c' })), { name: 'TypeError' });
  await assert.rejects(gate.keptProposal(trap({ runId: 'r', toolCallId: 'c' })), { name: 'TypeError' });
  assert.throws(() => gate.model(trap({ specificationVersion: 'v2' })), { name: 'TypeError' });
  assert.equal(reads, 0);
});

test("grant scopes: a run's scope comes from its request context; an approval in one scope never runs the same call in another", { skip }, async () => {
  const { RequestContext } = mastra();
  const grants = createApprovalGrants();
  const steps = [[call('c1', '{"to":"bob","cents":250000}')], [call('c1', '{"to":"bob","cents":250000}')], 'Done.', 'Done.'];
  const { gate, agent, executed } = gatedApp({ steps, grants, grantScope: ({ requestContext }) => `user:${requestContext.get('user')}` });
  const contextOf = (user) => {
    const rc = new RequestContext();
    rc.set('user', user);
    return rc;
  };
  const alice = await agent.stream('pay', { requestContext: contextOf('alice') });
  await drain(alice);
  const mallory = await agent.stream('pay', { requestContext: contextOf('mallory') });
  await drain(mallory);
  // The scope is part of where the proposal waits: without it the gate cannot tell whose it is.
  await assert.rejects(gate.approve({ runId: alice.runId, toolCallId: 'c1' }), { name: 'TypeError', message: /grantScope/ });
  const approved = await gate.approve({ runId: alice.runId, toolCallId: 'c1', grantScope: 'user:alice' });
  assert.equal(await grants.has({ agentName: 'billing', toolName: 'pay', proposalHash: approved.proposalHash, scope: 'user:alice' }), true);
  // Mallory's identical call, approved the Mastra way, finds no grant in her scope.
  const refused = await drain(await agent.approveToolCall({ runId: mallory.runId, toolCallId: 'c1' }));
  assert.equal(resultsOf(refused).c1.reason, 'approved_without_grant');
  assert.deepEqual(executed, []);
  const paid = await drain(await agent.approveToolCall({ runId: alice.runId, toolCallId: 'c1' }));
  assert.deepEqual(resultsOf(paid).c1, { paid: 250000 });
  assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);
});

test('a Mastra approval approved twice still executes its call once, and no identical call runs later without review', { skip }, async () => {
  // Review finding: without a key ring, approve granted the kept proposal and left it kept
  // until the resumed call ran, so a second approve (a double click, two reviewers, a
  // retried request) granted a second use that the next identical call spent (failed on 7e7def7).
  const steps = [[call('call_1', '{"to":"bob","cents":250000}')], 'Paid.', [call('call_2', '{"to":"bob","cents":250000}')], 'Paid again.'];
  const { gate, agent, executed } = gatedApp({ steps });
  const output = await agent.stream('Pay bob 2500 dollars');
  await drain(output);
  assert.deepEqual(executed, []);
  await gate.approve({ runId: output.runId, toolCallId: 'call_1' });
  await assert.rejects(gate.approve({ runId: output.runId, toolCallId: 'call_1' }), { code: 'TAS_NO_PENDING_PROPOSAL' }, 'the double click');
  await assert.rejects(gate.decline({ runId: output.runId, toolCallId: 'call_1' }), { code: 'TAS_NO_PENDING_PROPOSAL' }, 'answered already');
  await drain(await agent.approveToolCall({ runId: output.runId, toolCallId: 'call_1' }));
  assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}']);

  // A later run: the model proposes the same payment. It must wait for a review.
  const later = await drain(await agent.stream('Pay bob 2500 dollars again'));
  assert.deepEqual(callChunks(later), ['tool-call:call_2', 'tool-call-approval:call_2']);
  assert.deepEqual(executed, ['{"cents":250000,"to":"bob"}'], 'the same payment ran again without anyone approving it');
});

test(
  "a run's grant scope reaches the evaluation whatever setter Object.prototype has: an unscoped grant never runs a scoped run's call",
  { skip },
  async () => {
    // Review finding: `policyContext.grantScope = scope` was an assignment; a setter planted on
    // Object.prototype after load swallowed it and the run was evaluated unscoped (failed on 7e7def7).
    const grants = createApprovalGrants();
    const argsCanonicalJson = '{"cents":250000,"to":"bob"}';
    // An approval granted without a scope (another path of the app, an admin console).
    await grants.grant({
      agentName: 'billing',
      toolName: 'pay',
      argsCanonicalJson,
      proposalHash: api.proposalHash({ agentName: 'billing', toolName: 'pay', argsCanonicalJson }),
    });
    const { agent, executed } = gatedApp({ steps: [[call('c1', '{"to":"bob","cents":250000}')], 'Done.'], grants, grantScope: 'user:mallory' });
    Object.defineProperty(Object.prototype, 'grantScope', {
      configurable: true,
      set() {},
      get() {
        return undefined;
      },
    });
    let chunks;
    try {
      chunks = await drain(await agent.stream('pay'));
    } finally {
      delete Object.prototype.grantScope;
    }
    assert.deepEqual(executed, [], "mallory's run (scope user:mallory) spent an unscoped grant");
    assert.deepEqual(callChunks(chunks), ['tool-call:c1', 'tool-call-approval:c1']);
  },
);

// ---------------------------------------------------------------------------------
// Another process.

test(
  "an approval in another process: the run suspended in one process, sealed proposal granted in a second, resumed from Mastra's LibSQL storage in a third, executed once",
  { skip, timeout: 240_000 },
  () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-mastra-processes-'));
    const env = { ...process.env, TAS_SEAL_KEY: 'k'.repeat(40) };
    delete env.NODE_TEST_CONTEXT;
    const runChild = (...args) => {
      const result = spawnSync(process.execPath, [path.join(__dirname, 'process.js'), ...args], { encoding: 'utf8', env, timeout: 120_000 });
      assert.equal(result.status, 0, `${args[0]}: ${result.stderr}`);
      return JSON.parse(result.stdout.trim().split('\n').pop());
    };
    const lines = (file) => (fs.existsSync(path.join(dir, file)) ? fs.readFileSync(path.join(dir, file), 'utf8').trim().split('\n').filter(Boolean) : []);
    try {
      const started = runChild('start', dir);
      assert.deepEqual(started.calls, ['tool-call:call_1', 'tool-call-approval:call_1']);
      assert.deepEqual(lines('executed.log'), []);

      const review = runChild('review', dir, started.runId, 'call_1');
      assert.equal(review.sealed.argsCanonicalJson, '{"cents":250000,"to":"bob"}');
      assert.equal(review.sealed.keyId, 'k1');
      assert.equal(review.forged, 'bad_signature', 'a proposal changed on the way back is refused');

      const resumed = runChild('resume', dir, started.runId, 'call_1');
      assert.deepEqual(resumed.results, { call_1: { paid: 250000 } });
      const executed = lines('executed.log');
      assert.equal(executed.length, 1);
      assert.match(executed[0], /^\d+ \{"cents":250000,"to":"bob"\}$/);

      // Replayed: Mastra has nothing left to resume, and nothing runs again.
      const replay = runChild('resume', dir, started.runId, 'call_1');
      assert.ok(replay.error, 'Mastra refuses to resume a finished run');
      assert.equal(lines('executed.log').length, 1);

      const prompts = lines('prompts.log').join('\n');
      for (const value of [review.sealed.proposalHash, review.sealed.signature, review.sealed.nonce]) assert.equal(prompts.includes(value), false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);

// ---------------------------------------------------------------------------------
// Types.

test('the declarations type policies per tool (a map, or a union discriminated by toolName) and read parsedArguments under tsc --strict (CommonJS and ESM)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, '..', '..', 'package', 'types', 'mastra', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
