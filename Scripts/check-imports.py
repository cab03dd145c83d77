#!/usr/bin/env python3
"""Every module a target imports is one it declares in Package.swift.

SwiftPM's `--explicit-target-dependency-import-check=error` reports nothing on Linux with the
native build system (and the swiftbuild one crashes on this toolchain), so this script does the
check itself: for each target of the root package, the modules its sources import must be the
target itself, a target it depends on, a module of a product it depends on, or one of the
toolchain's own modules. A module that only arrives through another dependency builds today and
breaks the day that dependency stops importing it.

It also keeps the server's rooms in one direction (docs/ARCHITECTURE.md): each of ROOMS may
depend on the rooms before it in the list and never on one after it, so a change to how Slack is
written (StorekeeperEventsOut) cannot reach the inbox (StorekeeperInbox).

Usage: python3 Scripts/check-imports.py   (from the repository's root, after a resolve or build)
Exit 0 when every import is declared, 1 with one line per undeclared import otherwise.
"""
import json
import os
import re
import subprocess
import sys

# The toolchain's modules: always there, never declared.
TOOLCHAIN = {
    "Swift", "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "CoreFoundation", "Dispatch", "Glibc", "Musl", "Bionic", "Android", "Darwin", "WinSDK",
    "XCTest", "Testing", "Synchronization", "Observation", "RegexBuilder", "Distributed", "_Concurrency",
    "_StringProcessing", "os", "ucrt", "CRT", "SwiftShims",
    # Apple's SDKs, imported under `#if canImport(...)` by the iOS SDK's sources.
    "Security", "StoreKit", "UIKit", "AppKit", "Combine", "Network", "SwiftUI", "CryptoKit",
}

# Imports that cannot be declared, each with its reason.
UNDECLARABLE = {
    ("StorekeeperStore", "VaporCSQLite"): "sqlite-nio's vendored SQLite is a target of that package, not a product "
    "(DirectSQLiteConnection drives that SQLite through its C interface, so its connections and SQLiteNIO's share one library)",
}

# The server's rooms, lowest first: a room depends only on rooms before it.
ROOMS = [
    "StorekeeperApps", "StorekeeperInbox", "StorekeeperEventsOut", "StorekeeperJobs", "StorekeeperHTTP", "StorekeeperDashboard",
    "StorekeeperServer",
]

IMPORT = re.compile(
    r"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?"
    r"import\s+(?:(?:class|struct|enum|protocol|func|var|let|typealias)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def dump(path):
    out = subprocess.run(["swift", "package", "dump-package", "--package-path", path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def dependency_paths():
    out = subprocess.run(["swift", "package", "show-dependencies", "--format", "json"], check=True, capture_output=True, text=True)
    paths = {}

    def walk(node):
        for child in node.get("dependencies", []):
            paths[child["identity"].lower()] = child["path"]
            walk(child)

    walk(json.loads(out.stdout))
    return paths


def product_modules():
    """(package identity, product name) -> the modules the product's targets build."""
    modules = {}
    for identity, path in dependency_paths().items():
        package = dump(path)
        for product in package.get("products", []):
            modules[(identity, product["name"])] = set(product.get("targets", []))
    return modules


def imports(directory):
    """module -> the first file:line that imports it, for every .swift file under `directory`
    (lines inside multi-line string literals, such as the Python scripts some tests run, are not
    Swift)."""
    found = {}
    for root, _, files in os.walk(directory):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(root, name)
            in_string = False
            with open(path, encoding="utf-8") as source:
                for number, line in enumerate(source, 1):
                    if not in_string:
                        match = IMPORT.match(line)
                        if match:
                            found.setdefault(match.group(1), f"{path}:{number}")
                    if line.count('"""') % 2 == 1:
                        in_string = not in_string
    return found


def main():
    root = dump(".")
    products = product_modules()
    own_targets = {target["name"] for target in root["targets"]}
    problems = []
    for target in root["targets"]:
        if target["type"] in ("system", "binary", "plugin"):
            continue
        declared = {target["name"]}
        for dependency in target.get("dependencies", []):
            kind, value = next(iter(dependency.items()))
            if kind in ("byName", "target"):
                name = value[0]
                declared.add(name)
                if name not in own_targets:  # a product named like its package's target
                    for (_, product), modules in products.items():
                        if product == name:
                            declared |= modules
            elif kind == "product":
                name, package = value[0], (value[1] or value[0]).lower()
                declared |= products.get((package, name), {name})
        if target["name"] in ROOMS:
            for name in declared & set(ROOMS[ROOMS.index(target["name"]) + 1 :]):
                problems.append(f"Package.swift: the room {target['name']} depends on {name}, a room above it (see ROOMS)")
        default = "Tests" if target["type"] == "test" else "Sources"
        directory = target.get("path") or os.path.join(default, target["name"])
        for module, where in sorted(imports(directory).items()):
            if module not in declared and module not in TOOLCHAIN and (target["name"], module) not in UNDECLARABLE:
                problems.append(f"{where}: {target['name']} imports {module} without declaring it in Package.swift")
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-imports: {len(problems)} undeclared import(s)", file=sys.stderr)
        return 1
    print(f"check-imports: every import of {len(root['targets'])} targets is declared")
    return 0


if __name__ == "__main__":
    sys.exit(main())
