"""VF loops, sequential and batched, against numpy baselines measured in the same run.

For each kernel and size it prints two ratios:
- sequential: regsim with `loops="sequential"` / a hand-written numpy loop doing the same work
  one register at a time;
- default: regsim with the default `loops="auto"` (batched where exact) / one whole-array numpy
  expression of the same result.
Kernels: the AddVF of the AddC page (with its carry masks), an Add-only kernel, the
two-register u64 add, and a loop-carried accumulator (which must run in order). Each timing is the
best of several alternating runs, so the ratios hold on a noisy machine.
Run: `python bench/bench_loops.py [--sizes 16 18 20] [--runs 3] [--clock cpu]` (CPU time: steadier on a
busy machine).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import regsim as rs
from regsim import Reg
from vf_examples.add_carry_vf import add_vf


@rs.simd_vf
def add_only_vf(dst: rs.UbPtr[rs.int32], a: rs.UbPtr[rs.int32], b: rs.UbPtr[rs.int32], count: int, repeat: int) -> None:
    x, y, z = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    n = rs.Ref(count)
    for i in range(repeat):
        m = Reg.UpdateMask(rs.int32, n)
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(z, x, y, m)
        Reg.StoreAlign(dst + i * 64, z, m)


@rs.simd_vf
def u64_add_vf(dst: rs.UbPtr[rs.uint64], a: rs.UbPtr[rs.uint64], b: rs.UbPtr[rs.uint64], repeat: int) -> None:
    x = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    y = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    z = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    m = Reg.CreateMask(rs.uint64, trait=Reg.RegTraitNumTwo)
    for i in range(repeat):
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(z, x, y, m)
        Reg.StoreAlign(dst + i * 64, z, m)


@rs.simd_vf
def accumulate_vf(dst: rs.UbPtr[rs.int32], a: rs.UbPtr[rs.int32], repeat: int) -> None:
    acc, x = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    Reg.LoadAlign(acc, a)
    for i in range(1, repeat):
        Reg.LoadAlign(x, a + i * 64)
        Reg.Add(acc, acc, x, m)
    Reg.StoreAlign(dst, acc, m)


#: the clock timings read: wall time (default), or this process's CPU time (`--clock cpu`), which
#: other processes on a busy machine disturb far less
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
clock = time.perf_counter


def best(runs: int, *fs: Callable[[], Any]) -> list[float]:
    """The best time of each function over `runs` alternating rounds."""
    times = [float("inf")] * len(fs)
    for _ in range(runs):
        for k, f in enumerate(fs):
            start = clock()
            f()
            times[k] = min(times[k], clock() - start)
    return times


def case(name: str, n: int, runs: int) -> tuple[float, float, float, float]:
    """(sequential regsim, per-register numpy loop, default regsim, whole-array numpy) seconds."""
    rng = np.random.default_rng(0)
    regs = n // 64
    if name == "u64 add":
        ub = rs.UnifiedBuffer(size=3 * n * 8)
        a, b, d = (ub.alloc(rs.uint64, n) for _ in range(3))
        x, y = rng.integers(0, 2**64, n, dtype=np.uint64), rng.integers(0, 2**64, n, dtype=np.uint64)
        a.set(x)
        b.set(y)

        def sim() -> None:
            u64_add_vf(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), regs)

        def loop() -> None:
            out = np.empty(n, np.uint64)
            for i in range(regs):
                out[i * 64 : i * 64 + 64] = x[i * 64 : i * 64 + 64] + y[i * 64 : i * 64 + 64]

        def whole() -> None:
            np.add(x, y)

        check = (lambda: d.numpy(), lambda: x + y)
    else:
        ub = rs.UnifiedBuffer(size=(3 * n + regs * 8) * 4)
        a, b, d = (ub.alloc(rs.int32 if name != "AddVF" else rs.uint32, n) for _ in range(3))  # type: ignore[misc]
        carry = ub.alloc(rs.uint32, regs * 8)
        x = rng.integers(0, 2**31, n, dtype=np.int64).astype(a.dtype.np_dtype)
        y = rng.integers(0, 2**31, n, dtype=np.int64).astype(a.dtype.np_dtype)
        a.set(x)
        b.set(y)
        if name == "AddVF":

            def sim() -> None:
                add_vf(d.GetPhyAddr(), carry.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n, regs, 64)

            def loop() -> None:
                out, bits = np.empty(n, np.uint32), np.zeros((regs, 256), np.bool_)
                for i in range(regs):
                    total = x[i * 64 : i * 64 + 64].astype(np.uint64) + y[i * 64 : i * 64 + 64]
                    out[i * 64 : i * 64 + 64] = total
                    bits[i, ::4] = total > 0xFFFFFFFF
                np.packbits(bits, axis=-1, bitorder="little")

            def whole() -> None:
                x.astype(np.uint64) + y.astype(np.uint64)

            check = (lambda: d.numpy(), lambda: x + y)
        elif name == "Add only":

            def sim() -> None:
                add_only_vf(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n, regs)

            def loop() -> None:
                out = np.empty(n, np.int32)
                for i in range(regs):
                    out[i * 64 : i * 64 + 64] = x[i * 64 : i * 64 + 64] + y[i * 64 : i * 64 + 64]

            def whole() -> None:
                np.add(x, y)

            check = (lambda: d.numpy(), lambda: x + y)
        else:

            def sim() -> None:
                accumulate_vf(d.GetPhyAddr(), a.GetPhyAddr(), regs)

            def loop() -> None:
                acc = x[:64].copy()
                for i in range(1, regs):
                    acc += x[i * 64 : i * 64 + 64]

            def whole() -> None:
                x.reshape(-1, 64).sum(axis=0, dtype=np.int32)

            check = (lambda: d.numpy()[:64], lambda: x.reshape(-1, 64).sum(axis=0, dtype=np.int32))

    def sequential() -> None:
        with rs.configure(loops="sequential"):
            sim()

    t_seq, t_loop, t_sim, t_whole = best(runs, sequential, loop, sim, whole)
    got, want = check
    assert np.array_equal(got(), want()), f"{name}: regsim and numpy disagree"
    return t_seq, t_loop, t_sim, t_whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 18, 20], help="log2 of the element counts")
    parser.add_argument("--runs", type=int, default=3, help="alternating rounds, best kept (default 3)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="wall time (default) or CPU time")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    print(f"{'kernel':<12} {'n':>8}  {'sequential / numpy loop':>24}  {'default / whole-array numpy':>28}")
    for name in ("AddVF", "Add only", "u64 add", "accumulate"):
        for log2n in args.sizes:
            n = 2**log2n
            t_seq, t_loop, t_sim, t_whole = case(name, n, args.runs)
            print(f"{name:<12} {'2^' + str(log2n):>8}  {t_seq / t_loop:>22.2f}x  {t_sim / t_whole:>26.1f}x")


if __name__ == "__main__":
    main()
