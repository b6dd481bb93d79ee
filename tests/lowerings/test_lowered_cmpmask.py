"""The compare-mask register forms of the memory-level APIs (regsim._src.lowerings.cmpmask): `Compare(src0, src1,
cmpMode, mask, repeatParams)` into the register, `GetCmpMask` / `SetCmpMask`, against the independent register-compare
oracle of regsim.testing.lowering_reference (bits the predicate leaves out 0,
docs/decisions/compare.md#compare-cmpmask); the Compare page's worked example; Hypothesis over masks, mask modes and
block strides; violations that raise and change nothing; the in-order and the default loop runs agreeing; the state
shared with the C API."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import counter_mode

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
TYPES = [rs.half, rs.float32]  # the Compare（结果存入寄存器） page's "数据类型"
MODES = ["LT", "GT", "EQ", "LE", "GE", "NE"]

#: the Compare（结果存入寄存器） page's example: 64 floats each, LT, mask 64 (or {UINT64_MAX, 0}); printed register bytes
PAGE_SRC0 = """86.72287 9.413112 17.033222 -64.10005 -66.2691 -65.57659 15.898049 94.61241 -68.920685 -36.16883 15.62852
68.078514 -59.724575 -9.4302225 -64.770935 66.55523 -84.60122 57.331 60.42026 -86.78856 37.25265 8.356797 -48.544407
16.73616 15.28083 -21.889254 -67.93181 -41.01825 -68.79465 20.169441 44.11346 -27.419518 30.452742 -89.30283 -18.590672
32.45831 8.392082 -57.198048 98.76846 -81.73067 -38.274437 -83.84363 64.30617 6.028703 -20.77164 93.71867 54.190437
94.98172 -47.447758 -65.77461 82.21715 59.953922 23.599781 -77.29708 26.963976 -63.468987 79.97712 -70.47842 39.00433
52.36555 -63.94925 -65.77033 26.17237 -71.904884"""
PAGE_SRC1 = """2.2989323 51.8879 -81.49718 41.189415 6.4081917 92.566666 53.205498 -94.47063 -75.38387 36.464787 85.60772
-28.70681 42.58504 -76.15293 38.723816 10.006577 74.53035 -78.38537 71.945404 -4.060528 -14.501523 28.229202 96.87876
41.558033 -92.623215 43.318684 35.387154 -16.029816 61.544827 3.3527017 55.806778 -93.242096 22.86275 -87.506584
35.29523 8.405956 91.03445 -85.29485 34.30078 -3.8019252 93.40503 15.459968 -57.99712 -74.39948 -59.900818 -43.132637
-13.123036 41.246174 -93.01083 75.476875 -45.437893 -99.19293 13.543604 76.23386 46.192528 -39.23934 75.9787 -38.38979
9.807722 -60.610104 -23.062874 48.1669 89.913376 73.78631"""
PAGE_OUT = [122, 86, 237, 94, 150, 3, 226, 242]


def floats(text: str) -> np.ndarray:
    return np.array([float(x) for x in text.split()], np.float32)


def setup(dtype: Any, n: int, seed: int) -> tuple[rs.UnifiedBuffer, Any, Any, Any]:
    """src0, src1 of n random elements (ties and NaN / signed zeros now and then) and a 128-byte uint8 dst."""
    ub = rs.UnifiedBuffer(2 * -(-n * dtype.itemsize // 256) * 256 + 2048)  # (slack for more tensors)
    rng = np.random.default_rng(seed)
    npd = np.dtype(dtype.np_dtype)
    s0, s1 = ub.alloc(dtype, n), ub.alloc(dtype, n)
    a = rng.integers(-4, 5, n).astype(npd)
    b = rng.integers(-4, 5, n).astype(npd)
    a[rng.integers(0, n, 3)] = np.nan
    b[rng.integers(0, n, 3)] = -0.0
    s0.set(a)
    s1.set(b)
    return ub, s0, s1, ub.alloc(rs.uint8, 128)


def cmp_mask_of(ub: rs.UnifiedBuffer, dst: Any) -> int:
    A.GetCmpMask(dst)
    return int.from_bytes(dst.numpy()[:16].tobytes(), "little")


@pytest.mark.parametrize("mask", [64, [2**64 - 1, 0]], ids=["continuous", "bit"])
def test_page_example(mask: Any) -> None:
    ub = rs.UnifiedBuffer(2048)
    s0, s1, dst = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.uint8, 128)
    s0.set(floats(PAGE_SRC0))
    s1.set(floats(PAGE_SRC1))
    dst.set(np.full(128, 0xAB, np.uint8))
    A.Compare(s0, s1, A.CMPMODE.LT, mask, A.BinaryRepeatParams(1, 1, 1, 8, 8, 8))
    A.GetCmpMask(dst)
    A.ResetMask()
    assert dst.numpy()[:16].tolist() == [*PAGE_OUT, *[0] * 8]  # float: the high 64 bits 0
    assert (dst.numpy()[16:] == 0xAB).all()  # GetCmpMask writes 16 bytes


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(data=st.data())
def test_compare_cmp_mask_hypothesis(data: st.DataObject) -> None:
    """One repeat into the register: element k (at its block stride) sets bit k where the predicate selects it,
    every other bit 0 (b32: bits 64-127 0); the mask continuous, bit, counter (count = mask / mask[0]) or the
    vector mask register (is_set_mask=False); in-order and default loops agree."""
    dtype = data.draw(st.sampled_from(TYPES), "dtype")
    mode = data.draw(st.sampled_from(MODES), "mode")
    lanes = 256 // dtype.itemsize
    form = data.draw(st.sampled_from(["continuous", "bit", "counter", "counter-bit", "placeholder"]), "form")
    blk = data.draw(st.tuples(st.integers(0, 3), st.integers(0, 3)), "block strides")
    e = 32 // dtype.itemsize
    ub, s0, s1, dst = setup(dtype, max(7 * max(blk) * e + e, lanes), data.draw(st.integers(0, 99), "seed"))
    old = data.draw(st.integers(0, 2**128 - 1), "register before")
    ub.core.cmp_mask = old
    params = A.BinaryRepeatParams(1, blk[0], blk[1], 8, 8, 8)
    is_set_mask = True
    if form == "continuous":
        mask: Any = data.draw(st.integers(1, lanes), "mask")
        selected = [k < mask for k in range(lanes)]
    elif form == "bit":
        lo = data.draw(st.integers(1, 2**64 - 1), "mask[0]")
        hi = data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
        mask = [lo, hi]
        selected = [bool((hi << 64 | lo) >> k & 1) for k in range(lanes)]
    elif form == "placeholder":
        lo = data.draw(st.integers(1, 2**64 - 1), "vector mask low")
        hi = data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
        A.SetVectorMask(dtype, hi, lo)
        mask, is_set_mask = A.MASK_PLACEHOLDER, False
        selected = [bool((hi << 64 | lo) >> k & 1) for k in range(lanes)]
    else:
        count = data.draw(st.integers(0, 2 * lanes), "count")
        mask = [count, 0] if form == "counter-bit" else count
        selected = [k < count for k in range(lanes)]
    want = MO.compare_cmp_mask(mode.lower(), 0, s0.numpy(), s1.numpy(), selected, blk[0], blk[1])
    results = []
    for loops in ("sequential", None):
        ub.core.cmp_mask = old
        with rs.configure(**({"loops": loops} if loops else {})):
            if form.startswith("counter"):
                with counter_mode():
                    A.Compare(s0, s1, getattr(A.CMPMODE, mode), mask, params, is_set_mask=is_set_mask)
            else:
                A.Compare(s0, s1, getattr(A.CMPMODE, mode), mask, params, is_set_mask=is_set_mask)
        results.append(cmp_mask_of(ub, dst))
    A.ResetMask()
    assert results[0] == results[1], "sequential and default loops disagree"
    assert results[0] == want, f"{dtype.name} {mode} {form}: got {results[0]:#034x} want {want:#034x}"


def test_set_get_round_trip_and_shared_with_capi() -> None:
    """SetCmpMask reads 16 bytes, GetCmpMask writes them back; the register is the C API's."""
    ub = rs.UnifiedBuffer(1024)
    src, dst = ub.alloc(rs.uint64, 2), ub.alloc(rs.uint8, 128)
    raw = np.arange(1, 17, dtype=np.uint8) * 13
    src.set(raw.view(np.uint64))
    A.SetCmpMask(src)
    assert ub.core.cmp_mask == int.from_bytes(raw.tobytes(), "little")
    A.GetCmpMask(dst)
    assert dst.numpy()[:16].tolist() == raw.tolist()
    back = ub.alloc(rs.uint8, 16)
    rs.capi.asc_get_cmp_mask(back.GetPhyAddr())
    assert back.numpy().tolist() == raw.tolist()
    ub.core.cmp_mask = 0x1234
    A.GetCmpMask(dst)
    assert dst.numpy()[:3].tolist() == [0x34, 0x12, 0]


