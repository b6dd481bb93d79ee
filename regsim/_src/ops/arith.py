"""Arithmetic (the "基础算术" pages of the Reg API): Add, Sub, AddC, SubC, Abs, Relu, Neg, Mul,
Max, Min, Mull and the scalar forms Adds, Muls, Maxs, Mins, LeakyRelu, plus Prelu.

Each op is declared once: its spec (operands by role, dtypes on Ascend 950, merge modes), its
pure lane function and its typed face. `Add` and `Sub` serve two C++ overloads each: a `MaskReg`
first operand selects the carry-out form, as C++ overload resolution does.

Lane functions of ops whose results the CTRL register changes take `ctrl=` (the value the VF
started with, regsim._src.model.core): half results saturate when CTRL[60] = 1 and CTRL[48] = 0, and
int16 / int32 Add, Adds, Sub, Mul, Muls saturate when CTRL[53] = 1 (the boundary-value appendix,
"Reg矢量计算接口边界值汇总", second column).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final, Literal, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import Elementwise, ElementwiseMulti, Magnitude
from regsim._src.engine.spec import (
    DOC,
    Batching,
    CName,
    OneOf,
    OpSpec,
    Role,
    SameAs,
    enum_param,
    face,
    mask,
    pred,
    reg,
    register,
    scalar,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.core import LAUNCH_CTRL, half_saturates, int_saturates
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops.scalars import ComplexScalar, CplxT, Float2T, Float3T, FloatScalar, IntScalar

ZEROING, MERGING = MaskMergeMode.ZEROING, MaskMergeMode.MERGING

# The dtypes on Ascend 950 (the Add / AddC pages), as constrained type variables of the faces.
AddT = TypeVar(
    "AddT",
    dt.int8,
    dt.uint8,
    dt.int16,
    dt.uint16,
    dt.half,
    dt.bfloat16,
    dt.int32,
    dt.uint32,
    dt.float32,
    dt.complex32,
    dt.int64,
    dt.uint64,
    dt.complex64,
)
C = TypeVar("C", dt.int32, dt.uint32)
#: the specs' dtype sets are the type variables' constraints: one list, read by mypy and the specs
ADD_SUB: Final = frozenset(AddT.__constraints__)
CARRY: Final = frozenset(C.__constraints__)
AddMode = Literal[MaskMergeMode.ZEROING, MaskMergeMode.MERGING]
SubMode = Literal[MaskMergeMode.ZEROING]


# --- lane semantics ------------------------------------------------------------------------------
_F16 = np.dtype(np.float16)
_F32 = np.dtype(np.float32)
_HALF_MAX = np.float16(65504.0)
_SATURABLE = (np.dtype(np.int16), np.dtype(np.int32))


def saturate_half(out: Any, ctrl: int) -> Any:
    """The CTRL[48] saturation mode (the SetCtrlSpr page; the boundary-value appendix's
    "饱和模式" column): half results +inf → 65504, -inf → -65504, NaN → 0. complex32 results
    are pairs of halves. Other types, and the INF/NAN mode, pass through."""
    if not half_saturates(ctrl) or not (out.dtype == _F16 or (out.dtype.kind == "c" and out.dtype.itemsize == 4)):
        return out  # (complex32: ml_dtypes' complex of 4 bytes)
    halves = np.ascontiguousarray(out).view(np.float16)
    halves = np.where(np.isnan(halves), np.float16(0), np.clip(halves, -_HALF_MAX, _HALF_MAX))
    return halves.view(out.dtype).reshape(np.shape(out))


def half_saturating(f: Callable[..., Any]) -> Callable[..., Any]:
    """The lane function `f` with the CTRL[48] half saturation applied to its result."""

    @functools.wraps(f)
    def lane(*args: Any, ctrl: int = LAUNCH_CTRL) -> Any:
        return saturate_half(f(*args), ctrl)

    return lane


def int_saturating(f: Callable[..., Any]) -> Callable[..., Any]:
    """The binary lane function `f` (+, -, ×) with the CTRL register's modes: int16 / int32
    results saturate to the type's range when CTRL[53] = 1 (the SetCtrlSpr page: "1'b1：饱和模式，
    溢出值饱和到±MAX"), computed exactly in int64 (|int32 × int32| < 2**62); other results as
    `f`, half ones saturated by CTRL[48]. `out`: an array of the result's type and shape `f` may
    write its result into (and return), as a ufunc's `out`; the saturating modes leave it unused."""

    @functools.wraps(f)
    def lane(a: Any, b: Any, *, ctrl: int = LAUNCH_CTRL, out: Any = None) -> Any:
        if int_saturates(ctrl) and a.dtype in _SATURABLE:  # (the CTRL bits first: the cheaper tests)
            info = np.iinfo(a.dtype)
            return np.clip(
                f(a.astype(np.int64), np.int64(b) if np.ndim(b) == 0 else b.astype(np.int64)), info.min, info.max
            ).astype(a.dtype)
        return saturate_half(f(a, b), ctrl) if half_saturates(ctrl) else f(a, b, out)

    return lane


