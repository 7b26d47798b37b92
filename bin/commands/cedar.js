'use strict';
// cedar: Cedar policy sets (createCedarPolicy, docs/cedar.md) from the command line.
//   cedar validate   parse the policies and validate them strictly against the tools' schemas
//   cedar explain    the decision a set makes for a stored or sealed proposal, verified first
// Output names codes, policy ids and Cedar's diagnostics about the policy text; never an
// argument value.

const { PROGRAM, EXIT_OK, EXIT_MISMATCH, EXIT_REJECTED, UsageError, InputRejected, loadLibrary } = require('../shared/errors.js');
const { readText, readKeyRing } = require('../shared/input.js');
const { displayString, writeJson } = require('../shared/output.js');
const { RECORD_FIELDS, SEALED_FIELDS, readRecord, verifyRecord, rejectedRecord } = require('../shared/records.js');

const usage = `  ${PROGRAM} cedar validate --policies FILE [--tools FILE] [--json]
  ${PROGRAM} cedar explain --policies FILE [--tools FILE]
                [--key-file PATH | --key-env NAME] [--json] PROPOSAL.json|-
`;

const summary = `  cedar validate
                Parse a Cedar policy set (--policies FILE, the text
                createCedarPolicy takes) and, with --tools FILE (a JSON object
                mapping each tool name to its arguments' JSON Schema, or an MCP
                tools/list result as saved, bare or in its JSON-RPC response), validate
                it strictly against the schema derived from the tools. Exit 0
                and print "valid" with the policy set hash; exit 1 and print
                each error (code, policy id, Cedar's message naming the
                attribute) when the set is refused: parse_error,
                validation_error, duplicate_policy_id.
  cedar explain Verify a stored proposal (or, with --key-file or --key-env, a
                sealed one) as verify-snapshot does, then print the decision
                the policy set makes for it, its reason, the determining policy
                ids and the policy set hash. The principal is the agent, the
                grant scope a sealed proposal's scope. A proposal that does not
                verify exits 3 with its code (hash_mismatch, bad_signature...);
                a refused policy set exits 1 as with validate.
`;

/** A file's text (UTF-8, never repaired): unreadable is rejected input (exit 3). */
async function readFileText(file, what) {
  try {
    return await readText(file);
  } catch (error) {
    if (error instanceof InputRejected) error.message = `${what}: ${error.message}`;
    throw error;
  }
}

const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const notTools = (message) => new InputRejected(`the tools file ${message}`, 'tools', 'not_a_tools_map');

/**
 * An MCP `tools/list` result's tools (`[{ name, inputSchema, ... }]`) as a map from tool
 * name to its input schema; every other field of a tool (description, annotations,
 * outputSchema...) is left aside.
 */
function toolsOfList(list) {
  const tools = Object.create(null);
  for (let i = 0; i < list.length; i++) {
    const tool = list[i];
    if (!isObject(tool) || typeof tool.name !== 'string') throw notTools(`lists a tool (at index ${i}) without a string name`);
    if (!isObject(tool.inputSchema)) throw notTools(`lists the tool ${displayString(tool.name)} without an inputSchema object`);
    if (Object.prototype.hasOwnProperty.call(tools, tool.name)) throw notTools(`lists the tool ${displayString(tool.name)} twice`);
    tools[tool.name] = tool.inputSchema;
  }
  return tools;
}

/**
 * The --tools file: a JSON object mapping tool names to JSON Schemas (objects), an MCP
 * `tools/list` result as it is (`{ "tools": [...] }`), or the JSON-RPC response that
 * carried it (`{ "jsonrpc": "2.0", "id": ..., "result": { "tools": [...] } }`).
 */
async function readTools(file) {
  if (file === undefined) return undefined;
  const text = await readFileText(file, 'the tools file');
  let tools;
  try {
    tools = JSON.parse(text);
  } catch {
    throw new InputRejected('the tools file is not valid JSON text', 'json', 'invalid_json');
  }
  if (!isObject(tools)) {
    throw notTools('must hold a JSON object mapping tool names to JSON Schemas, or an MCP tools/list result');
  }
  // A JSON-RPC response: its result is the tools/list result (a schema map has no string `jsonrpc`).
  if (typeof tools.jsonrpc === 'string') {
    if (!isObject(tools.result)) throw notTools('is a JSON-RPC response without a result (an error response, or not tools/list)');
    tools = tools.result;
    if (!Array.isArray(tools.tools)) throw notTools('is a JSON-RPC response whose result has no tools array (not a tools/list result)');
  }
  // A tools/list result: its `tools` is an array (in a schema map, every value is an object).
  if (Array.isArray(tools.tools)) return toolsOfList(tools.tools);
  for (const name of Object.keys(tools)) {
    const schema = tools[name];
    if (!isObject(schema)) {
      throw notTools(`maps the tool ${displayString(name)} to something other than a JSON Schema object`);
    }
  }
  return tools;
}

/** The policy set as createCedarPolicy makes it, or the issues that refuse it. */
function compile(lib, policies, tools) {
  try {
    return { policy: lib.createCedarPolicy(tools === undefined ? { policies } : { policies, tools }) };
  } catch (error) {
    if (lib.isCedarPolicyError(error)) return { issues: error.issues };
    if (error instanceof TypeError) {
      // A tools file whose schema has no Cedar form, or text that is not Unicode.
      throw new InputRejected(`the policies or tools were refused: ${error.message}`, 'tools', 'invalid_input');
    }
    throw error;
  }
}

