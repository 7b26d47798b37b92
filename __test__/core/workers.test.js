'use strict';
// worker_threads: the addon keeps per-thread scratch buffers and per-thread failure
// state, and each worker loads its own instance of the JavaScript side.
// - Eight workers snapshot a mix of support/payloads.js payloads concurrently, several
//   rounds each, and get exactly the hashes, canonical JSON and views of the main thread.
// - Three hundred workers are loaded and ended one after another (two at a time): some
//   exit after one snapshot, some are terminated while snapshotting in a loop, some are
//   terminated while still loading the addon. In a child process with --expose-gc, RSS
//   after gc at the start and at the end must not grow by more than 100 MB.
//   WORKER_CYCLES=<n> changes the count (default 300).

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');

const ROOT = path.join(__dirname, '..', '..');
const WORKERS = 8;
const ROUNDS = 2;
const CYCLES = Number(process.env.WORKER_CYCLES || 300);

/**
 * Runs in the main thread and in every worker (as source): snapshots the payload mix
 * `rounds` times and returns one line per payload (hash, JSON digest, views agree).
 */
function snapshotMix(pkgPath, payloadsPath, offset, rounds) {
  const { createSnapshot, decodeView, canonicalize, prepareToolCall } = require(pkgPath);
  const payloads = require(payloadsPath);
  const { createHash: hash } = require('node:crypto');
  const items = [
    ...payloads.realistic(7),
    payloads.small(1),
    payloads.medium(3),
    payloads.large(5),
    payloads.numberHeavy(11),
    payloads.wide(13),
    payloads.deep(17),
    { bad: -0 },
    { bad: [1, , 2] },
    { bad: 'x\ud800' }, // eslint-disable-line no-sparse-arrays
  ];
  const lines = [];
  for (let round = 0; round < rounds; round++) {
    // Each worker starts at a different item, so that different payloads are in flight.
    for (let k = 0; k < items.length; k++) {
      const i = (k + offset) % items.length;
      const value = items[i];
      let line;
      try {
        const agentName = `agent ${i % 3}`;
        const toolName = `tool_${i % 5}`;
        const s = createSnapshot({ agentName, toolName, value });
        const v1 = canonicalize(decodeView(s));
        const v2 = canonicalize(decodeView(s));
        const p = prepareToolCall({ agentName, toolName, rawArguments: s.argsCanonicalJson });
        const same = v1 === s.argsCanonicalJson && v2 === v1 && p.proposalHash === s.proposalHash && canonicalize(p.policyView()) === v1;
        line = `${i} ${s.proposalHash} ${hash('sha256').update(s.argsCanonicalJson).digest('hex').slice(0, 16)} ${same}`;
      } catch (error) {
        line = `${i} ${error.code} ${error.stage}`;
      }
      if (round === rounds - 1) lines[i] = line;
      else if (lines[i] !== undefined && lines[i] !== line) lines[i] = `${line} (changed between rounds)`;
    }
  }
  return lines;
}

function runWorker(index) {
  const source = `
    const { parentPort, workerData } = require('node:worker_threads');
    const snapshotMix = ${snapshotMix.toString()};
    parentPort.postMessage(snapshotMix(workerData.pkg, workerData.payloads, workerData.offset, workerData.rounds));
  `;
  const worker = new Worker(source, {
    eval: true,
    workerData: { pkg: ROOT, payloads: path.join(ROOT, 'support', 'payloads.js'), offset: index * 7, rounds: ROUNDS },
  });
  return new Promise((resolve, reject) => {
    let message;
    worker.once('message', (m) => {
      message = m;
    });
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 && message ? resolve(message) : reject(new Error(`worker ${index} exited with ${code}`))));
  });
}

