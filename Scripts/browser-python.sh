#!/usr/bin/env bash
# Creates (once) a throwaway virtual environment with selenium for the dashboard's browser
# tests (Debian's chromium and chromium-driver drive the pages) and prints its interpreter's
# path. Idempotent and safe to run concurrently.
#
#   STOREKEEPER_BROWSER_VENV   where the environment lives (default: .build/browser-venv)
#   SELENIUM_VERSION           the PyPI version to install (default 4.27.1)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
exec bash "$here/Scripts/python-venv.sh" "${STOREKEEPER_BROWSER_VENV:-$here/.build/browser-venv}" \
  "selenium==${SELENIUM_VERSION:-4.27.1}" selenium
