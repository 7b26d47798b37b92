'use strict';
// The passes of toolGateMiddleware: one execution of a tools task, whose calls all decide
// before any is reviewed (in one interrupt) or runs, and the position of a call in its message.

const { own, isWellFormedString } = require('../../gate/read');
const { ArrayPrototypePush, SafeWeakMap, WeakMapPrototypeGet, WeakMapPrototypeSet } = require('../../gate/primordials');
const { deferred } = require('./task');

/**
 * One execution of a tools task: every call it runs registers; once all have decided,
 * the calls that need approval are reviewed in one interrupt (message order), and only
 * then does anything run. A v2 task has one call.
 */
function passOf(passes, configurable, members) {
  let pass = WeakMapPrototypeGet(passes, configurable);
  if (pass === undefined) {
    pass = { members, decided: 0, outcomes: new SafeWeakMap(), ready: deferred(), review: deferred() };
    WeakMapPrototypeSet(passes, configurable, pass);
  }
  return pass;
}

function finishDeciding(pass) {
  pass.decided++;
  if (pass.decided === pass.members.length) pass.ready.resolve();
}

/** The call's position in the message, for pairing with its provider text (-1: none). */
function positionOf(toolCalls, toolCall, single) {
  let position = -1;
  if (single) {
    const id = own(toolCall, 'id');
    for (let i = 0; i < toolCalls.length; i++) {
      if (toolCalls[i] === toolCall || (isWellFormedString(id) && own(toolCalls[i], 'id') === id && own(toolCalls[i], 'name') === own(toolCall, 'name'))) {
        if (position === -1 || toolCalls[i] === toolCall) position = i;
      }
    }
  } else {
    for (let i = 0; i < toolCalls.length; i++) if (toolCalls[i] === toolCall) position = i;
  }
  return position;
}

/**
 * The calls of a pass under review, in message order, and the reviewer's decisions: the
 * first of them asks for the review (one interrupt), every other call of the pass waits for
 * it, so nothing runs in a pass the review interrupts.
 */
async function reviewOf(pass, members, outcome, reviewValue, review) {
  const reviewing = [];
  for (let i = 0; i < members.length; i++) {
    const member = WeakMapPrototypeGet(pass.outcomes, members[i]);
    if (member.kind === 'review') ArrayPrototypePush(reviewing, member);
  }
  let decisions;
  if (reviewing.length > 0) {
    if (reviewing[0] === outcome) {
      try {
        decisions = review(reviewValue(reviewing), reviewing.length);
      } catch (error) {
        pass.review.reject(error);
        throw error;
      }
      pass.review.resolve(decisions);
    } else {
      decisions = await pass.review.promise;
    }
  }
  return { reviewing, decisions };
}

module.exports = { passOf, finishDeciding, positionOf, reviewOf };
