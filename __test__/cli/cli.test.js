'use strict';
// The command line (bin/tool-argument-snapshot.js), run as users run it: a child process
// fed through standard input or a file. Every command and exit status; hashes checked
// against the library and against node:crypto over the RFC-0016 envelope; rejected
// input never echoed to standard error; canonicalize checked against json-canonicalize.

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync, execFile } = require('node:child_process');
const { createHash, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const {
  prepareToolCall,
  authorizeToolCall,
  canonicalize: libCanonicalize,
  verifySnapshot,
  createApprovalGrants,
  SnapshotDomainError,
  MAX_DEPTH,
} = require('../..');
const { canonicalize: referenceCanonicalize } = require('json-canonicalize');

const ROOT = path.join(__dirname, '..', '..');
const BIN = path.join(ROOT, 'bin', 'tool-argument-snapshot.js');
const { version: VERSION } = require('../../package.json');
const PREFIX = 'tool-argument-snapshot: error: ';

const AGENT = 'Release assistant ✓';
const TOOL = 'deploy_service';
/** Key order by UTF-16 code units (RFC 8785 §3.2.3), number forms, escapes, non-ASCII. */
const RAW =
  '{ "region": "eu-west-1", "replicas": 3.0, "limits": {"ratio": 1E-1, "max": 1e21},' +
  ' "\\u20ac": "euro", "\\r": "cr", "\\ufb33": "dalet", "1": "one", "\\ud83d\\ude00": "smile", "\\u0080": "c1", "\\u00f6": "o" }';
const CANONICAL =
  '{"\\r":"cr","1":"one","limits":{"max":1e+21,"ratio":0.1},"region":"eu-west-1","replicas":3,' +
  '"\u0080":"c1","\u00f6":"o","\u20ac":"euro","\ud83d\ude00":"smile","\ufb33":"dalet"}';

let tmp;
before(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-cli-'));
});
after(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** Runs the CLI; `input` (string or Buffer) becomes its standard input. */
function run(args, { input = '', bin = BIN } = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { input, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
  assert.equal(result.error, undefined, `spawning ${args.join(' ')} failed: ${result.error}`);
  return { status: result.status, signal: result.signal, stdout: result.stdout.toString('utf8'), stderr: result.stderr.toString('utf8') };
}

function writeTemp(name, content) {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, content);
  return file;
}

function describeRun(label, result) {
  return `${label}: status ${result.status} (signal ${result.signal})\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
}

/** The independent oracle: SHA-256 of the RFC 8785 envelope, built by hand. */
function envelopeHash(agentName, toolName, argsCanonicalJson) {
  const envelope =
    `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(argsCanonicalJson)},` +
    `"kind":"tool","toolName":${JSON.stringify(toolName)}}`;
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

const EXPECTED_HASH = envelopeHash(AGENT, TOOL, CANONICAL);
/** What hash and verify print on standard error for CANONICAL, whose key U+0080 is a C1 control. */
const C1_WARNING =
  'tool-argument-snapshot: warning: the canonical JSON contains 1 invisible or bidirectional control ' +
  'character(s) (U+0080); a terminal may not show exactly what was hashed\n';

describe('help and version', () => {
  for (const args of [
    ['--help'],
    ['-h'],
    ['help'],
    ['hash', '--help'],
    ['verify', '-h'],
    ['help', 'verify'],
    ['verify-snapshot', '--help'],
    ['diff', '--help'],
    ['help', 'diff'],
  ]) {
    test(`${args.join(' ')} prints the usage, the commands and every exit status, and exits 0`, () => {
      const result = run(args);
      assert.equal(result.status, 0, describeRun(args.join(' '), result));
      assert.equal(result.stderr, '');
      for (const needle of [
        'Usage:',
        'hash --agent NAME --tool NAME',
        'verify --agent NAME --tool NAME --hash HEX',
        'verify-snapshot [--hash HEX]',
        'diff [--values] [--json] APPROVED PROPOSED',
        '--values',
        'canonicalize [--no-newline]',
        '--json',
        '--include-path',
        'Exit status:',
        'byte order mark',
        'never an authorization',
      ]) {
        assert.ok(result.stdout.includes(needle), `help mentions ${needle}`);
      }
      for (const status of ['0 ', '1 ', '2 ', '3 ', '70 ']) {
        assert.match(result.stdout, new RegExp(`^  ${status}`, 'm'), `help documents exit status ${status.trim()}`);
      }
    });
  }

  test('help with any other option or operand is a usage error (exit 2), never help with exit 0', () => {
    const H = 'f'.repeat(64);
    for (const args of [
      ['verify', '-h', '--agent', 'x'],
      ['verify', '--agent', 'a', '--tool', 't', '--hash', H, '--help'],
      ['verify', '--agent', 'a', '--tool', 't', '--hash', H, 'args.json', '-h'],
      ['hash', '--help', 'args.json'],
      ['--help', '--version'],
      ['help', 'verify', 'args.json'],
      ['help', '--json'],
      ['help', 'no-such-command'],
    ]) {
      const result = run(args, { input: '{}' });
      assert.equal(result.status, 2, describeRun(args.join(' '), result));
      assert.equal(result.stdout, '', `${args.join(' ')}: no help on standard output`);
      assert.ok(result.stderr.startsWith(PREFIX), describeRun(args.join(' '), result));
    }
  });

  test('--version prints the version of package.json', () => {
    const result = run(['--version']);
    assert.equal(result.status, 0, describeRun('--version', result));
    assert.equal(result.stdout, `${VERSION}\n`);
    assert.equal(result.stderr, '');
  });

  test('the file is executable and starts with a node shebang', { skip: process.platform === 'win32' && 'no executable bit on Windows' }, () => {
    assert.ok(fs.readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n'));
    assert.ok((fs.statSync(BIN).mode & 0o111) !== 0, 'bin/tool-argument-snapshot.js has an executable bit');
  });
});

describe('hash', () => {
  test('the library and node:crypto over the envelope agree on the expected hash', () => {
    const prepared = prepareToolCall({ agentName: AGENT, toolName: TOOL, rawArguments: RAW });
    assert.equal(prepared.argsCanonicalJson, CANONICAL);
    assert.equal(prepared.proposalHash, EXPECTED_HASH);
    assert.equal(referenceCanonicalize(JSON.parse(RAW)), CANONICAL, 'json-canonicalize agrees on the canonical JSON');
  });

  test('reads standard input when no FILE is given and prints two labelled lines', () => {
    const result = run(['hash', '--agent', AGENT, '--tool', TOOL], { input: RAW });
    assert.equal(result.status, 0, describeRun('hash', result));
    assert.equal(result.stdout, `canonical JSON: ${CANONICAL}\nproposal hash:  ${EXPECTED_HASH}\n`);
    assert.equal(result.stderr, C1_WARNING);
  });

  test('reads standard input for - and a file for FILE, with the same output', () => {
    const file = writeTemp('args.json', RAW);
    const fromDash = run(['hash', '--agent', AGENT, '--tool', TOOL, '-'], { input: RAW });
    const fromFile = run(['hash', '--agent', AGENT, '--tool', TOOL, file]);
    const fileFirst = run(['hash', file, '--tool', TOOL, '--agent', AGENT]);
    for (const [label, result] of [
      ['-', fromDash],
      ['FILE', fromFile],
      ['FILE before the options', fileFirst],
    ]) {
      assert.equal(result.status, 0, describeRun(label, result));
      assert.equal(result.stdout, `canonical JSON: ${CANONICAL}\nproposal hash:  ${EXPECTED_HASH}\n`, label);
    }
  });

  test('--json prints exactly one object with agentName, toolName, argsCanonicalJson and proposalHash', () => {
    const result = run(['hash', '--json', '--agent', AGENT, '--tool', TOOL], { input: RAW });
    assert.equal(result.status, 0, describeRun('hash --json', result));
    assert.ok(result.stdout.endsWith('}\n') && result.stdout.split('\n').length === 2, 'one line of JSON');
    assert.deepEqual(JSON.parse(result.stdout), {
      agentName: AGENT,
      toolName: TOOL,
      argsCanonicalJson: CANONICAL,
      proposalHash: EXPECTED_HASH,
    });
  });

  test('the hash binds the agent and the tool: other names give other hashes, each matching the oracle', () => {
    const json = (agent, tool) => JSON.parse(run(['hash', '--json', '--agent', agent, '--tool', tool], { input: '{"a":1}' }).stdout);
    const seen = new Set();
    for (const [agent, tool] of [
      ['a', 't'],
      ['b', 't'],
      ['a', 'u'],
      ['', ''],
      ['agent "quoted"\n', 'tool\\'],
    ]) {
      const out = json(agent, tool);
      assert.equal(out.argsCanonicalJson, '{"a":1}');
      assert.equal(out.proposalHash, envelopeHash(agent, tool, '{"a":1}'), `oracle for ${JSON.stringify([agent, tool])}`);
      assert.equal(out.proposalHash, prepareToolCall({ agentName: agent, toolName: tool, rawArguments: '{"a":1}' }).proposalHash);
      seen.add(out.proposalHash);
    }
    assert.equal(seen.size, 5, 'five distinct hashes');
  });

  test('empty or whitespace-only input is the empty object, as providers send it', () => {
    for (const input of ['', ' \n\t']) {
      const result = run(['hash', '--json', '--agent', 'a', '--tool', 't'], { input });
      assert.equal(result.status, 0, describeRun(JSON.stringify(input), result));
      const out = JSON.parse(result.stdout);
      assert.equal(out.argsCanonicalJson, '{}');
      assert.equal(out.proposalHash, envelopeHash('a', 't', '{}'));
    }
  });

  test('the invisible-character warning goes by Unicode property: U+206A-206F, U+FFF9-FFFB, U+1D173-1D17A, variation selectors, U+034F, U+180B-180F', () => {
    // The code points the security review listed (issue 9, item 10), plus the ones the
    // warning always named: each must be named; groups of 8, which the warning lists in full.
    const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
    const codePoints = [
      ...range(0x206a, 0x206f),
      ...range(0xfff9, 0xfffb),
      ...range(0x1d173, 0x1d17a),
      ...range(0xfe00, 0xfe0f),
      0xe0100,
      0xe01ef,
      0x034f,
      ...range(0x180b, 0x180f),
      0x007f,
      0x0085,
      0x009f,
      0x00ad,
      0x061c,
      0x115f,
      0x1160,
      0x200b,
      0x200e,
      0x202e,
      0x2028,
      0x2029,
      0x2060,
      0x2066,
      0x2069,
      0x3164,
      0xfeff,
      0xffa0,
      0xe0001,
      0xe0041,
      0xe007f,
    ];
    const label = (cp) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    for (let i = 0; i < codePoints.length; i += 8) {
      const group = codePoints.slice(i, i + 8);
      const input = JSON.stringify({ note: group.map((cp) => `x${String.fromCodePoint(cp)}`).join('') });
      const result = run(['hash', '--agent', 'a', '--tool', 't'], { input });
      assert.equal(result.status, 0, describeRun(group.map(label).join(' '), result));
      assert.equal(
        result.stderr,
        `tool-argument-snapshot: warning: the canonical JSON contains ${group.length} invisible or bidirectional control ` +
          `character(s) (${group.map(label).join(', ')}); a terminal may not show exactly what was hashed\n`,
      );
    }
  });

  test('visible text, from many scripts, prints no warning', () => {
    const input = JSON.stringify({ text: 'Zürich Ελλάδα Київ עברית العربية हिन्दी 日本語 한국어 e\u0301 😀 ½ € ✓ \u00a0 tab\t' });
    const result = run(['hash', '--agent', 'a', '--tool', 't'], { input });
    assert.equal(result.status, 0, describeRun('visible', result));
    assert.equal(result.stderr, '');
  });

  test('invisible or bidirectional control characters in the canonical JSON print a warning, not an error', () => {
    const input = '{"path":"/srv/app/\\u202Etxt.exe","note":"a\\u200Bb"}';
    const result = run(['hash', '--agent', 'a', '--tool', 't'], { input });
    assert.equal(result.status, 0, describeRun('bidi', result));
    assert.match(result.stderr, /^tool-argument-snapshot: warning: .* 2 invisible .*\(U\+200B, U\+202E\)/);
    assert.ok(result.stdout.startsWith('canonical JSON: {"note":"a\u200Bb","path":"/srv/app/\u202Etxt.exe"}\n'));
    const quiet = run(['hash', '--json', '--agent', 'a', '--tool', 't'], { input });
    assert.equal(quiet.stderr, '', '--json output is for scripts: no warning');
  });
});

describe('verify', () => {
  const base = ['verify', '--agent', AGENT, '--tool', TOOL];

  test('exits 0 and prints "match" and the hash when the hash matches, in any case', () => {
    for (const hash of [EXPECTED_HASH, EXPECTED_HASH.toUpperCase()]) {
      const result = run([...base, '--hash', hash], { input: RAW });
      assert.equal(result.status, 0, describeRun('verify', result));
      assert.equal(result.stdout, `match\nproposal hash:  ${EXPECTED_HASH}\n`);
      assert.equal(result.stderr, C1_WARNING);
    }
  });

  test('a different spelling of the same arguments matches', () => {
    const respelled = JSON.stringify(JSON.parse(RAW), null, 2);
    const result = run([...base, '--hash', EXPECTED_HASH, writeTemp('respelled.json', respelled)]);
    assert.equal(result.status, 0, describeRun('respelled', result));
  });

  test('exits 1 on a mismatch and prints the expected hash, the actual hash and the canonical JSON', () => {
    const other = '{"region":"eu-west-1","replicas":30}';
    const actual = envelopeHash(AGENT, TOOL, '{"region":"eu-west-1","replicas":30}');
    const result = run([...base, '--hash', EXPECTED_HASH.toUpperCase()], { input: other });
    assert.equal(result.status, 1, describeRun('mismatch', result));
    assert.equal(
      result.stdout,
      `mismatch\nexpected hash:  ${EXPECTED_HASH}\nactual hash:    ${actual}\ncanonical JSON: {"region":"eu-west-1","replicas":30}\n`,
    );
    assert.equal(result.stderr, '');
  });

  test('the same arguments under another agent or tool do not match', () => {
    for (const names of [
      ['--agent', 'Other agent', '--tool', TOOL],
      ['--agent', AGENT, '--tool', 'other_tool'],
    ]) {
      const result = run(['verify', ...names, '--hash', EXPECTED_HASH], { input: RAW });
      assert.equal(result.status, 1, describeRun(names.join(' '), result));
      assert.ok(result.stdout.startsWith('mismatch\n'));
    }
  });

  test('--json prints match, both hashes and the canonical JSON, with exit 0 or 1', () => {
    const ok = run([...base, '--json', '--hash', EXPECTED_HASH.toUpperCase()], { input: RAW });
    assert.equal(ok.status, 0, describeRun('verify --json', ok));
    assert.deepEqual(JSON.parse(ok.stdout), {
      match: true,
      agentName: AGENT,
      toolName: TOOL,
      argsCanonicalJson: CANONICAL,
      proposalHash: EXPECTED_HASH,
      expectedHash: EXPECTED_HASH,
    });
    const wrong = 'f'.repeat(64);
    const bad = run([...base, '--json', '--hash', wrong], { input: RAW });
    assert.equal(bad.status, 1, describeRun('verify --json mismatch', bad));
    assert.deepEqual(JSON.parse(bad.stdout), {
      match: false,
      agentName: AGENT,
      toolName: TOOL,
      argsCanonicalJson: CANONICAL,
      proposalHash: EXPECTED_HASH,
      expectedHash: wrong,
    });
  });

  test('rejected input exits 3, not 1', () => {
    const result = run([...base, '--hash', EXPECTED_HASH], { input: '{"a":1,"a":1}' });
    assert.equal(result.status, 3, describeRun('verify rejected', result));
    assert.equal(result.stdout, '');
  });

  test('an option value is never a flag: verify --agent ops --tool -h --hash <wrong> args.json compares and exits 1', () => {
    const file = writeTemp('verify-args.json', '{"replicas":3}');
    const wrong = 'e'.repeat(64);
    const result = run(['verify', '--agent', 'ops', '--tool', '-h', '--hash', wrong, file]);
    assert.equal(result.status, 1, describeRun('--tool -h', result));
    assert.equal(
      result.stdout,
      `mismatch\nexpected hash:  ${wrong}\nactual hash:    ${envelopeHash('ops', '-h', '{"replicas":3}')}\ncanonical JSON: {"replicas":3}\n`,
    );
    assert.doesNotMatch(result.stdout + result.stderr, /Usage:/);
    // The value really is the tool name: its own hash matches.
    const right = run(['verify', '--agent', 'ops', '--tool', '-h', '--hash', envelopeHash('ops', '-h', '{"replicas":3}'), file]);
    assert.equal(right.status, 0, describeRun('--tool -h, right hash', right));
    assert.equal(right.stdout, `match\nproposal hash:  ${envelopeHash('ops', '-h', '{"replicas":3}')}\n`);
  });

  test('verify exits 0 only after comparing: flag-like values in every option slot never print help or exit 0 on a wrong hash', () => {
    const file = writeTemp('verify-slots.json', '{"a":1}');
    const wrong = 'd'.repeat(64);
    for (const token of ['-h', '--help', '--version', 'help', '--', '-', '--json', '--hash']) {
      for (const slot of ['agent', 'tool']) {
        for (const inline of [false, true]) {
          const values = { agent: 'ops', tool: 'deploy', [slot]: token };
          const args = ['verify'];
          for (const name of ['agent', 'tool']) args.push(...(inline && name === slot ? [`--${name}=${values[name]}`] : [`--${name}`, values[name]]));
          args.push('--hash', wrong, file);
          const label = args.join(' ');
          const result = run(args);
          assert.equal(result.status, 1, describeRun(label, result));
          assert.equal(result.stdout.split('\n')[0], 'mismatch', label);
          assert.ok(result.stdout.includes(`actual hash:    ${envelopeHash(values.agent, values.tool, '{"a":1}')}\n`), describeRun(label, result));
        }
      }
      // As the value of --hash, a flag-like token is a malformed hash: a usage error.
      const result = run(['verify', '--agent', 'ops', '--tool', 'deploy', '--hash', token, file]);
      assert.equal(result.status, 2, describeRun(`--hash ${token}`, result));
      assert.equal(result.stdout, '');
    }
  });

  test('after --, -h is the input file, not a help request', () => {
    const result = run(['verify', '--agent', 'ops', '--tool', 'deploy', '--hash', 'd'.repeat(64), '--', '-h']);
    assert.equal(result.status, 3, describeRun('-- -h', result));
    assert.ok(result.stderr.endsWith('(stage input, code ENOENT)\n'), describeRun('-- -h', result));
  });
});

describe('verify-snapshot', () => {
  // A stored approval as a run loop stores it: the SuspendedToolProposal of a
  // require_approval decision, as JSON. The schema adds a default and the model wrote 3.0,
  // so the approved snapshot is not the hash of the raw arguments.
  const RAW_CALL = '{"replicas":3.0,"service":"api"}';
  const SNAPSHOT_JSON = '{"region":"eu-west-1","replicas":3,"service":"api"}';
  const APPROVED = envelopeHash('ops', 'deploy', SNAPSHOT_JSON);
  let proposal;
  before(async () => {
    const { z } = require('zod');
    const schema = z.object({ service: z.string(), replicas: z.number(), region: z.string().default('eu-west-1') });
    const prepared = prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: RAW_CALL, schema });
    const outcome = await authorizeToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'needs review' }), execute: () => 'never' });
    assert.equal(outcome.decision, 'require_approval');
    proposal = JSON.parse(JSON.stringify(outcome.proposal));
  });
  const stored = (record, name = 'proposal.json') => writeTemp(name, typeof record === 'string' ? record : JSON.stringify(record, null, 2));

  test('a stored SuspendedToolProposal verifies: exit 0, "verified", its names, canonical JSON and hash (the oracle\'s)', () => {
    assert.equal(proposal.argsCanonicalJson, referenceCanonicalize({ service: 'api', replicas: 3, region: 'eu-west-1' }));
    assert.equal(proposal.proposalHash, APPROVED);
    const result = run(['verify-snapshot', stored(proposal)]);
    assert.equal(result.status, 0, describeRun('verify-snapshot', result));
    assert.equal(result.stdout, `verified\nagent name:     "ops"\ntool name:      "deploy"\ncanonical JSON: ${SNAPSHOT_JSON}\nproposal hash:  ${APPROVED}\n`);
    assert.equal(result.stderr, '');
    const fromStdin = run(['verify-snapshot'], { input: JSON.stringify(proposal) });
    assert.equal(fromStdin.stdout, result.stdout, 'standard input works the same');
  });

  test('verify checks raw arguments, verify-snapshot the stored approval: the same approval is a mismatch for verify', () => {
    const raw = run(['verify', '--agent', 'ops', '--tool', 'deploy', '--hash', APPROVED], { input: RAW_CALL });
    assert.equal(raw.status, 1, describeRun('verify raw', raw));
    assert.ok(raw.stdout.includes(`actual hash:    ${envelopeHash('ops', 'deploy', '{"replicas":3,"service":"api"}')}\n`));
    const ok = run(['verify-snapshot', '--hash', APPROVED.toUpperCase(), stored(proposal)]);
    assert.equal(ok.status, 0, describeRun('verify-snapshot --hash', ok));
    assert.ok(ok.stdout.startsWith('verified\n'));
  });

  test('--hash: another approved hash is a mismatch, exit 1, with both hashes', () => {
    const other = envelopeHash('ops', 'deploy', '{"region":"eu-west-1","replicas":30,"service":"api"}');
    const result = run(['verify-snapshot', '--hash', other, stored(proposal)]);
    assert.equal(result.status, 1, describeRun('mismatch', result));
    assert.equal(
      result.stdout,
      `mismatch\nagent name:     "ops"\ntool name:      "deploy"\ncanonical JSON: ${SNAPSHOT_JSON}\nexpected hash:  ${other}\nactual hash:    ${APPROVED}\n`,
    );
  });

  test('--json prints verified, the fields, and with --hash match and expectedHash', () => {
    const plain = run(['verify-snapshot', '--json', stored(proposal)]);
    assert.equal(plain.status, 0, describeRun('--json', plain));
    assert.deepEqual(JSON.parse(plain.stdout), {
      verified: true,
      agentName: 'ops',
      toolName: 'deploy',
      argsCanonicalJson: SNAPSHOT_JSON,
      proposalHash: APPROVED,
    });
    const wrong = 'a'.repeat(64);
    const bad = run(['verify-snapshot', '--json', '--hash', wrong, stored(proposal)]);
    assert.equal(bad.status, 1, describeRun('--json --hash', bad));
    assert.deepEqual(JSON.parse(bad.stdout), {
      verified: true,
      agentName: 'ops',
      toolName: 'deploy',
      argsCanonicalJson: SNAPSHOT_JSON,
      proposalHash: APPROVED,
      match: false,
      expectedHash: wrong,
    });
  });

  test('an edited record does not verify: exit 1 with hash_mismatch or not_canonical, never "verified"', () => {
    for (const [label, edit, code] of [
      ['another value, still canonical', { argsCanonicalJson: '{"region":"eu-west-1","replicas":30,"service":"api"}' }, 'hash_mismatch'],
      ['another agent', { agentName: 'ops2' }, 'hash_mismatch'],
      ['another tool', { toolName: 'destroy' }, 'hash_mismatch'],
      ['another hash', { proposalHash: 'b'.repeat(64) }, 'hash_mismatch'],
      ['the same value respelled', { argsCanonicalJson: '{"service":"api","replicas":3.0,"region":"eu-west-1"}' }, 'not_canonical'],
    ]) {
      const result = run(['verify-snapshot', stored({ ...proposal, ...edit }, 'edited.json')]);
      assert.equal(result.status, 1, describeRun(label, result));
      assert.equal(result.stdout, '', label);
      assert.ok(result.stderr.startsWith(PREFIX) && result.stderr.endsWith(`(stage snapshot, code ${code})\n`), describeRun(label, result));
      const json = run(['verify-snapshot', '--json', stored({ ...proposal, ...edit }, 'edited.json')]);
      assert.equal(json.status, 1, describeRun(`${label} --json`, json));
      assert.equal(JSON.parse(json.stdout).error.code, code, label);
    }
  });

  test('a file that is no stored snapshot exits 3: not JSON, a duplicate key, a missing field', () => {
    const { proposalHash: _omitted, ...noHash } = proposal;
    for (const [label, content, stage, code] of [
      ['not JSON', '{"agentName":', 'json', 'invalid_json'],
      ['empty', '', 'json', 'invalid_json'],
      [
        'a duplicate proposalHash',
        `{"agentName":"ops","toolName":"deploy","argsCanonicalJson":${JSON.stringify(SNAPSHOT_JSON)},"proposalHash":"${APPROVED}","proposalHash":"${'c'.repeat(64)}"}`,
        'json',
        'duplicate_key',
      ],
      ['no proposalHash', JSON.stringify(noHash), 'snapshot', 'not_a_snapshot'],
      ['an array', '[]', 'snapshot', 'not_a_snapshot'],
    ]) {
      const result = run(['verify-snapshot', stored(content, 'broken.json')]);
      assert.equal(result.status, 3, describeRun(label, result));
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.endsWith(`(stage ${stage}, code ${code})\n`), describeRun(label, result));
    }
  });

  test('names from the file are printed as JSON strings with control, bidi and invisible characters escaped; the JSON gets the warning', () => {
    const { createSnapshot } = require('../..');
    const agentName = 'ops\n\u202eevil\u2028x\u0085';
    const toolName = 'deploy\u200b\u2066';
    const snapshot = createSnapshot({ agentName, toolName, value: { note: 'a\u202eb' } });
    const result = run(['verify-snapshot', stored({ ...snapshot }, 'names.json')]);
    assert.equal(result.status, 0, describeRun('names', result));
    const lines = result.stdout.split('\n');
    assert.equal(lines[1], 'agent name:     "ops\\n\\u202eevil\\u2028x\\u0085"');
    assert.equal(lines[2], 'tool name:      "deploy\\u200b\\u2066"');
    assert.equal(lines.length, 6, 'no name breaks a line');
    assert.match(result.stderr, /warning: .* 1 invisible .*\(U\+202E\)/);
  });

  test('verify-snapshot takes no --agent or --tool (the hash binds them) and one input', () => {
    for (const args of [
      ['verify-snapshot', '--agent', 'a', 'x.json'],
      ['verify-snapshot', '--tool', 't'],
      ['verify-snapshot', 'a.json', 'b.json'],
      ['verify-snapshot', '--no-newline'],
    ]) {
      const result = run(args);
      assert.equal(result.status, 2, describeRun(args.join(' '), result));
    }
  });
});

/** Runs the CLI without blocking, so that many runs overlap. */
function runAsync(args, { input = '' } = {}) {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [BIN, ...args], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({
        status: error ? (typeof error.code === 'number' ? error.code : null) : 0,
        signal: error ? error.signal : null,
        stdout: stdout.toString('utf8'),
        stderr: stderr.toString('utf8'),
      });
    });
    child.stdin.end(input);
  });
}

/** At most `limit` CLI runs at once. */
async function inBatches(jobs, limit = 4) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]();
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/** A stored SuspendedToolProposal, as a run loop stores it (JSON of the frozen proposal). */
async function storedProposal(rawArguments, agentName = 'ops', toolName = 'deploy') {
  const prepared = prepareToolCall({ agentName, toolName, rawArguments });
  const outcome = await authorizeToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'needs review' }), execute: () => 'never' });
  assert.equal(outcome.decision, 'require_approval');
  return JSON.stringify(outcome.proposal);
}

describe('verify-snapshot accepts exactly what verifySnapshot accepts', () => {
  /** What verifySnapshot makes of the record a file holds (JSON.parse of its text), in the CLI's exit terms. */
  function libraryOutcome(text) {
    let parsed;
    try {
      parsed = JSON.parse(text);
    } catch {
      return { status: 3, code: 'invalid_json' };
    }
    try {
      const { agentName, toolName, argsCanonicalJson, proposalHash } = verifySnapshot(parsed);
      return { status: 0, fields: { agentName, toolName, argsCanonicalJson, proposalHash } };
    } catch (error) {
      assert.ok(error instanceof SnapshotDomainError, `verifySnapshot threw ${error}`);
      return { status: error.code === 'not_a_snapshot' ? 3 : 1, code: error.code };
    }
  }

  function cliOutcome(result) {
    if (result.status === 0) {
      const { verified, ...fields } = JSON.parse(result.stdout);
      assert.equal(verified, true);
      return { status: 0, fields };
    }
    const code = /\(stage [a-z]+, code ([a-z_]+)\)\n$/.exec(result.stderr);
    return { status: result.status, code: code && code[1] };
  }

  const deep = (n) => `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;

  test('a stored proposal whose arguments nest 1024 levels (parsedArguments 1025 in the file) verifies as verifySnapshot verifies it', async () => {
    const text = await storedProposal(deep(MAX_DEPTH));
    const expected = libraryOutcome(text);
    assert.equal(expected.status, 0, 'verifySnapshot accepts the record');
    const file = writeTemp('deep-proposal.json', text);
    const result = run(['verify-snapshot', '--json', file]);
    assert.equal(result.status, 0, describeRun('deep proposal', result));
    assert.deepEqual(cliOutcome(result), expected);
    const plain = run(['verify-snapshot', file]);
    assert.equal(plain.status, 0, describeRun('deep proposal, text output', plain));
    assert.ok(plain.stdout.startsWith('verified\n'));
    // grant() accepts it too: the three checks of a stored approval agree.
    await createApprovalGrants().grant(JSON.parse(text));
  });

  test('a matrix of records: the CLI and verifySnapshot(JSON.parse(text)) agree on every one (exit status, code, fields)', async () => {
    const proposal = JSON.parse(await storedProposal('{"service":"api","replicas":3}'));
    const fields = (record) =>
      `"agentName":${JSON.stringify(record.agentName)},"toolName":${JSON.stringify(record.toolName)},` +
      `"argsCanonicalJson":${JSON.stringify(record.argsCanonicalJson)},"proposalHash":${JSON.stringify(record.proposalHash)}`;
    const deepJson = deep(MAX_DEPTH + 1);
    const CASES = [
      ['the stored proposal', JSON.stringify(proposal)],
      ['the stored proposal, pretty-printed', JSON.stringify(proposal, null, 2)],
      ['a snapshot record with no other field', `{${fields(proposal)}}`],
      ['an ignored field 100,000 levels deep', `{"extra":${'['.repeat(1e5)}${']'.repeat(1e5)},${fields(proposal)}}`],
      [
        'ignored fields holding -0, 1e400, an escaped lone surrogate and duplicate names',
        `{"x":-0,"y":1e400,"z":"\\ud800","w":{"d":1,"d":2},${fields(proposal)}}`,
      ],
      ['an ignored top-level field given twice', `{"reason":"a",${fields(proposal)},"reason":"b"}`],
      ['a checked field name nested in an ignored field, twice', `{"meta":{"agentName":"x","agentName":"y"},${fields(proposal)}}`],
      [
        'field names spelled with escapes',
        `{"\\u0061gentName":${JSON.stringify(proposal.agentName)},"toolName":"deploy","argsCanonicalJson":${JSON.stringify(proposal.argsCanonicalJson)},"proposalHash":"${proposal.proposalHash}"}`,
      ],
      ['a differently cased field is another field', `{"AgentName":"x",${fields(proposal)}}`],
      ['the fields under an own __proto__ member only', `{"__proto__":{${fields(proposal)}}}`],
      ['a field that is a number', `{${fields({ ...proposal, proposalHash: 'X' }).replace('"proposalHash":"X"', '"proposalHash":1')}}`],
      ['an agent name with an escaped lone surrogate', `{${fields({ ...proposal, agentName: 'X' }).replace('"agentName":"X"', '"agentName":"ops\\udc00"')}}`],
      ['a missing field', JSON.stringify({ agentName: proposal.agentName, toolName: proposal.toolName, argsCanonicalJson: proposal.argsCanonicalJson })],
      [
        'argsCanonicalJson with an escaped lone surrogate',
        `{${fields({ ...proposal, argsCanonicalJson: 'X' }).replace('"argsCanonicalJson":"X"', '"argsCanonicalJson":"\\"\\ud800\\""')}}`,
      ],
      ['argsCanonicalJson not canonical', `{${fields({ ...proposal, argsCanonicalJson: '{"service":"api","replicas":3}' })}}`],
      ['argsCanonicalJson with duplicate names', `{${fields({ ...proposal, argsCanonicalJson: '{"a":1,"a":1}' })}}`],
      ['argsCanonicalJson nested past MAX_DEPTH', `{${fields({ ...proposal, argsCanonicalJson: deepJson })}}`],
      ['argsCanonicalJson that is not JSON', `{${fields({ ...proposal, argsCanonicalJson: '{"a":' })}}`],
      ['another value under the same hash', `{${fields({ ...proposal, argsCanonicalJson: '{"replicas":30,"service":"api"}' })}}`],
      ['another agent under the same hash', `{${fields({ ...proposal, agentName: 'ops2' })}}`],
      ['the hash in upper case', `{${fields({ ...proposal, proposalHash: proposal.proposalHash.toUpperCase() })}}`],
      ['a top-level array', `[${JSON.stringify(proposal)}]`],
      ['a top-level string', JSON.stringify(JSON.stringify(proposal))],
      ['null', 'null'],
      ['not JSON', '{"agentName":'],
      ['trailing text', `${JSON.stringify(proposal)} x`],
      ['empty', ''],
      ['a single quote', "{'agentName':'ops'}"],
    ];
    const results = await inBatches(
      CASES.map(
        ([label, text]) =>
          () =>
            runAsync(['verify-snapshot', '--json', writeTemp(`matrix-${label.replace(/\W+/g, '-')}.json`, text)]),
      ),
    );
    const disagreements = [];
    CASES.forEach(([label, text], i) => {
      const expected = libraryOutcome(text);
      const actual = cliOutcome(results[i]);
      try {
        assert.deepEqual(actual, expected);
      } catch {
        disagreements.push(`${label}: verifySnapshot ${JSON.stringify(expected)}, CLI ${JSON.stringify(actual)} (${results[i].stderr.trim()})`);
      }
    });
    assert.deepEqual(disagreements, []);
    // The matrix holds every outcome: accepted, a record that does not check, no record.
    const statuses = new Set(CASES.map(([, text]) => libraryOutcome(text).status));
    assert.deepEqual([...statuses].sort(), [0, 1, 3]);
  });

  test('where the CLI is deliberately stricter: a checked field given twice (also escape-equal) and bytes that are not UTF-8', async () => {
    const proposal = JSON.parse(await storedProposal('{"a":1}'));
    const text = JSON.stringify(proposal);
    for (const [label, content, code] of [
      ['agentName twice', text.replace('{', `{"agentName":"other",`), 'duplicate_key'],
      ['argsCanonicalJson twice, once escaped', text.replace('{', '{"\\u0061rgsCanonicalJson":"{}",'), 'duplicate_key'],
      ['a UTF-8 byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'invalid_json'],
      ['an invalid byte in an ignored field', Buffer.concat([Buffer.from('{"x":"'), Buffer.from([0xff]), Buffer.from(`",${text.slice(1)}`)]), 'invalid_json'],
    ]) {
      const result = run(['verify-snapshot', writeTemp('stricter.json', content)]);
      assert.equal(result.status, 3, describeRun(label, result));
      assert.ok(result.stderr.endsWith(`(stage json, code ${code})\n`), describeRun(label, result));
    }
    const withPath = run(['verify-snapshot', '--include-path', writeTemp('stricter.json', text.replace('{', '{"toolName":"x",'))]);
    assert.ok(withPath.stderr.endsWith('(stage json, code duplicate_key, path "/toolName")\n'), describeRun('--include-path', withPath));
  });
});