@int_saturating
def add(a: Any, b: Any, out: Any = None) -> Any:
    """a + b. Integers wrap (numpy's fixed-width arithmetic is modular, as the hardware); floats
    round once to nearest-even (numpy computes half/bf16 in float32 and rounds back, which for +
    and - is one correct rounding: 24 >= 2 * 11 + 2 bits)."""
    return a + b if out is None else np.add(a, b, out=out)


@int_saturating
def sub(a: Any, b: Any, out: Any = None) -> Any:
    """a - b, wrapping / rounded as `add`; (-0) - (-0) = +0 as IEEE 754 says (numpy does)."""
    return a - b if out is None else np.subtract(a, b, out=out)


_U32 = np.dtype(np.uint32)


def add_carry(a: Any, b: Any, carry_in: Any = None) -> tuple[Any, Any]:
    """{carry, dst} = (u32)a + (u32)b [+ carry_in]: a 33-bit sum, its carry read from the wrap
    (the 32-bit sum is below an addend exactly when bit 32 was set)."""
    same = a.dtype is _U32  # (uint32 lanes need no views: the common case, kept cheap)
    ua = a if same else a.view(_U32)
    total = ua + (b if b.dtype is _U32 else b.view(_U32))
    carry = total < ua
    if carry_in is not None:
        with_in = total + carry_in
        carry |= with_in < total
        total = with_in
    return total if same else total.view(a.dtype), carry


def sub_carry(a: Any, b: Any, carry_in: Any = None) -> tuple[Any, Any]:
    """{carry, dst} = {0, a} + {0, ~b} + carry_in (1 when absent): carry 1 means no borrow."""
    return add_carry(a, ~b.view(_U32), True if carry_in is None else carry_in)


# --- scans: the ops over a batched loop's iterations when they carry a value across them -------------
def all_set(flags: Any) -> bool:
    """Whether every flag is set, a broadcast array's repeated (stride 0) axes read once: a batched loop's
    predicate is one row broadcast over its iterations."""
    return bool(flags[tuple(0 if step == 0 else slice(None) for step in flags.strides)].all())


def _last_known(known: Any) -> Any:
    """Per row and lane, the last row up to it where `known` holds (-1: none)."""
    rows = np.arange(known.shape[0])[:, None]
    return np.maximum.accumulate(np.where(known, rows, -1), axis=0)


