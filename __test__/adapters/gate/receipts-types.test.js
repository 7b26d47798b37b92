'use strict';
// The AI SDK and Mastra gates' declarations of `receipts` and `pending` under tsc --strict
// (__test__/package/types/gates-receipts/): ordinary use compiles, and each @ts-expect-error line
// (receipts: true, a proposal read off an entry that did not verify, pending('r1')) must be
// an error, or tsc fails.

const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');

test('receipts and pending are typed in the AI SDK and Mastra declarations (tsc --strict)', () => {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(__dirname, '..', '..', 'package', 'types', 'gates-receipts', 'tsconfig.json')], {
    encoding: 'utf8',
  });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});
