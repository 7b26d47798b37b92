'use strict';
// The program's name, its exit statuses and the errors a command throws to end with
// one of them; loading the package and turning its errors into rejected input.

const PROGRAM = 'tool-argument-snapshot';

const EXIT_OK = 0;
const EXIT_MISMATCH = 1;
const EXIT_USAGE = 2;
const EXIT_REJECTED = 3;
const EXIT_INTERNAL = 70; // EX_SOFTWARE of sysexits.h

/** Bad command line: exit 2, with a pointer to --help. */
class UsageError extends Error {}

/** Input refused: exit 3. `stage` and `code` are printed; the message never holds the payload. */
class InputRejected extends /** @type {new (message?: string) => Error & { exitStatus?: number }} */ (Error) {
  constructor(message, stage, code, path) {
    super(message);
    this.stage = stage;
    this.code = code;
    this.path = path;
  }
}

/** The library could not be loaded (no or wrong native binary): exit 70 without a stack. */
class LoadFailure extends Error {}

function loadLibrary() {
  try {
    return require('../..');
  } catch (error) {
    throw new LoadFailure(`cannot load ${PROGRAM}: ${error && error.message}`);
  }
}

/** A library error as InputRejected; anything else is rethrown as internal. */
function rejectedFrom(lib, error, stageOfDomainError) {
  if (error instanceof lib.ToolArgumentsValidationError) {
    return new InputRejected(error.message.replace(/\s*\[[a-z_]+\]$/, ''), error.stage, error.code, error.path);
  }
  if (error instanceof lib.SnapshotDomainError) {
    return new InputRejected(error.message.replace(/\s*\[[a-z_]+\]$/, ''), stageOfDomainError(error.code), error.code, error.path);
  }
  return error;
}

module.exports = {
  PROGRAM,
  EXIT_OK,
  EXIT_MISMATCH,
  EXIT_USAGE,
  EXIT_REJECTED,
  EXIT_INTERNAL,
  UsageError,
  InputRejected,
  LoadFailure,
  loadLibrary,
  rejectedFrom,
};
