'use strict';
// verify: raw tool-call arguments checked against an approved proposal hash.

const { PROGRAM, EXIT_OK, EXIT_MISMATCH } = require('../shared/errors.js');
const { prepare } = require('../shared/input.js');
const { warnIfDeceptive, writeJson } = require('../shared/output.js');

const usage = `  ${PROGRAM} verify --agent NAME --tool NAME --hash HEX
                                [--json] [FILE|-]
`;

const summary = `  verify        Hash the raw tool-call arguments as hash does; exit 0 and print
                "match" only when that proposal hash is HEX (64 hex digits, any
                case); otherwise print "mismatch", both hashes and the canonical
                JSON that was hashed, and exit 1. This checks the provider's raw
                arguments: an approval binds the snapshot of the schema's output,
                which differs when the schema adds defaults or converts values.
                To check a stored approval, use verify-snapshot.
`;

async function runVerify({ values, file }) {
  const prepared = await prepare(values, file);
  const { agentName, toolName, argsCanonicalJson, proposalHash } = prepared;
  const expectedHash = values.hash.toLowerCase();
  const match = proposalHash === expectedHash;
  if (values.json) {
    writeJson({ match, agentName, toolName, argsCanonicalJson, proposalHash, expectedHash });
  } else if (match) {
    process.stdout.write(`match\nproposal hash:  ${proposalHash}\n`);
  } else {
    process.stdout.write(`mismatch\nexpected hash:  ${expectedHash}\nactual hash:    ${proposalHash}\ncanonical JSON: ${argsCanonicalJson}\n`);
  }
  if (!values.json) warnIfDeceptive(argsCanonicalJson);
  return match ? EXIT_OK : EXIT_MISMATCH;
}

module.exports = {
  name: 'verify',
  usage,
  summary,
  /** The options it takes: whether each takes a value. */
  options: {
    agent: 'string',
    tool: 'string',
    hash: 'string',
    json: 'boolean',
    'include-path': 'boolean',
  },
  required: ['agent', 'tool', 'hash'],
  run: runVerify,
};
