"""What one call of each kernel API a tile of the add_high_performance kernel makes costs, against numpy's `x + y` of
the tile's halves in the same run: where an in-order kernel's time goes per tile.

One block runs, `--calls` times each: a SetFlag / WaitFlag pair, a `PipeBarrier<PIPE_ALL>`, `gm[offset]`, a GM -> UB
and a UB -> GM `DataCopy` of `--length` halves (each followed by a PIPE_ALL barrier, so the copies do not race), and
the memory-level `Add` of `--length` halves. Printed: the CPU time of a call in microseconds and as a ratio to numpy's
(the best of `--runs` rounds). A tile of the kernel's cases 2-6 is three DataCopys, one Add and four flag pairs.

Run: `python bench/bench_kernel_calls.py [--length 4096] [--calls 2000] [--runs 3]`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import regsim as rs

A = rs.AscendC
HE = A.HardEvent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=4096, help="halves a copy or an Add moves (default 4096)")
    parser.add_argument("--calls", type=int, default=2000, help="calls of each timed (default 2000)")
    parser.add_argument("--runs", type=int, default=3, help="rounds, the best kept (default 3)")
    args = parser.parse_args()
    n, calls = args.length, args.calls
    best: dict[str, float] = {}

    def timed(name: str, f: Callable[[], object]) -> None:
        t = time.process_time()
        for _ in range(calls):
            f()
        best[name] = min(best.get(name, float("inf")), (time.process_time() - t) / calls)

    @rs.kernel
    def k(x: rs.GmPtr[rs.half], z: rs.GmPtr[rs.half]) -> None:
        xg, zg = A.GlobalTensor(rs.half), A.GlobalTensor(rs.half)
        xg.SetGlobalBuffer(x, n)
        zg.SetGlobalBuffer(z, n)
        a, b, c = (A.LocalTensor(rs.half, A.TPosition.VECCALC, i * 2 * n, n) for i in range(3))
        A.DataCopy(b, xg, n)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

        def pair() -> None:
            A.SetFlag(A.EVENT_ID0, event=HE.V_MTE2)
            A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE2)

        def copy_in() -> None:
            A.DataCopy(a, xg[0], n)
            A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

        def copy_out() -> None:
            A.DataCopy(zg[0], c, n)
            A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

        timed("SetFlag + WaitFlag", pair)
        timed("PipeBarrier<PIPE_ALL>", lambda: A.PipeBarrier(pipe=A.PIPE.PIPE_ALL))
        timed("gm[offset]", lambda: xg[0])
        timed("DataCopy GM -> UB + barrier", copy_in)
        timed("Add", lambda: A.Add(c, a, b, n))
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        timed("DataCopy UB -> GM + barrier", copy_out)

    x = np.random.default_rng(0).uniform(1, 100, n).astype(np.float16)
    for _ in range(args.runs):
        rs.launch(k, 1, x, np.zeros_like(x))
        timed("numpy x + y", lambda: x + x)
    base = best["numpy x + y"]
    print(f"{n} halves a call, {calls} calls, best of {args.runs} (CPU time)")
    for name, t in best.items():
        print(f"{name:28s} {t * 1e6:8.1f} us  {t / base:6.2f}x numpy")


if __name__ == "__main__":
    main()
