'use strict';
// The load test (`npm run bench -- --groups load`, never among the default groups: it needs
// PostgreSQL): Streamable HTTP on loopback, the SDK's own Client and transports, N
// concurrent sessions, first against the SDK alone (a plain McpServer per session), then
// through gateMcpServer with approval grants and execution receipts on PostgreSQL, while a
// reviewer in another process grants the approval requests and PostgreSQL is stopped
// (pg_ctl -m fast) and started again mid-run. Reports throughput, p50/p99 latency and the
// server's RSS over time, and checks, from the tool's execution log and the receipts table:
// every allowed call ran exactly once, no denied or unapproved call ran, every request got
// exactly its own answer, and the restart lost nothing (calls during the outage were denied
// or refused, none ran twice). Exits 1 when a check fails.
//
//   node benches/load.js [--calls N] [--time-limit S] [--sessions N] [--quick]
//                        [--no-sdk] [--no-restart] [--restart-at F] [--outage S]
//                        [--pg-url URL [--pg-data DIR]] [--store postgres|redis [--redis-url URL]]
//                        [--runtime node26|node20|...] [--json FILE]
//
// PostgreSQL: by default a throwaway cluster of the test's own (benches/load/pg.js), so the
// restart disturbs no one else; --pg-url uses a running server (restarted only with --pg-data).
// Processes: this one (orchestration, the restart, RSS sampling, the checks), the server
// (benches/load/server.js), the clients (benches/load/client.js), the reviewer
// (benches/load/reviewer.js).

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { fork, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');

const ROOT = path.join(__dirname, '..');

class UsageError extends Error {}

function usage() {
  return [
    'usage: npm run bench -- --groups load [options]   (or: node benches/load.js [options])',
    '  --calls N          tools/call requests per run (default 100000; --quick: 2000)',
    '  --time-limit S     stop taking new calls after S seconds per run (default 1800; --quick: 120)',
    '  --sessions N       concurrent sessions (default 64)',
    '  --quick            a short run for development (2000 calls, 2 s outage)',
    '  --no-sdk           skip the SDK-alone run',
    '  --no-restart       do not restart PostgreSQL',
    '  --restart-at F     stop PostgreSQL when this fraction of the requests was sent (default 0.4)',
    '  --outage S         seconds PostgreSQL stays stopped (default 4; --quick: 2)',
    "  --lease-ms MS      the receipts' lease (default 10000)",
    "  --pg-url URL       an existing PostgreSQL (default: a throwaway cluster of the test's own)",
    '  --pg-data DIR      its data directory, to restart it with pg_ctl (without it: no restart)',
    "  --store NAME       where the gate keeps grants and receipts: postgres (default) or redis (a redis-server of the test's own, appendfsync always)",
    '  --redis-url URL    an existing Redis for --store redis (not restarted)',
    '  --runtime NAME     run under node26 (the default when found), node24, node22, node20 or node (this one)',
    '  --json FILE        also write the results as JSON',
    '  --no-receipts      the gate without receipts (receipts: false): the retry checks must then fail',
  ].join('\n');
}

function parseArgs(argv) {
  const opts = {
    calls: null,
    timeLimitS: null,
    sessions: 64,
    quick: false,
    sdk: true,
    restart: true,
    restartAt: 0.4,
    outageS: null,
    leaseMs: 10_000,
    receipts: true,
    pgUrl: null,
    pgData: null,
    store: 'postgres',
    redisUrl: null,
    runtime: null,
    json: null,
  };
  const positive = (text, name) => {
    const n = Number(text);
    if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number, not ${JSON.stringify(text)}`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const name = arg.startsWith('--') && eq !== -1 ? arg.slice(0, eq) : arg;
    const inline = arg.startsWith('--') && eq !== -1 ? arg.slice(eq + 1) : undefined;
    const next = () => {
      if (inline !== undefined) return inline;
      if (i + 1 >= argv.length) throw new UsageError(`${name} needs a value\n${usage()}`);
      return argv[++i];
    };
    switch (name) {
      case '--groups': {
        const groups = next().split(',').filter(Boolean);
        if (groups.some((g) => g !== 'load'))
          throw new UsageError('the load group runs alone: --groups load (the other groups need no database; run them separately)');
        break;
      }
      case '--calls':
        opts.calls = Math.round(positive(next(), name));
        break;
      case '--time-limit':
        opts.timeLimitS = positive(next(), name);
        break;
      case '--sessions':
        opts.sessions = Math.round(positive(next(), name));
        break;
      case '--quick':
        opts.quick = true;
        break;
      case '--no-sdk':
        opts.sdk = false;
        break;
      case '--no-restart':
        opts.restart = false;
        break;
      case '--no-receipts':
        opts.receipts = false;
        break;
      case '--restart-at':
        opts.restartAt = positive(next(), name);
        break;
      case '--outage':
        opts.outageS = positive(next(), name);
        break;
      case '--lease-ms':
        opts.leaseMs = Math.round(positive(next(), name));
        break;
      case '--pg-url':
        opts.pgUrl = next();
        break;
      case '--pg-data':
        opts.pgData = next();
        break;
      case '--store':
        opts.store = next();
        if (opts.store !== 'postgres' && opts.store !== 'redis') throw new UsageError('--store is postgres or redis');
        break;
      case '--redis-url':
        opts.redisUrl = next();
        break;
      case '--runtime':
        opts.runtime = next();
        break;
      case '--json':
        opts.json = next();
        break;
      case '--here':
        break;
      case '-h':
      case '--help':
        console.log(usage());
        process.exit(0);
        break;
      default:
        throw new UsageError(`unknown argument ${arg}\n${usage()}`);
    }
  }
  if (opts.restartAt >= 1) throw new UsageError('--restart-at must be below 1');
  opts.calls ??= opts.quick ? 2000 : 100_000;
  opts.timeLimitS ??= opts.quick ? 120 : 1800;
  opts.outageS ??= opts.quick ? 2 : 4;
  return opts;
}

// ---------------------------------------------------------------------------------
// Children, RSS

function start(file, config, onMessage) {
  // TAS_LOAD_CPU_PROF=DIR: the server writes a V8 CPU profile there (node --cpu-prof).
  const execArgv =
    file === 'server.js' && process.env.TAS_LOAD_CPU_PROF
      ? [...process.execArgv, '--cpu-prof', `--cpu-prof-dir=${process.env.TAS_LOAD_CPU_PROF}`]
      : process.execArgv;
  const child = fork(path.join(__dirname, 'load', file), [JSON.stringify(config)], { cwd: ROOT, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const waiters = [];
  child.on('message', (message) => {
    for (let i = 0; i < waiters.length; i++) {
      if (waiters[i].type === message.type) {
        const [w] = waiters.splice(i, 1);
        w.resolve(message);
        return;
      }
    }
    if (onMessage) onMessage(message);
  });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const wait = (type) =>
    new Promise((resolve, reject) => {
      waiters.push({ type, resolve });
      exited.then(({ code, signal }) => reject(new Error(`${file} exited (${signal || code}) before '${type}'`)));
    });
  return { child, wait, exited };
}

function rssOf(pid) {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** CPU seconds (user + system) a process has used so far, from /proc (null elsewhere). */
function cpuOf(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return null;
  }
}
const CLOCK_TICKS = (() => {
  try {
    return Number(require('node:child_process').execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function sampleRss(pids, everyMs) {
  const samples = [];
  const t0 = Date.now();
  const take = () => samples.push({ t: Date.now() - t0, ...Object.fromEntries(Object.entries(pids).map(([k, pid]) => [k, rssOf(pid)])) });
  take();
  const timer = setInterval(take, everyMs);
  return {
    samples,
    stop: () => {
      clearInterval(timer);
      take();
    },
  };
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------
// One run

async function runOnce(mode, opts, work, pg) {
  const tag = `${mode}-${randomBytes(4).toString('hex')}`;
  const logFile = path.join(work, `${tag}-executions-${process.pid}.log`);
  const out = path.join(work, `${tag}-client.json`);
  const table = `load_${randomBytes(4).toString('hex')}`;
  const secret = randomBytes(32).toString('hex');
  const server = start(
    'server.js',
    { mode, store: opts.store, pgUrl: pg ? pg.url : null, table, logFile, secret, leaseMs: opts.leaseMs, receipts: opts.receipts },
    (m) => {
      if (m.type === 'error') console.error(`server: ${m.message}`);
    },
  );
  const { port } = await server.wait('ready');
  let reviewer = null;
  const reviews = new Map();
  if (mode === 'gated') {
    reviewer = start('reviewer.js', { store: opts.store, pgUrl: pg.url, table, secret });
    await reviewer.wait('ready');
  }
  const outage = {
    planned: mode === 'gated' && opts.restart && pg.restartable,
    stopBegin: null,
    stopDone: null,
    startBegin: null,
    startDone: null,
    error: null,
  };
  let restarting = null;
  let client;
  const restartWhen = Math.ceil(opts.calls * opts.restartAt);
  const restartDeadline = Date.now() + opts.timeLimitS * 1000 * opts.restartAt;
  let lastReport = 0;
  client = start('client.js', { mode, port, sessions: opts.sessions, calls: opts.calls, timeLimitMs: opts.timeLimitS * 1000, tag, out }, (m) => {
    if (m.type === 'approve') {
      reviewer.child.send(m);
    } else if (m.type === 'progress') {
      const step = Math.floor((m.sent / opts.calls) * 10);
      if (step > lastReport) {
        lastReport = step;
        console.log(`  ${mode}: ${m.sent} requests sent`);
      }
      if (outage.planned && restarting === null && (m.sent >= restartWhen || Date.now() >= restartDeadline)) {
        restarting = restartPg(pg, opts, outage);
      }
    }
  });
  if (reviewer) {
    reviewer.child.on('message', (m) => {
      if (m.type === 'reviewed') {
        reviews.set(m.ref, m);
        client.child.send(m);
      }
    });
  }
  const rss = sampleRss({ server: server.child.pid, client: client.child.pid }, 500);
  const cpuStart = { server: cpuOf(server.child.pid), client: cpuOf(client.child.pid) };
  const done = await client.wait('done');
  // CPU used by the server and by the clients during the run (the clients' connect included).
  const cpu = { server: cpuOf(server.child.pid) - cpuStart.server, client: cpuOf(client.child.pid) };
  rss.stop();
  if (restarting) await restarting;
  let reviewerStats = null;
  if (reviewer) {
    const stopped = reviewer.wait('stopped');
    reviewer.child.send({ type: 'stop' });
    reviewerStats = await stopped;
  }
  const serverStopped = server.wait('stopped');
  server.child.send({ type: 'stop' });
  const { storeCalls } = await serverStopped;
  const results = JSON.parse(fs.readFileSync(out, 'utf8'));
  const executions = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').split('\n').filter(Boolean) : [];
  let receipts = null;
  if (mode === 'gated') receipts = opts.store === 'redis' ? await readRedisReceipts(pg.url, table) : await readReceipts(pg.url, table);
  return { mode, tag, done, results, executions, receipts, reviews, reviewerStats, outage, rss: rss.samples, cpu, storeCalls, storeName: storeName(opts) };
}

async function restartPg(pg, opts, outage) {
  try {
    outage.stopBegin = Date.now();
    await pg.stop();
    outage.stopDone = Date.now();
    console.log(
      `  ${storeName(opts)} stopped (${opts.store === 'redis' ? 'SHUTDOWN' : 'pg_ctl -m fast'}, ${outage.stopDone - outage.stopBegin} ms); starting it again in ${opts.outageS} s`,
    );
    await sleep(opts.outageS * 1000);
    outage.startBegin = Date.now();
    await pg.start();
    outage.startDone = Date.now();
    console.log(`  ${storeName(opts)} started (${outage.startDone - outage.startBegin} ms)`);
  } catch (error) {
    outage.error = error.message;
    console.error(`  PostgreSQL restart failed: ${error.message}`);
  }
}

/** The receipts table after the run: tool call id (the call's reference) -> status. */
async function readReceipts(url, table) {
  const { Client } = require('pg');
  for (let tries = 0; ; tries++) {
    const client = new Client({ connectionString: url });
    try {
      await client.connect();
      const { rows } = await client.query(`SELECT tool_call_id, status FROM "${table}_receipts"`);
      return new Map(rows.map((r) => [r.tool_call_id, r.status]));
    } catch (error) {
      if (tries >= 20) throw error;
      await sleep(500);
    } finally {
      await client.end().catch(() => {});
    }
  }
}

/** The same from Redis: the receipt hashes under the run's prefix (`c` tool call id, `s` status). */
async function readRedisReceipts(url, table) {
  const { createClient } = require('redis');
  for (let tries = 0; ; tries++) {
    const client = createClient({ url });
    client.on('error', () => {});
    try {
      await client.connect();
      const out = new Map();
      let cursor = '0';
      do {
        const reply = await client.sendCommand(['SCAN', cursor, 'MATCH', `${table}:r:*`, 'COUNT', '1000']);
        cursor = reply[0];
        for (const key of reply[1]) {
          const [c, status] = await client.sendCommand(['HMGET', key, 'c', 's']);
          out.set(c, status);
        }
      } while (cursor !== '0');
      return out;
    } catch (error) {
      if (tries >= 20) throw error;
      await sleep(500);
    } finally {
      await client.close?.().catch?.(() => {});
    }
  }
}

// ---------------------------------------------------------------------------------
// Checks and figures

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function tally(values) {
  const out = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

/**
 * The checks of one run: [{ name, ok, detail }]. Every count is made from what the
 * processes recorded independently: the client's answers, the tool's execution log, the
 * reviewer's grants and PostgreSQL's receipts table.
 */
function check(run) {
  const { results, executions, receipts, reviews, outage } = run;
  const checks = [];
  const add = (name, ok, detail) => checks.push({ name, ok, detail });
  const ranCount = new Map();
  for (const ref of executions) ranCount.set(ref, (ranCount.get(ref) ?? 0) + 1);
  const refOf = (i) => `${run.tag}-${i}`;
  const sentRefs = new Set(results.calls.map((c) => refOf(c.i)));

  const codes = results.requests.map((r) => r[3]);
  const noAnswer = codes.filter((c) => c.startsWith('error:')).length;
  const mismatched = codes.filter((c) => c.startsWith('mismatch:')).length;
  const toolErrors = codes.filter((c) => c === 'tool_error').length;
  const ids = results.ids;
  const idsOk = ids.sent === results.sent && ids.answered === ids.sent && ids.duplicate === 0 && ids.stray === 0;
  add(
    'every request got exactly one answer, its own',
    idsOk && noAnswer === 0 && mismatched === 0 && toolErrors === 0 && results.requests.length === results.sent,
    `${results.requests.length} answers to ${results.sent} requests; ${mismatched} not the request's own; ${noAnswer} without an answer; ${toolErrors} tool errors; JSON-RPC ids: ${ids.answered} of ${ids.sent} answered once, ${ids.duplicate} answered twice, ${ids.stray} responses to ids never sent`,
  );

  const twice = [...ranCount.entries()].filter(([, n]) => n > 1);
  const strangers = [...ranCount.keys()].filter((ref) => !sentRefs.has(ref));
  add(
    'no call ran twice',
    twice.length === 0,
    `${executions.length} executions of ${ranCount.size} calls; ${twice.length} ran more than once${
      twice.length
        ? ` (${twice
            .slice(0, 3)
            .map(([r, n]) => `${r} x${n}`)
            .join(', ')})`
        : ''
    }; ${strangers.length} executions of calls never sent`,
  );

  // Per call: what it was, what its answers say, how often it ran.
  const byKind = {};
  const bad = { allowedNotOnce: [], deniedRan: [], unapprovedRan: [], ranWithoutAnswer: [], answeredWithoutRun: [] };
  let unknownOutcome = 0;
  let unknownRan = 0;
  for (const call of results.calls) {
    const ref = refOf(call.i);
    const n = ranCount.get(ref) ?? 0;
    const answers = call.codes.filter((c) => c !== '|');
    const anyRan = answers.includes('ran');
    const final = answers[answers.length - 1];
    const k = (byKind[call.kind] ??= { calls: 0, ran: 0, finals: {} });
    k.calls += 1;
    k.ran += n;
    k.finals[final] = (k.finals[final] ?? 0) + 1;
    if (call.kind === 'denied') {
      if (n !== 0 || anyRan) bad.deniedRan.push(ref);
      continue;
    }
    if (call.kind === 'approval' && n > 0 && call.reviewed !== 'granted') bad.unapprovedRan.push(ref);
    // The server never dies: a handler that ran answered its request, so a call ran
    // exactly when one of its answers (the run, or a replay of it) says so.
    if (anyRan && n !== 1) bad.answeredWithoutRun.push(ref);
    if (!anyRan && n !== 0) bad.ranWithoutAnswer.push(ref);
    if (final === 'deny:outcome_unknown' || final === 'deny:execution_in_progress') {
      // A claim whose outcome PostgreSQL never recorded: never run again, whether it ran.
      if (n === 1) unknownRan += 1;
      else unknownOutcome += 1;
    } else if (call.kind !== 'approval' && !anyRan && run.mode === 'gated') bad.allowedNotOnce.push(`${ref} (${final})`);
    else if (call.kind === 'approval' && call.reviewed === 'granted' && !anyRan) bad.allowedNotOnce.push(`${ref} (granted, ${final})`);
    else if (run.mode === 'sdk' && n !== 1) bad.allowedNotOnce.push(ref);
  }
  run.byKind = byKind;
  const list = (xs) => (xs.length ? ` (${xs.slice(0, 3).join(', ')}${xs.length > 3 ? ', ...' : ''})` : '');
  add(
    'every allowed call ran exactly once',
    bad.allowedNotOnce.length === 0 && bad.answeredWithoutRun.length === 0 && bad.ranWithoutAnswer.length === 0,
    `${bad.allowedNotOnce.length} allowed calls that never ran${list(bad.allowedNotOnce)}; ${bad.answeredWithoutRun.length} answered "ran" without exactly one run${list(bad.answeredWithoutRun)}; ${bad.ranWithoutAnswer.length} ran without such an answer${list(bad.ranWithoutAnswer)}; ${unknownRan + unknownOutcome} later told outcome_unknown (claimed while PostgreSQL went down, the outcome never recorded: never run again), ${unknownRan} of them ran once, ${unknownOutcome} never ran`,
  );
  if (run.mode === 'gated') {
    add(
      'no denied or unapproved call ran',
      bad.deniedRan.length === 0 && bad.unapprovedRan.length === 0,
      `${bad.deniedRan.length} denied calls ran${list(bad.deniedRan)}; ${bad.unapprovedRan.length} approval calls ran without a grant${list(bad.unapprovedRan)}; ${[...reviews.values()].filter((r) => r.ok).length} approvals granted by the reviewer process`,
    );
    const retried = results.calls.filter((c) => c.kind === 'retry_after' || c.kind === 'retry_concurrent');
    const retriedTwice = retried.filter((c) => (ranCount.get(refOf(c.i)) ?? 0) > 1).length;
    add(
      'a retry with the same idempotency key runs nothing',
      retriedTwice === 0 && retried.length > 0,
      `${retried.length} calls sent twice with one key (after the answer, or both at once): ${retriedTwice} ran twice`,
    );
    // PostgreSQL kept every claim: each execution has its receipt (claimed before it ran).
    const withoutReceipt = [...ranCount.keys()].filter((ref) => !receipts.has(ref));
    const completedNotRun = [...receipts.entries()].filter(([ref, status]) => status === 'completed' && (ranCount.get(ref) ?? 0) !== 1);
    const claimedNotRun = [...receipts.entries()].filter(([ref, status]) => status === 'in_progress' && (ranCount.get(ref) ?? 0) === 0).length;
    const receiptStatus = tally([...receipts.values()]);
    add(
      `${run.storeName} lost no receipt`,
      withoutReceipt.length === 0 && completedNotRun.length === 0,
      `${receipts.size} receipts (${Object.entries(receiptStatus)
        .map(([s, n]) => `${n} ${s}`)
        .join(
          ', ',
        )}); ${withoutReceipt.length} executions without a receipt${list(withoutReceipt)}; ${completedNotRun.length} completed receipts without exactly one run; ${claimedNotRun} claims that never ran (the claim's answer or the grant's spending lost to the outage: outcome_unknown, never run)`,
    );
    if (outage.planned) {
      const t0 = results.t0;
      const inside = results.requests.filter((r) => t0 + r[0] >= outage.stopDone && t0 + r[1] <= outage.startBegin);
      const ranInside = inside.filter((r) => r[3] === 'ran').length;
      const ok = outage.error === null && outage.stopDone !== null && outage.startDone !== null && ranInside === 0;
      run.outageAnswers = tally(inside.map((r) => r[3]));
      add(
        `${run.storeName} stopped and started mid-run: calls during the outage were denied or refused`,
        ok,
        outage.error ??
          `stopped ${outage.stopDone - outage.stopBegin} ms after ${new Date(outage.stopBegin).toISOString()}, down ${((outage.startDone - outage.stopDone) / 1000).toFixed(1)} s; ${inside.length} requests sent and answered while it was down: ${
            Object.entries(run.outageAnswers)
              .map(([c, n]) => `${n} ${c}`)
              .join(', ') || 'none'
          }; ${ranInside} ran`,
      );
    }
  }
  return checks;
}

function figures(run) {
  const { results } = run;
  const latencies = results.requests.map((r) => r[2] / 1000).sort((a, b) => a - b);
  const rssServer = run.rss.map((s) => s.server).filter((x) => x !== null);
  const tenths = [];
  for (let i = 0; i <= 10; i++) {
    const s = run.rss[Math.min(run.rss.length - 1, Math.round((i / 10) * (run.rss.length - 1)))];
    tenths.push(s.server);
  }
  // Before the restart (or the whole run without one): the steady state, no outage retries.
  const before =
    run.outage.stopBegin === null
      ? null
      : results.requests
          .filter((r) => results.t0 + r[0] < run.outage.stopBegin)
          .map((r) => r[2] / 1000)
          .sort((a, b) => a - b);
  const steadyAnswered = before === null ? null : results.requests.filter((r) => results.t0 + r[1] < run.outage.stopBegin).length;
  return {
    steadyThroughput: before === null ? null : steadyAnswered / ((run.outage.stopBegin - results.t0 - results.started) / 1000),
    steadyP50Ms: before === null ? null : quantile(before, 0.5),
    steadyP99Ms: before === null ? null : quantile(before, 0.99),
    steadyRequests: before === null ? null : before.length,
    serverCpuUs: run.cpu.server === null ? null : (run.cpu.server * 1e6) / results.requests.length,
    clientCpuUs: run.cpu.client === null ? null : (run.cpu.client * 1e6) / results.requests.length,
    requests: results.requests.length,
    calls: results.calls.length,
    wallS: results.wallMs / 1000,
    throughput: results.requests.length / (results.wallMs / 1000),
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
    maxMs: latencies[latencies.length - 1],
    rssStartMiB: rssServer[0] / 1048576,
    rssPeakMiB: Math.max(...rssServer) / 1048576,
    rssEndMiB: rssServer[rssServer.length - 1] / 1048576,
    rssTenthsMiB: tenths.map((x) => (x === null ? null : x / 1048576)),
    clientRssPeakMiB: Math.max(...run.rss.map((s) => s.client).filter((x) => x !== null)) / 1048576,
    answers: tally(results.requests.map((r) => r[3])),
    // Statements (PostgreSQL) or commands (Redis) the gated server's store sent, the
    // migration and the approval path's included (the reviewer's are its own process's).
    storeCallsPerRequest: typeof run.storeCalls === 'number' ? run.storeCalls / results.requests.length : null,
  };
}

// ---------------------------------------------------------------------------------

async function main(opts) {
  const meta = {
    node: process.version,
    cpu: os.cpus()[0]?.model.trim() ?? 'unknown',
    cores: os.cpus().length,
    loadAvgStart: os.loadavg().map((x) => Number(x.toFixed(2))),
    date: new Date().toISOString(),
    sdk: JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8')).version,
  };
  console.log(
    `tool-argument-snapshot load test: ${opts.calls} requests (at most ${opts.timeLimitS} s) per run, ${opts.sessions} sessions, Streamable HTTP on loopback`,
  );
  console.log(
    `runtime  Node ${meta.node}, MCP SDK ${meta.sdk}; machine ${meta.cpu}, ${meta.cores} cores, load avg ${meta.loadAvgStart.join(' ')}; ${meta.date}`,
  );
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-load.'));
  let pg = null;
  const runs = [];
  let failed = false;
  const cleanup = () => {
    if (pg) pg.cleanup();
    pg = null;
    fs.rmSync(work, { recursive: true, force: true });
  };
  // Interrupted (or its output closed): the children follow on their IPC channel's close;
  // the PostgreSQL cluster and the work directory are removed here.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.once(signal, () => {
      cleanup();
      process.exit(130);
    });
  }
  process.stdout.on('error', () => {
    cleanup();
    process.exit(1);
  });
  try {
    if (opts.sdk) {
      console.log('\n== the SDK alone: a plain McpServer per session, no gate');
      runs.push(await runOnce('sdk', opts, work, null));
    }
    pg = opts.store === 'redis' ? await openRedisServer(opts) : await openServer(opts);
    console.log(`\n== gated: gateMcpServer with approval grants and execution receipts on ${storeName(opts)} (${pg.describe})`);
    if (opts.restart && !pg.restartable) console.log('  (no restart: give --pg-data with --pg-url)');
    runs.push(await runOnce('gated', { ...opts, restart: opts.restart }, work, pg));
  } finally {
    cleanup();
  }
  meta.loadAvgEnd = os.loadavg().map((x) => Number(x.toFixed(2)));

  const report = { meta, options: opts, runs: [] };
  for (const run of runs) {
    const checks = check(run);
    const fig = figures(run);
    report.runs.push({
      mode: run.mode,
      figures: fig,
      checks,
      byKind: run.byKind,
      outage: run.outage,
      outageAnswers: run.outageAnswers ?? null,
      reviewer: run.reviewerStats,
    });
    console.log(
      `\n${run.mode === 'sdk' ? 'SDK alone' : 'gated'}: ${fig.requests} requests (${fig.calls} calls) in ${fig.wallS.toFixed(1)} s = ${fig.throughput.toFixed(0)} requests/s; latency p50 ${fig.p50Ms.toFixed(2)} ms, p99 ${fig.p99Ms.toFixed(2)} ms, max ${fig.maxMs.toFixed(0)} ms`,
    );
    if (fig.steadyP50Ms !== null)
      console.log(
        `  before the restart (${fig.steadyRequests} requests): ${fig.steadyThroughput.toFixed(0)} requests/s, latency p50 ${fig.steadyP50Ms.toFixed(2)} ms, p99 ${fig.steadyP99Ms.toFixed(2)} ms`,
      );
    if (fig.serverCpuUs !== null) console.log(`  CPU per request: server ${fig.serverCpuUs.toFixed(0)} µs, clients ${fig.clientCpuUs.toFixed(0)} µs`);
    if (fig.storeCallsPerRequest !== null) console.log(`  ${storeUnit(report.options)} the server sent per request: ${fig.storeCallsPerRequest.toFixed(2)}`);
    console.log(
      `  server RSS MiB at each tenth of the run: ${fig.rssTenthsMiB.map((x) => (x === null ? '-' : x.toFixed(0))).join(' ')} (peak ${fig.rssPeakMiB.toFixed(0)}); client process peak ${fig.clientRssPeakMiB.toFixed(0)}`,
    );
    console.log(
      `  answers: ${Object.entries(fig.answers)
        .map(([c, n]) => `${n} ${c}`)
        .join(', ')}`,
    );
    if (run.byKind && run.mode === 'gated') {
      for (const [kind, k] of Object.entries(run.byKind))
        console.log(
          `  ${kind}: ${k.calls} calls, ${k.ran} executions; last answers ${Object.entries(k.finals)
            .map(([c, n]) => `${n} ${c}`)
            .join(', ')}`,
        );
    }
    for (const c of checks) {
      console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
      if (!c.ok) failed = true;
    }
  }
  console.log(`\nload avg at the end ${meta.loadAvgEnd.join(' ')}`);
  console.log(`\n${markdown(report)}`);
  if (opts.json) {
    fs.writeFileSync(path.resolve(opts.json), `${JSON.stringify(report, null, 2)}\n`);
    console.log(`\nresults written to ${opts.json}`);
  }
  if (failed) {
    console.error('\nA check failed.');
    process.exitCode = 1;
  }
}

