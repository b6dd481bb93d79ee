"""The memory-level `Cast` pairs with C++ `double` (float64), lowered as the 950 library emulates them bit by bit
with Reg integer ops (kernel_operator_vec_vconv_impl.h for dav_3510: `CastDouble` picks `CastDoubleToFloat`,
`CastDoubleToBf16`, `CastInt64ToDouble`, `CastDoubleToInt32` or `CastDoubleToInt64`). The Cast page of
"Memory矢量计算" gives these pairs on the first-n interface only. What the emulations compute, quirks included,
is settled in docs/decisions/cast.md#cast-double.

Each VF here follows the library's statement by statement (its helper functions are `@simd_callee`s of the
same names); Reg has no `double` arithmetic, so a `double` register is only loaded, stored and reinterpreted.
"""

from __future__ import annotations

from typing import Any, Final

from regsim._src.engine.context import Ref
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import CMPMODE, RoundMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf

R = RoundMode
C = CMPMODE
U64: Final = dt.uint64
U32: Final = dt.uint32
U16: Final = dt.uint16


def _mask() -> MaskReg:
    return Reg.MaskReg()


def _reg(t: Any) -> RegTensor[Any]:
    return Reg.RegTensor(t)


# --- double -> float / bfloat16 ----------------------------------------------------------------------------------
@simd_callee
def deal_mantissa(
    dst_mask: MaskReg, src: RegTensor[Any], mask: MaskReg, mask_inf: MaskReg, mask_max: MaskReg, mode: RoundMode, dropped: int
) -> None:
    """`DealMantissa0` (float: 29 dropped fraction bits) / `DealMantissa1` (bfloat16: 45): the lanes whose kept
    bits are incremented, from the dropped bits, the kept lowest bit and the sign (the lanes of `mask` that are
    neither inf/NaN-exponent with a zero fraction nor overflowing)."""
    m0, m1, m = _mask(), _mask(), _mask()
    Reg.Xor(m, mask_inf, mask, mask)
    Reg.Xor(m, mask_max, m, mask)
    d0, d1 = _reg(U64), _reg(U64)
    half = 0x8000000000000000
    up = 64 - dropped  # shiftScalar0: the dropped bits to the top
    if mode is R.CAST_RINT:
        Reg.ShiftLefts(d0, src, up, m)
        Reg.CompareScalar(m0, d0, half, m, mode=C.GT)
        Reg.CompareScalar(m1, d0, half, m, mode=C.EQ)
        Reg.ShiftLefts(d1, src, up - 1, m)
        Reg.CompareScalar(m1, d1, half, m1, mode=C.GT)
        Reg.MaskOr(dst_mask, m1, m0, m)
    elif mode in (R.CAST_FLOOR, R.CAST_CEIL):
        Reg.ShiftLefts(d0, src, up, m)
        Reg.ShiftRights(d1, src, 63, m)
        Reg.CompareScalar(m0, d1, 1 if mode is R.CAST_FLOOR else 0, m, mode=C.EQ)
        Reg.CompareScalar(dst_mask, d0, 0, m0, mode=C.GT)
    elif mode is R.CAST_ROUND:
        Reg.ShiftLefts(d0, src, up, m)
        Reg.CompareScalar(dst_mask, d0, half, m, mode=C.GE)
    else:  # CAST_TRUNC: src < 0 as uint64, never
        Reg.CompareScalar(dst_mask, src, 0, m, mode=C.LT)


@simd_callee
def truncate_for_double(
    mask_nan: MaskReg,
    mask_inf: MaskReg,
    mask_zero: MaskReg,
    mask_max: MaskReg,
    dst: RegTensor[Any],
    src: RegTensor[Any],
    preg: MaskReg,
    kept: int,
) -> None:
    """`TruncateForDoubleToFloat` (kept = 23 fraction bits) / `TruncateForDoubleToBf16` (kept = 7): dst = the sign
    at bit 31 (15), the double exponent rebiased by 0x380 and the top `kept` fraction bits below it; the masks of
    NaN, inf, |x| < 2**-127 (exponent < 0x380) and |x| >= 2**128 (exponent >= 0x47f)."""
    width = kept + 9  # 32 or 16
    sign, expo, mant, tmp = _reg(U64), _reg(U64), _reg(U64), _reg(U64)
    m0, m1, positive = _mask(), _mask(), _mask()
    Reg.ShiftLefts(expo, src, 1, preg)
    Reg.ShiftRights(expo, expo, 53, preg)
    Reg.ShiftRights(sign, src, 63, preg)
    Reg.ShiftLefts(sign, sign, width - 1, preg)
    Reg.CompareScalar(positive, sign, 0, preg, mode=C.EQ)
    Reg.CompareScalar(m0, expo, 0x7FF, preg, mode=C.EQ)
    Reg.CompareScalar(m1, expo, 0x7FF, preg, mode=C.LT)
    Reg.CompareScalar(mask_zero, expo, 0x380, m1, mode=C.LT)
    Reg.CompareScalar(mask_max, expo, 0x47F, m1, mode=C.GE)
    rebias = _reg(U64)
    Reg.Duplicate(rebias, 0x380, preg)
    Reg.Sub(expo, expo, rebias, preg)
    Reg.ShiftLefts(mant, src, 12, preg)
    if kept == 23:  # the float version tests the kept fraction bits for NaN, the bfloat16 one all 52
        Reg.ShiftRights(mant, mant, 41, preg)
    Reg.CompareScalar(mask_nan, mant, 0, m0, mode=C.GT)
    Reg.CompareScalar(mask_inf, mant, 0, m0, mode=C.EQ)
    if kept == 7:
        Reg.ShiftRights(mant, mant, 57, preg)
    Reg.ShiftLefts(expo, expo, kept, preg)
    Reg.Add(expo, expo, mant, preg)
    Reg.Duplicate(tmp, (1 << (width - 1)) - 1, preg)
    Reg.And(mant, expo, tmp, positive)
    Reg.Select(expo, mant, expo, positive)
    Reg.Duplicate(tmp, 1 << (width - 1), preg)
    Reg.CompareScalar(positive, sign, 0, preg, mode=C.NE)
    Reg.Or(mant, expo, tmp, positive)
    Reg.Select(dst, mant, expo, positive)


