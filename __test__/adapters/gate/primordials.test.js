'use strict';
// The Claude Agent SDK and Genkit gates call only built-ins captured at load: in a child
// process (adapters/gate/primordials-child.js), Array.prototype, Object, String.prototype,
// Map.prototype, JSON and Reflect methods are replaced after load by functions that throw;
// both gates still answer the same calls exactly as on pristine built-ins.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

test('the two gates decide and answer alike with lying built-ins installed after load', () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, 'primordials-child.js')], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { before, after, failure } = JSON.parse(run.stdout);
  assert.equal(failure, undefined, 'no patched built-in was called');
  assert.deepEqual(after, before);
  assert.equal(before.length, 4);
  assert.equal(before[0][0], 'allow');
  assert.equal(before[2][0], 'deny');
});
