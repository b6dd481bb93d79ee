"""A kernel's first-n Add computed at once (`direct.run_in_kernel`) raises no floating-point warning (the vector unit
raises no exceptions) and leaves the kernel's own numpy error state as it was: through numpy's error-state variable set
directly and through `np.errstate` where numpy keeps none (`runtime._ERRORS` None: the VF runtime's
`ignore_fp_errors`), the first call and a repeated one (the plan's `quick` path). The sums against float64 sums
rounded once to half (past 65504: inf)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim._src.vf import runtime

A = rs.AscendC
HE = A.HardEvent
N = 256


@rs.kernel
def _twice(x: rs.GmPtr[rs.half], z: rs.GmPtr[rs.half], *, states: list[Any]) -> None:
    xg, zg = A.GlobalTensor(rs.half), A.GlobalTensor(rs.half)
    xg.SetGlobalBuffer(x, 3 * N)
    zg.SetGlobalBuffer(z, 2 * N)
    a, b, c = (A.LocalTensor(rs.half, A.TPosition.VECCALC, i * 2 * N, N) for i in range(3))
    for k in range(2):
        A.DataCopy(a, xg[k * N], N)
        A.DataCopy(b, xg[(k + 1) * N], N)
        A.SetFlag(0, event=HE.MTE2_V)
        A.WaitFlag(0, event=HE.MTE2_V)
        A.Add(c, a, b, N)
        states.append(np.geterr())  # (the kernel's own state, after the call)
        A.SetFlag(0, event=HE.V_MTE3)
        A.WaitFlag(0, event=HE.V_MTE3)
        A.DataCopy(zg[k * N], c, N)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)


@pytest.mark.parametrize("state", ["numpy's variable", "np.errstate"])
def test_overflowing_adds_warn_nothing_and_keep_the_kernels_error_state(state: str, monkeypatch: Any) -> None:
    if state == "np.errstate":
        monkeypatch.setattr(runtime, "_ERRORS", None)
    else:
        assert runtime._ERRORS is not None  # (numpy 2 keeps it: the fast path is the one tested)
    x = np.random.default_rng(2).uniform(-60000, 60000, 3 * N).astype(np.float16)
    z = np.zeros(2 * N, np.float16)
    states: list[Any] = []
    with warnings.catch_warnings(), np.errstate(all="warn"):
        warnings.simplefilter("error")
        rs.launch(_twice, 1, x, z, states=states)
        after = np.geterr()
    wide = x.astype(np.float64)
    with np.errstate(over="ignore"):
        expected = (wide[: 2 * N] + wide[N:]).astype(np.float16)
    assert np.isinf(expected).any() and np.array_equal(z.view(np.uint16), expected.view(np.uint16))
    assert states == [dict.fromkeys(("divide", "over", "under", "invalid"), "warn")] * 2 and after == states[0]
