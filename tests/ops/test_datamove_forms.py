"""Every way data moves between the UB and registers beyond DIST_NORM: the LoadDist / StoreDist
tables (LoadAlign / StoreAlign pages), dual-register DINTLV / INTLV, DATA_BLOCK_COPY (the
非连续对齐搬入 / 非连续对齐搬出 pages), unaligned streams (LoadUnAlign / StoreUnAlign pages,
Load, Store, the MaskReg StoreUnAlign), UB Gather / GatherB / Scatter and aux-scalar access,
each against the byte-level oracles of regsim.testing.reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import (
    AlignmentError,
    DTypeError,
    OutOfBoundsError,
    ParameterError,
    UninitializedReadError,
    UnsupportedError,
    VfContextError,
)
from regsim.testing import reference as O

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
NORMAL = Reg.PostLiteral.POST_MODE_NORMAL
BLOCK_COPY = Reg.DataCopyMode.DATA_BLOCK_COPY
B8 = [rs.int8, rs.uint8, rs.fp8_e4m3fn, rs.hifloat8]
B16 = [rs.int16, rs.uint16, rs.half, rs.bfloat16]
B32 = [rs.int32, rs.uint32, rs.float32]
B64 = [rs.int64, rs.uint64]
BY_WIDTH = {1: B8, 2: B16, 4: B32, 8: B64}

#: LoadDist: (UB bytes read, address alignment, element widths of T it serves) — from the
#: LoadAlign page's table, written here independently of regsim's own table
LOAD_DISTS = {
    "DIST_BRC_B8": (1, 1, (1,)),
    "DIST_BRC_B16": (2, 2, (2,)),
    "DIST_BRC_B32": (4, 4, (4,)),
    "DIST_US_B8": (128, 32, (1,)),
    "DIST_US_B16": (128, 32, (2,)),
    "DIST_DS_B8": (512, 32, (1,)),
    "DIST_DS_B16": (512, 32, (2,)),
    "DIST_UNPACK_B8": (128, 32, (1, 2)),
    "DIST_UNPACK_B16": (128, 32, (2, 4)),
    "DIST_UNPACK_B32": (128, 32, (4,)),
    "DIST_UNPACK4_B8": (64, 32, (1, 4)),
    "DIST_BLK": (32, 32, (1, 2, 4)),
    "DIST_E2B_B16": (16, 16, (2,)),
    "DIST_E2B_B32": (32, 32, (4,)),
}
STORE_DISTS = {  # UB bytes written, alignment, widths
    "DIST_FIRST_ELEMENT_B8": (1, 1, (1,)),
    "DIST_FIRST_ELEMENT_B16": (2, 2, (2,)),
    "DIST_FIRST_ELEMENT_B32": (4, 4, (4,)),
    "DIST_PACK_B16": (128, 32, (1, 2)),
    "DIST_PACK_B32": (128, 32, (2, 4)),
    "DIST_PACK_B64": (128, 32, (4, 8)),
    "DIST_PACK4_B32": (64, 32, (1, 4)),
}
DUAL = {"DIST_DINTLV_B8": (1,), "DIST_DINTLV_B16": (2,), "DIST_DINTLV_B32": (4, 8)}
INTLV = {"DIST_INTLV_B8": (1,), "DIST_INTLV_B16": (2,), "DIST_INTLV_B32": (4, 8)}


def _ub(data, nbytes: int = 2048):
    """A UB holding one filled uint8 tensor of `nbytes` (at a drawn 32-byte aligned address)."""
    layout = data.draw(rst.ub_layouts([(rs.uint8, nbytes)]), "layout")
    return layout, layout.tensors[0]


def _reg_bytes(*regs) -> bytes:
    return b"".join(r.numpy().tobytes() for r in regs)


def _bits(mask) -> list[int]:
    return [int(b) for b in mask.bits()]


# --- LoadDist ----------------------------------------------------------------------------------
@given(data=st.data(), dist=st.sampled_from(sorted(LOAD_DISTS)), form=st.sampled_from(["plain", "post", "addr"]))
def test_load_distributions(data, dist, form):
    _nbytes, align, widths = LOAD_DISTS[dist]
    dtype = data.draw(st.sampled_from([d for w in widths for d in BY_WIDTH[w]]), "dtype")
    layout, t = _ub(data)
    ub = layout.snapshot().tobytes()
    size = dtype.itemsize
    offset = data.draw(st.integers(0, (2048 - 512) // max(align, size)), "offset") * max(align, size)
    p = t.GetPhyAddr().reinterpret(dtype)
    reg = Reg.RegTensor(dtype)
    d = getattr(Reg.LoadDist, dist)
    stride = data.draw(st.integers(-8, 8), "stride") * 32 // size
    with rs.VEC_SCOPE():
        if form == "plain":
            Reg.LoadAlign(reg, p + offset // size, dist=d)
        elif form == "addr":
            Reg.LoadAlign(reg, p, Reg.CreateAddrReg(dtype, offset // size, 1), dist=d)
        else:
            p = p + offset // size
            Reg.LoadAlign(reg, p, stride, post_mode=UPDATE, dist=d)
            assert p.addr == t.addr + offset + stride * size
    want = O.load_dist_oracle(ub, t.addr + offset, dist)
    O.assert_lanes(reg.numpy().view(np.uint8), np.frombuffer(want, np.uint8), what=f"LoadAlign {dist} {dtype!r} {form}")
    assert layout.snapshot().tobytes() == ub


def test_unpack_zero_fills_and_brc_broadcasts(ub):
    """UNPACK_B8 zero-extends ("按无符号整型u8加载"), never sign-extends: 0xFF → 0x00FF."""
    t = ub.alloc(rs.int8, 256)
    t.set(np.array([-1, -128, 5] + [0] * 253, np.int8))
    r16 = Reg.RegTensor(rs.int16)
    r8 = Reg.RegTensor(rs.int8)
    with rs.VEC_SCOPE():
        Reg.LoadAlign(r16, t.GetPhyAddr().reinterpret(rs.int16), dist=Reg.LoadDist.DIST_UNPACK_B8)
        Reg.LoadAlign(r8, t.GetPhyAddr() + 2, dist=Reg.LoadDist.DIST_BRC_B8)  # any byte address
    assert r16.numpy()[:3].tolist() == [0xFF, 0x80, 5]
    assert r8.numpy().tolist() == [5] * 256


@pytest.mark.parametrize(
    ("dtype", "trait", "dist", "error", "text"),
    [
        (
            rs.int64,
            Reg.RegTraitNumOne,
            "DIST_BRC_B32",
            ParameterError,
            r"dist = DIST_BRC_B32; accepted: DIST_NORM for RegTensor\[int64\]",
        ),
        (
            rs.half,
            Reg.RegTraitNumOne,
            "DIST_BRC_B8",
            ParameterError,
            r"accepted: DIST_NORM, DIST_BRC_B16, .* for RegTensor\[half\]",
        ),
        (rs.int64, Reg.RegTraitNumTwo, "DIST_UNPACK_B32", ParameterError, r"dist = DIST_UNPACK_B32"),
        (rs.uint8, Reg.RegTraitNumOne, "DIST_BDINTLV", UnsupportedError, r"does not support this distribution"),
        (rs.uint8, Reg.RegTraitNumOne, "DIST_DINTLV_B8", ParameterError, r"dist = DIST_DINTLV_B8; accepted: DIST_NORM"),
    ],
)
def test_load_distribution_refusals(ub, dtype, trait, dist, error, text):
    t = ub.alloc(dtype, 256)
    reg = Reg.RegTensor(dtype, trait)
    with rs.VEC_SCOPE(), pytest.raises(error, match="LoadAlign: .*" + text):
        Reg.LoadAlign(reg, t.GetPhyAddr(), dist=getattr(Reg.LoadDist, dist))


def test_load_distribution_alignment_and_ub_bounds(ub):
    t = ub.alloc(rs.uint16, 128)
    t.set(np.arange(128, dtype=np.uint16))
    reg = Reg.RegTensor(rs.uint16)
    with rs.VEC_SCOPE():
        with pytest.raises(AlignmentError, match=r"LoadAlign: src_addr = UB byte 2.*multiple of 32 bytes \(DIST_US_B16\)"):
            Reg.LoadAlign(reg, t.GetPhyAddr() + 1, dist=Reg.LoadDist.DIST_US_B16)
        with pytest.raises(AlignmentError, match=r"multiple of 16 bytes \(DIST_E2B_B16\)"):
            Reg.LoadAlign(reg, t.GetPhyAddr() + 4, dist=Reg.LoadDist.DIST_E2B_B16)
        Reg.LoadAlign(reg, t.GetPhyAddr() + 8, dist=Reg.LoadDist.DIST_E2B_B16)  # 16 B aligned
    small = rs.UnifiedBuffer(size=512)
    s = small.alloc(rs.uint8, 512)
    with rs.VEC_SCOPE(), pytest.raises(OutOfBoundsError, match=r"LoadAlign: src_addr = UB bytes \[32, 544\)"):
        Reg.LoadAlign(Reg.RegTensor(rs.uint8), s.GetPhyAddr() + 32, dist=Reg.LoadDist.DIST_DS_B8)


# --- dual-register forms -------------------------------------------------------------------------
@given(data=st.data(), dist=st.sampled_from(sorted(DUAL)), form=st.sampled_from(["plain", "post", "addr"]))
def test_dual_loads(data, dist, form):
    dtype = data.draw(st.sampled_from([d for w in DUAL[dist] for d in BY_WIDTH[w]]), "dtype")
    layout, t = _ub(data)
    ub = layout.snapshot().tobytes()
    size = dtype.itemsize
    offset = data.draw(st.integers(0, 48), "offset") * 32
    p = t.GetPhyAddr().reinterpret(dtype)
    a, b = Reg.RegTensor(dtype), Reg.RegTensor(dtype)
    d = getattr(Reg.LoadDist, dist)
    with rs.VEC_SCOPE():
        if form == "plain":
            Reg.LoadAlign(a, b, p + offset // size, dist=d)
        elif form == "addr":
            Reg.LoadAlign(a, b, p, Reg.CreateAddrReg(dtype, offset // size, 1), dist=d)
        else:
            p = p + offset // size
            Reg.LoadAlign(a, b, p, 512 // size, post_mode=UPDATE, dist=d)
            assert p.addr == t.addr + offset + 512
    want = np.frombuffer(O.load_dist_oracle(ub, t.addr + offset, dist), np.uint8)
    O.assert_lanes(np.frombuffer(_reg_bytes(a, b), np.uint8), want, what=f"LoadAlign {dist} {dtype!r} {form}")


@given(data=st.data(), dist=st.sampled_from(sorted(INTLV)), form=st.sampled_from(["plain", "addr"]))
def test_dual_stores_ignore_the_mask(data, dist, form):
    dtype = data.draw(st.sampled_from([d for w in INTLV[dist] for d in BY_WIDTH[w]]), "dtype")
    layout, t = _ub(data)
    before = layout.snapshot().tobytes()
    size = dtype.itemsize
    a, b = data.draw(rst.registers(dtype), "src0"), data.draw(rst.registers(dtype), "src1")
    mask = data.draw(rst.masks(), "mask")
    offset = data.draw(st.integers(0, 48), "offset") * 32
    p = t.GetPhyAddr().reinterpret(dtype)
    d = getattr(Reg.StoreDist, dist)
    with rs.VEC_SCOPE():
        if form == "plain":
            Reg.StoreAlign(p + offset // size, a, b, mask, dist=d)
        else:
            Reg.StoreAlign(p, a, b, Reg.CreateAddrReg(dtype, offset // size, 1), mask, dist=d)
    want = O.store_dist_oracle(before, t.addr + offset, dist, _reg_bytes(a, b), _bits(mask))
    assert layout.snapshot().tobytes() == want, f"StoreAlign {dist} {dtype!r} {form}"


def test_dual_forms_refuse_two_register_tensors(ub):
    t = ub.alloc(rs.uint64, 128)
    a, b = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo), Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
    with rs.VEC_SCOPE(), pytest.raises(DTypeError, match=r"LoadAlign: dst_reg0 = the dual-register form .*RegTraitNumTwo"):
        Reg.LoadAlign(a, b, t.GetPhyAddr(), dist=Reg.LoadDist.DIST_DINTLV_B32)


# --- StoreDist ---------------------------------------------------------------------------------
@settings(max_examples=max(30, settings.default.max_examples))
@given(data=st.data(), dist=st.sampled_from(sorted(STORE_DISTS)), form=st.sampled_from(["plain", "post", "addr"]))
def test_store_distributions(data, dist, form):
    _nbytes, align, widths = STORE_DISTS[dist]
    dtype = data.draw(st.sampled_from([d for w in widths for d in BY_WIDTH[w]]), "dtype")
    layout, t = _ub(data, 1024)
    before = layout.snapshot().tobytes()
    size = dtype.itemsize
    reg = data.draw(rst.registers(dtype), "src")
    mask = data.draw(rst.masks(), "mask")
    step = max(align, size)
    offset = data.draw(st.integers(0, (1024 - 128) // step), "offset") * step
    p = t.GetPhyAddr().reinterpret(dtype)
    d = getattr(Reg.StoreDist, dist)
    with rs.VEC_SCOPE():
        if form == "plain":
            Reg.StoreAlign(p + offset // size, reg, mask, dist=d)
        elif form == "addr":
            Reg.StoreAlign(p, reg, Reg.CreateAddrReg(dtype, offset // size, 1), mask, dist=d)
        else:
            p = p + offset // size
            Reg.StoreAlign(p, reg, 3, mask, post_mode=UPDATE, dist=d)
            assert p.addr == t.addr + offset + 3 * size
    want = O.store_dist_oracle(before, t.addr + offset, dist, _reg_bytes(reg), _bits(mask))
    got = layout.snapshot().tobytes()
    assert got == want, (
        f"StoreAlign {dist} {dtype!r} {form}: first differing byte {next(i for i in range(len(got)) if got[i] != want[i])}"
    )


def test_pack_doc_example(ub):
    """The StoreAlign page's PACK_B16 example: [0x3210, 0x7654, 0xBA98, 0xFEDC] → bytes 10 54 98 DC."""
    t = ub.alloc(rs.uint16, 128)
    t.set(np.zeros(128, np.uint16))
    reg = Reg.RegTensor.from_numpy(np.tile(np.array([0x3210, 0x7654, 0xBA98, 0xFEDC], np.uint16), 32))
    with rs.VEC_SCOPE():
        Reg.StoreAlign(t.GetPhyAddr(), reg, Reg.CreateMask(rs.uint16), dist=Reg.StoreDist.DIST_PACK_B16)
    assert t.numpy()[:2].tolist() == [0x5410, 0xDC98] and t.numpy()[64:].tolist() == [0] * 64


