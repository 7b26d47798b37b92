#!/usr/bin/env node
'use strict';
// Packs tool-argument-snapshot as users get it, from a clone. Each package is staged in a
// folder of its own with a manifest that carries only what users need: no `scripts` (so
// npm shows no install-script warning: the clone's `prepare` builds from Rust sources
// the package does not ship), no `devDependencies`, no `napi` build settings, and
// `optionalDependencies` naming the platform packages at exactly this version.
//
//   node scripts/pack.js [--out DIR] [--json]     (npm run pack:local)
//     The main package, depending on this machine's platform package only, and that
//     platform package with the binary built here (npm run build): two tarballs in DIR
//     (default: the current folder) that a project installs together, before any
//     publication: npm install ./tool-argument-snapshot-V.tgz ./tool-argument-snapshot-TRIPLE-V.tgz
//
//   node scripts/pack.js --release --stage DIR     (npm run pack:release -- DIR)
//     The main package for publication, staged in DIR (not packed), depending on every
//     platform package of npm/; `npm publish DIR` publishes it (the release workflow).
//     `npm publish` of the clone itself is refused (prepublishOnly: --refuse-publish).
//
// Nothing here runs a package's lifecycle scripts (npm pack --ignore-scripts).

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');

/** Fields of the clone's package.json that only the clone needs. */
const DEVELOPMENT_FIELDS = ['scripts', 'devDependencies', 'napi'];

class PackError extends Error {}

