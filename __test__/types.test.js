'use strict';
// The hand-written declarations (index.d.ts) type-check ordinary usage under --strict
// and reject misuse, as the @ts-expect-error lines in types/usage.ts demand.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

test('index.d.ts accepts ordinary usage and rejects misuse under tsc --strict', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, 'types', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
