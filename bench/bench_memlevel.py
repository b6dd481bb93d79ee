"""Where the memory-level calls' time goes: per call, the CPU time against whole-array numpy and a CPU-clock profile.

For each memory-level kernel of bench_table.py (`Add`, `Compare`, `Gather`, `ReduceSum` on float32 tensors) at each
size: the best CPU time of a call (`bench_table.timed`), numpy's for the same outputs and their ratio; then, in the
same run, a cProfile of `--calls` calls on the CPU clock (`time.process_time`), its `--top` functions by own time.
With `--case`, the add_high_performance kernel (in order, `--rows` rows of 8192 halves) the same way: the launch's CPU
time against numpy's `x + y`, and one profile of every block's thread (blocks run in threads of their own).
Run: `python bench/bench_memlevel.py [--kernels "Add (memory)" ...] [--sizes 10 20] [--case 4 --rows 512] [--top 12]`.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from typing import Any

import bench_table as bt  # (this script's folder: bench/)
import numpy as np

from vf_examples import add_high_performance as ex


def show(profiles: list[cProfile.Profile], top: int) -> None:
    out = io.StringIO()
    stats = pstats.Stats(profiles[0], stream=out)
    for p in profiles[1:]:
        stats.add(p)
    stats.sort_stats("tottime").print_stats(top)
    body = out.getvalue()
    print(body[body.find("ncalls") :].rstrip())


def memory_level(name: str, log2n: int, calls: int, top: int) -> None:
    k = bt.KERNELS[name](2**log2n, np.random.default_rng(log2n))
    t_sim, t_np = bt.timed(k.sim, 3, 0.05), bt.timed(k.whole, 3, 0.05)
    k.check()
    print(f"\n{name} 2^{log2n}: {t_sim * 1e3:.3f} ms a call, numpy {t_np * 1e3:.3f} ms: {t_sim / t_np:.2f}x")
    profile = cProfile.Profile(time.process_time)
    profile.runcall(lambda: [k.sim() for _ in range(calls)])
    show([profile], top)


def kernel(case: int, rows: int, top: int) -> None:
    rng = np.random.default_rng(0)
    x, y = (rng.uniform(1, 100, [rows, 8192]).astype(np.float16) for _ in range(2))
    split_m, _, length = ex.CASES[case]
    t_np = bt.timed(lambda: x + y, 3, 0.05)
    start = time.process_time()
    ex.run_case(case, x, y, split_m, length)
    t_sim = time.process_time() - start
    print(
        f"\nadd_high_performance case {case}, {rows} x 8192 half, in order: {t_sim:.3f} s CPU, "
        f"numpy {t_np:.4f} s: {t_sim / t_np:.1f}x"
    )
    profiles: list[cProfile.Profile] = []
    body = ex.add_custom.f

    def profiled(*args: Any, **kwargs: Any) -> None:  # (each block's thread: its own profile, on its own CPU clock)
        profiles.append(cProfile.Profile(time.thread_time))
        profiles[-1].runcall(body, *args, **kwargs)

    ex.add_custom.f = profiled
    try:
        ex.run_case(case, x, y, split_m, length)
    finally:
        ex.add_custom.f = body
    show(profiles, top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="*", choices=bt.MEMORY, default=bt.MEMORY, metavar="KERNEL")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20], help="log2 of the element counts (default 10 20)")
    parser.add_argument("--calls", type=int, default=20, help="calls profiled (default 20)")
    parser.add_argument("--case", type=int, default=None, help="an add_high_performance case to profile too (2-6)")
    parser.add_argument("--rows", type=int, default=512, help="its rows of 8192 halves (default 512)")
    parser.add_argument("--top", type=int, default=12, help="functions shown per profile (default 12)")
    args = parser.parse_args()
    for name in args.kernels:
        for log2n in args.sizes:
            memory_level(name, log2n, args.calls, args.top)
    if args.case is not None:
        kernel(args.case, args.rows, args.top)


if __name__ == "__main__":
    main()
