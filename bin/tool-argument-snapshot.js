#!/usr/bin/env node
'use strict';
// The command line of tool-argument-snapshot, for approval reviewers and scripts: the
// canonical JSON and proposal hash of a provider's raw tool-call arguments (hash), a
// check of those arguments against an approved hash (verify), a check of a stored
// proposal or snapshot (verify-snapshot), where two stored proposals differ (diff), and
// RFC 8785 for any strict JSON text (canonicalize). Input is read as bytes and must be
// UTF-8 without a byte order mark.
// Error messages name the stage and the code, never the payload.
//
// The command line is parsed here, not by util.parseArgs, so that the rules are ours and
// few: an option that takes a value always takes the next argument, whatever it looks
// like (`--tool -h` names the tool "-h"; an option's value is never a flag), and help is
// printed only when asked for alone, so that no invocation with values can exit 0
// without having done its work.

const { createReadStream, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { constants: bufferConstants } = require('node:buffer');

const PROGRAM = 'tool-argument-snapshot';

const EXIT_OK = 0;
const EXIT_MISMATCH = 1;
const EXIT_USAGE = 2;
const EXIT_REJECTED = 3;
const EXIT_INTERNAL = 70; // EX_SOFTWARE of sysexits.h

const HELP = `Usage:
  ${PROGRAM} hash --agent NAME --tool NAME [--json] [FILE|-]
  ${PROGRAM} verify --agent NAME --tool NAME --hash HEX
                                [--json] [FILE|-]
  ${PROGRAM} verify-snapshot [--hash HEX] [--key-file PATH | --key-env NAME]
                                [--json] [FILE|-]
  ${PROGRAM} diff [--values] [--json] APPROVED PROPOSED
  ${PROGRAM} canonicalize [--no-newline] [FILE|-]
  ${PROGRAM} help | --help | -h | COMMAND --help
  ${PROGRAM} --version

RFC-0016 authorized tool-argument snapshots: RFC 8785 (JCS) canonical JSON and
SHA-256 proposal hashes of LLM tool-call arguments.

Commands:
  hash          Strict-decode the raw tool-call arguments (the provider's JSON
                string) and print their canonical JSON and proposal hash. Empty
                or whitespace-only input is the empty object {}, as providers
                send it.
  verify        Hash the raw tool-call arguments as hash does; exit 0 and print
                "match" only when that proposal hash is HEX (64 hex digits, any
                case); otherwise print "mismatch", both hashes and the canonical
                JSON that was hashed, and exit 1. This checks the provider's raw
                arguments: an approval binds the snapshot of the schema's output,
                which differs when the schema adds defaults or converts values.
                To check a stored approval, use verify-snapshot.
  verify-snapshot
                Check a stored proposal or snapshot (JSON with agentName,
                toolName, argsCanonicalJson and proposalHash, such as a
                SuspendedToolProposal): its JSON must be canonical and its hash
                must be the proposal hash of its agent, tool and JSON. Exit 0 and
                print "verified" with the verified fields; with --hash HEX, also
                only when its hash is HEX (else "mismatch", exit 1). A record
                whose JSON or hash does not check exits 1 (code not_canonical,
                hash_mismatch, or the error of its argsCanonicalJson, such as
                invalid_json); a file that is no such record exits 3
                (not_a_snapshot, or the file's own JSON error). Exactly what
                verifySnapshot accepts is accepted: only those four fields are
                read and checked, every other field (parsedArguments,
                rawArguments, ...) only has to be JSON, however deep; one of
                the four fields given twice is refused (duplicate_key).
                With --key-file or --key-env, the record must be a sealed
                proposal (createApprovalGrants({ keys }).seal): its key id
                names the key of the ring, its HMAC-SHA256 signature must
                verify and it must not have expired; exit 0 prints the key
                id, the expiry and the scope too. A signature that does not
                verify (bad_signature), an unknown key (unknown_key) or an
                expired seal (seal_expired) exits 1; a record that is not a
                sealed proposal (not_sealed) exits 3; a key that cannot be
                read exits 2. A key is never taken from an argument.
  diff          Compare two stored proposals or snapshots of the same agent and
                tool (files, as verify-snapshot reads them; either may be -):
                list the JSON Pointer of every member or element added,
                removed or changed, in canonical key order. Exit 0 when the
                arguments are equal, 1 when they differ. A record that does not
                verify, or two records of different agents or tools, exit 3.
                The paths are made of payload keys; values are printed only
                with --values. A diff is a reviewer's aid,
                never an authorization: approvals bind the proposal hash.
  canonicalize  Print the RFC 8785 form of strict JSON text, followed by a
                newline. Accepts exactly the values a snapshot can hold:
                duplicate keys, lone surrogates, -0 and numbers that overflow
                are errors, and empty input is not JSON.

Input is read from FILE, or from standard input when FILE is - or absent. It
must be UTF-8: invalid bytes are an error, never replaced, and so is a leading
byte order mark (RFC 8259 section 8.1: JSON text must not start with one).
What is decoded is exactly what was read.

Options:
  --agent NAME     The agent name bound into the proposal hash.
  --tool NAME      The tool name bound into the proposal hash.
  --hash HEX       verify, verify-snapshot: the approved proposal hash.
  --key-file PATH  verify-snapshot: a file holding the key ring as JSON,
                   [{"id": ..., "secret": ...}] (or {"keys": [...]}); a
                   secret is a string (its UTF-8 bytes) or "secretBase64".
  --key-env NAME   verify-snapshot: the environment variable NAME holds the
                   key ring, as --key-file's file does.
  --json           hash, verify, verify-snapshot, diff: print one JSON object
                   on standard output: {agentName, toolName, argsCanonicalJson,
                   proposalHash}, for verify also {match, expectedHash}, for
                   verify-snapshot also {verified} (and {match, expectedHash}
                   with --hash); for diff {equal, agentName, toolName,
                   approvedHash, proposedHash, changes: [{path, kind}]}. A
                   rejected input prints {"error": {stage, code, message}}
                   there too.
  --values         diff: also print the approved and proposed values at each
                   path (payload: off by default).
  --no-newline     canonicalize: print the canonical JSON alone, byte-exact.
  --include-path   On rejected input, also print the JSON Pointer of the
                   offending value. Off by default: a pointer is made of the
                   payload's keys.
  -h, --help       Print this help, alone or after a command name only: with
                   any other option or operand it is a usage error.
  --version        Print the version.

An option that takes a value takes the next argument, even one that starts
with a dash (--tool -h names the tool "-h"); --tool=VALUE works too. Use -- to
end the options before a FILE that starts with a dash.

Output:
  hash prints two labelled lines: "canonical JSON: ..." and
  "proposal hash:  ...".
  When the canonical JSON holds invisible or bidirectional control characters
  (which can make a terminal show something other than what was hashed), hash,
  verify and verify-snapshot print a warning naming them on standard error.
  verify-snapshot prints the agent and tool names as JSON strings with those
  characters escaped.

Exit status:
  0   success; for verify, the hash matches; for verify-snapshot, the record
      checks (and its hash is HEX, when given); for diff, the arguments are
      equal
  1   verify: the hash does not match; verify-snapshot: the record does not
      check (its JSON is not canonical or not strict JSON, its hash does not
      bind its fields) or its hash is not HEX; diff: the arguments differ
  2   usage error (unknown command or option, missing or malformed option)
  3   input rejected: not UTF-8, not strict JSON, outside the snapshot
      domain, or unreadable; for diff also a record that does not verify
      (any code) and records of different agents (different_agent) or
      tools (different_tool). Standard error then says
        ${PROGRAM}: error: MESSAGE (stage STAGE, code CODE)
      where STAGE is input (reading), json (decoding) or snapshot (the
      value's domain; for verify-snapshot, the record) and CODE a stable
      code such as duplicate_key.
      The message never quotes the input.
  70  internal error, or the native addon cannot be loaded

Examples:
  echo '{"path":"/srv/app/a.txt","mode":420}' |
    ${PROGRAM} hash --agent bot --tool write_file
  ${PROGRAM} verify --agent bot --tool write_file \\
    --hash "$APPROVED_HASH" args.json
  ${PROGRAM} verify-snapshot --hash "$APPROVED_HASH" proposal.json
  ${PROGRAM} diff approved.json proposed.json
  ${PROGRAM} canonicalize --no-newline data.json > data.jcs.json
`;

/** Bad command line: exit 2, with a pointer to --help. */
class UsageError extends Error {}

/** Input refused: exit 3. `stage` and `code` are printed; the message never holds the payload. */
class InputRejected extends Error {
  constructor(message, stage, code, path) {
    super(message);
    this.stage = stage;
    this.code = code;
    this.path = path;
  }
}

/** The library could not be loaded (no or wrong native binary): exit 70 without a stack. */
class LoadFailure extends Error {}

/** Every option: whether it takes a value. `-h` is the only short option. */
const OPTIONS = {
  __proto__: null,
  agent: 'string',
  tool: 'string',
  hash: 'string',
  json: 'boolean',
  'no-newline': 'boolean',
  'include-path': 'boolean',
  values: 'boolean',
  'key-file': 'string',
  'key-env': 'string',
  help: 'boolean',
  version: 'boolean',
};

const COMMANDS = {
  __proto__: null,
  hash: { allowed: ['agent', 'tool', 'json', 'include-path'], required: ['agent', 'tool'], run: runHash },
  verify: { allowed: ['agent', 'tool', 'hash', 'json', 'include-path'], required: ['agent', 'tool', 'hash'], run: runVerify },
  'verify-snapshot': { allowed: ['hash', 'json', 'include-path', 'key-file', 'key-env'], required: [], run: runVerifySnapshot },
  diff: { allowed: ['values', 'json'], required: [], operands: 2, run: runDiff },
  canonicalize: { allowed: ['no-newline', 'include-path'], required: [], run: runCanonicalize },
};

// Characters a terminal draws as nothing, or that reorder what follows, by Unicode
// property rather than by list: controls (Cc: DEL and the C1 controls, U+0085
// included; JCS escapes only U+0000..U+001F), format characters (Cf: soft hyphen, the
// Arabic letter mark, zero-width and bidirectional marks, embeddings, overrides and
// isolates, word joiner and invisible operators, U+206A..U+206F, the interlinear
// annotation characters U+FFF9..U+FFFB, the BOM, musical formatting U+1D173..U+1D17A,
// the tag characters that can smuggle invisible ASCII), Default_Ignorable_Code_Point
// (the combining grapheme joiner U+034F, the Mongolian variation selectors
// U+180B..U+180F, variation selectors, the Hangul fillers, and the code points
// reserved to be invisible), every Bidi_Control, and the line and paragraph
// separators.
const DECEPTIVE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Bidi_Control}\u2028\u2029]/gu;

