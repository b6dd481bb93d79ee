"""A VF runs with numpy's floating-point errors ignored (the vector unit raises none: overflow gives inf, 0/0 NaN)
and leaves the caller's error state as it found it: however the VF ends, whatever state the caller set (the state
with every error ignored is made once per state found, not at each VF's start). Each test runs on numpy 2's
error-state variable and on the `np.errstate` fallback (numpy 1, where that variable does not exist)."""

from __future__ import annotations

import numpy as np
import pytest

import regsim as rs
from regsim import Reg
from regsim._src.vf import runtime

IGNORED = {"divide": "ignore", "over": "ignore", "under": "ignore", "invalid": "ignore"}


@pytest.fixture(autouse=True, params=["numpy's error-state variable", "np.errstate"])
def error_state_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.param == "np.errstate":
        monkeypatch.setattr(runtime, "_ERRORS", None)
    elif runtime._ERRORS is None:  # (numpy 1: the fallback is the only path)
        pytest.skip("numpy 1 has no error-state context variable")


def _overflowing_add() -> tuple[rs.UnifiedBuffer, rs.LocalTensor[rs.float32]]:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.float32, 64)
    t.set(np.full(64, 3e38, np.float32))
    return ub, t


@rs.simd_vf
def double_vf(p: rs.UbPtr[rs.float32], seen: dict[str, object]) -> None:
    seen["inside"] = np.geterr()
    seen["bufsize"] = np.getbufsize()
    r = Reg.RegTensor(rs.float32)
    Reg.LoadAlign(r, p)
    Reg.Add(r, r, r, Reg.CreateMask(rs.float32))  # 3e38 + 3e38: +inf, no FloatingPointError
    Reg.StoreAlign(p, r, Reg.CreateMask(rs.float32))
    if seen.get("fail"):
        raise RuntimeError("the kernel's own error")


@pytest.mark.parametrize("outer", [{}, {"all": "raise"}, {"over": "raise", "invalid": "warn"}, {"divide": "call"}])
def test_a_vf_ignores_fp_errors_and_restores_the_callers_state(outer: dict[str, str]) -> None:
    _, t = _overflowing_add()
    seen: dict[str, object] = {}
    with np.errstate(call=lambda *_: None, **outer):  # type: ignore[arg-type]
        before = np.geterr()
        for _ in range(2):  # (the second VF finds the state the first found)
            double_vf(t.GetPhyAddr(), seen)
            assert seen["inside"] == IGNORED
            assert np.geterr() == before
    assert np.all(np.isposinf(t.numpy()))
    assert np.geterr() == {"divide": "warn", "over": "warn", "under": "ignore", "invalid": "warn"}


def test_the_state_is_restored_when_the_vf_raises_and_follows_a_changed_state() -> None:
    _, t = _overflowing_add()
    seen: dict[str, object] = {"fail": True}
    with np.errstate(all="raise"), pytest.raises(RuntimeError, match="the kernel's own error"):
        double_vf(t.GetPhyAddr(), seen)
    assert seen["inside"] == IGNORED and np.geterr()["over"] == "warn"
    seen.clear()
    old = np.getbufsize()
    try:
        np.setbufsize(old * 2)  # a state the last VF never found: the VF keeps its buffer size
        double_vf(t.GetPhyAddr(), seen)
        assert seen["bufsize"] == old * 2 and seen["inside"] == IGNORED
    finally:
        np.setbufsize(old)
    double_vf(t.GetPhyAddr(), seen)
    assert seen["bufsize"] == old


def test_vec_scope_ignores_fp_errors_inside_and_restores_after() -> None:
    with np.errstate(over="raise"):
        with rs.VEC_SCOPE():
            assert np.geterr() == IGNORED
            assert np.float32(3e38) * np.float32(10) == np.inf
        assert np.geterr()["over"] == "raise"
        with pytest.raises(FloatingPointError):
            np.multiply(np.float32(3e38), np.float32(10))
