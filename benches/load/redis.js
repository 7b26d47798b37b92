'use strict';
// The load test's Redis (--store redis): a throwaway redis-server of the test's own (a
// temporary directory, loopback, a free port), so that stopping it mid-run disturbs no
// other user of the machine's Redis. It runs as docs/stores.md asks of a grant store: an
// append-only file synced on every write (appendonly yes, appendfsync always), no RDB
// snapshots, noeviction. Stopped with SHUTDOWN (the file is synced) and started again on
// the same file.

const fs = require('node:fs');
const os = require('node:os');
const net = require('node:net');
const path = require('node:path');
const { spawn, execFileSync } = require('node:child_process');

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

function findBin(name) {
  for (const dir of (process.env.PATH || '').split(':')) {
    const file = path.join(dir, name);
    if (dir && fs.existsSync(file)) return file;
  }
  return null;
}

/** Resolves once the server answers PING on its port. */
async function waitReady(cli, port) {
  for (let i = 0; i < 200; i++) {
    try {
      if (execFileSync(cli, ['-p', `${port}`, 'PING'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() === 'PONG') return;
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('redis-server did not start');
}

/** A Redis server the test may stop and start: { url, restartable, stop(), start(), cleanup(), describe }. */
async function openRedisServer(options) {
  if (options.redisUrl) {
    return {
      url: options.redisUrl,
      restartable: false,
      describe: 'an existing server, not restarted',
      stop: async () => {},
      start: async () => {},
      cleanup() {},
    };
  }
  const bin = findBin('redis-server');
  const cli = findBin('redis-cli');
  if (bin === null || cli === null) throw new Error('no redis-server / redis-cli on PATH: install Redis, or give --redis-url URL');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-load-redis.'));
  const port = await freePort();
  const args = [
    '--port',
    `${port}`,
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--appendonly',
    'yes',
    '--appendfsync',
    'always',
    '--save',
    '',
    '--maxmemory-policy',
    'noeviction',
    '--daemonize',
    'no',
    '--logfile',
    path.join(dir, 'server.log'),
  ];
  let child = null;
  const server = {
    url: `redis://127.0.0.1:${port}`,
    restartable: true,
    describe: `a server of its own (${execFileSync(bin, ['--version'], { encoding: 'utf8' }).trim().split(' ').slice(0, 3).join(' ')}, port ${port}, appendfsync always)`,
    async start() {
      child = spawn(bin, args, { stdio: 'ignore' });
      await waitReady(cli, port);
    },
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        execFileSync(cli, ['-p', `${port}`, 'SHUTDOWN'], { stdio: 'ignore' });
      } catch {
        // SHUTDOWN closes the connection: redis-cli may report it
      }
      await exited;
      child = null;
    },
    cleanup() {
      if (child !== null) child.kill('SIGKILL');
      child = null;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}

module.exports = { openRedisServer };
