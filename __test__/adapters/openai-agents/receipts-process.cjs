'use strict';
// One process of adapters/openai-agents/receipts.test.js: restores a stored RunState of the
// Payments agent and resumes it, with grants and execution receipts on one shared SQLite file.
//   node adapters/openai-agents/receipts-process.cjs DIR MODE [STORE]
// STORE: a helpers/durable-stores.js spec (JSON): grants on it and no receipts option.
// MODE: 'resume'          the stored state was approved before it was stored: resume it
//       'approve-resume'  approve the stored state's pending call through the gate, then resume
// Each execution of the tool appends this process's id to DIR/executions.log (the oracle
// counts lines, whatever the processes print). Prints one JSON line: the tool outputs.
// Once ready it writes DIR/ready.PID and waits for DIR/go, so that two processes resume together.

const fs = require('node:fs');
const path = require('node:path');
const { Agent, run, RunState, setTracingDisabled } = require('@openai/agents');
const { ScriptedModel, assistantMessage } = require('@openai/agents/testing');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore } = require('tool-argument-snapshot');
const { createOpenAIAgentsGate } = require('tool-argument-snapshot/openai-agents');

setTracingDisabled(true);

const [dir, mode, durable] = process.argv.slice(2);
const warnings = [];
process.on('warning', (warning) => warnings.push(warning.code));

async function main() {
  // With a third argument (a helpers/durable-stores.js spec): grants on that store and no receipts
  // option (the gate's default receipts are the store's); else explicit receipts on SQLite.
  const store =
    durable === undefined
      ? createSqliteGrantStore({ path: path.join(dir, 'shared.sqlite') })
      : await require('../../helpers/durable-stores').openDurable(JSON.parse(durable));
  const grants = createApprovalGrants({ store });
  const gateOptions = { agentName: 'Payments', grants, policy: () => ({ decision: 'require_approval', reason: 'every transfer' }) };
  if (durable === undefined) gateOptions.receipts = createExecutionReceipts({ store });
  const gate = createOpenAIAgentsGate(gateOptions);
  const transfer = gate.tool({
    name: 'transfer',
    description: 'Send money',
    parameters: z.object({ to: z.string(), cents: z.number().int() }),
    execute: (args) => {
      fs.appendFileSync(path.join(dir, 'executions.log'), `${process.pid}\n`);
      return `sent ${args.cents} to ${args.to}`;
    },
  });
  const agent = new Agent({ name: 'Payments', model: gate.model(new ScriptedModel([[assistantMessage('done')]])), tools: [transfer] });
  const state = await RunState.fromString(agent, fs.readFileSync(path.join(dir, 'state.json'), 'utf8'));
  if (mode === 'approve-resume') {
    for (const { interruption, proposal } of gate.pending(state)) await gate.approve(state, interruption, proposal);
  } else if (mode !== 'resume') {
    throw new Error('unknown mode');
  }
  fs.writeFileSync(path.join(dir, `ready.${process.pid}`), '');
  while (!fs.existsSync(path.join(dir, 'go'))) await new Promise((resolve) => setTimeout(resolve, 5));
  const result = await run(agent, state);
  const outputs = {};
  for (const item of result.newItems) {
    if (item.type === 'tool_call_output_item') outputs[item.rawItem.callId] = item.rawItem.output.text ?? item.rawItem.output;
  }
  await store.close();
  await new Promise((resolve) => setImmediate(resolve));
  process.stdout.write(`${JSON.stringify({ outputs, final: result.finalOutput, warnings })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