def test_store_distribution_bounds_per_active_lane(ub):
    """A PACK store is checked per active lane against its tensor; a refused store writes nothing."""
    t = ub.alloc(rs.uint16, 40)
    t.set(np.zeros(40, np.uint16))
    reg = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.uint16))
    with rs.VEC_SCOPE():
        Reg.StoreAlign(t.GetPhyAddr(), reg, Reg.UpdateMask(rs.uint16, rs.Ref(80)), dist=Reg.StoreDist.DIST_PACK_B16)
        with pytest.raises(OutOfBoundsError, match=r"StoreAlign: dst_addr = lanes 80\.\.80 "):
            Reg.StoreAlign(t.GetPhyAddr(), reg, Reg.UpdateMask(rs.uint16, rs.Ref(81)), dist=Reg.StoreDist.DIST_PACK_B16)
    assert t.numpy().view(np.uint8).tolist() == list(range(80))


# --- DATA_BLOCK_COPY -----------------------------------------------------------------------------
@settings(max_examples=max(40, settings.default.max_examples))
@given(data=st.data(), form=st.sampled_from(["plain", "update", "normal"]), load=st.booleans())
def test_data_block_copy(data, form, load):
    dtype = data.draw(st.sampled_from(B8 + B16 + B32), "dtype")
    layout, t = _ub(data, 4096)
    before = layout.snapshot().tobytes()
    size = dtype.itemsize
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    block_stride = data.draw(st.integers(0, 6), "dataBlockStride")
    repeat = data.draw(st.integers(0, 40), "repeatStride")
    offset = data.draw(st.integers(0, 16), "offset") * 32
    p = t.GetPhyAddr().reinterpret(dtype) + offset // size
    at = t.addr + offset + (repeat * 32 if form == "normal" else 0)
    reg = Reg.RegTensor(dtype) if load else data.draw(rst.registers(dtype), "src")
    with rs.VEC_SCOPE():
        args = (block_stride,) if form == "plain" else (block_stride, repeat)
        kw = {} if form == "plain" else {"post_mode": UPDATE if form == "update" else NORMAL}
        if load:
            Reg.LoadAlign(reg, p, *args, mask, data_mode=BLOCK_COPY, **kw)
        else:
            Reg.StoreAlign(p, reg, *args, mask, data_mode=BLOCK_COPY, **kw)
    assert p.addr == t.addr + offset + (repeat * 32 if form == "update" else 0)
    if load:
        want = O.block_load_oracle(before, at, size, block_stride, _bits(mask))
        O.assert_lanes(reg.numpy().view(np.uint8), np.frombuffer(want, np.uint8), what=f"DATA_BLOCK_COPY load {dtype!r} {form}")
        assert layout.snapshot().tobytes() == before
    else:
        want = O.block_store_oracle(before, at, size, block_stride, _reg_bytes(reg), _bits(mask))
        assert layout.snapshot().tobytes() == want, f"DATA_BLOCK_COPY store {dtype!r} {form}"


