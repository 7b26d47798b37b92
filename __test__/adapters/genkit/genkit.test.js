'use strict';
// tool-argument-snapshot/genkit against a real Genkit instance (genkit({}), genkit 1.42)
// and Genkit's own mock model (genkit/testing mockModel, which emits the scripted tool
// requests); Genkit's generate loop, its middleware, interrupts and restarts are its own.
// "Before" lines name what Genkit does without the gate (checked in the first test).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { genkit, z } = require('genkit');
const { mockModel } = require('genkit/testing');
const { createApprovalGrants, createCedarPolicy, createSqliteGrantStore } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/genkit');

const Transfer = () => z.object({ to: z.string(), amount: z.number().int().positive() });
const bySize = ({ parsedArguments }) =>
  parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };

/** A Genkit instance and its mock model: the scripted tool requests first, then text naming the tool outputs. */
function setup(requests, make = genkit) {
  const ai = make({});
  const model = mockModel(ai, {
    info: { supports: { tools: true, multiturn: true } },
    respond: (request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { text: 'done' };
      return { toolRequests: requests };
    },
  });
  return { ai, model };
}

function transferTool(ran, schema = Transfer()) {
  return {
    description: 'Send money',
    inputSchema: schema,
    execute: async (args) => {
      ran.push(args);
      return `sent ${args.amount} to ${args.to}`;
    },
  };
}

const outputs = (model) => Object.fromEntries(model.toolResponses.map((t) => [t.ref, t.output]));

test('before: Genkit alone runs a restart whose caller set resumed.toolApproved, with edited input', async () => {
  // Genkit's interrupts are a beta API of its own tools (genkit/beta).
  const { ai, model } = setup([{ name: 'transfer', ref: 'call_1', input: { to: 'bob', amount: 4242 } }], require('genkit/beta').genkit);
  const ran = [];
  const transfer = ai.defineTool(
    { name: 'transfer', description: 'Send money', inputSchema: z.object({ to: z.string(), amount: z.number() }) },
    async (input, { interrupt, resumed }) => {
      if (!resumed?.toolApproved) interrupt({ reason: 'large' });
      ran.push(input);
      return 'sent';
    },
  );
  const asked = await ai.generate({ model, prompt: 'pay', tools: [transfer] });
  assert.equal(asked.finishReason, 'interrupted');
  const edited = transfer.restart(asked.interrupts[0], { toolApproved: true }, { replaceInput: { to: 'mallory', amount: 9999900 } });
  await ai.generate({ model, messages: asked.messages, tools: [transfer], resume: { restart: [edited] } });
  assert.deepEqual(ran, [{ to: 'mallory', amount: 9999900 }], 'the boolean the caller sets approved other arguments');
});

test('an allowed call runs once, on an execution view, the schema once; a denied and an invalid call do not run; messages name no payload', async () => {
  const { ai, model } = setup([
    { name: 'transfer', ref: 'call_ok', input: { to: 'bob', amount: 5 } },
    { name: 'transfer', ref: 'call_deny', input: { to: 'mallory', amount: 7 } },
    { name: 'transfer', ref: 'call_bad', input: { to: 'bob', amount: 'seven' } },
  ]);
  const ran = [];
  let schemaRuns = 0;
  const counted = z.object({ to: z.string(), amount: z.number().int().positive() }).transform((value) => {
    schemaRuns++;
    return value;
  });
  const seen = [];
  const gate = createToolGate({
    ai,
    agentName: 'payments',
    tools: { transfer: transferTool(ran, counted) },
    policy: {
      transfer: (input) => {
        seen.push(input);
        return input.parsedArguments.to === 'mallory' ? { decision: 'deny', reason: 'blocked_recipient' } : bySize(input);
      },
    },
  });
  const response = await ai.generate({ model, prompt: 'pay', tools: gate.tools, use: [gate.use({ runId: 'run-1' })] });
  assert.equal(response.finishReason, 'stop');
  assert.deepEqual(ran, [{ to: 'bob', amount: 5 }]);
  assert.equal(schemaRuns, 2, 'once for each call that passed decoding (the invalid one fails in it); Genkit ran none');
  assert.notEqual(ran[0], seen[0].parsedArguments);
  assert.equal(seen[0].toolCallId, 'call_ok');
  assert.equal(seen[0].runId, 'run-1');
  assert.equal(seen[0].argumentsSource, 'genkit_input');
  const out = outputs(model);
  assert.equal(out.call_ok, 'sent 5 to bob');
  assert.equal(out.call_deny.reason, 'blocked_recipient');
  assert.equal(out.call_bad.stage, 'schema');
  for (const id of ['call_deny', 'call_bad']) assert.doesNotMatch(JSON.stringify(out[id]), /mallory|seven|bob/);
  // The model was shown the tool's JSON Schema (Genkit's own conversion of its zod).
  const listed = model.lastRequest.tools.find((t) => t.name === 'transfer');
  assert.deepEqual(listed.inputSchema.required, ['to', 'amount']);
});

