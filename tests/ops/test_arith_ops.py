"""Abs, Relu, Neg, Mul, Max, Min, Prelu, Mull and the scalar forms Adds, Muls, Maxs, Mins, LeakyRelu (the
Ascend C "基础算术" pages) for every accepted dtype, trait and merge mode against the lane oracles; 8-bit ops
exhaustively; the boundary-value appendix's special values; the CTRL register's saturation modes."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest
from arith_support import FULL, compare, ctrl_bit, expected, old_form, reg_of, run, scalar_of, values
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim._src.engine.spec import REGISTRY, Kind, Role
from regsim.testing import reference as O

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
Z, M = Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING

# dtypes on Ascend 950 per page, written independently of the op specs
ABS_NEG = [rs.int8, rs.int16, rs.half, rs.int32, rs.float32, rs.int64]
RELU = [rs.half, rs.int32, rs.float32, rs.int64]
MAX_MIN = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
ADDS = [*MAX_MIN[:9], rs.complex32, rs.int64, rs.uint64, rs.complex64]
MUL = [d for d in ADDS if d.itemsize > 1]  # the Add types but the 8-bit ones
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


# --- the CTRL register: saturation modes (the SetCtrlSpr page; the boundary-value appendix) -----------
AscendC = rs.AscendC


@pytest.fixture
def ctrl() -> Iterator[Any]:
    """Restores the CTRL bits a test changes."""
    saved = {bit: AscendC.GetCtrlSpr(start_bit=bit, end_bit=bit) for bit in (48, 53, 60)}
    yield AscendC
    for bit, value in saved.items():
        AscendC.SetCtrlSpr(value, start_bit=bit, end_bit=bit)


def test_ctrl_launch_value_and_reset(ctrl: Any) -> None:
    """At launch half ops output INF/NAN (CTRL[48] = 1), integers wrap (CTRL[53] = 0) and the global
    bits govern (CTRL[60] = 1); ResetCtrlSpr restores the documented defaults (CTRL[48] = 0: saturate)."""
    assert [ctrl.GetCtrlSpr(start_bit=b, end_bit=b) for b in (48, 53, 60)] == [1, 0, 1]
    ctrl.ResetCtrlSpr(start_bit=48, end_bit=48)
    assert ctrl.GetCtrlSpr(start_bit=48, end_bit=48) == 0
    ctrl.SetCtrlSpr(5, start_bit=6, end_bit=8)
    assert ctrl.GetCtrlSpr(start_bit=6, end_bit=10) == 5
    ctrl.ResetCtrlSpr(start_bit=6, end_bit=10)
    assert ctrl.GetCtrlSpr(start_bit=0, end_bit=63) == 0x1000000000000008  # all bits now at the documented defaults


@pytest.mark.parametrize(
    ("api", "kwargs"),
    [
        ("SetCtrlSpr", {"value": 2, "start_bit": 48, "end_bit": 48}),  # value wider than the field
        ("SetCtrlSpr", {"value": 1, "start_bit": 47, "end_bit": 47}),  # not a documented bit
        ("SetCtrlSpr", {"value": 1, "start_bit": 48, "end_bit": 53}),
        ("GetCtrlSpr", {"start_bit": 9, "end_bit": 8}),
        ("GetCtrlSpr", {"start_bit": 0, "end_bit": 64}),
        ("ResetCtrlSpr", {"start_bit": 3, "end_bit": 3}),
    ],
)
def test_ctrl_bad_bits(ctrl: Any, api: str, kwargs: dict[str, int]) -> None:
    before = ctrl.GetCtrlSpr(start_bit=0, end_bit=63)
    with pytest.raises(rs.errors.ParameterError, match=api):
        getattr(ctrl, api)(**kwargs)
    assert ctrl.GetCtrlSpr(start_bit=0, end_bit=63) == before


def test_ctrl_is_host_side_and_captured_at_vf_start(ctrl: Any) -> None:
    """CTRL is the core's: set from scalar code, read by each VF as it starts."""
    a = reg_of(rs.int16, np.full(128, 32767))
    full = Reg.MaskReg.from_bits(FULL)
    with rs.VEC_SCOPE():
        with pytest.raises(rs.errors.VfContextError, match="SetCtrlSpr"):
            ctrl.SetCtrlSpr(1, start_bit=53, end_bit=53)
        dst = Reg.RegTensor(rs.int16)
        Reg.Add(dst, a, a, full)
        assert dst.numpy()[0] == -2
    ctrl.SetCtrlSpr(1, start_bit=53, end_bit=53)
    assert run(Reg.Add, Reg.RegTensor(rs.int16), a, a, full)[0] == 32767


