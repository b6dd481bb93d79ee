"""rs.capi's gathers and scatters (`asc_gather` from UB and from a register, `asc_gather_datablock` with and
without a mask, `asc_scatter`) against independent per-lane oracles over bytes and Python ints, in both loop
modes, and their refusals (the CONTRACT error classes, nothing written).

The prototypes below are written from the asc_gather, asc_gather_datablock and asc_scatter pages, not read
from regsim."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg, capi, errors

LOOPS = pytest.mark.parametrize("loops", ["sequential", "auto"])
U8, U16, U32 = rs.uint8, rs.uint16, rs.uint32
#: asc_gather from UB: (dst, src, index) of the page's prototypes regsim generates (docs/decisions/capi.md#capi-gather-scatter)
UB_GATHER = [
    (rs.int16, rs.int8, U16), (rs.uint16, rs.uint8, U16), (rs.int16, rs.int16, U16), (rs.uint16, rs.uint16, U16),
    (rs.half, rs.half, U16), (rs.bfloat16, rs.bfloat16, U16),
    (rs.int32, rs.int32, U32), (rs.uint32, rs.uint32, U32), (rs.float32, rs.float32, U32),
]  # fmt: skip
#: asc_gather of a register: (data, index)
REG_GATHER = [
    *((t, U8) for t in (rs.int8, rs.uint8, rs.hifloat8, rs.fp8_e8m0, rs.fp8_e5m2, rs.fp8_e4m3fn)),
    *((t, U16) for t in (rs.int16, rs.uint16, rs.half, rs.bfloat16)),
    (rs.int32, U32), (rs.uint32, U32),
]  # fmt: skip
DATABLOCK = [
    rs.int4x2, rs.int8, rs.uint8, rs.fp4x2_e2m1, rs.fp4x2_e1m2, rs.hifloat8, rs.fp8_e8m0, rs.fp8_e5m2, rs.fp8_e4m3fn,
    rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64,
]  # fmt: skip
SCATTER = [
    (rs.int8, U16), (rs.uint8, U16), (rs.int16, U16), (rs.uint16, U16), (rs.int32, U32), (rs.uint32, U32),
    (rs.bfloat16, U16), (rs.half, U16), (rs.float32, U32),
]  # fmt: skip
SRC_ELEMS = 1024  # elements of the UB source / destination each call addresses


def ids(v: Any) -> str:
    return "-".join(t.name for t in v) if isinstance(v, tuple) else getattr(v, "name", str(v))


# --- the oracles: bytes in, bytes out ------------------------------------------------------------------------------
def gather_oracle(src: bytes, index: list[int], on: list[bool], s: int, d: int) -> bytes:
    """Lane i: the s bytes of element index[i] of src, zero-extended to d bytes, where on[i]; else d zeros."""
    out = bytearray()
    for k, active in zip(index, on, strict=True):
        out += (src[k * s : (k + 1) * s] if active else bytes(s)) + bytes(d - s)
    return bytes(out)


def register_gather_oracle(src: bytes, index: list[int], s: int) -> bytes:
    n = 256 // s
    return b"".join(src[(k % n) * s : (k % n + 1) * s] for k in index)


def datablock_oracle(src: bytes, offsets: list[int], on: list[bool]) -> bytes:
    return b"".join(src[o : o + 32] if a else bytes(32) for o, a in zip(offsets, on, strict=True))


def scatter_oracle(dst: bytes, src: bytes, index: list[int], on: list[bool], s: int) -> bytes:
    """Element index[i] of dst = lane i of src where on[i]; a b8 source's lane i is its byte 2i."""
    out = bytearray(dst)
    step = 2 if s == 1 else s
    for i, (k, active) in enumerate(zip(index, on, strict=True)):
        if active:
            out[k * s : (k + 1) * s] = src[i * step : i * step + s]
    return bytes(out)


# --- helpers ---------------------------------------------------------------------------------------------------------
def ub_bytes(ub: rs.UnifiedBuffer, data: bytes, dtype: Any) -> tuple[rs.LocalTensor[Any], Any]:
    """A uint8 tensor holding `data`, and its address as a pointer to `dtype`."""
    t = ub.alloc(rs.uint8, len(data))
    t.set(np.frombuffer(data, np.uint8))
    return t, t.GetPhyAddr().reinterpret(dtype)