test('approval: the interrupt carries the proposal; a restart with resumed.toolApproved but no grant, or with edited input, runs nothing; after gate.approve the approved hash runs once', async () => {
  const { ai, model } = setup([{ name: 'transfer', ref: 'call_big', input: { to: 'bob', amount: 4242 } }]);
  const ran = [];
  const gate = createToolGate({
    ai,
    agentName: 'payments',
    grants: createApprovalGrants(),
    tools: { transfer: transferTool(ran) },
    policy: { transfer: bySize },
  });
  const use = [gate.use({ runId: 'run-2' })];
  const asked = await ai.generate({ model, prompt: 'pay', tools: gate.tools, use });
  assert.equal(asked.finishReason, 'interrupted');
  const [interrupt] = asked.interrupts;
  const said = interrupt.metadata.interrupt['tool-argument-snapshot'];
  assert.equal(said.proposal.argsCanonicalJson, '{"amount":4242,"to":"bob"}');
  assert.equal(said.reason, 'large');
  const [waiting] = await gate.pending(asked.interrupts);
  assert.equal(waiting.proposal.proposalHash, said.proposal.proposalHash);

  const restart = (input) =>
    ai.generate({
      model,
      messages: asked.messages,
      tools: gate.tools,
      use,
      resume: {
        restart: [
          input
            ? gate.toolsByName.transfer.restart(interrupt, { toolApproved: true }, { replaceInput: input })
            : gate.toolsByName.transfer.restart(interrupt, { toolApproved: true }),
        ],
      },
    });
  await restart();
  assert.equal(outputs(model).call_big.reason, 'approved_without_grant');
  await gate.approve(interrupt);
  await assert.rejects(gate.approve(interrupt), { code: 'TAS_NO_PENDING_PROPOSAL' });
  await restart({ to: 'bob', amount: 4243 });
  assert.equal(outputs(model).call_big.reason, 'approved_without_grant', 'edited input is not the approved hash');
  assert.deepEqual(ran, []);
  await restart();
  assert.deepEqual(ran, [{ to: 'bob', amount: 4242 }]);
  await restart();
  assert.equal(outputs(model).call_big.reason, 'call_already_executed', 'a second restart: its receipt');
  assert.deepEqual(ran, [{ to: 'bob', amount: 4242 }]);
});

