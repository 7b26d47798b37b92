'use strict';
// grant: one proposal approved in a grant store, through the package's grants (the same
// grant an application's grants.grant records), so the application's gate on that store
// runs the call once.

const { PROGRAM, EXIT_OK, UsageError, InputRejected } = require('../shared/errors.js');
const { displayString, warnIfDeceptive, expiryText, writeJson } = require('../shared/output.js');
const { readId, readCount, withReview, refusal, notPending, looksSealed, sealedNeedsKeys, isApprovalEvidence } = require('../shared/review.js');
const { readProposalFile } = require('../shared/pending-file.js');

const usage = `  ${PROGRAM} grant --store URL [--table NAME | --prefix P]
                      [--key-file PATH | --key-env NAME]
                      (--id ID | PROPOSAL.json|-) [--scope S] [--ttl MS]
                      [--json]
`;

const summary = `  grant         Approve one proposal in the grant store at URL: the one kept
                under --id ID (as pending printed it; it then leaves the
                pending ones), or the proposal in PROPOSAL.json (a proposal
                record, or an entry of pending --json, whose kept proposal
                then leaves the pending ones too). It is verified as pending verifies it (a
                sealed one only with its key ring) and granted once, for --scope
                S (a sealed proposal's own scope otherwise) and --ttl MS
                milliseconds (else until used). Exit 1 when refused: a signature
                that does not verify (bad_signature), an unknown key, an expired
                seal, a hash that does not match, a proposal granted before
                (seal_used) or nothing kept under the id (not_pending).
`;

/** The nonce of a kept record's text, or undefined. */
function nonceOf(text) {
  try {
    const record = JSON.parse(text);
    return record !== null && typeof record === 'object' && typeof record.nonce === 'string' ? record.nonce : undefined;
  } catch {
    return undefined;
  }
}

function readTtl(values) {
  return readCount(values, 'ttl', 8.64e15);
}

async function runGrant({ values, file }) {
  if ((values.id === undefined) === (file === undefined)) throw new UsageError('grant takes --id ID or a PROPOSAL.json file (one of them)');
  const ttlMs = readTtl(values);
  if (values.scope !== undefined && !values.scope.isWellFormed()) throw new UsageError('--scope must be well-formed Unicode text');
  const fromFile = file === undefined ? undefined : await readProposalFile(file);
  const ids = values.id !== undefined ? readId(values.id) : fromFile.ids;
  // A gate's evidence of an approval already given is no pending proposal: never granted again.
  if (ids !== undefined && isApprovalEvidence(ids.runId)) throw notPending();
  return withReview(values, async ({ lib, store, grants, keys }) => {
    let proposal;
    if (fromFile === undefined) {
      const text = await store.getProposal(ids.storeKey, Date.now());
      if (text === null || text === undefined) throw notPending();
      if (keys === undefined && looksSealed(text)) throw sealedNeedsKeys();
      try {
        proposal = await grants.keptProposal({ runId: ids.runId, toolCallId: ids.toolCallId });
      } catch (error) {
        throw refusal(lib, error, 'the kept proposal');
      }
      if (proposal === undefined) throw notPending();
    } else {
      proposal = fromFile.proposal;
      if (keys === undefined && Object.hasOwn(proposal, 'signature')) throw sealedNeedsKeys();
    }
    const options = {};
    if (values.scope !== undefined) options.scope = values.scope;
    if (ttlMs !== undefined) options.ttlMs = ttlMs;
    let record;
    try {
      record = await grants.grant(proposal, options);
    } catch (error) {
      if (error instanceof TypeError && /** @type {NodeJS.ErrnoException} */ (error).code === 'ERR_INVALID_ARG_TYPE') {
        // The grants refuse an option that does not fit the proposal (a scope other than
        // the sealed one), or a record that is no proposal: their message names no field value.
        if (/scope/.test(error.message)) throw new UsageError(error.message);
        throw new InputRejected('the file is not a proposal (agentName, toolName, argsCanonicalJson and proposalHash)', 'snapshot', 'not_a_snapshot');
      }
      throw refusal(lib, error, 'the proposal');
    }
    // The kept proposal leaves the pending ones when it is the one just granted (its nonce):
    // one kept again under the same id since then stays.
    if (ids !== undefined && record.nonce !== null) {
      const kept = await store.getProposal(ids.storeKey, Date.now());
      if (typeof kept === 'string' && nonceOf(kept) === record.nonce) await grants.forgetProposal({ runId: ids.runId, toolCallId: ids.toolCallId });
    }
    if (values.json) {
      writeJson({
        granted: true,
        agentName: record.agentName,
        toolName: record.toolName,
        argsCanonicalJson: record.argsCanonicalJson,
        proposalHash: record.proposalHash,
        scope: record.scope,
        expiresAt: record.expiresAt,
        uses: record.uses,
        keyId: record.keyId,
      });
    } else {
      process.stdout.write(
        'granted\n' +
          `agent name:     ${displayString(record.agentName)}\n` +
          `tool name:      ${displayString(record.toolName)}\n` +
          `canonical JSON: ${record.argsCanonicalJson}\n` +
          `proposal hash:  ${record.proposalHash}\n` +
          `grant scope:    ${record.scope === null ? 'none' : displayString(record.scope)}\n` +
          `grant expires:  ${expiryText(record.expiresAt)}\n`,
      );
      // As pending does: what was granted may hold characters a terminal hides or reorders.
      warnIfDeceptive(record.argsCanonicalJson);
    }
    return EXIT_OK;
  });
}

module.exports = {
  name: 'grant',
  usage,
  summary,
  options: {
    store: 'string',
    table: 'string',
    prefix: 'string',
    'key-file': 'string',
    'key-env': 'string',
    id: 'string',
    scope: 'string',
    ttl: 'string',
    json: 'boolean',
  },
  required: ['store'],
  run: runGrant,
};