def add_scan(operands: list[Any], carried: int, active: Any, mode: MaskMergeMode, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """acc = Add(acc, x) across iterations (integers, which wrap, so a running sum is exact):
    MERGING keeps acc on inactive lanes, ZEROING resets it to 0 there. float / half sums round at
    every step: `np.add.accumulate` adds row after row in the iterations' order, each sum rounded
    once as the lane function rounds it (None, for the rows in order, where that could differ)."""
    init, x = operands[carried], np.broadcast_to(operands[1 - carried], active.shape)
    if init.dtype.kind == "f":
        return _float_add_scan(init, x, active, mode, ctrl, carried)
    if init.dtype.kind not in "iu" or (int_saturates(ctrl) and init.dtype.itemsize in (2, 4)):
        return None  # saturating sums clamp at every step: in order
    unsigned = np.dtype(f"u{init.dtype.itemsize}")
    every = all_set(active)  # (every lane of every iteration: nothing kept, nothing reset)
    sums = np.cumsum((x if every else np.where(active, x, 0)).astype(init.dtype).view(unsigned), axis=0, dtype=unsigned)
    start = np.broadcast_to(init.view(unsigned), sums.shape)
    if every or mode is not MaskMergeMode.ZEROING:
        return (start + sums).view(init.dtype)
    reset = _last_known(~active)  # the last inactive row zeroed the accumulator
    before = np.take_along_axis(sums, np.maximum(reset, 0), axis=0)
    return np.where(reset < 0, start + sums, sums - before).view(init.dtype)


def add_scan_last(operands: list[Any], carried: int, active: Any, mode: MaskMergeMode, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """The last iteration's row of `add_scan` (the accumulator as the loop leaves it): one wrapping
    sum over the iterations, no running sum; None where only the whole scan says (floats,
    saturation, ZEROING with inactive lanes, which reset the sum)."""
    init, x = operands[carried], np.broadcast_to(operands[1 - carried], active.shape)
    if init.dtype.kind == "f":
        rows = _float_add_scan(init, x, active, mode, ctrl, carried, last=True)
        return None if rows is None else rows[-1]
    if init.dtype.kind not in "iu" or (int_saturates(ctrl) and init.dtype.itemsize in (2, 4)):
        return None
    every = all_set(active)
    if not every and mode is MaskMergeMode.ZEROING:
        return None
    unsigned = np.dtype(f"u{init.dtype.itemsize}")
    xs = x if every else np.where(active, x, 0)
    xs = xs if xs.dtype == init.dtype else xs.astype(init.dtype)
    return (init.view(unsigned) + xs.view(unsigned).sum(axis=0, dtype=unsigned)).view(init.dtype)


def _float_add_scan(init: Any, x: Any, active: Any, mode: MaskMergeMode, ctrl: int, carried: int, *, last: bool = False) -> Any:
    """The running float / half sums of `add_scan` (with `last`, at least their last row), or None where the
    lane could differ from numpy's add: half saturation (CTRL[48]), ZEROING resets, bf16 (numpy accumulates
    through ml_dtypes' loop, untested here). MERGING's inactive lanes add -0.0, which keeps every acc but a
    NaN's payload: a NaN anywhere then sends the rows in order (a NaN stays to the last row). numpy's
    accumulation adds `acc + x`; of two NaNs, add keeps the one of a fixed operand, so `Add(acc, x, acc)`
    (`carried` 1) with a NaN term runs in order too.

    The last float32 row is numpy's reduction along the rows of a C-contiguous array: numpy adds row after
    row into the result there, one float32 rounding each, in order (its pairwise summation is only along the
    contiguous axis), the accumulation's bits at a twentieth of its time. Half reduces through a float32
    accumulator, so it accumulates."""
    if init.dtype not in (_F16, _F32) or (init.dtype == _F16 and half_saturates(ctrl)):
        return None
    every = all_set(active)
    if not every and mode is MaskMergeMode.ZEROING:
        return None
    xs = (x if every else np.where(active, x, init.dtype.type(-0.0))).astype(init.dtype, copy=False)
    if carried and np.isnan(xs).any():
        return None
    sums = _last_float32_sum(init, xs)[None] if last and init.dtype == _F32 else None
    if sums is None:
        sums = np.add.accumulate(np.concatenate([init[None], xs]), axis=0)[1:]
    if not every and np.isnan(sums).any():
        return None
    return sums


_NEG_ZERO = np.uint32(0x80000000)
_FEW_LANES = 8  #: at most this many lanes with a term other than +0: those lanes' columns are summed alone


def _last_float32_sum(init: Any, xs: Any) -> Any:
    """init + xs[0] + xs[1] + ... per lane, in order. Lanes whose terms are all +0 (the lanes a Reduce leaves 0)
    sum to init + 0; when few lanes have other terms (their last row tells first), those lanes accumulate alone.
    Otherwise numpy's reduction along the rows, which starts from add's identity +0: from a +0 init that is the
    sum itself (xs alone, when C-contiguous: no first row to concatenate). From +0, a lane whose sum in order is
    -0 comes out +0; that needs a -0 init and -0 terms alone, and those lanes are set back to -0."""
    bits = xs.view(_U32) if xs.flags.c_contiguous else None
    if bits is not None and np.count_nonzero(bits[-1]) <= _FEW_LANES:  # (few lanes in all: each summed alone)
        used = np.arange(xs.shape[-1]) if xs.shape[-1] <= _FEW_LANES else np.flatnonzero(_columns_or(bits))
        if used.size <= _FEW_LANES:
            total = init + np.float32(0)  # (+0 terms alone: a -0 start becomes +0, every other value stays)
            if used.size:
                total[used] = np.add.accumulate(np.concatenate([init[None, used], xs[:, used]]), axis=0)[-1]
            return total
    plus_zero = not init.view(_U32).any()
    total = np.add.reduce(xs if plus_zero and bits is not None else np.concatenate([init[None], xs]), axis=0)
    if not plus_zero:
        lanes = np.flatnonzero((init.view(_U32) == _NEG_ZERO) & (total.view(_U32) == 0))
        if lanes.size:
            total[lanes[(xs[:, lanes].view(_U32) == _NEG_ZERO).all(axis=0)]] = -0.0
    return total


def _columns_or(bits: Any) -> Any:
    """The OR of each column of `bits` (rows, lanes), C-contiguous: blocks of 16 rows OR-ed as one long row, then
    folded (one long inner loop per block, not one per row)."""
    rows, lanes = bits.shape
    head = rows - rows % 16
    out = np.bitwise_or.reduce(bits[head:], axis=0, initial=0)
    if head:
        out |= np.bitwise_or.reduce(np.bitwise_or.reduce(bits[:head].reshape(-1, 16 * lanes), axis=0).reshape(16, lanes), axis=0)
    return out


class LastRowScan:
    """A scan that can also give only its last row (a batched loop whose body never reads the
    carried register again needs no more): `scan(...)` as the function, `scan.last(...)` the row.
    `zero_terms`: rows of +0 terms leave the last row as one such row does (Add's: x + 0 + 0 = x + 0, rounded,
    wrapping or saturating alike), so a term +0 past its first lanes (Reduce's) needs its first lanes alone."""

    def __init__(self, full: Callable[..., Any], last: Callable[..., Any], *, zero_terms: bool = False) -> None:
        self.full, self.last, self.zero_terms = full, last, zero_terms
        functools.update_wrapper(self, full)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.full(*args, **kwargs)


def carry_scan(
    operands: list[Any], carried: int, active: Any, mode: MaskMergeMode, *, subtract: bool = False, ctrl: int = LAUNCH_CTRL
) -> Any:
    """AddC / SubC with its carry chained across iterations (carry out of one = carry in of the
    next): a generate/propagate prefix scan. Lane i of iteration b generates a carry when
    a + b overflows, propagates the incoming one when a + b is all ones, and (inactive) kills it."""
    if carried != 2:
        return None
    a, b, c0 = operands
    ua = np.broadcast_to(a, active.shape).view(_U32)
    ub = np.broadcast_to(b, active.shape).view(_U32)
    s = ua + (~ub if subtract else ub)
    generate, propagate = s < ua, s == np.uint32(0xFFFFFFFF)
    known = ~active | generate | ~propagate
    last = _last_known(known)
    value = np.take_along_axis(active & generate, np.maximum(last, 0), axis=0)
    carry = np.where(last >= 0, value, np.broadcast_to(c0, active.shape))
    carry_in = np.concatenate((np.broadcast_to(c0, active.shape[1:])[None], carry[:-1]))
    dst = np.where(active, s + carry_in, np.uint32(0)).view(a.dtype)
    return dst, carry


# --- specs ---------------------------------------------------------------------------------------
def _binary(dtypes: frozenset[type[dt.DType]], modes: tuple[MaskMergeMode, ...]) -> tuple[Any, ...]:
    return (
        reg("dst_reg", Role.OUT, OneOf(dtypes)),
        reg("src_reg0", dtypes=SameAs("dst_reg")),
        reg("src_reg1", dtypes=SameAs("dst_reg")),
        pred(),
        enum_param("mode", MaskMergeMode, ZEROING, modes),
    )


def _carry(with_carry_in: bool) -> tuple[Any, ...]:
    return (
        mask("carry", Role.OUT),
        reg("dst_reg", Role.OUT, OneOf(CARRY)),
        reg("src_reg0", dtypes=SameAs("dst_reg")),
        reg("src_reg1", dtypes=SameAs("dst_reg")),
        *((mask("carry_src"),) if with_carry_in else ()),
        pred(),
    )


_ARITH = DOC + "基础算术/"
_EW = Elementwise(ctrl=True)
_EW_PLAIN = Elementwise()
_LANES = Batching.ELEMENTWISE

register(
    OpSpec(
        "Add",
        "",
        "arith",
        _binary(ADD_SUB, (ZEROING, MERGING)),
        _EW,
        "dst[i] = mask[i] ? src0[i] + src1[i] : (ZEROING ? 0 : dst[i])",
        _ARITH + "Add.md",
        _LANES,
        lane=add,
        scan=LastRowScan(add_scan, add_scan_last, zero_terms=True),
        c_api=CName("asc_add", ("dst_reg", "src_reg0", "src_reg1", "mask")),
    )
)
register(
    OpSpec(
        "Sub",
        "",
        "arith",
        _binary(ADD_SUB, (ZEROING,)),
        _EW,
        "dst[i] = mask[i] ? src0[i] - src1[i] : 0",
        _ARITH + "Sub.md",
        _LANES,
        lane=sub,
        c_api=CName("asc_sub", ("dst_reg", "src_reg0", "src_reg1", "mask")),
    )
)
#: the C API's carry forms (asc_add.md, asc_sub.md, asc_addc.md, asc_subc.md) take vector_uint32_t only
_C_CARRY: Final = frozenset({dt.uint32})
register(
    OpSpec(
        "Add",
        "carry",
        "arith",
        _carry(False),
        _EW_PLAIN,
        "{carry[i], dst[i]} = mask[i] ? (u32)src0[i] + (u32)src1[i] : {0, 0}",
        _ARITH + "Add.md",
        _LANES,
        lane=add_carry,
        c_api=CName("asc_add", ("carry", "dst_reg", "src_reg0", "src_reg1", "mask"), dtypes=_C_CARRY),
        aliases=("AddCarryOut",),
    )
)
register(
    OpSpec(
        "Sub",
        "carry",
        "arith",
        _carry(False),
        _EW_PLAIN,
        "{carry[i], dst[i]} = mask[i] ? {0, src0[i]} + {0, ~src1[i]} + 1 : {0, 0}   (carry = no borrow)",
        _ARITH + "Sub.md",
        _LANES,
        lane=sub_carry,
        c_api=CName("asc_sub", ("carry", "dst_reg", "src_reg0", "src_reg1", "mask"), dtypes=_C_CARRY),
        aliases=("SubCarryOut",),
    )
)
register(
    OpSpec(
        "AddC",
        "",
        "arith",
        _carry(True),
        _EW_PLAIN,
        "{carry[i], dst[i]} = mask[i] ? (u32)src0[i] + (u32)src1[i] + carry_src[i] : {0, 0}",
        _ARITH + "AddC.md",
        _LANES,
        lane=add_carry,
        scan=carry_scan,
        c_api=CName("asc_addc", ("carry", "dst_reg", "src_reg0", "src_reg1", "carry_src", "mask"), dtypes=_C_CARRY),
        aliases=("AddCarryOuts",),
    )
)
register(
    OpSpec(
        "SubC",
        "",
        "arith",
        _carry(True),
        _EW_PLAIN,
        "{carry[i], dst[i]} = mask[i] ? {0, src0[i]} + {0, ~src1[i]} + carry_src[i] : {0, 0}",
        _ARITH + "SubC.md",
        _LANES,
        lane=sub_carry,
        scan=functools.partial(carry_scan, subtract=True),
        c_api=CName("asc_subc", ("carry", "dst_reg", "src_reg0", "src_reg1", "carry_src", "mask"), dtypes=_C_CARRY),
        aliases=("SubCarryOuts",),
    )
)


# --- typed faces ---------------------------------------------------------------------------------
@overload
def Add(
    dst_reg: RegTensor[AddT], src_reg0: RegTensor[AddT], src_reg1: RegTensor[AddT], mask: MaskReg, *, mode: AddMode = ...
) -> None: ...
@overload
def Add(carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], mask: MaskReg) -> None: ...
@face("Add")
def Add(*args: Any, **kwargs: Any) -> None: ...


@overload
def Sub(
    dst_reg: RegTensor[AddT], src_reg0: RegTensor[AddT], src_reg1: RegTensor[AddT], mask: MaskReg, *, mode: SubMode = ...
) -> None: ...
@overload
def Sub(carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], mask: MaskReg) -> None: ...
@face("Sub")
def Sub(*args: Any, **kwargs: Any) -> None: ...


