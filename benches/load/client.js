'use strict';
// The load test's client process (started by benches/load.js with an IPC channel): N
// sessions of the SDK's own Client over StreamableHTTPClientTransport, each doing one call
// at a time (a retry pair: two at once), taking the next call of a shared plan until the
// request budget or the time limit is spent. Every answer is classified and checked against
// the request it answers (the tool's text names the call's reference and arguments; an
// approval request carries the call's canonical arguments). Results go to a JSON file.
//
// argv[2]: JSON { mode, port, sessions, calls, timeLimitMs, tag, out }
//
// The plan (call i, in 20ths): 0 denied (amount over 1000); 1 needs an approval (granted by
// the reviewer process, then retried); 2 allowed, then retried with the same idempotency
// key after its answer; 3 allowed and sent twice at once with one idempotency key; else
// allowed. With the SDK alone every call is sent once, without a key (nothing to dedupe).

const fs = require('node:fs');
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StreamableHTTPClientTransport } = require('@modelcontextprotocol/sdk/client/streamableHttp.js');

const config = JSON.parse(process.argv[2]);
const gated = config.mode === 'gated';
const IDEMPOTENCY_KEY = 'tool-argument-snapshot/idempotency-key';
// Answers that say the store could not be used now: the call is tried again (same key).
const STORE_REFUSALS = new Set(['grant_store_unavailable', 'receipt_store_unavailable', 'grant_unavailable']);
const MAX_STORE_RETRIES = 300;
const STORE_RETRY_MS = 200;
const IN_PROGRESS_RETRY_MS = 1000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function kindOf(i) {
  const r = i % 20;
  if (!gated) return 'allowed';
  return r === 0 ? 'denied' : r === 1 ? 'approval' : r === 2 ? 'retry_after' : r === 3 ? 'retry_concurrent' : 'allowed';
}

function argsOf(i, kind) {
  const amount = kind === 'denied' ? 5000 + (i % 100) : kind === 'approval' ? 200 + (i % 700) : 1 + (i % 100);
  return { ref: `${config.tag}-${i}`, to: `acct-${i % 97}`, amount };
}

// ---------------------------------------------------------------------------------
// Requests and their answers

const t0 = Date.now();
const requests = []; // [sent ms since t0, answered ms since t0, latency µs, answer code]
let sent = 0;
let stopTaking = false;
const deadline = t0 + config.timeLimitMs;
const approvals = new Map(); // ref -> resolve

/** The canonical JSON of a call's arguments (keys sorted; ASCII strings and integers only). */
function canonicalArgs(args) {
  return `{"amount":${args.amount},"ref":${JSON.stringify(args.ref)},"to":${JSON.stringify(args.to)}}`;
}

/**
 * One request and what its answer says: `ran` (the tool's own text for these arguments),
 * `approval` (a proposal of exactly these arguments), `deny:<reason>`, or `mismatch:<what>`
 * when the answer is not this request's, `tool_error`, `error:<code>` (no answer).
 */
async function request(session, args, keyed) {
  const params = { name: 'pay', arguments: args };
  if (keyed) params._meta = { [IDEMPOTENCY_KEY]: args.ref };
  sent += 1;
  const sentAt = Date.now();
  const start = process.hrtime.bigint();
  let code;
  let proposal;
  try {
    const result = await session.client.callTool(params, undefined, { timeout: 120_000 });
    const first = Array.isArray(result.content) ? result.content[0] : undefined;
    const sc = result.structuredContent;
    if (result.isError !== true) {
      code = first && first.text === `paid ${args.amount} to ${args.to} ref ${args.ref}` ? 'ran' : 'mismatch:result';
    } else if (sc && sc.decision === 'deny') {
      code = `deny:${sc.reason}`;
    } else if (sc && sc.decision === 'require_approval') {
      code = sc.proposal && sc.proposal.argsCanonicalJson === canonicalArgs(args) ? 'approval' : 'mismatch:proposal';
      proposal = sc.proposal;
    } else {
      code = 'tool_error';
    }
  } catch (error) {
    code = `error:${error && error.code !== undefined ? error.code : error && error.name}`;
  }
  const latencyUs = Number(process.hrtime.bigint() - start) / 1000;
  requests.push([sentAt - t0, Date.now() - t0, latencyUs, code]);
  return { code, proposal };
}

/**
 * A call until it has an answer that is not a store refusal: refused while the store is
 * down (or a request in progress elsewhere, until its lease ends) it is sent again with the
 * same key. Returns every answer's code.
 */
