"""Compare, Compares, Duplicate, ShiftLeft and ShiftRight on LocalTensors, lowered onto Reg ops: every API x
interface x dtype against the independent addressing oracle (regsim.testing.lowering_reference), Hypothesis over
masks, strides, repeats and mask modes, constraint violations that raise and write nothing, both loop modes,
the lowering explorer, and the Compare page's worked example."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import (
    CMP_COUNT,
    CMP_REPEAT,
    FORMS,
    MODES,
    SEL_COUNT,
    SEL_REPEAT,
    assert_same,
    compare_tensors,
    draw_mask,
    repeat_span,
    run_both,
    run_in_form,
    select_tensors,
    values,
)

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
#: 950 dtype lists, written from the pages' "数据类型" sections (Duplicate, ShiftLeft, ShiftRight; Compare, Compares and
#: Select's are lowering_support's)
DUP_COUNT = [
    *[rs.bool_, rs.int8, rs.uint8, rs.fp4x2_e2m1, rs.fp4x2_e1m2, rs.hifloat8, rs.fp8_e8m0, rs.fp8_e5m2, rs.fp8_e4m3fn],
    *[
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
    ],
]
DUP_REPEAT = [rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32]
SHIFT_COUNT = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.int32, rs.uint32, rs.int64, rs.uint64]
SHIFT_REPEAT = [rs.int16, rs.uint16, rs.int32, rs.uint32]


def compare_case(dtype: Any, n: int, dst_bytes: int, seed: int, scalar: bool) -> tuple[Any, ...]:
    """(ub, dst, src0, other): `compare_tensors`, other src1 (Compare) or one of its elements (Compares)."""
    ub, dst, s0, s1 = compare_tensors(dtype, n, dst_bytes, seed)
    return ub, dst, s0, s1.numpy()[seed % n] if scalar else s1


def call_compare(api: str, dst: Any, s0: Any, other: Any, mode: str, *rest: Any, **kw: Any) -> None:
    getattr(A, api)(dst, s0, other, getattr(A.CMPMODE, mode), *rest, **kw)


def oracle_other(other: Any) -> Any:
    return other.numpy() if isinstance(other, rs.LocalTensor) else other


# --- Compare / Compares: the first-n interface ---------------------------------------------------------------
#: (CompareScalar: Compares' deprecated name for its tensor-and-scalar interfaces, the page "接口变更说明")
CMP_COUNT_CASES = [(api, d, m) for api in ("Compare", "Compares", "CompareScalar") for d in CMP_COUNT for m in MODES]


@pytest.mark.parametrize(("api", "dtype", "mode"), CMP_COUNT_CASES, ids=[f"{a}-{d.name}-{m}" for a, d, m in CMP_COUNT_CASES])
def test_compare_first_n(api: str, dtype: Any, mode: str) -> None:
    per_block = 256 // dtype.itemsize
    per = per_block * (2 if dtype.itemsize == 8 else 1)  # one iteration: a register (two for 64-bit types)
    for count in (per_block, 3 * per_block):
        ub, dst, s0, other = compare_case(dtype, 3 * per_block, 6 * per_block // 8 + 32, seed=count, scalar=api != "Compare")
        d0, a = dst.numpy(), s0.numpy()
        run_both(lambda: call_compare(api, dst, s0, other, mode, count), ub)  # noqa: B023
        want = MO.compare_first_n(mode, d0, a, oracle_other(other), count, per)
        assert_same(dst.numpy(), want, f"{api}({dtype.name}, {mode}, count={count})")


def test_compare_int8_dst() -> None:
    """Compare's dst may be int8_t (U: int8_t, uint8_t); the bits are the same."""
    ub = rs.UnifiedBuffer(4096)
    dst, a, b = ub.alloc(rs.int8, 16), ub.alloc(rs.half, 128), ub.alloc(rs.half, 128)
    a.set(np.arange(128).astype(np.float16))
    b.set(np.full(128, 100, np.float16))
    A.Compare(dst, a, b, A.CMPMODE.GE, 128)
    want = MO.compare_first_n("GE", np.zeros(16, np.uint8), a.numpy(), b.numpy(), 128, 128)
    assert_same(dst.numpy().view(np.uint8), want, "int8 dst")


