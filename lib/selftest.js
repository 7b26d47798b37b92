'use strict';
// A check made once when the package loads: a runtime whose Node-API string handling is
// wrong (measured: Bun 1.2.0-1.2.21 fail every string read, turn keys into U+0000 or
// decode Latin-1 bytes 0x80-0x9F as Windows-1252) would otherwise hash the wrong JSON
// silently. `engines` is only advisory, so the package refuses to load instead.
//
// The expected texts are written out by hand from RFC 8785 (keys sorted by UTF-16 code
// units, characters from U+0080 up emitted as they are, ECMAScript number forms) and the
// proposal hash aioc 0.2.8 computes for `{}`; none of it is produced by the package.

const LONG = 'x'.repeat(1100);
const EXPECTED_JSON = '{"a":"\u{1F600}\u00e9","b":[1e+21,0.1,-5e-7],"l":"' + LONG + '\u0080","\u0080\u00e9\u009f":"\u0085\u00ff"}';
const EXPECTED_HASH = '486e7d858f077daf704366bd7f7742a58955c40c0e173da363ab9fa5f47f4a41';

/** Throws when `canonicalize` or `createSnapshot` give anything but the known results. */
function checkEngine(canonicalize, createSnapshot) {
  let exact;
  try {
    const value = { '\u0080\u00e9\u009f': '\u0085\u00ff', l: LONG + '\u0080', b: [1e21, 0.1, -5e-7], a: '\u{1F600}\u00e9' };
    exact =
      canonicalize(value) === EXPECTED_JSON && createSnapshot({ agentName: 'Policy unit agent', toolName: 'ping', value: {} }).proposalHash === EXPECTED_HASH;
  } catch {
    exact = false;
  }
  if (!exact) {
    const runtime = typeof process === 'object' && process !== null && process.versions ? process.versions : {};
    const name = runtime.bun ? `Bun ${runtime.bun}` : runtime.deno ? `Deno ${runtime.deno}` : `Node ${runtime.node}`;
    throw new Error(
      `tool-argument-snapshot refuses to load: its self-check gave a wrong canonical JSON or proposal hash on ${name}, ` +
        "so this runtime's Node-API would make wrong snapshots. Supported: Node 26 or later, 24, 22 and 20 from 20.17; Bun >= 1.2.22; Deno >= 2.",
    );
  }
}

module.exports = { checkEngine };
