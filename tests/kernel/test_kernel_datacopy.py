"""DataCopy and DataCopyPad against an oracle that computes each copy's byte layout with Python ints (the pages'
rules: blocks, gaps in 32-byte units or bytes, padding, Compact), in both loop modes; their refusals (alignment,
bounds, types, ranges), each writing nothing."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs

A = rs.AscendC
UB_BYTES = 8192


def _kernel(body: Any) -> Any:
    """A one-block kernel running `body(gm_src, gm_dst)` on uint8 GM tensors, and returning the block's UB bytes."""
    seen: dict[str, Any] = {}

    @rs.kernel
    def k(src: rs.GmPtr[rs.uint8], dst: rs.GmPtr[rs.uint8]) -> None:
        s, d = A.GlobalTensor(rs.uint8), A.GlobalTensor(rs.uint8)
        s.SetGlobalBuffer(src, 4096)
        d.SetGlobalBuffer(dst, 4096)
        body(s, d)
        seen["ub"] = A.LocalTensor(rs.uint8, A.TPosition.VECCALC, 0, UB_BYTES)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

    return k, seen


def _ub(seen: dict[str, Any]) -> Any:
    t = seen["ub"]
    return t.ub.storage.data[:UB_BYTES].copy(), None if t.ub.storage.valid is None else t.ub.storage.valid[:UB_BYTES].copy()


def _src() -> Any:
    return (np.arange(4096) * 7 % 251).astype(np.uint8)


def test_count_forms_move_whole_32_byte_blocks(loops: str) -> None:
    """GM -> UB -> UB -> GM with counts: the bytes rounded down to a multiple of 32 (40 halves move 64 bytes)."""

    def body(s: Any, d: Any) -> None:
        a = A.LocalTensor(rs.uint8, A.TPosition.VECIN, 0, 256)
        b = A.LocalTensor(rs.uint8, A.TPosition.VECOUT, 256, 256)
        A.DataCopy(a, s[32], 100)  # 96 bytes
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopy(b.ReinterpretCast(rs.half), a.ReinterpretCast(rs.half), 40)  # 80 bytes -> 64
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopy(d[64], b, 64)

    k, seen = _kernel(body)
    src, dst = _src(), np.zeros(4096, np.uint8)
    rs.launch(k, 1, src, dst)
    data, valid = _ub(seen)
    assert np.array_equal(data[:96], src[32:128]) and valid is not None and not valid[96:256].any()
    assert np.array_equal(data[256:320], src[32:96]) and not valid[320:512].any()
    expected = np.zeros(4096, np.uint8)
    expected[64:128] = src[32:96]
    assert np.array_equal(dst, expected)


def _blocks(base: int, count: int, length: int, pitch: int) -> list[int]:
    """The byte addresses a copy of `count` blocks of `length` bytes, `pitch` apart, covers (Python ints)."""
    return [base + b * pitch + i for b in range(count) for i in range(length)]


@given(
    count=st.integers(0, 5),
    blen=st.integers(0, 4),
    src_gap=st.integers(0, 3),
    dst_gap=st.integers(0, 3),
    offset=st.integers(0, 8),
)
def test_data_copy_params_gm_to_ub_and_back(count: int, blen: int, src_gap: int, dst_gap: int, offset: int) -> None:
    """DataCopyParams: blockCount blocks of blockLen DataBlocks, srcStride / dstStride DataBlocks between one block's
    end and the next one's start, on both sides; a count or length of 0 moves nothing."""
    params = A.DataCopyParams(count, blen, src_gap, dst_gap)

    def body(s: Any, d: Any) -> None:
        ub = A.LocalTensor(rs.uint8, A.TPosition.VECIN, 0, 4096)
        A.DataCopy(ub, s[offset * 32], params)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopy(d[offset * 32], ub, A.DataCopyParams(count, blen, dst_gap, src_gap))

    k, seen = _kernel(body)
    src, dst = _src(), np.zeros(4096, np.uint8)
    rs.launch(k, 1, src, dst)
    data, valid = _ub(seen)
    length = blen * 32
    ub_at = _blocks(0, count if length else 0, length, length + dst_gap * 32)
    gm_at = _blocks(offset * 32, count if length else 0, length, length + src_gap * 32)
    expected_ub = np.zeros(UB_BYTES, np.uint8)
    expected_ub[ub_at] = src[gm_at]
    assert np.array_equal(data, expected_ub)
    assert valid is None or sorted(np.flatnonzero(valid).tolist()) == sorted(ub_at)
    expected_dst = np.zeros(4096, np.uint8)
    expected_dst[gm_at] = src[gm_at]
    assert np.array_equal(dst, expected_dst)


