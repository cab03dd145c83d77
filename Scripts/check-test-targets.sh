#!/usr/bin/env bash
# Fails when a folder under Tests/ is not a target Package.swift declares (a suite that no
# target builds never runs), then prints how many tests each test target holds.
#
#   bash Scripts/check-test-targets.sh          # the check, then the counts (needs a build)
#   bash Scripts/check-test-targets.sh --check  # the check alone
set -euo pipefail
cd "$(dirname "$0")/.."
declared="$(swift package dump-package | python3 -c '
import json, sys
package = json.load(sys.stdin)
for target in package["targets"]:
    path = target.get("path") or ("Tests/" + target["name"] if target["type"] == "test" else "Sources/" + target["name"])
    print(path.rstrip("/"))
')"
missing=0
for folder in Tests/*/; do
  folder="${folder%/}"
  if ! grep -qx "$folder" <<<"$declared"; then
    echo "error: $folder is not a declared target in Package.swift: its tests never run" >&2
    missing=1
  fi
done
[ "$missing" -eq 0 ] || exit 1
echo "every folder under Tests/ is a declared target"
[ "${1:-}" = "--check" ] && exit 0
echo "tests per target:"
swift test list --skip-build 2>/dev/null | awk -F. '{ print $1 }' | sort | uniq -c | awk '{ printf "  %-28s %5d\n", $2, $1; total += $1 } END { printf "  %-28s %5d\n", "total", total }'
