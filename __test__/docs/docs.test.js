'use strict';
// The README's and the docs' examples run as written.
//
// Every fenced block of README.md and of every docs/**/*.md is classified, and the
// inventory is printed:
//   - ```js ```javascript ```mjs ```cjs: run with node. ```mjs (and a ```js block with a
//     static `import`/`export` or a top-level `await`) runs as an ES module (.mjs);
//     ```cjs (and any other ```js block) as CommonJS (.cjs). A block that mixes ES module
//     syntax with `require` fails: it runs as written in neither.
//   - ```ts ```typescript ```mts ```cts: type-checked with the installed typescript under
//     --strict (module nodenext, one tsc program for all blocks), then the compiled file
//     runs. ES module syntax or a top-level `await` makes it .mts, otherwise .cts.
//   - Declarations: a ```ts block right after a `<!-- declarations -->` line (an HTML
//     comment, not rendered) lists signatures (the API section). It is not run, but the
//     marker cannot hide code: every top-level statement must be an interface, a type
//     alias, a function signature without a body, a `const` without a value or a
//     `declare`, and every name it declares must be exported by index.d.ts (and, for a
//     function or const, by the package at run time).
//   - Shell blocks right after a `<!-- runs -->` line run with bash in the block's folder,
//     with `tool-argument-snapshot` (this checkout's CLI) on PATH.
//   - A `<!-- needs: WHAT -->` line before a block (several may stack, with `<!-- runs -->`
//     too) names what it needs: `postgres` (TAS_TEST_PG_URL, given to the block as
//     DATABASE_URL), `redis` (TAS_TEST_REDIS_URL, given as REDIS_URL), `node>=22` (runs
//     under this Node when it is 22 or later, else under the newest Node line found),
//     `restate-server` (a real restate-server started for the block, bound to 127.0.0.1 with
//     a temporary data directory, its URLs given as RESTATE_ADMIN_URL and
//     RESTATE_INGRESS_URL; the binary of @restatedev/restate-server, or RESTATE_SERVER_BINARY).
//     A block whose need is missing is skipped with the reason, or fails when
//     TAS_REQUIRE_SERVICES=1 (CI provides every one).
//   - Excluded, with the reason printed: other shell blocks (```sh ```bash ```shell ```console),
//     ```diff blocks (a change to an app: the adapters' three-line integrations; their
//     added `require('tool-argument-snapshot…')` lines are checked to name real exports),
//     blocks without a language (diagrams, text), and any other language.
// A block fails if it throws, exits non-zero, does not type-check, or, where it has
// `// prints: TEXT` comments, if its output lines are not exactly those TEXTs in order.
// Each block runs in a temporary folder whose node_modules links `tool-argument-snapshot`
// to this checkout and every other package the blocks import to the repo's node_modules
// (frameworks included: a block that needs a model uses the framework's own mock model).

const { test, describe, before, after } = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const ts = require('typescript');
const { lookup } = require('../helpers/services');
const { findRestateServer, startRestateServer } = require('../helpers/restate-server');
const { exportedNames } = require('../helpers/declarations');

const ROOT = path.join(__dirname, '..', '..');
/** README.md, then every Markdown file under docs/, as paths relative to the root. */
function markdownFiles() {
  const docs = path.join(ROOT, 'docs');
  const found = fs.existsSync(docs)
    ? fs
        .readdirSync(docs, { recursive: true })
        .map((f) => f.split(path.sep).join('/'))
        .filter((f) => f.endsWith('.md'))
        .sort()
        .map((f) => `docs/${f}`)
    : [];
  return ['README.md', ...found];
}
const FILES = markdownFiles();
/** README and docs together have at least this many blocks that run (raise it when blocks are added). */
const MIN_RUNNABLE = 72;
const DECLARATIONS_MARKER = '<!-- declarations -->';
const RUNS_MARKER = '<!-- runs -->';
const NEEDS_MARKER = /^<!-- needs: ([a-z0-9>=.-]+) -->$/;
const REQUIRE_SERVICES = process.env.TAS_REQUIRE_SERVICES === '1';

const JS_LANGS = new Set(['js', 'javascript', 'mjs', 'cjs']);
const TS_LANGS = new Set(['ts', 'typescript', 'mts', 'cts']);
const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

