'use strict';
// Finds the native addon: a file built in this folder by `npm install` / `npm run build`,
// or the platform package npm installed beside this one. Refuses a platform package of
// another version, and says which platform it looked for when nothing fits.

const { existsSync, readFileSync } = require('node:fs');
const { join } = require('node:path');

const { version } = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8'));

function isMusl() {
  if (process.platform !== 'linux') return false;
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return existsSync('/etc/alpine-release');
  }
}

function platformTriple() {
  const { platform, arch } = process;
  if (platform === 'linux') return `linux-${arch}-${isMusl() ? 'musl' : 'gnu'}`;
  if (platform === 'win32') return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

function load() {
  const triple = platformTriple();
  const local = join(__dirname, '..', `tool-argument-snapshot.${triple}.node`);
  if (existsSync(local)) return require(local);

  const packageName = `tool-argument-snapshot-${triple}`;
  let packageVersion;
  try {
    packageVersion = require(`${packageName}/package.json`).version;
  } catch {
    throw new Error(
      `tool-argument-snapshot has no native binary for this platform (${triple}, Node ${process.version}). ` +
        `Neither ${local} nor the package ${packageName} was found. Supported: linux-x64-gnu, linux-arm64-gnu, ` +
        'linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64, win32-x64-msvc. On another platform, ' +
        'build from source: install Rust, then run `npm run build` in the package folder.',
    );
  }
  if (packageVersion !== version) {
    throw new Error(
      `tool-argument-snapshot ${version} cannot use ${packageName} ${packageVersion}: the main package and its ` +
        'platform package must have the same version. Reinstall so that npm picks matching versions.',
    );
  }
  return require(packageName);
}

/**
 * The addon, with its fallible calls guarded: a Rust panic (which never should happen;
 * napi-rs turns it into a thrown error instead of an abort) becomes an ordinary failure
 * with the code internal_error, like any failure the native side records itself.
 */
function guarded(native) {
  const FAILED = 0xffffffff;
  let panicked = false;
  return Object.freeze({
    ...native,
    encodeTape(ops, opsLen, nums, numsLen, lens, lensLen, text, bigs, bigsLen, flags) {
      try {
        return native.encodeTape(ops, opsLen, nums, numsLen, lens, lensLen, text, bigs, bigsLen, flags);
      } catch {
        panicked = true;
        return FAILED;
      }
    },
    checkJson(text, flags) {
      try {
        return native.checkJson(text, flags);
      } catch {
        panicked = true;
        return FAILED;
      }
    },
    canonicalizeJson(text, flags) {
      try {
        return native.canonicalizeJson(text, flags);
      } catch {
        panicked = true;
        return FAILED;
      }
    },
    hashProposal(agentName, toolName, argsCanonicalJson) {
      try {
        return native.hashProposal(agentName, toolName, argsCanonicalJson);
      } catch {
        panicked = true;
        return FAILED;
      }
    },
    lastFailureCode() {
      if (panicked) {
        panicked = false;
        return 'internal_error';
      }
      return native.lastFailureCode();
    },
  });
}

module.exports = { binding: guarded(load()), platformTriple, version };
