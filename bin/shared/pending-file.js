'use strict';
// The PROPOSAL.json operand of grant and decline: a proposal record (what an application
// stored or sent: sealed, or the four snapshot fields), or one entry of `pending --json`
// ({ id, runId, toolCallId, verified, proposal }). Read as bytes, strict UTF-8 and strict
// JSON (a name given twice anywhere is refused, so no reader can see other fields).

const { InputRejected, loadLibrary, rejectedFrom } = require('./errors.js');
const { readText } = require('./input.js');
const { readId } = require('./review.js');

/** { proposal, ids } of the file: ids (from an entry's id) or undefined for a bare record. */
async function readProposalFile(file) {
  const text = await readText(file);
  const lib = loadLibrary();
  try {
    lib.decodeView(text);
  } catch (error) {
    throw rejectedFrom(lib, error, () => 'json');
  }
  const value = JSON.parse(text);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InputRejected(
      'the file is not a proposal (an object with agentName, toolName, argsCanonicalJson and proposalHash) or an entry of pending --json',
      'snapshot',
      'not_a_snapshot',
    );
  }
  if (!Object.hasOwn(value, 'proposal')) return { proposal: value, ids: undefined };
  const proposal = value.proposal;
  if (proposal === null || typeof proposal !== 'object' || Array.isArray(proposal) || typeof value.id !== 'string') {
    throw new InputRejected('the file is not an entry of pending --json (an id and a proposal)', 'snapshot', 'not_a_snapshot');
  }
  let ids;
  try {
    ids = readId(value.id);
  } catch {
    throw new InputRejected('the id of the entry is not one that pending prints', 'snapshot', 'not_a_snapshot');
  }
  return { proposal, ids };
}

module.exports = { readProposalFile };