/** Fenced blocks (CommonMark: ``` or ~~~, at least three, closed by a fence as long). */
function parseFences(file, markdown) {
  const lines = markdown.split('\n');
  const blocks = [];
  let heading = '(top)';
  let open = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (open) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (close && close[1][0] === open.fence[0] && close[1].length >= open.fence.length) {
        blocks.push({ ...open, code: open.body.join('\n') + '\n' });
        open = null;
      } else {
        open.body.push(line.startsWith(open.indent) ? line.slice(open.indent.length) : line.trimStart());
      }
      continue;
    }
    const fence = /^( {0,3})(`{3,}|~{3,})\s*([^\s`]*)/.exec(line);
    if (fence) {
      // The marker lines right before the fence (blank lines between them are allowed).
      const markers = [];
      for (let previous = i - 1; previous >= 0; previous--) {
        const text = lines[previous].trim();
        if (text === '') continue;
        if (text === DECLARATIONS_MARKER || text === RUNS_MARKER || NEEDS_MARKER.test(text)) markers.push(text);
        else break;
      }
      open = {
        file,
        line: i + 1,
        indent: fence[1],
        fence: fence[2],
        lang: fence[3].toLowerCase(),
        heading,
        declarations: markers.includes(DECLARATIONS_MARKER),
        runs: markers.includes(RUNS_MARKER),
        needs: markers.filter((m) => NEEDS_MARKER.test(m)).map((m) => NEEDS_MARKER.exec(m)[1]),
        body: [],
      };
      continue;
    }
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) heading = h[1];
  }
  if (open) throw new Error(`${file}:${open.line}: fenced block never closed`);
  return blocks;
}

function label(block) {
  return `${block.file}:${block.line} (${block.heading}) \`\`\`${block.lang || '(no language)'}`;
}

function sourceFile(block, kind) {
  const scriptKind = kind === 'ts' ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  return ts.createSourceFile(`block-${block.line}.${kind}`, block.code, ts.ScriptTarget.Latest, true, scriptKind);
}

/** ES module syntax, top-level await, require() calls and the module specifiers used. */
function moduleFacts(sf) {
  const facts = { esm: false, topLevelAwait: false, require: false, specifiers: new Set() };
  const visit = (node, inFunction) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node) || ts.isExportAssignment(node)) {
      if (!ts.isImportEqualsDeclaration(node)) facts.esm = true;
      if (node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) facts.specifiers.add(node.moduleSpecifier.text);
    }
    if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      facts.require = true;
      facts.specifiers.add(node.moduleReference.expression.text);
    }
    if (node.modifiers && node.modifiers.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) facts.esm = true;
    if (!inFunction && (ts.isAwaitExpression(node) || (ts.isForOfStatement(node) && node.awaitModifier))) facts.topLevelAwait = true;
    if (ts.isCallExpression(node) && node.arguments.length === 1 && ts.isStringLiteral(node.arguments[0])) {
      if (ts.isIdentifier(node.expression) && node.expression.text === 'require') {
        facts.require = true;
        facts.specifiers.add(node.arguments[0].text);
      } else if (node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        facts.specifiers.add(node.arguments[0].text);
      }
    }
    const nested = inFunction || ts.isFunctionLike(node) || ts.isClassStaticBlockDeclaration(node);
    ts.forEachChild(node, (child) => visit(child, nested));
  };
  visit(sf, false);
  return facts;
}

/** `// prints: TEXT` comments (`# prints: TEXT` in shell blocks), in order: the output lines a page promises. */
function expectedOutput(code, shell) {
  const marker = shell ? /^\s*# prints: ?(.*)$/gm : /\/\/ prints: (.*)$/gm;
  return [...code.matchAll(marker)].map((m) => m[1].trimEnd());
}

