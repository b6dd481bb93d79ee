"""Running a C++ kernel file's entry in both loop modes (in order, then the default), with identical bits."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

import numpy as np

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
