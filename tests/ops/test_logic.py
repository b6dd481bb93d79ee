"""Logic and shifts (the Ascend C `Not`, `And`, `Or`, `Xor`, `ShiftLeft`, `ShiftRight`, `ShiftLefts`
and `ShiftRights` pages): every accepted dtype and trait against the lane oracles, ZEROING on dirty
destinations, 8-bit binary ops exhaustively over all 65 536 pairs, the MaskReg overloads bit by bit
with their legacy names, and the documented dtype, amount-type and merge-mode refusals."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import DTypeError, UnsupportedError
from regsim.testing import reference as O

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
#: dtypes of each page's table on Ascend 950, written independently of the op specs
NOT = [rs.int8, rs.uint8, rs.int16, rs.uint16, rs.half, rs.int32, rs.uint32, rs.float32, rs.int64, rs.uint64]
AND = [rs.bool_, rs.int8, rs.uint8, rs.int16, rs.uint16, rs.int32, rs.uint32, rs.int64, rs.uint64]
SHIFT = {
    rs.int8: rs.int8,
    rs.uint8: rs.int8,
    rs.int16: rs.int16,
    rs.uint16: rs.int16,
    rs.int32: rs.int32,
    rs.uint32: rs.int32,
    rs.int64: rs.int64,
    rs.uint64: rs.int64,
}
B64 = {"int64", "uint64"}


def _cases(dtypes: list) -> list:
    return [(d, ONE) for d in dtypes] + [(d, TWO) for d in dtypes if d.name in B64]


def _ids(cases: list) -> list[str]:
    return [f"{d.name}-{t!r}" for d, t in cases]


PER_CASE = settings(max_examples=max(8, settings.default.max_examples // 4))
BINARY = {"And": Reg.And, "Or": Reg.Or, "Xor": Reg.Xor}
#: (vector form, scalar form) by direction
SHIFTS = {
    True: (Reg.ShiftLeft, Reg.ShiftLefts),
    False: (
        Reg.ShiftRight,
        Reg.ShiftRights,
    ),
}


def _bits(reg: Reg.RegTensor) -> list[int]:
    return O.bits_of(reg.numpy())


def _dirty(dtype, trait, data) -> Reg.RegTensor:
    return data.draw(rst.registers(dtype, trait), "dirty dst")


# --- Not / And / Or / Xor on RegTensors ------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "trait"), _cases(NOT), ids=_ids(_cases(NOT)))
@PER_CASE
@given(data=st.data())
def test_not_matches_oracle(dtype, trait, data):
    """dst[i] = mask[i] ? ~src[i] : 0 on the raw bits; a dirty dst's inactive lanes become 0."""
    src = data.draw(rst.registers(dtype, trait), "src")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = _dirty(dtype, trait, data)
    with rs.VEC_SCOPE():
        Reg.Not(dst, src, mask)
    active = list(mask.lanes(dtype, trait))
    want = O.logic_oracle("Not", dtype.name, _bits(src), None, active)
    O.assert_lanes(dst.numpy(), want, itemsize=dtype.itemsize, what=f"Not {dtype!r} {trait!r}", inputs={"src": src.numpy()})


@pytest.mark.parametrize(("dtype", "trait"), _cases(AND), ids=_ids(_cases(AND)))
@pytest.mark.parametrize("op", sorted(BINARY))
@PER_CASE
@given(data=st.data())
def test_and_or_xor_match_oracle(dtype, trait, op, data):
    a = data.draw(rst.registers(dtype, trait), "a")
    b = data.draw(rst.registers(dtype, trait), "b")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = _dirty(dtype, trait, data)
    with rs.VEC_SCOPE():
        BINARY[op](dst, a, b, mask, mode=Reg.MaskMergeMode.ZEROING)
    active = list(mask.lanes(dtype, trait))
    want = O.logic_oracle(op, dtype.name, _bits(a), _bits(b), active)
    O.assert_lanes(
        dst.numpy(), want, itemsize=dtype.itemsize, what=f"{op} {dtype!r} {trait!r}", inputs={"a": a.numpy(), "b": b.numpy()}
    )


