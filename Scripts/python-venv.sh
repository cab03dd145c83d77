#!/usr/bin/env bash
# Creates (once) a throwaway virtual environment holding one PyPI requirement and prints the
# path of its interpreter on stdout. Idempotent and safe to run concurrently (a lock per venv).
#
#   python-venv.sh VENV_DIR REQUIREMENT IMPORT_NAME
set -euo pipefail
venv="$1" requirement="$2" module="$3"
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c "import $module" 2>/dev/null; then
  echo "python: creating $venv with $requirement" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement" >&2
fi
echo "$venv/bin/python"
