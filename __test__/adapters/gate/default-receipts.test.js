'use strict';
// Every gate's receipts beside grants in a durable store (issue 33 item 1): given explicit
// memory receipts, the gate warns, once per process, with its own code TAS_MEMORY_RECEIPTS
// and its adapter's name (a replay in another process would run again); receipts on the
// grants' store, `false` and the default (the grants' store's receipts) never warn. Each
// adapter in a fresh process (the warning is once per process). What the default does
// across processes: the *-receipts tests of each adapter, "no receipts option".

const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { newestNode } = require('../../helpers/services');

const CHILD = path.join(__dirname, 'default-receipts-child.js');

for (const adapter of ['ai', 'langchain', 'openai-agents', 'mastra', 'mcp']) {
  test(`${adapter}: explicit memory receipts beside durable grants warn once (TAS_MEMORY_RECEIPTS, the adapter named); the store's receipts, false and the default do not`, (t) => {
    // Mastra needs Node >= 22.13.
    let node = process.execPath;
    if (adapter === 'mastra') {
      const found = newestNode(t, 22);
      if (found === null) return;
      node = found.file;
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-memory-receipts-'));
    try {
      const env = { ...process.env };
      delete env.NODE_TEST_CONTEXT;
      delete env.NODE_ENV;
      const result = spawnSync(node, [CHILD, adapter, dir], { encoding: 'utf8', env });
      assert.equal(result.status, 0, result.stderr);
      const warnings = JSON.parse(result.stdout).filter((w) => w.code === 'TAS_MEMORY_RECEIPTS');
      assert.equal(warnings.length, 1, 'one warning for the process');
      assert.match(warnings[0].message, new RegExp(`^tool-argument-snapshot/${adapter}: `));
      assert.match(warnings[0].message, /Leave options\.receipts out/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
}

test('NODE_ENV=production silences the warning', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-memory-receipts-'));
  try {
    const env = { ...process.env, NODE_ENV: 'production' };
    delete env.NODE_TEST_CONTEXT;
    const result = spawnSync(process.execPath, [CHILD, 'ai', dir], { encoding: 'utf8', env });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout).filter((w) => w.code === 'TAS_MEMORY_RECEIPTS'), []);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
