#!/usr/bin/env bash
# Creates (once) a throwaway virtual environment with selenium for the dashboard's browser
# tests (Debian's chromium and chromium-driver drive the pages) and prints its interpreter's
# path. Idempotent and safe to run concurrently.
#
#   STOREKEEPER_BROWSER_VENV   where the environment lives (default: .build/browser-venv)
#   SELENIUM_VERSION           the PyPI version to install (default 4.27.1)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${STOREKEEPER_BROWSER_VENV:-$here/.build/browser-venv}"
version="${SELENIUM_VERSION:-4.27.1}"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c "import selenium" 2>/dev/null; then
  echo "browser: creating $venv with selenium==$version" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "selenium==$version" >&2
fi
echo "$venv/bin/python"
