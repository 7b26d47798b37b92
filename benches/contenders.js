'use strict';
// The contenders of `npm run bench`, and the work items they run on.
//
// Every contender does the same RFC-0016 step on a tool call { agentName, toolName, value }:
// make the snapshot (canonical JSON + proposal hash), then decode two views of it (one
// for policy, one for execution). Each step function is written out on its own, rather
// than made by a shared factory, so that every contender runs its own monomorphic code.

const { createHash } = require('node:crypto');
const { CLASSES } = require('../support/payloads');

const AGENT = 'bench-agent';
// Tool names of the realistic corpus, in the order of its ten shapes (payloads.js SHAPES).
const REALISTIC_TOOLS = [
  'web_search',
  'edit_file',
  'sql_query',
  'http_request',
  'create_event',
  'run_command',
  'send_email',
  'update_ticket',
  'find_places',
  'write_records',
];
const CLASS_TOOLS = {
  small: 'write_file',
  medium: 'import_records',
  large: 'upload_document',
  numberHeavy: 'store_series',
  wide: 'set_config',
  intKeysDense: 'set_table',
  intKeysSparse: 'set_index',
  wideIntKeys: 'set_registers',
  deep: 'apply_tree',
};

/**
 * The work items of a payload class: one tool call, or for `realistic` the fifty
 * different calls of its array (one operation snapshots each of them separately).
 */
function buildItems(className) {
  const payload = CLASSES[className]();
  if (className === 'realistic') {
    return payload.map((value, i) => ({ agentName: AGENT, toolName: REALISTIC_TOOLS[i % REALISTIC_TOOLS.length], value }));
  }
  return [{ agentName: AGENT, toolName: CLASS_TOOLS[className] || className, value: payload }];
}

/** The proposal hash of the JS contenders: sha256 hex of the RFC-0016 envelope. */
function sha256Envelope(agentName, toolName, argsCanonicalJson) {
  const envelope = `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(argsCanonicalJson)},"kind":"tool","toolName":${JSON.stringify(toolName)}}`;
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

/**
 * The lenient sorted-keys stringify runtimes use today: recursive, Object.keys(...).sort(),
 * JSON.stringify for the leaves. It validates nothing (no descriptor, prototype, cycle or
 * -0 check, toJSON and getters run).
 */
function sortedKeysStringify(value) {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + sortedKeysStringify(value[i]);
    return out + ']';
  }
  const keys = Object.keys(value).sort();
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    out += (i === 0 ? '' : ',') + JSON.stringify(keys[i]) + ':' + sortedKeysStringify(value[keys[i]]);
  }
  return out + '}';
}

/** Where the step functions leave the policy view, so that nothing is dead code. */
const SINK = { view: null };

/**
 * Each contender: `id`, `label`, `agreement` ('exact': must produce the package's
 * argsCanonicalJson and proposalHash; 'lenient': must agree on the plain data of the
 * corpus, may legitimately differ on risky inputs; 'none': the floor, not canonical)
 * and `load()`, which resolves to { step(item), canonicalize(value), snapshot(item) }.
 * The step functions are written out per contender on purpose, not shared: a shared
 * step would give V8 one call site for every canonicalizer, and its inline caches would
 * then measure the mix instead of each contender.
 */
