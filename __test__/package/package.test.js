'use strict';
// The package as users get it: the two tarballs of `npm run pack:local` (scripts/pack.js:
// the main package with a cleaned manifest whose optionalDependencies name this
// platform's package, and that platform package with the freshly built binary),
// installed into throwaway projects. Checks the published file list and manifest (no
// scripts, so no install-script warning; no devDependencies), the release staging, the
// native loader's messages (no binary in an installed package, in a source checkout, on
// a platform without a prebuilt binary; a platform package of another version), the
// installed CLI, a fresh TypeScript project following the local install of docs/building.md, and
// TypeScript consumers (CommonJS, ESM with node16 resolution, ESM with bundler
// resolution) that type-check under --strict and run a zod-validated tool call through
// prepare, authorize and execute.
// The TypeScript projects need typescript@5 and zod@3 from the registry or npm's cache
// (--prefer-offline): without both they are skipped, visibly.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const PKG = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const { platformTriple } = require('../../lib/native');

const TRIPLE = platformTriple();
const BINARY = `tool-argument-snapshot.${TRIPLE}.node`;
const PLATFORM_NAME = `tool-argument-snapshot-${TRIPLE}`;
const PLATFORM_DIR = path.join(ROOT, 'npm', TRIPLE);
const MISMATCHED_VERSION = '0.0.0-mismatch.1';
const NO_PLATFORM_PACKAGE = !fs.existsSync(path.join(PLATFORM_DIR, 'package.json'))
  ? `no npm/${TRIPLE} folder`
  : !fs.existsSync(path.join(ROOT, BINARY))
    ? `no built ${BINARY} (run npm run build)`
    : false;

/** Child processes get no npm script context (npm test sets these for /work/main). */
function childEnv(extra = {}) {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', ...extra };
}

function exec(file, args, { cwd, input, env, timeout = 120_000, shell = false } = {}) {
  const result = spawnSync(file, args, { cwd, input, env: env || childEnv(), timeout, shell, maxBuffer: 64 * 1024 * 1024 });
  return {
    status: result.status,
    signal: result.signal,
    error: result.error,
    stdout: result.stdout ? result.stdout.toString('utf8') : '',
    stderr: result.stderr ? result.stderr.toString('utf8') : '',
  };
}

/** Runs npm: the npm that runs this test when there is one, else the npm on PATH. */
function npm(args, options = {}) {
  const execPath = process.env.npm_execpath;
  if (execPath && /npm-cli\.c?js$/.test(execPath)) return exec(process.execPath, [execPath, ...args], options);
  return exec('npm', args, { ...options, shell: process.platform === 'win32' });
}

