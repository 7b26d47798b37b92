'use strict';
// openGrantStore(url, options?): a grant store from a URL, with the driver the application
// installed (pg, redis or ioredis are optional peers, resolved from the application: its
// working directory first, then its main module; never this package's own dependencies).
// close() closes the store, then what this function opened (the pg pool, the Redis client).
// No message names the URL: it can hold credentials.

const { invalidArgument } = require('../errors');
const P = require('../primordials');
const C = require('./common');
const { lazy } = require('../lazy');

// Each store is loaded when a URL first asks for it.
const sqlite = lazy(() => require('./sqlite'));
const postgres = lazy(() => require('./postgres'));
const redis = lazy(() => require('./redis'));
const createSqliteGrantStore = (options) => sqlite().createSqliteGrantStore(options);
const createPostgresGrantStore = (options) => postgres().createPostgresGrantStore(options);
const createRedisGrantStore = (options) => redis().createRedisGrantStore(options);

// Captured when the package loaded (this module loads at first use).
const { ObjectFreeze, StringPrototypeIsWellFormed, StringPrototypeSlice, isProxy, uncurryThis, createRequire } = P;
const { StringPrototypeStartsWith, ObjectKeys, ObjectDefineProperty, SafePromise: PromiseCtor, SafeError } = P;
const { SafeSetTimeout: SetTimeout, SafeClearTimeout: ClearTimeout, ProcessCwd, PathJoin } = P;

const USAGE = 'openGrantStore expects a URL: sqlite:PATH, sqlite::memory:, postgres://..., postgresql://..., redis://... or rediss://...';

/** Where the application's packages are looked up: its working directory, then its main module. */
function applicationRequires() {
  const places = [];
  try {
    places[places.length] = createRequire(PathJoin(uncurryThis(ProcessCwd)(P.process), 'noop.js'));
  } catch {
    // No working directory (removed): the main module still answers.
  }
  const main = require.main;
  if (main !== undefined && main !== null && typeof main.filename === 'string') places[places.length] = createRequire(main.filename);
  return places;
}

function missing(name) {
  const error = new SafeError(`openGrantStore needs ${name} (an optional peer dependency of tool-argument-snapshot) in the application: npm install ${name}`);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: 'MODULE_NOT_FOUND', enumerable: true, writable: false, configurable: true });
  ObjectDefineProperty(error, 'packageName', { __proto__: null, value: name, enumerable: true, writable: false, configurable: true });
  return error;
}

/** The application's copy of `name`, or null when it has none. */
function load(name) {
  const places = applicationRequires();
  for (let i = 0; i < places.length; i++) {
    let resolved;
    try {
      resolved = places[i].resolve(name);
    } catch {
      continue;
    }
    return places[i](resolved);
  }
  return null;
}

function loadOrThrow(name) {
  const found = load(name);
  if (found === null) throw missing(name);
  return found;
}

/** A connection failure, without the URL or the driver's message (either can carry credentials). */
function connectError(kind, stage) {
  const error = new SafeError(`openGrantStore: the ${kind} connection failed (${stage}); the URL is not shown`);
  ObjectDefineProperty(error, 'code', { __proto__: null, value: 'store_failed', enumerable: true, writable: false, configurable: true });
  return error;
}

function readOptions(options) {
  if (options === undefined) return { __proto__: null };
  if (options === null || typeof options !== 'object' || isProxy(options)) throw invalidArgument('openGrantStore options must be an object');
  const read = { __proto__: null };
  for (const name of ['table', 'prefix', 'timeoutMs', 'redisClient']) {
    const value = C.own(options, name);
    if (value !== undefined) read[name] = value;
  }
  return read;
}

function withTimeout(promise, ms, onTimeout) {
  return new PromiseCtor((resolve, reject) => {
    const timer = SetTimeout(() => {
      onTimeout();
      reject(new SafeError('timeout'));
    }, ms);
    promise.then(
      (value) => {
        ClearTimeout(timer);
        resolve(value);
      },
      (error) => {
        ClearTimeout(timer);
        reject(error);
      },
    );
  });
}

/** The store with a close() that also closes `after` (what this function opened). */
function owning(store, after) {
  const wrapped = { __proto__: null };
  const names = ObjectKeys(store);
  for (let i = 0; i < names.length; i++) wrapped[names[i]] = store[names[i]];
  let closing;
  wrapped.close = function close() {
    if (closing === undefined) {
      closing = PromiseCtor.resolve(store.close()).then(
        () => after(),
        (error) =>
          PromiseCtor.resolve(after()).then(() => {
            throw error;
          }),
      );
    }
    return closing;
  };
  return ObjectFreeze(wrapped);
}

