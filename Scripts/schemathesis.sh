#!/usr/bin/env bash
# Checks the running server against its own OpenAPI document with schemathesis (from PyPI):
# every generated request, valid or not, must get a documented answer and never a 5xx.
#
#   STOREKEEPER_BIN        the storekeeper binary (default: the debug build)
#   SCHEMATHESIS_EXAMPLES  examples per operation (default 40)
set -euo pipefail
cd "$(dirname "$0")/.."
bin="${STOREKEEPER_BIN:-$(swift build --show-bin-path)/storekeeper}"
venv=.build/schemathesis-venv
if ! "$venv/bin/st" --version >/dev/null 2>&1; then
  echo "schemathesis: creating $venv" >&2
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check schemathesis >&2
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/storekeeper-schemathesis.XXXXXX")"
pid=""
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
cat > "$work/config.json" <<'EOF'
{"apps": [{
  "id": "demo", "bundleId": "com.example.demo", "environments": ["Sandbox"],
  "sharedSecret": "schemathesis-shared-secret",
  "apiKeys": [{"key": "schemathesis-app-key-0123456789", "role": "app"},
              {"key": "schemathesis-admin-key-0123456789", "role": "admin"}],
  "products": [{"productId": "com.example.demo.monthly", "type": "autoRenewable",
                "subscriptionGroupIdentifier": "pro", "entitlements": ["pro"]}]
}]}
EOF
# Pin the app to the configured one so requests reach the handlers instead of 404ing.
cat > "$work/schemathesis.toml" <<'EOF'
[parameters]
"path.appId" = "demo"
EOF
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
"$bin" serve --config "$work/config.json" --data-dir "$work/data" --port "$port" > "$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 60); do
  curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1 && break
  sleep 0.5
done
curl -sf "http://127.0.0.1:$port/health" >/dev/null || { cat "$work/server.log" >&2; echo "server did not start" >&2; exit 1; }

"$venv/bin/st" --config-file "$work/schemathesis.toml" run "http://127.0.0.1:$port/openapi.json" \
  --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
  --header "Authorization: Bearer schemathesis-admin-key-0123456789" \
  --max-examples "${SCHEMATHESIS_EXAMPLES:-40}" --workers 1 --seed 20261122 --request-timeout 10