test('a Cedar policy decides through the gate; a tool the gate does not own passes to Genkit; the gated tool run without the middleware runs nothing', async () => {
  const { ai, model } = setup([
    { name: 'transfer', ref: 'c1', input: { to: 'bob', amount: 5 } },
    { name: 'transfer', ref: 'c2', input: { to: 'mallory', amount: 5 } },
    { name: 'clock', ref: 'c3', input: {} },
  ]);
  const ran = [];
  const cedar = createCedarPolicy({
    policies: [
      'permit(principal, action == Action::"transfer", resource) when { context.input.amount < 100 };',
      'forbid(principal, action, resource) when { context.input.to == "mallory" };',
    ].join('\n'),
    // Cedar validates against the tool's JSON Schema: a zod 4 schema (Genkit's own z is zod 3).
    tools: { transfer: require('zod').z.object({ to: require('zod').z.string(), amount: require('zod').z.number().int().positive() }) },
  });
  const clock = ai.defineTool({ name: 'clock', description: 'time', inputSchema: z.object({}) }, async () => 'noon');
  const gate = createToolGate({ ai, agentName: 'payments', tools: { transfer: transferTool(ran) }, policy: { transfer: cedar } });
  await ai.generate({ model, prompt: 'pay', tools: [...gate.tools, clock], use: [gate.use({ runId: 'r' })] });
  assert.deepEqual(ran, [{ to: 'bob', amount: 5 }]);
  assert.equal(outputs(model).c2.reason, 'forbidden');
  assert.equal(outputs(model).c3, 'noon');
  ran.length = 0;
  await ai.generate({ model, prompt: 'pay', tools: [...gate.tools, clock] });
  assert.deepEqual(ran, []);
  assert.equal(outputs(model).c1.reason, 'not_decided_by_gate');
});

test('the middleware refuses unread what is not JSON data (a getter, negative zero), naming tool, stage and code only', async () => {
  let read = 0;
  const input = { to: 'bob' };
  Object.defineProperty(input, 'amount', {
    enumerable: true,
    get() {
      read++;
      return 5;
    },
  });
  const ran = [];
  const gate = createToolGate({ agentName: 'payments', tools: { transfer: transferTool(ran) }, policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const hook = gate.middleware.instantiate({ config: { runId: 'r' } }).tool;
  const next = async () => assert.fail("not the gate's to pass on");
  const getter = await hook({ toolRequest: { name: 'transfer', ref: 'c1', input } }, {}, next);
  assert.equal(getter.toolResponse.output.code, 'accessor_property');
  const zero = await hook({ toolRequest: { name: 'transfer', ref: 'c2', input: { to: 'bob', amount: -0 } } }, {}, next);
  assert.equal(zero.toolResponse.output.code, 'negative_zero');
  assert.match(zero.toolResponse.output.message, /Arguments of tool "transfer" failed at stage snapshot/);
  assert.equal(read, 0);
  assert.deepEqual(ran, []);
});

function runChild(config) {
  return new Promise((resolve, reject) => {
    const run = spawn(process.execPath, [path.join(__dirname, 'process.js'), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    run.stdout.on('data', (c) => {
      out += c;
    });
    run.stderr.on('data', (c) => {
      err += c;
    });
    run.on('close', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`child failed (${code}): ${err}`))));
  });
}

test('approval across processes over SQLite: asked in one, approved and restarted in another, the approved hash runs once; edited input and a second restart run nothing', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-genkit-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const base = { db: path.join(dir, 'grants.db'), state: path.join(dir, 'state.json') };
  const asked = await runChild({ ...base, step: 'ask' });
  assert.deepEqual(asked, { finishReason: 'interrupted', ran: [], pending: ['{"amount":4242,"to":"bob"}'] });
  const edited = await runChild({ ...base, step: 'resume', approve: true, edit: { to: 'bob', amount: 9999900 } });
  assert.deepEqual(edited.ran, [], 'the edited restart did not run');
  const resumed = await runChild({ ...base, step: 'resume' });
  assert.deepEqual(resumed.ran, [{ to: 'bob', amount: 4242 }], 'the approved hash ran, in another process');
  const again = await runChild({ ...base, step: 'resume' });
  assert.deepEqual(again.ran, [], 'once: the grant is spent and the receipt in the store refuses it');
  assert.match(again.text, /call_already_executed/, 'the receipt kept in the SQLite store, read by a third process');
});

