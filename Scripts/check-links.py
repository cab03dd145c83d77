#!/usr/bin/env python3
"""Fails when a relative link or `#anchor` in the repository's Markdown points nowhere: the
README's reference moved to docs/, and a moved heading must not leave a dead link behind.

    python3 Scripts/check-links.py          # every tracked *.md file outside .build and fixtures
    python3 Scripts/check-links.py FILE...  # just these
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def slugs(path):
    """The anchors GitHub makes of a file's headings (lower case, punctuation dropped, spaces
    to `-`, a repeated heading numbered)."""
    found, seen, in_code = set(), {}, False
    for line in path.read_text(encoding="utf-8").split("\n"):
        if line.startswith("```"):
            in_code = not in_code
            continue
        match = None if in_code else re.match(r"^(#{1,6})\s+(.*)$", line)
        if match:
            slug = re.sub(r"[^\w\- ]", "", match.group(2).strip().lower()).replace(" ", "-")
            number = seen.get(slug, 0)
            seen[slug] = number + 1
            found.add(slug if number == 0 else f"{slug}-{number}")
    return found


def markdown_files():
    skipped = (".build", "Fixtures", "fixtures", ".git")
    return sorted(p for p in ROOT.rglob("*.md") if not any(part in skipped for part in p.relative_to(ROOT).parts))


def main():
    files = [pathlib.Path(a).resolve() for a in sys.argv[1:]] or markdown_files()
    broken = checked = 0
    for path in files:
        text = path.read_text(encoding="utf-8")
        text = re.sub(r"```.*?```", "", text, flags=re.S)  # code blocks hold no links
        text = re.sub(r"`[^`\n]*`", "", text)  # nor do code spans
        for match in re.finditer(r"!?\[[^\]]*\]\(([^)\s]+)\)", text):
            target = match.group(1)
            if re.match(r"^[a-z]+:", target):  # https:, mailto:
                continue
            checked += 1
            file_part, _, anchor = target.partition("#")
            destination = (path.parent / file_part).resolve() if file_part else path
            if not destination.exists() or (anchor and destination.is_file() and anchor not in slugs(destination)):
                print(f"{path.relative_to(ROOT)}: error: broken link {target}", file=sys.stderr)
                broken += 1
    print(f"{checked} relative links in {len(files)} Markdown files, {broken} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
