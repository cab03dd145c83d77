#!/usr/bin/env bash
# Fails when a build log holds a compiler warning in the project's own code (Sources/, Tests/).
# Warnings in dependencies (.build/checkouts) and SwiftPM's notes about them are not ours.
#
# Usage: bash Scripts/check-warnings.sh BUILD-LOG   (CI passes the log of `swift test`)
set -euo pipefail
cd "$(dirname "$0")/.."
log="${1:?usage: check-warnings.sh BUILD-LOG}"
root="$(pwd -P)"
warnings="$(grep -E "^(${root}|\.)?/?(Sources|Tests)/[^:]+:[0-9]+(:[0-9]+)?: warning:" "$log" | sort -u || true)"
if [ -n "$warnings" ]; then
  echo "$warnings"
  echo "check-warnings: $(echo "$warnings" | wc -l) compiler warning(s) in the project's code; the project builds with none" >&2
  exit 1
fi
echo "check-warnings: no compiler warning in Sources/ or Tests/"
