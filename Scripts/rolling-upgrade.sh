#!/usr/bin/env bash
# A rolling upgrade rehearsed on PostgreSQL, for BENCHMARKS.md (#36): the previous release's
# server processes a stream of signed notifications (`bench server`) while this build applies its
# expand steps to the same database (`migrate --expand-only`); the previous release must finish
# with every notification processed. Then this build serves the database (a server replaced by the
# new version: `bench server` again) and `migrate` applies the contract steps it held back.
#
#   eval "$(PG_PORT=54351 PG_DIR=/tmp/dev-pg bash Scripts/test-postgres.sh)"
#   git worktree add /tmp/prev <previous release> && (cd /tmp/prev && swift build --product storekeeper)
#   OLD_BIN=/tmp/prev/.build/debug/storekeeper NEW_BIN=.build/debug/storekeeper bash Scripts/rolling-upgrade.sh [notifications]
#
# Prints one JSON object; exits 1 when a step failed or a notification was not processed.
set -euo pipefail
cd "$(dirname "$0")/.."
notifications="${1:-3000}"
: "${OLD_BIN:?OLD_BIN: the previous release's storekeeper}"
: "${NEW_BIN:?NEW_BIN: this build's storekeeper}"
: "${PGPORT:?PGPORT and the other PG* variables: eval the output of Scripts/test-postgres.sh}"
database="rolling_upgrade_$$"
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-rolling.XXXXXX")"
trap 'rm -rf "$work"; psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true' EXIT
url="postgres://$PGUSER:$PGPASSWORD@127.0.0.1:$PGPORT/$database?sslmode=disable"
psql -X -q -d postgres -c "CREATE DATABASE $database"
processed() { psql -X -q -A -t -d "$database" -c "SELECT COUNT(*) FROM notification_inbox WHERE state = 'processed'" 2>/dev/null || echo 0; }
now() { date +%s.%N; }

# The previous release's schema, and its server under load.
"$OLD_BIN" migrate --database-url "$url" > "$work/old-migrate.txt"
"$OLD_BIN" bench server --notifications "$notifications" --reads 0 --concurrency 8 --database-url "$url" > "$work/old.json" 2> "$work/old.err" &
old=$!
# A third of the stream processed: this build's expand steps, the old server still at work.
until [ "$(processed)" -ge $((notifications / 3)) ]; do
  kill -0 "$old" 2>/dev/null || { echo "the previous release's bench ended early" >&2; cat "$work/old.err" >&2; exit 1; }
  sleep 0.2
done
at_expand=$(processed)
start=$(now)
"$NEW_BIN" migrate --expand-only --database-url "$url" > "$work/expand.txt"
expand_seconds=$(echo "$(now) - $start" | bc)
after_expand=$(processed)
old_status=0
wait "$old" || old_status=$?
[ "$old_status" = 0 ] || { echo "the previous release's bench failed ($old_status)" >&2; cat "$work/old.err" >&2; exit 1; }
# Every server replaced: this build serves, then the contract steps.
"$NEW_BIN" bench server --notifications "$notifications" --reads 0 --concurrency 8 --database-url "$url" > "$work/new.json"
"$NEW_BIN" migrate --database-url "$url" > "$work/contract.txt"
"$NEW_BIN" migrate --plan --database-url "$url" > "$work/plan.txt"
python3 - "$work" "$at_expand" "$after_expand" "$expand_seconds" "$notifications" <<'PY'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])
old, new = json.loads((work / "old.json").read_text()), json.loads((work / "new.json").read_text())
print(json.dumps({
    "notifications": int(sys.argv[5]),
    "previousRelease": {"migrate": (work / "old-migrate.txt").read_text().strip(), "failures": old["failures"],
                        "processedPerSecond": old["processedPerSecond"]},
    "expandOnly": {"output": (work / "expand.txt").read_text().strip(), "seconds": round(float(sys.argv[4]), 3),
                   "processedBefore": int(sys.argv[2]), "processedAfter": int(sys.argv[3])},
    "thisBuild": {"failures": new["failures"], "processedPerSecond": new["processedPerSecond"]},
    "contract": (work / "contract.txt").read_text().strip(),
    "planAfter": (work / "plan.txt").read_text().strip().splitlines()[-1],
}, indent=1))
failed = old["failures"] or new["failures"]
sys.exit(1 if failed else 0)
PY