describe('diff', () => {
  const secret = `SECRET-${randomBytes(6).toString('hex')}`;
  let approvedFile;
  let proposedFile;
  let approved;
  let proposed;
  before(async () => {
    approved = await storedProposal('{"service":"api","replicas":3,"tags":["a","b"],"note":"same"}');
    proposed = await storedProposal(`{"service":"api","replicas":30,"tags":["a"],"region":"${secret}","note":"same"}`);
    approvedFile = writeTemp('diff-approved.json', approved);
    proposedFile = writeTemp('diff-proposed.json', proposed);
  });
  const hashOf = (text) => JSON.parse(text).proposalHash;

  test('equal arguments: exit 0, "equal", the names and the hash', () => {
    const respelled = writeTemp('diff-same.json', JSON.stringify(JSON.parse(approved), null, 2));
    const result = run(['diff', approvedFile, respelled]);
    assert.equal(result.status, 0, describeRun('equal', result));
    assert.equal(result.stdout, `equal\nagent name:     "ops"\ntool name:      "deploy"\nproposal hash:  ${hashOf(approved)}\n`);
    assert.equal(result.stderr, '');
  });

  test('different arguments: exit 1, one line per path in canonical order, no value without --values', () => {
    const result = run(['diff', approvedFile, proposedFile]);
    assert.equal(result.status, 1, describeRun('different', result));
    assert.equal(
      result.stdout,
      'different: 3 paths\nagent name:     "ops"\ntool name:      "deploy"\n' +
        `approved hash:  ${hashOf(approved)}\nproposed hash:  ${hashOf(proposed)}\n` +
        'added   "/region"\nchanged "/replicas"\nremoved "/tags/1"\n',
    );
    assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), 'no value without --values');
  });

  test('--values prints the canonical JSON of each side', () => {
    const result = run(['diff', '--values', approvedFile, proposedFile]);
    assert.equal(result.status, 1, describeRun('--values', result));
    assert.ok(result.stdout.endsWith(`added   "/region": "${secret}"\nchanged "/replicas": 3 -> 30\nremoved "/tags/1": "b"\n`), result.stdout);
  });

  test("--json prints one object whose changes are diffSnapshots' entries (values only with --values)", () => {
    const { diffSnapshots } = require('../../lib/diff');
    for (const values of [false, true]) {
      const result = run(['diff', '--json', ...(values ? ['--values'] : []), approvedFile, proposedFile]);
      assert.equal(result.status, 1, describeRun('--json', result));
      const out = JSON.parse(result.stdout);
      assert.deepEqual(out, {
        equal: false,
        agentName: 'ops',
        toolName: 'deploy',
        approvedHash: hashOf(approved),
        proposedHash: hashOf(proposed),
        changes: JSON.parse(JSON.stringify(diffSnapshots(JSON.parse(approved), JSON.parse(proposed), { includeValues: values }))),
      });
      assert.equal(result.stdout.includes(secret), values);
    }
    const equal = run(['diff', '--json', approvedFile, approvedFile]);
    assert.equal(equal.status, 0);
    assert.deepEqual(JSON.parse(equal.stdout).changes, []);
  });

  test('standard input for one side; stored proposals whose arguments nest 1024 levels', async () => {
    const fromStdin = run(['diff', '-', proposedFile], { input: approved });
    assert.equal(fromStdin.status, 1, describeRun('stdin', fromStdin));
    assert.equal(fromStdin.stdout, run(['diff', approvedFile, proposedFile]).stdout);
    const deepA = writeTemp('diff-deep-a.json', await storedProposal(`${'['.repeat(MAX_DEPTH)}1${']'.repeat(MAX_DEPTH)}`));
    const deepB = writeTemp('diff-deep-b.json', await storedProposal(`${'['.repeat(MAX_DEPTH)}2${']'.repeat(MAX_DEPTH)}`));
    const deepResult = run(['diff', deepA, deepB]);
    assert.equal(deepResult.status, 1, describeRun('deep', deepResult));
    assert.ok(deepResult.stdout.endsWith(`changed "${'/0'.repeat(MAX_DEPTH)}"\n`), deepResult.stdout.slice(-200));
  });

  test('paths are printed as JSON strings with controls and invisible characters escaped: a key cannot forge a line', async () => {
    const key = 'a\nchanged "/x"\u202e';
    const a = writeTemp('diff-key-a.json', await storedProposal(JSON.stringify({ [key]: 1 })));
    const b = writeTemp('diff-key-b.json', await storedProposal(JSON.stringify({ [key]: 2 })));
    const result = run(['diff', a, b]);
    assert.equal(result.status, 1, describeRun('key', result));
    const lines = result.stdout.split('\n');
    assert.equal(lines.length, 7, result.stdout);
    assert.equal(lines[5], 'changed "/a\\nchanged \\"~1x\\"\\u202e"', '"/" in a key is "~1" (RFC 6901)');
  });

  test('a record that does not verify exits 3 (not 1), names the side and never echoes the payload', async () => {
    const forged = JSON.stringify({ ...JSON.parse(proposed), argsCanonicalJson: `{"region":"${secret}x"}` });
    for (const [label, args, side, code] of [
      ['a forged proposed record', [approvedFile, writeTemp('diff-forged.json', forged)], 'proposed', 'hash_mismatch'],
      ['an approved file that is no record', [writeTemp('diff-array.json', `["${secret}"]`), proposedFile], 'approved', 'not_a_snapshot'],
      ['a proposed file that is not JSON', [approvedFile, writeTemp('diff-broken.json', `{"${secret}":`)], 'proposed', 'invalid_json'],
      [
        'an approved file with a checked field twice',
        [writeTemp('diff-dup.json', approved.replace('{', `{"proposalHash":"${secret}",`)), proposedFile],
        'approved',
        'duplicate_key',
      ],
    ]) {
      for (const json of [false, true]) {
        const result = run(['diff', ...(json ? ['--json'] : []), ...args]);
        assert.equal(result.status, 3, describeRun(label, result));
        assert.ok(result.stderr.startsWith(`${PREFIX}the ${side} record`), describeRun(label, result));
        assert.ok(result.stderr.includes(`code ${code})`), describeRun(label, result));
        assert.ok(!result.stderr.includes(secret) && !result.stdout.includes(secret), `${label}: the payload leaks`);
        if (json) assert.equal(JSON.parse(result.stdout).error.code, code);
      }
    }
  });

  test('records of different agents or tools exit 3 with different_agent or different_tool, naming neither', async () => {
    const otherAgent = writeTemp('diff-agent.json', await storedProposal('{"service":"api"}', `agent-${secret}`, 'deploy'));
    const otherTool = writeTemp('diff-tool.json', await storedProposal('{"service":"api"}', 'ops', `tool-${secret}`));
    for (const [file, code] of [
      [otherAgent, 'different_agent'],
      [otherTool, 'different_tool'],
    ]) {
      const result = run(['diff', approvedFile, file]);
      assert.equal(result.status, 3, describeRun(code, result));
      assert.ok(result.stderr.endsWith(`(stage snapshot, code ${code})\n`), describeRun(code, result));
      assert.ok(!result.stderr.includes(secret));
    }
  });

  test('usage errors exit 2: not two files, two standard inputs, options of other commands', () => {
    for (const args of [
      ['diff'],
      ['diff', 'a.json'],
      ['diff', 'a.json', 'b.json', 'c.json'],
      ['diff', '-', '-'],
      ['diff', '--hash', 'a'.repeat(64), 'a.json', 'b.json'],
      ['diff', '--include-path', 'a.json', 'b.json'],
      ['hash', '--values', '--agent', 'a', '--tool', 't'],
    ]) {
      const result = run(args, { input: '{}' });
      assert.equal(result.status, 2, describeRun(args.join(' '), result));
      assert.equal(result.stdout, '');
    }
  });
});