function describeRun(label, result) {
  return `${label}: status ${result.status}, signal ${result.signal}, error ${result.error}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

function mustSucceed(label, result) {
  assert.equal(result.status, 0, describeRun(label, result));
  return result;
}

function node(args, options) {
  return exec(process.execPath, args, options);
}

/** `npm pack --json` of `dir` into `destination`, without lifecycle scripts (no rebuild). */
function pack(dir, destination) {
  const result = mustSucceed(`npm pack ${dir}`, npm(['pack', '--json', '--ignore-scripts', '--pack-destination', destination], { cwd: dir }));
  const [info] = JSON.parse(result.stdout);
  return { file: path.join(destination, info.filename), files: info.files.map((f) => f.path.replace(/\\/g, '/')).sort() };
}

function writeJson(file, value) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A `file:` dependency spec of a tarball (forward slashes, also on Windows). */
function fileSpec(tarball) {
  return `file:${tarball.file.replace(/\\/g, '/')}`;
}

/** A project in `dir` depending on `deps` (name → spec), installed by npm. */
function install(dir, deps, extraArgs = []) {
  writeJson(path.join(dir, 'package.json'), { name: path.basename(dir), version: '1.0.0', private: true, dependencies: deps });
  return mustSucceed(`npm install in ${path.basename(dir)}`, npm(['install', '--no-audit', '--no-fund', ...extraArgs], { cwd: dir }));
}

/** The RFC-0016 proposal hash, by hand over the envelope: the oracle. */
function envelopeHash(agentName, toolName, argsCanonicalJson) {
  const envelope =
    `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(argsCanonicalJson)},` +
    `"kind":"tool","toolName":${JSON.stringify(toolName)}}`;
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

/** The network failures after which a registry install is skipped rather than failed. */
const OFFLINE = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|ENOTCACHED|EHOSTUNREACH)\b/;

/** The files a tarball holds (tar lists them; the package/ prefix removed). */
function tarballFiles(file) {
  const listed = mustSucceed(`tar -tzf ${file}`, exec('tar', ['-tzf', file]));
  return listed.stdout
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''))
    .sort();
}

/** The package.json inside a tarball. */
function tarballManifest(file) {
  return JSON.parse(mustSucceed(`tar -xzOf ${file}`, exec('tar', ['-xzOf', file, 'package/package.json'])).stdout);
}

let tmp;
let local; // the output of scripts/pack.js --json (npm run pack:local)
let mainTarball;
let platformTarball;
let mismatchedTarball;

before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-package-'));
  if (NO_PLATFORM_PACKAGE) {
    mainTarball = pack(ROOT, tmp);
    return;
  }
  // What `npm run pack:local` runs after its build (the binary is fresh: npm test builds).
  const out = path.join(tmp, 'local');
  local = JSON.parse(mustSucceed('node scripts/pack.js', node([path.join(ROOT, 'scripts', 'pack.js'), '--out', out, '--json'], { cwd: ROOT })).stdout);
  mainTarball = { file: local.main, files: tarballFiles(local.main) };
  platformTarball = { file: local.platform, files: tarballFiles(local.platform) };
  // A platform package of another version, staged as `napi prepublish` publishes one.
  for (const [name, version] of [['mismatched', MISMATCHED_VERSION]]) {
    const dir = path.join(tmp, `${name}-src`);
    fs.cpSync(PLATFORM_DIR, dir, { recursive: true });
    fs.copyFileSync(path.join(ROOT, BINARY), path.join(dir, BINARY));
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    writeJson(path.join(dir, 'package.json'), { ...manifest, version });
    const out = path.join(tmp, name);
    fs.mkdirSync(out);
    mismatchedTarball = pack(dir, out);
  }
});

after(() => {
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the published file list', () => {
  test('the main tarball holds exactly package.json, README.md, LICENSE, index.js, index.d.ts, every .js and .d.ts under lib/ and adapters/, and the CLI', () => {
    const lib = fs
      .readdirSync(path.join(ROOT, 'lib'), { recursive: true })
      .map((f) => f.split(path.sep).join('/'))
      .filter((f) => f.endsWith('.js') || f.endsWith('.d.ts'))
      .map((f) => `lib/${f}`);
    for (const floor of ['lib/native.js', 'lib/native.d.ts', 'lib/snapshot/index.js', 'lib/snapshot/walk.js', 'lib/run/index.js', 'lib/grants/index.js']) {
      assert.ok(lib.includes(floor), `lib/ holds ${floor}`);
    }
    const adapterDir = path.join(ROOT, 'adapters');
    const adapters = fs.existsSync(adapterDir)
      ? fs
          .readdirSync(adapterDir, { recursive: true })
          .map((f) => f.split(path.sep).join('/'))
          .filter((f) => /\.(c?js|mjs|d\.ts|d\.mts|d\.cts)$/.test(f))
          .map((f) => `adapters/${f}`)
      : [];
    // The CLI: its entry, its commands (bin/commands/) and what they share (bin/shared/).
    const bin = fs
      .readdirSync(path.join(ROOT, 'bin'), { recursive: true })
      .map((f) => f.split(path.sep).join('/'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => `bin/${f}`);
    for (const floor of ['bin/tool-argument-snapshot.js', 'bin/commands/hash.js']) assert.ok(bin.includes(floor), `bin/ holds ${floor}`);
    const expected = ['package.json', 'README.md', 'LICENSE', 'index.js', 'index.d.ts', ...bin, ...lib, ...adapters].sort();
    const missing = expected.filter((f) => !mainTarball.files.includes(f));
    const unexpected = mainTarball.files.filter((f) => !expected.includes(f));
    const absent = missing.filter((f) => !fs.existsSync(path.join(ROOT, f)));
    assert.deepEqual(
      { missing, unexpected },
      { missing: [], unexpected: [] },
      `missing from the tarball: ${missing.join(', ') || 'none'}${absent.length ? ` (not in the package folder: ${absent.join(', ')})` : ''}; ` +
        `unexpected in the tarball: ${unexpected.join(', ') || 'none'}`,
    );
  });

  test('the main tarball holds no tests, benchmarks, Rust sources, build output, binaries, examples or platform folders', () => {
    const forbidden =
      /^(__test__|benches|support|src|tests|target|examples|npm|node_modules|scripts|fuzz|\.ci|\.github|\.tmp)\/|^Cargo\.|^build\.rs$|^rustfmt\.toml$|\.node$|\.tgz$/;
    assert.deepEqual(
      mainTarball.files.filter((f) => forbidden.test(f)),
      [],
    );
  });

  test('its package.json points main, types and bin at files it holds', () => {
    assert.equal(PKG.main, 'index.js');
    assert.equal(PKG.types, 'index.d.ts');
    assert.deepEqual(PKG.bin, { 'tool-argument-snapshot': 'bin/tool-argument-snapshot.js' });
    for (const file of [PKG.main, PKG.types, ...Object.values(PKG.bin)]) {
      assert.ok(mainTarball.files.includes(file.replace(/^\.\//, '')), `${file} is in the tarball`);
    }
  });

  test(`the platform tarball holds its package.json, README.md and ${BINARY}`, { skip: NO_PLATFORM_PACKAGE }, () => {
    assert.deepEqual(platformTarball.files, [BINARY, 'README.md', 'package.json'].sort());
    assert.deepEqual(mismatchedTarball.files, platformTarball.files);
    assert.deepEqual(local.mainFiles, mainTarball.files, 'scripts/pack.js reports what the tarball holds');
    assert.deepEqual(local.platformFiles, platformTarball.files);
  });
});

describe('the lock file', () => {
  test('npm install leaves package-lock.json unchanged: it records package.json as it is (npm install --package-lock-only --offline on copies)', () => {
    const dir = path.join(tmp, 'lock');
    fs.mkdirSync(dir);
    for (const file of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
    const before = fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    mustSucceed(
      'npm install --package-lock-only',
      npm(['install', '--package-lock-only', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], { cwd: dir }),
    );
    const after = fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8');
    if (after !== before) {
      const a = before.split('\n');
      const b = after.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      assert.fail(
        `npm install rewrites package-lock.json from line ${line + 1}: ${JSON.stringify(a[line])} becomes ${JSON.stringify(b[line])}; run npm install and commit the lock file with package.json`,
      );
    }
  });
});

describe('the packed manifests carry only what users need', { skip: NO_PLATFORM_PACKAGE }, () => {
  test("the main manifest has no scripts (no install-script warning), no devDependencies, no napi settings, and otherwise the clone's fields", () => {
    const packed = tarballManifest(mainTarball.file);
    for (const field of ['scripts', 'devDependencies', 'napi']) {
      assert.ok(PKG[field] !== undefined, `the clone's package.json has ${field} (the test would prove nothing otherwise)`);
      assert.equal(Object.hasOwn(packed, field), false, `the packed manifest has no ${field}`);
    }
    const { optionalDependencies, ...rest } = packed;
    const clone = { ...PKG };
    for (const field of ['scripts', 'devDependencies', 'napi', 'optionalDependencies']) delete clone[field];
    assert.deepEqual(rest, clone, 'every other field as in the clone');
    assert.deepEqual(optionalDependencies, { [PLATFORM_NAME]: PKG.version }, 'the platform package of npm run pack:local, at exactly this version');
  });

  test("the platform manifest has the main package's version, its os/cpu constraints and no scripts", () => {
    const packed = tarballManifest(platformTarball.file);
    const folder = JSON.parse(fs.readFileSync(path.join(PLATFORM_DIR, 'package.json'), 'utf8'));
    assert.equal(packed.name, PLATFORM_NAME);
    assert.equal(packed.version, PKG.version);
    assert.equal(packed.main, BINARY);
    assert.deepEqual({ os: packed.os, cpu: packed.cpu }, { os: folder.os, cpu: folder.cpu });
    assert.equal(Object.hasOwn(packed, 'scripts'), false);
  });

  test('the release staging (npm run pack:release -- DIR) depends on every platform package of npm/ at this version', () => {
    const stage = path.join(tmp, 'release-stage');
    mustSucceed('pack:release', node([path.join(ROOT, 'scripts', 'pack.js'), '--release', '--stage', stage], { cwd: ROOT }));
    assert.equal(PKG.scripts['pack:release'], 'node scripts/pack.js --release --stage');
    const staged = JSON.parse(fs.readFileSync(path.join(stage, 'package.json'), 'utf8'));
    const folders = fs.readdirSync(path.join(ROOT, 'npm')).filter((d) => fs.existsSync(path.join(ROOT, 'npm', d, 'package.json')));
    assert.ok(folders.length >= 7, 'the seven napi-rs platform folders');
    assert.deepEqual(staged.optionalDependencies, Object.fromEntries(folders.sort().map((d) => [`tool-argument-snapshot-${d}`, PKG.version])));
    for (const field of ['scripts', 'devDependencies', 'napi']) assert.equal(Object.hasOwn(staged, field), false, field);
    const files = [];
    const walk = (dir, prefix) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(path.join(dir, entry.name), `${prefix}${entry.name}/`);
        else files.push(`${prefix}${entry.name}`);
      }
    };
    walk(stage, '');
    assert.deepEqual(files.sort(), mainTarball.files, 'the staged folder holds what the local tarball holds');
  });

  test('npm publish of the clone itself is refused, pointing at the staged package', () => {
    const result = npm(['publish', '--dry-run'], { cwd: ROOT });
    assert.notEqual(result.status, 0, describeRun('npm publish --dry-run', result));
    assert.ok(result.stderr.includes('npm run pack:release -- DIR && npm publish DIR'), describeRun('npm publish --dry-run', result));
  });
});

