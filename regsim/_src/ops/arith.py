"""Arithmetic, with and without carry (the Add, Sub, AddC and SubC pages of the Reg API).

Each op is declared once: its spec (operands by role, dtypes on Ascend 950, merge modes), its
pure lane function and its typed face. `Add` and `Sub` serve two C++ overloads each: a `MaskReg`
first operand selects the carry-out form, as C++ overload resolution does.
"""

from __future__ import annotations

import functools
from typing import Any, Final, Literal, TypeVar, overload

import numpy as np

from regsim._src import dtypes as dt
from regsim._src.enums import MaskMergeMode
from regsim._src.executors import Elementwise
from regsim._src.registers import MaskReg, RegTensor
from regsim._src.spec import (
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
)

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
def add(a: Any, b: Any) -> Any:
    """a + b. Integers wrap (numpy's fixed-width arithmetic is modular, as the hardware); floats
    round once to nearest-even (numpy computes half/bf16 in float32 and rounds back, which for +
    and - is one correct rounding: 24 >= 2 * 11 + 2 bits)."""
    return a + b


def sub(a: Any, b: Any) -> Any:
    """a - b, wrapping / rounded as `add`."""
    return a - b


_U32 = np.dtype(np.uint32)


def add_carry(a: Any, b: Any, carry_in: Any = None) -> tuple[Any, Any]:
    """{carry, dst} = (u32)a + (u32)b [+ carry_in]: a 33-bit sum, its carry read from the wrap
    (the 32-bit sum is below an addend exactly when bit 32 was set)."""
    ua = a.view(_U32)
    total = ua + b.view(_U32)
    carry = total < ua
    if carry_in is not None:
        with_in = total + carry_in
        carry |= with_in < total
        total = with_in
    return total.view(a.dtype), carry


def sub_carry(a: Any, b: Any, carry_in: Any = None) -> tuple[Any, Any]:
    """{carry, dst} = {0, a} + {0, ~b} + carry_in (1 when absent): carry 1 means no borrow."""
    return add_carry(a, ~b.view(_U32), True if carry_in is None else carry_in)


# --- scans: the ops over a batched loop's iterations when they carry a value across them -------------
def _last_known(known: Any) -> Any:
    """Per row and lane, the last row up to it where `known` holds (-1: none)."""
    rows = np.arange(known.shape[0])[:, None]
    return np.maximum.accumulate(np.where(known, rows, -1), axis=0)


def add_scan(operands: list[Any], carried: int, active: Any, mode: MaskMergeMode) -> Any:
    """acc = Add(acc, x) across iterations (integers, which wrap, so a running sum is exact):
    MERGING keeps acc on inactive lanes, ZEROING resets it to 0 there."""
    init, x = operands[carried], np.broadcast_to(operands[1 - carried], active.shape)
    if init.dtype.kind not in "iu":
        return None  # floats: each sum rounds; the loop runs in order
    unsigned = np.dtype(f"u{init.dtype.itemsize}")
    sums = np.cumsum(np.where(active, x, 0).astype(init.dtype).view(unsigned), axis=0, dtype=unsigned)
    start = np.broadcast_to(init.view(unsigned), sums.shape)
    if mode is not MaskMergeMode.ZEROING:
        return (start + sums).view(init.dtype)
    reset = _last_known(~active)  # the last inactive row zeroed the accumulator
    before = np.take_along_axis(sums, np.maximum(reset, 0), axis=0)
    return np.where(reset < 0, start + sums, sums - before).view(init.dtype)


def carry_scan(operands: list[Any], carried: int, active: Any, mode: MaskMergeMode, *, subtract: bool = False) -> Any:
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
_EW = Elementwise()
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
        scan=add_scan,
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
register(
    OpSpec(
        "Add",
        "carry",
        "arith",
        _carry(False),
        _EW,
        "{carry[i], dst[i]} = mask[i] ? (u32)src0[i] + (u32)src1[i] : {0, 0}",
        _ARITH + "Add.md",
        _LANES,
        lane=add_carry,
        aliases=("AddCarryOut",),
    )
)
register(
    OpSpec(
        "Sub",
        "carry",
        "arith",
        _carry(False),
        _EW,
        "{carry[i], dst[i]} = mask[i] ? {0, src0[i]} + {0, ~src1[i]} + 1 : {0, 0}   (carry = no borrow)",
        _ARITH + "Sub.md",
        _LANES,
        lane=sub_carry,
        aliases=("SubCarryOut",),
    )
)
register(
    OpSpec(
        "AddC",
        "",
        "arith",
        _carry(True),
        _EW,
        "{carry[i], dst[i]} = mask[i] ? (u32)src0[i] + (u32)src1[i] + carry_src[i] : {0, 0}",
        _ARITH + "AddC.md",
        _LANES,
        lane=add_carry,
        scan=carry_scan,
        c_api=CName("asc_addc", ("carry", "dst_reg", "src_reg0", "src_reg1", "carry_src", "mask")),
        aliases=("AddCarryOuts",),
    )
)
register(
    OpSpec(
        "SubC",
        "",
        "arith",
        _carry(True),
        _EW,
        "{carry[i], dst[i]} = mask[i] ? {0, src0[i]} + {0, ~src1[i]} + carry_src[i] : {0, 0}",
        _ARITH + "SubC.md",
        _LANES,
        lane=sub_carry,
        scan=functools.partial(carry_scan, subtract=True),
        c_api=CName("asc_subc", ("carry", "dst_reg", "src_reg0", "src_reg1", "carry_src", "mask")),
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
