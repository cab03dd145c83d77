#!/usr/bin/env python3
"""Turns a PostgreSQL server log written with `log_statement = all` into a SQL script that
replays the same statements, for Scripts/postgres-floor.sh.

Each `execute <unnamed>: …` entry gets its `DETAIL:  parameters: $1 = '…', …` values put in
place (as quoted literals, which PostgreSQL coerces as it coerced the bound text), and each
session's transactions are written whole, in the order they committed, so that one session
can replay what several did at once.

Usage: postgres-replay.py SERVER_LOG_PART OUTPUT_SQL   (prints the number of statements)
"""
import re
import sys

HEADER = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ \w+ \[(\d+)\] (\w+):  (.*)$")
PARAMETER = re.compile(r"\$(\d+) = (NULL|'(?:[^']|'')*')")


def entries(path):
    """(pid, level, text) per log entry, continuation lines joined."""
    current = None
    with open(path, errors="replace") as log:
        for line in log:
            match = HEADER.match(line)
            if match:
                if current:
                    yield current
                current = [match.group(1), match.group(2), match.group(3)]
            elif current is not None:
                current[2] += "\n" + line.rstrip("\n").lstrip("\t")
    if current:
        yield current


def statements(path):
    """(pid, sql) per executed statement, its parameters in place."""
    waiting = None
    for pid, level, text in entries(path):
        if waiting and level == "DETAIL" and pid == waiting[0] and text.startswith("parameters: "):
            values = {int(number): value for number, value in PARAMETER.findall(text)}
            sql = re.sub(r"\$(\d+)", lambda m: values.get(int(m.group(1)), m.group(0)), waiting[1])
            yield pid, sql
            waiting = None
            continue
        if waiting:
            yield waiting
            waiting = None
        if level == "LOG" and text.startswith("execute "):
            waiting = (pid, text.split(": ", 1)[1])
        elif level == "LOG" and text.startswith("statement: "):
            yield pid, text[len("statement: "):]
    if waiting:
        yield waiting


def main():
    source, output = sys.argv[1], sys.argv[2]
    open_transactions = {}
    written = 0
    with open(output, "w") as out:
        for pid, sql in statements(source):
            text = sql.strip().rstrip(";")
            word = text.split(None, 1)[0].upper() if text else ""
            if word in ("BEGIN", "START"):
                open_transactions[pid] = [text]
            elif pid in open_transactions:
                open_transactions[pid].append(text)
                if word in ("COMMIT", "ROLLBACK", "END"):
                    for statement in open_transactions.pop(pid):
                        out.write(statement + ";\n")
                        written += 1
            else:
                out.write(text + ";\n")
                written += 1
    print(written)


if __name__ == "__main__":
    main()