test('the subpath loads without its framework installed, and a gate made without it names the package to install', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-genkit-peer-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const root = path.join(__dirname, '..', '..', '..');
  const target = path.join(dir, 'node_modules', 'tool-argument-snapshot');
  fs.mkdirSync(target, { recursive: true });
  for (const entry of ['index.js', 'index.d.ts', 'package.json', 'lib', 'adapters', ...fs.readdirSync(root).filter((f) => f.endsWith('.node'))]) {
    fs.cpSync(path.join(root, entry), path.join(target, entry), { recursive: true });
  }
  const script = [
    "const gate = require('tool-argument-snapshot/genkit');",
    'console.log(typeof gate.createToolGate);',
    "try { gate.createToolGate({ agentName: 'a', tools: {} }); } catch (e) { console.log(e.code, e.packageName, /npm install genkit/.test(e.message)); }",
  ].join('\n');
  const run = spawnSync(process.execPath, ['-e', script], { cwd: dir, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'function\nMODULE_NOT_FOUND genkit true\n');
});

test('a policy that mutates its view is denied; with a key ring the interrupt carries the sealed proposal, and a second approval is refused', async () => {
  const { ai, model } = setup([
    { name: 'transfer', ref: 'm1', input: { to: 'bob', amount: 5 } },
    { name: 'transfer', ref: 'm2', input: { to: 'bob', amount: 500 } },
  ]);
  const ran = [];
  const grants = createApprovalGrants({ keys: [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes' }] });
  const gate = createToolGate({
    ai,
    agentName: 'payments',
    grants,
    tools: { transfer: transferTool(ran) },
    policy: {
      transfer: (input) => {
        if (input.parsedArguments.amount === 5) {
          try {
            input.parsedArguments.amount = 9999900;
          } catch {
            // A frozen view refuses the write itself.
          }
          return { decision: 'allow', reason: 'ok' };
        }
        return bySize(input);
      },
    },
  });
  const asked = await ai.generate({ model, prompt: 'pay', tools: gate.tools, use: [gate.use({ runId: 'r' })] });
  assert.deepEqual(ran, []);
  assert.equal(outputs(model).m1, undefined, 'the interrupted turn answers nothing yet');
  const said = asked.interrupts[0].metadata.interrupt['tool-argument-snapshot'];
  assert.equal(typeof said.proposal.signature, 'string');
  assert.equal(grants.verify(said.proposal).argsCanonicalJson, '{"amount":500,"to":"bob"}');
  await gate.approve(asked.interrupts[0]);
  await assert.rejects(gate.approve(asked.interrupts[0]), { code: 'TAS_NO_PENDING_PROPOSAL' });
  await ai.generate({
    model,
    messages: asked.messages,
    tools: gate.tools,
    use: [gate.use({ runId: 'r' })],
    resume: { restart: [gate.toolsByName.transfer.restart(asked.interrupts[0])] },
  });
  assert.deepEqual(ran, [{ to: 'bob', amount: 500 }]);
  assert.equal(outputs(model).m1.decision, 'deny', "the mutating policy's allow was denied");
});

test('two gates of one agent in one Genkit instance each decide with their own policy (Genkit keeps the first middleware of a name)', async () => {
  const { ai, model } = setup([{ name: 'transfer', ref: 't1', input: { to: 'bob', amount: 5 } }]);
  const ranA = [];
  const ranB = [];
  const a = createToolGate({ agentName: 'payments', tools: { transfer: transferTool(ranA) }, policy: () => ({ decision: 'allow', reason: 'a' }) });
  const b = createToolGate({ agentName: 'payments', tools: { transfer: transferTool(ranB) }, policy: () => ({ decision: 'deny', reason: 'b_says_no' }) });
  await ai.generate({ model, prompt: 'pay', tools: a.tools, use: [a.use({ runId: 'ra' })] });
  await ai.generate({ model, prompt: 'pay', tools: b.tools, use: [b.use({ runId: 'rb' })] });
  assert.deepEqual(ranA, [{ to: 'bob', amount: 5 }]);
  assert.deepEqual(ranB, []);
  assert.equal(outputs(model).t1.reason, 'b_says_no');
});
