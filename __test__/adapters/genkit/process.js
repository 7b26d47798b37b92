'use strict';
// One process of an app built on the Genkit gate, over a SQLite grants store: argv[2] is
// JSON { db, state, step }. Step "ask": generate until the gate interrupts, write the
// conversation and its interrupts to `state`. Step "resume": approve the interrupt (the
// reviewer), restart the tool from the stored conversation (`edit` replaces its input), and
// print what ran. Genkit's own mockModel is the model.

const fs = require('node:fs');
const { genkit, z } = require('genkit');
const { mockModel } = require('genkit/testing');
const { createApprovalGrants, createSqliteGrantStore } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/genkit');

const config = JSON.parse(process.argv[2]);

(async () => {
  const store = createSqliteGrantStore({ path: config.db });
  const ai = genkit({});
  const model = mockModel(ai, {
    info: { supports: { tools: true, multiturn: true } },
    respond: (request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { text: `done: ${JSON.stringify(last.content.map((p) => p.toolResponse.output))}` };
      return { toolRequests: [{ name: 'transfer', ref: 'call_big', input: { to: 'bob', amount: 4242 } }] };
    },
  });
  const ran = [];
  const gate = createToolGate({
    ai,
    agentName: 'payments',
    grants: createApprovalGrants({ store }),
    tools: {
      transfer: {
        description: 'Send money',
        inputSchema: z.object({ to: z.string(), amount: z.number().int().positive() }),
        execute: async ({ to, amount }) => {
          ran.push({ to, amount });
          return `sent ${amount} to ${to}`;
        },
      },
    },
    policy: {
      transfer: ({ parsedArguments }) =>
        parsedArguments.amount <= 100 ? { decision: 'allow', reason: 'small' } : { decision: 'require_approval', reason: 'large' },
    },
  });
  const use = [gate.use({ runId: 'conversation-1' })];
  if (config.step === 'ask') {
    const response = await ai.generate({ model, prompt: 'pay bob 4242', tools: gate.tools, use });
    fs.writeFileSync(config.state, JSON.stringify({ messages: response.messages, interrupts: response.interrupts }));
    const pending = await gate.pending(response.interrupts);
    process.stdout.write(JSON.stringify({ finishReason: response.finishReason, ran, pending: pending.map((p) => p.proposal.argsCanonicalJson) }) + '\n');
  } else {
    const state = JSON.parse(fs.readFileSync(config.state, 'utf8'));
    const [interrupt] = state.interrupts;
    if (config.approve) await gate.approve(interrupt);
    const restart = config.edit
      ? gate.toolsByName.transfer.restart(interrupt, { toolApproved: true }, { replaceInput: config.edit })
      : gate.toolsByName.transfer.restart(interrupt, { toolApproved: true });
    const response = await ai.generate({ model, messages: state.messages, tools: gate.tools, use, resume: { restart: [restart] } });
    process.stdout.write(JSON.stringify({ finishReason: response.finishReason, ran, text: response.text }) + '\n');
  }
  await store.close();
})().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
