"""Fill, index, rearrange, compress, histogram and move (the Ascend C `Duplicate`, `Arange`,
`Gather`, `Interleave`, `DeInterleave`, `Pack`, `UnPack`, `Squeeze`, `Unsqueeze`, `Histograms`
and `Move` pages, RegTensor and MaskReg forms) against the lane oracles, with the legacy names."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.testing import reference as O

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
ZEROING, MERGING = Reg.MaskMergeMode.ZEROING, Reg.MaskMergeMode.MERGING
PER_CASE = settings(max_examples=max(8, settings.default.max_examples // 4))

#: the pages' dtype lists, written independently of the op specs
DUPLICATE = [
    rs.bool_, rs.int8, rs.uint8, rs.fp4x2_e2m1, rs.fp4x2_e1m2, rs.hifloat8, rs.fp8_e8m0, rs.fp8_e5m2, rs.fp8_e4m3fn,
    rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32, rs.complex32, rs.int64, rs.uint64,
    rs.complex64,
]  # fmt: skip
TWO_REG = ("int64", "uint64", "complex32", "complex64")
DUP_CASES = [(d, ONE) for d in DUPLICATE] + [(d, TWO) for d in DUPLICATE if d.name in TWO_REG]
RELAYOUT = [
    rs.bool_, rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.bfloat16, rs.int32, rs.uint32, rs.float32,
]  # fmt: skip
RELAYOUT_CASES = [(d, ONE) for d in RELAYOUT] + [(rs.int64, TWO), (rs.uint64, TWO)]
MOVE_CASES = [*RELAYOUT_CASES, (rs.int64, ONE), (rs.uint64, ONE)]
ARANGE = [rs.int8, rs.int16, rs.int32, rs.half, rs.float32, rs.int64]
SQUEEZE = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.int32, rs.uint32, rs.float32]
UNSQUEEZE = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.int32, rs.uint32]
GATHER_DATA = {
    1: [rs.int8, rs.uint8, rs.bool_, rs.fp8_e4m3fn],
    2: [rs.int16, rs.uint16, rs.half, rs.bfloat16],
    4: [rs.int32, rs.uint32, rs.float32],
}
INDEX = {1: rs.uint8, 2: rs.uint16, 4: rs.uint32}


def _ids(cases: list[tuple[Any, Any]]) -> list[str]:
    return [f"{d.name}-{t!r}" for d, t in cases]


def bits(reg: Reg.RegTensor[Any]) -> list[int]:
    return O.bits_of(reg.numpy())


def full(dtype: Any, trait: Any = ONE) -> Reg.MaskReg:
    return Reg.MaskReg.from_lanes(dtype, np.ones(O.lanes_of(dtype.name, trait is TWO), bool), trait)


def run(f: Any, *args: Any, **kwargs: Any) -> None:
    with rs.VEC_SCOPE():
        f(*args, **kwargs)


# --- Duplicate ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "trait"), DUP_CASES, ids=_ids(DUP_CASES))
@PER_CASE
@given(data=st.data())
def test_duplicate_all_three_forms(dtype, trait, data):
    """Scalar (every lane), scalar with a mask (ZEROING / MERGING on a dirty dst) and register
    lane 0 with a mask: bit-exact against the oracle; the mask read only at the lane's bit."""
    src = data.draw(rst.registers(dtype, trait), "src")
    value = src.numpy()[data.draw(st.integers(0, O.lanes_of(dtype.name, trait is TWO) - 1), "lane")]
    old = data.draw(rst.registers(dtype, trait), "dst")
    old_bits = bits(old)
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    active = list(mask.lanes(dtype, trait))
    mode = data.draw(st.sampled_from([ZEROING, MERGING]), "mode")
    size = dtype.itemsize
    value_bits = O.bits_of(np.array([value]))[0]
    n = len(old_bits)

    plain = Reg.RegTensor(dtype, trait)
    run(Reg.Duplicate, plain, value)
    O.assert_lanes(plain.numpy(), O.duplicate_oracle(value_bits, n), itemsize=size, what=f"Duplicate {dtype!r}")

    run(Reg.Duplicate, old, value, mask, mode=mode)
    want = O.duplicate_oracle(value_bits, n, active, old_bits if mode is MERGING else None)
    O.assert_lanes(old.numpy(), want, itemsize=size, what=f"Duplicate masked {mode.name}")

    dst = Reg.RegTensor.from_numpy(
        np.array(O.bits_of(src.numpy()[::-1]), f"u{size}").view(dtype.np_dtype), dtype=dtype, trait=trait
    )
    before = bits(dst)
    run(Reg.Duplicate, dst, src, mask, mode=mode)
    want = O.duplicate_reg_oracle(bits(src), active, before if mode is MERGING else None)
    O.assert_lanes(dst.numpy(), want, itemsize=size, what=f"Duplicate(dst, src, mask) {mode.name}")


