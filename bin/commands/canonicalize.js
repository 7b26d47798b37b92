'use strict';
// canonicalize: the RFC 8785 form of any strict JSON text.

const { PROGRAM, EXIT_OK, loadLibrary, rejectedFrom } = require('../shared/errors.js');
const { readText } = require('../shared/input.js');

const usage = `  ${PROGRAM} canonicalize [--no-newline] [FILE|-]
`;

const summary = `  canonicalize  Print the RFC 8785 form of strict JSON text, followed by a
                newline. Accepts exactly the values a snapshot can hold:
                duplicate keys, lone surrogates, -0 and numbers that overflow
                are errors, and empty input is not JSON.
`;

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

module.exports = {
  name: 'canonicalize',
  usage,
  summary,
  /** The options it takes: whether each takes a value. */
  options: {
    'no-newline': 'boolean',
    'include-path': 'boolean',
  },
  required: [],
  run: runCanonicalize,
};
