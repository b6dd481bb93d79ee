"""GatherMask (its page of "Memory矢量计算/比较与选择"): each built-in pattern 1..7 and a pattern tensor x every 950 dtype x
reduceMode (normal, counter) against the oracle (regsim.testing.lowering_reference.gather_mask, written from the page), the
kept count rsvdCnt checked, Hypothesis over patterns, masks, repeats and strides, both loop modes, the library's
lowerings, the page's examples, and violations that raise and write nothing (docs/decisions/datamove.md#memory-gathermask)."""

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
U16 = rs.uint16
#: the page's Ascend 950 table
DTYPES = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32]
PATTERN_TYPE = {1: rs.uint8, 2: rs.uint16, 4: rs.uint32}


def operands(
    dtype: Any, reduce_mode: bool, mask: int, params: tuple[int, int, int, int], user: bool, seed: int
) -> tuple[rs.UnifiedBuffer, Any, Any, Any]:
    """(ub, dst, src0, pattern tensor or None): src0 exactly the DataBlocks the repeats read (at least one), dst room
    for every element a repeat may keep, the pattern tensor the bytes its repeats read, all of random bits; a register
    of slack after the last tensor (the b32 pattern's LoadUnAlign reads a whole register)."""
    blk, repeats, rep, src1_rep = params
    e, lanes = 32 // dtype.itemsize, 256 // dtype.itemsize
    per = mask if reduce_mode else lanes
    if repeats == 0:
        blocks = 1
    elif reduce_mode:
        inner = -(-mask // lanes)
        last = mask - (inner - 1) * lanes
        blocks = (repeats - 1) * rep + (inner - 1) * 8 * blk + (-(-last // e) - 1) * blk + 1
    else:
        blocks = (repeats - 1) * rep + 7 * blk + 1
    inner = -(-mask // lanes) if reduce_mode else 1
    pat_bytes = max((repeats - 1) * src1_rep * 32 + inner * lanes // 8, 32) if repeats else 32
    pad = lambda n: -(-n // 256) * 256  # noqa: E731
    ub = rs.UnifiedBuffer(pad(blocks * 32) + pad(max(per * repeats, 1) * dtype.itemsize) + pad(pat_bytes) + 2048)
    rng = np.random.default_rng(seed)
    dst = ub.alloc(dtype, max(per * repeats, 1))
    src0 = ub.alloc(dtype, blocks * e)
    dst.set(values(dtype, dst.size, rng))
    src0.set(values(dtype, src0.size, rng))
    pattern = None
    if user:
        U = PATTERN_TYPE[dtype.itemsize]
        pattern = ub.alloc(U, -(-pat_bytes // U.itemsize))
        pattern.set(rng.integers(0, 256, pattern.nbytes, dtype=np.uint8).view(np.dtype(U.np_dtype)))
    return ub, dst, src0, pattern


def check(dtype: Any, pattern: int | None, reduce_mode: bool, mask: int, params: tuple[int, int, int, int], seed: int) -> int:
    """Run GatherMask in both loop modes against the oracle; returns rsvdCnt."""
    ub, dst, src0, tensor = operands(dtype, reduce_mode, mask, params, pattern is None, seed)
    d0, s0 = dst.numpy(), src0.numpy()
    src1: Any = tensor if pattern is None else pattern
    oracle_pattern: Any = tensor.numpy() if pattern is None else pattern
    want, n = MO.gather_mask(d0, s0, oracle_pattern, reduce_mode, mask, params)
    cnt = rs.Ref(-1)
    run_both(lambda: A.GatherMask(dst, src0, src1, reduce_mode, mask, A.GatherMaskParams(*params), cnt), ub)
    what = f"GatherMask({dtype.name}, pattern {pattern or 'tensor'}, reduce {reduce_mode}, mask {mask}, {params})"
    assert cnt.value == n, f"{what}: rsvdCnt {cnt.value}, want {n}"
    assert_same(dst.numpy(), want, what)
    assert_same(src0.numpy(), s0, f"{what}: src0 unchanged")
    A.ResetMask()
    return n


@pytest.mark.parametrize("dtype", DTYPES, ids=[d.name for d in DTYPES])
@pytest.mark.parametrize("pattern", [1, 2, 3, 4, 5, 6, 7, None], ids=[*(f"p{i}" for i in range(1, 8)), "tensor"])
@pytest.mark.parametrize("reduce_mode", [False, True], ids=["normal", "counter"])
def test_every_pattern_dtype_mode(dtype: Any, pattern: int | None, reduce_mode: bool) -> None:
    lanes = 256 // dtype.itemsize
    for mask, params in (
        (lanes, (1, 2, 8, 8)),
        (lanes + lanes // 2 + 3, (1, 3, 16, 1)),
        (5, (2, 2, 20, 0)),
        (70, (1, 1, 8, 8)),
        (1, (1, 0, 8, 8)),
    ):
        check(dtype, pattern, reduce_mode, mask, params, seed=mask)


@settings(max_examples=max(40, settings.default.max_examples), deadline=None)
@given(data=st.data())
def test_hypothesis(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    pattern = data.draw(st.sampled_from([1, 2, 3, 4, 5, 6, 7, None]), "pattern")
    reduce_mode = data.draw(st.booleans(), "reduce_mode")
    lanes = 256 // dtype.itemsize
    mask = data.draw(st.integers(1, 3 * lanes), "mask") if reduce_mode else data.draw(st.integers(0, 2**32 - 1), "mask")
    params = (
        data.draw(st.integers(0, 3), "src0BlockStride"),
        data.draw(st.integers(0, 4), "repeatTimes"),
        data.draw(st.integers(0, 24), "src0RepeatStride"),
        data.draw(st.integers(0, 3), "src1RepeatStride"),
    )
    check(dtype, pattern, reduce_mode, mask, params, seed=data.draw(st.integers(0, 999), "seed"))


def test_page_builtin_example() -> None:
    """The page's built-in example: src0 = [1 2 3 ... 256] (b32: four repeats of 64), pattern 2 (odd indices), normal
    mode, {1, 4, 8, 0}, dst = src0 (in place): dst = 2 4 6 ... 256 followed by what was there, rsvdCnt 128."""
    for dtype in (rs.int32, rs.uint32, rs.float32):
        ub = rs.UnifiedBuffer(2048)
        src0 = ub.alloc(dtype, 256)
        src0.set(np.arange(1, 257).astype(np.dtype(dtype.np_dtype)))
        cnt = rs.Ref(0)
        A.GatherMask(src0, src0, 2, False, 0, A.GatherMaskParams(1, 4, 8, 0), cnt)
        assert cnt.value == 128
        assert src0.numpy()[:128].tolist() == list(range(2, 257, 2))
        assert src0.numpy()[128:].tolist() == list(range(129, 257))  # ("undefined" on the page: here the old values)


def test_page_user_example() -> None:
    """The page's user-pattern example: src1Pattern [0x99999999, ...] (1001...1001: the first and fourth of every four),
    counter mode, mask 70, {1, 2, 4, 0}: each repeat keeps 35 of its 70 elements, the second repeat starting 4
    DataBlocks (32 b32 elements) on and reading the same pattern bits (src1RepeatStride 0)."""
    ub = rs.UnifiedBuffer(4096)
    src0, dst = ub.alloc(rs.float32, 128), ub.alloc(rs.float32, 128)
    pattern = ub.alloc(rs.uint32, 8)
    src0.set(np.arange(128, dtype=np.float32))
    dst.set(np.full(128, -1, np.float32))
    pattern.set(np.full(8, 0x99999999, np.uint32))
    cnt = rs.Ref(0)
    A.GatherMask(dst, src0, pattern, True, 70, A.GatherMaskParams(1, 2, 4, 0), cnt)
    kept = [k for k in range(70) if k % 4 in (0, 3)]
    assert cnt.value == 70
    assert dst.numpy()[:70].tolist() == [float(k) for k in kept] + [float(32 + k) for k in kept]
    assert (dst.numpy()[70:] == -1).all()


def test_builtin_patterns_leave_the_vector_mask() -> None:
    """SetVectorMaskForGatherMaskSqueeze: patterns 1..6 on b16 / b32 leave the pattern in the vector mask register;
    b8 and pattern 7 leave it alone."""
    ub, dst, src0, _ = operands(rs.half, False, 0, (1, 1, 8, 8), False, seed=1)
    A.ResetMask()
    A.GatherMask(dst, src0, 3, False, 0, A.GatherMaskParams(1, 1, 8, 8), rs.Ref(0))
    assert ub.core.vector_mask == (0x1111111111111111, 0x1111111111111111)
    ub, dst, src0, _ = operands(rs.float32, False, 0, (1, 1, 8, 8), False, seed=1)
    A.GatherMask(dst, src0, 6, False, 0, A.GatherMaskParams(1, 1, 8, 8), rs.Ref(0))
    assert ub.core.vector_mask == (0, 0x8888888888888888)
    A.ResetMask()
    for dtype, pattern in ((rs.int8, 2), (rs.half, 7)):
        ub, dst, src0, _ = operands(dtype, False, 0, (1, 1, 8, 8), False, seed=1)
        A.GatherMask(dst, src0, pattern, False, 0, A.GatherMaskParams(1, 1, 8, 8), rs.Ref(0))
        assert ub.core.vector_mask == (2**64 - 1, 2**64 - 1)


def test_lowerings() -> None:
    """The library's VFs: built-in b16 (MoveMask), b8 (the pattern staged through a temporary buffer), pattern 7 in
    normal mode (whole registers, no Squeeze), the pattern tensor per width."""
    lower = rs._src.lowerings.explorer.lower_spec
    assert lower("GatherMask(half, src1_pattern=2, params=(1, 2, 8, 0))").counts() == {
        "CreateMask": 1, "ClearSpr": 1, "MoveMask": 1, "And/mask": 1, "LoadAlign/block_post": 2, "Squeeze": 2,
        "StoreUnAlign/ar": 2, "StoreUnAlignPost/ar": 1,
    }  # fmt: skip
    counts = lower("GatherMask(int8, src1_pattern=3, reduce_mode=True, mask=300, params=(1, 2, 8, 0))").counts()
    assert counts["Duplicate"] == 1 and counts["LocalMemBar"] == 1 and counts["LoadAlign/mask"] == 1
    assert counts["UpdateMask"] == counts["Squeeze"] == counts["StoreUnAlign/ar"] == 4
    assert lower("GatherMask(int8, src1_pattern=7, params=(1, 2, 8, 1))").counts() == {
        "CreateMask": 1, "LoadAlign/block_post": 2, "StoreUnAlign/post": 2, "StoreUnAlignPost/post": 1,
    }  # fmt: skip
    counts = lower("GatherMask(float32, src1_pattern=0, reduce_mode=True, mask=70, params=(1, 2, 4, 0))").counts()
    assert counts["LoadUnAlign"] == counts["MaskGenWithRegTensor"] == 4
    counts = lower("GatherMask(bfloat16, src1_pattern=0, params=(1, 2, 8, 1))").counts()
    assert counts["LoadAlign/mask"] == 2 and counts["Squeeze"] == 2


def _violations() -> list[tuple[str, Any, type[Exception]]]:
    p = A.GatherMaskParams(1, 2, 8, 8)
    p1 = A.GatherMaskParams(1, 1, 8, 8)
    q = A.GatherMaskParams(1, 1, 8, 0)
    G = A.GatherMask
    R = rs.Ref
    E = errors
    return [
        ("pattern 0", lambda d, s, t, ub: G(d, s, 0, False, 0, p, R(0)), E.ParameterError),
        ("pattern 8", lambda d, s, t, ub: G(d, s, 8, False, 0, p, R(0)), E.ParameterError),
        ("pattern float", lambda d, s, t, ub: G(d, s, 2.0, False, 0, p, R(0)), E.ParameterError),
        ("pattern tensor type", lambda d, s, t, ub: G(d, s, ub.alloc(rs.uint8, 64), False, 0, p, R(0)), E.DTypeError),
        ("pattern tensor too small", lambda d, s, t, ub: G(d, s, ub.alloc(rs.uint16, 8), False, 0, p, R(0)), E.ParameterError),
        ("pattern tensor misaligned", lambda d, s, t, ub: G(d, s, t[1], False, 0, q, R(0)), E.AlignmentError),
        ("reduce_mode int", lambda d, s, t, ub: G(d, s, 1, 1, 0, p, R(0)), E.ParameterError),
        ("counter mask 0", lambda d, s, t, ub: G(d, s, 1, True, 0, p, R(0)), E.ParameterError),
        ("mask 2**32", lambda d, s, t, ub: G(d, s, 1, False, 2**32, p, R(0)), E.ParameterError),
        ("counter mask too many registers", lambda d, s, t, ub: G(d, s, 1, True, 2**32 - 1, p, R(0)), E.ParameterError),
        ("params type", lambda d, s, t, ub: G(d, s, 1, False, 0, A.UnaryRepeatParams(), R(0)), E.ParameterError),
        ("params blk 256", lambda d, s, t, ub: A.GatherMaskParams(256, 1, 8, 8), E.ParameterError),
        ("params repeat 2**16", lambda d, s, t, ub: A.GatherMaskParams(1, 2**16, 8, 8), E.ParameterError),
        ("rsvd_cnt not a Ref", lambda d, s, t, ub: G(d, s, 1, False, 0, p, 0), E.ParameterError),
        ("src0 too small", lambda d, s, t, ub: G(d, s, 1, False, 0, A.GatherMaskParams(1, 3, 8, 8), R(0)), E.ParameterError),
        ("counter src0 too small", lambda d, s, t, ub: G(d, s, 1, True, 257, p, R(0)), E.ParameterError),
        ("dst too small", lambda d, s, t, ub: G(ub.alloc(rs.half, 64), s, 7, True, 100, p, R(0)), E.OutOfBoundsError),
        ("dst too small builtin", lambda d, s, t, ub: G(ub.alloc(rs.half, 64), s, 1, False, 0, p, R(0)), E.OutOfBoundsError),
        ("dtype int64", lambda d, s, t, ub: G(*(ub.alloc(rs.int64, 64) for _ in range(2)), 1, False, 0, p, R(0)), E.DTypeError),
        ("dst dtype", lambda d, s, t, ub: G(ub.alloc(rs.uint16, 256), s, 1, False, 0, p, R(0)), E.DTypeError),
        ("misaligned src0", lambda d, s, t, ub: G(d, s[1], 1, False, 0, p1, R(0)), E.AlignmentError),
    ]  # fmt: skip


@pytest.mark.parametrize(("what", "call", "error"), _violations(), ids=[v[0] for v in _violations()])
def test_violations_raise_and_write_nothing(what: str, call: Any, error: type[Exception]) -> None:
    ub, dst, src0, tensor = operands(rs.half, False, 0, (1, 2, 8, 8), True, seed=3)
    A.SetVectorMask(rs.half, 5, 7)
    before, ar = ub.storage.data.copy(), ub.core.ar
    with pytest.raises(error) as info:
        call(dst, src0, tensor, ub)
    assert str(info.value).split(":")[0] in ("GatherMask", "GatherMaskParams"), str(info.value)
    assert np.array_equal(ub.storage.data[: before.size], before), f"{what}: the UB changed"
    assert ub.core.vector_mask == (5, 7) and ub.core.ar == ar, f"{what}: a special register changed"
    A.ResetMask()


def test_b32_pattern_at_the_end_of_the_ub() -> None:
    """The b32 pattern's LoadUnAlign reads a whole register from the pattern address
    (decisions/datamove.md#memory-gathermask); at the very end of the UB that is the load's OutOfBoundsError, raised
    as GatherMask's, the UB unchanged."""
    ub = rs.UnifiedBuffer(544)
    dst, src0, pattern = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64), ub.alloc(rs.uint32, 8)
    src0.set(np.arange(64, dtype=np.float32))
    pattern.set(np.full(8, 0x99999999, np.uint32))
    before = ub.storage.data.copy()
    with pytest.raises(errors.OutOfBoundsError, match=r"^GatherMask: .*LoadUnAlign"):
        A.GatherMask(dst, src0, pattern, False, 0, A.GatherMaskParams(1, 1, 8, 0), rs.Ref(0))
    assert np.array_equal(ub.storage.data, before)


def test_gather_sample_scenario_2() -> None:
    """The Gather-class sample's scenario 2 (the page's user-pattern call): uint32, 256 random elements, a 32-element
    pattern of 0x7E7C00A5, dst zeroed first, counter mode, mask 70, {1, 2, 4, 0}: each repeat keeps the elements of
    src0[32 i : 32 i + 70] whose bit of the pattern's first 70 bits is set, packed one repeat after the other."""
    ub = rs.UnifiedBuffer(4096)
    rng = np.random.default_rng(7)
    src0, pattern, dst = ub.alloc(rs.uint32, 256), ub.alloc(rs.uint32, 32), ub.alloc(rs.uint32, 256)
    x = rng.integers(0, 2**32, 256, dtype=np.uint32)
    src0.set(x)
    pattern.set(np.full(32, 0x7E7C00A5, np.uint32))
    A.Duplicate(dst, 0, 256)
    cnt = rs.Ref(0)
    A.GatherMask(dst, src0, pattern, True, 70, A.GatherMaskParams(1, 2, 4, 0), cnt)
    word_bits = [0x7E7C00A5 >> b & 1 for b in range(32)]
    keep = [k for k in range(70) if word_bits[k % 32]]
    want = [int(x[32 * i + k]) for i in range(2) for k in keep]
    assert cnt.value == len(want) == 2 * len(keep)
    assert dst.numpy().tolist() == want + [0] * (256 - len(want))