def words(values: list[int], dtype: Any) -> bytes:
    return np.asarray(values, np.dtype(dtype.np_dtype)).tobytes()


def bits(lanes: list[bool], width: int) -> bytes:
    """The 32 mask bytes whose bit i * width is lane i (the mask register's byte-granular layout)."""
    b = np.zeros(256, bool)
    b[np.arange(len(lanes)) * width] = lanes
    return np.packbits(b, bitorder="little").tobytes()


def reg_of(data: bytes, dtype: Any) -> Any:
    return Reg.RegTensor.from_numpy(np.frombuffer(data, np.uint8).view(np.dtype(dtype.np_dtype)).copy(), dtype=dtype)


def reg_bytes(r: Any) -> bytes:
    return bytes(r.numpy().view(np.uint8).tobytes())


@rs.simd_vf
def ub_gather_vf(out: Any, src: Any, index: Any, masks: Any, reps: int, n: int) -> None:
    dst = Reg.RegTensor(out.dtype)
    idx = Reg.RegTensor(index.dtype)
    mask = Reg.MaskReg()
    full = capi.asc_create_mask_b8(capi.PAT_ALL)
    for i in range(reps):
        capi.asc_loadalign(idx, index + i * n)
        capi.asc_loadalign(mask, masks + i * 32)
        capi.asc_gather(dst, src, idx, mask)
        capi.asc_storealign(out + i * n, dst, full)


@rs.simd_vf
def reg_gather_vf(out: Any, src: Any, index: Any, reps: int, n: int) -> None:
    dst, data, idx = Reg.RegTensor(out.dtype), Reg.RegTensor(src.dtype), Reg.RegTensor(index.dtype)
    full = capi.asc_create_mask_b8(capi.PAT_ALL)
    for i in range(reps):
        capi.asc_loadalign(data, src + i * n)
        capi.asc_loadalign(idx, index + i * n)
        capi.asc_gather(dst, data, idx)
        capi.asc_storealign(out + i * n, dst, full)


@rs.simd_vf
def datablock_vf(out: Any, src: Any, index: Any, masks: Any, reps: int, n: int, masked: bool) -> None:
    dst, idx = Reg.RegTensor(out.dtype), Reg.RegTensor(rs.uint32)
    mask = Reg.MaskReg()
    full = capi.asc_create_mask_b8(capi.PAT_ALL)
    for i in range(reps):
        capi.asc_loadalign(idx, index + i * 64)
        if masked:
            capi.asc_loadalign(mask, masks + i * 32)
            capi.asc_gather_datablock(dst, src, idx, mask)
        else:
            capi.asc_gather_datablock(dst, src, idx)
        capi.asc_storealign(out + i * n, dst, full)


@rs.simd_vf
def scatter_vf(dst: Any, src: Any, index: Any, masks: Any, reps: int, n: int, lanes: int) -> None:
    data, idx = Reg.RegTensor(src.dtype), Reg.RegTensor(index.dtype)
    mask = Reg.MaskReg()
    for i in range(reps):
        capi.asc_loadalign(data, src + i * n)
        capi.asc_loadalign(idx, index + i * lanes)
        capi.asc_loadalign(mask, masks + i * 32)
        capi.asc_scatter(dst + i * SRC_ELEMS, data, idx, mask)


# --- the runs: each call's inputs per iteration, checked against the oracle ------------------------------------------
def run_ub_gather(types: tuple[Any, Any, Any], index: list[list[int]], on: list[list[bool]], src: bytes, loops: str) -> None:
    d, s, i = types
    n = 256 // d.itemsize
    ub = rs.UnifiedBuffer()
    _, sp = ub_bytes(ub, src, s)
    _, ip = ub_bytes(ub, b"".join(words(x, i) for x in index), i)
    _, mp = ub_bytes(ub, b"".join(bits(x, d.itemsize) for x in on), U8)
    out, op = ub_bytes(ub, bytes(256 * len(index)), d)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        ub_gather_vf(op, sp, ip, mp, len(index), n)
    want = b"".join(gather_oracle(src, x, a, s.itemsize, d.itemsize) for x, a in zip(index, on, strict=True))
    assert bytes(out.numpy().tobytes()) == want


