'use strict';
// Depth: values and raw JSON nested a million levels give depth_limit, never a crash,
// through every entry point (canonicalize, createSnapshot, decodeView of text and of a
// stored snapshot, decodeRequest, prepareToolCall at stage json and at stage snapshot),
// in the main thread and in workers with 0.5 MB and 1 MB stacks; a valid MAX_DEPTH-deep
// value and its views (decodeView of a snapshot, twice) work inside those workers.
// Workers run inside child processes, so that a crash fails a test instead of killing
// the test runner.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const { spawnSync } = require('node:child_process');

const { MAX_DEPTH } = require('../..');

const ROOT = path.join(__dirname, '..', '..');

/**
 * The checks, as a function body run both here and in workers (as source). It returns
 * a flat record { label: outcome } where outcome is 'ok:<canonical JSON length>' or the
 * error's `stage/code`, or its name for anything else.
 */
function checks(pkgPath, maxDepth, parts) {
  const { canonicalize, createSnapshot, decodeView, decodeRequest, prepareToolCall, proposalHash } = require(pkgPath);
  const MILLION = 1_000_000;
  const out = {};
  const record = (label, fn) => {
    try {
      const r = fn();
      out[label] = `ok:${typeof r === 'string' ? r.length : typeof r}`;
    } catch (error) {
      out[label] =
        error && typeof error.code === 'string' ? `${error.stage ? `${error.stage}/` : ''}${error.code}` : `${error && error.name}: ${error && error.message}`;
    }
  };
  const nest = (levels, kind, leaf) => {
    let v = leaf;
    for (let i = 0; i < levels; i++) v = kind === 'array' ? [v] : kind === 'object' ? { k: v } : i % 2 ? [v] : { ['__proto__']: v };
    return v;
  };

  // A million levels, as values.
  if (parts.includes('limits'))
    for (const kind of ['array', 'object', 'mixed']) {
      const deep = nest(MILLION, kind, null);
      record(`value ${kind}: canonicalize`, () => canonicalize(deep));
      record(`value ${kind}: canonicalize includePath`, () => canonicalize(deep, { includePath: true }));
      record(`value ${kind}: createSnapshot`, () => createSnapshot({ agentName: 'a', toolName: 't', value: deep }));
      record(`value ${kind}: prepareToolCall schema output`, () => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{}', schema: () => deep }));
    }
  // A million levels, as text: unclosed, closed, and alternating.
  const texts = {
    'arrays unclosed': '['.repeat(MILLION),
    'arrays closed': '['.repeat(MILLION) + ']'.repeat(MILLION),
    'objects unclosed': '{"a":'.repeat(MILLION),
    'objects closed': `${'{"a":'.repeat(MILLION)}1${'}'.repeat(MILLION)}`,
    alternating: '[{"__proto__":'.repeat(MILLION / 2),
  };
  if (parts.includes('limits'))
    for (const [name, text] of Object.entries(texts)) {
      record(`text ${name}: decodeView`, () => decodeView(text));
      record(`text ${name}: decodeView stored`, () => decodeView({ agentName: 'a', toolName: 't', argsCanonicalJson: text, proposalHash: '0'.repeat(64) }));
      record(`text ${name}: decodeView includePath`, () => decodeView(text, { includePath: true }));
      record(`text ${name}: decodeRequest`, () => decodeRequest(text));
      record(`text ${name}: prepareToolCall`, () => prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: text }));
    }

  // A valid value at exactly the limit, as text: the strict decoder is iterative and
  // JSON.parse builds the value; no native recursion is involved.
  const max = nest(maxDepth, 'mixed', 'leaf');
  const json = JSON.stringify(max);
  out.maxJsonLength = json.length;
  const sameAsJson = (v) => (JSON.stringify(v) === json ? json : 'different');
  if (parts.includes('maxText')) {
    record('max text: decodeView(text)', () => sameAsJson(decodeView(json)));
    // A stored record is verified (canonical form, hash) before it is decoded.
    const stored = {
      agentName: 'a',
      toolName: 't',
      argsCanonicalJson: json,
      proposalHash: proposalHash({ agentName: 'a', toolName: 't', argsCanonicalJson: json }),
    };
    record('max text: decodeView(stored) #1', () => sameAsJson(decodeView(stored)));
    record('max text: decodeView(stored) #2', () => sameAsJson(decodeView(stored)));
    record('max text: decodeRequest', () => sameAsJson(decodeRequest(json)));
  }
  // The same value through the encoder: canonicalize, snapshots, and views of a snapshot.
  if (parts.includes('maxValue')) {
    let snapshot;
    record('max value: canonicalize', () => canonicalize(max));
    record('max value: createSnapshot', () => {
      snapshot = createSnapshot({ agentName: 'a', toolName: 't', value: max });
      return snapshot.argsCanonicalJson;
    });
    record('max value: decodeView(snapshot) #1', () => sameAsJson(decodeView(snapshot)));
    record('max value: decodeView(snapshot) #2', () => sameAsJson(decodeView(snapshot)));
    out['max value: two views share no container'] = (() => {
      let x = decodeView(snapshot);
      let y = decodeView(snapshot);
      for (let level = 0; level < maxDepth; level++) {
        if (x === y) return 'shared';
        x = Array.isArray(x) ? x[0] : x.__proto__; // own data property: both views were decoded from JSON
        y = Array.isArray(y) ? y[0] : y.__proto__;
      }
      return x === 'leaf' && y === 'leaf' ? 'distinct' : 'wrong leaf';
    })();
    let prepared;
    record('max value: prepareToolCall', () => {
      prepared = prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: json });
      return prepared.argsCanonicalJson;
    });
    record('max value: policyView', () => sameAsJson(prepared.policyView()));
    record('max value: policyView #2', () => sameAsJson(prepared.policyView()));
    // A wide leaf makes the view template be re-parsed on every view instead of copied.
    const wideLeaf = {};
    for (let i = 0; i < 600; i++) wideLeaf[`k${i}`] = i;
    const maxWide = nest(maxDepth - 1, 'array', wideLeaf);
    let wideSnapshot;
    record('max wide: createSnapshot', () => {
      wideSnapshot = createSnapshot({ agentName: 'a', toolName: 't', value: maxWide });
      return wideSnapshot.argsCanonicalJson;
    });
    record('max wide: decodeView #1', () => canonicalize(decodeView(wideSnapshot)));
    record('max wide: decodeView #2', () => canonicalize(decodeView(wideSnapshot)));
  }
  // Still usable afterwards.
  record('afterwards: canonicalize', () => canonicalize({ b: [1], a: 2 }));
  return out;
}

