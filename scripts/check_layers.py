#!/usr/bin/env python3
"""The package's boundaries, proven: which module may import which, and RestingCore's floors.

Modules. Every library target's sources import only the targets it declares in Package.swift (SwiftPM builds every
module into one folder, so an undeclared import of a module built anyway would compile), and the declarations keep
the arrows of the Architecture article: the core imports no capability and no transport; a capability imports the
core and only what it declares, never a transport; a transport imports no capability.

Floors. RestingCore's folders are floors: each may use only the floors below it. For every floor, the files of that
floor and the floors below are type-checked alone, so a reference to anything above fails to resolve. The script
also derives which folder uses which (from the names each folder declares) and checks that the tables in the README
and in Documentation/RestingCore.docc/Architecture.md between the markers `<!-- floors:begin -->` and
`<!-- floors:end -->` say exactly that; `--print` prints the table to paste.

Run by `make test` after the build (it needs RestingMultipart's module in .build/debug/Modules; CZlib's module map is
in its sources).
"""
import collections
import concurrent.futures
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "Sources", "RestingCore")
# Where the table of floors is shown.
DOCUMENTS = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "Documentation", "RestingCore.docc", "Architecture.md")]


def package_name():
    """The `-package-name` SwiftPM compiled with (`package` declarations of RestingMultipart need the same)."""
    with open(os.path.join(ROOT, ".build", "debug.yaml")) as plan:
        match = re.search(r'"-package-name","([^"]+)"', plan.read())
    return match.group(1) if match else os.path.basename(ROOT).lower()


# Bottom to top, with what each floor is for (the README table's second column).
FLOORS = [
    ("Support", "a lock, a clock, duration units, string trimming: no HTTP in sight"),
    ("Encoding", "percent-encoding, query strings, JSON values"),
    ("HTTP", "the vocabulary: requests, headers, methods, bodies, responses, errors, redaction, an upgrade handed over"),
    ("Transport", "the transport seam, and what only transports use: deadlines, rate floor, download writer, limits"),
    ("Events", "call events: listeners, a bounded buffer, the per-call reporter, the seam observing an exchange"),
    ("Storage", "files that survive a crash"),
    ("Promise", "the progressable promise every call returns"),
    ("Response", "how a response body becomes the endpoint's type"),
    ("Request", "endpoints, path templates, providers, the request converter"),
    ("Pipeline", "the interceptor protocol and the chain"),
    ("Interceptors", "the interceptors we ship"),
    ("Client", "RestingClient and a call's owner: its stages in order, its endings (decoded, streamed)"),
    ("Download", "downloads to disk with resume"),
]

DECLARATION = re.compile(
    r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated)\s+)*"
    r"(?:struct|class|enum|protocol|actor|typealias|func)\s+([A-Za-z_]\w*)",
    re.M,
)
IDENTIFIER = re.compile(r"\b[A-Za-z_]\w*\b")


def swift_files(folder):
    found = []
    for directory, _, names in os.walk(os.path.join(CORE, folder)):
        found += [os.path.join(directory, n) for n in names if n.endswith(".swift")]
    return sorted(found)


def without_comments_and_strings(source):
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    source = re.sub(r"//[^\n]*", "", source)
    source = re.sub(r'"""(.*?)"""', '""', source, flags=re.S)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', source)


def uses_table():
    """Which lower floors each floor names, from the top-level declarations of every floor."""
    texts = {f: [without_comments_and_strings(open(p).read()) for p in swift_files(f)] for f, _ in FLOORS}
    owner = {}
    for folder, sources in texts.items():
        for text in sources:
            for name in DECLARATION.findall(text):
                owner.setdefault(name, folder)
    uses = collections.OrderedDict()
    for folder, sources in texts.items():
        named = {owner[t] for text in sources for t in IDENTIFIER.findall(text) if t in owner}
        uses[folder] = [f for f, _ in FLOORS if f in named and f != folder]
    return uses


def render_table(uses):
    rows = ["| Floor | For | Uses |", "|---|---|---|"]
    for folder, purpose in reversed(FLOORS):
        rows.append(f"| `{folder}/` | {purpose} | {', '.join(uses[folder]) or '—'} |")
    return "\n".join(rows)


def typecheck(floor_index):
    """Compiler diagnostics for the floors up to `floor_index` alone ('' when they type-check)."""
    files = [p for folder, _ in FLOORS[: floor_index + 1] for p in swift_files(folder)]
    command = [
        "swiftc", "-typecheck", "-parse-as-library", "-swift-version", "6", "-module-name", "RestingCore",
        "-package-name", package_name(), "-I", os.path.join(ROOT, ".build", "debug", "Modules"),
        "-I", os.path.join(ROOT, "Sources", "CZlib", "include"),
    ] + files
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode == 0:
        return ""
    errors = [line for line in result.stderr.splitlines() if ": error:" in line]
    return "\n".join(errors[:10]) or result.stderr[-2000:]


