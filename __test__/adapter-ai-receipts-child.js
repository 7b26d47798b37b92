'use strict';
// One process of adapter-ai-receipts.test.js: a request of chat `argv[3]` in which the
// provider (the SDK's mock model) calls transfer as call-1, gated with execution receipts
// on the SQLite file in `argv[2]`. The handler appends this process's id to executed.log;
// stdout says what the step did with the call: `result <output>` or `error <code>`.

const fs = require('node:fs');
const path = require('node:path');
const { generateText, tool, stepCountIs } = require('ai');
const { MockLanguageModelV4 } = require('ai/test');
const { z } = require('zod');
const { createExecutionReceipts, createSqliteGrantStore, isToolCallNotAllowedError } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const [dir, chatId] = process.argv.slice(2);
const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

(async () => {
  const store = createSqliteGrantStore({ path: path.join(dir, 'grants.db') });
  try {
    const tools = {
      transfer: tool({
        inputSchema: z.object({ amount: z.number().int().positive(), to: z.string() }),
        execute: async (args) => {
          fs.appendFileSync(path.join(dir, 'executed.log'), `${process.pid}\n`);
          return `sent ${args.amount} to ${args.to}`;
        },
      }),
    };
    const gate = createToolGate({
      agentName: 'payments', tools, runId: chatId, receipts: createExecutionReceipts({ store }),
      policy: () => ({ decision: 'allow', reason: 'small' }),
    });
    const responses = [
      { content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"amount":500,"to":"bob"}' }], finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE, warnings: [] },
      { content: [{ type: 'text', text: 'done' }], finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE, warnings: [] },
    ];
    const result = await generateText({
      model: gate.model(new MockLanguageModelV4({ doGenerate: responses })), tools: gate.tools, toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(3), prompt: 'pay bob',
    });
    const part = result.steps[0].content.find((p) => p.type === 'tool-result' || p.type === 'tool-error');
    process.stdout.write(part.type === 'tool-result' ? `result ${part.output}\n` : `error ${isToolCallNotAllowedError(part.error) ? part.error.code : 'other'}\n`);
  } finally {
    await store.close();
  }
})().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exitCode = 1;
});
