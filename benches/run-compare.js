'use strict';
// The run group's loop (prepareToolCall, evaluateToolCall, executeToolCall) of this tree
// against another build of the package, in one process, interleaved round by round with
// the floor: a before/after comparison that machine load cannot tilt.
//
//   node benches/run-compare.js [--baseline DIR] [--class small,medium,deep] [--rounds N]
//                               [--grants] [--receipts] [--sample-ms MS] [--isolated [--warm-ms MS]]
//
// --baseline DIR: a checkout of another commit with its addon built (`git worktree add
// DIR COMMIT && (cd DIR && npm run build)`, or `git archive COMMIT lib index.js
// package.json | tar -x -C DIR` plus a copy of that commit's built .node and a
// node_modules link). Without it, only this tree and the floor are timed.
// --grants makes an approval grants object in the process first (policies then run inside
// their evaluation's async context); --receipts adds each package's loop with execution
// receipts on its memory store. Reported per entry: the median wall and CPU (user +
// system) µs per call over the rounds, the p10-p90 of wall time, and each median over the
// floor's. Nothing is asserted. Two floors: 'floor' (the run group's: four JSON.parse, two
// JSON.stringify, SHA-256) and 'floor, bare' (issue 35's: one parse, one stringify, SHA-256, a
// parse each for the policy and the handler); ratios are given to 'floor', and the bare
// floor's own row shows how far below it sits.
//
// --isolated times each entry of each round in a process of its own (this file, run with
// --child), one package per process, still interleaved round by round. Two copies in one
// process share its heap and its asynchronous context: what one leaves for the garbage
// collector (a copy on an older registry protocol registers every policy input in a
// WeakMap) is paid by whichever loop runs when it collects, and two copies of one tree
// differ there by up to 20 %. Each child warms its loop (--warm-ms, 300 ms by default), then
// times three samples and reports their median.

const os = require('node:os');
const path = require('node:path');
const { buildItems, sha256Envelope, SINK } = require('./contenders');

function parse(argv) {
  const opts = {
    baseline: null,
    classes: ['small', 'medium', 'deep'],
    rounds: 21,
    grants: false,
    receipts: false,
    sampleMs: 10,
    isolated: false,
    child: null,
    warmMs: 300,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--baseline') opts.baseline = path.resolve(argv[++i]);
    else if (arg === '--class') opts.classes = argv[++i].split(',').filter(Boolean);
    else if (arg === '--rounds') opts.rounds = Number(argv[++i]);
    else if (arg === '--sample-ms') opts.sampleMs = Number(argv[++i]);
    else if (arg === '--grants') opts.grants = true;
    else if (arg === '--receipts') opts.receipts = true;
    else if (arg === '--isolated') opts.isolated = true;
    else if (arg === '--warm-ms') opts.warmMs = Number(argv[++i]);
    else if (arg === '--child') opts.child = argv[++i];
    else throw new Error(`unknown argument ${arg}`);
  }
  return opts;
}

const policy = async (input) => {
  SINK.policySeen = input.parsedArguments;
  return { decision: 'allow', reason: 'bench' };
};
const handler = (view) => {
  SINK.handled = view;
  return view;
};

function loopOf(pkg) {
  return async (r) => {
    const prepared = pkg.prepareToolCall(r);
    const decision = await pkg.evaluateToolCall({ prepared, policy });
    return pkg.executeToolCall(decision, handler);
  };
}

function receiptsLoopOf(pkg) {
  let receipts;
  let calls = 0;
  return async (r) => {
    if (calls % 10_000 === 0) receipts = pkg.createExecutionReceipts();
    calls += 1;
    const prepared = pkg.prepareToolCall({
      agentName: r.agentName,
      toolName: r.toolName,
      rawArguments: r.rawArguments,
      runId: 'bench',
      toolCallId: `call-${calls}`,
    });
    const decision = await pkg.evaluateToolCall({ prepared, policy });
    return pkg.executeToolCall(decision, handler, { receipts });
  };
}

/** The run group's floor: the same work in JavaScript without strictness. */
async function floor(r) {
  SINK.requested = JSON.parse(r.rawArguments);
  const argsCanonicalJson = JSON.stringify(JSON.parse(r.rawArguments));
  const snapshot = { argsCanonicalJson, proposalHash: sha256Envelope(r.agentName, r.toolName, argsCanonicalJson) };
  const policyView = JSON.parse(snapshot.argsCanonicalJson);
  const result = await policy({ agentName: r.agentName, toolName: r.toolName, parsedArguments: policyView, proposalHash: snapshot.proposalHash });
  if (result.decision !== 'allow' || JSON.stringify(policyView) !== snapshot.argsCanonicalJson) throw new Error('bench: not allowed');
  return handler(JSON.parse(snapshot.argsCanonicalJson));
}