describe('canonicalize', () => {
  const SAMPLES = [
    '{"b":[1,2,{"z":null,"y":true}],"a":"x"}',
    '[1E2, 0.000001, 1e-7, 123456789012345678901234567890, -1.5, 4.35, 0.1, 9007199254740993]',
    '"\\u0041\\u00e9\\ud83d\\ude00\\u001f\\u2028/"',
    ' 1 ',
    RAW,
  ];

  test('prints the RFC 8785 form, agreeing with the library and json-canonicalize, followed by a newline', () => {
    for (const text of SAMPLES) {
      const expected = referenceCanonicalize(JSON.parse(text));
      assert.equal(libCanonicalize(JSON.parse(text)), expected, `library vs json-canonicalize on ${text}`);
      const result = run(['canonicalize'], { input: text });
      assert.equal(result.status, 0, describeRun(text, result));
      assert.equal(result.stdout, `${expected}\n`, text);
      // The third sample holds U+2028 and RAW the C1 control U+0080, raw in RFC 8785 text
      // (byte for byte on a pipe): each is named on standard error (issue 33).
      const warning =
        text === SAMPLES[2]
          ? 'tool-argument-snapshot: warning: the canonical JSON contains 1 invisible or bidirectional control character(s) (U+2028); a terminal may not show exactly what was hashed\n'
          : text === RAW
            ? C1_WARNING
            : '';
      assert.equal(result.stderr, warning, text);
    }
  });

  test('--no-newline prints the canonical bytes alone; FILE and - work', () => {
    const file = writeTemp('sample.json', SAMPLES[0]);
    const expected = referenceCanonicalize(JSON.parse(SAMPLES[0]));
    for (const args of [
      ['canonicalize', '--no-newline', file],
      ['canonicalize', '--no-newline', '-'],
    ]) {
      const result = spawnSync(process.execPath, [BIN, ...args], { input: SAMPLES[0] });
      assert.equal(result.status, 0, args.join(' '));
      assert.deepEqual(result.stdout, Buffer.from(expected, 'utf8'), `${args.join(' ')}: byte-exact`);
    }
  });

  test('accepts only strict snapshot JSON: empty text, duplicate keys and -0 are rejected', () => {
    for (const [input, stage, code] of [
      ['', 'json', 'invalid_json'],
      ['{"a":1,"a":1}', 'json', 'duplicate_key'],
      ['[-0.0]', 'snapshot', 'negative_zero'],
      ['[1e400]', 'json', 'non_finite_number'],
      ['["\\udc00"]', 'json', 'lone_surrogate'],
      // Text that is not JSON is invalid_json before any value rule (issue 9, item 10).
      ['-01', 'json', 'invalid_json'],
      ['[-00]', 'json', 'invalid_json'],
      ['-0.', 'json', 'invalid_json'],
      ['{"a":1,"a":1} x', 'json', 'invalid_json'],
    ]) {
      const result = run(['canonicalize'], { input });
      assert.equal(result.status, 3, describeRun(input, result));
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.startsWith(PREFIX) && result.stderr.endsWith(`(stage ${stage}, code ${code})\n`), describeRun(input, result));
    }
  });
});

