"""Arithmetic, with and without carry (semantics.md §2.6; D/基础算术/Add.md, Sub.md, AddC.md, SubC.md).

The semantics live in `lanes.py` and the op table; these are the typed public faces. `Add` and
`Sub` dispatch as C++ overloads do: a `MaskReg` first operand selects the carry-out form.
"""

from __future__ import annotations

from typing import Any, TypeVar, overload

from regsim._src import dtypes as dt
from regsim._src.enums import MaskMergeMode
from regsim._src.execute import elementwise
from regsim._src.registers import MaskReg, RegTensor
from regsim._src.table import OPS

T = TypeVar("T", bound=dt.DType)
#: the carry ops take 32-bit integers only, one type for every operand
C = TypeVar("C", dt.int32, dt.uint32)

ZEROING = MaskMergeMode.ZEROING


def _with_carry(args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    first = args[0] if args else kwargs.get("carry")
    return isinstance(first, MaskReg)


@overload
def Add(
    dst_reg: RegTensor[T], src_reg0: RegTensor[T], src_reg1: RegTensor[T], mask: MaskReg, *, mode: MaskMergeMode = ...
) -> None: ...
@overload
def Add(carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], mask: MaskReg) -> None: ...
def Add(*args: Any, mode: MaskMergeMode = ZEROING, **kwargs: Any) -> None:
    elementwise(OPS["Add/carry" if _with_carry(args, kwargs) else "Add"], args, kwargs, mode)


@overload
def Sub(
    dst_reg: RegTensor[T], src_reg0: RegTensor[T], src_reg1: RegTensor[T], mask: MaskReg, *, mode: MaskMergeMode = ...
) -> None: ...
@overload
def Sub(carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], mask: MaskReg) -> None: ...
def Sub(*args: Any, mode: MaskMergeMode = ZEROING, **kwargs: Any) -> None:
    elementwise(OPS["Sub/carry" if _with_carry(args, kwargs) else "Sub"], args, kwargs, mode)


def AddC(
    carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], carry_src: MaskReg, mask: MaskReg
) -> None:
    elementwise(OPS["AddC"], (carry, dst_reg, src_reg0, src_reg1, carry_src, mask), {}, ZEROING)


def SubC(
    carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], carry_src: MaskReg, mask: MaskReg
) -> None:
    elementwise(OPS["SubC"], (carry, dst_reg, src_reg0, src_reg1, carry_src, mask), {}, ZEROING)


Add.__doc__ = OPS["Add"].docstring() + "\n\nWith a MaskReg first: " + OPS["Add/carry"].docstring()
Sub.__doc__ = OPS["Sub"].docstring() + "\n\nWith a MaskReg first: " + OPS["Sub/carry"].docstring()
AddC.__doc__ = OPS["AddC"].docstring()
SubC.__doc__ = OPS["SubC"].docstring()