function printIssues(issues, asJson) {
  if (asJson) {
    writeJson({ valid: false, errors: issues.map((i) => ({ code: i.code, policyId: i.policyId, message: i.message })) });
    return;
  }
  let out = 'invalid\n';
  for (const i of issues) {
    out += `error: ${i.code}${i.policyId === null ? '' : ` (policy ${displayString(i.policyId)})`}: ${i.message}\n`;
  }
  process.stdout.write(out);
}

async function runValidate(values) {
  const policies = await readFileText(values.policies, 'the policies file');
  const tools = await readTools(values.tools);
  const lib = loadLibrary();
  const made = compile(lib, policies, tools);
  if (made.issues !== undefined) {
    printIssues(made.issues, values.json === true);
    return EXIT_MISMATCH;
  }
  if (values.json) writeJson({ valid: true, policySetHash: made.policy.policySetHash });
  else process.stdout.write(`valid\npolicy set hash: ${made.policy.policySetHash}\n`);
  return EXIT_OK;
}

/** A sealed proposal verified with a key ring (as verify-snapshot does); any failure is exit 3 here. */
function verifySealed(lib, keys, record) {
  let grants;
  try {
    grants = lib.createApprovalGrants({ keys });
  } catch (error) {
    throw new UsageError(`the key ring is not usable: ${error && error.message}`);
  }
  try {
    return grants.verify(record);
  } catch (error) {
    if (lib.isApprovalGrantError(error)) throw new InputRejected(`the proposal: ${error.message.replace(/\s*\[[a-z_]+\]$/, '')}`, 'seal', error.code);
    throw rejectedRecord(lib, error, 'the proposal');
  }
}

async function runExplain(values, file) {
  const keys = values['key-file'] !== undefined || values['key-env'] !== undefined ? readKeyRing(values) : undefined;
  const policies = await readFileText(values.policies, 'the policies file');
  const tools = await readTools(values.tools);
  const text = await readFileText(file, 'the proposal');
  const lib = loadLibrary();
  // The proposal is verified before anything is evaluated: a tampered one is refused.
  let verified;
  try {
    const record = readRecord(text, 'the proposal', false, keys === undefined ? RECORD_FIELDS : SEALED_FIELDS);
    verified = keys === undefined ? verifyRecord(lib, record, 'the proposal') : verifySealed(lib, keys, record);
  } catch (error) {
    if (error instanceof InputRejected) error.exitStatus = EXIT_REJECTED;
    throw error;
  }
  const made = compile(lib, policies, tools);
  if (made.issues !== undefined) {
    printIssues(made.issues, values.json === true);
    return EXIT_MISMATCH;
  }
  const { agentName, toolName, argsCanonicalJson, proposalHash } = verified;
  const scope = keys === undefined ? null : verified.scope;
  const prepared = lib.prepareToolCall({ agentName, toolName, rawArguments: argsCanonicalJson });
  if (prepared.proposalHash !== proposalHash) throw new Error('the verified proposal does not hash to its own proposal hash');
  const decision = await lib.evaluateToolCall({ prepared, policy: made.policy, policyContext: scope === null ? {} : { grantScope: scope } });
  const { policies: ids, policySetHash } = /** @type {import('../..').CedarPolicyResult} */ (decision.policyResult);
  if (values.json) {
    writeJson({ decision: decision.decision, reason: decision.reason, policies: ids, policySetHash, agentName, toolName, proposalHash, scope });
    return EXIT_OK;
  }
  process.stdout.write(
    `decision:        ${decision.decision}\n` +
      `reason:          ${decision.reason}\n` +
      `policies:        ${ids.length === 0 ? 'none' : ids.map(displayString).join(', ')}\n` +
      `policy set hash: ${policySetHash}\n` +
      `agent name:      ${displayString(agentName)}\n` +
      `tool name:       ${displayString(toolName)}\n` +
      `proposal hash:   ${proposalHash}\n` +
      (keys === undefined ? '' : `grant scope:     ${scope === null ? 'none' : displayString(scope)}\n`),
  );
  return EXIT_OK;
}

const SUBCOMMANDS = {
  __proto__: null,
  validate: { options: ['policies', 'tools', 'json'], operands: 0 },
  explain: { options: ['policies', 'tools', 'json', 'key-file', 'key-env'], operands: 1 },
};

async function runCedar({ values, operands }) {
  const [sub, ...rest] = operands;
  if (sub === undefined) throw new UsageError('cedar needs a subcommand: validate or explain');
  const spec = SUBCOMMANDS[sub];
  if (spec === undefined) throw new UsageError(`unknown cedar subcommand ${displayString(sub)} (validate or explain)`);
  for (const name of Object.keys(values)) {
    if (!spec.options.includes(name)) throw new UsageError(`option --${name} does not apply to cedar ${sub}`);
  }
  if (values.policies === undefined) throw new UsageError(`cedar ${sub} needs --policies FILE`);
  if (values.policies === '-' || values.tools === '-') throw new UsageError('--policies and --tools name files, not standard input');
  if (rest.length !== spec.operands) {
    throw new UsageError(sub === 'validate' ? 'cedar validate takes no operand' : 'cedar explain reads one proposal (PROPOSAL.json, or - for standard input)');
  }
  return sub === 'validate' ? runValidate(values) : runExplain(values, rest[0]);
}

module.exports = {
  name: 'cedar',
  usage,
  summary,
  /** The options it takes: whether each takes a value. */
  options: {
    policies: 'string',
    tools: 'string',
    json: 'boolean',
    'key-file': 'string',
    'key-env': 'string',
  },
  required: [],
  /** Its operands are a subcommand and its own (see runCedar), not one input. */
  operands: 'subcommand',
  run: runCedar,
};
