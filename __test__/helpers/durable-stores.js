'use strict';
// The durable grant stores the cross-process tests of the default receipts run on (issue
// 33 item 1): a gate given grants on one of them, and no receipts option, keeps its
// receipts there. Each kind is a URL and openGrantStore options, so a child process opens
// the very store its parent named:
//   'sqlite': a file in the test's folder;
//   'pg':     a table of its own on TAS_TEST_PG_URL (skipped visibly without it, see helpers/services.js).
//
//   const spec = durableStore(t, 'pg', dir);   // null: skipped
//   const store = await openDurable(spec);     // in any process (spec passed as JSON)
//   await dropDurable(spec);                   // the parent, when done

const path = require('node:path');
const { openGrantStore } = require('tool-argument-snapshot');

const KINDS = Object.freeze(['sqlite', 'pg']);

let tables = 0;

/** `{ kind, url, options }` of a store of `kind` for one test, or null when the test was skipped. */
function durableStore(t, kind, dir) {
  if (kind === 'sqlite') return { kind, url: `sqlite:${path.join(dir, 'grants.db')}`, options: {} };
  if (kind !== 'pg') throw new Error(`unknown store kind ${kind}`);
  const { service } = require('./services');
  const url = service(t, 'pg');
  if (url === null) return null;
  tables += 1;
  return { kind, url, options: { table: `tas_durable_${process.pid}_${tables}` } };
}

/** The store of a spec, opened (PostgreSQL: migrated) by openGrantStore. */
function openDurable(spec) {
  return openGrantStore(spec.url, spec.options);
}

/** Drops a PostgreSQL spec's tables (best effort: a failure here never hides the test's result). */
async function dropDurable(spec) {
  if (spec === null || spec.kind !== 'pg') return;
  const { Pool } = require('pg');
  const pool = new Pool({ connectionString: spec.url, max: 1 });
  const table = spec.options.table;
  try {
    await pool.query(`DROP TABLE IF EXISTS ${table}, ${table}_nonces, ${table}_proposals, ${table}_receipts`);
  } catch {
    // left for the next run's database
  } finally {
    await pool.end();
  }
}

module.exports = { KINDS, durableStore, openDurable, dropDurable };
