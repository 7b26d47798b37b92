'use strict';
// Provider text: the raw arguments string a model proposed, checked strictly by the
// native decoder (duplicate keys, lone surrogates, numbers that overflow, trailing text
// are errors) before JSON.parse builds a value of it.

const { binding } = require('../native');
const { ToolArgumentsValidationError, nativeFailure, FAILED } = require('../errors');
const { own, requireInput, requireString } = require('../input');
const P = require('../primordials');

const { JSONParse, StringPrototypeCharCodeAt } = P;

// Native flags and checkJson results: the constants src/binding.rs exports.
const { FLAG_PATH, JSON_BLANK } = binding;

/** Strict check of provider text: true when it is empty or whitespace only. */
function checkRequest(toolName, rawArguments, includePath) {
  const status = binding.checkJson(rawArguments, includePath ? FLAG_PATH : 0);
  if (status === FAILED) {
    const failure = nativeFailure(includePath);
    throw new ToolArgumentsValidationError('json', toolName, failure.code, failure.path);
  }
  return status === JSON_BLANK;
}

/** Whether text is empty or JSON whitespace only (space, tab, line feed, carriage return). */
function isBlank(text) {
  for (let i = 0; i < text.length; i++) {
    const c = StringPrototypeCharCodeAt(text, i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return true;
}

/**
 * A new value of checked provider text; `{}` for empty or whitespace-only text (`blank`
 * undefined: not known yet, told from the text).
 */
function parseRequest(rawArguments, blank) {
  return (blank === undefined ? isBlank(rawArguments) : blank) ? {} : JSONParse(rawArguments);
}

function decodeRequest(rawArguments, options) {
  requireString(rawArguments, 'rawArguments', false);
  let toolName = '';
  let includePath = false;
  if (options !== undefined && options !== null) {
    requireInput(options, 'options must be an object');
    const name = own(options, 'toolName');
    if (typeof name === 'string') toolName = name;
    includePath = own(options, 'includePath') === true;
  }
  return parseRequest(rawArguments, checkRequest(toolName, rawArguments, includePath));
}

module.exports = { checkRequest, parseRequest, decodeRequest };
