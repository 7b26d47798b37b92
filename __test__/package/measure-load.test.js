'use strict';
// scripts/measure-load.js, whose numbers the README's install section and docs/building.md
// give: it packs the two tarballs, sizes them, and requires the package in fresh processes.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');

test('scripts/measure-load.js sizes both tarballs and times a fresh require', () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'measure-load.js'), '--runs', '2'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const { version } = require('../../package.json');
  assert.match(run.stdout, new RegExp(`^tool-argument-snapshot-${version.replace(/\./g, '\\.')}\\.tgz: packed \\d+ B, unpacked \\d+ B in \\d+ files$`, 'm'));
  assert.match(
    run.stdout,
    new RegExp(
      `^tool-argument-snapshot-[a-z0-9]+-[a-z0-9]+(?:-[a-z]+)?-${version.replace(/\./g, '\\.')}\\.tgz: packed \\d+ B, unpacked \\d+ B in 3 files$`,
      'm',
    ),
  );
  assert.match(run.stdout, /^ {2}require time: median \d+\.\d ms \(p10-p90 [\d.]+-[\d.]+, min-max [\d.]+-[\d.]+\)$/m);
  assert.match(run.stdout, /^ {2}RSS growth: {3}median \d+\.\d MiB/m);
});

test('scripts/measure-load.js refuses an unknown argument', () => {
  const run = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'scripts', 'measure-load.js'), '--fast'], { encoding: 'utf8' });
  assert.equal(run.status, 1);
  assert.match(run.stderr, /unknown argument "--fast"/);
});