/** The result table in docs/performance.md's form. */
function markdown(report) {
  const sdk = report.runs.find((r) => r.mode === 'sdk');
  const gated = report.runs.find((r) => r.mode === 'gated');
  const cell = (run, f) => (run ? f(run.figures) : '-');
  const rows = [
    ['requests (calls)', (f) => `${f.requests} (${f.calls})`],
    ['wall time, s', (f) => f.wallS.toFixed(1)],
    ['throughput, requests/s', (f) => f.throughput.toFixed(0)],
    ['latency p50 / p99, ms', (f) => `${f.p50Ms.toFixed(2)} / ${f.p99Ms.toFixed(1)}`],
    ['throughput before the restart, requests/s', (f) => (f.steadyThroughput === null ? '-' : f.steadyThroughput.toFixed(0))],
    ['latency p50 / p99 before the restart, ms', (f) => (f.steadyP50Ms === null ? '-' : `${f.steadyP50Ms.toFixed(2)} / ${f.steadyP99Ms.toFixed(1)}`)],
    ['CPU per request, server / clients, µs', (f) => (f.serverCpuUs === null ? '-' : `${f.serverCpuUs.toFixed(0)} / ${f.clientCpuUs.toFixed(0)}`)],
    [`${storeUnit(report.options)} the server sent per request`, (f) => (f.storeCallsPerRequest === null ? '-' : f.storeCallsPerRequest.toFixed(2))],
    ['server RSS start / peak / end, MiB', (f) => `${f.rssStartMiB.toFixed(0)} / ${f.rssPeakMiB.toFixed(0)} / ${f.rssEndMiB.toFixed(0)}`],
    ['server RSS at each tenth of the run, MiB', (f) => f.rssTenthsMiB.map((x) => (x === null ? '-' : x.toFixed(0))).join(' ')],
  ];
  const lines = [
    `Node ${report.meta.node}, ${report.options.sessions} sessions, ${report.meta.date.slice(0, 10)}, load average ${report.meta.loadAvgStart.join(' ')} (start) / ${report.meta.loadAvgEnd.join(' ')} (end)`,
    '',
    `| | SDK alone | gated, grants${report.options.receipts ? ' + receipts' : ' (receipts: false)'} on ${storeName(report.options)} |`,
    '|---|---|---|',
    ...rows.map(([label, f]) => `| ${label} | ${cell(sdk, f)} | ${cell(gated, f)} |`),
  ];
  if (sdk && gated) {
    const ratio = (a, b) => (a === null || b === null ? '-' : `${(a / b).toFixed(2)}x`);
    const g = gated.figures;
    const a = sdk.figures;
    lines.push(
      '',
      `Gated against the SDK alone: throughput ${ratio(g.throughput, a.throughput)} (before the restart ${ratio(g.steadyThroughput, a.throughput)}), ` +
        `server CPU per request ${ratio(g.serverCpuUs, a.serverCpuUs)} (issue 35's bounds: at least 0.65x, at most 1.6x).`,
    );
  }
  if (gated) {
    lines.push('', ...gated.checks.map((c) => `- ${c.ok ? 'ok' : '**FAIL**'}: ${c.name} (${c.detail})`));
  }
  return lines.join('\n');
}