def test_duplicate_from_a_register_reads_only_its_lowest_lane():
    """Duplicate(dst, src, mask) reads src[0] alone: src lanes past 0 never written (a DIST_FIRST_ELEMENT_B32
    store loaded back) are no uninitialised read; an unwritten lane 0 is."""
    ub = rs.UnifiedBuffer()
    t = ub.alloc(rs.float32, 64)
    with rs.VEC_SCOPE():
        full = Reg.CreateMask(rs.float32)
        one = Reg.RegTensor.from_numpy(np.full(64, 2.5, np.float32))
        Reg.StoreAlign(
            t.GetPhyAddr(),
            one,
            Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.VL1),
            dist=Reg.StoreDist.DIST_FIRST_ELEMENT_B32,
        )
        src, dst = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
        Reg.LoadAlign(src, t.GetPhyAddr())
        Reg.Duplicate(dst, src, full)
    O.assert_lanes(dst.numpy(), O.duplicate_reg_oracle(bits(src), [True] * 64, None), itemsize=4, what="Duplicate")
    with pytest.raises(rs.errors.UninitializedReadError), rs.VEC_SCOPE():
        Reg.Duplicate(Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32), Reg.CreateMask(rs.float32))


def test_duplicate_scalar_conversion_and_errors():
    """float(3.14) rounds once to float32 (0x4048F5C3); an int must fit the type; HIGHEST is refused."""
    dst = Reg.RegTensor(rs.float32)
    run(Reg.Duplicate, dst, 3.14)
    assert set(O.bits_of(dst.numpy())) == {0x4048F5C3}
    d8 = Reg.RegTensor(rs.int8)
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.ParameterError, match="Duplicate"):
        Reg.Duplicate(d8, 200)
    src = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.float32))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.UnsupportedError, match="pos"):
        Reg.Duplicate(dst, src, full(rs.float32), pos=Reg.HighLowPart.HIGHEST)
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError):
        Reg.Duplicate(Reg.RegTensor(rs.int4x2), 1)


def _near_halfway(dtype: Any) -> st.SearchStrategy[float]:
    """Doubles just off the midpoint of two neighbours of `dtype` (where rounding twice, through a wider type, errs)."""

    def make(code: int, nudge: int) -> float:
        lo = float(np.array([code], f"u{dtype.itemsize}").view(dtype.np_dtype)[0])
        with np.errstate(over="ignore"):  # (the greatest finite one's neighbour: infinity, as meant)
            hi = float(np.nextafter(dtype.np_dtype.type(lo), dtype.np_dtype.type(np.inf)))
        return float(np.nextafter(np.float64((lo + hi) / 2), np.inf if nudge > 0 else -np.inf)) if nudge else (lo + hi) / 2

    top = 0x7BFF if dtype is rs.half else 0x7F7FFFFE
    return st.builds(make, st.integers(0, top), st.integers(-1, 1))


@pytest.mark.parametrize("dtype", [rs.half, rs.float32], ids=lambda d: d.name)
@settings(max_examples=300)
@given(data=st.data())
def test_duplicate_rounds_a_python_number_once(dtype: Any, data: Any) -> None:
    """A Python float or int scalar is rounded once to nearest-even into the element type (subnormals, overflow to
    ±inf, ties and near-ties, a zero keeping its sign), against the exact rational rounding of the oracle; every lane
    holds it."""
    value = data.draw(
        st.floats(allow_nan=False) | st.integers(-(2**53), 2**53) | st.floats(-1e-36, 1e-36) | _near_halfway(dtype), "value"
    )
    dst = Reg.RegTensor(dtype)
    run(Reg.Duplicate, dst, value)
    if value == 0 or math.isinf(value):
        want = value * 1.0  # (a zero keeps the float's sign)
    else:
        want = O.round_exact(Fraction(value), dtype.name)
    got = dst.numpy()
    assert np.array_equal(got.view(f"u{dtype.itemsize}"), np.full(got.size, want, dtype.np_dtype).view(f"u{dtype.itemsize}"))


# --- Arange -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("decrease", [False, True], ids=["INCREASE", "DECREASE"])
@pytest.mark.parametrize("dtype", ARANGE, ids=lambda d: d.name)
@PER_CASE
@given(data=st.data())
def test_arange(dtype, decrease, data):
    """start + i or start + (N - 1 - i); integers wrap, floats rounded once."""
    start = data.draw(rst.registers(dtype, allow_nan=False), "start").numpy()[0]
    dst = Reg.RegTensor(dtype)
    order = Reg.IndexOrder.DECREASE_ORDER if decrease else Reg.IndexOrder.INCREASE_ORDER
    run(Reg.Arange, dst, start, order=order)
    want = O.arange_oracle(dtype.name, start, decrease)
    O.assert_lanes(
        dst.numpy(),
        want if dtype.name not in O.FLOATS else np.array(want, dtype.np_dtype),
        itemsize=dtype.itemsize,
        what="Arange",
    )