function classify(block) {
  const isJs = JS_LANGS.has(block.lang);
  const isTs = TS_LANGS.has(block.lang);
  if (block.declarations) {
    if (!isTs) return { kind: 'invalid', reason: `${DECLARATIONS_MARKER} marks only \`\`\`ts blocks, not \`\`\`${block.lang || '(none)'}` };
    return { kind: 'declarations', reason: `declarations (${DECLARATIONS_MARKER}): checked against index.d.ts, not run` };
  }
  if (isJs || isTs) {
    const facts = moduleFacts(sourceFile(block, isTs ? 'ts' : 'js'));
    const explicit = { mjs: 'esm', mts: 'esm', cjs: 'cjs', cts: 'cjs' }[block.lang];
    const system = explicit || (facts.esm || facts.topLevelAwait ? 'esm' : 'cjs');
    return { kind: isTs ? 'ts' : 'js', system, facts, expected: expectedOutput(block.code) };
  }
  if (SHELL_LANGS.has(block.lang)) {
    if (block.runs)
      return {
        kind: 'sh',
        system: 'sh',
        facts: { specifiers: new Set(['tool-argument-snapshot']), require: false },
        expected: expectedOutput(block.code, true),
      };
    return { kind: 'excluded', reason: `shell commands (no ${RUNS_MARKER} line)` };
  }
  if (block.runs) return { kind: 'invalid', reason: `${RUNS_MARKER} marks only shell blocks` };
  if (block.lang === 'diff') {
    return { kind: 'diff', reason: 'diff: a change to an app, not a program (its added require lines are checked against the exports)' };
  }
  if (block.lang === '') return { kind: 'excluded', reason: 'no language: a diagram or text' };
  return { kind: 'excluded', reason: `not JavaScript or TypeScript (\`\`\`${block.lang})` };
}

const blocks = FILES.flatMap((file) => parseFences(file, fs.readFileSync(path.join(ROOT, file), 'utf8'))).map((block) => ({ ...block, ...classify(block) }));
const runnable = blocks.filter((b) => b.kind === 'js' || b.kind === 'ts' || b.kind === 'sh');

/**
 * How to run a block given what it needs: { skip: reason } or { node, env }. Each need is
 * met from what __test__/helpers/services.js finds (the environment CI sets); a missing one skips
 * the block with its reason (the test fails instead under TAS_REQUIRE_SERVICES=1).
 */
function plan(block) {
  const env = {};
  let node = process.execPath;
  let restate = false;
  for (const need of block.needs) {
    if (need === 'postgres' || need === 'redis') {
      const found = lookup(need === 'postgres' ? 'pg' : 'redis');
      if (found.value === null) return { skip: found.reason };
      env[need === 'postgres' ? 'DATABASE_URL' : 'REDIS_URL'] = found.value;
    } else if (need === 'restate-server') {
      const found = findRestateServer();
      if (found.file === null) return { skip: found.reason };
      restate = true;
    } else if (need === 'node>=22') {
      if (Number(process.versions.node.split('.')[0]) < 22) {
        const found = lookup('newest-node', 22);
        if (found.value === null) return { skip: found.reason };
        node = found.value.file;
      }
    } else {
      return { invalid: `unknown need ${need}` };
    }
  }
  return { node, env, restate };
}

