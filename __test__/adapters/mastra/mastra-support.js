'use strict';
// What the Mastra adapter's tests share: Mastra itself (loaded only where it runs: Node >=
// 22.13, its engines), a scripted provider built on Mastra's own mock model, and a grants
// store that several processes can share.

const fs = require('node:fs');
const api = require('tool-argument-snapshot');

const [NODE_MAJOR, NODE_MINOR] = process.versions.node.split('.').map(Number);
/** Mastra declares node >= 22.13: its tests run there (package/node-lines.test.js reruns them on the newest line). */
const MASTRA_SKIP =
  NODE_MAJOR > 22 || (NODE_MAJOR === 22 && NODE_MINOR >= 13)
    ? false
    : `needs Node >= 22.13 (the engines of @mastra/core); this is Node ${process.versions.node}: package/node-lines.test.js runs this file under the newest Node line (npm run fetch-node)`;

/** Mastra's classes, required on first use. */
function mastra() {
  const { Agent } = require('@mastra/core/agent');
  const { Mastra } = require('@mastra/core');
  const { InMemoryStore } = require('@mastra/core/storage');
  const { RequestContext } = require('@mastra/core/request-context');
  const { MastraLanguageModelV2Mock } = require('@mastra/core/test-utils/llm-mock');
  const mastraTools = require('@mastra/core/tools');
  return { Agent, Mastra, InMemoryStore, RequestContext, MastraLanguageModelV2Mock, createTool: mastraTools.createTool };
}

const USAGE = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

/** The parts of one scripted response: a list of tool calls { id, name, input } or a text. */
function responseParts(step) {
  if (typeof step === 'string') return [{ type: 'text', text: step }];
  return step.map((call) => ({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input }));
}

function streamOf(step) {
  const chunks = [{ type: 'stream-start', warnings: [] }];
  if (typeof step === 'string') {
    chunks.push({ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: step }, { type: 'text-end', id: 't' });
    chunks.push({ type: 'finish', finishReason: 'stop', usage: USAGE });
  } else {
    for (const part of responseParts(step)) chunks.push(part);
    chunks.push({ type: 'finish', finishReason: 'tool-calls', usage: USAGE });
  }
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

/**
 * A provider scripted by the test, on Mastra's own mock model (MastraLanguageModelV2Mock):
 * each model call takes the next step (tool calls, or a text; 'done' when the script is
 * over). Every prompt the provider receives is pushed to `prompts`. `identity` may name
 * the `provider` and `modelId` (Mastra picks its schema compat layer by them).
 */
function scriptedModel(steps, prompts = [], identity = {}) {
  const { MastraLanguageModelV2Mock } = mastra();
  const next = (options) => {
    prompts.push(options.prompt);
    return steps.length ? steps.shift() : 'done';
  };
  return new MastraLanguageModelV2Mock({
    ...identity,
    doStream: async (options) => ({ stream: streamOf(next(options)) }),
    doGenerate: async (options) => {
      const step = next(options);
      return {
        content: responseParts(step),
        finishReason: typeof step === 'string' ? 'stop' : 'tool-calls',
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

/** Every chunk of a Mastra stream result. */
async function drain(output) {
  const chunks = [];
  for await (const chunk of output.fullStream) chunks.push(chunk);
  return chunks;
}

/** `type:toolCallId` of each chunk that names a call, for readable assertions. */
function callChunks(chunks) {
  return chunks.filter((c) => c.payload && typeof c.payload.toolCallId === 'string').map((c) => `${c.type}:${c.payload.toolCallId}`);
}

/** The tool results of a stream by call id. */
function resultsOf(chunks) {
  const results = {};
  for (const c of chunks) if (c.type === 'tool-result') results[c.payload.toolCallId] = c.payload.result;
  return results;
}

/**
 * A STAND-IN for createSqliteGrantStore (issue 16) until that store is on main: the grants
 * store interface over one JSON file, rewritten whole on every change. Only for these
 * tests, whose processes take turns (never at once): it has no locking.
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

/** The package's SQLite store when it has one, else the stand-in above (named in `kind`). */
function openGrantStore(file) {
  if (typeof api.createSqliteGrantStore === 'function') return { store: api.createSqliteGrantStore({ path: file }), kind: 'sqlite' };
  return { store: createFileStandInGrantStore(file), kind: 'file-stand-in' };
}

module.exports = {
  MASTRA_SKIP,
  mastra,
  scriptedModel,
  drain,
  callChunks,
  resultsOf,
  createFileStandInGrantStore,
  openGrantStore,
};
