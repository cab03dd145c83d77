#!/usr/bin/env bash
# test-postgres-cluster.sh — production's shape on loopback, for tests: a primary, a streaming
# standby it waits for (synchronous replication) and PgBouncer in transaction pooling mode in front
# of the primary. Debian's `postgresql` and `pgbouncer` packages, installed with apt-get if missing.
#
# Usage:
#   eval "$(bash Scripts/test-postgres-cluster.sh)"   # start/reuse; prints export lines
#   bash Scripts/test-postgres-cluster.sh stop        # stop all three (data kept)
#   bash Scripts/test-postgres-cluster.sh destroy     # stop all three and delete $PG_DIR
#
# Settings (environment, all optional):
#   PG_PORT   the primary's port; the standby listens on PG_PORT+1, PgBouncer on PG_PORT+2
#             (default 54329)
#   PG_DIR    where everything lives: the primary in $PG_DIR/data (Scripts/test-postgres.sh),
#             the standby in $PG_DIR/standby, PgBouncer in $PG_DIR/pgbouncer
#   PG_SYNCHRONOUS  `on` (default): a commit returns once the standby has it; `off`: asynchronous
#   PG_USER, PG_PASSWORD, PG_DATABASE, PG_RUN_AS: as for Scripts/test-postgres.sh
#
# Prints, besides Scripts/test-postgres.sh's lines (DATABASE_URL is the primary, directly):
#   PRIMARY_URL   the primary, directly
#   STANDBY_URL   the standby (read-only, hot standby)
#   POOLER_URL    PgBouncer, transaction pooling, in front of the primary
#   STATEMENT_POOLER_URL  a second PgBouncer, in statement pooling mode (PG_PORT+3), which the
#                 store must refuse at start
#   PGBOUNCER_VERSION
# The primary's fsync stays off as in Scripts/test-postgres.sh: killing a server process loses
# nothing the kernel holds, which is what these tests do; a machine's crash is not tested here.
set -euo pipefail
cd "$(dirname "$0")/.."

PG_PORT="${PG_PORT:-54329}"
PG_DIR="${PG_DIR:-/tmp/pg-test-$PG_PORT}"
PG_USER="${PG_USER:-postgres}"
PG_PASSWORD="${PG_PASSWORD:-postgres}"
PG_DATABASE="${PG_DATABASE:-app}"
PG_RUN_AS="${PG_RUN_AS:-postgres}"
PG_SYNCHRONOUS="${PG_SYNCHRONOUS:-on}"
STANDBY_PORT=$((PG_PORT + 1))
POOLER_PORT=$((PG_PORT + 2))
STANDBY="$PG_DIR/standby"
POOLER="$PG_DIR/pgbouncer"
STATEMENT_POOLER="$PG_DIR/pgbouncer-statement"
ACTION="${1:-start}"
export PG_PORT PG_DIR PG_USER PG_PASSWORD PG_DATABASE PG_RUN_AS

log() { echo "test-postgres-cluster: $*" >&2; }
die() { log "ERROR: $*"; exit 1; }
if [ "$(id -u)" = 0 ]; then as_pg() { runuser -u "$PG_RUN_AS" -- "$@"; }; else as_pg() { "$@"; }; fi
bindir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }

stop_all() {
  for pooler in "$POOLER" "$STATEMENT_POOLER"; do
    [ -f "$pooler/pgbouncer.pid" ] || continue
    kill "$(cat "$pooler/pgbouncer.pid")" 2>/dev/null || true
    for _ in $(seq 1 50); do [ -f "$pooler/pgbouncer.pid" ] || break; sleep 0.1; done
  done
  local bin; bin=$(bindir)
  if [ -n "$bin" ] && [ -f "$STANDBY/data/PG_VERSION" ]; then
    as_pg "$bin/pg_ctl" -D "$STANDBY/data" -m immediate -w stop >&2 2>/dev/null || true
  fi
  bash Scripts/test-postgres.sh stop >/dev/null
}

case "$ACTION" in
  stop) stop_all; exit 0 ;;
  destroy) stop_all; rm -rf "$PG_DIR"; log "removed $PG_DIR"; exit 0 ;;
  start) ;;
  *) die "unknown action '$ACTION' (start|stop|destroy)" ;;
esac

PRIMARY_ENV=$(mktemp)
# ---------- the primary: replication on (it waits for the standby once the standby is up) ----------
PG_OPTIONS="-c wal_level=replica -c max_wal_senders=10 -c wal_keep_size=512MB -c hot_standby=on -c synchronous_commit=on" \
  bash Scripts/test-postgres.sh >"$PRIMARY_ENV" 2>/tmp/test-postgres-cluster.$$.log \
  || { cat /tmp/test-postgres-cluster.$$.log >&2; die "the primary did not start"; }
rm -f /tmp/test-postgres-cluster.$$.log
BIN=$(bindir)

# ---------- the standby: a base backup of the primary, streaming ----------
mkdir -p "$STANDBY"
[ "$(id -u)" = 0 ] && chown "$PG_RUN_AS" "$STANDBY"
if [ ! -f "$STANDBY/data/PG_VERSION" ]; then
  log "base backup into $STANDBY/data"
  as_pg env PGPASSWORD="$PG_PASSWORD" "$BIN/pg_basebackup" -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" \
    -D "$STANDBY/data" -X stream -R -c fast >&2 || die "pg_basebackup failed"
  # libpq's conninfo as the primary sees it: application_name names the synchronous standby.
  echo "primary_conninfo = 'host=127.0.0.1 port=$PG_PORT user=$PG_USER password=$PG_PASSWORD application_name=standby'" \
    | as_pg tee -a "$STANDBY/data/postgresql.auto.conf" >/dev/null
