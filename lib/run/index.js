'use strict';
// The RFC-0016 run-loop steps: strict request decoding, one schema parse, the snapshot,
// isolated policy and execution views, the mutation check, suspended proposals. A run
// loop adopts them with three calls: prepareToolCall (./prepare.js), evaluateToolCall
// (./decide.js; then it records the decision), executeToolCall (./execute.js); or with
// authorizeToolCall (./authorize.js), which does the last two at once.

const { decodeRequest, ArgumentsText } = require('./request');
const { prepareToolCall, prepareToolCallAsync } = require('./prepare');
const { evaluateToolCall, RUNTIME_REASONS } = require('./decide');
const { executeToolCall } = require('./execute');
const { authorizeToolCall } = require('./authorize');

/** Whether a value is an ArgumentsText decodeRequest set aside (no code of the value runs). */
function isArgumentsText(value) {
  return ArgumentsText.is(value);
}

module.exports = {
  decodeRequest,
  isArgumentsText,
  prepareToolCall,
  prepareToolCallAsync,
  evaluateToolCall,
  executeToolCall,
  authorizeToolCall,
  RUNTIME_REASONS,
};