def test_arange_documented_boundaries():
    """int8 from 127: 127, -128 … 126 (the boundary table); half from 65504: 16 lanes of 65504
    then inf; int16 DECREASE from 10 ends at 10 ("{137, 136, …, 10}")."""
    d8, d16, dh = Reg.RegTensor(rs.int8), Reg.RegTensor(rs.int16), Reg.RegTensor(rs.half)
    with rs.VEC_SCOPE():
        Reg.Arange(d8, 127)
        Reg.Arange(d16, 10, order=Reg.IndexOrder.DECREASE_ORDER)
        Reg.Arange(dh, 65504.0)
    assert d8.numpy()[0] == 127 and d8.numpy()[1] == -128 and d8.numpy()[-1] == 126
    assert d16.numpy()[0] == 137 and d16.numpy()[-1] == 10
    h = dh.numpy()
    assert (h[:16] == 65504).all() and np.isinf(h[16:]).all()
    assert O.arange_oracle("int8", 127)[1] == -128


# --- register Gather ----------------------------------------------------------------------------------
CASES_G = [(d, w) for w, ds in GATHER_DATA.items() for d in ds]


@pytest.mark.parametrize(("dtype", "width"), CASES_G, ids=[d.name for d, _ in CASES_G])
@PER_CASE
@given(data=st.data())
def test_gather_register(dtype, width, data):
    """dst[i] = src[index[i] % N], indices over the whole index range (out of range wraps)."""
    src = data.draw(rst.registers(dtype), "src")
    index = data.draw(rst.registers(INDEX[width]), "index")
    dst = Reg.RegTensor(dtype)
    run(Reg.Gather, dst, src, index)
    want = O.register_gather_oracle(bits(src), [int(k) for k in index.numpy()])
    O.assert_lanes(dst.numpy(), want, itemsize=width, what=f"Gather {dtype!r}", inputs={"index": index.numpy()})


def test_gather_u8_exhaustive_and_width_rule():
    """Every (source byte, index) pair: 256 rotations of a 0..255 source, gathered by 0..255;
    an index of another width is a DTypeError (the page: widths must match)."""
    index = Reg.RegTensor.from_numpy(np.arange(256, dtype=np.uint8))
    for k in range(256):
        src = Reg.RegTensor.from_numpy(((np.arange(256) + k) % 256).astype(np.uint8))
        dst = Reg.RegTensor(rs.uint8)
        run(Reg.Gather, dst, src, index)
        O.assert_lanes(dst.numpy(), O.register_gather_oracle(bits(src), list(range(256))), itemsize=1, what=f"rotation {k}")
    half = Reg.RegTensor.from_numpy(np.arange(128, dtype=np.float16))
    idx = Reg.RegTensor.from_numpy(np.array([168] * 128, np.uint16))
    out = Reg.RegTensor(rs.half)
    run(Reg.Gather, out, half, idx)
    assert (out.numpy() == 40).all()  # the page's example: 168 % 128 = 40
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError, match="index_reg"):
        Reg.Gather(out, half, Reg.RegTensor.from_numpy(np.zeros(64, np.uint32)))


# --- Interleave / DeInterleave ------------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "trait"), RELAYOUT_CASES, ids=_ids(RELAYOUT_CASES))
@PER_CASE
@given(data=st.data())
def test_interleave_deinterleave(dtype, trait, data):
    """Both against the oracle, in place too (dst = src, as the library calls them); each is the
    other's inverse."""
    s0 = data.draw(rst.registers(dtype, trait), "src0")
    s1 = data.draw(rst.registers(dtype, trait), "src1")
    b0, b1 = bits(s0), bits(s1)
    d0, d1 = Reg.RegTensor(dtype, trait), Reg.RegTensor(dtype, trait)
    run(Reg.Interleave, d0, d1, s0, s1)
    w0, w1 = O.interleave_oracle(b0, b1)
    O.assert_lanes(d0.numpy(), w0, itemsize=dtype.itemsize, what="Interleave dst0")
    O.assert_lanes(d1.numpy(), w1, itemsize=dtype.itemsize, what="Interleave dst1")
    run(Reg.DeInterleave, d0, d1, d0, d1)  # in place: back to the sources
    O.assert_lanes(d0.numpy(), b0, itemsize=dtype.itemsize, what="DeInterleave(Interleave) dst0")
    O.assert_lanes(d1.numpy(), b1, itemsize=dtype.itemsize, what="DeInterleave(Interleave) dst1")
    run(Reg.DeInterleave, d0, d1, s0, s1)
    w0, w1 = O.deinterleave_oracle(b0, b1)
    O.assert_lanes(d0.numpy(), w0, itemsize=dtype.itemsize, what="DeInterleave dst0")
    O.assert_lanes(d1.numpy(), w1, itemsize=dtype.itemsize, what="DeInterleave dst1")


def test_interleave_golden_and_b64_rule():
    """The data_relayout example's golden (u16): dst0[0::2] = x[:64], dst0[1::2] = y[:64], …; a
    one-register b64 tensor is a DTypeError ("仅支持RegTraitNumTwo")."""
    x = np.arange(128, dtype=np.uint16)
    y = np.arange(1000, 1128, dtype=np.uint16)
    d0, d1 = Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.uint16)
    run(Reg.Interleave, d0, d1, Reg.RegTensor.from_numpy(x), Reg.RegTensor.from_numpy(y))
    assert (d0.numpy()[0::2] == x[:64]).all() and (d0.numpy()[1::2] == y[:64]).all()
    assert (d1.numpy()[0::2] == x[64:]).all() and (d1.numpy()[1::2] == y[64:]).all()
    b64 = Reg.RegTensor.from_numpy(np.zeros(32, np.int64))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.DTypeError, match="RegTraitNumTwo"):
        Reg.Interleave(Reg.RegTensor(rs.int64), Reg.RegTensor(rs.int64), b64, b64)