const CONTENDERS = [
  {
    id: 'package',
    label: 'tool-argument-snapshot',
    agreement: 'self',
    async load() {
      const pkg = require('..');
      const { createSnapshot, decodeView } = pkg;
      function step(item) {
        const snapshot = createSnapshot(item);
        SINK.view = decodeView(snapshot);
        return decodeView(snapshot);
      }
      return { step, canonicalize: pkg.canonicalize, snapshot: (item) => createSnapshot(item), pkg };
    },
  },
  {
    id: 'strict-reference',
    label: 'strict JS reference',
    agreement: 'exact',
    async load() {
      const ref = require('../support/strict-reference');
      const { createSnapshot } = ref;
      function step(item) {
        const snapshot = createSnapshot(item);
        SINK.view = JSON.parse(snapshot.argsCanonicalJson);
        return JSON.parse(snapshot.argsCanonicalJson);
      }
      return { step, canonicalize: ref.canonicalize, snapshot: (item) => createSnapshot(item) };
    },
  },
  {
    id: 'canonicalize',
    label: 'canonicalize (npm) + sha256',
    agreement: 'lenient',
    async load() {
      const canonicalize = (await import('canonicalize')).default;
      function step(item) {
        const argsCanonicalJson = canonicalize(item.value);
        const snapshot = {
          agentName: item.agentName,
          toolName: item.toolName,
          argsCanonicalJson,
          proposalHash: sha256Envelope(item.agentName, item.toolName, argsCanonicalJson),
        };
        SINK.view = JSON.parse(snapshot.argsCanonicalJson);
        return JSON.parse(snapshot.argsCanonicalJson);
      }
      return { step, canonicalize, snapshot: (item) => jsSnapshot(item, canonicalize(item.value)) };
    },
  },
  {
    id: 'json-canonicalize',
    label: 'json-canonicalize + sha256',
    agreement: 'lenient',
    async load() {
      const { canonicalize } = require('json-canonicalize');
      function step(item) {
        const argsCanonicalJson = canonicalize(item.value);
        const snapshot = {
          agentName: item.agentName,
          toolName: item.toolName,
          argsCanonicalJson,
          proposalHash: sha256Envelope(item.agentName, item.toolName, argsCanonicalJson),
        };
        SINK.view = JSON.parse(snapshot.argsCanonicalJson);
        return JSON.parse(snapshot.argsCanonicalJson);
      }
      return { step, canonicalize, snapshot: (item) => jsSnapshot(item, canonicalize(item.value)) };
    },
  },
  {
    id: 'sorted-keys',
    label: 'lenient sorted-keys + sha256',
    agreement: 'lenient',
    async load() {
      function step(item) {
        const argsCanonicalJson = sortedKeysStringify(item.value);
        const snapshot = {
          agentName: item.agentName,
          toolName: item.toolName,
          argsCanonicalJson,
          proposalHash: sha256Envelope(item.agentName, item.toolName, argsCanonicalJson),
        };
        SINK.view = JSON.parse(snapshot.argsCanonicalJson);
        return JSON.parse(snapshot.argsCanonicalJson);
      }
      return { step, canonicalize: sortedKeysStringify, snapshot: (item) => jsSnapshot(item, sortedKeysStringify(item.value)) };
    },
  },
  {
    id: 'floor',
    label: 'floor: JSON.stringify + sha256',
    agreement: 'none',
    async load() {
      const stringify = JSON.stringify;
      function step(item) {
        const argsCanonicalJson = stringify(item.value);
        const snapshot = {
          agentName: item.agentName,
          toolName: item.toolName,
          argsCanonicalJson,
          proposalHash: sha256Envelope(item.agentName, item.toolName, argsCanonicalJson),
        };
        SINK.view = JSON.parse(snapshot.argsCanonicalJson);
        return JSON.parse(snapshot.argsCanonicalJson);
      }
      return { step, canonicalize: (value) => stringify(value), snapshot: (item) => jsSnapshot(item, stringify(item.value)) };
    },
  },
];

function jsSnapshot(item, argsCanonicalJson) {
  return {
    agentName: item.agentName,
    toolName: item.toolName,
    argsCanonicalJson,
    proposalHash: sha256Envelope(item.agentName, item.toolName, argsCanonicalJson),
  };
}

function findContender(id) {
  const contender = CONTENDERS.find((c) => c.id === id);
  if (contender === undefined) throw new Error(`unknown contender ${id}; known: ${CONTENDERS.map((c) => c.id).join(', ')}`);
  return contender;
}

/** Loads every contender (or the listed ids), keeping the order of CONTENDERS. */
async function loadContenders(ids) {
  const list = ids === undefined ? CONTENDERS : ids.map(findContender);
  const loaded = [];
  for (const contender of list) loaded.push({ ...contender, ...(await contender.load()) });
  return loaded;
}

module.exports = { AGENT, CONTENDERS, SINK, buildItems, sha256Envelope, sortedKeysStringify, loadContenders, findContender };
