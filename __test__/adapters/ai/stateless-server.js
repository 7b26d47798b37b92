'use strict';
// One request to a stateless AI SDK chat server (the `useChat` shape: the browser sends the
// chat id and the whole message history; nothing survives between requests but the grants'
// store). Spawned once per request by adapters/ai/stateless.test.js: it reads the request as
// JSON on stdin and answers on stdout, one JSON value per line (UI message stream chunks for
// a chat request). What a test needs to see from outside is appended to files in `dir`:
// executed.log (what the tool's handler ran), prompts.log (what the model provider
// received), warnings.log and approve.log.
//
// The store: createSqliteGrantStore when the package has it; until then a file-backed
// STAND-IN written below (not the package's store: processes here run one at a time, so it
// needs no locking; it is not a store for anything else).

const fs = require('node:fs');
const path = require('node:path');
const { streamText, tool, stepCountIs, convertToModelMessages, isToolUIPart } = require('ai');
const { MockLanguageModelV4, convertArrayToReadableStream } = require('ai/test');
const { z } = require('zod');
const api = require('tool-argument-snapshot');
const { createToolGate } = require('tool-argument-snapshot/ai');

const USAGE = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/**
 * A STAND-IN for createSqliteGrantStore (issue 16) until that store is on main: the grants
 * store interface over one JSON file, rewritten whole on every change. Only for these
 * tests, whose processes never overlap.
 */
function createFileStandInGrantStore(file) {
  const load = () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { grants: [], nonces: {}, proposals: {} });
  const save = (data) => {
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(data));
    fs.renameSync(`${file}.tmp`, file);
  };
  const same = (r, q) => r.agentName === q.agentName && r.toolName === q.toolName && r.proposalHash === q.proposalHash && r.scope === q.scope;
  const live = (r, now) => r.uses > 0 && (r.expiresAt === null || now < r.expiresAt);
  return {
    put(record, now) {
      const data = load();
      if (record.nonce !== null) {
        const seen = data.nonces[record.nonce];
        if (seen !== undefined && (seen === null || now < seen)) return false;
        data.nonces[record.nonce] = record.nonceExpiresAt;
      }
      data.grants.push({ ...record });
      save(data);
      return true;
    },
    has: (query, now) => load().grants.some((r) => same(r, query) && live(r, now)),
    take(query, now) {
      const data = load();
      const candidates = data.grants.filter((r) => same(r, query) && live(r, now));
      if (candidates.length === 0) return false;
      candidates.sort((a, b) => (a.expiresAt ?? Infinity) - (b.expiresAt ?? Infinity));
      candidates[0].uses--;
      data.grants = data.grants.filter((r) => r.uses > 0);
      save(data);
      return true;
    },
    delete(query) {
      const data = load();
      data.grants = data.grants.filter((r) => !same(r, query));
      save(data);
    },
    prune(now) {
      const data = load();
      const before = data.grants.length;
      data.grants = data.grants.filter((r) => live(r, now));
      save(data);
      return before - data.grants.length;
    },
    putProposal(key, json, expiresAt) {
      const data = load();
      data.proposals[key] = { json, expiresAt };
      save(data);
    },
    getProposal(key, now) {
      const found = load().proposals[key];
      return found === undefined || (found.expiresAt !== null && now >= found.expiresAt) ? null : found.json;
    },
    deleteProposal(key) {
      const data = load();
      delete data.proposals[key];
      save(data);
    },
  };
}

function openStore(file) {
  if (typeof api.createSqliteGrantStore === 'function') return { store: api.createSqliteGrantStore({ path: file }), kind: 'sqlite' };
  return { store: createFileStandInGrantStore(file), kind: 'file-stand-in' };
}

/** The provider, scripted by the test: each step is a list of tool calls [id, name, text] or a text. */
function scriptedModel(steps, dir) {
  return new MockLanguageModelV4({
    doStream: async (options) => {
      fs.appendFileSync(path.join(dir, 'prompts.log'), `${JSON.stringify(options.prompt)}\n`);
      const step = steps.shift() ?? 'done';
      const chunks = [{ type: 'stream-start', warnings: [] }];
      if (typeof step === 'string') {
        chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step }, { type: 'text-end', id: 't' });
        chunks.push({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE });
      } else {
        for (const [toolCallId, toolName, input] of step) chunks.push({ type: 'tool-call', toolCallId, toolName, input });
        chunks.push({ type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE });
      }
      return { stream: convertArrayToReadableStream(chunks) };
    },
  });
}

