'use strict';
// One process of an app built on the Claude Agent SDK gate, over a SQLite grants store:
// argv[2] is JSON { db, home, cwd, modelUrl, prompt, resume?, approve? }. It optionally
// approves a kept proposal first (the reviewer, in this process), runs one query (resuming
// the session when asked), and prints JSON: the session id, what the tool ran, the result's
// permission denials and the pending proposals of the session.

const { z } = require('zod');
const { query } = require('@anthropic-ai/claude-agent-sdk');
const { createApprovalGrants, createSqliteGrantStore } = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/claude-agent-sdk');
const { cliEnv } = require('./sdk-support');

const config = JSON.parse(process.argv[2]);

(async () => {
  const store = createSqliteGrantStore({ path: config.db });
  const grants = createApprovalGrants({ store });
  const ran = [];
  const gate = createToolGate({
    agentName: 'payments',
    serverName: 'payments',
    grants,
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
  const approved = [];
  if (config.approve) approved.push((await gate.approve(config.approve)).proposalHash);
  const options = gate.queryOptions({ cwd: config.cwd, env: cliEnv(config.modelUrl, config.home) });
  if (config.resume) options.resume = config.resume;
  let result;
  let sessionId;
  for await (const message of query({ prompt: config.prompt, options })) {
    if (message.type === 'system' && message.subtype === 'init') sessionId = message.session_id;
    if (message.type === 'result') result = message;
  }
  const pending = await gate.pending(result);
  process.stdout.write(
    JSON.stringify({
      sessionId,
      ran,
      approved,
      denials: result.permission_denials.map((d) => d.tool_use_id),
      pending: pending.map((p) => ({ toolUseId: p.toolUseId, argsCanonicalJson: p.proposal.argsCanonicalJson, proposalHash: p.proposal.proposalHash })),
    }) + '\n',
  );
  await store.close();
})().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