async function settle(session, args, codes) {
  let storeTries = 0;
  let inProgressTries = 0;
  for (;;) {
    const answer = await request(session, args, true);
    codes.push(answer.code);
    const reason = answer.code.startsWith('deny:') ? answer.code.slice(5) : null;
    if (reason !== null && STORE_REFUSALS.has(reason) && storeTries++ < MAX_STORE_RETRIES) {
      await sleep(STORE_RETRY_MS);
      continue;
    }
    if (reason === 'execution_in_progress' && inProgressTries++ < 60) {
      await sleep(IN_PROGRESS_RETRY_MS);
      continue;
    }
    return answer;
  }
}

function askReviewer(ref, proposal) {
  return new Promise((resolve) => {
    approvals.set(ref, resolve);
    process.send({ type: 'approve', ref, proposal });
  });
}

// The test's process went away (killed, or its output closed): so does this one.
process.on('disconnect', () => process.exit(1));
process.on('message', (message) => {
  if (message.type === 'reviewed') {
    const resolve = approvals.get(message.ref);
    approvals.delete(message.ref);
    if (resolve) resolve(message);
  }
});

// ---------------------------------------------------------------------------------
// Calls

const calls = []; // { i, kind, codes, reviewed }
let nextCall = 0;

async function runCall(session, i) {
  const kind = kindOf(i);
  const args = argsOf(i, kind);
  const record = { i, kind, codes: [], reviewed: null };
  calls.push(record);
  if (!gated) {
    record.codes.push((await request(session, args, false)).code);
    return;
  }
  if (kind === 'retry_concurrent') {
    const a = [];
    const b = [];
    await Promise.all([settle(session, args, a), settle(session, args, b)]);
    record.codes.push(...a, '|', ...b);
    return;
  }
  const first = await settle(session, args, record.codes);
  if (kind === 'approval' && first.code === 'approval') {
    const reviewed = await askReviewer(args.ref, first.proposal);
    record.reviewed = reviewed.ok ? 'granted' : `refused:${reviewed.code}`;
    if (reviewed.ok) await settle(session, args, record.codes);
  } else if (kind === 'retry_after') {
    // The client did not see the answer (a timeout, say) and sends the call again.
    await settle(session, args, record.codes);
  }
}

async function sessionLoop(session) {
  while (!stopTaking) {
    if (sent >= config.calls || Date.now() >= deadline) {
      stopTaking = true;
      break;
    }
    await runCall(session, nextCall++);
  }
}

// JSON-RPC ids, below the SDK's Client: every request id this client sent in a session
// must get exactly one response with that id (the Client would drop a stray one unseen).
const ids = { sent: 0, answered: 0, duplicate: 0, stray: 0 };
function watchIds(transport) {
  const pending = new Map();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if (message && typeof message.method === 'string' && message.id !== undefined) {
      pending.set(message.id, false);
      ids.sent += 1;
    }
    return send(message, options);
  };
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (message && message.id !== undefined && message.method === undefined) {
      const state = pending.get(message.id);
      if (state === undefined) ids.stray += 1;
      else if (state === true) ids.duplicate += 1;
      else {
        pending.set(message.id, true);
        ids.answered += 1;
      }
    }
    return deliver(message, extra);
  };
}

async function main() {
  const url = new URL(`http://127.0.0.1:${config.port}/mcp`);
  const sessions = [];
  for (let s = 0; s < config.sessions; s++) {
    const client = new Client({ name: `load-${s}`, version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(url);
    await client.connect(transport);
    watchIds(transport);
    sessions.push({ client, transport });
  }
  const started = Date.now();
  const idsAtStart = { ...ids };
  const progress = setInterval(() => process.send({ type: 'progress', sent, t: Date.now() }), 250);
  await Promise.all(sessions.map(sessionLoop));
  const wallMs = Date.now() - started;
  clearInterval(progress);
  for (const session of sessions) {
    await session.transport.terminateSession().catch(() => {});
    await session.client.close();
  }
  // The counts of the run only (the connects' initialize and the closes aside).
  const idsDuringRun = { sent: ids.sent - idsAtStart.sent, answered: ids.answered - idsAtStart.answered, duplicate: ids.duplicate, stray: ids.stray };
  fs.writeFileSync(config.out, JSON.stringify({ t0, started: started - t0, wallMs, sent, requests, calls, ids: idsDuringRun }));
  process.send({ type: 'done', sent, wallMs }, () => process.exit(0));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