def test_data_block_copy_refusals_and_unread_blocks(ub):
    t = ub.alloc(rs.float32, 64)
    t.set(np.arange(64, dtype=np.float32))
    reg = Reg.RegTensor(rs.float32)
    with rs.VEC_SCOPE():
        # only block 0 selected: the other blocks, 100 * 32 B apart and past the tensor, are not read
        Reg.DataCopy(reg, t.GetPhyAddr(), 100, Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.VL1), data_mode=BLOCK_COPY)
        with pytest.raises(AlignmentError, match=r"LoadAlign: src_addr = UB byte 4.*DATA_BLOCK_COPY"):
            Reg.LoadAlign(reg, t.GetPhyAddr() + 1, 1, Reg.CreateMask(rs.float32), data_mode=BLOCK_COPY)
        with pytest.raises(ParameterError, match=r"data_block_stride = 65536"):
            Reg.LoadAlign(reg, t.GetPhyAddr(), 65536, Reg.CreateMask(rs.float32), data_mode=BLOCK_COPY)
        with pytest.raises(OutOfBoundsError, match=r"StoreAlign: dst_addr = lanes"):
            Reg.StoreAlign(t.GetPhyAddr(), reg, 2, Reg.CreateMask(rs.float32), data_mode=BLOCK_COPY)
    assert reg.numpy()[:8].tolist() == list(range(8)) and not reg.numpy()[8:].any()
    assert t.numpy().tolist() == list(range(64)), "a refused store writes nothing"
    with rs.VEC_SCOPE(), pytest.raises(DTypeError, match=r"LoadAlign: dst_reg = RegTensor\[int64\]"):
        Reg.LoadAlign(
            Reg.RegTensor(rs.int64), ub.alloc(rs.int64, 64).GetPhyAddr(), 1, Reg.CreateMask(rs.int64), data_mode=BLOCK_COPY
        )


