"""Brcb (the Brcb page of "Memory矢量计算"): every dtype against the page's pseudocode (regsim.testing.memvec_reference
.brcb), Hypothesis over repeats and strides, both loop modes, the library's three lowerings by element width, the
page's example, and violations that raise and write nothing (decisions §125)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import errors
from regsim.testing import memvec_reference as MO
from tests.test_memvec import assert_same, run_both

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
    counts = rs._src.memvec.lower_spec("Brcb(float32, repeat_time=3, repeat_params=(2, 16))").counts()
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
