"""Truncate (the Truncate page): every half and bfloat16 input and float32 inputs near integers
and ties, in every round mode, through Reg.Truncate against the oracle; ZEROING on a dirty
destination; modes the page does not list are refused."""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given

import regsim as rs
from regsim import Reg
from regsim.errors import UnsupportedError
from regsim.testing import reference as O

RM = rs.AscendC.RoundMode
MODES = [RM.CAST_NONE, RM.CAST_RINT, RM.CAST_ROUND, RM.CAST_FLOOR, RM.CAST_CEIL, RM.CAST_TRUNC]
NP = {"half": np.float16, "bfloat16": rs.bfloat16.np_dtype, "float32": np.float32}


def _truncate_all(name: str, codes: np.ndarray, mode: Any, active: np.ndarray) -> np.ndarray:
    """Reg.Truncate over as many registers as `codes` fill, under lane predicate `active`."""
    dtype = getattr(rs, name)
    n = 256 // dtype.itemsize
    out = np.empty(len(codes), codes.dtype)

    @rs.simd_vf
    def vf(dst: Any, src: Any, mask: Any) -> None:
        Reg.Truncate(dst, src, mask, round_mode=mode)

    for start in range(0, len(codes), n):
        src = Reg.RegTensor.from_numpy(codes[start : start + n].view(NP[name]), dtype=dtype)
        dst = Reg.RegTensor.from_numpy(np.full(n, 0x55, codes.dtype).view(NP[name]), dtype=dtype)
        mask = Reg.MaskReg.from_lanes(dtype, active[start : start + n])
        vf(dst, src, mask)
        out[start : start + n] = dst.numpy().view(codes.dtype)
    return out


@pytest.mark.parametrize("name", ["half", "bfloat16"])
def test_every_16_bit_input(name: str) -> None:
    codes = np.arange(1 << 16, dtype=np.uint16)
    active = np.random.default_rng(3).random(len(codes)) < 0.9
    for mode in MODES:
        got = _truncate_all(name, codes, mode, active)
        round_mode = mode.value
        want = [O.truncate_value(name, c, round_mode) if a else 0 for c, a in zip(codes.tolist(), active.tolist(), strict=True)]
        O.assert_lanes(
            got, np.array(want, np.uint16), what=f"Truncate {name} {mode.name}", inputs={"src": codes}, nan_type=NP[name]
        )


def _near_integers() -> st.SearchStrategy[int]:
    ints = st.integers(-(2**25), 2**25).map(lambda k: k / 2)  # integers and ties
    close = st.tuples(ints, st.integers(-2, 2)).map(
        lambda t: (
            int(np.nextafter(np.float32(t[0]), np.float32(np.inf * t[1])).view(np.uint32))
            if t[1]
            else int(np.float32(t[0]).view(np.uint32))
        )
    )
    return st.one_of(st.integers(0, 0xFFFFFFFF), close)


@given(st.lists(_near_integers(), min_size=64, max_size=64))
def test_float32_near_integers(codes: list[int]) -> None:
    arr = np.array(codes, np.uint32)
    for mode in MODES:
        got = _truncate_all("float32", arr, mode, np.ones(64, bool))
        want = [O.truncate_value("float32", c, mode.value) for c in codes]
        O.assert_lanes(
            got, np.array(want, np.uint32), what=f"Truncate float32 {mode.name}", inputs={"src": arr}, nan_type=np.float32
        )


@pytest.mark.parametrize("mode", [RM.CAST_ODD, RM.CAST_HYBRID, RM.UNKNOWN])
def test_other_round_modes_refused(mode: Any) -> None:
    src = Reg.RegTensor.from_numpy(np.zeros(64, np.float32))
    dst = Reg.RegTensor.from_numpy(np.ones(64, np.float32))

    @rs.simd_vf
    def vf() -> None:
        Reg.Truncate(dst, src, Reg.CreateMask(rs.float32), round_mode=mode)

    with pytest.raises(UnsupportedError):
        vf()
    assert (dst.numpy() == 1).all()
