'use strict';
// tool-argument-snapshot/claude-agent-sdk against the Claude Agent SDK's own query loop.
// Real: the SDK (@anthropic-ai/claude-agent-sdk 0.3), its Claude Code CLI subprocess, their
// stream-json control protocol (PreToolUse hook callbacks, can_use_tool, the in-process MCP
// server's tools/call), the CLI's built-in tools (Bash, Write) and its session files (resume).
// A test double: the model only, a local Anthropic Messages API answering scripted turns
// (adapters/claude-agent-sdk/sdk-support.js). Without the gate, each refusal below runs: the
// calls are the CLI's to run (the "before" lines name what the SDK does on its own).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { z } = require('zod');
const { query } = require('@anthropic-ai/claude-agent-sdk');
const { createApprovalGrants, createCedarPolicy, createExecutionReceipts, createSqliteGrantStore } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/claude-agent-sdk');
const { startModel, cliFolders, cliEnv, toolResults, runQuery } = require('./sdk-support');

const Transfer = () => z.object({ to: z.string(), amount: z.number().int().positive() });
const bySize = ({ parsedArguments }) =>
  parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' };

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

async function withRun(turns, makeGate, body, extra = {}) {
  const folders = cliFolders();
  const model = await startModel(typeof turns === 'function' ? turns(folders) : turns);
  try {
    const gate = makeGate(folders);
    const messages = await runQuery(query, 'pay bob', gate.queryOptions({ cwd: folders.cwd, env: cliEnv(model.url, folders.home), ...extra }));
    const result = messages.find((m) => m.type === 'result');
    await body({ gate, messages, result, results: toolResults(model.requests), requests: model.requests, folders });
  } finally {
    await model.close();
    folders.remove();
  }
}

const call = (id, input, name = 'mcp__payments__transfer') => ({ type: 'tool_use', id, name, input });

test("an allowed call of the gate's own tool runs once, on an execution view; the schema runs once; the model is shown the tool's JSON Schema", async () => {
  const ran = [];
  let schemaRuns = 0;
  const counted = z.object({ to: z.string(), amount: z.number().int().positive() }).transform((value) => {
    schemaRuns++;
    return value;
  });
  const seen = [];
  await withRun(
    [[call('toolu_1', '{"to":"bob","amount":5}')]],
    () =>
      createToolGate({
        agentName: 'payments',
        serverName: 'payments',
        tools: { transfer: transferTool(ran, counted) },
        policy: {
          transfer: (input) => {
            seen.push(input);
            return bySize(input);
          },
        },
      }),
    ({ results, requests }) => {
      assert.deepEqual(ran, [{ to: 'bob', amount: 5 }]);
      assert.equal(schemaRuns, 1, "the package ran the schema; the SDK's MCP server ran none of it");
      assert.notEqual(ran[0], seen[0].parsedArguments, "the handler's view is not the policy's");
      assert.equal(seen[0].toolName, 'transfer');
      assert.equal(seen[0].toolCallId, 'toolu_1');
      assert.equal(seen[0].sdkToolName, 'mcp__payments__transfer');
      assert.equal(typeof seen[0].sessionId, 'string');
      assert.equal(seen[0].argumentsSource, 'sdk_input');
      assert.deepEqual(results.toolu_1, { text: 'sent 5 to bob', isError: false });
      const listed = requests[0].tools.find((t) => t.name === 'mcp__payments__transfer');
      // The JSON Schema zod makes of the tool's own schema (its input side).
      const own = z.toJSONSchema(counted, { io: 'input', target: 'draft-07' });
      assert.deepEqual(listed.input_schema.properties, own.properties);
      assert.deepEqual(listed.input_schema.required, own.required);
    },
  );
});

