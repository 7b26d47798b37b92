'use strict';
// tool-argument-snapshot/openai-agents with MCP tools (issue 18 items 2 and 3): a real MCP
// server of @modelcontextprotocol/sdk over stdio (adapters/openai-agents/mcp-server.cjs),
// reached through the SDK's own MCP client (MCPServerStdio); its tools, as
// `agent.getAllTools()` makes them, gated with `gate.tools(...)`. The server's `callTool`
// gets no call id: each call is paired with its provider text by the run's call id, the
// JSON Schema runs once (fromJsonSchema), and the server receives the snapshot's canonical
// JSON. Beside it, the SDK alone with the same server.

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const { Agent, run, RunContext, MCPServerStdio, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, functionCall, assistantMessage } = require('@openai/agents/testing');
const { createApprovalGrants } = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

const AGENT = 'Payments';
const SERVER = path.join(__dirname, 'mcp-server.cjs');

function scripted(...turns) {
  const steps = turns.map((calls) => calls.map(([raw, callId]) => functionCall('transfer', raw, { callId })));
  steps.push([assistantMessage('done')], [assistantMessage('done')]);
  return new ScriptedModel(steps);
}

function toolOutputs(result) {
  const out = {};
  for (const item of result.newItems) {
    if (item.type !== 'tool_call_output_item') continue;
    const output = item.rawItem.output;
    // MCP content comes back as a list of input_text parts; the gate's own answers as text.
    out[item.rawItem.callId] = typeof output === 'string' ? output : Array.isArray(output) ? output.map((part) => part.text).join('') : output.text;
  }
  return out;
}

/** Starts the server through the SDK's stdio client; `executed()` reads what it ran. */
async function mcpServer(t, options = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-oai-mcp-'));
  const log = path.join(dir, 'executed.jsonl');
  const server = new MCPServerStdio({
    name: 'payments',
    command: process.execPath,
    args: [SERVER],
    env: { ...process.env, TAS_MCP_LOG: log },
    ...options,
  });
  await server.connect();
  t.after(async () => {
    await server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const executed = () =>
    fs.existsSync(log)
      ? fs
          .readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l))
      : [];
  return { server, executed };
}

/** The server's tools as the SDK makes them for an agent. */
async function mcpTools(server) {
  return new Agent({ name: AGENT, mcpServers: [server] }).getAllTools(new RunContext());
}

const byCents = (input) =>
  input.parsedArguments.cents <= 100 ? { decision: 'allow', reason: 'small transfer' } : { decision: 'require_approval', reason: 'large transfer' };

test('a duplicate-key call: the SDK alone makes the MCP server execute the last value; the gate executes nothing', async (t) => {
  const raw = '{"to":"bob","cents":5,"cents":99999}';
  const plain = await mcpServer(t);
  await run(new Agent({ name: AGENT, model: scripted([[raw, 'c1']]), mcpServers: [plain.server] }), 'pay');
  assert.deepEqual(plain.executed(), [{ to: 'bob', cents: 99999 }], 'the SDK alone: last value wins, and executes');

  const gated = await mcpServer(t);
  const policyCalls = [];
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: (input) => (policyCalls.push(input), byCents(input)) });
  const agent = new Agent({ name: AGENT, model: gate.model(scripted([[raw, 'c1']])), tools: gate.tools(await mcpTools(gated.server)) });
  const result = await run(agent, 'pay');
  assert.match(toolOutputs(result).c1, /stage json.*duplicate_key/);
  assert.deepEqual(gated.executed(), []);
  assert.equal(policyCalls.length, 0);
});

test('MCP tools through the gate: allowed calls reach the server as the policy saw them; an approval executes once after resume', async (t) => {
  const { server, executed } = await mcpServer(t);
  const grants = createApprovalGrants();
  const seen = [];
  const gate = createOpenAIAgentsGate({ agentName: AGENT, grants, policy: (input) => (seen.push(input), byCents(input)) });
  const tools = gate.tools(await mcpTools(server));
  assert.deepEqual(
    tools.map((tool) => tool.name),
    ['transfer'],
  );
  const agent = new Agent({
    name: AGENT,
    model: gate.model(
      scripted([
        ['{ "cents" : 5.0 , "to" : "\\u0062ob" }', 'c1'],
        ['{"to":"eve","cents":-0}', 'c2'],
        ['{"to":"carol","cents":250000,"memo":"rent"}', 'c3'],
        ['{"to":"dave","cents":"5"}', 'c4'],
      ]),
    ),
    tools,
  });
  let result = await run(agent, 'pay');
  let outputs = toolOutputs(result);
  assert.equal(outputs.c1, 'sent 5 to bob');
  assert.match(outputs.c2, /stage snapshot.*negative_zero/);
  assert.match(outputs.c4, /stage schema/, 'the JSON Schema ran in the package (fromJsonSchema)');
  assert.deepEqual(
    result.interruptions.map((i) => i.rawItem.callId),
    ['c3'],
  );
  assert.deepEqual(executed(), [{ cents: 5, to: 'bob' }], 'the server received the canonical arguments');
  assert.equal(seen[0].rawArguments, '{ "cents" : 5.0 , "to" : "\\u0062ob" }', 'the policy saw the provider text');
  assert.equal(seen[0].argsCanonicalJson, '{"cents":5,"to":"bob"}');

  const [pending] = gate.pending(result.state);
  assert.equal(pending.proposal.argsCanonicalJson, '{"cents":250000,"memo":"rent","to":"carol"}');
  await gate.approve(result.state, pending.interruption, pending.proposal);
  result = await run(agent, result.state);
  outputs = toolOutputs(result);
  assert.equal(outputs.c3, 'sent 250000 to carol');
  assert.deepEqual(executed(), [
    { cents: 5, to: 'bob' },
    { cents: 250000, memo: 'rent', to: 'carol' },
  ]);
});

test('MCP tools in strict mode: a null for the optional memo is removed as the JSON Schema says, and never reaches the server', async (t) => {
  const { server, executed } = await mcpServer(t, { convertSchemasToStrict: true });
  const gate = createOpenAIAgentsGate({ agentName: AGENT, policy: () => ({ decision: 'allow', reason: 'ok' }) });
  const sdkTools = await new Agent({ name: AGENT, mcpServers: [server], mcpConfig: { convertSchemasToStrict: true } }).getAllTools(new RunContext());
  assert.equal(sdkTools[0].strict, true);
  const agent = new Agent({ name: AGENT, model: gate.model(scripted([['{"to":"bob","cents":5,"memo":null}', 'c1']])), tools: gate.tools(sdkTools) });
  const result = await run(agent, 'pay');
  assert.equal(toolOutputs(result).c1, 'sent 5 to bob');
  assert.deepEqual(executed(), [{ cents: 5, to: 'bob' }]);
});

test('gate.tools refuses what is not an SDK function tool with a JSON schema', () => {
  const gate = createOpenAIAgentsGate({ agentName: AGENT });
  assert.throws(() => gate.tools([{ type: 'hosted_tool', name: 'web_search' }]), TypeError);
  assert.throws(() => gate.tools('transfer'), TypeError);
});