@pytest.mark.parametrize("group", [rs.uint8, rs.uint16, rs.uint32], ids=lambda d: d.name)
@PER_CASE
@given(data=st.data())
def test_mask_interleave_deinterleave(group, data):
    """MaskReg forms on groups of sizeof(T) bits, and the legacy MaskInterleave/MaskDeInterleave."""
    m0, m1 = data.draw(rst.masks(), "src0"), data.draw(rst.masks(), "src1")
    b0, b1 = [int(b) for b in m0.bits()], [int(b) for b in m1.bits()]
    d0, d1, e0, e1 = (Reg.MaskReg() for _ in range(4))
    with rs.VEC_SCOPE():
        Reg.Interleave(group, d0, d1, m0, m1)
        Reg.MaskDeInterleave(group, e0, e1, m0, m1)
    w0, w1 = O.mask_interleave_oracle(b0, b1, group.itemsize)
    O.assert_lanes(d0.bits().astype(np.uint8), w0, itemsize=1, what="MaskReg Interleave dst0")
    O.assert_lanes(d1.bits().astype(np.uint8), w1, itemsize=1, what="MaskReg Interleave dst1")
    w0, w1 = O.mask_deinterleave_oracle(b0, b1, group.itemsize)
    O.assert_lanes(e0.bits().astype(np.uint8), w0, itemsize=1, what="MaskReg DeInterleave dst0")
    O.assert_lanes(e1.bits().astype(np.uint8), w1, itemsize=1, what="MaskReg DeInterleave dst1")
    run(Reg.MaskInterleave, group, d0, d1, e0, e1)  # the inverse, through the legacy name
    O.assert_lanes(d0.bits().astype(np.uint8), b0, itemsize=1, what="Interleave(DeInterleave)")


# --- Pack / UnPack ------------------------------------------------------------------------------------
PACK = [
    (rs.uint8, rs.int16, ONE), (rs.uint8, rs.uint16, ONE), (rs.uint16, rs.int32, ONE), (rs.uint16, rs.uint32, ONE),
    (rs.uint32, rs.int64, ONE), (rs.uint32, rs.uint64, ONE), (rs.uint32, rs.int64, TWO), (rs.uint32, rs.uint64, TWO),
]  # fmt: skip
UNPACK = [
    (rs.int16, rs.int8, ONE), (rs.uint16, rs.uint8, ONE), (rs.int32, rs.int16, ONE), (rs.uint32, rs.uint16, ONE),
    (rs.int64, rs.int32, ONE), (rs.uint64, rs.uint32, ONE), (rs.int64, rs.int32, TWO), (rs.uint64, rs.uint32, TWO),
]  # fmt: skip


@pytest.mark.parametrize(("dst_t", "src_t", "trait"), PACK, ids=[f"{d.name}<-{s.name}-{t!r}" for d, s, t in PACK])
@pytest.mark.parametrize("highest", [False, True], ids=["LOWEST", "HIGHEST"])
@PER_CASE
@given(data=st.data())
def test_pack(dst_t, src_t, trait, highest, data):
    if trait is TWO and highest:
        return  # refused: test_pack_unpack_rules
    src = data.draw(rst.registers(src_t, trait), "src")
    dst = data.draw(rst.registers(dst_t), "dirty dst")
    part = Reg.HighLowPart.HIGHEST if highest else Reg.HighLowPart.LOWEST
    run(Reg.Pack, dst, src, part=part)
    want = O.pack_oracle(bits(src), 8 * dst_t.itemsize, O.lanes_of(dst_t.name), highest)
    O.assert_lanes(dst.numpy(), want, itemsize=dst_t.itemsize, what="Pack")


@pytest.mark.parametrize(("dst_t", "src_t", "trait"), UNPACK, ids=[f"{d.name}<-{s.name}-{t!r}" for d, s, t in UNPACK])
@pytest.mark.parametrize("highest", [False, True], ids=["LOWEST", "HIGHEST"])
@PER_CASE
@given(data=st.data())
def test_unpack(dst_t, src_t, trait, highest, data):
    if trait is TWO and highest:
        return  # refused: test_pack_unpack_rules
    src = data.draw(rst.registers(src_t), "src")
    dst = data.draw(rst.registers(dst_t, trait), "dirty dst")
    part = Reg.HighLowPart.HIGHEST if highest else Reg.HighLowPart.LOWEST
    run(Reg.UnPack, dst, src, part=part)
    want = O.unpack_oracle([int(v) for v in src.numpy()], O.lanes_of(dst_t.name, trait is TWO), highest)
    O.assert_lanes(dst.numpy(), [O.wrap(v, 8 * dst_t.itemsize, False) for v in want], itemsize=dst_t.itemsize, what="UnPack")


