'use strict';
// decline: a kept proposal forgotten, so it is no longer pending and can no longer be
// granted by its id. Nothing is granted; a tampered proposal can be declined too.

const { PROGRAM, EXIT_OK, UsageError, InputRejected } = require('../shared/errors.js');
const { writeJson } = require('../shared/output.js');
const { readId, withReview, notPending, isApprovalEvidence } = require('../shared/review.js');
const { readProposalFile } = require('../shared/pending-file.js');

const usage = `  ${PROGRAM} decline --store URL [--table NAME | --prefix P]
                        (--id ID | PENDING.json|-) [--json]
`;

const summary = `  decline       Forget the proposal kept under --id ID in the grant store at URL
                (or under the id of PENDING.json, an entry of pending --json):
                it leaves the pending ones and nothing is granted. Exit 1 when
                nothing is kept under the id (not_pending).
`;

async function runDecline({ values, file }) {
  if ((values.id === undefined) === (file === undefined)) throw new UsageError('decline takes --id ID or a PENDING.json file (one of them)');
  let ids;
  if (values.id !== undefined) {
    ids = readId(values.id);
  } else {
    const read = await readProposalFile(file);
    if (read.ids === undefined) {
      throw new InputRejected(
        'the file is not an entry of pending --json (it has no id): decline needs the id of a kept proposal',
        'snapshot',
        'not_a_snapshot',
      );
    }
    ids = read.ids;
  }
  // A gate's evidence of an approval already given is no pending proposal (its grant stands).
  if (isApprovalEvidence(ids.runId)) throw notPending();
  return withReview(values, async ({ store, grants }) => {
    const text = await store.getProposal(ids.storeKey, Date.now());
    if (text === null || text === undefined) throw notPending();
    await grants.forgetProposal({ runId: ids.runId, toolCallId: ids.toolCallId });
    if (values.json) writeJson({ declined: true, runId: ids.runId, toolCallId: ids.toolCallId });
    else process.stdout.write('declined\n');
    return EXIT_OK;
  });
}

module.exports = {
  name: 'decline',
  usage,
  summary,
  options: {
    store: 'string',
    table: 'string',
    prefix: 'string',
    id: 'string',
    json: 'boolean',
  },
  required: ['store'],
  run: runDecline,
};
