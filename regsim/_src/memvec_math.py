"""The memory-level unary math APIs Ln, Sqrt, Rsqrt, Reciprocal (with their `config` template parameter) and Neg,
on the unary family's skeletons of `regsim._src.memvec` (`VecUnaryLevel2VFImpl` for the first-n interface,
`VecUnaryLevel0VFImpl` for the mask/repeat interfaces), with the Reg ops or callees the 950 library runs
(kernel_operator_vec_unary_impl.h for dav_3510: `LnImpl`, `SqrtImpl`, `RsqrtImpl`, `ReciprocalImpl`, `NegImpl`).
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from regsim._src import dtypes as dt
from regsim._src import reg as Reg
from regsim._src.context import simd_callee
from regsim._src.enums import CMPMODE, DivAlgo, LnAlgo, ReciprocalAlgo, RsqrtAlgo, SqrtAlgo, _Struct
from regsim._src.memvec import APIS, UnaryApi
from regsim._src.memvec_reduce import ConfigApi, _with_mode
from regsim._src.registers import MaskReg, RegTensor

_FLOAT: Final = frozenset({dt.half, dt.float32})
_F32: Final = frozenset({dt.float32})
_B64: Final = frozenset({dt.int64, dt.uint64})
ZEROING: Final = Reg.MaskMergeMode.ZEROING


# --- the config structs (the pages' `config` template parameters) ---------------------------------------------------
@attrs.frozen
class LnConfig(_Struct):
    """`AscendC::LnConfig {LnAlgo algo = LnAlgo::INTRINSIC;}`: the Ln page's `config`."""

    algo: LnAlgo = attrs.field(default=LnAlgo.INTRINSIC, validator=attrs.validators.instance_of(LnAlgo))


@attrs.frozen
class SqrtConfig(_Struct):
    """`AscendC::SqrtConfig {SqrtAlgo algo = SqrtAlgo::INTRINSIC;}`: the Sqrt page's `config`."""

    algo: SqrtAlgo = attrs.field(default=SqrtAlgo.INTRINSIC, validator=attrs.validators.instance_of(SqrtAlgo))


@attrs.frozen
class RsqrtConfig(_Struct):
    """`AscendC::RsqrtConfig {RsqrtAlgo algo = RsqrtAlgo::INTRINSIC;}`: the Rsqrt page's `config`."""

    algo: RsqrtAlgo = attrs.field(default=RsqrtAlgo.INTRINSIC, validator=attrs.validators.instance_of(RsqrtAlgo))


@attrs.frozen
class ReciprocalConfig(_Struct):
    """`AscendC::ReciprocalConfig {ReciprocalAlgo algo = ReciprocalAlgo::INTRINSIC;}`: the Reciprocal page's `config`."""

    algo: ReciprocalAlgo = attrs.field(default=ReciprocalAlgo.INTRINSIC, validator=attrs.validators.instance_of(ReciprocalAlgo))


DEFAULT_LN_CONFIG: Final = LnConfig()
DEFAULT_SQRT_CONFIG: Final = SqrtConfig()
DEFAULT_RSQRT_CONFIG: Final = RsqrtConfig()
DEFAULT_RECIPROCAL_CONFIG: Final = ReciprocalConfig()


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
Ln = ConfigApi("Ln", LnConfig, {a: UnaryApi("Ln", _with_mode(Reg.Ln, _ln_mode(a)), _FLOAT, _FLOAT) for a in LnAlgo})
#: `Sqrt`: half and float; FAST_INVERSE and PRECISION_0ULP_FTZ_FALSE float only (the Sqrt page: "该算法仅支持float数据类型")
Sqrt = ConfigApi(
    "Sqrt",
    SqrtConfig,
    {
        a: UnaryApi(
            "Sqrt",
            _with_mode(Reg.Sqrt, _sqrt_mode(a)),
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
    {a: UnaryApi("Reciprocal", _with_mode(reg_reciprocal, _reciprocal_mode(a)), _FLOAT | _B64, _FLOAT) for a in ReciprocalAlgo},
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


_RSQRT_INTRINSIC: Final = (RsqrtAlgo.INTRINSIC, RsqrtAlgo.PRECISION_1ULP_FTZ_TRUE)
#: `Rsqrt`: half and float in every interface (the Rsqrt page, RsqrtImpl). The precise algorithms' first-n interface on
#: float is the library's fast-inverse VF (`VecUnaryLevel2ImplFloat`), which regsim does not have: float only in the
#: mask/repeat interfaces for those algorithms (decisions §125)
Rsqrt = ConfigApi(
    "Rsqrt",
    RsqrtConfig,
    {
        a: UnaryApi(
            "Rsqrt",
            _with_mode(reg_rsqrt if a in _RSQRT_INTRINSIC else reg_rsqrt_precise, ZEROING),
            _FLOAT if a in _RSQRT_INTRINSIC else frozenset({dt.half}),
            _FLOAT,
        )
        for a in RsqrtAlgo
    },
)

#: `Neg` (the Neg(ISASI) page: the first-n interface only; NegImpl)
Neg = UnaryApi(
    "Neg",
    Reg.Neg,
    frozenset({dt.int8, dt.int16, dt.int32, dt.half, dt.float32, dt.int64}),
    frozenset(),
)

#: (the explorer's names: the default config)
APIS.update(
    {
        "Ln": Ln.by_algo[LnAlgo.INTRINSIC],
        "Sqrt": Sqrt.by_algo[SqrtAlgo.INTRINSIC],
        "Rsqrt": Rsqrt.by_algo[RsqrtAlgo.INTRINSIC],
        "Reciprocal": Reciprocal.by_algo[ReciprocalAlgo.INTRINSIC],
        "Neg": Neg,
    }
)
