"""Does a memory-level call cost more in a larger UB? `AscendC::Add` on 1,024 float32 elements, its three tensors
at the start of a 248 KiB UB (the 950's) and of a 64 MiB one, in each loop mode, and numpy's `x + y` of the same
arrays in the same run.

A call's price should depend on the elements it computes, not on the UB's size: the ratio large / small should
be about 1. Times are CPU time, the garbage collector off (bench_table.py's `timed`): each the best of --runs
samples, a sample repeating the call until it lasts --sample seconds.

Run: `python bench/bench_ub_size.py [--n 1024] [--sizes 253952 67108864] [--runs 5] [--sample 0.2]`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from bench_table import timed

import regsim as rs

A = rs.AscendC


def add_call(ub_size: int, n: int) -> Callable[[], None]:
    """`Add(z, x, y, n)` on float32 tensors at the start of a UB of `ub_size` bytes, its inputs set."""
    ub = rs.UnifiedBuffer(ub_size)
    x, y, z = (ub.alloc(rs.float32, n) for _ in range(3))
    rng = np.random.default_rng(0)
    x.set(rng.uniform(-1, 1, n).astype(np.float32))
    y.set(rng.uniform(-1, 1, n).astype(np.float32))
    return lambda: A.Add(z, x, y, n)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1024, help="elements added (default 1024)")
    parser.add_argument("--sizes", type=int, nargs=2, default=[248 * 1024, 64 * 2**20], help="the small and the large UB, bytes")
    parser.add_argument("--runs", type=int, default=5, help="samples, best kept (default 5)")
    parser.add_argument("--sample", type=float, default=0.2, help="seconds a sample lasts at least (default 0.2)")
    args = parser.parse_args()
    small, large = args.sizes
    rng = np.random.default_rng(1)
    a, b = (rng.uniform(-1, 1, args.n).astype(np.float32) for _ in range(2))
    t_numpy = timed(lambda: a + b, args.runs, args.sample)
    print(f"Add of {args.n} float32, CPU time a call (numpy x + y: {t_numpy * 1e6:.1f} us)")
    for mode in ("auto", "sequential"):
        times = {}
        for size in (small, large):
            call = add_call(size, args.n)
            with rs.configure(loops=mode):
                times[size] = timed(call, args.runs, args.sample)
            t = times[size]
            print(f"  loops={mode:<10} UB {size / 1024:>8.0f} KiB: {t * 1e6:9.1f} us = {t / t_numpy:7.1f}x numpy")
        print(f"  loops={mode:<10} large / small UB: {times[large] / times[small]:.2f}x")


if __name__ == "__main__":
    main()
