"""How long `import regsim` takes, from `python -X importtime` in fresh child processes.

Each run starts a new interpreter with `-X importtime -c "import regsim"` and reads the cumulative time
of `import regsim` it prints (the target), the total of every import it prints (the interpreter's `site`
and the environment's .pth files included: wall time, on a busy machine more than the CPU time) and the
child's CPU time; the best of --runs is kept, and the modules costing most (their own time, best of the runs) are listed.
ml_dtypes (about a second) is loaded when a type of it is first used (regsim/_src/model/lazy.py),
so it should not appear. Bytecode is cached in a temporary directory (a first, untimed run writes
it), as an installed package's is; `--no-bytecode` times compiling every module instead (as with
PYTHONDONTWRITEBYTECODE=1). Run: `python bench/import_time.py [--runs 7] [--no-bytecode] [--top 12]`.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")
TARGET = 0.5  #: seconds (issue 20)


def one_run(env: dict[str, str]) -> tuple[float, float, float, dict[str, float], bool]:
    """(wall seconds of every import, of `import regsim` alone, CPU seconds, module -> own seconds, whether
    ml_dtypes' extension was imported)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import regsim"], env=env, capture_output=True, text=True, check=True
    ).stderr
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    own: dict[str, float] = {}
    total = regsim = 0.0
    for m in LINE.finditer(out):
        own[m.group(4)] = int(m.group(1)) / 1e6
        if not m.group(3).strip(" ") and len(m.group(3)) == 1:  # a top-level import: its cumulative time
            total += int(m.group(2)) / 1e6
        if m.group(4) == "regsim" and len(m.group(3)) == 1:
            regsim = int(m.group(2)) / 1e6
    return total, regsim, cpu, own, "ml_dtypes._ml_dtypes_ext" in own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="child processes timed, best kept (default 7)")
    parser.add_argument("--no-bytecode", action="store_true", help="compile every module (PYTHONDONTWRITEBYTECODE=1)")
    parser.add_argument("--top", type=int, default=12, help="modules listed (default 12)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.no_bytecode:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env["PYTHONPYCACHEPREFIX"] = cache
            one_run(env)  # writes the bytecode
        runs = [one_run(env) for _ in range(args.runs)]
    wall = min(r[0] for r in runs)
    regsim = min(r[1] for r in runs)
    cpu = min(r[2] for r in runs)
    own = {m: min(r[3].get(m, 0.0) for r in runs) for m in runs[0][3]}
    print(f"import regsim ({'compiling every module' if args.no_bytecode else 'bytecode cached'}), best of {args.runs}:")
    verdict = "met" if regsim < TARGET else "NOT met"
    print(f"  `import regsim` (its -X importtime cumulative, wall) {regsim:.3f} s; target {TARGET} s: {verdict}")
    print(f"  every import of the child (site and its .pth files included) {wall:.3f} s wall; the child's CPU {cpu:.3f} s")
    print(f"  ml_dtypes' extension imported: {'yes' if any(r[4] for r in runs) else 'no'}")
    print(f"  modules by own time (best of the runs), top {args.top}:")
    for name, t in sorted(own.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"    {t * 1e3:7.1f} ms  {name}")


if __name__ == "__main__":
    main()