describe('worker threads', () => {
  test(`${WORKERS} concurrent workers give the main thread's hashes, JSON and views`, async (t) => {
    const expected = snapshotMix(ROOT, path.join(ROOT, 'support', 'payloads.js'), 0, 1);
    assert.ok(
      expected.every((line) => !line.includes('false')),
      'main thread: views agree with the snapshot',
    );
    const started = Date.now();
    const results = await Promise.all(Array.from({ length: WORKERS }, (_, i) => runWorker(i)));
    for (let w = 0; w < WORKERS; w++) {
      assert.equal(results[w].length, expected.length, `worker ${w}: payload count`);
      for (let i = 0; i < expected.length; i++) assert.equal(results[w][i], expected[i], `worker ${w}, payload ${i}`);
    }
    const digest = createHash('sha256').update(expected.join('\n')).digest('hex').slice(0, 16);
    t.diagnostic(
      `${WORKERS} workers x ${ROUNDS} rounds x ${expected.length} payloads in ${Date.now() - started} ms; all equal to the main thread (digest ${digest})`,
    );
  });

  test(`loading and ending ${CYCLES} workers neither crashes nor grows RSS by 100 MB`, (t) => {
    const script = `
      const { Worker } = require('node:worker_threads');
      const source = \`
        const { parentPort, workerData } = require('node:worker_threads');
        const { createSnapshot, decodeView } = require(workerData.pkg);
        const value = { i: workerData.i, list: [1, 'two', { three: 3 }], text: 'é'.repeat(2000) };
        let s = createSnapshot({ agentName: 'a', toolName: 't', value });
        parentPort.postMessage(s.proposalHash);
        if (workerData.mode === 'spin') {
          for (;;) { s = createSnapshot({ agentName: 'a', toolName: 't', value }); decodeView(s); }
        }
      \`;
      const MODES = ['exit', 'spin', 'load'];
      function cycle(i) {
        const mode = MODES[i % MODES.length];
        const worker = new Worker(source, { eval: true, workerData: { pkg: ${JSON.stringify(ROOT)}, i, mode } });
        return new Promise((resolve, reject) => {
          let hash;
          worker.on('error', reject);
          worker.on('exit', (code) => resolve({ mode, code, hash }));
          worker.on('message', (m) => { hash = m; if (mode === 'spin') worker.terminate(); });
          // Terminated while it may still be loading the package and the addon.
          if (mode === 'load') setTimeout(() => worker.terminate(), i % 41);
        });
      }
      (async () => {
        const mb = () => process.memoryUsage().rss / 1048576;
        const settle = async () => { for (let k = 0; k < 3; k++) { gc(); await new Promise((r) => setTimeout(r, 20)); } };
        // A few cycles first, so that one-time costs (code, the addon) are in the baseline.
        for (let i = 0; i < 6; i++) await cycle(i);
        await settle();
        const start = mb();
        const samples = [];
        const outcomes = {};
        const started = Date.now();
        for (let i = 0; i < ${CYCLES}; i += 2) {
          const pair = await Promise.all([cycle(i), cycle(i + 1)]);
          for (const r of pair) {
            const key = r.mode + ':' + r.code + (r.hash ? ':hash' : '');
            outcomes[key] = (outcomes[key] || 0) + 1;
          }
          if (i % 60 === 0) { await settle(); samples.push(Math.round(mb() - start)); }
        }
        await settle();
        const end = mb();
        process.stdout.write(JSON.stringify({ start, end, growth: end - start, samples, outcomes, ms: Date.now() - started }));
      })().catch((e) => { console.error(e); process.exit(1); });
    `;
    const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 240000 });
    assert.equal(child.signal, null, `killed by ${child.signal}: ${child.stderr.slice(0, 500)}`);
    assert.equal(child.status, 0, `exit ${child.status}: ${child.stderr.slice(0, 1000)}`);
    const r = JSON.parse(child.stdout);
    const total = Object.values(r.outcomes).reduce((a, b) => a + b, 0);
    assert.equal(total, CYCLES, 'every worker ended');
    for (const key of Object.keys(r.outcomes)) {
      assert.match(key, /^(exit:0:hash|spin:1:hash|load:[01](:hash)?)$/, `unexpected worker outcome ${key}`);
    }
    assert.ok(r.growth < 100, `RSS grew by ${r.growth.toFixed(1)} MB over ${CYCLES} workers`);
    t.diagnostic(
      `${CYCLES} workers in ${r.ms} ms: ${JSON.stringify(r.outcomes)}; RSS after gc ${r.start.toFixed(1)} MB -> ${r.end.toFixed(1)} MB (growth ${r.growth.toFixed(1)} MB; samples ${r.samples.join(', ')} MB)`,
    );
  });
});
