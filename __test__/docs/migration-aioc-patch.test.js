'use strict';
// docs/migration-from-aioc.md gives the adoption of the package in aioc as a patch: one
// ```diff block per file, against aioc v0.2.8, extracted and applied with the one-line
// command the page prints. Here:
//
//   - always: the blocks are a well-formed patch of the files the page names (each hunk's
//     line counts add up), the page's command extracts exactly them, the package names the
//     patch uses exist, and the page's table of changed lines is the patch's own count;
//   - with TAS_AIOC_DIR pointing at an aioc 0.2.8 checkout (`git checkout v0.2.8 && npm
//     install` done there): the patch is applied to a copy of it with `git apply`, this
//     checkout is linked in as `tool-argument-snapshot`, and aioc's own `npm run test:ci`
//     must pass, with every assertion of its three suites running (the oracle is aioc's
//     suite, not this package). Without TAS_AIOC_DIR the test is skipped, saying so. It
//     stays a skip under TAS_REQUIRE_SERVICES=1: CI has neither network nor aioc.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { exportedNames } = require('../helpers/declarations');

const ROOT = path.join(__dirname, '..', '..');
const PAGE_FILE = path.join(ROOT, 'docs', 'migration-from-aioc.md');
const PAGE = fs.readFileSync(PAGE_FILE, 'utf8');
const FILES = ['src/errors.ts', 'src/suspended-proposals.ts', 'src/run.ts'];
/** node:assert calls aioc 0.2.8's suites make (unit, integration, regression): the patch must not lose any. */
const AIOC_ASSERTIONS = { unit: 531, integration: 22, regression: 57 };

/** The page's ```diff blocks, in order. */
function diffBlocks() {
  return [...PAGE.matchAll(/^```diff\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

/** Per file of a patch: added and removed lines; throws when a hunk's counts do not add up. */
function parsePatch(text) {
  const files = {};
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let file = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const header = /^diff --git a\/(\S+) b\/(\S+)$/.exec(line);
    if (header) {
      assert.equal(header[1], header[2], line);
      file = header[1];
      assert.ok(!files[file], `${file} appears once`);
      files[file] = { added: 0, removed: 0, hunks: 0 };
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (!hunk) continue;
    assert.ok(file, `a hunk before any file header: ${line}`);
    let oldCount = hunk[2] === undefined ? 1 : Number(hunk[2]);
    let newCount = hunk[4] === undefined ? 1 : Number(hunk[4]);
    files[file].hunks++;
    while (oldCount > 0 || newCount > 0) {
      const body = lines[++i];
      assert.ok(body !== undefined, `${file}: hunk ${line} ends early`);
      if (body.startsWith('+')) {
        newCount--;
        files[file].added++;
      } else if (body.startsWith('-')) {
        oldCount--;
        files[file].removed++;
      } else if (body.startsWith(' ') || body === '') {
        oldCount--;
        newCount--;
      } else {
        assert.fail(`${file}: unexpected line in hunk ${line}: ${JSON.stringify(body)}`);
      }
      assert.ok(oldCount >= 0 && newCount >= 0, `${file}: hunk ${line} has more lines than its header says`);
    }
  }
  return files;
}

test("the page's diff blocks are one well-formed patch per file (errors.ts, suspended-proposals.ts, run.ts), headers against v0.2.8 included", () => {
  const blocks = diffBlocks();
  assert.equal(blocks.length, FILES.length, 'one diff block per file, and no other diff block on the page');
  blocks.forEach((block, index) => {
    assert.match(
      block,
      new RegExp(
        `^diff --git a/${FILES[index]} b/${FILES[index]}\\nindex [0-9a-f]{7,}\\.\\.[0-9a-f]{7,} 100644\\n--- a/${FILES[index]}\\n\\+\\+\\+ b/${FILES[index]}\\n@@ `,
      ),
      `block ${index + 1} is the patch of ${FILES[index]}`,
    );
  });
  const files = parsePatch(blocks.join(''));
  assert.deepEqual(Object.keys(files), FILES);
});

test("the page's one-line command extracts exactly the diff blocks", (t) => {
  const command = /^(sed -n '\/\^```diff\$\/,\/\^```\$\/\{\/\^```\/d;p\}') \/path\/to\/docs\/migration-from-aioc\.md \| git apply$/m.exec(PAGE);
  assert.ok(command, 'the page gives the sed | git apply line');
  const sed = spawnSync('bash', ['-c', `${command[1]} "$0"`, PAGE_FILE], { encoding: 'utf8' });
  if (sed.error) {
    t.skip(`bash or sed is not available here: ${sed.error.message}`);
    return;
  }
  assert.equal(sed.status, 0, sed.stderr);
  assert.equal(sed.stdout, diffBlocks().join(''));
});

