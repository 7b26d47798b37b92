#!/usr/bin/env node
'use strict';
// The command line of tool-argument-snapshot, for approval reviewers and scripts: the
// canonical JSON and proposal hash of a provider's raw tool-call arguments (hash), a
// check of those arguments against an approved hash (verify), and RFC 8785 for any
// strict JSON text (canonicalize). Input is read as bytes and must be UTF-8 without a
// byte order mark. Error messages name the stage and the code, never the payload.

const { createReadStream, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { parseArgs } = require('node:util');
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
  ${PROGRAM} canonicalize [--no-newline] [FILE|-]
  ${PROGRAM} help | --help | -h
  ${PROGRAM} --version

RFC-0016 authorized tool-argument snapshots: RFC 8785 (JCS) canonical JSON and
SHA-256 proposal hashes of LLM tool-call arguments.

Commands:
  hash          Strict-decode the raw tool-call arguments (the provider's JSON
                string) and print their canonical JSON and proposal hash. Empty
                or whitespace-only input is the empty object {}, as providers
                send it.
  verify        Exit 0 and print "match" when the arguments' proposal hash is
                HEX (64 hex digits, any case); otherwise print "mismatch", both
                hashes and the canonical JSON that was hashed, and exit 1.
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
  --hash HEX       verify: the approved proposal hash.
  --json           hash, verify: print one JSON object on standard output:
                   {agentName, toolName, argsCanonicalJson, proposalHash}, and
                   for verify also {match, expectedHash}. A rejected input
                   prints {"error": {stage, code, message}} there too.
  --no-newline     canonicalize: print the canonical JSON alone, byte-exact.
  --include-path   On rejected input, also print the JSON Pointer of the
                   offending value. Off by default: a pointer is made of the
                   payload's keys.
  -h, --help       Print this help.
  --version        Print the version.

Output:
  hash prints two labelled lines: "canonical JSON: ..." and
  "proposal hash:  ...".
  When the canonical JSON holds invisible or bidirectional control characters
  (which can make a terminal show something other than what was hashed), hash
  and verify print a warning naming them on standard error.

Exit status:
  0   success; for verify, the hash matches
  1   verify: the hash does not match
  2   usage error (unknown command or option, missing or malformed option)
  3   input rejected: not UTF-8, not strict JSON, outside the snapshot
      domain, or unreadable. Standard error then says
        ${PROGRAM}: error: MESSAGE (stage STAGE, code CODE)
      where STAGE is input (reading), json (decoding) or snapshot (the
      value's domain) and CODE a stable code such as duplicate_key.
      The message never quotes the input.
  70  internal error, or the native addon cannot be loaded

Examples:
  echo '{"path":"/srv/app/a.txt","mode":420}' |
    ${PROGRAM} hash --agent bot --tool write_file
  ${PROGRAM} verify --agent bot --tool write_file \\
    --hash "$APPROVED_HASH" args.json
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

const OPTIONS = {
  agent: { type: 'string' },
  tool: { type: 'string' },
  hash: { type: 'string' },
  json: { type: 'boolean' },
  'no-newline': { type: 'boolean' },
  'include-path': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
};

const COMMANDS = {
  hash: { allowed: ['agent', 'tool', 'json', 'include-path'], required: ['agent', 'tool'], run: runHash },
  verify: { allowed: ['agent', 'tool', 'hash', 'json', 'include-path'], required: ['agent', 'tool', 'hash'], run: runVerify },
  canonicalize: { allowed: ['no-newline', 'include-path'], required: [], run: runCanonicalize },
};

// Characters a terminal draws as nothing, or that reorder what follows: C1 controls,
// DEL, soft hyphen, the Arabic letter mark, zero-width and bidirectional marks,
// embeddings, overrides and isolates, line/paragraph separators, word joiner and the
// invisible operators, the Hangul fillers, the BOM, and the tag characters that can
// smuggle invisible ASCII. JCS escapes only U+0000..U+001F.
const DECEPTIVE =
  /[\u007F-\u009F\u00AD\u061C\u115F\u1160\u180E\u200B-\u200F\u2028-\u202E\u2060-\u2064\u2066-\u2069\u3164\uFEFF\uFFA0\u{E0000}-\u{E007F}]/gu;

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

/** Parses argv into { command, values, file }; throws UsageError. */
function parseCommandLine(argv) {
  const beforeTerminator = argv.includes('--') ? argv.slice(0, argv.indexOf('--')) : argv;
  if (beforeTerminator.includes('--help') || beforeTerminator.includes('-h')) return { command: 'help' };

  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true, tokens: true });
  } catch (error) {
    if (typeof error.code === 'string' && error.code.startsWith('ERR_PARSE_ARGS_')) {
      throw new UsageError(error.message.replace(/\s*\n\s*/g, ' '));
    }
    throw error;
  }
  const { values, positionals, tokens } = parsed;

  const seen = new Set();
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    if (seen.has(token.name)) throw new UsageError(`option --${token.name} is given more than once`);
    seen.add(token.name);
  }

  if (values.version) {
    if (positionals.length > 0 || seen.size > 1) throw new UsageError('--version takes no other argument');
    return { command: 'version' };
  }
  if (positionals.length === 0) throw new UsageError('no command given');

  const [command, ...operands] = positionals;
  if (command === 'help') return { command: 'help' };
  if (!Object.hasOwn(COMMANDS, command)) throw new UsageError(`unknown command ${JSON.stringify(command)}`);
  const spec = COMMANDS[command];

  for (const name of seen) {
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
  if (values.hash !== undefined && !/^[0-9a-fA-F]{64}$/.test(values.hash)) {
    throw new UsageError('--hash must be 64 hexadecimal digits (a SHA-256 proposal hash)');
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

function warnIfDeceptive(canonicalJson) {
  const found = canonicalJson.match(DECEPTIVE);
  if (found === null) return;
  const codePoints = [...new Set(found)].map((c) => `U+${c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
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
      return EXIT_REJECTED;
    }
    if (error instanceof LoadFailure) {
      process.stderr.write(`${PROGRAM}: error: ${error.message}\n`);
      return EXIT_INTERNAL;
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
