#!/usr/bin/env node
'use strict';
// Writes the ESM declarations (.d.mts) of the subpaths that need one from their
// CommonJS declarations (.d.ts): the same text under one generated first line.
// TypeScript resolves a framework's own types by the importer's module kind, so a
// subpath whose declarations import a dual framework (@langchain/core) needs one file
// per kind; the text is written once, in the .d.ts. Run by `npm run build` after the
// native declarations and by hand with `npm run gen:declarations`; .ci/run checks that
// the committed files are current.

const { readFileSync, writeFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');

/** The declarations written for both module kinds, without their extension. */
const DUAL = ['adapters/langchain/index'];

/** The first line of a generated file: what it is made from and by what. */
function notice(source) {
  return `// Generated from ${source} by scripts/gen-declarations.js (npm run gen:declarations): edit ${source}, never this file.\n`;
}

for (const base of DUAL) {
  const source = join(ROOT, `${base}.d.ts`);
  const target = join(ROOT, `${base}.d.mts`);
  const name = relative(ROOT, source).split('\\').join('/');
  const text = notice(name) + readFileSync(source, 'utf8');
  let current;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== text) {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${relative(ROOT, target)}\n`);
  }
}
