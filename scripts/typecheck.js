#!/usr/bin/env node
'use strict';
// `tsc --checkJs` over the package's JavaScript (tsconfig.json: index.js, lib/, adapters/,
// bin/; no emit), run through the TypeScript API for one reason: a module of lib/ that
// has a hand-written declaration file beside it (lib/errors.js and lib/errors.d.ts) is
// seen by tsc, from every importer, through that declaration, which declares the public
// names only; the package's own code (index.js and lib/) requires internal names too
// (`invalidArgument`, `binding`). Here a relative require from index.js or lib/ that
// resolves to such a declaration is resolved to its JavaScript instead, so the package's
// code is checked against the code it calls; the adapters and the CLI, which use only the
// public API, keep seeing the declarations. Everything else is tsc's: the options, the
// files and the diagnostics, printed as tsc prints them. Exit 1 on any diagnostic.

const { existsSync } = require('node:fs');
const { join, relative, sep } = require('node:path');
const ts = require('typescript');

const ROOT = join(__dirname, '..');
const CONFIG = join(ROOT, 'tsconfig.json');

const parsed = ts.getParsedCommandLineOfConfigFile(CONFIG, undefined, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => report([d]) });
if (parsed === undefined) process.exit(1);
if (parsed.errors.length > 0) {
  report(parsed.errors);
  process.exit(1);
}

/** Whether `file` is the package's own code: index.js or under lib/. */
function isPackageCode(file) {
  const path = relative(ROOT, file).split(sep).join('/');
  return path === 'index.js' || path.startsWith('lib/');
}

const host = ts.createCompilerHost(parsed.options);
host.resolveModuleNameLiterals = (literals, containingFile, redirectedReference, options, containingSourceFile) =>
  literals.map((literal) => {
    const mode = ts.getModeForUsageLocation(containingSourceFile, literal, options);
    const resolved = ts.resolveModuleName(literal.text, containingFile, options, host, undefined, redirectedReference, mode);
    const module = resolved.resolvedModule;
    if (
      module === undefined ||
      !literal.text.startsWith('.') ||
      !isPackageCode(containingFile) ||
      !module.resolvedFileName.endsWith('.d.ts') ||
      literal.text.endsWith('.d.ts')
    )
      return resolved;
    const code = `${module.resolvedFileName.slice(0, -'.d.ts'.length)}.js`;
    if (!isPackageCode(code) || !existsSync(code)) return resolved;
    return { ...resolved, resolvedModule: { ...module, resolvedFileName: code, extension: ts.Extension.Js } };
  });

const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, host, projectReferences: parsed.projectReferences });
const diagnostics = ts.sortAndDeduplicateDiagnostics(ts.getPreEmitDiagnostics(program));
if (diagnostics.length > 0) {
  report(diagnostics);
  process.exit(1);
}
const checked = program.getRootFileNames().length;
process.stdout.write(`tsc --checkJs (TypeScript ${ts.version}): ${checked} files, no error\n`);

function report(list) {
  const formatHost = { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' };
  const text = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext(list, formatHost) : ts.formatDiagnostics(list, formatHost);
  process.stdout.write(text);
  if (list.length > 0) process.stdout.write(`\nFound ${list.length} error${list.length === 1 ? '' : 's'}.\n`);
}
