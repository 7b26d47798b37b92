#!/usr/bin/env bash
# PostgreSQL and Redis for the tests that need real servers (durable grant stores), on
# loopback, throwaway (trust auth, no persistence, fsync off), for .ci/run and developers.
#
#   eval "$(bash scripts/test-services.sh start)"   # starts both, prints the exports
#   bash scripts/test-services.sh status
#   bash scripts/test-services.sh stop
#
# `start` sets (prints as export lines, and writes to .tmp/services.env for `. .tmp/services.env`):
#   TAS_TEST_PG_URL=postgres://postgres@127.0.0.1:PORT/tas_test
#   TAS_TEST_REDIS_URL=redis://127.0.0.1:PORT
#   TAS_SERVICES_DIR=/tmp/tas-services.XXXXXX   (data, sockets and logs)
# Ports are free ones picked at start. A second `start` while both answer reprints the same
# exports. Progress goes to stderr. As root, redis-server and PostgreSQL are installed with
# apt-get when missing, and PostgreSQL (which refuses root) runs as the `postgres` user;
# otherwise as the current user. PG_BIN overrides the PostgreSQL binaries folder
# (default: the newest /usr/lib/postgresql/*/bin).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
ENV_FILE="$ROOT/.tmp/services.env"
DB=tas_test

say() { echo "test-services: $*" >&2; }

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

apt_install() {
  if [ "$(id -u)" != 0 ]; then
    say "$1 is missing: install it (Debian: sudo apt-get install -y $2) or set the URL variables yourself"
    exit 1
  fi
  say "installing $2 with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  # Install from the present lists first (no download of lists when they serve).
  apt-get install -y -qq --no-install-recommends "$2" >/dev/null 2>&1 || {
    apt-get update -qq >/dev/null
    apt-get install -y -qq --no-install-recommends "$2" >/dev/null
  }
}

pg_bin() {
  if [ -n "${PG_BIN:-}" ]; then echo "$PG_BIN"; return; fi
  ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1
}

free_port() {
  node -e "const s=require('node:net').createServer();s.listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})"
}

running() {
  [ -f "$ENV_FILE" ] || return 1
  # shellcheck disable=SC1090
  ( . "$ENV_FILE"
    [ -d "${TAS_SERVICES_DIR:-/nonexistent}" ] || exit 1
    pg_port="${TAS_TEST_PG_URL##*:}"; pg_port="${pg_port%%/*}"
    redis_port="${TAS_TEST_REDIS_URL##*:}"
    "$(pg_bin)/pg_isready" -q -h 127.0.0.1 -p "$pg_port" -t 2 &&
      [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] )
}

start() {
  if running; then
    say "already running ($ENV_FILE)"
    cat "$ENV_FILE"
    return
  fi
  [ -f "$ENV_FILE" ] && stop
  command -v redis-server >/dev/null || apt_install redis-server redis-server
  [ -n "$(pg_bin)" ] || apt_install postgres postgresql
  local bin dir pg_port redis_port
  bin="$(pg_bin)"
  dir="$(mktemp -d /tmp/tas-services.XXXXXX)"
  chmod 755 "$dir"
  mkdir -p "$dir/pg" "$dir/redis" "$ROOT/.tmp"
  [ "$(id -u)" = 0 ] && chown postgres "$dir/pg"

  pg_port="$(free_port)"
  say "PostgreSQL ($bin) on 127.0.0.1:$pg_port, data in $dir/pg"
  as_pg "$bin/initdb" -D "$dir/pg/data" -U postgres --auth=trust -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
    { cat "$dir/initdb.log" >&2; exit 1; }
  as_pg "$bin/pg_ctl" -D "$dir/pg/data" -l "$dir/pg/server.log" -w -t 60 \
    -o "-p $pg_port -k $dir/pg -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off" \
    start >/dev/null || { cat "$dir/pg/server.log" >&2; exit 1; }
  "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U postgres "$DB"

  redis_port="$(free_port)"
  say "redis-server ($(redis-server --version | grep -o 'v=[^ ]*')) on 127.0.0.1:$redis_port"
  # As the Redis store asks of a server (docs/stores.md): an append-only file, fsynced.
  redis-server --port "$redis_port" --bind 127.0.0.1 --daemonize yes --save '' --appendonly yes --appendfsync always \
    --dir "$dir/redis" --pidfile "$dir/redis/redis.pid" --logfile "$dir/redis/redis.log" >/dev/null
  for _ in $(seq 1 100); do
    [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] && break
    sleep 0.1
  done
  [ "$(redis-cli -h 127.0.0.1 -p "$redis_port" ping 2>/dev/null)" = PONG ] || { cat "$dir/redis/redis.log" >&2; exit 1; }

  cat >"$ENV_FILE" <<EOF
export TAS_TEST_PG_URL=postgres://postgres@127.0.0.1:$pg_port/$DB
export TAS_TEST_REDIS_URL=redis://127.0.0.1:$redis_port
export TAS_SERVICES_DIR=$dir
EOF
  cat "$ENV_FILE"
}

stop() {
  [ -f "$ENV_FILE" ] || { say "nothing to stop (no $ENV_FILE)"; return; }
  # shellcheck disable=SC1090
  . "$ENV_FILE"
  local dir="${TAS_SERVICES_DIR:-}" redis_port="${TAS_TEST_REDIS_URL##*:}"
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    if [ -f "$dir/pg/data/postmaster.pid" ]; then
      as_pg "$(pg_bin)/pg_ctl" -D "$dir/pg/data" -m immediate -w stop >/dev/null 2>&1 || say "PostgreSQL did not stop cleanly"
    fi
    if [ -f "$dir/redis/redis.pid" ]; then
      redis-cli -h 127.0.0.1 -p "$redis_port" shutdown nosave >/dev/null 2>&1 ||
        kill "$(cat "$dir/redis/redis.pid")" 2>/dev/null || true
    fi
    rm -rf "$dir"
  fi
  rm -f "$ENV_FILE"
  say "stopped"
}

status() {
  if running; then say "running"; cat "$ENV_FILE"; else say "not running"; return 1; fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: bash scripts/test-services.sh start|stop|status" >&2; exit 2 ;;
esac
