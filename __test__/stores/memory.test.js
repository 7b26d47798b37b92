'use strict';
// The store conformance suite (stores/conformance.js) against the default store, process
// memory: the durable stores must answer like it, and it like them.

const { conformance } = require('./conformance');
const { createMemoryStore } = require('../../lib/stores/memory');

conformance('memory', async () => ({ store: createMemoryStore(), async dispose() {} }), {
  shared: true,
  checksArguments: false,
});
