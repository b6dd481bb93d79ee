"""The add_high_performance kernel's multi-core cases (2-6) on 8192 x 8192 half inputs, against whole-array numpy.

Each case runs as main() launches it (`vf_examples/add_high_performance.py`: 64 cores, the 950's dataCopyLen),
in order (`rs.launch`, the default) and in worker processes (`workers=`, default 2), and numpy adds the same
arrays (`x + y`) in the same run, alternately; every run's z is checked against numpy's. Printed per run: the
wall time and the CPU time (this process's and its workers'), each as a ratio to numpy's (the best of `--runs`
of each, so a busy machine disturbs the figures less; the CPU ratio is the steadier one). The targets: an
in-order run within 5x of numpy; worker processes no slower (in wall time) than the in-order run on 2 cores.

Run: `python bench/bench_kernels.py [--cases 2 3 4 5 6] [--workers 2] [--rows 8192] [--runs 1]`.
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from vf_examples import add_high_performance as ex


def _cpu() -> float:
    """CPU seconds of this process and of its finished children (the worker processes)."""
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + child.ru_utime + child.ru_stime


def best(runs: int, f: Callable[[], Any]) -> tuple[float, float, Any]:
    """The least wall and the least CPU time of `runs` calls of `f`, and what the last call returned."""
    walls, cpus = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), _cpu()
        out = f()
        walls.append(time.perf_counter() - w)
        cpus.append(_cpu() - c)
    return min(walls), min(cpus), out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[2, 3, 4, 5, 6], help="the cases to run (default 2-6)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the parallel run (default 2; 0: none)")
    parser.add_argument("--rows", type=int, default=8192, help="rows of the 8192-column inputs (default 8192)")
    parser.add_argument("--runs", type=int, default=1, help="runs of each, the best kept (default 1)")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.uniform(1, 100, [args.rows, 8192]).astype(np.float16)
    y = rng.uniform(1, 100, [args.rows, 8192]).astype(np.float16)
    golden = x + y
    print(f"{x.shape[0]} x {x.shape[1]} half, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    for case in args.cases:
        split_m, _, length = ex.CASES[case]
        for workers in (None, args.workers) if args.workers else (None,):
            base_wall, base_cpu, _ = best(max(args.runs, 3), lambda: x + y)
            wall, cpu, z = best(args.runs, functools.partial(ex.run_case, case, x, y, split_m, length, workers=workers))
            ok = np.array_equal(z.view(np.uint16), golden.view(np.uint16))
            how = "in order" if workers is None else f"{workers} workers"
            print(
                f"case {case} ({split_m} cores, dataCopyLen {length}), {how}: wall {wall:.2f} s = {wall / base_wall:.1f}x numpy "
                f"({base_wall:.2f} s), CPU {cpu:.2f} s = {cpu / base_cpu:.1f}x numpy ({base_cpu:.2f} s){'' if ok else '  WRONG'}"
            )


if __name__ == "__main__":
    main()
