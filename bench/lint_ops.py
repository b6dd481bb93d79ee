"""The lint over the operator libraries' 950 kernels: `rs.lint` of every file of `*/op_kernel/arch35/*` (the include
tree the libraries' build gives it, as bench/cpp_ops_inventory.py lays it out), the findings counted by rule, and
the files the lint could not read (a parse error of the whole file) by cause.

Run: `python bench/lint_ops.py ROOT... [--jobs N] [--limit N] [--show N]` with ROOT an ops-math or ops-nn checkout;
`--limit` lints every N-th file only (a sample), `--show` prints that many findings of each rule.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import sys
import tempfile
import time
from pathlib import Path

from cpp_ops_inventory import _SCOPE, files, layout

import regsim as rs
from regsim.cpp import CppError


def lint_file(item: tuple[Path, Path, Path]) -> tuple[str, list[rs.Finding], str]:
    """(the file, its findings, why it could not be linted or "")."""
    path, root, tree = item
    args = (*_SCOPE, f"-I{root / 'common' / 'inc'}", f"-I{tree / 'a'}", f"-I{tree / 'a' / 'b'}")
    rel = str(path.relative_to(root.parent))
    try:
        found = rs.lint(path, args=args)
    except CppError as e:
        return rel, [], str(e).replace(str(path), path.name).split("\n")[0][:120]
    except Exception as e:  # a crash of one file is a row, not the end of the run
        return rel, [], f"internal error: {type(e).__name__}: {e}"
    here = str(path)
    return rel, [f for f in found if f.file == here], ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("roots", nargs="+", help="ops-math / ops-nn checkouts")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--limit", type=int, default=1, help="lint every N-th file (default: all)")
    ap.add_argument("--show", type=int, default=2, help="findings printed per rule")
    a = ap.parse_args()
    t0 = time.perf_counter()
    results = []
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ProcessPoolExecutor(a.jobs) as pool:
        trees = {r: layout(Path(r), Path(tmp) / str(i)) for i, r in enumerate(a.roots)}
        work = [(p, Path(r), trees[r]) for r in a.roots for p in files(Path(r))][:: a.limit]
        results = list(pool.map(lint_file, work, chunksize=4))
    read = [r for r in results if not r[2]]
    found = [f for _, fs, _ in read for f in fs]
    print(f"{len(results)} files, {len(read)} linted ({len(results) - len(read)} not readable), "
          f"{len(found)} findings in {sum(1 for r in read if r[1])} files; {time.perf_counter() - t0:.0f} s")  # fmt: skip
    by_rule = collections.Counter(f.rule for f in found)
    print("rule | findings | files")
    for rule, n in by_rule.most_common():
        print(f"{rule} | {n} | {len({f.file for f in found if f.rule == rule})}")
    for rule in by_rule:
        for f in [f for f in found if f.rule == rule][: a.show]:
            print(f"  {f.where.split('/op_kernel/')[-1]}: [{rule}] {f.message[:150]}")
    causes = collections.Counter(r[2][:100] for r in results if r[2])
    if causes:
        print("not readable | files | first")
        for c, n in causes.most_common(10):
            print(f"{n:5} | {c} | {next(r[0] for r in results if r[2].startswith(c))}")


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    main()
