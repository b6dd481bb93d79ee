"""Running a C++ kernel file's entry in both loop modes (in order, then the default), with identical bits."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

import regsim as rs


def both_modes(run: Callable[[], np.ndarray]) -> np.ndarray:
    """`run()`'s output in the default loop mode, after checking it is the in-order run's, byte for byte."""
    with rs.configure(loops="sequential"):
        seq = run()
    out = run()
    assert out.tobytes() == seq.tobytes(), "the batched and in-order runs differ"
    return out
