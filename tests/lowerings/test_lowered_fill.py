"""Brcb and CreateVecIndex (their pages of "Memory矢量计算"): every dtype against the pages' pseudocode and the oracles
(regsim.testing.lowering_reference: brcb, create_vec_index_*), Hypothesis over repeats, masks and strides, both loop
modes, the library's lowerings, the pages' examples, and violations that raise and write nothing
(docs/decisions/datamove.md#memory-brcb, docs/decisions/datamove.md#memory-createvecindex)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import assert_same, counter_mode, draw_mask, repeat_span, run_both

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
DTYPES = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]


def operands(dtype: Any, repeats: int, blk: int, rep: int, seed: int) -> tuple[rs.UnifiedBuffer, Any, Any]:
    e = 32 // dtype.itemsize
    dst_n = (max(repeats - 1, 0) * rep + 7 * blk + 1) * e
    src_n = max(8 * repeats, 1)
    ub = rs.UnifiedBuffer(-(-(dst_n + src_n) * dtype.itemsize // 256) * 256 + 512)
    dst, src = ub.alloc(dtype, dst_n), ub.alloc(dtype, src_n)
    rng = np.random.default_rng(seed)
    npd = np.dtype(dtype.np_dtype)
    for t in (dst, src):
        t.set(rng.integers(0, 256, t.size * npd.itemsize, dtype=np.uint8).view(npd))
    return ub, dst, src


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
@pytest.mark.parametrize(("blk", "rep"), [(1, 8), (2, 16), (1, 3), (3, 0)], ids=["contiguous", "gaps", "overlapping", "rep0"])
def test_every_dtype(dtype: Any, blk: int, rep: int) -> None:
    for repeats in (0, 1, 3):
        ub, dst, src = operands(dtype, repeats, blk, rep, seed=repeats)
        d0, s0 = dst.numpy(), src.numpy()
        run_both(lambda: A.Brcb(dst, src, repeats, A.BrcbRepeatParams(blk, rep)), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.brcb(d0, s0, repeats, blk, rep), f"Brcb({dtype.name}, {repeats}, ({blk}, {rep}))")
        assert_same(src.numpy(), s0, "src unchanged")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    repeats = data.draw(st.integers(0, 6), "repeat_time")
    blk = data.draw(st.integers(1, 4), "dstBlkStride")
    rep = data.draw(st.integers(0, 20), "dstRepStride")
    ub, dst, src = operands(dtype, repeats, blk, rep, seed=data.draw(st.integers(0, 999), "seed"))
    d0, s0 = dst.numpy(), src.numpy()
    run_both(lambda: A.Brcb(dst, src, repeats, A.BrcbRepeatParams(blk, rep)), ub)
    assert_same(dst.numpy(), MO.brcb(d0, s0, repeats, blk, rep), f"Brcb({dtype.name}, {repeats}, ({blk}, {rep}))")


def test_page_example() -> None:
    """The page: half, repeatTime 2, {1, 8}: 16 source elements, each filling 16 consecutive elements of dst."""
    ub = rs.UnifiedBuffer(4096)
    dst, src = ub.alloc(rs.half, 256), ub.alloc(rs.half, 16)
    src.set(np.arange(16, dtype=np.float16))
    dst.set(np.zeros(256, np.float16))
    A.Brcb(dst, src, 2, A.BrcbRepeatParams(1, 8))
    assert dst.numpy().tolist() == [float(i // 16) for i in range(256)]


def test_lowerings() -> None:
    _, dst, src = operands(rs.half, 2, 1, 8, seed=1)
    assert rs.lower(A.Brcb, dst, src, 2, A.BrcbRepeatParams()).counts() == {
        "CreateMask": 1,
        "LoadAlign": 2,
        "StoreAlign/block": 2,
    }
    _, dst, src = operands(rs.int8, 1, 1, 8, seed=1)
    assert rs.lower(A.Brcb, dst, src, 1, A.BrcbRepeatParams()).counts() == {
        "UpdateMask": 1, "LoadAlign": 8, "Duplicate/reg": 8, "StoreAlign": 8,
    }  # fmt: skip
    _, dst, src = operands(rs.uint64, 1, 1, 8, seed=1)
    low = rs.lower(A.Brcb, dst, src, 1, A.BrcbRepeatParams())
    assert low.counts()["LoadAlign"] == 16 and low.counts()["Interleave"] == 8


def test_lower_spec() -> None:
    counts = rs._src.lowerings.explorer.lower_spec("Brcb(float32, repeat_time=3, repeat_params=(2, 16))").counts()
    assert counts == {"CreateMask": 1, "LoadAlign": 3, "StoreAlign/block": 3}


def _violations() -> list[tuple[str, Any, type[Exception]]]:
    p = A.BrcbRepeatParams()
    return [
        ("Brcb dstBlkStride 0", lambda d, s, ub: A.Brcb(d, s, 1, A.BrcbRepeatParams(0, 8)), errors.ParameterError),
        ("Brcb src too small", lambda d, s, ub: A.Brcb(d, s, 3, p), errors.ParameterError),
        ("Brcb overlap", lambda d, s, ub: A.Brcb(d, d, 1, p), errors.ParameterError),
        ("Brcb repeat 256", lambda d, s, ub: A.Brcb(d, s, 256, p), errors.ParameterError),
        ("Brcb params type", lambda d, s, ub: A.Brcb(d, s, 1, A.UnaryRepeatParams()), errors.ParameterError),
        ("Brcb stride 2**16", lambda d, s, ub: A.BrcbRepeatParams(2**16, 8), errors.ParameterError),
        ("Brcb store past dst", lambda d, s, ub: A.Brcb(d, s, 2, A.BrcbRepeatParams(1, 20)), errors.OutOfBoundsError),
        ("Brcb complex", lambda d, s, ub: A.Brcb(*(ub.alloc(rs.complex64, 32) for _ in range(2)), 1, p), errors.DTypeError),
        ("Brcb misaligned src", lambda d, s, ub: A.Brcb(d, s[2], 1, p), errors.AlignmentError),
    ]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception]) -> None:
    ub, dst, src = operands(rs.half, 2, 1, 8, seed=3)
    before = ub.storage.data.copy()
    with pytest.raises(error) as info:
        call(dst, src, ub)
    assert str(info.value).split(":")[0] in ("Brcb", "BrcbRepeatParams"), str(info.value)
    assert np.array_equal(ub.storage.data[: before.size], before), f"{what}: the UB changed"


# --- CreateVecIndex --------------------------------------------------------------------------------------------------------
VCI_COUNT = [rs.int8, rs.int16, rs.half, rs.int32, rs.float32, rs.int64]
VCI_REPEAT = [rs.int16, rs.half, rs.int32, rs.float32]


def vci_dst(dtype: Any, n: int, seed: int) -> tuple[rs.UnifiedBuffer, Any]:
    ub = rs.UnifiedBuffer(-(-n * dtype.itemsize // 256) * 256 + 512)
    dst = ub.alloc(dtype, n)
    npd = np.dtype(dtype.np_dtype)
    dst.set(np.random.default_rng(seed).integers(0, 256, n * npd.itemsize, dtype=np.uint8).view(npd))
    return ub, dst


def first_value(dtype: Any, rng: np.random.Generator) -> Any:
    if dtype in (rs.half, rs.float32):
        return float(np.array(rng.uniform(-3000, 3000), np.dtype(dtype.np_dtype)))  # (half: 2049 + 1 rounds)
    info = np.iinfo(np.dtype(dtype.np_dtype))
    return int(rng.integers(info.min, info.max, endpoint=True))


@pytest.mark.parametrize("dtype", VCI_COUNT, ids=[d.name for d in VCI_COUNT])
def test_create_vec_index_first_n(dtype: Any) -> None:
    lanes = 256 // dtype.itemsize
    rng = np.random.default_rng(7)
    for count in (0, 1, lanes - 1, 2 * lanes + 3):
        ub, dst = vci_dst(dtype, 3 * lanes, seed=count)
        d0, first = dst.numpy(), first_value(dtype, rng)
        run_both(lambda: A.CreateVecIndex(dst, first, count), ub)  # noqa: B023
        assert_same(dst.numpy(), MO.create_vec_index_first_n(d0, first, count), f"CreateVecIndex({dtype.name}, {first}, {count})")


@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data())
def test_create_vec_index_repeat_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(VCI_REPEAT), "dtype")
    lanes = 256 // dtype.itemsize
    mode = data.draw(st.sampled_from(["continuous", "bit", "counter"]), "mask form")
    repeats = data.draw(st.integers(0, 4), "repeat_time")
    blk, rep = data.draw(st.integers(0, 3), "dstBlkStride"), data.draw(st.integers(0, 16), "dstRepStride")
    count = data.draw(st.integers(1, 4 * lanes), "count (counter mode)")
    reps, n = repeat_span(dtype, mode, count, repeats, (blk,), (rep,), slack=lanes)
    ub, dst = vci_dst(dtype, n, seed=data.draw(st.integers(0, 999), "seed"))
    first = first_value(dtype, np.random.default_rng(data.draw(st.integers(0, 999), "first value seed")))
    d0 = dst.numpy()
    mask = draw_mask(data, mode, lanes, count)
    call = lambda: A.CreateVecIndex(dst, first, mask, repeats, blk, rep)  # noqa: E731
    if mode == "counter":
        with counter_mode():
            run_both(call, ub)
        sel: Any = lambda r, k: r * lanes + k < count  # noqa: E731
    else:
        run_both(call, ub)
        bits = MO.mask_elements(dtype.itemsize, mask)
        sel = lambda r, k: bits[k]  # noqa: E731
    want = MO.create_vec_index_repeat(d0, first, sel, reps, blk, rep)
    assert_same(dst.numpy(), want, f"CreateVecIndex({dtype.name}, {first}, {mode}, mask={mask}, repeat={repeats}, {blk}, {rep})")


def test_create_vec_index_page_and_lowering() -> None:
    """The page: int16, firstValue 0, 512 elements (count; mask 128, repeatTime 4, {1, 8}) give [0 1 2 ... 511]."""
    for args in ((512,), (128, 4, 1, 8), ([2**64 - 1, 2**64 - 1], 4, 1, 8)):
        _, dst = vci_dst(rs.int16, 512, seed=1)
        A.CreateVecIndex(dst, 0, *args)
        assert dst.numpy().tolist() == list(range(512))
    low = rs.lower(A.CreateVecIndex, dst, 0, 300)
    assert low.counts() == {"Arange": 1, "UpdateMask": 3, "StoreAlign": 3, "Adds": 3}
    _, d64 = vci_dst(rs.int64, 128, seed=2)
    assert rs.lower(A.CreateVecIndex, d64, -5, 100).counts()["Arange"] == 2


def _h(ub: rs.UnifiedBuffer) -> Any:
    return ub.alloc(rs.half, 128)


VCI_VIOLATIONS: list[tuple[str, Any, type[Exception]]] = [
    ("CreateVecIndex int8 mask/repeat", lambda ub: A.CreateVecIndex(ub.alloc(rs.int8, 256), 0, 8, 1, 1, 8), errors.DTypeError),
    ("CreateVecIndex uint16", lambda ub: A.CreateVecIndex(ub.alloc(rs.uint16, 128), 0, 8), errors.DTypeError),
    ("CreateVecIndex first out of range", lambda ub: A.CreateVecIndex(ub.alloc(rs.int16, 128), 40000, 8), errors.ParameterError),
    ("CreateVecIndex float first for int", lambda ub: A.CreateVecIndex(ub.alloc(rs.int32, 64), 1.5, 8), errors.ParameterError),
    ("CreateVecIndex count > size", lambda ub: A.CreateVecIndex(ub.alloc(rs.half, 128), 0, 129), errors.ParameterError),
    ("CreateVecIndex mask 129", lambda ub: A.CreateVecIndex(ub.alloc(rs.half, 128), 0, 129, 1, 1, 8), errors.ParameterError),
    ("CreateVecIndex rep stride 256", lambda ub: A.CreateVecIndex(_h(ub), 0, 8, 1, 1, 256), errors.ParameterError),
    ("CreateVecIndex arguments", lambda ub: A.CreateVecIndex(ub.alloc(rs.half, 128), 0, 8, 1), errors.ParameterError),
    ("CreateVecIndex store past dst", lambda ub: A.CreateVecIndex(_h(ub), 0, 128, 3, 1, 8), errors.OutOfBoundsError),
]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error"), VCI_VIOLATIONS, ids=[v[0] for v in VCI_VIOLATIONS])
def test_create_vec_index_violations_write_nothing(what: str, call: Any, error: type[Exception]) -> None:
    ub = rs.UnifiedBuffer(4096)
    ub.storage.write(0, np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8))
    before = ub.storage.data.copy()
    with pytest.raises(error, match=r"^CreateVecIndex"):
        call(ub)
    assert np.array_equal(ub.storage.data, before), f"{what}: the UB changed"