test('a denied call, an invalid one and one that needs approval do not run; the messages name no payload', async () => {
  // Before: without the gate the SDK runs all three (its MCP server's zod accepts them).
  const ran = [];
  await withRun(
    [[call('toolu_d', '{"to":"mallory","amount":7}'), call('toolu_i', '{"to":"bob","amount":"seven"}'), call('toolu_a', '{"to":"bob","amount":4242}')]],
    () =>
      createToolGate({
        agentName: 'payments',
        serverName: 'payments',
        tools: { transfer: transferTool(ran) },
        policy: { transfer: (input) => (input.parsedArguments.to === 'mallory' ? { decision: 'deny', reason: 'blocked_recipient' } : bySize(input)) },
      }),
    async ({ gate, results, result }) => {
      assert.deepEqual(ran, []);
      assert.equal(results.toolu_d.isError, true);
      assert.match(results.toolu_d.text, /not executed \(deny: blocked_recipient\)/);
      assert.match(results.toolu_i.text, /Arguments of tool "transfer" failed at stage schema/);
      assert.match(results.toolu_a.text, /waits for a reviewer's approval \(large\)/);
      for (const id of ['toolu_d', 'toolu_i', 'toolu_a']) assert.doesNotMatch(results[id].text, /mallory|4242|seven|bob/);
      assert.deepEqual(result.permission_denials.map((d) => d.tool_use_id).sort(), ['toolu_a', 'toolu_d', 'toolu_i']);
      const pending = await gate.pending(result);
      assert.equal(pending.length, 1, 'only the call that needs approval waits');
      assert.equal(pending[0].toolUseId, 'toolu_a');
      assert.equal(pending[0].proposal.argsCanonicalJson, '{"amount":4242,"to":"bob"}');
    },
  );
});

test('built-in tools: the CLI runs exactly the canonical input the policy decided on (Write); a denied Bash runs nothing', async () => {
  // Before: with an allow rule or bypassPermissions the CLI never asks canUseTool; the
  // PreToolUse hook is the one place every call passes (the SDK says so itself).
  const decided = [];
  await withRun(
    (folders) => [
      [
        call('toolu_w', JSON.stringify({ file_path: path.join(folders.cwd, 'note.txt'), content: 'hello' }), 'Write'),
        call('toolu_b', '{"command":"touch bash-ran.txt","description":"x"}', 'Bash'),
      ],
    ],
    () =>
      createToolGate({
        agentName: 'ops',
        policy: {
          Write: (input) => {
            decided.push(input.argsCanonicalJson);
            return { decision: 'allow', reason: 'ok' };
          },
          Bash: () => ({ decision: 'deny', reason: 'no_shell' }),
        },
      }),
    ({ results, folders }) => {
      assert.equal(fs.readFileSync(path.join(folders.cwd, 'note.txt'), 'utf8'), 'hello');
      assert.equal(decided.length, 1);
      assert.equal(decided[0], JSON.stringify({ content: 'hello', file_path: path.join(folders.cwd, 'note.txt') }));
      assert.equal(results.toolu_w.isError, false);
      assert.equal(fs.existsSync(path.join(folders.cwd, 'bash-ran.txt')), false);
      assert.match(results.toolu_b.text, /not executed \(deny: no_shell\)/);
    },
  );
});

test('a policy that mutates its view is denied, and nothing runs', async () => {
  const ran = [];
  await withRun(
    [[call('toolu_m', '{"to":"bob","amount":5}')]],
    () =>
      createToolGate({
        agentName: 'payments',
        serverName: 'payments',
        tools: { transfer: transferTool(ran) },
        policy: (input) => {
          try {
            input.parsedArguments.amount = 9999900;
          } catch {
            // A frozen view: the mutation is refused outright.
          }
          return { decision: 'allow', reason: 'ok' };
        },
      }),
    ({ results }) => {
      assert.deepEqual(ran, []);
      assert.equal(results.toolu_m.isError, true);
      assert.match(results.toolu_m.text, /not executed \(deny: /);
    },
  );
});

test('a Cedar policy decides the same calls through the gate', async () => {
  const ran = [];
  const cedar = createCedarPolicy({
    policies: [
      '@id("small")',
      'permit(principal, action == Action::"transfer", resource) when { context.input.amount < 100 };',
      '@id("no-mallory")',
      'forbid(principal, action, resource) when { context.input.to == "mallory" };',
      '',
    ].join('\n'),
    tools: { transfer: Transfer() },
  });
  await withRun(
    [[call('toolu_1', '{"to":"bob","amount":5}'), call('toolu_2', '{"to":"mallory","amount":5}'), call('toolu_3', '{"to":"bob","amount":500}')]],
    () => createToolGate({ agentName: 'payments', serverName: 'payments', tools: { transfer: transferTool(ran) }, policy: { transfer: cedar } }),
    ({ results }) => {
      assert.deepEqual(ran, [{ to: 'bob', amount: 5 }]);
      assert.match(results.toolu_2.text, /deny: forbidden/);
      assert.equal(results.toolu_3.isError, true);
    },
  );
});

test('approval across processes over SQLite: asked in one, approved and resumed in another, the approved hash runs once, edited arguments ask again', async () => {
  const folders = cliFolders();
  const db = path.join(folders.root, 'grants.db');
  // The whole conversation, one turn per model request, across the three processes.
  const model = await startModel([
    [call('toolu_big', '{"to":"bob","amount":4242}')],
    [{ type: 'text', text: 'Waiting for approval.' }],
    // Resumed after the approval: the model calls again with the same arguments, spelled
    // differently (a new tool_use id), then with edited ones.
    [call('toolu_again', '{ "amount" : 4242, "to" : "bob" }')],
    [call('toolu_edit', '{"to":"bob","amount":4243}')],
    [{ type: 'text', text: 'Done.' }],
    // A third process: the same arguments again, and a small call.
    [call('toolu_third', '{"to":"bob","amount":4242}'), call('toolu_small', '{"to":"bob","amount":5}')],
    [{ type: 'text', text: 'Done.' }],
  ]);
  const child = (config) => runChild({ db, home: folders.home, cwd: folders.cwd, modelUrl: model.url, ...config });
  try {
    // Before: the SDK has no approval bound to arguments; its canUseTool answer is per call.
    const first = await child({ prompt: 'pay bob 4242' });
    assert.deepEqual(first.ran, []);
    assert.deepEqual(first.denials, ['toolu_big']);
    assert.equal(first.pending.length, 1);
    assert.equal(first.pending[0].argsCanonicalJson, '{"amount":4242,"to":"bob"}');

    const second = await child({ prompt: 'approved', resume: first.sessionId, approve: { sessionId: first.sessionId, toolUseId: 'toolu_big' } });
    assert.equal(second.sessionId, first.sessionId, 'the resumed session keeps its id');
    assert.deepEqual(second.approved, [first.pending[0].proposalHash]);
    assert.deepEqual(second.ran, [{ to: 'bob', amount: 4242 }], 'the approved hash ran once');
    assert.deepEqual(second.denials, ['toolu_edit'], 'edited arguments are a new approval request');
    assert.deepEqual(
      second.pending.map((p) => p.argsCanonicalJson),
      ['{"amount":4243,"to":"bob"}'],
    );

    const third = await child({ prompt: 'again', resume: first.sessionId });
    assert.deepEqual(third.ran, [{ to: 'bob', amount: 5 }], 'the grant was spent: the same arguments ask again; the small call ran once');
    assert.ok(third.denials.includes('toolu_third'));
    assert.deepEqual(toolResults(model.requests).toolu_small, { text: 'sent 5 to bob', isError: false });
  } finally {
    await model.close();
    folders.remove();
  }
});

/** Runs the app's process (asynchronously: this process serves the model meanwhile). */
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

const writeHookInput = (sessionId, toolUseId, input) => ({
  hook_event_name: 'PreToolUse',
  session_id: sessionId,
  tool_use_id: toolUseId,
  tool_name: 'Write',
  tool_input: input,
  cwd: '/',
  transcript_path: '/dev/null',
  permission_mode: 'default',
});

test("receipts in the grants' store are keyed by the SDK's session and tool_use ids: a replayed hook call in another gate is refused, other arguments under the same id conflict", async (t) => {
  const folders = cliFolders();
  t.after(() => folders.remove());
  const gateOver = (store) =>
    createToolGate({ agentName: 'ops', grants: createApprovalGrants({ store }), policy: { Write: () => ({ decision: 'allow', reason: 'ok' }) } });
  const db = path.join(folders.root, 'receipts.db');
  const first = createSqliteGrantStore({ path: db });
  const second = createSqliteGrantStore({ path: db });
  t.after(() => Promise.all([first.close(), second.close()]));
  const input = { file_path: '/tmp/x.txt', content: 'hi' };
  const allowed = await gateOver(first).preToolUse(writeHookInput('session-1', 'toolu_1', input), 'toolu_1');
  assert.equal(allowed.hookSpecificOutput.permissionDecision, 'allow');
  assert.deepEqual(allowed.hookSpecificOutput.updatedInput, input);
  const replayed = await gateOver(second).preToolUse(writeHookInput('session-1', 'toolu_1', input), 'toolu_1');
  assert.equal(replayed.hookSpecificOutput.permissionDecision, 'deny');
  assert.match(replayed.hookSpecificOutput.permissionDecisionReason, /call_already_executed/);
  const conflict = await gateOver(second).preToolUse(writeHookInput('session-1', 'toolu_1', { ...input, content: 'other' }), 'toolu_1');
  assert.match(conflict.hookSpecificOutput.permissionDecisionReason, /call_id_conflict/);
  const otherSession = await gateOver(second).preToolUse(writeHookInput('session-2', 'toolu_1', input), 'toolu_1');
  assert.equal(otherSession.hookSpecificOutput.permissionDecision, 'allow', 'tool_use ids are scoped by the session');
});

test('the hook refuses unread what is not JSON data (a getter, a Proxy, negative zero, a Date), naming tool, stage and code only', async () => {
  const gate = createToolGate({ agentName: 'ops', policy: () => ({ decision: 'allow', reason: 'ok' }), receipts: false });
  let read = 0;
  const cases = [
    [
      {
        get content() {
          read++;
          return 'secret-value';
        },
      },
      'accessor_property',
    ],
    [
      new Proxy(
        { content: 'secret-value' },
        {
          get() {
            read++;
            return 'x';
          },
        },
      ),
      '',
    ],
    [{ content: -0 }, 'negative_zero'],
    [{ content: new Date(0) }, 'non_plain_object'],
  ];
  for (const [value, code] of cases) {
    const out = await gate.preToolUse(writeHookInput('s', 'toolu_x', value), 'toolu_x');
    assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
    const reason = out.hookSpecificOutput.permissionDecisionReason;
    assert.match(reason, /Arguments of tool "Write" failed at stage snapshot/);
    if (code) assert.match(reason, new RegExp(`\\[${code}\\]`));
    assert.doesNotMatch(reason, /secret-value/);
  }
  assert.equal(read, 0, 'no getter or trap ran');
});

test('canUseTool (an ask rule after the hook) allows only the input the gate handed over for that tool_use', async () => {
  const gate = createToolGate({ agentName: 'ops', policy: () => ({ decision: 'allow', reason: 'ok' }), receipts: false });
  const input = { file_path: '/tmp/x.txt', content: 'hi' };
  await gate.preToolUse(writeHookInput('s', 'toolu_1', input), 'toolu_1');
  const same = await gate.canUseTool('Write', { content: 'hi', file_path: '/tmp/x.txt' }, { toolUseID: 'toolu_1', signal: new AbortController().signal });
  assert.deepEqual(same, { behavior: 'allow', updatedInput: input, toolUseID: 'toolu_1' });
  const edited = await gate.canUseTool('Write', { ...input, content: 'rm -rf' }, { toolUseID: 'toolu_1', signal: new AbortController().signal });
  assert.equal(edited.behavior, 'deny');
  assert.match(edited.message, /arguments_changed/);
  const undecided = await gate.canUseTool('Write', input, { toolUseID: 'toolu_9', signal: new AbortController().signal });
  assert.match(undecided.message, /not_decided_by_gate/);
});

test("queryOptions keeps the application's options and refuses a PreToolUse hook or canUseTool of its own", () => {
  const gate = createToolGate({ agentName: 'payments', serverName: 'payments', tools: { transfer: transferTool([]) }, policy: bySize });
  const stop = [{ hooks: [async () => ({})] }];
  const options = gate.queryOptions({ model: 'claude-x', hooks: { Stop: stop }, mcpServers: { other: { type: 'stdio', command: 'x' } } });
  assert.equal(options.model, 'claude-x');
  assert.equal(options.hooks.Stop, stop);
  assert.equal(options.hooks.PreToolUse, gate.hooks.PreToolUse);
  assert.deepEqual(Object.keys(options.mcpServers), ['other', 'payments']);
  assert.equal(options.canUseTool, gate.canUseTool);
  assert.throws(() => gate.queryOptions({ hooks: { PreToolUse: stop } }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.throws(() => gate.queryOptions({ canUseTool: async () => ({ behavior: 'allow' }) }), { code: 'ERR_INVALID_ARG_TYPE' });
  assert.deepEqual(gate.toolNames, ['mcp__payments__transfer']);
});

test('the subpath loads without its framework installed, and a gate made without it names the package to install', (t) => {
  // A copy of the package in a folder whose node_modules has nothing else.
  const folders = cliFolders('tas-claude-peer-');
  t.after(() => folders.remove());
  const root = path.join(__dirname, '..', '..', '..');
  const target = path.join(folders.cwd, 'node_modules', 'tool-argument-snapshot');
  fs.mkdirSync(target, { recursive: true });
  for (const entry of ['index.js', 'index.d.ts', 'package.json', 'lib', 'adapters', ...fs.readdirSync(root).filter((f) => f.endsWith('.node'))]) {
    fs.cpSync(path.join(root, entry), path.join(target, entry), { recursive: true });
  }
  const script = [
    "const gate = require('tool-argument-snapshot/claude-agent-sdk');",
    'console.log(typeof gate.createToolGate);',
    "try { gate.createToolGate({ agentName: 'a' }); } catch (e) { console.log(e.code, e.packageName, /npm install @anthropic-ai\\/claude-agent-sdk/.test(e.message)); }",
  ].join('\n');
  const run = require('node:child_process').spawnSync(process.execPath, ['-e', script], { cwd: folders.cwd, encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, 'function\nMODULE_NOT_FOUND @anthropic-ai/claude-agent-sdk true\n');
});

/** A grant store of this test's own (the ApprovalGrantStore interface), whose kept proposals can be changed. */
function tamperableStore() {
  const grants = new Map();
  const proposals = new Map();
  const key = (q) => JSON.stringify([q.agentName, q.toolName, q.proposalHash, q.scope]);
  return {
    proposals,
    nonces: new Set(),
    put(record) {
      if (record.nonce !== null && this.nonces.has(record.nonce)) return false;
      if (record.nonce !== null) this.nonces.add(record.nonce);
      grants.set(key(record), { ...record });
      return true;
    },
    has(query) {
      return grants.has(key(query));
    },
    take(query) {
      const found = grants.get(key(query));
      if (!found) return false;
      if (--found.uses <= 0) grants.delete(key(query));
      return true;
    },
    delete(query) {
      grants.delete(key(query));
    },
    putProposal(k, json) {
      proposals.set(k, json);
    },
    getProposal(k) {
      return proposals.get(k) ?? null;
    },
    deleteProposal(k) {
      proposals.delete(k);
    },
  };
}

test('sealed proposals: pending lists each kept proposal verified (a changed record shows only its error code); approve grants it once; the resumed call with its hash is allowed once', async () => {
  const store = tamperableStore();
  const grants = createApprovalGrants({ store, keys: [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes' }] });
  const gate = createToolGate({
    agentName: 'ops',
    grants,
    receipts: false,
    policy: {
      Write: (input) => (input.parsedArguments.content === 'ok' ? { decision: 'allow', reason: 'ok' } : { decision: 'require_approval', reason: 'review' }),
    },
  });
  const big = { file_path: '/tmp/a.txt', content: 'needs review' };
  const asked = await gate.preToolUse(writeHookInput('s1', 'toolu_1', big), 'toolu_1');
  assert.match(asked.hookSpecificOutput.permissionDecisionReason, /waits for a reviewer's approval \(review\)/);
  await gate.preToolUse(writeHookInput('s1', 'toolu_2', { ...big, content: 'other' }), 'toolu_2');
  const listed = await gate.pending([
    { sessionId: 's1', toolUseId: 'toolu_1' },
    { sessionId: 's1', toolUseId: 'toolu_2' },
    { sessionId: 's1', toolUseId: 'toolu_none' },
  ]);
  assert.equal(listed.length, 2);
  assert.equal(typeof listed[0].proposal.signature, 'string', 'sealed with the key ring');
  // Someone with write access to the store changes the second record's arguments.
  for (const [k, json] of store.proposals) {
    const record = JSON.parse(json);
    if (record.argsCanonicalJson.includes('other'))
      store.proposals.set(k, JSON.stringify({ ...record, argsCanonicalJson: record.argsCanonicalJson.replace('other', 'rm -rf') }));
  }
  const relisted = await gate.pending([
    { sessionId: 's1', toolUseId: 'toolu_1' },
    { sessionId: 's1', toolUseId: 'toolu_2' },
  ]);
  assert.equal(relisted[1].proposal, undefined);
  assert.deepEqual(relisted[1].error, { name: 'ApprovalGrantError', code: 'bad_signature' });
  assert.doesNotMatch(JSON.stringify(relisted[1]), /rm -rf/);
  await assert.rejects(gate.approve({ sessionId: 's1', toolUseId: 'toolu_2' }), { name: 'ApprovalGrantError', code: 'bad_signature' });

  await gate.approve({ sessionId: 's1', toolUseId: 'toolu_1' });
  await assert.rejects(gate.approve({ sessionId: 's1', toolUseId: 'toolu_1' }), { code: 'TAS_NO_PENDING_PROPOSAL' });
  const resumed = await gate.preToolUse(writeHookInput('s1', 'toolu_3', { content: 'needs review', file_path: '/tmp/a.txt' }), 'toolu_3');
  assert.equal(resumed.hookSpecificOutput.permissionDecision, 'allow');
  assert.deepEqual(resumed.hookSpecificOutput.updatedInput, big);
  const again = await gate.preToolUse(writeHookInput('s1', 'toolu_4', big), 'toolu_4');
  assert.match(again.hookSpecificOutput.permissionDecisionReason, /waits for a reviewer's approval/, 'the grant was used once');
  await gate.decline({ sessionId: 's1', toolUseId: 'toolu_4' });
  await assert.rejects(gate.approve({ sessionId: 's1', toolUseId: 'toolu_4' }), { code: 'TAS_NO_PENDING_PROPOSAL' });
});

test("the in-process server (reached with the MCP SDK's own client): a tools/call the hook did not allow, one with other arguments than the hook handed over, and a second call of the same tool_use run nothing", async (t) => {
  const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
  const { InMemoryTransport } = require('@modelcontextprotocol/sdk/inMemory.js');
  const ran = [];
  const gate = createToolGate({
    agentName: 'payments',
    serverName: 'payments',
    tools: { transfer: transferTool(ran) },
    policy: { transfer: bySize },
    receipts: false,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gate.mcpServers.payments.instance.connect(serverSide);
  const client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(clientSide);
  t.after(() => client.close());
  const callTool = (toolUseId, args) => client.callTool({ name: 'transfer', arguments: args, _meta: { 'claudecode/toolUseId': toolUseId } });
  const hook = (toolUseId, input) =>
    gate.preToolUse(
      {
        hook_event_name: 'PreToolUse',
        session_id: 's',
        tool_use_id: toolUseId,
        tool_name: 'mcp__payments__transfer',
        tool_input: input,
        mcp_server: { name: 'payments', source: 'sdk' },
      },
      toolUseId,
    );

  const undecided = await callTool('toolu_0', { to: 'bob', amount: 5 });
  assert.equal(undecided.isError, true);
  assert.match(undecided.content[0].text, /not_decided_by_gate/);

  assert.equal((await hook('toolu_1', { to: 'bob', amount: 5 })).hookSpecificOutput.permissionDecision, 'allow');
  const changed = await callTool('toolu_1', { to: 'bob', amount: 50 });
  assert.match(changed.content[0].text, /arguments_changed/);

  assert.equal((await hook('toolu_2', { to: 'bob', amount: 5 })).hookSpecificOutput.permissionDecision, 'allow');
  assert.equal((await callTool('toolu_2', { amount: 5, to: 'bob' })).content[0].text, 'sent 5 to bob');
  assert.match((await callTool('toolu_2', { amount: 5, to: 'bob' })).content[0].text, /not_decided_by_gate/, 'the decision was taken once');
  assert.deepEqual(ran, [{ amount: 5, to: 'bob' }]);

  // A configured server of the same name is not the gate's: its tool is gated by its full name.
  const foreign = await gate.preToolUse(
    {
      hook_event_name: 'PreToolUse',
      session_id: 's',
      tool_use_id: 'toolu_3',
      tool_name: 'mcp__payments__transfer',
      tool_input: { to: 'bob', amount: 5 },
      mcp_server: { name: 'payments', source: 'project' },
    },
    'toolu_3',
  );
  assert.equal(foreign.hookSpecificOutput.permissionDecision, 'deny');
  assert.match(foreign.hookSpecificOutput.permissionDecisionReason, /policy_not_configured/, "the policy of the gate's own transfer does not decide it");
});

test('before: the SDK alone never asks canUseTool for a call an allow rule approves (the gate decides in the PreToolUse hook instead); with the gate, the same allow rule does not run a denied call', async () => {
  const { tool, createSdkMcpServer } = require('@anthropic-ai/claude-agent-sdk');
  const model = await startModel([[call('toolu_1', '{"to":"mallory","amount":5}')]]);
  const folders = cliFolders();
  try {
    const ran = [];
    const asked = [];
    const server = createSdkMcpServer({
      name: 'payments',
      tools: [
        tool('transfer', 'Send money', { to: z.string(), amount: z.number() }, async (args) => {
          ran.push(args);
          return { content: [{ type: 'text', text: 'sent' }] };
        }),
      ],
    });
    await runQuery(query, 'pay', {
      cwd: folders.cwd,
      env: cliEnv(model.url, folders.home),
      mcpServers: { payments: server },
      allowedTools: ['mcp__payments__transfer'],
      canUseTool: async (name, input, options) => {
        asked.push(name);
        return { behavior: 'deny', message: 'no', toolUseID: options.toolUseID };
      },
    });
    assert.deepEqual(asked, [], 'canUseTool was not asked');
    assert.deepEqual(ran, [{ to: 'mallory', amount: 5 }], 'and the call ran');
  } finally {
    await model.close();
    folders.remove();
  }
  const ran = [];
  await withRun(
    [[call('toolu_1', '{"to":"mallory","amount":5}')]],
    () =>
      createToolGate({
        agentName: 'payments',
        serverName: 'payments',
        tools: { transfer: transferTool(ran) },
        policy: { transfer: () => ({ decision: 'deny', reason: 'blocked_recipient' }) },
      }),
    ({ results }) => {
      assert.deepEqual(ran, []);
      assert.match(results.toolu_1.text, /blocked_recipient/);
    },
    { allowedTools: ['mcp__payments__transfer'] },
  );
});

test("what reaches the gate is the CLI's parse of the model's text: of duplicate keys the last, -0 as 0 (the page says so)", async () => {
  const seen = [];
  await withRun(
    [[call('toolu_dup', '{"to":"bob","amount":5,"amount":7000}'), call('toolu_zero', '{"to":"bob","amount":-0}')]],
    () =>
      createToolGate({
        agentName: 'payments',
        serverName: 'payments',
        tools: { transfer: transferTool([], z.object({ to: z.string(), amount: z.number() })) },
        policy: (input) => {
          seen.push([input.toolCallId, input.argsCanonicalJson]);
          return { decision: 'deny', reason: 'observed' };
        },
      }),
    () => {
      assert.deepEqual(seen.sort(), [
        ['toolu_dup', '{"amount":7000,"to":"bob"}'],
        ['toolu_zero', '{"amount":0,"to":"bob"}'],
      ]);
    },
  );
});
