'use strict';
// Stored proposals and snapshots read from a file: strict JSON, the checked fields
// given once, verified as verifySnapshot does, failures as rejected input.

const { EXIT_MISMATCH, InputRejected, rejectedFrom } = require('./errors.js');

/**
 * The codes of verifySnapshot that do not mean "a record that does not check" (exit 1):
 * the file holds no stored snapshot at all, or the package failed (exit 3 as elsewhere).
 */
const NOT_A_RECORD = ['not_a_snapshot', 'internal_error'];

/** The four fields verifySnapshot reads; nothing else of a stored record is interpreted. */
const RECORD_FIELDS = ['agentName', 'toolName', 'argsCanonicalJson', 'proposalHash'];
/** The fields a sealed proposal's signature covers, with the signature. */
const SEALED_FIELDS = [...RECORD_FIELDS, 'v', 'keyId', 'nonce', 'expiresAt', 'scope', 'signature'];
/** The codes of a sealed proposal that is no sealed proposal at all (exit 3), not one that fails to verify (exit 1). */
const NOT_SEALED = ['not_sealed'];

function skipWhitespace(text, i) {
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return i;
    i++;
  }
}

/** The index after the JSON string that starts at `i` (the text is known to be JSON). */
function stringEnd(text, i) {
  for (let j = i + 1; ; j++) {
    const c = text.charCodeAt(j);
    if (c === 0x5c) j++;
    else if (c === 0x22) return j + 1;
  }
}

/** The index after the JSON value that starts at `i` (the text is known to be JSON). No recursion. */
function valueEnd(text, i) {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c !== 0x7b && c !== 0x5b) {
    let j = i;
    for (;;) {
      const d = text.charCodeAt(j);
      if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d || Number.isNaN(d)) return j;
      j++;
    }
  }
  let depth = 0;
  for (let j = i; ;) {
    const d = text.charCodeAt(j);
    if (d === 0x22) {
      j = stringEnd(text, j);
      continue;
    }
    if (d === 0x7b || d === 0x5b) depth++;
    else if ((d === 0x7d || d === 0x5d) && --depth === 0) return j + 1;
    j++;
  }
}

/**
 * The first of the four record fields named twice at the top level of a JSON text
 * (names compared after their escapes are decoded), or undefined. JSON.parse keeps the
 * last of duplicate names; another reader may keep the first, so a record whose checked
 * fields are ambiguous is refused instead.
 */
function duplicateRecordField(text, fields = RECORD_FIELDS) {
  let i = skipWhitespace(text, 0);
  if (text.charCodeAt(i) !== 0x7b) return undefined;
  const seen = new Set();
  i = skipWhitespace(text, i + 1);
  if (text.charCodeAt(i) === 0x7d) return undefined;
  for (;;) {
    const end = stringEnd(text, i);
    const name = JSON.parse(text.slice(i, end));
    if (fields.includes(name)) {
      if (seen.has(name)) return name;
      seen.add(name);
    }
    i = skipWhitespace(text, skipWhitespace(text, end) + 1);
    i = skipWhitespace(text, valueEnd(text, i));
    if (text.charCodeAt(i) !== 0x2c) return undefined;
    i = skipWhitespace(text, i + 1);
  }
}

/**
 * A stored record read from text exactly as verifySnapshot would see JSON.parse(text):
 * the whole text must be JSON (RFC 8259), and only the four fields verifySnapshot reads
 * are interpreted, so a deep, duplicated or unusual value in any other field (a
 * proposal's parsedArguments one level deeper than its arguments, say) cannot make a
 * valid record fail. A duplicate of one of the four fields is refused (duplicate_key).
 */
function readRecord(text, what, includePath, fields) {
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    throw new InputRejected(`${what} is not valid JSON text`, 'json', 'invalid_json');
  }
  const duplicate = duplicateRecordField(text, fields);
  if (duplicate !== undefined) {
    throw new InputRejected(`${what} has the field ${duplicate} more than once`, 'json', 'duplicate_key', includePath ? `/${duplicate}` : undefined);
  }
  return record;
}

/** verifySnapshot of a record; its failures as InputRejected (exit 1 for a record that does not check). */
function verifyRecord(lib, record, what) {
  try {
    return lib.verifySnapshot(record);
  } catch (error) {
    throw rejectedRecord(lib, error, what);
  }
}

/** What verifySnapshot threw, as InputRejected: exit 1 for a record that does not check, 3 for no record. */
function rejectedRecord(lib, error, what) {
  const rejected = rejectedFrom(lib, error, () => 'snapshot');
  if (!(rejected instanceof InputRejected)) return rejected;
  if (what !== undefined) rejected.message = `${what}: ${rejected.message}`;
  if (!NOT_A_RECORD.includes(rejected.code)) rejected.exitStatus = EXIT_MISMATCH;
  return rejected;
}

module.exports = { RECORD_FIELDS, SEALED_FIELDS, NOT_SEALED, readRecord, verifyRecord, rejectedRecord };
