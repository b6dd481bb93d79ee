"""What a failed batched attempt costs: a loop the default mode tries batched, finds dependent and runs in order.

Issue target: a failed attempt costs no more than 10% time and memory over `loops="sequential"`. The kernel is a
float32 load / Add / store loop whose iteration i + 1 loads the register iteration i stored (`rs.explain`: "an
iteration reads UB bytes another iteration writes"): the attempt runs the body batched, its hazard check fails, what
it changed is restored and the loop runs in order. A loop site keeps its verdict per static signature of the VF's
locals, so only a signature's first run pays the attempt; the kernel takes an unused int (`salt`, held by value in
that signature) that each timed call changes, so every call here pays it. For each trip count it prints the time of
the default mode (attempt, then in order) over `loops="sequential"` (CPU time, best of --runs samples taken in turn as
bench_small_loops takes them) and the two runs' peak memory (tracemalloc), after checking both give the same bytes.
Run: `python bench/bench_failed_attempt.py [--trips 16 64 256 1024] [--runs 7]`.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import tracemalloc
from collections.abc import Callable

import numpy as np
from bench_small_loops import best_of

import regsim as rs
from regsim import Reg

LANES = 64  #: float32 lanes in one 256-byte register


@rs.simd_vf
def carried_vf(p: rs.UbPtr[rs.float32], n: int, salt: int) -> None:
    """p[i + 1] = 2 * p[i], a register an iteration: each iteration reads what the one before stored."""
    x = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    for i in range(n):
        Reg.LoadAlign(x, p + i * LANES)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + (i + 1) * LANES, x, m)


def peak(f: Callable[[], None]) -> int:
    """The peak bytes allocated during one call of `f` (the collector off: no collection falls inside one run and not
    the other)."""
    gc.collect()
    gc.disable()
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trips", type=int, nargs="+", default=[16, 64, 256, 1024], help="loop trip counts")
    parser.add_argument("--runs", type=int, default=7, help="samples of each timing, best kept (default 7)")
    args = parser.parse_args()
    salts = itertools.count()
    print(f"{'trips':>5}  {'time default/seq':>16}  {'default':>9}  {'sequential':>10}  {'peak default/seq':>16}")
    worst_time = worst_memory = 0.0
    for trips in args.trips:
        ub = rs.UnifiedBuffer(-(-(trips + 1) * LANES * 4 // 1024) * 1024)
        t = ub.alloc(rs.float32, (trips + 1) * LANES)
        start = np.random.default_rng(trips).uniform(-1, 1, (trips + 1) * LANES).astype(np.float32)
        p = t.GetPhyAddr()

        def default(p: rs.UbPtr[rs.float32] = p, trips: int = trips) -> None:
            carried_vf(p, trips, next(salts))  # (a new signature: its attempt made again)

        def sequential(p: rs.UbPtr[rs.float32] = p, trips: int = trips) -> None:
            with rs.configure(loops="sequential"):
                carried_vf(p, trips, 0)

        outs = []
        for f in (default, sequential):
            t.set(start)
            f()
            outs.append(t.numpy().copy())
        assert np.array_equal(outs[0], outs[1]), "the default and sequential modes disagree"
        why = rs.explain(carried_vf, p, trips, -1)
        assert "another iteration writes" in why, f"the attempt did not fail as expected: {why}"
        t.set(start)  # (the values double each call; float32 reaches inf, which changes nothing timed)
        t_default, t_seq = best_of([default, sequential], args.runs, 0.02)
        m_default, m_seq = peak(default), peak(sequential)
        worst_time, worst_memory = max(worst_time, t_default / t_seq), max(worst_memory, m_default / m_seq)
        print(
            f"{trips:>5}  {t_default / t_seq:>15.2f}x  {t_default * 1e6:>7.0f}us  {t_seq * 1e6:>8.0f}us"
            f"  {m_default / m_seq:>15.2f}x  ({m_default // 1024} KiB / {m_seq // 1024} KiB)",
            flush=True,
        )
    ok = "met" if worst_time <= 1.10 and worst_memory <= 1.10 else "NOT met"
    print(f"\nworst: time {worst_time:.2f}x, peak memory {worst_memory:.2f}x (target: at most 1.10x each: {ok})")


if __name__ == "__main__":
    main()
