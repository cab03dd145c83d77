#!/usr/bin/env bash
# What PostgreSQL itself costs per notification, for BENCHMARKS.md (#18, #36): runs `storekeeper
# bench server` against the local test server of Scripts/test-postgres.sh and reports the CPU of
# all of PostgreSQL's processes per notification beside the server's own figure, and what the
# run wrote per notification: rows and index entries by table, and the database's bytes.
# With FLOOR_REPLAY=1 it runs again with every statement logged and replays those statements
# through one psql session (a client that costs the server nothing); the figures' rows are
# written with COPY since #35, whose rows the log does not hold, so the replay stops there.
#
# Needs: a release build, root or the server's user (to read /proc of PostgreSQL's processes),
# and the server started by Scripts/test-postgres.sh on this machine. The log of a run of 3,000
# notifications is about 85 MB (the bodies are in it); it is deleted at the end.
#   eval "$(PG_PORT=54341 PG_DIR=/tmp/storekeeper-ci-postgres bash Scripts/test-postgres.sh)"
#   PG_DIR=/tmp/storekeeper-ci-postgres bash Scripts/postgres-floor.sh [notifications]
set -euo pipefail
cd "$(dirname "$0")/.."
notifications="${1:-3000}"
: "${PG_DIR:?PG_DIR: the directory of Scripts/test-postgres.sh (socket, data, server.log)}"
: "${PGPORT:?PGPORT and the other PG* variables: eval the output of Scripts/test-postgres.sh}"
# STOREKEEPER_BIN: another build to measure (a copy of the previous release's, for a before/after).
bin="${STOREKEEPER_BIN:-$(swift build -c release --show-bin-path)/storekeeper}"
[ -x "$bin" ] || { echo "build first: swift build -c release --product storekeeper" >&2; exit 2; }
log="$PG_DIR/server.log"
postmaster="$(head -1 "$PG_DIR/data/postmaster.pid")"
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-floor.XXXXXX")"
suffix="$$"
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS floor_bench_$suffix" \
  -c "DROP DATABASE IF EXISTS floor_capture_$suffix" -c "DROP DATABASE IF EXISTS floor_replay_$suffix" >/dev/null 2>&1 || true' EXIT

# Clock ticks used by PostgreSQL: its live processes, and the children the postmaster reaped.
ticks() {
  local total=0 pid value
  for pid in $(pgrep -f -- "-D $PG_DIR/data" || true) $(pgrep -P "$postmaster" || true); do
    value=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
    total=$((total + value))
  done
  echo $((total + $(awk '{print $16 + $17}' "/proc/$postmaster/stat")))
}
per_notification() { echo "scale=3; ($2 - $1) * 1000 / $(getconf CLK_TCK) / $notifications" | bc; }

url() { echo "postgres://$PGUSER:$PGPASSWORD@127.0.0.1:$PGPORT/$1?sslmode=disable"; }
# A plain run first: the server's and PostgreSQL's CPU as they are.
psql -X -q -d postgres -c "CREATE DATABASE floor_bench_$suffix"
sleep 1
before=$(ticks)
"$bin" bench server --notifications "$notifications" --reads 0 --concurrency 8 --database-url "$(url "floor_bench_$suffix")" > "$work/bench.json"
sleep 1
after=$(ticks)
# What the plain run wrote, per notification: rows by table (inserted, updated, of which
# heap-only, deleted), the index entries those writes made, and the database's bytes.
psql -X -q -A -t -d "floor_bench_$suffix" -c "
  SELECT json_build_object('bytesPerNotification', round(pg_database_size(current_database()) / $notifications.0),
    'tables', json_object_agg(relname, json_build_object(
      'inserted', round(n_tup_ins / $notifications.0, 2), 'updated', round(n_tup_upd / $notifications.0, 2),
      'heapOnlyUpdated', round(n_tup_hot_upd / $notifications.0, 2), 'deleted', round(n_tup_del / $notifications.0, 2),
      'indexes', (SELECT count(*) FROM pg_index i WHERE i.indrelid = s.relid),
      'indexEntriesWritten', round(((n_tup_ins + n_tup_upd - n_tup_hot_upd) * (SELECT count(*) FROM pg_index i WHERE i.indrelid = s.relid)) / $notifications.0, 2),
      'bytes', pg_total_relation_size(relid))))
  FROM pg_stat_user_tables s WHERE n_tup_ins + n_tup_upd + n_tup_del > 0" > "$work/writes.json"
statements=0 replay_seconds=0 replay_before=0 replay_after=0
if [ "${FLOOR_REPLAY:-0}" = 1 ]; then
  # The same again with every statement logged (logging 85 MB costs PostgreSQL more than the
  # statements do, so this run is not measured), turned into one script.
  psql -X -q -d postgres -c "CREATE DATABASE floor_capture_$suffix" -c "ALTER DATABASE floor_capture_$suffix SET log_statement = 'all'"
  start=$(stat -c %s "$log")
  "$bin" bench server --notifications "$notifications" --reads 0 --concurrency 8 --database-url "$(url "floor_capture_$suffix")" > /dev/null
  tail -c +"$((start + 1))" "$log" > "$work/statements.log"
  statements=$(python3 Scripts/postgres-replay.py "$work/statements.log" "$work/replay.sql")
  rm "$work/statements.log"

  psql -X -q -d postgres -c "CREATE DATABASE floor_replay_$suffix"
  sleep 1
  replay_before=$(ticks)
  replay_start=$(date +%s.%N)
  psql -X -q -v ON_ERROR_STOP=1 -h "$PG_DIR" -p "$PGPORT" -d "floor_replay_$suffix" -f "$work/replay.sql" > /dev/null
  replay_seconds=$(echo "$(date +%s.%N) - $replay_start" | bc)
  sleep 1
  replay_after=$(ticks)

fi
python3 - "$work/bench.json" "$work/writes.json" <<PY
import json, sys
bench = json.load(open(sys.argv[1]))
writes = json.load(open(sys.argv[2]))
tables = writes["tables"]
print(json.dumps({
    "bytesPerNotification": writes["bytesPerNotification"],
    "indexEntriesPerNotification": round(sum(t["indexEntriesWritten"] for t in tables.values()), 2),
    "rowsWrittenPerNotification": round(sum(t["inserted"] + t["updated"] + t["deleted"] for t in tables.values()), 2),
    "tables": tables,
    "notifications": $notifications,
    "processedPerSecond": bench["processedPerSecond"],
    "serverCpuMillisecondsPerNotification": bench["cpuMillisecondsPerNotification"],
    "postgresCpuMillisecondsPerNotification": float("$(per_notification "$before" "$after")"),
    "statementsReplayed": $statements,
    "replaySeconds": round(float("$replay_seconds"), 3),
    "postgresCpuMillisecondsPerNotificationReplayed": float("$(per_notification "$replay_before" "$replay_after")") if $statements else None,
}, sort_keys=True))
PY
