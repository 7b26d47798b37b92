'use strict';
// Where the Bun and Deno binaries are: BUN_BINARY / DENO_BINARY, the npm platform package
// that `npm install` put in node_modules (through the optional dependencies of
// __test__/runtimes: @oven/bun-<platform>, @deno/<platform>), node_modules/.bin (after the
// packages' postinstall ran), or PATH. Each candidate must answer --version, so an
// unapproved postinstall (Bun's placeholder bin) or a binary for another platform is
// passed over. Used by __test__/runtimes.test.js and benches/runtimes.js.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const EXE = process.platform === 'win32' ? '.exe' : '';

/** The binary at `relative` in every package of node_modules/<scope> whose name starts with `prefix`. */
function platformBinaries(scope, prefix, relative) {
  const dir = path.join(ROOT, 'node_modules', scope);
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir).filter((name) => name.startsWith(prefix)).map((name) => path.join(dir, name, relative));
}

function onPath(name) {
  const dirs = String(process.env.PATH || '').split(path.delimiter).filter(Boolean);
  const names = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`] : [name];
  return dirs.flatMap((dir) => names.map((n) => path.join(dir, n)));
}

/** The first candidate that exists and answers --version: { file, source, version } or { file: null, tried }. */
function firstWorking(candidates) {
  const tried = [];
  for (const [source, file] of candidates) {
    if (!file || !fs.existsSync(file)) continue;
    const probe = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } });
    if (probe.status === 0) return { file, source, version: probe.stdout.trim().split('\n')[0] };
    tried.push(`${file} (${source}): exit ${probe.status}${probe.error ? `, ${probe.error.code}` : ''}`);
  }
  return { file: null, tried };
}

function findBun() {
  return firstWorking([
    ['BUN_BINARY', process.env.BUN_BINARY],
    ...platformBinaries('@oven', 'bun-', path.join('bin', `bun${EXE}`)).map((file) => ['npm platform package', file]),
    ['node_modules/.bin', path.join(ROOT, 'node_modules', '.bin', 'bun')],
    ...onPath('bun').map((file) => ['PATH', file]),
  ]);
}

function findDeno() {
  return firstWorking([
    ['DENO_BINARY', process.env.DENO_BINARY],
    ...platformBinaries('@deno', '', `deno${EXE}`).map((file) => ['npm platform package', file]),
    ['node_modules/.bin', path.join(ROOT, 'node_modules', '.bin', 'deno')],
    ...onPath('deno').map((file) => ['PATH', file]),
  ]);
}

module.exports = { findBun, findDeno };
