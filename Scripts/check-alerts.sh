#!/usr/bin/env bash
# Checks the operator's alerts and dashboard (docs/alerts.md):
#   - promtool check rules deploy/prometheus/alerts.yml (syntax, PromQL, templates);
#   - promtool test rules deploy/prometheus/alerts.test.yml (series in, the expected alerts out);
#   - deploy/grafana/storekeeper.json parses, names its datasource input, and every panel's
#     expr names only metrics the server exports (the names a fresh server's /metrics shows,
#     as the Swift test AlertMetricsTests checks against a running server; here against the
#     metric names in Sources/).
# promtool comes from Debian's `prometheus` package, installed with apt-get when missing (as
# root). Run from anywhere: bash Scripts/check-alerts.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v promtool >/dev/null; then
  echo "== installing promtool (Debian's prometheus package)"
  [ "$(id -u)" = 0 ] || { echo "promtool is not installed and we are not root: apt-get install prometheus" >&2; exit 1; }
  apt-get update -qq >/dev/null
  # The package's service is not wanted here: only its promtool binary.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
echo "== $(promtool --version 2>&1 | head -1)"

promtool check rules deploy/prometheus/alerts.yml
promtool test rules deploy/prometheus/alerts.test.yml

python3 - <<'PY'
import json, re, sys
from pathlib import Path

# Every metric name the server's code registers (labels of Counter, Gauge, Timer, and the
# histogram name constant), with a histogram's exported suffixes.
sources = "\n".join(p.read_text() for p in Path("Sources").rglob("*.swift"))
registered = set(re.findall(r'"(storekeeper_[a-z0-9_]+)"', sources))
histograms = set(re.findall(r'Timer\(label: "(storekeeper_[a-z0-9_]+)"', sources))
histograms |= set(re.findall(r'static let processingDelay = "(storekeeper_[a-z0-9_]+)"', sources))
exported = registered | {h + s for h in histograms for s in ("_bucket", "_sum", "_count")}

problems = []
def check(where, text):
    for name in set(re.findall(r"storekeeper_[a-z0-9_]+", text)):
        if name not in exported:
            problems.append(f"{where}: {name} is not a metric the server exports")

for rule_text in [Path("deploy/prometheus/alerts.yml").read_text()]:
    for match in re.finditer(r"expr: (\|\n(?:[ ]{10,}.*\n)+|.*)", rule_text):
        check("alerts.yml", match.group(1))

try:
    dashboard = json.loads(Path("deploy/grafana/storekeeper.json").read_text())
except json.JSONDecodeError as error:
    sys.exit(f"deploy/grafana/storekeeper.json does not parse: {error}")
if not any(i.get("name") == "DS_PROMETHEUS" for i in dashboard.get("__inputs", [])):
    problems.append("storekeeper.json: no DS_PROMETHEUS datasource input")
panels = [p for p in dashboard.get("panels", []) if p.get("type") != "row"]
exprs = 0
for panel in panels:
    if not panel.get("targets"):
        problems.append(f"storekeeper.json: panel {panel.get('title')!r} has no query")
    for target in panel.get("targets", []):
        exprs += 1
        check(f"storekeeper.json panel {panel.get('title')!r}", target.get("expr", ""))
for variable in dashboard.get("templating", {}).get("list", []):
    check(f"storekeeper.json variable {variable.get('name')!r}", json.dumps(variable.get("query", "")))
if problems:
    sys.exit("\n".join(sorted(problems)))
print(f"storekeeper.json: {len(panels)} panels, {exprs} queries, every metric exported")
PY