function assertResults(out, parts, where) {
  if (parts.includes('limits')) {
    for (const kind of ['array', 'object', 'mixed']) {
      assert.equal(out[`value ${kind}: canonicalize`], 'depth_limit', `${where}: value ${kind}: canonicalize`);
      assert.equal(out[`value ${kind}: canonicalize includePath`], 'depth_limit', `${where}: value ${kind}: canonicalize includePath`);
      assert.equal(out[`value ${kind}: createSnapshot`], 'snapshot/depth_limit', `${where}: value ${kind}: createSnapshot`);
      assert.equal(out[`value ${kind}: prepareToolCall schema output`], 'snapshot/depth_limit', `${where}: value ${kind}: prepareToolCall`);
    }
    for (const name of ['arrays unclosed', 'arrays closed', 'objects unclosed', 'objects closed', 'alternating']) {
      assert.equal(out[`text ${name}: decodeView`], 'depth_limit', `${where}: text ${name}: decodeView`);
      assert.equal(out[`text ${name}: decodeView stored`], 'depth_limit', `${where}: text ${name}: decodeView stored`);
      assert.equal(out[`text ${name}: decodeView includePath`], 'depth_limit', `${where}: text ${name}: decodeView includePath`);
      assert.equal(out[`text ${name}: decodeRequest`], 'json/depth_limit', `${where}: text ${name}: decodeRequest`);
      assert.equal(out[`text ${name}: prepareToolCall`], 'json/depth_limit', `${where}: text ${name}: prepareToolCall`);
    }
  }
  const okJson = `ok:${out.maxJsonLength}`;
  if (parts.includes('maxText')) {
    for (const label of ['decodeView(text)', 'decodeView(stored) #1', 'decodeView(stored) #2', 'decodeRequest']) {
      assert.equal(out[`max text: ${label}`], okJson, `${where}: ${MAX_DEPTH}-deep text: ${label}`);
    }
  }
  if (parts.includes('maxValue')) {
    for (const label of [
      'canonicalize',
      'createSnapshot',
      'decodeView(snapshot) #1',
      'decodeView(snapshot) #2',
      'prepareToolCall',
      'policyView',
      'policyView #2',
    ]) {
      assert.equal(out[`max value: ${label}`], okJson, `${where}: ${MAX_DEPTH}-deep value: ${label}`);
    }
    assert.equal(out['max value: two views share no container'], 'distinct', `${where}: ${MAX_DEPTH}-deep views are independent`);
    assert.match(out['max wide: createSnapshot'], /^ok:/, `${where}: wide leaf snapshot`);
    assert.equal(out['max wide: decodeView #1'], out['max wide: createSnapshot'], `${where}: wide leaf view #1`);
    assert.equal(out['max wide: decodeView #2'], out['max wide: createSnapshot'], `${where}: wide leaf view #2`);
  }
  assert.equal(out['afterwards: canonicalize'], 'ok:15', `${where}: the package works afterwards`);
}