def test_pack_unpack_rules():
    """Mismatched pairs are DTypeErrors; HIGHEST with a RegTraitNumTwo b64 side is refused."""
    a16 = Reg.RegTensor.from_numpy(np.zeros(128, np.int16))
    a32 = Reg.RegTensor.from_numpy(np.zeros(64, np.int32))
    two = Reg.RegTensor(rs.int64, TWO)
    every = Reg.RegTensor.from_numpy(np.arange(256, dtype=np.uint8).view(np.int8))  # every int8 value
    for part, highest in ((Reg.HighLowPart.LOWEST, False), (Reg.HighLowPart.HIGHEST, True)):
        wide, back = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.uint8)
        with rs.VEC_SCOPE():
            Reg.UnPack(wide, every, part=part)
            Reg.Pack(back, wide, part=part)
        want = O.unpack_oracle([int(v) for v in every.numpy()], 128, highest)
        O.assert_lanes(wide.numpy(), [O.wrap(v, 16, False) for v in want], itemsize=2, what="UnPack every int8")
        O.assert_lanes(back.numpy(), O.pack_oracle(bits(wide), 8, 256, highest), itemsize=1, what="Pack of it")
    with rs.VEC_SCOPE():
        with pytest.raises(rs.errors.DTypeError, match="Pack"):
            Reg.Pack(Reg.RegTensor(rs.uint8), a32)
        with pytest.raises(rs.errors.DTypeError, match="UnPack"):
            Reg.UnPack(Reg.RegTensor(rs.uint32), a16)  # signed source, unsigned destination
        with pytest.raises(rs.errors.UnsupportedError, match="LOWEST"):
            Reg.UnPack(two, a32, part=Reg.HighLowPart.HIGHEST)
        with pytest.raises(rs.errors.UnsupportedError, match="LOWEST"):
            Reg.Pack(Reg.RegTensor(rs.uint32), two, part=Reg.HighLowPart.HIGHEST)


@pytest.mark.parametrize("highest", [False, True], ids=["LOWEST", "HIGHEST"])
@PER_CASE
@given(data=st.data())
def test_mask_pack_unpack(highest, data):
    """MaskReg Pack (even bits to one half, the other 0) and UnPack (each bit doubled, upper 0),
    also as MaskPack / MaskUnPack."""
    m = data.draw(rst.masks(), "src")
    b = [int(x) for x in m.bits()]
    part = Reg.HighLowPart.HIGHEST if highest else Reg.HighLowPart.LOWEST
    p, u, lp, lu = (Reg.MaskReg() for _ in range(4))
    with rs.VEC_SCOPE():
        Reg.Pack(p, m, part=part)
        Reg.UnPack(u, m, part=part)
        Reg.MaskPack(lp, m, part=part)
        Reg.MaskUnPack(lu, m, part=part)
    for got, want, what in ((p, O.mask_pack_oracle(b, highest), "Pack"), (u, O.mask_unpack_oracle(b, highest), "UnPack")):
        O.assert_lanes(got.bits().astype(np.uint8), want, itemsize=1, what=f"MaskReg {what}")
    assert (lp.bits() == p.bits()).all() and (lu.bits() == u.bits()).all()


# --- Squeeze / Unsqueeze ------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", SQUEEZE, ids=lambda d: d.name)
@PER_CASE
@given(data=st.data())
def test_squeeze(dtype, data):
    """Active elements packed from lane 0, the rest 0 (dirty dst); the legacy GatherMask too."""
    src = data.draw(rst.registers(dtype), "src")
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    dst = data.draw(rst.registers(dtype), "dirty dst")
    legacy = Reg.RegTensor(dtype)
    with rs.VEC_SCOPE():
        Reg.Squeeze(dst, src, mask)
        Reg.GatherMask(legacy, src, mask)
    want, _ = O.squeeze_oracle(bits(src), list(mask.lanes(dtype)), dtype.itemsize)
    O.assert_lanes(dst.numpy(), want, itemsize=dtype.itemsize, what=f"Squeeze {dtype!r}")
    O.assert_lanes(legacy.numpy(), want, itemsize=dtype.itemsize, what="GatherMask")


@rs.simd_vf
def _squeeze_store_vf(x: rs.UbPtr[rs.float32], repeats: int, clear: bool) -> None:
    x_reg, y_reg = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.M4)
    if clear:
        Reg.ClearSpr(spr=rs.AscendC.SpecialPurposeReg.AR)
    for i in range(repeats):
        Reg.LoadAlign(x_reg, x + 64 * i)
        Reg.Squeeze(y_reg, x_reg, mask, store=Reg.GatherMaskMode.STORE_REG)
        Reg.Squeeze(y_reg, x_reg, mask)  # NO_STORE_REG: AR untouched


def test_squeeze_store_reg_accumulates_bytes_in_ar():
    """The GetSpr page's example: 4 repeats of 16 floats after ClearSpr give AR = 256 bytes. AR
    is the core's (the UB's): it persists across VFs until the next ClearSpr."""
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.float32, 256)
    x.set(np.arange(256, dtype=np.float32))
    rs.asc_vf_call(_squeeze_store_vf, x.GetPhyAddr(), 4, True)
    assert ub.core.ar == O.ar_oracle(["clear"] + [O.squeeze_oracle([0.0] * 64, [i % 4 == 0 for i in range(64)], 4)[1]] * 4) == 256
    rs.asc_vf_call(_squeeze_store_vf, x.GetPhyAddr(), 2, False)
    assert ub.core.ar == O.ar_oracle(["clear", 64, 64, 64, 64, 64, 64]) == 384
    rs.asc_vf_call(_squeeze_store_vf, x.GetPhyAddr(), 1, True)
    assert ub.core.ar == 64 and ub.core.last == 64
    assert rs.UnifiedBuffer().core.ar == 0


