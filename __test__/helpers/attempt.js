'use strict';
// Helpers shared by the test files (node --test does not run this file: its name matches
// no test-file pattern). core/monkeypatch-child.js keeps its own copies on purpose: it must
// not call anything that the globals it patches could reach.

const { SnapshotDomainError, ToolArgumentsValidationError } = require('../..');

/** Runs fn; returns { ok: true, value } or { ok: false, error }, never throws. */
function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A short description of an error for failure messages (no payload of ours in it). */
function describeError(error) {
  if (error instanceof SnapshotDomainError) return `SnapshotDomainError ${error.code}`;
  if (error instanceof ToolArgumentsValidationError) return `ToolArgumentsValidationError ${error.stage} ${error.code}`;
  return error && error.name ? `${error.name}: ${error.message}` : String(error);
}

module.exports = { attempt, describeError };