# --- unaligned streams ---------------------------------------------------------------------------
@settings(max_examples=max(40, settings.default.max_examples))
@given(data=st.data(), repeats=st.integers(1, 4), style=st.sampled_from(["post", "plain", "addr"]))
def test_unaligned_load_and_store_streams(data, repeats, style):
    """The LoadUnAlign / StoreUnAlign pages' loop: Pre once, then repeats of 256 B from any
    address, stored to any address, flushed once; exactly the streamed bytes change."""
    dtype = data.draw(st.sampled_from(B8 + B16 + B32 + B64), "dtype")
    size = dtype.itemsize
    layout = data.draw(rst.ub_layouts([(rs.uint8, 1536), (rs.uint8, 1536)]), "layout")
    src_t, dst_t = layout.tensors
    before = layout.snapshot().tobytes()
    s_off = data.draw(st.integers(0, 64), "src offset") * size
    d_off = data.draw(st.integers(0, 64), "dst offset") * size
    n = 256 // size
    src = src_t.GetPhyAddr().reinterpret(dtype) + s_off // size
    dst = dst_t.GetPhyAddr().reinterpret(dtype) + d_off // size
    reg = Reg.RegTensor(dtype)
    regs = []
    u_in, u_out = Reg.UnalignRegForLoad(), Reg.UnalignRegForStore()
    with rs.VEC_SCOPE():
        if style == "addr":
            for i in range(repeats):
                areg = Reg.CreateAddrReg(dtype, i, n)
                Reg.LoadUnAlignPre(u_in, src, areg)
                Reg.LoadUnAlign(reg, u_in, src, areg, 0)
                Reg.StoreUnAlign(dst, reg, u_out, areg)
                regs.append(reg.numpy().tobytes())
            Reg.StoreUnAlignPost(dst, u_out, areg)
        else:
            Reg.LoadUnAlignPre(u_in, src)
            for i in range(repeats):
                if style == "post":
                    Reg.LoadUnAlign(reg, u_in, src, n)
                else:
                    Reg.LoadUnAlign(reg, u_in, src + i * n)
                Reg.StoreUnAlign(dst, reg, u_out, n)
                regs.append(reg.numpy().tobytes())
            Reg.StoreUnAlignPost(dst, u_out, 0)
    for i, got in enumerate(regs):
        want = O.unaligned_load_oracle(before, src_t.addr + s_off + 256 * i)
        O.assert_lanes(np.frombuffer(got, np.uint8), np.frombuffer(want, np.uint8), what=f"LoadUnAlign #{i} {dtype!r} {style}")
    expected = O.unaligned_store_oracle(before, [(dst_t.addr + d_off + 256 * i, r) for i, r in enumerate(regs)])
    assert layout.snapshot().tobytes() == expected, f"StoreUnAlign stream {dtype!r} {style}"


