"""regsim against numpy, kernel by kernel and size by size: the one table of how fast regsim runs.

For each kernel and element count n it times, in this process:
- regsim in the default mode (`loops="auto"`: loops batched where exact) and with `loops="sequential"`;
- a whole-array numpy computation of everything the kernel outputs (the same arrays, tail mask and
  carry bits included; float results in the same operation order where that is one numpy expression);
- a per-register numpy loop doing the same, 64 lanes (one 256-byte register) at a time.
It prints default / whole-array numpy, sequential / per-register loop and default / sequential, then
the issue's targets with the ratios that decide them. For the loop kernels it also times the same VF
called with zero trips (default mode), against whole-array numpy: the floor no loop can go under.
Times are CPU time (`time.process_time`: a busy machine's other processes disturb it far less than wall
time), the garbage collector off; each is the best of --runs samples, a sample repeating the function
until it lasts --sample seconds, the timings' samples taken in turn (a burst of load on the machine falls
on all of them alike). Every kernel's
regsim outputs are checked against the numpy ones (exactly, except where a summation order differs from
the kernel's: there to a relative 1e-5). GeLU's numpy computes its exp as the 950's Exp does, in float64
rounded once to float32 (numpy's own float32 `exp` gives other bits, and costs about half as much).
Kernels: AddVF of the AddC page (sums and carry masks), GeLU (gelu_high_performance), Compare+Select
(compare example), ReduceSum (reduce example: a tree per register, accumulated in order), the
two-register u64 add, and the memory-level `AscendC::Add`, `Compare` (GT, a bit per element),
`Gather` (byte offsets) and `ReduceSum` on float32 tensors.
Run: `python bench/bench_table.py [--sizes 10 14 18 20] [--kernels AddVF GeLU ...] [--runs 3] [--sample 0.05]`.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import math
import time
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg
from vf_examples import add_carry_vf, compare_vf, gelu_high_performance, reduce_vf

A = rs.AscendC
LANES = 64  #: 32-bit lanes in one 256-byte register
Array = npt.NDArray[Any]


@rs.simd_vf
def u64_add_vf(dst: rs.UbPtr[rs.uint64], a: rs.UbPtr[rs.uint64], b: rs.UbPtr[rs.uint64], repeat: int) -> None:
    """dst = a + b on uint64, 64 elements (two registers, RegTraitNumTwo) a repeat."""
    x = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    y = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    z = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    m = Reg.CreateMask(rs.uint64, trait=Reg.RegTraitNumTwo)
    for i in range(repeat):
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Add(z, x, y, m)
        Reg.StoreAlign(dst + i * 64, z, m)


class Kernel(NamedTuple):
    """One kernel on n elements: the functions timed and the check of their outputs."""

    sim: Callable[[], None]  #: regsim (run in each loop mode)
    whole: Callable[[], object]  #: whole-array numpy, every output
    loop: Callable[[], None]  #: the same, one register at a time
    check: Callable[[], None]  #: regsim's outputs against numpy's (after both ran)
    #: the same VF called with zero trips (a loop kernel's): what the call costs before its loop does anything
    empty: Callable[[], None] | None = None


def same(got: Array, want: Array, what: str, exact: bool = True) -> None:
    if exact:
        assert np.array_equal(got, want), f"{what}: regsim and numpy disagree"
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, err_msg=f"{what}: regsim and numpy disagree")


def tensors(ub: rs.UnifiedBuffer, *specs: tuple[Any, int]) -> list[rs.LocalTensor[Any]]:
    return [ub.alloc(dtype, n) for dtype, n in specs]


def ub_of(*specs: tuple[Any, int]) -> rs.UnifiedBuffer:
    """A UB just large enough for tensors of these (dtype, count)s (32-byte aligned each)."""
    return rs.UnifiedBuffer(size=sum(-(-n * d.itemsize // 32) * 32 for d, n in specs))


def registers(n: int) -> range:
    return range(0, n, LANES)


def add_vf(n: int, rng: np.random.Generator) -> Kernel:
    """The AddC page's AddVF: uint32 sums (the first `count` lanes) and a carry mask (bit 4i) of 32 bytes a register."""
    regs = n // LANES
    specs = ((rs.uint32, n), (rs.uint32, n), (rs.uint32, n), (rs.uint32, regs * 8))
    ub = ub_of(*specs)
    a, b, d0, d1 = tensors(ub, *specs)
    x, y = (rng.integers(0, 2**32, n, dtype=np.uint32) for _ in range(2))
    a.set(x)
    b.set(y)
    sums, carry = np.empty(n, np.uint32), np.empty(regs * 32, np.uint8)

    def whole() -> None:
        total = x.astype(np.uint64) + y
        sums[:] = total
        c = (total >> np.uint64(32)).astype(np.uint8)  # lane i's carry: bit 4i, i.e. bit 0 or 4 of byte i // 2
        carry[:] = c[0::2] | (c[1::2] << np.uint8(4))

    def loop() -> None:
        left = n
        for i, lo in enumerate(registers(n)):
            k = min(left, LANES)  # UpdateMask: the lanes left
            left -= k
            total = x[lo : lo + LANES].astype(np.uint64) + y[lo : lo + LANES]
            sums[lo : lo + k] = total[:k]
            c = (total >> np.uint64(32)).astype(np.uint8)
            c[k:] = 0
            carry[i * 32 : (i + 1) * 32] = c[0::2] | (c[1::2] << np.uint8(4))

    def run(count: int) -> None:
        add_carry_vf.add_vf(d0.GetPhyAddr(), d1.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), count, count // LANES, LANES)

    def check() -> None:
        same(d0.numpy(), sums, "AddVF sums")
        same(d1.numpy().view(np.uint8), carry, "AddVF carry bits")

    return Kernel(lambda: run(n), whole, loop, check, lambda: run(0))


