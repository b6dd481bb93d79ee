"""Scatter (the "Scatter(ISASI)" page of "Memory矢量计算/离散与聚合"), its first-n interface: every 950 dtype against the
oracle (regsim.testing.lowering_reference.scatter, written from the page: src[i] at byte dstBaseAddr + dstOffset[i] from
dst), Hypothesis over counts, offsets (any distinct element-aligned offsets in range inside dst) and
dstBaseAddr, both loop modes, the library's lowerings, the page's example, and violations that raise and write nothing
(docs/decisions/datamove.md#memory-scatter)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lowering_support import draw_mask, run_both, run_in_form, values

import regsim as rs
from regsim import errors
from regsim._src.lowerings.vector_mask import vector_mask
from regsim.testing import lowering_reference as MO

A = rs.AscendC
#: the page's Ascend 950 list (int8/uint8 on the first-n interface only)
DTYPES = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
MAX_OFFSET = {1: 2**16 - 1, 2: 2**17 - 1, 4: 2**32 - 1, 8: 2**32 - 1}


def operands(dtype: Any, n: int, dst_n: int, seed: int) -> tuple[rs.UnifiedBuffer, Any, Any, Any]:
    """(ub, dst, src, dst_offset): src and dst_offset first (the lowering loads whole registers of both: 128 offsets
    per b8/b16 iteration), dst last, all random; dst_offset holds random (not yet meaningful) offsets."""
    pad = lambda k: -(-k // 256) * 256 + 256  # noqa: E731
    w = dtype.itemsize
    ub = rs.UnifiedBuffer(pad(n * w) + pad(-(-max(n, 1) // 128) * 128 * 4) + pad(dst_n * w))
    rng = np.random.default_rng(seed)
    src = ub.alloc(dtype, max(n, 1))
    off = ub.alloc(rs.uint32, -(-max(n, 1) // 128) * 128)
    dst = ub.alloc(dtype, dst_n)
    src.set(values(dtype, src.size, rng))
    dst.set(values(dtype, dst.size, rng))
    off.set(rng.integers(0, 2**32, off.size, dtype=np.uint64).astype(np.uint32))
    return ub, dst, src, off


def check(ub: rs.UnifiedBuffer, dst: Any, src: Any, off: Any, base: int, n: int) -> None:
    want = MO.scatter(ub.storage.data.copy(), dst.addr, src.numpy(), off.numpy(), base, n)
    got = run_both(lambda: A.Scatter(dst, src, off, base, n), ub)
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size} UB bytes differ, first at {bad[:5].tolist()}"


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("n", [0, 1, 31, 64, 127, 128, 129, 300])
def test_every_dtype(dtype: Any, n: int) -> None:
    """A random permutation of dst's elements (the reverse for n = 128), every count across iteration edges."""
    w = dtype.itemsize
    ub, dst, src, off = operands(dtype, n, max(n, 1) + 40, seed=n)
    rng = np.random.default_rng(n + 1)
    perm = rng.permutation(dst.size)[:n] if n != 128 else np.arange(dst.size)[::-1][:n]
    offsets = off.numpy().copy()
    offsets[:n] = perm * w
    off.set(offsets)
    check(ub, dst, src, off, 0, n)


