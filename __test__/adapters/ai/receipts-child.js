'use strict';
// One process of adapters/ai/receipts.test.js: a request of chat `argv[3]` gated by
// tool-argument-snapshot/ai. The handler appends this process's id to executed.log.
//   node adapters/ai/receipts-child.js DIR CHAT
//     the provider (the SDK's mock model) calls transfer as call-1, allowed, with execution
//     receipts on the SQLite file DIR/grants.db; stdout: `result <output>` or `error <code>`
//   node adapters/ai/receipts-child.js DIR CHAT STORE
//     the chat history DIR/history.json (an approved call) resubmitted, with grants on STORE
//     (a helpers/durable-stores.js spec, JSON) and no receipts option; stdout: one JSON line, the
//     tool outputs of the response and the codes of the process warnings

const fs = require('node:fs');
const path = require('node:path');
const { generateText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { z } = require('zod');
const { createApprovalGrants, createExecutionReceipts, createSqliteGrantStore, isToolCallNotAllowedError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const [dir, chatId, durable] = process.argv.slice(2);
const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const TEXT = { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] };
const warnings = [];
process.on('warning', (warning) => warnings.push(warning.code));

const tools = {
  transfer: tool({
    inputSchema: z.object({ amount: z.number().int().positive(), to: z.string() }),
    execute: async (args) => {
      fs.appendFileSync(path.join(dir, 'executed.log'), `${process.pid}\n`);
      return `sent ${args.amount} to ${args.to}`;
    },
  }),
};

async function allowed() {
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  try {
    const gate = createToolGate({
      agentName: 'payments',
      tools,
      runId: chatId,
      receipts: createExecutionReceipts({ store }),
      policy: () => ({ decision: 'allow', reason: 'small' }),
    });
    const responses = [
      {
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"amount":500,"to":"bob"}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      },
      TEXT,
    ];
    const result = await generateText({
      model: gate.model(new MockLanguageModelV4({ doGenerate: responses })),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      prompt: 'pay bob',
    });
    const part = result.steps[0].content.find((p) => p.type === 'tool-result' || p.type === 'tool-error');
    return part.type === 'tool-result' ? `result ${part.output}\n` : `error ${isToolCallNotAllowedError(part.error) ? part.error.code : 'other'}\n`;
  } finally {
    await store.close();
  }
}

async function resubmitted() {
  const store = await require('../../helpers/durable-stores').openDurable(JSON.parse(durable));
  try {
    const grants = createApprovalGrants({ store });
    const gate = createToolGate({ agentName: 'payments', tools, runId: chatId, grants, policy: () => ({ decision: 'require_approval', reason: 'large' }) });
    const result = await generateText({
      model: gate.model(new MockLanguageModelV4({ doGenerate: async () => TEXT })),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3),
      messages: JSON.parse(fs.readFileSync(path.join(dir, 'history.json'), 'utf8')),
    });
    const outputs = result.responseMessages
      .filter((m) => m.role === 'tool')
      .flatMap((m) => m.content)
      .filter((p) => p.type === 'tool-result')
      .map((p) => [p.toolCallId, p.output]);
    await new Promise((resolve) => setImmediate(resolve));
    return `${JSON.stringify({ outputs, warnings })}\n`;
  } finally {
    await store.close();
  }
}

(durable === undefined ? allowed() : resubmitted())
  .then((line) => process.stdout.write(line))
  .catch((error) => {
    process.stderr.write(`${error && error.stack}\n`);
    process.exitCode = 1;
  });