test("the table of changed lines is the patch's own count, and the patch uses the package through one namespace import", () => {
  const files = parsePatch(diffBlocks().join(''));
  const section = PAGE.slice(PAGE.indexOf('### Changed lines'));
  for (const file of FILES) {
    const { added, removed } = files[file];
    const row = new RegExp(`^\\| \`${file.replace(/[.]/g, '\\.')}\` \\|.*\\| ([^|]+) \\|$`, 'm').exec(section);
    assert.ok(row, `the table has a row for ${file}`);
    const cell = row[1].trim();
    const expected = removed === 0 ? `${added} added` : `${added + removed} (${added} added, ${removed} removed)`;
    assert.equal(cell, expected, `${file}: the patch adds ${added} and removes ${removed} lines`);
  }
  const run = diffBlocks()[2];
  const imports = [...run.matchAll(/^\+import .* from "tool-argument-snapshot";$/gm)].map((m) => m[0]);
  assert.deepEqual(imports, ['+import * as snapshots from "tool-argument-snapshot";']);
  assert.doesNotMatch(diffBlocks().join(''), /^\+.*\bas (?!snapshots\b)\w+ from|^\+.*\{[^}]*\bas\b[^}]*\} from "tool-argument-snapshot"/m, 'no alias');
  // Every snapshots.X the patch uses is a function the package exports or a type its declarations export.
  const pkg = require('../..');
  const values = new Set(exportedNames('index.d.ts', { valuesOnly: true }));
  const types = new Set(exportedNames('index.d.ts').filter((name) => !values.has(name)));
  const used = new Set(
    [
      ...diffBlocks()
        .join('')
        .matchAll(/^\+.*$/gm),
    ].flatMap((m) => [...m[0].matchAll(/\bsnapshots\.(\w+)/g)].map((n) => n[1])),
  );
  assert.ok(used.size >= 6, [...used].join(', '));
  for (const name of used) {
    const isType = types.has(name);
    assert.ok(isType || typeof pkg[name] === 'function', `the package has ${name}`);
  }
});

/** An aioc checkout's package.json, or a reason it is not an aioc 0.2.8 checkout. */
function aiocCheckout(dir) {
  const file = path.join(dir, 'package.json');
  if (!fs.existsSync(file)) return { reason: `${dir} has no package.json` };
  const manifest = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (manifest.name !== '@axiastudio/aioc' || manifest.version !== '0.2.8') {
    return { reason: `${dir} is ${manifest.name}@${manifest.version}, not @axiastudio/aioc@0.2.8` };
  }
  if (!fs.existsSync(path.join(dir, 'node_modules', '.bin', 'eslint'))) return { reason: `${dir} has no node_modules: run npm install there` };
  return { manifest };
}

/**
 * A copy of the checkout without node_modules, dist and .git, whose node_modules links every
 * package of the checkout's except tool-argument-snapshot, which is this checkout.
 */