@pytest.mark.parametrize("dtype", UNSQUEEZE, ids=lambda d: d.name)
@PER_CASE
@given(data=st.data())
def test_unsqueeze(dtype, data):
    """dst[i] = active lanes below i (int8 wraps past 127); the legacy PrefixSum too."""
    mask = data.draw(rst.masks(dtype, fill="noise"), "mask")
    dst = data.draw(rst.registers(dtype), "dirty dst")
    legacy = Reg.RegTensor(dtype)
    with rs.VEC_SCOPE():
        Reg.Unsqueeze(dst, mask)
        Reg.PrefixSum(legacy, mask)
    want = O.unsqueeze_oracle(dtype.name, list(mask.lanes(dtype)))
    O.assert_lanes(dst.numpy(), [O.wrap(v, 8 * dtype.itemsize, False) for v in want], itemsize=dtype.itemsize, what="Unsqueeze")
    assert (legacy.numpy() == dst.numpy()).all()


# --- Histograms ---------------------------------------------------------------------------------------
HIST = [(b, t) for b in (Reg.HistogramsBinType.BIN0, Reg.HistogramsBinType.BIN1) for t in Reg.HistogramsType]


@pytest.mark.parametrize(("bin_", "kind"), HIST, ids=[f"{b.name}-{t.name}" for b, t in HIST])
@PER_CASE
@given(data=st.data())
def test_histograms(bin_, kind, data):
    """Counts of the active source bytes added to dst (dirty, so the u16 counts wrap)."""
    src = data.draw(rst.registers(rs.uint8), "src")
    mask = data.draw(rst.masks(rs.uint8), "mask")
    dst = data.draw(rst.registers(rs.uint16), "dst")
    old = [int(v) for v in dst.numpy()]
    run(Reg.Histograms, dst, src, mask, mode=bin_, type=kind)
    want = O.histograms_oracle(
        old,
        [int(v) for v in src.numpy()],
        list(mask.lanes(rs.uint8)),
        bin_ is Reg.HistogramsBinType.BIN1,
        kind is Reg.HistogramsType.ACCUMULATE,
    )
    O.assert_lanes(dst.numpy(), want, itemsize=2, what=f"Histograms {bin_.name} {kind.name}")


def test_histograms_every_byte_value_and_modes():
    """A source of every byte value once: FREQUENCY counts 1 per bin, ACCUMULATE k + 1 (BIN0)
    and 129 + k (BIN1, counted from 0); BIN2 and a missing `type` are refused."""
    src = Reg.RegTensor.from_numpy(np.arange(256, dtype=np.uint8))
    m = full(rs.uint8)
    out = {}
    for b, t in HIST:
        dst = Reg.RegTensor.from_numpy(np.zeros(128, np.uint16))
        run(Reg.Histograms, dst, src, m, mode=b, type=t)
        out[b.name, t.name] = dst.numpy()
    assert (out["BIN0", "FREQUENCY"] == 1).all() and (out["BIN1", "FREQUENCY"] == 1).all()
    assert (out["BIN0", "ACCUMULATE"] == np.arange(1, 129)).all()
    assert (out["BIN1", "ACCUMULATE"] == np.arange(129, 257)).all()
    dst = Reg.RegTensor(rs.uint16)
    with rs.VEC_SCOPE():
        with pytest.raises(rs.errors.UnsupportedError, match="BIN0, BIN1"):
            Reg.Histograms(dst, src, m, mode=Reg.HistogramsBinType.BIN2, type=Reg.HistogramsType.FREQUENCY)
        with pytest.raises(rs.errors.ParameterError, match="type"):
            Reg.Histograms(dst, src, m, mode=Reg.HistogramsBinType.BIN0)  # type: ignore[call-overload]


# --- Move ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "trait"), MOVE_CASES, ids=_ids(MOVE_CASES))
@PER_CASE
@given(data=st.data())
def test_move(dtype, trait, data):
    """dst = src; with a mask MERGING (inactive lanes keep dst); the legacy Copy; ZEROING refused."""
    src = data.draw(rst.registers(dtype, trait), "src")
    old = data.draw(rst.registers(dtype, trait), "dst")
    old_bits = bits(old)
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    plain = Reg.RegTensor(dtype, trait)
    with rs.VEC_SCOPE():
        Reg.Move(plain, src)
        Reg.Copy(old, src, mask)
    O.assert_lanes(plain.numpy(), O.move_oracle(bits(src)), itemsize=dtype.itemsize, what="Move")
    want = O.move_oracle(bits(src), list(mask.lanes(dtype, trait)), old_bits)
    O.assert_lanes(old.numpy(), want, itemsize=dtype.itemsize, what="Move masked (MERGING)")
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.UnsupportedError, match="MERGING"):
        Reg.Move(plain, src, mask, mode=ZEROING)  # type: ignore[call-overload]


