#!/usr/bin/env python3
"""Every public symbol of the product modules has a doc comment: no exceptions list.

`scripts/check_docs.py DIR` reads the symbol graphs `swift-symbolgraph-extract` wrote under DIR (scripts/docs.sh
makes them) and lists each public symbol without one, with its file and line. Members the compiler synthesises
(`==`, `hash(into:)`, Codable's and RawRepresentable's) carry no source and are not counted.
"""
import glob
import json
import os
import sys


def main():
    directory = sys.argv[1]
    missing, counted = [], 0
    for path in sorted(glob.glob(os.path.join(directory, "**", "*.symbols.json"), recursive=True)):
        graph = json.load(open(path))
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if "::SYNTHESIZED::" in symbol["identifier"]["precise"] or "location" not in symbol:
                continue
            # An `extension` block of another module's type: its members are documented, the block has no page.
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            counted += 1
            if symbol.get("docComment", {}).get("lines"):
                continue
            location = symbol["location"]
            file = location["uri"].split("://", 1)[-1]
            file = os.path.relpath(file) if os.path.isabs(file) else file
            missing.append(f"{file}:{location['position']['line'] + 1}: {'.'.join(symbol['pathComponents'])}")
    for line in sorted(set(missing)):
        print(f"check_docs: no doc comment: {line}", file=sys.stderr)
    if missing:
        print(f"check_docs: {len(set(missing))} of {counted} public symbols have no doc comment", file=sys.stderr)
        return 1
    print(f"check_docs: all {counted} public symbols have a doc comment")
    return 0


if __name__ == "__main__":
    sys.exit(main())
