"""The C API's unaligned streams (`asc_loadunalign_pre`, `asc_loadunalign`, `asc_loadunalign_postupdate`,
`asc_storeunalign`, `asc_storeunalign_postupdate`, `asc_storeunalign_post`, `asc_storeunalign_post_postupdate`;
docs/decisions/capi.md#capi-unaligned) against byte oracles written here (UB slices and concatenations), in both loop modes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg, capi, errors

LOOPS = pytest.mark.parametrize("loops", ["auto", "sequential"])
TYPES = [rs.uint8, rs.int16, rs.half, rs.int32, rs.float32, rs.int64]


def _values(dtype: Any, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.integers(0, 256, n * dtype.itemsize, dtype=np.uint8).view(np.dtype(dtype.np_dtype))


def _finite(dtype: Any, n: int, seed: int) -> np.ndarray:
    """Elements whose bits survive a float register (no NaN payload question): small integers."""
    if np.dtype(dtype.np_dtype).kind == "f":
        return np.random.default_rng(seed).integers(-100, 100, n).astype(dtype.np_dtype)
    return _values(dtype, n, seed)


# --- loads ----------------------------------------------------------------------------------------------------------
@LOOPS
@pytest.mark.parametrize("dtype", TYPES, ids=lambda d: d.name)
def test_loadunalign_and_postupdate_read_the_ub_at_any_element(dtype: Any, loops: str) -> None:
    lanes = 256 // dtype.itemsize
    n = 4 * lanes
    x = _finite(dtype, n, 1)
    ub = rs.UnifiedBuffer()
    src, out_a, out_b = ub.alloc(dtype, n), ub.alloc(dtype, 3 * lanes), ub.alloc(dtype, 3 * lanes)
    src.set(x)
    start, step = 3, lanes - 5  # an odd element, a stride leaving the 32-byte grid

    @rs.simd_vf
    def vf(s: Any, a: Any, b: Any) -> None:
        r = Reg.RegTensor(dtype)
        all_ = Reg.CreateMask(dtype)
        u = Reg.UnalignRegForLoad()
        for i in range(3):  # asc_loadunalign: the pointer given each time
            capi.asc_loadunalign_pre(u, s + start + i * step)
            capi.asc_loadunalign(r, u, s + start + i * step)
            capi.asc_storealign(a + i * lanes, r, all_)
        p = s + start
        capi.asc_loadunalign_pre(u, p)
        for i in range(3):  # asc_loadunalign_postupdate: the pointer moves `step` elements a call
            capi.asc_loadunalign_postupdate(r, u, p, step)
            capi.asc_storealign(b + i * lanes, r, all_)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(src.GetPhyAddr(), out_a.GetPhyAddr(), out_b.GetPhyAddr())
    want = np.concatenate([x[start + i * step : start + i * step + lanes] for i in range(3)])
    assert out_a.numpy().tobytes() == want.tobytes()
    assert out_b.numpy().tobytes() == want.tobytes()


@LOOPS
def test_loadunalign_addr_reg_forms(loops: str) -> None:
    # asc_loadunalign_pre(u, src, areg) then asc_loadunalign_postupdate(dst, u, src, areg, 0): the register at
    # src + areg, areg = iteration × one register (asc_update_addr_reg_b16)
    x = _finite(rs.half, 1024, 2)
    ub = rs.UnifiedBuffer()
    src, out = ub.alloc(rs.half, 1024), ub.alloc(rs.half, 3 * 128)
    src.set(x)

    @rs.simd_vf
    def vf(s: Any, o: Any) -> None:
        r = Reg.RegTensor(rs.half)
        u = Reg.UnalignRegForLoad()
        all_ = capi.asc_create_mask_b16(capi.PAT_ALL)
        p = s + 5
        first = True
        for _ in range(3):
            areg = capi.asc_update_addr_reg_b16(128)
            if first:
                capi.asc_loadunalign_pre(u, p, areg)
                first = False
            capi.asc_loadunalign_postupdate(r, u, p, areg, 0)
            capi.asc_storealign(o, r, areg, all_)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(src.GetPhyAddr(), out.GetPhyAddr())
    assert out.numpy().tobytes() == x[5 : 5 + 384].tobytes()


# --- stores ---------------------------------------------------------------------------------------------------------
@LOOPS
def test_storeunalign_postupdate_page_example(loops: str) -> None:
    # the page's "使用uint32_t作为存储偏移量" example: dst at UB byte 8 (2 uint32 past an aligned start), 64
    # elements twice, then asc_storeunalign_post_postupdate(dst, ureg, 0): UB[8:520] is the data
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint32, 256)
    t.set(np.full(256, 0xEEEEEEEE, np.uint32))
    x = _values(rs.uint32, 128, 3)
    xs = ub.alloc(rs.uint32, 128)
    xs.set(x)

    @rs.simd_vf
    def vf(d: Any, s: Any) -> Any:
        u = Reg.UnalignRegForStore()
        src = Reg.RegTensor(rs.uint32)
        all_ = capi.asc_create_mask_b32(capi.PAT_ALL)
        dst = d + 2
        for i in range(2):
            capi.asc_loadalign(src, s + i * 64)
            capi.asc_storeunalign_postupdate(dst, u, src, 64)
        capi.asc_storeunalign_post_postupdate(dst, u, 0)
        capi.asc_loadalign(src, s)  # (a use of all_, so the mask is live)
        capi.asc_storealign(d + 192, src, all_)
        return dst

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(t.GetPhyAddr(), xs.GetPhyAddr())
    want = np.full(256, 0xEEEEEEEE, np.uint32)
    want[2:130] = x
    want[192:256] = x[:64]
    assert t.numpy().tolist() == want.tolist()


@LOOPS
def test_storeunalign_addr_reg_page_example(loops: str) -> None:
    # the page's "使用addr_reg作为存储偏移量" example: a whole register at dst + iteration × 64, then
    # asc_storeunalign_post(dst, ureg, asc_update_addr_reg_b32(0))
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint32, 256)
    t.set(np.zeros(256, np.uint32))
    x = _values(rs.uint32, 128, 4)
    xs = ub.alloc(rs.uint32, 128)
    xs.set(x)

    @rs.simd_vf
    def vf(d: Any, s: Any) -> None:
        u = Reg.UnalignRegForStore()
        src = Reg.RegTensor(rs.uint32)
        dst = d + 2
        for i in range(2):
            count = capi.asc_update_addr_reg_b32(64)
            capi.asc_loadalign(src, s + i * 64)
            capi.asc_storeunalign_postupdate(dst, u, src, count)
        for _ in range(1):
            offset = capi.asc_update_addr_reg_b32(0)
            capi.asc_storeunalign_post(dst, u, offset)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(t.GetPhyAddr(), xs.GetPhyAddr())
    want = np.zeros(256, np.uint32)
    want[2:130] = x
    assert t.numpy().tolist() == want.tolist()


def _store_stream(dtype: Any, start: int, counts: list[int], by_pointer: bool, loops: str) -> tuple[np.ndarray, np.ndarray]:
    """`counts[i]` elements of register i appended from element `start` of a tensor holding a known pattern:
    `asc_storeunalign_postupdate` + `asc_storeunalign_post_postupdate(dst, u, 0)` (the pointer moved), or
    `asc_storeunalign(dst + done, ...)` + `asc_storeunalign_post(dst, u, done)` (the pointer unchanged)."""
    lanes = 256 // dtype.itemsize
    k = len(counts)
    room = start + sum(counts) + lanes
    regs = _values(dtype, k * lanes, 5 + k)
    fill = _values(dtype, room, 6)
    ub = rs.UnifiedBuffer()
    t, rt = ub.alloc(dtype, room), ub.alloc(dtype, max(k, 1) * lanes)
    t.set(fill)
    rt.set(regs)
    offsets = [sum(counts[:i]) for i in range(k)]
    moved: list[int] = []

    @rs.simd_vf
    def vf(d: Any, r: Any) -> None:
        u = Reg.UnalignRegForStore()
        v = Reg.RegTensor(dtype)
        dst = d + start
        for i in range(k):
            capi.asc_loadalign(v, r + i * lanes)
            if by_pointer:
                capi.asc_storeunalign(dst + offsets[i], u, v, counts[i])
            else:
                capi.asc_storeunalign_postupdate(dst, u, v, counts[i])
        if by_pointer:
            capi.asc_storeunalign_post(dst, u, sum(counts))
        else:
            capi.asc_storeunalign_post_postupdate(dst, u, 0)
        moved.append(dst - (d + start))

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(t.GetPhyAddr(), rt.GetPhyAddr())
    want = fill.copy()
    want[start : start + sum(counts)] = np.concatenate(
        [regs[i * lanes : i * lanes + c] for i, c in enumerate(counts)] or [regs[:0]]
    )
    assert moved == [0 if by_pointer else sum(counts)]
    return t.numpy(), want


@LOOPS
@pytest.mark.parametrize("by_pointer", [False, True])
@pytest.mark.parametrize("dtype", TYPES, ids=lambda d: d.name)
def test_storeunalign_streams(dtype: Any, by_pointer: bool, loops: str) -> None:
    lanes = 256 // dtype.itemsize
    got, want = _store_stream(dtype, 3, [lanes, lanes - 1, 1, 0, lanes // 2 + 1], by_pointer, loops)
    assert got.tobytes() == want.tobytes()


@settings(max_examples=40, deadline=None)
@given(
    data=st.data(),
    dtype=st.sampled_from(TYPES),
    by_pointer=st.booleans(),
    loops=st.sampled_from(["auto", "sequential"]),
)
def test_storeunalign_streams_hypothesis(data: st.DataObject, dtype: Any, by_pointer: bool, loops: str) -> None:
    lanes = 256 // dtype.itemsize
    start = data.draw(st.integers(0, 64 // dtype.itemsize))
    counts = data.draw(st.lists(st.integers(0, lanes), min_size=1, max_size=4))
    got, want = _store_stream(dtype, start, counts, by_pointer, loops)
    assert got.tobytes() == want.tobytes()


@LOOPS
@pytest.mark.parametrize(("dtype", "w"), [(rs.uint16, 2), (rs.uint32, 4)], ids=["b16", "b32"])
def test_storeunalign_postupdate_of_a_mask(dtype: Any, w: int, loops: str) -> None:
    # the vector_bool form: predicate bits 0, w, 2w, ... packed, 256 / w / 8 bytes a call, dst moved by them
    bits = np.random.default_rng(w).integers(0, 2, (2, 256)).astype(bool)
    per = 256 // w // 8  # bytes a call
    ub = rs.UnifiedBuffer()
    t = ub.alloc(dtype, 64 // w)
    t.set(np.zeros(64 // w, dtype.np_dtype))
    moved: list[int] = []

    @rs.simd_vf
    def vf(d: Any) -> None:
        u = Reg.UnalignRegForStore()
        dst = d + per // w  # one call's bytes past the start (the Reg form's alignment)
        first = dst + 0
        for i in range(2):
            capi.asc_storeunalign_postupdate(dst, u, Reg.MaskReg.from_bits(bits[i]))
        capi.asc_storeunalign_post(dst, u)
        moved.append(dst - first)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(t.GetPhyAddr())
    want = [0] * 64
    for i in range(2):
        for j in range(per):
            want[per + i * per + j] = sum(int(bits[i][(8 * j + b) * w]) << b for b in range(8))
    assert moved == [2 * per // w]
    assert t.numpy().view(np.uint8).tolist() == want


@LOOPS
def test_storeunalign_postupdate_without_count_uses_ar(loops: str) -> None:
    # `vstur`: the count is the AR register's, which asc_squeeze_with_status sets (the selected elements)
    x = np.arange(128, dtype=np.int16)
    sel = (x % 3 == 0) | (x > 120)
    ub = rs.UnifiedBuffer()
    xs, t = ub.alloc(rs.int16, 128), ub.alloc(rs.int16, 400)
    xs.set(x)
    t.set(np.full(400, -1, np.int16))

    @rs.simd_vf
    def vf(d: Any, s: Any) -> None:
        u = Reg.UnalignRegForStore()
        v, q = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int16)
        capi.asc_clear_ar_spr()
        for _ in range(2):
            capi.asc_loadalign(v, s)
            capi.asc_squeeze_with_status(q, v, Reg.MaskReg.from_bits(np.repeat(sel, 2)))
            capi.asc_storeunalign_postupdate(d + 3, u, q)
        capi.asc_storeunalign_post(d + 3, u)

    with rs.configure(loops=loops):  # type: ignore[arg-type]
        vf(t.GetPhyAddr(), xs.GetPhyAddr())
    kept = x[sel].tolist()
    assert t.numpy().tolist() == [-1] * 3 + kept + kept + [-1] * (400 - 3 - 2 * len(kept))


# --- refusals -------------------------------------------------------------------------------------------------------
def test_stream_refusals_name_the_c_function_and_write_nothing() -> None:
    ub = rs.UnifiedBuffer()
    t64, t32 = ub.alloc(rs.uint64, 64), ub.alloc(rs.uint32, 256)
    t32.set(np.zeros(256, np.uint32))
    t64.set(np.zeros(64, np.uint64))
    with pytest.raises(errors.VfContextError, match=r"^asc_loadunalign_pre"):
        capi.asc_loadunalign_pre(Reg.UnalignRegForLoad(), t32.GetPhyAddr())
    with rs.VEC_SCOPE():
        u = Reg.UnalignRegForStore()
        v = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
        with pytest.raises(errors.DTypeError, match=r"^asc_loadunalign_pre: src_addr = .*uint64.*accepted"):
            capi.asc_loadunalign_pre(Reg.UnalignRegForLoad(), t64.GetPhyAddr())  # the pages list no uint64_t
        with pytest.raises(errors.DTypeError, match=r"^asc_storeunalign_postupdate: dst_addr = .*uint8"):
            capi.asc_storeunalign_postupdate(ub.alloc(rs.uint8, 64).GetPhyAddr(), u, Reg.MaskReg())
        p = t32.GetPhyAddr() + 1
        with pytest.raises(errors.ParameterError, match=r"^asc_storeunalign: the call fails in its Reg op .*65"):
            capi.asc_storeunalign(p, u, v, 65)  # more than one register
        with pytest.raises(errors.ParameterError, match=r"^asc_storeunalign_postupdate: .*65"):
            capi.asc_storeunalign_postupdate(p, u, v, 65)
        assert p.addr == t32.GetPhyAddr().addr + 4
        with pytest.raises(errors.ParameterError, match=r"^asc_storeunalign_post: .*post_update_stride = 2147483648"):
            capi.asc_storeunalign_post(p, u, 2**31)
        with pytest.raises(errors.ParameterError, match=r"^asc_storeunalign_post: arguments"):
            capi.asc_storeunalign_post(p, u, 1.5)
    assert not t32.numpy().any()


def test_storeunalign_with_a_gap_is_the_stream_error() -> None:
    # asc_storeunalign leaves dst alone: the caller moves it by each count; a gap is decisions/datamove.md#unaligned-store's
    # VfContextError
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint32, 256)
    t.set(np.zeros(256, np.uint32))

    @rs.simd_vf
    def vf(d: Any) -> None:
        u = Reg.UnalignRegForStore()
        v = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
        capi.asc_storeunalign(d + 1, u, v, 10)
        capi.asc_storeunalign(d + 20, u, v, 10)  # the stream ended at element 11

    with pytest.raises(errors.VfContextError, match=r"^asc_storeunalign: .*accepted: UB byte 44, where the stream left off"):
        vf(t.GetPhyAddr())