def test_masked_move_reads_only_selected_lanes():
    """A merging Move reads src only where the mask selects: unwritten unselected lanes are fine,
    an unwritten selected lane is an UninitializedReadError."""
    ub = rs.UnifiedBuffer()
    half = ub.alloc(rs.int32, 64)
    half.set(np.arange(32, dtype=np.int32))  # lanes 32.. of the load never written
    src, dst = Reg.RegTensor(rs.int32), Reg.RegTensor.from_numpy(np.full(64, -1, np.int32))
    low = Reg.MaskReg.from_lanes(rs.int32, np.arange(64) < 32)
    with rs.VEC_SCOPE():
        Reg.LoadAlign(src, half.GetPhyAddr())
        Reg.Move(dst, src, low)
        with pytest.raises(rs.errors.UninitializedReadError, match="Move"):
            Reg.Move(dst, src, full(rs.int32))
    want = O.move_oracle(list(range(32)) + [0] * 32, [i < 32 for i in range(64)], [-1] * 64)
    O.assert_lanes(dst.numpy(), [O.wrap(v, 32, False) for v in want], itemsize=4, what="Move over a half-written src")


@given(src=rst.masks(), sel=rst.masks())
def test_mask_move(src, sel):
    """MaskReg Move: dst = src, or src & mask; the legacy MaskMov."""
    b, s = [int(x) for x in src.bits()], [int(x) for x in sel.bits()]
    d1, d2 = Reg.MaskReg(), Reg.MaskReg()
    with rs.VEC_SCOPE():
        Reg.Move(d1, src)
        Reg.MaskMov(d2, src, sel)
    O.assert_lanes(d1.bits().astype(np.uint8), O.mask_move_oracle(b), itemsize=1, what="MaskReg Move")
    O.assert_lanes(d2.bits().astype(np.uint8), O.mask_move_oracle(b, s), itemsize=1, what="MaskReg Move masked")


# --- lane functions take a leading (loop-iteration) axis -----------------------------------------------
def _batch_agrees(lane: Any, inputs: list[np.ndarray], **options: Any) -> None:
    """lane(stacked inputs) == the stack of lane(each row): what a batched-loop backend relies on."""
    batched = lane(*inputs, **options)
    rows = [lane(*(x[k] for x in inputs), **options) for k in range(inputs[0].shape[0])]
    if isinstance(batched, tuple):
        for j, part in enumerate(batched):
            assert np.array_equal(part, np.stack([r[j] for r in rows]), equal_nan=True), (lane.__name__, j)
    else:
        assert np.array_equal(batched, np.stack(rows), equal_nan=True), lane.__name__


def test_rearrange_lane_functions_take_leading_axes():
    from regsim._src.ops import rearrange as R

    rng = np.random.default_rng(5)
    b = 3
    i16 = rng.integers(-(2**15), 2**15, (b, 128)).astype(np.int16)
    u16 = rng.integers(0, 2**16, (b, 128)).astype(np.uint16)
    u8 = rng.integers(0, 256, (b, 256)).astype(np.uint8)
    on = rng.random((b, 128)) < 0.5
    on8 = rng.random((b, 256)) < 0.5
    bits0, bits1 = rng.random((b, 256)) < 0.5, rng.random((b, 256)) < 0.5
    _batch_agrees(R.broadcast, [i16[:, 0]], n=128, dtype=np.dtype(np.int16))
    _batch_agrees(R.broadcast_lowest, [i16])
    _batch_agrees(R.arange, [i16[:, 0]], order=Reg.IndexOrder.DECREASE_ORDER, n=128, dtype=np.dtype(np.int16))
    _batch_agrees(R.gather, [i16, u16])
    _batch_agrees(R.interleave, [i16, i16[::-1]])
    _batch_agrees(R.deinterleave, [i16, i16[::-1]])
    _batch_agrees(R.pack, [i16], part=Reg.HighLowPart.HIGHEST, n=256, dtype=np.dtype(np.uint8))
    _batch_agrees(R.unpack, [u8], part=Reg.HighLowPart.HIGHEST, n=128, dtype=np.dtype(np.uint16))
    _batch_agrees(R.squeeze, [i16, on])
    _batch_agrees(R.unsqueeze, [on], n=128, dtype=np.dtype(np.int16))
    _batch_agrees(R.histograms, [u16, u8, on8], mode=Reg.HistogramsBinType.BIN1, type=Reg.HistogramsType.ACCUMULATE)
    _batch_agrees(R.move, [i16])
    _batch_agrees(R.mask_interleave, [bits0, bits1], T=rs.uint32)
    _batch_agrees(R.mask_deinterleave, [bits0, bits1], T=rs.uint16)
    _batch_agrees(R.mask_pack, [bits0], part=Reg.HighLowPart.HIGHEST)
    _batch_agrees(R.mask_unpack, [bits0], part=Reg.HighLowPart.HIGHEST)
    _batch_agrees(R.mask_move, [bits0, bits1])


