'use strict';
// One process of the cross-process approval test (adapters/mastra/mastra.test.js): a Mastra app
// whose agent runs gated tools, with Mastra's storage in a LibSQL file and the grants in a
// store file, both shared by every process; the grants seal proposals with a key from the
// environment (TAS_SEAL_KEY). Usage:
//   node adapters/mastra/process.js start  DIR             -> runs the agent until it suspends
//   node adapters/mastra/process.js review DIR RUN CALL    -> the reviewer: shows and grants
//   node adapters/mastra/process.js resume DIR RUN CALL    -> agent.approveToolCall
// Each answers one JSON line on stdout. What the handler ran is appended to DIR/executed.log
// and every prompt the model provider received to DIR/prompts.log.

const fs = require('node:fs');
const path = require('node:path');
const { z } = require('zod');
const { createApprovalGrants, isApprovalGrantError } = require('tool-argument-snapshot');
const { createToolGate, createTool } = require('tool-argument-snapshot/mastra');
const { mastra, scriptedModel, drain, callChunks, resultsOf, openGrantStore } = require('./mastra-support');

const [mode, dir, runId, toolCallId] = process.argv.slice(2);

// TAS_MASTRA_STORE: a helpers/durable-stores.js spec (JSON) the grants are kept on; else a store
// file in DIR. TAS_MASTRA_DB: the name of Mastra's LibSQL file in DIR (mastra.db).
const durable = process.env.TAS_MASTRA_STORE;
const mastraDb = process.env.TAS_MASTRA_DB ?? 'mastra.db';
const opened = durable === undefined ? openGrantStore(path.join(dir, 'grants')) : { store: undefined, kind: 'durable' };
let grants;
let gate;

const pay = createTool({
  id: 'pay',
  description: 'Pays an amount in cents to someone',
  inputSchema: z.object({ to: z.string(), cents: z.number().int().positive() }),
  execute: async (args) => {
    fs.appendFileSync(path.join(dir, 'executed.log'), `${process.pid} ${JSON.stringify(args)}\n`);
    return { paid: args.cents };
  },
});

async function init() {
  if (durable !== undefined) opened.store = await require('../../helpers/durable-stores').openDurable(JSON.parse(durable));
  grants = createApprovalGrants({ store: opened.store, keys: [{ id: 'k1', secret: process.env.TAS_SEAL_KEY }] });
  // No receipts option: the gate's receipts are the ones the grants' store keeps.
  gate = createToolGate({
    agentName: 'billing',
    tools: { pay },
    grants,
    policy: {
      pay: ({ parsedArguments }) =>
        parsedArguments.cents <= 1000 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large payment' },
    },
  });
}

function app(steps) {
  const { Agent, Mastra } = mastra();
  const { LibSQLStore } = require('@mastra/libsql');
  const prompts = [];
  const agent = new Agent({
    id: 'billing',
    name: 'billing',
    instructions: 'Pay what the user asks.',
    model: gate.model(scriptedModel(steps, prompts)),
    tools: gate.tools,
  });
  const app = new Mastra({ agents: { billing: agent }, storage: new LibSQLStore({ id: 'tas-test', url: `file:${path.join(dir, mastraDb)}` }), logger: false });
  return { agent: app.getAgent('billing'), prompts };
}

function savePrompts(prompts) {
  for (const prompt of prompts) fs.appendFileSync(path.join(dir, 'prompts.log'), `${JSON.stringify(prompt)}\n`);
}

async function main() {
  if (mode === 'start') {
    const { agent, prompts } = app([[{ id: 'call_1', name: 'pay', input: '{"to":"bob","cents":250000}' }]]);
    const output = await agent.stream('Pay bob 2500 dollars');
    const chunks = await drain(output);
    savePrompts(prompts);
    return { runId: output.runId, calls: callChunks(chunks), store: opened.kind };
  }
  if (mode === 'review') {
    // The reviewer sees the sealed proposal (nothing unsigned), and a forged one is refused.
    const sealed = await gate.keptProposal({ runId, toolCallId });
    let forged;
    try {
      await grants.grant({ ...sealed, argsCanonicalJson: '{"cents":250000,"to":"mallory"}' });
      forged = 'granted';
    } catch (error) {
      forged = isApprovalGrantError(error) ? error.code : String(error);
    }
    await gate.approve({ runId, toolCallId });
    return { sealed, forged };
  }
  if (mode === 'resume') {
    const { agent, prompts } = app(['Paid bob.']);
    let chunks;
    try {
      chunks = await drain(await agent.approveToolCall({ runId, toolCallId }));
    } catch (error) {
      return { error: String(error.id ?? error.code ?? error.message) };
    }
    savePrompts(prompts);
    return { calls: callChunks(chunks), results: resultsOf(chunks) };
  }
  throw new Error(`unknown mode ${mode}`);
}

init()
  .then(main)
  .then(
    async (answer) => {
      if (durable !== undefined) await opened.store.close();
      process.stdout.write(`${JSON.stringify(answer)}\n`);
    },
    (error) => {
      process.stderr.write(`${error && error.stack}\n`);
      process.exitCode = 1;
    },
  );