/**
 * What the browser is told of an error: the package's error in the cause chain (its
 * message holds no payload), else the error's name (the SDK's own messages quote input).
 */
function errorText(error) {
  for (let e = error, i = 0; e != null && i < 5; e = e.cause, i++) {
    if (api.isToolArgumentsValidationError(e)) return e.message;
  }
  return error?.name ?? 'Error';
}

function out(value) {
  fs.writeSync(1, `${JSON.stringify(value)}\n`);
}

async function main() {
  const request = JSON.parse(fs.readFileSync(0, 'utf8'));
  const { dir, mode = 'chat' } = request;
  const log = (name, value) => fs.appendFileSync(path.join(dir, name), `${JSON.stringify(value)}\n`);
  process.on('warning', (warning) => log('warnings.log', { code: warning.code ?? null, pid: process.pid }));

  // ---- The application ----------------------------------------------------------------
  const { store, kind } = openStore(path.join(dir, 'grants.db'));
  const secret = process.env.TAS_AI_TEST_KEY;
  const grants = api.createApprovalGrants({ store, ...(secret ? { keys: [{ id: 'k1', secret }] } : {}) });
  const tools = {
    transfer: tool({
      description: 'Send money',
      inputSchema: z.object({ amount: z.number().int().positive(), to: z.string() }),
      execute: async (args) => {
        log('executed.log', { args: JSON.stringify(args), pid: process.pid });
        return `sent ${args.amount} to ${args.to}`;
      },
    }),
  };
  const policy = (input) => {
    if (input.parsedArguments.amount <= 1000) return { decision: 'allow', reason: 'small' };
    return { decision: 'require_approval', reason: 'large transfer' };
  };
  const gate = createToolGate({ agentName: 'payments', tools, policy, grants, runId: request.chatId, grantScope: 'user:alice' });

  try {
    if (mode === 'review') {
      // A reviewer's page: what waits for approval (the sealed proposal, with a key ring).
      out({ kind, kept: (await gate.keptProposal({ approvalId: request.approvalId, toolCallId: request.toolCallId })) ?? null });
      return;
    }
    if (mode === 'grant-sealed') {
      // A reviewer service that got the sealed proposal and posts it back approved.
      try {
        await grants.grant(request.sealed);
        out({ granted: true });
      } catch (error) {
        out({ granted: false, code: error.code ?? error.name });
      }
      return;
    }
    if (mode === 'has') {
      out({ has: await grants.has(request.query) });
      return;
    }

    const messages = request.messages;
    if (request.ungated === true) {
      // The same app on the SDK alone: its own approval flag, its own round trip.
      const plainTools = { transfer: { ...tools.transfer, needsApproval: async (input) => input.amount > 1000 } };
      const result = streamText({
        model: scriptedModel(request.script ?? [], dir),
        tools: plainTools,
        stopWhen: stepCountIs(5),
        messages: await convertToModelMessages(messages),
      });
      for await (const chunk of result.toUIMessageStream({ originalMessages: messages, onError: errorText })) out(chunk);
      return;
    }
    if (request.approveThroughGate !== false) {
      // The reviewer's answers (useChat's addToolApprovalResponse) in the last message:
      // each approval is granted through the gate, for exactly the proposal it kept.
      for (const part of messages.at(-1)?.parts ?? []) {
        if (!isToolUIPart(part) || part.state !== 'approval-responded' || part.approval.approved !== true) continue;
        try {
          await gate.approve(part);
          log('approve.log', { toolCallId: part.toolCallId, ok: true });
        } catch (error) {
          log('approve.log', { toolCallId: part.toolCallId, ok: false, code: error.code ?? error.name });
        }
      }
    }
    const result = streamText({
      model: gate.model(scriptedModel(request.script ?? [], dir)),
      tools: gate.tools,
      toolApproval: gate.toolApproval,
      stopWhen: stepCountIs(5),
      messages: await convertToModelMessages(messages),
    });
    for await (const chunk of result.toUIMessageStream({ originalMessages: messages, onError: errorText })) out(chunk);
  } finally {
    if (typeof store.close === 'function') await store.close();
  }
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exitCode = 1;
});