function packageVersion() {
  // Read directly, so that --version works even when the native addon cannot load.
  return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
}

function loadLibrary() {
  try {
    return require('..');
  } catch (error) {
    throw new LoadFailure(`cannot load ${PROGRAM}: ${error && error.message}`);
  }
}

/** An argument as it may appear in a usage message: quoted, controls escaped. */
function quoteArgument(text) {
  return displayString(text.length > 40 ? `${text.slice(0, 40)}...` : text);
}

/**
 * Splits argv into options (in order, with their values) and operands. An option that
 * takes a value takes the next argument whatever it is: a value is never read as an
 * option, so `--tool -h` is the tool "-h", never a help request.
 */
function splitArguments(argv) {
  const options = [];
  const operands = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (arg === '-' || !arg.startsWith('-')) {
      operands.push(arg);
      continue;
    }
    let name;
    let inline;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
    } else if (arg === '-h') {
      name = 'help';
    } else {
      throw new UsageError(`unknown option ${quoteArgument(arg)}`);
    }
    const kind = OPTIONS[name];
    if (kind === undefined) throw new UsageError(`unknown option ${quoteArgument(`--${name}`)}`);
    if (kind === 'boolean') {
      if (inline !== undefined) throw new UsageError(`option --${name} takes no value`);
      options.push({ name, value: true });
    } else if (inline !== undefined) {
      options.push({ name, value: inline });
    } else if (i + 1 < argv.length) {
      options.push({ name, value: argv[++i] });
    } else {
      throw new UsageError(`option --${name} needs a value`);
    }
  }
  return { options, operands };
}

