"""Abs, Relu, Neg, Mul, Max, Min, Prelu, Mull and the scalar forms Adds, Muls, Maxs, Mins, LeakyRelu (the
Ascend C "基础算术" pages) for every accepted dtype, trait and merge mode against the lane oracles; 8-bit ops
exhaustively; the boundary-value appendix's special values; the CTRL register's saturation modes."""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest
from arith_support import FULL, compare, expected, old_form, reg_of, run, scalar_of, values
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.testing import reference as O

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
Z, M = Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING

# dtypes on Ascend 950 per page, written independently of the op specs
ABS_NEG = [rs.int8, rs.int16, rs.half, rs.int32, rs.float32, rs.int64]
RELU = [rs.half, rs.int32, rs.float32, rs.int64]
MUL = [
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
MAX_MIN = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
ADDS = [*MAX_MIN[:9], rs.complex32, rs.int64, rs.uint64, rs.complex64]
MULS = [d for d in MUL if d is not rs.bfloat16]
SLOPE = [rs.half, rs.float32]

UNARY = {"Abs": ABS_NEG, "Neg": ABS_NEG, "Relu": RELU}
BINARY = {"Mul": MUL, "Max": MAX_MIN, "Min": MAX_MIN, "Prelu": SLOPE}
SCALAR = {"Adds": ADDS, "Muls": MULS, "Maxs": MAX_MIN, "Mins": MAX_MIN, "LeakyRelu": SLOPE}
MERGING = {"Max", "Min"}


def _cases(table: dict[str, list[Any]]) -> list[Any]:
    out = []
    for op, dtypes in table.items():
        for d in dtypes:
            out.append(pytest.param(op, d, ONE, id=f"{op}-{d.name}"))
            if d.name in O.TRAIT_TWO:
                out.append(pytest.param(op, d, TWO, id=f"{op}-{d.name}-two"))
    return out


PER_CASE = settings(max_examples=max(8, settings.default.max_examples // 5))


def _check(op: str, dtype: Any, trait: Any, dst: Any, inputs: list[Any], mask: Any, mode: Any, scalar: Any = None) -> None:
    """Run Reg.<op>(dst, *inputs[, scalar], mask, mode=mode) and compare with arith_oracle."""
    name = dtype.name
    old = dst.numpy()
    args = [*inputs, *([] if scalar is None else [scalar]), mask]
    got = run(getattr(Reg, op), dst, *args, mode=mode)
    active = list(mask.lanes(dtype, trait))
    operands = [values(r.numpy(), name) for r in inputs] + ([[scalar] * len(active)] if scalar is not None else [])
    want = O.arith_oracle(op, name, operands, active, old_form(old, name) if mode is M else None)
    compare(got, expected(want, name, old), name, f"{op} {name} {trait!r} {mode.name}", {"src": inputs[0].numpy()})


@pytest.mark.parametrize(("op", "dtype", "trait"), _cases(UNARY))
@PER_CASE
@given(data=st.data())
def test_unary_matches_oracle(op: str, dtype: Any, trait: Any, data: Any) -> None:
    """dst[i] = mask[i] ? op(src[i]) : 0 on a dirty dst; the mask read only at bit i * stride."""
    src = data.draw(rst.registers(dtype, trait), "src")
    dst = data.draw(rst.registers(dtype, trait), "dst")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    _check(op, dtype, trait, dst, [src], mask, Z)


@pytest.mark.parametrize(("op", "dtype", "trait"), _cases(BINARY))
@PER_CASE
@given(data=st.data())
def test_binary_matches_oracle(op: str, dtype: Any, trait: Any, data: Any) -> None:
    """ZEROING on a dirty dst, and MERGING (old lanes kept bit for bit) where the page accepts it."""
    a = data.draw(rst.registers(dtype, trait), "a")
    b = data.draw(rst.registers(dtype, trait), "b")
    dst = data.draw(rst.registers(dtype, trait), "dst")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    mode = data.draw(st.sampled_from([Z, M] if op in MERGING else [Z]), "mode")
    _check(op, dtype, trait, dst, [a, b], mask, mode)


@pytest.mark.parametrize(("op", "dtype", "trait"), _cases(SCALAR))
@PER_CASE
@given(data=st.data())
def test_scalar_form_matches_oracle(op: str, dtype: Any, trait: Any, data: Any) -> None:
    """dst[i] = mask[i] ? op(src[i], scalar) : 0, the scalar a Python number of the element type."""
    src = data.draw(rst.registers(dtype, trait), "src")
    dst = data.draw(rst.registers(dtype, trait), "dst")
    scalar = scalar_of(data.draw(rst.registers(dtype, trait), "scalar").numpy(), dtype.name)
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    _check(op, dtype, trait, dst, [src], mask, Z, scalar)


@pytest.mark.parametrize("dtype", [rs.int8, rs.uint8], ids=lambda d: d.name)
@pytest.mark.parametrize("op", ["Max", "Min", "Maxs", "Mins", "Adds"])
def test_8bit_exhaustive(dtype: Any, op: str) -> None:
    """All 65 536 (a, b) pairs: lane i holds a = i (as bits), b one value per call."""
    name = dtype.name
    a_np = np.arange(256, dtype=np.uint8).view(dtype.np_dtype)
    a = reg_of(dtype, a_np)
    a_vals = values(a_np, name)
    full = Reg.MaskReg.from_lanes(dtype, FULL)
    for k in range(256):
        b_val = values(np.array([k], np.uint8).view(dtype.np_dtype), name)[0]
        second = b_val if op.endswith("s") else reg_of(dtype, np.full(256, b_val))
        got = run(getattr(Reg, op), Reg.RegTensor(dtype), a, second, full)
        want = O.arith_oracle(op, name, [a_vals, [b_val] * 256], [True] * 256)
        O.assert_lanes(got, want, itemsize=1, inputs={"a": a_np}, what=f"{op} {name} b={b_val}")


@pytest.mark.parametrize("op", ["Abs", "Neg"])
def test_int8_unary_exhaustive(op: str) -> None:
    a_np = np.arange(-128, 128, dtype=np.int8)
    got = run(getattr(Reg, op), Reg.RegTensor(rs.int8), reg_of(rs.int8, a_np), Reg.MaskReg.from_lanes(rs.int8, FULL))
    want = O.arith_oracle(op, "int8", [values(a_np, "int8")], [True] * 256)
    O.assert_lanes(got, want, itemsize=1, inputs={"a": a_np}, what=f"{op} int8")
    assert got[0] == -128  # |-128| wraps to -128 (the Abs page); -(-128) likewise


# --- Mull -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [rs.int32, rs.uint32], ids=lambda d: d.name)
@settings(max_examples=max(8, settings.default.max_examples // 3))
@given(data=st.data())
def test_mull_matches_oracle(dtype: Any, data: Any) -> None:
    """(dst0, dst1) = low and high words of the exact product; both zeroed on inactive lanes."""
    a = data.draw(rst.registers(dtype), "a")
    b = data.draw(rst.registers(dtype), "b")
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    lo, hi = data.draw(rst.registers(dtype), "lo"), data.draw(rst.registers(dtype), "hi")
    with rs.VEC_SCOPE():
        Reg.Mull(lo, hi, a, b, mask)
    want_lo, want_hi = O.mull_oracle(
        dtype.name, values(a.numpy(), dtype.name), values(b.numpy(), dtype.name), list(mask.lanes(dtype))
    )
    O.assert_lanes(lo.numpy(), want_lo, itemsize=4, inputs={"a": a.numpy(), "b": b.numpy()}, what="Mull low")
    O.assert_lanes(hi.numpy(), want_hi, itemsize=4, inputs={"a": a.numpy(), "b": b.numpy()}, what="Mull high")


def test_mull_boundary_table() -> None:
    """The boundary-value appendix: u32 MAX·MAX → (1, 4294967294); i32 MIN·MIN → (0, 2**30),
    MIN·MAX → (-2**31, -2**30), MAX·MAX → (1, 2**30 - 1)."""
    i32 = np.array([-(2**31), -(2**31), 2**31 - 1] * 21 + [0], np.int32)
    j32 = np.array([-(2**31), 2**31 - 1, 2**31 - 1] * 21 + [0], np.int32)
    lo, hi = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    with rs.VEC_SCOPE():
        Reg.Mull(lo, hi, reg_of(rs.int32, i32), reg_of(rs.int32, j32), Reg.MaskReg.from_lanes(rs.int32, np.ones(64, bool)))
    assert lo.numpy()[:3].tolist() == [0, -(2**31), 1]
    assert hi.numpy()[:3].tolist() == [2**30, -(2**30), 2**30 - 1]
    u = reg_of(rs.uint32, np.full(64, 2**32 - 1))
    ulo, uhi = Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32)
    with rs.VEC_SCOPE():
        Reg.Mull(ulo, uhi, u, u, Reg.MaskReg.from_lanes(rs.uint32, np.ones(64, bool)))
    assert ulo.numpy()[0] == 1 and uhi.numpy()[0] == 4294967294


# --- Abs of complex -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("src_t", "dst_t", "trait"),
    [
        (rs.complex32, rs.half, ONE),
        (rs.complex32, rs.half, TWO),
        (rs.complex64, rs.float32, ONE),
        (rs.complex64, rs.float32, TWO),
    ],
    ids=["c32-one", "c32-two", "c64-one", "c64-two"],
)
@PER_CASE
@given(data=st.data())
def test_complex_abs_matches_oracle(src_t: Any, dst_t: Any, trait: Any, data: Any) -> None:
    """|z| into the component type, lanes past a one-register source's zero."""
    src = data.draw(rst.registers(src_t, trait), "src")
    dst = data.draw(rst.registers(dst_t), "dst")
    mask = data.draw(rst.masks(src_t, trait, fill="noise"), "mask")
    got = run(Reg.Abs, dst, src, mask)
    want = O.complex_abs_oracle(src_t.name, values(src.numpy(), src_t.name), list(mask.lanes(src_t, trait)), got.size)
    O.assert_lanes(got, np.array(want, dst_t.np_dtype), what=f"Abs {src_t.name} {trait!r}", nan_type=dst_t.np_dtype.type)


# --- the boundary-value appendix, by hand ---------------------------------------------------------------
def _lanes(dtype: Any, xs: list[float]) -> Reg.RegTensor[Any]:
    n = 256 // dtype.itemsize
    return reg_of(dtype, (xs * n)[:n])


@pytest.mark.parametrize("dtype", [rs.half, rs.float32, rs.bfloat16], ids=lambda d: d.name)
def test_signed_zero_and_nan_rules(dtype: Any) -> None:
    """Max(-0, +0) = Max(+0, -0) = +0, Min = -0 both ways (the Max / Min pages); NaN wins either side;
    Relu(-0) = +0; Neg(0) = -0; Prelu(+0, -inf) = +0 and Prelu(-0, inf) = NaN (the Prelu table)."""
    a = _lanes(dtype, [-0.0, 0.0, np.nan, 1.0])
    b = _lanes(dtype, [0.0, -0.0, 1.0, np.nan])
    full = Reg.MaskReg.from_bits(FULL)
    mx = run(Reg.Max, Reg.RegTensor(dtype), a, b, full)[:4].astype(np.float64)
    mn = run(Reg.Min, Reg.RegTensor(dtype), a, b, full)[:4].astype(np.float64)
    assert np.signbit(mx[:2]).tolist() == [False, False] and np.isnan(mx[2:]).all()
    assert np.signbit(mn[:2]).tolist() == [True, True] and np.isnan(mn[2:]).all()
    if dtype is rs.bfloat16:
        return
    relu = run(Reg.Relu, Reg.RegTensor(dtype), a, full)[:2]
    assert not np.signbit(relu).any()
    neg = run(Reg.Neg, Reg.RegTensor(dtype), _lanes(dtype, [0.0, -0.0]), full)[:2]
    assert np.signbit(neg).tolist() == [True, False]
    pre = run(Reg.Prelu, Reg.RegTensor(dtype), _lanes(dtype, [0.0, -0.0, 0.0]), _lanes(dtype, [-np.inf, np.inf, np.nan]), full)
    assert pre[0] == 0 and not np.signbit(pre[0]) and np.isnan(pre[1]) and pre[2] == 0


def test_integer_mul_wraps_by_default() -> None:
    """int16 Mul: MIN·MIN → 0, MIN·MAX → -32768, MAX·MAX → 1 (the boundary table's first column)."""
    a = reg_of(rs.int16, [-32768, -32768, 32767] * 42 + [0, 0])
    b = reg_of(rs.int16, [-32768, 32767, 32767] * 42 + [0, 0])
    got = run(Reg.Mul, Reg.RegTensor(rs.int16), a, b, Reg.MaskReg.from_bits(FULL))
    assert got[:3].tolist() == [0, -32768, 1]


def test_bfloat16_mul_is_rounded_through_float32() -> None:
    """bfloat16 Mul = rint_to_bf16(Mul(cast_to_f32(x), cast_to_f32(y))) (the precision appendix):
    (1 + 2**-7)(1 + 2**-7) = 1 + 2**-6 + 2**-14 rounds to 1 + 2**-6."""
    x = reg_of(rs.bfloat16, np.full(128, 1 + 2**-7))
    got = run(Reg.Mul, Reg.RegTensor(rs.bfloat16), x, x, Reg.MaskReg.from_bits(FULL))
    assert float(got[0]) == 1 + 2**-6


def test_complex_mul_rounds_each_step() -> None:
    """complex32 (300 + 300j)²: re = 90000 - 90000 with both products inf in half → NaN; im = inf."""
    z = reg_of(rs.complex32, np.full(64, 300 + 300j))
    got = run(Reg.Mul, Reg.RegTensor(rs.complex32), z, z, Reg.MaskReg.from_bits(FULL)).view(np.float16)
    assert np.isnan(got[0]) and got[1] == np.inf


# --- errors -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["Mul", "Prelu"])
def test_merging_is_unsupported_where_the_appendix_says(op: str) -> None:
    a = _lanes(rs.float32, [1.0])
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.UnsupportedError, match="MERGING"):
        getattr(Reg, op)(Reg.RegTensor(rs.float32), a, a, Reg.MaskReg.from_bits(FULL), mode=M)


@pytest.mark.parametrize(
    ("op", "dtype"), [("Muls", rs.bfloat16), ("Mul", rs.int8), ("Relu", rs.int16), ("LeakyRelu", rs.bfloat16)]
)
def test_other_dtypes_are_rejected(op: str, dtype: Any) -> None:
    a = reg_of(dtype, np.zeros(256 // dtype.itemsize))
    args = [a] if op == "Relu" else [a, 1] if op in SCALAR else [a, a]
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError, match=op):
        getattr(Reg, op)(Reg.RegTensor(dtype), *args, Reg.MaskReg.from_bits(FULL))


def test_complex_abs_needs_the_component_type() -> None:
    z = reg_of(rs.complex64, np.zeros(32))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError, match="Abs"):
        Reg.Abs(Reg.RegTensor(rs.half), z, Reg.MaskReg.from_bits(FULL))


@pytest.mark.parametrize(("dtype", "scalar"), [(rs.int8, 128), (rs.uint16, -1), (rs.int32, 1.5), (rs.float32, 1 + 2j)])
def test_scalars_must_fit_the_element_type(dtype: Any, scalar: Any) -> None:
    a = reg_of(dtype, np.zeros(256 // dtype.itemsize))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.ParameterError, match="scalar_value"):
        Reg.Adds(Reg.RegTensor(dtype), a, scalar, Reg.MaskReg.from_bits(FULL))


def test_scalars_accept_numpy_numbers() -> None:
    a = reg_of(rs.half, np.full(128, 1.5))
    got = run(Reg.Muls, Reg.RegTensor(rs.half), a, np.float16(2), Reg.MaskReg.from_bits(FULL))
    assert (got == 3).all()
    c = reg_of(rs.complex32, np.full(64, 1 + 1j))
    got = run(Reg.Adds, Reg.RegTensor(rs.complex32), c, 1j, Reg.MaskReg.from_bits(FULL))
    assert (got.view(np.float16).reshape(-1, 2) == [1, 2]).all()
    assert got.dtype == ml_dtypes.complex32