@face("AddC")
def AddC(
    carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], carry_src: MaskReg, mask: MaskReg
) -> None: ...


@face("SubC")
def SubC(
    carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], carry_src: MaskReg, mask: MaskReg
) -> None: ...


# =================================================================================================
# Abs, Relu, Neg, Mul, Max, Min, Mull, Prelu and the scalar forms Adds, Muls, Maxs, Mins, LeakyRelu
# =================================================================================================
def _set(*types: type[dt.DType]) -> frozenset[type[dt.DType]]:
    return frozenset(types)


ABS: Final = _set(dt.int8, dt.int16, dt.half, dt.int32, dt.float32, dt.int64)
RELU: Final = _set(dt.half, dt.int32, dt.float32, dt.int64)
MUL: Final = _set(
    dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.complex32, dt.int64, dt.uint64, dt.complex64
)
MAX_MIN: Final = _set(
    dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64
)
MULS: Final = MUL - {dt.bfloat16}
MULL: Final = CARRY
SLOPE: Final = _set(dt.half, dt.float32)

AbsT = TypeVar("AbsT", dt.int8, dt.int16, dt.half, dt.int32, dt.float32, dt.int64)
ReluT = TypeVar("ReluT", dt.half, dt.int32, dt.float32, dt.int64)
MulT = TypeVar(
    "MulT",
    dt.int16,
    dt.uint16,
    dt.half,
    dt.bfloat16,
    dt.int32,
    dt.uint32,
    dt.float32,
    dt.complex32,
    dt.int64,
    dt.uint64,
    dt.complex64,
)
MulsT = TypeVar(
    "MulsT", dt.int16, dt.uint16, dt.half, dt.int32, dt.uint32, dt.float32, dt.complex32, dt.int64, dt.uint64, dt.complex64
)
MaxT = TypeVar(
    "MaxT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64
)
SlopeT = TypeVar("SlopeT", dt.half, dt.float32)
ZeroingOnly = Literal[MaskMergeMode.ZEROING]

