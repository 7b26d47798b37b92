'use strict';
// The MCP gate's typed policies (issue 26, item 4) under tsc --strict: one source,
// types/mcp-policies/policies.ts, checked as the package's kind (its own tsconfig) and
// copied as a .cts and a .mts into a folder of the package's .tmp/ so that it checks from
// CommonJS and from ESM. Its @ts-expect-error lines (a typo in a policy, an untyped
// parsedArguments read as a record) must each fail to compile; a sabotaged copy in which
// the typo's expectation is removed must fail.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { join } = require('node:path');
const { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } = require('node:fs');

const tsc = require.resolve('typescript/bin/tsc');
const SOURCE = join(__dirname, '..', '..', 'package', 'types', 'mcp-policies');
const CONFIG = join(SOURCE, 'tsconfig.json');

function compileCopies(text, extensions) {
  const scratch = join(__dirname, '..', '..', '..', '.tmp');
  mkdirSync(scratch, { recursive: true });
  const dir = mkdtempSync(join(scratch, 'types-mcp-policies-'));
  try {
    const files = extensions.map((extension) => `policies${extension}`);
    for (const file of files) writeFileSync(join(dir, file), text);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ extends: CONFIG, files }));
    return spawnSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const source = readFileSync(join(SOURCE, 'policies.ts'), 'utf8');

test("typed MCP policies check as the package's kind, from CommonJS and from ESM (tsc --strict)", () => {
  const own = spawnSync(process.execPath, [tsc, '-p', CONFIG], { encoding: 'utf8' });
  assert.equal(own.status, 0, `tsc failed:\n${own.stdout}${own.stderr}`);
  const both = compileCopies(source, ['.cts', '.mts']);
  assert.equal(both.status, 0, `tsc failed:\n${both.stdout}${both.stderr}`);
});

test('without its @ts-expect-error, the typo in a typed policy and the field read of an untyped one fail to compile', () => {
  for (const [expectation, message] of [
    ["// @ts-expect-error `amout` is not a field of pay's arguments", /amout/],
    ['// @ts-expect-error parsedArguments is unknown: a field cannot be read without narrowing', /unknown/],
  ]) {
    assert.ok(source.includes(expectation), expectation);
    const result = compileCopies(source.replace(expectation, '// (expectation removed)'), ['.cts']);
    assert.notEqual(result.status, 0, 'the sabotaged copy compiled');
    assert.match(result.stdout, message);
  }
});
