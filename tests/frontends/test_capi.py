"""rs.capi: the memory-level C API compares (asc_eq ... asc_le, _sync, _scalar, the compare-mask register)
against the independent addressing oracle (regsim.testing.lowering_reference), and the 950 register-level C
API against the Reg ops it spells."""

from __future__ import annotations

import contextlib
import math
import re
import zlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lowering_support import counter_mode, run_both

import regsim as rs
from regsim import Reg, capi, errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
CMPS = ("eq", "ne", "gt", "ge", "lt", "le")
#: the pages' element types per form (written from the pages, not read from regsim)
REG_FORM_T = {c: (rs.half, rs.float32) for c in CMPS}
DST_FORM_T = {c: (rs.half, rs.float32, rs.int32) if c == "eq" else (rs.half, rs.float32) for c in CMPS}
SCALAR_T = {c: (rs.half, rs.int32, rs.float32) if c == "eq" else (rs.half, rs.float32) for c in CMPS}
STRIDES_1 = (1, 1, 1, 8, 8, 8)


def values(dtype: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """Small values (so equal pairs are common), with NaN and signed zeros for the float types."""
    npd = np.dtype(dtype.np_dtype)
    if npd.kind == "i":
        return rng.integers(-4, 5, n).astype(npd)
    v = rng.integers(-4, 5, n).astype(np.float64) / 2
    special = rng.random(n)
    v[special < 0.05] = np.nan
    v[(special >= 0.05) & (special < 0.1)] = -0.0
    return v.astype(npd)


def ptr(t: rs.LocalTensor[Any]) -> Any:
    return t.GetPhyAddr()


def span(itemsize: int, repeats: int, blk: int, rep: int) -> int:
    return MO.touched_elements(itemsize, max(repeats, 1), blk, rep) + 256 // itemsize


def get_mask(ub: rs.UnifiedBuffer) -> int:
    t = ub.alloc(rs.uint8, 16)
    capi.asc_get_cmp_mask(ptr(t))
    return int.from_bytes(t.numpy().tobytes(), "little")


def set_mask(ub: rs.UnifiedBuffer, value: int) -> None:
    t = ub.alloc(rs.uint8, 16)
    t.set(np.frombuffer(value.to_bytes(16, "little"), np.uint8))
    capi.asc_set_cmp_mask(ptr(t))


# --- the seed pages' examples ---------------------------------------------------------------------------------
def test_asc_eq_page_example() -> None:
    """The asc_eq page: 128 halves, repeat 1, block strides 1, repeat strides 8; the result read from the
    compare-mask register (asc_get_cmp_mask) and written to dst (uint8_t[16]); both the same bit array."""
    a = np.arange(128).astype(np.float16)
    b = a.copy()
    b[1::4] = 7
    want = MO.compare_bits("eq", np.zeros(16, np.uint8), a, b, None, 1, STRIDES_1)
    assert want.tolist() == np.packbits(a == b, bitorder="little").tolist()
    ub = rs.UnifiedBuffer(4096)
    src0, src1 = ub.alloc(rs.half, 128), ub.alloc(rs.half, 128)
    dst = ub.alloc(rs.uint8, 16)
    src0.set(a)
    src1.set(b)
    repeat, dst_block_stride, src0_block_stride, src1_block_stride = 1, 1, 1, 1
    dst_repeat_stride, src0_repeat_stride, src1_repeat_stride = 8, 8, 8
    capi.asc_eq(
        ptr(src0), ptr(src1), repeat, dst_block_stride, src0_block_stride, src1_block_stride,
        dst_repeat_stride, src0_repeat_stride, src1_repeat_stride,
    )  # fmt: skip
    capi.asc_get_cmp_mask(ptr(dst))
    assert dst.numpy().tolist() == want.tolist()
    dst.set(np.zeros(16, np.uint8))
    capi.asc_eq(
        ptr(dst), ptr(src0), ptr(src1), repeat, dst_block_stride, src0_block_stride, src1_block_stride,
        dst_repeat_stride, src0_repeat_stride, src1_repeat_stride,
    )  # fmt: skip
    assert dst.numpy().tolist() == want.tolist()


@pytest.mark.parametrize("sync", [False, True])
def test_asc_eq_scalar_page_example(sync: bool) -> None:
    """The asc_eq_scalar page: src [1, 2, ..., 128], scalar 20: dst[2] = 0b00001000, every other byte 0."""
    ub = rs.UnifiedBuffer(4096)
    src, dst = ub.alloc(rs.half, 128), ub.alloc(rs.uint8, 16)
    src.set(np.arange(1, 129))
    f = capi.asc_eq_scalar_sync if sync else capi.asc_eq_scalar
    f(ptr(dst), ptr(src), 20.0, 1, 1, 1, 8, 8)
    want = [0] * 16
    want[2] = 0b00001000
    assert dst.numpy().tolist() == want


# --- every compare x dtype x form against the oracle --------------------------------------------------------------
DST_CASES = [(c, d, s) for c in CMPS for d in DST_FORM_T[c] for s in (False, True)]


@pytest.mark.parametrize(
    ("cmp", "dtype", "sync"), DST_CASES, ids=[f"{c}-{d.name}-{'sync' if s else 'async'}" for c, d, s in DST_CASES]
)
def test_dst_form(cmp: str, dtype: Any, sync: bool) -> None:
    strides = (3, 2, 1, 2, 9, 17)  # dstBlk (no effect), src0Blk, src1Blk, dstRep, src0Rep, src1Rep
    repeats = 3
    n0, n1 = (span(dtype.itemsize, repeats, strides[i], strides[i + 3]) for i in (1, 2))
    ub = rs.UnifiedBuffer(16384)
    rng = np.random.default_rng(hash((cmp, dtype.name)) % 2**32)
    dst, src0, src1 = ub.alloc(rs.uint8, 256), ub.alloc(dtype, n0), ub.alloc(dtype, n1)
    d0, a, b = rng.integers(0, 256, 256, dtype=np.uint8), values(dtype, n0, rng), values(dtype, n1, rng)
    dst.set(d0)
    src0.set(a)
    src1.set(b)
    f = getattr(capi, f"asc_{cmp}{'_sync' if sync else ''}")
    run_both(lambda: f(ptr(dst), ptr(src0), ptr(src1), repeats, *strides), ub)
    want = MO.compare_bits(cmp, d0, a, b, None, repeats, strides)
    assert dst.numpy().tolist() == want.tolist(), f"{cmp} {dtype.name}"


SCALAR_CASES = [(c, d, s) for c in CMPS for d in SCALAR_T[c] for s in (False, True)]


@pytest.mark.parametrize(
    ("cmp", "dtype", "sync"), SCALAR_CASES, ids=[f"{c}-{d.name}-{'sync' if s else 'async'}" for c, d, s in SCALAR_CASES]
)
def test_scalar_form(cmp: str, dtype: Any, sync: bool) -> None:
    strides = (1, 300, 0, 2, 0, 8)  # (dstBlk, srcBlk, -, dstRep, srcRep, -): uint16_t strides
    repeats = 2
    n = span(dtype.itemsize, repeats, 300, 8)
    ub = rs.UnifiedBuffer(131072)
    rng = np.random.default_rng(7)
    dst, src = ub.alloc(rs.uint8, 96), ub.alloc(dtype, n)
    d0, a = rng.integers(0, 256, 96, dtype=np.uint8), values(dtype, n, rng)
    dst.set(d0)
    src.set(a)
    value = 1 if dtype is rs.int32 else 0.5
    f = getattr(capi, f"asc_{cmp}_scalar{'_sync' if sync else ''}")
    run_both(lambda: f(ptr(dst), ptr(src), value, repeats, strides[0], strides[1], strides[3], strides[4]), ub)
    want = MO.compare_bits(cmp, d0, a, None, value, repeats, strides)
    assert dst.numpy().tolist() == want.tolist()


REG_CASES = [(c, d, s) for c in CMPS for d in REG_FORM_T[c] for s in (False, True)]


@pytest.mark.parametrize(
    ("cmp", "dtype", "sync"), REG_CASES, ids=[f"{c}-{d.name}-{'sync' if s else 'async'}" for c, d, s in REG_CASES]
)
def test_register_form_residue(cmp: str, dtype: Any, sync: bool) -> None:
    """The compare-mask register: one repeat whatever `repeat` says; bits the vector mask leaves out (and,
    for float, bits 64-127) keep the value asc_set_cmp_mask gave them."""
    ub = rs.UnifiedBuffer(16384)
    rng = np.random.default_rng(11)
    n = span(dtype.itemsize, 1, 3, 0)
    src0, src1 = ub.alloc(dtype, n), ub.alloc(dtype, n)
    a, b = values(dtype, n, rng), values(dtype, n, rng)
    src0.set(a)
    src1.set(b)
    old = int(rng.integers(0, 2**63)) << 65 | int(rng.integers(0, 2**63))
    set_mask(ub, old)
    lo, hi = 0xF0F0_1234_FFFF_0001, 0x8000_0000_0000_00FF
    A.SetVectorMask(dtype, hi, lo)
    f = getattr(capi, f"asc_{cmp}{'_sync' if sync else ''}")
    try:
        run_both(lambda: f(ptr(src0), ptr(src1), 200, 5, 3, 2, 0, 1, 1), ub)
    finally:
        A.ResetMask()
    lanes = 256 // dtype.itemsize
    selected = MO.mask_elements(dtype.itemsize, [lo, hi])
    want = MO.compare_cmp_mask(cmp, old, a, b, selected[:lanes], 3, 2)
    assert get_mask(ub) == want, f"got {get_mask(ub):032x} want {want:032x}"


@pytest.mark.parametrize("count", [0, 5, 64, 200])
def test_register_form_counter_mode(count: int) -> None:
    ub = rs.UnifiedBuffer(8192)
    rng = np.random.default_rng(count)
    src0, src1 = ub.alloc(rs.half, 256), ub.alloc(rs.half, 256)
    a, b = values(rs.half, 256, rng), values(rs.half, 256, rng)
    src0.set(a)
    src1.set(b)
    set_mask(ub, 2**128 - 1)
    with counter_mode():
        A.SetVectorMask(rs.half, 0, count)
        try:
            run_both(lambda: capi.asc_le(ptr(src0), ptr(src1), 1, 1, 1, 1, 8, 8, 8), ub)
        finally:
            A.ResetMask()
    want = MO.compare_cmp_mask("le", 2**128 - 1, a, b, [k < count for k in range(128)], 1, 1)
    assert get_mask(ub) == want


def test_local_tensors_stand_for_their_pointers() -> None:
    ub = rs.UnifiedBuffer(4096)
    src0, src1 = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    d1, d2 = ub.alloc(rs.uint8, 8), ub.alloc(rs.uint8, 8)
    src0.set(np.arange(64) % 5)
    src1.set(np.full(64, 2))
    capi.asc_ge(d1, src0, src1, 1, 1, 1, 1, 8, 8, 8)
    capi.asc_ge(ptr(d2), ptr(src0), ptr(src1), 1, 1, 1, 1, 8, 8, 8)
    assert d1.numpy().tolist() == d2.numpy().tolist() == np.packbits(np.arange(64) % 5 >= 2, bitorder="little").tolist()


def test_cmp_mask_round_trip_and_initial_value() -> None:
    ub = rs.UnifiedBuffer(1024)
    assert get_mask(ub) == 0  # the register's value before any compare or asc_set_cmp_mask
    set_mask(ub, 0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210)
    assert get_mask(ub) == 0x0123_4567_89AB_CDEF_FEDC_BA98_7654_3210


@given(st.data())
def test_hypothesis_dst_form(data: st.DataObject) -> None:
    cmp = data.draw(st.sampled_from(CMPS))
    dtype = data.draw(st.sampled_from(DST_FORM_T[cmp]))
    repeats = data.draw(st.integers(0, 4))
    strides = tuple(data.draw(st.integers(0, 12)) for _ in range(6))
    n0, n1 = (span(dtype.itemsize, repeats, strides[i], strides[i + 3]) for i in (1, 2))
    nd = max(repeats, 1) * max(strides[3], 1) * 32
    ub = rs.UnifiedBuffer(-(-(nd + (n0 + n1) * dtype.itemsize + 96) // 32) * 32)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dst, src0, src1 = ub.alloc(rs.uint8, nd), ub.alloc(dtype, n0), ub.alloc(dtype, n1)
    d0, a, b = rng.integers(0, 256, nd, dtype=np.uint8), values(dtype, n0, rng), values(dtype, n1, rng)
    dst.set(d0)
    src0.set(a)
    src1.set(b)
    getattr(capi, f"asc_{cmp}")(ptr(dst), ptr(src0), ptr(src1), repeats, *strides)
    assert dst.numpy().tolist() == MO.compare_bits(cmp, d0, a, b, None, repeats, strides).tolist()


@given(st.data())
def test_hypothesis_scalar_form(data: st.DataObject) -> None:
    cmp = data.draw(st.sampled_from(CMPS))
    dtype = data.draw(st.sampled_from(SCALAR_T[cmp]))
    repeats = data.draw(st.integers(0, 3))
    blk, dst_rep, rep = data.draw(st.integers(0, 600)), data.draw(st.integers(0, 600)), data.draw(st.integers(0, 40))
    n = span(dtype.itemsize, repeats, blk, rep)
    nd = max(repeats, 1) * max(dst_rep, 1) * 32
    ub = rs.UnifiedBuffer(-(-(nd + n * dtype.itemsize + 64) // 32) * 32)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    dst, src = ub.alloc(rs.uint8, nd), ub.alloc(dtype, n)
    d0, a = rng.integers(0, 256, nd, dtype=np.uint8), values(dtype, n, rng)
    dst.set(d0)
    src.set(a)
    value = (
        data.draw(st.integers(-3, 3)) if dtype is rs.int32 else data.draw(st.sampled_from([-1.5, 0.0, -0.0, 2.0, float("nan")]))
    )
    getattr(capi, f"asc_{cmp}_scalar")(ptr(dst), ptr(src), value, repeats, data.draw(st.integers(0, 9)), blk, dst_rep, rep)
    want = MO.compare_bits(cmp, d0, a, None, value, repeats, (0, blk, 0, dst_rep, rep, 0))
    assert dst.numpy().tolist() == want.tolist()


@given(st.data())
def test_hypothesis_register_form(data: st.DataObject) -> None:
    cmp = data.draw(st.sampled_from(CMPS))
    dtype = data.draw(st.sampled_from(REG_FORM_T[cmp]))
    blk0, blk1 = data.draw(st.integers(0, 20)), data.draw(st.integers(0, 20))
    lo, hi = data.draw(st.integers(1, 2**64 - 1)), data.draw(st.integers(0, 2**64 - 1))
    if dtype is rs.float32:
        hi = 0
    old = data.draw(st.integers(0, 2**128 - 1))
    n0, n1 = span(dtype.itemsize, 1, blk0, 0), span(dtype.itemsize, 1, blk1, 0)
    ub = rs.UnifiedBuffer(-(-((n0 + n1) * dtype.itemsize + 64) // 32) * 32)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    src0, src1 = ub.alloc(dtype, n0), ub.alloc(dtype, n1)
    a, b = values(dtype, n0, rng), values(dtype, n1, rng)
    src0.set(a)
    src1.set(b)
    set_mask(ub, old)
    A.SetVectorMask(dtype, hi, lo)
    try:
        getattr(capi, f"asc_{cmp}")(ptr(src0), ptr(src1), 1, 1, blk0, blk1, 8, 8, 8)
    finally:
        A.ResetMask()
    sel = MO.mask_elements(dtype.itemsize, [lo, hi])
    assert get_mask(ub) == MO.compare_cmp_mask(cmp, old, a, b, sel, blk0, blk1)


def test_lowering_is_reg_ops() -> None:
    """The memory-level compare runs Reg ops: DataBlock loads, Compare, the packed predicate store."""
    ub = rs.UnifiedBuffer(4096)
    dst, src0, src1 = ub.alloc(rs.uint8, 64), ub.alloc(rs.float32, 128), ub.alloc(rs.float32, 128)
    src0.set(np.arange(128))
    src1.set(np.arange(128))
    low = rs.lower(capi.asc_gt, ptr(dst), ptr(src0), ptr(src1), 2, 1, 1, 1, 1, 8, 8)
    assert low.counts() == {
        "CreateMask": 1,
        "LoadAlign/block": 4,
        "Compare": 2,
        "StoreUnAlign/mask": 2,
        "StoreUnAlignPost/post": 2,
    }
    assert low.bytes()["StoreUnAlignPost/post"][1] + low.bytes()["StoreUnAlign/mask"][1] == 16  # 8 bytes per float repeat
    reg = rs.lower(capi.asc_gt, ptr(src0), ptr(src1), 1, 1, 1, 1, 8, 8, 8)
    assert reg.counts() == {"MoveMask": 1, "LoadAlign/block": 2, "Compare": 1, "Select/mask": 1}


# --- constraint violations: the right error, naming the API and parameter, nothing written ---------------------------
VIOLATIONS = [
    ("asc_eq", "misaligned src1", errors.AlignmentError, "src1"),
    ("asc_eq", "misaligned dst", errors.AlignmentError, "dst"),
    ("asc_ne", "int32 into dst", errors.DTypeError, "src0"),
    ("asc_gt", "int32 register form", errors.DTypeError, "src0"),
    ("asc_eq", "mixed dtypes", errors.DTypeError, "src1"),
    ("asc_eq", "dst not uint8", errors.DTypeError, "dst"),
    ("asc_eq", "repeat 256", errors.ParameterError, "repeat"),
    ("asc_lt", "stride 256", errors.ParameterError, "src0_repeat_stride"),
    ("asc_le", "11 arguments", errors.ParameterError, "arguments"),
    ("asc_eq", "not a pointer", errors.ParameterError, "src0"),
    ("asc_eq", "dst too short", errors.OutOfBoundsError, "dst"),
    ("asc_eq_scalar", "stride 2**16", errors.ParameterError, "src_repeat_stride"),
    ("asc_eq_scalar", "int32 value 2**31", errors.ParameterError, "value"),
    ("asc_ge_scalar", "int32", errors.DTypeError, "src"),
    ("asc_ge_scalar", "string value", errors.ParameterError, "value"),
    ("asc_get_cmp_mask", "dst too short", errors.OutOfBoundsError, "dst"),
    ("asc_set_cmp_mask", "never written", errors.UninitializedReadError, "sel_mask"),
]


@pytest.mark.parametrize(("api", "what", "error", "param"), VIOLATIONS, ids=[f"{a}-{w}" for a, w, _, _ in VIOLATIONS])
def test_violations_write_nothing(api: str, what: str, error: type[Exception], param: str) -> None:
    ub = rs.UnifiedBuffer(8192)
    h0, h1, f0, i0 = (ub.alloc(t, 128) for t in (rs.half, rs.half, rs.float32, rs.int32))
    dst, short = ub.alloc(rs.uint8, 64), ub.alloc(rs.uint8, 8)
    unwritten = ub.alloc(rs.uint8, 16)
    for t in (h0, h1, f0, i0):
        t.set(np.arange(128))
    dst.set(np.full(64, 0xA5))
    short.set(np.full(8, 0x5A))
    set_mask(ub, 0xDEAD_BEEF)
    before, mask_before = ub.storage.data.copy(), ub.core.cmp_mask
    s6 = (1, 1, 1, 8, 8, 8)
    calls = {
        "misaligned src1": lambda: capi.asc_eq(ptr(h0), ptr(h1) + 1, 1, *s6),
        "misaligned dst": lambda: capi.asc_eq(ptr(dst) + 8, ptr(h0), ptr(h1), 1, *s6),
        "int32 into dst": lambda: capi.asc_ne(ptr(dst), ptr(i0), ptr(i0), 1, *s6),
        "int32 register form": lambda: capi.asc_gt(ptr(i0), ptr(i0), 1, *s6),
        "mixed dtypes": lambda: capi.asc_eq(ptr(dst), ptr(h0), ptr(f0), 1, *s6),
        "dst not uint8": lambda: capi.asc_eq(ptr(h1), ptr(h0), ptr(h0), 1, *s6),
        "repeat 256": lambda: capi.asc_eq(ptr(dst), ptr(h0), ptr(h1), 256, *s6),
        "stride 256": lambda: capi.asc_lt(ptr(h0), ptr(h1), 1, 1, 1, 1, 8, 256, 8),
        "11 arguments": lambda: capi.asc_le(ptr(dst), ptr(h0), ptr(h1), 1, *s6, 0),
        "not a pointer": lambda: capi.asc_eq(h0.numpy(), ptr(h1), 1, *s6),
        "dst too short": lambda: capi.asc_eq(ptr(short), ptr(h0), ptr(h1), 1, *s6),
        "stride 2**16": lambda: capi.asc_eq_scalar(ptr(dst), ptr(h0), 1.0, 1, 1, 1, 8, 2**16),
        "int32 value 2**31": lambda: capi.asc_eq_scalar(ptr(dst), ptr(i0), 2**31, 1, 1, 1, 8, 8),
        "int32": lambda: capi.asc_ge_scalar(ptr(dst), ptr(i0), 1, 1, 1, 1, 8, 8),
        "string value": lambda: capi.asc_ge_scalar(ptr(dst), ptr(h0), "1", 1, 1, 1, 8, 8),
    }
    if api == "asc_get_cmp_mask":
        call = lambda: capi.asc_get_cmp_mask(ptr(short))  # noqa: E731
    elif api == "asc_set_cmp_mask":
        call = lambda: capi.asc_set_cmp_mask(ptr(unwritten))  # noqa: E731
    else:
        call = calls[what]
    with pytest.raises(error, match=rf"^{api}: .*{param}") as info:
        call()
    assert "accepted" in str(info.value)
    assert np.array_equal(ub.storage.data, before) and ub.core.cmp_mask == mask_before


def test_memory_api_outside_vf_only() -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.half, 128)

    @rs.simd_vf
    def inside(p: Any) -> None:
        capi.asc_eq(p, p, 1, 1, 1, 1, 8, 8, 8)

    with pytest.raises(errors.VfContextError, match=r"^asc_eq"):
        inside(ptr(t))


# --- the register-level C API ------------------------------------------------------------------------------------------
#: the conversions of the data_type_convert pages (their prototypes, the deprecated pages' included)
CONVERSIONS = """
asc_bfloat162e1m2x2_rd asc_bfloat162e1m2x2_rd_v2 asc_bfloat162e1m2x2_rd_v3 asc_bfloat162e1m2x2_rd_v4
asc_bfloat162e1m2x2_rn asc_bfloat162e1m2x2_rn_v2 asc_bfloat162e1m2x2_rn_v3 asc_bfloat162e1m2x2_rn_v4
asc_bfloat162e1m2x2_rna asc_bfloat162e1m2x2_rna_v2 asc_bfloat162e1m2x2_rna_v3 asc_bfloat162e1m2x2_rna_v4
asc_bfloat162e1m2x2_ru asc_bfloat162e1m2x2_ru_v2 asc_bfloat162e1m2x2_ru_v3 asc_bfloat162e1m2x2_ru_v4
asc_bfloat162e1m2x2_rz asc_bfloat162e1m2x2_rz_v2 asc_bfloat162e1m2x2_rz_v3 asc_bfloat162e1m2x2_rz_v4
asc_bfloat162e2m1x2_rd asc_bfloat162e2m1x2_rd_v2 asc_bfloat162e2m1x2_rd_v3 asc_bfloat162e2m1x2_rd_v4
asc_bfloat162e2m1x2_rn asc_bfloat162e2m1x2_rn_v2 asc_bfloat162e2m1x2_rn_v3 asc_bfloat162e2m1x2_rn_v4
asc_bfloat162e2m1x2_rna asc_bfloat162e2m1x2_rna_v2 asc_bfloat162e2m1x2_rna_v3 asc_bfloat162e2m1x2_rna_v4
asc_bfloat162e2m1x2_ru asc_bfloat162e2m1x2_ru_v2 asc_bfloat162e2m1x2_ru_v3 asc_bfloat162e2m1x2_ru_v4
asc_bfloat162e2m1x2_rz asc_bfloat162e2m1x2_rz_v2 asc_bfloat162e2m1x2_rz_v3 asc_bfloat162e2m1x2_rz_v4
asc_bfloat162float asc_bfloat162float_v2 asc_bfloat162half_rd asc_bfloat162half_rd_sat asc_bfloat162half_rn
asc_bfloat162half_rn_sat asc_bfloat162half_rna asc_bfloat162half_rna_sat asc_bfloat162half_ru
asc_bfloat162half_ru_sat asc_bfloat162half_rz asc_bfloat162half_rz_sat asc_bfloat162int32_rd
asc_bfloat162int32_rd_sat asc_bfloat162int32_rd_sat_v2 asc_bfloat162int32_rd_v2 asc_bfloat162int32_rn
asc_bfloat162int32_rn_sat asc_bfloat162int32_rn_sat_v2 asc_bfloat162int32_rn_v2 asc_bfloat162int32_rna
asc_bfloat162int32_rna_sat asc_bfloat162int32_rna_sat_v2 asc_bfloat162int32_rna_v2 asc_bfloat162int32_ru
asc_bfloat162int32_ru_sat asc_bfloat162int32_ru_sat_v2 asc_bfloat162int32_ru_v2 asc_bfloat162int32_rz
asc_bfloat162int32_rz_sat asc_bfloat162int32_rz_sat_v2 asc_bfloat162int32_rz_v2 asc_e1m2x22bfloat16
asc_e1m2x22bfloat16_v2 asc_e1m2x22bfloat16_v3 asc_e1m2x22bfloat16_v4 asc_e2m1x22bfloat16 asc_e2m1x22bfloat16_v2
asc_e2m1x22bfloat16_v3 asc_e2m1x22bfloat16_v4 asc_e4m32float asc_e4m32float_v2 asc_e4m32float_v3 asc_e4m32float_v4
asc_e5m22float asc_e5m22float_v2 asc_e5m22float_v3 asc_e5m22float_v4 asc_float2bfloat16_rd asc_float2bfloat16_rd_sat
asc_float2bfloat16_rd_sat_v2 asc_float2bfloat16_rd_v2 asc_float2bfloat16_rn asc_float2bfloat16_rn_sat
asc_float2bfloat16_rn_sat_v2 asc_float2bfloat16_rn_v2 asc_float2bfloat16_rna asc_float2bfloat16_rna_sat
asc_float2bfloat16_rna_sat_v2 asc_float2bfloat16_rna_v2 asc_float2bfloat16_ru asc_float2bfloat16_ru_sat
asc_float2bfloat16_ru_sat_v2 asc_float2bfloat16_ru_v2 asc_float2bfloat16_rz asc_float2bfloat16_rz_sat
asc_float2bfloat16_rz_sat_v2 asc_float2bfloat16_rz_v2 asc_float2e4m3_rn asc_float2e4m3_rn_sat
asc_float2e4m3_rn_sat_v2 asc_float2e4m3_rn_sat_v3 asc_float2e4m3_rn_sat_v4 asc_float2e4m3_rn_v2 asc_float2e4m3_rn_v3
asc_float2e4m3_rn_v4 asc_float2e5m2_rn asc_float2e5m2_rn_sat asc_float2e5m2_rn_sat_v2 asc_float2e5m2_rn_sat_v3
asc_float2e5m2_rn_sat_v4 asc_float2e5m2_rn_v2 asc_float2e5m2_rn_v3 asc_float2e5m2_rn_v4 asc_float2half_rd
asc_float2half_rd_sat asc_float2half_rd_sat_v2 asc_float2half_rd_v2 asc_float2half_rn asc_float2half_rn_sat
asc_float2half_rn_sat_v2 asc_float2half_rn_v2 asc_float2half_rna asc_float2half_rna_sat asc_float2half_rna_sat_v2
asc_float2half_rna_v2 asc_float2half_ro asc_float2half_ro_sat asc_float2half_ro_sat_v2 asc_float2half_ro_v2
asc_float2half_ru asc_float2half_ru_sat asc_float2half_ru_sat_v2 asc_float2half_ru_v2 asc_float2half_rz
asc_float2half_rz_sat asc_float2half_rz_sat_v2 asc_float2half_rz_v2 asc_float2hif8_rh asc_float2hif8_rh_sat
asc_float2hif8_rh_sat_v2 asc_float2hif8_rh_sat_v3 asc_float2hif8_rh_sat_v4 asc_float2hif8_rh_v2 asc_float2hif8_rh_v3
asc_float2hif8_rh_v4 asc_float2hif8_rna asc_float2hif8_rna_sat asc_float2hif8_rna_sat_v2 asc_float2hif8_rna_sat_v3
asc_float2hif8_rna_sat_v4 asc_float2hif8_rna_v2 asc_float2hif8_rna_v3 asc_float2hif8_rna_v4 asc_float2int16_rd
asc_float2int16_rd_sat asc_float2int16_rd_sat_v2 asc_float2int16_rd_v2 asc_float2int16_rn asc_float2int16_rn_sat
asc_float2int16_rn_sat_v2 asc_float2int16_rn_v2 asc_float2int16_rna asc_float2int16_rna_sat
asc_float2int16_rna_sat_v2 asc_float2int16_rna_v2 asc_float2int16_ru asc_float2int16_ru_sat
asc_float2int16_ru_sat_v2 asc_float2int16_ru_v2 asc_float2int16_rz asc_float2int16_rz_sat asc_float2int16_rz_sat_v2
asc_float2int16_rz_v2 asc_float2int32_rd asc_float2int32_rd_sat asc_float2int32_rn asc_float2int32_rn_sat
asc_float2int32_rna asc_float2int32_rna_sat asc_float2int32_ru asc_float2int32_ru_sat asc_float2int32_rz
asc_float2int32_rz_sat asc_float2int64_rd asc_float2int64_rd_sat asc_float2int64_rd_sat_v2 asc_float2int64_rd_v2
asc_float2int64_rn asc_float2int64_rn_sat asc_float2int64_rn_sat_v2 asc_float2int64_rn_v2 asc_float2int64_rna
asc_float2int64_rna_sat asc_float2int64_rna_sat_v2 asc_float2int64_rna_v2 asc_float2int64_ru asc_float2int64_ru_sat
asc_float2int64_ru_sat_v2 asc_float2int64_ru_v2 asc_float2int64_rz asc_float2int64_rz_sat asc_float2int64_rz_sat_v2
asc_float2int64_rz_v2 asc_half2bfloat16_rd asc_half2bfloat16_rn asc_half2bfloat16_rna asc_half2bfloat16_ru
asc_half2bfloat16_rz asc_half2float asc_half2float_v2 asc_half2hif8_rh asc_half2hif8_rh_sat asc_half2hif8_rh_sat_v2
asc_half2hif8_rh_v2 asc_half2hif8_rna asc_half2hif8_rna_sat asc_half2hif8_rna_sat_v2 asc_half2hif8_rna_v2
asc_half2int16_rd asc_half2int16_rd_sat asc_half2int16_rn asc_half2int16_rn_sat asc_half2int16_rna
asc_half2int16_rna_sat asc_half2int16_ru asc_half2int16_ru_sat asc_half2int16_rz asc_half2int16_rz_sat
asc_half2int32_rd asc_half2int32_rd_v2 asc_half2int32_rn asc_half2int32_rn_v2 asc_half2int32_rna
asc_half2int32_rna_v2 asc_half2int32_ru asc_half2int32_ru_v2 asc_half2int32_rz asc_half2int32_rz_v2
asc_half2int4x2_rd asc_half2int4x2_rd_sat asc_half2int4x2_rd_sat_v2 asc_half2int4x2_rd_sat_v3
asc_half2int4x2_rd_sat_v4 asc_half2int4x2_rd_v2 asc_half2int4x2_rd_v3 asc_half2int4x2_rd_v4 asc_half2int4x2_rn
asc_half2int4x2_rn_sat asc_half2int4x2_rn_sat_v2 asc_half2int4x2_rn_sat_v3 asc_half2int4x2_rn_sat_v4
asc_half2int4x2_rn_v2 asc_half2int4x2_rn_v3 asc_half2int4x2_rn_v4 asc_half2int4x2_rna asc_half2int4x2_rna_sat
asc_half2int4x2_rna_sat_v2 asc_half2int4x2_rna_sat_v3 asc_half2int4x2_rna_sat_v4 asc_half2int4x2_rna_v2
asc_half2int4x2_rna_v3 asc_half2int4x2_rna_v4 asc_half2int4x2_ru asc_half2int4x2_ru_sat asc_half2int4x2_ru_sat_v2
asc_half2int4x2_ru_sat_v3 asc_half2int4x2_ru_sat_v4 asc_half2int4x2_ru_v2 asc_half2int4x2_ru_v3
asc_half2int4x2_ru_v4 asc_half2int4x2_rz asc_half2int4x2_rz_sat asc_half2int4x2_rz_sat_v2 asc_half2int4x2_rz_sat_v3
asc_half2int4x2_rz_sat_v4 asc_half2int4x2_rz_v2 asc_half2int4x2_rz_v3 asc_half2int4x2_rz_v4 asc_half2int8_rd
asc_half2int8_rd_sat asc_half2int8_rd_sat_v2 asc_half2int8_rd_v2 asc_half2int8_rn asc_half2int8_rn_sat
asc_half2int8_rn_sat_v2 asc_half2int8_rn_v2 asc_half2int8_rna asc_half2int8_rna_sat asc_half2int8_rna_sat_v2
asc_half2int8_rna_v2 asc_half2int8_ru asc_half2int8_ru_sat asc_half2int8_ru_sat_v2 asc_half2int8_ru_v2
asc_half2int8_rz asc_half2int8_rz_sat asc_half2int8_rz_sat_v2 asc_half2int8_rz_v2 asc_half2uint8_rd
asc_half2uint8_rd_sat asc_half2uint8_rd_sat_v2 asc_half2uint8_rd_v2 asc_half2uint8_rn asc_half2uint8_rn_sat
asc_half2uint8_rn_sat_v2 asc_half2uint8_rn_v2 asc_half2uint8_rna asc_half2uint8_rna_sat asc_half2uint8_rna_sat_v2
asc_half2uint8_rna_v2 asc_half2uint8_ru asc_half2uint8_ru_sat asc_half2uint8_ru_sat_v2 asc_half2uint8_ru_v2
asc_half2uint8_rz asc_half2uint8_rz_sat asc_half2uint8_rz_sat_v2 asc_half2uint8_rz_v2 asc_hif82float
asc_hif82float_v2 asc_hif82float_v3 asc_hif82float_v4 asc_hif82half asc_hif82half_v2 asc_int162float
asc_int162float_v2 asc_int162half_rd asc_int162half_rn asc_int162half_rna asc_int162half_ru asc_int162half_rz
asc_int162int32 asc_int162int32_v2 asc_int162uint32 asc_int162uint32_v2 asc_int162uint8 asc_int162uint8_sat
asc_int162uint8_sat_v2 asc_int162uint8_v2 asc_int322float_rd asc_int322float_rn asc_int322float_rna
asc_int322float_ru asc_int322float_rz asc_int322int16 asc_int322int16_sat asc_int322int16_sat_v2 asc_int322int16_v2
asc_int322int64 asc_int322int64_v2 asc_int322uint16 asc_int322uint16_sat asc_int322uint16_sat_v2 asc_int322uint16_v2
asc_int322uint8 asc_int322uint8_sat asc_int322uint8_sat_v2 asc_int322uint8_sat_v3 asc_int322uint8_sat_v4
asc_int322uint8_v2 asc_int322uint8_v3 asc_int322uint8_v4 asc_int4x22bfloat16 asc_int4x22bfloat16_v2
asc_int4x22bfloat16_v3 asc_int4x22bfloat16_v4 asc_int4x22half asc_int4x22half_v2 asc_int4x22half_v3
asc_int4x22half_v4 asc_int4x22int16 asc_int4x22int16_v2 asc_int4x22int16_v3 asc_int4x22int16_v4 asc_int642float_rd
asc_int642float_rd_v2 asc_int642float_rn asc_int642float_rn_v2 asc_int642float_rna asc_int642float_rna_v2
asc_int642float_ru asc_int642float_ru_v2 asc_int642float_rz asc_int642float_rz_v2 asc_int642int32
asc_int642int32_sat asc_int642int32_sat_v2 asc_int642int32_v2 asc_int82half asc_int82half_v2 asc_int82int16
asc_int82int16_v2 asc_int82int32 asc_int82int32_v2 asc_int82int32_v3 asc_int82int32_v4 asc_uint162uint32
asc_uint162uint32_v2 asc_uint162uint8 asc_uint162uint8_sat asc_uint162uint8_sat_v2 asc_uint162uint8_v2
asc_uint322int16 asc_uint322int16_sat asc_uint322int16_sat_v2 asc_uint322int16_v2 asc_uint322uint16
asc_uint322uint16_sat asc_uint322uint16_sat_v2 asc_uint322uint16_v2 asc_uint322uint8 asc_uint322uint8_sat
asc_uint322uint8_sat_v2 asc_uint322uint8_sat_v3 asc_uint322uint8_sat_v4 asc_uint322uint8_v2 asc_uint322uint8_v3
asc_uint322uint8_v4 asc_uint82half asc_uint82half_v2 asc_uint82uint16 asc_uint82uint16_v2 asc_uint82uint32
asc_uint82uint32_v2 asc_uint82uint32_v3 asc_uint82uint32_v4
""".split()
#: the register-level C names regsim generates, as the C API headers spell them (written independently)
DOCUMENTED = {
    "asc_abs", "asc_abs_sub", "asc_add", "asc_add_scalar", "asc_addc", "asc_and", "asc_arange", "asc_arange_descend",
    "asc_axpy", "asc_clear_ar_spr", "asc_create_mask_b8", "asc_create_mask_b16", "asc_create_mask_b32", "asc_deintlv",
    "asc_duplicate", "asc_duplicate_scalar", "asc_eq", "asc_eq_scalar", "asc_ge", "asc_ge_scalar", "asc_gt",
    "asc_gt_scalar", "asc_intlv", "asc_le", "asc_le_scalar", "asc_leakyrelu", "asc_loadalign", "asc_loadalign_postupdate",
    "asc_lt", "asc_lt_scalar", "asc_madd", "asc_max", "asc_max_scalar", "asc_min", "asc_min_scalar", "asc_mul",
    "asc_mul_scalar", "asc_mull", "asc_ne", "asc_ne_scalar", "asc_neg", "asc_not", "asc_or", "asc_pair_reduce_sum",
    "asc_prelu", "asc_relu", "asc_select", "asc_shiftleft", "asc_shiftleft_scalar", "asc_shiftright",
    "asc_shiftright_scalar", "asc_squeeze", "asc_storealign", "asc_storealign_postupdate", "asc_sub", "asc_subc",
    "asc_unpack_lower", "asc_unpack_upper", "asc_unsqueeze", "asc_update_mask_b8", "asc_update_mask_b16",
    "asc_update_mask_b32", "asc_xor", "asc_div", "asc_sqrt", "asc_exp", "asc_ln", "asc_reduce_sum", "asc_reduce_max",
    "asc_reduce_min", "asc_reduce_sum_datablock", "asc_reduce_max_datablock", "asc_reduce_min_datablock",
    "asc_squeeze_with_status", "asc_load", "asc_store", "asc_pack_to_low", "asc_pack_to_high", "asc_copy",
    "asc_ceil", "asc_floor", "asc_rint", "asc_round", "asc_trunc",
    "asc_frequency_histogram_bin0", "asc_frequency_histogram_bin1", "asc_cumulative_histogram_bin0",
    "asc_cumulative_histogram_bin1",
    "asc_loadalign_brc_elem", "asc_loadalign_brc_datablock", "asc_loadalign_brc_elem2datablock", "asc_loadalign_upsample",
    "asc_loadalign_downsample", "asc_loadalign_unpack", "asc_loadalign_unpack4", "asc_loadalign_deintlv",
    "asc_loadalign_brc_elem_postupdate", "asc_loadalign_brc_datablock_postupdate",
    "asc_loadalign_brc_elem2datablock_postupdate", "asc_loadalign_upsample_postupdate",
    "asc_loadalign_downsample_postupdate", "asc_loadalign_unpack_postupdate", "asc_loadalign_unpack4_postupdate",
    "asc_loadalign_deintlv_postupdate", "asc_storealign_1st", "asc_storealign_pack", "asc_storealign_pack_quarter",
    "asc_storealign_intlv", "asc_storealign_1st_postupdate", "asc_storealign_pack_postupdate",
    "asc_storealign_pack_quarter_postupdate",
    "asc_intlv_b8", "asc_intlv_b16", "asc_intlv_b32", "asc_deintlv_b8", "asc_deintlv_b16", "asc_deintlv_b32",
    "asc_muls", "asc_muls_v2", "asc_exp_sub", "asc_exp_sub_v2",
    "asc_gather", "asc_gather_datablock", "asc_scatter",
    "asc_update_addr_reg_b8", "asc_update_addr_reg_b16", "asc_update_addr_reg_b32",
    "asc_get_mask_spr_b16", "asc_get_mask_spr_b32", "asc_mem_bar", "asc_loadalign_brc", "asc_loadalign_brc_postupdate",
    "asc_loadunalign_pre", "asc_loadunalign", "asc_loadunalign_postupdate", "asc_storeunalign",
    "asc_storeunalign_postupdate", "asc_storeunalign_post", "asc_storeunalign_post_postupdate",
} | set(CONVERSIONS)  # fmt: skip


def test_every_registry_c_name_is_exposed() -> None:
    from regsim._src.engine.spec import REGISTRY

    names = {c.name for s in REGISTRY.specs.values() if not s.unmodelled for c in s.c_names}
    for name in names:
        exposed = [n for n in (name, f"{name}_b8", f"{name}_b16", f"{name}_b32") if hasattr(capi, n)]
        assert exposed, f"{name} is not in rs.capi"
        assert all(callable(getattr(capi, n)) and n in capi.__all__ for n in exposed)
    assert set(capi.REGISTER_API) == DOCUMENTED
    assert set(capi.MEMORY_API) <= set(capi.__all__)


def _random_reg(dtype: Any, rng: np.random.Generator) -> Any:
    n = 256 // dtype.itemsize
    npd = np.dtype(dtype.np_dtype)
    if npd.kind in "iu":
        return Reg.RegTensor.from_numpy(rng.integers(0, 256, 256, dtype=np.uint8).view(npd), dtype=dtype)
    return Reg.RegTensor.from_numpy((rng.integers(-8, 9, n) / 4).astype(npd), dtype=dtype)


def _operand(
    o: Any, dtype: Any, alt: Any, chosen: dict[str, Any], fixed: dict[str, Any], rng: np.random.Generator, typed: Any = None
) -> Any:
    from regsim._src.engine.spec import Kind, OneOf, Paired, SameAs

    if o.name in fixed:
        return fixed[o.name]
    if o.kind is Kind.REG:
        rule = o.dtypes
        t = dtype
        if typed and o.name in typed:  # a C name fixing this register's type (the conversions)
            t = min(typed[o.name], key=lambda d: d.name)
        elif isinstance(rule, SameAs):
            t = chosen[rule.other].dtype
        elif isinstance(rule, Paired):
            t = rule.pairs[chosen[rule.other].dtype]
        elif isinstance(rule, OneOf) and any(isinstance(v, Reg.RegTensor) for v in chosen.values()):
            t = alt if alt in rule.dtypes else dtype  # a second independently typed register (UnPack's source)
        if isinstance(rule, OneOf) and t not in rule.dtypes:  # a register of one fixed type (Histograms' source)
            t = min(rule.dtypes, key=lambda d: d.name)
        return _random_reg(t, rng)
    if o.kind in (Kind.PRED, Kind.MASK):
        return Reg.MaskReg.from_bits(rng.integers(0, 2, 256).astype(bool))
    if o.kind is Kind.SCALAR:
        return 3 if np.dtype(dtype.np_dtype).kind in "iu" else 1.5
    if o.kind is Kind.REF:
        return rs.Ref(100)
    if o.kind in (Kind.ENUM, Kind.TRAIT):
        return o.default
    raise LookupError(o.kind)


def _state(v: Any) -> Any:
    if isinstance(v, Reg.RegTensor):
        return v.numpy().view(np.uint8).tolist()
    if isinstance(v, Reg.MaskReg):
        return v.bits().tolist()
    if isinstance(v, rs.Ref):
        return v.value
    return v


REG_FORMS = [
    f
    for name in sorted(capi.REGISTER_API)
    for f in __import__("regsim._src.frontends.capi.register", fromlist=["FORMS"]).FORMS[name]
    if f.cname.derive is None  # (asc_mem_bar, asc_update_addr_reg: tests/frontends/test_capi_addr_reg.py)
    and not any(f.spec.operand(p).kind.name in ("PTR", "ADDR", "INT") for p in f.cname.params)
]


@pytest.mark.parametrize("form", REG_FORMS, ids=[f"{f.name}-{f.spec.key}" for f in REG_FORMS])
def test_register_c_function_is_its_reg_op(form: Any) -> None:
    """Each generated C function on registers gives the same bits as the Reg op it spells (same inputs)."""
    from regsim._src.engine.spec import REGISTRY, Kind

    spec, fixed, typed = form.spec, dict(form.fixed), dict(form.cname.types)
    dtypes = sorted(form.cname.dtypes or spec.dtypes or {rs.uint16}, key=lambda d: d.name)
    tried = 0
    simple = [d for d in dtypes if d.itemsize < 8 and d not in (rs.complex32, rs.complex64) and "4x2" not in d.name]
    combos = [(d, a) for d in simple for a in (None, *simple)]
    if typed:  # the types are the name's (a conversion of 64-bit or 4-bit types too; a gather's index by width)
        combos = [(d, None) for d in simple] if form.cname.dtypes else [(None, None)]
    for dtype, alt in combos:  # the generic builder: RegTraitNumOne registers (two-register 64-bit types: see below)
        results = []
        for seed in (0, 0):
            rng = np.random.default_rng(seed)
            chosen: dict[str, Any] = {}
            for o in spec.operands:
                chosen[o.name] = _operand(o, dtype, alt, chosen, fixed, rng, typed)
            c_args = [chosen[p] for p in form.cname.params]
            pos = [chosen[o.name] for o in spec.positional]
            kw = {o.name: chosen[o.name] for o in spec.templates if o.name in fixed or o.name in form.cname.params}
            out: dict[str, Any] = {}
            try:
                with rs.VEC_SCOPE():
                    if not results:
                        ret = getattr(capi, form.name)(*c_args)
                    else:
                        ret = REGISTRY.entry(spec.name)(tuple(pos), kw)
            except errors.RegsimError:
                break
            out = {k: _state(v) for k, v in chosen.items() if spec.operand(k).kind in (Kind.REG, Kind.MASK, Kind.REF)}
            out["return"] = _state(ret)
            results.append(out)
        if len(results) == 2:
            assert results[0] == results[1], f"{form.name} differs from Reg {spec.key} on {dtype}"
            tried += 1
    assert tried, f"{form.name}: no dtype ran"


def test_register_c_memory_functions() -> None:
    """asc_loadalign / asc_storealign (and _postupdate, the pointer moved in place) against LoadAlign / StoreAlign."""
    ub = rs.UnifiedBuffer(4096)
    src, out_c, out_r = ub.alloc(rs.float32, 128), ub.alloc(rs.float32, 128), ub.alloc(rs.float32, 128)
    src.set(np.arange(128) * 0.5)
    out_c.set(np.zeros(128))
    out_r.set(np.zeros(128))
    masks = ub.alloc(rs.uint32, 16)

    @rs.simd_vf
    def c_kernel(s: Any, d: Any, m: Any) -> None:
        r = Reg.RegTensor(rs.float32)
        mask = capi.asc_update_mask_b32(rs.Ref(100))
        for _ in range(2):
            capi.asc_loadalign_postupdate(r, s, 64)
            capi.asc_add(r, r, r, mask)
            capi.asc_storealign_postupdate(d, r, 64, mask)
        capi.asc_storealign(m, capi.asc_create_mask_b16(capi.PAT_M3))

    @rs.simd_vf
    def reg_kernel(s: Any, d: Any, m: Any) -> None:
        r = Reg.RegTensor(rs.float32)
        mask = Reg.UpdateMask(rs.float32, rs.Ref(100))
        for i in range(2):
            Reg.LoadAlign(r, s + i * 64)
            Reg.Add(r, r, r, mask)
            Reg.StoreAlign(d + i * 64, r, mask)
        Reg.StoreAlign(m + 8, Reg.CreateMask(rs.uint16, pattern=Reg.MaskPattern.M3))

    c_kernel(ptr(src), ptr(out_c), ptr(masks))
    reg_kernel(ptr(src), ptr(out_r), ptr(masks))
    assert out_c.numpy().tolist() == out_r.numpy().tolist()
    assert out_c.numpy()[:100].tolist() == (np.arange(100) * 1.0).tolist()
    got = masks.numpy()
    assert got[:8].tolist() == got[8:].tolist()


def test_register_c_api_errors() -> None:
    with pytest.raises(errors.VfContextError, match=r"^asc_add"):
        capi.asc_add(Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int16), Reg.MaskReg())
    with rs.VEC_SCOPE():
        a, b = Reg.RegTensor.from_numpy(np.arange(32, dtype=np.int64)), Reg.RegTensor.from_numpy(np.arange(32, dtype=np.int64))
        with pytest.raises(errors.DTypeError, match=r"^asc_eq: src_reg0 = .*int64.*accepted"):
            capi.asc_eq(Reg.MaskReg(), a, b, Reg.CreateMask(rs.int64))
        i = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.int16))
        with pytest.raises(errors.DTypeError, match=r"^asc_addc: .*int16"):
            capi.asc_addc(Reg.MaskReg(), i, i, i, Reg.MaskReg(), Reg.CreateMask(rs.int16))
        with pytest.raises(errors.ParameterError, match=r"^asc_add: src_reg1 = missing; accepted: one of asc_add\(carry"):
            capi.asc_add(i, i)


def test_register_form_and_memory_form_share_the_name() -> None:
    """asc_eq on registers is Reg.Compare(mode=EQ); on pointers the memory-level compare."""
    a = np.arange(64, dtype=np.float32)
    b = np.where(np.arange(64) % 2 == 0, a, -1).astype(np.float32)
    with rs.VEC_SCOPE():
        ra, rb = Reg.RegTensor.from_numpy(a), Reg.RegTensor.from_numpy(b)
        got, want = Reg.MaskReg(), Reg.MaskReg()
        capi.asc_eq(got, ra, rb, capi.asc_create_mask_b32(capi.PAT_ALL))
        Reg.Compare(want, ra, rb, Reg.CreateMask(rs.float32), mode=A.CMPMODE.EQ)
        scal = Reg.MaskReg()
        capi.asc_ne_scalar(scal, ra, 4.0, capi.asc_create_mask_b32(capi.PAT_ALL))
    assert got.bits().tolist() == want.bits().tolist()
    assert got.lanes(rs.float32).tolist() == (a == b).tolist()
    assert scal.lanes(rs.float32).tolist() == (a != 4).tolist()


# --- the conversions against the Cast oracle (regsim.testing.reference), in both loop modes -------------------------
#: the C names' type spellings and rounding suffixes (the 舍入模式与饱和模式 page)
C_TYPE = {"float": "float32", "hif8": "hifloat8", "e4m3": "fp8_e4m3fn", "e5m2": "fp8_e5m2", "e2m1x2": "fp4x2_e2m1",
          "e1m2x2": "fp4x2_e1m2"}  # fmt: skip
C_ROUND = {"rn": "CAST_RINT", "rna": "CAST_ROUND", "rd": "CAST_FLOOR", "ru": "CAST_CEIL", "rz": "CAST_TRUNC", "ro": "CAST_ODD",
           "rh": "CAST_HYBRID"}  # fmt: skip
_SPELL = "float|half|bfloat16|int4x2|int64|int32|int16|int8|uint32|uint16|uint8|hif8|e4m3|e5m2|e2m1x2|e1m2x2"
CONV_NAME = re.compile(
    rf"^asc_(?P<src>{_SPELL})2(?P<dst>{_SPELL})(?:_(?P<rnd>rn|rna|rd|ru|rz|ro|rh))?(?P<sat>_sat)?(?:_v(?P<part>[234]))?$"
)
FOUR_BIT = ("int4x2", "fp4x2_e2m1", "fp4x2_e1m2")
RM = rs.AscendC.RoundMode
INT_TYPES = {"int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "int4x2"}
NAN_TYPES = ("half", "bfloat16", "float32", "fp8_e4m3fn", "fp8_e5m2")


def parse_conversion(name: str) -> tuple[str, str, str, bool, int]:
    """(source, destination, RoundMode member name or "UNKNOWN", `_sat`, part index) of a conversion name."""
    m = CONV_NAME.match(name)
    assert m, name
    src, dst = (C_TYPE.get(m[k], m[k]) for k in ("src", "dst"))
    return src, dst, C_ROUND[m["rnd"]] if m["rnd"] else "UNKNOWN", bool(m["sat"]), int(m["part"] or 1) - 1


#: the pairs whose pages have `_sat` forms: their plain forms do not saturate; other pairs saturate
#: exactly when the destination is an integer (the Cast page's rule for a pair without satMode)
SAT_PAIRS = {parse_conversion(n)[:2] for n in CONVERSIONS if parse_conversion(n)[3]}


@contextlib.contextmanager
def trait_saturation() -> Iterator[None]:
    """CTRL[60] = 0 for the block: each conversion's satMode is the one its name gives."""
    old = A.GetCtrlSpr(start_bit=60, end_bit=60)
    A.SetCtrlSpr(0, start_bit=60, end_bit=60)
    try:
        yield
    finally:
        A.SetCtrlSpr(old, start_bit=60, end_bit=60)


def _source_raw(src: str, rng: np.random.Generator) -> np.ndarray:
    """256 register bytes: random codes; a float source random values with ties, overflows, ±inf, NaN."""
    if src not in ("half", "bfloat16", "float32"):
        return rng.integers(0, 256, 256, dtype=np.uint8)
    n = 256 // getattr(rs, src).itemsize
    v = rng.uniform(-300, 300, n)
    ties = rng.random(n) < 0.3
    v[ties] = np.round(v[ties]) + 0.5  # halfway cases of the integer conversions
    special = np.array([np.inf, -np.inf, np.nan, 2.5, -2.5, 0.5, -0.5, 1e6, -1e6, 65520.0, 3e9, 1e-8, 127.5, 255.5, -128.5])
    v[: special.size] = special
    with np.errstate(over="ignore"):
        return v.astype(getattr(rs, src).np_dtype).view(np.uint8)


def _codes(name: str, reg_bytes: np.ndarray) -> list[int]:
    if name in FOUR_BIT:
        return [int(v) for b in reg_bytes for v in (b & 0xF, b >> 4)]
    size = getattr(rs, name).itemsize
    return [int(v) for v in reg_bytes.view(f"u{size}")]


def _canon(name: str, codes: list[int]) -> list[int]:
    """NaN codes as one value: the pages say NaN stays NaN, not which payload it has."""
    if name not in NAN_TYPES:
        return codes
    size = getattr(rs, name).itemsize
    vals = np.array(codes, f"u{size}").view(getattr(rs, name).np_dtype).astype(np.float64)
    return [-1 if np.isnan(x) else c for c, x in zip(codes, vals, strict=True)]


@pytest.mark.parametrize("name", CONVERSIONS)
def test_conversion_against_the_cast_oracle(name: str) -> None:
    """Each asc_<src>2<dst>[_round][_sat][_vK] on random (and special) source lanes, a random mask and a dirty
    destination: the independent Cast oracle with the round mode, saturation and part the name spells."""
    from regsim.testing import reference as O

    src, dst, rnd, sat, part = parse_conversion(name)
    saturate = sat if (src, dst) in SAT_PAIRS else dst in INT_TYPES
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    raw = _source_raw(src, rng)
    n = 256 // getattr(rs, src).itemsize
    active = rng.random(n) < 0.75
    mask = Reg.MaskReg.from_lanes(getattr(rs, src), active)
    src_reg = Reg.RegTensor.from_numpy(raw.view(getattr(rs, src).np_dtype), dtype=getattr(rs, src))
    want = O.cast_oracle(src, dst, _codes(src, raw), list(active), part, getattr(RM, rnd).value, saturate)
    fn = getattr(capi, name)

    @rs.simd_vf
    def vf(out: Any) -> None:
        for _ in range(2):
            fn(out, src_reg, mask)

    for loops in ("sequential", "auto"):
        out = Reg.RegTensor.from_numpy(np.full(256, 0xA5, np.uint8).view(getattr(rs, dst).np_dtype), dtype=getattr(rs, dst))
        with trait_saturation(), rs.configure(loops=loops):
            vf(out)
        got = _codes(dst, out.numpy().view(np.uint8))
        assert _canon(dst, got) == _canon(dst, [int(w) for w in want]), f"{name} ({loops})"


@pytest.mark.parametrize("name", ["asc_ceil", "asc_floor", "asc_rint", "asc_round", "asc_trunc"])
@pytest.mark.parametrize("dtype", ["half", "bfloat16", "float32"])
def test_round_to_integral_against_the_truncate_oracle(name: str, dtype: str) -> None:
    """asc_ceil / _floor / _rint / _round / _trunc: Truncate's oracle with the page's mode; unselected lanes 0."""
    from regsim.testing import reference as O

    mode = {"asc_ceil": RM.CAST_CEIL, "asc_floor": RM.CAST_FLOOR, "asc_rint": RM.CAST_RINT, "asc_round": RM.CAST_ROUND,
            "asc_trunc": RM.CAST_TRUNC}[name]  # fmt: skip
    rng = np.random.default_rng(5)
    raw = _source_raw(dtype, rng)
    t = getattr(rs, dtype)
    n = 256 // t.itemsize
    active = rng.random(n) < 0.75
    mask = Reg.MaskReg.from_lanes(t, active)
    src_reg = Reg.RegTensor.from_numpy(raw.view(t.np_dtype), dtype=t)
    codes = _codes(dtype, raw)
    want = [O.truncate_value(dtype, c, mode.value) if a else 0 for c, a in zip(codes, active, strict=True)]
    fn = getattr(capi, name)

    @rs.simd_vf
    def vf(out: Any) -> None:
        for _ in range(2):
            fn(out, src_reg, mask)

    for loops in ("sequential", "auto"):
        out = Reg.RegTensor.from_numpy(np.full(256, 0xA5, np.uint8).view(t.np_dtype), dtype=t)
        with rs.configure(loops=loops):
            vf(out)
        assert _canon(dtype, _codes(dtype, out.numpy().view(np.uint8))) == _canon(dtype, want), f"{name} {dtype} ({loops})"


@pytest.mark.parametrize("kind", ["frequency", "cumulative"])
@pytest.mark.parametrize("b", [0, 1])
def test_histograms_against_the_oracle(kind: str, b: int) -> None:
    """asc_frequency_histogram_bin0/1 and asc_cumulative_histogram_bin0/1: counts added to dst (twice: a loop)."""
    from regsim.testing import reference as O

    rng = np.random.default_rng(b)
    src = rng.integers(0, 256, 256, dtype=np.uint8)
    src[:40] = 128 * b + rng.integers(0, 4, 40)  # repeated values
    active = rng.random(256) < 0.8
    old = rng.integers(0, 2**16, 128, dtype=np.uint16)
    old[:3] = 0xFFFF  # wraps
    mask = Reg.MaskReg.from_lanes(rs.uint8, active)
    src_reg = Reg.RegTensor.from_numpy(src, dtype=rs.uint8)
    once = O.histograms_oracle(list(old), list(src), list(active), bool(b), kind == "cumulative")
    want = O.histograms_oracle(once, list(src), list(active), bool(b), kind == "cumulative")
    fn = getattr(capi, f"asc_{kind}_histogram_bin{b}")

    @rs.simd_vf
    def vf(out: Any) -> None:
        for _ in range(2):
            fn(out, src_reg, mask)

    for loops in ("sequential", "auto"):
        out = Reg.RegTensor.from_numpy(old.copy(), dtype=rs.uint16)
        with rs.configure(loops=loops):
            vf(out)
        assert out.numpy().tolist() == want, f"asc_{kind}_histogram_bin{b} ({loops})"


# --- the distribution loads and stores, their int32_t-offset, AddrReg and post-update forms -------------------------
#: the pages' element types by width (written from the prototypes)
P_B8 = [rs.int8, rs.uint8, rs.fp4x2_e2m1, rs.fp4x2_e1m2, rs.fp8_e8m0, rs.fp8_e5m2, rs.fp8_e4m3fn, rs.hifloat8, rs.int4x2]
P_B16 = [rs.int16, rs.uint16, rs.half, rs.bfloat16]
P_B32 = [rs.int32, rs.uint32, rs.float32]
P_B64 = [rs.int64, rs.uint64]
#: C name → (the distribution its page describes, the element types its prototypes take)
C_LOADS = {
    "asc_loadalign": ("NORM", P_B8 + P_B16 + P_B32 + P_B64),
    "asc_loadalign_brc_elem": ("BRC", P_B8 + P_B16 + P_B32),
    "asc_loadalign_brc_datablock": ("BLK", P_B8 + P_B16 + P_B32),
    "asc_loadalign_brc_elem2datablock": ("E2B", P_B16 + P_B32),
    "asc_loadalign_upsample": ("US", P_B8 + P_B16),
    "asc_loadalign_downsample": ("DS", P_B8 + P_B16),
    "asc_loadalign_unpack": ("UNPACK", P_B8 + P_B16 + P_B32),
    "asc_loadalign_unpack4": ("UNPACK4", P_B8),
    "asc_loadalign_deintlv": ("DINTLV", P_B8 + P_B16 + P_B32),
}
C_STORES = {
    "asc_storealign": ("NORM", P_B8 + P_B16 + P_B32),
    "asc_storealign_1st": ("FIRST_ELEMENT", P_B8 + P_B16 + P_B32),
    "asc_storealign_pack": ("PACK", P_B16 + P_B32 + P_B64),
    "asc_storealign_pack_quarter": ("PACK4", P_B32),
    "asc_storealign_intlv": ("INTLV", P_B8 + P_B16 + [rs.int32, rs.uint32]),
}
#: the post-update pages taking fewer types than the plain page
POST_TYPES = {"asc_storealign_1st": [rs.int8, rs.uint8, *P_B16, *P_B32]}
NO_POST = ("asc_storealign_intlv",)


def _dist(family: str, dtype: Any) -> str:
    fixed = {"NORM": "DIST_NORM", "BLK": "DIST_BLK", "UNPACK4": "DIST_UNPACK4_B8", "PACK4": "DIST_PACK4_B32"}
    return fixed.get(family, f"DIST_{family}_B{8 * dtype.itemsize}")


def _cases(table: dict[str, tuple[str, list[Any]]]) -> list[tuple[str, Any, str]]:
    return [
        (name, t, form)
        for name, (_, types) in table.items()
        for form in ("offset", "addr", "post")
        if not (form == "post" and name in NO_POST)
        for t in (POST_TYPES.get(name, types) if form == "post" else types)
    ]


def _c_function(name: str, form: str) -> Any:
    """The C function of a distribution page in `form`: the page's name, or its `_postupdate` page."""
    return getattr(capi, f"{name}_postupdate" if form == "post" else name)


def _position(form: str, dtype: Any, i: int, step: int) -> Any:
    """The position argument of loop iteration i, `step` elements apart: the int32_t offset i * step, the AddrReg
    (i, step), or the post-update step."""
    if form == "offset":
        return i * step
    return Reg.CreateAddrReg(dtype, i, step) if form == "addr" else step


def _random_ub(nbytes: int, seed: int) -> tuple[rs.UnifiedBuffer, Any]:
    ub = rs.UnifiedBuffer(8192)
    t = ub.alloc(rs.uint8, nbytes)
    t.set(np.random.default_rng(seed).integers(0, 256, nbytes, dtype=np.uint8))
    return ub, t


@pytest.mark.parametrize(("name", "dtype", "form"), _cases(C_LOADS), ids=lambda v: getattr(v, "name", v))
def test_distribution_loads(name: str, dtype: Any, form: str) -> None:
    """Each load, in a two-iteration loop at offsets 0 and 64 bytes (int32_t offset, AddrReg, post-update),
    stored back with asc_storealign's int32_t-offset form: the LoadAlign oracle of the page's distribution."""
    from regsim.testing import reference as O

    family = C_LOADS[name][0]
    dual, size = family == "DINTLV", dtype.itemsize
    step, lanes = 64 // size, 256 // size
    load = _c_function(name, form)

    @rs.simd_vf
    def vf(src: Any, out: Any) -> None:
        regs = (Reg.RegTensor(dtype), Reg.RegTensor(dtype))[: 2 if dual else 1]
        all_lanes = capi.asc_create_mask_b8(capi.PAT_ALL)
        for i in range(2):
            load(*regs, src, _position(form, dtype, i, step))
            for j, r in enumerate(regs):
                capi.asc_storealign(out, r, (2 * i + j) * lanes, all_lanes)

    for loops in ("sequential", "auto"):
        ub, src = _random_ub(1024, 7)
        out = ub.alloc(rs.uint8, 1024)
        out.set(np.zeros(1024, np.uint8))
        before = bytes(ub.storage.data)
        with rs.configure(loops=loops):
            vf(src.GetPhyAddr().reinterpret(dtype), out.GetPhyAddr().reinterpret(dtype))
        want = bytearray(1024)
        for i in range(2):
            loaded = O.load_dist_oracle(before, src.GetPhyAddr().addr + 64 * i, _dist(family, dtype))
            want[512 * i : 512 * i + len(loaded)] = loaded
        assert out.numpy().tobytes() == bytes(want), f"{name} {dtype.name} {form} ({loops})"


@pytest.mark.parametrize(("name", "dtype", "form"), _cases(C_STORES), ids=lambda v: getattr(v, "name", v))
def test_distribution_stores(name: str, dtype: Any, form: str) -> None:
    """Each store of a random register under a random mask, in a two-iteration loop at offsets 0 and 512 bytes
    (int32_t offset, AddrReg, post-update): the StoreAlign oracle of the page's distribution, the mask ignored
    by asc_storealign_1st and asc_storealign_intlv (no mask parameter)."""
    from regsim.testing import reference as O

    family = C_STORES[name][0]
    dual, size = family == "INTLV", dtype.itemsize
    step = 512 // size
    rng = np.random.default_rng(3)
    regs = [Reg.RegTensor.from_numpy(rng.integers(0, 256, 256, dtype=np.uint8).view(dtype.np_dtype), dtype=dtype)
            for _ in range(2 if dual else 1)]  # fmt: skip
    bits = rng.integers(0, 2, 256).astype(bool)
    mask = Reg.MaskReg.from_bits(bits)
    masked = family not in ("FIRST_ELEMENT", "INTLV")
    store = _c_function(name, form)

    @rs.simd_vf
    def vf(dst: Any) -> None:
        for i in range(2):
            store(dst, *regs, _position(form, dtype, i, step), *([mask] if masked else []))

    for loops in ("sequential", "auto"):
        ub, dst = _random_ub(1536, 9)
        want = bytes(ub.storage.data)
        reg_bytes = b"".join(r.numpy().tobytes() for r in regs)
        for i in range(2):
            addr = dst.GetPhyAddr().addr + 512 * i
            if family == "NORM":
                values = [int.from_bytes(reg_bytes[k * size : (k + 1) * size], "little") for k in range(256 // size)]
                want = O.store_oracle(want, addr, size, values, [bool(bits[k * size]) for k in range(256 // size)])
            else:
                want = O.store_dist_oracle(want, addr, _dist(family, dtype), reg_bytes, [int(b) for b in bits])
        with rs.configure(loops=loops):
            vf(dst.GetPhyAddr().reinterpret(dtype))
        assert bytes(ub.storage.data) == want, f"{name} {dtype.name} {form} ({loops})"


@pytest.mark.parametrize(("name", "dist"), [("asc_loadalign_postupdate", "DIST_NORM"),
                                            ("asc_loadalign_upsample_postupdate", "DIST_US"),
                                            ("asc_loadalign_downsample_postupdate", "DIST_DS")])  # fmt: skip
def test_mask_distribution_loads(name: str, dist: str) -> None:
    """The vector_bool forms of the asc_loadalign_postupdate page (the offset in bytes), read back with
    asc_storealign(dst, vector_bool): the MaskReg load oracle."""
    from regsim.testing import reference as O

    load = getattr(capi, name)

    @rs.simd_vf
    def vf(src: Any, out: Any) -> None:
        m = Reg.MaskReg()
        for i in range(2):
            load(m, src, 64)
            capi.asc_storealign(out + 8 * i, m)

    for loops in ("sequential", "auto"):
        ub, src = _random_ub(256, 11)
        out = ub.alloc(rs.uint8, 64)
        out.set(np.zeros(64, np.uint8))
        before = bytes(ub.storage.data)
        with rs.configure(loops=loops):
            vf(src.GetPhyAddr().reinterpret(rs.uint32), out.GetPhyAddr().reinterpret(rs.uint32))
        want = bytes(64)
        for i in range(2):
            want = O.mask_store_oracle(
                want, 32 * i, O.mask_load_oracle(before, src.GetPhyAddr().addr + 64 * i, dist), "DIST_NORM"
            )
        assert out.numpy().tobytes() == want, f"{name} ({loops})"


def test_mask_pack_store_postupdate() -> None:
    """asc_storealign_pack_postupdate(dst, vector_bool, offset): 16 bytes of the even bits, then dst moves."""
    from regsim.testing import reference as O

    bits = np.random.default_rng(2).integers(0, 2, 256).astype(bool)
    mask = Reg.MaskReg.from_bits(bits)

    @rs.simd_vf
    def vf(dst: Any) -> None:
        for _ in range(2):
            capi.asc_storealign_pack_postupdate(dst, mask, 32)

    for loops in ("sequential", "auto"):
        ub, dst = _random_ub(128, 4)
        want = bytes(ub.storage.data)
        for i in range(2):
            want = O.mask_store_oracle(want, dst.GetPhyAddr().addr + 32 * i, [int(b) for b in bits], "DIST_PACK")
        with rs.configure(loops=loops):
            vf(dst.GetPhyAddr().reinterpret(rs.uint16))
        assert bytes(ub.storage.data) == want, loops


def test_int32_offset_counts_elements_and_moves_no_pointer() -> None:
    """asc_loadalign(dst, src, offset) reads at src + offset elements (the pointer itself stays);
    asc_storealign(dst, src, offset, mask) writes there."""
    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.half, 512)
    t.set(np.arange(512))
    out = ub.alloc(rs.half, 512)
    out.set(np.zeros(512))
    p, q = t.GetPhyAddr(), out.GetPhyAddr()
    with rs.VEC_SCOPE():
        r = Reg.RegTensor(rs.half)
        capi.asc_loadalign(r, p, 144)
        capi.asc_storealign(q, r, 256, capi.asc_create_mask_b16(capi.PAT_VL16))
    assert p.addr == t.GetPhyAddr().addr and q.addr == out.GetPhyAddr().addr
    assert r.numpy().tolist() == list(range(144, 272))
    assert out.numpy()[256:272].tolist() == list(range(144, 160)) and not out.numpy()[:256].any()


def test_new_register_c_api_errors_name_the_c_function_and_change_nothing() -> None:
    """A wrong element type is a DTypeError naming the C function, the parameter, the type and the accepted
    ones; an int32_t offset out of range a ParameterError; the destination keeps its value."""
    ub = rs.UnifiedBuffer(4096)
    t = ub.alloc(rs.int64, 64)
    t.set(np.arange(64))
    with rs.VEC_SCOPE():
        all32 = capi.asc_create_mask_b32(capi.PAT_ALL)
        h = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.float16))
        f = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.float32))
        before = h.numpy().copy()
        with pytest.raises(errors.DTypeError, match=r"^asc_float2half_rn: src_reg = a vector of half; accepted: one of float32"):
            capi.asc_float2half_rn(h, h, all32)
        with pytest.raises(errors.DTypeError, match=r"^asc_half2float_v2: dst_reg = a vector of half; accepted: one of float32"):
            capi.asc_half2float_v2(h, h, all32)
        with pytest.raises(
            errors.DTypeError, match=r"^asc_int322float_rn: src_reg = a vector of float32; accepted: one of int32"
        ):
            capi.asc_int322float_rn(f, f, all32)
        assert h.numpy().tolist() == before.tolist()
        i = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int32))
        with pytest.raises(errors.DTypeError, match=r"^asc_ceil: .*int32"):
            capi.asc_ceil(i, i, all32)
        u16 = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.uint16))
        with pytest.raises(errors.DTypeError, match=r"^asc_frequency_histogram_bin0: .*uint16"):
            capi.asc_frequency_histogram_bin0(u16, u16, all32)
        r64 = Reg.RegTensor(rs.int64)
        with pytest.raises(errors.DTypeError, match=r"^asc_loadalign_brc_elem: dst_reg = a vector of int64; accepted: one of "):
            capi.asc_loadalign_brc_elem(r64, t.GetPhyAddr())
        with pytest.raises(errors.DTypeError, match=r"^asc_loadalign_unpack4: dst_reg = a vector of int64"):
            capi.asc_loadalign_unpack4(r64, t.GetPhyAddr(), 0)
        i8 = Reg.RegTensor.from_numpy(np.arange(256).astype(np.int8))
        snapshot = bytes(ub.storage.data)
        with pytest.raises(errors.DTypeError, match=r"^asc_storealign_pack: src_reg = a vector of int8; accepted: one of int16"):
            capi.asc_storealign_pack(ub.alloc(rs.int8, 256).GetPhyAddr(), i8, all32)
        with pytest.raises(errors.DTypeError, match=r"^asc_storealign_pack_quarter: src_reg = a vector of half"):
            capi.asc_storealign_pack_quarter(ub.alloc(rs.half, 128).GetPhyAddr(), h, 0, all32)
        with pytest.raises(errors.ParameterError, match=r"^asc_loadalign: offset = 2147483648; accepted: an int32_t"):
            capi.asc_loadalign(r64, t.GetPhyAddr(), 2**31)
        with pytest.raises(
            errors.ParameterError, match=r"^asc_storealign_1st: arguments = .*asc_storealign_1st\(dst_addr, src_reg"
        ):
            capi.asc_storealign_1st(t.GetPhyAddr(), r64, all32)
    assert bytes(ub.storage.data)[: len(snapshot)] == snapshot


