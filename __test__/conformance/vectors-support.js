'use strict';
// Reading conformance-vectors/ (see its README): the vector files, their checks, the tag
// language of value vectors and an independent RFC 8785 oracle. Shared by
// conformance/conformance-vectors.test.js and conformance/vectors-differential.test.js; node --test does not run
// this file (its name matches no test-file pattern). Nothing here loads the package.

const fs = require('node:fs');
const path = require('node:path');
const { createHash } = require('node:crypto');

const VECTORS_DIR = path.join(__dirname, '..', '..', 'conformance-vectors');
const FORMAT = 'tool-argument-snapshot conformance vectors, version 1';
const INPUTS = ['text', 'textUtf16Hex', 'bytesHex', 'value'];
const STAGES = ['json', 'snapshot'];

/** Every vector of every *.json file, with its file's names filled in. */
function loadVectors() {
  const vectors = [];
  const files = fs
    .readdirSync(VECTORS_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort();
  for (const name of files) {
    const doc = JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, name), 'utf8'));
    for (const vector of doc.vectors) {
      vectors.push({
        ...vector,
        file: name,
        agentName: vector.agentName ?? doc.agentName,
        toolName: vector.toolName ?? doc.toolName,
        input: INPUTS.find((key) => Object.hasOwn(vector, key)),
      });
    }
  }
  return { files, vectors, docs: files.map((name) => JSON.parse(fs.readFileSync(path.join(VECTORS_DIR, name), 'utf8'))) };
}

/** Structural problems of the vector files (an empty list when they are well formed). */
function formatProblems({ files, docs, vectors }, errorCodes) {
  const problems = [];
  const ids = new Set();
  docs.forEach((doc, i) => {
    if (doc.format !== FORMAT) problems.push(`${files[i]}: format is not "${FORMAT}"`);
    for (const key of ['description', 'agentName', 'toolName']) if (typeof doc[key] !== 'string') problems.push(`${files[i]}: no ${key}`);
    if (!Array.isArray(doc.vectors) || doc.vectors.length === 0) problems.push(`${files[i]}: no vectors`);
  });
  const checkExpect = (vector, expect, label) => {
    if (expect === null || typeof expect !== 'object') return problems.push(`${vector.id}: ${label} is missing`);
    const keys = Object.keys(expect).sort().join(',');
    if (keys === 'canonicalJson,proposalHash') {
      if (typeof expect.canonicalJson !== 'string' || !/^[0-9a-f]{64}$/.test(expect.proposalHash)) problems.push(`${vector.id}: ${label} malformed`);
    } else if (keys === 'code,stage') {
      if (!STAGES.includes(expect.stage)) problems.push(`${vector.id}: ${label}.stage ${expect.stage}`);
      if (!errorCodes.includes(expect.code)) problems.push(`${vector.id}: ${label}.code ${expect.code} is no package error code`);
      if (vector.input === 'value' && expect.stage !== 'snapshot') problems.push(`${vector.id}: a value vector fails at stage snapshot`);
    } else {
      problems.push(`${vector.id}: ${label} has fields ${keys}`);
    }
    return undefined;
  };
  for (const vector of vectors) {
    if (typeof vector.id !== 'string' || !vector.id.startsWith(`${vector.file.replace(/\.json$/, '')}/`))
      problems.push(`${vector.id}: id must start with its file's name`);
    if (ids.has(vector.id)) problems.push(`${vector.id}: duplicate id`);
    ids.add(vector.id);
    if (typeof vector.rule !== 'string' || vector.rule.length < 10) problems.push(`${vector.id}: no rule`);
    if (!Array.isArray(vector.refs) || vector.refs.length === 0) problems.push(`${vector.id}: no refs`);
    const inputs = INPUTS.filter((key) => Object.hasOwn(vector, key));
    if (inputs.length !== 1) problems.push(`${vector.id}: ${inputs.length} inputs (${inputs.join(', ')})`);
    if (vector.input === 'textUtf16Hex' && !/^[0-9a-f]{4}( [0-9a-f]{4})*$/.test(vector.textUtf16Hex)) problems.push(`${vector.id}: textUtf16Hex malformed`);
    if (vector.input === 'bytesHex' && !/^(?:[0-9a-f]{2})*$/.test(vector.bytesHex)) problems.push(`${vector.id}: bytesHex malformed`);
    checkExpect(vector, vector.expect, 'expect');
    if (Object.hasOwn(vector, 'providerExpect')) {
      checkExpect(vector, vector.providerExpect, 'providerExpect');
      if (vector.input === 'value') problems.push(`${vector.id}: providerExpect on a value vector`);
    }
  }
  return problems;
}

