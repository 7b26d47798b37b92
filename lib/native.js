'use strict';
// Finds the native addon: a file built in this folder by `npm install` / `npm run build`,
// or the platform package npm installed beside this one. Refuses a platform package of
// another version, and says which platform it looked for when nothing fits.

const { closeSync, existsSync, openSync, readFileSync, readSync } = require('node:fs');

// Paths are put together by hand: path.join would run the path functions that every
// require() already runs, which makes them hot sooner (see index.js).
// This file is lib/native.js: the package is the folder above.
const PACKAGE_DIR = __dirname.slice(0, __dirname.length - 3);

/** This package's version (read from its package.json when first asked: only the platform package's check and its messages need it). */
let versionRead;
function packageVersion() {
  if (versionRead === undefined) versionRead = JSON.parse(readFileSync(`${PACKAGE_DIR}package.json`, 'utf8')).version;
  return versionRead;
}

/**
 * The program interpreter (the dynamic loader) named in the ELF program headers of `file`
 * (this process's executable), or undefined when that tells nothing (not ELF, no PT_INTERP: a static
 * binary, unreadable). 4 KiB read from the file: a few microseconds.
 */
function elfInterpreter(file) {
  const head = Buffer.alloc(4096);
  let length = 0;
  let fd;
  try {
    fd = openSync(file, 'r');
    length = readSync(fd, head, 0, head.length, 0);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  // ELF magic, 64-bit (class 2), little-endian (data 1): every platform this checks is.
  if (length < 64 || head.readUInt32BE(0) !== 0x7f454c46 || head[4] !== 2 || head[5] !== 1) return undefined;
  const phoff = Number(head.readBigUInt64LE(32));
  const phentsize = head.readUInt16LE(54);
  const phnum = head.readUInt16LE(56);
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (phentsize < 56 || at + 56 > length) return undefined;
    if (head.readUInt32LE(at) !== 3) continue; // PT_INTERP
    const offset = Number(head.readBigUInt64LE(at + 8));
    const size = Number(head.readBigUInt64LE(at + 32));
    if (size < 2 || offset + size > length) return undefined;
    return head.toString('latin1', offset, offset + size - 1);
  }
  return undefined;
}

/**
 * Whether this Linux process runs on musl: the dynamic loader its executable names says
 * (musl's is ld-musl-*, glibc's ld-linux-*), read from the executable's first 4 KiB;
 * when that tells nothing, the C library mapped into the process (/proc/self/maps);
 * only when that tells nothing either, the diagnostic report (whose making costs a few
 * milliseconds of every load) or Alpine's release file.
 */
function isMusl() {
  if (process.platform !== 'linux') return false;
  const interpreter = elfInterpreter(process.execPath);
  if (interpreter !== undefined) {
    if (interpreter.includes('/ld-musl-')) return true;
    if (interpreter.includes('/ld-linux')) return false;
  }
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
      `\`npm install ${packageName}@${packageVersion()}\` (from a local pack: the ${packageName}-${packageVersion()}.tgz that ` +
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
  let installedVersion;
  try {
    installedVersion = require(`${packageName}/package.json`).version;
  } catch {
    throw new Error(noBinaryMessage(triple, local, packageName));
  }
  const version = packageVersion();
  if (installedVersion !== version) {
    throw new Error(
      `tool-argument-snapshot ${version} cannot use ${packageName} ${installedVersion}: the main package and its ` +
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

module.exports = { binding: guarded(load()), platformTriple, packageVersion, isMusl, elfInterpreter };
