"""Compound arithmetic (the "复合计算" pages of the Reg API): AbsSub, Axpy, MulAddDst, MulDstAdd,
ExpSub and MulsCast.

The multiply-adds are fused: the precision appendix ("Reg矢量计算接口精度标准汇总") says each
"结果等效于：乘累加采用高精度计算，同比Fma(x, y, z)", one rounding of the exact `x·y + z`.
`AbsSub` is not: "指令串行，AbsSub(x) = Abs(Sub(x))". The b64 integer forms are the library's
software sequences (Mul then Add), which wrap modulo 2**64 like one wrapping multiply-add.
`ExpSub` is `Exp(Sub(cast_to_f32(x), cast_to_f32(y)))` (the same appendix) and `MulsCast`
`cast_to_f16<CAST_ROUND>(x * y)`: both change the element width, placed by RegLayout.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeVar, overload

import ml_dtypes
import numpy as np

from regsim._src.engine.executors import Regrouped
from regsim._src.engine.spec import DOC, CName, OneOf, OpSpec, Role, SameAs, enum_param, face, pred, reg, register, scalar
from regsim._src.model import dtypes as dt
from regsim._src.model.core import LAUNCH_CTRL
from regsim._src.model.enums import MaskMergeMode, RegLayout, RoundMode
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops.arith import (
    _EW,
    _LANES,
    ZEROING,
    ZeroingOnly,
    _binary,
    _is_float,
    _set,
    _with_scalar,
    abs_,
    half_saturating,
    saturate_half,
    sub,
)
from regsim._src.ops.convert import to_float
from regsim._src.ops.scalars import Float2T, FloatScalar, IntScalar
from regsim._src.ops.transcendental import exp

_COMPOUND = DOC + "复合计算/"

ABS_SUB: Final = _set(dt.half, dt.float32, dt.int64)
AXPY: Final = _set(dt.half, dt.float32, dt.int64, dt.uint64)
MUL_ADD_DST: Final = _set(dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64)
MUL_DST_ADD: Final = _set(dt.half, dt.bfloat16, dt.float32)

AbsSubT = TypeVar("AbsSubT", dt.half, dt.float32, dt.int64)
AxpyT = TypeVar("AxpyT", dt.half, dt.float32, dt.int64, dt.uint64)
MadT = TypeVar("MadT", dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64)
MdaT = TypeVar("MdaT", dt.half, dt.bfloat16, dt.float32)

_BF16 = np.dtype(ml_dtypes.bfloat16)


# --- one rounding of x·y + z -----------------------------------------------------------------------
def _round_to_odd(s: Any, err: Any) -> Any:
    """s = RN(x) and err = x - s exactly → RO(x), x rounded to odd in float64: s itself when exact,
    else whichever of s and its neighbour towards x has an odd last bit. Rounding RO(x) to a
    format of p ≤ 51 bits is then the correct rounding of x (rounding to odd is innocuous for a
    later rounding at least two bits shorter)."""
    inexact = (err != 0) & np.isfinite(s)
    even = (s.view(np.uint64) & np.uint64(1)) == 0
    return np.where(inexact & even, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)


def round_once(x: Any, dtype: np.dtype[Any]) -> Any:
    """float64 `x`, already rounded to odd, rounded to nearest-even into `dtype`. numpy rounds
    float64 to half and float32 directly; ml_dtypes rounds float64 to bfloat16 through float32,
    so bfloat16 goes to float32 by rounding to odd first (24 ≥ 8 + 2)."""
    if dtype != _BF16:
        return x.astype(dtype)
    f = x.astype(np.float32)
    back = f.astype(np.float64)
    even = (f.view(np.uint32) & np.uint32(1)) == 0
    toward = np.where(x > back, np.float32(np.inf), np.float32(-np.inf))
    f = np.where((back != x) & np.isfinite(x) & even, np.nextafter(f, toward), f)
    return f.astype(_BF16)


def fma(x: Any, y: Any, z: Any) -> Any:
    """x·y + z rounded once to the type of `x` (floats), or wrapping (integers).

    The product of two half, bfloat16 or float32 values is exact in float64 (at most 48 bits,
    exponents far inside float64's); the sum is split by TwoSum into RN(p + z) and its exact
    error, rounded to odd, then rounded once to the element type (`round_once`)."""
    if not _is_float(x):
        return x * y + z
    p = x.astype(np.float64) * np.float64(y) if np.ndim(y) == 0 else x.astype(np.float64) * y.astype(np.float64)
    c = z.astype(np.float64)
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)  # TwoSum: s + err == p + c exactly
    return round_once(_round_to_odd(s, np.where(np.isfinite(s), err, 0.0)), x.dtype)


# --- lane semantics ------------------------------------------------------------------------------
def abs_sub(a: Any, b: Any, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """|a - b| as Abs(Sub(a, b)): the difference rounded (or wrapped) once, then its sign cleared
    (int64: the wrapped difference's wrapping absolute value)."""
    return abs_(sub(a, b, ctrl=ctrl), ctrl=ctrl)


@half_saturating
def axpy(dst: Any, src: Any, scalar: Any) -> Any:
    """scalar · src + dst, fused."""
    return fma(src, scalar, dst)


@half_saturating
def mul_add_dst(dst: Any, a: Any, b: Any) -> Any:
    """a · b + dst, fused (integers: the low bits)."""
    return fma(a, b, dst)


@half_saturating
def mul_dst_add(dst: Any, a: Any, b: Any) -> Any:
    """dst · a + b, fused."""
    return fma(dst, a, b)


# --- specs ---------------------------------------------------------------------------------------
def _accumulate(dtypes: frozenset[type[dt.DType]]) -> tuple[Any, ...]:
    return (reg("dst_reg", Role.INOUT, OneOf(dtypes)), *_binary(dtypes, (ZEROING,))[1:])


def _compound(
    name: str, operands: tuple[Any, ...], lane: Any, equation: str, c_name: str = "", aliases: tuple[str, ...] = ()
) -> None:
    c_api = CName(c_name, tuple(o.name for o in operands if not o.keyword)) if c_name else None
    register(
        OpSpec(
            name,
            "",
            "compound",
            operands,
            _EW,
            equation,
            _COMPOUND + f"{name}.md",
            _LANES,
            lane=lane,
            c_api=c_api,
            aliases=aliases,
        )
    )


_compound(
    "AbsSub",
    _binary(ABS_SUB, (ZEROING,)),
    abs_sub,
    "dst[i] = mask[i] ? |src0[i] - src1[i]| : 0   (Abs(Sub): the difference rounded once)",
    "asc_abs_sub",
    ("FusedAbsSub",),
)
_compound(
    "Axpy",
    _with_scalar(AXPY, Role.INOUT),
    axpy,
    "dst[i] = mask[i] ? scalar * src[i] + dst[i] : 0   (fused: rounded once)",
    "asc_axpy",
)
_compound(
    "MulAddDst",
    _accumulate(MUL_ADD_DST),
    mul_add_dst,
    "dst[i] = mask[i] ? src0[i] * src1[i] + dst[i] : 0   (fused: rounded once; integers wrap)",
    aliases=("Mula",),
)
_compound(
    "MulDstAdd",
    _accumulate(MUL_DST_ADD),
    mul_dst_add,
    "dst[i] = mask[i] ? dst[i] * src0[i] + src1[i] : 0   (fused: rounded once)",
    "asc_madd",
    ("FusedMulDstAdd",),
)


# --- typed faces ---------------------------------------------------------------------------------
@face("AbsSub")
def AbsSub(
    dst_reg: RegTensor[AbsSubT],
    src_reg0: RegTensor[AbsSubT],
    src_reg1: RegTensor[AbsSubT],
    mask: MaskReg,
    *,
    mode: ZeroingOnly = ...,
) -> None: ...


@overload
def Axpy(
    dst_reg: RegTensor[AxpyT], src_reg: RegTensor[AxpyT], scalar_value: IntScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Axpy(
    dst_reg: RegTensor[Float2T], src_reg: RegTensor[Float2T], scalar_value: FloatScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@face("Axpy")
def Axpy(*args: Any, **kwargs: Any) -> None:
    """The scalar operand is an int for an integer register, a real number for a float one, any number for a
    complex one."""


@face("MulAddDst")
def MulAddDst(
    dst_reg: RegTensor[MadT], src_reg0: RegTensor[MadT], src_reg1: RegTensor[MadT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...


@face("MulDstAdd")
def MulDstAdd(
    dst_reg: RegTensor[MdaT], src_reg0: RegTensor[MdaT], src_reg1: RegTensor[MdaT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...


# --- ExpSub and MulsCast: two element widths (the ExpSub, MulsCast and RegLayout pages) --------------
def exp_sub(a: Any, b: Any, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """e**(a - b) as the precision appendix defines it, `Exp(Sub(cast_to_f32(x), cast_to_f32(y)))`:
    half sources widen exactly; the float32 difference is rounded once (the float64 difference of two
    float32 values rounded to float32 is the correctly rounded one, 53 >= 2·24 + 2, see `div`), then
    Exp of the default algorithm: float64 exp rounded once, subnormal operand and result flushed
    ("1ulp, not support denormalized numbers"). float32 results never saturate."""
    with np.errstate(all="ignore"):
        d = (a.astype(np.float64) - b.astype(np.float64)).astype(np.float32)
    return exp(d, ctrl=ctrl)


def muls_cast(a: Any, scalar: Any, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """a · scalar rounded once to half by CAST_ROUND (to nearest, ties away from zero): the float64
    product of two float32 values is exact (24 + 24 bits, exponents within float64's normal range),
    so one rounding of it is the precision appendix's `cast_to_f16<roundingmode>(x * y)` of the exact
    product (docs/decisions/transcendental.md#expsub-mulscast); subnormal inputs and results kept, an overflow is ±inf
    (as IEEE 754 for a nearest mode), then the CTRL[48] half saturation (the boundary table 30)."""
    with np.errstate(all="ignore"):
        v = a.astype(np.float64) * np.float64(scalar)
    return saturate_half(to_float(v, dt.half, RoundMode.CAST_ROUND, False), ctrl)


def _distinct_from_half(src: Any) -> bool:
    """ExpSub: "源操作数数据类型为half时，仅支持源操作数寄存器重叠" (float: any overlap)."""
    return src is dt.half


LAYOUTS: Final = (RegLayout.ZERO, RegLayout.ONE)
register(
    OpSpec(
        "ExpSub",
        "",
        "compound",
        (
            reg("dst_reg", Role.OUT, OneOf(frozenset({dt.float32}))),
            reg("src_reg0", dtypes=OneOf(frozenset({dt.half, dt.float32}))),
            reg("src_reg1", dtypes=SameAs("src_reg0")),
            pred(),
            enum_param("layout", RegLayout, RegLayout.ZERO, LAYOUTS),
            enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
        ),
        Regrouped({}, _distinct_from_half),
        "dst[i] = mask_src[j] ? round(e ** round_f32(src0[j] - src1[j])) : 0, j = 2i + layout (half) or i (float)",
        _COMPOUND + "ExpSub.md",
        _LANES,
        lane=exp_sub,
        aliases=("FusedExpSub",),
        # asc_exp_sub / asc_exp_sub_v2 (the deprecated asc_exp_sub page, no replacement named): the layout
        c_api=tuple(
            CName(f"asc_exp_sub{v}", ("dst_reg", "src_reg0", "src_reg1", "mask"), (("layout", lay),))
            for v, lay in (("", RegLayout.ZERO), ("_v2", RegLayout.ONE))
        ),
    )
)
register(
    OpSpec(
        "MulsCast",
        "",
        "compound",
        (
            reg("dst_reg", Role.OUT, OneOf(frozenset({dt.half}))),
            reg("src_reg", dtypes=OneOf(frozenset({dt.float32}))),
            scalar("scalar_value"),
            pred(),
            enum_param("layout", RegLayout, RegLayout.ZERO, LAYOUTS),
        ),
        Regrouped({"scalar_value": dt.float32}, lambda src: True),
        "dst[2i + layout] = mask_src[i] ? round_half_away(src[i] * scalar) : 0 (every other dst element 0)",
        _COMPOUND + "MulsCast.md",
        _LANES,
        lane=muls_cast,
        aliases=("FusedMulsCast",),
        # asc_muls / asc_muls_v2 (the deprecated asc_muls page, no replacement named): the layout
        c_api=tuple(
            CName(f"asc_muls{v}", ("dst_reg", "src_reg", "scalar_value", "mask"), (("layout", lay),))
            for v, lay in (("", RegLayout.ZERO), ("_v2", RegLayout.ONE))
        ),
    )
)

ExpSubSrcT = TypeVar("ExpSubSrcT", dt.half, dt.float32)
Layouts = Literal[RegLayout.ZERO, RegLayout.ONE]


@face("ExpSub")
def ExpSub(
    dst_reg: RegTensor[dt.float32],
    src_reg0: RegTensor[ExpSubSrcT],
    src_reg1: RegTensor[ExpSubSrcT],
    mask: MaskReg,
    *,
    layout: Layouts = ...,
    mode: ZeroingOnly = ...,
) -> None:
    """`ExpSub<T, U, layout, mode>(dstReg, srcReg0, srcReg1, mask)`: T and U are deduced from the
    registers. half sources: dst lane i (64 lanes) is source element 2i + layout, under that
    element's mask bit; float sources: layout is accepted and changes nothing ("配置不生效")."""


@face("MulsCast")
def MulsCast(
    dst_reg: RegTensor[dt.half],
    src_reg: RegTensor[dt.float32],
    scalar_value: FloatScalar,
    mask: MaskReg,
    *,
    layout: Layouts = ...,
) -> None:
    """`MulsCast<T0, T1, T2, layout>(dstReg, srcReg, scalarValue, mask)`: the types are deduced
    (half, float, float); lane i's result is half element 2i + layout, every other element 0."""
