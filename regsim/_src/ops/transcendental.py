"""Division, square root, exponential and logarithms (the "基础算术" pages Div, Sqrt, Exp, Ln, Log,
Log2 and Log10 of the Reg API) on half and float32.

`mode=` takes a MaskMergeMode (ZEROING only: the pages say "MERGING模式当前不支持") or the op's
`*SpecificMode` struct {mrgMode, [precisionMode,] algo}: the two forms are two specs, told apart by
the keyword's kind. The algorithm decides only whether subnormals are flushed ("配置Subnormal模式"):
regsim computes every algorithm as the correctly rounded result, which meets each documented bound
(0 or 1 ulp) — docs/decisions/transcendental.md#transcendental-rounding.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import Elementwise, ElementwiseSpecific
from regsim._src.engine.spec import DOC, Batching, CName, OneOf, OpSpec, Role, SameAs, enum_param, face, pred, reg, register
from regsim._src.model import dtypes as dt
from regsim._src.model.core import LAUNCH_CTRL
from regsim._src.model.enums import (
    DivAlgo,
    DivSpecificMode,
    ExpAlgo,
    ExpSpecificMode,
    LnAlgo,
    LnSpecificMode,
    Log2Algo,
    Log2SpecificMode,
    Log10Algo,
    Log10SpecificMode,
    LogAlgo,
    LogSpecificMode,
    MaskMergeMode,
    SqrtAlgo,
    SqrtSpecificMode,
)
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops.arith import abs_, add, complex_components, mul, saturate_half, sub
from regsim._src.ops.convert import struct_param
from regsim.errors import UnsupportedError, message

ZEROING = MaskMergeMode.ZEROING
FloatT = TypeVar("FloatT", dt.half, dt.float32)
FLOATS: Final = frozenset(FloatT.__constraints__)
#: Div also takes the integer types of the Div page's "数据类型" (INTRINSIC and PRECISION_1ULP_FTZ_TRUE)
DivT = TypeVar(
    "DivT", dt.int16, dt.uint16, dt.half, dt.int32, dt.uint32, dt.float32, dt.complex32, dt.int64, dt.uint64, dt.complex64
)
DIV_DTYPES: Final = frozenset(DivT.__constraints__)
ZeroingOnly = Literal[MaskMergeMode.ZEROING]

#: the algorithms that keep subnormals; every other one flushes them (the pages' "配置Subnormal模式":
#: "只有将algo设置为…FTZ_FALSE时…才会保留并正确输出Subnormal结果；其他模式下Subnormal均被FTZ")
KEEP_SUBNORMALS: Final = frozenset(
    {
        DivAlgo.PRECISION_0ULP_FTZ_FALSE,
        DivAlgo.PRECISION_1ULP_FTZ_FALSE,
        ExpAlgo.PRECISION_1ULP_FTZ_FALSE,
        LnAlgo.PRECISION_1ULP_FTZ_FALSE,
        LogAlgo.PRECISION_1ULP_FTZ_FALSE,
        Log2Algo.PRECISION_1ULP_FTZ_FALSE,
        Log10Algo.PRECISION_1ULP_FTZ_FALSE,
        SqrtAlgo.FAST_INVERSE,
        SqrtAlgo.PRECISION_0ULP_FTZ_FALSE,
        SqrtAlgo.PRECISION_1ULP_FTZ_FALSE,
    }
)
#: per algorithm, the dtypes (of half and float32) it accepts (the Div page's "数据类型"; the Sqrt page:
#: FAST_INVERSE / PRECISION_0ULP_FTZ_FALSE "仅支持float数据类型"; Exp: all algorithms on half and float)
_FLOAT_ONLY: Final = frozenset({dt.float32})
ALGO_DTYPES: Final[dict[Any, frozenset[type[dt.DType]]]] = {
    DivAlgo.INTRINSIC: DIV_DTYPES,
    DivAlgo.PRECISION_1ULP_FTZ_TRUE: DIV_DTYPES,
    DivAlgo.DIFF_COMPENSATION: frozenset({dt.float32, dt.complex64}),
    DivAlgo.PRECISION_0ULP_FTZ_TRUE: frozenset({dt.float32, dt.complex64}),
    DivAlgo.PRECISION_0ULP_FTZ_FALSE: _FLOAT_ONLY,
    SqrtAlgo.FAST_INVERSE: _FLOAT_ONLY,
    SqrtAlgo.PRECISION_0ULP_FTZ_FALSE: _FLOAT_ONLY,
}

# (bit patterns as 0-d arrays: a ufunc takes one at a fraction of a numpy scalar's cost)
_UINT = {2: np.dtype(np.uint16), 4: np.dtype(np.uint32)}
_EXPONENT: dict[int, Any] = {2: np.array(0x7C00, np.uint16), 4: np.array(0x7F800000, np.uint32)}  #: the exponent field
_SIGN: dict[int, Any] = {2: np.array(0x8000, np.uint16), 4: np.array(0x80000000, np.uint32)}
_UNIT: dict[int, Any] = {2: np.array(0x0400, np.uint16), 4: np.array(0x00800000, np.uint32)}  #: its lowest bit
_SPECIAL = {size: np.array(_EXPONENT[size] - _UNIT[size]) for size in _UNIT}  #: the all-ones field less its lowest bit
_count = np.count_nonzero
#: float32's least normal negative's bit pattern as a signed integer: the sign bit (the most negative) plus the unit
_NEGATIVE_NORMAL32: Final = np.array(_UNIT[4]).astype(np.int32) + np.iinfo(np.int32).min
#: float32's least positive normal and greatest finite number
_LIMITS32: Final = (np.finfo(np.float32).smallest_normal, np.finfo(np.float32).max)
_LARGE: Final = 1 << 14  #: elements from which an array is large (`_ordinary`, `_rounded`)
#: the NaN these ops give (the Div page's Subnormal table: 0/0 → "NaN（0x7FFF FFFF）"; half by analogy)
_NAN: Final[dict[int, Any]] = {2: np.uint16(0x7FFF), 4: np.uint32(0x7FFFFFFF)}


# --- lane semantics ------------------------------------------------------------------------------
def flush(x: Any) -> Any:
    """Subnormals → zero of the same sign (FTZ, the pages' "当结果为Subnormal时，将其直接清零"; the Div
    page's table shows inputs flushed too: 1 / -5.0e-39 → -inf, 1.9e-39 / 7.7e-39 → NaN). Zeros, whose
    exponent field is 0 too, flush to themselves."""
    size = x.dtype.itemsize
    bits = x.view(_UINT[size])
    return np.where((bits & _EXPONENT[size]) == 0, bits & _SIGN[size], bits).view(x.dtype)


def _ordinary(x: Any) -> bool:
    """Whether every element of `x` (half or float32) is a normal number: no zero, subnormal, infinity or NaN, so
    flushing and the pages' NaN change nothing. A small array, and a half one of any size, counts its `_exceptional`
    elements (integer operations: numpy's cheapest calls; its half minimum and maximum are scalar loops, 15x that
    count at 2^14 elements). A large float32
    one is told by reductions alone, no array made: its least and greatest elements are finite (a NaN makes both
    NaN); if the least is a positive normal, that is all; else the least bit pattern, unsigned, is no positive zero or
    subnormal's, and the least one, signed, no negative one's (those are the patterns just above the sign bit)."""
    if x.size >= _LARGE and x.dtype.itemsize == 4:
        least, (tiny, big) = np.minimum.reduce(x, axis=None), _LIMITS32
        if not (least >= -big and np.maximum.reduce(x, axis=None) <= big):
            return False
        if least >= tiny:
            return True
        return bool(np.minimum.reduce(x.view(np.uint32), axis=None) >= _UNIT[4]) and bool(
            np.minimum.reduce(x.view(np.int32), axis=None) >= _NEGATIVE_NORMAL32
        )
    return not _count(_exceptional(x))


def _exceptional(x: Any) -> Any:
    """Per element of `x` (half or float32), whether it is a zero, subnormal, infinity or NaN: its exponent field less
    its lowest bit (which wraps for a zero field) reaches the all-ones field less it."""
    size = x.dtype.itemsize
    field = x.view(_UINT[size]) & _EXPONENT[size]
    field -= _UNIT[size]
    return field >= _SPECIAL[size]


#: numpy's own half and float32 dtypes, whose divide and sqrt are IEEE's, rounded once (half's through float32,
#: rounded again to half: innocuous by `div`'s argument, 24 >= 2 * 11 + 2)
_F16 = np.dtype(np.float16)
_IEEE: Final = frozenset({_F16, np.dtype(np.float32)})


def _rounded(
    f: Any,
    algo: Any,
    ctrl: int,
    *xs: Any,
    correctly_rounded: bool = False,
    unflushed: tuple[int, ...] = (),
    table: bool = True,
    out: Any = None,
) -> Any:
    """f over float64 images of `xs`, rounded once to their type, subnormals flushed unless `algo`
    keeps them (inputs before, the result after rounding); NaN results are the pages' NaN; half
    results saturate in the CTRL[48] mode (the boundary-value appendix's tables 1, 8 and 18, "饱和模式").
    Operands and results of normal numbers alone (the common case) skip the flushing and the NaN.
    `correctly_rounded`: f is an IEEE operation numpy rounds once in half and float32 (divide, sqrt), whose
    result there is the float64 one rounded once (the argument of `div`): f runs in their own type.
    `unflushed`: the operands whose flushing cannot change the result (Exp's argument; Div's operands when the
    divisors are 1 or more): not looked at.
    Large arrays run numpy's float64 loop through its buffered casts, which take the operands a block at a time
    and round each result block into the result: no float64 array is made (small ones cast, cheaper there).
    A unary f on half reads a table of its value at each of the 65 536 halves (`_half_table`, unless `table`
    is False: the evaluation that makes it). `out`: an array of the result's type and shape the result may be
    computed into (and returned), as a ufunc's `out`."""
    ftz = algo not in KEEP_SUBNORMALS
    if table and len(xs) == 1 and xs[0].dtype is _F16:  # (numpy's own half dtype: others evaluate, the same)
        return saturate_half(np.take(_half_table(f, algo, correctly_rounded), xs[0].view(np.uint16)).view(_F16), ctrl)
    args = [flush(x) if ftz and i not in unflushed and not _ordinary(x) else x for i, x in enumerate(xs)]
    if correctly_rounded and xs[0].dtype in _IEEE:
        out = f(*args) if out is None else f(*args, out=out)
    elif xs[0].size < _LARGE:  # (a VF runs under np.errstate(all="ignore"): no floating-point exceptions)
        out = f(*(x.astype(np.float64) for x in args)).astype(xs[0].dtype)
    else:
        out = np.empty(np.broadcast(*args).shape, xs[0].dtype) if out is None else out
        out = f(*args, out=out, dtype=np.float64, casting="same_kind")
    if not _ordinary(out):
        out = _settled(out, ftz)
    return saturate_half(out, ctrl)


def _settled(out: Any, ftz: bool) -> Any:
    """`out` with its zeros and subnormals flushed (`ftz`) and its NaNs the pages' NaN. A large array of its own
    (contiguous, writable: a result just computed) is mended in place at its exceptional elements alone (those
    `_ordinary` looks for), a few among many; each element's value depends on itself alone."""
    if out.size < _LARGE or not (out.flags.c_contiguous and out.flags.writeable):
        return _flushed_nan(out, ftz)
    flat = out.reshape(-1)
    at = np.flatnonzero(_exceptional(flat))
    flat[at] = _flushed_nan(flat[at], ftz)
    return out


def _flushed_nan(x: Any, ftz: bool) -> Any:
    x = flush(x) if ftz else x
    return np.where(np.isnan(x), _NAN[x.dtype.itemsize].view(x.dtype), x)


_HALF_TABLES: dict[tuple[Any, bool], Any] = {}  #: (f, flushing) -> `_half_table`


def _half_table(f: Any, algo: Any, correctly_rounded: bool) -> Any:
    """The bits of `_rounded` (before saturation: CTRL 0) at every half, by bit pattern, made on first use: an
    elementwise function, whose value at an element does not depend on the others."""
    key = (f, algo not in KEEP_SUBNORMALS)
    table = _HALF_TABLES.get(key)
    if table is None:
        with np.errstate(all="ignore"):
            every = np.arange(1 << 16, dtype=np.uint16).view(_F16)
            table = _HALF_TABLES[key] = _rounded(f, algo, 0, every, correctly_rounded=correctly_rounded, table=False).view(
                np.uint16
            )
    return table


def div(a: Any, b: Any, *, algo: DivAlgo = DivAlgo.INTRINSIC, ctrl: int = LAUNCH_CTRL, out: Any = None) -> Any:
    """a / b: integers by `int_div`; floats correctly rounded. Single rounding: the float64 quotient of two p-bit significands
    (p = 24, 11) rounded to 53 bits, then to p bits, equals the quotient rounded once to p bits,
    since 53 >= 2p + 2 (Figueroa, "When is double rounding innocuous?", 1995: holds for +, -, ×, ÷
    and sqrt; float64's range holds every half/float32 quotient, its subnormals not reached, so the
    first rounding is a 53-bit one; a subnormal target has fewer than p bits, which the bound still
    covers). numpy's float64 → float32 / float16 conversions round to nearest-even directly. `out`: as `_rounded`'s
    (integer and complex quotients leave it unused)."""
    if a.dtype.kind in "iu":
        return int_div(a, b)
    if a.dtype.kind == "c":  # (complex32 and complex64)
        return complex_div(a, b, algo=algo, ctrl=ctrl)
    over_one = algo not in KEEP_SUBNORMALS and b.size >= _LARGE and _at_least_one(b)  # (only flushing asks)
    return _rounded(np.divide, algo, ctrl, a, b, correctly_rounded=True, unflushed=(0, 1) if over_one else (), out=out)


def _at_least_one(b: Any) -> bool:
    """Whether `b` is float32 with every element 1 or more (its least one: a NaN fails). A subnormal numerator
    over such divisors gives a quotient below the smallest normal, which the result's flushing makes the zero of
    the flushed numerator's quotient, of the same sign: the numerator needs no flushing; nor do the divisors,
    which hold no zero or subnormal."""
    return b.dtype.itemsize == 4 and bool(np.minimum.reduce(b, axis=None) >= 1)


def complex_div(a: Any, b: Any, *, algo: DivAlgo = DivAlgo.INTRINSIC, ctrl: int = LAUNCH_CTRL) -> Any:
    """(ar + ai·i) / (br + bi·i) as the 950 library's ComplexDivKernel computes it (Smith's algorithm),
    each step one vector op of the component type (Div with the call's algorithm, the others as
    Mul / Add / Sub / Abs; half steps saturate in the CTRL[48] mode):
    |br| >= |bi|: rat = bi / br, scl = 1 / (br + bi·rat), re = (ar + ai·rat)·scl, im = (ai - ar·rat)·scl;
    else (and for NaNs): rat = br / bi, scl = 1 / (bi + br·rat), re = (ar·rat + ai)·scl,
    im = (ai·rat - ar)·scl; br = bi = 0: re = ar / |br|, im = ai / |bi| (±inf or NaN)."""
    x, y = complex_components(a, b)
    ar, ai, br, bi = x[..., 0::2], x[..., 1::2], y[..., 0::2], y[..., 1::2]

    def d(p: Any, q: Any) -> Any:
        return _rounded(np.divide, algo, ctrl, p, q, correctly_rounded=True)

    def m(p: Any, q: Any) -> Any:
        return mul(p, q, ctrl=ctrl)

    with np.errstate(all="ignore"):
        abs_r, abs_i = abs_(br, ctrl=ctrl), abs_(bi, ctrl=ctrl)
        first = abs_r >= abs_i
        both_zero = first & (abs_r == 0) & (abs_i == 0)
        one = np.ones_like(br)
        rat1 = d(bi, br)
        scl1 = d(one, add(br, m(bi, rat1), ctrl=ctrl))
        re1 = m(add(ar, m(ai, rat1), ctrl=ctrl), scl1)
        im1 = m(sub(ai, m(ar, rat1), ctrl=ctrl), scl1)
        rat2 = d(br, bi)
        scl2 = d(one, add(bi, m(br, rat2), ctrl=ctrl))
        re2 = m(add(m(ar, rat2), ai, ctrl=ctrl), scl2)
        im2 = m(sub(m(ai, rat2), ar, ctrl=ctrl), scl2)
        out = np.empty_like(x)
        out[..., 0::2] = np.where(both_zero, d(ar, abs_r), np.where(first, re1, re2))
        out[..., 1::2] = np.where(both_zero, d(ai, abs_i), np.where(first, im1, im2))
    return out.view(a.dtype)


def int_div(a: Any, b: Any) -> Any:
    """Integer a / b as the 950 implementation's 64-bit Div (DivS64Impl / DivU64Impl) computes it, for
    every width: the quotient truncated toward zero (|a| / |b| with the sign of a·b), MIN / -1 wrapping
    to MIN, and a division by zero giving all ones (-1 signed, the maximum unsigned): the
    implementation's final `Select(dst, all-ones, quotient, src1 == 0)`. Neither the Div page nor the
    boundary-value appendix says more (docs/decisions/transcendental.md#div-integer)."""
    unsigned = np.dtype(f"u{a.dtype.itemsize}")
    zero = b == 0
    safe = np.where(zero, np.ones((), b.dtype), b)
    if a.dtype.kind == "u":
        q = a // safe
    else:
        with np.errstate(over="ignore"):
            ua = np.where(a < 0, -a, a).view(unsigned)  # |MIN| is 2**(n-1) as unsigned
            ub = np.where(safe < 0, -safe, safe).view(unsigned)
            uq = ua // ub
            q = np.where((a < 0) != (safe < 0), (np.zeros((), unsigned) - uq), uq).astype(unsigned).view(a.dtype)
    return np.where(zero, np.full((), -1).astype(a.dtype) if a.dtype.kind == "i" else np.iinfo(a.dtype).max, q).astype(a.dtype)


def sqrt(a: Any, *, algo: SqrtAlgo = SqrtAlgo.INTRINSIC, ctrl: int = LAUNCH_CTRL) -> Any:
    """sqrt(a) correctly rounded (the argument of `div`); sqrt(-0) = -0 and sqrt(negative) = NaN
    (the Sqrt page's "约束说明"); sqrt(+inf) = +inf."""
    return _rounded(np.sqrt, algo, ctrl, a, correctly_rounded=True)


def exp(a: Any, *, algo: ExpAlgo = ExpAlgo.INTRINSIC, ctrl: int = LAUNCH_CTRL, out: Any = None) -> Any:
    """e**a: float64 exp (error below 1 ulp of float64) rounded once to the type: within 1 ulp of
    the exact value, the Exp page's bound. exp(±0) = 1, exp(-inf) = +0, exp(+inf) = +inf, NaN → NaN.
    A subnormal argument needs no flushing: e**a for |a| < 2**-14 rounds to 1 in half and float32, as e**0
    (1 - 2**-14 and 1 + 2**-14 are within half an ulp of 1 in both). `out`: as `_rounded`'s."""
    return _rounded(np.exp, algo, ctrl, a, unflushed=(0,), out=out)


def ln(a: Any, *, algo: Any = LnAlgo.INTRINSIC, ctrl: int = LAUNCH_CTRL) -> Any:
    """ln(a) (Ln, and Log: "该接口与Ln接口功能等价"): float64 log (under 1 ulp of float64) rounded once:
    within the pages' 1 ulp. ln(±0) = -inf, ln(negative or -inf) = NaN, ln(+inf) = +inf (the boundary
    table 2); a flushed subnormal input is a zero: -inf."""
    return _rounded(np.log, algo, ctrl, a)


def log2(a: Any, *, algo: Log2Algo = Log2Algo.INTRINSIC, ctrl: int = LAUNCH_CTRL) -> Any:
    """log2(a) as `ln` (the Log2 page computes half in float: within 1 ulp either way)."""
    return _rounded(np.log2, algo, ctrl, a)


def log10(a: Any, *, algo: Log10Algo = Log10Algo.INTRINSIC, ctrl: int = LAUNCH_CTRL) -> Any:
    """log10(a) as `ln`."""
    return _rounded(np.log10, algo, ctrl, a)


# --- specs ---------------------------------------------------------------------------------------
def check_specific(api: str, dtype: Any, struct: Any) -> None:
    """A *SpecificMode the dtype accepts: mrgMode ZEROING, an algorithm documented for the dtype."""
    if struct.mrgMode is not ZEROING:
        raise UnsupportedError(message(api, "mode.mrgMode", struct.mrgMode.name, "ZEROING (MERGING模式当前不支持)"))
    accepted = ALGO_DTYPES.get(struct.algo, FLOATS)
    if dtype not in accepted:
        raise UnsupportedError(
            message(api, "mode.algo", f"{struct.algo.name} on {dtype.name}", f"{dt.names(accepted)} with this algorithm")
        )


def _operands(binary: bool, specific: type | None) -> tuple[Any, ...]:
    sources = ("src_reg0", "src_reg1") if binary else ("src_reg",)
    return (
        reg("dst_reg", Role.OUT, OneOf(DIV_DTYPES if binary else FLOATS)),
        *(reg(name, dtypes=SameAs("dst_reg")) for name in sources),
        pred(),
        struct_param("mode", specific, specific()) if specific else enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
    )


_ARITH = DOC + "基础算术/"
#: the C API's asc_div, asc_sqrt, asc_exp, asc_ln (their pages: vector_half and vector_float; no Log, Log2, Log10)
_C_FLOAT: Final = frozenset({dt.half, dt.float32})
#: asc_div's page (reg/arithmetic_compute/asc_div) also declares int16_t, uint16_t, int32_t and uint32_t
_C_DIV: Final = _C_FLOAT | {dt.int16, dt.uint16, dt.int32, dt.uint32}


def _c_name(name: str) -> CName | None:
    if name not in ("Div", "Sqrt", "Exp", "Ln"):
        return None
    params = ("dst_reg", "src_reg0", "src_reg1", "mask") if name == "Div" else ("dst_reg", "src_reg", "mask")
    return CName(f"asc_{name.lower()}", params, dtypes=_C_DIV if name == "Div" else _C_FLOAT)


for _name, _lane, _struct, _equation in (
    ("Div", div, DivSpecificMode, "dst[i] = mask[i] ? round(src0[i] / src1[i]) : 0"),
    ("Sqrt", sqrt, SqrtSpecificMode, "dst[i] = mask[i] ? round(sqrt(src[i])) : 0"),
    ("Exp", exp, ExpSpecificMode, "dst[i] = mask[i] ? round(e ** src[i]) : 0"),
    ("Ln", ln, LnSpecificMode, "dst[i] = mask[i] ? round(ln(src[i])) : 0"),
    ("Log", ln, LogSpecificMode, "dst[i] = mask[i] ? round(ln(src[i])) : 0"),
    ("Log2", log2, Log2SpecificMode, "dst[i] = mask[i] ? round(log2(src[i])) : 0"),
    ("Log10", log10, Log10SpecificMode, "dst[i] = mask[i] ? round(log10(src[i])) : 0"),
):
    for _variant, _specific in (("", None), ("specific", _struct)):
        register(
            OpSpec(
                _name,
                _variant,
                "transcendental",
                _operands(_name == "Div", _specific),
                ElementwiseSpecific(check_specific) if _specific else Elementwise(ctrl=True),
                _equation + ("   (mode: a Reg." + _struct.__name__ + ")" if _specific else ""),
                _ARITH + _name + ".md",
                Batching.ELEMENTWISE,
                lane=_lane,
                c_api=_c_name(_name) if not _specific else None,
            )
        )


# --- typed faces ---------------------------------------------------------------------------------
@overload
def Div(
    dst_reg: RegTensor[DivT],
    src_reg0: RegTensor[DivT],
    src_reg1: RegTensor[DivT],
    mask: MaskReg,
    *,
    mode: ZeroingOnly = ...,
) -> None: ...
@overload
def Div(
    dst_reg: RegTensor[DivT], src_reg0: RegTensor[DivT], src_reg1: RegTensor[DivT], mask: MaskReg, *, mode: DivSpecificMode
) -> None: ...
@face("Div")
def Div(*args: Any, **kwargs: Any) -> None:
    """`Div<T, mode>(dstReg, srcReg0, srcReg1, mask)`: mode is ZEROING or a Reg.DivSpecificMode."""


@overload
def Sqrt(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Sqrt(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: SqrtSpecificMode) -> None: ...
@face("Sqrt")
def Sqrt(*args: Any, **kwargs: Any) -> None:
    """`Sqrt<T, mode>(dstReg, srcReg, mask)`: mode is ZEROING or a Reg.SqrtSpecificMode."""


@overload
def Exp(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Exp(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ExpSpecificMode) -> None: ...
@face("Exp")
def Exp(*args: Any, **kwargs: Any) -> None:
    """`Exp<T, mode>(dstReg, srcReg, mask)`: mode is ZEROING or a Reg.ExpSpecificMode."""


@overload
def Ln(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Ln(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: LnSpecificMode) -> None: ...
@face("Ln")
def Ln(*args: Any, **kwargs: Any) -> None:
    """`Ln<T, mode>(dstReg, srcReg, mask)`: mode is ZEROING or a Reg.LnSpecificMode."""


@overload
def Log(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Log(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: LogSpecificMode) -> None: ...
@face("Log")
def Log(*args: Any, **kwargs: Any) -> None:
    """`Log<T, mode>(dstReg, srcReg, mask)`: mode is ZEROING or a Reg.LogSpecificMode."""


@overload
def Log2(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Log2(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: Log2SpecificMode) -> None: ...
@face("Log2")
def Log2(*args: Any, **kwargs: Any) -> None:
    """`Log2<T, mode>(dstReg, srcReg, mask)`: mode is ZEROING or a Reg.Log2SpecificMode."""


@overload
def Log10(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Log10(dst_reg: RegTensor[FloatT], src_reg: RegTensor[FloatT], mask: MaskReg, *, mode: Log10SpecificMode) -> None: ...
@face("Log10")
def Log10(*args: Any, **kwargs: Any) -> None:
    """`Log10<T, mode>(dstReg, srcReg, mask)`: mode is ZEROING or a Reg.Log10SpecificMode."""