@simd_callee
def select_nan_inf_zero(
    mask_nan: MaskReg, mask_inf: MaskReg, mask_zero: MaskReg, mask_max: MaskReg, dst: RegTensor[Any], overflow: bool
) -> None:
    """`SelectNanInfZero0` / `00` (float) and `SelectNanInfZero1` / `10` (bfloat16): the special lanes' bits.
    `overflow` (the library's `GetOverflow()`): overflowing lanes get the largest finite value, else inf."""
    T = dst.dtype
    top = 1 << (T.itemsize * 8 - 1)
    inf = 0x7F800000 if T is U32 else 0x7F80
    fmax, nan = (0x7F7FFFFF, 0x7F800001) if T is U32 else (0x7F7F, 0x7F81)
    inf_neg, inf_pos, neg, pos = _mask(), _mask(), _mask(), _mask()
    if T is U32 and overflow:  # SelectNanInfZero0 compares the uint32 bits with 0: every lane is ">= 0"
        Reg.CompareScalar(inf_neg, dst, 0, mask_inf, mode=C.LT)
        Reg.CompareScalar(inf_pos, dst, 0, mask_inf, mode=C.GE)
        Reg.CompareScalar(neg, dst, 0, mask_max, mode=C.LT)
        Reg.CompareScalar(pos, dst, 0, mask_max, mode=C.GE)
    else:
        Reg.CompareScalar(inf_pos, dst, top, mask_inf, mode=C.LT)
        Reg.CompareScalar(inf_neg, dst, top, mask_inf, mode=C.GE)
        Reg.CompareScalar(pos, dst, top, mask_max, mode=C.LT)
        Reg.CompareScalar(neg, dst, top, mask_max, mode=C.GE)
    r_nan, r_inf_pos, r_inf_neg = _reg(T), _reg(T), _reg(T)
    if overflow:
        r_max_pos, r_max_neg = _reg(T), _reg(T)
        Reg.Duplicate(r_max_pos, fmax)
        Reg.Select(dst, r_max_pos, dst, pos)
        Reg.Duplicate(r_max_neg, fmax | top)
        Reg.Select(dst, r_max_neg, dst, neg)
    Reg.Duplicate(r_nan, nan)
    Reg.Duplicate(r_inf_pos, inf)
    Reg.Duplicate(r_inf_neg, inf | top)
    Reg.Select(dst, r_nan, dst, mask_nan)
    if overflow:
        Reg.Select(dst, r_inf_pos, dst, inf_pos)
        Reg.Select(dst, r_inf_neg, dst, inf_neg)
    elif T is U32:
        Reg.Select(dst, r_inf_pos, dst, inf_pos)
        Reg.Select(dst, r_inf_neg, dst, inf_neg)
        Reg.Select(dst, r_inf_pos, dst, pos)
        Reg.Select(dst, r_inf_neg, dst, neg)
    else:
        Reg.Select(dst, r_inf_pos, dst, inf_pos)
        Reg.Select(dst, r_inf_pos, dst, pos)
        Reg.Select(dst, r_inf_neg, dst, inf_neg)
        Reg.Select(dst, r_inf_neg, dst, neg)
    if T is U32 or not overflow:  # SelectNanInfZero1 (bfloat16, overflow) does not zero the tiny lanes
        r_zero = _reg(T)
        Reg.Duplicate(r_zero, 0)
        Reg.Select(dst, r_zero, dst, mask_zero)


