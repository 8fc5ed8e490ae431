#!/usr/bin/env python3
"""No reference in the repository points at a file that is not there.

Checks every tracked text file for (1) relative Markdown links, resolved from the file's folder, and (2) paths
into the repository's top-level folders written anywhere (`Tests/Conformance/conformance_server.py`, in a comment, a
doc or a script), resolved from the root, (3) any file in backticks with a folder, from the root or the file's
folder; and that no Markdown file named in capitals (`DESIGN.md`) is cited unless
the repository has one. Run by `make lint`.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT = re.compile(r"\.(swift|md|py|sh|c|h|yml|yaml|json|txt|modulemap)$|(^|/)(Makefile|run)$")
TOP = ("Sources", "Tests", "Benchmarks", "Fuzz", "Demo", "Documentation", "scripts", "image_server", "api", ".ci")
REPOSITORY_PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./+-]*[\w+])" % "|".join(re.escape(t) for t in TOP))
MARKDOWN_LINK = re.compile(r"\]\(([^)\s]+)\)")
# Any file written in backticks with a folder (`notes/urlsession-on-linux.md`): from the root or the file's folder.
BACKTICKED_FILE = re.compile(r"`((?:\.\./)*[\w.-]+/[\w./-]*\.(?:md|swift|py|sh|c|h|json))`")
CAPITAL_DOCUMENT = re.compile(r"(?<![\w/.-])([A-Z][A-Z_]+\.md)\b")
# Strings that look like paths and are not references: a user's folder in an example, a server's version string.
NOT_REFERENCES = {"Tests/Fixtures/posts", "image_server/1.0"}
# Paths that name what a run creates, not what the repository holds.
GENERATED = re.compile(r"(^|/)(\.build|uploads|Crashes)(/|$)|<|\*|\{|\$")


def tracked_files():
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [f for f in out.splitlines() if TEXT.search(f) and os.path.isfile(os.path.join(ROOT, f))]


def main():
    # This script's own documentation shows what it catches.
    files = [f for f in tracked_files() if f != "scripts/check_references.py"]
    capitals = {os.path.basename(f) for f in files if f.endswith(".md")}
    missing = []
    for name in files:
        text = open(os.path.join(ROOT, name), encoding="utf-8", errors="replace").read()
        for number, line in enumerate(text.splitlines(), 1):
            for target in MARKDOWN_LINK.findall(line) if name.endswith(".md") else []:
                if re.match(r"^(https?:|mailto:|#|doc:)", target) or GENERATED.search(target):
                    continue
                path = os.path.normpath(os.path.join(ROOT, os.path.dirname(name), target.split("#")[0]))
                if not os.path.exists(path):
                    missing.append(f"{name}:{number}: link to {target}")
            for target in REPOSITORY_PATH.findall(line):
                target = target.rstrip(".")
                if target in NOT_REFERENCES or GENERATED.search(target) or os.path.exists(os.path.join(ROOT, target)):
                    continue
                # A package's manifest names its folders from its own root (Demo/Package.swift: `Sources/…`).
                if os.path.exists(os.path.join(ROOT, os.path.dirname(name), target)):
                    continue
                missing.append(f"{name}:{number}: {target}")
            for target in BACKTICKED_FILE.findall(line):
                here = os.path.join(ROOT, os.path.dirname(name), target)
                if target in NOT_REFERENCES or GENERATED.search(target):
                    continue
                if not os.path.exists(os.path.join(ROOT, target)) and not os.path.exists(here):
                    missing.append(f"{name}:{number}: {target}")
            for document in CAPITAL_DOCUMENT.findall(line):
                if document not in capitals:
                    missing.append(f"{name}:{number}: {document}")
    for entry in missing:
        print(f"check_references: {entry} does not exist", file=sys.stderr)
    if missing:
        sys.exit(1)
    print(f"check_references: every reference of {len(files)} files points at a file that exists")


if __name__ == "__main__":
    main()