def run_scatter(types: tuple[Any, Any], index: list[list[int]], on: list[list[bool]], data: bytes, loops: str) -> None:
    t, i = types
    s = t.itemsize
    lanes = 128 if s == 1 else 256 // s
    ub = rs.UnifiedBuffer()
    init = np.random.default_rng(len(data)).integers(0, 256, SRC_ELEMS * s * len(index), dtype=np.uint8).tobytes()
    dst, dp = ub_bytes(ub, init, t)
    _, sp = ub_bytes(ub, data, t)
    _, ip = ub_bytes(ub, b"".join(words(x, i) for x in index), i)
    _, mp = ub_bytes(ub, b"".join(bits(x, 2 if s == 1 else s) for x in on), U8)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        scatter_vf(dp, sp, ip, mp, len(index), 256 // s, lanes)
    region = SRC_ELEMS * s
    want = b"".join(
        scatter_oracle(init[r * region : (r + 1) * region], data[r * 256 : (r + 1) * 256], x, a, s)
        for r, (x, a) in enumerate(zip(index, on, strict=True))
    )
    assert bytes(dst.numpy().tobytes()) == want


@LOOPS
@pytest.mark.parametrize("types", UB_GATHER, ids=ids)
def test_ub_gather_every_prototype(types: tuple[Any, Any, Any], loops: str) -> None:
    rng = np.random.default_rng(len(ids(types)))
    n = 256 // types[0].itemsize
    index = [rng.integers(0, SRC_ELEMS, n).tolist() for _ in range(3)]
    index[0][:2] = [0, SRC_ELEMS - 1]  # the source's first and last elements
    on = [rng.random(n) < p for p in (1.0, 0.6, 0.0)]
    src = rng.integers(0, 256, SRC_ELEMS * types[1].itemsize, dtype=np.uint8).tobytes()
    run_ub_gather(types, index, [a.tolist() for a in on], src, loops)


@LOOPS
@given(st.data())
def test_ub_gather_hypothesis(loops: str, data: st.DataObject) -> None:
    types = data.draw(st.sampled_from(UB_GATHER), label="types")
    n = 256 // types[0].itemsize
    reps = data.draw(st.integers(1, 2), label="reps")
    index = [data.draw(st.lists(st.integers(0, SRC_ELEMS - 1), min_size=n, max_size=n)) for _ in range(reps)]
    on = [data.draw(st.lists(st.booleans(), min_size=n, max_size=n)) for _ in range(reps)]
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    src = np.random.default_rng(seed).integers(0, 256, SRC_ELEMS * types[1].itemsize, dtype=np.uint8).tobytes()
    run_ub_gather(types, index, on, src, loops)


def test_ub_gather_b8_source_is_zero_extended() -> None:
    """The page's example: int8_t 40 → 40 and -40 (0b11011000) → 216 in the int16 lane."""
    run_ub_gather((rs.int16, rs.int8, U16), [[0, 1] * 64], [[True] * 128], words([40, -40], rs.int8) * 512, "sequential")
    ub = rs.UnifiedBuffer()
    _, sp = ub_bytes(ub, words([40, -40], rs.int8) * 16, rs.int8)
    with rs.VEC_SCOPE():
        dst, idx = Reg.RegTensor(rs.int16), Reg.RegTensor.from_numpy(np.arange(128, dtype=np.uint16) % 2)
        capi.asc_gather(dst, sp, idx, capi.asc_create_mask_b16(capi.PAT_ALL))
    assert dst.numpy()[:4].tolist() == [40, 216, 40, 216]


def test_ub_gather_unselected_lanes_read_nothing() -> None:
    """An index past the source on a lane the mask leaves out raises nothing and gives 0 (the page)."""
    ub = rs.UnifiedBuffer()
    _, sp = ub_bytes(ub, words(list(range(64)), rs.float32), rs.float32)
    idx = Reg.RegTensor.from_numpy(np.where(np.arange(64) < 32, np.arange(64), 10**6).astype(np.uint32))
    with rs.VEC_SCOPE():
        dst = Reg.RegTensor(rs.float32)
        capi.asc_gather(dst, sp, idx, capi.asc_create_mask_b32(capi.PAT_H))
    assert dst.numpy().tolist() == [float(k) for k in range(32)] + [0.0] * 32


@LOOPS
@pytest.mark.parametrize("types", REG_GATHER, ids=ids)
def test_register_gather_every_prototype(types: tuple[Any, Any], loops: str) -> None:
    t, i = types
    rng = np.random.default_rng(len(ids(types)))
    n, reps = 256 // t.itemsize, 3
    index = [rng.integers(0, 2 ** (8 * i.itemsize), n).tolist() for _ in range(reps)]
    index[0][:3] = [0, n - 1, 2 ** (8 * i.itemsize) - 1]  # the last lane, the index's largest value (wraps)
    src = rng.integers(0, 256, 256 * reps, dtype=np.uint8).tobytes()
    ub = rs.UnifiedBuffer()
    _, sp = ub_bytes(ub, src, t)
    _, ip = ub_bytes(ub, b"".join(words(x, i) for x in index), i)
    out, op = ub_bytes(ub, bytes(256 * reps), t)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        reg_gather_vf(op, sp, ip, reps, n)
    want = b"".join(register_gather_oracle(src[r * 256 : (r + 1) * 256], index[r], t.itemsize) for r in range(reps))
    assert bytes(out.numpy().tobytes()) == want


@given(st.data())
def test_register_gather_hypothesis(data: st.DataObject) -> None:
    t, i = data.draw(st.sampled_from(REG_GATHER), label="types")
    n = 256 // t.itemsize
    index = data.draw(st.lists(st.integers(0, 2 ** (8 * i.itemsize) - 1), min_size=n, max_size=n), label="index")
    src = data.draw(st.binary(min_size=256, max_size=256), label="src")
    with rs.VEC_SCOPE():
        dst = Reg.RegTensor(t)
        capi.asc_gather(dst, reg_of(src, t), reg_of(words(index, i), i))
    assert reg_bytes(dst) == register_gather_oracle(src, index, t.itemsize)


def run_datablock(t: Any, offsets: list[list[int]], on: list[list[bool]] | None, src: bytes, loops: str) -> None:
    reps = len(offsets)
    n = 256 // t.itemsize
    ub = rs.UnifiedBuffer()
    _, sp = ub_bytes(ub, src, t)
    rng = np.random.default_rng(reps)
    lanes = [x + rng.integers(0, 2**32, 56).tolist() for x in offsets]  # lanes 8.. are not read
    _, ip = ub_bytes(ub, b"".join(words(x, U32) for x in lanes), U32)
    _, mp = ub_bytes(ub, b"".join(bits(x, 4) for x in on or [[True] * 8] * reps), U8)
    out, op = ub_bytes(ub, bytes(256 * reps), t)
    with rs.configure(loops=loops):  # type: ignore[arg-type]
        datablock_vf(op, sp, ip, mp, reps, n, on is not None)
    want = b"".join(datablock_oracle(src, x, a) for x, a in zip(offsets, on or [[True] * 8] * reps, strict=True))
    assert bytes(out.numpy().tobytes()) == want


@LOOPS
@pytest.mark.parametrize("masked", [True, False])
@pytest.mark.parametrize("t", DATABLOCK, ids=ids)
def test_gather_datablock_every_prototype(t: Any, masked: bool, loops: str) -> None:
    rng = np.random.default_rng(t.itemsize)
    size = 2048
    offsets = [(rng.integers(0, size // 32, 8) * 32).tolist() for _ in range(3)]
    offsets[0][:2] = [0, size - 32]
    offsets[1][:2] = [64, 64]  # an index may repeat (the page)
    on = [(rng.random(8) < p).tolist() for p in (1.0, 0.5, 0.0)] if masked else None
    run_datablock(t, offsets, on, rng.integers(0, 256, size, dtype=np.uint8).tobytes(), loops)


@LOOPS
@given(st.data())
def test_gather_datablock_hypothesis(loops: str, data: st.DataObject) -> None:
    t = data.draw(st.sampled_from(DATABLOCK), label="t")
    reps = data.draw(st.integers(1, 2), label="reps")
    offsets = [[32 * k for k in data.draw(st.lists(st.integers(0, 63), min_size=8, max_size=8))] for _ in range(reps)]
    masked = data.draw(st.booleans(), label="masked")
    on = [data.draw(st.lists(st.booleans(), min_size=8, max_size=8)) for _ in range(reps)] if masked else None
    src = data.draw(st.binary(min_size=2048, max_size=2048), label="src")
    run_datablock(t, offsets, on, src, loops)


@LOOPS
@pytest.mark.parametrize("types", SCATTER, ids=ids)
def test_scatter_every_prototype(types: tuple[Any, Any], loops: str) -> None:
    s = types[0].itemsize
    lanes = 128 if s == 1 else 256 // s
    rng = np.random.default_rng(s + len(ids(types)))
    index = [rng.permutation(SRC_ELEMS)[:lanes].tolist() for _ in range(3)]
    index[0] = [0, SRC_ELEMS - 1, *(rng.permutation(SRC_ELEMS - 2)[: lanes - 2] + 1).tolist()]  # the first, the last
    on = [(rng.random(lanes) < p).tolist() for p in (1.0, 0.5, 0.0)]
    run_scatter(types, index, on, rng.integers(0, 256, 256 * 3, dtype=np.uint8).tobytes(), loops)


@LOOPS
@given(st.data())
def test_scatter_hypothesis(loops: str, data: st.DataObject) -> None:
    types = data.draw(st.sampled_from(SCATTER), label="types")
    s = types[0].itemsize
    lanes = 128 if s == 1 else 256 // s
    reps = data.draw(st.integers(1, 2), label="reps")
    index = [data.draw(st.lists(st.integers(0, SRC_ELEMS - 1), min_size=lanes, max_size=lanes, unique=True)) for _ in range(reps)]
    on = [data.draw(st.lists(st.booleans(), min_size=lanes, max_size=lanes)) for _ in range(reps)]
    src = data.draw(st.binary(min_size=256 * reps, max_size=256 * reps), label="src")
    run_scatter(types, index, on, src, loops)


def test_scatter_repeated_index_equal_values_runs() -> None:
    """Two active lanes with one index and equal values: every choice writes the same bytes
    (docs/decisions/datamove.md#gather-scatter)."""
    index, values = [5, 5, *range(6, 68)], [7, 7, *range(62)]
    run_scatter((rs.int32, U32), [index], [[True] * 64], words(values, rs.int32), "sequential")


# --- refusals: the CONTRACT error classes, naming the C function; nothing written -------------------------------------
def test_errors_name_the_c_function_and_write_nothing() -> None:
    ub = rs.UnifiedBuffer()
    src_t, sp = ub_bytes(ub, bytes(range(256)) * 8, rs.int16)
    i16 = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.int16))
    u16 = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.uint16))
    u32 = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
    u8 = Reg.RegTensor.from_numpy(np.arange(256).astype(np.uint8))
    f32 = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.float32))
    hif8 = reg_of(bytes(256), rs.hifloat8)
    i64 = Reg.RegTensor.from_numpy(np.arange(32, dtype=np.int64))
    registers = (i16, u16, u32, u8, f32, hif8, i64)
    before = [reg_bytes(r) for r in registers]
    snapshot = bytes(ub.storage.data)
    with pytest.raises(errors.VfContextError, match=r"^asc_gather"):
        capi.asc_gather(i16, sp, u16, Reg.MaskReg())
    with rs.VEC_SCOPE():
        m = capi.asc_create_mask_b8(capi.PAT_ALL)
        # element types the pages do not list, or that regsim does not generate (decisions/capi.md#capi-gather-scatter)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather: dst_reg = a vector of hifloat8; accepted: one of "):
            capi.asc_gather(hif8, sp.reinterpret(rs.hifloat8), u16, m)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather: index = a vector of uint32; accepted: one of uint16 on"):
            capi.asc_gather(i16, sp, u32, m)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather: dst_reg = a vector of int64"):
            capi.asc_gather(i64, sp.reinterpret(rs.int64), u32, m)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather: the call fails in its Reg op .*src_addr"):
            capi.asc_gather(f32, sp.reinterpret(rs.half), u32, m)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather: dst_reg = a vector of float32; accepted: one of .*uint32"):
            capi.asc_gather(f32, f32, u32)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather: index_reg = a vector of uint8; accepted: one of uint16 on"):
            capi.asc_gather(i16, i16, u8)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather_datablock: .*index = RegTensor\[uint16\]"):
            capi.asc_gather_datablock(i16, sp, u16)
        c32 = Reg.RegTensor(rs.complex32)
        with pytest.raises(errors.DTypeError, match=r"^asc_gather_datablock: dst_reg = a vector of complex32"):
            capi.asc_gather_datablock(c32, sp.reinterpret(rs.complex32), u32, m)
        with pytest.raises(errors.DTypeError, match=r"^asc_scatter: src_reg = a vector of int64"):
            capi.asc_scatter(sp.reinterpret(rs.int64), i64, u32, m)
        with pytest.raises(errors.DTypeError, match=r"^asc_scatter: index = a vector of uint32; accepted: one of uint16 on"):
            capi.asc_scatter(sp, i16, u32, m)
        # the deprecated asc_scatter(src, dst, index, mask) is not generated: its page names this one
        with pytest.raises(
            errors.ParameterError,
            match=r"^asc_scatter: dst_addr = RegTensor\[int16\]; accepted: an rs.UbPtr .*asc_scatter\(dst_addr",
        ):
            capi.asc_scatter(i16, sp, u16, m)
        with pytest.raises(errors.ParameterError, match=r"^asc_gather: arguments = "):
            capi.asc_gather(i16, sp, u16)
        # out of range: an active lane past the source / destination tensor
        far = Reg.RegTensor.from_numpy(np.where(np.arange(128) == 5, 1024, np.arange(128)).astype(np.uint16))
        with pytest.raises(errors.OutOfBoundsError, match=r"^asc_gather: the call fails in its Reg op .*src_addr"):
            capi.asc_gather(i16, sp, far, m)
        with pytest.raises(errors.OutOfBoundsError, match=r"^asc_scatter: .*dst_addr"):
            capi.asc_scatter(sp, i16, far, m)
        blocks = Reg.RegTensor.from_numpy(np.where(np.arange(64) == 3, 2048, 0).astype(np.uint32))
        with pytest.raises(errors.OutOfBoundsError, match=r"^asc_gather_datablock: .*src_addr"):
            capi.asc_gather_datablock(i16, sp, blocks)
        # alignment: a DataBlock offset not a multiple of 32, a base not 32-byte aligned
        odd = Reg.RegTensor.from_numpy(np.where(np.arange(64) == 2, 48, 0).astype(np.uint32))
        with pytest.raises(errors.AlignmentError, match=r"^asc_gather_datablock: .*index = 48 in lane 2"):
            capi.asc_gather_datablock(i16, sp, odd, m)
        zero16 = Reg.RegTensor.from_numpy(np.zeros(128, np.uint16))
        with pytest.raises(errors.AlignmentError, match=r"^asc_gather: .*src_addr"):
            capi.asc_gather(i16, sp + 1, zero16, m)
        with pytest.raises(errors.AlignmentError, match=r"^asc_scatter: .*dst_addr"):
            capi.asc_scatter(sp + 8, i16, u16, m)
        # two active lanes with one index and different values (the page: "index中的值必须唯一")
        dup = Reg.RegTensor.from_numpy(np.where(np.arange(128) == 1, 0, np.arange(128)).astype(np.uint16))
        with pytest.raises(errors.ParameterError, match=r"^asc_scatter: .*index = 0 in active lanes \[0, 1\]"):
            capi.asc_scatter(sp, i16, dup, m)
    assert [reg_bytes(r) for r in registers] == before
    assert bytes(ub.storage.data) == snapshot
    assert src_t.numpy().tobytes() == (bytes(range(256)) * 8)