INT_SAT = [
    pytest.param(op, d, id=f"{op}-{d.name}")
    for op in ("Add", "Sub", "Mul", "Adds", "Muls")
    for d in (rs.int16, rs.int32, rs.int8)
    if not (d is rs.int8 and op.startswith("Mul"))
]


@pytest.mark.parametrize(("op", "dtype"), INT_SAT)
@settings(max_examples=max(8, settings.default.max_examples // 5))
@given(data=st.data())
def test_integer_saturation_mode(op: str, dtype: Any, data: Any) -> None:
    """CTRL[53] = 1: int16 / int32 Add, Adds, Sub, Mul, Muls saturate (the appendix's second
    column); int8 keeps wrapping (the appendix gives saturated results for int16 and int32 only)."""
    name = dtype.name
    a = data.draw(rst.registers(dtype), "a")
    b = data.draw(rst.registers(dtype), "b")
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    second = scalar_of(b.numpy(), name) if op.endswith("s") else b
    with ctrl_bit(53, 1):
        got = run(getattr(Reg, op), Reg.RegTensor(dtype), a, second, mask)
    active = list(mask.lanes(dtype))
    b_vals = [second] * len(active) if op.endswith("s") else values(b.numpy(), name)
    want = O.arith_oracle(op, name, [values(a.numpy(), name), b_vals], active, int_sat=dtype is not rs.int8)
    O.assert_lanes(got, want, itemsize=dtype.itemsize, inputs={"a": a.numpy(), "b": b.numpy()}, what=f"{op} {name} saturating")


def test_integer_saturation_boundary_table(ctrl: Any) -> None:
    """int16 with CTRL[53] = 1: MIN + MIN → -32768, MAX + MAX → 32767, MIN - MAX → -32768, MIN·MIN → 32767."""
    lo, hi = reg_of(rs.int16, np.full(128, -32768)), reg_of(rs.int16, np.full(128, 32767))
    full = Reg.MaskReg.from_bits(FULL)
    ctrl.SetCtrlSpr(1, start_bit=53, end_bit=53)
    assert run(Reg.Add, Reg.RegTensor(rs.int16), lo, lo, full)[0] == -32768
    assert run(Reg.Add, Reg.RegTensor(rs.int16), hi, hi, full)[0] == 32767
    assert run(Reg.Sub, Reg.RegTensor(rs.int16), lo, hi, full)[0] == -32768
    assert run(Reg.Mul, Reg.RegTensor(rs.int16), lo, lo, full)[0] == 32767
    carry, dst = Reg.MaskReg(), Reg.RegTensor(rs.int32)  # the carry forms are not affected (the asc_add page)
    big = reg_of(rs.int32, np.full(64, 2**31 - 1))
    with rs.VEC_SCOPE():
        Reg.Add(carry, dst, big, big, full)
    assert dst.numpy()[0] == -2


HALF_OPS = {"Add": 2, "Sub": 2, "Mul": 2, "Max": 2, "Min": 2, "Prelu": 2, "Abs": 1, "Neg": 1, "Relu": 1, "Adds": "s", "Muls": "s"}


@pytest.mark.parametrize("op", list(HALF_OPS))
@settings(max_examples=max(8, settings.default.max_examples // 5))
@given(data=st.data())
def test_half_saturation_mode(op: str, data: Any) -> None:
    """CTRL[60] = 1 and CTRL[48] = 0: half results ±inf → ±65504, NaN → 0 (the appendix's second column)."""
    a = data.draw(rst.registers(rs.half), "a")
    b = data.draw(rst.registers(rs.half), "b")
    mask = data.draw(rst.masks(rs.half, fill="noise"), "mask")
    kind = HALF_OPS[op]
    args: list[Any] = [a] if kind == 1 else [a, b] if kind == 2 else [a, scalar_of(b.numpy(), "half")]
    with ctrl_bit(48, 0):
        got = run(getattr(Reg, op), Reg.RegTensor(rs.half), *args, mask)
    operands = [values(r.numpy(), "half") if not isinstance(r, float) else [r] * 128 for r in args]
    want = O.arith_oracle(op, "half", operands, list(mask.lanes(rs.half)), half_sat=True)
    O.assert_lanes(got, np.array(want, np.float16), what=f"{op} half saturating", inputs={"a": a.numpy(), "b": b.numpy()})


def test_half_saturation_needs_the_global_bit(ctrl: Any) -> None:
    """CTRL[48] = 0 saturates half only while CTRL[60] = 1; float32 never saturates."""
    inf_h, nan_h = reg_of(rs.half, np.full(128, np.inf)), reg_of(rs.half, np.full(128, np.nan))
    full = Reg.MaskReg.from_bits(FULL)
    ctrl.SetCtrlSpr(0, start_bit=48, end_bit=48)
    assert run(Reg.Neg, Reg.RegTensor(rs.half), inf_h, full)[0] == -65504
    assert run(Reg.Max, Reg.RegTensor(rs.half), inf_h, nan_h, full)[0] == 0
    assert (
        run(
            Reg.Mul, Reg.RegTensor(rs.float32), reg_of(rs.float32, np.full(64, 3e38)), reg_of(rs.float32, np.full(64, 10.0)), full
        )[0]
        == np.inf
    )
    ctrl.SetCtrlSpr(0, start_bit=60, end_bit=60)
    assert run(Reg.Neg, Reg.RegTensor(rs.half), inf_h, full)[0] == -np.inf


# --- Sub: (-0) - (-0) ---------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", [rs.half, rs.bfloat16, rs.float32, rs.complex32, rs.complex64], ids=lambda d: d.name)
def test_sub_of_signed_zeros_follows_ieee(dtype: Any) -> None:
    """(-0) - (-0) = +0 and (+0) - (+0) = +0, (-0) - (+0) = -0, (+0) - (-0) = +0: IEEE 754 §6.3, and the
    precision appendix's Sub(x, y) = Add(x, Neg(y)) with Add(-0, +0) = +0 (its Add table); the Sub
    table's "-0.0 | -0.0 | -0.0" row contradicts both (docs/decisions/arithmetic.md#sub-zero-sign)."""
    comp = {"complex32": np.float16, "complex64": np.float32}.get(dtype.name)
    n = 256 // dtype.itemsize * (2 if comp else 1)
    a_np = np.array([-0.0, 0.0, -0.0, 0.0] * (n // 4), comp or dtype.np_dtype)
    b_np = np.array([-0.0, 0.0, 0.0, -0.0] * (n // 4), comp or dtype.np_dtype)
    a, b = (Reg.RegTensor.from_numpy(x.view(dtype.np_dtype)) for x in (a_np, b_np))
    got = run(Reg.Sub, Reg.RegTensor(dtype), a, b, Reg.MaskReg.from_bits(FULL))
    got = got.view(comp) if comp else got
    assert np.signbit(got[:4].astype(np.float32)).tolist() == [False, False, True, False]
    active = [True] * (n // (2 if comp else 1))
    want = O.arith_oracle("Sub", dtype.name, [values(a.numpy(), dtype.name), values(b.numpy(), dtype.name)], active)
    compare(
        run(Reg.Sub, Reg.RegTensor(dtype), a, b, Reg.MaskReg.from_bits(FULL)),
        expected(want, dtype.name, a.numpy()),
        dtype.name,
        "Sub zeros",
        {},
    )


def test_scalar_forms_boundary_values() -> None:
    """Maxs(-0, +0) = +0, Mins(-0, +0) = -0 (the Maxs / Mins pages); LeakyRelu: +0 with an inf slope
    stays 0.0, -0 with a NaN slope is NaN, MIN · MIN → inf (the LeakyRelu table); each against the oracle."""
    full = Reg.MaskReg.from_bits(FULL)
    src = np.array([-0.0, 0.0, -np.inf, 1.0] * 16, np.float32)
    cases = [
        ("Maxs", 0.0, lambda d, a, s: Reg.Maxs(d, a, s, full)),
        ("Mins", 0.0, lambda d, a, s: Reg.Mins(d, a, s, full)),
        ("Maxs", -0.0, lambda d, a, s: Reg.Maxs(d, a, s, full)),
        ("LeakyRelu", np.inf, lambda d, a, s: Reg.LeakyRelu(d, a, s, full)),
        ("LeakyRelu", np.nan, lambda d, a, s: Reg.LeakyRelu(d, a, s, full)),
    ]
    for op, slope, call in cases:
        dst = Reg.RegTensor(rs.float32)
        with rs.VEC_SCOPE():
            call(dst, reg_of(rs.float32, src), slope)
        want = O.arith_oracle(op, "float32", [values(src, "float32"), [slope] * 64], [True] * 64)
        O.assert_lanes(
            dst.numpy(), np.array(want, np.float32), what=f"{op} scalar={slope}", inputs={"src": src}, nan_type=np.float32
        )
    lo = np.finfo(np.float32).min
    dst = Reg.RegTensor(rs.float32)
    with rs.VEC_SCOPE():
        Reg.LeakyRelu(dst, reg_of(rs.float32, np.full(64, lo)), float(lo), full)
    assert dst.numpy()[0] == np.inf


# --- lane functions take a leading iteration axis (the batched-loop backend calls them so) ------------
def _random_lanes(dtype: Any, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    raw = rng.integers(0, 256, (*shape, dtype.itemsize), dtype=np.uint8)
    return raw.view(dtype.np_dtype).reshape(shape)


@pytest.mark.parametrize(
    "spec",
    [s for s in REGISTRY.specs.values() if s.family in ("arith", "compound") and s.lane is not None],
    ids=lambda s: s.key,
)
def test_lane_functions_batch_over_leading_axes(spec: Any) -> None:
    """lane(stacked rows)[k] == lane(row k), bit for bit, for every dtype of the op."""
    rng = np.random.default_rng(0)
    for dtype in sorted(spec.dtypes, key=lambda d: d.name):
        n = 256 // dtype.itemsize
        rows = []
        for o in (o for o in spec.operands if o.role is not Role.OUT):
            if o.kind is Kind.REG:
                src_t = dtype if not spec.variant.startswith("complex") else next(iter(spec.operand("src_reg").dtypes.dtypes))
                rows.append(_random_lanes(src_t, (3, 256 // src_t.itemsize), rng))
            elif o.kind is Kind.SCALAR:
                rows.append(_random_lanes(dtype, (1,), rng)[0])
            elif o.kind is Kind.MASK:
                rows.append(rng.integers(0, 2, (3, n)).astype(bool))
        with np.errstate(all="ignore"):
            batched = spec.lane(*rows)
            single = [spec.lane(*[r[k] if np.ndim(r) else r for r in rows]) for k in range(3)]
        parts = batched if isinstance(batched, tuple) else (batched,)
        for j, part in enumerate(parts):
            for k in range(3):
                want = single[k][j] if isinstance(batched, tuple) else single[k]
                assert np.array_equal(np.asarray(part[k]).view(np.uint8), np.asarray(want).view(np.uint8)), (
                    spec.key,
                    dtype.name,
                    j,
                    k,
                )


# --- batched VF loops give the bits of running in order -------------------------------------------------
@rs.simd_vf
def _loop_vf(
    lo: rs.UbPtr[rs.int32],
    hi: rs.UbPtr[rs.int32],
    mag: rs.UbPtr[rs.float32],
    src: rs.UbPtr[rs.int32],
    z: rs.UbPtr[rs.complex64],
    n: int,
) -> None:
    a, d0, d1 = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32)
    c, m = Reg.RegTensor(rs.complex64), Reg.RegTensor(rs.float32)
    count = rs.Ref(n)
    for i in range(4):
        mask = Reg.UpdateMask(rs.int32, count)
        Reg.LoadAlign(a, src + i * 64)
        Reg.Mull(d0, d1, a, a, mask)
        Reg.Adds(a, a, -7, mask)
        Reg.StoreAlign(lo + i * 64, d0, mask)
        Reg.StoreAlign(hi + i * 64, d1, mask)
        Reg.LoadAlign(c, z + i * 32)
        Reg.Abs(m, c, Reg.CreateMask(rs.complex64))
        Reg.StoreAlign(mag + i * 64, m, Reg.CreateMask(rs.float32))


def test_batched_loops_match_sequential() -> None:
    """Mull (two outputs) and the complex Abs run in batched loops with the results of the in-order run."""
    rng = np.random.default_rng(3)
    src = rng.integers(-(2**31), 2**31, 256).astype(np.int32)
    z = (rng.standard_normal(128) + 1j * rng.standard_normal(128)).astype(np.complex64)
    outs = []
    for loops in ("batched", "sequential"):
        ub = rs.UnifiedBuffer()
        s, zz = ub.alloc(rs.int32, 256), ub.alloc(rs.complex64, 128)
        lo, hi, mag = ub.alloc(rs.int32, 256), ub.alloc(rs.int32, 256), ub.alloc(rs.float32, 256)
        s.set(src)
        zz.set(z)
        for t in (lo, hi):
            t.set(np.zeros(256, np.int32))
        with rs.configure(loops=loops):
            rs.asc_vf_call(_loop_vf, lo.GetPhyAddr(), hi.GetPhyAddr(), mag.GetPhyAddr(), s.GetPhyAddr(), zz.GetPhyAddr(), 250)
        outs.append([lo.numpy(), hi.numpy(), mag.numpy()])
    for got, want in zip(*outs, strict=True):
        O.assert_lanes(got, want, what="batched vs sequential")
    want_lo, want_hi = O.mull_oracle("int32", src.tolist(), src.tolist(), [True] * 250 + [False] * 6)
    O.assert_lanes(outs[1][0][:250], want_lo[:250], itemsize=4, what="Mull lo in a loop")
    O.assert_lanes(outs[1][1][:250], want_hi[:250], itemsize=4, what="Mull hi in a loop")


def test_complex_abs_saturates_each_step() -> None:
    """In the half saturation mode |300 + 400j| is sqrt(sat(sat(90000) + sat(160000))) = sqrt(65504) → 255.875,
    as the library's four saturating half ops give (in INF/NAN mode it is inf)."""
    z = reg_of(rs.complex32, np.full(64, 300 + 400j))
    full = Reg.MaskReg.from_bits(FULL)
    assert run(Reg.Abs, Reg.RegTensor(rs.half), z, full)[0] == np.inf
    with ctrl_bit(48, 0):
        got = run(Reg.Abs, Reg.RegTensor(rs.half), z, full)
    want = O.complex_abs_oracle("complex32", [300 + 400j] * 64, [True] * 64, 128, half_sat=True)
    O.assert_lanes(got, np.array(want, np.float16), what="Abs complex32 saturating")
    assert got[0] == 255.875  # sqrt(65504) = 255.93749..., just below the half midpoint 255.9375


@pytest.mark.parametrize("op", ["Mul", "Muls", "Adds", "Add", "Sub"])
@settings(max_examples=max(8, settings.default.max_examples // 5))
@given(data=st.data())
def test_complex32_half_saturation(op: str, data: Any) -> None:
    """complex32 is computed on halves: in the half saturation mode each of the library's steps saturates
    (inf · 1 - 60000 is 65504 - 60000 = 5504, not inf)."""
    a = data.draw(rst.registers(rs.complex32), "a")
    b = data.draw(rst.registers(rs.complex32), "b")
    mask = data.draw(rst.masks(rs.complex32, fill="noise"), "mask")
    second = scalar_of(b.numpy(), "complex32") if op.endswith("s") else b
    with ctrl_bit(48, 0):
        got = run(getattr(Reg, op), Reg.RegTensor(rs.complex32), a, second, mask)
    active = list(mask.lanes(rs.complex32))
    b_vals = [second] * len(active) if op.endswith("s") else values(b.numpy(), "complex32")
    want = O.arith_oracle(op, "complex32", [values(a.numpy(), "complex32"), b_vals], active, half_sat=True)
    compare(got, expected(want, "complex32", got), "complex32", f"{op} complex32 saturating", {})


def test_complex_mul_saturates_each_step() -> None:
    z = reg_of(rs.complex32, np.full(64, 1024 + 240j))
    w = reg_of(rs.complex32, np.full(64, 128 + 250j))
    with ctrl_bit(48, 0):
        got = run(Reg.Mul, Reg.RegTensor(rs.complex32), z, w, Reg.MaskReg.from_bits(FULL)).view(np.float16)
    assert got[0] == 65504 - 60000  # re = sat(1024·128 = 131072) - 240·250