describe('usage errors exit 2 with a hint and no output', () => {
  const H = 'a'.repeat(64);
  const CASES = [
    ['no command', []],
    ['an unknown command', ['sign']],
    ['an unknown option', ['hash', '--agent', 'a', '--tool', 't', '--bogus']],
    ['a missing --agent', ['hash', '--tool', 't']],
    ['a missing --tool', ['verify', '--agent', 'a', '--hash', H]],
    ['a missing --hash', ['verify', '--agent', 'a', '--tool', 't']],
    ['an option without its value', ['hash', '--tool', 't', '--agent']],
    ['--hash of 63 digits', ['verify', '--agent', 'a', '--tool', 't', '--hash', H.slice(1)]],
    ['--hash with a non-hex digit', ['verify', '--agent', 'a', '--tool', 't', '--hash', `${H.slice(1)}g`]],
    ['--hash with a prefix', ['verify', '--agent', 'a', '--tool', 't', '--hash', `sha256:${H}`]],
    ['an option given twice', ['verify', '--agent', 'a', '--tool', 't', '--hash', H, '--hash', H]],
    ['an option of another command', ['hash', '--agent', 'a', '--tool', 't', '--hash', H]],
    ['--no-newline on hash', ['hash', '--agent', 'a', '--tool', 't', '--no-newline']],
    ['--json on canonicalize', ['canonicalize', '--json']],
    ['two inputs', ['canonicalize', 'a.json', 'b.json']],
    ['--version with a command', ['hash', '--version']],
  ];
  for (const [label, args] of CASES) {
    test(label, () => {
      const result = run(args, { input: '{}' });
      assert.equal(result.status, 2, describeRun(label, result));
      assert.equal(result.stdout, '');
      assert.ok(result.stderr.startsWith(PREFIX), describeRun(label, result));
      assert.ok(result.stderr.endsWith("\nTry 'tool-argument-snapshot --help'.\n"), describeRun(label, result));
      assert.doesNotMatch(result.stderr, /^\s+at /m, 'no stack trace');
    });
  }
});

