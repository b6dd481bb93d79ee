"""AbsSub, Axpy, MulAddDst, MulDstAdd (the Ascend C "复合计算" pages) and their legacy names against the
lane oracle: the multiply-adds rounded once (checked against exact rationals), AbsSub as Abs(Sub)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from arith_support import FULL, compare, ctrl_bit, expected, reg_of, run, scalar_of, values
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.testing import reference as O

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo

ABS_SUB = [rs.half, rs.float32, rs.int64]
AXPY = [rs.half, rs.float32, rs.int64, rs.uint64]
MUL_ADD_DST = [rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
MUL_DST_ADD = [rs.half, rs.bfloat16, rs.float32]
TABLE = {"AbsSub": ABS_SUB, "Axpy": AXPY, "MulAddDst": MUL_ADD_DST, "MulDstAdd": MUL_DST_ADD}
CASES = [
    pytest.param(op, d, t, id=f"{op}-{d.name}{'-two' if t is TWO else ''}")
    for op, dtypes in TABLE.items()
    for d in dtypes
    for t in ([ONE, TWO] if d.name in O.TRAIT_TWO else [ONE])
]


@pytest.mark.parametrize(("op", "dtype", "trait"), CASES)
@settings(max_examples=max(8, settings.default.max_examples // 4))
@given(data=st.data())
def test_compound_matches_oracle(op: str, dtype: Any, trait: Any, data: Any) -> None:
    """ZEROING on a dirty (or accumulating) dst; the in-out dst is an input where the op reads it."""
    name = dtype.name
    dst = data.draw(rst.registers(dtype, trait), "dst")
    a = data.draw(rst.registers(dtype, trait), "a")
    b = data.draw(rst.registers(dtype, trait), "b")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    old = dst.numpy()
    active = list(mask.lanes(dtype, trait))
    if op == "Axpy":
        scalar = scalar_of(b.numpy(), name)
        got = run(Reg.Axpy, dst, a, scalar, mask)
        operands = [values(old, name), values(a.numpy(), name), [scalar] * len(active)]
    else:
        got = run(getattr(Reg, op), dst, a, b, mask)
        operands = [values(a.numpy(), name), values(b.numpy(), name)]
        if op != "AbsSub":
            operands.insert(0, values(old, name))
    want = O.arith_oracle(op, name, operands, active)
    compare(got, expected(want, name, old), name, f"{op} {name} {trait!r}", {"dst": old, "a": a.numpy(), "b": b.numpy()})


@pytest.mark.parametrize("dtype", [rs.half, rs.bfloat16, rs.float32], ids=lambda d: d.name)
def test_multiply_adds_round_once(dtype: Any) -> None:
    """x·x + z with x = 1 + 2**-p (p = significand bits - 1) and z = -(1 + 2**(1-p)): exactly 2**-2p
    when fused; a separately rounded x·x (= 1 + 2**(1-p)) would leave 0."""
    p = {"half": 10, "bfloat16": 7, "float32": 23}[dtype.name]
    n = 256 // dtype.itemsize
    x_val, z_val = 1 + 2.0**-p, -(1 + 2.0 ** (1 - p))
    x, z = reg_of(dtype, np.full(n, x_val)), reg_of(dtype, np.full(n, z_val))
    full = Reg.MaskReg.from_bits(FULL)
    assert float(run(Reg.MulAddDst, reg_of(dtype, np.full(n, z_val)), x, x, full)[0]) == 2.0 ** (-2 * p)
    assert float(run(Reg.MulDstAdd, reg_of(dtype, np.full(n, x_val)), x, z, full)[0]) == 2.0 ** (-2 * p)
    if dtype is not rs.bfloat16:
        assert float(run(Reg.Axpy, reg_of(dtype, np.full(n, z_val)), x, x_val, full)[0]) == 2.0 ** (-2 * p)
    want = O.arith_oracle("MulAddDst", dtype.name, [[z_val], [x_val], [x_val]], [True])
    assert float(want[0]) == 2.0 ** (-2 * p)


def test_fused_overflow_is_rescued_by_the_addend() -> None:
    """The Axpy boundary table: src = MAX, scalar = MAX, dst = -inf → -inf; and a product beyond
    float32's range cancelled by a huge negative addend would overflow only if rounded first."""
    big = np.float32(3.4e38)
    dst = reg_of(rs.float32, np.full(64, -np.inf))
    got = run(Reg.Axpy, dst, reg_of(rs.float32, np.full(64, big)), float(big), Reg.MaskReg.from_bits(FULL))
    assert got[0] == -np.inf
    half_max = 65504.0
    dst = reg_of(rs.half, np.full(128, -half_max))
    got = run(
        Reg.MulAddDst,
        dst,
        reg_of(rs.half, np.full(128, 256.0)),
        reg_of(rs.half, np.full(128, 256.0)),
        Reg.MaskReg.from_bits(FULL),
    )
    assert got[0] == 65536.0 - half_max  # 256·256 = 65536 > 65504, finite once 65504 is subtracted


