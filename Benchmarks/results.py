#!/usr/bin/env python3
"""The figures `make bench` printed, beside the last recorded ones (Benchmarks/recorded-results.txt).

  results.py compare RUN          prints every RESULT of RUN (a file of `make bench`'s output) beside its recorded
                                  value, marks each that moved by more than the noise recorded for it, and fails when a
                                  recorded RESULT is missing from RUN
  results.py record RUN [RUN...]  records the figures of one or more runs: for each RESULT the median of the runs, and
                                  its noise, the range the runs spanned (at least 2 % of the value, or 0.05 for a
                                  figure under 2.5 — one run's range of a ratio understates the next run's)

Recording is a change made on purpose: commit the file with a message that says why the figures moved.
"""
import statistics
import subprocess
import sys
from datetime import date
from pathlib import Path

RECORDED = Path(__file__).resolve().parent / "recorded-results.txt"


def results_of(path):
    """The RESULT lines of one run, name → value, in the order printed."""
    figures = {}
    for line in Path(path).read_text().splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[0] == "RESULT":
            try:
                figures[fields[1]] = float(fields[2])
            except ValueError:
                pass
    return figures


def recorded():
    """name → (value, noise), and the header's comment lines."""
    figures, header = {}, []
    for line in RECORDED.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            header.append(line)
            continue
        name, value, noise = line.split()
        figures[name] = (float(value), float(noise))
    return figures, header


def compare(run):
    now = results_of(run)
    if not RECORDED.exists():
        print(f"No figures recorded yet ({RECORDED.name}): record this run's with `results.py record {run}`")
        return 0
    before, header = recorded()
    print("\n".join(line for line in header if line.startswith("# recorded")))
    print(f"{'RESULT':<56}{'recorded':>12}{'now':>12}{'noise':>10}")
    moved = []
    for name, (value, noise) in before.items():
        if name not in now:
            print(f"{name:<56}{value:>12g}{'MISSING':>12}{noise:>10g}")
            continue
        mark = ""
        if abs(now[name] - value) > noise:
            mark = "  moved ↑" if now[name] > value else "  moved ↓"
            moved.append(name)
        print(f"{name:<56}{value:>12g}{now[name]:>12g}{noise:>10g}{mark}")
    new = [name for name in now if name not in before]
    for name in new:
        print(f"{name:<56}{'new':>12}{now[name]:>12g}")
    missing = [name for name in before if name not in now]
    print(f"\n{len(moved)} moved beyond their noise: {', '.join(moved) or 'none'}")
    if new:
        print(f"{len(new)} not recorded yet: {', '.join(new)}")
    if missing:
        print(f"MISSING from this run: {', '.join(missing)}")
        return 1
    return 0


def record(runs):
    figures = [results_of(run) for run in runs]
    names = [name for name in figures[0] if all(name in run for run in figures)]
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    lines = [
        "# The figures of `make bench`, recorded on purpose (Benchmarks/results.py record): each RESULT's median over",
        "# the runs recorded, and its noise — the range those runs spanned, at least 2 % of the value (0.05 for a figure",
        "# under 2.5). `make bench` marks every RESULT that moved by more than its noise since.",
        f"# recorded {date.today().isoformat()} at {commit}, from {len(runs)} run(s)",
    ]
    for name in names:
        values = [run[name] for run in figures]
        value = statistics.median(values)
        floor = 0.05 if abs(value) < 2.5 else 0.02 * abs(value)
        noise = max(max(values) - min(values), floor)
        lines.append(f"{name} {value:g} {noise:.3g}")
    RECORDED.write_text("\n".join(lines) + "\n")
    print(f"recorded {len(names)} figures in {RECORDED}")
    return 0


def main(arguments):
    if len(arguments) == 2 and arguments[0] == "compare":
        return compare(arguments[1])
    if len(arguments) >= 2 and arguments[0] == "record":
        return record(arguments[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
