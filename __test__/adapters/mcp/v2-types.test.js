'use strict';
// The declarations of gateMcpServer on @modelcontextprotocol/server 2.x (issue 38) under
// tsc --strict, from ESM and CommonJS (types/mcp-v2/): a server factory, typed policies, the
// request context of the callbacks, the gate's fetch, the input_required answer. Each
// @ts-expect-error must fail to compile without its directive (a sabotaged copy fails).

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync } = require('node:fs');

const tsc = require.resolve('typescript/bin/tsc');
const SOURCE = join(__dirname, '..', '..', 'package', 'types', 'mcp-v2');

test('the 2.x declarations check from ESM and CommonJS (tsc --strict)', () => {
  const result = spawnSync(process.execPath, [tsc, '-p', join(SOURCE, 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
});

test('without its @ts-expect-error, a typo in a typed 2.x policy and a scope that is no string fail to compile', () => {
  const source = readFileSync(join(SOURCE, 'usage.mts'), 'utf8');
  for (const [expectation, message] of [
    ["// @ts-expect-error `amout` is not a field of pay's arguments", /amout/],
    ['// @ts-expect-error idempotencyScope returns a string, null or undefined', /number/],
  ]) {
    assert.ok(source.includes(expectation), expectation);
    const scratch = join(__dirname, '..', '..', '..', '.tmp');
    mkdirSync(scratch, { recursive: true });
    const dir = mkdtempSync(join(scratch, 'types-mcp-v2-'));
    try {
      writeFileSync(join(dir, 'usage.mts'), source.replace(expectation, '// (expectation removed)'));
      copyFileSync(join(SOURCE, 'tsconfig.json'), join(dir, 'base.json'));
      writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: './base.json', files: ['usage.mts'] }));
      const result = spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
      assert.notEqual(result.status, 0, 'the sabotaged copy compiled');
      assert.match(result.stdout, message);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('both lines of the MCP SDK are optional peers: @modelcontextprotocol/sdk 1.32+ and @modelcontextprotocol/server 2.4+', () => {
  const manifest = require('../../../package.json');
  assert.equal(manifest.peerDependencies['@modelcontextprotocol/sdk'], '^1.32.2');
  assert.equal(manifest.peerDependencies['@modelcontextprotocol/server'], '^2.4.0');
  assert.deepEqual(manifest.peerDependenciesMeta['@modelcontextprotocol/sdk'], { optional: true });
  assert.deepEqual(manifest.peerDependenciesMeta['@modelcontextprotocol/server'], { optional: true });
});