function copyCheckout(dir) {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-aioc-'));
  const skip = new Set(['node_modules', 'dist', '.git']);
  for (const entry of fs.readdirSync(dir)) {
    if (skip.has(entry)) continue;
    fs.cpSync(path.join(dir, entry), path.join(copy, entry), { recursive: true, verbatimSymlinks: true });
  }
  const modules = path.join(copy, 'node_modules');
  fs.mkdirSync(modules);
  for (const entry of fs.readdirSync(path.join(dir, 'node_modules'))) {
    if (entry === 'tool-argument-snapshot' || entry.startsWith('tool-argument-snapshot-') || entry === '.package-lock.json') continue;
    fs.symlinkSync(path.join(dir, 'node_modules', entry), path.join(modules, entry));
  }
  fs.symlinkSync(ROOT, path.join(modules, 'tool-argument-snapshot'), 'dir');
  return copy;
}

/** The environment without npm's script context (this test may run under `npm test`). */
function cleanEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^npm_/i.test(key)) env[key] = value;
  }
  return env;
}

test(
  "with TAS_AIOC_DIR (an aioc 0.2.8 checkout): git apply of the page's blocks, then aioc's npm run test:ci passes with all its assertions",
  { timeout: 15 * 60 * 1000 },
  (t) => {
    const dir = process.env.TAS_AIOC_DIR;
    if (!dir) {
      t.skip(
        'aioc not found: set TAS_AIOC_DIR to an aioc v0.2.8 checkout with npm install done (git clone https://github.com/axiastudio/aioc && git -C aioc checkout v0.2.8 && npm --prefix aioc install); never required, not even under TAS_REQUIRE_SERVICES=1',
      );
      return;
    }
    // A directory that is set is used as given: not an aioc 0.2.8 checkout fails the test.
    const { reason } = aiocCheckout(dir);
    assert.equal(reason, undefined, `TAS_AIOC_DIR: ${reason}`);
    const copy = copyCheckout(dir);
    t.after(() => fs.rmSync(copy, { recursive: true, force: true }));
    t.diagnostic(`aioc copy: ${copy}`);

    const patchFile = path.join(copy, 'tool-argument-snapshot.patch');
    fs.writeFileSync(patchFile, diffBlocks().join(''));
    const apply = spawnSync('git', ['apply', '--verbose', patchFile], { cwd: copy, encoding: 'utf8' });
    assert.equal(apply.status, 0, `git apply failed:\n${apply.stderr}${apply.error ? apply.error.message : ''}`);
    fs.rmSync(patchFile);

    const ci = spawnSync('npm', ['run', 'test:ci'], { cwd: copy, env: cleanEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
    const output = `${ci.stdout}\n${ci.stderr}`;
    assert.equal(ci.status, 0, `aioc's npm run test:ci failed:\n${output.slice(-4000)}`);
    for (const line of ['Unit tests passed.', 'Integration tests passed.', 'Regression tests passed.'])
      assert.ok(output.includes(line), `${line}\n${output.slice(-2000)}`);

    // The suites again, counting node:assert calls: a patch that made a suite stop early would pass above.
    const counter = path.join(copy, 'count-assertions.cjs');
    fs.writeFileSync(
      counter,
      [
        "const strict = require('node:assert/strict');",
        'let n = 0;',
        "for (const name of Object.keys(strict)) { const f = strict[name]; if (typeof f !== 'function' || /^[A-Z]/.test(name) || name === 'strict') continue; strict[name] = function (...a) { n++; return f.apply(this, a); }; }",
        "process.on('exit', () => process.stderr.write(`ASSERTIONS ${n}\\n`));",
      ].join('\n'),
    );
    for (const [suite, expected] of Object.entries(AIOC_ASSERTIONS)) {
      const run = spawnSync(process.execPath, ['-r', counter, path.join('dist', 'tests', suite, 'index.js')], { cwd: copy, encoding: 'utf8' });
      assert.equal(run.status, 0, `${suite}: ${run.stderr}`);
      const counted = /ASSERTIONS (\d+)/.exec(run.stderr);
      assert.ok(counted, run.stderr);
      assert.equal(Number(counted[1]), expected, `aioc's ${suite} suite makes ${expected} assertions`);
    }
  },
);