PAD = st.builds(
    lambda count, elems, left, right, src_stride, dst_stride, is_pad, compact: (
        count,
        elems,
        left,
        right,
        src_stride,
        dst_stride,
        is_pad,
        compact,
    ),
    st.integers(1, 4),
    st.integers(1, 40),
    st.integers(0, 16),
    st.integers(0, 16),
    st.integers(0, 6),
    st.integers(0, 2),
    st.booleans(),
    st.booleans(),
)


@given(PAD)
def test_data_copy_pad_gm_to_ub(case: tuple[int, ...]) -> None:
    """DataCopyPad GM -> UB, half elements: Normal mode puts leftPadding elements, the block, rightPadding
    elements, then dummy bytes to 32 (the block's first element when both paddings are 0), each row dstStride
    DataBlocks after the last; Compact packs the blocks and pads their end to 32 bytes. Padding is paddingValue
    with isPad, else left unwritten (the page's random values) when no SetPadValue was made."""
    count, elems, left, right, src_stride, dst_stride, is_pad, compact = case
    size = 2
    block = elems * size
    pad = A.DataCopyPadExtParams(rs.half, is_pad, left, right, -1.5)
    params = A.DataCopyExtParams(count, block, src_stride, dst_stride, 0)
    mode = A.PaddingMode.Compact if compact else A.PaddingMode.Normal

    def body(s: Any, d: Any) -> None:
        ub = A.LocalTensor(rs.half, A.TPosition.VECIN, 0, 2048)
        A.DataCopyPad(ub, s.ReinterpretCast(rs.half)[3], params, pad, mode=mode)

    k, seen = _kernel(body)
    src = _src()
    rs.launch(k, 1, src, np.zeros(4096, np.uint8))
    data, valid = _ub(seen)
    fill = np.array([-1.5], np.float16).view(np.uint8).tolist()
    want: dict[int, int | None] = {}  # UB byte -> its value (None: unwritten)
    gm_row = [6 + b * (block + src_stride) for b in range(count)]
    if compact:
        packed = [int(src[g + i]) for g in gm_row for i in range(block)]
        width = -(-len(packed) // 32) * 32
        for i in range(width):
            want[i] = packed[i] if i < len(packed) else (fill[i % 2] if is_pad else None)
    else:
        width = -(-(left * size + block + right * size) // 32) * 32
        for b, g in enumerate(gm_row):
            row = b * (width + dst_stride * 32)
            for i in range(width):
                j = i - left * size
                if 0 <= j < block:
                    v: int | None = int(src[g + j])
                elif j >= block + right * size and left == right == 0:
                    v = int(src[g + (j - block) % size])  # dummy: the block's first element
                else:
                    v = fill[i % 2] if is_pad else None
                want[row + i] = v
    for addr, v in want.items():
        if v is None:
            assert valid is not None and not valid[addr], addr
        else:
            assert data[addr] == v and (valid is None or valid[addr]), addr
    assert valid is None or int(valid.sum()) == sum(v is not None for v in want.values())


def test_set_pad_value_pads_when_is_pad_is_false(loops: str) -> None:
    def body(s: Any, d: Any) -> None:
        ub = A.LocalTensor(rs.float32, A.TPosition.VECIN, 0, 64)
        A.SetPadValue(rs.float32, 2.5)
        A.DataCopyPad(
            ub,
            s.ReinterpretCast(rs.float32),
            A.DataCopyExtParams(2, 12, 0, 0, 0),
            A.DataCopyPadExtParams(rs.float32, False, 1, 2),
        )
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopyPad(d.ReinterpretCast(rs.float32), ub, A.DataCopyExtParams(1, 64, 0, 0, 0))

    k, _ = _kernel(body)
    src, dst = _src(), np.zeros(4096, np.uint8)
    rs.launch(k, 1, src, dst)
    rows = dst[:64].view(np.float32).reshape(2, 8)
    floats = src[:24].view(np.float32)
    assert np.array_equal(rows[:, 0], [2.5, 2.5]) and np.array_equal(rows[:, 4:], np.full((2, 4), 2.5, np.float32))
    assert np.array_equal(rows[:, 1:4].view(np.uint32), floats.reshape(2, 3).view(np.uint32))


def test_data_copy_pad_ub_to_gm_drops_the_padding(loops: str) -> None:
    """UB -> GM: each block read from a 32-byte aligned row (srcStride DataBlocks after the last), written
    blockLen bytes at a time, dstStride bytes apart in GM."""

    def body(s: Any, d: Any) -> None:
        ub = A.LocalTensor(rs.uint8, A.TPosition.VECOUT, 0, 512)
        A.DataCopy(ub, s, 512)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopyPad(d[1], ub, A.DataCopyExtParams(3, 47, 1, 5, 0))

    k, _ = _kernel(body)
    src, dst = _src(), np.zeros(4096, np.uint8)
    rs.launch(k, 1, src, dst)
    expected = np.zeros(4096, np.uint8)
    for b in range(3):
        expected[1 + b * 52 : 1 + b * 52 + 47] = src[b * 96 : b * 96 + 47]
    assert np.array_equal(dst, expected)


# --- refusals ---------------------------------------------------------------------------------------------------
def _half_at_byte(s: Any, n: int) -> Any:
    """A GlobalTensor of half starting `n` bytes into `s`'s buffer."""
    g = A.GlobalTensor(rs.half)
    g.SetGlobalBuffer(s.GetPhyAddr(n).reinterpret(rs.half), 64)
    return g


REFUSALS = [
    (
        "a UB tensor not 32-byte aligned",
        lambda s, d, ub: A.DataCopy(ub[1], s, 32),
        rs.errors.AlignmentError,
        "start address aligned to 32",
    ),
    (
        "a GM address not element-aligned",
        lambda s, d, ub: A.DataCopy(ub.ReinterpretCast(rs.half), _half_at_byte(s, 1), 16),
        rs.errors.AlignmentError,
        "multiple of 2 bytes",
    ),
    ("past the LocalTensor", lambda s, d, ub: A.DataCopy(ub, s, 288), rs.errors.OutOfBoundsError, "within its LocalTensor"),
    (
        "past the GlobalTensor",
        lambda s, d, ub: A.DataCopy(ub, s[4064], 64),
        rs.errors.OutOfBoundsError,
        "GlobalTensor[uint8] on GM src",
    ),
    (
        "dtypes that differ",
        lambda s, d, ub: A.DataCopy(ub.ReinterpretCast(rs.half), s, 32),
        rs.errors.DTypeError,
        "the dtype of dst",
    ),
    ("GM to GM", lambda s, d, ub: A.DataCopy(d, s, 32), rs.errors.ParameterError, "LocalTensor, GlobalTensor"),
    ("a block count out of range", lambda s, d, ub: A.DataCopyParams(4096, 1, 0, 0), rs.errors.ParameterError, "blockCount"),
    (
        "blockLen not whole elements",
        lambda s, d, ub: A.DataCopyPad(
            ub.ReinterpretCast(rs.half),
            s.ReinterpretCast(rs.half),
            A.DataCopyExtParams(1, 3, 0, 0, 0),
            A.DataCopyPadExtParams(rs.half),
        ),
        rs.errors.ParameterError,
        "multiple of sizeof(T)",
    ),
    (
        "padding over 32 bytes",
        lambda s, d, ub: A.DataCopyPad(
            ub.ReinterpretCast(rs.half),
            s.ReinterpretCast(rs.half),
            A.DataCopyExtParams(1, 4, 0, 0, 0),
            A.DataCopyPadExtParams(rs.half, True, 17, 0),
        ),
        rs.errors.ParameterError,
        "at most 32 bytes",
    ),
    (
        "a UB dstStride over 65535",
        lambda s, d, ub: A.DataCopyPad(ub, s, A.DataCopyExtParams(1, 4, 0, 65536, 0), A.DataCopyPadExtParams(rs.uint8)),
        rs.errors.ParameterError,
        "dstStride",
    ),
    (
        "a 64-bit padding value not 0",
        lambda s, d, ub: A.DataCopyPadExtParams(rs.int64, True, 0, 0, 1),
        rs.errors.ParameterError,
        "64-bit",
    ),
    (
        "a pad value that rounds",
        lambda s, d, ub: A.DataCopyPadExtParams(rs.half, True, 0, 0, 0.1),
        rs.errors.ParameterError,
        "paddingValue",
    ),
    (
        "pad params of another type",
        lambda s, d, ub: A.DataCopyPad(ub, s, A.DataCopyExtParams(1, 4, 0, 0, 0), A.DataCopyPadExtParams(rs.half)),
        rs.errors.DTypeError,
        "the dtype of dst",
    ),
    (
        "UB -> GM with pad params",
        lambda s, d, ub: A.DataCopyPad(d, ub, A.DataCopyExtParams(1, 4, 0, 0, 0), A.DataCopyPadExtParams(rs.uint8)),
        rs.errors.ParameterError,
        "none for UB -> GM",
    ),
    (
        "UB bytes never written, copied out",
        lambda s, d, ub: A.DataCopy(d, ub, 32),
        rs.errors.UninitializedReadError,
        "never written",
    ),
]


@pytest.mark.parametrize("case", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_refusals_name_the_parameter_and_write_nothing(case: tuple[Any, ...], loops: str) -> None:
    _, call, error, says = case

    def body(s: Any, d: Any) -> None:
        call(s, d, A.LocalTensor(rs.uint8, A.TPosition.VECIN, 256, 256))

    k, _ = _kernel(body)
    src, dst = _src(), np.zeros(4096, np.uint8)
    with pytest.raises(error, match=None) as e:
        rs.launch(k, 1, src, dst)
    assert says in str(e.value)
    assert not dst.any()


def test_a_refused_copy_leaves_the_ub_as_it_was() -> None:
    kept: dict[str, Any] = {}

    def body(s: Any, d: Any) -> None:
        ub = A.LocalTensor(rs.uint8, A.TPosition.VECIN, 0, 64)
        A.DataCopy(ub, s, 64)
        A.PipeBarrier(pipe=A.PIPE.PIPE_MTE2)
        kept["before"] = ub.ub.storage.data[:256].copy()
        with pytest.raises(rs.errors.OutOfBoundsError):
            A.DataCopy(ub, s[32], A.DataCopyParams(3, 1, 0, 0))  # 96 bytes into 64
        kept["after"] = ub.ub.storage.data[:256].copy()

    k, _ = _kernel(body)
    rs.launch(k, 1, _src(), np.zeros(4096, np.uint8))
    assert np.array_equal(kept["before"], kept["after"])


def _hole_body(hole: int | None) -> Any:
    """A body writing UB bytes [1024, 3072) from GM but byte 1024 + `hole` (copies around the hole's 32-byte block,
    SetValue inside it), then copying the 2048 bytes to GM."""
    data = _src()

    def body(s: Any, d: Any) -> None:
        ub = A.LocalTensor(rs.uint8, A.TPosition.VECCALC, 1024, 2048)
        if hole is None:
            A.DataCopy(ub, s, 2048)
        else:
            at = hole // 32 * 32
            if at:
                A.DataCopy(ub, s, at)
            if at + 32 < 2048:
                A.DataCopy(ub[at + 32], s[at + 32], 2048 - at - 32)
            A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
            for i in range(at, at + 32):
                if i != hole:
                    ub.SetValue(i, int(data[i]))
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopy(d, ub, 2048)

    return body


@given(hole=st.one_of(st.none(), st.integers(0, 2047)))
def test_a_long_copy_out_of_the_ub_finds_its_one_never_written_byte(hole: int | None) -> None:
    """2048 bytes copied UB -> GM, every one written before but `hole`: the one-row copy's written check over more
    than a register's bytes names the hole, else the bytes arrive."""
    k, _ = _kernel(_hole_body(hole))
    dst = np.zeros(4096, np.uint8)
    if hole is None:
        rs.launch(k, 1, _src(), dst)
        assert np.array_equal(dst[:2048], _src()[:2048]) and not dst[2048:].any()
    else:
        with pytest.raises(rs.errors.UninitializedReadError, match=rf"src reads UB byte {1024 + hole} \(of \[1024, "):
            rs.launch(k, 1, _src(), dst)
        assert not dst.any()
