"""The seed AddVF kernel on 2**18 uint32 elements, against a hand-written numpy loop.

The numpy baseline does what the kernel does, register by register (64 lanes): the tail count,
a 33-bit add, the masked store of the sums and the carry bits packed at bit 4i of 32 bytes per
register. Both run in this process, alternately, and the best of several runs of each is kept,
so the printed ratio is robust to a noisy machine (`--clock cpu` times CPU time, steadier still on a
busy one). Run: `python bench/bench_add_vf.py [--runs 5] [--clock cpu]`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

import regsim as rs
from vf_examples.add_carry_vf import add_vf

U32 = npt.NDArray[np.uint32]
LANES = 64  # uint32 lanes in one 256-byte register


def numpy_add_vf(dst0: U32, dst1: U32, src0: U32, src1: U32, count: int, repeat_times: int) -> None:
    """The same semantics as `add_vf`, one register's worth of numpy per iteration."""
    carry_bytes = dst1.view(np.uint8)
    left = count
    for i in range(repeat_times):
        k = min(left, LANES)
        left -= k
        lo = i * LANES
        total = src0[lo : lo + LANES].astype(np.uint64) + src1[lo : lo + LANES]
        dst0[lo : lo + k] = total[:k]
        bits = np.zeros(256, np.bool_)
        bits[: 4 * k : 4] = total[:k] > 0xFFFFFFFF
        carry_bytes[i * 32 : (i + 1) * 32] = np.packbits(bits, bitorder="little")


#: the clock timings read: wall time (default), or this process's CPU time (`--clock cpu`), which
#: other processes on a busy machine disturb far less
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter


def best_of(runs: int, f: Callable[[], None]) -> float:
    times = []
    for _ in range(runs):
        start = clock()
        f()
        times.append(clock() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2n", type=int, default=18, help="elements = 2**log2n (default 18)")
    parser.add_argument("--runs", type=int, default=5, help="runs of each, best kept (default 5)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall time (default) or CPU time")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    count = 2**args.log2n
    repeat_times = count // LANES
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**32, count, dtype=np.uint32)
    y = rng.integers(0, 2**32, count, dtype=np.uint32)

    ub = rs.UnifiedBuffer(size=(3 * count + repeat_times * 8) * 4)  # a UB large enough for the data
    src0, src1, dst0 = (ub.alloc(rs.uint32, count) for _ in range(3))
    dst1 = ub.alloc(rs.uint32, repeat_times * 8)
    src0.set(x)
    src1.set(y)
    ref0 = np.zeros(count, np.uint32)
    ref1 = np.zeros(repeat_times * 8, np.uint32)

    def sim() -> None:
        with rs.configure(loops="sequential"):  # one call at a time: the per-call cost
            add_vf(dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), count, repeat_times, LANES)

    def batched() -> None:  # the default: the loop runs batched where that is exact
        add_vf(dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), count, repeat_times, LANES)

    def ref() -> None:
        numpy_add_vf(ref0, ref1, x, y, count, repeat_times)

    t_sim, t_ref, t_bat = float("inf"), float("inf"), float("inf")
    for _ in range(args.runs):  # alternate, so all see the same machine load
        t_sim = min(t_sim, best_of(1, sim))
        t_ref = min(t_ref, best_of(1, ref))
        t_bat = min(t_bat, best_of(1, batched))
    same = bool(np.array_equal(dst0.numpy(), ref0) and np.array_equal(dst1.numpy(), ref1))
    print(f"AddVF, {count} uint32 ({repeat_times} registers), best of {args.runs}:")
    print(f"  regsim, loops in order   {t_sim * 1e3:8.1f} ms  ({t_sim / repeat_times * 1e6:5.1f} us/register)")
    print(f"  numpy loop               {t_ref * 1e3:8.1f} ms  ({t_ref / repeat_times * 1e6:5.1f} us/register)")
    print(f"  ratio                    {t_sim / t_ref:8.2f} x   results identical: {same}")
    print(f"  regsim, batched loop     {t_bat * 1e3:8.1f} ms  ({t_bat / t_ref:.2f} x the numpy loop)")


if __name__ == "__main__":
    main()
