'use strict';
// Test files whose frameworks require Node >= 22 (the AI SDK 7 declares it; the OpenAI
// Agents SDK, Mastra and @ai-sdk/mcp target it) run under the machine's Node through
// `node --test` like every file, and here AGAIN under the newest Node line >= their
// minimum that is available (.tmp/node-lines from `npm run fetch-node`, NODE26_BINARY,
// NODE24_BINARY, NODE22_BINARY, or this process when it is new enough): `node --test FILE`
// with that binary. Each file is a subtest; its top-level tests are mirrored as subtests
// of it (a failure carries the child's message), with the child's summary as diagnostics.
// No such Node: skipped visibly, or failed under TAS_REQUIRE_SERVICES=1 (.ci/run).
//
// To add a file: one line in NEWER_NODE_TESTS, [path under __test__, least Node major].

const { test } = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { newestNode } = require('../helpers/services');

const NEWER_NODE_TESTS = [
  ['adapters/ai/ai.test.js', 22],
  ['adapters/ai/approvals.test.js', 22],
  ['adapters/ai/stateless.test.js', 22],
  ['adapters/ai/json-schema.test.js', 22],
  ['adapters/ai/mcp.test.js', 22],
  ['adapters/mcp/v2-agent.test.js', 22],
  ['adapters/ai/call-ids.test.js', 22],
  ['adapters/ai/approve-race.test.js', 22],
  ['adapters/openai-agents/openai-agents.test.js', 22],
  ['adapters/openai-agents/runs.test.js', 22],
  ['adapters/openai-agents/nulls.test.js', 22],
  ['adapters/openai-agents/processes.test.js', 22],
  ['adapters/openai-agents/mcp.test.js', 22],
  ['adapters/openai-agents/standards.test.js', 22],
  ['adapters/mastra/mastra.test.js', 22],
  ['adapters/mastra/receipts.test.js', 22],
  ['adapters/ai/receipts.test.js', 22],
  ['adapters/openai-agents/receipts.test.js', 22],
  ['adapters/restate/restate.test.js', 22],
  ['adapters/temporal/temporal.test.js', 22],
];

const ROOT = path.join(__dirname, '..', '..');
const TIMEOUT_MS = 10 * 60 * 1000;

/** `node --test --test-reporter=tap FILE` under `node`: resolves { status, signal, stdout, stderr, ms }. */
function runFile(node, file) {
  const env = { ...process.env, NO_COLOR: '1' };
  // Set by node --test for its own children: the child would report in node:test's
  // internal format instead of TAP.
  delete env.NODE_TEST_CONTEXT;
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(node, ['--test', '--test-reporter=tap', file], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The top-level results of a TAP stream: [{ ok, name, directive, details }]. */
function topLevel(stdout) {
  const lines = stdout.split('\n');
  const results = [];
  for (let i = 0; i < lines.length; i++) {
    const match = /^(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b ?(.*))?$/.exec(lines[i]);
    if (match === null) continue;
    const details = [];
    if (lines[i + 1] === '  ---') {
      for (i += 2; i < lines.length && lines[i] !== '  ...'; i++) details.push(lines[i]);
    }
    results.push({ ok: match[1] === 'ok', name: match[2], directive: match[3] || null, reason: match[4] || '', details: details.join('\n') });
  }
  return results;
}

function summary(stdout) {
  const count = (name) => {
    const match = new RegExp(`^# ${name} (\\d+)$`, 'm').exec(stdout);
    return match ? Number(match[1]) : NaN;
  };
  return { tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped'), todo: count('todo'), cancelled: count('cancelled') };
}

test("every listed file exists and runs under the machine's Node too (a *.test.js in __test__)", () => {
  for (const [file, min] of NEWER_NODE_TESTS) {
    assert.ok(fs.existsSync(path.join(__dirname, '..', file)), `${file} is listed but does not exist`);
    assert.match(file, /\.test\.c?js$/, `${file} is not picked up by node --test`);
    assert.ok(Number.isSafeInteger(min) && min >= 22, `${file}: least major ${min}`);
  }
});

for (const [file, min] of NEWER_NODE_TESTS) {
  test(`${file} under the newest Node >= ${min}`, async (t) => {
    const node = newestNode(t, min);
    if (node === null) return;
    t.diagnostic(`Node ${node.version} from ${node.source}: ${node.file}`);
    const run = await runFile(node.file, path.join(__dirname, '..', file));
    const counts = summary(run.stdout);
    t.diagnostic(
      `${file} under Node ${node.version}: tests ${counts.tests}, pass ${counts.pass}, fail ${counts.fail}, skipped ${counts.skipped}, todo ${counts.todo}, cancelled ${counts.cancelled} (${(run.ms / 1000).toFixed(1)} s)`,
    );
    const results = topLevel(run.stdout);
    for (const result of results) {
      if (result.directive === 'SKIP') await t.test(result.name, { skip: result.reason || true }, () => {});
      else if (result.directive === 'TODO') await t.test(result.name, { todo: result.reason || true }, () => {});
      else await t.test(result.name, () => assert.ok(result.ok, `under Node ${node.version}:\n${result.details}`));
    }
    const tail = `\n${run.stdout.slice(-1500)}\n${run.stderr.slice(-1500)}`;
    assert.ok(Number.isFinite(counts.tests), `no summary from node --test ${file} (exit ${run.status}, signal ${run.signal}):${tail}`);
    assert.ok(results.length > 0, `no top-level test reported by ${file}:${tail}`);
    assert.equal(counts.fail, 0, `${counts.fail} test(s) failed in ${file} under Node ${node.version}`);
    assert.equal(counts.cancelled, 0, `${counts.cancelled} test(s) cancelled in ${file} under Node ${node.version}:${tail}`);
    assert.ok(counts.pass > 0, `nothing passed in ${file} under Node ${node.version}`);
    assert.equal(run.status, 0, `node --test ${file} exited ${run.status} (signal ${run.signal}) under Node ${node.version}:${tail}`);
  });
}
