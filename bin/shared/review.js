'use strict';
// What pending, grant and decline share: the store opened from --store with the package's
// openGrantStore, the grants over it (with the key ring of --key-file or --key-env), the ids
// the listing prints, and the store's and the grants' errors as exit statuses. No message
// shows the store URL (it can hold credentials) or a field of a record that does not verify.

const { EXIT_MISMATCH, UsageError, InputRejected, LoadFailure, loadLibrary } = require('./errors.js');
const { readKeyRing } = require('./input.js');

/** A store that cannot be opened or fails: exit 70, its payload-free message. */
class StoreFailure extends LoadFailure {}

/**
 * The id of a kept proposal: the base64url form of its store key (its run id, length first,
 * then its call id), so that any run or call id is one shell word.
 */
function idOf(runId, toolCallId) {
  return Buffer.from(`${runId.length}:${runId}${toolCallId}`, 'utf8').toString('base64url');
}

/**
 * Whether a kept record's run id is one under which the AI SDK and Mastra gates keep the
 * evidence of an approval already given through them (`ai-approved ...`, `mastra-approved
 * ...`: the gate's approve moved the proposal there, granted). Such a record is not
 * pending: listing it would show a reviewer an approved call as waiting, and granting it
 * would grant the same proposal a second time.
 */
function isApprovalEvidence(runId) {
  return typeof runId === 'string' && /^(?:ai|mastra)-approved /.test(runId);
}

/** The cursor of a next page as printed: the store's cursor, base64url. */
function printedCursor(cursor) {
  return cursor === null ? null : Buffer.from(cursor, 'utf8').toString('base64url');
}

/** Base64url text back to the string it encodes, or undefined when it is not one `idOf` or `printedCursor` made. */
function decodeWord(word) {
  if (typeof word !== 'string' || !/^[A-Za-z0-9_-]+$/.test(word)) return undefined;
  const bytes = Buffer.from(word, 'base64url');
  if (bytes.toString('base64url') !== word) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** { runId, toolCallId } of an id printed by pending, or a usage error. */
function readId(id) {
  const key = decodeWord(id);
  const match = key === undefined ? null : /^([1-9][0-9]{0,14}):/.exec(key);
  if (match !== null) {
    const length = Number(match[1]);
    const runId = key.slice(match[0].length, match[0].length + length);
    const toolCallId = key.slice(match[0].length + length);
    if (runId.length === length && runId !== '' && toolCallId !== '') return { runId, toolCallId, storeKey: key };
  }
  throw new UsageError('--id must be an id that pending printed');
}

function readCursor(cursor) {
  if (cursor === undefined) return null;
  const key = decodeWord(cursor);
  if (key === undefined) throw new UsageError('--cursor must be a cursor that pending printed');
  return key;
}

/** A positive integer option (--limit, --ttl) no larger than `max`, or undefined when absent. */
function readCount(values, name, max) {
  const text = values[name];
  if (text === undefined) return undefined;
  if (!/^[1-9][0-9]{0,15}$/.test(text) || Number(text) > max) throw new UsageError(`--${name} must be an integer from 1 to ${max}`);
  return Number(text);
}

/** `text` with the store URL, and its password, put out of sight. */
function redact(text, url) {
  let out = String(text);
  const secrets = [url];
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') secrets.push(parsed.password, decodeURIComponent(parsed.password));
    if (parsed.username !== '') secrets.push(parsed.username, decodeURIComponent(parsed.username));
  } catch {
    // Not a URL with credentials (sqlite:PATH): only the whole text is hidden.
  }
  for (const secret of secrets) if (secret.length >= 3) out = out.split(secret).join('<redacted>');
  return out;
}

/** An error of the store or of openGrantStore as StoreFailure (exit 70), its message without the URL. */
function storeFailure(error, url, lib) {
  if (error !== null && typeof error === 'object' && error.name === 'GrantStoreError') {
    return new StoreFailure(redact(`the store failed: ${error.message}`, url));
  }
  if (error !== null && typeof error === 'object' && error.code === 'MODULE_NOT_FOUND' && typeof error.packageName === 'string') {
    return new StoreFailure(`the store needs ${error.packageName} installed where the command runs (npm install ${error.packageName})`);
  }
  if (lib !== undefined && (lib.isApprovalGrantError(error) || error instanceof lib.SnapshotDomainError)) return error;
  const code =
    error !== null && typeof error === 'object' && typeof error.code === 'string' && /^[A-Za-z0-9_]{1,40}$/.test(error.code) ? ` (${error.code})` : '';
  return new StoreFailure(`the store failed${code}`);
}