describe('rejected input exits 3, names stage and code, and never echoes the payload', () => {
  const secret = `SECRET-${randomBytes(8).toString('hex')}`;
  const utf8 = (text) => Buffer.from(text, 'utf8');
  const CASES = [
    ['truncated JSON', utf8(`{"token":"${secret}"`), 'json', 'invalid_json'],
    ['a trailing comma', utf8(`{"token":"${secret}",}`), 'json', 'invalid_json'],
    ['a duplicate key', utf8(`{"${secret}":1,"${secret}":2}`), 'json', 'duplicate_key'],
    ['a duplicate key with a secret value', utf8(`{"token":"${secret}","token":"x"}`), 'json', 'duplicate_key'],
    ['a lone surrogate', utf8(`{"token":"${secret}\\ud800"}`), 'json', 'lone_surrogate'],
    ['a number that overflows', utf8(`{"token":"${secret}","n":1e400}`), 'json', 'non_finite_number'],
    ['negative zero', utf8(`{"token":"${secret}","n":-0}`), 'snapshot', 'negative_zero'],
    ['a negative number with a leading zero', utf8(`{"token":"${secret}","n":-01}`), 'json', 'invalid_json'],
    ['invalid UTF-8 bytes', Buffer.concat([utf8(`{"token":"${secret}`), Buffer.from([0xff, 0xfe]), utf8('"}')]), 'json', 'invalid_json'],
    ['an overlong UTF-8 encoding', Buffer.concat([utf8(`{"token":"${secret}`), Buffer.from([0xc0, 0xaf]), utf8('"}')]), 'json', 'invalid_json'],
    ['a UTF-8 encoded surrogate', Buffer.concat([utf8(`{"token":"${secret}`), Buffer.from([0xed, 0xa0, 0x80]), utf8('"}')]), 'json', 'invalid_json'],
    ['a UTF-8 byte order mark', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8(`{"token":"${secret}"}`)]), 'json', 'invalid_json'],
    ['UTF-16LE text', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`{"token":"${secret}"}`, 'utf16le')]), 'json', 'invalid_json'],
    ['nesting past the depth limit', utf8(`[{"token":"${secret}"},${'['.repeat(2000)}`), 'json', 'depth_limit'],
  ];

  for (const [label, input, stage, code] of CASES) {
    for (const command of ['hash', 'verify']) {
      test(`${command}: ${label}`, () => {
        const args = command === 'hash' ? ['hash', '--agent', 'a', '--tool', 't'] : ['verify', '--agent', 'a', '--tool', 't', '--hash', '0'.repeat(64)];
        const result = run(args, { input });
        assert.equal(result.status, 3, describeRun(label, result));
        assert.equal(result.stdout, '', 'nothing on standard output');
        const lines = result.stderr.split('\n');
        assert.equal(lines.length, 2, `one line on standard error: ${result.stderr}`);
        assert.ok(lines[0].startsWith(PREFIX), result.stderr);
        assert.ok(lines[0].endsWith(`(stage ${stage}, code ${code})`), `stage ${stage}, code ${code}: ${result.stderr}`);
        assert.ok(!result.stderr.includes(secret), `the payload leaks to standard error: ${result.stderr}`);
      });
    }
  }

  test('--json also prints {"error": {stage, code, message}} on standard output, without the payload', () => {
    const result = run(['hash', '--json', '--agent', 'a', '--tool', 't'], { input: `{"${secret}":1,"${secret}":2}` });
    assert.equal(result.status, 3, describeRun('--json', result));
    const { error } = JSON.parse(result.stdout);
    assert.deepEqual(Object.keys(error), ['stage', 'code', 'message']);
    assert.equal(error.stage, 'json');
    assert.equal(error.code, 'duplicate_key');
    assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret));
  });

  test('--include-path adds the JSON Pointer (made of payload keys), and only then', () => {
    const input = `{"outer":{"${secret}":1,"${secret}":2}}`;
    const result = run(['hash', '--include-path', '--agent', 'a', '--tool', 't'], { input });
    assert.equal(result.status, 3, describeRun('--include-path', result));
    assert.ok(result.stderr.endsWith(`(stage json, code duplicate_key, path "/outer/${secret}")\n`), result.stderr);
    const json = run(['hash', '--json', '--include-path', '--agent', 'a', '--tool', 't'], { input });
    assert.equal(JSON.parse(json.stdout).error.path, `/outer/${secret}`);
  });

  test("a million '[' exits 3 with depth_limit, without a crash, for every command", () => {
    const input = '['.repeat(1e6);
    for (const args of [['hash', '--agent', 'a', '--tool', 't'], ['verify', '--agent', 'a', '--tool', 't', '--hash', 'a'.repeat(64)], ['canonicalize']]) {
      const result = run(args, { input });
      assert.equal(result.signal, null, describeRun(args[0], result));
      assert.equal(result.status, 3, describeRun(args[0], result));
      assert.ok(result.stderr.endsWith('(stage json, code depth_limit)\n'), describeRun(args[0], result));
      assert.equal(result.stderr.split('\n').length, 2, 'one line, no stack');
    }
  });

  test('a missing file and a directory exit 3 at stage input, naming the file', () => {
    const missing = path.join(tmp, 'no-such-file.json');
    const gone = run(['hash', '--agent', 'a', '--tool', 't', missing]);
    assert.equal(gone.status, 3, describeRun('missing', gone));
    assert.equal(gone.stderr, `${PREFIX}cannot read ${JSON.stringify(missing)}: no such file or directory (stage input, code ENOENT)\n`);
    const dir = run(['canonicalize', tmp]);
    assert.equal(dir.status, 3, describeRun('directory', dir));
    assert.match(dir.stderr, /^tool-argument-snapshot: error: cannot read .*\(stage input, code EISDIR\)\n$/);
  });
});

