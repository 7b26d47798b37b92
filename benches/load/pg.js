'use strict';
// The load test's PostgreSQL: by default a throwaway cluster of its own (initdb in a
// temporary directory, loopback only, a free port), so that stopping it mid-run disturbs
// no other user of the machine's database; or an existing server (--pg-url), restarted
// only when its data directory is given (--pg-data). As root, pg_ctl and initdb run as
// the postgres user (pg_ctl refuses root), as scripts/test-services.sh runs them.

const fs = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const path = require('node:path');
const { execFile, execFileSync } = require('node:child_process');

function pgBin() {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  let versions;
  try {
    versions = fs.readdirSync('/usr/lib/postgresql');
  } catch {
    return null;
  }
  const sorted = versions.filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(a) - Number(b));
  for (let i = sorted.length - 1; i >= 0; i--) {
    const bin = path.join('/usr/lib/postgresql', sorted[i], 'bin');
    if (fs.existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return null;
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** Runs a PostgreSQL program (as the postgres user when this process is root). */
function asPostgres(file, args, options = {}) {
  const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
}

/** The same, without blocking this process's event loop. */
function asPostgresAsync(file, args) {
  const [cmd, argv] = isRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return new Promise((resolve, reject) => {
    execFile(cmd, argv, { encoding: 'utf8' }, (error, stdout, stderr) =>
      error ? reject(new Error(`${path.basename(file)} ${args.at(-1)}: ${stderr || error.message}`)) : resolve(stdout),
    );
  });
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * A PostgreSQL server the test may stop and start: { url, restartable, stop(), start(),
 * cleanup(), describe }. `options`: { pgUrl, pgData } (both null: a cluster of our own).
 */
async function openServer(options) {
  const bin = pgBin();
  if (options.pgUrl !== null) {
    const dataDir = options.pgData;
    if (dataDir !== null && bin === null) throw new Error('--pg-data needs the PostgreSQL programs (set PG_BIN to their directory)');
    return {
      url: options.pgUrl,
      restartable: dataDir !== null,
      describe: `an existing server${dataDir !== null ? ` (data ${dataDir})` : ', not restarted (no --pg-data)'}`,
      stop: () => asPostgresAsync(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']),
      // Restarted with the options it was started with (postmaster.opts).
      start: () => {
        const opts = fs
          .readFileSync(path.join(dataDir, 'postmaster.opts'), 'utf8')
          .trim()
          .split(/\s+/)
          .slice(1)
          .map((a) => a.replace(/^"|"$/g, ''))
          .join(' ');
        return asPostgresAsync(path.join(bin, 'pg_ctl'), [
          '-D',
          dataDir,
          '-l',
          path.join(path.dirname(dataDir), 'server.log'),
          '-w',
          '-t',
          '60',
          '-o',
          opts,
          'start',
        ]);
      },
      cleanup() {},
    };
  }
  if (bin === null)
    throw new Error('no PostgreSQL programs found (/usr/lib/postgresql/N/bin or PG_BIN): install PostgreSQL, or give --pg-url URL [--pg-data DIR]');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-load-pg.'));
  fs.chmodSync(dir, 0o755);
  if (isRoot) execFileSync('chown', ['postgres', dir]);
  const dataDir = path.join(dir, 'data');
  asPostgres(path.join(bin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  // fsync off (a shared disk; a clean fast shutdown writes everything anyway), commits
  // synchronous; up to 200 connections (the server's pool, the reviewer's, the checks').
  const serverOptions = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const server = {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    restartable: true,
    describe: `a cluster of its own (PostgreSQL ${asPostgres(path.join(bin, 'postgres'), ['--version'])
      .trim()
      .replace(/^postgres \(PostgreSQL\) /, '')}, port ${port})`,
    stop: () => asPostgresAsync(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', '-t', '60', 'stop']),
    start: () => asPostgresAsync(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', '-o', serverOptions, 'start']),
    cleanup() {
      try {
        asPostgres(path.join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', '-t', '60', 'stop']);
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

module.exports = { openServer };