@simd_vf
def cast_double_to_float_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode, overflow: bool) -> None:
    """`CastDoubleToFloat`: 32 doubles per repeat (one uint64 register), the float bits made in the low words,
    gathered to lanes 0-31 by `DeInterleave`, the predicates by `MaskDeInterleave<uint32_t>`."""
    one_rep = VL // 8
    sreg = Ref(count)
    srv, tmp_src = _reg(U64), _reg(U64)
    mask0, nan, inf, zero, fmax = _mask(), _mask(), _mask(), _mask(), _mask()
    dst_zero, dst_vreg, dst_float0, dst_add = _reg(U32), _reg(U32), _reg(U32), _reg(U32)
    dst_mask0 = Reg.CreateMask(dt.float32, pattern=Reg.MaskPattern.ALLF)
    Reg.Duplicate(dst_add, 1)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(dt.int64, sreg)
        Reg.LoadAlign(tmp_src, src.reinterpret(U64) + i * one_rep)
        truncate_for_double(nan, inf, zero, fmax, srv, tmp_src, preg, 23)
        deal_mantissa(mask0, tmp_src, preg, inf, fmax, mode, 29)
        s32 = srv.reinterpret(U32)
        Reg.DeInterleave(dst_vreg, dst_zero, s32, s32)
        for m in (preg, mask0, nan, fmax, inf, zero):
            Reg.MaskDeInterleave(U32, m, dst_mask0, m, dst_mask0)
        Reg.Add(dst_float0, dst_vreg, dst_add, mask0)
        Reg.Select(dst_vreg, dst_float0, dst_vreg, mask0)
        select_nan_inf_zero(nan, inf, zero, fmax, dst_vreg, overflow)
        Reg.StoreAlign(dst + i * one_rep, dst_vreg.reinterpret(dt.float32), preg)


@simd_vf
def cast_double_to_bf16_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode, overflow: bool) -> None:
    """`CastDoubleToBf16`: 32 doubles per repeat, the bfloat16 bits made in the low 16 bits of each 64-bit lane,
    gathered to lanes 0-31 by two `DeInterleave`s of uint16 (the second source a register the library never
    writes), the predicates by `MaskDeInterleave<uint32_t>` then `<uint16_t>`."""
    one_rep = VL // 8
    sreg = Ref(count & 0xFFFF)  # uint32_t sreg = static_cast<uint16_t>(calCount)
    dst_float0, dst_add = _reg(U16), _reg(U16)
    tmp_src, srv = _reg(U64), _reg(U64)
    mask0 = _mask()
    dst_zero, dst_vreg0, dst_vreg = _reg(U16), _reg(U16), _reg(U16)
    dst_mask, fmax, zero, nan, inf = _mask(), _mask(), _mask(), _mask(), _mask()
    dst_mask0 = Reg.CreateMask(dt.bfloat16, pattern=Reg.MaskPattern.ALLF)
    dst_float_add = _reg(U16)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(dt.int64, sreg)
        Reg.LoadAlign(tmp_src, src.reinterpret(U64) + i * one_rep)
        truncate_for_double(nan, inf, zero, fmax, srv, tmp_src, preg, 7)
        deal_mantissa(mask0, tmp_src, preg, inf, fmax, mode, 45)
        Reg.DeInterleave(dst_vreg0, dst_zero, srv.reinterpret(U16), dst_zero)
        Reg.DeInterleave(dst_vreg, dst_zero, dst_vreg0, dst_zero)
        Reg.MaskDeInterleave(U32, preg, dst_mask0, preg, dst_mask0)
        Reg.MaskDeInterleave(U16, preg, dst_mask0, preg, dst_mask0)
        Reg.MaskDeInterleave(U32, mask0, dst_mask0, mask0, dst_mask0)
        Reg.MaskDeInterleave(U16, dst_mask, dst_mask0, mask0, dst_mask0)
        for m in (nan, fmax, inf, zero):
            Reg.MaskDeInterleave(U32, m, dst_mask0, m, dst_mask0)
            Reg.MaskDeInterleave(U16, m, dst_mask0, m, dst_mask0)
        Reg.Duplicate(dst_float_add, 0x8000)
        Reg.And(dst_float_add, dst_float_add, dst_vreg, dst_mask)  # (computed and not used, as in the library)
        Reg.Duplicate(dst_add, 1)
        Reg.Add(dst_float0, dst_vreg, dst_add, dst_mask)
        Reg.Select(dst_vreg, dst_float0, dst_vreg, dst_mask)
        select_nan_inf_zero(nan, inf, zero, fmax, dst_vreg, overflow)
        Reg.StoreAlign(dst + i * one_rep, dst_vreg.reinterpret(dt.bfloat16), preg)


# --- int64 -> double ---------------------------------------------------------------------------------------------
@simd_callee
def clz(preg: MaskReg, src: RegTensor[Any], count_zero: RegTensor[Any]) -> None:
    """`Clz`: count_zero += the leading zero bits of src (64 for 0), by halving steps of 32, 16, 8, 4, 2, 1."""
    tmp_one, tmp_add, tmp_two, tmp_three = _reg(U64), _reg(U64), _reg(U64), _reg(U64)
    m = _mask()
    Reg.Duplicate(tmp_add, 32)
    Reg.ShiftRights(tmp_one, src, 32, preg)
    Reg.CompareScalar(m, tmp_one, 0, preg, mode=C.EQ)
    Reg.Add(tmp_two, count_zero, tmp_add, m)
    Reg.ShiftLefts(tmp_add, src, 32, m)
    Reg.Select(tmp_three, tmp_add, src, m)
    Reg.Select(count_zero, tmp_two, count_zero, m)
    # (the library's last step shifts by 16, not 1: the shifted value is not used again)
    for right, add, left in ((48, 16, 16), (56, 8, 8), (60, 4, 4), (62, 2, 2), (63, 1, 16)):
        Reg.Duplicate(tmp_add, add)
        Reg.ShiftRights(tmp_one, tmp_three, right, preg)
        Reg.CompareScalar(m, tmp_one, 0, preg, mode=C.EQ)
        Reg.Add(tmp_two, count_zero, tmp_add, m)
        Reg.ShiftLefts(tmp_add, tmp_three, left, m)
        Reg.Select(tmp_three, tmp_add, tmp_three, m)
        Reg.Select(count_zero, tmp_two, count_zero, m)
    Reg.CompareScalar(m, src, 0, preg, mode=C.EQ)
    Reg.Duplicate(tmp_add, 64)
    Reg.Select(count_zero, tmp_add, count_zero, m)