def test_abs_sub_is_abs_of_the_rounded_difference() -> None:
    """AbsSub(x) = Abs(Sub(x)) (the precision appendix): int64 MIN - MAX wraps to 1; |(-0) - (-inf)| = inf."""
    lo, hi = -(2**63), 2**63 - 1
    got = run(
        Reg.AbsSub,
        Reg.RegTensor(rs.int64),
        reg_of(rs.int64, np.full(32, lo)),
        reg_of(rs.int64, np.full(32, hi)),
        Reg.MaskReg.from_bits(FULL),
    )
    assert (got == 1).all()
    got = run(
        Reg.AbsSub,
        Reg.RegTensor(rs.float32),
        reg_of(rs.float32, np.full(64, -0.0)),
        reg_of(rs.float32, np.full(64, -np.inf)),
        Reg.MaskReg.from_bits(FULL),
    )
    assert (got == np.inf).all()


def test_legacy_names() -> None:
    """Mula, FusedAbsSub and FusedMulDstAdd are the same ops (the 950 headers still compile them)."""
    a = reg_of(rs.float32, np.arange(64) - 32.0)
    b = reg_of(rs.float32, np.full(64, 3.0))
    full = Reg.MaskReg.from_bits(FULL)
    assert np.array_equal(
        run(Reg.Mula, reg_of(rs.float32, np.ones(64)), a, b, full),
        run(Reg.MulAddDst, reg_of(rs.float32, np.ones(64)), a, b, full),
    )
    assert np.array_equal(run(Reg.FusedAbsSub, Reg.RegTensor(rs.float32), a, b, full), np.abs(a.numpy() - 3))
    assert np.array_equal(run(Reg.FusedMulDstAdd, reg_of(rs.float32, np.ones(64) * 2), a, b, full), 2 * a.numpy() + 3)


def test_mul_dst_add_is_one_type() -> None:
    """MulDstAdd takes one register type for dst, src0 and src1 (the library's prototype has one U;
    the page's "half, half → float" row cannot be written): mixing half and float is a DTypeError."""
    h = reg_of(rs.half, np.zeros(128))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError, match="MulDstAdd"):
        Reg.MulDstAdd(Reg.RegTensor(rs.float32), h, h, Reg.MaskReg.from_bits(FULL))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.UnsupportedError, match="MERGING"):
        Reg.MulDstAdd(Reg.RegTensor(rs.half), h, h, Reg.MaskReg.from_bits(FULL), mode=Reg.MaskMergeMode.MERGING)


@pytest.mark.parametrize("op", list(TABLE))
@settings(max_examples=max(8, settings.default.max_examples // 5))
@given(data=st.data())
def test_half_saturation_mode(op: str, data: Any) -> None:
    """CTRL[48] = 0 (CTRL[60] = 1): the compound ops' half results saturate too (±inf → ±65504, NaN → 0)."""
    dst, a, b = (data.draw(rst.registers(rs.half), k) for k in ("dst", "a", "b"))
    mask = data.draw(rst.masks(rs.half, fill="noise"), "mask")
    old = dst.numpy()
    scalar = scalar_of(b.numpy(), "half")
    with ctrl_bit(48, 0):
        got = run(Reg.Axpy, dst, a, scalar, mask) if op == "Axpy" else run(getattr(Reg, op), dst, a, b, mask)
    operands = [values(a.numpy(), "half"), values(b.numpy(), "half")]
    if op == "Axpy":
        operands = [values(old, "half"), operands[0], [scalar] * 128]
    elif op != "AbsSub":
        operands.insert(0, values(old, "half"))
    want = O.arith_oracle(op, "half", operands, list(mask.lanes(rs.half)), half_sat=True)
    O.assert_lanes(
        got, np.array(want, np.float16), what=f"{op} half saturating", inputs={"dst": old, "a": a.numpy(), "b": b.numpy()}
    )