@given(
    data=st.data(),
    strides=st.lists(st.integers(0, 300), min_size=1, max_size=5),
    style=st.sampled_from(["post", "plain"]),
)
def test_unaligned_load_at_any_address_after_one_pre(data, strides, style):
    """The plain and post-update LoadUnAlign (one vldus) give UB[p : p + 256] for any p after a
    single LoadUnAlignPre, also where p is not where the previous read ended (docs/decisions/datamove.md#unaligned-load: the
    950 library's 64-bit Select and the reg_move example stream 8-byte steps that way)."""
    dtype = data.draw(st.sampled_from(B8 + B16 + B32 + B64), "dtype")
    size = dtype.itemsize
    layout = data.draw(rst.ub_layouts([(rs.uint8, 2400)]), "layout")
    (t,) = layout.tensors
    before = layout.snapshot().tobytes()
    off = data.draw(st.integers(0, 40), "offset")
    src = t.GetPhyAddr().reinterpret(dtype) + off
    reg = Reg.RegTensor(dtype)
    u = Reg.UnalignRegForLoad()
    at, got = t.addr + off * size, []
    with rs.VEC_SCOPE():
        Reg.LoadUnAlignPre(u, src)
        for k in strides:
            if style == "post":
                Reg.LoadUnAlign(reg, u, src, k)
            else:
                Reg.LoadUnAlign(reg, u, src + (at - t.addr - off * size) // size)
            got.append((at, reg.numpy().tobytes()))
            at += k * size
    if style == "post":
        assert src.addr == at
    for i, (a, r) in enumerate(got):
        want = O.unaligned_load_oracle(before, a)
        O.assert_lanes(
            np.frombuffer(r, np.uint8), np.frombuffer(want, np.uint8), what=f"LoadUnAlign #{i} {dtype!r} {style} at {a}"
        )


@given(data=st.data(), counts=st.lists(st.integers(0, 64), min_size=1, max_size=5))
def test_store_stream_of_partial_counts(data, counts):
    """StoreUnAlign's count is the elements written and the post-update; any counts concatenate."""
    layout = data.draw(rst.ub_layouts([(rs.uint32, 512)]), "layout")
    t = layout.tensors[0]
    before = layout.snapshot().tobytes()
    start = data.draw(st.integers(0, 40), "start")
    p = t.GetPhyAddr() + start
    regs = [data.draw(rst.registers(rs.uint32), f"src{i}") for i in range(len(counts))]
    u = Reg.UnalignRegForStore()
    writes, at = [], t.addr + 4 * start
    with rs.VEC_SCOPE():
        for r, c in zip(regs, counts, strict=True):
            Reg.StoreUnAlign(p, r, u, c)
            writes.append((at, r.numpy().tobytes()[: 4 * c]))
            at += 4 * c
        Reg.DataCopyUnAlignPost(p, u, 2)  # the legacy name
    assert p.addr == at + 8
    assert layout.snapshot().tobytes() == O.unaligned_store_oracle(before, writes)


def test_stream_protocol_errors(ub):
    t = ub.alloc(rs.float32, 512)
    t.set(np.arange(512, dtype=np.float32))
    reg = Reg.RegTensor(rs.float32)
    with rs.VEC_SCOPE():
        with pytest.raises(VfContextError, match=r"LoadUnAlign: ureg = an UnalignRegForLoad no LoadUnAlignPre filled"):
            Reg.LoadUnAlign(reg, Reg.UnalignRegForLoad(), t.GetPhyAddr() + 1)
        u = Reg.UnalignRegForLoad()
        Reg.LoadUnAlignPre(u, t.GetPhyAddr() + 1)
        Reg.LoadUnAlign(reg, u, t.GetPhyAddr() + 1)
        # vldus re-reads the block of an address off the stream (decisions/datamove.md#unaligned-load)
        Reg.LoadUnAlign(reg, u, t.GetPhyAddr() + 1)
        assert reg.numpy().tolist() == list(range(1, 65))
        areg = Reg.CreateAddrReg(rs.float32, 0, 64)
        Reg.LoadUnAlignPre(u, t.GetPhyAddr() + 1, areg)
        Reg.LoadUnAlign(reg, u, t.GetPhyAddr() + 1, areg, 0)
        with pytest.raises(VfContextError, match=r"LoadUnAlign: src_addr = UB byte 4, but ureg holds UB bytes \[256, 288\)"):
            Reg.LoadUnAlign(reg, u, t.GetPhyAddr() + 1, areg, 0)  # the AddrReg form (vldu) keeps the stream check
    assert reg.numpy().tolist() == list(range(1, 65))
    with pytest.raises(VfContextError, match=r"StoreUnAlign at UB byte 4: left UB bytes \[256, 260\) .*without StoreUnAlignPost"):
        with rs.VEC_SCOPE():
            us = Reg.UnalignRegForStore()
            Reg.StoreUnAlign(t.GetPhyAddr() + 1, reg, us, 64)
    with rs.VEC_SCOPE():
        us = Reg.UnalignRegForStore()
        p = t.GetPhyAddr() + 1
        Reg.StoreUnAlign(p, reg, us, 64)
        with pytest.raises(VfContextError, match=r"StoreUnAlign: dst_addr = UB byte 264, but ureg buffers UB bytes \[256, 260\)"):
            Reg.StoreUnAlign(p + 1, reg, us, 64)
        with pytest.raises(ParameterError, match=r"StoreUnAlign: post_update_stride = 65; accepted: at most 64"):
            Reg.StoreUnAlign(p, reg, us, 65)
        with pytest.raises(UnsupportedError, match=r"StoreUnAlignPost: post_mode = POST_MODE_NORMAL; accepted: POST_MODE_UPDATE"):
            Reg.StoreUnAlignPost(p, us, 0, post_mode=NORMAL)  # the page: POST_MODE_NORMAL "不支持"
        with pytest.raises(OutOfBoundsError, match=r"StoreUnAlign: dst_addr = UB bytes \[2044, 2052\)"):
            Reg.StoreUnAlign(t.GetPhyAddr() + 511, reg, Reg.UnalignRegForStore(), 2)
        Reg.StoreUnAlignPost(p, us, 0)


@pytest.mark.parametrize("dtype", [rs.uint64, rs.complex32], ids=lambda d: d.name)
def test_two_register_unaligned_streams(ub, dtype):
    """RegTraitNumTwo: only the post-update forms; 2 * VL per call, natural element order."""
    n = 512 // dtype.itemsize
    src, dst = ub.alloc(dtype, 3 * n), ub.alloc(dtype, 3 * n)
    raw = np.random.default_rng(5).integers(0, 256, 3 * n * dtype.itemsize, dtype=np.uint8)
    src.set(raw.view(dtype.np_dtype))
    dst.set(np.zeros(3 * n, dtype.np_dtype))
    reg = Reg.RegTensor(dtype, Reg.RegTraitNumTwo)
    s, d = src.GetPhyAddr() + 3, dst.GetPhyAddr() + 5
    with rs.VEC_SCOPE():
        u, w = Reg.UnalignRegForLoad(), Reg.UnalignRegForStore()
        Reg.LoadUnAlignPre(u, s)
        Reg.LoadUnAlign(reg, u, s, n)
        Reg.StoreUnAlign(d, reg, w, n)
        Reg.StoreUnAlignPost(d, w, 0)
        with pytest.raises(DTypeError, match=r"LoadUnAlign: trait = RegTraitNumTwo"):
            Reg.LoadUnAlign(reg, u, s)
        with pytest.raises(DTypeError, match=r"Load: trait = RegTraitNumTwo"):
            Reg.Load(reg, s)
    size = dtype.itemsize
    want = O.unaligned_load_oracle(raw.tobytes(), 3 * size)[:256] + bytes(raw[3 * size + 256 : 3 * size + 512])
    assert reg.numpy().tobytes() == want
    short = Reg.RegTensor(dtype, Reg.RegTraitNumTwo)
    q = src.GetPhyAddr() + 3
    # a stride under VL_T: the second vldus reads at q + stride, off the stream (decisions/datamove.md#unaligned-load)
    with rs.VEC_SCOPE():
        v = Reg.UnalignRegForLoad()
        Reg.LoadUnAlignPre(v, q)
        Reg.LoadUnAlign(short, v, q, n // 8)
    assert q.addr == src.GetPhyAddr().addr + (3 + n // 8) * size
    tmp1 = O.unaligned_load_oracle(raw.tobytes(), 3 * size)
    tmp2 = O.unaligned_load_oracle(raw.tobytes(), (3 + n // 8) * size)
    assert short.numpy().tobytes() == tmp1 + tmp2
    assert dst.numpy().tobytes() == O.unaligned_store_oracle(bytes(3 * n * size), [(5 * size, want)])


def test_load_and_store_any_address(ub):
    """Load = LoadUnAlignPre + LoadUnAlign; Store writes count (default VL / sizeof(T)) elements,
    flushed at once; a RegTraitNumTwo Store without count writes VL bytes (the first half)."""
    t = ub.alloc(rs.int16, 512)
    t.set(np.arange(512, dtype=np.int16))
    before = ub.storage.data.tobytes()
    reg = Reg.RegTensor(rs.int16)
    with rs.VEC_SCOPE():
        Reg.Load(reg, t.GetPhyAddr() + 3)
        Reg.Store(t.GetPhyAddr() + 301, reg)
        Reg.Store(t.GetPhyAddr() + 441, reg, 5)
        with pytest.raises(ParameterError, match=r"Store: count = 129; accepted: at most 128"):
            Reg.Store(t.GetPhyAddr(), reg, 129)
    want = O.unaligned_load_oracle(before, t.addr + 6)
    assert reg.numpy().tobytes() == want
    after = O.unaligned_store_oracle(before, [(t.addr + 602, want), (t.addr + 882, want[:10])])
    assert ub.storage.data.tobytes() == after
    w = ub.alloc(rs.uint64, 64)
    w.set(np.zeros(64, np.uint64))
    r2 = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint64), trait=Reg.RegTraitNumTwo)
    with rs.VEC_SCOPE():
        Reg.Store(w.GetPhyAddr(), r2)
    assert w.numpy().tolist() == list(range(32)) + [0] * 32


@pytest.mark.parametrize("dtype", [rs.half, rs.float32], ids=lambda d: d.name)
def test_mask_unaligned_store(ub, dtype):
    """MaskReg StoreUnAlign: b16 keeps bits 0, 2, … (16 B), b32 bits 0, 4, … (8 B); dst moves by that."""
    t = ub.alloc(rs.uint8, 96)
    t.set(np.zeros(96, np.uint8))
    before = ub.storage.data.tobytes()
    bits = np.random.default_rng(1).integers(0, 2, 256).astype(bool)
    m = Reg.MaskReg.from_bits(bits)
    per = 32 // dtype.itemsize
    p = t.GetPhyAddr().reinterpret(dtype) + per // 2
    with rs.VEC_SCOPE():
        u = Reg.UnalignRegForStore()
        for _ in range(3):
            Reg.StoreUnAlign(p, m, u)
        Reg.StoreUnAlignPost(p, u, 0)
        with pytest.raises(AlignmentError, match=rf"StoreUnAlign: dst_addr = UB byte {t.addr + dtype.itemsize}"):
            Reg.DataCopyUnAlign(t.GetPhyAddr().reinterpret(dtype) + 1, m, u)
    packed = O.mask_unaligned_bytes([int(b) for b in bits], dtype.itemsize)
    start = t.addr + per // 2 * dtype.itemsize
    assert p.addr == start + 3 * len(packed)
    want = O.unaligned_store_oracle(before, [(start + k * len(packed), packed) for k in range(3)])
    assert ub.storage.data.tobytes() == want


# --- Gather / GatherB / Scatter ---------------------------------------------------------------
GATHER_TRIPLES = [
    (rs.int16, rs.int8, rs.uint16),
    (rs.int16, rs.int16, rs.uint16),
    (rs.uint16, rs.uint8, rs.uint16),
    (rs.uint16, rs.uint16, rs.uint16),
    (rs.half, rs.half, rs.uint16),
    (rs.bfloat16, rs.bfloat16, rs.uint16),
    (rs.int32, rs.int32, rs.uint32),
    (rs.uint32, rs.uint32, rs.uint32),
    (rs.float32, rs.float32, rs.uint32),
    (rs.int64, rs.int64, rs.uint32),
    (rs.uint64, rs.uint64, rs.uint32),
    (rs.int64, rs.int64, rs.uint64),
    (rs.uint64, rs.uint64, rs.uint64),
]


@given(data=st.data(), triple=st.sampled_from(GATHER_TRIPLES), two=st.booleans())
def test_ub_gather(data, triple, two):
    dst_t, src_t, idx_t = triple
    trait = Reg.RegTraitNumTwo if two and dst_t.itemsize == 8 else Reg.RegTraitNumOne
    idx_trait = Reg.RegTraitNumTwo if trait is Reg.RegTraitNumTwo and idx_t.itemsize == 8 else Reg.RegTraitNumOne
    elems = 300
    layout = data.draw(rst.ub_layouts([(src_t, elems)]), "layout")
    t = layout.tensors[0]
    ub = layout.snapshot().tobytes()
    n = O.lanes_of(dst_t.name, trait is Reg.RegTraitNumTwo)
    m = 256 // idx_t.itemsize * idx_trait.REG_NUM
    idx = np.array(data.draw(st.lists(st.integers(0, elems - 1), min_size=m, max_size=m), "index"), idx_t.np_dtype)
    if idx_t.itemsize == 8:
        idx |= np.uint64(data.draw(st.integers(0, 7), "high word")) << np.uint64(32)  # the high 32 bits are ignored
    index = Reg.RegTensor.from_numpy(idx, trait=idx_trait)
    mask = data.draw(rst.masks(dst_t, trait, fill="noise"), "mask")
    dst = Reg.RegTensor(dst_t, trait)
    with rs.VEC_SCOPE():
        Reg.Gather(dst, t.GetPhyAddr(), index, mask)
    low = [int(v) & 0xFFFFFFFF for v in idx[:n]]
    want = O.gather_oracle(ub, t.addr, src_t.itemsize, dst_t.itemsize, low, list(mask.lanes(dst_t, trait)))
    O.assert_lanes(dst.numpy(), want, itemsize=dst_t.itemsize, what=f"Gather {triple} {trait!r}")


def test_gather_bounds_and_refusals(ub):
    t = ub.alloc(rs.half, 100)
    t.set(np.arange(100, dtype=np.float16))
    idx = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.uint16))
    dst = Reg.RegTensor(rs.half)
    with rs.VEC_SCOPE():
        Reg.DataCopyGather(dst, t.GetPhyAddr(), idx, Reg.UpdateMask(rs.half, rs.Ref(100)))  # lanes 100.. inactive
        with pytest.raises(OutOfBoundsError, match=r"Gather: src_addr = lane 100 at UB bytes"):
            Reg.Gather(dst, t.GetPhyAddr(), idx, Reg.CreateMask(rs.half))
        with pytest.raises(AlignmentError, match=r"Gather: src_addr = UB byte 2"):
            Reg.Gather(dst, t.GetPhyAddr() + 1, idx, Reg.CreateMask(rs.half))
        with pytest.raises(
            DTypeError, match=r"Gather: src_addr = UbPtr\[int8\] with dst RegTensor\[half\].*\(int16, int8\|int16, uint16\)"
        ):
            Reg.Gather(dst, ub.alloc(rs.int8, 32).GetPhyAddr(), idx, Reg.CreateMask(rs.half))
    assert dst.numpy()[:100].tolist() == list(range(100)) and not dst.numpy()[100:].any()


def test_gather_b(ub):
    """GatherB: block k = 32 B at base + index[k] bytes, under mask bit 4k; unselected blocks 0."""
    t = ub.alloc(rs.half, 1024)
    before_x = np.random.default_rng(2).random(1024).astype(np.float16)
    t.set(before_x)
    ub_bytes = ub.storage.data.tobytes()
    offsets = [32 * b for b in (3, 0, 63, 7, 7, 12, 1, 40)]
    index = Reg.RegTensor.from_numpy(np.array(offsets + [0] * 56, np.uint32))
    bits = np.zeros(256, bool)
    bits[[0, 4, 8, 12, 20, 28]] = True
    dst = Reg.RegTensor(rs.half)
    with rs.VEC_SCOPE():
        Reg.GatherB(dst, t.GetPhyAddr(), index, Reg.MaskReg.from_bits(bits))
        with pytest.raises(AlignmentError, match=r"GatherB: index = 16 in lane 0"):
            Reg.DataCopyGatherB(
                dst, t.GetPhyAddr(), Reg.RegTensor.from_numpy(np.full(64, 16, np.uint32)), Reg.CreateMask(rs.half)
            )
        with pytest.raises(OutOfBoundsError, match=r"GatherB: src_addr = lane 0 at UB bytes \[2048, 2080\)"):
            Reg.GatherB(dst, t.GetPhyAddr(), Reg.RegTensor.from_numpy(np.full(64, 2048, np.uint32)), Reg.CreateMask(rs.half))
    want = O.gatherb_oracle(ub_bytes, t.addr, offsets, [True, True, True, True, False, True, False, True])
    assert dst.numpy().tobytes() == want


@given(data=st.data(), dtype=st.sampled_from([rs.int8, rs.uint8, *B16, *B32, *B64]), two=st.booleans())
def test_scatter(data, dtype, two):
    size = dtype.itemsize
    trait = Reg.RegTraitNumTwo if two and size == 8 else Reg.RegTraitNumOne
    idx_t = rs.uint16 if size <= 2 else data.draw(st.sampled_from([rs.uint32, rs.uint64]) if size == 8 else st.just(rs.uint32))
    idx_trait = Reg.RegTraitNumTwo if trait is Reg.RegTraitNumTwo and idx_t is rs.uint64 else Reg.RegTraitNumOne
    n = 128 if size == 1 else O.lanes_of(dtype.name, trait is Reg.RegTraitNumTwo)
    elems = 2 * n
    layout = data.draw(rst.ub_layouts([(dtype, elems)]), "layout")
    t = layout.tensors[0]
    before = layout.snapshot().tobytes()
    m = 256 // idx_t.itemsize * idx_trait.REG_NUM
    perm = data.draw(st.permutations(range(elems)), "permutation")[:m]
    index = Reg.RegTensor.from_numpy(np.array(perm, idx_t.np_dtype), trait=idx_trait)
    src = data.draw(rst.registers(dtype, trait), "src")
    mask = data.draw(rst.masks(rs.uint16 if size == 1 else dtype, trait, fill="noise"), "mask")
    with rs.VEC_SCOPE():
        Reg.Scatter(t.GetPhyAddr(), src, index, mask)
    raw = src.numpy().view(np.uint8)
    values = [int(raw[2 * k]) for k in range(n)] if size == 1 else O.bits_of(src.numpy())
    active = mask.lanes(rs.uint16, Reg.RegTraitNumOne).tolist() if size == 1 else mask.lanes(dtype, trait).tolist()
    assert layout.snapshot().tobytes() == O.scatter_oracle(before, t.addr, size, values, perm[:n], active[:n])


def test_scatter_collisions_and_bounds_refused(ub):
    """Duplicate active indices with different values: the page leaves the winner undefined, so regsim
    refuses the call; with equal values (any winner writes the same), or on an inactive lane, it runs;
    an active index past the tensor names the lane."""
    t = ub.alloc(rs.half, 128)
    t.set(np.zeros(128, np.float16))
    src = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.float16))
    idx = np.arange(127, -1, -1).astype(np.uint16)
    idx[5] = idx[9]
    with rs.VEC_SCOPE():
        with pytest.raises(ParameterError, match=r"Scatter: index = 118 in active lanes \[5, 9\] with different values"):
            Reg.Scatter(t.GetPhyAddr(), src, Reg.RegTensor.from_numpy(idx), Reg.CreateMask(rs.half))
        assert not t.numpy().any()  # nothing written
        same = np.arange(128, dtype=np.float16)
        same[5] = same[9]  # lanes 5 and 9 both write 9.0 to element 118
        Reg.Scatter(t.GetPhyAddr(), Reg.RegTensor.from_numpy(same), Reg.RegTensor.from_numpy(idx), Reg.CreateMask(rs.half))
        assert t.numpy()[118] == 9 and t.numpy()[122] == 0  # (element 122, lane 5's own index, is not written)
        t.set(np.zeros(128, np.float16))
        bits = np.zeros(256, bool)
        bits[::2] = True
        bits[10] = False  # lane 5 inactive
        Reg.DataCopyScatter(t.GetPhyAddr(), src, Reg.RegTensor.from_numpy(idx), Reg.MaskReg.from_bits(bits))
        idx = np.arange(127, -1, -1).astype(np.uint16)
        idx[0] = 128
        with pytest.raises(OutOfBoundsError, match=r"Scatter: dst_addr = lane 0 at UB bytes"):
            Reg.Scatter(t.GetPhyAddr(), src, Reg.RegTensor.from_numpy(idx), Reg.CreateMask(rs.half))
    got = t.numpy()
    assert got[122] == 0 and got[118] == 9 and got[0] == 127