def _pairs(dtype, amount_dtype=None):
    """All 65 536 (a, b) byte pairs as 256 registers: lane i of a holds byte i, b one byte per batch."""
    a_bits = np.arange(256, dtype=np.uint8)
    a = Reg.RegTensor.from_numpy(a_bits.view(dtype.np_dtype), dtype=dtype)
    for k in range(256):
        b_dtype = amount_dtype or dtype
        yield a, Reg.RegTensor.from_numpy(np.full(256, k, np.uint8).view(b_dtype.np_dtype), dtype=b_dtype), k


@pytest.mark.parametrize("dtype", [rs.int8, rs.uint8, rs.bool_], ids=lambda d: d.name)
@pytest.mark.parametrize("op", sorted(BINARY))
def test_8bit_logic_exhaustive(dtype, op):
    if dtype is rs.bool_:  # a bool register holds 0 or 1 per byte: the four pairs, all lanes
        values = np.array([0, 1, 0, 1] * 64, np.uint8)
        a = Reg.RegTensor.from_numpy(values.view(np.bool_), dtype=rs.bool_)
        b = Reg.RegTensor.from_numpy(np.array([0, 0, 1, 1] * 64, np.uint8).view(np.bool_), dtype=rs.bool_)
        batches = [(a, b, 0)]
    else:
        batches = list(_pairs(dtype))
    full = Reg.MaskReg.from_lanes(dtype, np.ones(256, bool))
    dst = Reg.RegTensor(dtype)
    for a, b, k in batches:
        with rs.VEC_SCOPE():
            BINARY[op](dst, a, b, full)
        want = O.logic_oracle(op, dtype.name, _bits(a), _bits(b), [True] * 256)
        O.assert_lanes(dst.numpy(), want, itemsize=1, what=f"{op} {dtype!r} b=0x{k:02x}", inputs={"a": a.numpy(), "b": b.numpy()})


def test_not_on_floats_flips_raw_bits():
    """Not on half and float is bitwise: ~(+0.0) is the all-ones NaN pattern, ~1.0 a negative number."""
    src = Reg.RegTensor.from_numpy(np.array([0.0, 1.0, -2.0, np.inf] * 16, np.float32))
    dst = Reg.RegTensor(rs.float32)
    with rs.VEC_SCOPE():
        Reg.Not(dst, src, Reg.CreateMask(rs.float32))
    assert dst.numpy()[:4].view(np.uint32).tolist() == [0xFFFFFFFF, 0xC07FFFFF, 0x3FFFFFFF, 0x807FFFFF]


# --- MaskReg forms -------------------------------------------------------------------------------------
MASK_FORMS = {"Not": Reg.Not, "And": Reg.And, "Or": Reg.Or, "Xor": Reg.Xor}
LEGACY = {"Not": Reg.MaskNot, "And": Reg.MaskAnd, "Or": Reg.MaskOr, "Xor": Reg.MaskXor}


