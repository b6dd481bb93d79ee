"""Compare, Compares and Select (the Ascend C `Compare`, `Compares` and `Select` pages, and the MaskReg
`Select` page): every accepted dtype, trait and CMPMODE against the oracles, the predicate layout per
width (one- and two-register b64 included) under both mask fills, NaN and signed-zero rules,
8-bit compares exhaustively, and Select's unselected lanes taking src1."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim import Reg
from regsim import strategies as rst
from regsim.errors import DTypeError, ParameterError
from regsim.testing import reference as O

CMPMODE = rs.AscendC.CMPMODE
MODES = ["EQ", "NE", "GT", "GE", "LT", "LE"]
ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
#: Compare dtypes on Ascend 950 (the Compare page), written independently of the op specs
COMPARE = [
    rs.int8,
    rs.uint8,
    rs.int16,
    rs.uint16,
    rs.half,
    rs.bfloat16,
    rs.int32,
    rs.uint32,
    rs.float32,
    rs.int64,
    rs.uint64,
]
SELECT = [rs.bool_, *COMPARE]
B64 = {"int64", "uint64"}


def _cases(dtypes: list) -> list:
    return [(d, ONE) for d in dtypes] + [(d, TWO) for d in dtypes if d.name in B64]


def _ids(cases: list) -> list[str]:
    return [f"{d.name}-{t!r}" for d, t in cases]


CMP_CASES, SEL_CASES = _cases(COMPARE), _cases(SELECT)
PER_CASE = settings(max_examples=max(6, settings.default.max_examples // 5))


def _values(reg: Reg.RegTensor) -> list:
    """Lanes as Python ints or floats (bfloat16 widened exactly)."""
    lanes = reg.numpy()
    if reg.dtype.name in O.FLOATS:
        with np.errstate(invalid="ignore"):  # (an 8-bit float's NaN widens to float64's NaN, as meant)
            return [float(x) for x in lanes.astype(np.float64)]
    return [int(x) for x in lanes]


def _check_predicate(dst: Reg.MaskReg, lanes: list[bool], dtype, trait, fill: str, what: str) -> None:
    want = O.predicate_bits(dtype.name, lanes, trait is TWO, fill)
    O.assert_lanes(dst.bits().astype(np.uint8), want, itemsize=1, what=what)


@pytest.mark.parametrize(("dtype", "trait"), CMP_CASES, ids=_ids(CMP_CASES))
@pytest.mark.parametrize("mode", MODES)
@PER_CASE
@given(data=st.data())
def test_compare_matches_oracle(dtype, trait, mode, data):
    """dst = the predicate of active lanes where a <mode> b, in the layout of the type (b64 one
    register: bit 8i; two registers: bit 4i), every other bit 0; the mask's other bits are noise."""
    a = data.draw(rst.registers(dtype, trait), "a")
    b = data.draw(st.one_of(rst.registers(dtype, trait), st.just(a)), "b")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    fill = data.draw(st.sampled_from(["lsb", "group"]), "mask_fill")
    dst = data.draw(rst.masks(), "dirty dst")
    with rs.configure(mask_fill=fill), rs.VEC_SCOPE():
        Reg.Compare(dst, a, b, mask, mode=getattr(CMPMODE, mode))
    lanes = O.compare_oracle(mode, _values(a), _values(b), list(mask.lanes(dtype, trait)))
    _check_predicate(dst, lanes, dtype, trait, fill, f"Compare {mode} {dtype!r} {trait!r}")


@pytest.mark.parametrize(("dtype", "trait"), CMP_CASES, ids=_ids(CMP_CASES))
@pytest.mark.parametrize("mode", MODES)
@PER_CASE
@given(data=st.data())
def test_compares_matches_oracle(dtype, trait, mode, data):
    """Compares (and its legacy name CompareScalar): the scalar is converted to T and compared."""
    a = data.draw(rst.registers(dtype, trait), "a")
    pool = data.draw(rst.lanes(dtype, trait), "scalar pool")
    scalar = pool[data.draw(st.integers(0, pool.size - 1), "index")]
    value = float(np.float64(scalar)) if dtype.name in O.FLOATS else int(scalar)
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = Reg.MaskReg()
    f = data.draw(st.sampled_from([Reg.Compares, Reg.CompareScalar]), "name")
    with rs.VEC_SCOPE():
        f(dst, a, value, mask, mode=getattr(CMPMODE, mode))
    values = _values(a)
    lanes = O.compare_oracle(mode, values, [value] * len(values), list(mask.lanes(dtype, trait)))
    _check_predicate(dst, lanes, dtype, trait, "lsb", f"Compares {mode} {dtype!r} {value!r}")


