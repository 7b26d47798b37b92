'use strict';
// What the package's declaration files export and import, read with the TypeScript
// compiler: the names a declaration file exports (its own declarations and what it
// re-exports from other files, followed to where they are declared), and the graph of
// declaration files that import or re-export one another (relative specifiers and the
// package's own name, resolved through package.json "exports").

const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');

const ROOT = path.join(__dirname, '..', '..');

/**
 * The names a declaration file exports, in declaration order: every name, or with
 * `valuesOnly` only functions and constants (what a value import needs at run time,
 * classes aside, as docs/api.md lists them).
 */
function exportedNames(file, { valuesOnly = false, root = ROOT } = {}) {
  const fileName = path.resolve(root, file);
  const program = ts.createProgram([fileName], { noEmit: true, types: [], module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10 });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(fileName);
  if (!source) throw new Error(`${file} is not a declaration file TypeScript reads`);
  const moduleSymbol = checker.getSymbolAtLocation(source);
  if (!moduleSymbol) return [];
  const names = [];
  for (const symbol of checker.getExportsOfModule(moduleSymbol)) {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    if (valuesOnly && !(target.flags & (ts.SymbolFlags.Function | ts.SymbolFlags.Variable))) continue;
    names.push(symbol.name);
  }
  return names;
}

/** The declaration file a specifier names from `from` (relative, or the package's own name), or null (another package). */
function resolveDeclaration(from, specifier, root = ROOT) {
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  if (specifier === pkg.name || specifier.startsWith(`${pkg.name}/`)) {
    const entry = pkg.exports[`.${specifier.slice(pkg.name.length)}`];
    if (!entry) return null;
    const types = typeof entry.types === 'string' ? entry.types : entry.types.default;
    return path.resolve(root, types);
  }
  if (!specifier.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), specifier.replace(/\.(c|m)?js$/, ''));
  const kind = from.endsWith('.d.mts') ? ['.d.mts', '.d.ts'] : ['.d.ts'];
  for (const candidate of [...kind.map((e) => base + e), ...kind.map((e) => path.join(base, `index${e}`))]) {
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`${path.relative(root, from)}: ${specifier} names no declaration file`);
}

/** The specifiers a declaration file imports or re-exports from (import, export from, import() types). */
function importedSpecifiers(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const specifiers = [];
  const visit = (node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifiers.push(node.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      specifiers.push(node.moduleReference.expression.text);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      specifiers.push(node.argument.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** Every declaration file of the package (index.d.ts, lib/, adapters/), relative to root. */
function declarationFiles(root = ROOT) {
  const files = ['index.d.ts'];
  for (const dir of ['lib', 'adapters']) {
    for (const f of fs.readdirSync(path.join(root, dir), { recursive: true })) {
      const rel = `${dir}/${f.split(path.sep).join('/')}`;
      if (/\.d\.(c|m)?ts$/.test(rel)) files.push(rel);
    }
  }
  return files.sort();
}

/** The import graph of the declaration files: file -> the package's declaration files it imports (all relative to root). */
function declarationGraph(root = ROOT) {
  const graph = new Map();
  for (const file of declarationFiles(root)) {
    const absolute = path.join(root, file);
    const targets = new Set();
    for (const specifier of importedSpecifiers(absolute)) {
      const target = resolveDeclaration(absolute, specifier, root);
      if (target) targets.add(path.relative(root, target).split(path.sep).join('/'));
    }
    graph.set(file, [...targets].sort());
  }
  return graph;
}

/** The import cycles of a graph (file -> files), each as the path that closes it: [a, b, ..., a]. */
function cycles(graph) {
  const found = [];
  const state = new Map(); // undefined: unvisited, 1: on the path, 2: done
  const stack = [];
  const visit = (node) => {
    state.set(node, 1);
    stack.push(node);
    for (const next of graph.get(node) || []) {
      if (state.get(next) === 1) found.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.get(next)) visit(next);
    }
    stack.pop();
    state.set(node, 2);
  };
  for (const node of graph.keys()) if (!state.get(node)) visit(node);
  return found;
}

module.exports = { exportedNames, resolveDeclaration, importedSpecifiers, declarationFiles, declarationGraph, cycles };