fi
if ! as_pg "$BIN/pg_ctl" -D "$STANDBY/data" status >/dev/null 2>&1; then
  log "starting the standby on 127.0.0.1:$STANDBY_PORT"
  as_pg "$BIN/pg_ctl" -D "$STANDBY/data" -l "$STANDBY/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $STANDBY_PORT -c unix_socket_directories='$STANDBY' -c fsync=off -c hot_standby=on -c hot_standby_feedback=on -c max_connections=200" \
    start >&2 || { tail -n 30 "$STANDBY/server.log" >&2; die "the standby did not start"; }
fi
# The primary waits for the standby named `standby` (set here, not at its start: creating the
# database before the standby existed would have waited forever).
names=""; [ "$PG_SYNCHRONOUS" = on ] && names=standby
PGPASSWORD="$PG_PASSWORD" "$BIN/psql" -X -q -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres \
  -c "ALTER SYSTEM SET synchronous_standby_names = '$names'" -c "SELECT pg_reload_conf()" >/dev/null
if [ "$PG_SYNCHRONOUS" = on ]; then
  for _ in $(seq 1 100); do
    state=$(PGPASSWORD="$PG_PASSWORD" "$BIN/psql" -X -tA -h 127.0.0.1 -p "$PG_PORT" -U "$PG_USER" -d postgres \
      -c "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby'" 2>/dev/null || true)
    [ "$state" = sync ] && break
    sleep 0.2
  done
  [ "$state" = sync ] || die "the standby is not the primary's synchronous standby (state '$state')"
fi

# ---------- PgBouncer: transaction pooling in front of the primary ----------
if ! command -v pgbouncer >/dev/null && [ ! -x /usr/sbin/pgbouncer ]; then
  [ "$(id -u)" = 0 ] || die "pgbouncer is not installed and we are not root: apt-get install pgbouncer"
  log "installing pgbouncer with apt-get ..."
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer >&2 \
    || { apt-get update -qq >&2; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends pgbouncer >&2; }
  # The package starts its own PgBouncer on 6432; these tests run their own.
  service pgbouncer stop >/dev/null 2>&1 || true
fi
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
# start_pooler DIR PORT MODE
start_pooler() {
  local dir=$1 port=$2 mode=$3
  mkdir -p "$dir"
  printf '"%s" "%s"\n' "$PG_USER" "$PG_PASSWORD" > "$dir/userlist.txt"
  cat > "$dir/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=$PG_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $port
unix_socket_dir = $dir
auth_type = scram-sha-256
auth_file = $dir/userlist.txt
pool_mode = $mode
max_client_conn = 2000
default_pool_size = 20
max_user_connections = 150
server_idle_timeout = 10
server_lifetime = 600
logfile = $dir/pgbouncer.log
pidfile = $dir/pgbouncer.pid
admin_users = $PG_USER
EOF
  [ "$(id -u)" = 0 ] && chown -R "$PG_RUN_AS" "$dir"
  if [ -f "$dir/pgbouncer.pid" ] && kill -0 "$(cat "$dir/pgbouncer.pid")" 2>/dev/null; then
    log "PgBouncer ($mode) already running"
  else
    rm -f "$dir/pgbouncer.pid"
    log "starting PgBouncer ($mode pooling) on 127.0.0.1:$port"
    as_pg "$PGBOUNCER" -d -q "$dir/pgbouncer.ini" || die "PgBouncer did not start (see $dir/pgbouncer.log)"
  fi
}
start_pooler "$POOLER" "$POOLER_PORT" transaction
start_pooler "$STATEMENT_POOLER" "$((PG_PORT + 3))" statement
for _ in $(seq 1 50); do
  PGPASSWORD="$PG_PASSWORD" "$BIN/psql" -X -tA -h 127.0.0.1 -p "$POOLER_PORT" -U "$PG_USER" -d "$PG_DATABASE" -c "SELECT 1" >/dev/null 2>&1 && break
  sleep 0.2
done
PGPASSWORD="$PG_PASSWORD" "$BIN/psql" -X -tA -h 127.0.0.1 -p "$POOLER_PORT" -U "$PG_USER" -d "$PG_DATABASE" -c "SELECT 1" >/dev/null \
  || die "PgBouncer does not answer on $POOLER_PORT"
version=$("$PGBOUNCER" --version 2>/dev/null | head -1 | awk '{print $NF}')
log "ready: primary $PG_PORT, standby $STANDBY_PORT ($PG_SYNCHRONOUS), PgBouncer $version on $POOLER_PORT"

cat "$PRIMARY_ENV"
rm -f "$PRIMARY_ENV"
cat <<EOF
export PRIMARY_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/$PG_DATABASE?sslmode=disable
export STANDBY_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$STANDBY_PORT/$PG_DATABASE?sslmode=disable
export POOLER_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$POOLER_PORT/$PG_DATABASE?sslmode=disable
export STATEMENT_POOLER_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$((PG_PORT + 3))/$PG_DATABASE?sslmode=disable
export PGBOUNCER_VERSION=$version
EOF