@pytest.mark.parametrize("dtype", [rs.int8, rs.uint8], ids=lambda d: d.name)
def test_8bit_compare_exhaustive(dtype):
    """All 65 536 pairs under every mode: lane i of a holds byte i, b one byte per batch."""
    a = Reg.RegTensor.from_numpy(np.arange(256, dtype=np.uint8).view(dtype.np_dtype), dtype=dtype)
    full = Reg.MaskReg.from_lanes(dtype, np.ones(256, bool))
    dst = Reg.MaskReg()
    a_vals = _values(a)
    for k in range(256):
        b = Reg.RegTensor.from_numpy(np.full(256, k, np.uint8).view(dtype.np_dtype), dtype=dtype)
        for mode in MODES:
            with rs.VEC_SCOPE():
                Reg.Compare(dst, a, b, full, mode=getattr(CMPMODE, mode))
            want = O.compare_oracle(mode, a_vals, _values(b), [True] * 256)
            O.assert_lanes(dst.bits().astype(np.uint8), [int(w) for w in want], itemsize=1, what=f"{mode} {dtype!r} b=0x{k:02x}")


@pytest.mark.parametrize("dtype", [rs.half, rs.bfloat16, rs.float32], ids=lambda d: d.name)
def test_float_compare_nan_and_signed_zero(dtype):
    """A NaN makes every mode false but NE true; +0 equals -0; infinities are ordered."""
    a_vals = [np.nan, 0.0, -0.0, np.inf, -np.inf, 1.0, np.nan, 2.0]
    b_vals = [1.0, -0.0, 0.0, np.inf, -np.inf, np.nan, np.nan, np.inf]
    n = rs.testing.lane_count(dtype)
    a = Reg.RegTensor.from_numpy(np.array(a_vals * (n // 8)).astype(dtype.np_dtype), dtype=dtype)
    b = Reg.RegTensor.from_numpy(np.array(b_vals * (n // 8)).astype(dtype.np_dtype), dtype=dtype)
    dst = Reg.MaskReg()
    expected = {
        "EQ": [0, 1, 1, 1, 1, 0, 0, 0],
        "NE": [1, 0, 0, 0, 0, 1, 1, 1],
        "GT": [0, 0, 0, 0, 0, 0, 0, 0],
        "GE": [0, 1, 1, 1, 1, 0, 0, 0],
        "LT": [0, 0, 0, 0, 0, 0, 0, 1],
        "LE": [0, 1, 1, 1, 1, 0, 0, 1],
    }
    for mode, want in expected.items():
        with rs.VEC_SCOPE():
            Reg.Compare(dst, a, b, Reg.CreateMask(dtype), mode=getattr(CMPMODE, mode))
        assert dst.lanes(dtype)[:8].astype(int).tolist() == want, mode
        assert dst.lanes(dtype)[:8].tolist() == O.compare_oracle(mode, a_vals, b_vals, [True] * 8)


def test_default_mode_is_eq_and_int64_orders_by_halves():
    """CMPMODE defaults to EQ; int64 order needs the signed high word and the unsigned low word."""
    vals = [-1, 0, 2**32, -(2**32), 2**31, -(2**31) - 1, 2**63 - 1, -(2**63)] * 4
    a = Reg.RegTensor.from_numpy(np.array(vals, np.int64))
    b = Reg.RegTensor.from_numpy(np.zeros(32, np.int64))
    dst = Reg.MaskReg()
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.int64)
        Reg.Compare(dst, a, b, m)
        eq = dst.lanes(rs.int64)[:8].tolist()
        Reg.Compare(dst, a, b, m, mode=CMPMODE.LT)
        lt = dst.lanes(rs.int64)[:8].tolist()
    assert eq == [v == 0 for v in vals[:8]]
    assert lt == [v < 0 for v in vals[:8]]


# --- Select --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("dtype", "trait"), SEL_CASES, ids=_ids(SEL_CASES))
@PER_CASE
@given(data=st.data())
def test_select_matches_oracle(dtype, trait, data):
    """dst[i] = mask[i] ? src0[i] : src1[i] bit for bit (NaN payloads kept); nothing is zeroed."""
    a = data.draw(rst.registers(dtype, trait), "src0")
    b = data.draw(rst.registers(dtype, trait), "src1")
    mask = data.draw(rst.masks(dtype, trait, fill="noise"), "mask")
    dst = data.draw(rst.registers(dtype, trait), "dirty dst")
    with rs.VEC_SCOPE():
        Reg.Select(dst, a, b, mask)
    want = O.select_oracle(O.bits_of(a.numpy()), O.bits_of(b.numpy()), list(mask.lanes(dtype, trait)))
    O.assert_lanes(dst.numpy(), want, itemsize=dtype.itemsize, what=f"Select {dtype!r} {trait!r}")


@settings(max_examples=max(10, settings.default.max_examples // 3))
@given(data=st.data())
def test_mask_select_bit_by_bit(data):
    """Select on MaskRegs (and its legacy name MaskSel): dst[k] = mask[k] ? src0[k] : src1[k]."""
    s0, s1, m = (data.draw(rst.masks(), name) for name in ("src0", "src1", "mask"))
    b0, b1, bm = (x.bits().astype(int).tolist() for x in (s0, s1, m))
    f = data.draw(st.sampled_from([Reg.Select, Reg.MaskSel]), "name")
    dst = Reg.MaskReg()
    with rs.VEC_SCOPE():
        f(dst, s0, s1, m)
    O.assert_lanes(dst.bits().astype(np.uint8), O.mask_logic_oracle("Select", b0, b1, bm), itemsize=1, what="Select MaskReg")


def test_select_reads_src1_only_where_unselected():
    """An unwritten src1 is fine when every lane selects src0 (and src0 where none does)."""
    a = Reg.RegTensor.from_numpy(np.arange(64, dtype=np.int32))
    dst = Reg.RegTensor(rs.int32)
    with rs.VEC_SCOPE():
        Reg.Select(dst, a, Reg.RegTensor(rs.int32), Reg.CreateMask(rs.int32))
        with pytest.raises(rs.errors.UninitializedReadError, match="src_reg1"):
            Reg.Select(dst, a, Reg.RegTensor(rs.int32), Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.H))
    assert dst.numpy().tolist() == list(range(64))


def test_refusals():
    c32 = Reg.RegTensor.from_numpy(np.zeros(64, rs.complex32.np_dtype), dtype=rs.complex32)
    u8 = Reg.RegTensor.from_numpy(np.zeros(256, np.uint8))
    with rs.VEC_SCOPE():
        m = Reg.CreateMask(rs.uint8)
        with pytest.raises(DTypeError, match="Compare"):
            Reg.Compare(Reg.MaskReg(), c32, c32, m)
        with pytest.raises(ParameterError, match="mode"):
            Reg.Compare(Reg.MaskReg(), u8, u8, m, mode=Reg.MaskMergeMode.ZEROING)
        with pytest.raises(ParameterError, match="scalar_value"):
            Reg.Compares(Reg.MaskReg(), u8, 256, m)  # does not fit uint8
        with pytest.raises(DTypeError, match="Select"):
            Reg.Select(c32, c32, c32, m)


# --- batched loops -------------------------------------------------------------------------------------
@rs.simd_vf
def _mixed_vf(out: rs.UbPtr[rs.int32], bits: rs.UbPtr[rs.uint32], a: rs.UbPtr[rs.int32], b: rs.UbPtr[rs.int32], n: int) -> None:
    """Every op of this family and of logic/shift/mask-data in one loop body, addresses by index."""
    x, y, z, w = (Reg.RegTensor(rs.int32) for _ in range(4))
    m_gt, m_eq, m_and, m_not, m_sel, m_gen = (Reg.MaskReg() for _ in range(6))
    for i in range(n):
        full = Reg.CreateMask(rs.int32)
        Reg.LoadAlign(x, a + i * 64)
        Reg.LoadAlign(y, b + i * 64)
        Reg.Compare(m_gt, x, y, full, mode=CMPMODE.GT)
        Reg.Compares(m_eq, x, 3, full, mode=CMPMODE.NE)
        Reg.And(m_and, m_gt, m_eq, full)
        Reg.Not(m_not, m_and, full)
        Reg.Select(m_sel, m_gt, m_not, m_eq)
        Reg.Select(z, x, y, m_sel)
        Reg.Xor(w, z, x, m_gt)
        Reg.ShiftLefts(w, w, 3, m_eq)
        Reg.ShiftRight(z, w, y, full)
        Reg.MaskGenWithRegTensor(m_gen, x, offset=5)  # a template parameter: a constant
        Reg.Or(m_gen, m_gen, Reg.MoveMask(rs.float32), m_sel)
        Reg.StoreAlign(out + i * 64, z, full)
        Reg.StoreAlign(bits + i * 8, m_gen, dist=Reg.MaskDist.DIST_NORM)


@pytest.mark.parametrize("seed", [0, 1])
def test_batched_loops_give_the_bits_of_in_order_loops(seed):
    """The executors of compare/select, logic/shift and mask-data ops run batched (forced here)
    and give exactly the UB bytes of the loop run in order."""
    rng = np.random.default_rng(seed)
    n = 6
    results = []
    for loops in ("sequential", "batched"):
        ub = rs.UnifiedBuffer(size=16 * 1024)
        out, bits = ub.alloc(rs.int32, 64 * n), ub.alloc(rs.uint32, 8 * n)
        a, b = ub.alloc(rs.int32, 64 * n), ub.alloc(rs.int32, 64 * n)
        a.set(np.random.default_rng(seed).integers(-40, 40, 64 * n, dtype=np.int32))
        b.set(np.random.default_rng(seed + 9).integers(0, 40, 64 * n, dtype=np.int32))
        rs.AscendC.SetVectorMask(rs.float32, 0, int(rng.integers(0, 2**63)) if loops == "sequential" else results[0][2])
        with rs.configure(loops=loops):
            _mixed_vf(out.GetPhyAddr(), bits.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n)
        results.append((out.numpy().tobytes(), bits.numpy().tobytes(), ub.core.vector_mask[1]))
    assert results[0] == results[1]
    assert "batched (6 iterations)" in rs.explain(
        _mixed_vf, out.GetPhyAddr(), bits.GetPhyAddr(), a.GetPhyAddr(), b.GetPhyAddr(), n
    )