/**
 * Issue 35's floor, exactly "the same work without strictness done in JavaScript": one
 * JSON.parse of the text, one JSON.stringify, SHA-256 through node:crypto, and a parsed copy
 * each for the policy and the handler. No second parse of the text and no stringify of the
 * policy's view afterwards (the floor above keeps both: a mutation check's and a requested
 * view's stand-ins), so it is the lower of the two.
 */
async function floorBare(r) {
  const argsCanonicalJson = JSON.stringify(JSON.parse(r.rawArguments));
  const snapshot = { argsCanonicalJson, proposalHash: sha256Envelope(r.agentName, r.toolName, argsCanonicalJson) };
  const result = await policy({
    agentName: r.agentName,
    toolName: r.toolName,
    parsedArguments: JSON.parse(snapshot.argsCanonicalJson),
    proposalHash: snapshot.proposalHash,
  });
  if (result.decision !== 'allow') throw new Error('bench: not allowed');
  return handler(JSON.parse(snapshot.argsCanonicalJson));
}

const cpuNow = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function batch(fn, requests, n) {
  const c0 = cpuNow();
  const t0 = process.hrtime.bigint();
  for (let b = 0; b < n; b++) for (let i = 0; i < requests.length; i++) SINK.last = await fn(requests[i]);
  return [Number(process.hrtime.bigint() - t0) / n / 1e3, (cpuNow() - c0) / n];
}

function quantile(values, q) {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  return sorted[lo] + (sorted[Math.ceil(pos)] - sorted[lo]) * (pos - lo);
}

/** A child of --isolated: one entry ('this tree', 'baseline', with ' + receipts', or 'floor') of one class. */
async function child(opts) {
  const name = opts.child;
  const className = opts.classes[0];
  const requests = buildItems(className).map((item) => ({ agentName: item.agentName, toolName: item.toolName, rawArguments: JSON.stringify(item.value) }));
  let fn = name === 'floor' ? floor : floorBare;
  if (name !== 'floor' && name !== 'floor, bare') {
    const pkg = require(name.startsWith('baseline') ? opts.baseline : '..');
    if (opts.grants) pkg.createApprovalGrants();
    fn = name.endsWith('+ receipts') ? receiptsLoopOf(pkg) : loopOf(pkg);
  }
  const [perCall] = await batch(fn, requests, 50);
  const warm = Math.max(1, Math.round((opts.warmMs * 1000) / perCall));
  await batch(fn, requests, warm);
  const [again] = await batch(fn, requests, 50);
  const n = Math.max(1, Math.round((opts.sampleMs * 1000) / again));
  const samples = [];
  for (let i = 0; i < 3; i++) samples.push(await batch(fn, requests, n));
  const wall = quantile(
    samples.map((x) => x[0]),
    0.5,
  );
  const cpu = quantile(
    samples.map((x) => x[1]),
    0.5,
  );
  process.stdout.write(`${JSON.stringify([wall, cpu])}\n`);
}