function packageName(specifier) {
  if (specifier.startsWith('node:') || specifier.startsWith('.') || path.isAbsolute(specifier)) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function childEnv() {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  return env;
}

function fileBase(block) {
  return `${block.file.replace(/[^A-Za-z0-9]+/g, '_')}-${block.line}`;
}

describe('README.md and docs examples run as written', () => {
  let dir;
  /** tsc diagnostics per TypeScript block file, and the ones attached to no file. */
  const tsDiagnostics = new Map();
  let globalDiagnostics = [];

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-readme-'));
    const modules = path.join(dir, 'node_modules');
    fs.mkdirSync(modules);
    const names = new Set();
    for (const block of runnable) for (const s of block.facts.specifiers) names.add(packageName(s));
    names.delete(null);
    for (const name of names) {
      const target = name === 'tool-argument-snapshot' ? ROOT : path.join(ROOT, 'node_modules', name);
      if (!fs.existsSync(target)) continue; // the block then fails to resolve it, visibly
      fs.mkdirSync(path.dirname(path.join(modules, name)), { recursive: true });
      fs.symlinkSync(target, path.join(modules, name), 'dir');
    }
    const bin = path.join(modules, '.bin');
    fs.mkdirSync(bin);
    fs.symlinkSync(path.join(ROOT, 'bin', 'tool-argument-snapshot.js'), path.join(bin, 'tool-argument-snapshot'));
    for (const block of runnable) {
      if (block.kind === 'sh') {
        block.source = path.join(dir, `${fileBase(block)}.sh`);
        block.run = block.source;
        fs.writeFileSync(block.source, block.code);
        continue;
      }
      const ext = block.kind === 'ts' ? (block.system === 'esm' ? 'mts' : 'cts') : block.system === 'esm' ? 'mjs' : 'cjs';
      block.source = path.join(dir, `${fileBase(block)}.${ext}`);
      block.run = block.kind === 'ts' ? path.join(dir, 'out', `${fileBase(block)}.${block.system === 'esm' ? 'mjs' : 'cjs'}`) : block.source;
      fs.writeFileSync(block.source, block.code);
    }
    const tsBlocks = runnable.filter((b) => b.kind === 'ts');
    if (tsBlocks.length === 0) return;
    const { options, errors } = ts.convertCompilerOptionsFromJson(
      {
        strict: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        moduleDetection: 'force',
        types: ['node'],
        typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        skipLibCheck: true,
        rootDir: dir,
        outDir: path.join(dir, 'out'),
        noEmitOnError: false,
      },
      dir,
    );
    assert.deepEqual(errors, [], 'compiler options');
    const program = ts.createProgram(
      tsBlocks.map((b) => b.source),
      options,
    );
    const emitted = program.emit();
    const all = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
    const format = (d) => {
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!d.file) return `TS${d.code}: ${text}`;
      const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
      return `${path.basename(d.file.fileName)}:${line + 1}:${character + 1} TS${d.code}: ${text}`;
    };
    for (const d of all) {
      const file = d.file && path.resolve(d.file.fileName);
      const owner = tsBlocks.find((b) => b.source === file);
      if (owner) tsDiagnostics.set(owner, [...(tsDiagnostics.get(owner) || []), format(d)]);
      else globalDiagnostics.push(format(d));
    }
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test(`the inventory: every fenced block is run or excluded with its reason, and at least ${MIN_RUNNABLE} run`, (t) => {
    for (const block of blocks) {
      const needs = block.needs.length ? ` (needs ${block.needs.join(', ')})` : '';
      const what =
        block.kind === 'sh'
          ? `runs with bash${needs}`
          : block.kind === 'js' || block.kind === 'ts'
            ? `runs as ${block.system === 'esm' ? 'an ES module' : 'CommonJS'} (${path.extname(block.source)})${block.kind === 'ts' ? ' after tsc --strict' : ''}${needs}`
            : `excluded: ${block.reason}`;
      t.diagnostic(`${label(block)}: ${what}`);
    }
    t.diagnostic(`files: ${FILES.join(', ')}`);
    t.diagnostic(`${runnable.length} blocks run, ${blocks.length - runnable.length} excluded`);
    const invalid = blocks.filter((b) => b.kind === 'invalid').map((b) => `${label(b)}: ${b.reason}`);
    assert.deepEqual(invalid, []);
    assert.ok(runnable.length >= MIN_RUNNABLE, `only ${runnable.length} runnable blocks; expected at least ${MIN_RUNNABLE}`);
    assert.ok(runnable.some((b) => b.system === 'esm') && runnable.some((b) => b.system === 'cjs'), 'blocks in both module systems');
    assert.ok(
      runnable.some((b) => b.kind === 'ts'),
      'a TypeScript block',
    );
  });

  test('the global TypeScript diagnostics are empty', () => {
    assert.deepEqual(globalDiagnostics, []);
  });

  for (const block of runnable) {
    test(`${label(block)} runs as written`, async (t) => {
      const how = plan(block);
      assert.equal(how.invalid, undefined, `${label(block)}: ${how.invalid}`);
      if (how.skip) {
        if (REQUIRE_SERVICES) assert.fail(`${label(block)} ${how.skip}; TAS_REQUIRE_SERVICES=1 makes that a failure`);
        t.skip(how.skip);
        return;
      }
      if (block.system === 'esm' && block.facts.require) {
        assert.fail(`${label(block)} mixes ES module syntax (import or top-level await) with require(): it runs in neither module system`);
      }
      if (block.kind === 'ts') {
        const diagnostics = tsDiagnostics.get(block) || [];
        assert.deepEqual(
          diagnostics,
          [],
          `${label(block)} does not type-check under --strict` +
            (diagnostics.some((d) => d.includes('TS2391')) ? ` (a declaration block needs a ${DECLARATIONS_MARKER} line before it)` : ''),
        );
      }
      const env = { ...childEnv(), ...how.env };
      if (block.kind === 'sh') env.PATH = `${path.join(dir, 'node_modules', '.bin')}${path.delimiter}${path.dirname(how.node)}${path.delimiter}${env.PATH}`;
      const command = block.kind === 'sh' ? 'bash' : how.node;
      const args = block.kind === 'sh' ? ['-euo', 'pipefail', block.run] : [block.run];
      const server = how.restate ? await startRestateServer() : null;
      if (server) Object.assign(env, { RESTATE_ADMIN_URL: server.admin, RESTATE_INGRESS_URL: server.ingress });
      let run;
      try {
        run = spawnSync(command, args, { cwd: dir, encoding: 'utf8', env, timeout: 120_000 });
      } finally {
        if (server) await server.stop();
      }
      assert.equal(run.error, undefined, `${label(block)}: ${run.error}`);
      assert.equal(run.signal, null, `${label(block)} was killed by ${run.signal}\n${run.stderr}`);
      assert.equal(run.status, 0, `${label(block)} exited ${run.status}\n${run.stdout}\n${run.stderr}`);
      if (block.expected.length > 0) {
        assert.deepEqual(
          run.stdout
            .replace(/\n$/, '')
            .split('\n')
            .map((l) => l.trimEnd()),
          block.expected,
          `${label(block)} does not print what its // prints: comments say`,
        );
      }
    });
  }
});