const { openServer } = require('./load/pg');
const { openRedisServer } = require('./load/redis');

function storeUnit(opts) {
  return opts.store === 'redis' ? 'Redis commands' : 'PostgreSQL statements';
}

function storeName(opts) {
  return opts.store === 'redis' ? 'Redis' : 'PostgreSQL';
}

/** Whether a bench command line asks for the load group (benches/bench.js hands it here). */
function wanted(argv) {
  for (let i = 0; i < argv.length; i++) {
    const value = argv[i] === '--groups' ? argv[i + 1] : argv[i].startsWith('--groups=') ? argv[i].slice(9) : undefined;
    if (value !== undefined && value.split(',').includes('load')) return true;
  }
  return false;
}

function run(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(error.message);
    process.exitCode = 2;
    return;
  }
  if (!argv.includes('--here')) {
    // As the bench: Node 26 when found (or the --runtime asked for), else this Node.
    const runtimes = require('./runtimes');
    const command = runtimes.resolve(opts.runtime ?? 'node26');
    if (command.missing || !command.node) {
      if (opts.runtime !== null) {
        console.error(`${opts.runtime}: ${command.missing ?? 'the load test runs on Node only'}`);
        process.exitCode = 2;
        return;
      }
      console.log(`(Node 26 ${command.missing}: running on this Node ${process.version})\n`);
    } else if (!command.here) {
      console.log(`(running under ${command.label}: ${command.file})\n`);
      const child = spawnSync(command.file, [__filename, ...argv, '--here'], { cwd: ROOT, stdio: 'inherit', env: runtimes.childEnv() });
      process.exitCode = child.status === null ? 1 : child.status;
      return;
    }
  }
  main(opts).catch((error) => {
    console.error(error && error.stack ? error.stack : error);
    process.exitCode = 1;
  });
}

if (require.main === module) run(process.argv.slice(2));

module.exports = { run, wanted };