function readJson(file) {
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

function writeJson(file, value) {
  fs.writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** The environment without npm's script context, so a nested npm works on its own cwd. */
function npmEnv() {
  const env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (/^npm_(package_|lifecycle_|command$|config_local_prefix$)/i.test(key)) continue;
    env[key] = value;
  }
  return { ...env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
}

/** Runs npm in `cwd` and returns its standard output; the npm that runs this script, if any. */
function npm(args, cwd) {
  const execPath = process.env.npm_execpath;
  const viaNode = execPath && /npm-cli\.c?js$/.test(execPath);
  const result = viaNode
    ? spawnSync(process.execPath, [execPath, ...args], { cwd, env: npmEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    : spawnSync('npm', args, { cwd, env: npmEnv(), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, shell: process.platform === 'win32' });
  if (result.status !== 0) {
    throw new PackError(
      `npm ${args.join(' ')} failed in ${cwd} (status ${result.status}${result.error ? `, ${result.error.message}` : ''}):\n${result.stderr}`,
    );
  }
  return result.stdout;
}

/** The files `npm pack` takes from `dir` (its `files` list plus what npm always adds). */
function packedFiles(dir) {
  const [info] = JSON.parse(npm(['pack', '--dry-run', '--json', '--ignore-scripts'], dir));
  return info.files.map((f) => f.path);
}

/** The user-facing manifest: the clone's, without its development fields. */
function publishedManifest(manifest, optionalDependencies) {
  const out = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (!DEVELOPMENT_FIELDS.includes(key) && key !== 'optionalDependencies') out[key] = value;
  }
  if (Object.keys(optionalDependencies).length > 0) out.optionalDependencies = optionalDependencies;
  return out;
}

/** Copies the main package's files into `stage` and writes its published manifest there. */
function stageMain(stage, optionalDependencies) {
  const manifest = readJson(path.join(ROOT, 'package.json'));
  fs.rmSync(stage, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  for (const file of packedFiles(ROOT)) {
    if (file === 'package.json') continue;
    fs.mkdirSync(path.dirname(path.join(stage, file)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, file), path.join(stage, file));
  }
  writeJson(path.join(stage, 'package.json'), publishedManifest(manifest, optionalDependencies));
  return manifest;
}

/** npm/<triple> with the binary built in the clone, at the main package's version. */
function stagePlatform(stage, triple, version) {
  const source = path.join(ROOT, 'npm', triple);
  if (!fs.existsSync(path.join(source, 'package.json'))) {
    throw new PackError(`there is no platform package folder npm/${triple}: this platform (${triple}) has no prebuilt-binary package`);
  }
  const binary = `tool-argument-snapshot.${triple}.node`;
  if (!fs.existsSync(path.join(ROOT, binary))) {
    throw new PackError(`${binary} is not built: run \`npm run build\` first (npm run pack:local does)`);
  }
  fs.rmSync(stage, { recursive: true, force: true });
  fs.cpSync(source, stage, { recursive: true });
  fs.copyFileSync(path.join(ROOT, binary), path.join(stage, binary));
  const manifest = readJson(path.join(stage, 'package.json'));
  const out = publishedManifest({ ...manifest, version }, {});
  writeJson(path.join(stage, 'package.json'), out);
  return out;
}

/** `npm pack` of a staged folder into `destination`; returns the tarball's path. */
function packFolder(stage, destination) {
  const [info] = JSON.parse(npm(['pack', '--json', '--ignore-scripts', '--pack-destination', destination], stage));
  return { file: path.join(destination, info.filename), files: info.files.map((f) => f.path.replace(/\\/g, '/')).sort() };
}

/** The platform triple, as lib/native.js names it (read without loading the addon). */
function platformTriple() {
  const { platform, arch } = process;
  if (platform === 'linux') {
    let musl;
    try {
      musl = !process.report.getReport().header.glibcVersionRuntime;
    } catch {
      musl = fs.existsSync('/etc/alpine-release');
    }
    return `linux-${arch}-${musl ? 'musl' : 'gnu'}`;
  }
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function packLocal(out) {
  const { version } = readJson(path.join(ROOT, 'package.json'));
  const triple = platformTriple();
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-pack-'));
  try {
    const platform = stagePlatform(path.join(work, 'platform'), triple, version);
    stageMain(path.join(work, 'main'), { [platform.name]: version });
    fs.mkdirSync(out, { recursive: true });
    const main = packFolder(path.join(work, 'main'), out);
    const packed = packFolder(path.join(work, 'platform'), out);
    return {
      version,
      triple,
      main: main.file,
      mainFiles: main.files,
      platform: packed.file,
      platformFiles: packed.files,
      platformName: platform.name,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

function stageRelease(stage) {
  const { version } = readJson(path.join(ROOT, 'package.json'));
  const optionalDependencies = {};
  for (const dir of fs.readdirSync(path.join(ROOT, 'npm')).sort()) {
    const file = path.join(ROOT, 'npm', dir, 'package.json');
    if (fs.existsSync(file)) optionalDependencies[readJson(file).name] = version;
  }
  stageMain(stage, optionalDependencies);
  return { version, stage, optionalDependencies };
}

function parse(argv) {
  const options = { out: process.cwd(), json: false, release: false, stage: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--json') options.json = true;
    else if (arg === '--release') options.release = true;
    else if ((arg === '--out' || arg === '--stage') && i + 1 < argv.length) options[arg.slice(2)] = path.resolve(argv[++i]);
    else throw new PackError(`unknown argument ${JSON.stringify(arg)}; usage: node scripts/pack.js [--out DIR] [--json] | --release --stage DIR`);
  }
  if (options.release && options.stage === undefined) throw new PackError('--release needs --stage DIR');
  return options;
}

function main() {
  if (process.argv[2] === '--refuse-publish') {
    // prepublishOnly of the clone: its manifest is the developer's (scripts, devDependencies).
    throw new PackError(
      "do not publish the clone's folder: its package.json carries the development scripts and " +
        'dependencies. Stage the package and publish that: npm run pack:release -- DIR && npm publish DIR',
    );
  }
  const options = parse(process.argv.slice(2));
  if (options.release) {
    const result = stageRelease(options.stage);
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    else process.stdout.write(`staged tool-argument-snapshot ${result.version} in ${result.stage}; publish it with: npm publish ${result.stage}\n`);
    return;
  }
  const result = packLocal(options.out);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const quote = (file) => (/^[\w./:@+-]+$/.test(file) ? file : JSON.stringify(file));
  process.stdout.write(
    `packed ${path.basename(result.main)} (the package; optionalDependencies: ${result.platformName} ${result.version})\n` +
      `packed ${path.basename(result.platform)} (the ${result.triple} binary built here)\n` +
      'Install both in your project:\n' +
      `  npm install ${quote(result.main)} ${quote(result.platform)}\n`,
  );
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    if (!(error instanceof PackError)) throw error;
    process.stderr.write(`pack: error: ${error.message}\n`);
    process.exitCode = 1;
  }
}

module.exports = { publishedManifest, platformTriple, DEVELOPMENT_FIELDS };