@pytest.mark.parametrize("op", ["intlv", "deintlv"])
@pytest.mark.parametrize("width", [8, 16, 32])
def test_mask_interleave_forms(op: str, width: int) -> None:
    """asc_intlv_b8/_b16/_b32 and asc_deintlv_b*: vector_bool operands, the bit groups of the width
    (sizeof(T) bits) interleaved or de-interleaved: the MaskReg oracle, in both loop modes."""
    from regsim.testing import reference as O

    rng = np.random.default_rng(width)
    b0, b1 = (rng.integers(0, 2, 256) for _ in range(2))
    oracle = O.mask_interleave_oracle if op == "intlv" else O.mask_deinterleave_oracle
    want = oracle([int(b) for b in b0], [int(b) for b in b1], width // 8)
    fn = getattr(capi, f"asc_{op}_b{width}")
    s0, s1 = Reg.MaskReg.from_bits(b0.astype(bool)), Reg.MaskReg.from_bits(b1.astype(bool))

    @rs.simd_vf
    def vf(d0: Any, d1: Any) -> None:
        for _ in range(2):
            fn(d0, d1, s0, s1)

    for loops in ("sequential", "auto"):
        d0, d1 = Reg.MaskReg(), Reg.MaskReg()
        with rs.configure(loops=loops):
            vf(d0, d1)
        assert ([int(b) for b in d0.bits()], [int(b) for b in d1.bits()]) == (list(want[0]), list(want[1])), loops


@pytest.mark.parametrize("name", ["asc_muls", "asc_muls_v2"])
def test_asc_muls_against_the_oracle(name: str) -> None:
    """asc_muls(dst, src, value, mask): half(src * value) rounded ROUND, at the even (asc_muls) or odd
    (_v2) half elements, unselected and other elements 0: the MulsCast oracle, in both loop modes."""
    from regsim.testing import reference as O

    rng = np.random.default_rng(1)
    src = rng.uniform(-40000, 40000, 64).astype(np.float32)
    src[:6] = [np.inf, -np.nan, 0.0, -0.0, 3e38, 1e-30]
    active = rng.random(64) < 0.75
    mask = Reg.MaskReg.from_lanes(rs.float32, active)
    src_reg = Reg.RegTensor.from_numpy(src)
    value = 1.75
    part = 1 if name.endswith("_v2") else 0
    want = [0] * 128
    for i, (x, a) in enumerate(zip(src.tolist(), active, strict=True)):
        want[2 * i + part] = O.muls_cast_oracle(x, value) if a else 0
    fn = getattr(capi, name)

    @rs.simd_vf
    def vf(out: Any) -> None:
        for _ in range(2):
            fn(out, src_reg, value, mask)

    for loops in ("sequential", "auto"):
        out = Reg.RegTensor.from_numpy(np.full(128, 7.0, np.float16))
        with rs.configure(loops=loops):
            vf(out)
        assert _canon("half", _codes("half", out.numpy().view(np.uint8))) == _canon("half", want), f"{name} ({loops})"


@pytest.mark.parametrize("name", ["asc_exp_sub", "asc_exp_sub_v2"])
@pytest.mark.parametrize("dtype", [rs.half, rs.float32])
def test_asc_exp_sub_against_the_reference(name: str, dtype: Any) -> None:
    """asc_exp_sub(dst, src0, src1, mask): e ** (src0 - src1) in float32 from the even (asc_exp_sub) or odd
    (_v2) half elements (float sources: element i), within ExpSub's 1 ulp of the reference (exact where it
    is special), unselected lanes 0, in both loop modes."""
    from regsim.testing import reference as O

    rng = np.random.default_rng(2)
    n = 256 // dtype.itemsize
    a = rng.uniform(-8, 8, n).astype(dtype.np_dtype)
    b = rng.uniform(-8, 8, n).astype(dtype.np_dtype)
    a[:3], b[:3] = [np.inf, 1.0, np.nan], [1.0, 1.0, 0.0]
    active = rng.random(n) < 0.75
    mask = Reg.MaskReg.from_lanes(dtype, active)
    r0, r1 = Reg.RegTensor.from_numpy(a), Reg.RegTensor.from_numpy(b)
    pick = (np.arange(64) * 2 + (1 if name.endswith("_v2") else 0)) if dtype is rs.half else np.arange(64)
    fn = getattr(capi, name)

    @rs.simd_vf
    def vf(out: Any) -> None:
        for _ in range(2):
            fn(out, r0, r1, mask)

    for loops in ("sequential", "auto"):
        out = Reg.RegTensor.from_numpy(np.full(64, 5.0, np.float32))
        with rs.configure(loops=loops):
            vf(out)
        got = out.numpy().tolist()
        for lane, j in enumerate(pick.tolist()):
            g = got[lane]
            if not active[j]:
                assert g == 0.0, (name, loops, lane)
                continue
            special, ref = O.exp_sub_reference(float(a[j]), float(b[j]))
            if special is not None:
                assert (math.isnan(g) and math.isnan(special)) or g == special, (name, loops, lane, g, special)
            else:
                assert O.ulp_distance(g, ref, "float32") <= 1.0, (name, loops, lane, g, ref)
