"""The memory-level unary math APIs Ln, Sqrt, Rsqrt, Reciprocal (with their `config` template parameter) and Neg,
on the unary family's skeletons of `regsim._src.lowerings.elementwise` (`VecUnaryLevel2VFImpl` for the first-n interface,
`VecUnaryLevel0VFImpl` for the mask/repeat interfaces), with the Reg ops or callees the 950 library runs
(kernel_operator_vec_unary_impl.h for dav_3510: `LnImpl`, `SqrtImpl`, `RsqrtImpl`, `ReciprocalImpl`, `NegImpl`); the
binary compounds AddRelu, SubRelu, FusedMulAdd, MulAddRelu, MulAddDst (kernel_operator_vec_binary_impl.h,
kernel_operator_vec_binary_continuous_impl.h) and the tensor-scalar Axpy (kernel_operator_vec_ternary_scalar_impl.h)
on the binary and scalar skeletons; the first-n-only binary ISASI APIs Prelu, AbsSub and Mull (`PreluImpl`,
`FusedAbsSubImpl`, `MullImpl`); and the first-n-only Truncate (`TruncateImpl`).
"""

from __future__ import annotations

import math
from typing import Any, Final

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import (
    arguments_error,
    check_count,
    check_set_mask,
    check_tensors,
    check_written,
    host_only,
    run_lowering,
    unchanged_on_error,
)
from regsim._src.lowerings.elementwise import APIS, BinaryApi, UnaryApi
from regsim._src.lowerings.reduce import ConfigApi, with_mode
from regsim._src.lowerings.skeletons import unary_continuous_vf, vec_binary_vf, vec_unary_vf
from regsim._src.lowerings.structs import (
    BinaryRepeatParams,
    LnConfig,
    ReciprocalConfig,
    RsqrtConfig,
    SqrtConfig,
    UnaryRepeatParams,
)
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_api, host_method
from regsim._src.model.config import configure
from regsim._src.model.enums import (
    CMPMODE,
    DivAlgo,
    LnAlgo,
    ReciprocalAlgo,
    RoundMode,
    RsqrtAlgo,
    SqrtAlgo,
    expected_member,
)
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import ParameterError, message

_FLOAT: Final = frozenset({dt.half, dt.float32})
_F32: Final = frozenset({dt.float32})
_B64: Final = frozenset({dt.int64, dt.uint64})
ZEROING: Final = Reg.MaskMergeMode.ZEROING


# --- the config structs (the pages' `config` template parameters) ---------------------------------------------------


# --- Ln, Sqrt: the Reg op with the mode the algorithm picks ------------------------------------------------------------
def _ln_mode(algo: LnAlgo) -> Any:
    """`LnImpl`: INTRINSIC and PRECISION_1ULP_FTZ_TRUE plain `Reg::Ln` (ZEROING), PRECISION_1ULP_FTZ_FALSE its mode."""
    return ZEROING if algo is not LnAlgo.PRECISION_1ULP_FTZ_FALSE else Reg.LnSpecificMode(ZEROING, algo)


def _sqrt_mode(algo: SqrtAlgo) -> Any:
    """`SqrtImpl`: INTRINSIC and PRECISION_1ULP_FTZ_TRUE plain `Reg::Sqrt`; FAST_INVERSE {ZEROING, true, FAST_INVERSE};
    PRECISION_0ULP_FTZ_FALSE and PRECISION_1ULP_FTZ_FALSE {ZEROING, false, algo}."""
    if algo in (SqrtAlgo.INTRINSIC, SqrtAlgo.PRECISION_1ULP_FTZ_TRUE):
        return ZEROING
    return Reg.SqrtSpecificMode(ZEROING, algo is SqrtAlgo.FAST_INVERSE, algo)


#: `Ln`: half and float, every interface (the Ln page; LnImpl's static_asserts)
Ln = ConfigApi("Ln", LnConfig, {a: UnaryApi("Ln", with_mode(Reg.Ln, _ln_mode(a)), _FLOAT, _FLOAT) for a in LnAlgo})
#: `Sqrt`: half and float; FAST_INVERSE and PRECISION_0ULP_FTZ_FALSE float only (the Sqrt page: "该算法仅支持float数据类型")
Sqrt = ConfigApi(
    "Sqrt",
    SqrtConfig,
    {
        a: UnaryApi(
            "Sqrt",
            with_mode(Reg.Sqrt, _sqrt_mode(a)),
            *((_F32, _F32) if a in (SqrtAlgo.FAST_INVERSE, SqrtAlgo.PRECISION_0ULP_FTZ_FALSE) else (_FLOAT, _FLOAT)),
        )
        for a in SqrtAlgo
    },
)


