'use strict';
// diff: where the arguments of two stored proposals of one agent and tool differ.

const { PROGRAM, EXIT_OK, EXIT_MISMATCH, EXIT_REJECTED, InputRejected, loadLibrary } = require('../shared/errors.js');
const { readText } = require('../shared/input.js');
const { displayString, warnIfDeceptive, writeJson } = require('../shared/output.js');
const { readRecord, verifyRecord } = require('../shared/records.js');

const usage = `  ${PROGRAM} diff [--values] [--json] APPROVED PROPOSED
`;

const summary = `  diff          Compare two stored proposals or snapshots of the same agent and
                tool (files, as verify-snapshot reads them; either may be -):
                list the JSON Pointer of every member or element added,
                removed or changed, in canonical key order. Exit 0 when the
                arguments are equal, 1 when they differ. A record that does not
                verify, or two records of different agents or tools, exit 3.
                The paths are made of payload keys; values are printed only
                with --values. A diff is a reviewer's aid,
                never an authorization: approvals bind the proposal hash.
`;

/** A diff entry's value as canonical JSON, for display. */
function shownValue(lib, value) {
  return lib.canonicalize(value);
}

async function runDiff({ values, files }) {
  const [approvedText, proposedText] = [await readText(files[0]), await readText(files[1])];
  const lib = loadLibrary();
  const sides = [];
  for (const [text, what] of [
    [approvedText, 'the approved record'],
    [proposedText, 'the proposed record'],
  ]) {
    let snapshot;
    try {
      snapshot = verifyRecord(lib, readRecord(text, what, false), what);
    } catch (error) {
      // Here 1 means "the arguments differ": a record that does not verify is rejected input.
      if (error instanceof InputRejected) error.exitStatus = EXIT_REJECTED;
      throw error;
    }
    sides.push(snapshot);
  }
  const [approved, proposed] = sides;
  if (approved.agentName !== proposed.agentName) {
    throw new InputRejected('the records name different agents; a diff compares two calls of one agent and one tool', 'snapshot', 'different_agent');
  }
  if (approved.toolName !== proposed.toolName) {
    throw new InputRejected('the records name different tools; a diff compares two calls of one agent and one tool', 'snapshot', 'different_tool');
  }
  const changes = lib.diffSnapshots(approved, proposed, { includeValues: values.values === true });
  const equal = changes.length === 0;
  if (values.json) {
    writeJson({
      equal,
      agentName: approved.agentName,
      toolName: approved.toolName,
      approvedHash: approved.proposalHash,
      proposedHash: proposed.proposalHash,
      changes,
    });
    return equal ? EXIT_OK : EXIT_MISMATCH;
  }
  const names = `agent name:     ${displayString(approved.agentName)}\ntool name:      ${displayString(approved.toolName)}\n`;
  if (equal) {
    process.stdout.write(`equal\n${names}proposal hash:  ${approved.proposalHash}\n`);
    return EXIT_OK;
  }
  let lines = '';
  let printed = '';
  for (const change of changes) {
    let line = `${change.kind.padEnd(7)} ${displayString(change.path)}`;
    if (values.values) {
      const before = change.kind === 'added' ? undefined : shownValue(lib, change.approved);
      const after = change.kind === 'removed' ? undefined : shownValue(lib, change.proposed);
      if (change.kind === 'changed') line += `: ${before} -> ${after}`;
      else line += `: ${before ?? after}`;
      printed += `${before ?? ''}${after ?? ''}`;
    }
    lines += `${line}\n`;
  }
  process.stdout.write(
    `different: ${changes.length} ${changes.length === 1 ? 'path' : 'paths'}\n${names}` +
      `approved hash:  ${approved.proposalHash}\nproposed hash:  ${proposed.proposalHash}\n${lines}`,
  );
  if (printed !== '') warnIfDeceptive(printed);
  return EXIT_MISMATCH;
}

module.exports = {
  name: 'diff',
  usage,
  summary,
  /** The options it takes: whether each takes a value. */
  options: {
    values: 'boolean',
    json: 'boolean',
  },
  required: [],
  operands: 2,
  run: runDiff,
};
