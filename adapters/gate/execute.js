'use strict';
// The one path by which every gate runs a tool's handler: the package's executeToolCall on
// a decision (a fresh execution view, at most once, a grant spent right before it). What
// every execution shares (receipts, for one) is added here, once for all gates.

const { executeToolCall, isToolCallNotAllowedError } = require('tool-argument-snapshot');
const { own } = require('./read');

/**
 * Runs `handler(view)` for `decision` (undefined or refused: executeToolCall refuses it
 * itself). `options` are executeToolCall's (`{ grants }`), or undefined.
 */
function executeDecision(decision, handler, options) {
  return options === undefined ? executeToolCall(decision, handler) : executeToolCall(decision, handler, options);
}

/** Whether executeToolCall refused because the grant the allow relied on could not be spent. */
function isGrantUnavailable(error) {
  return isToolCallNotAllowedError(error) && own(error, 'code') === 'grant_unavailable';
}

module.exports = { executeDecision, isGrantUnavailable };
