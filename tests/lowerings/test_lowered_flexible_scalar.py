"""The 950 flexible-scalar overloads (灵活标量位置) of Adds, Muls, Maxs, Mins, Compares and Select: the scalar is a
LocalTensor's element 0 (`src1Local[k]`), first or second as `BinaryConfig(scalarTensorIndex)` says, or an immediate
first. Every API x
interface x dtype x side against the independent addressing oracle (regsim.testing.lowering_reference, the scalar
as the left operand for index 0), Hypothesis over masks, strides, repeats and mask modes, both loop modes, the
lowering (a broadcast load of the element, then the tensor-tensor Reg op), and violations that raise and write
nothing (docs/decisions/memory-level.md#flexible-scalar)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import (
    CMP_COUNT,
    CMP_REPEAT,
    COUNT_DTYPES,
    FORMS,
    MODES,
    SCALAR_B16_B32,
    SEL_COUNT,
    SEL_REPEAT,
    assert_same,
    compare_tensors,
    counter_mode,
    draw_mask,
    repeat_span,
    run_both,
    run_in_form,
    select_tensors,
    tensors,
    values,
)

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
ARITH = ("Adds", "Muls", "Maxs", "Mins")
SIDES = (0, 1)
S1 = A.SELMODE.VSEL_TENSOR_SCALAR_MODE


def operands(idx: int, vec: Any, scalar: Any) -> tuple[Any, Any]:
    """(src0, src1) of a flexible call: the scalar element on side `idx`."""
    return (scalar, vec) if idx == 0 else (vec, scalar)


def element(t: Any, k: int) -> Any:
    """Element k of tensor t as the oracle's scalar (a numpy scalar of t's type)."""
    return t.numpy()[k]


# --- the basic arithmetic: Adds, Muls, Maxs, Mins --------------------------------------------------------------------
ARITH_COUNT = [(api, d, i) for api in ARITH for d in COUNT_DTYPES[api] for i in SIDES]


@pytest.mark.parametrize(("api", "dtype", "idx"), ARITH_COUNT, ids=[f"{a}-{d.name}-idx{i}" for a, d, i in ARITH_COUNT])
def test_arith_first_n(api: str, dtype: Any, idx: int) -> None:
    lanes = 256 // dtype.itemsize
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, (dst, vec, sc) = tensors(dtype, 3 * lanes, seed=count + idx)
        k = (count * 7 + 5) % sc.size  # any element: `src1Local[k]`
        d0, v, s, s_all = dst.numpy(), vec.numpy(), element(sc, k), sc.numpy()
        src0, src1 = operands(idx, vec, sc[k])
        run_both(lambda: getattr(A, api)(dst, src0, src1, count, config=A.BinaryConfig(idx)), ub)  # noqa: B023
        want = MO.first_n(api, d0, [v], count, s, scalar_first=idx == 0)
        assert_same(dst.numpy(), want, f"{api}({dtype.name}, idx={idx}, count={count})")
        assert_same(sc.numpy(), s_all, "the scalar's tensor unchanged")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_arith_repeat_hypothesis(data: st.DataObject) -> None:
    api = data.draw(st.sampled_from(ARITH), "api")
    dtype = data.draw(st.sampled_from(SCALAR_B16_B32), "dtype")
    idx = data.draw(st.sampled_from(SIDES), "scalarTensorIndex")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(FORMS), "form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3)), "block strides (dst, src)")
    rep = data.draw(st.tuples(st.integers(0, 16), st.integers(0, 16)), "repeat strides (dst, src)")
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    _, n = repeat_span(dtype, form, count, repeats, blk, rep, slack=lanes)
    ub, (dst, vec, sc) = tensors(dtype, n, seed=data.draw(st.integers(0, 999)))
    k = data.draw(st.integers(0, n - 1), "scalar element")
    d0, v, s = dst.numpy(), vec.numpy(), element(sc, k)
    if form == "bit":
        lo = data.draw(st.integers(0, 2**64 - 1) if lanes > 32 else st.integers(0, 2**32 - 1), "mask[0]")
        hi = data.draw(st.integers(0, 2**64 - 1), "mask[1]") if lanes > 64 else 0
        mask: Any = [lo, hi] if lo or hi else [1, 0]
    else:
        mask = count if form == "counter" else data.draw(st.integers(1, min(lanes, 128)), "mask")
    params = A.UnaryRepeatParams(blk[0], blk[1], rep[0], rep[1])
    strides = (blk[0], blk[1], rep[0], rep[1])
    src0, src1 = operands(idx, vec, sc[k])
    call = lambda: getattr(A, api)(dst, src0, src1, mask, repeats, params, config=A.BinaryConfig(idx))  # noqa: E731
    if form == "counter":
        with counter_mode():
            run_both(call, ub)
        want = MO.counter_mode(api, d0, [v], count, strides, s, scalar_first=idx == 0)
    else:
        run_both(call, ub)
        want = MO.normal_mode(api, d0, [v], mask, repeats, strides, s, scalar_first=idx == 0)
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, idx={idx}, {form}, mask={mask}, repeat={repeats}, {strides})")


def test_arith_is_set_mask_false_reads_the_vector_mask() -> None:
    ub, (dst, vec, sc) = tensors(rs.float32, 256, seed=3)
    d0, v, s = dst.numpy(), vec.numpy(), element(sc, 9)
    A.SetVectorMask(rs.float32, 0, 0xF0F0)
    try:
        run_both(lambda: A.Muls(dst, sc[9], vec, A.MASK_PLACEHOLDER, 2, A.UnaryRepeatParams(), is_set_mask=False,
                                config=A.BinaryConfig(0)), ub)  # fmt: skip
    finally:
        A.ResetMask()
    assert_same(dst.numpy(), MO.normal_mode("Muls", d0, [v], [0xF0F0, 0], 2, (1, 1, 8, 8), s, scalar_first=True), "Muls")


@pytest.mark.parametrize("api", ARITH)
def test_scalar_first_immediate_runs_as_scalar_second(api: str) -> None:
    """`Adds(dst, scalar, srcLocal, ...)`: the library calls `AddsImpl(dst, srcLocal, scalar)` (the ops commute)."""
    for rest in ((70,), (40, 2, A.UnaryRepeatParams())):
        ub, (dst, vec, _) = tensors(rs.half, 256, seed=1)
        d0, v = dst.numpy(), vec.numpy()
        run_both(lambda: getattr(A, api)(dst, 2.5, vec, *rest), ub)  # noqa: B023
        if len(rest) == 1:
            want = MO.first_n(api, d0, [v], 70, 2.5, scalar_first=True)
        else:
            want = MO.normal_mode(api, d0, [v], 40, 2, (1, 1, 8, 8), 2.5, scalar_first=True)
        assert_same(dst.numpy(), want, f"{api}(dst, 2.5, src, {rest})")


def test_default_config_is_the_scalar_second() -> None:
    _ub, (dst, vec, sc) = tensors(rs.int32, 64, seed=2)
    d0, v, s = dst.numpy(), vec.numpy(), element(sc, 0)
    A.Maxs(dst, vec, sc, 64)
    assert_same(dst.numpy(), MO.first_n("Maxs", d0, [v], 64, s), "Maxs default")
    assert A.DEFAULT_BINARY_CONFIG == A.BinaryConfig(1) == A.BinaryConfig(scalarTensorIndex=1)


# --- Compares ----------------------------------------------------------------------------------------------------------
CMP_CASES = [(d, i) for d in CMP_COUNT for i in SIDES]


@pytest.mark.parametrize(("dtype", "idx"), CMP_CASES, ids=[f"{d.name}-idx{i}" for d, i in CMP_CASES])
def test_compares_first_n(dtype: Any, idx: int) -> None:
    per_block = 256 // dtype.itemsize
    per = per_block * (2 if dtype.itemsize == 8 else 1)
    for j, mode in enumerate(MODES):
        count = per_block * (1 + j % 3)
        ub, dst, vec, sc = compare_tensors(dtype, 3 * per_block, 6 * per_block // 8 + 32, seed=j)
        k = (5 * j + 3) % sc.size
        d0, v, s = dst.numpy(), vec.numpy(), element(sc, k)
        src0, src1 = operands(idx, vec, sc[k])
        cm = getattr(A.CMPMODE, mode)
        run_both(lambda: A.Compares(dst, src0, src1, cm, count, config=A.BinaryConfig(idx)), ub)  # noqa: B023
        want = MO.compare_first_n(mode, d0, *((s, v) if idx == 0 else (v, s)), count, per)
        assert_same(dst.numpy(), want, f"Compares({dtype.name}, {mode}, idx={idx}, count={count})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_compares_repeat_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(CMP_REPEAT), "dtype")
    mode = data.draw(st.sampled_from(MODES), "mode")
    idx = data.draw(st.sampled_from(SIDES), "scalarTensorIndex")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(FORMS), "form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.integers(0, 3), "src block stride")
    rep = data.draw(st.integers(0, 12), "src repeat stride")
    dst_strides = data.draw(st.tuples(st.integers(0, 3), st.integers(0, 9)), "dst strides (unused)")
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    reps, n = repeat_span(dtype, form, count, repeats, (blk,), (rep,), slack=1)
    ub, dst, vec, sc = compare_tensors(dtype, n, max(reps, 1) * lanes // 8 + 32, data.draw(st.integers(0, 999)))
    k = data.draw(st.integers(0, n - 1), "scalar element")
    mask = draw_mask(data, form, lanes, count)
    params = A.UnaryRepeatParams(dst_strides[0], blk, dst_strides[1], rep)
    d0, v, s = dst.numpy(), vec.numpy(), element(sc, k)
    src0, src1 = operands(idx, vec, sc[k])
    cm = getattr(A.CMPMODE, mode)
    call = lambda: A.Compares(dst, src0, src1, cm, mask, repeats, params, config=A.BinaryConfig(idx))  # noqa: E731
    sel = run_in_form(call, ub, form, mask, dtype)
    want = MO.compare_repeat(mode, d0, *((s, v) if idx == 0 else (v, s)), sel, reps, (blk, rep))
    assert_same(dst.numpy(), want, f"Compares({dtype.name}, {mode}, idx={idx}, {form}, mask={mask}, repeat={repeats})")


@pytest.mark.parametrize("dtype", [rs.int8, rs.half, rs.float32, rs.int64])
def test_compares_immediate_first(dtype: Any) -> None:
    """`Compares(dst, scalar, srcLocal, ...)`: the library's `CompareSrc0Scalar*` (the immediate `Duplicate`d)."""
    per_block = 256 // dtype.itemsize
    per = per_block * (2 if dtype.itemsize == 8 else 1)
    ub, dst, vec, _ = compare_tensors(dtype, 2 * per, 2 * per // 8 + 32, seed=7)
    d0, v = dst.numpy(), vec.numpy()
    run_both(lambda: A.Compares(dst, 2, vec, A.CMPMODE.GE, 2 * per), ub)
    assert_same(dst.numpy(), MO.compare_first_n("GE", d0, 2, v, 2 * per, per), f"Compares({dtype.name}, 2 first)")
    if dtype.itemsize in (2, 4):
        d0 = dst.numpy()
        params = A.UnaryRepeatParams(1, 2, 8, 3)
        run_both(lambda: A.Compares(dst, 1, vec, A.CMPMODE.NE, [0xF00F, 0], 3, params), ub)
        bits = MO.mask_elements(dtype.itemsize, [0xF00F, 0])
        want = MO.compare_repeat("NE", d0, 1, v, lambda r, k: bits[k], 3, (2, 3))
        assert_same(dst.numpy(), want, f"Compares({dtype.name}, 1 first, repeat)")


# --- Select (mode 1) -------------------------------------------------------------------------------------------------
SEL_CASES = [(d, i) for d in SEL_COUNT for i in SIDES]


@pytest.mark.parametrize(("dtype", "idx"), SEL_CASES, ids=[f"{d.name}-idx{i}" for d, i in SEL_CASES])
def test_select_first_n(dtype: Any, idx: int) -> None:
    per = 256 // dtype.itemsize * (2 if dtype.itemsize == 8 else 1)
    for j, count in enumerate((0, 1, per + 5, 3 * per)):
        sel_type = [rs.uint8, rs.uint16, rs.uint32, rs.uint64][j]
        ub, dst, sel, vec, sc = select_tensors(dtype, 3 * per, 3 * per // 8, sel_type, seed=count + idx)
        k = (11 * j + 2) % sc.size
        d0, v, m, s = dst.numpy(), vec.numpy(), sel.numpy().view(np.uint8), element(sc, k)
        src0, src1 = operands(idx, vec, sc[k])
        run_both(lambda: A.Select(dst, sel, src0, src1, S1, count, config=A.BinaryConfig(idx)), ub)  # noqa: B023
        want = MO.select_first_n(d0, m, *((s, v) if idx == 0 else (v, s)), 1, count)
        assert_same(dst.numpy(), want, f"Select({dtype.name}, idx={idx}, count={count}, sel {sel_type.name})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_select_repeat_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(SEL_REPEAT), "dtype")
    idx = data.draw(st.sampled_from(SIDES), "scalarTensorIndex")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(FORMS), "form")
    repeats = data.draw(st.integers(0, 5), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12)), "repeat strides")
    count = data.draw(st.integers(1, 5 * lanes), "count (counter mode)")
    reps, n = repeat_span(dtype, form, count, repeats, blk, rep, slack=1)
    ub, dst, sel, vec, sc = select_tensors(dtype, n, max(reps, 1) * lanes // 8, rs.uint8, data.draw(st.integers(0, 999)))
    k = data.draw(st.integers(0, n - 1), "scalar element")
    d0, v, m, s = dst.numpy(), vec.numpy(), sel.numpy(), element(sc, k)
    params = A.BinaryRepeatParams(*blk, *rep)
    mask = draw_mask(data, form, lanes, count)
    src0, src1 = operands(idx, vec, sc[k])
    call = lambda: A.Select(dst, sel, src0, src1, S1, mask, repeats, params, config=A.BinaryConfig(idx))  # noqa: E731
    selected = run_in_form(call, ub, form, mask, dtype)
    want = MO.select_repeat(d0, m, *((s, v) if idx == 0 else (v, s)), 1, selected, reps, (*blk, *rep))
    assert_same(dst.numpy(), want, f"Select({dtype.name}, idx={idx}, {form}, mask={mask}, repeat={repeats})")


def test_select_both_tensors_in_mode_1_default_to_the_scalar_second() -> None:
    _ub, dst, sel, vec, sc = select_tensors(rs.half, 256, 32, rs.uint8, seed=4)
    d0, v, m, s = dst.numpy(), vec.numpy(), sel.numpy(), element(sc, 0)
    A.Select(dst, sel, vec, sc, S1, 256)
    assert_same(dst.numpy(), MO.select_first_n(d0, m, v, s, 1, 256), "Select default config")


@pytest.mark.parametrize("dtype", [rs.uint8, rs.half, rs.float32, rs.complex32, rs.int64, rs.complex64])
def test_select_immediate_first(dtype: Any) -> None:
    """`Select(dst, selMask, scalar, srcLocal, VSEL_TENSOR_SCALAR_MODE, ...)`: `SelectSrc0ScalarMode1*`, a 1 bit picks
    the scalar."""
    per = 256 // dtype.itemsize * (2 if dtype.itemsize == 8 else 1)
    value = 3 - 2j if dtype in (rs.complex32, rs.complex64) else 3
    ub, dst, sel, vec, _ = select_tensors(dtype, 2 * per + 8, (2 * per + 8) // 8 + 8, rs.uint8, seed=5)
    d0, v, m = dst.numpy(), vec.numpy(), sel.numpy()
    s = np.array(value).astype(v.dtype)[()]
    run_both(lambda: A.Select(dst, sel, value, vec, S1, 2 * per + 7), ub)
    assert_same(dst.numpy(), MO.select_first_n(d0, m, s, v, 1, 2 * per + 7), f"Select({dtype.name}, scalar first)")
    if dtype in SEL_REPEAT:
        d0 = dst.numpy()
        params = A.BinaryRepeatParams(1, 3, 2, 8, 0, 3)
        lanes = 256 // dtype.itemsize
        with counter_mode():
            run_both(lambda: A.Select(dst, sel, value, vec, S1, lanes + 9, 0, params), ub)
        want = MO.select_repeat(d0, m, s, v, 1, lambda r, k: r * lanes + k < lanes + 9, 2, (1, 3, 2, 8, 0, 3))
        assert_same(dst.numpy(), want, f"Select({dtype.name}, scalar first, counter mode)")


# --- the lowering ------------------------------------------------------------------------------------------------------
def test_lowering_broadcasts_the_element_then_runs_the_tensor_tensor_op() -> None:
    _, (dst, vec, sc) = tensors(rs.float32, 256, seed=0)
    low = rs.lower(A.Adds, dst, sc[3], vec, 256, config=A.BinaryConfig(0))
    counts = low.counts()
    assert counts.get("Add") == 4 and "Adds" not in counts, counts
    assert counts.get("LoadAlign") == 8, counts  # per iteration: the broadcast of sc[3] and the vector's register
    brc = [r for r in low.records if r.api == "LoadAlign" and r.reads and r.reads[0][1] - r.reads[0][0] == 4]
    assert len(brc) == 4 and all(r.reads[0][0] == sc[3].addr for r in brc), low.table()
    _, (dst, vec, sc) = tensors(rs.int64, 64, seed=0)
    counts = rs.lower(A.Mins, dst, vec, sc[1], 64).counts()
    assert counts.get("LoadUnAlign") == 1 and counts.get("DeInterleave") == 1 and counts.get("Min") == 1, counts
    _ub, dst, vec, sc = compare_tensors(rs.half, 256, 64, seed=0)
    counts = rs.lower(A.Compares, dst, vec, sc[5], A.CMPMODE.GT, 256).counts()
    assert counts.get("LoadAlign") == 3 and counts.get("Compare") == 2 and "Compares" not in counts, counts


# --- violations raise and write nothing -------------------------------------------------------------------------------
def _violations() -> list[tuple[str, Any, type[Exception], str]]:
    """(description, call on (d: float32 64, a: float32 128, b: float32 128, i: int16 256, m: uint8 32), error, message start)."""
    PE, DE, AE = errors.ParameterError, errors.DTypeError, errors.AlignmentError
    lt, up, bp = A.CMPMODE.LT, A.UnaryRepeatParams(), A.BinaryRepeatParams()
    C0 = A.BinaryConfig(0)
    return [
        ("config not a BinaryConfig", lambda d, a, b, i, m: A.Adds(d, a, b[0], 64, config=0), PE, "Adds: config"),
        ("config index 2", lambda d, a, b, i, m: A.Adds(d, a, b[0], 64, config=A.BinaryConfig(2)), PE,
         "BinaryConfig: scalarTensorIndex"),
        ("config index True", lambda d, a, b, i, m: A.BinaryConfig(True), PE, "BinaryConfig: scalarTensorIndex"),
        ("scalar dtype", lambda d, a, b, i, m: A.Adds(d, a, i[0], 64), DE, "Adds: src1"),
        ("scalar dtype idx 0", lambda d, a, b, i, m: A.Muls(d, i[0], a, 64, config=C0), DE, "Muls: src0"),
        ("scalar inside dst", lambda d, a, b, i, m: A.Maxs(d, a, d[10], 64), PE, "Maxs: src1"),
        ("scalar misaligned", lambda d, a, b, i, m: A.Mins(d, a, m[1].ReinterpretCast(rs.float32), 64), AE,
         "Mins: src1"),
        ("vector misaligned", lambda d, a, b, i, m: A.Adds(d, a[3], b[0], 32), AE, "Adds: src0"),
        ("count > vector", lambda d, a, b, i, m: A.Adds(d, b[96], a[0], 64), PE, "Adds: count"),
        ("count > dst", lambda d, a, b, i, m: A.Adds(d, a, b[0], 65), PE, "Adds: count"),
        ("repeat int8", lambda d, a, b, i, m: A.Adds(m, m[1], m, 32, 1, up, config=C0), DE, "Adds: dst"),
        ("repeat wrong struct", lambda d, a, b, i, m: A.Adds(d, a, b[0], 64, 1, bp), PE, "Adds: repeat_params"),
        ("repeat mask 65", lambda d, a, b, i, m: A.Adds(d, a, b[0], 65, 1, up), PE, "Adds: mask"),
        ("two scalars", lambda d, a, b, i, m: A.Adds(d, 1.0, 2.0, 64), PE, "Adds: src1"),
        ("arguments", lambda d, a, b, i, m: A.Adds(d, a, b[0], 64, 1), PE, "Adds: arguments"),
        ("config on Abs", lambda d, a, b, i, m: A.Abs(d, a, 64, config=A.BinaryConfig()), PE, "Abs: config"),
        ("config on Compare", lambda d, a, b, i, m: A.Compare(m, a, b, lt, 64, config=C0), PE, "Compare: config"),
        ("config on Compare to the register", lambda d, a, b, i, m: A.Compare(a, b, lt, 64, bp, config=C0), PE,
         "Compare: config"),
        ("config on Select without mask", lambda d, a, b, i, m: A.Select(d, a, b, 1, bp, config=C0), PE,
         "Select: config"),
        ("config on ShiftLeft", lambda d, a, b, i, m: A.ShiftLeft(i, i, 1, 64, config=C0), PE, "ShiftLeft: config"),
        ("Compares dst int16", lambda d, a, b, i, m: A.Compares(i, a, b[0], lt, 64), DE, "Compares: dst"),
        ("Compares count 65", lambda d, a, b, i, m: A.Compares(m, a, b[0], lt, 65), PE, "Compares: count"),
        ("Compares scalar type", lambda d, a, b, i, m: A.Compares(m, m[3], a, lt, 64, config=C0), DE, "Compares: src0"),
        ("Compares scalar in dst", lambda d, a, b, i, m: A.Compares(m, m.ReinterpretCast(rs.float32)[1], a, lt, 64,
                                                                   config=C0), PE, "Compares: src0"),
        ("Compares two scalars", lambda d, a, b, i, m: A.Compares(m, 1.0, 2.0, lt, 64), PE, "Compares: src1"),
        ("Compares wrong struct", lambda d, a, b, i, m: A.Compares(m, a, b[0], lt, 64, 1, bp), PE,
         "Compares: repeat_params"),
        ("Compares dst short", lambda d, a, b, i, m: A.Compares(m, a, b[0], lt, 64, 5, up), PE, "Compares: dst"),
        ("Select config mode 2", lambda d, a, b, i, m: A.Select(d, m, a, b[0], A.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64,
                                                                 config=C0), PE, "Select: sel_mode"),
        ("Select two scalars", lambda d, a, b, i, m: A.Select(d, m, 1.0, 2.0, S1, 64), PE, "Select: src1"),
        ("Select immediate first dtype", lambda d, a, b, i, m: A.Select(d, m, 1.0, i, S1, 64), DE, "Select: src1"),
        ("Select scalar dtype", lambda d, a, b, i, m: A.Select(d, m, a, i[0], S1, 64), DE, "Select: src1"),
        ("Select scalar in dst", lambda d, a, b, i, m: A.Select(d, m, d[1], a, S1, 64, config=C0), PE, "Select: src0"),
        ("Select sel short", lambda d, a, b, i, m: A.Select(a, m, b, b[0], S1, 64, 5, bp), PE, "Select: sel_mask"),
    ]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error", "start"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_write_nothing(what: str, call: Any, error: type[Exception], start: str) -> None:
    ub = rs.UnifiedBuffer(8192)
    rng = np.random.default_rng(0)
    d, a, b = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 128), ub.alloc(rs.float32, 128)
    i, m = ub.alloc(rs.int16, 256), ub.alloc(rs.uint8, 32)
    for t in (d, a, b, i, m):
        t.set(values(t.dtype, t.size, rng))
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(d, a, b, i, m)
    assert str(info.value).startswith(start), str(info.value)
    assert np.array_equal(ub.storage.data, before), f"{what}: the UB changed"
    assert rs._src.lowerings.vector_mask.vector_mask() == (2**64 - 1, 2**64 - 1), f"{what}: the vector mask changed"


@pytest.mark.parametrize("api", ["Adds", "Compares", "Select"])
def test_unwritten_scalar_element(api: str) -> None:
    ub = rs.UnifiedBuffer(4096)
    d, a, sc, m = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.uint8, 32)
    for t in (d, a, m):
        t.set(values(t.dtype, t.size, np.random.default_rng(1)))
    # (sc is never written)
    calls = {
        "Adds": lambda: A.Adds(d, a, sc[2], 64),
        "Compares": lambda: A.Compares(m, sc[2], a, A.CMPMODE.EQ, 64, config=A.BinaryConfig(0)),
        "Select": lambda: A.Select(d, m, a, sc[2], S1, 64),
    }
    with pytest.raises(errors.UninitializedReadError, match=f"^{api}: src[01] element 0"):
        calls[api]()
