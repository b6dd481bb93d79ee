"""Shifts as the 950 library and the operator kernels use them (docs/decisions/arithmetic.md#shift-signed-left): a
signed left shift is the plain bit shift, which the library's 64-bit shifts, ops-nn's MXFP4 weight unpacking and
ops-nn's non_zero_with_value rely on. Each kernel is a small VF doing what the library or kernel code does, run in
both loop modes against Python ints."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from lowering_support import run_both

import regsim as rs
from regsim import Reg, capi
from regsim.testing.reference import wrap

ONE, TWO = Reg.RegTraitNumOne, Reg.RegTraitNumTwo
CMPMODE = rs.AscendC.CMPMODE


def py_shift(v: int, n: int, left: bool, width: int, signed: bool) -> int:
    """v shifted by n (negative: the other way) on Python ints: left shifts wrap to the width, right shifts are
    arithmetic on a signed value, logical on an unsigned one (Python's >> of a non-negative int)."""
    k = n if left else -n
    return wrap(v << k, width, signed) if k >= 0 else v >> -k


def edge_values(dtype: Any, n: int, seed: int) -> list[int]:
    """n values of dtype: 0, ±1, the word boundaries (2**31, 2**32), the extremes, then random bits."""
    width, signed = 8 * dtype.itemsize, dtype.name.startswith("int")
    edges = [0, 1, -1, 2**31, 2**31 - 1, 2**32, -(2**31), -(2**40), 2**63 - 1, -(2**63), 0x0123456789ABCDEF, 0x8000000180000001]
    rng = np.random.default_rng(seed)
    randoms = [int(v) for v in rng.integers(0, 2**63, n, dtype=np.int64)] + [int(v) << 1 for v in rng.integers(0, 2**63, n)]
    return [wrap(v, width, signed) for v in (edges + randoms)[:n]]


# --- every front end: the plain shift where the page's reading differs ---------------------------------------------
A = rs.AscendC
HERE = Path(__file__).resolve().parents[1] / "cpp"
#: (dtype, value, amount, the plain shift's result): where the page's sign-keeping reading gives 0, 0x4800 and 0x70
PLAIN_SHIFTS = [(rs.int32, 0x40000000, 1, -(2**31)), (rs.int16, 0x00C8, 8, 0xC800 - 2**16), (rs.int8, 0x0F, 4, 0xF0 - 2**8)]


def _reg_form(vector: bool, c_api: bool) -> Callable[[Any, np.ndarray, int], list[int]]:
    def run(dtype: Any, values: np.ndarray, n: int) -> list[int]:
        x, y = Reg.RegTensor.from_numpy(values), Reg.RegTensor(dtype)
        with rs.VEC_SCOPE():
            m = Reg.CreateMask(dtype)
            if vector:
                k = Reg.RegTensor.from_numpy(np.full(values.size, n, values.dtype))
                (capi.asc_shiftleft if c_api else Reg.ShiftLeft)(y, x, k, m)
            else:
                (capi.asc_shiftleft_scalar if c_api else Reg.ShiftLefts)(y, x, n, m)
        return [int(v) for v in y.numpy()]

    return run


def _memory_form(vector: bool) -> Callable[[Any, np.ndarray, int], list[int]]:
    def run(dtype: Any, values: np.ndarray, n: int) -> list[int]:
        ub = rs.UnifiedBuffer()
        src, dst, amounts = ub.alloc(dtype, values.size), ub.alloc(dtype, values.size), ub.alloc(dtype, values.size)
        src.set(values)
        amounts.set(np.full(values.size, n, values.dtype))
        run_both(lambda: A.ShiftLeft(dst, src, amounts if vector else n, values.size), ub)
        return [int(v) for v in dst.numpy()]

    return run


def _cpp_form(dtype: Any, values: np.ndarray, n: int) -> list[int]:
    pytest.importorskip("clang.cindex")
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(dtype, values.size), ub.alloc(dtype, values.size)
    src.set(values)
    run_both(lambda: rs.cpp.load(HERE / "shifts.asc").ShiftLeftsVF[dtype](dst.GetPhyAddr(), src.GetPhyAddr(), n), ub)
    return [int(v) for v in dst.numpy()]


FRONTS = {
    "Reg.ShiftLeft": _reg_form(True, False),
    "Reg.ShiftLefts": _reg_form(False, False),
    "asc_shiftleft": _reg_form(True, True),
    "asc_shiftleft_scalar": _reg_form(False, True),
    "AscendC.ShiftLeft-scalar": _memory_form(False),
    "AscendC.ShiftLeft-tensor": _memory_form(True),
    "C++ ShiftLefts": _cpp_form,
}


@pytest.mark.parametrize("front", sorted(FRONTS))
@pytest.mark.parametrize(("dtype", "value", "amount", "want"), PLAIN_SHIFTS, ids=[c[0].name for c in PLAIN_SHIFTS])
def test_signed_left_shift_is_the_plain_bit_shift(front: str, dtype: Any, value: int, amount: int, want: int) -> None:
    """The Reg ops, their C API, the memory-level ShiftLeft and the C++ front end move bits into and through the sign
    bit: (x << n) mod 2**width read as signed (-1 << (width - 1) is the minimum, the minimum << 1 is 0)."""
    width = 8 * dtype.itemsize
    lanes = 256 // dtype.itemsize
    values = [value, -1, -(2 ** (width - 1)), 2 ** (width - 1) - 1, *edge_values(dtype, lanes - 4, seed=width)]
    got = FRONTS[front](dtype, np.array(values, dtype.np_dtype), amount)
    assert got[0] == want
    assert got == [py_shift(v, amount, True, width, True) for v in values]


# --- the shift forms by every amount -------------------------------------------------------------------------------
@rs.simd_vf
def shift_rows_vf(dst: Any, src: Any, amounts: Any, rows: int, first: int, left: bool, scalar: bool, trait: Any) -> None:
    """Row i of dst = src shifted by first + i: ShiftLefts / ShiftRights by that int16 scalar, or ShiftLeft /
    ShiftRight by row i of the amount table (each lane the same amount)."""
    t = src.dtype
    lanes = rs.testing.lane_count(t, trait)
    x, y, k = Reg.RegTensor(t, trait), Reg.RegTensor(t, trait), Reg.RegTensor(amounts.dtype, trait)
    m = Reg.CreateMask(t, trait=trait)
    Reg.LoadAlign(x, src)
    for i in range(rows):
        if scalar:
            (Reg.ShiftLefts if left else Reg.ShiftRights)(y, x, first + i, m)
        else:
            Reg.LoadAlign(k, amounts + i * lanes)
            (Reg.ShiftLeft if left else Reg.ShiftRight)(y, x, k, m)
        Reg.StoreAlign(dst + i * lanes, y, m)


def check_shift_rows(dtype: Any, trait: Any, amounts: range, left: bool, scalar: bool) -> int:
    """Run shift_rows_vf over `amounts` in both loop modes; returns the number of lanes that differ from Python ints."""
    width, signed = 8 * dtype.itemsize, dtype.name.startswith("int")
    lanes, rows = rs.testing.lane_count(dtype, trait), len(amounts)
    amount_t = {8: rs.int64, 4: rs.int32}[dtype.itemsize]
    values = edge_values(dtype, lanes, seed=rows + width)
    ub = rs.UnifiedBuffer()
    src, dst, table = ub.alloc(dtype, lanes), ub.alloc(dtype, rows * lanes), ub.alloc(amount_t, rows * lanes)
    src.set(np.array(values, dtype.np_dtype))
    table.set(np.repeat(np.array(amounts, amount_t.np_dtype), lanes))
    args = (dst.GetPhyAddr(), src.GetPhyAddr(), table.GetPhyAddr(), rows, amounts[0], left, scalar, trait)
    run_both(lambda: shift_rows_vf(*args), ub)
    got = [int(v) for v in dst.numpy()]
    want = [py_shift(v, n, left, width, signed) for n in amounts for v in values]
    return sum(g != w for g, w in zip(got, want, strict=True))


B64_CASES = [(d, t) for d in (rs.int64, rs.uint64) for t in (ONE, TWO)]


@pytest.mark.parametrize(("dtype", "trait"), B64_CASES, ids=[f"{d.name}-{t!r}" for d, t in B64_CASES])
@pytest.mark.parametrize(("left", "scalar"), [(True, True), (False, True), (True, False), (False, False)])
def test_b64_shifts_are_exact_for_every_amount(dtype: Any, trait: Any, left: bool, scalar: bool) -> None:
    """int64 / uint64 ShiftLefts, ShiftRights, ShiftLeft and ShiftRight (the library's composition of 32-bit shifts of
    the halves) by every amount 0..63: (x << n) mod 2**64 and x >> n (arithmetic for int64), as C computes them."""
    assert check_shift_rows(dtype, trait, range(64), left, scalar) == 0


@pytest.mark.parametrize("dtype", [rs.int32, rs.uint32], ids=lambda d: d.name)
@pytest.mark.parametrize(("left", "scalar"), [(True, True), (False, True), (True, False), (False, False)])
def test_b32_shifts_by_the_compositions_amounts(dtype: Any, left: bool, scalar: bool) -> None:
    """The 32-bit shifts by -32..32, the amounts `32 - s` and `s + 32` the 64-bit composition passes them: a negative
    amount shifts the other way (a signed right shift arithmetic), an amount of 32 gives 0 (or the sign)."""
    assert check_shift_rows(dtype, ONE, range(-32, 33), left, scalar) == 0


# --- MXFP4 weight unpacking (ops-nn) -----------------------------------------------------------------------------
@rs.simd_vf
def fp4_unpack_vf(dst: Any, src: Any, repeats: int, shift_left_size: int, and_mask: int) -> None:
    """What ops-nn's fp4x2 weight unpacking does (quant_batch_matmul_v4's `AntiQuantComputeNKMxNz`, the matmul
    prologue block_prologue_b_cast_scsc.h's `RegComputeNkNz`): each byte loaded twice (`DIST_US_B8`); on int8 lanes
    b >> s keeps the high nibble, (b << 4) >> s the low one, its sign bit moved into bit 7 by the left shift; a b16
    predicate picks the low nibble for the even lanes; `And` keeps the sign and the nibble's 3 other bits."""
    wdup0, wdup1, wdup2, w_load0, w_shl, w_shr0, w_shr1, w_sel0, s_and0 = (Reg.RegTensor(rs.int8) for _ in range(9))
    preg = Reg.CreateMask(rs.uint8, pattern=Reg.MaskPattern.ALL)
    preg_vsel = Reg.CreateMask(rs.uint16, pattern=Reg.MaskPattern.ALL)
    Reg.Duplicate(wdup0, shift_left_size, preg)
    Reg.Duplicate(wdup1, 4, preg)  # SHIFT_RIGHT_SIZE
    Reg.Duplicate(wdup2, wrap(and_mask, 8, True), preg)  # (a uint32_t constant converted to int8_t)
    for i in range(repeats):
        areg_in, areg_out = Reg.CreateAddrReg(rs.uint8, i, 128), Reg.CreateAddrReg(rs.uint8, i, 256)
        Reg.LoadAlign(w_load0.reinterpret(rs.uint8), src, areg_in, dist=Reg.LoadDist.DIST_US_B8)
        Reg.ShiftRight(w_shr0, w_load0, wdup0, preg)
        Reg.ShiftLeft(w_shl, w_load0, wdup1, preg)
        Reg.ShiftRight(w_shr1, w_shl, wdup0, preg)
        Reg.Select(w_sel0, w_shr1, w_shr0, preg_vsel)
        Reg.And(s_and0, w_sel0, wdup2, preg)
        Reg.StoreAlign(dst, s_and0.reinterpret(rs.uint8), areg_out, preg, dist=Reg.StoreDist.DIST_NORM_B8)


def minifloat(bits: int, e_bits: int, m_bits: int, bias: int) -> tuple[int, Fraction]:
    """(sign, magnitude) of a sign-exponent-mantissa code without NaN or inf in the codes used here."""
    sign, e, m = bits >> (e_bits + m_bits) & 1, bits >> m_bits & ((1 << e_bits) - 1), bits & ((1 << m_bits) - 1)
    frac = Fraction(m, 1 << m_bits)
    return sign, frac * Fraction(2) ** (1 - bias) if e == 0 else (1 + frac) * Fraction(2) ** (e - bias)


#: (fp4 format, the kernel's shiftLeftSize and andMask, its exponent and mantissa bits)
FP4 = {"e2m1": (2, 0x9C, 2, 1), "e1m2": (3, 0x8E, 1, 2)}


@pytest.mark.parametrize("fmt", sorted(FP4))
def test_mxfp4_unpacking_on_every_byte(fmt: str) -> None:
    """All 256 bytes: element 2b is byte b's low nibble, 2b + 1 its high nibble, each as an fp8_e4m3fn code whose
    value is the fp4 value times 2**-6 with the fp4 sign (byte 0x7A: -1.0 and 6.0 for e2m1). A sign-keeping left
    shift would give the low nibble byte b's sign instead, wrong for 128 of the 256 bytes."""
    shift, and_mask, e_bits, m_bits = FP4[fmt]
    ub = rs.UnifiedBuffer()
    src, dst = ub.alloc(rs.uint8, 256), ub.alloc(rs.uint8, 512)
    src.set(np.arange(256, dtype=np.uint8))
    run_both(lambda: fp4_unpack_vf(dst.GetPhyAddr(), src.GetPhyAddr(), 2, shift, and_mask), ub)
    got = [minifloat(int(v), 4, 3, 7) for v in dst.numpy()]
    want = []
    for b in range(256):
        for nibble in (b & 0xF, b >> 4):
            sign, mag = minifloat(nibble, e_bits, m_bits, 1)
            want.append((sign, mag / 64))
    bad = [i for i in range(512) if got[i] != want[i]]
    assert not bad, f"{len(bad)} of 512 elements differ, first: byte 0x{bad[0] // 2:02x}: got {got[bad[0]]} want {want[bad[0]]}"
    if fmt == "e2m1":
        assert [(s, m * 64) for s, m in got[2 * 0x7A : 2 * 0x7A + 2]] == [(1, 1), (0, 6)]
    pytest.importorskip("clang.cindex")
    from_cpp = ub.alloc(rs.uint8, 512)
    vf = rs.cpp.load(HERE / "shifts.asc").instantiate("Fp4UnpackVF", shiftLeftSize=shift, andMask=and_mask)
    run_both(lambda: vf(from_cpp.GetPhyAddr(), src.GetPhyAddr(), 2), ub)
    assert from_cpp.numpy().tolist() == dst.numpy().tolist(), "the C++ kernel differs from the Python VF"


# --- non_zero_with_value's sign drop (ops-nn) ----------------------------------------------------------------------
@rs.simd_vf
def count_nonzero_b64_vf(dst: Any, x: Any, count: int) -> None:
    """ops-nn non_zero_with_value's `VfFindNonZeroB64` for double: the bits as int64 shifted left by 1 ("丢符号位",
    so -0.0 and +0.0 give 0) compared with 0, the int64 predicate packed to b32, 1 added per nonzero to 64 uint32
    counters (`UpdateMask<uint32_t>(64)`)."""
    repeat_elm = rs.testing.lane_count(rs.int64)
    sreg, add_count = rs.Ref(count), rs.Ref(64)
    x_src, shifted = Reg.RegTensor(rs.int64), Reg.RegTensor(rs.int64)
    src1, src0, select_reg, add_reg = (Reg.RegTensor(rs.uint32) for _ in range(4))
    cmp, packed = Reg.MaskReg(), Reg.MaskReg()
    Reg.LoadAlign(add_reg, dst)
    Reg.Duplicate(src1, 1)
    Reg.Duplicate(src0, 0)
    add_com = Reg.UpdateMask(rs.uint32, add_count)
    for i in range(-(-count // repeat_elm)):
        preg = Reg.UpdateMask(rs.int64, sreg)
        Reg.LoadAlign(x_src, x, Reg.CreateAddrReg(rs.int64, i, repeat_elm))
        Reg.ShiftLefts(shifted, x_src, 1, preg)
        Reg.CompareScalar(cmp, shifted, 0, preg, mode=CMPMODE.NE)
        Reg.MaskPack(packed, cmp, part=Reg.HighLowPart.LOWEST)
        Reg.Select(select_reg, src1, src0, packed)
        Reg.Add(add_reg, select_reg, add_reg, add_com)
    Reg.StoreAlign(dst, add_reg, add_com)


def test_non_zero_with_value_drops_the_sign() -> None:
    """The int64 shift left by 1 of the bits of ±0.0 gives 0, so the kernel counts neither; every other double
    (subnormals, NaN and inf included) counts: counter j holds the nonzeros among elements j, j + 32, ..."""
    x = Reg.RegTensor.from_numpy(np.array([-0.0, 0.0, -5e-324, -np.inf] * 8).view(np.int64))
    y = Reg.RegTensor(rs.int64)
    with rs.VEC_SCOPE():
        Reg.ShiftLefts(y, x, 1, Reg.CreateMask(rs.int64))
    assert y.numpy()[:4].tolist() == [0, 0, 2, wrap(0xFFF0000000000000 << 1, 64, True)]
    rng = np.random.default_rng(4)
    n = 5 * 32 + 7
    values = rng.choice([0.0, -0.0, 5e-324, -5e-324, np.nan, -np.inf, 1.0, -2.5, 1e300], n)
    some = rng.random(n) < 0.3
    values[some] = rng.standard_normal(int(some.sum()))
    ub = rs.UnifiedBuffer()
    counters, src = ub.alloc(rs.uint32, 64), ub.alloc(rs.float64, n + 32)
    src.set(np.concatenate([values, np.full(32, -0.0)]))
    for count in (n, 40):
        counters.set(np.zeros(64, np.uint32))
        run_both(lambda c=count: count_nonzero_b64_vf(counters.GetPhyAddr(), src.GetPhyAddr().reinterpret(rs.int64), c), ub)
        want = [sum(1 for i in range(j, count, 32) if float(values[i]) != 0.0) if j < 32 else 0 for j in range(64)]
        assert counters.numpy().tolist() == want