_SIGN: dict[int, Any] = {2: np.uint16(0x8000), 4: np.uint32(0x80000000)}


def _is_float(a: Any) -> bool:
    return bool(a.dtype.kind == "f" or dt.holds_bfloat16(a))


def _bits(a: Any) -> Any:
    return a.view(f"u{a.dtype.itemsize}")


# --- lane semantics ------------------------------------------------------------------------------
@half_saturating
def abs_(a: Any) -> Any:
    """|a|. Floats clear the sign bit (the boundary table: -0 → 0, -inf → inf, NaN stays NaN);
    integers wrap (the Abs page: "srcReg为-128，其绝对值128会被截断成-128")."""
    if _is_float(a):
        return (_bits(a) & ~_SIGN[a.dtype.itemsize]).view(a.dtype)
    return np.abs(a)  # numpy's abs of the minimum wraps to the minimum, as the page says


@half_saturating
def neg(a: Any) -> Any:
    """-a. Floats flip the sign bit (the precision appendix: "Neg | 符号位取反": 0 ↔ -0, NaN
    kept); integers wrap (-MIN = MIN)."""
    if _is_float(a):
        return (_bits(a) ^ _SIGN[a.dtype.itemsize]).view(a.dtype)
    return np.negative(a)


@half_saturating
def relu(a: Any) -> Any:
    """max(a, 0): the boundary table gives -0 → +0, NaN → NaN, -inf → 0."""
    zero = a.dtype.type(0)
    if _is_float(a):
        return np.where(np.isnan(a) | (a > zero), a, zero)
    return np.maximum(a, zero)


def _nan_first(a: Any, b: Any, r: Any) -> Any:
    """NaN propagates (the Max/Min boundary tables: "nan | any → nan"): src0's NaN, else src1's."""
    return np.where(np.isnan(a), a, np.where(np.isnan(b), b, r))


