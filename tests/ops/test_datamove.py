"""LoadAlign / StoreAlign (the Ascend C `LoadAlign` and `StoreAlign` pages): DIST_NORM register loads and stores in the plain,
POST_MODE_UPDATE and AddrReg forms, masked stores, RegTraitNumTwo round trips, and MaskReg
loads/stores with MaskDist NORM / US / DS / PACK, against byte-level oracles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim._src.model.dtypes import ALL_DTYPES
from regsim.testing import reference as O

UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
PAIRS = [(d, Reg.RegTraitNumOne) for d in ALL_DTYPES] + [
    (d, Reg.RegTraitNumTwo) for d in (rs.int64, rs.uint64, rs.complex64, rs.complex32)
]
FULL = Reg.MaskReg.from_bits(np.ones(256, bool))


def _geometry(dtype, trait):
    """(lanes per register, bytes per register, elements per 32-byte block)."""
    n = O.lanes_of(dtype.name, trait is Reg.RegTraitNumTwo)
    return n, n * dtype.itemsize, 32 // dtype.itemsize


def _reg_bits(reg) -> list[int]:
    return O.bits_of(reg.numpy())


# --- register loads ----------------------------------------------------------------------------
@given(data=st.data(), pair=st.sampled_from(PAIRS))
def test_load_forms_match_ub_bytes(data, pair):
    """Plain, POST_MODE_UPDATE and AddrReg loads read whole registers at the right address."""
    dtype, trait = pair
    n, _, blk = _geometry(dtype, trait)
    layout = data.draw(rst.ub_layouts([(dtype, 3 * n + blk)]), "layout")
    t = layout.tensors[0]
    ub_bytes = layout.snapshot().tobytes()
    k = data.draw(st.integers(0, 2 * n // blk), "block offset")
    base = t.GetPhyAddr()
    r_plain, r_post, r_areg = (Reg.RegTensor(dtype, trait) for _ in range(3))
    p = base + 0
    alias = p
    keep = p.copy()
    stride = data.draw(st.integers(-4, 8), "stride blocks") * blk
    with rs.VEC_SCOPE():
        Reg.LoadAlign(r_plain, base + k * blk)
        Reg.LoadAlign(r_post, p, stride, post_mode=UPDATE)
        i0, s0 = data.draw(st.integers(0, k), "index0"), blk
        rest = k - i0
        areg = Reg.CreateAddrReg(dtype, i0, s0, rest, blk) if rest else Reg.CreateAddrReg(dtype, i0, s0)
        assert areg.offset == O.create_addr_reg_oracle(i0, s0, *((rest, blk) if rest else ()))
        if trait is Reg.RegTraitNumTwo:  # the library static_asserts one register with an AddrReg
            with pytest.raises(
                rs.errors.DTypeError, match=r"LoadAlign: offset = an AddrReg with RegTensor\[\w+\] \(RegTraitNumTwo\)"
            ):
                Reg.LoadAlign(r_areg, base, areg)
            r_areg = r_plain
        else:
            Reg.LoadAlign(r_areg, base, areg)
    at = t.addr + k * blk * dtype.itemsize
    want = O.load_oracle(ub_bytes, at, dtype.itemsize, n)
    O.assert_lanes(r_plain.numpy(), want, what=f"LoadAlign plain {dtype!r} {trait!r} at UB byte {at}")
    O.assert_lanes(r_areg.numpy(), want, what="LoadAlign AddrReg")
    O.assert_lanes(r_post.numpy(), O.load_oracle(ub_bytes, t.addr, dtype.itemsize, n), what="LoadAlign POST_MODE_UPDATE")
    assert p.addr == t.addr + stride * dtype.itemsize, "post-update advances by stride elements"
    assert alias.addr == p.addr, "q = p aliases one pointer"
    assert keep.addr == t.addr and base.addr == t.addr, "copies and the base do not move"
    assert layout.snapshot().tobytes() == ub_bytes, "a load writes no UB byte"


@pytest.mark.parametrize("dtype", [rs.int64, rs.uint64, rs.complex64, rs.complex32], ids=lambda d: d.name)
def test_trait_two_register_layout(dtype):
    """A RegTraitNumTwo load reads 512 B in natural order; the first register holds the low
    halves (b64: low 32-bit words; complex: real parts), the second the high halves."""
    ub = rs.UnifiedBuffer()
    n, nbytes, _ = _geometry(dtype, Reg.RegTraitNumTwo)
    src, dst = ub.alloc(dtype, n), ub.alloc(dtype, n)
    raw = np.random.default_rng(7).integers(0, 256, nbytes, dtype=np.uint8)
    src.set(raw.view(dtype.np_dtype))
    dst.set(np.zeros(n, dtype.np_dtype))
    reg = Reg.RegTensor(dtype, Reg.RegTraitNumTwo)
    half = np.dtype(f"u{dtype.itemsize // 2}")
    with rs.VEC_SCOPE():
        Reg.LoadAlign(reg, src.GetPhyAddr())
        Reg.StoreAlign(dst.GetPhyAddr(), reg, Reg.CreateMask(dtype, trait=Reg.RegTraitNumTwo))
    O.assert_lanes(reg.numpy(), O.load_oracle(raw.tobytes(), 0, dtype.itemsize, n), what="TraitTwo lanes")
    words = raw.view(half).reshape(n, 2)
    first = reg.reinterpret(rs.uint32 if half.itemsize == 4 else rs.uint16)
    O.assert_lanes(first.numpy(), words[:, 0], what="TraitTwo first register = low halves")
    both = reg.reinterpret(dtype, trait=Reg.RegTraitNumTwo)
    O.assert_lanes(both.numpy(), reg.numpy(), what="TraitTwo reinterpret to itself")
    assert dst.numpy().tobytes() == raw.tobytes(), "store writes the 512 B back in natural order"


# --- register stores ---------------------------------------------------------------------------
@settings(max_examples=max(20, settings.default.max_examples))
@given(data=st.data(), pair=st.sampled_from(PAIRS), form=st.sampled_from(["plain", "post", "areg"]))
def test_masked_store_forms(data, pair, form):
    """Only active lanes are written, at the right address; every other UB byte is untouched;
    POST_MODE_UPDATE then advances the pointer by stride elements."""
    dtype, trait = pair
    n, _, blk = _geometry(dtype, trait)
    layout = data.draw(rst.ub_layouts([(dtype, 2 * n + blk), (rs.uint8, 64)]), "layout")
    t = layout.tensors[0]
    before = layout.snapshot().tobytes()
    reg = data.draw(rst.registers(dtype, trait), "src")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    k = data.draw(st.integers(0, n // blk), "block offset")
    p = t.GetPhyAddr()
    stride = data.draw(st.sampled_from([0, blk, n // 2, n, 2 * n, 3 * n]), "stride")
    with rs.VEC_SCOPE():
        if form == "plain":
            Reg.StoreAlign(p + k * blk, reg, mask)
        elif form == "areg" and trait is Reg.RegTraitNumTwo:  # one register only with an AddrReg
            with pytest.raises(rs.errors.DTypeError, match=r"StoreAlign: offset = an AddrReg"):
                Reg.StoreAlign(p, reg, Reg.CreateAddrReg(dtype, k, blk), mask)
            assert layout.snapshot().tobytes() == before, "a refused store writes nothing"
            return
        elif form == "areg":
            Reg.StoreAlign(p, reg, Reg.CreateAddrReg(dtype, k, blk), mask)
        else:
            p = p + k * blk
            Reg.StoreAlign(p, reg, stride, mask, post_mode=UPDATE)
    at = t.addr + k * blk * dtype.itemsize
    if form == "post":
        assert p.addr == at + stride * dtype.itemsize
    values, active = _reg_bits(reg), list(mask.lanes(dtype, trait))
    if form == "post" and trait is Reg.RegTraitNumTwo and stride < n // 2:
        # docs/decisions/datamove.md#two-register-load-store: two post-updating stores, the second half min(stride, VL_T/2) on
        h = n // 2
        want = O.store_oracle(before, at, dtype.itemsize, values[:h], active[:h])
        want = O.store_oracle(want, at + stride * dtype.itemsize, dtype.itemsize, values[h:], active[h:])
    else:
        want = O.store_oracle(before, at, dtype.itemsize, values, active)
    got = layout.snapshot().tobytes()
    if got != want:
        diff = [i for i in range(len(got)) if got[i] != want[i]]
        raise AssertionError(f"StoreAlign {form} {dtype!r} {trait!r}: {len(diff)} UB bytes differ, first at {diff[:8]}")


@pytest.mark.parametrize("dtype", [rs.int64, rs.complex32], ids=lambda d: d.name)
def test_trait_two_post_update_store_with_full_stride_is_natural(dtype):
    """docs/decisions/datamove.md#two-register-load-store: a RegTraitNumTwo post-update store with stride >= VL_T/2
    elements writes the natural layout; the pointer advances by stride elements."""
    ub = rs.UnifiedBuffer()
    n, nbytes, _ = _geometry(dtype, Reg.RegTraitNumTwo)
    dst = ub.alloc(dtype, 2 * n)
    dst.set(np.zeros(2 * n, dtype.np_dtype))
    vals = np.random.default_rng(3).integers(0, 256, nbytes, dtype=np.uint8).view(dtype.np_dtype)
    reg = Reg.RegTensor.from_numpy(vals, dtype=dtype, trait=Reg.RegTraitNumTwo)
    p = dst.GetPhyAddr()
    with rs.VEC_SCOPE():
        Reg.StoreAlign(p, reg, n, Reg.CreateMask(dtype, trait=Reg.RegTraitNumTwo), post_mode=UPDATE)
    assert p.addr == dst.addr + nbytes
    assert dst.numpy()[:n].tobytes() == vals.tobytes()


def test_store_dist_norm_spellings():
    """StoreDist.DIST_NORM and the explicit-width DIST_NORM_B32 store a b32 register alike."""
    ub = rs.UnifiedBuffer()
    a, b = ub.alloc(rs.float32, 64), ub.alloc(rs.float32, 64)
    reg = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.float32))
    with rs.VEC_SCOPE():
        Reg.StoreAlign(a.GetPhyAddr(), reg, FULL, dist=Reg.StoreDist.DIST_NORM)
        Reg.StoreAlign(b.GetPhyAddr(), reg, FULL, dist=Reg.StoreDist.DIST_NORM_B32)
        Reg.DataCopy(a.GetPhyAddr(), reg, FULL)  # the legacy name, pointer first = a store
        back = Reg.RegTensor(rs.float32)
        Reg.DataCopy(back, b.GetPhyAddr())  # register first = a load
    assert a.numpy().tobytes() == b.numpy().tobytes() == reg.numpy().tobytes() == back.numpy().tobytes()


# --- MaskReg loads and stores ------------------------------------------------------------------
MASK_LOADS = {"DIST_NORM": (32, 32), "DIST_US": (16, 16), "DIST_DS": (64, 32)}  # bytes read, alignment


@given(data=st.data(), dist=st.sampled_from(sorted(MASK_LOADS)), form=st.sampled_from(["plain", "post", "areg"]))
def test_mask_load(data, dist, form):
    """NORM: 32 B; US: 16 B, each bit doubled; DS: 64 B, even bits kept; bit k = byte k // 8,
    bit k % 8. Post-update offsets are bytes; AddrReg offsets elements of its T."""
    nbytes, align = MASK_LOADS[dist]
    layout = data.draw(rst.ub_layouts([(rs.uint8, 256)]), "layout")
    t = layout.tensors[0]
    ub_bytes = layout.snapshot().tobytes()
    offset = data.draw(st.integers(0, (256 - nbytes) // align), "offset") * align
    ptr_type = data.draw(st.sampled_from([rs.uint8, rs.uint16, rs.uint32, rs.float32]), "pointer type")
    p = t.GetPhyAddr().reinterpret(ptr_type)
    mask = Reg.MaskReg()
    post = data.draw(st.integers(-64, 64), "post bytes")
    with rs.VEC_SCOPE():
        d = getattr(Reg.MaskDist, dist)
        if form == "plain":
            Reg.LoadAlign(mask, p + offset // ptr_type.itemsize, dist=d)
        elif form == "areg":
            Reg.LoadAlign(mask, p, Reg.CreateAddrReg(ptr_type, offset // ptr_type.itemsize, 1), dist=d)
        else:
            p = p + offset // ptr_type.itemsize
            Reg.LoadAlign(mask, p, post, post_mode=UPDATE, dist=d)
    want = O.mask_load_oracle(ub_bytes, t.addr + offset, dist)
    O.assert_lanes(mask.bits().astype(np.uint8), want, itemsize=1, what=f"mask LoadAlign {dist} {form} at +{offset}")
    if form == "post":
        assert p.addr == t.addr + offset + post, "mask post-update offsets are bytes"


@given(data=st.data(), dist=st.sampled_from(["DIST_NORM", "DIST_PACK"]), form=st.sampled_from(["plain", "post", "areg"]))
def test_mask_store(data, dist, form):
    """NORM writes 32 B of bits; PACK writes the even bits as 16 B; nothing else changes."""
    nbytes = 32 if dist == "DIST_NORM" else 16
    layout = data.draw(rst.ub_layouts([(rs.uint8, 128), (rs.uint8, 32)]), "layout")
    t = layout.tensors[0]
    before = layout.snapshot().tobytes()
    mask = data.draw(rst.masks(), "mask")
    offset = data.draw(st.integers(0, (128 - nbytes) // nbytes), "offset") * nbytes
    p = t.GetPhyAddr().reinterpret(rs.uint32)
    post = data.draw(st.integers(0, 64), "post bytes")
    with rs.VEC_SCOPE():
        d = getattr(Reg.MaskDist, dist)
        if form == "plain":
            Reg.StoreAlign(p + offset // 4, mask, dist=d)
        elif form == "areg":
            Reg.StoreAlign(p, mask, Reg.CreateAddrReg(rs.uint32, offset // 4, 1), dist=d)
        else:
            p = p + offset // 4
            Reg.StoreAlign(p, mask, post, post_mode=UPDATE, dist=d)
    want = O.mask_store_oracle(before, t.addr + offset, list(mask.bits().astype(int)), dist)
    assert layout.snapshot().tobytes() == want, f"mask StoreAlign {dist} {form} at +{offset}"
    if form == "post":
        assert p.addr == t.addr + offset + post


def test_mask_dist_one_is_us_for_a_load_and_pack_for_a_store():
    """MaskDist.DIST_US and DIST_PACK are both 1: a load doubles bits, a store packs them."""
    assert Reg.MaskDist.DIST_US is Reg.MaskDist.DIST_PACK
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint8, 64)
    t.set(np.array([0b10110001] + [0] * 63, np.uint8))
    m = Reg.MaskReg()
    with rs.VEC_SCOPE():
        Reg.LoadAlign(m, t.GetPhyAddr(), dist=Reg.MaskDist.DIST_US)
        assert list(np.flatnonzero(m.bits())) == [0, 1, 8, 9, 10, 11, 14, 15]
        Reg.StoreAlign(t.GetPhyAddr() + 32, m, dist=Reg.MaskDist.DIST_PACK)
    assert t.numpy()[32:48].tolist() == [0b10110001] + [0] * 15
    with (
        rs.VEC_SCOPE(),
        pytest.raises(rs.errors.ParameterError, match=r"StoreAlign: dist = DIST_DS; accepted: DIST_NORM, DIST_PACK "),
    ):
        Reg.StoreAlign(t.GetPhyAddr(), m, dist=Reg.MaskDist.DIST_DS)
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.AlignmentError, match=r"StoreAlign: dst_addr = .*\(DIST_PACK\)"):
        Reg.StoreAlign(t.GetPhyAddr() + 8, m, dist=Reg.MaskDist.DIST_PACK)  # a store names value 1 PACK


def test_mask_roundtrip_golden():
    """X/reg_load_store_mask scenario 1: src bytes [0]=1, [31]=1 select uint8 elements 0 and 248."""
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.uint8, 32)
    src = np.zeros(32, np.uint8)
    src[0] = src[31] = 1
    t.set(src)
    m = Reg.MaskReg()
    with rs.VEC_SCOPE():
        Reg.LoadAlign(m, t.GetPhyAddr())
    assert list(np.flatnonzero(m.lanes(rs.uint8))) == [0, 248]


def test_mask_loaded_from_partly_written_ub_is_usable_on_its_written_lanes(ub):
    """The written flags travel per bit: a mask loaded from 32 bytes of which only the first 16
    were written governs uint32 lanes 0-31 (bits 0-127) and raises for lanes 32-63."""
    from regsim.errors import UninitializedReadError

    t = ub.alloc(rs.uint8, 32)
    t.set(np.full(16, 0xFF, np.uint8))  # bytes 0-15 written: bits 0-127
    a = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.uint32))
    dst = Reg.RegTensor(rs.uint32)
    with rs.VEC_SCOPE():
        mask = Reg.MaskReg()
        Reg.LoadAlign(mask, t.GetPhyAddr())
        with pytest.raises(UninitializedReadError, match="lane 32"):
            Reg.Add(dst, a, a, mask)
        Reg.Add(dst, a, a, Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.H))
    assert mask.lanes(rs.uint32)[:32].all()
    with rs.configure(check_uninitialized=False), rs.VEC_SCOPE():
        Reg.Add(dst, a, a, mask)  # never-written bytes read 0: lanes 32-63 inactive
    O.assert_lanes(dst.numpy(), [2 * i if i < 32 else 0 for i in range(64)], itemsize=4, what="Add under the loaded mask")
