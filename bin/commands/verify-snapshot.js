'use strict';
// verify-snapshot: a stored proposal or snapshot checked, or a sealed proposal with a key ring.

const { PROGRAM, EXIT_OK, EXIT_MISMATCH, UsageError, InputRejected, loadLibrary } = require('../shared/errors.js');
const { readText, readKeyRing } = require('../shared/input.js');
const { displayString, warnIfDeceptive, expiryText, writeJson } = require('../shared/output.js');
const { RECORD_FIELDS, SEALED_FIELDS, NOT_SEALED, readRecord, verifyRecord, rejectedRecord } = require('../shared/records.js');

const usage = `  ${PROGRAM} verify-snapshot [--hash HEX] [--key-file PATH | --key-env NAME]
                                [--json] [FILE|-]
`;

const summary = `  verify-snapshot
                Check a stored proposal or snapshot (JSON with agentName,
                toolName, argsCanonicalJson and proposalHash, such as a
                SuspendedToolProposal): its JSON must be canonical and its hash
                must be the proposal hash of its agent, tool and JSON. Exit 0 and
                print "verified" with the verified fields; with --hash HEX, also
                only when its hash is HEX (else "mismatch", exit 1). A record
                whose JSON or hash does not check exits 1 (code not_canonical,
                hash_mismatch, or the error of its argsCanonicalJson, such as
                invalid_json); a file that is no such record exits 3
                (not_a_snapshot, or the file's own JSON error). Exactly what
                verifySnapshot accepts is accepted: only those four fields are
                read and checked, every other field (parsedArguments,
                rawArguments, ...) only has to be JSON, however deep; one of
                the four fields given twice is refused (duplicate_key).
                With --key-file or --key-env, the record must be a sealed
                proposal (createApprovalGrants({ keys }).seal): its key id
                names the key of the ring, its HMAC-SHA256 signature must
                verify and it must not have expired; exit 0 prints the key
                id, the expiry and the scope too. A signature that does not
                verify (bad_signature), an unknown key (unknown_key) or an
                expired seal (seal_expired) exits 1; a record that is not a
                sealed proposal (not_sealed) exits 3; a key that cannot be
                read exits 2. A key is never taken from an argument.
`;

/** A sealed proposal verified with a key ring: the library's fields, or InputRejected (exit 1 or 3). */
function verifySealedRecord(lib, keys, record) {
  let grants;
  try {
    grants = lib.createApprovalGrants({ keys });
  } catch (error) {
    // The ring itself is wrong (a short secret, a duplicate id): the message names no key material.
    throw new UsageError(`the key ring is not usable: ${error && error.message}`);
  }
  try {
    return grants.verify(record);
  } catch (error) {
    if (lib.isApprovalGrantError(error)) {
      const rejected = new InputRejected(error.message.replace(/\s*\[[a-z_]+\]$/, ''), 'seal', error.code);
      if (!NOT_SEALED.includes(error.code)) rejected.exitStatus = EXIT_MISMATCH;
      throw rejected;
    }
    throw rejectedRecord(lib, error);
  }
}

async function runVerifySnapshot({ values, file }) {
  const keys = values['key-file'] !== undefined || values['key-env'] !== undefined ? readKeyRing(values) : undefined;
  const text = await readText(file);
  const lib = loadLibrary();
  const record = readRecord(text, 'the file', values['include-path'] === true, keys === undefined ? RECORD_FIELDS : SEALED_FIELDS);
  const snapshot = keys === undefined ? verifyRecord(lib, record) : verifySealedRecord(lib, keys, record);
  const { agentName, toolName, argsCanonicalJson, proposalHash } = snapshot;
  const expectedHash = values.hash === undefined ? undefined : values.hash.toLowerCase();
  const match = expectedHash === undefined || proposalHash === expectedHash;
  if (values.json) {
    const out = { verified: true, agentName, toolName, argsCanonicalJson, proposalHash };
    if (keys !== undefined) Object.assign(out, { sealed: true, keyId: snapshot.keyId, expiresAt: snapshot.expiresAt, scope: snapshot.scope });
    if (expectedHash !== undefined) Object.assign(out, { match, expectedHash });
    writeJson(out);
    return match ? EXIT_OK : EXIT_MISMATCH;
  }
  let fields = `agent name:     ${displayString(agentName)}\ntool name:      ${displayString(toolName)}\n` + `canonical JSON: ${argsCanonicalJson}\n`;
  if (keys !== undefined) {
    fields +=
      `sealed by key:  ${displayString(snapshot.keyId)}\n` +
      `seal expires:   ${expiryText(snapshot.expiresAt)}\n` +
      `grant scope:    ${snapshot.scope === null ? 'none' : displayString(snapshot.scope)}\n`;
  }
  if (match) {
    process.stdout.write(`verified\n${fields}proposal hash:  ${proposalHash}\n`);
  } else {
    process.stdout.write(`mismatch\n${fields}expected hash:  ${expectedHash}\nactual hash:    ${proposalHash}\n`);
  }
  warnIfDeceptive(argsCanonicalJson);
  return match ? EXIT_OK : EXIT_MISMATCH;
}

module.exports = {
  name: 'verify-snapshot',
  usage,
  summary,
  /** The options it takes: whether each takes a value. */
  options: {
    hash: 'string',
    json: 'boolean',
    'include-path': 'boolean',
    'key-file': 'string',
    'key-env': 'string',
  },
  required: [],
  run: runVerifySnapshot,
};
