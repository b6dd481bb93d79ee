"""Compare and select (the 比较与选择 pages of the Reg API): `Compare`, `Compares` (legacy
`CompareScalar`), `Select` on RegTensors and, by operand kinds, on MaskRegs (the MaskReg计算
`Select` page; legacy `MaskSel`).

`CMPMODE` (`rs.AscendC.CMPMODE`) is the template parameter `mode=`, as for every C++ template
parameter.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import MaskBits, PredicateOut, SelectLanes
from regsim._src.engine.spec import (
    DOC,
    Batching,
    CName,
    OneOf,
    Operand,
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
from regsim._src.model.enums import CMPMODE
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops.scalars import Float3T, FloatScalar, IntScalar

# The dtypes on Ascend 950 (the Compare and Select pages), as constrained type variables of the faces.
CmpT = TypeVar(
    "CmpT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64
)
SelT = TypeVar(
    "SelT",
    dt.bool_,
    dt.int8,
    dt.uint8,
    dt.int16,
    dt.uint16,
    dt.half,
    dt.bfloat16,
    dt.int32,
    dt.uint32,
    dt.float32,
    dt.int64,
    dt.uint64,
)
#: the specs' dtype sets are the type variables' constraints: one list, read by mypy and the specs
CMP_T: Final = frozenset(CmpT.__constraints__)
SELECT_T: Final = frozenset(SelT.__constraints__)


# --- lane semantics ----------------------------------------------------------------------------------
def _ordered(a: Any) -> Any:
    """Lanes as numpy compares them IEEE-correctly: bfloat16 widened to float32 (exact)."""
    return a.astype(np.float32) if dt.holds_bfloat16(a) else a


_COMPARE = {
    CMPMODE.EQ: np.equal,
    CMPMODE.NE: np.not_equal,
    CMPMODE.GT: np.greater,
    CMPMODE.GE: np.greater_equal,
    CMPMODE.LT: np.less,
    CMPMODE.LE: np.less_equal,
}


def compare(mode: CMPMODE, a: Any, b: Any) -> Any:
    """a <mode> b per lane. Floats compare as IEEE 754 (the Compare page and the boundary-value
    appendix): a NaN operand makes every mode false but NE true, +0 equals -0, infinities are
    ordered. 64-bit integers: the library compares the 32-bit halves (low words unsigned, high
    words signed for int64) and combines them (`highEq ? lowCmp : highCmp`), which is exactly the
    64-bit order numpy computes directly."""
    return _COMPARE[mode](_ordered(a), _ordered(b))


def compare_of(mode: CMPMODE, dtype: type[dt.DType]) -> Callable[[Any, Any], Any]:
    """`compare` with its mode and the operands' element type fixed (once per call signature): numpy's comparison
    itself where `_ordered` widens nothing."""
    if dtype is dt.bfloat16:  # (the one type `_ordered` widens)
        return functools.partial(compare, mode)
    return _COMPARE[mode]


def select_bits(src0: Any, src1: Any, m: Any) -> Any:
    """Per bit: mask[k] ? src0[k] : src1[k] (nothing zeroed)."""
    return np.where(m, src0, src1)


# --- specs ---------------------------------------------------------------------------------------------
_PAGES = DOC + "比较与选择/"
_LANES = Batching.ELEMENTWISE


def _mode() -> Operand:
    return enum_param("mode", CMPMODE, CMPMODE.EQ)


#: the C API's compares (asc_eq.md ... asc_le_scalar.md under C-API/reg/compare_and_select): one C name per
#: CMPMODE, on the 8-, 16- and 32-bit types (no 64-bit overloads)
_C_CMP_T = CMP_T - {dt.int64, dt.uint64}


def _c_compares(suffix: str, params: tuple[str, ...]) -> tuple[CName, ...]:
    return tuple(CName(f"asc_{m.name.lower()}{suffix}", params, (("mode", m),), _C_CMP_T) for m in CMPMODE)


register(
    OpSpec(
        "Compare",
        "",
        "compare",
        (
            mask("dst", Role.OUT),
            reg("src_reg0", dtypes=OneOf(CMP_T)),
            reg("src_reg1", dtypes=SameAs("src_reg0")),
            pred(),
            _mode(),
        ),
        PredicateOut(compare_of),
        "dst[i] = mask[i] && (src0[i] <mode> src1[i])   (mode: EQ NE GT GE LT LE; floats IEEE)",
        _PAGES + "Compare.md",
        _LANES,
        lane=compare,
        c_api=_c_compares("", ("dst", "src_reg0", "src_reg1", "mask")),
    )
)
register(
    OpSpec(
        "Compares",
        "",
        "compare",
        (mask("dst", Role.OUT), reg("src_reg", dtypes=OneOf(CMP_T)), scalar("scalar_value"), pred(), _mode()),
        PredicateOut(compare_of),
        "dst[i] = mask[i] && (src[i] <mode> scalar_value)   (the scalar converted to T)",
        _PAGES + "Compares.md",
        _LANES,
        lane=compare,
        c_api=_c_compares("_scalar", ("dst", "src_reg", "scalar_value", "mask")),
        aliases=("CompareScalar",),
    )
)
register(
    OpSpec(
        "Select",
        "",
        "compare",
        (
            reg("dst_reg", Role.OUT, OneOf(SELECT_T)),
            reg("src_reg0", dtypes=SameAs("dst_reg")),
            reg("src_reg1", dtypes=SameAs("dst_reg")),
            pred(),
        ),
        SelectLanes(),
        "dst[i] = mask[i] ? src0[i] : src1[i]   (bit for bit; no lane zeroed)",
        _PAGES + "Select.md",
        _LANES,
        c_api=CName("asc_select", ("dst_reg", "src_reg0", "src_reg1", "mask")),
    )
)
register(
    OpSpec(
        "Select",
        "mask",
        "compare",
        (mask("dst", Role.OUT), mask("src0"), mask("src1"), pred()),
        MaskBits(),
        "dst[k] = mask[k] ? src0[k] : src1[k]   (each of the 256 bits)",
        DOC + "MaskReg计算/Select.md",
        _LANES,
        lane=select_bits,
        c_api=CName("asc_select", ("dst", "src0", "src1", "mask")),
        aliases=("MaskSel",),
    )
)


# --- typed faces ---------------------------------------------------------------------------------------
@face("Compare")
def Compare(
    dst: MaskReg, src_reg0: RegTensor[CmpT], src_reg1: RegTensor[CmpT], mask: MaskReg, *, mode: CMPMODE = CMPMODE.EQ
) -> None: ...


@overload
def Compares(
    dst: MaskReg, src_reg: RegTensor[CmpT], scalar_value: IntScalar, mask: MaskReg, *, mode: CMPMODE = CMPMODE.EQ
) -> None: ...
@overload
def Compares(
    dst: MaskReg, src_reg: RegTensor[Float3T], scalar_value: FloatScalar, mask: MaskReg, *, mode: CMPMODE = CMPMODE.EQ
) -> None: ...
@face("Compares")
def Compares(*args: Any, **kwargs: Any) -> None:
    """The scalar operand is an int for an integer register, a real number for a float one."""


@overload
def Select(dst_reg: RegTensor[SelT], src_reg0: RegTensor[SelT], src_reg1: RegTensor[SelT], mask: MaskReg) -> None: ...
@overload
def Select(dst: MaskReg, src0: MaskReg, src1: MaskReg, mask: MaskReg) -> None: ...
@face("Select")
def Select(*args: Any, **kwargs: Any) -> None: ...
