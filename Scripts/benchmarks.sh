#!/usr/bin/env bash
# Measures Storekeeper's hot paths next to same-run baselines, for BENCHMARKS.md:
#   JWS verification (1 and 2 threads) vs Apple's Python library and `openssl speed ecdsap256`;
#   receipt validation vs `openssl speed rsa2048`; the engine's state computations.
# Needs a release build (`swift build -c release`), python3 with PyPI access (or
# STOREKEEPER_PYTHON) and openssl.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(swift build -c release --show-bin-path)/storekeeper"
[ -x "$bin" ] || { echo "build first: swift build -c release --product storekeeper" >&2; exit 2; }
python="${STOREKEEPER_PYTHON:-$(bash Scripts/interop-python.sh)}"
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT
seconds="${BENCH_SECONDS:-5}"

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "swift: $(swift --version 2>&1 | head -1)"
echo "openssl: $(openssl version)"
echo "apple library: $("$python" -c 'import importlib.metadata as m; print(m.version("app-store-server-library"))')"

# 20 realistic transactions signed by a test CA shaped like Apple's (P-384 root and
# intermediate, P-256 leaf), as Apple's real JWS are.
for _ in $(seq 1 20); do
  "$bin" jws sign --ca "$work/ca" --type transaction --bundle-id com.example.app --environment Sandbox 2>/dev/null
done > "$work/transactions.jws"
verify=(--type transaction --root "$work/ca/root.der" --bundle-id com.example.app --environment Sandbox --seconds "$seconds")

echo
echo "== ECDSA P-256 (openssl speed, 1 core)"
openssl speed -seconds "$seconds" ecdsap256 2>/dev/null | grep -E '^ *256 bits ecdsa'
echo "== JWS transaction verification, Apple's Python library (1 thread)"
"$python" Scripts/bench-apple-python.py "$work/transactions.jws" "$work/ca/root.der" com.example.app Sandbox "$seconds"
echo "== JWS transaction verification, storekeeper bench jws (1 thread)"
"$bin" bench jws "$work/transactions.jws" "${verify[@]}" --threads 1
echo "== JWS transaction verification, storekeeper bench jws (2 threads)"
"$bin" bench jws "$work/transactions.jws" "${verify[@]}" --threads 2
echo "== ECDSA P-256 again (openssl speed, 1 core), to bracket the run"
openssl speed -seconds "$seconds" ecdsap256 2>/dev/null | grep -E '^ *256 bits ecdsa'

echo
echo "== RSA 2048 (openssl speed, 1 core)"
openssl speed -seconds "$seconds" rsa2048 2>/dev/null | grep -E '^rsa 2048 bits'
for receipt in tpinappreceipt-production-2024 revenuecat-sandbox-sample1-2020; do
  echo "== receipt validation + decoding, storekeeper bench receipt ($receipt)"
  "$bin" bench receipt "Tests/AppStoreVerificationTests/Fixtures/receipts/$receipt.receipt" --seconds "$seconds"
done

echo
echo "== subscription engine, storekeeper bench engine (1 and 2 threads)"
"$bin" bench engine --seconds "$seconds"
"$bin" bench engine --seconds "$seconds" --threads 2

echo
echo "== server: notifications ingested and status reads (SQLite in a temporary data dir)"
"$bin" bench server --notifications "${BENCH_NOTIFICATIONS:-3000}" --reads "${BENCH_READS:-5000}" --concurrency 8
if [ -n "${BENCH_POSTGRES_URL:-}" ]; then
  echo "== server: the same on PostgreSQL"
  "$bin" bench server --notifications "${BENCH_NOTIFICATIONS:-3000}" --reads "${BENCH_READS:-5000}" --concurrency 8 \
    --database-url "$BENCH_POSTGRES_URL"
fi

# A seeded population and the server over it (slow: 1,000,000 subscriptions take about half an
# hour to seed on SQLite), only when asked: BENCH_SCALE_SUBSCRIPTIONS=1000000.
if [ -n "${BENCH_SCALE_SUBSCRIPTIONS:-}" ]; then
  echo
  echo "== scale: storekeeper bench seed --subscriptions $BENCH_SCALE_SUBSCRIPTIONS --measure (SQLite)"
  "$bin" bench seed --subscriptions "$BENCH_SCALE_SUBSCRIPTIONS" --data-dir "$work/scale-sqlite" --measure
  if [ -n "${BENCH_POSTGRES_URL:-}" ]; then
    echo "== scale: the same on PostgreSQL (an empty database)"
    "$bin" bench seed --subscriptions "$BENCH_SCALE_SUBSCRIPTIONS" --data-dir "$work/scale-postgres" --database-url "$BENCH_POSTGRES_URL" --measure
  fi
fi