describe('installed from the tarballs', { skip: NO_PLATFORM_PACKAGE }, () => {
  // One shared install: the TypeScript consumers below add typescript and zod to it.
  let app;
  before(() => {
    app = path.join(tmp, 'app');
    install(app, { 'tool-argument-snapshot': fileSpec(mainTarball), [PLATFORM_NAME]: fileSpec(platformTarball) }, ['--offline']);
  });

  test('require() loads the native binary from the platform package and hashes as the oracle does', () => {
    const script = `
      const tas = require('tool-argument-snapshot');
      const p = tas.prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"b":1,"a":[1e2]}' });
      console.log(JSON.stringify({ json: p.argsCanonicalJson, hash: p.proposalHash, from: require.resolve('${PLATFORM_NAME}') }));`;
    const out = JSON.parse(mustSucceed('require', node(['-e', script], { cwd: app })).stdout);
    assert.equal(out.json, '{"a":[100],"b":1}');
    assert.equal(out.hash, envelopeHash('a', 't', '{"a":[100],"b":1}'));
    assert.equal(out.from, fs.realpathSync(path.join(app, 'node_modules', PLATFORM_NAME, BINARY)));
    assert.equal(fs.existsSync(path.join(app, 'node_modules', 'tool-argument-snapshot', BINARY)), false, 'the main package ships no binary');
  });

  test('the installed CLI hashes standard input, and npm linked it into node_modules/.bin', () => {
    const bin = path.join(app, 'node_modules', 'tool-argument-snapshot', 'bin', 'tool-argument-snapshot.js');
    const result = mustSucceed('cli', node([bin, 'hash', '--json', '--agent', 'a', '--tool', 't'], { cwd: app, input: '{"b":1,"a":[1e2]}' }));
    assert.equal(JSON.parse(result.stdout).proposalHash, envelopeHash('a', 't', '{"a":[100],"b":1}'));
    const linked = path.join(app, 'node_modules', '.bin', process.platform === 'win32' ? 'tool-argument-snapshot.cmd' : 'tool-argument-snapshot');
    assert.ok(fs.existsSync(linked), `${linked} exists`);
    if (process.platform !== 'win32') {
      // Through the shebang, as a shell runs it.
      const env = childEnv({ PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` });
      const version = mustSucceed('.bin --version', exec(linked, ['--version'], { cwd: app, env }));
      assert.equal(version.stdout, `${PKG.version}\n`);
    }
  });

  test('ESM named imports work from the CommonJS package (cjs-module-lexer sees every export)', () => {
    const script = `
      import * as ns from 'tool-argument-snapshot';
      import tas, { prepareToolCall, authorizeToolCall, canonicalize, createSnapshot, decodeView, proposalHash, decodeRequest,
        SnapshotDomainError, ToolArgumentsValidationError, ERROR_CODES, MAX_DEPTH } from 'tool-argument-snapshot';
      // Node >= 23 also exposes the whole CommonJS exports object as the named export 'module.exports'.
      const named = Object.keys(ns).filter((k) => k !== 'default' && k !== 'module.exports').sort();
      console.log(JSON.stringify({ named, all: Object.keys(tas).sort(), same: prepareToolCall === tas.prepareToolCall, depth: MAX_DEPTH }));`;
    const out = JSON.parse(mustSucceed('esm', node(['--input-type=module', '-e', script], { cwd: app })).stdout);
    assert.deepEqual(out.named, out.all, 'every CommonJS export is a named ESM export');
    assert.equal(out.same, true);
    assert.equal(out.depth, 1024);
  });

  describe('TypeScript consumers (tsc --strict, then run)', () => {
    let registry = null;
    let tsc;
    before(() => {
      const ping = npm(['ping', '--fetch-retries=0', '--fetch-timeout=8000'], { timeout: 20_000 });
      if (ping.status !== 0) {
        const code = /npm error code (\S+)/.exec(ping.stderr);
        registry = `the npm registry is unreachable (npm ping failed: ${code ? code[1] : ping.error ? ping.error.code || ping.error.message : `status ${ping.status}`})`;
        return;
      }
      mustSucceed('npm install typescript@5 zod@3', npm(['install', '--no-audit', '--no-fund', '--prefer-offline', 'typescript@5', 'zod@3'], { cwd: app }));
      tsc = path.join(app, 'node_modules', 'typescript', 'bin', 'tsc');
    });

    const AGENT = 'Consumer agent';
    const TOOL = 'write_file';
    const CANONICAL = '{"mode":493,"overwrite":false,"path":"/srv/app/a.txt"}';

    /** The program body: prepare with a zod schema, authorize (allow, then require_approval), execute. */
    const BODY = `
const schema = z.object({
  path: z.string(),
  mode: z.coerce.number().int(),
  overwrite: z.boolean().default(false),
});

async function main(): Promise<void> {
  const prepared: PreparedToolCall = prepareToolCall({
    agentName: ${JSON.stringify(AGENT)},
    toolName: ${JSON.stringify(TOOL)},
    rawArguments: '{"path":"/srv/app/a.txt","mode":"493","ignored":true}',
    schema,
  });
  let policySawHash = '';
  const allowed = await authorizeToolCall({
    prepared,
    policy: (input: ToolPolicyInput): ToolPolicyResult => {
      policySawHash = input.proposalHash;
      return { decision: 'allow', reason: 'inside the workspace' };
    },
    execute: (args: SnapshotValue) => ({ wrote: canonicalize(args) }),
  });
  if (allowed.decision !== 'allow') throw new Error('expected allow, got ' + allowed.decision);
  const executed: string = allowed.result.wrote;

  const held = await authorizeToolCall({
    prepared,
    policy: () => ({ decision: 'require_approval' as const, reason: 'needs a reviewer' }),
    execute: () => 'never',
  });
  const proposalHash: string = held.decision === 'require_approval' ? held.proposal.proposalHash : 'none';

  let rejected = '';
  try {
    prepareToolCall({ agentName: 'a', toolName: 't', rawArguments: '{"a":1,"a":2}' });
  } catch (error) {
    if (error instanceof ToolArgumentsValidationError) rejected = error.stage + '/' + error.code;
  }

  // @ts-expect-error toolName is required: the declarations are in effect, not any.
  const untyped = () => prepareToolCall({ agentName: 'a', rawArguments: '{}' });
  void untyped;

  console.log(JSON.stringify({
    argsCanonicalJson: prepared.argsCanonicalJson,
    proposalHash: prepared.proposalHash,
    policySawHash,
    executed,
    suspended: held.decision + ':' + proposalHash,
    rejected,
    maxDepth: MAX_DEPTH,
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  throw error;
});
`;

    const NAMED = `import { z } from 'zod';
import { prepareToolCall, authorizeToolCall, canonicalize, ToolArgumentsValidationError, MAX_DEPTH } from 'tool-argument-snapshot';
import type { PreparedToolCall, ToolPolicyInput, ToolPolicyResult, SnapshotValue } from 'tool-argument-snapshot';
`;
    const NAMESPACE = (importLine) => `import { z } from 'zod';
${importLine}
const { prepareToolCall, authorizeToolCall, canonicalize, ToolArgumentsValidationError, MAX_DEPTH } = tas;
type PreparedToolCall = tas.PreparedToolCall;
type ToolPolicyInput = tas.ToolPolicyInput;
type ToolPolicyResult = tas.ToolPolicyResult;
type SnapshotValue = tas.SnapshotValue;
`;

    const PROJECTS = [
      {
        name: 'commonjs (module commonjs, moduleResolution node10)',
        dir: 'cjs',
        type: undefined,
        compilerOptions: { module: 'commonjs', moduleResolution: 'node10', esModuleInterop: true },
        sources: { 'named.ts': NAMED, 'require-style.ts': NAMESPACE("import tas = require('tool-argument-snapshot');") },
        emitted: /require\(["']tool-argument-snapshot["']\)/,
      },
      {
        name: 'ESM (type module, module and moduleResolution node16)',
        dir: 'esm-node16',
        type: 'module',
        compilerOptions: { module: 'node16', moduleResolution: 'node16' },
        sources: { 'named.ts': NAMED, 'default-import.ts': NAMESPACE("import tas from 'tool-argument-snapshot';") },
        emitted: /^import .* from ["']tool-argument-snapshot["'];$/m,
      },
      {
        name: 'ESM (type module, module esnext, moduleResolution bundler)',
        dir: 'esm-bundler',
        type: 'module',
        compilerOptions: { module: 'esnext', moduleResolution: 'bundler' },
        sources: { 'named.ts': NAMED },
        emitted: /^import .* from ["']tool-argument-snapshot["'];$/m,
      },
    ];

    for (const project of PROJECTS) {
      test(project.name, (t) => {
        if (registry) {
          t.skip(registry);
          return;
        }
        const dir = path.join(app, project.dir);
        writeJson(path.join(dir, 'package.json'), { name: project.dir, private: true, ...(project.type ? { type: project.type } : {}) });
        writeJson(path.join(dir, 'tsconfig.json'), {
          compilerOptions: {
            strict: true,
            target: 'es2022',
            lib: ['es2022', 'dom'],
            types: [],
            skipLibCheck: false,
            outDir: 'dist',
            rootDir: '.',
            ...project.compilerOptions,
          },
          include: ['*.ts'],
        });
        for (const [file, header] of Object.entries(project.sources)) fs.writeFileSync(path.join(dir, file), header + BODY);

        mustSucceed(`tsc -p ${project.dir}`, node([tsc, '-p', dir], { cwd: dir }));
        for (const file of Object.keys(project.sources)) {
          const emitted = path.join(dir, 'dist', file.replace(/\.ts$/, '.js'));
          assert.match(fs.readFileSync(emitted, 'utf8'), project.emitted, `${file} compiled to the expected module form`);
          const out = JSON.parse(mustSucceed(`node ${file}`, node([emitted], { cwd: dir })).stdout);
          const hash = envelopeHash(AGENT, TOOL, CANONICAL);
          assert.deepEqual(
            out,
            {
              argsCanonicalJson: CANONICAL,
              proposalHash: hash,
              policySawHash: hash,
              executed: CANONICAL,
              suspended: `require_approval:${hash}`,
              rejected: 'json/duplicate_key',
              maxDepth: 1024,
            },
            file,
          );
        }
      });
    }
  });
});

describe("the loader's refusals, installed from tarballs", { skip: NO_PLATFORM_PACKAGE }, () => {
  test('a platform package of another version is refused, naming both versions', () => {
    const dir = path.join(tmp, 'mismatch');
    install(dir, { 'tool-argument-snapshot': fileSpec(mainTarball), [PLATFORM_NAME]: fileSpec(mismatchedTarball) }, ['--offline']);
    const result = node(['-e', "require('tool-argument-snapshot')"], { cwd: dir });
    assert.notEqual(result.status, 0, describeRun('require', result));
    assert.ok(
      result.stderr.includes(`tool-argument-snapshot ${PKG.version} cannot use ${PLATFORM_NAME} ${MISMATCHED_VERSION}`),
      describeRun('require', result),
    );
    assert.ok(result.stderr.includes(`npm install ${PLATFORM_NAME}@${PKG.version}`), 'names the command that installs the matching one');

    const bin = path.join(dir, 'node_modules', 'tool-argument-snapshot', 'bin', 'tool-argument-snapshot.js');
    const cli = node([bin, 'canonicalize'], { cwd: dir, input: '{}' });
    assert.equal(cli.status, 70, describeRun('cli', cli));
    assert.match(cli.stderr, new RegExp(`^tool-argument-snapshot: error: cannot load tool-argument-snapshot: .*${MISMATCHED_VERSION.replace(/\./g, '\\.')}`));
    assert.doesNotMatch(cli.stderr, /^\s+at /m, 'no stack trace');
  });

  test('without a platform package, the error names the platform triple and the command that installs the package (no build, no "another platform")', () => {
    const dir = path.join(tmp, 'bare');
    // The main tarball alone: its optional dependency cannot be fetched offline.
    install(dir, { 'tool-argument-snapshot': fileSpec(mainTarball) }, ['--offline']);
    assert.equal(fs.existsSync(path.join(dir, 'node_modules', PLATFORM_NAME)), false, 'no platform package installed');
    const result = node(['-e', "require('tool-argument-snapshot')"], { cwd: dir });
    assert.notEqual(result.status, 0, describeRun('require', result));
    assert.ok(result.stderr.includes(`no native binary for this platform (${TRIPLE}`), describeRun('require', result));
    assert.ok(result.stderr.includes(`npm install ${PLATFORM_NAME}@${PKG.version}`), describeRun('require', result));
    assert.ok(result.stderr.includes(`${PLATFORM_NAME}-${PKG.version}.tgz`), 'names the local tarball too');
    assert.equal(path.basename(platformTarball.file), `${PLATFORM_NAME}-${PKG.version}.tgz`, 'the tarball it names is the one pack:local makes');
    // Untrue in an installed package: it has no Rust sources, no napi, no build script.
    assert.ok(!fs.existsSync(path.join(dir, 'node_modules', 'tool-argument-snapshot', 'Cargo.toml')));
    assert.doesNotMatch(result.stderr, /npm run build|another platform|source checkout/, describeRun('require', result));

    const bin = path.join(dir, 'node_modules', 'tool-argument-snapshot', 'bin', 'tool-argument-snapshot.js');
    const cli = node([bin, 'hash', '--agent', 'a', '--tool', 't'], { cwd: dir, input: '{}' });
    assert.equal(cli.status, 70, describeRun('cli', cli));
    assert.ok(cli.stderr.includes(TRIPLE), describeRun('cli', cli));
    assert.equal(mustSucceed('--version', node([bin, '--version'], { cwd: dir })).stdout, `${PKG.version}\n`, '--version needs no binary');
  });

  test('on a platform without a prebuilt binary, the installed package says which platforms have one and how to build from a clone', () => {
    const dir = path.join(tmp, 'bare');
    // An architecture no package exists for, set before the loader reads it.
    const preload = path.join(tmp, 'riscv.js');
    fs.writeFileSync(preload, "Object.defineProperty(process, 'arch', { value: 'riscv64' });\n");
    const result = node(['-r', preload, '-e', "require('tool-argument-snapshot')"], { cwd: dir });
    assert.notEqual(result.status, 0, describeRun('require', result));
    const triple = `${process.platform === 'linux' ? 'linux-riscv64-' + TRIPLE.split('-')[2] : `${TRIPLE.split('-')[0]}-riscv64`}`;
    assert.ok(result.stderr.includes(`no native binary for this platform (${triple}`), describeRun('require', result));
    const folders = fs.readdirSync(path.join(ROOT, 'npm')).filter((d) => fs.existsSync(path.join(ROOT, 'npm', d, 'package.json')));
    for (const folder of folders) assert.ok(result.stderr.includes(folder), `names ${folder}, which has a prebuilt package`);
    assert.match(result.stderr, /clone the repository/);
    assert.doesNotMatch(result.stderr, /npm run build in the package folder/);
  });

  test('in a source checkout without a built binary, the error says to build there (npm install or npm run build)', () => {
    // A checkout as git clone leaves it: package.json, Cargo.toml, lib/, no binary, no node_modules.
    const dir = path.join(tmp, 'checkout');
    fs.mkdirSync(path.join(dir, 'lib'), { recursive: true });
    for (const file of ['package.json', 'Cargo.toml', 'lib/native.js']) fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
    const result = node(['-e', "require('./lib/native')"], { cwd: dir });
    assert.notEqual(result.status, 0, describeRun('require', result));
    assert.ok(result.stderr.includes(`no native binary for this platform (${TRIPLE}`), describeRun('require', result));
    assert.match(result.stderr, /source checkout/);
    assert.ok(result.stderr.includes('`npm run build`') && result.stderr.includes('`npm install`'), describeRun('require', result));
    assert.equal(typeof PKG.scripts.build, 'string', 'the build script it names exists');
    assert.match(PKG.scripts.prepare, /npm run build/, 'npm install builds, as it says');
  });
});

describe('a fresh TypeScript project installs the local pack as docs/building.md says', { skip: NO_PLATFORM_PACKAGE }, () => {
  test('npm install ./tool-argument-snapshot-V.tgz ./tool-argument-snapshot-TRIPLE-V.tgz typescript@5 --prefer-offline: no install-script warning, tsc --strict, run', (t) => {
    assert.equal(PKG.scripts['pack:local'], 'npm run build && node scripts/pack.js', 'npm run pack:local builds, then runs the script this test ran');
    const dir = path.join(tmp, 'newcomer');
    fs.mkdirSync(dir);
    const mainName = path.basename(mainTarball.file);
    const platformName = path.basename(platformTarball.file);
    assert.deepEqual([mainName, platformName], [`tool-argument-snapshot-${PKG.version}.tgz`, `${PLATFORM_NAME}-${PKG.version}.tgz`]);
    fs.copyFileSync(mainTarball.file, path.join(dir, mainName));
    fs.copyFileSync(platformTarball.file, path.join(dir, platformName));
    writeJson(path.join(dir, 'package.json'), { name: 'newcomer', version: '1.0.0', private: true });
    const installed = npm(['install', '--prefer-offline', '--no-audit', '--no-fund', `./${mainName}`, `./${platformName}`, 'typescript@5'], {
      cwd: dir,
      timeout: 180_000,
    });
    if (installed.status !== 0 && OFFLINE.test(installed.stderr)) {
      t.skip(`typescript@5 is neither in npm's cache nor reachable (${OFFLINE.exec(installed.stderr)[1]})`);
      return;
    }
    mustSucceed('npm install (newcomer)', installed);
    assert.doesNotMatch(installed.stdout + installed.stderr, /install.scripts?/i, 'npm warns about no install script');
    const lock = JSON.parse(fs.readFileSync(path.join(dir, 'package-lock.json'), 'utf8'));
    for (const [key, entry] of Object.entries(lock.packages)) assert.equal(entry.hasInstallScript, undefined, `${key || 'root'} has no install script`);
    assert.equal(lock.packages[`node_modules/${PLATFORM_NAME}`].version, PKG.version);
    // The frameworks of the adapters are optional peers: a project without one gets none.
    assert.deepEqual(
      Object.keys(lock.packages).sort(),
      ['', 'node_modules/tool-argument-snapshot', `node_modules/${PLATFORM_NAME}`, 'node_modules/typescript'].sort(),
      'the two packages and typescript, nothing else',
    );

    fs.writeFileSync(
      path.join(dir, 'index.ts'),
      `import { prepareToolCall, createSnapshot, ToolArgumentsValidationError } from 'tool-argument-snapshot';

const prepared = prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{ "service": "api", "replicas": 3.0 }' });
const hash: string = prepared.proposalHash;
const snapshot = createSnapshot({ agentName: 'ops', toolName: 'deploy', value: { replicas: 3, service: 'api' } });
let refused = '';
try {
  prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{"a":1,"a":2}' });
} catch (error) {
  if (error instanceof ToolArgumentsValidationError) refused = error.stage + '/' + error.code;
}
console.log(JSON.stringify({ json: prepared.argsCanonicalJson, hash, same: snapshot.proposalHash === hash, refused }));
`,
    );
    writeJson(path.join(dir, 'tsconfig.json'), {
      compilerOptions: {
        strict: true,
        target: 'es2022',
        module: 'commonjs',
        moduleResolution: 'node10',
        types: [],
        outDir: 'dist',
        rootDir: '.',
        skipLibCheck: false,
      },
      include: ['index.ts'],
    });
    mustSucceed('tsc', node([path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { cwd: dir }));
    const out = JSON.parse(mustSucceed('node dist/index.js', node([path.join(dir, 'dist', 'index.js')], { cwd: dir })).stdout);
    const json = '{"replicas":3,"service":"api"}';
    assert.deepEqual(out, { json, hash: envelopeHash('ops', 'deploy', json), same: true, refused: 'json/duplicate_key' });

    // An adapter subpath without its framework names the package to install.
    const langchain = node(['-e', "try { require('tool-argument-snapshot/langchain') } catch (e) { console.log(e.code, e.packageName) }"], { cwd: dir });
    assert.equal(mustSucceed('require tool-argument-snapshot/langchain', langchain).stdout, 'MODULE_NOT_FOUND @langchain/core\n');
  });
});

describe('the durable-engine subpaths: tool-argument-snapshot/restate, /temporal, /temporal/workflow', () => {
  const SUBPATHS = {
    './restate': { dir: 'adapters/restate', file: 'index', peer: '@restatedev/restate-sdk', factory: 'createRestateToolGate' },
    './temporal': { dir: 'adapters/temporal', file: 'index', peer: '@temporalio/activity', factory: 'createToolActivities' },
    './temporal/workflow': { dir: 'adapters/temporal', file: 'workflow', peer: 'ai', factory: 'createWorkflowToolGate' },
  };

  test('each is exported with its declarations in its own folder, both files exist, and its framework is an optional peer', () => {
    for (const [subpath, { dir, file, peer }] of Object.entries(SUBPATHS)) {
      assert.deepEqual(PKG.exports[subpath], { types: `./${dir}/${file}.d.ts`, default: `./${dir}/${file}.js` }, subpath);
      for (const f of [`${dir}/${file}.d.ts`, `${dir}/${file}.js`]) assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} exists`);
      assert.ok(PKG.peerDependencies[peer], `${peer} is a peer`);
      assert.deepEqual(PKG.peerDependenciesMeta[peer], { optional: true }, `${peer} is optional`);
      assert.equal((PKG.dependencies ?? {})[peer], undefined, `${peer} is no dependency`);
    }
    assert.ok(PKG.files.includes('adapters/'), 'shipped with adapters/');
  });

  test('their declarations accept ordinary usage and reject misuse under tsc --strict (__test__/package/types/durable)', () => {
    const tsc = require.resolve('typescript/bin/tsc');
    const result = spawnSync(process.execPath, [tsc, '-p', path.join(__dirname, 'types', 'durable', 'tsconfig.json')], { encoding: 'utf8' });
    assert.equal(result.status, 0, `tsc failed:\n${result.stdout}${result.stderr}`);
  });

  test('each loads without its framework installed, and names the package to install when used; the root loads none of them', () => {
    const script = `
      const Module = require('node:module');
      const resolve = Module._resolveFilename;
      const blocked = ['@restatedev/', '@temporalio/', 'ai'];
      Module._resolveFilename = function (request, ...rest) {
        if (blocked.some((b) => request === b || request.startsWith(b.endsWith('/') ? b : b + '/'))) {
          const error = new Error("Cannot find module '" + request + "'");
          error.code = 'MODULE_NOT_FOUND';
          throw error;
        }
        return resolve.call(this, request, ...rest);
      };
      const out = {};
      for (const [subpath, factory] of ${JSON.stringify(Object.entries(SUBPATHS).map(([s, v]) => [s, v.factory]))}) {
        const mod = require('tool-argument-snapshot' + subpath.slice(1));
        try { mod[factory]({ run() {}, awakeable() {}, request() { return { id: 'inv' }; } }, {}); out[subpath] = 'no error'; }
        catch (error) { out[subpath] = [typeof mod[factory], error.code, error.packageName, error.message.includes('npm install ' + error.packageName)]; }
      }
      out.root = Object.keys(require.cache).some((file) => /@restatedev|@temporalio/.test(file));
      console.log(JSON.stringify(out));
    `;
    const result = spawnSync(process.execPath, ['-e', script], { cwd: __dirname, encoding: 'utf8', env: childEnv() });
    assert.equal(result.status, 0, result.stderr);
    const out = JSON.parse(result.stdout);
    for (const [subpath, { peer }] of Object.entries(SUBPATHS)) {
      assert.deepEqual(out[subpath], ['function', 'MODULE_NOT_FOUND', peer, true], subpath);
    }
    assert.equal(out.root, false);
  });
});
