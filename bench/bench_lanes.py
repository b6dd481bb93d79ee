"""The transcendental lanes (Exp, Ln, Sqrt, Div) against a plain float64 evaluation rounded once.

For each lane function of regsim/_src/ops/transcendental.py, dtype and element count it times the
lane (what a batched or in-order Exp/Ln/Sqrt/Div computes: flushing of subnormals, the pages' NaN,
the CTRL[48] saturation of half) and the plain numpy evaluation `f(x.astype(float64)).astype(dtype)`,
on ordinary operands (normal numbers: the common case) and on operands with a subnormal or a NaN every
64 lanes (the lane's slow path), and prints lane / plain (the target is 2x). Each lane's result is
checked against the plain one on the ordinary operands (the same bits). Times are CPU time, the best of
--runs samples each repeating the call for about --sample seconds (bench_table's `timed`).
Run: `python bench/bench_lanes.py [--sizes 6 14 20] [--runs 5]`.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

import numpy as np
from bench_table import timed

from regsim._src.ops import transcendental as tr

Array = Any
#: name -> (the lane, numpy's float64 function, operand range of ordinary numbers, binary)
LANES: dict[str, tuple[Callable[..., Array], Callable[..., Array], tuple[float, float], bool]] = {
    "Exp": (tr.exp, np.exp, (-9.0, 9.0), False),
    "Ln": (tr.ln, np.log, (1e-3, 1e3), False),
    "Sqrt": (tr.sqrt, np.sqrt, (1e-3, 1e3), False),
    "Div": (tr.div, np.divide, (0.5, 2.0), True),
}


def operands(dtype: Any, n: int, low: float, high: float, special: bool, rng: np.random.Generator) -> Array:
    x = rng.uniform(low, high, n).astype(dtype)
    if special:  # a subnormal and a NaN every 64 lanes: the lane flushes and rewrites
        x[::64] = np.finfo(dtype).smallest_subnormal
        x[32::64] = np.nan
    return x


def ratio(name: str, dtype: Any, n: int, special: bool, runs: int, sample: float) -> float:
    """The lane's time / the plain evaluation's on n operands (checked to give the same bits if ordinary)."""
    lane, plain, (low, high), binary = LANES[name]
    rng = np.random.default_rng(n)
    xs = [operands(dtype, n, low, high, special, rng) for _ in range(2 if binary else 1)]

    def evaluated() -> Array:
        return plain(*(x.astype(np.float64) for x in xs)).astype(dtype)

    if not special:
        assert np.array_equal(lane(*xs), evaluated()), f"{name} {dtype.__name__}: the lane and numpy disagree"
    return timed(lambda: lane(*xs), runs, sample) / timed(evaluated, runs, sample)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[6, 14, 20], help="log2 of the element counts (6: a register)")
    parser.add_argument("--runs", type=int, default=5, help="samples of each timing, best kept (default 5)")
    parser.add_argument("--sample", type=float, default=0.05, help="seconds a sample lasts at least (default 0.05)")
    args = parser.parse_args()
    print(f"{'lane':<5} {'dtype':<8} {'n':>5}  {'ordinary / plain':>16}  {'with subnormals, NaNs / plain':>29}")
    worst: dict[int, float] = {}
    with np.errstate(all="ignore"):  # (as a VF runs)
        for name in LANES:
            for dtype in (np.float16, np.float32):
                for log2n in args.sizes:
                    ordinary, special = (ratio(name, dtype, 2**log2n, s, args.runs, args.sample) for s in (False, True))
                    worst[log2n] = max(worst.get(log2n, 0.0), ordinary)
                    print(f"{name:<5} {dtype.__name__:<8} {'2^' + str(log2n):>5}  {ordinary:>15.2f}x  {special:>28.2f}x")
    print("\ntarget: Exp, Ln, Sqrt, Div lanes within 2x of the plain evaluation (ordinary operands), the worst by size:")
    for log2n, w in worst.items():
        print(f"- 2^{log2n}: {w:.2f}x, {'met' if w <= 2 else 'NOT met'}")


if __name__ == "__main__":
    main()
