"""The memory-level APIs with an algorithm `config` template parameter (`Div<T, isSetMask, config>`, `Exp`, `Ln`,
`Sqrt`, `Rsqrt`, `Reciprocal`): one lowering per algorithm, each the Reg op (with the mode the algorithm picks) or the
Reg callee the 950 library runs (kernel_operator_vec_binary_impl.h, kernel_operator_vec_unary_impl.h for dav_3510:
`DivImpl`, `ExpImpl`, `LnImpl`, `SqrtImpl`, `RsqrtImpl`, `ReciprocalImpl`) on the binary / unary skeletons of
`regsim._src.lowerings.elementwise`; Rsqrt's precise algorithms run the library's fast-inverse VF for float in the
first-n interface.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_count, check_tensors, run_lowering
from regsim._src.lowerings.dtype_sets import FLOAT32, FLOAT_COMPLEX64, HALF_FLOAT, DTypeSet
from regsim._src.lowerings.elementwise import Binary, Unary
from regsim._src.lowerings.spec import Call, Form
from regsim._src.lowerings.structs import DivConfig, ExpConfig, LnConfig, ReciprocalConfig, RsqrtConfig, SqrtConfig
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import CMPMODE, DivAlgo, ExpAlgo, LnAlgo, ReciprocalAlgo, RsqrtAlgo, SqrtAlgo
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf

ZEROING: Final = Reg.MaskMergeMode.ZEROING
Run = Callable[[Call], None]
#: dtypes per algorithm where an algorithm narrows the interfaces': algo -> {form: dtypes}
ByAlgo = Mapping[Any, Mapping[Form, DTypeSet]]


@attrs.frozen
class ByAlgorithm:
    """An API with a `config` template parameter: the run of `config.algo` (None: the config's default), the call's
    interface narrowed to that algorithm's dtypes where `dtypes` says so."""

    config: type
    runs: Mapping[Any, Run]
    dtypes: ByAlgo = attrs.field(factory=dict)

    def __call__(self, c: Call) -> None:
        algo = (self.config() if c["config"] is None else c["config"]).algo
        narrowed = self.dtypes.get(algo, {}).get(c.form)
        if narrowed is not None:
            c = attrs.evolve(c, iface=attrs.evolve(c.iface, dtypes=narrowed))
        self.runs[algo](c)


def _forms(count: DTypeSet, repeat: DTypeSet) -> Mapping[Form, DTypeSet]:
    return {Form.COUNT: count, Form.BITS: repeat, Form.CONTINUOUS: repeat}


def with_mode(op: Callable[..., None], mode: Any) -> Callable[..., None]:
    """`op` with the mode a config picks, called as the lowering skeletons call their op (`mode=ZEROING`)."""

    def call(*args: Any, **kwargs: Any) -> None:  # (the skeleton's mode=ZEROING is replaced)
        op(*args, mode=mode)

    return call


# --- Div, Exp, Ln, Sqrt: the Reg op with the mode the algorithm picks -------------------------------------------
def _div_mode(algo: DivAlgo) -> Any:
    """The Reg::Div mode `DivImpl` picks per algorithm (kernel_operator_vec_binary_impl.h for dav_3510)."""
    if algo in (DivAlgo.INTRINSIC, DivAlgo.PRECISION_1ULP_FTZ_TRUE):
        return ZEROING
    if algo in (DivAlgo.DIFF_COMPENSATION, DivAlgo.PRECISION_0ULP_FTZ_TRUE):
        return Reg.DivSpecificMode(ZEROING, True, DivAlgo.PRECISION_0ULP_FTZ_TRUE)
    return Reg.DivSpecificMode(ZEROING, False, algo)


def _exp_mode(algo: ExpAlgo) -> Any:
    """The Reg::Exp mode `ExpImpl` picks per algorithm (kernel_operator_vec_unary_impl.h for dav_3510)."""
    return ZEROING if algo is not ExpAlgo.PRECISION_1ULP_FTZ_FALSE else Reg.ExpSpecificMode(ZEROING, algo)


def _ln_mode(algo: LnAlgo) -> Any:
    """`LnImpl`: INTRINSIC and PRECISION_1ULP_FTZ_TRUE plain `Reg::Ln` (ZEROING), PRECISION_1ULP_FTZ_FALSE its mode."""
    return ZEROING if algo is not LnAlgo.PRECISION_1ULP_FTZ_FALSE else Reg.LnSpecificMode(ZEROING, algo)


def _sqrt_mode(algo: SqrtAlgo) -> Any:
    """`SqrtImpl`: INTRINSIC and PRECISION_1ULP_FTZ_TRUE plain `Reg::Sqrt`; FAST_INVERSE {ZEROING, true, FAST_INVERSE};
    PRECISION_0ULP_FTZ_FALSE and PRECISION_1ULP_FTZ_FALSE {ZEROING, false, algo}."""
    if algo in (SqrtAlgo.INTRINSIC, SqrtAlgo.PRECISION_1ULP_FTZ_TRUE):
        return ZEROING
    return Reg.SqrtSpecificMode(ZEROING, algo is SqrtAlgo.FAST_INVERSE, algo)


#: Div's dtypes per algorithm: the Div page's "数据类型" (complex32, int64, uint64 and complex64 first-n only) as far as the
#: Reg::Div the library calls takes them (docs/decisions/transcendental.md#div-integer,
#: docs/decisions/transcendental.md#memory-div-exp): the integer and complex types INTRINSIC and
#: PRECISION_1ULP_FTZ_TRUE (the interfaces' lists), complex64 also the two FTZ 0-ulp algorithms; the 0-ulp algorithms
#: are float only among the real types
DIV_BY_ALGO: Final[ByAlgo] = {
    DivAlgo.DIFF_COMPENSATION: _forms(FLOAT_COMPLEX64, FLOAT32),
    DivAlgo.PRECISION_0ULP_FTZ_TRUE: _forms(FLOAT_COMPLEX64, FLOAT32),
    DivAlgo.PRECISION_0ULP_FTZ_FALSE: _forms(FLOAT32, FLOAT32),
    DivAlgo.PRECISION_1ULP_FTZ_FALSE: _forms(HALF_FLOAT, HALF_FLOAT),
}
#: Sqrt: FAST_INVERSE and PRECISION_0ULP_FTZ_FALSE float only (the Sqrt page: "该算法仅支持float数据类型")
SQRT_BY_ALGO: Final[ByAlgo] = {a: _forms(FLOAT32, FLOAT32) for a in (SqrtAlgo.FAST_INVERSE, SqrtAlgo.PRECISION_0ULP_FTZ_FALSE)}
DIV: Final = ByAlgorithm(DivConfig, {a: Binary(with_mode(Reg.Div, _div_mode(a))) for a in DivAlgo}, DIV_BY_ALGO)
EXP: Final = ByAlgorithm(ExpConfig, {a: Unary(with_mode(Reg.Exp, _exp_mode(a))) for a in ExpAlgo})
LN: Final = ByAlgorithm(LnConfig, {a: Unary(with_mode(Reg.Ln, _ln_mode(a))) for a in LnAlgo})
SQRT: Final = ByAlgorithm(SqrtConfig, {a: Unary(with_mode(Reg.Sqrt, _sqrt_mode(a))) for a in SqrtAlgo}, SQRT_BY_ALGO)


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


RECIPROCAL: Final = ByAlgorithm(
    ReciprocalConfig, {a: Unary(with_mode(reg_reciprocal, _reciprocal_mode(a))) for a in ReciprocalAlgo}
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


def rsqrt_precise(c: Call) -> None:
    """`RsqrtImpl` with FAST_INVERSE, PRECISION_0ULP_FTZ_FALSE or PRECISION_1ULP_FTZ_FALSE: `RsqrtPrecisionModeImpl` in the
    first-n interface (half: the unary skeleton over `RegRsqrt::Rsqrt<T, RegT, true>`; float: the fast-inverse VF
    `VecUnaryLevel2ImplFloat`), the unary skeleton over `RegRsqrt::Rsqrt<T, RegT, true>` in the mask/repeat ones."""
    dst, src = c["dst"], c["src"]
    if c.form is not Form.COUNT or dst.dtype is not dt.float32:
        Unary(with_mode(reg_rsqrt_precise, ZEROING))(c)
        return
    names, ts = ("dst", "src"), (dst, src)
    check_tensors(c.api, FLOAT32, names, ts)
    n = check_count(c.api, c["count"], names, ts)
    run_lowering(c.api, rsqrt_fast_inverse_vf, dst.GetPhyAddr(), src.GetPhyAddr(), n)


_RSQRT_INTRINSIC: Final = (RsqrtAlgo.INTRINSIC, RsqrtAlgo.PRECISION_1ULP_FTZ_TRUE)
#: one lowering per algorithm: the unary skeleton, or `rsqrt_precise` (its first-n float VF) for the precise ones
RSQRT: Final = ByAlgorithm(
    RsqrtConfig, {a: Unary(with_mode(reg_rsqrt, ZEROING)) if a in _RSQRT_INTRINSIC else rsqrt_precise for a in RsqrtAlgo}
)