@simd_callee
def deal_lower_than_52(mask: MaskReg, src: RegTensor[Any], top: RegTensor[Any]) -> None:
    """`DealLowerThan52`: |x| with its highest set bit at `top` <= 52 is exact: ((1023 + top) << 52) +
    ((|x| - 2**top) << (52 - top))."""
    tmp1, expo, tmp2 = _reg(U64), _reg(U64), _reg(U64)
    Reg.Duplicate(tmp1, 1023)
    Reg.Add(expo, tmp1, top, mask)
    Reg.Duplicate(tmp1, 52)
    Reg.Sub(tmp2, tmp1, top, mask)
    Reg.ShiftLeft(expo, expo, tmp1.reinterpret(dt.int64), mask)
    Reg.Duplicate(tmp1, 1)
    Reg.ShiftLeft(tmp1, tmp1, top.reinterpret(dt.int64), mask)
    Reg.Sub(tmp1, src, tmp1, mask)
    Reg.ShiftLeft(tmp1, tmp1, tmp2.reinterpret(dt.int64), mask)
    Reg.Add(tmp1, tmp1, expo, mask)
    Reg.Select(src, tmp1, src, mask)


@simd_callee
def deal_higher_than_52(mask: MaskReg, negative: MaskReg, src: RegTensor[Any], top: RegTensor[Any], mode: RoundMode) -> None:
    """`DealHigherThan52<roundMode>`: |x| with its highest set bit at `top` > 52 loses its top - 52 low bits,
    rounded by the mode (the discarded bits against half of their range, the sign for FLOOR / CEIL)."""
    m = _mask()
    tmp1, expo, mant, discard, mid, tmp2 = _reg(U64), _reg(U64), _reg(U64), _reg(U64), _reg(U64), _reg(U64)
    Reg.Duplicate(tmp1, 1)
    Reg.ShiftLeft(tmp1, tmp1, top.reinterpret(dt.int64), mask)
    Reg.Sub(tmp2, src, tmp1, mask)
    Reg.Duplicate(tmp1, 1023)
    Reg.Add(expo, tmp1, top, mask)
    Reg.Duplicate(tmp1, 52)
    Reg.ShiftLeft(expo, expo, tmp1.reinterpret(dt.int64), mask)
    Reg.Sub(tmp1, top, tmp1, mask)
    k = tmp1.reinterpret(dt.int64)
    Reg.ShiftRight(mant, tmp2, k, mask)
    Reg.ShiftLeft(mant, mant, k, mask)
    Reg.Sub(discard, tmp2, mant, mask)
    Reg.ShiftRight(mant, mant, k, mask)
    Reg.Duplicate(mid, 1)
    Reg.Sub(tmp1, tmp1, mid, mask)
    Reg.ShiftLeft(mid, mid, tmp1.reinterpret(dt.int64), mask)
    Reg.Duplicate(tmp1, 1)
    if mode is R.CAST_RINT:
        Reg.Compare(m, discard, mid, mask, mode=C.GT)
        Reg.Add(tmp2, mant, tmp1, m)
        Reg.Select(mant, tmp2, mant, m)
        Reg.Compare(m, discard, mid, mask, mode=C.EQ)
        Reg.And(discard, mant, tmp1, m)
        Reg.CompareScalar(m, discard, 1, m, mode=C.EQ)
        Reg.Add(tmp2, mant, tmp1, m)
        Reg.Select(mant, tmp2, mant, m)
    elif mode in (R.CAST_FLOOR, R.CAST_CEIL):
        if mode is R.CAST_FLOOR:
            Reg.MaskAnd(m, negative, mask, mask)
        else:
            Reg.MaskXor(m, negative, mask, mask)
        Reg.CompareScalar(m, discard, 0, m, mode=C.GT)
        Reg.Add(tmp2, mant, tmp1, m)
        Reg.Select(mant, tmp2, mant, m)
    elif mode is R.CAST_ROUND:
        Reg.Compare(m, discard, mid, mask, mode=C.GE)
        Reg.Add(tmp2, mant, tmp1, m)
        Reg.Select(mant, tmp2, mant, m)
    Reg.Add(tmp2, mant, expo, mask)
    Reg.Select(src, tmp2, src, mask)


