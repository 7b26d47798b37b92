'use strict';
// The native loader's libc detection (lib/native.js): which platform package a Linux
// process needs (gnu or musl) is read from the dynamic loader its executable names, not
// from the diagnostic report (a few milliseconds of every load). Oracles no one here
// wrote: binutils' readelf for the program interpreter, and Node's own diagnostic report
// (header.glibcVersionRuntime is present exactly on glibc) for the libc, on every Node
// line this machine has.

const { test } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
const { findNode, NODE_LINES } = require('../../support/runtime-binaries');
const { elfInterpreter, isMusl } = require('../../lib/native');

const LINUX = process.platform === 'linux' ? false : 'not Linux';
const READELF = spawnSync('readelf', ['--version'], { encoding: 'utf8' }).status === 0 ? false : 'no readelf (binutils) on PATH';

/** The interpreter readelf prints for `file` ("[Requesting program interpreter: X]"), or null. */
function readelfInterpreter(file) {
  const out = spawnSync('readelf', ['-l', '-W', file], { encoding: 'utf8' }).stdout;
  const match = /\[Requesting program interpreter: ([^\]]+)\]/.exec(out);
  return match === null ? null : match[1];
}

function binaries() {
  const list = [['this Node', process.execPath]];
  for (const major of NODE_LINES) {
    const found = findNode(major);
    if (found.file) list.push([`Node ${major}`, found.file]);
  }
  return list;
}

test('the program interpreter read from the ELF header is the one readelf prints, for every Node binary here', { skip: LINUX || READELF }, () => {
  for (const [name, file] of binaries()) {
    const expected = readelfInterpreter(file);
    assert.notEqual(expected, null, `${name}: readelf names an interpreter`);
    assert.equal(elfInterpreter(file), expected, name);
  }
});

test('isMusl agrees with Node’s diagnostic report in a process of every Node line', { skip: LINUX }, () => {
  const code =
    `const { isMusl } = require(${JSON.stringify(path.join(ROOT, 'lib', 'native.js'))});` +
    'process.stdout.write(JSON.stringify({ musl: isMusl(), glibc: process.report.getReport().header.glibcVersionRuntime ?? null }))';
  for (const [name, file] of binaries()) {
    const child = spawnSync(file, ['-e', code], { encoding: 'utf8' });
    assert.equal(child.status, 0, `${name}: ${child.stderr}`);
    const { musl, glibc } = JSON.parse(child.stdout);
    assert.equal(musl, glibc === null, `${name}: isMusl() ${musl}, report's glibcVersionRuntime ${glibc}`);
  }
  assert.equal(isMusl(), !process.report.getReport().header.glibcVersionRuntime);
});

test('a file that is not a 64-bit little-endian ELF executable with an interpreter tells nothing', { skip: LINUX }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-elf-'));
  try {
    const node = fs.readFileSync(process.execPath).subarray(0, 4096);
    const write = (name, bytes) => {
      const file = path.join(dir, name);
      fs.writeFileSync(file, bytes);
      return file;
    };
    assert.equal(elfInterpreter(path.join(ROOT, 'package.json')), undefined, 'JSON text');
    assert.equal(elfInterpreter(path.join(dir, 'missing')), undefined, 'no such file');
    assert.equal(elfInterpreter(write('short', node.subarray(0, 40))), undefined, 'shorter than an ELF header');
    const class32 = Buffer.from(node);
    class32[4] = 1;
    assert.equal(elfInterpreter(write('class32', class32)), undefined, 'ELFCLASS32');
    // Every program header's type set to PT_LOAD (1): no PT_INTERP left, as in a static binary.
    const noInterp = Buffer.from(node);
    const phoff = Number(noInterp.readBigUInt64LE(32));
    const phentsize = noInterp.readUInt16LE(54);
    for (let i = 0; i < noInterp.readUInt16LE(56); i++) noInterp.writeUInt32LE(1, phoff + i * phentsize);
    assert.equal(elfInterpreter(write('static', noInterp)), undefined, 'no PT_INTERP');
    // The node binary's own first 4 KiB still name its interpreter (the control).
    assert.equal(typeof elfInterpreter(write('head', node)), 'string');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