/**
 * Opens the store of --store and the grants over it (with the key ring, when given), runs
 * `body({ lib, store, grants, keys })` and closes the store whatever happens.
 */
async function withReview(values, body) {
  const keys = values['key-file'] !== undefined || values['key-env'] !== undefined ? readKeyRing(values) : undefined;
  const url = values.store;
  const lib = loadLibrary();
  let grants;
  if (keys !== undefined) {
    try {
      lib.createApprovalGrants({ keys });
    } catch (error) {
      throw new UsageError(`the key ring is not usable: ${error && error.message}`);
    }
  }
  let store;
  try {
    const options = {};
    if (values.table !== undefined) options.table = values.table;
    if (values.prefix !== undefined) options.prefix = values.prefix;
    store = await lib.openGrantStore(url, options);
  } catch (error) {
    if (error instanceof TypeError && /** @type {NodeJS.ErrnoException} */ (error).code !== 'MODULE_NOT_FOUND') {
      // openGrantStore's messages name the option, never the URL.
      throw new UsageError(
        /options\.(table|prefix)/.test(error.message)
          ? `--table or --prefix does not fit the store: ${error.message}`
          : '--store must be a store URL: sqlite:PATH, postgres://..., postgresql://..., redis://... or rediss://...',
      );
    }
    throw storeFailure(error, url);
  }
  try {
    grants = lib.createApprovalGrants(keys === undefined ? { store } : { store, keys });
    return await body({ lib, store, grants, keys });
  } catch (error) {
    if (error instanceof UsageError || error instanceof InputRejected || error instanceof LoadFailure) throw error;
    throw storeFailure(error, url, lib);
  } finally {
    try {
      await store.close();
    } catch {
      // The work is done or already failed; a store that fails to close changes neither.
    }
  }
}

/**
 * What the grants threw about a record (a seal that does not verify, a hash that does not
 * match, a seal used before) as InputRejected: exit 1 for a proposal refused, 3 for no
 * proposal (not_sealed, not_a_snapshot). Anything else is returned as it is.
 */
function refusal(lib, error, what) {
  const prefix = what === undefined ? '' : `${what}: `;
  if (lib.isApprovalGrantError(error)) {
    const rejected = new InputRejected(prefix + error.message.replace(/\s*\[[a-z_]+\]$/, ''), 'seal', error.code);
    if (error.code !== 'not_sealed') rejected.exitStatus = EXIT_MISMATCH;
    return rejected;
  }
  if (error instanceof lib.SnapshotDomainError) {
    const rejected = new InputRejected(prefix + error.message.replace(/\s*\[[a-z_]+\]$/, ''), 'snapshot', error.code);
    if (error.code !== 'not_a_snapshot') rejected.exitStatus = EXIT_MISMATCH;
    return rejected;
  }
  return error;
}

/** Nothing is kept under the id: exit 1. */
function notPending() {
  const rejected = new InputRejected('no proposal is kept under this id (granted, declined, expired, or never kept)', 'store', 'not_pending');
  rejected.exitStatus = EXIT_MISMATCH;
  return rejected;
}

/** Whether the stored text of a kept proposal is a sealed record (it has a signature). */
function looksSealed(text) {
  try {
    const record = JSON.parse(text);
    return record !== null && typeof record === 'object' && Object.hasOwn(record, 'signature');
  } catch {
    return false;
  }
}

function sealedNeedsKeys() {
  return new UsageError('the proposal is sealed: give the key ring that verifies its seal (--key-file or --key-env)');
}

module.exports = {
  StoreFailure,
  idOf,
  isApprovalEvidence,
  printedCursor,
  readId,
  readCursor,
  readCount,
  withReview,
  refusal,
  notPending,
  looksSealed,
  sealedNeedsKeys,
};
