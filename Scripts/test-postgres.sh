#!/usr/bin/env bash
# test-postgres.sh — start (or reuse) a throwaway PostgreSQL server for tests.
#
# Usage:
#   eval "$(bash start_postgres.sh)"        # start/reuse, export PG* vars + DATABASE_URL
#   bash start_postgres.sh stop              # stop it (data dir kept)
#   bash start_postgres.sh destroy           # stop it and delete the data dir
#
# Settings (environment, all optional):
#   PG_DIR       where data, socket and log live   (default /tmp/pg-test-$PG_PORT)
#   PG_PORT      TCP port on 127.0.0.1             (default 54329, not 5432, so the
#                                                    distro's own cluster never clashes)
#   PG_USER      superuser name                    (default postgres)
#   PG_PASSWORD  its password (scram-sha-256 on TCP) (default postgres)
#   PG_DATABASE  database created for the app      (default app)
#   PG_VERSION   major version wanted              (default: newest installed; 15 on Debian 12)
#   PG_RUN_AS    OS user the server runs as when this script runs as root
#                                                  (default postgres; created if missing)
#   PG_OPTIONS   more `-c name=value` settings for the server, after the defaults
#                                                  (Scripts/test-postgres-cluster.sh's primary)
#
# Behaviour:
#   * Installs Debian's `postgresql` package with apt-get if no initdb is found
#     (needs root; runs `apt-get update` first).
#   * PostgreSQL refuses to run as root, so as root the server runs as $PG_RUN_AS
#     via runuser; as a normal user it runs as that user.
#   * Idempotent: an existing data dir is reused, a running server is left alone,
#     the database is created only if missing. A stale postmaster.pid is handled
#     by pg_ctl itself.
#   * Listens on 127.0.0.1 only (plus a Unix socket inside $PG_DIR); fsync and
#     synchronous_commit are off: for tests only, never for real data.
#   * stdout carries only `export NAME=value` lines, so `eval "$(...)"` works;
#     progress and errors go to stderr. Exit status is non-zero on any failure.
set -euo pipefail

PG_PORT="${PG_PORT:-54329}"
PG_DIR="${PG_DIR:-/tmp/pg-test-$PG_PORT}"
PG_USER="${PG_USER:-postgres}"
PG_PASSWORD="${PG_PASSWORD:-postgres}"
PG_DATABASE="${PG_DATABASE:-app}"
PG_RUN_AS="${PG_RUN_AS:-postgres}"
ACTION="${1:-start}"

log() { echo "start_postgres: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }

find_bindir() {
  local d
  if [ -n "${PG_VERSION:-}" ]; then
    d="/usr/lib/postgresql/$PG_VERSION/bin"
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
    return 1
  fi
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
  if [ -n "$d" ] && [ -x "$d/initdb" ]; then echo "$d"; return 0; fi
  d=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")
  [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  return 1
}

# ---------- run a command as the server's OS user ----------
if [ "$(id -u)" = 0 ]; then
  as_pg() { runuser -u "$PG_RUN_AS" -- "$@"; }
else
  as_pg() { "$@"; }
fi

# ---------- install if needed ----------
if ! BIN=$(find_bindir); then
  [ "$(id -u)" = 0 ] || die "PostgreSQL is not installed and we are not root: apt-get install postgresql"
  log "installing PostgreSQL with apt-get ..."
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  pkg=postgresql; [ -n "${PG_VERSION:-}" ] && pkg="postgresql-$PG_VERSION"
  apt-get install -y -qq --no-install-recommends "$pkg" >&2
  BIN=$(find_bindir) || die "initdb still not found after installing $pkg"
fi
log "using $BIN ($("$BIN/postgres" --version))"

if [ "$(id -u)" = 0 ] && ! id "$PG_RUN_AS" >/dev/null 2>&1; then
  log "creating system user $PG_RUN_AS"
  useradd --system --no-create-home --shell /usr/sbin/nologin "$PG_RUN_AS"
fi

DATA="$PG_DIR/data"
LOGFILE="$PG_DIR/server.log"

case "$ACTION" in
  stop|destroy)
    if [ -f "$DATA/PG_VERSION" ]; then
      as_pg "$BIN/pg_ctl" -D "$DATA" -m fast -w stop >&2 || true
    fi
    [ "$ACTION" = destroy ] && rm -rf "$PG_DIR" && log "removed $PG_DIR"
    exit 0 ;;
  start) ;;
  *) die "unknown action '$ACTION' (start|stop|destroy)" ;;
esac

# ---------- data dir ----------
mkdir -p "$PG_DIR"
chmod 0755 "$PG_DIR"   # the server user must be able to enter it
[ "$(id -u)" = 0 ] && chown "$PG_RUN_AS" "$PG_DIR"
# every parent must be traversable by the server user (e.g. not under /root)
as_pg test -w "$PG_DIR" || die "$PG_DIR is not writable by $( [ "$(id -u)" = 0 ] && echo "$PG_RUN_AS" || id -un ); choose PG_DIR under /tmp"

if [ ! -f "$DATA/PG_VERSION" ]; then
  log "initdb in $DATA"
  rm -rf "$DATA"
  pwfile="$PG_DIR/.pwfile"
  printf '%s\n' "$PG_PASSWORD" > "$pwfile"
  [ "$(id -u)" = 0 ] && chown "$PG_RUN_AS" "$pwfile"
  chmod 0600 "$pwfile"
  as_pg "$BIN/initdb" -D "$DATA" -U "$PG_USER" --pwfile="$pwfile" \
      --auth-local=trust --auth-host=scram-sha-256 \
      --encoding=UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log" 2>&1 \
    || { cat "$PG_DIR/initdb.log" >&2; die "initdb failed"; }
  rm -f "$pwfile"
fi

# ---------- start ----------
if as_pg "$BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  log "already running (data $DATA)"
else
  # refuse to fight over the port with some other server
  if "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" 2>/dev/null; then
    die "something else already listens on 127.0.0.1:$PG_PORT; set PG_PORT"
  fi
  log "starting on 127.0.0.1:$PG_PORT (log $LOGFILE)"
  as_pg "$BIN/pg_ctl" -D "$DATA" -l "$LOGFILE" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $PG_PORT -c unix_socket_directories='$PG_DIR' -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 ${PG_OPTIONS:-}" \
    start >&2 || { tail -n 30 "$LOGFILE" >&2 || true; die "pg_ctl start failed"; }
fi

for _ in $(seq 1 60); do
  "$BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" && break
  sleep 0.5
done
"$BIN/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" || die "server not ready on port $PG_PORT"

# ---------- database ----------
psql_() { PGPASSWORD="$PG_PASSWORD" "$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" "$@"; }
if [ "$(psql_ -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$PG_DATABASE'")" != 1 ]; then
  log "creating database $PG_DATABASE"
  psql_ -d postgres -c "CREATE DATABASE \"$PG_DATABASE\"" >&2
fi
log "ready: $(psql_ -d "$PG_DATABASE" -tAc 'SHOW server_version')"

cat <<EOF
export PGHOST=127.0.0.1
export PGPORT=$PG_PORT
export PGUSER=$PG_USER
export PGPASSWORD=$PG_PASSWORD
export PGDATABASE=$PG_DATABASE
export DATABASE_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DATABASE?sslmode=disable
EOF