# --- the mask/repeat interfaces ------------------------------------------------------------------------------------
@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_compare_repeat_hypothesis(data: st.DataObject) -> None:
    """Compare / Compares mask/repeat interfaces: continuous, bit and counter mask modes, random strides; the
    result bits go to dst contiguously, whatever dst's strides (the library's StoreUnAlign stream)."""
    api = data.draw(st.sampled_from(["Compare", "Compares", "CompareScalar"]), "api")
    dtype = data.draw(st.sampled_from(CMP_REPEAT), "dtype")
    mode = data.draw(st.sampled_from(MODES), "mode")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(FORMS), "form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 12), st.integers(0, 12)), "repeat strides")
    dst_strides = data.draw(st.tuples(st.integers(0, 3), st.integers(0, 9)), "dst strides (unused)")
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    reps, n = repeat_span(dtype, form, count, repeats, blk, rep)
    ub, dst, s0, other = compare_case(dtype, n, max(reps, 1) * lanes // 8 + 32, data.draw(st.integers(0, 999)), api != "Compare")
    mask = draw_mask(data, form, lanes, count)
    if api == "Compare":
        params: Any = A.BinaryRepeatParams(dst_strides[0], blk[0], blk[1], dst_strides[1], rep[0], rep[1])
    else:
        params = A.UnaryRepeatParams(dst_strides[0], blk[0], dst_strides[1], rep[0])
    d0, a = dst.numpy(), s0.numpy()
    strides = (blk[0], rep[0], blk[1], rep[1])
    selected = run_in_form(lambda: call_compare(api, dst, s0, other, mode, mask, repeats, params), ub, form, mask, dtype)
    want = MO.compare_repeat(mode, d0, a, oracle_other(other), selected, reps, strides)
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, {mode}, {form}, mask={mask}, repeat={repeats})")


def test_compares_is_set_mask_false() -> None:
    """Compares with isSetMask = false: the elements come from SetVectorMask (normal mode) or its count (counter mode)."""
    for counter in (False, True):
        ub, dst, s0, other = compare_case(rs.float32, 256, 64, seed=5, scalar=True)
        d0, a = dst.numpy(), s0.numpy()
        p = A.UnaryRepeatParams()
        try:
            if counter:
                A.SetMaskCount()
                A.SetVectorMask(rs.float32, 100)
            else:
                A.SetVectorMask(rs.float32, 0, 0xF0F0_0000_FFFF_0001)
            run_both(lambda: A.Compares(dst, s0, other, A.CMPMODE.LE, A.MASK_PLACEHOLDER, 3, p, is_set_mask=False), ub)  # noqa: B023
        finally:
            A.SetMaskNorm()
            A.ResetMask()
        if counter:
            want = MO.compare_repeat("LE", d0, a, other, lambda r, k: r * 64 + k < 100, 2, (1, 8))
        else:
            sel = MO.mask_elements(4, [0xF0F0_0000_FFFF_0001, 0])
            want = MO.compare_repeat("LE", d0, a, other, lambda r, k, sel=sel: sel[k], 3, (1, 8))
        assert_same(dst.numpy(), want, f"Compares isSetMask=false counter={counter}")


