'use strict';
// The declaration files as a whole (issue 34: one home per concept): index.d.ts re-exports
// the rooms' declarations (lib/<room>/index.d.ts, lib/errors.d.ts, lib/diff.d.ts) and
// stays short; no declaration file imports one that imports it back; and every name the
// root and each subpath exported before the split (types/exports/before.json, listed
// from 9b82c67 with exportedNames of ./declarations) still imports from the same
// specifier, from CommonJS (.cts) and from ESM (.mts), compiled by tsc.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { cycles, declarationGraph, exportedNames } = require('../helpers/declarations');

const ROOT = path.join(__dirname, '..', '..');
const BEFORE = JSON.parse(fs.readFileSync(path.join(__dirname, 'types', 'exports', 'before.json'), 'utf8'));
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const tsc = require.resolve('typescript/bin/tsc');

/** The declaration file package.json "exports" gives a specifier's types (CommonJS kind). */
function typesOf(specifier) {
  const entry = PKG.exports[`.${specifier.slice(PKG.name.length)}`];
  assert.ok(entry && entry.types, `package.json exports ${specifier} with types`);
  return typeof entry.types === 'string' ? entry.types : entry.types.default;
}

test('index.d.ts is a table of re-exports under 300 lines', () => {
  const lines = fs.readFileSync(path.join(ROOT, 'index.d.ts'), 'utf8').split('\n').length;
  assert.ok(lines < 300, `index.d.ts has ${lines} lines`);
});

test('the cycle check finds a cycle (a -> b -> a) and none in a chain', () => {
  assert.deepEqual(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', ['a']],
      ]),
    ),
    [['a', 'b', 'a']],
  );
  assert.deepEqual(
    cycles(
      new Map([
        ['a', ['b', 'c']],
        ['b', ['c']],
        ['c', []],
      ]),
    ),
    [],
  );
});

test('no declaration file imports one that (transitively) imports it back', () => {
  const graph = declarationGraph();
  assert.ok(graph.get('index.d.ts').includes('lib/run/index.d.ts'), 'the graph follows index.d.ts into the rooms');
  assert.ok(graph.get('lib/cedar/index.d.ts').length > 0, 'the graph reads lib/cedar/index.d.ts imports');
  assert.deepEqual(
    cycles(graph).map((cycle) => cycle.join(' -> ')),
    [],
  );
});

// Names the root exports since the split on purpose, each documented in docs/api.md: randomUUID
// (issue 35: the adapters' ids without node:crypto, through the public API).
const ADDED_TO_ROOT = ['randomUUID'];

test('every name exported before still is, from the same specifier; the root exports no new name but those added on purpose', () => {
  const problems = [];
  for (const [specifier, names] of Object.entries(BEFORE)) {
    const now = new Set(exportedNames(typesOf(specifier)));
    for (const name of names) if (!now.has(name)) problems.push(`${specifier} no longer exports ${name}`);
    if (specifier === PKG.name) {
      for (const name of now) if (!names.includes(name) && !ADDED_TO_ROOT.includes(name)) problems.push(`${specifier} now also exports ${name}`);
      for (const name of ADDED_TO_ROOT) if (!now.has(name)) problems.push(`${specifier} does not export ${name}`);
    }
  }
  assert.deepEqual(problems, []);
});

test('every name exported before imports from its specifier under tsc --strict, from CommonJS and from ESM', () => {
  // Inside the package, so that tool-argument-snapshot/<subpath> resolves through "exports".
  const scratch = path.join(ROOT, '.tmp');
  fs.mkdirSync(scratch, { recursive: true });
  const dir = fs.mkdtempSync(path.join(scratch, 'types-exports-'));
  try {
    const files = [];
    for (const [index, [specifier, names]] of Object.entries(BEFORE).entries()) {
      const text = `import type {\n${names.map((name) => `  ${name},\n`).join('')}} from '${specifier}';\n`;
      for (const extension of ['.cts', '.mts']) {
        const file = `imports-${index}${extension}`;
        fs.writeFileSync(path.join(dir, file), text);
        files.push(file);
      }
    }
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'node16', moduleResolution: 'node16', types: [], skipLibCheck: true },
        files,
      }),
    );
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
