#!/usr/bin/env bash
# What PostgreSQL itself costs per notification, for BENCHMARKS.md (#18): runs `storekeeper bench
# server` against the local test server of Scripts/test-postgres.sh, runs it again with every
# statement logged, replays those statements through one psql session (a client that costs the
# server nothing), and reports the CPU of all of PostgreSQL's processes per notification in the
# first run and in the replay, beside the server's own figure.
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
bin="$(swift build -c release --show-bin-path)/storekeeper"
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

python3 - "$work/bench.json" <<PY
import json, sys
bench = json.load(open(sys.argv[1]))
print(json.dumps({
    "notifications": $notifications,
    "processedPerSecond": bench["processedPerSecond"],
    "serverCpuMillisecondsPerNotification": bench["cpuMillisecondsPerNotification"],
    "postgresCpuMillisecondsPerNotification": float("$(per_notification "$before" "$after")"),
    "statementsReplayed": $statements,
    "replaySeconds": round(float("$replay_seconds"), 3),
    "postgresCpuMillisecondsPerNotificationReplayed": float("$(per_notification "$replay_before" "$replay_after")"),
}, sort_keys=True))
PY