@pytest.mark.parametrize(("mode", "byte"), [("GT", 240), ("GE", 241), ("LE", 15), ("EQ", 1), ("LT", 14), ("NE", 254)], ids=MODES)
def test_compare_page_example(mode: str, byte: int) -> None:
    """The Compare page: src0 = [2 3 5 7 11 13 17 19 ...], src1 = [2 4 6 8 10 12 14 16 ...] (floats): GT 240
    (0b11110000), GE 241, LE 15, EQ 1 as printed; LT 14 and NE 254 from the same element results (the page
    prints 126 for NE, a value whose bit 7 contradicts its own inputs: 19 != 16)."""
    a = np.tile(np.array([2, 3, 5, 7, 11, 13, 17, 19], np.float32), 32)
    b = np.tile(np.array([2, 4, 6, 8, 10, 12, 14, 16], np.float32), 32)
    ub = rs.UnifiedBuffer(4096)
    dst, s0, s1 = ub.alloc(rs.uint8, 32), ub.alloc(rs.float32, 256), ub.alloc(rs.float32, 256)
    s0.set(a)
    s1.set(b)
    A.Compare(dst, s0, s1, getattr(A.CMPMODE, mode), 256)
    assert dst.numpy().tolist() == [byte] * 32


# --- Duplicate --------------------------------------------------------------------------------------------------------
def dup_value(dtype: Any, rng: np.random.Generator) -> tuple[Any, bytes]:
    """A scalar of the element type and its bytes (bits-only 8-bit types take the raw byte)."""
    if dtype in (rs.hifloat8, rs.fp4x2_e2m1, rs.fp4x2_e1m2):
        b = int(rng.integers(0, 256))
        return b, bytes([b])
    v = values(dtype, 1, rng) if dtype not in (rs.bool_, rs.fp8_e8m0) else None
    if dtype is rs.bool_:
        return True, b"\x01"
    if dtype is rs.fp8_e8m0:
        v = np.array([2.0**-5], dtype=dtype.np_dtype)
    assert v is not None
    return v[0], v.tobytes()


