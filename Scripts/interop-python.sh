#!/usr/bin/env bash
# Creates (once) a throwaway virtual environment holding Apple's App Store Server Library for
# Python — the reference verifier the interop tests cross-check against — and prints the path
# of its interpreter on stdout. Idempotent and safe to run concurrently.
#
#   STOREKEEPER_INTEROP_VENV   where the environment lives (default: .build/interop-venv)
#   APPLE_LIBRARY_VERSION      the PyPI version to install (default 3.1.2)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${STOREKEEPER_INTEROP_VENV:-$here/.build/interop-venv}"
version="${APPLE_LIBRARY_VERSION:-3.1.2}"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c "import appstoreserverlibrary" 2>/dev/null; then
  echo "interop: creating $venv with app-store-server-library==$version" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "app-store-server-library==$version" >&2
fi
echo "$venv/bin/python"
