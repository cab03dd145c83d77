#!/usr/bin/env python3
"""What a Storekeeper database holds, by table (its rows and indexes), per notification and per
subscription-year, split into what is kept for good and what retention removes (docs/server.md,
"Tables that grow"). For BENCHMARKS.md (#36).

    storekeeper demo --check --customers 1000 --days 365 --drop-rate 0 --duplicate-rate 0 --data-dir /tmp/year
    python3 Scripts/disk-budget.py /tmp/year/data/storekeeper.sqlite
    storekeeper demo --check … --database-url postgres://…/year       # an empty database
    python3 Scripts/disk-budget.py postgres://…/year                  # needs psql; VACUUM FULL-free sizes

A subscription-year is a year of one subscription's paid or trial service, summed over the
runs of the read side's figures (`figure_runs`, the group of all subscriptions) up to the last notification
received; the notifications are the inbox's processed rows.
"""

import json
import sqlite3
import subprocess
import sys

# Tables retention empties of old rows (RetentionTable), and the inbox's rejected and
# duplicate rows (inbox.retentionDays); every other table is kept for good.
PRUNED = {
    "events": "retention.eventsDays",
    "event_deliveries": "retention.deliveriesDays",
    "delivery_attempts": "retention.deliveryAttemptsDays",
    "notification_bodies": "retention.inboxBodiesDays",
    "audit_log": "retention.auditDays",
}
YEAR_MS = 365.25 * 86_400_000


def sqlite_tables(path):
    """Tables with their rows and bytes (their own and their indexes'), the processed
    notifications, and the last receipt (ms), of a SQLite file."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    owner = {name: table for name, table in db.execute("SELECT name, tbl_name FROM sqlite_master WHERE type IN ('table', 'index')")}
    tables = {}
    for name, size in db.execute("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"):
        tables.setdefault(owner.get(name, name), {"rows": 0, "bytes": 0})["bytes"] += size
    for table in tables:
        if table in owner.values() and not table.startswith("sqlite_"):
            tables[table]["rows"] = db.execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0]
    return tables, lambda sql, *args: db.execute(sql, args).fetchone()[0]


def postgres_tables(url):
    """The same of a PostgreSQL database, through psql (tables with their TOAST and indexes)."""
    def query(sql, *args):
        for arg in args:
            sql = sql.replace("?", str(int(arg)), 1)
        out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-d", url, "-c", sql], check=True, capture_output=True, text=True)
        return out.stdout.strip()
    rows = query(
        "SELECT json_object_agg(relname, json_build_object('rows', n_live_tup, 'bytes', pg_total_relation_size(relid))) "
        "FROM pg_stat_user_tables")
    tables = json.loads(rows)
    for table in tables:
        tables[table]["rows"] = int(query(f'SELECT COUNT(*) FROM "{table}"'))
    return tables, lambda sql, *args: float(query(sql, *args) or 0)


def main(path):
    tables, value = postgres_tables(path) if path.startswith("postgres") else sqlite_tables(path)
    notifications = int(value("SELECT COUNT(*) FROM notification_inbox WHERE state = 'processed'"))
    end = int(value("SELECT MAX(received_at) FROM notification_inbox"))
    years = value(
        "SELECT SUM(LEAST(COALESCE(until_ms, ?), ?) - from_ms) FROM figure_runs WHERE grp = '' AND from_ms < ?"
        if path.startswith("postgres") else
        "SELECT SUM(MIN(COALESCE(until_ms, ?), ?) - from_ms) FROM figure_runs WHERE grp = '' AND from_ms < ?",
        end, end, end) / YEAR_MS
    total = sum(t["bytes"] for t in tables.values())
    pruned = sum(t["bytes"] for name, t in tables.items() if name in PRUNED)
    for name, entry in tables.items():
        entry["perNotification"] = round(entry["bytes"] / notifications)
        entry["perSubscriptionYear"] = round(entry["bytes"] / years)
        entry["retention"] = PRUNED.get(name, "kept")
    print(json.dumps({
        "notifications": notifications,
        "subscriptionYears": round(years, 1),
        "notificationsPerSubscriptionYear": round(notifications / years, 2),
        "bytes": total,
        "bytesPerNotification": round(total / notifications),
        "bytesPerSubscriptionYear": round(total / years),
        "keptBytesPerSubscriptionYear": round((total - pruned) / years),
        "prunedBytesPerNotification": round(pruned / notifications),
        "tables": dict(sorted(tables.items(), key=lambda item: -item[1]["bytes"])),
    }, indent=1))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
