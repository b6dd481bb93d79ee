"""VF loops, sequential and batched, against numpy baselines measured in the same run.

For each kernel and size it prints two ratios:
- sequential: regsim with `loops="sequential"` / a hand-written numpy loop doing the same work
  one register at a time (the tail mask included);
- default: regsim with the default `loops="auto"` (batched where exact) / whole-array numpy computing
  the same outputs.
Kernels: the AddVF of the AddC page (sums and carry masks) and the two-register u64 add (both as in
bench/bench_table.py, which prints the full table), an Add-only kernel under UpdateMask, and a
loop-carried accumulator. Times are CPU time, best of several samples (bench_table's `timed`).
Run: `python bench/bench_loops.py [--sizes 16 18 20] [--runs 3]`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

import numpy as np
from bench_table import LANES, Kernel, add_vf, registers, same, tensors, timed, u64_add, ub_of

import regsim as rs
from regsim import Reg


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
def accumulate_vf(dst: rs.UbPtr[rs.int32], a: rs.UbPtr[rs.int32], repeat: int) -> None:
    acc, x = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    m = Reg.CreateMask(rs.int32)
    Reg.LoadAlign(acc, a)
    for i in range(1, repeat):
        Reg.LoadAlign(x, a + i * 64)
        Reg.Add(acc, acc, x, m)
    Reg.StoreAlign(dst, acc, m)


def add_only(n: int, rng: np.random.Generator) -> Kernel:
    """int32 dst = a + b under UpdateMask (`count` = n - 7: the last register's tail lanes keep dst's old values)."""
    specs = ((rs.int32, n),) * 3
    ub = ub_of(*specs)
    a, b, d = tensors(ub, *specs)
    x, y = (rng.integers(-(2**30), 2**30, n).astype(np.int32) for _ in range(2))
    a.set(x)
    b.set(y)
    d.set(np.zeros(n, np.int32))
    count = n - 7
    z = np.zeros(n, np.int32)

    def loop() -> None:
        left = count
        for lo in registers(n):
            k = min(left, LANES)
            left -= k
            np.add(x[lo : lo + k], y[lo : lo + k], out=z[lo : lo + k])

    def sim() -> None:
        add_only_vf(d.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), count, n // LANES)

    return Kernel(sim, lambda: np.add(x[:count], y[:count], out=z[:count]), loop, lambda: same(d.numpy(), z, "Add only"))


def accumulate(n: int, rng: np.random.Generator) -> Kernel:
    """A loop-carried int32 accumulator over the registers (wrapping), stored once."""
    specs = ((rs.int32, n), (rs.int32, LANES))
    ub = ub_of(*specs)
    a, d = tensors(ub, *specs)
    x = rng.integers(-(2**30), 2**30, n).astype(np.int32)
    a.set(x)
    out = np.empty(LANES, np.int32)

    def loop() -> None:
        acc = x[:LANES].copy()
        for lo in registers(n)[1:]:
            acc += x[lo : lo + LANES]
        out[:] = acc

    def whole() -> None:
        x.reshape(-1, LANES).sum(axis=0, dtype=np.int32, out=out)

    return Kernel(
        lambda: accumulate_vf(d.GetPhyAddr(), a.GetPhyAddr(), n // LANES),
        whole,
        loop,
        lambda: same(d.numpy(), out, "accumulate"),
    )


KERNELS: dict[str, Callable[[int, np.random.Generator], Kernel]] = {
    "AddVF": add_vf,
    "Add only": add_only,
    "u64 add": u64_add,
    "accumulate": accumulate,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[16, 18, 20], help="log2 of the element counts")
    parser.add_argument("--runs", type=int, default=3, help="samples of each timing, best kept (default 3)")
    parser.add_argument("--sample", type=float, default=0.05, help="seconds a sample lasts at least (default 0.05)")
    args = parser.parse_args()
    print(f"{'kernel':<12} {'n':>8}  {'sequential / numpy loop':>24}  {'default / whole-array numpy':>28}")
    for name, make in KERNELS.items():
        for log2n in args.sizes:
            k = make(2**log2n, np.random.default_rng(log2n))

            def sequential(k: Kernel = k) -> None:
                with rs.configure(loops="sequential"):
                    k.sim()

            t_whole = timed(k.whole, args.runs, args.sample)
            t_seq = timed(sequential, args.runs, args.sample)
            k.check()
            t_sim = timed(k.sim, args.runs, args.sample)
            k.check()
            t_loop = timed(k.loop, args.runs, args.sample)
            k.check()
            print(f"{name:<12} {'2^' + str(log2n):>8}  {t_seq / t_loop:>22.2f}x  {t_sim / t_whole:>26.1f}x", flush=True)


if __name__ == "__main__":
    main()