describe('internal errors exit 70', () => {
  /** A stand-in package around a copy of the CLI, whose index.js is `indexSource`. */
  function fakePackage(name, indexSource) {
    const dir = path.join(tmp, name);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'tool-argument-snapshot', version: '9.8.7', main: 'index.js' }));
    fs.writeFileSync(path.join(dir, 'index.js'), indexSource);
    // The entry with its command and shared modules: the whole of bin/.
    fs.cpSync(path.dirname(BIN), path.join(dir, 'bin'), { recursive: true });
    return path.join(dir, 'bin', 'tool-argument-snapshot.js');
  }

  test('an unexpected exception prints its stack and exits 70', () => {
    const bin = fakePackage(
      'throws',
      `'use strict';
class E extends Error {}
module.exports = {
  ToolArgumentsValidationError: E,
  SnapshotDomainError: E,
  prepareToolCall() { throw new RangeError('unexpected failure planted by the test'); },
};
`,
    );
    const result = run(['hash', '--agent', 'a', '--tool', 't'], { input: '{}', bin });
    assert.equal(result.status, 70, describeRun('internal', result));
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /^tool-argument-snapshot: internal error: RangeError: unexpected failure planted by the test\n\s+at /);
  });

  test('a library that cannot load (no native binary) exits 70 with its message, without a stack; --version and --help still work', () => {
    const bin = fakePackage(
      'unloadable',
      `'use strict';
throw new Error('tool-argument-snapshot has no native binary for this platform (test-triple)');
`,
    );
    const result = run(['canonicalize'], { input: '{}', bin });
    assert.equal(result.status, 70, describeRun('unloadable', result));
    assert.equal(
      result.stderr,
      'tool-argument-snapshot: error: cannot load tool-argument-snapshot: tool-argument-snapshot has no native binary for this platform (test-triple)\n',
    );
    assert.equal(run(['--version'], { bin }).stdout, '9.8.7\n');
    assert.equal(run(['--help'], { bin }).status, 0);
  });
});

