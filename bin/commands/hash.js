'use strict';
// hash: the canonical JSON and proposal hash of a provider's raw tool-call arguments.

const { PROGRAM, EXIT_OK } = require('../shared/errors.js');
const { prepare } = require('../shared/input.js');
const { warnIfDeceptive, writeJson } = require('../shared/output.js');

const usage = `  ${PROGRAM} hash --agent NAME --tool NAME [--json] [FILE|-]
`;

const summary = `  hash          Strict-decode the raw tool-call arguments (the provider's JSON
                string) and print their canonical JSON and proposal hash. Empty
                or whitespace-only input is the empty object {}, as providers
                send it.
`;

async function runHash({ values, file }) {
  const prepared = await prepare(values, file);
  const { agentName, toolName, argsCanonicalJson, proposalHash } = prepared;
  if (values.json) {
    writeJson({ agentName, toolName, argsCanonicalJson, proposalHash });
  } else {
    process.stdout.write(`canonical JSON: ${argsCanonicalJson}\nproposal hash:  ${proposalHash}\n`);
    warnIfDeceptive(argsCanonicalJson);
  }
  return EXIT_OK;
}

module.exports = {
  name: 'hash',
  usage,
  summary,
  /** The options it takes: whether each takes a value. */
  options: {
    agent: 'string',
    tool: 'string',
    json: 'boolean',
    'include-path': 'boolean',
  },
  required: ['agent', 'tool'],
  run: runHash,
};
