"""UpdateMask (the Ascend C `UpdateMask` page): lanes i < min(n, VL_T), then n -> (n < VL_T ? 0 : n - VL_T),
for every dtype and trait, at the edges and at random, and as a loop covering a count."""

from __future__ import annotations

import math

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


def _update(dtype, trait, count: int, fill: str = "lsb") -> tuple[Reg.MaskReg, int]:
    n = rs.Ref(count)
    with rs.configure(mask_fill=fill), rs.VEC_SCOPE():
        mask = Reg.UpdateMask(dtype, n, trait=trait)
    return mask, n.value


def _check(dtype, trait, count: int, fill: str) -> None:
    two = trait is Reg.RegTraitNumTwo
    mask, left = _update(dtype, trait, count, fill)
    want_lanes, want_left = O.update_mask_oracle(dtype.name, count, two)
    what = f"UpdateMask({dtype!r}, {count}, {trait!r}, mask_fill={fill})"
    O.assert_lanes(mask.lanes(dtype, trait).astype(np.uint8), want_lanes, itemsize=1, what=what + " lanes")
    want_bits = O.predicate_bits(dtype.name, want_lanes, two, fill)
    O.assert_lanes(mask.bits().astype(np.uint8), want_bits, itemsize=1, what=what + " bits")
    assert left == want_left, f"{what}: count left {left}, expected {want_left}"


@pytest.mark.parametrize(("dtype", "trait"), PAIRS, ids=IDS)
@pytest.mark.parametrize("fill", ["lsb", "group"])
def test_update_mask_edge_counts(dtype, trait, fill):
    vl = O.lanes_of(dtype.name, trait is Reg.RegTraitNumTwo)
    for count in (0, 1, vl - 1, vl, vl + 1, 2 * vl, 2**32 - vl, 2**32 - 1):
        _check(dtype, trait, count, fill)


def test_update_mask_doc_example():
    """The Ascend C `MaskReg` page: 320 b16 elements give masks of 128, 128, 64 lanes; the count goes 192, 64, 0."""
    n = rs.Ref(320)
    seen = []
    with rs.VEC_SCOPE():
        for _ in range(3):
            mask = Reg.UpdateMask(rs.half, n)
            seen.append((int(mask.lanes(rs.half).sum()), n.value))
    assert seen == [(128, 192), (128, 64), (64, 0)]


@given(data=st.data(), pair=st.sampled_from(PAIRS), fill=st.sampled_from(["lsb", "group"]))
def test_update_mask_random_counts(data, pair, fill):
    dtype, trait = pair
    _check(dtype, trait, data.draw(rst.counts(dtype, trait), "count"), fill)


@given(data=st.data(), pair=st.sampled_from(PAIRS))
def test_update_mask_loop_covers_the_count(data, pair):
    """ceil(count / VL_T) UpdateMask calls select `count` lanes in all, each a prefix, the last
    leaves 0; one more call selects nothing and keeps 0."""
    dtype, trait = pair
    two = trait is Reg.RegTraitNumTwo
    vl = O.lanes_of(dtype.name, two)
    count = data.draw(rst.counts(dtype, trait, max_value=8 * vl), "count")
    n = rs.Ref(count)
    total = 0
    with rs.VEC_SCOPE():
        for i in range(math.ceil(count / vl)):
            lanes = Reg.UpdateMask(dtype, n, trait=trait).lanes(dtype, trait)
            k = int(lanes.sum())
            assert lanes[:k].all() and not lanes[k:].any(), f"iteration {i}: not a prefix"
            assert k == min(vl, count - total), f"iteration {i}: {k} lanes"
            total += k
        assert n.value == 0 and total == count
        assert not Reg.UpdateMask(dtype, n, trait=trait).lanes(dtype, trait).any()
        assert n.value == 0
