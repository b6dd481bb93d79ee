"""Add / Sub without carry (the Ascend C `Add` and `Sub` pages) for every accepted dtype and trait, ZEROING and
MERGING, against the lane oracle; 8-bit Add/Sub exhaustively over all 65 536 input pairs."""

from __future__ import annotations

import numpy as np
import pytest
from arith_support import compare, expected, old_form, values
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim._src.model.dtypes import ALL_DTYPES
from regsim.testing import reference as O

#: Add/Sub dtypes on Ascend 950 (the Add page), written independently of the op specs
ADD_SUB = [
    rs.int8,
    rs.uint8,
    rs.int16,
    rs.uint16,
    rs.half,
    rs.bfloat16,
    rs.int32,
    rs.uint32,
    rs.float32,
    rs.complex32,
    rs.int64,
    rs.uint64,
    rs.complex64,
]
CASES = [(d, Reg.RegTraitNumOne) for d in ADD_SUB] + [(d, Reg.RegTraitNumTwo) for d in ADD_SUB if d.name in O.TRAIT_TWO]
IDS = [f"{d.name}-{t!r}" for d, t in CASES]
#: per (dtype, trait, op) case: a third of the profile's examples (each example is 32-256 lanes)
PER_CASE = settings(max_examples=max(10, settings.default.max_examples // 3))


def _run(op: str, a, b, mask, old=None, mode=None):
    dst = Reg.RegTensor(a.dtype, a.trait) if old is None else old
    with rs.VEC_SCOPE():
        f = Reg.Add if op == "add" else Reg.Sub
        if mode is None:
            f(dst, a, b, mask)
        else:
            f(dst, a, b, mask, mode=mode)
    return dst


@pytest.mark.parametrize(("dtype", "trait"), CASES, ids=IDS)
@pytest.mark.parametrize("op", ["add", "sub"])
@PER_CASE
@given(data=st.data())
def test_zeroing_matches_oracle(dtype, trait, op, data):
    """dst[i] = mask[i] ? a[i] op b[i] : 0, integers wrapping, floats rounded once; the mask is read
    only at bit i * stride (the other bits are noise)."""
    name = dtype.name
    a = data.draw(rst.registers(dtype, trait), "a")
    b = data.draw(rst.registers(dtype, trait), "b")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = _run(op, a, b, mask, mode=data.draw(st.sampled_from([None, Reg.MaskMergeMode.ZEROING]), "mode"))
    active = list(mask.lanes(dtype, trait))
    oracle = O.add_oracle if op == "add" else O.sub_oracle
    want = expected(oracle(name, values(a.numpy(), name), values(b.numpy(), name), active), name, a.numpy())
    inputs = {"a": a.numpy(), "b": b.numpy(), "mask": np.array(active, np.uint8)}
    compare(dst.numpy(), want, name, f"{op} {dtype!r} {trait!r} ZEROING", inputs)


@pytest.mark.parametrize(("dtype", "trait"), CASES, ids=IDS)
@PER_CASE
@given(data=st.data())
def test_add_merging_matches_oracle(dtype, trait, data):
    """dst[i] = mask[i] ? a[i] + b[i] : dst[i] (the old bits kept exactly)."""
    name = dtype.name
    a = data.draw(rst.registers(dtype, trait), "a")
    b = data.draw(rst.registers(dtype, trait), "b")
    old = data.draw(rst.registers(dtype, trait), "dst")
    old_lanes = old.numpy()
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = _run("add", a, b, mask, old=old, mode=Reg.MaskMergeMode.MERGING)
    active = list(mask.lanes(dtype, trait))
    merged = O.add_oracle(name, values(a.numpy(), name), values(b.numpy(), name), active, old_form(old_lanes, name))
    want = expected(merged, name, a.numpy())
    inputs = {"a": a.numpy(), "b": b.numpy(), "old": old_lanes, "mask": np.array(active, np.uint8)}
    compare(dst.numpy(), want, name, f"add {dtype!r} {trait!r} MERGING", inputs)


@pytest.mark.parametrize("dtype", [rs.int8, rs.uint8], ids=lambda d: d.name)
@pytest.mark.parametrize("op", ["add", "sub"])
def test_8bit_exhaustive(dtype, op):
    """All 65 536 (a, b) pairs: register lane i holds a = the value with bits i, b is one value
    per batch, 256 batches of 256 lanes."""
    name = dtype.name
    a_bits = np.arange(256, dtype=np.uint8)
    a = Reg.RegTensor.from_numpy(a_bits.view(dtype.np_dtype))
    a_vals = [int(x) for x in a_bits.view(dtype.np_dtype)]
    full = Reg.MaskReg.from_lanes(dtype, np.ones(256, bool))
    oracle = O.add_oracle if op == "add" else O.sub_oracle
    for k in range(256):
        b_lanes = np.full(256, k, np.uint8).view(dtype.np_dtype)
        b = Reg.RegTensor.from_numpy(b_lanes)
        got = _run(op, a, b, full).numpy()
        want = oracle(name, a_vals, [int(b_lanes[0])] * 256, [True] * 256)
        O.assert_lanes(
            got, want, itemsize=1, inputs={"a": a_bits.view(dtype.np_dtype), "b": b_lanes}, what=f"{op} {name} b=0x{k:02x}"
        )


def test_float_rounding_spot_checks():
    """Hand-worked lanes: half 2048 + 1 = 2048 (tie to even), 2049 is not a half; bf16 1 + 2**-8
    rounds to 1 (tie to even), 1 + 3*2**-9 rounds up; -0 + -0 = -0; 0 - 0 = +0; inf - inf NaN."""
    cases = [
        (rs.half, [2048.0, 2050.0, -0.0, 0.0], [1.0, 1.0, -0.0, 0.0], [2048.0, 2052.0, -0.0, 0.0]),
        (rs.bfloat16, [1.0, 1.0, 65504.0, 3.0], [2.0**-8, 3 * 2.0**-9, 0.0, 0.0], [1.0, 1.0078125, 65536.0, 3.0]),
    ]
    for dtype, a, b, want in cases:
        n = 256 // dtype.itemsize
        av = np.array((a * n)[:n], dtype.np_dtype)
        bv = np.array((b * n)[:n], dtype.np_dtype)
        got = _run("add", Reg.RegTensor.from_numpy(av), Reg.RegTensor.from_numpy(bv), Reg.MaskReg.from_bits(np.ones(256, bool)))
        O.assert_lanes(got.numpy()[:4], np.array(want, dtype.np_dtype), what=f"{dtype!r} rounding")
    n = 64
    inf = np.full(n, np.inf, np.float32)
    got = _run("sub", Reg.RegTensor.from_numpy(inf), Reg.RegTensor.from_numpy(inf), Reg.MaskReg.from_bits(np.ones(256, bool)))
    assert np.isnan(got.numpy()).all()
    zero = np.zeros(n, np.float32)
    got = _run("sub", Reg.RegTensor.from_numpy(zero), Reg.RegTensor.from_numpy(zero), Reg.MaskReg.from_bits(np.ones(256, bool)))
    assert not np.signbit(got.numpy()).any()


@pytest.mark.parametrize("dtype", ADD_SUB, ids=lambda d: d.name)
def test_sub_merging_is_unsupported(dtype):
    a = Reg.RegTensor.from_numpy(np.zeros(256 // dtype.itemsize, dtype.np_dtype))
    dst = Reg.RegTensor(dtype)
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.UnsupportedError) as err:
        Reg.Sub(dst, a, a, Reg.MaskReg.from_bits(np.ones(256, bool)), mode=Reg.MaskMergeMode.MERGING)
    msg = str(err.value)
    assert "Sub" in msg and "mode" in msg and "MERGING" in msg and "ZEROING" in msg


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d not in ADD_SUB], ids=lambda d: d.name)
def test_add_rejects_other_dtypes(dtype):
    a = Reg.RegTensor.from_numpy(np.zeros(256 // dtype.itemsize, dtype.np_dtype), dtype=dtype)
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError) as err:
        Reg.Add(Reg.RegTensor(dtype), a, a, Reg.MaskReg.from_bits(np.ones(256, bool)))
    assert "Add" in str(err.value) and dtype.name in str(err.value)


def test_keyword_arguments_and_legacy_names():
    """C++ parameter names work as keywords (binding by name, in any order); the legacy names
    AddCarryOut / SubCarryOut / AddCarryOuts / SubCarryOuts are the carry ops."""
    a = Reg.RegTensor.from_numpy(np.array([0xFFFFFFFF, 5] * 32, np.uint32))
    b = Reg.RegTensor.from_numpy(np.array([1, 7] * 32, np.uint32))
    m = Reg.MaskReg.from_lanes(rs.uint32, np.arange(64) < 63)
    d1, d2, d3 = (Reg.RegTensor(rs.uint32) for _ in range(3))
    c1, c2, c3, c4 = (Reg.MaskReg() for _ in range(4))
    with rs.VEC_SCOPE():
        Reg.Add(d1, a, b, m)
        Reg.Add(mask=m, src_reg1=b, dst_reg=d2, src_reg0=a)
        Reg.Add(c1, d3, a, b, m)
        Reg.AddCarryOut(c2, d3, a, b, m)
        Reg.Add(carry=c3, dst_reg=d3, src_reg0=a, src_reg1=b, mask=m)
        Reg.AddCarryOuts(c4, d3, a, b, c1, m)
    want = O.add_oracle("uint32", [int(x) for x in a.numpy()], [int(x) for x in b.numpy()], list(np.arange(64) < 63))
    O.assert_lanes(d1.numpy(), want, itemsize=4, what="positional Add")
    O.assert_lanes(d2.numpy(), want, itemsize=4, what="keyword Add")
    want_dst, want_carry = O.carry_oracle(
        "Add/carry", [int(x) for x in a.numpy()], [int(x) for x in b.numpy()], list(np.arange(64) < 63)
    )
    for c in (c1, c2, c3):
        O.assert_lanes(c.lanes(rs.uint32).astype(np.uint8), want_carry, itemsize=1, what="carry")
    want_dst, want_carry = O.carry_oracle(
        "AddC", [int(x) for x in a.numpy()], [int(x) for x in b.numpy()], list(np.arange(64) < 63), want_carry
    )
    O.assert_lanes(d3.numpy(), want_dst, itemsize=4, what="AddCarryOuts dst")
    O.assert_lanes(c4.lanes(rs.uint32).astype(np.uint8), want_carry, itemsize=1, what="AddCarryOuts carry")
