'use strict';
// A real restate-server for the tests (adapters/restate/restate.test.js, docs/docs.test.js): the binary of
// @restatedev/restate-server's platform package (or RESTATE_SERVER_BINARY), started with a
// configuration file that binds every listener (ingress, admin, node-to-node) to 127.0.0.1
// on free ports, TCP only, telemetry off, and a temporary data directory removed at stop.
//
//   const { findRestateServer, startRestateServer } = require('./restate-server');
//   const server = await startRestateServer();   // { ingress, admin, stop() }

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const net = require('node:net');
const { spawn } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');

/** { file } of the restate-server binary, or { file: null, reason }. */
function findRestateServer() {
  const given = process.env.RESTATE_SERVER_BINARY;
  if (given) return fs.existsSync(given) ? { file: given } : { file: null, reason: `RESTATE_SERVER_BINARY=${given} does not exist` };
  const triple = `${process.platform}-${process.arch}`;
  const file = path.join(ROOT, 'node_modules', '@restatedev', `restate-server-${triple}`, 'bin', 'restate-server');
  if (fs.existsSync(file)) return { file };
  return {
    file: null,
    reason: `no restate-server binary: @restatedev/restate-server-${triple} is not installed (npm install, a devDependency) and RESTATE_SERVER_BINARY is not set`,
  };
}

/** A port no one listens on now, on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers 200, or rejects once the process `child` has exited. */
async function answered(url, child) {
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`restate-server exited (${child.exitCode ?? child.signalCode}) before ${url} answered`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function startRestateServer() {
  const { file, reason } = findRestateServer();
  if (file === null) throw new Error(reason);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tas-restate-'));
  const [node, admin, ingress] = [await freePort(), await freePort(), await freePort()];
  const config = path.join(dir, 'restate.toml');
  fs.writeFileSync(
    config,
    [
      'node-name = "tas-test"',
      'listen-mode = "tcp"',
      'bind-ip = "127.0.0.1"',
      `bind-port = ${node}`,
      `base-dir = ${JSON.stringify(path.join(dir, 'data'))}`,
      'disable-telemetry = true',
      'log-filter = "warn"',
      '[admin]',
      `bind-port = ${admin}`,
      '[ingress]',
      `bind-port = ${ingress}`,
      '',
    ].join('\n'),
  );
  const log = fs.openSync(path.join(dir, 'server.log'), 'w');
  const child = spawn(file, ['--config-file', config, '--no-logo'], { cwd: dir, stdio: ['ignore', log, log] });
  fs.closeSync(log);
  const urls = { admin: `http://127.0.0.1:${admin}`, ingress: `http://127.0.0.1:${ingress}` };
  try {
    await answered(`${urls.admin}/health`, child);
    await answered(`${urls.ingress}/restate/health`, child);
  } catch (error) {
    child.kill('SIGKILL');
    error.message += `\n${fs.readFileSync(path.join(dir, 'server.log'), 'utf8').slice(-4000)}`;
    throw error;
  }
  return {
    ...urls,
    dir,
    log: () => fs.readFileSync(path.join(dir, 'server.log'), 'utf8'),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Registers the deployment at `uri` (force: the same URI again after a change). */
async function register(admin, uri) {
  const response = await fetch(`${admin}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri, force: true }),
  });
  if (!response.ok) throw new Error(`registering ${uri}: ${response.status} ${await response.text()}`);
  return response.json();
}

module.exports = { findRestateServer, startRestateServer, freePort, register };