describe('verify-snapshot --key-file / --key-env: sealed proposals (issue 16 item 2)', () => {
  const { createHmac } = require('node:crypto');
  const SECRET = 'a-secret-of-at-least-thirty-two-bytes';
  let dir;
  let sealed;
  const file = (name, value) => {
    const where = path.join(dir, name);
    fs.writeFileSync(where, typeof value === 'string' ? value : JSON.stringify(value));
    return where;
  };
  /** A seal written by hand with node:crypto and json-canonicalize, as another service would write it. */
  const sealByHand = (fields, secret = SECRET) => {
    const { signature, v, ...rest } = fields;
    const unsigned = { v: 1, ...rest };
    return { ...unsigned, signature: createHmac('sha256', secret).update(referenceCanonicalize(unsigned)).digest('hex') };
  };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-cli-seal-'));
    const argsCanonicalJson = '{"service":"api"}';
    sealed = sealByHand({
      agentName: AGENT,
      toolName: TOOL,
      argsCanonicalJson,
      proposalHash: envelopeHash(AGENT, TOOL, argsCanonicalJson),
      keyId: 'k1',
      nonce: '0123456789abcdef0123456789abcdef',
      expiresAt: null,
      scope: 'user:alice',
    });
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a seal made by another implementation verifies, from a key file and from an environment variable', () => {
    const keys = file('keys.json', [
      { id: 'k0', secret: 'x'.repeat(32) },
      { id: 'k1', secret: SECRET },
    ]);
    const record = file('sealed.json', sealed);
    const fromFile = run(['verify-snapshot', '--key-file', keys, record]);
    assert.equal(fromFile.status, 0, fromFile.stderr);
    assert.match(fromFile.stdout, /^verified\n/);
    assert.match(fromFile.stdout, /sealed by key: {2}"k1"\n/);
    assert.match(fromFile.stdout, /grant scope: {4}"user:alice"\n/);
    const env = spawnSync(process.execPath, [BIN, 'verify-snapshot', '--key-env', 'TAS_KEYS', '--json', record], {
      encoding: 'utf8',
      env: { ...process.env, TAS_KEYS: JSON.stringify({ keys: [{ id: 'k1', secretBase64: Buffer.from(SECRET).toString('base64') }] }) },
    });
    assert.equal(env.status, 0, env.stderr);
    const out = JSON.parse(env.stdout);
    assert.deepEqual([out.verified, out.sealed, out.keyId, out.scope, out.expiresAt], [true, true, 'k1', 'user:alice', null]);
  });

  test('tampered, moved, unknown key or expired: exit 1 with the code; not sealed: exit 3; nothing of the key or the payload is printed', () => {
    const keys = file('keys.json', [{ id: 'k1', secret: SECRET }]);
    const json = '{"service":"db"}';
    const cases = [
      ['other arguments, hash recomputed', { ...sealed, argsCanonicalJson: json, proposalHash: envelopeHash(AGENT, TOOL, json) }, 1, 'bad_signature'],
      ['another scope', { ...sealed, scope: 'user:mallory' }, 1, 'bad_signature'],
      ['re-signed with another secret', sealByHand({ ...sealed, scope: 'user:mallory' }, 'b'.repeat(32)), 1, 'bad_signature'],
      ['an unknown key id', { ...sealed, keyId: 'k9' }, 1, 'unknown_key'],
      ['expired', sealByHand({ ...sealed, expiresAt: 1000 }), 1, 'seal_expired'],
      [
        'an unsealed record',
        { agentName: sealed.agentName, toolName: sealed.toolName, argsCanonicalJson: sealed.argsCanonicalJson, proposalHash: sealed.proposalHash },
        3,
        'not_sealed',
      ],
    ];
    for (const [label, record, status, code] of cases) {
      const result = run(['verify-snapshot', '--key-file', keys, file('case.json', JSON.parse(JSON.stringify(record)))]);
      assert.equal(result.status, status, `${label}: ${result.stderr}`);
      assert.match(result.stderr, new RegExp(`code ${code}\\)`), label);
      assert.ok(!result.stderr.includes(SECRET) && !result.stderr.includes('service'), `${label}: key or payload printed`);
    }
    // A checked field given twice is refused before anything is verified.
    const twice = JSON.stringify(sealed).replace('"scope":"user:alice"', '"scope":"user:alice","scope":"user:bob"');
    assert.equal(run(['verify-snapshot', '--key-file', keys, file('twice.json', twice)]).status, 3);
  });

  test('a key that cannot be had is a usage error (exit 2), and a key is never an argument', () => {
    const record = file('sealed.json', sealed);
    for (const args of [
      ['--key-file', path.join(dir, 'missing.json')],
      ['--key-env', 'TAS_NO_SUCH_VARIABLE'],
      ['--key-file', file('bad.json', 'not json')],
      ['--key-file', file('short.json', [{ id: 'k1', secret: 'short' }])],
      ['--key-file', file('keys.json', [{ id: 'k1', secret: SECRET }]), '--key-env', 'X'],
      ['--key', SECRET],
      ['--secret', SECRET],
    ]) {
      const result = run(['verify-snapshot', ...args, record]);
      assert.equal(result.status, 2, `${args.join(' ')}: ${result.stderr}`);
      assert.ok(!result.stderr.includes('thirty-two'), 'the secret is not echoed');
    }
  });
});