# --- aux-scalar access and uninitialised reads -------------------------------------------------
def test_aux_scalar_reads_and_writes_inside_a_vf(ub):
    """`p[i]` reads and writes one element of the pointer's tensor from scalar code in a VF."""
    t = ub.alloc(rs.half, 16)
    t.set(np.array([1.5, 2.5, 3.5, 4.5] + [0] * 12, np.float16))

    @rs.simd_vf
    def vf(p: rs.UbPtr[rs.half]) -> None:
        total = 0.0
        for i in range(4):
            total += p[i]
        p[15] = total
        with pytest.raises(OutOfBoundsError, match=r"UbPtr\[\]: index = UB bytes \[32, 34\)"):
            p[16]

    vf(t.GetPhyAddr())
    assert t.numpy()[15] == 12.0


def test_gathered_never_written_bytes_raise_when_used(ub):
    t = ub.alloc(rs.uint32, 64)
    t.set(np.arange(32, dtype=np.uint32))  # elements 32.. never written
    dst = Reg.RegTensor(rs.uint32)
    out = ub.alloc(rs.uint32, 64)
    with rs.VEC_SCOPE():
        Reg.Gather(dst, t.GetPhyAddr(), Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32)), Reg.CreateMask(rs.uint32))
        with pytest.raises(UninitializedReadError, match="lane 32"):
            Reg.StoreAlign(out.GetPhyAddr(), dst, Reg.CreateMask(rs.uint32))