# The capability modules (Sources/<name>): each plugs into the call through the core's seams.
CAPABILITIES = {
    "RestingStreaming", "RestingWebSocket", "RestingResilience", "RestingCache", "RestingCookies", "RestingOffline",
    "RestingPagination", "RestingJSONRPC", "RestingAuthentication", "RestingLogging",
}
TRANSPORTS = {"RestingURLSession", "RestingCurl"}
# What a transport may import beside the core: the authoring kit, the connection options it honours, and the
# WebSocket vocabulary of a transport that speaks WebSocket itself.
TRANSPORT_VOCABULARY = {"RestingTransportKit", "RestingConnections", "RestingWebSocketCore"}
# Modules of the toolchain and the platform any target may import.
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Synchronization", "Observation", "Dispatch",
    "Glibc", "Musl", "Darwin", "os", "XCTest", "Testing", "_Concurrency", "CryptoKit", "Security",
}
IMPORT = re.compile(r"^\s*(?:@[\w]+(?:\([^)]*\))?\s+)*import\s+(?:(?:struct|class|enum|protocol|func|typealias)\s+)?(\w+)", re.M)


def module_failures():
    """What breaks the module arrows, from Package.swift's declarations and the sources' imports."""
    dump = json.loads(subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, capture_output=True, text=True,
                                     check=True).stdout)
    targets = {t["name"]: t for t in dump["targets"]}
    failures = []
    for name, target in sorted(targets.items()):
        path = target.get("path") or f"Sources/{name}"
        if target["type"] not in ("regular", "system-target") or not path.startswith("Sources/"):
            continue
        declared = set()
        for dependency in target.get("dependencies", []):
            kind, value = next(iter(dependency.items()))
            # byName / target: [name, condition]; product: [name, package, moduleAliases, condition]
            declared.add(value[0])
        folder = os.path.join(ROOT, path)
        for directory, _, names in os.walk(folder):
            for file in (n for n in names if n.endswith(".swift")):
                source = os.path.join(directory, file)
                for imported in IMPORT.findall(without_comments_and_strings(open(source).read())):
                    if imported not in declared | SYSTEM and imported != name:
                        failures.append(
                            f"{os.path.relpath(source, ROOT)} imports {imported}, which {name} does not declare")
        if name == "RestingCore" and declared & (CAPABILITIES | TRANSPORTS):
            failures.append(f"RestingCore depends on {', '.join(sorted(declared & (CAPABILITIES | TRANSPORTS)))}")
        if name in CAPABILITIES and declared & TRANSPORTS:
            failures.append(f"{name}, a capability, depends on a transport: {', '.join(sorted(declared & TRANSPORTS))}")
        if name in TRANSPORTS | TRANSPORT_VOCABULARY and declared & CAPABILITIES:
            failures.append(f"{name} depends on a capability: {', '.join(sorted(declared & CAPABILITIES))}")
        if path != f"Sources/{name}":
            failures.append(f"{name} lives in {path}: a module's folder is named after it")
    missing = CAPABILITIES - set(targets)
    failures += [f"{name} is named a capability here but is no target" for name in sorted(missing)]
    return failures


def main():
    failures = module_failures()
    listed = {folder for folder, _ in FLOORS}
    present = {d for d in os.listdir(CORE) if os.path.isdir(os.path.join(CORE, d))}
    for folder in sorted(present - listed):
        failures.append(f"Sources/RestingCore/{folder}/ is on no floor: add it to FLOORS in scripts/check_layers.py")
    for folder in sorted(listed - present):
        failures.append(f"FLOORS names Sources/RestingCore/{folder}/, which does not exist")

    table = render_table(uses_table())
    if "--print" in sys.argv:
        print(table)
        return 0
    for folder, used in uses_table().items():
        above = [u for u in used if [f for f, _ in FLOORS].index(u) > [f for f, _ in FLOORS].index(folder)]
        if above:
            failures.append(f"{folder}/ names {', '.join(above)}, a floor above it")

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for index, errors in enumerate(pool.map(typecheck, range(len(FLOORS)))):
            if errors:
                failures.append(f"{FLOORS[index][0]}/ and the floors below do not compile alone:\n{errors}")

    for document in DOCUMENTS:
        name = os.path.relpath(document, ROOT)
        match = re.search(r"<!-- floors:begin -->\n(.*?)\n<!-- floors:end -->", open(document).read(), re.S)
        if not match:
            failures.append(f"{name} has no <!-- floors:begin --> … <!-- floors:end --> table")
        elif match.group(1).strip() != table:
            failures.append(f"{name}'s floors table is out of date; run scripts/check_layers.py --print:\n{table}")

    for failure in failures:
        print(f"check_layers: {failure}", file=sys.stderr)
    if not failures:
        print(f"check_layers: {len(CAPABILITIES)} capability modules around RestingCore, each importing only what it "
              f"declares; {len(FLOORS)} floors of RestingCore, each compiles with only the floors below it")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
