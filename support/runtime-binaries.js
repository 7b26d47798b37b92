'use strict';
// Where the Bun, Deno and other Node.js binaries are.
//
// Bun and Deno: BUN_BINARY / DENO_BINARY, the npm platform package that `npm install` put
// in node_modules (through the optional dependencies of support/runtimes:
// @oven/bun-<platform>, @deno/<platform>), node_modules/.bin (after the packages'
// postinstall ran), or PATH.
//
// Node lines (findNode(major), NODE_LINES = 22, 24, 26): NODE<major>_BINARY (for example
// NODE26_BINARY), the binary `npm run fetch-node` put in .tmp/node-lines/<major>/bin/node
// (scripts/fetch-node.js: the npm registry's node-<os>-<cpu> packages, never saved to
// package.json), `node<major>` on PATH, or the Node running this file when it is that line.
//
// Each candidate must answer --version (for a Node line: with that major), so an
// unapproved postinstall (Bun's placeholder bin), a binary for another platform or
// another Node line is passed over. Every finder returns { file, source, version } or
// { file: null, tried } (the candidates that existed and failed). Used by
// __test__/conformance/runtimes.test.js, __test__/helpers/services.js and benches/runtimes.js.

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..');
const EXE = process.platform === 'win32' ? '.exe' : '';

/** The binary at `relative` in every package of node_modules/<scope> whose name starts with `prefix`. */
function platformBinaries(scope, prefix, relative) {
  const dir = path.join(ROOT, 'node_modules', scope);
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => name.startsWith(prefix))
    .map((name) => path.join(dir, name, relative));
}

function onPath(name) {
  const dirs = String(process.env.PATH || '')
    .split(path.delimiter)
    .filter(Boolean);
  const names = process.platform === 'win32' ? [`${name}.exe`, `${name}.cmd`] : [name];
  return dirs.flatMap((dir) => names.map((n) => path.join(dir, n)));
}

/**
 * The first candidate that exists and answers --version (with a first line `accept`
 * takes, when given): { file, source, version } or { file: null, tried }.
 */
function firstWorking(candidates, accept = null) {
  const tried = [];
  const seen = new Set();
  for (const [source, file] of candidates) {
    if (!file || seen.has(file) || !fs.existsSync(file)) continue;
    seen.add(file);
    const probe = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30000, env: { ...process.env, DENO_NO_UPDATE_CHECK: '1' } });
    const version = probe.status === 0 ? String(probe.stdout).trim().split('\n')[0] : null;
    if (version !== null && (accept === null || accept(version))) return { file, source, version };
    tried.push(
      version !== null ? `${file} (${source}): answered ${version}` : `${file} (${source}): exit ${probe.status}${probe.error ? `, ${probe.error.code}` : ''}`,
    );
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

/** The Node.js lines the project supports besides the one it runs on (package.json engines). */
const NODE_LINES = Object.freeze([22, 24, 26]);

/** Where `npm run fetch-node` (scripts/fetch-node.js) puts the Node lines: git-ignored. */
const NODE_LINES_DIR = path.join(ROOT, '.tmp', 'node-lines');

/** The binary of Node line `major` fetched into NODE_LINES_DIR (it may not exist). */
function fetchedNode(major) {
  return path.join(NODE_LINES_DIR, String(major), 'bin', `node${EXE}`);
}

/** The major of a `node --version` answer (v26.12.1 -> 26), or NaN. */
function nodeMajor(version) {
  const match = /^v(\d+)\./.exec(String(version));
  return match ? Number(match[1]) : NaN;
}

/** A binary of Node line `major` (an integer such as 26): { file, source, version } or { file: null, tried }. */
function findNode(major) {
  if (!Number.isSafeInteger(major) || major < 1) throw new TypeError(`findNode: a Node major version (an integer), not ${String(major)}`);
  const variable = `NODE${major}_BINARY`;
  return firstWorking(
    [
      [variable, process.env[variable]],
      ['npm run fetch-node', fetchedNode(major)],
      ...onPath(`node${major}`).map((file) => ['PATH', file]),
      ['this process', nodeMajor(process.version) === major ? process.execPath : null],
    ],
    (version) => nodeMajor(version) === major,
  );
}

/**
 * The newest available Node line at least `min`: NODE_LINES and this process's own line,
 * newest first, each looked up by findNode. { file, source, version, major } or
 * { file: null, tried }.
 */
function findNewestNode(min = 22) {
  const tried = [];
  const majors = [...new Set([...NODE_LINES, nodeMajor(process.version)])].sort((a, b) => b - a);
  for (const major of majors) {
    if (!(major >= min)) continue;
    const found = findNode(major);
    if (found.file) return { ...found, major };
    tried.push(...found.tried);
  }
  return { file: null, tried };
}

module.exports = { findBun, findDeno, findNode, findNewestNode, nodeMajor, fetchedNode, NODE_LINES, NODE_LINES_DIR };
