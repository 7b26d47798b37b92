'use strict';
// canonicalize: the RFC 8785 form of any strict JSON text.

const { PROGRAM, EXIT_OK, loadLibrary, rejectedFrom } = require('../shared/errors.js');
const { readText } = require('../shared/input.js');
const { escapeDeceptive, warnIfDeceptive } = require('../shared/output.js');

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
  // The canonical text is the data this command prints: to a file or a pipe it is written
  // byte for byte (escaping a character would make other bytes, and another hash). Only a
  // terminal, which would interpret a C1 control or reorder the line by a bidi control,
  // is shown the deceptive characters as \u escapes, with a note that it is not the exact
  // text. Either way standard error names what was found.
  const terminal = process.stdout.isTTY === true;
  const shown = terminal ? escapeDeceptive(canonical) : canonical;
  process.stdout.write(values['no-newline'] ? shown : `${shown}\n`);
  if (shown !== canonical) {
    process.stderr.write(
      `${PROGRAM}: note: standard output is a terminal: invisible and bidirectional control characters are shown as \\u escapes, so this is not the canonical text byte for byte (redirect standard output for it)\n`,
    );
  }
  warnIfDeceptive(canonical);
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
