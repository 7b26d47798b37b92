'use strict';
// Review from the command line: `pending`, `grant` and `decline` spawned against real
// stores (SQLite, PostgreSQL, Redis) that an application shares. The application keeps
// sealed proposals as an adapter does (grants.keepProposal with a key ring); the reviewer's
// grant must then let the application's own evaluateToolCall/executeToolCall run the call
// exactly once; a proposal edited in the store is listed with its code, never its text.

const { test, describe } = require('node:test');
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const { createApprovalGrants, prepareToolCall, evaluateToolCall, executeToolCall, openGrantStore } = require('../..');
const { service, requires } = require('../helpers/services');

const BIN = path.join(__dirname, '..', '..', 'bin', 'tool-argument-snapshot.js');
const KEYS = [{ id: 'review-2026', secret: 'a-secret-of-at-least-thirty-two-bytes!' }];
/** What the tampered record says instead of the sealed arguments: it must never be printed. */
const TAMPERED_AMOUNT = 987654321;

/** Runs the CLI (asynchronously: the application's store stays responsive); { status, stdout, stderr }. */
function cli(args, { env = {}, input } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/**
 * What a terminal would interpret, written out from issue 33 (not from the CLI's own list):
 * controls U+0000-U+001F and U+007F, C1 U+0080-U+009F, and the bidirectional formatting
 * characters U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069.
 */
const TERMINAL_CHARACTERS = [];
for (let c = 0; c <= 0x9f; c++) if (c <= 0x1f || c >= 0x7f) TERMINAL_CHARACTERS.push(String.fromCharCode(c));
for (const c of [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069])
  TERMINAL_CHARACTERS.push(String.fromCharCode(c));
const TERMINAL = new RegExp(`[${TERMINAL_CHARACTERS.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}]`);

/** One line of JSON: none of TERMINAL_CHARACTERS raw before its final newline. */
function assertNoTerminalCharacters(stdout, what) {
  assert.ok(stdout.endsWith('\n'), `${what}: one line`);
  const body = stdout.slice(0, -1);
  const found = body.match(new RegExp(TERMINAL.source, 'g'));
  assert.equal(found, null, `${what}: raw ${found && [...new Set(found)].map((c) => `U+${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join(', ')}`);
  for (const c of ['\u202e', '\u2066', '\u009b']) assert.ok(!body.includes(c), `${what}: no raw U+${c.charCodeAt(0).toString(16)}`);
}

function tempDir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'tas-cli-review-'));
}

/** The three stores, each opened twice (the application's and what the CLI opens) on a fresh namespace. */
const KINDS = {
  sqlite: {
    options: {},
    async open() {
      const dir = tempDir();
      const url = `sqlite:${path.join(dir, 'grants.db')}`;
      return { url, flags: [], storeOptions: {}, dispose: async () => fs.rmSync(dir, { recursive: true, force: true }) };
    },
  },
  postgres: {
    options: requires('pg'),
    async open(t) {
      const url = service(t, 'pg');
      if (url === null) return null;
      const table = `cli_review_${randomBytes(6).toString('hex')}`;
      return {
        url,
        flags: ['--table', table],
        storeOptions: { table },
        dispose: async () => {
          const { Client } = require('pg');
          const client = new Client({ connectionString: url });
          await client.connect();
          for (const suffix of ['', '_nonces', '_proposals', '_receipts']) await client.query(`DROP TABLE IF EXISTS "${table}${suffix}"`);
          await client.end();
        },
      };
    },
  },
  redis: {
    options: requires('redis'),
    async open(t) {
      const url = service(t, 'redis');
      if (url === null) return null;
      const prefix = `tas:cli-review:${randomBytes(6).toString('hex')}:`;
      return {
        url,
        flags: ['--prefix', prefix],
        storeOptions: { prefix },
        dispose: async () => {
          const { createClient } = require('redis');
          const client = createClient({ url });
          await client.connect();
          for (const key of await client.keys(`${prefix}*`)) await client.del(key);
          await client.quit();
        },
      };
    },
  },
};

/** The application: its grants (sealed proposals) on the store, a tool that counts its runs. */
function application(store) {
  const grants = createApprovalGrants({ store, keys: KEYS });
  let runs = 0;
  const handler = (args) => {
    runs++;
    return `paid ${args.cents} to ${args.to}`;
  };
  async function attempt(rawArguments) {
    const prepared = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments, toolCallId: 'call-1' });
    const decision = await evaluateToolCall({ prepared, policy: grants.policy(), policyContext: { grantScope: 'user:alice' } });
    if (decision.decision !== 'allow') return { decision };
    return { decision, result: await executeToolCall(decision, handler, { grants }) };
  }
  return { grants, attempt, runs: () => runs };
}

for (const [kind, { options, open }] of Object.entries(KINDS)) {
  describe(`review from the command line: ${kind}`, options, () => {
    test('pending lists verified sealed proposals and a tampered one by its code; grant lets the application run once; decline empties the list', async (t) => {
      const opened = await open(t);
      if (opened === null) return;
      const dir = tempDir();
      const store = await openGrantStore(opened.url, opened.storeOptions);
      try {
        const keyFile = path.join(dir, 'keys.json');
        fs.writeFileSync(keyFile, JSON.stringify(KEYS));
        const base = ['--store', opened.url, ...opened.flags];
        const withKeys = [...base, '--key-file', keyFile];
        const app = application(store);
        const raw = '{"to":"bob","cents":500}';

        // The application: the call needs approval; the proposal is kept sealed, as an adapter keeps it.
        const first = await app.attempt(raw);
        assert.equal(first.decision.decision, 'require_approval');
        const sealed = await app.grants.keepProposal({ runId: 'run-1', toolCallId: 'call-1' }, first.decision.proposal, { scope: 'user:alice' });
        // Another sealed proposal, then edited in the store (its arguments and hash replaced consistently).
        const other = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments: `{"to":"mallory","cents":${TAMPERED_AMOUNT}}` });
        const honest = await app.grants.keepProposal(
          { runId: 'run-2', toolCallId: 'call-9' },
          prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments: '{"to":"carol","cents":1}' }),
        );
        const edited = { ...honest, argsCanonicalJson: other.argsCanonicalJson, proposalHash: other.proposalHash };
        await store.putProposal('5:run-2call-9', JSON.stringify(edited), null);

        // pending: exit 1 (one does not verify), the verified one in full, the tampered one by its code.
        const listed = await cli(['pending', ...withKeys, '--json']);
        assert.equal(listed.status, 1, listed.stderr);
        const page = JSON.parse(listed.stdout);
        assert.equal(page.cursor, null);
        assert.equal(page.proposals.length, 2);
        const good = page.proposals.find((e) => e.runId === 'run-1');
        const bad = page.proposals.find((e) => e.runId === 'run-2');
        assert.equal(good.verified, true);
        assert.equal(good.toolCallId, 'call-1');
        assert.deepEqual(good.proposal, sealed, 'the verified proposal is the sealed record the application kept');
        assert.equal(good.proposal.argsCanonicalJson, JSON.stringify({ cents: 500, to: 'bob' }));
        assert.equal(good.proposal.keyId, 'review-2026');
        assert.deepEqual(bad, {
          id: bad.id,
          runId: 'run-2',
          toolCallId: 'call-9',
          verified: false,
          error: { name: 'ApprovalGrantError', code: 'bad_signature' },
        });
        for (const shown of [listed.stdout, listed.stderr]) {
          assert.ok(!shown.includes(String(TAMPERED_AMOUNT)) && !shown.includes('mallory'), 'the tampered text is never printed');
        }
        const text = await cli(['pending', ...withKeys]);
        assert.equal(text.status, 1);
        assert.match(text.stdout, /^pending: 2 proposals, 1 that does not verify\n/);
        assert.match(text.stdout, /canonical JSON: \{"cents":500,"to":"bob"\}\n/);
        assert.match(text.stdout, /sealed by key: {2}"review-2026"\n/);
        assert.match(text.stdout, /does not verify: bad_signature \(ApprovalGrantError\)/);
        assert.ok(!text.stdout.includes(String(TAMPERED_AMOUNT)) && !text.stdout.includes('mallory'));
        assert.notEqual(bad.id, good.id);

        // Refusals: the tampered one cannot be granted (1); a sealed one needs the key ring (2);
        // a key file that cannot be read is a usage error (2); an id pending never printed (2).
        const refused = await cli(['grant', ...withKeys, '--id', bad.id]);
        assert.equal(refused.status, 1, refused.stderr);
        assert.match(refused.stderr, /code bad_signature\)/);
        assert.ok(!refused.stderr.includes(String(TAMPERED_AMOUNT)));
        assert.equal((await cli(['grant', ...base, '--id', good.id])).status, 2, 'a sealed proposal is granted only with its key ring');
        assert.equal((await cli(['grant', ...base, '--key-file', path.join(dir, 'missing.json'), '--id', good.id])).status, 2);
        assert.equal((await cli(['grant', ...withKeys, '--id', 'not-an-id!'])).status, 2);
        assert.equal((await cli(['grant', ...withKeys])).status, 2, 'neither --id nor a file');
        assert.equal(app.runs(), 0);
        assert.equal((await app.attempt(raw)).decision.decision, 'require_approval', 'nothing was granted by the refusals');

        // grant --id: exit 0; the application's evaluate/execute on the same store runs it once.
        const granted = await cli(['grant', ...withKeys, '--id', good.id, '--json']);
        assert.equal(granted.status, 0, granted.stderr);
        const grantedRecord = JSON.parse(granted.stdout);
        assert.equal(grantedRecord.granted, true);
        assert.equal(grantedRecord.proposalHash, first.decision.proposal.proposalHash);
        assert.equal(grantedRecord.scope, 'user:alice', 'the sealed scope');
        assert.equal(grantedRecord.keyId, 'review-2026');
        const ran = await app.attempt(raw);
        assert.equal(ran.decision.decision, 'allow');
        assert.equal(ran.result, 'paid 500 to bob');
        assert.equal(app.runs(), 1);
        assert.equal((await app.attempt(raw)).decision.decision, 'require_approval', 'once');
        assert.equal(app.runs(), 1);

        // The granted proposal left the pending ones; granting it again is refused (1).
        const again = await cli(['grant', ...withKeys, '--id', good.id]);
        assert.equal(again.status, 1);
        assert.match(again.stderr, /code not_pending\)/);
        const entry = path.join(dir, 'entry.json');
        fs.writeFileSync(entry, JSON.stringify(good));
        const replay = await cli(['grant', ...withKeys, entry]);
        assert.equal(replay.status, 1, 'the same sealed proposal from a file: used');
        assert.match(replay.stderr, /code seal_used\)/);
        assert.equal((await app.attempt(raw)).decision.decision, 'require_approval');
        assert.equal(app.runs(), 1);

        // A file that is no proposal: exit 3.
        const notProposal = path.join(dir, 'not.json');
        fs.writeFileSync(notProposal, '{"hello":"world"}');
        assert.equal((await cli(['grant', ...withKeys, notProposal])).status, 3);
        assert.equal((await cli(['grant', ...withKeys, '-'], { input: '{"a":1,"a":2}' })).status, 3, 'a name given twice');

        // decline: the tampered one goes; nothing is pending; declining it again finds nothing (1).
        const declined = await cli(['decline', ...base, '--id', bad.id]);
        assert.equal(declined.status, 0, declined.stderr);
        assert.equal(declined.stdout, 'declined\n');
        const empty = await cli(['pending', ...withKeys, '--json']);
        assert.equal(empty.status, 0, empty.stderr);
        assert.deepEqual(JSON.parse(empty.stdout), { proposals: [], cursor: null });
        assert.equal((await cli(['decline', ...base, '--id', bad.id])).status, 1);
        assert.equal(await store.getProposal('5:run-2call-9', 0), null);
      } finally {
        await store.close();
        await opened.dispose();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test('--json of pending, grant and decline writes no raw control, C1 or bidi character, and parses back to the same values (issue 33)', async (t) => {
      const opened = await open(t);
      if (opened === null) return;
      const dir = tempDir();
      const store = await openGrantStore(opened.url, opened.storeOptions);
      try {
        const keyFile = path.join(dir, 'keys.json');
        fs.writeFileSync(keyFile, JSON.stringify(KEYS));
        const base = ['--store', opened.url, ...opened.flags];
        const withKeys = [...base, '--key-file', keyFile];
        const grants = createApprovalGrants({ store, keys: KEYS });
        // Every character a terminal would interpret, in the arguments, the names, the ids and the scope.
        const tricky = TERMINAL_CHARACTERS.join('');
        const agentName = `billing\u202e${tricky}`;
        const toolName = 'pay\u2066';
        const runId = `run\u009b${tricky}`;
        const toolCallId = `call\u202e${tricky}`;
        const scope = `user:\u2067alice${tricky}`;
        const prepared = prepareToolCall({
          agentName,
          toolName,
          rawArguments: JSON.stringify({ to: `bob\u202e\u2066\u009b${tricky}`, [`memo${tricky}`]: 'x' }),
        });
        const sealed = await grants.keepProposal({ runId, toolCallId }, prepared, { scope });
        assert.ok(TERMINAL.test(sealed.argsCanonicalJson), 'the canonical JSON holds them raw (RFC 8785)');

        const listed = await cli(['pending', ...withKeys, '--json']);
        assert.equal(listed.status, 0, listed.stderr);
        assertNoTerminalCharacters(listed.stdout, 'pending --json');
        // JSON.parse is the oracle: the same values as the record the application kept.
        const page = JSON.parse(listed.stdout);
        assert.equal(page.proposals.length, 1);
        const [entry] = page.proposals;
        assert.equal(entry.runId, runId);
        assert.equal(entry.toolCallId, toolCallId);
        assert.deepEqual(entry.proposal, sealed);
        assert.equal(entry.proposal.argsCanonicalJson, prepared.argsCanonicalJson, 'the canonical text, exactly, once parsed');

        // The entry as printed (its escapes included), saved by a reviewer, grants the same proposal.
        const head = '{"proposals":[';
        const tail = '],"cursor":null}\n';
        assert.ok(listed.stdout.startsWith(head) && listed.stdout.endsWith(tail));
        const saved = path.join(dir, 'entry.json');
        fs.writeFileSync(saved, listed.stdout.slice(head.length, -tail.length));
        const granted = await cli(['grant', ...withKeys, saved, '--json']);
        assert.equal(granted.status, 0, granted.stderr);
        assertNoTerminalCharacters(granted.stdout, 'grant --json');
        const record = JSON.parse(granted.stdout);
        assert.deepEqual(
          {
            granted: record.granted,
            agentName: record.agentName,
            toolName: record.toolName,
            argsCanonicalJson: record.argsCanonicalJson,
            proposalHash: record.proposalHash,
            scope: record.scope,
          },
          { granted: true, agentName, toolName, argsCanonicalJson: prepared.argsCanonicalJson, proposalHash: prepared.proposalHash, scope },
        );
        assert.equal(await grants.has({ agentName, toolName, proposalHash: prepared.proposalHash, scope }), true);

        // decline --json names the run and call ids.
        const other = prepareToolCall({ agentName, toolName, rawArguments: '{"to":"carol"}' });
        await grants.keepProposal({ runId, toolCallId: `${toolCallId}-2` }, other);
        const second = JSON.parse((await cli(['pending', ...withKeys, '--json'])).stdout).proposals[0];
        const declined = await cli(['decline', ...base, '--id', second.id, '--json']);
        assert.equal(declined.status, 0, declined.stderr);
        assertNoTerminalCharacters(declined.stdout, 'decline --json');
        assert.deepEqual(JSON.parse(declined.stdout), { declined: true, runId, toolCallId: `${toolCallId}-2` });
      } finally {
        await store.close();
        await opened.dispose();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });

    test('pending pages with --limit and --cursor; grant from a pending entry file; decline from one', async (t) => {
      const opened = await open(t);
      if (opened === null) return;
      const dir = tempDir();
      const store = await openGrantStore(opened.url, opened.storeOptions);
      try {
        const base = ['--store', opened.url, ...opened.flags];
        const env = { REVIEW_KEYS: JSON.stringify(KEYS) };
        const withKeys = [...base, '--key-env', 'REVIEW_KEYS'];
        const app = application(store);
        const calls = [];
        for (let i = 0; i < 5; i++) {
          const prepared = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments: `{"to":"bob","cents":${i + 1}}` });
          await app.grants.keepProposal({ runId: `run-${i}`, toolCallId: `call-${i}` }, prepared, { scope: 'user:alice' });
          calls.push(prepared);
        }
        const seen = [];
        let cursor = null;
        let pages = 0;
        do {
          const args = ['pending', ...withKeys, '--json', '--limit', '2'];
          if (cursor !== null) args.push('--cursor', cursor);
          const page = await cli(args, { env });
          assert.equal(page.status, 0, page.stderr);
          const parsed = JSON.parse(page.stdout);
          assert.ok(parsed.proposals.length <= 2);
          seen.push(...parsed.proposals);
          cursor = parsed.cursor;
          pages++;
        } while (cursor !== null && pages < 10);
        assert.deepEqual(seen.map((e) => e.runId).sort(), ['run-0', 'run-1', 'run-2', 'run-3', 'run-4']);
        assert.ok(pages >= 3, `${pages} pages of at most 2`);
        assert.equal((await cli(['pending', ...withKeys, '--limit', '0'], { env })).status, 2);
        assert.equal((await cli(['pending', ...withKeys, '--cursor', '%%'], { env })).status, 2);
        assert.equal((await cli(['pending', ...base, '--key-env', 'UNSET_REVIEW_KEYS_VARIABLE'])).status, 2);

        // Grant run-3 from its pending entry (a file, as a reviewer saves it): it leaves the list.
        const entry = seen.find((e) => e.runId === 'run-3');
        const file = path.join(dir, 'entry.json');
        fs.writeFileSync(file, JSON.stringify(entry));
        const granted = await cli(['grant', ...withKeys, file, '--ttl', '600000'], { env });
        assert.equal(granted.status, 0, granted.stderr);
        assert.match(granted.stdout, /^granted\n/);
        assert.match(granted.stdout, /grant expires: {2}\d{4}-/);
        const prepared = calls[3];
        const decision = await evaluateToolCall({ prepared, policy: app.grants.policy(), policyContext: { grantScope: 'user:alice' } });
        assert.equal(decision.decision, 'allow');
        // Decline run-1 from its entry file; a bare proposal file cannot be declined (3).
        const declineFile = path.join(dir, 'decline.json');
        fs.writeFileSync(declineFile, JSON.stringify(seen.find((e) => e.runId === 'run-1')));
        assert.equal((await cli(['decline', ...base, declineFile])).status, 0);
        const bare = path.join(dir, 'bare.json');
        fs.writeFileSync(bare, JSON.stringify(seen.find((e) => e.runId === 'run-2').proposal));
        assert.equal((await cli(['decline', ...base, bare])).status, 3);
        const left = JSON.parse((await cli(['pending', ...withKeys, '--json'], { env })).stdout);
        assert.deepEqual(left.proposals.map((e) => e.runId).sort(), ['run-0', 'run-2', 'run-4']);
      } finally {
        await store.close();
        await opened.dispose();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

test('a store that cannot be reached exits 70 and never prints its URL or credentials', async () => {
  const password = `pw-${randomBytes(8).toString('hex')}`;
  const user = `user-${randomBytes(4).toString('hex')}`;
  for (const url of [`postgres://${user}:${password}@127.0.0.1:1/db`, `redis://${user}:${password}@127.0.0.1:1`]) {
    const run = await cli(['pending', '--store', url]);
    assert.equal(run.status, 70, run.stderr);
    for (const shown of [run.stdout, run.stderr]) {
      assert.ok(!shown.includes(password) && !shown.includes(user), `no credential in: ${shown}`);
    }
  }
  const bad = await cli(['pending', '--store', `mysql://${user}:${password}@host/db`]);
  assert.equal(bad.status, 2);
  assert.ok(!bad.stderr.includes(password) && !bad.stderr.includes(user));
});