@pytest.mark.parametrize("dtype", DUP_COUNT, ids=[d.name for d in DUP_COUNT])
def test_duplicate_first_n(dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    rng = np.random.default_rng(dtype.itemsize)
    for count in (0, 1, lanes + 3, 3 * lanes):
        ub = rs.UnifiedBuffer(4 * 256 * 3 + 512)
        dst, src = ub.alloc(dtype, 3 * lanes), ub.alloc(dtype, lanes)
        ub.storage.write(dst.addr, rng.integers(0, 256, dst.nbytes, dtype=np.uint8))
        value, raw = dup_value(dtype, rng)
        d0 = dst.numpy()
        run_both(lambda: A.Duplicate(dst, value, count), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.fill_first_n(d0, raw, count), f"Duplicate({dtype.name}, scalar, {count})")
        ub.storage.write(src.addr, np.frombuffer(raw, np.uint8))  # only src[0] is written: the only element read
        ub.storage.write(dst.addr, d0.view(np.uint8))
        run_both(lambda: A.Duplicate(dst, src, count), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.fill_first_n(d0, raw, count), f"Duplicate({dtype.name}, src, {count})")


@settings(max_examples=max(15, settings.default.max_examples))
@given(data=st.data())
def test_duplicate_repeat_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DUP_REPEAT), "dtype")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(FORMS), "form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk, rep = data.draw(st.integers(0, 3), "dstBlockStride"), data.draw(st.integers(0, 12), "dstRepeatStride")
    count = data.draw(st.integers(1, 4 * lanes), "count")
    reps, n = repeat_span(dtype, form, count, repeats, (blk,), (rep,))
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    ub = rs.UnifiedBuffer(-(-n * dtype.itemsize // 256) * 256 + 256)
    dst = ub.alloc(dtype, n)
    dst.set(values(dtype, n, rng))
    value = values(dtype, 1, rng)[0]
    d0 = dst.numpy()
    mask = draw_mask(data, form, lanes, count)
    selected = run_in_form(lambda: A.Duplicate(dst, value, mask, repeats, blk, rep), ub, form, mask, dtype)
    want = MO.repeat_interface("Duplicate", d0, [], selected, reps, (blk, rep), value)
    assert_same(dst.numpy(), want, f"Duplicate({dtype.name}, {form}, repeat={repeats}, strides=({blk}, {rep}))")


# --- ShiftLeft / ShiftRight -------------------------------------------------------------------------------------------
SHIFT_CASES = [(api, d) for api in ("ShiftLeft", "ShiftRight") for d in SHIFT_COUNT]


@pytest.mark.parametrize(("api", "dtype"), SHIFT_CASES, ids=[f"{a}-{d.name}" for a, d in SHIFT_CASES])
def test_shift_first_n(api: str, dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    bits = 8 * dtype.itemsize
    for k, amount in enumerate((0, 1, bits - 1, bits, bits + 5)):
        n = 3 * lanes
        rng = np.random.default_rng(k)
        ub = rs.UnifiedBuffer(2 * n * dtype.itemsize + 512)
        dst, src = ub.alloc(dtype, n), ub.alloc(dtype, n)
        dst.set(values(dtype, n, rng))
        src.set(values(dtype, n, rng))
        d0, s = dst.numpy(), src.numpy()
        count = 2 * lanes + 7
        run_both(lambda: getattr(A, api)(dst, src, amount, count), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.first_n(api, d0, [s], count, amount), f"{api}({dtype.name}, {amount}, count={count})")


@settings(max_examples=max(15, settings.default.max_examples))
@given(data=st.data())
def test_shift_repeat_hypothesis(data: st.DataObject) -> None:
    api = data.draw(st.sampled_from(["ShiftLeft", "ShiftRight"]), "api")
    dtype = data.draw(st.sampled_from(SHIFT_REPEAT), "dtype")
    lanes = 256 // dtype.itemsize
    amount = data.draw(st.integers(0, 8 * dtype.itemsize + 2), "amount")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 12), st.integers(0, 12)), "repeat strides")
    mask = draw_mask(data, data.draw(st.sampled_from(["continuous", "bit"]), "form"), lanes, 0)
    n = max(MO.touched_elements(dtype.itemsize, max(repeats, 1), blk[j], rep[j]) for j in range(2))
    rng = np.random.default_rng(data.draw(st.integers(0, 999)))
    ub = rs.UnifiedBuffer(2 * -(-n * dtype.itemsize // 256) * 256 + 256)
    dst, src = ub.alloc(dtype, n), ub.alloc(dtype, n)
    dst.set(values(dtype, n, rng))
    src.set(values(dtype, n, rng))
    d0, s = dst.numpy(), src.numpy()
    params = A.UnaryRepeatParams(blk[0], blk[1], rep[0], rep[1])
    extra = (False,) if api == "ShiftRight" and data.draw(st.booleans(), "pass roundEn") else ()
    run_both(lambda: getattr(A, api)(dst, src, amount, mask, repeats, params, *extra), ub)
    want = MO.normal_mode(api, d0, [s], mask, repeats, (blk[0], blk[1], rep[0], rep[1]), amount)
    assert_same(dst.numpy(), want, f"{api}({dtype.name}, {amount}, mask={mask}, repeat={repeats})")


# --- Select ---------------------------------------------------------------------------------------------------------
SEL_MODES = [A.SELMODE.VSEL_CMPMASK_SPR, A.SELMODE.VSEL_TENSOR_SCALAR_MODE, A.SELMODE.VSEL_TENSOR_TENSOR_MODE]
SEL_CASES = [(d, m) for d in SEL_COUNT for m in SEL_MODES]


@pytest.mark.parametrize(("dtype", "mode"), SEL_CASES, ids=[f"{d.name}-{m.name}" for d, m in SEL_CASES])
def test_select_first_n(dtype: Any, mode: Any) -> None:
    per = 256 // dtype.itemsize * (2 if dtype.itemsize == 8 else 1)
    for k, count in enumerate((0, 1, per + 5, 3 * per)):
        sel_type = [rs.uint8, rs.uint16, rs.uint32, rs.uint64][k]
        ub, dst, sel, s0, s1 = select_tensors(dtype, 3 * per, 3 * per // 8, sel_type, seed=count)
        d0, a, m = dst.numpy(), s0.numpy(), sel.numpy().view(np.uint8)
        other: Any = a[7] if mode == A.SELMODE.VSEL_TENSOR_SCALAR_MODE else s1
        run_both(lambda: A.Select(dst, sel, s0, other, mode, count), ub)  # noqa: B023
        want = MO.select_first_n(d0, m, a, oracle_other(other), int(mode), count)
        assert_same(dst.numpy(), want, f"Select({dtype.name}, {mode.name}, count={count}, sel {sel_type.name})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_select_repeat_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(SEL_REPEAT), "dtype")
    mode = data.draw(st.sampled_from(SEL_MODES), "mode")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(FORMS), "form")
    repeats = data.draw(st.integers(0, 5), "repeat_time")
    blk = data.draw(st.tuples(st.integers(1, 3), st.integers(0, 3), st.integers(0, 3)), "block strides")
    rep = data.draw(st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 12)), "repeat strides")
    count = data.draw(st.integers(1, 5 * lanes), "count (counter mode)")
    reps, n = repeat_span(dtype, form, count, repeats, blk, rep)
    ub, dst, sel, s0, s1 = select_tensors(dtype, n, max(reps, 1) * lanes // 8, rs.uint8, data.draw(st.integers(0, 999)))
    d0, a, m = dst.numpy(), s0.numpy(), sel.numpy()
    other: Any = a[3] if mode == A.SELMODE.VSEL_TENSOR_SCALAR_MODE else s1
    params = A.BinaryRepeatParams(*blk, *rep)
    mask = draw_mask(data, form, lanes, count)
    selected = run_in_form(lambda: A.Select(dst, sel, s0, other, mode, mask, repeats, params), ub, form, mask, dtype)
    want = MO.select_repeat(d0, m, a, oracle_other(other), int(mode), selected, reps, (*blk, *rep))
    assert_same(dst.numpy(), want, f"Select({dtype.name}, {mode.name}, {form}, mask={mask}, repeat={repeats})")


# --- Gather on 8- and 64-bit types (their Hypothesis test: test_lowered_binary_unary.py's test_gather_hypothesis) ---
def test_gather_b8_offset_range() -> None:
    """b8 byte offsets lie in [0, 2**16 - 1] (the Gather page); b64 offsets are multiples of 8."""
    ub = rs.UnifiedBuffer(4096)
    dst, src, off = ub.alloc(rs.uint8, 64), ub.alloc(rs.uint8, 64), ub.alloc(rs.uint32, 64)
    dst.set(np.zeros(64, np.uint8))
    src.set(np.arange(64, dtype=np.uint8))
    off.set(np.arange(63, -1, -1, dtype=np.uint32))
    A.Gather(dst, src, off, 0, 64)
    assert dst.numpy().tolist() == list(range(63, -1, -1))
    off.set(np.full(64, 2**16, np.uint32))
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=r"^Gather: src_offset .*\[0, 65535\]"):
        A.Gather(dst, src, off, 0, 64)
    assert np.array_equal(ub.storage.data, before)
    wide = ub.alloc(rs.int64, 32)
    off.set(np.full(64, 4, np.uint32))
    before = ub.storage.data.copy()
    with pytest.raises(errors.ParameterError, match=r"^Gather: src_offset .*multiples of 8"):
        A.Gather(wide, wide, off, 0, 8)
    assert np.array_equal(ub.storage.data, before)


# --- constraint violations raise and write nothing --------------------------------------------------------------------
def _violations() -> list[tuple[str, Any, type[Exception], str]]:
    """(description, call on (dst8, a, b, i16), error class, the message's start)."""
    lt = A.CMPMODE.LT
    PE, DE, UE = errors.ParameterError, errors.DTypeError, errors.UnsupportedError
    bp, up = A.BinaryRepeatParams(), A.UnaryRepeatParams()
    S1, S2 = A.SELMODE.VSEL_TENSOR_SCALAR_MODE, A.SELMODE.VSEL_TENSOR_TENSOR_MODE
    return [
        ("cmp_mode not a CMPMODE", lambda d, a, b, i: A.Compare(d, a, b, "LT", 64), PE, "Compare: cmp_mode"),
        ("count not whole 256 bytes", lambda d, a, b, i: A.Compare(d, a, b, lt, 65), PE, "Compare: count"),
        ("count > src sizes", lambda d, a, b, i: A.Compare(d, a, b, lt, 192), PE, "Compare: count"),
        ("dst too small", lambda d, a, b, i: A.Compare(a.ub.alloc(rs.uint8, 4), a, b, lt, 128), PE, "Compare: dst"),
        ("dst int16", lambda d, a, b, i: A.Compare(i, a, b, lt, 64), DE, "Compare: dst"),
        ("src dtype mismatch", lambda d, a, b, i: A.Compare(d, a, i, lt, 64), DE, "Compare: src1"),
        ("int64 repeat form", lambda d, a, b, i: A.Compare(d, a.ub.alloc(rs.int64, 64), a.ub.alloc(rs.int64, 64), lt, 32, 1, bp),
         DE, "Compare: src0"),
        ("is_set_mask reserved", lambda d, a, b, i: A.Compare(d, a, b, lt, 64, 1, bp, is_set_mask=False), PE,
         "Compare: is_set_mask"),
        ("Compare wrong struct", lambda d, a, b, i: A.Compare(d, a, b, lt, 64, 1, up), PE, "Compare: repeat_params"),
        ("Compare mask 65", lambda d, a, b, i: A.Compare(d, a, b, lt, 65, 1, bp), PE, "Compare: mask"),
        ("Compare dst short", lambda d, a, b, i: A.Compare(d, a, b, lt, [3, 0], 40, bp), PE, "Compare: dst"),
        ("Compare repeat 256", lambda d, a, b, i: A.Compare(d, a, b, lt, 64, 256, bp), PE, "Compare: repeat_time"),
        ("Compares int8 dst", lambda d, a, b, i: A.Compares(a.ub.alloc(rs.int8, 64), a, 1.0, lt, 64), DE, "Compares: dst"),
        ("Compares element scalar dtype", lambda d, a, b, i: A.Compares(d, a, i[1], lt, 64), DE, "Compares: src1"),
        ("Compares bad scalar", lambda d, a, b, i: A.Compares(d, i, 2**20, lt, 128), PE, "Compares:"),
        ("Compares arguments", lambda d, a, b, i: A.Compares(d, a, 1.0, lt, 64, 1), PE, "Compares: arguments"),
        ("Duplicate repeat b8", lambda d, a, b, i: A.Duplicate(d, 1, 32, 1, 1, 8), DE, "Duplicate: dst"),
        ("Duplicate count > dst", lambda d, a, b, i: A.Duplicate(i, 1, 1000), PE, "Duplicate: count"),
        ("Duplicate blk 2**16", lambda d, a, b, i: A.Duplicate(i, 1, 64, 1, 2**16, 8), PE,
         "Duplicate: dst_block_stride"),
        ("Duplicate rep 256", lambda d, a, b, i: A.Duplicate(i, 1, 64, 1, 1, 256), PE, "Duplicate: dst_repeat_stride"),
        ("Duplicate scalar too big", lambda d, a, b, i: A.Duplicate(i, 2**20, 64), PE, "Duplicate:"),
        ("Duplicate src dtype", lambda d, a, b, i: A.Duplicate(i, a, 64), DE, "Duplicate: src"),
        ("Duplicate arguments", lambda d, a, b, i: A.Duplicate(i, 1, 64, 1), PE, "Duplicate: arguments"),
        ("ShiftLeft negative", lambda d, a, b, i: A.ShiftLeft(i, i, -1, 64), PE, "ShiftLeft: scalar_value"),
        ("ShiftLeft 2**15", lambda d, a, b, i: A.ShiftLeft(i, i, 2**15, 64), PE, "ShiftLeft: scalar_value"),
        ("ShiftLeft float", lambda d, a, b, i: A.ShiftLeft(a, a, 1, 64), DE, "ShiftLeft: dst"),
        ("ShiftLeft int8 repeat", lambda d, a, b, i: A.ShiftLeft(d, d, 1, 32, 1, up), DE, "ShiftLeft: dst"),
        ("ShiftRight roundEn", lambda d, a, b, i: A.ShiftRight(i, i, 1, 64, 1, up, True), UE,
         "ShiftRight: round_en"),
        ("ShiftRight roundEn count", lambda d, a, b, i: A.ShiftRight(i, i, 1, 64, round_en=True), PE,
         "ShiftRight: round_en"),
        ("Select mode 1 element in dst", lambda d, a, b, i: A.Select(a, d, b, a[3], S1, 64), PE, "Select: src1"),
        ("Select mode 2 scalar", lambda d, a, b, i: A.Select(a, d, a, 1.0, S2, 64), PE, "Select: src1"),
        ("Select int mode", lambda d, a, b, i: A.Select(a, d, a, b, 2, 64), PE, "Select: sel_mode"),
        ("Select sel too small", lambda d, a, b, i: A.Select(a, d, a, b, S2, [1, 0], 5, bp), PE, "Select: sel_mask"),
        ("Select sel float", lambda d, a, b, i: A.Select(a, b, a, b, S2, 64), DE, "Select: sel_mask"),
        ("Select sel int8", lambda d, a, b, i: A.Select(a, a.ub.alloc(rs.int8, 32), a, b, S2, 64), DE, "Select: sel_mask"),
        ("Select int8 repeat", lambda d, a, b, i: A.Select(d, d, d, d, S2, 32, 1, bp), DE, "Select: dst"),
        ("Select count > dst", lambda d, a, b, i: A.Select(a, d, a, b, S2, 129), PE, "Select: count"),
        ("Select wrong struct", lambda d, a, b, i: A.Select(a, d, a, b, S2, 64, 1, up), PE, "Select: repeat_params"),
        ("Select arguments", lambda d, a, b, i: A.Select(a, d, a, b, S2, 64, 1), PE, "Select: arguments"),
        ("ShiftRight wrong struct", lambda d, a, b, i: A.ShiftRight(i, i, 1, 64, 1, bp), PE,
         "ShiftRight: repeat_params"),
    ]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error", "start"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_write_nothing(what: str, call: Any, error: type[Exception], start: str) -> None:
    ub = rs.UnifiedBuffer(8192)
    rng = np.random.default_rng(0)
    d, a, b, i = ub.alloc(rs.uint8, 32), ub.alloc(rs.float32, 128), ub.alloc(rs.float32, 128), ub.alloc(rs.int16, 256)
    for t in (d, a, b, i):
        t.set(values(t.dtype, t.size, rng))
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(d, a, b, i)
    assert str(info.value).startswith(start), str(info.value)
    assert np.array_equal(ub.storage.data[: before.size], before), f"{what}: the UB changed"
    assert rs._src.lowerings.vector_mask.vector_mask() == (2**64 - 1, 2**64 - 1), f"{what}: the vector mask changed"


def test_calls_are_host_side() -> None:
    ub = rs.UnifiedBuffer(2048)
    t = ub.alloc(rs.int16, 128)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^Duplicate"):
        A.Duplicate(t, 1, 8)
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^Compares"):
        A.Compares(ub.alloc(rs.uint8, 32), t, 1, A.CMPMODE.EQ, 128)


def test_select_unwritten_inputs() -> None:
    """The first-n Select checks the source elements and selMask bits it uses (its lowering reads whole registers,
    past `count`, which are not reported)."""
    ub = rs.UnifiedBuffer(4096)
    dst, s0, s1, sel = ub.alloc(rs.half, 128), ub.alloc(rs.half, 128), ub.alloc(rs.half, 128), ub.alloc(rs.uint8, 32)
    s0.set(np.zeros(100, np.float16))
    s1.set(np.ones(128, np.float16))
    sel.set(np.full(12, 0x55, np.uint8))
    mode = A.SELMODE.VSEL_TENSOR_TENSOR_MODE
    A.Select(dst, sel, s0, s1, mode, 96)  # 96 elements: 12 selMask bytes, src0 [0, 96): all written
    assert dst.numpy()[:4].tolist() == [0, 1, 0, 1]
    with pytest.raises(errors.UninitializedReadError, match=r"^Select: sel_mask element 12"):
        A.Select(dst, sel, s1, s1, mode, 128)
    sel.set(np.full(16, 0x55, np.uint8))
    with pytest.raises(errors.UninitializedReadError, match=r"^Select: src0 element 100"):
        A.Select(dst, sel, s0, s1, mode, 128)


def test_duplicate_src_element_0_must_be_written() -> None:
    ub = rs.UnifiedBuffer(2048)
    dst, src = ub.alloc(rs.int16, 128), ub.alloc(rs.int16, 128)
    before = ub.storage.data.copy()
    with pytest.raises(errors.UninitializedReadError, match=r"^Duplicate: src element 0"):
        A.Duplicate(dst, src, 8)
    assert np.array_equal(ub.storage.data, before)


# --- the lowering explorer --------------------------------------------------------------------------------------------
def test_lower_shows_the_library_lowering() -> None:
    ub = rs.UnifiedBuffer(4096)
    dst, a, b = ub.alloc(rs.uint8, 64), ub.alloc(rs.int64, 128), ub.alloc(rs.int64, 128)
    a.set(np.arange(128))
    b.set(np.full(128, 64))
    low = rs.lower(A.Compare, dst, a, b, A.CMPMODE.LT, 128)
    assert low.counts() == {"UpdateMask": 2, "LoadAlign": 4, "Compare": 2, "StoreUnAlign/mask": 2, "StoreUnAlignPost/post": 1}
    assert dst.numpy()[:16].tolist() == [255] * 8 + [0] * 8
    low = rs.lower(A.Duplicate, ub.alloc(rs.half, 300), 1.5, 300)
    assert low.counts() == {"CreateMask": 1, "Duplicate/masked": 1, "UpdateMask": 3, "StoreAlign": 3}


@pytest.mark.parametrize(
    ("call", "ops"),
    [
        ("Compare(float32, cmp_mode=LT, count=128)", {"Compare": "2", "StoreUnAlign/mask": "2"}),
        ("Compares(int8, cmp_mode=EQ, scalar_value=3, count=256)", {"Compares": "1", "StoreAlign/mask": "1"}),
        ("Compare(half, cmp_mode=NE, mask=[1, 2], repeat_time=3, repeat_params=(1, 1, 2, 8, 8, 16))", {"MoveMask": "1"}),
        (
            "Duplicate(int32, scalar_value=2, mask=64, repeat_time=2, dst_block_stride=1, dst_repeat_stride=8)",
            {"StoreAlign/block": "2"},
        ),
        ("ShiftRight(uint32, scalar_value=3, count=100)", {"ShiftRights": "2"}),
        (
            "Select(float32, sel_mode=VSEL_TENSOR_TENSOR_MODE, count=130)",
            {"Interleave/mask": "1", "UnPack/mask": "1", "Select": "3"},
        ),
        ("Select(half, sel_mode=VSEL_TENSOR_SCALAR_MODE, scalar_value=2.5, mask=100, repeat_time=2)", {"Duplicate": "1"}),
    ],
)
def test_lower_cli(python_m_regsim: Callable[..., subprocess.CompletedProcess[str]], call: str, ops: dict[str, str]) -> None:
    out = python_m_regsim("lower", call, check=True).stdout
    assert out.startswith(f"{call}: ")
    summary = {line.split()[0]: line.split()[1] for line in out.split("UB bytes written")[-1].splitlines() if line.strip()}
    for op, n in ops.items():
        assert summary[op] == n, out
