#!/usr/bin/env bash
# The main job on a fresh machine: build Storekeeper, make a throwaway test CA shaped like
# Apple's, sign a V2 notification with it, verify it the way Apple's library does, show a
# forgery being refused, decode a real App Store receipt offline, compute a subscription's
# state, and measure verification throughput.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== building (release; a first build takes several minutes)"
swift build -c release --product storekeeper 2>&1 | tail -n 1
bin="$(swift build -c release --show-bin-path)/storekeeper"
work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-quickstart.XXXXXX")"
trap 'rm -rf "$work"' EXIT
fixtures=Tests/StorekeeperCLITests/Fixtures
step() { printf '\n== %s\n$ %s\n' "$1" "${*:2}"; "${@:2}"; }

printf '\n== sign a SUBSCRIBED notification with a new test CA\n'
"$bin" jws sign --ca "$work/ca" --type notification --bundle-id com.example.app --environment Sandbox --app-apple-id 1234 > "$work/notification.jws"
echo "$(wc -c < "$work/notification.jws") bytes of compact JWS"
step "verify it, nested transaction and renewal info included" \
  "$bin" jws verify "$work/notification.jws" --type notification --root "$work/ca/root.der" --bundle-id com.example.app --environment Sandbox --pretty
"$bin" jws sign --ca "$work/ca" --type transaction --bundle-id com.example.app --forge expired-leaf > "$work/forged.jws"
printf '\n== a transaction signed by an expired leaf is refused (exit code 1)\n'
"$bin" jws verify "$work/forged.jws" --type transaction --root "$work/ca/root.der" --bundle-id com.example.app --environment Sandbox || echo "exit code $?"
printf '\n== decode a real sandbox app receipt offline, answering like Apple'"'"'s verifyReceipt\n'
"$bin" receipt decode "$fixtures/revenuecat-sandbox-sample1-2020.receipt" --bundle-id com.revenuecat.sampleapp > "$work/receipt.json"
head -c 400 "$work/receipt.json"; echo " …"
step "the subscription's state a second before and after its last period ends" \
  "$bin" status "$fixtures/revenuecat-verifyReceiptSample1.json" --catalog "$fixtures/catalog.json" --at 2020-07-22T18:39:05Z --compact
"$bin" status "$fixtures/revenuecat-verifyReceiptSample1.json" --catalog "$fixtures/catalog.json" --at 2020-07-22T18:39:07Z --compact
for i in $(seq 1 20); do "$bin" jws sign --ca "$work/ca" --type transaction --bundle-id com.example.app; done > "$work/transactions.jws"
step "JWS verifications per second (1 thread, then 2)" \
  "$bin" bench jws "$work/transactions.jws" --type transaction --root "$work/ca/root.der" --bundle-id com.example.app --environment Sandbox
"$bin" bench jws "$work/transactions.jws" --type transaction --root "$work/ca/root.der" --bundle-id com.example.app --environment Sandbox --threads 2