test('an unsealed kept proposal (no key ring) is listed by its hash and granted once', async () => {
  const dir = tempDir();
  const url = `sqlite:${path.join(dir, 'grants.db')}`;
  const store = await openGrantStore(url);
  try {
    const grants = createApprovalGrants({ store });
    const prepared = prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{"service":"api"}' });
    await grants.keepProposal({ runId: 'r', toolCallId: 'c' }, prepared);
    const listed = await cli(['pending', '--store', url, '--json']);
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stderr, /no key ring given/);
    const [entry] = JSON.parse(listed.stdout).proposals;
    assert.equal(entry.proposal.argsCanonicalJson, '{"service":"api"}');
    assert.equal(entry.proposal.proposalHash, prepared.proposalHash);
    assert.equal((await cli(['grant', '--store', url, '--id', entry.id, '--scope', 'team:ops'])).status, 0);
    assert.equal(await grants.has({ agentName: 'ops', toolName: 'deploy', proposalHash: prepared.proposalHash, scope: 'team:ops' }), true);
    // The kept proposal with its hash edited: hash_mismatch, by its code.
    await store.putProposal('1:rc', JSON.stringify({ ...entry.proposal, argsCanonicalJson: '{"service":"db"}' }), null);
    const tampered = await cli(['pending', '--store', url, '--json']);
    assert.equal(tampered.status, 1);
    assert.deepEqual(JSON.parse(tampered.stdout).proposals[0].error, { name: 'SnapshotDomainError', code: 'hash_mismatch' });
    assert.ok(!tampered.stdout.includes('"db"') && !tampered.stdout.includes('\\"db\\"'));
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a seal under a key the ring lacks (unknown_key) or past its expiry (seal_expired) is listed by its code and refused with exit 1', async () => {
  const dir = tempDir();
  const url = `sqlite:${path.join(dir, 'grants.db')}`;
  const store = await openGrantStore(url);
  try {
    const keyFile = path.join(dir, 'keys.json');
    fs.writeFileSync(keyFile, JSON.stringify(KEYS));
    const prepared = prepareToolCall({ agentName: 'ops', toolName: 'deploy', rawArguments: '{"service":"api"}' });
    const otherRing = createApprovalGrants({ store, keys: [{ id: 'someone-else', secret: 'another-secret-of-thirty-two-bytes!!' }] });
    await otherRing.keepProposal({ runId: 'r1', toolCallId: 'c1' }, prepared);
    // A seal that expires in 1 ms, kept by the store without an expiry of its own.
    const ours = createApprovalGrants({ store, keys: KEYS });
    await store.putProposal('2:r2c2', JSON.stringify(ours.seal(prepared, { ttlMs: 1 })), null);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const listed = await cli(['pending', '--store', url, '--key-file', keyFile, '--json']);
    assert.equal(listed.status, 1, listed.stderr);
    const byRun = Object.fromEntries(JSON.parse(listed.stdout).proposals.map((e) => [e.runId, e]));
    assert.deepEqual(byRun.r1.error, { name: 'ApprovalGrantError', code: 'unknown_key' });
    assert.deepEqual(byRun.r2.error, { name: 'ApprovalGrantError', code: 'seal_expired' });
    assert.ok(!listed.stdout.includes('"service"'), 'no text of a proposal that does not verify');
    for (const [entry, code] of [
      [byRun.r1, 'unknown_key'],
      [byRun.r2, 'seal_expired'],
    ]) {
      const refused = await cli(['grant', '--store', url, '--key-file', keyFile, '--id', entry.id]);
      assert.equal(refused.status, 1, refused.stderr);
      assert.match(refused.stderr, new RegExp(`code ${code}\\)`));
    }
    assert.equal(await ours.has({ agentName: 'ops', toolName: 'deploy', proposalHash: prepared.proposalHash }), false, 'nothing granted');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// ---- What the review commands print and refuse (red team rounds 4 and 5) ---------------
// An edited record, characters a terminal hides, a gate's evidence of an approval given,
// expiries a Date cannot hold, and a run id that looks like a gate's.

const { createSqliteGrantStore } = require('../..');

async function keptProposalOf(rawArguments) {
  const prepared = prepareToolCall({ agentName: 'billing', toolName: 'pay', rawArguments });
  const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'payments' }) });
  return decision.proposal;
}

