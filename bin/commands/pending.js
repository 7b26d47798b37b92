'use strict';
// pending: the proposals kept in a grant store for a reviewer, each verified (its seal with
// the key ring, its hash always); one that does not verify is listed with its code only.

const { PROGRAM, EXIT_OK, EXIT_MISMATCH, UsageError } = require('../shared/errors.js');
const { displayString, warnIfDeceptive, expiryText, writeJson } = require('../shared/output.js');
const { idOf, isApprovalEvidence, printedCursor, readCursor, readCount, withReview } = require('../shared/review.js');

const usage = `  ${PROGRAM} pending --store URL [--table NAME | --prefix P]
                        [--key-file PATH | --key-env NAME]
                        [--limit N] [--cursor C] [--json]
`;

const summary = `  pending       List the proposals kept in the grant store at URL (sqlite:PATH,
                postgres://..., redis://...) that wait for a reviewer, at most
                --limit of them (default 100, at most 1000), from --cursor (the
                cursor a previous page printed). Each is verified: with
                --key-file or --key-env its seal (key, signature, expiry), and
                always its proposal hash; it is printed with its id (for grant
                and decline), run and call ids, agent, tool, canonical JSON and
                hash, and a sealed one with its key id, expiry and scope. One
                that does not verify is printed with its id and code only
                (bad_signature, unknown_key, seal_expired, not_sealed,
                hash_mismatch, ...), never its text, and the exit status is 1.
`;

const expiry = expiryText;

/** One verified entry as labelled lines. */
function describe(entry) {
  const p = entry.proposal;
  let text =
    `id:             ${entry.id}\n` +
    `run id:         ${displayString(entry.runId)}\n` +
    `tool call id:   ${displayString(entry.toolCallId)}\n` +
    `agent name:     ${displayString(p.agentName)}\n` +
    `tool name:      ${displayString(p.toolName)}\n` +
    `canonical JSON: ${p.argsCanonicalJson}\n` +
    `proposal hash:  ${p.proposalHash}\n`;
  if (typeof p.keyId === 'string') {
    text +=
      `sealed by key:  ${displayString(p.keyId)}\n` +
      `seal expires:   ${expiry(p.expiresAt)}\n` +
      `grant scope:    ${p.scope === null ? 'none' : displayString(p.scope)}\n`;
  } else {
    text += `kept until:     ${expiry(p.expiresAt)}\n`;
  }
  return text;
}

async function runPending({ values, file }) {
  if (file !== undefined) throw new UsageError('pending reads no file');
  const limit = readCount(values, 'limit', 1000);
  const cursor = readCursor(values.cursor);
  return withReview(values, async ({ lib, grants, keys }) => {
    const page = await grants.listProposals(limit === undefined ? { cursor } : { limit, cursor });
    // The gates' evidence of approvals already given is not pending (see isApprovalEvidence).
    const entries = page.proposals
      .filter((entry) => !isApprovalEvidence(entry.runId))
      .map((entry) => {
        const id = entry.runId === null ? null : idOf(entry.runId, entry.toolCallId);
        if (entry.error === undefined) return { id, runId: entry.runId, toolCallId: entry.toolCallId, verified: true, proposal: entry.proposal };
        const kind = lib.isApprovalGrantError(entry.error)
          ? 'ApprovalGrantError'
          : entry.error instanceof lib.SnapshotDomainError
            ? 'SnapshotDomainError'
            : 'Error';
        const code = typeof entry.error.code === 'string' ? entry.error.code : 'internal_error';
        return { id, runId: entry.runId, toolCallId: entry.toolCallId, verified: false, error: { name: kind, code } };
      });
    const refused = entries.filter((entry) => !entry.verified).length;
    const next = printedCursor(page.cursor);
    if (values.json) {
      writeJson({ proposals: entries, cursor: next });
    } else {
      const blocks = entries.map((entry) =>
        entry.verified
          ? describe(entry)
          : `id:             ${entry.id ?? 'none (not a key of keepProposal)'}\n` +
            (entry.runId === null ? '' : `run id:         ${displayString(entry.runId)}\ntool call id:   ${displayString(entry.toolCallId)}\n`) +
            `does not verify: ${entry.error.code} (${entry.error.name}); its text is not shown\n`,
      );
      let out =
        `pending: ${entries.length} proposal${entries.length === 1 ? '' : 's'}` +
        (refused === 0 ? '' : `, ${refused} that do${refused === 1 ? 'es' : ''} not verify`) +
        '\n';
      for (const block of blocks) out += `\n${block}`;
      if (next !== null) out += `\nmore: --cursor ${next}\n`;
      process.stdout.write(out);
      for (const entry of entries) if (entry.verified) warnIfDeceptive(entry.proposal.argsCanonicalJson);
    }
    if (keys === undefined) {
      process.stderr.write(`${PROGRAM}: note: no key ring given (--key-file or --key-env): seals are not checked, only proposal hashes\n`);
    }
    return refused === 0 ? EXIT_OK : EXIT_MISMATCH;
  });
}

module.exports = {
  name: 'pending',
  usage,
  summary,
  options: {
    store: 'string',
    table: 'string',
    prefix: 'string',
    'key-file': 'string',
    'key-env': 'string',
    limit: 'string',
    cursor: 'string',
    json: 'boolean',
  },
  required: ['store'],
  run: runPending,
};
