"""The shipped Hypothesis strategies (regsim.strategies) draw valid, edge-weighted values."""

from __future__ import annotations

import itertools
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import find as _find
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim._src.model.dtypes import ALL_DTYPES
from regsim._src.model.registers import TRAIT_TWO_DTYPES, lane_count


def find(strategy, condition):
    """The first example drawn that meets `condition` (no shrinking: only reaching it matters)."""
    return _find(strategy, condition, settings=settings(phases=[Phase.generate], database=None, max_examples=2000))


@given(rst.dtypes())
def test_dtypes_are_regsim_dtypes(d):
    assert d in ALL_DTYPES


@given(rst.dtypes([rs.int32, rs.half], bits_only=False), rst.dtypes(bits_only=False))
def test_dtypes_filters(d, e):
    assert d in (rs.int32, rs.half) and not e.bits_only


def test_dtypes_rejects_an_empty_choice():
    with pytest.raises(rs.errors.ParameterError, match=r"strategies\.dtypes"):
        rst.dtypes([rs.hifloat8], bits_only=False)


@given(rst.dtype_traits())
def test_dtype_traits_are_legal(pair):
    dtype, trait = pair
    assert trait is Reg.RegTraitNumOne or dtype in TRAIT_TWO_DTYPES
    Reg.RegTensor(dtype, trait)


@given(data=st.data(), pair=rst.dtype_traits(), allow_nan=st.booleans())
def test_lanes_and_registers(data, pair, allow_nan):
    dtype, trait = pair
    values = data.draw(rst.lanes(dtype, trait, allow_nan=allow_nan))
    assert values.shape == (lane_count(dtype, trait),) and values.dtype == dtype.np_dtype
    if not allow_nan and not dtype.bits_only and dtype is not rs.bool_ and values.dtype.kind not in "iu":
        comps = (
            values.view(np.float16 if dtype is rs.complex32 else np.float32) if dtype in (rs.complex32, rs.complex64) else values
        )
        assert not np.isnan(comps.astype(np.float64)).any()
    reg = data.draw(rst.registers(dtype, trait))
    assert reg.dtype is dtype and reg.trait is trait
    assert reg._lane_valid() is None  # fully written: usable on every lane


@pytest.mark.parametrize("dtype", [rs.int8, rs.uint16, rs.int32, rs.uint64, rs.half, rs.float32], ids=lambda d: d.name)
def test_lanes_reach_the_edges(dtype):
    """Arrays holding both the maximum and the minimum, and all-equal arrays of an edge value."""
    info = np.iinfo(dtype.np_dtype) if dtype.np_dtype.kind in "iu" else np.finfo(dtype.np_dtype)
    lanes = rst.lanes(dtype)
    find(lanes, lambda a: info.max in a and info.min in a)
    find(lanes, lambda a: (a == info.max).all())
    if dtype.np_dtype.kind == "f":
        find(lanes, lambda a: np.isinf(a).any() and np.isnan(a).any() and (a == 0).any())
    else:
        find(lanes, lambda a: len(np.unique(a)) > lane_count(dtype) // 2)


@given(data=st.data(), pair=rst.dtype_traits(), fill=st.sampled_from(["lsb", "group", "noise"]))
def test_masks(data, pair, fill):
    dtype, trait = pair
    m = data.draw(rst.masks(dtype, trait, fill=fill))
    stride = 256 // lane_count(dtype, trait)
    bits = m.bits()
    if fill == "lsb":
        assert not np.delete(bits, np.arange(0, 256, stride)).any()
    if fill == "group":
        assert (bits.reshape(-1, stride) == bits[::stride, None]).all()
    assert m.lanes(dtype, trait).shape == (lane_count(dtype, trait),)


def test_masks_reach_empty_full_and_prefixes():
    masks = rst.masks(rs.float32)
    find(masks, lambda m: not m.bits().any())
    find(masks, lambda m: m.lanes(rs.float32).all())
    find(masks, lambda m: 0 < m.lanes(rs.float32).sum() < 64 and m.lanes(rs.float32)[0] and not m.lanes(rs.float32)[-1])


@given(data=st.data(), pair=rst.dtype_traits())
def test_counts_are_uint32(data, pair):
    dtype, trait = pair
    n = data.draw(rst.counts(dtype, trait))
    assert 0 <= n <= 2**32 - 1
    assert data.draw(rst.counts(dtype, trait, max_value=500)) <= 500


@pytest.mark.parametrize("dtype", [rs.uint8, rs.half, rs.float32, rs.int64], ids=lambda d: d.name)
def test_counts_reach_the_edges(dtype):
    vl = lane_count(dtype)
    for edge in (0, 1, vl - 1, vl, vl + 1, 2**32 - 1):
        assert find(rst.counts(dtype), lambda n, e=edge: n == e) == edge


@given(rst.ub_layouts())
def test_ub_layouts_are_aligned_disjoint_and_filled(layout):
    ub = layout.ub
    spans = sorted((t.addr, t.addr + t.nbytes) for t in layout.tensors)
    for (_, a1), (b0, _) in itertools.pairwise(spans):
        assert a1 <= b0
    for t in layout.tensors:
        assert t.addr % 32 == 0 and t.addr + t.nbytes <= ub.size
        assert ub.storage.valid is None or ub.storage.valid[t.addr : t.addr + t.nbytes].all()


@given(rst.ub_layouts([(rs.int32, 64), (rs.half, 3)], filled=False, gaps=False, size=1024))
def test_ub_layouts_given_specs(layout):
    a, b = layout.tensors
    assert (a.dtype, a.GetSize(), a.addr, b.dtype, b.GetSize(), b.addr) == (rs.int32, 64, 0, rs.half, 3, 256)
    assert layout.ub.size == 1024 and not layout.ub.storage.valid.any()


def test_importing_strategies_does_not_import_hypothesis():
    code = "import sys, regsim.strategies; assert 'hypothesis' not in sys.modules, 'hypothesis imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_strategies_is_an_attribute_of_the_package():
    """`rs.strategies`, without importing it explicitly (and without hypothesis)."""
    code = "import sys, regsim as rs; rs.strategies.registers; assert 'hypothesis' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True)


def test_a_test_may_draw_dozens_of_registers_within_hypothesis_limits():
    """Each draw is at most a few hundred bytes of Hypothesis' 8 KiB budget per example, so
    a 256-bit carry chain (16 uint32 registers and 2 masks) passes every health check."""
    drawn = []

    @settings(max_examples=5, deadline=None, database=None, suppress_health_check=())
    @given(st.lists(rst.registers(rs.uint32), min_size=16, max_size=16), rst.masks(rs.uint32), rst.masks())
    def chain(regs, mask, bits):
        drawn.append(len(regs))

    chain()
    assert drawn and set(drawn) == {16}


@pytest.mark.parametrize("dtype", [rs.int32, rs.half, rs.uint8], ids=lambda d: d.name)
def test_failures_shrink_to_zero_lanes_and_empty_masks(dtype):
    assert not _find(rst.lanes(dtype), lambda a: True).view(np.uint8).any()
    assert not _find(rst.masks(dtype), lambda m: True).bits().any()