# --- the AR-form StoreUnAlign / StoreUnAlignPost: Squeeze's bytes appended through AR ------------------
@rs.simd_vf
def _squeeze_stream_vf(dst: rs.UbPtr[Any], src: rs.UbPtr[Any], masks: rs.UbPtr[rs.uint8], dtype: Any, repeats: int) -> None:
    x, y = Reg.RegTensor(dtype), Reg.RegTensor(dtype)
    m = Reg.MaskReg()
    u = Reg.UnalignRegForStore()
    Reg.ClearSpr(spr=rs.AscendC.SpecialPurposeReg.AR)
    for i in range(repeats):
        Reg.LoadAlign(x, src + i * (256 // dtype.itemsize))
        Reg.LoadAlign(m, masks + 32 * i)
        Reg.Squeeze(y, x, m, store=Reg.GatherMaskMode.STORE_REG)
        Reg.StoreUnAlign(dst, y, u)  # dst by value: the offset is AR's
    Reg.StoreUnAlignPost(dst, u)


@pytest.mark.parametrize("dtype", SQUEEZE, ids=lambda d: d.name)
@PER_CASE
@given(data=st.data())
def test_squeeze_store_reg_stream(dtype, data):
    """Per repeat, the selected elements are appended where the last ones ended (AR bytes on from
    dst); the destination's other bytes keep their old (dirty) values."""
    repeats = data.draw(st.integers(1, 4), "repeats")
    n = 256 // dtype.itemsize
    srcs = [data.draw(rst.registers(dtype), f"src{i}") for i in range(repeats)]
    masks = [data.draw(rst.masks(dtype, fill="noise"), f"mask{i}") for i in range(repeats)]
    ub = rs.UnifiedBuffer(32 * 1024)
    src_t, mask_t, dst_t = ub.alloc(dtype, n * repeats), ub.alloc(rs.uint8, 32 * repeats), ub.alloc(dtype, n * repeats + 32)
    src_t.set(np.concatenate([r.numpy() for r in srcs]))
    mask_t.set(np.concatenate([np.packbits(m.bits(), bitorder="little") for m in masks]))
    dirty = data.draw(rst.lanes(rs.uint8), "dirty")
    ub.storage.write(dst_t.addr, np.resize(dirty, dst_t.nbytes))
    before = ub.storage.data.tobytes()
    rs.asc_vf_call(_squeeze_stream_vf, dst_t.GetPhyAddr(), src_t.GetPhyAddr(), mask_t.GetPhyAddr(), dtype, repeats)
    chunks = []
    for r, m in zip(srcs, masks, strict=True):
        lanes, nbytes = O.squeeze_oracle(bits(r), list(m.lanes(dtype)), dtype.itemsize)
        chunks.append(b"".join(v.to_bytes(dtype.itemsize, "little") for v in lanes)[:nbytes])
    want = O.ar_store_oracle(before, dst_t.addr, chunks)
    got = ub.storage.data.tobytes()
    O.assert_lanes(np.frombuffer(got, np.uint8), np.frombuffer(want, np.uint8), what="UB after the AR stream")
    assert ub.core.ar == O.ar_oracle(["clear", *(len(c) for c in chunks)])


def test_ar_store_normal_mode_and_alternation():
    """POST_MODE_NORMAL stores at dst itself (the kernel advances it); a StoreUnAlign without a
    STORE_REG Squeeze before it is a VfContextError (the two must alternate)."""
    ub = rs.UnifiedBuffer()
    x = ub.alloc(rs.int32, 64)
    x.set(np.arange(64, dtype=np.int32))
    y = ub.alloc(rs.int32, 64)
    y.set(np.full(64, -1, np.int32))
    with rs.VEC_SCOPE():
        xr, yr, u = Reg.RegTensor(rs.int32), Reg.RegTensor(rs.int32), Reg.UnalignRegForStore()
        Reg.LoadAlign(xr, x.GetPhyAddr())
        Reg.ClearSpr(spr=rs.AscendC.SpecialPurposeReg.AR)
        Reg.Squeeze(yr, xr, Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.VL8), store=Reg.GatherMaskMode.STORE_REG)
        Reg.StoreUnAlign(y.GetPhyAddr(), yr, u, post_mode=Reg.PostLiteral.POST_MODE_NORMAL)
        Reg.Squeeze(yr, xr, Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.VL4), store=Reg.GatherMaskMode.STORE_REG)
        Reg.StoreUnAlign(y.GetPhyAddr() + 8, yr, u, post_mode=Reg.PostLiteral.POST_MODE_NORMAL)
        Reg.StoreUnAlignPost(y.GetPhyAddr(), u)
        with pytest.raises(rs.errors.VfContextError, match="alternately"):
            Reg.StoreUnAlign(y.GetPhyAddr(), yr, u)
    want = O.ar_store_oracle(
        np.full(64, -1, np.int32).tobytes(), 0, [np.arange(8, dtype=np.int32).tobytes(), np.arange(4, dtype=np.int32).tobytes()]
    )
    O.assert_lanes(y.numpy(), np.frombuffer(want, np.int32), what="POST_MODE_NORMAL stream")