describe('declaration blocks name what the package exports', () => {
  // Every name index.d.ts exports: its rooms' declarations, re-exported (__test__/helpers/declarations.js).
  const exported = new Set(exportedNames('index.d.ts'));
  const runtime = require(ROOT);
  const declarationBlocks = blocks.filter((b) => b.kind === 'declarations');

  test('README or docs have declaration blocks (the API reference)', () => {
    assert.ok(declarationBlocks.length >= 1);
  });

  for (const block of declarationBlocks) {
    test(`${label(block)}: only declarations, each exported by index.d.ts`, () => {
      const sf = sourceFile(block, 'ts');
      const problems = [];
      for (const statement of sf.statements) {
        const where = `line ${block.line + sf.getLineAndCharacterOfPosition(statement.getStart()).line + 1}`;
        const declared = statement.modifiers && statement.modifiers.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
        if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) {
          if (!exported.has(statement.name.text)) problems.push(`${where}: ${statement.name.text} is not exported by index.d.ts`);
        } else if (ts.isFunctionDeclaration(statement) && !statement.body) {
          const name = statement.name.text;
          if (!exported.has(name)) problems.push(`${where}: ${name} is not exported by index.d.ts`);
          if (typeof runtime[name] !== 'function') problems.push(`${where}: the package exports no function ${name}`);
        } else if (ts.isVariableStatement(statement) && statement.declarationList.declarations.every((d) => !d.initializer)) {
          for (const d of statement.declarationList.declarations) {
            if (!exported.has(d.name.text)) problems.push(`${where}: ${d.name.text} is not exported by index.d.ts`);
            if (!(d.name.text in runtime)) problems.push(`${where}: the package exports no ${d.name.text}`);
          }
        } else if (!declared) {
          problems.push(`${where}: ${ts.SyntaxKind[statement.kind]} is not a declaration (code must not hide behind ${DECLARATIONS_MARKER})`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});

test('docs/api.md names every export of index.d.ts, of the package root and of each subpath', () => {
  const api = fs.readFileSync(path.join(ROOT, 'docs', 'api.md'), 'utf8');
  const named = (name) => api.includes(`\`${name}\``) || new RegExp(`\\b${name}\\b`).test(api.match(/^```ts\n[\s\S]*?^```$/gm)?.join('\n') ?? '');
  /** Exported names of a declaration file (values only, or every name), followed through its re-exports. */
  const declared = (file, valuesOnly) => exportedNames(file, { valuesOnly });
  const problems = [];
  const root = new Set([...declared('index.d.ts', false), ...Object.keys(require(ROOT))]);
  for (const name of root) if (!named(name)) problems.push(`the root export ${name}`);
  const { exports } = require(path.join(ROOT, 'package.json'));
  const subpaths = Object.keys(exports).filter((key) => key !== '.' && key !== './package.json');
  assert.ok(subpaths.length >= 5, `subpaths: ${subpaths.join(', ')}`);
  for (const key of subpaths) {
    const subpath = `tool-argument-snapshot${key.slice(1)}`;
    if (!api.includes(`\`${subpath}\``)) problems.push(`the subpath ${subpath}`);
    const types = exports[key].types;
    const file = typeof types === 'string' ? types : types.default;
    for (const name of new Set(declared(file.replace(/^\.\//, ''), true))) {
      if (!named(name)) problems.push(`${subpath}'s export ${name}`);
    }
  }
  assert.deepEqual(problems, [], 'docs/api.md does not name these');
});

test('diff blocks: every added require of tool-argument-snapshot names exports that exist', (t) => {
  const diffs = blocks.filter((b) => b.kind === 'diff');
  let checked = 0;
  const problems = [];
  for (const block of diffs) {
    block.code.split('\n').forEach((line, index) => {
      const m = /^\+\s*const\s*\{([^}]*)\}\s*=\s*require\('(tool-argument-snapshot(?:\/[\w-]+)?)'\)/.exec(line);
      if (!m) return;
      const subpath = m[2].slice('tool-argument-snapshot'.length);
      const target = require(subpath === '' ? ROOT : path.join(ROOT, require(path.join(ROOT, 'package.json')).exports[`.${subpath}`].default));
      for (const name of m[1]
        .split(',')
        .map((s) => s.trim().split(':')[0].trim())
        .filter(Boolean)) {
        checked++;
        if (typeof target[name] === 'undefined') problems.push(`${block.file}:${block.line + index + 1}: ${m[2]} exports no ${name}`);
      }
    });
  }
  t.diagnostic(`${diffs.length} diff blocks, ${checked} required names checked`);
  assert.deepEqual(problems, []);
  assert.ok(checked >= 1, 'no require line found in the diff blocks');
});

test('README.md and the docs index (docs/README.md) each link every page of docs/', () => {
  const linked = (file) => {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^ {0,3}(`{3,}|~{3,})[\s\S]*?^ {0,3}\1\s*$/gm, '');
    const targets = new Set();
    for (const m of text.matchAll(/\]\(([^)\s#]+)(?:#[^)\s]*)?(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(m[1])) continue;
      targets.add(path.posix.normalize(path.posix.join(path.posix.dirname(file), m[1])));
    }
    return targets;
  };
  const pages = FILES.filter((f) => f.startsWith('docs/') && f !== 'docs/README.md');
  assert.ok(pages.length >= 10, `docs pages: ${pages.join(', ')}`);
  for (const index of ['README.md', 'docs/README.md']) {
    const targets = linked(index);
    assert.deepEqual(
      pages.filter((page) => !targets.has(page)),
      [],
      `${index} does not link these docs pages`,
    );
  }
  assert.ok(linked('README.md').has('docs/README.md'), 'README.md links the docs index');
});

test('every relative link in README.md and docs/ resolves to a file, and every anchor to a heading', () => {
  const slug = (heading) =>
    heading
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .trim()
      .replace(/\s/g, '-');
  const anchorsOf = (file) => {
    const anchors = new Set();
    const seen = new Map();
    let fence = null;
    for (const line of fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n')) {
      const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
      if (f) fence = fence === null ? f[1][0] : f[1][0] === fence ? null : fence;
      if (fence !== null) continue;
      const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
      if (!h) continue;
      const base = slug(h[1].replace(/`/g, ''));
      const n = seen.get(base) || 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    return anchors;
  };
  const problems = [];
  let checked = 0;
  for (const file of FILES) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8').replace(/^ {0,3}(`{3,}|~{3,})[\s\S]*?^ {0,3}\1\s*$/gm, '');
    for (const m of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1];
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: ...
      checked++;
      const [filePart, anchor] = target.split('#');
      const resolved = filePart === '' ? file : path.posix.normalize(path.posix.join(path.posix.dirname(file), filePart));
      if (!fs.existsSync(path.join(ROOT, resolved))) {
        problems.push(`${file}: link ${target} → ${resolved} does not exist`);
        continue;
      }
      if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        problems.push(`${file}: link ${target}: no heading #${anchor} in ${resolved}`);
    }
  }
  assert.deepEqual(problems, []);
});