/** Parses argv into { command, values, file }; throws UsageError. */
function parseCommandLine(argv) {
  const { options, operands: positionals } = splitArguments(argv);
  const values = { __proto__: null };
  for (const { name, value } of options) {
    if (name in values) throw new UsageError(`option --${name} is given more than once`);
    values[name] = value;
  }
  const given = Object.keys(values);

  // Help has its own exit path: only `help [COMMAND]`, `--help` / `-h` alone, or
  // `COMMAND --help`. With any other option or operand it is a usage error, so no
  // command that was given something to check can end in help's exit status 0.
  if (values.help) {
    const aboutCommand = positionals.length === 1 && positionals[0] in COMMANDS;
    if (given.length === 1 && (positionals.length === 0 || aboutCommand)) return { command: 'help' };
    throw new UsageError('--help takes no other argument (at most a command name)');
  }
  if (positionals[0] === 'help') {
    const aboutCommand = positionals.length === 2 && positionals[1] in COMMANDS;
    if (given.length === 0 && (positionals.length === 1 || aboutCommand)) return { command: 'help' };
    throw new UsageError('help takes no other argument (at most a command name)');
  }
  if (values.version) {
    if (positionals.length > 0 || given.length > 1) throw new UsageError('--version takes no other argument');
    return { command: 'version' };
  }
  if (positionals.length === 0) throw new UsageError('no command given');

  const [command, ...operands] = positionals;
  if (!(command in COMMANDS)) throw new UsageError(`unknown command ${quoteArgument(command)}`);
  const spec = COMMANDS[command];

  for (const name of given) {
    if (!spec.allowed.includes(name)) throw new UsageError(`option --${name} does not apply to ${command}`);
  }
  for (const name of spec.required) {
    if (values[name] === undefined) throw new UsageError(`${command} needs --${name}`);
  }
  for (const name of ['agent', 'tool']) {
    // Windows can pass lone surrogates in arguments; the proposal hash is over UTF-8.
    if (values[name] !== undefined && !values[name].isWellFormed()) {
      throw new UsageError(`--${name} must be well-formed Unicode text`);
    }
  }
  if (values['key-file'] !== undefined && values['key-env'] !== undefined) {
    throw new UsageError('give --key-file or --key-env, not both');
  }
  if (values.hash !== undefined && !/^[0-9a-fA-F]{64}$/.test(values.hash)) {
    throw new UsageError('--hash must be 64 hexadecimal digits (a SHA-256 proposal hash)');
  }
  if (spec.operands === 2) {
    if (operands.length !== 2) throw new UsageError(`${command} compares two files (APPROVED PROPOSED), but ${operands.length} ${operands.length === 1 ? 'was' : 'were'} given`);
    if (operands[0] === '-' && operands[1] === '-') throw new UsageError(`${command} reads standard input for one file at most`);
    return { command, values, files: operands };
  }
  if (operands.length > 1) throw new UsageError(`${command} reads one input, but ${operands.length} were given`);
  return { command, values, file: operands[0] };
}