describe('--json output escapes what a terminal would interpret (issue 33, item 6)', () => {
  // Written out from the issue, not taken from the CLI: controls U+0000-U+001F and U+007F,
  // C1 U+0080-U+009F, and the bidirectional formatting characters.
  const TERMINAL_CODES = [];
  for (let c = 0; c <= 0x9f; c++) if (c <= 0x1f || c >= 0x7f) TERMINAL_CODES.push(c);
  TERMINAL_CODES.push(0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069);
  const TRICKY = String.fromCharCode(...TERMINAL_CODES);
  const rawFound = (text) => [...text].filter((c) => TERMINAL_CODES.includes(c.charCodeAt(0))).map((c) => `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  /** One JSON line on standard output, none of the characters raw; JSON.parse of it. */
  const parsedJson = (result, what) => {
    assert.ok(result.stdout.endsWith('\n') && result.stdout.indexOf('\n') === result.stdout.length - 1, `${what}: one line`);
    assert.deepEqual(rawFound(result.stdout.slice(0, -1)), [], `${what}: raw characters`);
    return JSON.parse(result.stdout);
  };
  // An argument cannot hold U+0000: names given on the command line carry the rest.
  const AGENT_NAME = `ops\u202e${TRICKY.slice(1)}`;
  const TOOL_NAME = 'deploy\u2066';
  const ARGS = { [`key\u009b${TRICKY}`]: `value\u202e\u2066${TRICKY}`, n: 1 };

  test("hash and verify: the canonical JSON and the names parse back exactly; the hash is the oracle's", () => {
    const input = JSON.stringify(ARGS);
    const canonical = referenceCanonicalize(ARGS);
    assert.ok(canonical.includes('\u202e') && canonical.includes('\u009b'), 'RFC 8785 keeps them raw');
    const hash = envelopeHash(AGENT_NAME, TOOL_NAME, canonical);
    const hashed = run(['hash', '--json', '--agent', AGENT_NAME, '--tool', TOOL_NAME], { input });
    assert.equal(hashed.status, 0, describeRun('hash', hashed));
    assert.deepEqual(parsedJson(hashed, 'hash --json'), { agentName: AGENT_NAME, toolName: TOOL_NAME, argsCanonicalJson: canonical, proposalHash: hash });
    for (const [expected, status, match] of [
      [hash, 0, true],
      ['a'.repeat(64), 1, false],
    ]) {
      const verified = run(['verify', '--json', '--agent', AGENT_NAME, '--tool', TOOL_NAME, '--hash', expected], { input });
      assert.equal(verified.status, status, describeRun('verify', verified));
      assert.deepEqual(parsedJson(verified, 'verify --json'), {
        match,
        agentName: AGENT_NAME,
        toolName: TOOL_NAME,
        argsCanonicalJson: canonical,
        proposalHash: hash,
        expectedHash: expected,
      });
    }
  });

  test('verify-snapshot and diff: names, canonical JSON, paths and values parse back exactly', async () => {
    const approved = await storedProposal(JSON.stringify(ARGS), AGENT_NAME, TOOL_NAME);
    const proposed = await storedProposal(JSON.stringify({ ...ARGS, n: 2, [`added\u2067${TRICKY}`]: `v\u0085` }), AGENT_NAME, TOOL_NAME);
    const approvedFile = writeTemp('escape-approved.json', approved);
    const proposedFile = writeTemp('escape-proposed.json', proposed);
    const record = JSON.parse(approved);
    const checked = run(['verify-snapshot', '--json', approvedFile]);
    assert.equal(checked.status, 0, describeRun('verify-snapshot', checked));
    const out = parsedJson(checked, 'verify-snapshot --json');
    assert.equal(out.verified, true);
    assert.deepEqual(
      [out.agentName, out.toolName, out.argsCanonicalJson, out.proposalHash],
      [AGENT_NAME, TOOL_NAME, referenceCanonicalize(ARGS), envelopeHash(AGENT_NAME, TOOL_NAME, referenceCanonicalize(ARGS))],
    );
    assert.equal(out.argsCanonicalJson, record.argsCanonicalJson);
    const { diffSnapshots } = require('../../lib/diff');
    const diffed = run(['diff', '--json', '--values', approvedFile, proposedFile]);
    assert.equal(diffed.status, 1, describeRun('diff', diffed));
    const changes = parsedJson(diffed, 'diff --json --values').changes;
    assert.deepEqual(changes, JSON.parse(JSON.stringify(diffSnapshots(JSON.parse(approved), JSON.parse(proposed), { includeValues: true }))));
    assert.ok(
      changes.some((change) => change.path.includes('\u2067')),
      'a path holds a bidi character, parsed back',
    );
  });

  test('a rejected input\'s {"error"} names no raw character either', () => {
    const result = run(['hash', '--json', '--agent', AGENT_NAME, '--tool', `pay\u202e${TRICKY.slice(1)}`], { input: '{"a":1,"a":2}' });
    assert.equal(result.status, 3, describeRun('rejected', result));
    const { error } = parsedJson(result, 'the error object');
    assert.equal(error.code, 'duplicate_key');
  });

  test('canonicalize writes the canonical bytes exactly to a pipe, and warns on standard error', () => {
    const canonical = referenceCanonicalize(ARGS);
    const result = spawnSync(process.execPath, [BIN, 'canonicalize', '--no-newline'], { input: JSON.stringify(ARGS) });
    assert.equal(result.status, 0);
    assert.deepEqual(result.stdout, Buffer.from(canonical, 'utf8'), 'byte for byte: another byte would be another hash');
    assert.match(
      result.stderr.toString('utf8'),
      /^tool-argument-snapshot: warning: the canonical JSON contains \d+ invisible or bidirectional control character\(s\) \(U\+/,
    );
  });

  // A terminal needs a pseudo-terminal: util-linux `script` gives the command one.
  const script = spawnSync('script', ['--version'], { encoding: 'utf8' });
  const noScript = script.error !== undefined || script.status !== 0 ? 'util-linux script is not installed (no pseudo-terminal to test with)' : false;
  test('canonicalize to a terminal shows the characters as \\u escapes, and says it is not the exact text', { skip: noScript }, () => {
    const file = writeTemp('escape-terminal.json', JSON.stringify(ARGS));
    const command = [process.execPath, BIN, 'canonicalize', file].map((word) => `'${word.replace(/'/g, "'\\''")}'`).join(' ');
    const result = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 0, result.stdout);
    // The pseudo-terminal gets stdout and stderr, with CR LF line ends.
    const lines = result.stdout.split('\r\n');
    assert.deepEqual(rawFound(lines[0]), [], 'nothing raw on the terminal');
    assert.deepEqual(JSON.parse(lines[0]), JSON.parse(referenceCanonicalize(ARGS)), 'the same value, escaped');
    assert.notEqual(lines[0], referenceCanonicalize(ARGS));
    assert.match(result.stdout, /note: standard output is a terminal: .* not the canonical text byte for byte/);
  });
});
