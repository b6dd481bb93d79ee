"""The add_high_performance kernel's multi-core cases (2-6) on 8192 x 8192 half inputs, against whole-array numpy.

Each case runs as main() launches it (`vf_examples/add_high_performance.py`: 64 cores, the 950's dataCopyLen),
in order (`rs.launch`, the default) and in worker processes (`workers=`, default 2), and numpy adds the same
arrays (`x + y`) in the same run; every run's z is checked against numpy's. The ratio printed is the kernel's
time over numpy's: the target is an in-order run within 5x of numpy, and worker processes no slower than the
in-order run on 2 cores. `--clock cpu` times this process's CPU time (in order only: the workers' time is
another process's), steadier on a busy machine.

Run: `python bench/bench_kernels.py [--cases 2 3 4 5 6] [--workers 2] [--rows 8192] [--clock wall]`.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np

from vf_examples import add_high_performance as ex

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[2, 3, 4, 5, 6], help="the cases to run (default 2-6)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the parallel run (default 2; 0: none)")
    parser.add_argument("--rows", type=int, default=8192, help="rows of the 8192-column inputs (default 8192)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall time (default) or CPU time")
    args = parser.parse_args()
    clock = CLOCKS[args.clock]
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 100, [args.rows, 8192]).astype(np.float16)
    y = rng.uniform(1, 100, [args.rows, 8192]).astype(np.float16)
    start = clock()
    golden = x + y
    base = clock() - start
    print(f"numpy x + y, {x.shape[0]} x {x.shape[1]} half: {base:.3f} s ({os.cpu_count()} CPUs)")
    for case in args.cases:
        split_m, _, length = ex.CASES[case]
        for workers in (None, args.workers or None) if args.workers else (None,):
            start = clock()
            z = ex.run_case(case, x, y, split_m, length, workers=workers)
            took = clock() - start
            ok = np.array_equal(z.view(np.uint16), golden.view(np.uint16))
            how = "in order" if workers is None else f"{workers} workers"
            verdict = "" if ok else "  WRONG"
            print(f"case {case} ({split_m} cores, dataCopyLen {length}), {how}: {took:.3f} s = {took / base:.2f}x numpy{verdict}")


if __name__ == "__main__":
    main()
