#!/usr/bin/env python3
"""One home per primitive: fails when the project's code (Sources/) rebuilds a primitive that
has a home.

- base64url (swapping the base64 alphabet's `+/` and `-_` by hand) lives in
  Sources/AppStoreJOSE/Base64URL.swift (`Base64URL`);
- a JWS header (`"alg"` written as a key) lives in Sources/AppStoreJOSE (`JWSHeader`, signed by
  `ES256Signer` or `CompactJWSSigner`);
- an event name (`"subscription.renewed"`) lives in `EventType` (the engine's transitions in
  `Transition.Kind`, which `EventType` takes its names from).

Comments are not code and are skipped. Tests may decode tokens their own way on purpose: a
test that reads a signed token with the codec under test proves less than one that does not.

    python3 Scripts/check-primitives.py
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
RULES = [
    (
        "base64url by hand: use AppStoreJOSE's Base64URL",
        re.compile(r'replacingOccurrences\(of:\s*"(\+|/|-|_)",\s*with:\s*"(\+|/|-|_)"\)'),
        "Sources/AppStoreJOSE/",
    ),
    (
        "an event name spelled out: use its EventType constant (Sources/StorekeeperStore/Values/EventType.swift)",
        re.compile(r'"(subscription|trial|purchase|entitlement|notification|grant|revoke|refund|consumption|problem|experiment|test)\.[a-z_]+[":]'),
        (
            "Sources/StorekeeperStore/Values/EventType.swift",
            "Sources/SubscriptionEngine/Events/SubscriptionTransitions.swift",
            # Audit actions are a vocabulary of their own (`AuditAction`), some with dotted names.
            "Sources/StorekeeperStore/Records/AuditEntry.swift",
        ),
    ),
    (
        "a JWS header by hand: use AppStoreJOSE's JWSHeader",
        re.compile(r'"alg"\s*[:\]]|\\"alg\\"'),
        "Sources/AppStoreJOSE/",
    ),
]


def code_lines(path):
    """The file's lines with their numbers, comment lines and trailing `//` comments removed."""
    in_block = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        stripped = line.strip()
        if in_block:
            if "*/" in stripped:
                in_block = False
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("//"):
            continue
        yield number, line


def main():
    failures = 0
    for path in sorted((ROOT / "Sources").rglob("*.swift")):
        relative = path.relative_to(ROOT).as_posix()
        for number, line in code_lines(path):
            for message, pattern, home in RULES:
                homes = (home,) if isinstance(home, str) else home
                if not relative.startswith(homes) and pattern.search(line):
                    print(f"{relative}:{number}: error: {message}\n    {line.strip()}", file=sys.stderr)
                    failures += 1
    if failures:
        print(f"{failures} primitive(s) rebuilt outside their home", file=sys.stderr)
        return 1
    print("every primitive is used from its home (base64url, JWS headers, event names)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
