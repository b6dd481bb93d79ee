"""rs.capi: the memory-level C API compares (asc_eq ... asc_le, _sync, _scalar, the compare-mask register)
against the independent addressing oracle (regsim.testing.memvec_reference), and the 950 register-level C
API against the Reg ops it spells."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg, capi, errors
from regsim.testing import memvec_reference as MO

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


def run_both(call: Any, ub: rs.UnifiedBuffer) -> None:
    """`call()` with loops="sequential", then again with the default loops="auto" (batched where exact) from
    the same UB and compare-mask register: the two must agree bit for bit."""
    data, cmp = ub.storage.data.copy(), ub.cmp_mask
    with rs.configure(loops="sequential"):
        call()
    seq, seq_cmp = ub.storage.data.copy(), ub.cmp_mask
    ub.storage.data[:] = data
    ub.cmp_mask = cmp
    call()
    assert np.array_equal(seq, ub.storage.data) and seq_cmp == ub.cmp_mask, "sequential and batched loops disagree"


def span(itemsize: int, repeats: int, blk: int, rep: int) -> int:
    return MO.touched_elements(itemsize, max(repeats, 1), blk, rep) + 256 // itemsize


@contextlib.contextmanager
def counter_mode() -> Iterator[None]:
    A.SetMaskCount()
    try:
        yield
    finally:
        A.SetMaskNorm()


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
    before, mask_before = ub.storage.data.copy(), ub.cmp_mask
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
    assert np.array_equal(ub.storage.data, before) and ub.cmp_mask == mask_before


def test_memory_api_outside_vf_only() -> None:
    ub = rs.UnifiedBuffer(1024)
    t = ub.alloc(rs.half, 128)

    @rs.simd_vf
    def inside(p: Any) -> None:
        capi.asc_eq(p, p, 1, 1, 1, 1, 8, 8, 8)

    with pytest.raises(errors.VfContextError, match=r"^asc_eq"):
        inside(ptr(t))


# --- the register-level C API ------------------------------------------------------------------------------------------
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
}  # fmt: skip


def test_every_registry_c_name_is_exposed() -> None:
    from regsim._src.spec import REGISTRY

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
        return Reg.RegTensor.from_numpy(rng.integers(0, 256, 256, dtype=np.uint8).view(npd))
    return Reg.RegTensor.from_numpy((rng.integers(-8, 9, n) / 4).astype(npd))


def _operand(o: Any, dtype: Any, alt: Any, chosen: dict[str, Any], fixed: dict[str, Any], rng: np.random.Generator) -> Any:
    from regsim._src.spec import Kind, OneOf, Paired, SameAs

    if o.name in fixed:
        return fixed[o.name]
    if o.kind is Kind.REG:
        rule = o.dtypes
        t = dtype
        if isinstance(rule, SameAs):
            t = chosen[rule.other].dtype
        elif isinstance(rule, Paired):
            t = rule.pairs[chosen[rule.other].dtype]
        elif isinstance(rule, OneOf) and any(isinstance(v, Reg.RegTensor) for v in chosen.values()):
            t = alt if alt in rule.dtypes else dtype  # a second independently typed register (UnPack's source)
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
    for f in __import__("regsim._src.capi_reg", fromlist=["FORMS"]).FORMS[name]
    if not any(f.spec.operand(p).kind.name in ("PTR", "ADDR", "INT") for p in f.cname.params)
]


@pytest.mark.parametrize("form", REG_FORMS, ids=[f"{f.name}-{f.spec.key}" for f in REG_FORMS])
def test_register_c_function_is_its_reg_op(form: Any) -> None:
    """Each generated C function on registers gives the same bits as the Reg op it spells (same inputs)."""
    from regsim._src.spec import REGISTRY, Kind

    spec, fixed = form.spec, dict(form.fixed)
    dtypes = sorted(form.cname.dtypes or spec.dtypes or {rs.uint16}, key=lambda d: d.name)
    tried = 0
    simple = [d for d in dtypes if d.itemsize < 8 and d not in (rs.complex32, rs.complex64) and "4x2" not in d.name]
    for dtype, alt in [(d, a) for d in simple for a in (None, *simple)]:  # the generic builder: RegTraitNumOne registers
        results = []
        for seed in (0, 0):
            rng = np.random.default_rng(seed)
            chosen: dict[str, Any] = {}
            for o in spec.operands:
                chosen[o.name] = _operand(o, dtype, alt, chosen, fixed, rng)
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
            assert results[0] == results[1], f"{form.name} differs from Reg {spec.key} on {dtype.name}"
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
        with pytest.raises(errors.ParameterError, match=r"^asc_add: arguments = .*accepted: one of asc_add\(carry"):
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
