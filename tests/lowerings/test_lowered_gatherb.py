"""Gatherb (the "Gatherb(ISASI)" page of "Memory矢量计算/离散与聚合"): every 950 dtype against the oracle
(regsim.testing.lowering_reference.gatherb, written from the page), Hypothesis over repeats, strides and offsets, both
loop modes, the library's lowering, the page's example, and violations that raise and write nothing
(docs/decisions/datamove.md#memory-gatherb)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import assert_same, run_both, values

import regsim as rs
from regsim import errors
from regsim.testing import lowering_reference as MO

A = rs.AscendC
DTYPES = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]


def operands(dtype: Any, src_blocks: int, repeats: int, blk: int, rep: int, seed: int) -> tuple[Any, ...]:
    """(ub, dst, src, offset): src of `src_blocks` DataBlocks, dst exactly the DataBlocks the repeats reach (at least
    one), offsets random DataBlocks of src; a register of slack after the offsets (their loads read 256 bytes)."""
    e = 32 // dtype.itemsize
    dst_blocks = max((repeats - 1) * rep + 7 * blk + 1, 1) if repeats else 1
    n_off = max(8 * repeats, 8)
    pad = lambda k: -(-k // 256) * 256 + 256  # noqa: E731
    ub = rs.UnifiedBuffer(pad(src_blocks * 32) + pad(dst_blocks * 32) + pad(n_off * 4))
    rng = np.random.default_rng(seed)
    src, dst, off = ub.alloc(dtype, src_blocks * e), ub.alloc(dtype, dst_blocks * e), ub.alloc(rs.uint32, n_off)
    src.set(values(dtype, src.size, rng))
    dst.set(values(dtype, dst.size, rng))
    off.set((rng.integers(0, src_blocks, n_off) * 32).astype(np.uint32))
    return ub, dst, src, off


def check(ub: Any, dst: Any, src: Any, off: Any, repeats: int, blk: int, rep: int) -> None:
    want = MO.gatherb(dst.numpy(), src.numpy(), off.numpy(), repeats, blk, rep)
    run_both(lambda: A.Gatherb(dst, src, off, repeats, A.GatherRepeatParams(blk, rep)), ub)
    assert_same(dst.numpy(), want, "Gatherb")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize(("repeats", "blk", "rep"), [(1, 1, 8), (3, 1, 8), (2, 2, 20), (4, 3, 0), (0, 1, 8)])
def test_every_dtype(dtype: Any, repeats: int, blk: int, rep: int) -> None:
    ub, dst, src, off = operands(dtype, 24, repeats, blk, rep, seed=repeats * 7 + blk)
    check(ub, dst, src, off, repeats, blk, rep)


@settings(max_examples=max(60, settings.default.max_examples), deadline=None)
@given(st.data())
def test_hypothesis(data: st.DataObject) -> None:
    """Random repeats, dstBlkStride (1..9), dstRepStride (0..30, overlapping repeats too: the later store wins) and
    offsets (any DataBlock of src, repeated or not)."""
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    repeats = data.draw(st.integers(0, 6), "repeat_time")
    blk, rep = data.draw(st.integers(1, 9), "dstBlkStride"), data.draw(st.integers(0, 30), "dstRepStride")
    src_blocks = data.draw(st.integers(1, 40), "src DataBlocks")
    ub, dst, src, off = operands(dtype, src_blocks, repeats, blk, rep, data.draw(st.integers(0, 2**16), "seed"))
    check(ub, dst, src, off, repeats, blk, rep)


def test_page_example() -> None:
    """The page: uint16, offset [224 192 160 128 96 64 32 0], src [0 .. 127], GatherRepeatParams{1, 8}, repeatTime
    128 * 2 / 256 = 1: dst = [112 .. 127, 96 .. 111, ..., 0 .. 15]."""
    ub = rs.UnifiedBuffer(2048)
    x, y, off = ub.alloc(rs.uint16, 128), ub.alloc(rs.uint16, 128), ub.alloc(rs.uint32, 8)
    x.set(np.arange(128, dtype=np.uint16))
    off.set(np.array([224, 192, 160, 128, 96, 64, 32, 0], np.uint32))
    run_both(lambda: A.Gatherb(y, x, off, 128 * 2 // 256, A.GatherRepeatParams(1, 8)), ub)
    assert np.array_equal(y.numpy(), np.arange(128, dtype=np.uint16).reshape(8, 16)[::-1].reshape(-1))


@pytest.mark.parametrize("dtype", [rs.half, rs.int64], ids=lambda d: d.name)
def test_lowering(dtype: Any) -> None:
    """`GatherbImpl`: CreateMask, then per repeat LoadAlign, GatherB, StoreAlign."""
    _, dst, src, off = operands(dtype, 8, 2, 1, 8, seed=0)
    low = rs.lower(A.Gatherb, dst, src, off, 2, A.GatherRepeatParams(1, 8))
    assert [r.api.split("/")[0] for r in low.records] == ["CreateMask"] + ["LoadAlign", "GatherB", "StoreAlign"] * 2


def test_params_struct() -> None:
    p = A.GatherRepeatParams()
    assert (p.dstBlkStride, p.dstRepStride, p.blockNumber) == (1, 8, 8)
    assert A.GatherRepeatParams(2, 300).dstRepStride == 300
    with pytest.raises(errors.ParameterError):
        A.GatherRepeatParams(256, 8)
    with pytest.raises(errors.ParameterError):
        A.GatherRepeatParams(1, 2**16)


VIOLATIONS: list[tuple[str, type[Exception]]] = [
    ("offset not a DataBlock multiple", errors.ParameterError),
    ("offset past src", errors.ParameterError),
    ("dst too small", errors.ParameterError),
    ("offset too short", errors.ParameterError),
    ("dstBlkStride 0", errors.ParameterError),
    ("repeat_time 256", errors.ParameterError),
    ("params not GatherRepeatParams", errors.ParameterError),
    ("float32 offsets", errors.DTypeError),
    ("dtype mismatch", errors.DTypeError),
    ("unsupported dtype", errors.DTypeError),
    ("misaligned src", errors.AlignmentError),
    ("dst over src", errors.ParameterError),
    ("dst over offset", errors.ParameterError),
    ("unwritten offset", errors.UninitializedReadError),
]


@pytest.mark.parametrize(("what", "error"), VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_violations_raise_and_write_nothing(what: str, error: type[Exception]) -> None:
    ub, dst, src, off = operands(rs.half, 16, 2, 1, 8, seed=3)
    offsets = off.numpy().copy()
    args: list[Any] = [dst, src, off, 2, A.GatherRepeatParams(1, 8)]
    if what == "offset not a DataBlock multiple":
        offsets[3] = 34
    elif what == "offset past src":
        offsets[9] = 16 * 32
    elif what == "dst too small":
        args[4] = A.GatherRepeatParams(2, 8)
    elif what == "offset too short":
        args[3] = 3
    elif what == "dstBlkStride 0":
        args[4] = A.GatherRepeatParams(0, 8)
    elif what == "repeat_time 256":
        args[3] = 256
    elif what == "params not GatherRepeatParams":
        args[4] = (1, 8)
    elif what == "float32 offsets":
        args[2] = ub.alloc(rs.float32, 16)
    elif what == "dtype mismatch":
        args[1] = src.ReinterpretCast(rs.int16)
    elif what == "unsupported dtype":
        args[0] = args[1] = ub.alloc(rs.complex32, 64)
    elif what == "misaligned src":
        args[1] = src[1]
    off.set(offsets)
    if what in ("dst over src", "dst over offset"):  # dst a tensor over the whole UB (src at its byte 0)
        whole = rs.LocalTensor(ub, rs.half, 0, ub.size // 2, src.position)
        offsets[:] = 0 if what == "dst over src" else 15 * 32  # (src block 15: never written below)
        off.set(offsets)
        args = [whole, src, off, 2, A.GatherRepeatParams(1, off.addr // 32)]
    if what == "unwritten offset":
        fresh = ub.alloc(rs.uint32, 16)
        args[2] = fresh
    before = ub.storage.data.copy()
    with pytest.raises(error, match=r"^Gatherb"):
        A.Gatherb(*args)
    assert np.array_equal(ub.storage.data, before)


def test_lower_spec() -> None:
    """`regsim lower "Gatherb(half, repeat_time=2, params=(1, 8))"`."""
    from regsim._src.lowerings.explorer import lower_spec

    low = lower_spec("Gatherb(int64, repeat_time=2, params=(2, 20))")
    assert [r.api.split("/")[0] for r in low.records].count("GatherB") == 2
    with pytest.raises(errors.ParameterError, match=r"^lower"):
        lower_spec("Gatherb(half, count=128)")