/**
 * Runs `checks` in a worker (stackSizeMb undefined: the default 4 MB) inside a child
 * process, so that a crash of the worker's thread fails the test instead of the runner.
 */
function inWorker(stackSizeMb, parts) {
  const script = `
    const { Worker } = require('node:worker_threads');
    const source = ${JSON.stringify(`
      const { parentPort, workerData } = require('node:worker_threads');
      const checks = ${checks.toString()};
      parentPort.postMessage(checks(workerData.pkg, workerData.maxDepth, workerData.parts));
    `)};
    const options = { eval: true, workerData: ${JSON.stringify({ pkg: ROOT, maxDepth: MAX_DEPTH, parts })} };
    ${stackSizeMb === undefined ? '' : `options.resourceLimits = { stackSizeMb: ${stackSizeMb} };`}
    const worker = new Worker(source, options);
    let result;
    worker.on('message', (m) => { result = m; });
    worker.on('error', (e) => { process.stderr.write('worker error: ' + e.stack); });
    worker.on('exit', (code) => { process.stdout.write(JSON.stringify({ code, result })); });
  `;
  const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 120000, maxBuffer: 1 << 24 });
  const where = `worker with a ${stackSizeMb === undefined ? 'default (4 MB)' : `${stackSizeMb} MB`} stack`;
  assert.equal(child.signal, null, `${where}: the process was killed by ${child.signal} (${parts.join(', ')})`);
  assert.equal(child.status, 0, `${where}: exit status ${child.status}: ${child.stderr.slice(0, 800)}`);
  const { code, result } = JSON.parse(child.stdout);
  assert.equal(code, 0, `${where}: the worker exited with ${code}: ${child.stderr.slice(0, 800)}`);
  return { result, where };
}

const ALL = ['limits', 'maxText', 'maxValue'];

describe('a million levels of nesting give depth_limit and never a crash', () => {
  test('in the main thread', () => {
    assertResults(checks(ROOT, MAX_DEPTH, ALL), ALL, 'main thread');
  });

  test('in a worker with resourceLimits.stackSizeMb = 1 (and a MAX_DEPTH-deep value works there)', () => {
    const { result, where } = inWorker(1, ALL);
    assertResults(result, ALL, where);
  });

  test('in a worker with resourceLimits.stackSizeMb = 0.5 (and a MAX_DEPTH-deep text decodes there)', () => {
    const parts = ['limits', 'maxText'];
    const { result, where } = inWorker(0.5, parts);
    assertResults(result, parts, where);
  });

  // A 0.5 MB worker's whole native stack is 512 KB; a recursive encoder needed about
  // 320 bytes per level and crashed here. The encoder keeps its nesting on the heap.
  test('a MAX_DEPTH-deep value through the encoder in a worker with stackSizeMb = 0.5', () => {
    const { result, where } = inWorker(0.5, ['maxValue']);
    assertResults(result, ['maxValue'], where);
  });
});

describe("the caller's stack", () => {
  // Worker threads get a native stack of stackSizeMb (4 MB by default); V8 stops
  // JavaScript 192 KB before its end, which is all that native code called from a
  // deep JavaScript stack has left. A recursive encoder (about 320 bytes per level)
  // overflowed that rest with a valid MAX_DEPTH-deep value and the process died with
  // SIGSEGV; the encoder now keeps its nesting on the heap.
  test('a valid MAX_DEPTH-deep value canonicalized from a nearly exhausted stack in a worker does not crash the process', () => {
    const script = `
      const { Worker } = require('node:worker_threads');
      const worker = new Worker(\`
        const { canonicalize, createSnapshot } = require(${JSON.stringify(ROOT)});
        let v = 0;
        for (let i = 0; i < ${MAX_DEPTH}; i++) v = i % 2 ? [v] : { k: v };
        let reached = 0;
        function recurse(n, target, fn) { reached = n; if (n < target) { const r = recurse(n + 1, target, fn); return r; } return fn(); }
        try { recurse(0, Infinity, null); } catch {}
        const max = reached;
        const call = () => { try { canonicalize(v); createSnapshot({ agentName: 'a', toolName: 't', value: v }); return 'ok'; } catch (e) { return e.name; } };
        for (let back = 0; back <= 900; back += 3) { try { recurse(0, max - back, call); } catch {} }
      \`, { eval: true });
      worker.on('exit', (code) => { console.log('worker exit ' + code); });
    `;
    const child = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 60000 });
    assert.equal(child.signal, null, `the process was killed by ${child.signal}`);
    assert.equal(child.status, 0, `exit status ${child.status}: ${child.stderr.slice(0, 500)}`);
    assert.match(child.stdout, /worker exit 0/, 'the worker finished');
  });
});