def gelu(n: int, rng: np.random.Generator) -> Kernel:
    """GeluVfBasic: y = x / (1 + exp(B * (x + A * x^3))), float32, in the kernel's operation order."""
    specs = ((rs.float32, n), (rs.float32, n))
    ub = ub_of(*specs)
    xt, yt = tensors(ub, *specs)
    x = rng.uniform(-10, 10, n).astype(np.float32)
    xt.set(x)
    y = np.empty(n, np.float32)
    ca, cb, one = np.float32(gelu_high_performance.COEFF_A), np.float32(gelu_high_performance.COEFF_B), np.float32(1)

    def steps(xs: Array, out: Array) -> None:
        np.multiply(xs, xs, out=out)
        out *= xs
        out *= ca
        np.add(xs, out, out=out)
        out *= cb
        np.exp(out, out=out, dtype=np.float64, casting="same_kind")  # the 950's Exp: float64, rounded once to float32
        out += one
        np.divide(xs, out, out=out)

    def loop() -> None:
        for lo in registers(n):
            steps(x[lo : lo + LANES], y[lo : lo + LANES])

    def run(count: int) -> None:
        gelu_high_performance.gelu_vf_basic(xt.GetPhyAddr(), yt.GetPhyAddr(), count, count // LANES)

    return Kernel(lambda: run(n), lambda: steps(x, y), loop, lambda: same(yt.numpy(), y, "GeLU"), lambda: run(0))


def compare_select(n: int, rng: np.random.Generator) -> Kernel:
    """CompareVF: z = x > y ? x : y (Compare GT, then Select), post-update loads and stores."""
    specs = ((rs.float32, n),) * 3
    ub = ub_of(*specs)
    xt, yt, zt = tensors(ub, *specs)
    x, y = (rng.uniform(-2, 2, n).astype(np.float32) for _ in range(2))
    xt.set(x)
    yt.set(y)
    z = np.empty(n, np.float32)

    def loop() -> None:
        for lo in registers(n):
            xs, ys = x[lo : lo + LANES], y[lo : lo + LANES]
            np.copyto(z[lo : lo + LANES], np.where(xs > ys, xs, ys))

    def run(count: int) -> None:
        compare_vf.compare_vf(xt.GetPhyAddr(), yt.GetPhyAddr(), zt.GetPhyAddr(), count // LANES, LANES)

    def whole() -> None:
        np.copyto(z, np.where(x > y, x, y))

    return Kernel(lambda: run(n), whole, loop, lambda: same(zt.numpy(), z, "Compare+Select"), lambda: run(0))


def reduce_sum(n: int, rng: np.random.Generator) -> Kernel:
    """ReduceSumVF: per register a pairwise tree of its 64 lanes (Reduce SUM), accumulated in order; dst lane 0."""
    specs = ((rs.float32, n), (rs.float32, LANES))
    ub = ub_of(*specs)
    src, dst = tensors(ub, *specs)
    x = rng.uniform(0, 1, n).astype(np.float32)
    src.set(x)
    out = np.zeros(LANES, np.float32)

    def whole() -> None:
        level = x.reshape(-1, LANES)
        while level.shape[1] > 1:
            level = level[:, 0::2] + level[:, 1::2]
        out[0] = np.add.accumulate(level[:, 0])[-1]  # (in order, as the loop adds)

    def loop() -> None:
        acc = np.float32(0)
        for lo in registers(n):
            level = x[lo : lo + LANES]
            while level.size > 1:
                level = level[0::2] + level[1::2]
            acc = acc + level[0]
        out[0] = acc

    def run(count: int) -> None:
        reduce_vf.reduce_sum_vf(dst.GetPhyAddr(), src.GetPhyAddr(), count, count // LANES, LANES)

    return Kernel(lambda: run(n), whole, loop, lambda: same(dst.numpy(), out, "ReduceSum"), lambda: run(0))


def u64_add(n: int, rng: np.random.Generator) -> Kernel:
    """uint64 dst = a + b on two-register tensors (RegTraitNumTwo), 64 elements a repeat."""
    specs = ((rs.uint64, n),) * 3
    ub = ub_of(*specs)
    a, b, d = tensors(ub, *specs)
    x, y = (rng.integers(0, 2**64, n, dtype=np.uint64) for _ in range(2))
    a.set(x)
    b.set(y)
    z = np.empty(n, np.uint64)

    def loop() -> None:
        for lo in registers(n):
            np.add(x[lo : lo + LANES], y[lo : lo + LANES], out=z[lo : lo + LANES])

    def run(count: int) -> None:
        u64_add_vf(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), count // LANES)

    return Kernel(lambda: run(n), lambda: np.add(x, y, out=z), loop, lambda: same(d.numpy(), z, "u64 add"), lambda: run(0))


def memory_add(n: int, rng: np.random.Generator) -> Kernel:
    """`AscendC::Add(z, x, y, n)`, float32."""
    specs = ((rs.float32, n),) * 3
    ub = ub_of(*specs)
    xt, yt, zt = tensors(ub, *specs)
    x, y = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    xt.set(x)
    yt.set(y)
    z = np.empty(n, np.float32)

    def loop() -> None:
        for lo in registers(n):
            np.add(x[lo : lo + LANES], y[lo : lo + LANES], out=z[lo : lo + LANES])

    return Kernel(lambda: A.Add(zt, xt, yt, n), lambda: np.add(x, y, out=z), loop, lambda: same(zt.numpy(), z, "Add"))


def memory_compare(n: int, rng: np.random.Generator) -> Kernel:
    """`AscendC::Compare(dst, x, y, CMPMODE::GT, n)`, float32: a bit per element, packed 8 a byte."""
    specs = ((rs.uint8, n // 8), (rs.float32, n), (rs.float32, n))
    ub = ub_of(*specs)
    dt_, xt, yt = tensors(ub, *specs)
    x, y = (rng.uniform(-1, 1, n).astype(np.float32) for _ in range(2))
    xt.set(x)
    yt.set(y)
    bits = np.empty(n // 8, np.uint8)

    def whole() -> None:
        bits[:] = np.packbits(x > y, bitorder="little")

    def loop() -> None:
        for lo in registers(n):
            bits[lo // 8 : (lo + LANES) // 8] = np.packbits(x[lo : lo + LANES] > y[lo : lo + LANES], bitorder="little")

    def sim() -> None:
        A.Compare(dt_, xt, yt, A.CMPMODE.GT, n)

    return Kernel(sim, whole, loop, lambda: same(dt_.numpy(), bits, "Compare"))


def memory_gather(n: int, rng: np.random.Generator) -> Kernel:
    """`AscendC::Gather(dst, src, offsets, 0, n)`, float32, random byte offsets into src."""
    specs = ((rs.float32, n), (rs.float32, n), (rs.uint32, n))
    ub = ub_of(*specs)
    dst, src, off = tensors(ub, *specs)
    x = rng.uniform(-1, 1, n).astype(np.float32)
    offsets = (rng.integers(0, n, n) * 4).astype(np.uint32)
    src.set(x)
    off.set(offsets)
    out = np.empty(n, np.float32)

    def loop() -> None:
        for lo in registers(n):
            np.take(x, offsets[lo : lo + LANES] >> np.uint32(2), out=out[lo : lo + LANES])

    def sim() -> None:
        A.Gather(dst, src, off, 0, n)

    return Kernel(sim, lambda: np.take(x, offsets >> np.uint32(2), out=out), loop, lambda: same(dst.numpy(), out, "Gather"))


def memory_reduce_sum(n: int, rng: np.random.Generator) -> Kernel:
    """`AscendC::ReduceSum(dst, src, work, count)`, float32: dst[0] = the sum as the library's counter mode builds it
    (per-register sums, then their sums a register at a time); numpy's summation order. One call covers at most
    64^3 elements (the library's three summing levels; more than a 950 UB holds), so past that the kernel makes one
    call per 64^3 elements, each into its own dst."""
    chunk = min(n, LANES**3)
    calls = n // chunk
    specs = ((rs.float32, n), (rs.float32, chunk // LANES + LANES), *((rs.float32, 8),) * calls)
    ub = ub_of(*specs)
    src, work, *dsts = tensors(ub, *specs)
    x = rng.uniform(0, 1, n).astype(np.float32)
    src.set(x)
    out = np.zeros(calls, np.float32)

    def finish(parts: Array) -> None:
        """Each call's register sums on to its dst[0]: by 64, then (past 64^2 registers' worth) one register of those."""
        for j, p in enumerate(parts.reshape(calls, -1)):
            out[j] = (np.add.reduceat(p, registers(p.size)) if p.size > LANES else p).sum()

    def whole() -> None:
        finish(x.reshape(-1, LANES).sum(axis=1))

    def loop() -> None:
        parts = np.empty(n // LANES, np.float32)
        for i, lo in enumerate(registers(n)):
            parts[i] = x[lo : lo + LANES].sum()
        finish(parts)

    def sim() -> None:
        for j, dst in enumerate(dsts):
            A.ReduceSum(dst, src[j * chunk], work, chunk)

    def check() -> None:
        same(np.array([d.numpy()[0] for d in dsts]), out, "memory-level ReduceSum", exact=False)

    return Kernel(sim, whole, loop, check)


KERNELS: dict[str, Callable[[int, np.random.Generator], Kernel]] = {
    "AddVF": add_vf,
    "GeLU": gelu,
    "Compare+Select": compare_select,
    "ReduceSum": reduce_sum,
    "u64 add": u64_add,
    "Add (memory)": memory_add,
    "Compare (memory)": memory_compare,
    "Gather (memory)": memory_gather,
    "ReduceSum (memory)": memory_reduce_sum,
}
MEMORY = [name for name in KERNELS if name.endswith("(memory)")]


def timed_in_turn(fs: Mapping[str, tuple[Callable[[], object], Any]], runs: int, sample: float) -> dict[str, float]:
    """The best CPU time of one call of each function of `fs` (name: (function, its loop mode or None)), over `runs`
    samples each, taken in turn (sample r of every function before sample r + 1 of any: a burst of load on the
    machine falls on all of them alike), a sample repeating the function for about `sample` s under its mode."""

    def run(f: Callable[[], object], mode: Any, reps: int) -> float:
        with contextlib.nullcontext() if mode is None else rs.configure(loops=mode):  # (around the repeats: untimed)
            start = time.process_time()
            for _ in range(reps):
                f()
            return (time.process_time() - start) / reps

    gc.collect()
    gc.disable()
    try:
        best = {name: run(f, mode, 1) for name, (f, mode) in fs.items()}
        reps = {name: max(1, math.ceil(sample / max(once, 1e-6))) for name, once in best.items()}
        for _ in range(runs):
            for name, (f, mode) in fs.items():
                best[name] = min(best[name], run(f, mode, reps[name]))
        return best
    finally:
        gc.enable()


def timed(f: Callable[[], object], runs: int, sample: float) -> float:
    """The best CPU time of one call of `f` over `runs` samples, each repeating `f` for about `sample` s."""
    return timed_in_turn({"f": (f, None)}, runs, sample)["f"]


class Row(NamedTuple):
    kernel: str
    log2n: int
    default: float
    sequential: float
    whole: float
    loop: float
    empty: float | None  #: the zero-trip call (`Kernel.empty`), default mode


def measure(name: str, log2n: int, runs: int, sample: float) -> Row:
    k = KERNELS[name](2**log2n, np.random.default_rng(log2n))
    runs_of: list[tuple[Callable[[], object], Any]] = [(k.whole, None), (k.sim, "sequential"), (k.sim, None), (k.loop, None)]
    for f, mode in runs_of:  # (each checked first)
        with contextlib.nullcontext() if mode is None else rs.configure(loops=mode):
            f()
        if f is not k.whole:
            k.check()
    fs = {"whole": (k.whole, None), "seq": (k.sim, "sequential"), "sim": (k.sim, None), "loop": (k.loop, None)}
    if k.empty is not None:
        fs["empty"] = (k.empty, None)
    t = timed_in_turn(fs, runs, sample)
    return Row(name, log2n, t["sim"], t["seq"], t["whole"], t["loop"], t.get("empty"))


def report(rows: list[Row]) -> None:
    """The issue's targets, each with the ratios that decide it."""
    by = {(r.kernel, r.log2n): r for r in rows}

    def verdict(title: str, limit: float, picks: list[tuple[str, float]]) -> None:
        if not picks:
            return
        worst = max(v for _, v in picks)
        shown = ", ".join(f"{k} {v:.2f}x" for k, v in picks)
        print(f"- {title} (<= {limit}x): {'met' if worst <= limit else 'NOT met'}: {shown}")

    print("\ntargets:")
    kernels = [k for k in KERNELS if k not in MEMORY]
    verdict("default, 2^20, / whole-array numpy", 2, [(k, by[k, 20].default / by[k, 20].whole) for k in kernels if (k, 20) in by])
    verdict("default, 2^10, / whole-array numpy", 3, [(k, by[k, 10].default / by[k, 10].whole) for k in kernels if (k, 10) in by])
    floors = [(k, r.empty / r.whole) for k in kernels if (r := by.get((k, 10))) is not None and r.empty is not None]
    if floors:
        print(f"  (the same VFs called with zero trips, / whole-array numpy: {', '.join(f'{k} {v:.2f}x' for k, v in floors)})")
    for k, limit in (("AddVF", 2), ("Compare+Select", 3)):
        verdict(
            f"sequential {k} / per-register loop (every size)",
            limit,
            [(f"2^{r.log2n}", r.sequential / r.loop) for r in rows if r.kernel == k],
        )
    verdict("memory-level, 2^20, default / numpy", 5, [(k, by[k, 20].default / by[k, 20].whole) for k in MEMORY if (k, 20) in by])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 14, 18, 20], help="log2 of the element counts")
    parser.add_argument("--kernels", nargs="+", choices=list(KERNELS), default=list(KERNELS), metavar="KERNEL")
    parser.add_argument("--runs", type=int, default=3, help="samples of each timing, best kept (default 3)")
    parser.add_argument("--sample", type=float, default=0.05, help="seconds a sample lasts at least (default 0.05)")
    args = parser.parse_args()
    head = f"{'kernel':<19} {'n':>5}  {'default/whole':>13}  {'sequential/loop':>15}  {'default/sequential':>18}"
    print(f"{head}  {'default':>10}  {'whole numpy':>11}  {'zero trips/whole':>16}")
    rows = []
    for name in args.kernels:
        for log2n in args.sizes:
            r = measure(name, log2n, args.runs, args.sample)
            rows.append(r)
            floor = "-" if r.empty is None else f"{r.empty / r.whole:.2f}x"
            print(
                f"{name:<19} {'2^' + str(log2n):>5}  {r.default / r.whole:>12.2f}x  {r.sequential / r.loop:>14.2f}x"
                f"  {r.default / r.sequential:>17.3f}x  {r.default * 1e3:>8.3f}ms  {r.whole * 1e3:>9.3f}ms  {floor:>16}",
                flush=True,
            )
    report(rows)


if __name__ == "__main__":
    main()
