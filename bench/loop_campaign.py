"""Differential loop campaign: random VF programs (tests/progen.py), each run with
`loops="sequential"` and in the default mode (batched where exact), which must agree bit for bit
(UB bytes, written flags, counters, pointers, errors); with `--cpp`, their C++ twins through
`rs.cpp` in both modes and against the Python twin.

    python bench/loop_campaign.py --seed 0 --n 100000 [--cpp] [--jobs 2] [--minimise 10]

Prints each mismatch's seed and what differs; then minimises up to `--minimise` mismatches (in seed
order, skipping those whose program has every construct of a kind already minimised) and prints
the minimised program of each kind found (the comparison that fails and the constructs the
minimised program still has, leaving out which pointers, scalars and registers it uses); the
`rs.explain` lines that name an error the in-order run never raises; the throughput; and last
`N programs, M mismatches`. Seeds S .. S+N-1 are split in chunks of `--chunk` over `--jobs`
processes; a chunk is a seed range, so any part can be rerun alone with its own `--seed` and
`--n`. Progress goes to stderr, a line a chunk. Exit status 1 when a mismatch was found.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import progen
import progen_check

CPP_FILE = 100  #: programs per C++ file (one libclang parse each)
#: tags of what every program has: not what tells one kind of mismatch from another
PLUMBING = {"load", "store", "load-src", "load-buf", "store-dst", "store-buf", "pointer-forward", "binary", "observe", "loop"}


def _chunk(task: tuple[int, int, bool]) -> tuple[list[tuple[int, str, str]], list[tuple[int, str]]]:
    """Seeds [start, start + n): (seed, signature, report) of each failure, and (seed, note)."""
    start, n, cpp = task
    verdicts: list[progen_check.Verdict] = []
    if cpp:
        for lo in range(start, start + n, CPP_FILE):
            verdicts += progen_check.check_cpp([progen.program(s) for s in range(lo, min(start + n, lo + CPP_FILE))])
    else:
        verdicts = [progen_check.check_python(progen.program(seed)) for seed in range(start, start + n)]
    failures = [(v.program.seed, v.signature(), v.report()) for v in verdicts if v.failed]
    notes = [(v.program.seed, note) for v in verdicts for note in dict.fromkeys(v.notes)]
    return failures, notes


#: tags of how a statement reaches its data (which pointer, which scalar, which register): a minimised
#: program keeps the ones its statements happen to have, so they do not tell kinds apart either
INCIDENTAL = ("pointer-", "load-", "store-", "scalar-", "register-in-", "mask-pattern")


def constructs(p: progen.Program) -> set[str]:
    return {w for t in p.tags() for w in t.split() if w not in PLUMBING}


def core(words: set[str]) -> set[str]:
    return {w for w in words if not w.startswith(INCIDENTAL)}


def _check(p: progen.Program, cpp: bool) -> list[progen_check.Verdict]:
    return progen_check.check_cpp([p]) if cpp else [progen_check.check_python(p)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--seed", type=int, default=0, help="the first program's seed")
    ap.add_argument("--n", type=int, default=1000, help="programs to run")
    ap.add_argument("--cpp", action="store_true", help="run the C++ twins through rs.cpp (both modes, and against Python)")
    ap.add_argument("--jobs", type=int, default=multiprocessing.cpu_count(), help="worker processes")
    ap.add_argument("--chunk", type=int, default=500, help="seeds per task")
    ap.add_argument("--minimise", type=int, default=10, help="mismatches to minimise (in seed order)")
    ap.add_argument("--budget", type=int, default=400, help="runs each minimisation may make")
    ap.add_argument("--quiet", action="store_true", help="one line per mismatch (no report)")
    args = ap.parse_args(argv)

    tasks = [(s, min(args.chunk, args.seed + args.n - s), args.cpp) for s in range(args.seed, args.seed + args.n, args.chunk)]
    t0 = time.perf_counter()
    failures: list[tuple[int, str, str]] = []
    notes: list[tuple[int, str]] = []
    done = 0

    def progress(task: tuple[int, int, bool], part: tuple[list[tuple[int, str, str]], list[tuple[int, str]]]) -> None:
        nonlocal done
        done += task[1]
        failures.extend(part[0])
        notes.extend(part[1])
        rate = done / (time.perf_counter() - t0)
        print(f"{done}/{args.n} programs, {len({s for s, _, _ in failures})} mismatches, {rate:.1f}/s", file=sys.stderr)

    if args.jobs > 1 and len(tasks) > 1:
        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for task, part in zip(tasks, pool.imap(_chunk, tasks), strict=True):
                progress(task, part)
    else:
        for task in tasks:
            progress(task, _chunk(task))
    elapsed = time.perf_counter() - t0

    failures.sort()
    kinds: dict[str, list[int]] = {}
    for seed, sig, report in failures:
        kinds.setdefault(sig, []).append(seed)
        print(f"seed {seed}: {sig}" if args.quiet else report)
    if kinds:
        print(f"\n{len(kinds)} kinds of mismatch (by the comparison that fails):")
        for sig, seeds in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
            print(f"  {len(seeds):6d}  {sig}  (seeds {', '.join(map(str, seeds[:8]))}{', ...' if len(seeds) > 8 else ''})")

    # Minimise in seed order, skipping a mismatch its program already explains: the same comparison
    # failing in a program that has every construct of a kind minimised before (rare kinds first)
    classes: dict[str, list[int]] = {}
    known: list[tuple[str, set[str], str]] = []
    likely: dict[str, list[int]] = {}
    budget = args.minimise
    for seed, sig, _ in failures:
        have = core(constructs(progen.program(seed)))
        match = next((key for ksig, kset, key in known if ksig == sig and kset <= have), None)
        if match is not None:
            likely.setdefault(match, []).append(seed)
            continue
        if budget == 0:
            continue
        budget -= 1
        v = next((v for v in _check(progen.program(seed), args.cpp) if v.signature() == sig), None)
        if v is None:  # (a mismatch that does not repeat: itself a finding)
            print(f"\nseed {seed}: {sig} did not repeat")
            continue
        small = progen_check.shrink(v, args.budget)
        key = f"{sig} | {' '.join(sorted(core(constructs(small))))}"
        classes.setdefault(key, []).append(seed)
        if len(classes[key]) == 1:
            known.append((sig, core(constructs(small)), key))
            print(f"\n=== seed {seed}, minimised: {key} (with {' '.join(sorted(constructs(small) - core(constructs(small))))})")
            print("\n".join(r.report() for r in _check(small, args.cpp) if r.failed))
            print(progen.cpp_source(small) if args.cpp else progen.python_source(small))
    if classes:
        print(
            f"\n{len(classes)} kinds among the minimised mismatches (with the mismatches whose programs have their constructs):"
        )
        for key, seeds in sorted(classes.items(), key=lambda kv: -len(kv[1]) - len(likely.get(kv[0], []))):
            more = likely.get(key, [])
            print(
                f"  {len(seeds):4d} minimised + {len(more):5d} likely  {key}  (seeds {', '.join(map(str, (seeds + more)[:8]))})"
            )
        unexplained = len(failures) - sum(len(v) for v in classes.values()) - sum(len(v) for v in likely.values())
        if unexplained:
            print(f"  {unexplained} mismatches not minimised (raise --minimise)")
    if notes:
        print(f"\n{len({s for s, _ in notes})} programs where rs.explain names an error the in-order run never raises, e.g.:")
        for seed, note in notes[:5]:
            print(f"  seed {seed}: {note}")

    mismatched = len({s for s, _, _ in failures})
    rate = args.n / elapsed if elapsed else 0.0
    print(f"\n{rate:.1f} programs/s ({elapsed:.1f} s, {args.jobs} jobs; {'C++ twins' if args.cpp else 'Python'})")
    print(f"{args.n} programs, {mismatched} mismatches")
    return 1 if mismatched else 0


if __name__ == "__main__":
    sys.exit(main())