def test_pack_store_reads_only_the_lanes_it_stores(ub):
    """A register half of whose lanes were never written packs fine under a mask selecting the
    written half; selecting an unwritten lane raises naming it."""
    t = ub.alloc(rs.uint8, 128)
    src = ub.alloc(rs.uint16, 128)
    src.set(np.arange(64, dtype=np.uint16))  # lanes 64.. of the loaded register: never written
    reg = Reg.RegTensor(rs.uint16)
    with rs.VEC_SCOPE():
        Reg.LoadAlign(reg, src.GetPhyAddr())
        p = t.GetPhyAddr().reinterpret(rs.uint16)
        Reg.StoreAlign(p, reg, Reg.UpdateMask(rs.uint16, rs.Ref(64)), dist=Reg.StoreDist.DIST_PACK_B16)
        with pytest.raises(UninitializedReadError, match="StoreAlign: src_reg lane 64"):
            Reg.StoreAlign(p, reg, Reg.CreateMask(rs.uint16), dist=Reg.StoreDist.DIST_PACK_B16)
    assert t.numpy()[:64].tolist() == list(range(64))


def test_trace_records_gather_and_scatter_ranges(ub):
    t = ub.alloc(rs.uint32, 128)
    t.set(np.arange(128, dtype=np.uint32))
    idx = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32) + 10)
    dst = Reg.RegTensor(rs.uint32)
    with rs.trace() as tr, rs.VEC_SCOPE():
        Reg.Gather(dst, t.GetPhyAddr(), idx, Reg.CreateMask(rs.uint32))
        Reg.Scatter(t.GetPhyAddr(), dst, idx, Reg.CreateMask(rs.uint32))
    gather, scatter = (r for r in tr.records if r.api in ("Gather/ub", "Scatter"))
    assert gather.reads == [(t.addr + 40, t.addr + 296)] and scatter.writes == [(t.addr + 40, t.addr + 296)]
    assert O.gather_oracle(ub.storage.data.tobytes(), t.addr, 4, 4, list(range(10, 74)), [True] * 64) == dst.numpy().tolist()


