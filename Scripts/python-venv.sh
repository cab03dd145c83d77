#!/usr/bin/env bash
# Creates (once) a throwaway virtual environment holding PyPI requirements and prints the path
# of its interpreter on stdout. Idempotent and safe to run concurrently (a lock per venv). The
# first requirement decides whether the environment exists; each further one is installed into
# an existing environment when its module cannot be imported yet.
#
#   python-venv.sh VENV_DIR REQUIREMENT IMPORT_NAME [REQUIREMENT IMPORT_NAME ...]
set -euo pipefail
venv="$1" requirement="$2" module="$3"
shift 3
mkdir -p "$(dirname "$venv")"
exec 9>"$venv.lock"
flock 9
if ! "$venv/bin/python" -c "import $module" 2>/dev/null; then
  echo "python: creating $venv with $requirement" >&2
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement" >&2
fi
while [ "$#" -ge 2 ]; do
  if ! "$venv/bin/python" -c "import $2" 2>/dev/null; then
    echo "python: adding $1 to $venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$1" >&2
  fi
  shift 2
done
echo "$venv/bin/python"