@simd_vf
def cast_int64_to_double_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode) -> None:
    """`CastInt64ToDouble`: 32 elements per repeat; |x|, its highest set bit by `Clz`, the exact or rounded
    fraction and the exponent assembled as uint64, the sign added, the register stored as `RegTensor<double>`."""
    one_rep = VL // 8
    sreg = Ref(count & 0xFFFF)  # uint32_t sreg = static_cast<uint16_t>(calCount)
    tmp_mask, tmp_mask1, negative = _mask(), _mask(), _mask()
    tmp, tmp1 = _reg(dt.int64), _reg(dt.int64)
    count_zero, tmp_reg = _reg(U64), _reg(U64)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(dt.int64, sreg)
        Reg.LoadAlign(tmp, src + i * one_rep)
        Reg.CompareScalar(negative, tmp, 0, preg, mode=C.LT)
        Reg.Duplicate(tmp1, 0)
        Reg.Sub(tmp1, tmp1, tmp, negative)
        Reg.Select(tmp, tmp1, tmp, negative)
        src_reg = tmp.reinterpret(U64)
        Reg.Duplicate(count_zero, 0)
        clz(preg, src_reg, count_zero)
        Reg.CompareScalar(tmp_mask, count_zero, 64, preg, mode=C.EQ)
        Reg.Duplicate(tmp_reg, 0)
        Reg.Select(src_reg, tmp_reg, src_reg, tmp_mask)
        Reg.MaskXor(tmp_mask, tmp_mask, preg, preg)
        Reg.Duplicate(tmp_reg, 63)
        Reg.Sub(count_zero, tmp_reg, count_zero, tmp_mask)
        Reg.CompareScalar(tmp_mask1, count_zero, 52, tmp_mask, mode=C.LE)
        deal_lower_than_52(tmp_mask1, src_reg, count_zero)
        Reg.MaskXor(tmp_mask, tmp_mask1, tmp_mask, tmp_mask)
        deal_higher_than_52(tmp_mask, negative, src_reg, count_zero, mode)
        Reg.Duplicate(tmp_reg, 0x8000000000000000)
        Reg.Add(tmp_reg, src_reg, tmp_reg, negative)
        Reg.Select(src_reg, tmp_reg, src_reg, negative)
        Reg.StoreAlign(dst + i * one_rep, src_reg.reinterpret(dt.float64), preg)


# --- double -> int32 (CAST_TRUNC) -----------------------------------------------------------------------------------
I32: Final = dt.int32
INT32_MAX: Final = 2**31 - 1
INT32_MIN: Final = -(2**31)


@simd_callee
def cast_double_to_int32_impl(
    dst: RegTensor[Any],
    int32_max: RegTensor[Any],
    int32_min: RegTensor[Any],
    src: RegTensor[Any],
    scalar0: RegTensor[Any],
    scalar1: RegTensor[Any],
    scalar2: RegTensor[Any],
    mask: MaskReg,
) -> None:
    """`CastDoubleToInt32Impl`: on the 32-bit words of 64 doubles (`reg[0]` the low words, `reg[1]` the high):
    E = 0 -> 0; NaN -> 0; ±inf -> INT32_MAX / INT32_MIN; 2**31 <= |x| -> the bound of its sign; |x| < 1 -> 0; else
    the 21-bit high mantissa and the low word shifted into the truncated integer, negated for a negative."""
    sign, m_low, m_high, expo = _reg(I32), _reg(I32), _reg(I32), _reg(I32)
    tmp, res, tmp0, res0, scalar = _reg(I32), _reg(I32), _reg(I32), _reg(I32), _reg(I32)
    cm, cm0, cm1, cm2 = _mask(), _mask(), _mask(), _mask()
    low, high = src.reg[0].reinterpret(I32), src.reg[1].reinterpret(I32)
    Reg.Duplicate(dst, 0)
    Reg.Copy(m_low, low, mask)
    Reg.ShiftRights(expo, high, 20, mask)
    Reg.And(expo, expo, scalar1, mask)
    Reg.ShiftRights(sign, high, 31, mask)
    Reg.And(m_high, high, scalar2, mask)
    # E == 0x7ff: inf -> the bound of its sign (NaN stays 0)
    Reg.Compare(cm0, expo, scalar1, mask)
    Reg.CompareScalar(cm1, m_low, 0, cm0)
    Reg.CompareScalar(cm1, m_high, 0, cm1)
    Reg.CompareScalar(cm2, sign, 0, cm1)
    Reg.Select(res, int32_max, int32_min, cm2)
    Reg.Select(dst, res, dst, cm1)
    Reg.CompareScalar(cm1, expo, 0, mask, mode=C.NE)
    Reg.MaskNot(cm, cm0, cm1)  # E != 0 and E != 0x7ff
    # exp = E - 1023: exp >= 31 saturates, exp < 0 stays 0
    Reg.Adds(expo, expo, -1023, cm)
    Reg.CompareScalar(cm0, expo, 31, cm, mode=C.GE)
    Reg.CompareScalar(cm1, sign, 0, cm0)
    Reg.Select(res, int32_max, int32_min, cm1)
    Reg.Select(dst, res, dst, cm0)
    Reg.CompareScalar(cm1, expo, 0, cm, mode=C.GE)
    Reg.MaskXor(cm, cm0, cm1, cm)  # 0 <= exp < 31
    # shift = 52 - exp: the mantissa's integer part
    Reg.Duplicate(scalar, 52, cm)
    Reg.Sub(expo, scalar, expo, cm)
    Reg.Or(tmp, m_high, scalar0, cm)
    Reg.CompareScalar(cm0, expo, 32, cm, mode=C.GE)
    Reg.Duplicate(scalar, 32, cm)
    Reg.Sub(tmp0, expo, scalar, cm0)
    Reg.ShiftRight(res, tmp, tmp0, cm0)
    Reg.MaskNot(cm1, cm0, cm)
    Reg.Sub(tmp0, scalar, expo, cm1)
    Reg.ShiftLeft(res0, tmp, tmp0, cm1)
    Reg.ShiftRight(tmp0.reinterpret(U32), m_low.reinterpret(U32), expo, cm1)
    Reg.Or(res0, res0, tmp0, cm1)
    Reg.Or(res, res0, res, cm)
    # the sign, and the bounds
    Reg.CompareScalar(cm0, sign, -1, cm)
    Reg.CompareScalar(cm1, res, INT32_MIN, cm0)  # static_cast<int32_t>(0x80000000)
    Reg.Neg(res0, res, cm0)
    Reg.Compare(cm2, res0, int32_min, cm0, mode=C.LT)
    Reg.MaskOr(cm1, cm1, cm2, cm0)
    Reg.Select(dst, int32_min, dst, cm1)
    Reg.Select(res, res0, res, cm0)
    Reg.MaskNot(cm0, cm0, cm)
    Reg.Compare(cm2, res, int32_max, cm0, mode=C.GT)
    Reg.Select(dst, int32_max, dst, cm2)
    Reg.MaskOr(cm1, cm1, cm2, cm)
    Reg.MaskNot(cm2, cm1, cm)
    Reg.Select(dst, res, dst, cm2)