/** The JSON text of a text vector (a JavaScript string, possibly not well-formed). */
function textOf(vector) {
  if (vector.input === 'text') return vector.text;
  if (vector.input === 'textUtf16Hex') return String.fromCharCode(...vector.textUtf16Hex.split(' ').map((unit) => parseInt(unit, 16)));
  throw new Error(`${vector.id} is no text vector`);
}

function bytesOf(vector) {
  return Buffer.from(vector.bytesHex, 'hex');
}

/** The SHA-256 of the RFC-0016 envelope, built by hand (strings as JSON.stringify writes them). */
function envelopeHash(agentName, toolName, argsCanonicalJson) {
  const envelope =
    `{"agentName":${JSON.stringify(agentName)},"argsCanonicalJson":${JSON.stringify(argsCanonicalJson)},` +
    `"kind":"tool","toolName":${JSON.stringify(toolName)}}`;
  return createHash('sha256').update(envelope, 'utf8').digest('hex');
}

/**
 * An independent RFC 8785 serializer for plain JSON data (what JSON.parse returns, or a
 * value vector's positive value): strings as JSON.stringify writes them (RFC 8785
 * section 3.2.2.2 is that operation), numbers as String(n) (section 3.2.2.3), member
 * names sorted by UTF-16 code units (section 3.2.3; the default sort compares so).
 */
function oracleCanonical(value) {
  if (value === null || value === true || value === false) return String(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Object.is(value, -0)) throw new Error('no snapshot number');
    return String(value);
  }
  if (typeof value === 'string') {
    if (!value.isWellFormed()) throw new Error('lone surrogate');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(oracleCanonical).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${oracleCanonical(key)}:${oracleCanonical(value[key])}`).join(',')}}`;
}

// ---------------------------------------------------------------------------------------
// The tag language of value vectors (conformance-vectors/README.md, "Value vectors").

/** Builds the JavaScript value a description stands for; `hits` counts code of the value that ran. */
function buildValue(description) {
  const state = { hits: [], anchors: new Map() };
  const value = build(description, state);
  return { value, hits: state.hits };
}

function defineData(target, key, value, enumerable = true) {
  Object.defineProperty(target, key, { value, enumerable, writable: true, configurable: true });
}

function isTag(description) {
  if (description === null || typeof description !== 'object' || Array.isArray(description)) return false;
  const keys = Object.keys(description);
  const tagged = keys.filter((key) => key.startsWith('$'));
  if (tagged.length === 0) return false;
  if (keys.length !== 1) throw new Error(`a tag object has exactly one member: ${keys.join(', ')}`);
  return true;
}

function buildKey(key, state) {
  if (typeof key === 'string') return key;
  if (isTag(key) && Object.hasOwn(key, '$utf16')) return build(key, state);
  if (isTag(key) && Object.hasOwn(key, '$symbol')) return Symbol(key.$symbol);
  throw new Error(`a key is a string, {"$utf16"} or {"$symbol"}: ${JSON.stringify(key)}`);
}

/** Defines the members of `entries` ([key, description] pairs) on `target`. */
function fill(target, entries, state) {
  for (const [rawKey, description] of entries) {
    const key = buildKey(rawKey, state);
    if (isTag(description) && Object.hasOwn(description, '$getter')) {
      const result = build(description.$getter, state);
      Object.defineProperty(target, key, {
        get() {
          state.hits.push(`getter ${String(key)}`);
          return result;
        },
        enumerable: true,
        configurable: true,
      });
    } else if (isTag(description) && Object.hasOwn(description, '$setter')) {
      Object.defineProperty(target, key, {
        set() {
          state.hits.push(`setter ${String(key)}`);
        },
        enumerable: true,
        configurable: true,
      });
    } else if (isTag(description) && Object.hasOwn(description, '$nonEnumerable')) {
      defineData(target, key, build(description.$nonEnumerable, state), false);
    } else {
      defineData(target, key, build(description, state));
    }
  }
  return target;
}