# --- Reciprocal ---------------------------------------------------------------------------------------------------------
@simd_callee
def reg_reciprocal(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`RegReciprocal::Reciprocal<T, RegT, precisionMode>`: dst = 1 / src (`mode`: plain `Reg::Div`, or
    {ZEROING, false, PRECISION_1ULP_FTZ_FALSE} for precisionMode); int64 / uint64 (first-n only) run the body of
    `VecUnaryLevel2ImplB64` instead (`reciprocal_b64`)."""
    if dst_reg.dtype.itemsize == 8:
        reciprocal_b64(dst_reg, src_reg, mask)
        return
    Reg.Duplicate(dst_reg, 1.0, mask)  # Reg::Duplicate(dstReg, 1.0f, mask);
    Reg.Div(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Div<T[, &mode]>(dstReg, dstReg, srcReg, mask);


@simd_callee
def reciprocal_b64(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], preg: MaskReg) -> None:
    """The loop body of `VecUnaryLevel2ImplB64` (the first-n Reciprocal of int64 / uint64, two registers per iteration):
    1 / x truncated, by comparisons: 0 → all ones (`0xffffffffffffffff`), 1 → 1, int64 -1 → -1, anything else 0.
    (The library duplicates the constants before its LoadAlign, regsim after: they do not depend on it.)"""
    T = dst_reg.dtype
    two = Reg.RegTraitNumTwo
    reg_one, reg_zero, reg_f = (Reg.RegTensor(T, trait=two) for _ in range(3))
    mask_zero, mask_one = Reg.MaskReg(), Reg.MaskReg()
    all_ones = -1 if T is dt.int64 else (1 << 64) - 1  # static_cast<T>(0xffffffffffffffff)
    Reg.Duplicate(reg_one, 1, preg)  # Reg::Duplicate(vRegOne, T(1), preg);
    Reg.Duplicate(reg_zero, 0, preg)  # Reg::Duplicate(vRegZero, T(0), preg);
    Reg.Duplicate(reg_f, all_ones, preg)  # Reg::Duplicate(vRegF, static_cast<T>(0xffffffffffffffff), preg);
    Reg.Compares(mask_zero, src_reg, 0, preg)  # Reg::CompareScalar(maskZero, vSrcReg0, T(0), preg);
    Reg.Select(dst_reg, reg_f, reg_zero, mask_zero)  # Reg::Select(vDstReg0, vRegF, vRegZero, maskZero);
    Reg.Compares(mask_one, src_reg, 1, preg)  # Reg::CompareScalar(maskOne, vSrcReg0, T(1), preg);
    Reg.Select(dst_reg, reg_one, dst_reg, mask_one)  # Reg::Select(vDstReg0, vRegOne, vDstReg0, maskOne);
    if T is dt.int64:
        reg_neg_one = Reg.RegTensor(T, trait=two)
        mask_neg_one = Reg.MaskReg()
        Reg.Duplicate(reg_neg_one, -1, preg)  # Reg::Duplicate(vRegNegOne, T(-1), preg);
        Reg.Compares(mask_neg_one, src_reg, -1, preg)  # Reg::CompareScalar(maskNegOne, vSrcReg0, T(-1), preg);
        Reg.Select(dst_reg, reg_neg_one, dst_reg, mask_neg_one)  # Reg::Select(vDstReg0, vRegNegOne, vDstReg0, maskNegOne);


def _reciprocal_mode(algo: ReciprocalAlgo) -> Any:
    """`ReciprocalImpl`: INTRINSIC and PRECISION_1ULP_FTZ_TRUE plain Div; PRECISION_1ULP_FTZ_FALSE precisionMode."""
    if algo is ReciprocalAlgo.PRECISION_1ULP_FTZ_FALSE:
        return Reg.DivSpecificMode(ZEROING, False, DivAlgo.PRECISION_1ULP_FTZ_FALSE)
    return ZEROING


#: `Reciprocal`: half and float in every interface, int64 / uint64 first-n only (the Reciprocal page, ReciprocalImpl)
Reciprocal = ConfigApi(
    "Reciprocal",
    ReciprocalConfig,
    {a: UnaryApi("Reciprocal", with_mode(reg_reciprocal, _reciprocal_mode(a)), _FLOAT | _B64, _FLOAT) for a in ReciprocalAlgo},
)


# --- Rsqrt ----------------------------------------------------------------------------------------------------------------
@simd_callee
def reg_rsqrt(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`RegRsqrt::Rsqrt<T, RegT, false>` (INTRINSIC, PRECISION_1ULP_FTZ_TRUE): dst = 1 / sqrt(src), the square root
    taken in place in srcReg; a negative src gives the Sqrt's NaN (the Select), not 1 / NaN."""
    T = dst_reg.dtype
    cmp_mask = Reg.MaskReg()
    Reg.Duplicate(dst_reg, T.np_dtype.type(1.0), mask)  # Reg::Duplicate(dstReg, static_cast<T>(1.0f), mask);
    Reg.Compares(cmp_mask, src_reg, 0.0, mask, mode=CMPMODE.LT)  # CompareScalar<T, LT>(cmpMask, srcReg, 0, mask);
    Reg.Sqrt(src_reg, src_reg, mask)  # Reg::Sqrt(srcReg, srcReg, mask);
    Reg.Div(dst_reg, dst_reg, src_reg, mask)  # Reg::Div(dstReg, dstReg, srcReg, mask);
    Reg.Select(dst_reg, src_reg, dst_reg, cmp_mask)  # Reg::Select(dstReg, srcReg, dstReg, cmpMask);


@simd_callee
def reg_rsqrt_precise(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`RegRsqrt::Rsqrt<T, RegT, true>` (FAST_INVERSE, PRECISION_0ULP_FTZ_FALSE, PRECISION_1ULP_FTZ_FALSE): half
    `Sqrt` and `Div` with PRECISION_1ULP_FTZ_FALSE, float with PRECISION_0ULP_FTZ_FALSE; no Select (the CompareScalar
    result is not used)."""
    T = dst_reg.dtype
    cmp_mask = Reg.MaskReg()
    Reg.Duplicate(dst_reg, T.np_dtype.type(1.0), mask)  # Reg::Duplicate(dstReg, static_cast<T>(1.0f), mask);
    Reg.Compares(cmp_mask, src_reg, 0.0, mask, mode=CMPMODE.LT)  # CompareScalar<T, LT>(cmpMask, srcReg, 0, mask);
    if T is dt.half:
        sqrt_mode = Reg.SqrtSpecificMode(ZEROING, False, SqrtAlgo.PRECISION_1ULP_FTZ_FALSE)
        div_mode = Reg.DivSpecificMode(ZEROING, False, DivAlgo.PRECISION_1ULP_FTZ_FALSE)
    else:
        sqrt_mode = Reg.SqrtSpecificMode(ZEROING, False, SqrtAlgo.PRECISION_0ULP_FTZ_FALSE)
        div_mode = Reg.DivSpecificMode(ZEROING, False, DivAlgo.PRECISION_0ULP_FTZ_FALSE)
    Reg.Sqrt(src_reg, src_reg, mask, mode=sqrt_mode)  # Reg::Sqrt<T, &SqrtMode>(srcReg, srcReg, mask);
    Reg.Div(dst_reg, dst_reg, src_reg, mask, mode=div_mode)  # Reg::Div<T, &divMode>(dstReg, dstReg, srcReg, mask);


@simd_vf
def rsqrt_fast_inverse_vf(dst: UbPtr[dt.float32], src: UbPtr[dt.float32], count: int) -> None:
    """`VecUnaryLevel2ImplFloat` (the first-n Rsqrt of float with FAST_INVERSE, PRECISION_0ULP_FTZ_FALSE or
    PRECISION_1ULP_FTZ_FALSE): x below the smallest normal scaled by 2**24; r = 1 / x, y = sqrt(r), one Newton step
    y = y * (1.5 - 0.5 * x * y * y), then the correction s = 1 - x * r, t = r - y * y, e = s + x * t,
    y = y + y * e * 0.5 (the products-and-adds fused, `MulAddDst`); a scaled x's y times 2**12; x = +inf → +0,
    +0 → +inf, -0 → -inf."""
    T = dt.float32
    sreg_lower = VL // T.itemsize  # GetVecLen() / sizeof(T)
    sreg = Ref(count)
    repeat_time = -(-count // sreg_lower)  # CeilDivision(count, sregLower)
    reg_zero, src_reg, dst_reg, reg_one, reg_one_half = (Reg.RegTensor(T) for _ in range(5))
    tmp_reg, div_reg, mul_reg, res_reg, neg_inf_reg, pos_inf_reg = (Reg.RegTensor(T) for _ in range(6))
    is_inf_mask, is_pos_zero_mask, is_neg_zero_mask, cmp_mask = (Reg.MaskReg() for _ in range(4))
    mask_full = Reg.CreateMask(T)  # MaskReg maskFull = CreateMask<T>();
    Reg.Duplicate(reg_zero, 0.0, mask_full)  # Duplicate(regZero, 0.0f, maskFull);
    Reg.Duplicate(pos_inf_reg, math.inf, mask_full)  # Duplicate(posInfReg, notNum0.f, maskFull);  (F32_INF)
    Reg.Duplicate(neg_inf_reg, -math.inf, mask_full)  # Duplicate(negInfReg, notNum1.f, maskFull);  (F32_NEG_INF)
    bits = dt.uint32
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg)  # mask = UpdateMask<T>(sreg);
        Reg.LoadAlign(src_reg, src + i * sreg_lower)  # LoadAlign(srcReg, src + i * sregLower);
        Reg.Duplicate(reg_one, 1.0, mask_full)  # Duplicate(regOne, 1.0f, maskFull);
        Reg.Duplicate(reg_one_half, 1.5, mask_full)  # Duplicate(regOneHalf, oneHalf, maskFull);
        Reg.Compares(cmp_mask, src_reg, _SUBNORMAL_BOUND, mask, mode=CMPMODE.LT)  # CompareScalar<T, LT>(cmpMask, ...);
        Reg.Muls(tmp_reg, src_reg, 16777216.0, mask)  # Muls(tmpReg, srcReg, multiplyFactor0, mask);
        Reg.Select(src_reg, tmp_reg, src_reg, cmp_mask)  # Select(srcReg, tmpReg, srcReg, cmpMask);
        Reg.Div(div_reg, reg_one, src_reg, mask)  # r = errdiv(1.0, x);
        Reg.Sqrt(res_reg, div_reg, mask)  # y = errsqrt(r);
        Reg.Muls(tmp_reg, src_reg, -0.5, mask)  # -0.5x
        Reg.Mul(mul_reg, tmp_reg, res_reg, mask)  # -0.5xy
        Reg.MulAddDst(reg_one_half, mul_reg, res_reg, mask)  # 1.5 - 0.5xy*y
        Reg.Mul(res_reg, reg_one_half, res_reg, mask)  # y = y * (1.5 + (-0.5*x*y) * y)
        Reg.Muls(tmp_reg, src_reg, -1.0, mask)  # -x
        Reg.MulAddDst(reg_one, tmp_reg, div_reg, mask)  # s = 1 - x*r
        Reg.Muls(tmp_reg, res_reg, -1.0, mask)  # -y
        Reg.MulAddDst(div_reg, tmp_reg, res_reg, mask)  # t = r + (-y) * y
        Reg.MulAddDst(reg_one, src_reg, div_reg, mask)  # e = s + x * t
        Reg.Muls(mul_reg, res_reg, 0.5, mask)  # 0.5*y
        Reg.MulAddDst(res_reg, mul_reg, reg_one, mask)  # y = y + s*0.5y
        Reg.Muls(tmp_reg, res_reg, 4096.0, mask)  # Muls(tmpReg, resReg, multiplyFactor1, mask);
        Reg.Select(dst_reg, tmp_reg, res_reg, cmp_mask)  # Select(dstReg, tmpReg, resReg, cmpMask);
        Reg.Compares(is_inf_mask, src_reg.reinterpret(bits), 0x7F800000, mask)  # CompareScalar(isInfMask, .., posInf, mask);
        Reg.Select(dst_reg, reg_zero, dst_reg, is_inf_mask)
        Reg.Compares(is_pos_zero_mask, src_reg.reinterpret(bits), 0, mask)  # (isPosZeroMask, ..., posZero, mask);
        Reg.Select(dst_reg, pos_inf_reg, dst_reg, is_pos_zero_mask)
        Reg.Compares(is_neg_zero_mask, src_reg.reinterpret(bits), 0x80000000, mask)  # (isNegZeroMask, ..., negZero, mask);
        Reg.Select(dst_reg, neg_inf_reg, dst_reg, is_neg_zero_mask)
        Reg.StoreAlign(dst + i * sreg_lower, dst_reg, mask)  # StoreAlign(dst + i * sregLower, dstReg, mask);


_SUBNORMAL_BOUND: Final = float(np.float32(1.1754944e-38))  #: constexpr float subnormalBound = 1.1754944e-38;


@attrs.frozen
class RsqrtPrecise:
    """`RsqrtImpl` with FAST_INVERSE, PRECISION_0ULP_FTZ_FALSE or PRECISION_1ULP_FTZ_FALSE: `RsqrtPrecisionModeImpl` in the
    first-n interface (half: the unary skeleton over `RegRsqrt::Rsqrt<T, RegT, true>`; float: the fast-inverse VF
    `VecUnaryLevel2ImplFloat`), the unary skeleton over `RegRsqrt::Rsqrt<T, RegT, true>` in the mask/repeat ones."""

    skeleton: UnaryApi
    name: str = "Rsqrt"

    @host_method
    @unchanged_on_error
    def __call__(self, dst: Any, src: Any, *args: Any, is_set_mask: bool = True) -> None:
        if len(args) != 1 or not isinstance(dst, LocalTensor) or dst.dtype is not dt.float32:
            self.skeleton(dst, src, *args, is_set_mask=is_set_mask)
            return
        host_only(self.name)
        check_set_mask(self.name, is_set_mask)
        names, ts = ("dst", "src"), (dst, src)
        check_tensors(self.name, _F32, names, ts)
        n = check_count(self.name, args[0], names, ts)
        run_lowering(self.name, rsqrt_fast_inverse_vf, dst.GetPhyAddr(), src.GetPhyAddr(), n)


_RSQRT_INTRINSIC: Final = (RsqrtAlgo.INTRINSIC, RsqrtAlgo.PRECISION_1ULP_FTZ_TRUE)
_RSQRT_PRECISE: Final = UnaryApi("Rsqrt", with_mode(reg_rsqrt_precise, ZEROING), _FLOAT, _FLOAT)
#: one lowering per algorithm: the unary skeleton, or `RsqrtPrecise` (its first-n float VF) for the precise ones
_RSQRT_BY_ALGO: dict[Any, Any] = {
    a: UnaryApi("Rsqrt", with_mode(reg_rsqrt, ZEROING), _FLOAT, _FLOAT) if a in _RSQRT_INTRINSIC else RsqrtPrecise(_RSQRT_PRECISE)
    for a in RsqrtAlgo
}
#: `Rsqrt`: half and float in every interface and algorithm (the Rsqrt page, RsqrtImpl)
Rsqrt = ConfigApi("Rsqrt", RsqrtConfig, _RSQRT_BY_ALGO)

#: `Neg` (the Neg(ISASI) page: the first-n interface only; NegImpl)
Neg = UnaryApi(
    "Neg",
    Reg.Neg,
    frozenset({dt.int8, dt.int16, dt.int32, dt.half, dt.float32, dt.int64}),
    frozenset(),
)


# --- AddRelu, SubRelu: the binary skeletons over the op and `Maxs(dst, dst, 0)` --------------------------------------------
@simd_callee
def reg_add_relu(
    dst_reg: RegTensor[Any], src_reg0: RegTensor[Any], src_reg1: RegTensor[Any], mask: MaskReg, *, mode: Any
) -> None:
    """`RegAddRelu::AddRelu` (and the body of the first-n `AddReluImpl` VF): `Add`, then `Maxs(dst, dst, (T)0)`."""
    Reg.Add(dst_reg, src_reg0, src_reg1, mask, mode=mode)  # Reg::Add(dstReg, srcReg0, srcReg1, mask);
    Reg.Maxs(dst_reg, dst_reg, 0, mask, mode=mode)  # Reg::Maxs(dstReg, dstReg, (T)0, mask);


@simd_callee
def reg_sub_relu(
    dst_reg: RegTensor[Any], src_reg0: RegTensor[Any], src_reg1: RegTensor[Any], mask: MaskReg, *, mode: Any
) -> None:
    """`RegSubRelu::SubRelu` (and the body of the first-n `SubReluImpl` VF): `Sub`, then `Maxs(dst, dst, (T)0)`."""
    Reg.Sub(dst_reg, src_reg0, src_reg1, mask, mode=mode)  # Reg::Sub(dstReg, srcReg0, srcReg1, mask);
    Reg.Maxs(dst_reg, dst_reg, 0, mask, mode=mode)  # Reg::Maxs(dstReg, dstReg, (T)0, mask);


_RELU_REPEAT: Final = frozenset({dt.int16, dt.half, dt.float32})
#: the AddRelu and SubRelu pages' 950 types: int16, half, float (every interface), int64, uint64 (first-n only)
AddRelu = BinaryApi("AddRelu", reg_add_relu, _RELU_REPEAT | _B64, _RELU_REPEAT)
SubRelu = BinaryApi("SubRelu", reg_sub_relu, _RELU_REPEAT | _B64, _RELU_REPEAT)


# --- FusedMulAdd, MulAddRelu, MulAddDst: dst is an operand too (BinaryFuncMode::DST_SRC_INPUT) ------------------------------
@simd_callee
def reg_fused_mul_add(dst_reg: RegTensor[Any], src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`FusedMulAddImpl`: dst = src0 * dst + src1 — `Reg::FusedMulDstAdd` (fused); 64-bit types (the first-n VF's
    RegTraitNumTwo branch) `Mul(tmp, src0, dst)` then `Add(dst, tmp, src1)`."""
    if dst_reg.dtype.itemsize == 8:
        tmp = Reg.RegTensor(dst_reg.dtype, trait=Reg.RegTraitNumTwo)  # RegTensor<T, RegTraitNumTwo> vDstReg1;
        Reg.Mul(tmp, src0, dst_reg, mask, mode=mode)  # Reg::Mul(vDstReg1, vSrcReg0, vDstReg0, mask);
        Reg.Add(dst_reg, tmp, src1, mask, mode=mode)  # Reg::Add(vDstReg0, vDstReg1, vSrcReg1, mask);
        return
    Reg.FusedMulDstAdd(dst_reg, src0, src1, mask, mode=mode)  # Reg::FusedMulDstAdd(dstReg, src0Reg, src1Reg, mask);


@simd_callee
def reg_fused_mul_add_relu(
    dst_reg: RegTensor[Any], src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, *, mode: Any
) -> None:
    """`FusedMulAddReluImpl` (the MulAddRelu page): `reg_fused_mul_add`, then `Maxs(dst, dst, (T)0)`."""
    reg_fused_mul_add(dst_reg, src0, src1, mask, mode=mode)
    Reg.Maxs(dst_reg, dst_reg, 0, mask, mode=mode)  # Reg::Maxs(dstReg, dstReg, scalarValue, mask);


_FMA_REPEAT: Final = frozenset({dt.half, dt.bfloat16, dt.float32})
#: `FusedMulAdd(dst, src0, src1, ...)`: dst = src0 * dst + src1 (the page: half, bfloat16, float; int64, uint64 first-n)
FusedMulAdd = BinaryApi("FusedMulAdd", reg_fused_mul_add, _FMA_REPEAT | _B64, _FMA_REPEAT, dst_input=True)
#: `MulAddRelu(dst, src0, src1, ...)`: max(src0 * dst + src1, 0) (the page: half, float; int64, uint64 first-n)
MulAddRelu = BinaryApi("MulAddRelu", reg_fused_mul_add_relu, _FLOAT | _B64, _FLOAT, dst_input=True)
#: `CastParam::mulAddDstTrait` and `RegAxpy::CastParam::half2floatTrait`: half → float, the even lanes (ZERO layout)
HALF_TO_FLOAT: Final = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.UNKNOWN, Reg.MaskMergeMode.ZEROING, RoundMode.UNKNOWN)


@simd_callee
def widen_low_half(dst_reg: RegTensor[dt.float32], src_reg: RegTensor[dt.half], mask: MaskReg) -> None:
    """The lower 64 halves of `src_reg` as floats: `UnPack<uint32_t, uint16_t, HighLowPart::LOWEST>(tmp, src)` (each
    half in the even half-lane of a 32-bit lane), then `Cast<float, half, trait>(dst, tmp, mask)` (ZERO layout)."""
    tmp_reg = Reg.RegTensor(dt.half)  # RegTensor<half> fp16RegTemp;
    Reg.UnPack(tmp_reg.reinterpret(dt.uint32), src_reg.reinterpret(dt.uint16), part=Reg.HighLowPart.LOWEST)
    Reg.Cast(dst_reg, tmp_reg, mask, trait=HALF_TO_FLOAT)  # Cast<float, half, CastParam::...Trait>(cvt, tmp, mask);


@simd_callee
def reg_mul_add_dst(dst_reg: RegTensor[Any], src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
    """`RegMulAddDst::MulAddDst`: the same-type pairs `Reg::MulAddDst` (src0 * src1 + dst, fused); half sources and a
    float dst: "the first 64 half is needed to do muladddst in each repeat" — each source's lower 64 halves widened
    (`widen_low_half`), then `Reg::MulAddDst` on floats."""
    if dst_reg.dtype is src0.dtype:
        Reg.MulAddDst(dst_reg, src0, src1, mask, mode=mode)  # Reg::MulAddDst(dstReg, srcReg0, srcReg1, mask);
        return
    cast_reg1 = Reg.RegTensor(dt.float32)  # Reg::RegTensor<float> castReg1, castReg2;
    cast_reg2 = Reg.RegTensor(dt.float32)
    widen_low_half(cast_reg1, src0, mask)
    widen_low_half(cast_reg2, src1, mask)
    Reg.MulAddDst(dst_reg, cast_reg1, cast_reg2, mask, mode=mode)  # Reg::MulAddDst(dstReg, castReg1, castReg2, mask);


@simd_vf
def mul_add_dst_cast_vf(dst: UbPtr[dt.float32], src0: UbPtr[dt.half], src1: UbPtr[dt.half], count: int) -> None:
    """The first-n `MulAddDstImpl(float* dst, half* src0, half* src1, calCount)` overload: 64 elements a repeat,
    each source's 64 halves loaded one per 32-bit lane (`LoadAlign<half, DIST_UNPACK_B16>`), cast to float
    (`mulAddDstTrait`), `Reg::MulAddDst` into the dst floats."""
    sreg = Ref(count)  # uint32_t sregB32 = static_cast<uint32_t>(calCount);
    num_per_rep = VL // dt.float32.itemsize  # GetVecLen() / sizeof(float)
    src0_reg = Reg.RegTensor(dt.half)  # Reg::RegTensor<half> src0Reg, src1Reg;
    src1_reg = Reg.RegTensor(dt.half)
    dst_reg = Reg.RegTensor(dt.float32)  # Reg::RegTensor<float> dstReg, castReg1, castReg2;
    cast_reg1 = Reg.RegTensor(dt.float32)
    cast_reg2 = Reg.RegTensor(dt.float32)
    for i in range(-(-count // num_per_rep)):
        mask = Reg.UpdateMask(dt.float32, sreg)  # maskB32 = Reg::UpdateMask<float>(sregB32);
        Reg.LoadAlign(src0_reg, src0 + i * num_per_rep, dist=Reg.LoadDist.DIST_UNPACK_B16)  # 64 half
        Reg.LoadAlign(src1_reg, src1 + i * num_per_rep, dist=Reg.LoadDist.DIST_UNPACK_B16)  # 64 half
        Reg.Cast(cast_reg1, src0_reg, mask, trait=HALF_TO_FLOAT)  # Cast<float, half, mulAddDstTrait>(castReg1, ...)
        Reg.Cast(cast_reg2, src1_reg, mask, trait=HALF_TO_FLOAT)
        Reg.LoadAlign(dst_reg, dst + i * num_per_rep)  # Reg::LoadAlign(dstReg, dst + i * numPerRep);
        Reg.MulAddDst(dst_reg, cast_reg1, cast_reg2, mask)  # Reg::MulAddDst(dstReg, castReg1, castReg2, maskB32);
        Reg.StoreAlign(dst + i * num_per_rep, dst_reg, mask)  # Reg::StoreAlign(dst + i * numPerRep, dstReg, maskB32);


def _is_cast_pair(dst: object, src: object) -> bool:
    """The pages' mixed row: a float dst and half sources (`Tuple<float, half>` of the static_asserts)."""
    return isinstance(dst, LocalTensor) and isinstance(src, LocalTensor) and dst.dtype is dt.float32 and src.dtype is dt.half


def _check_cast_pair(api: str, names: tuple[str, ...], ts: tuple[LocalTensor[Any], ...]) -> None:
    """dst float, the sources half, one UnifiedBuffer, 32-byte aligned starts (the checks `check_tensors` makes)."""
    check_tensors(api, frozenset({dt.half}), names[1:], ts[1:])
    if ts[0].ub is not ts[1].ub:
        raise ParameterError(message(api, names[0], repr(ts[0]), f"a LocalTensor in the same UnifiedBuffer as {names[1]}"))
    check_tensors(api, frozenset({dt.float32}), names[:1], ts[:1])
    dst = ts[0]
    for name, t in zip(names[1:], ts[1:], strict=True):  # the pages: "…half、…float的情况下，不支持地址重叠"
        if t.addr < dst.addr + dst.nbytes and dst.addr < t.addr + t.nbytes:
            accepted = f"a LocalTensor that does not overlap {names[0]} (half sources, float dst: no address overlap)"
            raise ParameterError(message(api, name, f"UB bytes [{t.addr}, {t.addr + t.nbytes})", accepted))


@attrs.frozen
class CastPairBinaryApi(BinaryApi):
    """A binary API whose page also has the half-sources / float-dst row (MulAddDst): that row runs the first-n
    `cast_vf` or, for the mask/repeat interfaces, `vec_binary_vf` with U = half (`VecBinaryVFImpl<..., float, half>`)."""

    cast_vf: Any = None

    @host_method
    @unchanged_on_error
    def __call__(
        self, dst: LocalTensor[Any], src0: LocalTensor[Any], src1: LocalTensor[Any], *args: Any, is_set_mask: bool = True
    ) -> None:
        if not _is_cast_pair(dst, src0):
            BinaryApi.__call__(self, dst, src0, src1, *args, is_set_mask=is_set_mask)
            return
        host_only(self.name)
        names, ts = ("dst", "src0", "src1"), (dst, src0, src1)
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        if len(args) == 1:
            check_set_mask(self.name, is_set_mask)
            _check_cast_pair(self.name, names, ts)
            n = check_count(self.name, args[0], names, ts)
            run_lowering(self.name, self.cast_vf, *ptrs, n)
            return
        if len(args) != 3:
            raise arguments_error(
                self.name, len(args) + 3, "(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)"
            )
        _check_cast_pair(self.name, names, ts)
        plan = repeat_plan(self.name, dt.float32, args[0], args[1], args[2], BinaryRepeatParams, is_set_mask)
        run_lowering(self.name, vec_binary_vf, self.op, *ptrs, plan[0], plan[1], args[2], plan[2], plan[3], -1, True)


#: `MulAddDst(dst, src0, src1, ...)`: dst = src0 * src1 + dst, `Reg::MulAddDst` (fused): the page's same-type pairs
#: (half, float; int64, uint64 first-n) and its half-sources / float-dst pair (every interface; decisions §128)
MulAddDst = CastPairBinaryApi("MulAddDst", reg_mul_add_dst, _FLOAT | _B64, _FLOAT, dst_input=True, cast_vf=mul_add_dst_cast_vf)


# --- Axpy: dst = src * scalar + dst (kernel_operator_vec_ternary_scalar_impl.h) ----------------------------------------------
@simd_callee
def reg_axpy(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegAxpy::Axpy`: `Reg::Axpy` (fused) for half, float, int64, uint64; bfloat16 unfused:
    `Duplicate(tmp, scalar)`, `Mul(tmp, src, tmp)`, `Add(dst, tmp, dst)`; a half src and a float dst: the lower 64
    halves widened (`widen_low_half`), `Muls` by the scalar as a float (exact: a product of two halves fits a
    float), `Add` to dst (rounded once, by the Add)."""
    if dst_reg.dtype is not src_reg.dtype:  # SupportType<Tuple<T, U>, Tuple<float, half>>
        cvt_reg = Reg.RegTensor(dt.float32)  # RegT cvtReg;
        widen_low_half(cvt_reg, src_reg, mask)
        Reg.Muls(cvt_reg, cvt_reg, scalar_value, mask, mode=mode)  # Muls(cvtReg, cvtReg, static_cast<T>(scalarValue), mask);
        Reg.Add(dst_reg, cvt_reg, dst_reg, mask, mode=mode)  # Reg::Add(dstReg, cvtReg, dstReg, mask);
        return
    if dst_reg.dtype is dt.bfloat16:
        tmp_reg = Reg.RegTensor(dt.bfloat16)  # RegT tmpReg;
        Reg.Duplicate(tmp_reg, scalar_value, mask)  # Reg::Duplicate(tmpReg, scalarValue, mask);
        Reg.Mul(tmp_reg, src_reg, tmp_reg, mask, mode=mode)  # Reg::Mul(tmpReg, srcReg, tmpReg, mask);
        Reg.Add(dst_reg, tmp_reg, dst_reg, mask, mode=mode)  # Reg::Add(dstReg, tmpReg, dstReg, mask);
        return
    Reg.Axpy(dst_reg, src_reg, scalar_value, mask, mode=mode)  # Reg::Axpy(dstReg, srcReg, scalarValue, mask);


_AXPY_REPEAT: Final = frozenset({dt.half, dt.float32, dt.bfloat16})


@attrs.frozen
class CastPairAxpyApi(UnaryApi):
    """Axpy with the page's half-src / float-dst row: `VecAxpyLevel2VFImpl<..., float, half>` (`unary_continuous_vf`,
    its src register half) and `VecAxpyVFImpl<..., float, half>` (`vec_unary_vf` with U = half); the scalar is the
    C++ `const U& scalarValue`, a half."""

    @host_method
    @unchanged_on_error
    def __call__(
        self, dst: LocalTensor[Any], src: LocalTensor[Any], *args: Any, is_set_mask: bool = True, config: Any = None
    ) -> None:
        if not _is_cast_pair(dst, src) or config is not None:
            UnaryApi.__call__(self, dst, src, *args, is_set_mask=is_set_mask, config=config)
            return
        host_only(self.name)
        names, ts = ("dst", "src"), (dst, src)
        head = "(dst, src, scalar_value, "
        if len(args) not in (2, 4):
            raise arguments_error(self.name, len(args) + 2, f"{head}count) or {head}mask, repeat_time, repeat_params)")
        scalar = half_scalar(self.name, args[0])
        ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
        if len(args) == 2:
            check_set_mask(self.name, is_set_mask)
            _check_cast_pair(self.name, names, ts)
            n = check_count(self.name, args[1], names, ts)
            # The VF loads a whole register of halves (128) at every 64 elements and unpacks it: the upper 64 lanes
            # never reach dst, but `UnPack` reads every lane; the elements used are checked here (decisions §128).
            check_written(self.name, "src", src, n * dt.half.itemsize)
            with configure(check_uninitialized=False):
                run_lowering(self.name, unary_continuous_vf, self.op, *ptrs, (scalar,), n, Reg.RegTraitNumOne, True)
            return
        _check_cast_pair(self.name, names, ts)
        plan = repeat_plan(self.name, dt.float32, args[1], args[2], args[3], UnaryRepeatParams, is_set_mask)
        run_lowering(self.name, vec_unary_vf, self.op, *ptrs, (scalar,), plan[0], plan[1], args[3], plan[2], plan[3], True)


def half_scalar(api: str, value: object) -> float:
    """`const half& scalarValue`: a real number, rounded to half (to nearest, ties to even) as the C++ conversion does."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(message(api, "scalar_value", repr(value), "a real number (converted to half)"))
    with np.errstate(over="ignore"):
        return float(np.float16(float(value)))


#: `Axpy(dst, src, scalarValue, ...)`: dst = src * scalar + dst; the page's same-type rows (half, float, bfloat16;
#: int64, uint64 first-n) and its half-src / float-dst row (every interface; decisions §128)
Axpy = CastPairAxpyApi("Axpy", reg_axpy, _AXPY_REPEAT | _B64, _AXPY_REPEAT, scalar=True, dst_input=True)


# --- Prelu, AbsSub, Mull: binary, the first-n interface only (their ISASI pages) ------------------------------------------
#: `Prelu(dst, src0, src1, count)`: `PreluImpl` is the binary first-n skeleton over `Reg::Prelu` (half, float)
Prelu = BinaryApi("Prelu", Reg.Prelu, _FLOAT, frozenset())
#: `AbsSub(dst, src0, src1, count)`: `FusedAbsSubImpl`, the binary first-n skeleton over `Reg::FusedAbsSub` (half, float)
AbsSub = BinaryApi("AbsSub", Reg.FusedAbsSub, _FLOAT, frozenset())
_MULL: Final = frozenset({dt.int32, dt.uint32})


@simd_vf
def mull_vf(dst0: UbPtr[Any], dst1: UbPtr[Any], src0: UbPtr[Any], src1: UbPtr[Any], cal_count: int) -> None:
    """`MullImpl`: per register `Reg::Mull` of the two sources into the product's low words (dst0) and high words (dst1)."""
    T = dst0.dtype
    sreg_lower = VL // T.itemsize  # GetVecLen() / sizeof(T)
    repeat_time = -(-cal_count // sreg_lower)  # CeilDivision(calCount, sregLower)
    sreg = Ref(cal_count)
    dst_reg0, dst_reg1, src_reg0, src_reg1 = (Reg.RegTensor(T) for _ in range(4))
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg)  # mask = UpdateMask<T>(sreg);
        Reg.LoadAlign(src_reg0, src0 + i * sreg_lower)
        Reg.LoadAlign(src_reg1, src1 + i * sreg_lower)
        Reg.Mull(dst_reg0, dst_reg1, src_reg0, src_reg1, mask)  # Mull(vDstReg0, vDstReg1, vSrcReg0, vSrcReg1, mask);
        Reg.StoreAlign(dst0 + i * sreg_lower, dst_reg0, mask)
        Reg.StoreAlign(dst1 + i * sreg_lower, dst_reg1, mask)


@host_api("Mull")
@unchanged_on_error
def Mull(dst0: LocalTensor[Any], dst1: LocalTensor[Any], src0: LocalTensor[Any], src1: LocalTensor[Any], count: int) -> None:
    """`AscendC::Mull(dst0, dst1, src0, src1, count)` (the Mull(ISASI) page): the 64-bit product of src0[i] and src1[i],
    its low 32 bits to dst0[i], its high 32 bits to dst1[i], for i < count (int32, uint32; the first-n interface only)."""
    host_only("Mull")
    names, ts = ("dst0", "dst1", "src0", "src1"), (dst0, dst1, src0, src1)
    check_tensors("Mull", _MULL, names, ts)
    n = check_count("Mull", count, names, ts)
    ptrs = (dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
    run_lowering("Mull", mull_vf, *ptrs, n)


# --- Truncate (ISASI): round to an integral value in the same type, first-n only (kernel_operator_vec_vconv_impl.h) -----------
#: `Truncate<T, roundMode>`'s roundMode (TruncateImpl's static_assert): no default, CAST_NONE not among them
_TRUNCATE_MODES: Final = (
    RoundMode.CAST_RINT,
    RoundMode.CAST_FLOOR,
    RoundMode.CAST_CEIL,
    RoundMode.CAST_ROUND,
    RoundMode.CAST_TRUNC,
)


def _truncate_op(round_mode: RoundMode) -> Any:
    def call(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, *, mode: Any) -> None:
        Reg.Truncate(dst_reg, src_reg, mask, round_mode=round_mode, mode=mode)  # Reg::Truncate<T, roundMode>(...);

    return call


_TRUNCATE: Final = {
    m: UnaryApi("Truncate", _truncate_op(m), frozenset({dt.half, dt.float32, dt.bfloat16}), frozenset()) for m in _TRUNCATE_MODES
}


@host_api("Truncate")
@unchanged_on_error
def Truncate(dst: LocalTensor[Any], src: LocalTensor[Any], count: int, *, round_mode: RoundMode) -> None:
    """`AscendC::Truncate<T, roundMode>(dst, src, count)` (the Truncate(ISASI) page): dst[i] = src[i] rounded to an
    integral value of the same type by `round_mode` (the template argument, required: CAST_RINT, CAST_FLOOR, CAST_CEIL,
    CAST_ROUND, CAST_TRUNC), i < count; half, float, bfloat16; `TruncateImpl`, the unary first-n skeleton over
    `Reg::Truncate`."""
    host_only("Truncate")
    if not isinstance(round_mode, RoundMode) or round_mode not in _TRUNCATE:
        accepted = expected_member(RoundMode, round_mode, "rs.AscendC", _TRUNCATE_MODES)
        raise ParameterError(message("Truncate", "round_mode", repr(round_mode), accepted))
    _TRUNCATE[round_mode](dst, src, count)


#: (the explorer's names: the default config)
APIS.update(
    {
        "Ln": Ln.by_algo[LnAlgo.INTRINSIC],
        "Sqrt": Sqrt.by_algo[SqrtAlgo.INTRINSIC],
        "Rsqrt": Rsqrt.by_algo[RsqrtAlgo.INTRINSIC],
        "Reciprocal": Reciprocal.by_algo[ReciprocalAlgo.INTRINSIC],
        "Neg": Neg,
        "Prelu": Prelu,
        "AbsSub": AbsSub,
        "AddRelu": AddRelu,
        "SubRelu": SubRelu,
        "FusedMulAdd": FusedMulAdd,
        "MulAddRelu": MulAddRelu,
        "MulAddDst": MulAddDst,
        "Axpy": Axpy,
    }
)