def test_violations_change_nothing() -> None:
    ub, s0, s1, dst = setup(rs.float32, 64, seed=1)
    ub.core.cmp_mask = 0xDEAD
    before = ub.storage.data.copy()
    p = A.BinaryRepeatParams()
    big = ub.alloc(rs.uint8, 256)
    i32 = ub.alloc(rs.int32, 64)
    i32.set(np.zeros(64, np.int32))
    cases: list[tuple[Any, type[Exception], str]] = [
        (lambda: A.Compare(i32, i32, A.CMPMODE.LT, 64, p), errors.DTypeError, "src0"),  # half and float only
        (lambda: A.Compare(s0, s1, A.CMPMODE.LT, 65, p), errors.ParameterError, "mask"),
        (lambda: A.Compare(s0, s1, "LT", 64, p), errors.ParameterError, "cmp_mode"),
        (lambda: A.Compare(s0, s1, A.CMPMODE.LT, 64, A.UnaryRepeatParams()), errors.ParameterError, "repeat_params"),
        (lambda: A.GetCmpMask(ub.alloc(rs.uint8, 8)), errors.ParameterError, "dst"),  # under the 16 bytes written
        (lambda: A.GetCmpMask(big[8]), errors.AlignmentError, "dst"),  # not 16-byte aligned
        (lambda: A.GetCmpMask(ub.alloc(rs.uint64, 16)), errors.DTypeError, "dst"),  # b8 / b16 / b32
        (lambda: A.SetCmpMask(ub.alloc(rs.uint8, 8)), errors.ParameterError, "src"),  # 16 bytes read
    ]
    for call, exc, param in cases:
        with pytest.raises(exc, match=rf"^(Compare|GetCmpMask|SetCmpMask): {param}"):
            call()
        assert ub.core.cmp_mask == 0xDEAD
    assert np.array_equal(ub.storage.data[: before.size], before)
    fresh = ub.alloc(rs.uint8, 32)
    with rs.configure(check_uninitialized=True), pytest.raises(errors.UninitializedReadError, match=r"^SetCmpMask: src"):
        A.SetCmpMask(fresh)
    assert ub.core.cmp_mask == 0xDEAD
    A.GetCmpMask(big[16])  # 16-byte aligned is enough
    assert big.numpy()[16:18].tolist() == [0xAD, 0xDE]
    with rs.VEC_SCOPE(), pytest.raises(errors.VfContextError, match=r"^GetCmpMask"):
        A.GetCmpMask(dst)