@settings(max_examples=max(60, settings.default.max_examples), deadline=None)
@given(st.data())
def test_hypothesis(data: st.DataObject) -> None:
    """Random counts, dstBaseAddr (32-byte multiples) and distinct element-aligned offsets anywhere in dst, up to
    the page's range."""
    dtype = data.draw(st.sampled_from(DTYPES), "dtype")
    w = dtype.itemsize
    n = data.draw(st.integers(0, 300), "count")
    room = data.draw(st.integers(max(n, 1), 600), "dst elements")
    ub, dst, src, off = operands(dtype, n, room + 64, data.draw(st.integers(0, 2**16), "seed"))
    base = 32 * data.draw(st.integers(0, 2 * w), "dstBaseAddr / 32")
    span = min((dst.nbytes - base) // w, MAX_OFFSET[w] // w + 1)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), "offset seed"))
    offsets = off.numpy().copy()
    offsets[:n] = rng.choice(span, n, replace=False) * w
    off.set(offsets)
    check(ub, dst, src, off, base, n)


def test_page_example() -> None:
    """The page: dstOffset = [254 252 ... 2 0], src = 128 halves [0 .. 127], dstBaseAddr 0, count 128:
    dst = [127 126 ... 0]."""
    ub = rs.UnifiedBuffer(2048)
    dst, src, off = ub.alloc(rs.half, 128), ub.alloc(rs.half, 128), ub.alloc(rs.uint32, 128)
    dst.set(np.zeros(128, np.float16))
    src.set(np.arange(128).astype(np.float16))
    off.set(np.arange(254, -1, -2, dtype=np.uint32))
    run_both(lambda: A.Scatter(dst, src, off, 0, 128), ub)
    assert np.array_equal(dst.numpy(), np.arange(127, -1, -1).astype(np.float16))


def test_saturating_index_cast_edges() -> None:
    """The largest offsets of the page's ranges: b8 2**16 - 1 (the u16 index as is), b16 2**17 - 2 (index 65535)."""
    for dtype, top in ((rs.uint8, 2**16 - 1), (rs.uint16, 2**17 - 2)):
        ub, dst, src, off = operands(dtype, 3, (top + 1) // dtype.itemsize + 8, seed=5)
        offsets = off.numpy().copy()
        offsets[:3] = [top, 0, 2 * dtype.itemsize]
        off.set(offsets)
        check(ub, dst, src, off, 0, 3)


@pytest.mark.parametrize(
    ("dtype", "ops"),
    [
        (rs.int8, ["CreateMask", "CreateMask", "UpdateMask", "LoadAlign", "LoadAlign", "Cast", "Cast", "DeInterleave"]),
        (rs.half, ["CreateMask", "CreateMask", "UpdateMask", "LoadAlign", "LoadAlign", "ShiftRights", "ShiftRights", "Cast"]),
        (rs.float32, ["CreateMask", "UpdateMask", "LoadAlign", "ShiftRights", "LoadAlign", "Scatter"]),
        (rs.int64, ["CreateMask", "UpdateMask", "LoadAlign", "ShiftRights", "Muls", "Adds", "Interleave", "LoadAlign"]),
    ],
    ids=lambda x: getattr(x, "name", "ops"),
)
def test_lowerings(dtype: Any, ops: list[str]) -> None:
    """The library's op sequence (kernel_operator_vec_scatter_impl.h): the start of the first iteration, one Scatter
    per iteration."""
    _, dst, src, off = operands(dtype, 130, 400, seed=1)
    offsets = off.numpy().copy()
    offsets[:130] = np.arange(130) * dtype.itemsize
    off.set(offsets)
    low = rs.lower(A.Scatter, dst, src, off, 0, 130)
    names = [r.api for r in low.records]
    assert names[: len(ops)] == ops
    per = {1: 128, 2: 128, 4: 64, 8: 32}[dtype.itemsize]
    assert names.count("Scatter") == -(-130 // per)
    assert ("Interleave" in names) == (dtype.itemsize in (1, 8))


VIOLATIONS: list[tuple[str, type[Exception]]] = [
    ("odd offset", errors.ParameterError),
    ("offset past the b16 range", errors.ParameterError),
    ("duplicate offsets", errors.ParameterError),
    ("duplicate offsets in different iterations", errors.ParameterError),
    ("past dst", errors.ParameterError),
    ("onto src", errors.ParameterError),
    ("onto dst_offset", errors.ParameterError),
    ("base not element-aligned", errors.ParameterError),
    ("base not 32-aligned", errors.AlignmentError),
    ("count past src", errors.ParameterError),
    ("negative count", errors.ParameterError),
    ("float count", errors.ParameterError),
    ("float32 offsets", errors.DTypeError),
    ("dtype mismatch", errors.DTypeError),
    ("unsupported dtype", errors.DTypeError),
    ("misaligned dst", errors.AlignmentError),
    ("int8 on the mask/repeat interface", errors.DTypeError),
    ("mask 0", errors.ParameterError),
    ("mask past the lanes", errors.ParameterError),
    ("repeat_time 256", errors.ParameterError),
    ("src_rep_stride 256", errors.ParameterError),
    ("repeats past src", errors.ParameterError),
    ("repeats past dst_offset", errors.ParameterError),
    ("duplicate offsets across repeats", errors.ParameterError),
    ("six arguments", errors.ParameterError),
    ("offsets in another UB", errors.ParameterError),
    ("unwritten offset", errors.UninitializedReadError),
]


@pytest.mark.parametrize(("what", "error"), VIOLATIONS, ids=[v[0] for v in VIOLATIONS])
def test_violations_raise_and_write_nothing(what: str, error: type[Exception]) -> None:
    ub = rs.UnifiedBuffer(12288)
    src, off, dst = ub.alloc(rs.half, 256), ub.alloc(rs.uint32, 256), ub.alloc(rs.half, 512)
    rng = np.random.default_rng(0)
    src.set(values(rs.half, 256, rng))
    dst.set(values(rs.half, 512, rng))
    offsets = np.arange(0, 512, 2, dtype=np.uint32)
    args: tuple[Any, ...] = (dst, src, off, 0, 200)
    if what == "odd offset":
        offsets[5] = 3
    elif what == "offset past the b16 range":
        offsets[5] = 2**17
    elif what == "duplicate offsets":
        offsets[5] = offsets[6]
    elif what == "duplicate offsets in different iterations":
        offsets[150] = offsets[3]
    elif what == "past dst":
        offsets[7] = dst.nbytes
    elif what in ("onto src", "onto dst_offset"):  # dst a tensor over the whole UB: src and dst_offset inside it
        pass  # (set up below)
    elif what == "base not element-aligned":
        args = (dst, src, off, 1, 200)
    elif what == "base not 32-aligned":
        args = (dst, src, off, 2, 200)
    elif what == "count past src":
        args = (dst, src, off, 0, 257)
    elif what == "negative count":
        args = (dst, src, off, 0, -1)
    elif what == "float count":
        args = (dst, src, off, 0, 2.0)
    elif what == "float32 offsets":
        args = (dst, src, ub.alloc(rs.float32, 64), 0, 8)
    elif what == "dtype mismatch":
        args = (dst, ub.alloc(rs.int16, 256), off, 0, 8)
    elif what == "unsupported dtype":
        f8 = ub.alloc(rs.complex32, 16)
        args = (f8, f8, off, 0, 8)
    elif what == "misaligned dst":
        args = (dst[1], src, off, 0, 8)
    elif what == "int8 on the mask/repeat interface":
        i8 = ub.alloc(rs.int8, 256)
        args = (i8, i8, off, 0, 128, 1, 8)
    elif what == "mask 0":
        args = (dst, src, off, 0, 0, 1, 8)
    elif what == "mask past the lanes":
        args = (dst, src, off, 0, 129, 1, 8)
    elif what == "repeat_time 256":
        args = (dst, src, off, 0, 128, 256, 8)
    elif what == "src_rep_stride 256":
        args = (dst, src, off, 0, 128, 1, 256)
    elif what == "repeats past src":
        args = (dst, src, off, 0, 128, 2, 9)
    elif what == "repeats past dst_offset":
        args = (dst, src, off, 0, 128, 3, 8)
    elif what == "duplicate offsets across repeats":
        offsets[129] = offsets[1]  # (repeat 1, element 1: bit 1 of the mask)
        args = (dst, src, off, 0, [3, 0], 2, 8)
    elif what == "six arguments":
        args = (dst, src, off, 0, 128, 1)
    elif what == "offsets in another UB":
        other = rs.UnifiedBuffer(1024).alloc(rs.uint32, 64)
        other.set(np.arange(64, dtype=np.uint32) * 2)
        args = (dst, src, other, 0, 8)
    off.set(offsets)
    if what in ("onto src", "onto dst_offset"):
        big = ub.alloc(rs.half, 1024)
        big.set(values(rs.half, 1024, rng))
        o2, s2 = big[512].ReinterpretCast(rs.uint32), big[256]
        o2.set(np.arange(256, dtype=np.uint32) * 2 + (512 if what == "onto src" else 1024) - 2 * 7)
        args = (big, s2, o2, 0, 100)
    if what == "unwritten offset":
        off = ub.alloc(rs.uint32, 64)
        args = (dst, src, off, 0, 8)
    before = ub.storage.data.copy()
    with pytest.raises(error, match=r"^Scatter") as info:
        A.Scatter(*args)
    if what.startswith("onto "):
        assert f"outside {what[5:]} " in str(info.value)
    assert np.array_equal(ub.storage.data, before)
    assert vector_mask() == (2**64 - 1, 2**64 - 1)  # (a bit mask's SetVectorMask undone too)


def test_lower_spec() -> None:
    """`regsim lower "Scatter(half, count=130)"`: two iterations, one Reg Scatter each."""
    from regsim._src.lowerings.explorer import lower_spec

    low = lower_spec("Scatter(half, count=130)")
    assert [r.api for r in low.records].count("Scatter") == 2
    with pytest.raises(errors.ParameterError, match=r"^lower"):
        lower_spec("Scatter(half, mask=128, repeat_time=1)")


REPEAT_DTYPES = [d for d in DTYPES if d.itemsize > 1]


@settings(max_examples=max(60, settings.default.max_examples), deadline=None)
@given(st.data())
def test_repeat_interfaces_hypothesis(data: st.DataObject) -> None:
    """The mask/repeat interfaces (b16/b32/b64): continuous and bit masks in normal mode, counter mode, random
    repeat_time, srcRepStride, dstBaseAddr and distinct offsets inside dst, against the oracle in both loop modes."""
    dtype = data.draw(st.sampled_from(REPEAT_DTYPES), "dtype")
    w, lanes = dtype.itemsize, 256 // dtype.itemsize
    form = data.draw(st.sampled_from(["continuous", "bit", "counter"]), "form")
    count = data.draw(st.integers(1, 3 * lanes), "counter mask")
    mask = draw_mask(data, form, lanes, count)
    if form == "bit" and w == 8:
        mask = [mask[0] & 0xFFFFFFFF or 1, 0]
    repeats = -(-count // lanes) if form == "counter" else data.draw(st.integers(0, 3), "repeat_time")
    rep = data.draw(st.integers(0, 12), "srcRepStride")
    src_n = max(repeats - 1, 0) * rep * (32 // w) + lanes
    off_n = max(repeats, 1) * lanes
    room = off_n + 32 + data.draw(st.integers(0, 300), "dst elements past the offsets")
    pad = lambda k: -(-k // 256) * 256 + 256  # noqa: E731
    ub = rs.UnifiedBuffer(pad(src_n * w) + pad(off_n * 4) + pad(room * w) + 256)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), "seed"))
    src, off, dst = ub.alloc(dtype, src_n), ub.alloc(rs.uint32, off_n), ub.alloc(dtype, room)
    src.set(values(dtype, src_n, rng))
    dst.set(values(dtype, room, rng))
    base = 32 * data.draw(st.integers(0, 2), "dstBaseAddr / 32")
    span = min((dst.nbytes - base) // w, MAX_OFFSET[w] // w + 1)
    offs = (rng.choice(span, off_n, replace=False) * w).astype(np.uint32)
    off.set(offs)
    before = ub.storage.data.copy()
    sel = run_in_form(lambda: A.Scatter(dst, src, off, base, mask, repeats, rep), ub, form, mask, dtype)
    want = MO.scatter_repeat(before, dst.addr, src.numpy(), offs, base, sel, repeats, rep)
    bad = np.flatnonzero(ub.storage.data != want)
    assert bad.size == 0, f"{bad.size} UB bytes differ, first at {bad[:5].tolist()}"


@pytest.mark.parametrize("dtype", REPEAT_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("form", ["continuous", "bit", "counter"])
def test_repeat_interfaces_every_dtype(dtype: Any, form: str) -> None:
    """Each b16/b32/b64 type x mask form: 3 repeats (counter mode: 2.5 registers), srcRepStride 9, the reverse
    permutation of dst's elements."""
    w, lanes = dtype.itemsize, 256 // dtype.itemsize
    rep, repeats = 9, 3
    mask: Any = {
        "continuous": lanes - 3,
        "bit": [0x5555555555555555 if w < 8 else 0x55555555, 0xF0F0 if w == 2 else 0],
        "counter": 5 * lanes // 2,
    }[form]
    pad = lambda k: -(-k // 256) * 256 + 256  # noqa: E731
    src_n, off_n = (repeats - 1) * rep * (32 // w) + lanes, repeats * lanes
    ub = rs.UnifiedBuffer(pad(src_n * w) + pad(off_n * 4) + pad(off_n * w))
    rng = np.random.default_rng(w)
    src, off, dst = ub.alloc(dtype, src_n), ub.alloc(rs.uint32, off_n), ub.alloc(dtype, off_n)
    src.set(values(dtype, src_n, rng))
    dst.set(values(dtype, off_n, rng))
    offs = (np.arange(off_n)[::-1] * w).astype(np.uint32)
    off.set(offs)
    before = ub.storage.data.copy()
    sel = run_in_form(lambda: A.Scatter(dst, src, off, 0, mask, repeats, rep), ub, form, mask, dtype)
    want = MO.scatter_repeat(before, dst.addr, src.numpy(), offs, 0, sel, repeats, rep)
    assert np.array_equal(ub.storage.data, want)
    assert not np.array_equal(ub.storage.data, before)


def test_page_repeat_example_shape() -> None:
    """The page's half example through the continuous-mask interface: mask 128, one repeat: dst = [127 .. 0]."""
    ub = rs.UnifiedBuffer(2048)
    dst, src, off = ub.alloc(rs.half, 128), ub.alloc(rs.half, 128), ub.alloc(rs.uint32, 128)
    dst.set(np.zeros(128, np.float16))
    src.set(np.arange(128).astype(np.float16))
    off.set(np.arange(254, -1, -2, dtype=np.uint32))
    run_both(lambda: A.Scatter(dst, src, off, 0, 128, 1, 8), ub)
    assert np.array_equal(dst.numpy(), np.arange(127, -1, -1).astype(np.float16))
