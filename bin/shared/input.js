'use strict';
// What a command reads: FILE or standard input as UTF-8 text (never repaired), the raw
// arguments prepared as a tool call, and a key ring from --key-file or --key-env.

const { createReadStream, readFileSync } = require('node:fs');
const { constants: bufferConstants } = require('node:buffer');
const { PROGRAM, UsageError, InputRejected, loadLibrary, rejectedFrom } = require('./errors.js');
const { quoteArgument } = require('./output.js');

function systemReason(error) {
  switch (error && error.code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a directory';
    default:
      return error && error.code ? `read failed (${error.code})` : 'read failed';
  }
}

/** The bytes of FILE or standard input, up to the longest string V8 can hold. */
function readBytes(file) {
  const fromStdin = file === undefined || file === '-';
  const label = fromStdin ? 'standard input' : JSON.stringify(file);
  if (fromStdin && process.stdin.isTTY) {
    process.stderr.write(`${PROGRAM}: reading JSON from the terminal; end it with Ctrl-D (Ctrl-Z Enter on Windows)\n`);
  }
  const stream = fromStdin ? process.stdin : createReadStream(file);
  const limit = bufferConstants.MAX_STRING_LENGTH;
  return new Promise((resolve, reject) => {
    const chunks = [];
    let total = 0;
    stream.on('data', (chunk) => {
      total += chunk.length;
      if (total > limit) {
        stream.destroy();
        reject(new InputRejected(`the input from ${label} is larger than ${limit} bytes`, 'input', 'size_limit'));
        return;
      }
      chunks.push(chunk);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks, total)));
    stream.on('error', (error) => {
      const code = error && typeof error.code === 'string' ? error.code : 'read_error';
      reject(new InputRejected(`cannot read ${label}: ${systemReason(error)}`, 'input', code));
    });
  });
}

/** UTF-8 bytes to text: invalid bytes and a byte order mark are errors, never repaired. */
function decodeUtf8(bytes) {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    throw new InputRejected('the input looks like UTF-16 (it starts with a UTF-16 byte order mark); convert it to UTF-8', 'json', 'invalid_json');
  }
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new InputRejected('the input is not valid UTF-8', 'json', 'invalid_json');
  }
  if (text.charCodeAt(0) === 0xfeff) {
    throw new InputRejected(
      'the input starts with a byte order mark (U+FEFF), which JSON text must not begin with (RFC 8259, section 8.1); remove it',
      'json',
      'invalid_json',
    );
  }
  return text;
}

async function readText(file) {
  return decodeUtf8(await readBytes(file));
}

async function prepare(values, file) {
  const text = await readText(file);
  const lib = loadLibrary();
  try {
    return lib.prepareToolCall({
      agentName: values.agent,
      toolName: values.tool,
      rawArguments: text,
      includePath: values['include-path'] === true,
    });
  } catch (error) {
    throw rejectedFrom(lib, error, () => 'snapshot');
  }
}

/**
 * The key ring of --key-file PATH or --key-env NAME, never of an argument: JSON, either an
 * array of { id, secret } or { keys: [...] }, each secret a string (its UTF-8 bytes) or
 * `secretBase64`. A key that cannot be read is a usage error (exit 2); nothing of the
 * key is ever printed.
 */
function readKeyRing(values) {
  let text;
  let where;
  if (values['key-file'] !== undefined) {
    where = 'the key file';
    try {
      text = readFileSync(values['key-file'], 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read the key file: ${systemReason(error)}`);
    }
  } else {
    const name = values['key-env'];
    where = `the environment variable ${quoteArgument(name)}`;
    text = Object.hasOwn(process.env, name) ? process.env[name] : undefined;
    if (typeof text !== 'string' || text === '') throw new UsageError(`${where} is not set`);
  }
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`${where} does not hold JSON (a key ring: [{ "id": ..., "secret": ... }])`);
  }
  const list = Array.isArray(parsed) ? parsed : parsed !== null && typeof parsed === 'object' && Array.isArray(parsed.keys) ? parsed.keys : null;
  if (list === null || list.length === 0) throw new UsageError(`${where} holds no key ring ([{ "id": ..., "secret": ... }] or { "keys": [...] })`);
  const keys = [];
  for (const key of list) {
    if (key === null || typeof key !== 'object') throw new UsageError(`${where}: each key is an object { "id", "secret" }`);
    const secret = typeof key.secretBase64 === 'string' ? new Uint8Array(Buffer.from(key.secretBase64, 'base64')) : key.secret;
    keys.push({ id: key.id, secret });
  }
  return keys;
}

module.exports = { readText, prepare, readKeyRing };