# --- Select without a mask argument ------------------------------------------------------------------------------
SELECT_TYPES = [rs.half, rs.int16, rs.uint16, rs.int32, rs.uint32, rs.float32, rs.bfloat16]  # SelectCal's static_assert
S0, S1, S2 = A.SELMODE.VSEL_CMPMASK_SPR, A.SELMODE.VSEL_TENSOR_SCALAR_MODE, A.SELMODE.VSEL_TENSOR_TENSOR_MODE


def select_call(mode: Any, dst: Any, sel: Any, s0: Any, s1: Any, repeats: int, params: Any) -> None:
    """The no-mask overloads as C++ spells them: Select<T, mode>(dst, src0, src1, ...) or Select(dst, sel, src0, ...)."""
    if mode is S1:
        A.Select(dst, sel, s0, repeats, params)
    else:
        A.Select(dst, s0, s1, repeats, params, sel_mode=mode)


@settings(max_examples=max(10, settings.default.max_examples // 2))
@given(data=st.data())
def test_select_by_cmp_mask_hypothesis(data: st.DataObject) -> None:
    """Mode 0: the register's first E bits choose src0 / src1 in every repeat; mode 2: the register holds selMask's
    UB address and the bits are consumed repeat by repeat; mode 1: the register's low bytes are the scalar src1. The
    vector mask (normal mode, repeat_time repeats) or its count (counter mode) selects the elements written."""
    dtype = data.draw(st.sampled_from(SELECT_TYPES), "dtype")
    mode = data.draw(st.sampled_from([S0, S1, S2]), "mode")
    counter = data.draw(st.booleans(), "counter mode")
    lanes = 256 // dtype.itemsize
    blk = data.draw(st.tuples(st.integers(1, 2), st.integers(1, 2), st.integers(1, 2)), "block strides")
    rep = data.draw(st.tuples(*(st.sampled_from([8, 16, 0]) for _ in range(3))), "repeat strides")
    strides = (*blk, *rep)
    params = A.BinaryRepeatParams(*strides)
    if counter:
        count = data.draw(st.integers(0, 3 * lanes), "count")
        repeats = -(-count // lanes)
        selected: Any = lambda r, k: r * lanes + k < count  # noqa: E731
    else:
        repeats = data.draw(st.integers(0, 3), "repeat_time")
        lo = data.draw(st.integers(1, 2**64 - 1), "vector mask low")
        hi = data.draw(st.integers(0, 2**64 - 1)) if lanes > 64 else 0
        selected = lambda r, k: bool((hi << 64 | lo) >> k & 1)  # noqa: E731
    n = max(MO.touched_elements(dtype.itemsize, max(repeats, 1), strides[i], strides[i + 3]) for i in range(3))
    ub = rs.UnifiedBuffer(3 * -(-n * dtype.itemsize // 256) * 256 + 1024)
    rng = np.random.default_rng(data.draw(st.integers(0, 99), "seed"))
    dst, s0, s1 = (ub.alloc(dtype, n) for _ in range(3))
    for t in (dst, s0, s1):
        t.set(rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(dtype.np_dtype))
    sel = ub.alloc(data.draw(st.sampled_from([rs.uint8, rs.uint16, rs.uint32, rs.uint64]), "U"), 64 // 1)
    sel.set(rng.integers(0, 256, sel.nbytes, dtype=np.uint8).view(sel.dtype.np_dtype))
    sel_bytes = sel.numpy().view(np.uint8)
    register = int(data.draw(st.integers(0, 2**128 - 1), "register"))
    if mode is S2:
        register = register >> 32 << 32 | sel.addr  # the low 32 bits are selMask's (32-bit __ubuf__) address
    ub.core.cmp_mask = register
    if mode is S0:
        bits_src: np.ndarray = np.frombuffer(register.to_bytes(16, "little"), np.uint8)
        other: Any = s1.numpy()
    elif mode is S1:
        bits_src = sel_bytes
        other = np.frombuffer(register.to_bytes(16, "little")[: dtype.itemsize], dtype.np_dtype)[0]
    else:
        bits_src, other = sel_bytes, s1.numpy()
    want = MO.select_repeat(dst.numpy(), bits_src, s0.numpy(), other, int(mode), selected, repeats, strides)
    before = ub.storage.data.copy()
    results = []
    for loops in ("sequential", None):
        ub.storage.data[:] = before
        with rs.configure(**({"loops": loops} if loops else {})):
            if counter:
                A.SetVectorMask(dtype, 0, count)  # counter mode: the count in the low word
                with counter_mode():
                    select_call(mode, dst, sel, s0, s1, 7, params)  # repeat_time is not used in counter mode
            else:
                A.SetVectorMask(dtype, hi, lo)
                select_call(mode, dst, sel, s0, s1, repeats, params)
        results.append(ub.storage.data.copy())
    A.ResetMask()
    assert np.array_equal(results[0], results[1]), "sequential and default loops disagree"
    got = dst.numpy()
    bad = np.flatnonzero(got.view(np.uint8).reshape(n, -1).tobytes() != want.view(np.uint8).reshape(n, -1).tobytes())
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), (
        f"{dtype.name} {mode.name} counter={counter}: {bad} got {got[:8]} want {want[:8]}"
    )


def test_select_pages_examples() -> None:
    """The SetCmpMask page's calls (float, 4 repeats, mask 64): mode 0 after SetCmpMask(sel); mode 2 after the
    selMask address is Duplicated into a buffer and set; mode 1 after 1.0 is Duplicated and set; and a register
    Compare LT feeding mode 0 (dst = the smaller element)."""
    ub = rs.UnifiedBuffer(8192)
    dst, s0, s1 = (ub.alloc(rs.float32, 256) for _ in range(3))
    sel, tmp = ub.alloc(rs.uint8, 32), ub.alloc(rs.uint32, 64)
    rng = np.random.default_rng(7)
    a, b = rng.uniform(-100, 100, 256).astype(np.float32), rng.uniform(-100, 100, 256).astype(np.float32)
    s0.set(a)
    s1.set(b)
    sel.set(rng.integers(0, 256, 32, dtype=np.uint8))
    bits = np.unpackbits(sel.numpy(), bitorder="little").astype(bool)
    params = A.BinaryRepeatParams(1, 1, 1, 8, 8, 8)
    A.SetCmpMask(sel)
    A.SetVectorMask(rs.float32, 64)
    A.Select(dst, s0, s1, 4, params, sel_mode=S0)
    assert np.array_equal(dst.numpy(), np.where(np.tile(bits[:64], 4), a, b)), "mode 0"
    A.SetVectorMask(rs.uint32, 32)
    A.Duplicate(tmp, sel.GetPhyAddr().addr, A.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)  # selAddr in every word
    A.SetCmpMask(tmp)  # (the page: SetCmpMask<int64_t>(tempBuf.ReinterpretCast<int64_t>()), the same 16 bytes)
    A.SetVectorMask(rs.float32, 64)
    A.Select(dst, s0, s1, 4, params, sel_mode=S2)
    assert np.array_equal(dst.numpy(), np.where(bits, a, b)), "mode 2"
    scalar = ub.alloc(rs.float32, 64)
    A.SetVectorMask(rs.uint32, 32)
    A.Duplicate(scalar, 1.0, A.MASK_PLACEHOLDER, 1, 1, 8, is_set_mask=False)
    A.SetCmpMask(scalar)
    A.SetVectorMask(rs.float32, 64)
    A.Select(dst, sel, s0, 4, params)
    assert np.array_equal(dst.numpy(), np.where(bits, a, np.float32(1.0))), "mode 1"
    for r in range(4):
        A.Compare(s0[64 * r], s1[64 * r], A.CMPMODE.LT, 64, params)
        A.Select(dst[64 * r], s0[64 * r], s1[64 * r], 1, params, sel_mode=S0)
    A.ResetMask()
    assert np.array_equal(dst.numpy(), np.minimum(a, b)), "Compare LT + Select mode 0"


def test_select_violations_write_nothing() -> None:
    ub = rs.UnifiedBuffer(8192)
    dst, s0, s1 = (ub.alloc(rs.float32, 64) for _ in range(3))
    for t in (dst, s0, s1):
        t.set(np.ones(64, np.float32))
    sel, i8 = ub.alloc(rs.uint8, 8), ub.alloc(rs.int8, 64)
    sel.set(np.zeros(8, np.uint8))
    i8.set(np.zeros(64, np.int8))
    p = A.BinaryRepeatParams()
    ub.core.cmp_mask = 1 << 100 | 8190  # mode 2: selMask's bits would run past the UB (8192 bytes)
    before = ub.storage.data.copy()
    cases: list[tuple[Any, type[Exception], str]] = [
        (lambda: A.Select(dst, s0, s1, 1, p, sel_mode=S1), errors.ParameterError, "sel_mode"),
        (lambda: A.Select(i8, i8, i8, 1, p, sel_mode=S0), errors.DTypeError, "dst"),
        (lambda: A.Select(dst, s0, s1, 256, p, sel_mode=S0), errors.ParameterError, "repeat_time"),
        (lambda: A.Select(dst, s0, s1, 1, p, sel_mode=S2), errors.ParameterError, "the compare-mask register"),
        (lambda: A.Select(dst, sel, s0, 2, p), errors.ParameterError, "sel_mask"),  # 8 bytes < 128 bits read
        (lambda: A.Select(dst, dst, s0, 1, p), errors.DTypeError, "sel_mask"),
    ]
    for call, exc, param in cases:
        with pytest.raises(exc, match=rf"^Select: {param}"):
            call()
    assert np.array_equal(ub.storage.data, before)
    fresh = ub.alloc(rs.uint8, 32)
    ub.core.cmp_mask = fresh.addr
    with rs.configure(check_uninitialized=True), pytest.raises(errors.UninitializedReadError, match=r"^Select: the compare"):
        A.Select(dst, s0, s1, 1, p, sel_mode=S2)
    assert np.array_equal(ub.storage.data[: before.size], before)