const TRAPS = [
  'get',
  'set',
  'has',
  'ownKeys',
  'getOwnPropertyDescriptor',
  'getPrototypeOf',
  'setPrototypeOf',
  'defineProperty',
  'deleteProperty',
  'isExtensible',
  'preventExtensions',
  'apply',
  'construct',
];

function build(description, state) {
  if (description === null || typeof description !== 'object') return description;
  if (Array.isArray(description)) {
    const array = [];
    description.forEach((item, index) => defineData(array, index, build(item, state)));
    return array;
  }
  if (!isTag(description)) return fill({}, Object.entries(description), state);
  const [tag] = Object.keys(description);
  const arg = description[tag];
  switch (tag) {
    case '$number':
      return Number(arg);
    case '$bits': {
      const view = new DataView(new ArrayBuffer(8));
      view.setBigUint64(0, BigInt(`0x${arg}`));
      return view.getFloat64(0);
    }
    case '$neg0':
      return -0;
    case '$nan':
      return NaN;
    case '$infinity':
      return arg < 0 ? -Infinity : Infinity;
    case '$undefined':
      return undefined;
    case '$bigint':
      return BigInt(arg);
    case '$symbol':
      return Symbol(arg);
    case '$function': {
      const name = String(arg);
      return {
        [name]() {
          state.hits.push(`function ${name}`);
        },
      }[name];
    }
    case '$utf16':
      return String.fromCharCode(
        ...arg
          .split(' ')
          .flatMap((group) => group.match(/.{4}/g))
          .map((unit) => parseInt(unit, 16)),
      );
    case '$object':
      return fill({}, arg, state);
    case '$nullProto':
      return fill(Object.create(null), arg, state);
    case '$classInstance': {
      class Thing {}
      return fill(new Thing(), arg, state);
    }
    case '$withProto':
      return fill(Object.create(build(arg.proto, state)), arg.entries, state);
    case '$sparse': {
      const array = new Array(arg.length);
      for (const [index, item] of arg.items) defineData(array, index, build(item, state));
      return array;
    }
    case '$arrayExtra': {
      const array = build(arg.items, state);
      return fill(array, arg.props, state);
    }
    case '$date':
      return new Date(arg);
    case '$regexp':
      return new RegExp(arg);
    case '$map':
      return new Map(arg.map(([k, v]) => [build(k, state), build(v, state)]));
    case '$set':
      return new Set(arg.map((item) => build(item, state)));
    case '$typedArray':
      return new globalThis[arg.type](arg.items);
    case '$arrayBuffer':
      return new ArrayBuffer(arg);
    case '$boxed':
      return Object(arg.value);
    case '$error':
      return new Error(arg);
    case '$promise':
      return Promise.resolve();
    case '$proxy': {
      const handler = {};
      for (const trap of TRAPS) {
        handler[trap] = (...args) => {
          state.hits.push(`trap ${trap}`);
          return Reflect[trap](...args);
        };
      }
      return new Proxy(build(arg, state), handler);
    }
    case '$frozen':
      return Object.freeze(build(arg, state));
    case '$let': {
      // The container is registered before its members are built, so they may refer to it.
      const inner = arg.value;
      let container;
      if (Array.isArray(inner)) {
        container = [];
        state.anchors.set(arg.name, container);
        inner.forEach((item, index) => defineData(container, index, build(item, state)));
      } else if (isTag(inner) && Object.hasOwn(inner, '$object')) {
        container = {};
        state.anchors.set(arg.name, container);
        fill(container, inner.$object, state);
      } else if (!isTag(inner) && inner !== null && typeof inner === 'object') {
        container = {};
        state.anchors.set(arg.name, container);
        fill(container, Object.entries(inner), state);
      } else {
        throw new Error('$let names an array, a plain object or an $object');
      }
      return container;
    }
    case '$ref': {
      if (!state.anchors.has(arg)) throw new Error(`$ref to ${arg} before its $let`);
      return state.anchors.get(arg);
    }
    case '$nest': {
      let value = build(arg.leaf, state);
      for (let i = 0; i < arg.depth; i++) {
        const container = arg.container === 'array' ? [] : {};
        defineData(container, arg.container === 'array' ? 0 : arg.key, value);
        value = container;
      }
      return value;
    }
    default:
      throw new Error(`unknown tag ${tag}`);
  }
}

module.exports = { VECTORS_DIR, loadVectors, formatProblems, textOf, bytesOf, envelopeHash, oracleCanonical, buildValue };
