#!/usr/bin/env python3
"""Counts a piece of code's lines as the guides compare clients: lines that are neither blank nor comments (`//`,
`///`, and `/* … */` blocks, in Swift and in Kotlin alike), so that two clients are counted by one rule.

    scripts/count_lines.py FILE                      the whole file
    scripts/count_lines.py FILE --snippet NAME       the lines between `// snippet: NAME` and `// end snippet`
    scripts/count_lines.py FILE --fence NAME         the code block after `<!-- snippet: NAME -->` in a Markdown file

Prints the count. Run by the tests that check what the guides say of their examples.
"""
import re
import sys


def code_lines(text):
    count, in_block = 0, False
    for line in text.splitlines():
        stripped = line.strip()
        if in_block:
            in_block = "*/" not in stripped
            continue
        if stripped.startswith("/*"):
            in_block = "*/" not in stripped
            continue
        if stripped and not stripped.startswith("//"):
            count += 1
    return count


def main(argv):
    text = open(argv[1], encoding="utf-8").read()
    if len(argv) == 4 and argv[2] == "--snippet":
        match = re.search(rf"// snippet: {re.escape(argv[3])}\n(.*?)\n\s*// end snippet", text, re.S)
    elif len(argv) == 4 and argv[2] == "--fence":
        match = re.search(rf"<!-- snippet: {re.escape(argv[3])} -->\n```\w*\n(.*?)\n```", text, re.S)
    elif len(argv) == 2:
        match = re.match(r"(.*)", text, re.S)
    else:
        sys.exit(__doc__)
    if not match:
        sys.exit(f"count_lines: no such piece in {argv[1]}")
    print(code_lines(match.group(1)))


if __name__ == "__main__":
    main(sys.argv)