@pytest.mark.parametrize("op", sorted(MASK_FORMS))
@pytest.mark.parametrize("legacy", [False, True], ids=["name", "legacy"])
@settings(max_examples=max(10, settings.default.max_examples // 3))
@given(data=st.data())
def test_mask_logic_bit_by_bit(op, legacy, data):
    """dst[k] = mask[k] ? src0[k] op src1[k] : 0 for every one of the 256 bits; dst may be a source."""
    s0 = data.draw(rst.masks(), "src0")
    s1 = data.draw(rst.masks(), "src1")
    m = data.draw(rst.masks(), "mask")
    b0, b1, bm = (x.bits().astype(int).tolist() for x in (s0, s1, m))
    f = (LEGACY if legacy else MASK_FORMS)[op]
    alias = data.draw(st.booleans(), "dst aliases src0")
    dst = s0 if alias else Reg.MaskReg()
    with rs.VEC_SCOPE():
        if op == "Not":
            f(dst, s0, m)
        else:
            f(dst, s0, s1, m)
    want = O.mask_logic_oracle(op, b0, None if op == "Not" else b1, bm)
    O.assert_lanes(dst.bits().astype(np.uint8), want, itemsize=1, what=f"{op} MaskReg")


def test_mask_forms_dispatch_on_operand_kinds():
    """One name serves both overloads; mixing kinds is a ParameterError naming the API."""
    r = Reg.RegTensor.from_numpy(np.zeros(64, np.int32))
    m = Reg.MaskReg.from_bits(np.ones(256, bool))
    with rs.VEC_SCOPE(), pytest.raises(rs.errors.ParameterError, match="And"):
        Reg.And(m, r, r, m)


# --- shifts --------------------------------------------------------------------------------------------
SHIFT_CASES = _cases(list(SHIFT))


def _amounts(dtype, trait, data, width):
    """Shift amounts: mostly in [0, width], with a share beyond it (and, for 64-bit lanes, values
    whose low 32-bit word differs from the value), never negative (undefined on the pages). Each lane
    one of three kinds alike: any in [0, width + 1], any in the amount type's range (edge-weighted bits,
    the sign cleared), or width - 1, width, 2**32, 2**32 + 3 (at most the type's largest); two draws an
    example, not one per lane (Hypothesis's per-lane draws were most of the test's time)."""
    n = rs.testing.lane_count(dtype, trait)
    amount_t = SHIFT[dtype]
    top = np.iinfo(amount_t.np_dtype).max
    anywhere = data.draw(rst.lanes(amount_t, trait), "amount bits").astype(np.int64) & top
    pick = np.frombuffer(data.draw(st.binary(min_size=n, max_size=n), "amount kinds"), np.uint8).astype(np.int64)
    kind, k = pick % 3, pick // 3
    special = np.minimum(np.array([width - 1, width, 2**32, 2**32 + 3])[k % 4], top)
    values = np.select([kind == 0, kind == 1], [k % (width + 2), anywhere], special)
    return Reg.RegTensor.from_numpy(values.astype(amount_t.np_dtype), dtype=amount_t, trait=trait)


def _signed_values(reg):
    return [int(v) for v in reg.numpy()]


@pytest.mark.parametrize(("dtype", "trait"), SHIFT_CASES, ids=_ids(SHIFT_CASES))
@pytest.mark.parametrize("left", [True, False], ids=["ShiftLeft", "ShiftRight"])
@PER_CASE
@given(data=st.data())
def test_vector_shifts_match_oracle(dtype, trait, left, data):
    width = 8 * dtype.itemsize
    x = data.draw(rst.registers(dtype, trait), "x")
    amount = _amounts(dtype, trait, data, width)
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = _dirty(dtype, trait, data)
    with rs.VEC_SCOPE():
        SHIFTS[left][0](dst, x, amount, mask)
    active = list(mask.lanes(dtype, trait))
    want = O.shift_oracle(dtype.name, left, _signed_values(x), _signed_values(amount), active)
    O.assert_lanes(
        dst.numpy(),
        want,
        itemsize=dtype.itemsize,
        what=f"shift {dtype!r} {trait!r}",
        inputs={"x": x.numpy(), "s": amount.numpy()},
    )


@pytest.mark.parametrize(("dtype", "trait"), SHIFT_CASES, ids=_ids(SHIFT_CASES))
@pytest.mark.parametrize("left", [True, False], ids=["ShiftLefts", "ShiftRights"])
@PER_CASE
@given(data=st.data())
def test_scalar_shifts_match_oracle(dtype, trait, left, data):
    """The scalar is an int16_t for every data type: amounts past the width give 0 (or the sign)."""
    width = 8 * dtype.itemsize
    x = data.draw(rst.registers(dtype, trait), "x")
    s = data.draw(st.one_of(st.integers(0, width + 1), st.integers(0, 2**15 - 1)), "scalar")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = _dirty(dtype, trait, data)
    with rs.VEC_SCOPE():
        SHIFTS[left][1](dst, x, s, mask)
    active = list(mask.lanes(dtype, trait))
    values = _signed_values(x)
    want = O.shift_oracle(dtype.name, left, values, [s] * len(values), active, scalar_form=True)
    O.assert_lanes(dst.numpy(), want, itemsize=dtype.itemsize, what=f"shifts {dtype!r} by {s}", inputs={"x": x.numpy()})


@pytest.mark.parametrize("dtype", [rs.int8, rs.uint8], ids=lambda d: d.name)
@pytest.mark.parametrize("left", [True, False], ids=["ShiftLeft", "ShiftRight"])
def test_8bit_shifts_exhaustive(dtype, left):
    """All 65 536 (value, int8 amount) pairs, negative amounts included (regsim shifts the other
    way, the decision the 64-bit emulation needs)."""
    full = Reg.MaskReg.from_lanes(dtype, np.ones(256, bool))
    dst = Reg.RegTensor(dtype)
    for a, b, k in _pairs(dtype, rs.int8):
        with rs.VEC_SCOPE():
            SHIFTS[left][0](dst, a, b, full)
        want = O.shift_oracle(dtype.name, left, _signed_values(a), _signed_values(b), [True] * 256)
        O.assert_lanes(dst.numpy(), want, itemsize=1, what=f"shift {dtype!r} s=0x{k:02x}", inputs={"x": a.numpy()})


def test_shift_pages_examples():
    """The ShiftLeft page: 1010101010101010 as uint16 << 1 = 0101010101010100; amounts of the width or more give 0,
    signed right the sign. As int16 the page gives << 1 = 1101010101010100 and << 3 = 1101010101010000 (the sign
    kept); regsim shifts the bits as the 950 library's code does (docs/decisions/arithmetic.md#shift-signed-left):
    0101010101010100, 0101010101010000, the uint16 results."""
    x = Reg.RegTensor.from_numpy(np.full(128, 0b1010101010101010, np.uint16))
    s = Reg.RegTensor.from_numpy(np.array([1, 3, 16, 17] * 32, np.int16))
    dst_u, dst_i = Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.int16)
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.uint16)
        Reg.ShiftLeft(dst_u, x, s, m)
        Reg.ShiftLeft(dst_i, x.reinterpret(rs.int16), s, m)
        got_u, got_i = dst_u.numpy()[:4].tolist(), dst_i.numpy()[:4].view(np.uint16).tolist()
        Reg.ShiftRight(dst_i, x.reinterpret(rs.int16), s, m)
        got_r = dst_i.numpy()[:4].tolist()
    assert got_u == [0b0101010101010100, 0b0101010101010000, 0, 0]
    assert got_i == [0b0101010101010100, 0b0101010101010000, 0, 0]
    assert got_r == [-10923, -2731, -1, -1]


