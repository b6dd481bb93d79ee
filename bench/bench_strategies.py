"""How fast `rs.strategies` draws registers and masks, as a Hypothesis campaign draws them.

Each strategy runs under `@given` for a fixed number of examples (no database, no shrinking
needed: every example passes), after one untimed warm-up run, and the figure is examples per
second, best of a few runs, beside the same figure for `st.binary` of 128 bytes: the one draw
each of these strategies makes from Hypothesis (at most `_MAX_DRAWN_BYTES`), so its rate is
Hypothesis' own cost per example on this machine, measured in the same run, and the fraction
is what regsim's decoding keeps of it. (`st.just(0)` is no floor: Hypothesis soon finds it
can draw nothing new and spends the run looking for fresh examples.) Beside each, the time
regsim's own decoding takes per draw, timed alone: the part of a draw regsim can make faster.
Run: `python bench/bench_strategies.py`.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

import regsim as rs
from regsim import strategies as rst
from regsim.strategies import _MAX_DRAWN_BYTES

CASES: dict[str, SearchStrategy[Any]] = {
    "registers(int32)": rst.registers(rs.int32),
    "registers(half)": rst.registers(rs.half),
    "registers(uint8)": rst.registers(rs.uint8),
    "registers(uint64, RegTraitNumTwo)": rst.registers(rs.uint64, rs.Reg.RegTraitNumTwo),
    "masks()": rst.masks(),
    "masks(float32)": rst.masks(rs.float32),
    "masks(int16, fill='noise')": rst.masks(rs.int16, fill="noise"),
}


def rate(strategy: SearchStrategy[Any], examples: int) -> float:
    """Examples drawn per second by one `@given` run of `examples` examples."""
    drawn = 0

    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(value: Any) -> None:
        nonlocal drawn
        drawn += 1

    start = time.perf_counter()
    draw()
    return drawn / (time.perf_counter() - start)


def decode_us(strategy: SearchStrategy[Any], calls: int = 2000) -> float:
    """Microseconds regsim spends per draw outside Hypothesis: the strategy's one mapped function (the
    byte decoding and the register or mask it builds) timed alone on random bytes of the drawn size.
    (Reads Hypothesis' strategy objects: `wrapped_strategy`, `MappedStrategy.pack`, the bytes' `min_size`.)"""
    mapped: Any = getattr(strategy, "wrapped_strategy", strategy)
    decode, size = mapped.pack, mapped.mapped_strategy.min_size
    blobs = [os.urandom(size) for _ in range(64)]
    start = time.perf_counter()
    for i in range(calls):
        decode(blobs[i % 64])
    return (time.perf_counter() - start) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=1000, help="examples per run (default 1000)")
    parser.add_argument("--runs", type=int, default=3, help="runs per strategy; the best is kept (default 3)")
    args = parser.parse_args()
    rate(CASES["masks()"], 100)  # warm up Hypothesis' engine, untimed
    engine = st.binary(min_size=_MAX_DRAWN_BYTES, max_size=_MAX_DRAWN_BYTES)
    floor = max(rate(engine, args.examples) for _ in range(args.runs))
    print(f"{'st.binary(128 bytes): Hypothesis':36s} {floor:8.0f} draws/s  ({1e6 / floor:4.0f} us a draw)")
    rates = {}
    for name, strategy in CASES.items():
        rates[name] = max(rate(strategy, args.examples) for _ in range(args.runs))
        own = min(decode_us(strategy) for _ in range(args.runs))
        print(
            f"{name:36s} {rates[name]:8.0f} draws/s  {rates[name] / floor:5.2f} of Hypothesis' rate;"
            f" regsim's decoding {own:4.0f} us a draw"
        )
    slowest = min(rates.values())
    print(f"{'slowest':36s} {slowest:8.0f} draws/s  {slowest / floor:5.2f} of Hypothesis' rate")


if __name__ == "__main__":
    main()