async function openPostgres(url, opts) {
  const pg = loadOrThrow('pg');
  const Pool = pg.Pool !== undefined ? pg.Pool : pg.default.Pool;
  const pool = new Pool({ connectionString: url });
  pool.on('error', () => {}); // an idle connection's failure: the next query reports it
  const end = () =>
    pool.end().then(
      () => undefined,
      () => undefined,
    );
  let store;
  try {
    store = createPostgresGrantStore({ pool, table: opts.table, timeoutMs: opts.timeoutMs });
    await store.migrate();
  } catch (error) {
    await end();
    // The store's own errors name no URL; anything else is replaced.
    if (error !== null && typeof error === 'object' && (C.own(error, 'name') === 'GrantStoreError' || error.code === 'ERR_INVALID_ARG_TYPE')) throw error;
    throw connectError('PostgreSQL', 'migrate');
  }
  return owning(store, end);
}

async function openRedis(url, opts) {
  const which = opts.redisClient;
  if (which !== undefined && which !== 'redis' && which !== 'ioredis') throw invalidArgument("options.redisClient must be 'redis' or 'ioredis'");
  const timeoutMs = opts.timeoutMs === undefined ? 5000 : C.readTimeout(opts.timeoutMs);
  let name = which;
  let driver = null;
  if (name === undefined) {
    driver = load('redis');
    name = driver !== null ? 'redis' : 'ioredis';
    if (driver === null) driver = load('ioredis');
    if (driver === null) throw missing('redis');
  } else {
    driver = loadOrThrow(name);
  }
  let client;
  let quit;
  if (name === 'redis') {
    client = driver.createClient({ url });
    client.on('error', () => {}); // reported by the calls that fail
    quit = () =>
      PromiseCtor.resolve()
        .then(() => (client.isOpen ? client.quit() : undefined))
        .then(
          () => undefined,
          () => undefined,
        );
    try {
      await withTimeout(client.connect(), timeoutMs, () => {
        try {
          client.disconnect().catch(() => {});
        } catch {
          /* not open */
        }
      });
    } catch {
      try {
        await client.disconnect();
      } catch {
        /* not open */
      }
      throw connectError('Redis', 'connect');
    }
  } else {
    const Redis = typeof driver === 'function' ? driver : driver.default;
    client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    client.on('error', () => {});
    quit = () =>
      PromiseCtor.resolve()
        .then(() => client.quit())
        .then(
          () => undefined,
          () => {
            client.disconnect();
          },
        );
    try {
      await withTimeout(client.connect(), timeoutMs, () => client.disconnect());
    } catch {
      client.disconnect();
      throw connectError('Redis', 'connect');
    }
  }
  let store;
  try {
    store = createRedisGrantStore({ client, prefix: opts.prefix, timeoutMs: opts.timeoutMs });
  } catch (error) {
    await quit();
    throw error;
  }
  return owning(store, quit);
}

/**
 * A grant store from a URL: `sqlite:PATH` (relative to the working directory, or
 * absolute), `sqlite::memory:`, `postgres://` or `postgresql://` (pg; migrate() is run),
 * `redis://` or `rediss://` (node-redis when installed, else ioredis; or as
 * options.redisClient says). Options: table, prefix, timeoutMs (as the factories take
 * them), redisClient. Resolves to the store; its close() closes what was opened.
 */
async function openGrantStore(url, options) {
  if (typeof url !== 'string' || !StringPrototypeIsWellFormed(url)) throw invalidArgument(USAGE);
  const opts = readOptions(options);
  if (StringPrototypeStartsWith(url, 'sqlite:')) {
    if (opts.prefix !== undefined || opts.redisClient !== undefined) throw invalidArgument('openGrantStore: prefix and redisClient are Redis options');
    const path = StringPrototypeSlice(url, 7);
    if (path.length === 0) throw invalidArgument(USAGE);
    return createSqliteGrantStore({ path, table: opts.table, timeoutMs: opts.timeoutMs });
  }
  if (StringPrototypeStartsWith(url, 'postgres://') || StringPrototypeStartsWith(url, 'postgresql://')) {
    if (opts.prefix !== undefined || opts.redisClient !== undefined) throw invalidArgument('openGrantStore: prefix and redisClient are Redis options');
    return openPostgres(url, opts);
  }
  if (StringPrototypeStartsWith(url, 'redis://') || StringPrototypeStartsWith(url, 'rediss://')) {
    if (opts.table !== undefined) throw invalidArgument('openGrantStore: table is a SQLite and PostgreSQL option (Redis takes prefix)');
    return openRedis(url, opts);
  }
  throw invalidArgument(USAGE); // the URL itself is never echoed
}

module.exports = { openGrantStore };
