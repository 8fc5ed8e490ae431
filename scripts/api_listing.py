#!/usr/bin/env python3
"""A module's public API as text, one declaration per line, from the symbol graphs in DIR: what `api/*.txt`
records (scripts/api.sh) so that a review shows every change to it.

Each line is the symbol's path and its declaration, e.g.
`RestingClient.perform(_:) — func perform<RequestType, ResponseType>(…) -> ProgressablePromise<…>`.
"""
import glob
import json
import os
import sys


def main():
    lines = set()
    for path in glob.glob(os.path.join(sys.argv[1], "*.symbols.json")):
        graph = json.load(open(path))
        extended = os.path.basename(path).split("@")[1].split(".")[0] if "@" in os.path.basename(path) else None
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            name = ".".join(symbol["pathComponents"])
            if extended:
                name = f"{extended}.{name}"
            lines.add(f"{name} — {' '.join(declaration.split())}")
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()