@simd_vf
def cast_double_to_int32_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int) -> None:
    """`CastDoubleToInt32`: 64 doubles per repeat in a `RegTensor<double, RegTraitNumTwo>`, the predicate
    `UpdateMask<uint64_t, RegTraitNumTwo>`, the int32 results in one register."""
    one_rep = 2 * VL // 8
    sreg = Ref(count)
    src_vreg = Reg.RegTensor(dt.float64, Reg.RegTraitNumTwo)
    dst_vreg, int32_max, int32_min = _reg(I32), _reg(I32), _reg(I32)
    scalar0, scalar1, scalar2 = _reg(I32), _reg(I32), _reg(I32)
    Reg.Duplicate(scalar0, 0x100000)
    Reg.Duplicate(scalar1, 0x7FF)
    Reg.Duplicate(scalar2, 0xFFFFF)
    Reg.Duplicate(int32_max, INT32_MAX)
    Reg.Duplicate(int32_min, INT32_MIN)
    for i in range(-(-count // one_rep)):
        mask = Reg.UpdateMask(U64, sreg, trait=Reg.RegTraitNumTwo)
        Reg.LoadAlign(src_vreg, src + i * one_rep)
        cast_double_to_int32_impl(dst_vreg, int32_max, int32_min, src_vreg, scalar0, scalar1, scalar2, mask)
        Reg.StoreAlign(dst + i * one_rep, dst_vreg, mask)


# --- double -> int64 (CAST_TRUNC) -----------------------------------------------------------------------------------
@simd_callee
def shift_right_dual32(
    low_out: RegTensor[Any],
    high_out: RegTensor[Any],
    m_low: RegTensor[Any],
    m_high: RegTensor[Any],
    shift: RegTensor[Any],
    t0: RegTensor[Any],
    t1: RegTensor[Any],
    scalar: RegTensor[Any],
    cm0: MaskReg,
    cm1: MaskReg,
    mask: MaskReg,
) -> None:
    """`ShiftRightDual32`: (high, low) >> n on int32 words: n = 0 as is, n >= 64 left alone (0), n >= 32 the high
    word's bits, else the low word's bits with the high word's low n bits shifted in at the top."""
    Reg.CompareScalar(cm0, shift, 64, mask, mode=C.LT)
    Reg.CompareScalar(cm1, shift, 32, mask, mode=C.LT)
    Reg.MaskXor(cm0, cm0, cm1, mask)
    Reg.Adds(t0, shift, -32, cm0)
    Reg.ShiftRight(t0, m_high, t0, cm0)
    Reg.Select(low_out, t0, low_out, cm0)
    Reg.ShiftRight(t0.reinterpret(U32), m_low.reinterpret(U32), shift, cm1)
    Reg.Duplicate(t1, 1, cm1)
    Reg.ShiftLeft(t1, t1, shift, cm1)
    Reg.Adds(t1, t1, -1, cm1)
    Reg.And(t1, t1, m_high, cm1)
    Reg.Duplicate(scalar, 32, cm1)
    Reg.Sub(scalar, scalar, shift, cm1)
    # (an int32 left shift into bit 31: the plain bit shift, decisions/arithmetic.md#shift-signed-left)
    Reg.ShiftLeft(t1, t1, scalar, cm1)
    Reg.Or(t0, t1, t0, cm1)
    Reg.ShiftRight(t1, m_high, shift, cm1)
    Reg.Select(low_out, t0, low_out, cm1)
    Reg.Select(high_out, t1, high_out, cm1)
    Reg.CompareScalar(cm0, shift, 0, mask, mode=C.EQ)
    Reg.Select(low_out, m_low, low_out, cm0)
    Reg.Select(high_out, m_high, high_out, cm0)


@simd_callee
def shift_left_dual32(
    low_out: RegTensor[Any],
    high_out: RegTensor[Any],
    m_low: RegTensor[Any],
    m_high: RegTensor[Any],
    shift: RegTensor[Any],
    t0: RegTensor[Any],
    t1: RegTensor[Any],
    scalar: RegTensor[Any],
    cm0: MaskReg,
    cm1: MaskReg,
    mask: MaskReg,
) -> None:
    """`ShiftLeftDual32`: (high, low) << n on int32 words: n = 0 as is, n >= 64 left alone, n >= 32 the low word
    into the high one, else the high word shifted with the low word's top n bits shifted in."""
    Reg.CompareScalar(cm0, shift, 64, mask, mode=C.LT)
    Reg.CompareScalar(cm1, shift, 32, mask, mode=C.LT)
    Reg.MaskXor(cm0, cm0, cm1, mask)
    Reg.Adds(t0, shift, -32, cm0)
    Reg.ShiftLeft(t0, m_low, t0, cm0)
    Reg.Select(high_out, t0, high_out, cm0)
    Reg.ShiftLeft(t0, m_high, shift, cm1)
    Reg.Duplicate(scalar, 32, cm1)
    Reg.Sub(scalar, scalar, shift, cm1)
    Reg.ShiftRight(t1.reinterpret(U32), m_low.reinterpret(U32), scalar, cm1)
    Reg.Or(t0, t1, t0, cm1)
    Reg.ShiftLeft(t1, m_low, shift, cm1)  # (likewise, decisions/arithmetic.md#shift-signed-left)
    Reg.Select(low_out, t1, low_out, cm1)
    Reg.Select(high_out, t0, high_out, cm1)
    Reg.CompareScalar(cm0, shift, 0, mask, mode=C.EQ)
    Reg.Select(low_out, m_low, low_out, cm0)
    Reg.Select(high_out, m_high, high_out, cm0)


@simd_callee
def negate_dual32(
    low: RegTensor[Any], high: RegTensor[Any], t0: RegTensor[Any], t1: RegTensor[Any], cm: MaskReg, mask: MaskReg
) -> None:
    """`NegateDual32`: -(high, low) on the lanes of `mask`: low = -low, high = ~high, plus 1 when low is 0."""
    Reg.Neg(t0, low, mask)
    Reg.Select(low, t0, low, mask)
    Reg.Not(t1, high, mask)
    Reg.CompareScalar(cm, t0, 0, mask, mode=C.EQ)
    Reg.Adds(t0, t1, 1, cm)
    Reg.Select(t1, t0, t1, cm)
    Reg.Select(high, t1, high, mask)


@simd_callee
def cast_double_to_int64_impl(
    low: RegTensor[Any], high: RegTensor[Any], src: RegTensor[Any], k: dict[str, RegTensor[Any]], mask: MaskReg
) -> None:
    """`CastDoubleToInt64Impl`: the 53-bit mantissa in two int32 words shifted right by 52 - exp (exp < 52) or left
    by exp - 52, negated for a negative; ±inf and exp >= 63 (but -2**63) -> INT64_MAX / INT64_MIN; NaN, E = 0 and
    exp < 0 -> 0. `k` holds the VF's constant registers (scalar0-2, posInf/negInf Low/High, zeroReg)."""
    sign, m_low, m_high, expo = _reg(I32), _reg(I32), _reg(I32), _reg(I32)
    tmp, tmp0, tmp1, tmp2, tmp3, tmp4 = _reg(I32), _reg(I32), _reg(I32), _reg(I32), _reg(I32), _reg(I32)
    res_low, res_high, scalar = _reg(I32), _reg(I32), _reg(I32)
    cm0, cm1, cm2 = _mask(), _mask(), _mask()
    zero = k["zero"]
    w_low, w_high = src.reg[0].reinterpret(I32), src.reg[1].reinterpret(I32)
    for r in (low, high, res_low, res_high):
        Reg.Duplicate(r, 0)
    Reg.Copy(m_low, w_low, mask)
    Reg.ShiftRights(expo, w_high, 20, mask)
    Reg.And(expo, expo, k["scalar1"], mask)
    Reg.ShiftRights(sign, w_high, 31, mask)
    Reg.And(m_high, w_high, k["scalar2"], mask)
    Reg.Or(tmp, m_high, k["scalar0"], mask)
    Reg.Adds(tmp0, expo, -1023, mask)
    Reg.Duplicate(scalar, 52, mask)
    Reg.Sub(tmp1, scalar, tmp0, mask)
    Reg.Sub(tmp2, tmp0, scalar, mask)
    Reg.CompareScalar(cm0, tmp1, 0, mask, mode=C.GT)
    Reg.Or(tmp1, tmp1, zero, cm0)
    Reg.CompareScalar(cm1, tmp2, 0, mask, mode=C.GT)
    Reg.Or(tmp2, tmp2, zero, cm1)
    shift_right_dual32(low, high, m_low, tmp, tmp1, tmp3, tmp4, scalar, cm0, cm1, mask)
    shift_left_dual32(res_low, res_high, m_low, tmp, tmp2, tmp3, tmp4, scalar, cm0, cm1, mask)
    Reg.CompareScalar(cm2, tmp0, 52, mask, mode=C.LT)
    Reg.Select(low, low, res_low, cm2)
    Reg.Select(high, high, res_high, cm2)
    Reg.CompareScalar(cm0, sign, -1, mask)
    negate_dual32(low, high, tmp1, tmp2, cm1, cm0)
    Reg.Select(tmp3, k["neg_inf_low"], k["pos_inf_low"], cm0)
    Reg.Select(tmp4, k["neg_inf_high"], k["pos_inf_high"], cm0)
    # overflow: inf, or exp >= 63 but -2**63
    Reg.Compare(cm0, expo, k["scalar1"], mask)
    Reg.Or(tmp1, m_low, m_high, cm0)
    Reg.CompareScalar(cm0, tmp1, 0, cm0)
    Reg.CompareScalar(cm1, tmp0, 63, mask, mode=C.GE)
    Reg.CompareScalar(cm2, tmp0, 63, mask, mode=C.EQ)
    Reg.CompareScalar(cm2, m_low, 0, cm2, mode=C.EQ)
    Reg.CompareScalar(cm2, m_high, 0, cm2, mode=C.EQ)
    Reg.CompareScalar(cm2, sign, -1, cm2, mode=C.EQ)
    Reg.MaskNot(cm2, cm2, cm1)
    Reg.MaskOr(cm0, cm2, cm0, mask)
    Reg.Select(low, tmp3, low, cm0)
    Reg.Select(high, tmp4, high, cm0)
    # NaN, E = 0 and exp < 0 -> 0
    Reg.Compare(cm2, expo, k["scalar1"], mask)
    Reg.CompareScalar(cm2, tmp1, 0, cm2, mode=C.NE)
    Reg.Compare(cm1, expo, zero, mask, mode=C.NE)
    Reg.CompareScalar(cm1, tmp0, 0, cm1, mode=C.GE)
    Reg.MaskNot(cm2, cm2, cm1)
    Reg.Select(low, low, zero, cm2)
    Reg.Select(high, high, zero, cm2)


@simd_vf
def cast_double_to_int64_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int) -> None:
    """`CastDoubleToInt64`: 64 doubles per repeat (`RegTraitNumTwo`), the int64 result's words copied into the
    two registers of a `RegTensor<int64_t, RegTraitNumTwo>` and stored."""
    one_rep = 2 * VL // 8
    sreg = Ref(count)
    two = Reg.RegTraitNumTwo
    src_vreg = Reg.RegTensor(dt.float64, two)
    dst_vreg = Reg.RegTensor(dt.int64, two)
    low, high = _reg(I32), _reg(I32)
    k = {name: _reg(I32) for name in ("scalar0", "scalar1", "scalar2", "zero")}
    k |= {name: _reg(I32) for name in ("pos_inf_low", "pos_inf_high", "neg_inf_low", "neg_inf_high")}
    for name, value in (
        ("scalar0", 0x100000), ("scalar1", 0x7FF), ("scalar2", 0xFFFFF), ("zero", 0),
        ("pos_inf_high", INT32_MAX), ("pos_inf_low", -1), ("neg_inf_high", INT32_MIN), ("neg_inf_low", 0),
    ):  # fmt: skip
        Reg.Duplicate(k[name], value)  # (static_cast<int32_t>(0xffffffff) and (0x80000000))
    for i in range(-(-count // one_rep)):
        mask = Reg.UpdateMask(U64, sreg, trait=two)
        Reg.LoadAlign(src_vreg, src + i * one_rep)
        cast_double_to_int64_impl(low, high, src_vreg, k, mask)
        Reg.Copy(dst_vreg.reg[0].reinterpret(I32), low, mask)
        Reg.Copy(dst_vreg.reg[1].reinterpret(I32), high, mask)
        Reg.StoreAlign(dst + i * one_rep, dst_vreg, mask)


def overflow_mode(ctrl: int) -> bool:
    """The library's `GetOverflow()`: `(get_ctrl() >> 48) == 0x1`, true only when CTRL[48] is the highest set bit
    from 48 up (so false at the launch value, whose CTRL[60] is 1)."""
    return ctrl >> 48 == 1


def run(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode, ctrl: int) -> None:
    """`CastDouble<DST, SRC, roundMode>(dst, src, calCount)`."""
    pair = (src.dtype, dst.dtype)
    if pair == (dt.float64, dt.float32):
        cast_double_to_float_vf(dst, src, count, mode, overflow_mode(ctrl))
    elif pair == (dt.float64, dt.bfloat16):
        cast_double_to_bf16_vf(dst, src, count, mode, overflow_mode(ctrl))
    elif pair == (dt.int64, dt.float64):
        cast_int64_to_double_vf(dst, src, count, mode)
    elif pair == (dt.float64, dt.int32):
        cast_double_to_int32_vf(dst, src, count)
    elif pair == (dt.float64, dt.int64):
        cast_double_to_int64_vf(dst, src, count)
    else:  # pragma: no cover (the caller checks the pair)
        raise AssertionError(pair)
