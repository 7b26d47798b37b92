'use strict';
// The review of a pass: humanInTheLoopMiddleware's interrupt value plus the kept proposals,
// and the resume's decisions, checked as that middleware checks them.

const { own } = require('../../gate/read');
const { ArrayIsArray, ArrayPrototypePush, ArrayPrototypeIncludes, ArrayPrototypeSlice, JSONStringify, isProxy } = require('../../gate/primordials');
const { api } = require('../gate/core');
const { interrupt } = require('./peers');

const { decodeView } = api;

/** `reviewValue` and `review` for the middleware's allowed decisions and description prefix. */
function createReview(allowedDecisions, descriptionPrefix) {
  /** HITL's interrupt value for the calls under review, plus the kept (sealed) proposals. */
  function reviewValue(outcomes) {
    const actionRequests = [];
    const reviewConfigs = [];
    const proposals = [];
    for (let i = 0; i < outcomes.length; i++) {
      const { decision, call, kept } = outcomes[i];
      const args = decodeView(decision.argsCanonicalJson);
      ArrayPrototypePush(actionRequests, {
        name: call.name,
        args,
        description: `${descriptionPrefix} (${decision.reason})\n\nTool: ${call.name}\nArgs: ${JSONStringify(args, null, 2)}`,
        toolCallId: call.id,
        argumentsSource: call.argumentsSource,
      });
      ArrayPrototypePush(reviewConfigs, { actionName: call.name, allowedDecisions: ArrayPrototypeSlice(allowedDecisions) });
      ArrayPrototypePush(proposals, kept);
    }
    return { actionRequests, reviewConfigs, proposals };
  }

  /**
   * The decisions of a resume, one per call under review, checked as
   * humanInTheLoopMiddleware checks them; a string saying what is wrong otherwise.
   */
  function readResume(resume, count) {
    const decisions = own(resume, 'decisions');
    if (!ArrayIsArray(decisions) || isProxy(decisions)) return { problem: '{ decisions } must be an array' };
    if (decisions.length !== count)
      return { problem: `Number of human decisions (${decisions.length}) does not match number of calls under review (${count})` };
    for (let i = 0; i < decisions.length; i++) {
      const decision = decisions[i];
      const type = own(decision, 'type');
      if (!ArrayPrototypeIncludes(allowedDecisions, type)) return { problem: `decision ${i}: its type must be one of ${JSONStringify(allowedDecisions)}` };
      if (type === 'edit') {
        const edited = own(decision, 'editedAction');
        const args = own(edited, 'args');
        if (typeof own(edited, 'name') !== 'string') return { problem: `decision ${i}: editedAction.name must be a string` };
        if (args === null || typeof args !== 'object' || ArrayIsArray(args)) return { problem: `decision ${i}: editedAction.args must be an object` };
      }
      if (type === 'reject' && own(decision, 'message') !== undefined && typeof own(decision, 'message') !== 'string') {
        return { problem: `decision ${i}: a reject message must be a string` };
      }
    }
    return { decisions };
  }

  /**
   * Asks for the review and returns the decisions. LangGraph keeps a resume value once
   * interrupt() has returned it, so a malformed one (a UI's bug) would come back on every
   * later resume: it is answered with the same review asked again (a new interrupt of the
   * task, `invalidResume` saying what was wrong), never with a throw that strands the thread.
   */
  function review(value, count) {
    let problem;
    for (;;) {
      const asked = problem === undefined ? value : { ...value, invalidResume: problem };
      const read = readResume(interrupt(asked), count);
      if (read.decisions !== undefined) return read.decisions;
      problem = read.problem;
    }
  }

  return { reviewValue, review };
}

module.exports = { createReview };