ALIGNED = sorted(d for d, v in {**LOAD_DISTS, **STORE_DISTS}.items() if v[1] > 1) + sorted(DUAL) + sorted(INTLV)


@pytest.mark.parametrize("dist", ALIGNED)
def test_every_distribution_refuses_a_misaligned_address_and_writes_nothing(ub, dist):
    """An address off each distribution's alignment (b8 ones aligned to 1 byte excepted) is an AlignmentError
    naming the distribution, for loads and stores; the refused call changes no UB byte, register
    or pointer."""
    table = {**LOAD_DISTS, **STORE_DISTS}
    align = table[dist][1] if dist in table else 32
    widths = table[dist][2] if dist in table else (DUAL | INTLV)[dist]
    dtype = BY_WIDTH[widths[0]][0]
    t = ub.alloc(dtype, 1024)
    t.set(np.zeros(1024, dtype.np_dtype))
    before = ub.storage.data.copy()
    step = max(1, align // dtype.itemsize)
    p = t.GetPhyAddr() + (step if align == dtype.itemsize else step // 2 or 1)
    if align == dtype.itemsize:  # BRC / FIRST_ELEMENT: any element is aligned; a reinterpret makes one that is not
        p = (t.GetPhyAddr().reinterpret(rs.uint8) + 1).reinterpret(dtype)
    r0, r1 = Reg.RegTensor.from_numpy(np.zeros(256 // dtype.itemsize, dtype.np_dtype)), Reg.RegTensor(dtype)
    keep = r0.numpy().tobytes()
    with rs.VEC_SCOPE(), pytest.raises(AlignmentError, match=rf"(Load|Store)Align: (src|dst)_addr = UB byte .*\({dist}\)"):
        mask = Reg.CreateMask(dtype)
        if dist in LOAD_DISTS:
            Reg.LoadAlign(r0, p, dist=getattr(Reg.LoadDist, dist))
        elif dist in DUAL:
            Reg.LoadAlign(r0, r1, p, dist=getattr(Reg.LoadDist, dist))
        elif dist in STORE_DISTS:
            Reg.StoreAlign(p, r0, mask, dist=getattr(Reg.StoreDist, dist))
        else:
            Reg.StoreAlign(p, r0, r0, mask, dist=getattr(Reg.StoreDist, dist))
    assert np.array_equal(ub.storage.data, before) and r0.numpy().tobytes() == keep


# --- both loop modes ------------------------------------------------------------------------------
@rs.simd_vf
def _dist_loop_vf(dst: rs.UbPtr[rs.uint16], src: rs.UbPtr[rs.uint16], repeat: int, pack: bool) -> None:
    a, b, c = Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.uint16)
    full = Reg.CreateMask(rs.uint16)
    for i in range(repeat):
        Reg.LoadAlign(a, src + i * 64, dist=Reg.LoadDist.DIST_US_B16)
        Reg.LoadAlign(b, c, src + i * 256, dist=Reg.LoadDist.DIST_DINTLV_B16)
        Reg.Add(a, a, b, full)
        Reg.StoreAlign(dst + i * 128, a, full)
        if pack:
            Reg.StoreAlign(dst + 128 * repeat + i * 64, c, full, dist=Reg.StoreDist.DIST_PACK_B16)


@pytest.mark.parametrize("pack", [False, True])
@pytest.mark.parametrize("mode", ["sequential", "auto", "batched"])
def test_distributions_in_a_vf_loop_give_the_same_bits_in_every_loop_mode(ub, mode, pack):
    """US and DINTLV loads run batched; a PACK store makes a forced-batched loop a VfContextError
    and an automatic one run in order; every mode that runs gives the oracle's bytes."""
    repeat = 4
    src, dst = ub.alloc(rs.uint16, 256 * repeat), ub.alloc(rs.uint16, 192 * repeat)
    src.set(np.random.default_rng(3).integers(0, 2**16, 256 * repeat).astype(np.uint16))
    dst.set(np.zeros(192 * repeat, np.uint16))
    before = ub.storage.data.tobytes()
    with rs.configure(loops=mode):
        if mode == "batched" and pack:
            with pytest.raises(VfContextError, match="StoreAlign with DIST_PACK_B16 runs in order only"):
                _dist_loop_vf(dst.GetPhyAddr(), src.GetPhyAddr(), repeat, pack)
            return
        _dist_loop_vf(dst.GetPhyAddr(), src.GetPhyAddr(), repeat, pack)
    s = src.addr
    want = before
    for i in range(repeat):
        us = np.frombuffer(O.load_dist_oracle(before, s + 128 * i, "DIST_US_B16"), np.uint16)
        dual = np.frombuffer(O.load_dist_oracle(before, s + 512 * i, "DIST_DINTLV_B16"), np.uint16)
        total = (us.astype(np.uint32) + dual[:128]) % 2**16
        want = O.unaligned_store_oracle(want, [(dst.addr + 256 * i, total.astype(np.uint16).tobytes())])
        if pack:
            want = O.store_dist_oracle(want, dst.addr + 256 * repeat + 128 * i, "DIST_PACK_B16", dual[128:].tobytes(), [1] * 256)
    assert ub.storage.data.tobytes() == want