/** A kept unsealed proposal whose nonce was changed in the store (the arguments untouched). */
async function keptWithTamperedNonce(store) {
  const grants = createApprovalGrants({ store });
  await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, await keptProposalOf('{"cents":987654321}'));
  const storeKey = '8:thread-1call_1';
  const record = JSON.parse(await store.getProposal(storeKey, Date.now()));
  assert.equal(typeof record.nonce, 'string');
  record.nonce = 7;
  await store.putProposal(storeKey, JSON.stringify(record), null);
  return grants;
}

test('CLI: a kept record whose nonce was changed is listed by its code and refused by grant --id as input (exit 3), not as a store failure (70)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    await keptWithTamperedNonce(store);
    const listed = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(listed.status, 1, listed.stderr);
    const [entry] = JSON.parse(listed.stdout).proposals;
    assert.deepEqual(entry.error, { name: 'SnapshotDomainError', code: 'not_a_snapshot' });
    assert.doesNotMatch(listed.stdout + listed.stderr, /987654321/);
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', entry.id]);
    assert.equal(granted.status, 3, granted.stderr);
    assert.match(granted.stderr, /not_a_snapshot/);
    assert.doesNotMatch(granted.stdout + granted.stderr, /987654321/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: grant --id warns, as pending does, when the granted canonical JSON holds characters a terminal hides or reorders (it printed them with no warning)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const grants = createApprovalGrants({ store });
    // A right-to-left override: a terminal shows the digits after it reversed.
    await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, await keptProposalOf('{"memo":"\\u202e0001","cents":100}'));
    const listed = await cli(['pending', '--store', `sqlite:${file}`]);
    assert.match(listed.stderr, /warning: the canonical JSON contains 1 invisible or bidirectional control character\(s\) \(U\+202E\)/);
    const id = /^id: +(\S+)$/m.exec(listed.stdout)[1];
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', id]);
    assert.equal(granted.status, 0, granted.stderr);
    assert.match(granted.stdout, /^granted$/m);
    assert.match(granted.stderr, /warning: the canonical JSON contains 1 invisible or bidirectional control character\(s\) \(U\+202E\)/);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("CLI: a call approved through the AI SDK gate is no longer pending: pending does not list the gate's evidence of the approval, and grant/decline --id refuse it (not_pending); it was listed as waiting for 24 hours and granted a second time", async () => {
  const { generateText, tool, stepCountIs } = require('ai');
  const { MockLanguageModelV4 } = require('ai/test');
  const { z } = require('zod');
  const { createToolGate } = require('tool-argument-snapshot/ai');
  const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const grants = createApprovalGrants({ store });
    const tools = { transfer: tool({ inputSchema: z.object({ cents: z.number() }), execute: async () => 'sent' }) };
    const gate = createToolGate({
      agentName: 'payments',
      tools,
      grants,
      runId: 'chat-1',
      policy: () => ({ decision: 'require_approval', reason: 'every transfer' }),
    });
    const model = new MockLanguageModelV4({
      doGenerate: async () => ({
        content: [{ type: 'tool-call', toolCallId: 'call-1', toolName: 'transfer', input: '{"cents":500}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }),
    });
    const asked = await generateText({ model: gate.model(model), tools: gate.tools, toolApproval: gate.toolApproval, stopWhen: stepCountIs(1), prompt: 'pay' });
    const request = asked.content.find((p) => p.type === 'tool-approval-request');
    const before = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(JSON.parse(before.stdout).proposals.length, 1);
    await gate.approve(request);
    // What the gate keeps after approve (its evidence, under the AI SDK gate's approved run).
    const kept = await grants.listProposals();
    assert.equal(kept.proposals.length, 1);
    assert.match(kept.proposals[0].runId, /^ai-approved /);
    const evidenceId = Buffer.from(`${kept.proposals[0].runId.length}:${kept.proposals[0].runId}call-1`, 'utf8').toString('base64url');

    const after = await cli(['pending', '--store', `sqlite:${file}`, '--json']);
    assert.equal(after.status, 0, after.stderr);
    assert.deepEqual(JSON.parse(after.stdout).proposals, []);
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', evidenceId]);
    assert.equal(granted.status, 1, granted.stderr);
    assert.match(granted.stderr, /not_pending/);
    const declined = await cli(['decline', '--store', `sqlite:${file}`, '--id', evidenceId]);
    assert.equal(declined.status, 1, declined.stderr);
    // The one grant the gate's approve made is the only one: one identical call runs on
    // it, the next needs a reviewer again.
    const { executeToolCall } = require('../..');
    const attempt = async () => {
      const prepared = prepareToolCall({ agentName: 'payments', toolName: 'transfer', rawArguments: '{"cents":500}' });
      const decision = await evaluateToolCall({ prepared, policy: grants.policy(() => ({ decision: 'require_approval', reason: 'every transfer' })) });
      if (decision.decision !== 'allow') return decision.decision;
      return executeToolCall(decision, () => 'ran', { receipts: undefined });
    };
    assert.equal(await attempt(), 'ran');
    assert.equal(await attempt(), 'require_approval');
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: an expiry a Date cannot hold is printed as its number, never an exit 70 after the work is done (grant --ttl at its documented maximum granted, then reported "the store failed"; one record\'s expiresAt stopped the whole pending listing; verify-snapshot of a long seal was an internal error)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt4-'));
  const file = path.join(dir, 'grants.db');
  const store = createSqliteGrantStore({ path: file });
  try {
    const grants = createApprovalGrants({ store });
    const proposal = await keptProposalOf('{"cents":5}');
    await grants.keepProposal({ runId: 'thread-1', toolCallId: 'call_1' }, proposal);
    const listed = await cli(['pending', '--store', `sqlite:${file}`]);
    const id = /^id: +(\S+)$/m.exec(listed.stdout)[1];
    const granted = await cli(['grant', '--store', `sqlite:${file}`, '--id', id, '--ttl', '8640000000000000']);
    assert.equal(granted.status, 0, granted.stderr);
    assert.match(granted.stdout, /^grant expires: +\d{16} ms since 1970-01-01T00:00:00\.000Z$/m);

    // An unsealed record is trusted with its expiry (no signature covers it): printed as it is.
    await grants.keepProposal({ runId: 'thread-2', toolCallId: 'call_1' }, proposal);
    const storeKey = '8:thread-2call_1';
    const record = JSON.parse(await store.getProposal(storeKey, Date.now()));
    record.expiresAt = 1e20;
    await store.putProposal(storeKey, JSON.stringify(record), null);
    const after = await cli(['pending', '--store', `sqlite:${file}`]);
    assert.equal(after.status, 0, after.stderr);
    assert.match(after.stdout, /^kept until: +100000000000000000000 ms since 1970-01-01T00:00:00\.000Z$/m);

    const keys = [{ id: 'k1', secret: 'a-secret-of-at-least-thirty-two-bytes!!' }];
    const sealed = createApprovalGrants({ keys }).seal(proposal, { ttlMs: 8.64e15 });
    const keyFile = path.join(dir, 'keys.json');
    const sealedFile = path.join(dir, 'sealed.json');
    fs.writeFileSync(keyFile, JSON.stringify(keys));
    fs.writeFileSync(sealedFile, JSON.stringify(sealed));
    const verified = await cli(['verify-snapshot', '--key-file', keyFile, sealedFile]);
    assert.equal(verified.status, 0, verified.stderr);
    assert.match(verified.stdout, /^seal expires: +\d{16} ms since 1970-01-01T00:00:00\.000Z$/m);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Not fixed (a design decision, written down with its reproducer): LangChain's createToolGate
// keeps a proposal under the application's own run id as it is (adapters/langchain/gate/
// proposals.js keptKeyOf), not namespaced as the other gates' keptRunId keys are. A run id
// (a thread id a client may choose) that begins with `ai-approved ` or `mastra-approved ` is
// taken by the CLI for a gate's evidence of an approval given: `pending` hides the proposal that
// waits under it and `grant --id` refuses it. A run id such as `mcp 8:payments - hash` shares
// the MCP gate's key space. Namespacing LangChain's key changes where kept records of earlier
// versions are found, hence not changed here.
test(
  "CLI: a proposal kept under a run id as LangChain's createToolGate keeps it (the application's run id, raw) is listed by pending whatever the run id says",
  { todo: 'LangChain kept-proposal keys are not namespaced; see the comment above' },
  async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-rt5-'));
    const file = path.join(dir, 'grants.db');
    const store = createSqliteGrantStore({ path: file });
    try {
      const { prepareToolCall, evaluateToolCall } = require('../..');
      const prepared = prepareToolCall({ agentName: 'support', toolName: 'refund', rawArguments: '{"cents":900000}' });
      const decision = await evaluateToolCall({ prepared, policy: () => ({ decision: 'require_approval', reason: 'refunds' }) });
      await createApprovalGrants({ store }).keepProposal({ runId: 'ai-approved thread-of-a-client', toolCallId: 'call_1' }, decision.proposal);
      const listed = await cli(['pending', '--json', '--store', `sqlite:${file}`]);
      assert.equal(JSON.parse(listed.stdout).proposals.length, 1, 'the waiting proposal is listed');
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
);