/** One sample of an entry, timed in a process of its own (--isolated). */
function isolatedSample(opts, name, className) {
  const { execFileSync } = require('node:child_process');
  const args = [__filename, '--child', name, '--class', className, '--sample-ms', String(opts.sampleMs), '--warm-ms', String(opts.warmMs)];
  if (opts.baseline !== null) args.push('--baseline', opts.baseline);
  if (opts.grants) args.push('--grants');
  const out = execFileSync(process.execPath, args, { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

async function main() {
  const opts = parse(process.argv.slice(2));
  if (opts.child !== null) return child(opts);
  if (opts.isolated) return isolated(opts);
  const here = require('..');
  const base = opts.baseline === null ? null : require(opts.baseline);
  if (opts.grants) {
    here.createApprovalGrants();
    if (base !== null) base.createApprovalGrants();
  }
  const load0 = os.loadavg();
  console.log(
    `run loop comparison on Node ${process.version}, ${opts.rounds} interleaved rounds, ${opts.grants ? 'a grants object in the process' : 'no grants object'}, load average ${load0.map((x) => x.toFixed(2)).join(' ')}`,
  );
  if (base !== null) console.log(`baseline: ${opts.baseline}`);
  for (const className of opts.classes) {
    const requests = buildItems(className).map((item) => ({ agentName: item.agentName, toolName: item.toolName, rawArguments: JSON.stringify(item.value) }));
    const entries = [];
    if (base !== null) entries.push(['baseline', loopOf(base)]);
    entries.push(['this tree', loopOf(here)]);
    if (opts.receipts) {
      if (base !== null) entries.push(['baseline + receipts', receiptsLoopOf(base)]);
      entries.push(['this tree + receipts', receiptsLoopOf(here)]);
    }
    entries.push(['floor', floor]);
    entries.push(['floor, bare', floorBare]);
    const sizes = new Map();
    for (const [name, fn] of entries) {
      await batch(fn, requests, 200);
      const [perCall] = await batch(fn, requests, 50);
      sizes.set(name, Math.max(1, Math.round((opts.sampleMs * 1000) / perCall)));
    }
    const wall = new Map(entries.map(([name]) => [name, []]));
    const cpu = new Map(entries.map(([name]) => [name, []]));
    const k = entries.length;
    for (let r = 0; r < opts.rounds; r++) {
      const reversed = Math.floor(r / k) % 2 === 1;
      for (let j = 0; j < k; j++) {
        const [name, fn] = entries[reversed ? (r - j + k * k) % k : (r + j) % k];
        const [w, c] = await batch(fn, requests, sizes.get(name));
        wall.get(name).push(w);
        cpu.get(name).push(c);
      }
    }
    const floorWall = quantile(wall.get('floor'), 0.5);
    const floorCpu = quantile(cpu.get('floor'), 0.5);
    console.log(`\n${className} (load average now ${os.loadavg()[0].toFixed(2)})`);
    console.log('  entry                   wall µs (p10-p90)          / floor   CPU µs   / floor');
    for (const [name] of entries) {
      const w = wall.get(name);
      const c = cpu.get(name);
      const mw = quantile(w, 0.5);
      const mc = quantile(c, 0.5);
      console.log(
        `  ${name.padEnd(22)}  ${mw.toFixed(2).padStart(8)} (${quantile(w, 0.1).toFixed(2)}-${quantile(w, 0.9).toFixed(2)})`.padEnd(52) +
          `  ${(mw / floorWall).toFixed(2)}x  ${mc.toFixed(2).padStart(8)}  ${(mc / floorCpu).toFixed(2)}x`,
      );
    }
  }
}

/** --isolated: every entry of every round in a process of its own, interleaved as in main. */
function isolated(opts) {
  const load0 = os.loadavg();
  console.log(
    `run loop comparison on Node ${process.version}, ${opts.rounds} interleaved rounds, one process per entry and round, ${opts.grants ? 'a grants object in the process' : 'no grants object'}, load average ${load0.map((x) => x.toFixed(2)).join(' ')}`,
  );
  if (opts.baseline !== null) console.log(`baseline: ${opts.baseline}`);
  for (const className of opts.classes) {
    const names = [];
    if (opts.baseline !== null) names.push('baseline');
    names.push('this tree');
    if (opts.receipts) {
      if (opts.baseline !== null) names.push('baseline + receipts');
      names.push('this tree + receipts');
    }
    names.push('floor', 'floor, bare');
    report(opts, className, names, (name) => isolatedSample(opts, name, className));
  }
}

/** Times `names` round by round through sample(name) -> [wall, cpu], and prints the table. */
function report(opts, className, names, sample) {
  const wall = new Map(names.map((name) => [name, []]));
  const cpu = new Map(names.map((name) => [name, []]));
  const k = names.length;
  for (let r = 0; r < opts.rounds; r++) {
    const reversed = Math.floor(r / k) % 2 === 1;
    for (let j = 0; j < k; j++) {
      const name = names[reversed ? (r - j + k * k) % k : (r + j) % k];
      const [w, c] = sample(name);
      wall.get(name).push(w);
      cpu.get(name).push(c);
    }
  }
  const floorWall = quantile(wall.get('floor'), 0.5);
  const floorCpu = quantile(cpu.get('floor'), 0.5);
  console.log(`\n${className} (load average now ${os.loadavg()[0].toFixed(2)})`);
  console.log('  entry                   wall µs (p10-p90)          / floor   CPU µs   / floor');
  for (const name of names) {
    const w = wall.get(name);
    const c = cpu.get(name);
    const mw = quantile(w, 0.5);
    const mc = quantile(c, 0.5);
    console.log(
      `  ${name.padEnd(22)}  ${mw.toFixed(2).padStart(8)} (${quantile(w, 0.1).toFixed(2)}-${quantile(w, 0.9).toFixed(2)})`.padEnd(52) +
        `  ${(mw / floorWall).toFixed(2)}x  ${mc.toFixed(2).padStart(8)}  ${(mc / floorCpu).toFixed(2)}x`,
    );
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
