'use strict';
// Finds the native addon: a file built in this folder by `npm install` / `npm run build`,
// or the platform package npm installed beside this one. Refuses a platform package of
// another version, and says which platform it looked for when nothing fits.

const { existsSync, readFileSync } = require('node:fs');

// Paths are put together by hand: path.join would run the path functions that every
// require() already runs, which makes them hot sooner (see index.js).
// This file is lib/native.js: the package is the folder above.
const PACKAGE_DIR = __dirname.slice(0, __dirname.length - 3);
const { version } = JSON.parse(readFileSync(`${PACKAGE_DIR}package.json`, 'utf8'));

/**
 * Whether this Linux process runs on musl: the C library mapped into it says (musl's is
 * its dynamic loader, ld-musl-*), read from /proc/self/maps in well under a
 * millisecond; only when that tells nothing, the diagnostic report (whose making costs
 * a few milliseconds of every load) or Alpine's release file.
 */
function isMusl() {
  if (process.platform !== 'linux') return false;
  let maps = '';
  try {
    maps = readFileSync('/proc/self/maps', 'latin1');
  } catch {
    // No /proc: ask the report.
  }
  if (/\/(?:ld-musl-|libc\.musl-)[^\n/]*$/m.test(maps)) return true;
  if (/\/(?:libc\.so\.6|libc-[0-9.]+\.so)$/m.test(maps)) return false;
  try {
    return !(/** @type {{ header: { glibcVersionRuntime?: string } }} */ (process.report.getReport()).header.glibcVersionRuntime);
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

/** The platforms with a prebuilt-binary package (the folders of npm/ in the repository). */
const PREBUILT = ['linux-x64-gnu', 'linux-arm64-gnu', 'linux-x64-musl', 'linux-arm64-musl', 'darwin-x64', 'darwin-arm64', 'win32-x64-msvc'];

/**
 * Why no binary was found, and what to do, true where this copy of the package is: a
 * source checkout (it has Cargo.toml: the published package ships no Rust sources) is
 * told to build; an installed package on a platform with a prebuilt binary is told to
 * install its platform package; one on any other platform, to build from a clone.
 */
function noBinaryMessage(triple, local, packageName) {
  const head = `tool-argument-snapshot has no native binary for this platform (${triple}, Node ${process.version})`;
  if (existsSync(`${PACKAGE_DIR}Cargo.toml`)) {
    return (
      `${head}: this is a source checkout and ${local} is not built yet. Build it here: \`npm install\` ` +
      '(installs the build tools, then builds) or, after that, `npm run build`; both need a stable Rust toolchain (https://rustup.rs).'
    );
  }
  if (PREBUILT.includes(triple)) {
    return (
      `${head}: its platform package ${packageName}, which holds the binary, is not installed. npm installs it ` +
      'with tool-argument-snapshot as an optional dependency, unless optional dependencies are omitted ' +
      '(--omit=optional, --no-optional) or a lockfile made without it is reused. Install it at the same version: ' +
      `\`npm install ${packageName}@${version}\` (from a local pack: the ${packageName}-${version}.tgz that ` +
      '`npm run pack:local` wrote beside the main tarball).'
    );
  }
  return (
    `${head}: prebuilt binaries exist for ${PREBUILT.join(', ')} only. Build one from source: clone the ` +
    'repository, install a stable Rust toolchain (https://rustup.rs), run `npm install` in the clone (it builds the ' +
    'addon), then install that folder in your project (`npm install /path/to/the/clone`).'
  );
}

function load() {
  const triple = platformTriple();
  const local = `${PACKAGE_DIR}tool-argument-snapshot.${triple}.node`;
  if (existsSync(local)) return require(local);

  const packageName = `tool-argument-snapshot-${triple}`;
  let packageVersion;
  try {
    packageVersion = require(`${packageName}/package.json`).version;
  } catch {
    throw new Error(noBinaryMessage(triple, local, packageName));
  }
  if (packageVersion !== version) {
    throw new Error(
      `tool-argument-snapshot ${version} cannot use ${packageName} ${packageVersion}: the main package and its ` +
        `platform package must have the same version. Install the matching one: \`npm install ${packageName}@${version}\` ` +
        '(from a local pack: both tarballs of the same `npm run pack:local`).',
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
  const { FAILED } = native;
  let panicked = false;
  return Object.freeze({
    ...native,
    encodeTape(tape, text, bigs, agentName, toolName) {
      try {
        return native.encodeTape(tape, text, bigs, agentName, toolName);
      } catch {
        panicked = true;
        return FAILED;
      }
    },
    canonicalizeText(text, agentName, toolName, flags) {
      try {
        return native.canonicalizeText(text, agentName, toolName, flags);
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
