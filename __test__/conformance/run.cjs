'use strict';
// The runtime-neutral conformance run: the same checks, with the same expected verdicts
// (Node's), under Node, Bun and Deno. Uses only the package's public API.
//
//   node __test__/conformance/run.cjs
//   bun __test__/conformance/run.cjs
//   deno run --no-prompt --allow-read --allow-ffi --allow-env --allow-run __test__/conformance/run.cjs
//
// Options: --verbose (print every passing check), --only TEXT (checks whose id contains
// TEXT). Environment: JCS_VECTORS_DIR (published vectors, default ../shared/jcs-vectors).
// The last line is
// `conformance: N passed, N failed, N skipped`; the exit code is 1 when a check failed.
// __test__/conformance/runtimes.test.js runs it under each installed runtime.

const path = require('node:path');
const h = require('./harness.cjs');
const { RUNTIME, DIFFERENCES } = require('./runtime.cjs');

const ROOT = path.join(__dirname, '..', '..');

let pkg;
try {
  pkg = require('tool-argument-snapshot');
} catch (error) {
  process.stdout.write(`conformance: the package does not load on ${RUNTIME.name} ${RUNTIME.version}: ${h.describeError(error)}\n`);
  process.stdout.write('conformance: 0 passed, 1 failed, 0 skipped\n');
  process.exit(1);
}

const extra = {
  RUNTIME,
  DIFFERENCES,
  seenCodes: new Set(),
  nodeVerdicts: {},
  catalogue: require('../helpers/adversarial-cases.js'),
};

require('./vectors.cjs')(h, pkg, ROOT);
const everyCode = require('./errors.cjs')(h, pkg, extra);
require('./pipeline.cjs')(h, pkg);
require('./hostile.cjs')(h, pkg, extra);
require('./monkeypatch.cjs')(h, pkg);
everyCode();

h.run().catch((error) => {
  process.stdout.write(`conformance: the run itself failed: ${h.describeError(error)}\n${error && error.stack}\n`);
  process.exitCode = 1;
});