function systemReason(error) {
  switch (error && error.code) {
    case 'ENOENT': return 'no such file or directory';
    case 'EACCES': case 'EPERM': return 'permission denied';
    case 'EISDIR': return 'it is a directory';
    default: return error && error.code ? `read failed (${error.code})` : 'read failed';
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
    throw new InputRejected('the input starts with a byte order mark (U+FEFF), which JSON text must not begin with (RFC 8259, section 8.1); remove it', 'json', 'invalid_json');
  }
  return text;
}

async function readText(file) {
  return decodeUtf8(await readBytes(file));
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

/** `U+XXXX` of a character. */
function codePointLabel(c) {
  return `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * A string as a JSON string literal whose deceptive characters (see DECEPTIVE) are
 * escaped too: JSON.stringify alone leaves DEL, the C1 controls, U+2028/U+2029 and the
 * bidi controls raw. Characters outside the BMP are escaped as their surrogate pair.
 */
function displayString(text) {
  return JSON.stringify(text).replace(DECEPTIVE, (c) => {
    let out = '';
    for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
    return out;
  });
}

function warnIfDeceptive(canonicalJson) {
  const found = canonicalJson.match(DECEPTIVE);
  if (found === null) return;
  const codePoints = [...new Set(found)].map(codePointLabel);
  const listed = codePoints.length > 8 ? `${codePoints.slice(0, 8).join(', ')}, ...` : codePoints.join(', ');
  process.stderr.write(
    `${PROGRAM}: warning: the canonical JSON contains ${found.length} invisible or bidirectional control ` +
      `character(s) (${listed}); a terminal may not show exactly what was hashed\n`,
  );
}

function writeJson(object) {
  process.stdout.write(`${JSON.stringify(object)}\n`);
}

async function runHash({ values, file }) {
  const prepared = await prepare(values, file);
  const { agentName, toolName, argsCanonicalJson, proposalHash } = prepared;
  if (values.json) {
    writeJson({ agentName, toolName, argsCanonicalJson, proposalHash });
  } else {
    process.stdout.write(`canonical JSON: ${argsCanonicalJson}\nproposal hash:  ${proposalHash}\n`);
    warnIfDeceptive(argsCanonicalJson);
  }
  return EXIT_OK;
}

async function runVerify({ values, file }) {
  const prepared = await prepare(values, file);
  const { agentName, toolName, argsCanonicalJson, proposalHash } = prepared;
  const expectedHash = values.hash.toLowerCase();
  const match = proposalHash === expectedHash;
  if (values.json) {
    writeJson({ match, agentName, toolName, argsCanonicalJson, proposalHash, expectedHash });
  } else if (match) {
    process.stdout.write(`match\nproposal hash:  ${proposalHash}\n`);
  } else {
    process.stdout.write(
      `mismatch\nexpected hash:  ${expectedHash}\nactual hash:    ${proposalHash}\ncanonical JSON: ${argsCanonicalJson}\n`,
    );
  }
  if (!values.json) warnIfDeceptive(argsCanonicalJson);
  return match ? EXIT_OK : EXIT_MISMATCH;
}

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
  for (let j = i; ; ) {
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

/** A sealed proposal verified with a key ring: the library's fields, or InputRejected (exit 1 or 3). */
function verifySealedRecord(lib, keys, record) {
  let grants;
  try {
    grants = lib.createApprovalGrants({ keys });
  } catch (error) {
    // The ring itself is wrong (a short secret, a duplicate id): the message names no key material.
    throw new UsageError(`the key ring is not usable: ${error && error.message}`);
  }
  try {
    return grants.verify(record);
  } catch (error) {
    if (lib.isApprovalGrantError(error)) {
      const rejected = new InputRejected(error.message.replace(/\s*\[[a-z_]+\]$/, ''), 'seal', error.code);
      if (!NOT_SEALED.includes(error.code)) rejected.exitStatus = EXIT_MISMATCH;
      throw rejected;
    }
    throw rejectedRecord(lib, error);
  }
}

async function runVerifySnapshot({ values, file }) {
  const keys = values['key-file'] !== undefined || values['key-env'] !== undefined ? readKeyRing(values) : undefined;
  const text = await readText(file);
  const lib = loadLibrary();
  const record = readRecord(text, 'the file', values['include-path'] === true, keys === undefined ? RECORD_FIELDS : SEALED_FIELDS);
  const snapshot = keys === undefined ? verifyRecord(lib, record) : verifySealedRecord(lib, keys, record);
  const { agentName, toolName, argsCanonicalJson, proposalHash } = snapshot;
  const expectedHash = values.hash === undefined ? undefined : values.hash.toLowerCase();
  const match = expectedHash === undefined || proposalHash === expectedHash;
  if (values.json) {
    const out = { verified: true, agentName, toolName, argsCanonicalJson, proposalHash };
    if (keys !== undefined) Object.assign(out, { sealed: true, keyId: snapshot.keyId, expiresAt: snapshot.expiresAt, scope: snapshot.scope });
    if (expectedHash !== undefined) Object.assign(out, { match, expectedHash });
    writeJson(out);
    return match ? EXIT_OK : EXIT_MISMATCH;
  }
  let fields = `agent name:     ${displayString(agentName)}\ntool name:      ${displayString(toolName)}\n` +
    `canonical JSON: ${argsCanonicalJson}\n`;
  if (keys !== undefined) {
    fields += `sealed by key:  ${displayString(snapshot.keyId)}\n` +
      `seal expires:   ${snapshot.expiresAt === null ? 'never' : new Date(snapshot.expiresAt).toISOString()}\n` +
      `grant scope:    ${snapshot.scope === null ? 'none' : displayString(snapshot.scope)}\n`;
  }
  if (match) {
    process.stdout.write(`verified\n${fields}proposal hash:  ${proposalHash}\n`);
  } else {
    process.stdout.write(`mismatch\n${fields}expected hash:  ${expectedHash}\nactual hash:    ${proposalHash}\n`);
  }
  warnIfDeceptive(argsCanonicalJson);
  return match ? EXIT_OK : EXIT_MISMATCH;
}

/** A diff entry's value as canonical JSON, for display. */
function shownValue(lib, value) {
  return lib.canonicalize(value);
}

async function runDiff({ values, files }) {
  const [approvedText, proposedText] = [await readText(files[0]), await readText(files[1])];
  const lib = loadLibrary();
  const sides = [];
  for (const [text, what] of [[approvedText, 'the approved record'], [proposedText, 'the proposed record']]) {
    let snapshot;
    try {
      snapshot = verifyRecord(lib, readRecord(text, what, false), what);
    } catch (error) {
      // Here 1 means "the arguments differ": a record that does not verify is rejected input.
      if (error instanceof InputRejected) error.exitStatus = EXIT_REJECTED;
      throw error;
    }
    sides.push(snapshot);
  }
  const [approved, proposed] = sides;
  if (approved.agentName !== proposed.agentName) {
    throw new InputRejected('the records name different agents; a diff compares two calls of one agent and one tool', 'snapshot', 'different_agent');
  }
  if (approved.toolName !== proposed.toolName) {
    throw new InputRejected('the records name different tools; a diff compares two calls of one agent and one tool', 'snapshot', 'different_tool');
  }
  const changes = lib.diffSnapshots(approved, proposed, { includeValues: values.values === true });
  const equal = changes.length === 0;
  if (values.json) {
    writeJson({
      equal,
      agentName: approved.agentName,
      toolName: approved.toolName,
      approvedHash: approved.proposalHash,
      proposedHash: proposed.proposalHash,
      changes,
    });
    return equal ? EXIT_OK : EXIT_MISMATCH;
  }
  const names = `agent name:     ${displayString(approved.agentName)}\ntool name:      ${displayString(approved.toolName)}\n`;
  if (equal) {
    process.stdout.write(`equal\n${names}proposal hash:  ${approved.proposalHash}\n`);
    return EXIT_OK;
  }
  let lines = '';
  let printed = '';
  for (const change of changes) {
    let line = `${change.kind.padEnd(7)} ${displayString(change.path)}`;
    if (values.values) {
      const before = change.kind === 'added' ? undefined : shownValue(lib, change.approved);
      const after = change.kind === 'removed' ? undefined : shownValue(lib, change.proposed);
      if (change.kind === 'changed') line += `: ${before} -> ${after}`;
      else line += `: ${before ?? after}`;
      printed += `${before ?? ''}${after ?? ''}`;
    }
    lines += `${line}\n`;
  }
  process.stdout.write(
    `different: ${changes.length} ${changes.length === 1 ? 'path' : 'paths'}\n${names}` +
      `approved hash:  ${approved.proposalHash}\nproposed hash:  ${proposed.proposalHash}\n${lines}`,
  );
  if (printed !== '') warnIfDeceptive(printed);
  return EXIT_MISMATCH;
}

async function runCanonicalize({ values, file }) {
  const text = await readText(file);
  const lib = loadLibrary();
  const includePath = values['include-path'] === true;
  let canonical;
  try {
    canonical = lib.canonicalize(lib.decodeView(text, { includePath }), { includePath });
  } catch (error) {
    // decodeView checks the text and the domain in one pass: -0 is valid JSON but no
    // snapshot value, as it is for `hash` (where it fails at stage snapshot).
    throw rejectedFrom(lib, error, (code) => (code === 'negative_zero' || code === 'size_limit' ? 'snapshot' : 'json'));
  }
  process.stdout.write(values['no-newline'] ? canonical : `${canonical}\n`);
  return EXIT_OK;
}

function reportRejected(error, asJson) {
  const details = [`stage ${error.stage}`, `code ${error.code}`];
  if (error.path !== undefined) details.push(`path ${JSON.stringify(error.path)}`);
  process.stderr.write(`${PROGRAM}: error: ${error.message} (${details.join(', ')})\n`);
  if (asJson) {
    const detail = { stage: error.stage, code: error.code, message: error.message };
    if (error.path !== undefined) detail.path = error.path;
    writeJson({ error: detail });
  }
}

async function main(argv) {
  let invocation;
  try {
    invocation = parseCommandLine(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${PROGRAM}: error: ${error.message}\nTry '${PROGRAM} --help'.\n`);
    return EXIT_USAGE;
  }
  if (invocation.command === 'help') {
    process.stdout.write(HELP);
    return EXIT_OK;
  }
  if (invocation.command === 'version') {
    process.stdout.write(`${packageVersion()}\n`);
    return EXIT_OK;
  }
  try {
    return await COMMANDS[invocation.command].run(invocation);
  } catch (error) {
    if (error instanceof InputRejected) {
      reportRejected(error, invocation.values.json === true);
      return error.exitStatus === EXIT_MISMATCH ? EXIT_MISMATCH : EXIT_REJECTED;
    }
    if (error instanceof LoadFailure) {
      process.stderr.write(`${PROGRAM}: error: ${error.message}\n`);
      return EXIT_INTERNAL;
    }
    if (error instanceof UsageError) {
      // A key that cannot be had (--key-file, --key-env) is found only when the command runs.
      process.stderr.write(`${PROGRAM}: error: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}

// A closed pipe (`... | head -1`) ends the output, not the program with a stack.
process.stdout.on('error', (error) => {
  if (error && error.code === 'EPIPE') process.exit(process.exitCode ?? EXIT_OK);
  process.stderr.write(`${PROGRAM}: internal error: cannot write the output (${error && error.code})\n`);
  process.exit(EXIT_INTERNAL);
});

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error) => {
    process.stderr.write(`${PROGRAM}: internal error: ${error && error.stack ? error.stack : String(error)}\n`);
    process.exitCode = EXIT_INTERNAL;
  },
);