def test_int64_shifts_follow_the_library_emulation():
    """64-bit shifts are composed of 32-bit halves: a vector amount is read as its low 32-bit word
    (2**32 shifts by 0); uint64 shifts are exact 64-bit shifts for amounts in [0, 64)."""
    x = Reg.RegTensor.from_numpy(np.array([0x0123456789ABCDEF] * 32, np.uint64))
    s = Reg.RegTensor.from_numpy(np.array([0, 1, 31, 32, 33, 63, 64, 2**32] * 4, np.int64))
    dst = Reg.RegTensor(rs.uint64)
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.uint64)
        Reg.ShiftLeft(dst, x, s, m)
        left = dst.numpy()[:8].tolist()
        Reg.ShiftRight(dst, x, s, m)
        right = dst.numpy()[:8].tolist()
    v = 0x0123456789ABCDEF
    assert left == [(v << k) % 2**64 for k in (0, 1, 31, 32, 33, 63)] + [0, v]
    assert right == [v >> k for k in (0, 1, 31, 32, 33, 63)] + [0, v]


# --- refusals ------------------------------------------------------------------------------------------
def test_refusals():
    f32 = Reg.RegTensor.from_numpy(np.zeros(64, np.float32))
    u16 = Reg.RegTensor.from_numpy(np.zeros(128, np.uint16))
    bf = Reg.RegTensor.from_numpy(np.zeros(128, np.uint16).view(rs.bfloat16.np_dtype), dtype=rs.bfloat16)
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.float32)
        with pytest.raises(DTypeError, match="And"):
            Reg.And(f32, f32, f32, m)  # no float And in C++ on 950
        with pytest.raises(DTypeError, match="Not"):
            Reg.Not(bf, bf, m)
        with pytest.raises(DTypeError, match="src_reg1"):
            Reg.ShiftLeft(u16, u16, u16, m)  # the amount of uint16 data is an int16 register
        with pytest.raises(UnsupportedError, match="MERGING"):
            Reg.Xor(u16, u16, u16, m, mode=Reg.MaskMergeMode.MERGING)
        with pytest.raises(rs.errors.ParameterError, match="scalar_value"):
            Reg.ShiftLefts(u16, u16, 2**15, m)  # not an int16_t
