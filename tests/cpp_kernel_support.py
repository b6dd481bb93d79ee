"""Running a C++ kernel file's entry in both loop modes (in order, then the default), with identical bits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
from cpp_source_support import cpp_source

import regsim as rs

Out = TypeVar("Out", np.ndarray, list[np.ndarray])


def both_modes(run: Callable[[], Out]) -> Out:
    """`run()`'s output (an array or a list of arrays) in the default loop mode, after checking it is the in-order
    run's, byte for byte."""
    with rs.configure(loops="sequential"):
        seq = run()
    out = run()
    as_bytes = (lambda o: [a.tobytes() for a in o]) if isinstance(out, list) else (lambda o: o.tobytes())
    assert as_bytes(out) == as_bytes(seq), "the batched and in-order runs differ"
    return out


def round_half_away(x32: np.ndarray, dtype: Any) -> np.ndarray:
    """float32 values rounded once to the 16-bit float `dtype`, to nearest with ties away from zero (a Cast with
    CAST_ROUND): numpy's ties-to-even result, moved one step away from zero where the value lies exactly halfway."""
    v = np.asarray(x32, np.float32).astype(np.float64)
    even = v.astype(dtype.np_dtype)
    bits = even.view(np.uint16).astype(np.int64)
    outward = np.abs(even.astype(np.float64)) < np.abs(v)  # the other candidate is one step away from zero
    other = np.where(outward, bits + 1, bits).astype(np.uint16).view(dtype.np_dtype)
    tie = outward & ((even.astype(np.float64) + other.astype(np.float64)) / 2 == v)
    return np.where(tie, other, even)


def cpp_module(stem: str, source: str) -> rs.cpp.CppModule:
    """The C++ `source` written to `<stem>.asc` (cpp_source_support), loaded."""
    return rs.cpp.load(cpp_source(f"{stem}.asc", source))