@half_saturating
def max_(a: Any, b: Any) -> Any:
    """max(a, b) with -0 < +0 (the Max page: "srcReg0为-0，srcReg1为+0 … 输出dstReg为+0") and NaN
    propagating. Integers: numpy's maximum."""
    if not _is_float(a):
        return np.maximum(a, b)
    r = np.where(a > b, a, b)
    zeros = (a == 0) & (b == 0)
    r = np.where(zeros & ~np.signbit(a), a, r)  # +0 if either is +0
    return _nan_first(a, b, r)


@half_saturating
def min_(a: Any, b: Any) -> Any:
    """min(a, b) with -0 < +0 (the Min page: "srcReg0为-0，srcReg1为+0 … 输出dstReg为-0") and NaN
    propagating."""
    if not _is_float(a):
        return np.minimum(a, b)
    r = np.where(a < b, a, b)
    zeros = (a == 0) & (b == 0)
    r = np.where(zeros & np.signbit(a), a, r)  # -0 if either is -0
    return _nan_first(a, b, r)


def complex_components(a: Any, b: Any) -> tuple[Any, Any]:
    """Complex lanes `a` and `b` (arrays with leading axes, or `b` one number) in one shape, each as
    its component type's lanes, real and imaginary parts interleaved."""
    comp = np.float16 if a.dtype.itemsize == 4 else np.float32  # (complex32 of 4 bytes, complex64 of 8)
    b = np.asarray(b).reshape(np.shape(b) or (1,))
    a, b = (np.ascontiguousarray(v) for v in np.broadcast_arrays(a, b))
    return a.view(comp), b.view(comp)


