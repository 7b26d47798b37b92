#!/usr/bin/env node
'use strict';
// The command line of tool-argument-snapshot, for approval reviewers and scripts. This
// file is the entry: it splits the arguments, picks the command, prints the top-level
// usage and turns what a command threw into an exit status. Each command is a module of
// bin/commands/ (its usage lines, its summary, its options and its run function), listed
// once in COMMANDS below; bin/shared/ holds what commands share (reading input and keys,
// stored records, output, errors). Input is read as bytes and must be UTF-8 without a
// byte order mark. Error messages name the stage and the code, never the payload.
//
// The command line is parsed here, not by util.parseArgs, so that the rules are ours and
// few: an option that takes a value always takes the next argument, whatever it looks
// like (`--tool -h` names the tool "-h"; an option's value is never a flag), and help is
// printed only when asked for alone, so that no invocation with values can exit 0
// without having done its work.

const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { PROGRAM, EXIT_OK, EXIT_MISMATCH, EXIT_USAGE, EXIT_REJECTED, EXIT_INTERNAL, UsageError, InputRejected, LoadFailure } = require('./shared/errors.js');
const { quoteArgument, writeJson } = require('./shared/output.js');

/** The commands, in the order help lists them: adding one is a module and a line here. */
const COMMAND_LIST = [
  require('./commands/hash.js'),
  require('./commands/verify.js'),
  require('./commands/verify-snapshot.js'),
  require('./commands/diff.js'),
  require('./commands/canonicalize.js'),
  require('./commands/pending.js'),
  require('./commands/grant.js'),
  require('./commands/decline.js'),
  require('./commands/cedar.js'),
];

const COMMANDS = { __proto__: null };
for (const command of COMMAND_LIST) COMMANDS[command.name] = command;

/**
 * Every option: whether it takes a value, as the commands declare them (an option two
 * commands share must take a value in both or in neither). `-h` is the only short option.
 */
const OPTIONS = { __proto__: null, help: 'boolean', version: 'boolean' };
for (const command of COMMAND_LIST) {
  for (const [name, kind] of Object.entries(command.options)) {
    if (OPTIONS[name] !== undefined && OPTIONS[name] !== kind) throw new Error(`option --${name} is declared both ways`);
    OPTIONS[name] = kind;
  }
}

const HELP = `Usage:
${COMMAND_LIST.map((command) => command.usage).join('')}  ${PROGRAM} help | --help | -h | COMMAND --help
  ${PROGRAM} --version

RFC-0016 authorized tool-argument snapshots: RFC 8785 (JCS) canonical JSON and
SHA-256 proposal hashes of LLM tool-call arguments.

Commands:
${COMMAND_LIST.map((command) => command.summary).join('')}
Input is read from FILE, or from standard input when FILE is - or absent. It
must be UTF-8: invalid bytes are an error, never replaced, and so is a leading
byte order mark (RFC 8259 section 8.1: JSON text must not start with one).
What is decoded is exactly what was read.

Options:
  --agent NAME     The agent name bound into the proposal hash.
  --tool NAME      The tool name bound into the proposal hash.
  --hash HEX       verify, verify-snapshot: the approved proposal hash.
  --key-file PATH  verify-snapshot, pending, grant: a file holding the key
                   ring as JSON, [{"id": ..., "secret": ...}] (or
                   {"keys": [...]}); a secret is a string (its UTF-8 bytes)
                   or "secretBase64".
  --key-env NAME   verify-snapshot, pending, grant: the environment variable
                   NAME holds the key ring, as --key-file's file does.
  --json           hash, verify, verify-snapshot, diff, pending, grant,
                   decline, cedar: print one JSON object on standard output,
                   control, C1 and bidirectional characters as \\u escapes:
                   {agentName, toolName, argsCanonicalJson, proposalHash},
                   for verify also {match, expectedHash}, for verify-snapshot
                   also {verified} (and {match, expectedHash} with --hash);
                   for diff {equal, agentName, toolName, approvedHash,
                   proposedHash, changes: [{path, kind}]}; for pending
                   {proposals: [{id, runId, toolCallId, verified, proposal
                   or error: {name, code}}], cursor}; for grant {granted,
                   agentName, toolName, argsCanonicalJson, proposalHash,
                   scope, expiresAt, uses, keyId}; for decline {declined,
                   runId, toolCallId}. A rejected input prints
                   {"error": {stage, code, message}} there too.
  --store URL      pending, grant, decline: the grant store, opened as
                   openGrantStore opens it: sqlite:PATH, postgres://...,
                   postgresql://..., redis://..., rediss://... (pg, redis or
                   ioredis installed where the command runs). The URL is
                   never printed, nor its user or password.
  --table NAME     pending, grant, decline: the store's table (SQLite,
                   PostgreSQL), when the application names one.
  --prefix P       pending, grant, decline: the Redis store's key prefix,
                   when the application names one.
  --id ID          grant, decline: the id of a kept proposal, as pending
                   prints it.
  --limit N        pending: at most N proposals (1 to 1000; default 100).
  --cursor C       pending: continue from the cursor a page printed.
  --scope S        grant: the grant's scope (a sealed proposal's own scope
                   otherwise; a different one is a usage error).
  --ttl MS         grant: the grant expires after MS milliseconds.
  --values         diff: also print the approved and proposed values at each
                   path (payload: off by default).
  --no-newline     canonicalize: print the canonical JSON alone, byte-exact
                   (to a terminal, invisible and bidirectional characters are
                   shown as \\u escapes instead, with a note).
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
      bind its fields) or its hash is not HEX; diff: the arguments differ;
      pending: a listed proposal does not verify; grant: refused (a
      signature that does not verify, an unknown key, an expired seal, a
      hash that does not match, granted before); grant, decline: nothing
      is kept under the id (not_pending)
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
  70  internal error, the native addon cannot be loaded, or the store
      cannot be opened or fails (its message never shows the URL)

Examples:
  echo '{"path":"/srv/app/a.txt","mode":420}' |
    ${PROGRAM} hash --agent bot --tool write_file
  ${PROGRAM} verify --agent bot --tool write_file \\
    --hash "$APPROVED_HASH" args.json
  ${PROGRAM} verify-snapshot --hash "$APPROVED_HASH" proposal.json
  ${PROGRAM} diff approved.json proposed.json
  ${PROGRAM} canonicalize --no-newline data.json > data.jcs.json
  ${PROGRAM} pending --store sqlite:grants.db --key-env KEYS
  ${PROGRAM} grant --store sqlite:grants.db --key-env KEYS --id ID
  ${PROGRAM} decline --store sqlite:grants.db --id ID
`;

function packageVersion() {
  // Read directly, so that --version works even when the native addon cannot load.
  return JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;
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
    if (!Object.hasOwn(spec.options, name)) throw new UsageError(`option --${name} does not apply to ${command}`);
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
  if (spec.operands === 'subcommand') return { command, values, operands };
  if (spec.operands === 2) {
    if (operands.length !== 2)
      throw new UsageError(`${command} compares two files (APPROVED PROPOSED), but ${operands.length} ${operands.length === 1 ? 'was' : 'were'} given`);
    if (operands[0] === '-' && operands[1] === '-') throw new UsageError(`${command} reads standard input for one file at most`);
    return { command, values, files: operands };
  }
  if (operands.length > 1) throw new UsageError(`${command} reads one input, but ${operands.length} were given`);
  return { command, values, file: operands[0] };
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
process.stdout.on('error', (/** @type {NodeJS.ErrnoException} */ error) => {
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
