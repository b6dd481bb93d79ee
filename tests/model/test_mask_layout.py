"""The MaskReg lane <-> bit rule (the Ascend C `MaskReg` page): lane i of a T operand is bit i * sizeof(T);
b64 RegTraitNumOne bit 8i (32 lanes); b64 / complex64 RegTraitNumTwo bit 4i (64 lanes);
complex32 RegTraitNumTwo bit 2i (128 lanes). Exhaustive for every dtype and trait."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim._src.model.dtypes import ALL_DTYPES
from regsim.testing import reference as O

PAIRS = [(d, Reg.RegTraitNumOne) for d in ALL_DTYPES] + [
    (d, Reg.RegTraitNumTwo) for d in (rs.int64, rs.uint64, rs.complex64, rs.complex32)
]
IDS = [f"{d.name}-{t!r}" for d, t in PAIRS]

#: the rule as the spec tables state it, independently of the itemsize arithmetic
STRIDE = {1: 1, 2: 2, 4: 4, 8: 8}
TWO_STRIDE = {"int64": 4, "uint64": 4, "complex64": 4, "complex32": 2}


def _stride(dtype, trait) -> int:
    if trait is Reg.RegTraitNumTwo:
        return TWO_STRIDE[dtype.name]
    return STRIDE[O.ITEMSIZE[dtype.name]]


@pytest.mark.parametrize(("dtype", "trait"), PAIRS, ids=IDS)
def test_single_bit_sweep(dtype, trait):
    """Each of the 256 bits alone: it is lane k / stride when k is a multiple of stride, else
    no lane sees it."""
    s = _stride(dtype, trait)
    n = 256 // s
    assert O.lanes_of(dtype.name, trait is Reg.RegTraitNumTwo) == n
    for k in range(256):
        bits = np.zeros(256, bool)
        bits[k] = True
        lanes = Reg.MaskReg.from_bits(bits).lanes(dtype, trait)
        want = np.zeros(n, bool)
        if k % s == 0:
            want[k // s] = True
        assert lanes.shape == (n,) and (lanes == want).all(), f"bit {k}: lanes {np.flatnonzero(lanes)}"


@pytest.mark.parametrize(("dtype", "trait"), PAIRS, ids=IDS)
def test_single_lane_sweep(dtype, trait):
    """from_lanes with one lane i sets exactly bit i * stride, and lanes() gives it back."""
    s = _stride(dtype, trait)
    n = 256 // s
    for i in range(n):
        one = np.zeros(n, bool)
        one[i] = True
        mask = Reg.MaskReg.from_lanes(dtype, one, trait=trait)
        assert list(np.flatnonzero(mask.bits())) == [i * s], f"lane {i}"
        assert (mask.lanes(dtype, trait) == one).all()


@given(data=st.data(), pair=st.sampled_from(PAIRS))
def test_round_trips(data, pair):
    dtype, trait = pair
    two = trait is Reg.RegTraitNumTwo
    n = O.lanes_of(dtype.name, two)
    # lanes -> bits -> lanes
    lanes = data.draw(rst.masks(dtype, trait), "mask").lanes(dtype, trait)
    mask = Reg.MaskReg.from_lanes(dtype, lanes, trait=trait)
    O.assert_lanes(
        mask.bits().astype(np.uint8), O.predicate_bits(dtype.name, list(lanes), two), itemsize=1, what="from_lanes bits"
    )
    assert (mask.lanes(dtype, trait) == lanes).all() and lanes.shape == (n,)
    # arbitrary bits -> lanes: bit i * stride, the rest ignored
    bits = data.draw(rst.masks(), "bits").bits()
    got = Reg.MaskReg.from_bits(bits).lanes(dtype, trait)
    O.assert_lanes(got.astype(np.uint8), O.mask_lanes_oracle(dtype.name, list(bits), two), itemsize=1, what="lanes of bits")
    assert (Reg.MaskReg.from_bits(bits).bits() == bits).all()


@given(data=st.data(), pair=st.sampled_from(PAIRS), fill=st.sampled_from(["group", "noise"]))
def test_strategy_fills_keep_lanes(data, pair, fill):
    """masks(fill="group"/"noise") differ from the lsb layout only in bits no lane reads."""
    dtype, trait = pair
    mask = data.draw(rst.masks(dtype, trait, fill=fill))
    lanes = mask.lanes(dtype, trait)
    s = _stride(dtype, trait)
    assert (mask.bits()[::s] == lanes).all()
    if fill == "group":
        assert (mask.bits() == np.repeat(lanes, s)).all()


def test_mask_accessor_errors():
    with pytest.raises(rs.errors.ParameterError, match=r"MaskReg.from_lanes.*lanes.shape.*\(63,\)"):
        Reg.MaskReg.from_lanes(rs.float32, np.ones(63, bool))
    with pytest.raises(rs.errors.ParameterError, match=r"MaskReg.from_bits.*bits.shape"):
        Reg.MaskReg.from_bits(np.ones(255, bool))
    with pytest.raises(rs.errors.DTypeError, match=r"MaskReg.lanes.*trait.*RegTraitNumTwo"):
        Reg.MaskReg().lanes(rs.int32, Reg.RegTraitNumTwo)