def complex_mul(a: Any, b: Any, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """The library's ComplexMulKernel: e = ar·br, f = ai·bi, g = ai·br, h = ar·bi; re = e - f,
    im = g + h, each a separately rounded op of the component type (not fused) and, for
    complex32 in the half saturation mode, each saturated."""
    x, y = complex_components(a, b)
    ar, ai, br, bi = x[..., 0::2], x[..., 1::2], y[..., 0::2], y[..., 1::2]

    def step(v: Any) -> Any:
        return saturate_half(v, ctrl)

    out = np.empty_like(x)
    out[..., 0::2] = step(step(ar * br) - step(ai * bi))
    out[..., 1::2] = step(step(ai * br) + step(ar * bi))
    return out.view(a.dtype)


@int_saturating
def _real_mul(a: Any, b: Any, out: Any = None) -> Any:
    if dt.holds_bfloat16(a):
        return (a.astype(np.float32) * np.float32(b) if np.ndim(b) == 0 else a.astype(np.float32) * b.astype(np.float32)).astype(
            a.dtype
        )
    return a * b if out is None else np.multiply(a, b, out=out)


def mul(a: Any, b: Any, *, ctrl: int = LAUNCH_CTRL, out: Any = None) -> Any:
    """a × b. Integers keep the low bits (the Mul page: "输出结果为不饱和模式"; int16 / int32
    saturate with CTRL[53] = 1). half and float round once: a half product has at most 22
    significant bits and lies in [2**-48, 2**32], so numpy's float32 product is exact and its
    rounding back to half is the only one; float32 is numpy's IEEE product. bfloat16 is, as the
    precision appendix defines it, rint_to_bf16(Mul(cast_to_f32(x), cast_to_f32(y))) (exact
    except below float32's normal range). Complex types: `complex_mul`."""
    if a.dtype.kind == "c":  # (complex32 and complex64)
        return complex_mul(a, b, ctrl=ctrl)
    return _real_mul(a, b, ctrl=ctrl, out=out)


def mull(a: Any, b: Any) -> tuple[Any, Any]:
    """(low, high) 32-bit words of the exact 64-bit product (signed for int32, unsigned for
    uint32); the high word is the product shifted right arithmetically."""
    wide = np.int64 if a.dtype == np.int32 else np.uint64
    p = a.astype(wide) * b.astype(wide)
    return p.astype(a.dtype), (p >> wide(32)).astype(a.dtype)


@half_saturating
def prelu(a: Any, slope: Any) -> Any:
    """signbit(a) ? a × slope : a — the sign-bit reading of "src > 0 ? src : src × slope" the
    Prelu / LeakyRelu boundary tables require (+0 with slope inf or NaN → 0.0, -0 with NaN → NaN;
    docs/decisions/arithmetic.md#signbit-prelu-leakyrelu). The product rounds once, as Mul's."""
    return np.where(np.signbit(a), a * slope, a)


def complex_abs(src: Any, *, ctrl: int = LAUNCH_CTRL) -> Any:
    """|z| as the library's ComplexAbsKernel computes it, four vector ops in the component type:
    Mul(re², re, re); Mul(im², im, im); Add(s, re², im²); Sqrt(dst, s). Each rounds (and, in the
    half saturation mode, saturates) on its own, so a complex32 |z| overflows to inf once re² or
    im² exceeds 65504. Sqrt is taken correctly rounded (the precision appendix allows it 1 ulp;
    float32's sqrt rounded to half is one correct rounding, 24 ≥ 2·11 + 2) and, as that appendix
    says it does "not support denormalized numbers", a subnormal sum counts as 0."""
    comp = np.float16 if src.dtype.itemsize == 4 else np.float32  # (complex32 of 4 bytes, complex64 of 8)
    x = src.view(comp)
    re, im = x[..., 0::2], x[..., 1::2]
    total = add(mul(re, re, ctrl=ctrl), mul(im, im, ctrl=ctrl), ctrl=ctrl)
    total = np.where(np.abs(total) < np.finfo(comp).tiny, comp(0), total)
    return saturate_half(np.sqrt(total.astype(np.float32)).astype(comp), ctrl)


# --- specs ---------------------------------------------------------------------------------------
def _unary(dtypes: frozenset[type[dt.DType]]) -> tuple[Any, ...]:
    return (
        reg("dst_reg", Role.OUT, OneOf(dtypes)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        pred(),
        enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
    )


def _with_scalar(dtypes: frozenset[type[dt.DType]], dst_role: Role = Role.OUT) -> tuple[Any, ...]:
    return (
        reg("dst_reg", dst_role, OneOf(dtypes)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        scalar("scalar_value"),
        pred(),
        enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
    )


_UNARY_C = ("dst_reg", "src_reg", "mask")
_BINARY_C = ("dst_reg", "src_reg0", "src_reg1", "mask")
_SCALAR_C = ("dst_reg", "src_reg", "scalar_value", "mask")
_Z = (ZEROING,)
_ZM = (ZEROING, MERGING)

for _name, _dtypes, _lane, _eq, _c in (
    ("Abs", ABS, abs_, "dst[i] = mask[i] ? |src[i]| : 0   (integers wrap: |-128| = -128)", "asc_abs"),
    ("Relu", RELU, relu, "dst[i] = mask[i] ? max(src[i], 0) : 0   (-0 -> +0)", "asc_relu"),
    ("Neg", ABS, neg, "dst[i] = mask[i] ? -src[i] : 0   (floats: sign bit flipped)", "asc_neg"),
):
    register(
        OpSpec(
            _name, "", "arith", _unary(_dtypes), _EW, _eq, _ARITH + f"{_name}.md", _LANES, lane=_lane, c_api=CName(_c, _UNARY_C)
        )
    )

for _name, _dtypes, _modes, _lane, _eq, _c in (
    ("Mul", MUL, _Z, mul, "dst[i] = mask[i] ? src0[i] * src1[i] : 0", "asc_mul"),
    (
        "Max",
        MAX_MIN,
        _ZM,
        max_,
        "dst[i] = mask[i] ? max(src0[i], src1[i]) : (ZEROING ? 0 : dst[i])   (-0 < +0, NaN wins)",
        "asc_max",
    ),
    (
        "Min",
        MAX_MIN,
        _ZM,
        min_,
        "dst[i] = mask[i] ? min(src0[i], src1[i]) : (ZEROING ? 0 : dst[i])   (-0 < +0, NaN wins)",
        "asc_min",
    ),
    ("Prelu", SLOPE, _Z, prelu, "dst[i] = mask[i] ? (signbit(src0[i]) ? src0[i] * src1[i] : src0[i]) : 0", "asc_prelu"),
):
    register(
        OpSpec(
            _name,
            "",
            "arith",
            _binary(_dtypes, _modes),
            _EW,
            _eq,
            _ARITH + f"{_name}.md",
            _LANES,
            lane=_lane,
            c_api=CName(_c, _BINARY_C),
        )
    )

for _name, _dtypes, _lane, _eq, _c in (
    ("Adds", ADD_SUB, add, "dst[i] = mask[i] ? src[i] + scalar : 0", "asc_add_scalar"),
    ("Muls", MULS, mul, "dst[i] = mask[i] ? src[i] * scalar : 0", "asc_mul_scalar"),
    ("Maxs", MAX_MIN, max_, "dst[i] = mask[i] ? max(src[i], scalar) : 0   (-0 < +0, NaN wins)", "asc_max_scalar"),
    ("Mins", MAX_MIN, min_, "dst[i] = mask[i] ? min(src[i], scalar) : 0   (-0 < +0, NaN wins)", "asc_min_scalar"),
    ("LeakyRelu", SLOPE, prelu, "dst[i] = mask[i] ? (signbit(src[i]) ? src[i] * scalar : src[i]) : 0", "asc_leakyrelu"),
):
    register(
        OpSpec(
            _name,
            "",
            "arith",
            _with_scalar(_dtypes),
            _EW,
            _eq,
            _ARITH + f"{_name}.md",
            _LANES,
            lane=_lane,
            c_api=CName(_c, _SCALAR_C),
        )
    )

for _src, _dst in ((dt.complex32, dt.half), (dt.complex64, dt.float32)):
    register(
        OpSpec(
            "Abs",
            f"complex_{_src.itemsize * 8}",
            "arith",
            (
                reg("dst_reg", Role.OUT, OneOf(_set(_dst))),
                reg("src_reg", dtypes=OneOf(_set(_src))),
                pred(),
                enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
            ),
            Magnitude(),
            f"dst[i] = mask[i] ? sqrt(re(src[i])² + im(src[i])²) : 0   ({_src.name} → {_dst.name}, each step rounded)",
            _ARITH + "Abs.md",
            _LANES,
            lane=complex_abs,
        )
    )

register(
    OpSpec(
        "Mull",
        "",
        "arith",
        (
            reg("dst_reg0", Role.OUT, OneOf(MULL)),
            reg("dst_reg1", Role.OUT, SameAs("dst_reg0")),
            reg("src_reg0", dtypes=SameAs("dst_reg0")),
            reg("src_reg1", dtypes=SameAs("dst_reg0")),
            pred(),
        ),
        ElementwiseMulti(),
        "{dst1[i], dst0[i]} = mask[i] ? (64-bit) src0[i] * src1[i] : {0, 0}",
        _ARITH + "Mull.md",
        _LANES,
        lane=mull,
        c_api=CName("asc_mull", ("dst_reg0", "dst_reg1", "src_reg0", "src_reg1", "mask")),
    )
)


# --- typed faces ---------------------------------------------------------------------------------
@overload
def Abs(dst_reg: RegTensor[AbsT], src_reg: RegTensor[AbsT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Abs(dst_reg: RegTensor[dt.half], src_reg: RegTensor[dt.complex32], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Abs(dst_reg: RegTensor[dt.float32], src_reg: RegTensor[dt.complex64], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@face("Abs")
def Abs(*args: Any, **kwargs: Any) -> None: ...


@face("Relu")
def Relu(dst_reg: RegTensor[ReluT], src_reg: RegTensor[ReluT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...


@face("Neg")
def Neg(dst_reg: RegTensor[AbsT], src_reg: RegTensor[AbsT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...


@face("Mul")
def Mul(
    dst_reg: RegTensor[MulT], src_reg0: RegTensor[MulT], src_reg1: RegTensor[MulT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...


@face("Max")
def Max(
    dst_reg: RegTensor[MaxT], src_reg0: RegTensor[MaxT], src_reg1: RegTensor[MaxT], mask: MaskReg, *, mode: AddMode = ...
) -> None: ...


@face("Min")
def Min(
    dst_reg: RegTensor[MaxT], src_reg0: RegTensor[MaxT], src_reg1: RegTensor[MaxT], mask: MaskReg, *, mode: AddMode = ...
) -> None: ...


@face("Prelu")
def Prelu(
    dst_reg: RegTensor[SlopeT],
    src_reg0: RegTensor[SlopeT],
    src_reg1: RegTensor[SlopeT],
    mask: MaskReg,
    *,
    mode: ZeroingOnly = ...,
) -> None: ...


@face("Mull")
def Mull(
    dst_reg0: RegTensor[C], dst_reg1: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], mask: MaskReg
) -> None: ...


@overload
def Adds(
    dst_reg: RegTensor[AddT], src_reg: RegTensor[AddT], scalar_value: IntScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Adds(
    dst_reg: RegTensor[Float3T], src_reg: RegTensor[Float3T], scalar_value: FloatScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Adds(
    dst_reg: RegTensor[CplxT], src_reg: RegTensor[CplxT], scalar_value: ComplexScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@face("Adds")
def Adds(*args: Any, **kwargs: Any) -> None:
    """The scalar operand is an int for an integer register, a real number for a float one, any number for a
    complex one."""


@overload
def Muls(
    dst_reg: RegTensor[MulsT], src_reg: RegTensor[MulsT], scalar_value: IntScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Muls(
    dst_reg: RegTensor[Float2T], src_reg: RegTensor[Float2T], scalar_value: FloatScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Muls(
    dst_reg: RegTensor[CplxT], src_reg: RegTensor[CplxT], scalar_value: ComplexScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@face("Muls")
def Muls(*args: Any, **kwargs: Any) -> None:
    """The scalar operand is an int for an integer register, a real number for a float one, any number for a
    complex one."""


@overload
def Maxs(
    dst_reg: RegTensor[MaxT], src_reg: RegTensor[MaxT], scalar_value: IntScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Maxs(
    dst_reg: RegTensor[Float3T], src_reg: RegTensor[Float3T], scalar_value: FloatScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@face("Maxs")
def Maxs(*args: Any, **kwargs: Any) -> None:
    """The scalar operand is an int for an integer register, a real number for a float one, any number for a
    complex one."""


@overload
def Mins(
    dst_reg: RegTensor[MaxT], src_reg: RegTensor[MaxT], scalar_value: IntScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Mins(
    dst_reg: RegTensor[Float3T], src_reg: RegTensor[Float3T], scalar_value: FloatScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@face("Mins")
def Mins(*args: Any, **kwargs: Any) -> None:
    """The scalar operand is an int for an integer register, a real number for a float one, any number for a
    complex one."""


@face("LeakyRelu")
def LeakyRelu(
    dst_reg: RegTensor[SlopeT], src_reg: RegTensor[SlopeT], scalar_value: FloatScalar, mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
