"""What a failed batched attempt costs: a loop the default mode tries batched, finds dependent and runs in order.

Issue target: a failed attempt costs no more than 10% time and memory over `loops="sequential"`. The kernel is a
float32 load / Add / store loop whose iteration i + 1 loads the register iteration i stored (`rs.explain`: "an
iteration reads UB bytes another iteration writes"). Its loads and stores are plain ones at affine addresses, so a
run's first attempt judges their rows when the loop starts and runs it in order before any batched op
(docs/decisions/loops.md#up-front-hazards; a loop whose addresses are not known up front attempts batched, stops at
the store whose rows meet a later load, restores what it changed and runs in order). The loop's site then predicts
the hazard for its next runs (docs/decisions/loops.md#hazard-prediction): they run in order without an attempt, 1
run, then 2, 4, ... up to 32 after each attempt that finds it again. For each trip count it prints, each against
`loops="sequential"`:

- the single attempt: a site's first run. Each timed call comes after `forget_hazards()` (every loop site forgets the
  hazards its attempts found, one counter bumped: the call judges the addresses and runs in order, as a first run
  does).
  Its time, and its peak memory.
- the amortised cost: --repeat runs in a row from a fresh site (the attempts and the runs the prediction sends in
  order), their time per run; and the peak memory of a run the prediction sends in order.

CPU time, best of --runs samples taken in turn as bench_small_loops takes them, each side of a ratio paying one
`rs.configure` a call (or a row of calls), about 2 us; peak memory by tracemalloc, the collector off during the call.
The tensor fills its UB, so no write journal (kept while some UB byte was never written) grows across calls (its
list's reallocations fell in one run's peak and not another's). Both modes are checked to give the same bytes first.
With --unjudged, the same loop with the store's offset a name the body assigns (`k = (i + 1) * LANES`): its addresses
are not known up front, so its first run attempts batched and fails at the store.
Run: `python bench/bench_failed_attempt.py [--trips 16 64 256 1024] [--runs 7] [--repeat 256] [--unjudged]`.
"""

from __future__ import annotations

import argparse
import gc
import tracemalloc
from collections.abc import Callable

import numpy as np
from bench_small_loops import best_of

import regsim as rs
from regsim import Reg
from regsim._src.vf.loops import forget_hazards

LANES = 64  #: float32 lanes in one 256-byte register


@rs.simd_vf
def carried_vf(p: rs.UbPtr[rs.float32], n: int) -> None:
    """p[i + 1] = 2 * p[i], a register an iteration: each iteration reads what the one before stored."""
    x = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    for i in range(n):
        Reg.LoadAlign(x, p + i * LANES)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + (i + 1) * LANES, x, m)


@rs.simd_vf
def unjudged_vf(p: rs.UbPtr[rs.float32], n: int) -> None:
    """`carried_vf` with the store's offset a name the body assigns: not judged up front, its first run attempts."""
    x = Reg.RegTensor(rs.float32)
    m = Reg.CreateMask(rs.float32)
    for i in range(n):
        k = (i + 1) * LANES
        Reg.LoadAlign(x, p + i * LANES)
        Reg.Add(x, x, x, m)
        Reg.StoreAlign(p + k, x, m)


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
    parser.add_argument("--repeat", type=int, default=256, help="runs in a row for the amortised cost (default 256)")
    parser.add_argument("--unjudged", action="store_true", help="the loop whose addresses are not judged up front")
    args = parser.parse_args()
    kernel = unjudged_vf if args.unjudged else carried_vf
    repeat = args.repeat
    print(f"{'':5}  {'the single attempt (a first run) / sequential':^47}  {f'{repeat} runs in a row / sequential':^34}")
    print(f"{'trips':>5}  {'time':>6}  {'first':>7}  {'seq':>7}  {'peak':>6} {'(KiB / KiB)':>15}", end="")
    print(f"  {'time':>6}  {'a run':>7}  {'peak':>6}")
    worst = [0.0, 0.0, 0.0, 0.0]
    for trips in args.trips:
        ub = rs.UnifiedBuffer(-(-(trips + 1) * LANES * 4 // 1024) * 1024)
        t = ub.alloc(rs.float32, ub.size // 4)  # (the whole UB: every byte written)
        start = np.random.default_rng(trips).uniform(-1, 1, ub.size // 4).astype(np.float32)
        p = t.GetPhyAddr()

        def default(p: rs.UbPtr[rs.float32] = p, trips: int = trips) -> None:
            kernel(p, trips)

        def first() -> None:
            forget_hazards()
            with rs.configure(loops="auto"):  # (as `sequential` pays its configure)
                default()

        def sequential() -> None:
            with rs.configure(loops="sequential"):
                default()

        def in_a_row() -> None:
            forget_hazards()
            with rs.configure(loops="auto"):
                for _ in range(repeat):
                    default()

        def sequential_in_a_row() -> None:
            with rs.configure(loops="sequential"):
                for _ in range(repeat):
                    default()

        outs = []
        for f in (first, sequential):
            t.set(start)
            f()
            outs.append(t.numpy().copy())
        assert np.array_equal(outs[0], outs[1]), "the default and sequential modes disagree"
        forget_hazards()
        why = rs.explain(kernel, p, trips)
        assert "another iteration writes" in why and "so the next run goes in order" in why, why
        why = rs.explain(kernel, p, trips)  # (the run after it: in order by prediction, measured below)
        assert "in order without a batched attempt" in why, why
        t.set(start)  # (the values double each call; float32 reaches inf, which changes nothing timed)
        t_first, t_seq, t_row, t_seq_row = best_of([first, sequential, in_a_row, sequential_in_a_row], args.runs, 0.02)
        m_first, m_seq = peak(first), peak(sequential)
        m_predicted = peak(default)  # (after `first`'s attempt: in order by prediction)
        ratios = [t_first / t_seq, m_first / m_seq, t_row / t_seq_row, m_predicted / m_seq]
        worst = [max(w, r) for w, r in zip(worst, ratios, strict=True)]
        print(
            f"{trips:>5}  {ratios[0]:>5.2f}x  {t_first * 1e6:>5.0f}us  {t_seq * 1e6:>5.0f}us  {ratios[1]:>5.2f}x"
            f" {f'({m_first // 1024} / {m_seq // 1024})':>15}  {ratios[2]:>5.2f}x  {t_row / repeat * 1e6:>5.0f}us"
            f"  {ratios[3]:>5.2f}x",
            flush=True,
        )

    def verdict(time: float, memory: float) -> str:
        return f"time {time:.2f}x, peak memory {memory:.2f}x ({'met' if time <= 1.10 and memory <= 1.10 else 'NOT met'})"

    print(f"\nworst, the target at most 1.10x each: a single attempt {verdict(worst[0], worst[1])};")
    print(f"{repeat} runs in a row {verdict(worst[2], worst[3])}")


if __name__ == "__main__":
    main()
