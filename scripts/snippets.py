#!/usr/bin/env python3
"""Copies each tested example into the documents that show it.

The README and the DocC articles show Swift examples after a `<!-- snippet: name -->` line; the tests compile and
run the same code between `// snippet: name` and `// end snippet` (ReadmeSnippetTests checks they are equal, word
for word). After changing the tested code, `python3 scripts/snippets.py` rewrites every shown copy from it.
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TESTED = sorted(path for path in glob.glob(os.path.join(ROOT, "Tests", "**", "*.swift"), recursive=True)
                if "/.build/" not in path)
DOCUMENTS = [os.path.join(ROOT, "README.md")] + sorted(
    glob.glob(os.path.join(ROOT, "Documentation", "*.docc", "*.md")))


def dedented(lines):
    indents = [len(l) - len(l.lstrip(" ")) for l in lines if l.strip()]
    cut = min(indents) if indents else 0
    return [l[cut:] for l in lines]


def tested_snippets():
    snippets = {}
    for path in TESTED:
        current = None
        for line in open(path).read().split("\n"):
            stripped = line.strip()
            if current is None:
                match = re.fullmatch(r"// snippet: (\S+)", stripped)
                if match:
                    current = (match.group(1), [])
            elif stripped == "// end snippet":
                snippets[current[0]] = dedented(current[1])
                current = None
            else:
                current[1].append(line)
    return snippets


def main():
    snippets = tested_snippets()
    changed = 0
    for path in DOCUMENTS:
        lines = open(path).read().split("\n")
        out, index = [], 0
        while index < len(lines):
            line = lines[index]
            out.append(line)
            index += 1
            match = re.fullmatch(r"\s*<!-- snippet: (\S+) -->", line)
            if not match or index >= len(lines) or not lines[index].startswith("```swift"):
                continue
            name = match.group(1)
            out.append(lines[index])
            index += 1
            while index < len(lines) and not lines[index].startswith("```"):
                index += 1
            if name not in snippets:
                print(f"{os.path.relpath(path, ROOT)}: no tested snippet '{name}'", file=sys.stderr)
                continue
            out.extend(snippets[name])
        text = "\n".join(out)
        if text != open(path).read():
            open(path, "w").write(text)
            changed += 1
    print(f"{changed} document(s) updated")


if __name__ == "__main__":
    main()
