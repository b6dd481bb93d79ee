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
import functools
import time
from collections.abc import Callable
from typing import Any, NamedTuple

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


class Kernel(NamedTuple):
    """A kernel on n elements: the functions timed, and its result beside numpy's (the check)."""

    sim: Callable[[], None]  #: the regsim VF
    loop: Callable[[], object]  #: the same work in numpy, one register at a time
    whole: Callable[[], object]  #: one whole-array numpy expression of the result
    got: Callable[[], np.ndarray]
    want: Callable[[], np.ndarray]


def operands(ub: rs.UnifiedBuffer, dtype: Any, n: int, rng: np.random.Generator) -> tuple[Any, Any, Any, Any, Any]:
    """(a, b, dst, x, y): three tensors of n elements, a and b holding the random arrays x and y."""
    a, b, d = (ub.alloc(dtype, n) for _ in range(3))
    if dtype is rs.uint64:
        x, y = rng.integers(0, 2**64, n, dtype=np.uint64), rng.integers(0, 2**64, n, dtype=np.uint64)
    else:
        x = rng.integers(0, 2**31, n, dtype=np.int64).astype(dtype.np_dtype)
        y = rng.integers(0, 2**31, n, dtype=np.int64).astype(dtype.np_dtype)
    a.set(x)
    b.set(y)
    return a, b, d, x, y


def add_loop(x: np.ndarray, y: np.ndarray) -> Callable[[], None]:
    """x + y in numpy, one 64-element register at a time."""

    def loop() -> None:
        out = np.empty_like(x)
        for i in range(x.size // 64):
            out[i * 64 : i * 64 + 64] = x[i * 64 : i * 64 + 64] + y[i * 64 : i * 64 + 64]

    return loop


def add_carry_kernel(n: int, rng: np.random.Generator) -> Kernel:
    """The AddC page's AddVF: uint32 sums and their carry masks."""
    regs = n // 64
    ub = rs.UnifiedBuffer(size=(3 * n + regs * 8) * 4)
    a, b, d, x, y = operands(ub, rs.uint32, n, rng)
    carry = ub.alloc(rs.uint32, regs * 8)

    def loop() -> None:
        out, bits = np.empty(n, np.uint32), np.zeros((regs, 256), np.bool_)
        for i in range(regs):
            total = x[i * 64 : i * 64 + 64].astype(np.uint64) + y[i * 64 : i * 64 + 64]
            out[i * 64 : i * 64 + 64] = total
            bits[i, ::4] = total > 0xFFFFFFFF
        np.packbits(bits, axis=-1, bitorder="little")

    return Kernel(
        lambda: add_vf(d.GetPhyAddr(), carry.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n, regs, 64),
        loop,
        lambda: x.astype(np.uint64) + y.astype(np.uint64),
        d.numpy,
        lambda: x + y,
    )


def add_kernel(n: int, rng: np.random.Generator, dtype: Any) -> Kernel:
    """The Add-only kernel (int32, under UpdateMask) or the two-register uint64 add."""
    ub = rs.UnifiedBuffer(size=3 * n * dtype.itemsize)
    a, b, d, x, y = operands(ub, dtype, n, rng)

    def sim() -> None:
        if dtype is rs.int32:
            add_only_vf(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n, n // 64)
        else:
            u64_add_vf(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n // 64)

    return Kernel(sim, add_loop(x, y), lambda: np.add(x, y), d.numpy, lambda: x + y)


def accumulate_kernel(n: int, rng: np.random.Generator) -> Kernel:
    """A loop-carried accumulator: it must run in order."""
    regs = n // 64
    ub = rs.UnifiedBuffer(size=3 * n * 4)
    a, _, d, x, _ = operands(ub, rs.int32, n, rng)

    def loop() -> None:
        acc = x[:64].copy()
        for i in range(1, regs):
            acc += x[i * 64 : i * 64 + 64]

    def whole() -> Any:
        return x.reshape(-1, 64).sum(axis=0, dtype=np.int32)

    return Kernel(lambda: accumulate_vf(d.GetPhyAddr(), a.GetPhyAddr(), regs), loop, whole, lambda: d.numpy()[:64], whole)


KERNELS: dict[str, Callable[[int, np.random.Generator], Kernel]] = {
    "AddVF": add_carry_kernel,
    "Add only": functools.partial(add_kernel, dtype=rs.int32),
    "u64 add": functools.partial(add_kernel, dtype=rs.uint64),
    "accumulate": accumulate_kernel,
}


def case(name: str, n: int, runs: int) -> tuple[float, float, float, float]:
    """(sequential regsim, per-register numpy loop, default regsim, whole-array numpy) seconds."""
    k = KERNELS[name](n, np.random.default_rng(0))

    def sequential() -> None:
        with rs.configure(loops="sequential"):
            k.sim()

    t_seq, t_loop, t_sim, t_whole = best(runs, sequential, k.loop, k.sim, k.whole)
    assert np.array_equal(k.got(), k.want()), f"{name}: regsim and numpy disagree"
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
    for name in KERNELS:
        for log2n in args.sizes:
            n = 2**log2n
            t_seq, t_loop, t_sim, t_whole = case(name, n, args.runs)
            print(f"{name:<12} {'2^' + str(log2n):>8}  {t_seq / t_loop:>22.2f}x  {t_sim / t_whole:>26.1f}x")


if __name__ == "__main__":
    main()
