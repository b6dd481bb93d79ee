"""Arithmetic, with and without carry (the Ascend C `Add`, `Sub`, `AddC`
and `SubC` pages).

The semantics live in `lanes.py` and the op table; these are the typed public faces. `Add` and
`Sub` dispatch as C++ overloads do: a `MaskReg` first operand selects the carry-out form.
"""

from __future__ import annotations

from typing import Any, TypeVar, overload

from regsim._src import dtypes as dt
from regsim._src.enums import MaskMergeMode
from regsim._src.execute import elementwise
from regsim._src.registers import MaskReg, RegTensor
from regsim._src.table import OPS, documented

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
@documented("Add", "Add/carry")
def Add(*args: Any, mode: MaskMergeMode = ZEROING, **kwargs: Any) -> None:
    elementwise(OPS["Add/carry" if _with_carry(args, kwargs) else "Add"], args, kwargs, mode)


@overload
def Sub(
    dst_reg: RegTensor[T], src_reg0: RegTensor[T], src_reg1: RegTensor[T], mask: MaskReg, *, mode: MaskMergeMode = ...
) -> None: ...
@overload
def Sub(carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], mask: MaskReg) -> None: ...
@documented("Sub", "Sub/carry")
def Sub(*args: Any, mode: MaskMergeMode = ZEROING, **kwargs: Any) -> None:
    elementwise(OPS["Sub/carry" if _with_carry(args, kwargs) else "Sub"], args, kwargs, mode)


@documented("AddC")
def AddC(
    carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], carry_src: MaskReg, mask: MaskReg
) -> None:
    elementwise(OPS["AddC"], (carry, dst_reg, src_reg0, src_reg1, carry_src, mask), {}, ZEROING)


@documented("SubC")
def SubC(
    carry: MaskReg, dst_reg: RegTensor[C], src_reg0: RegTensor[C], src_reg1: RegTensor[C], carry_src: MaskReg, mask: MaskReg
) -> None:
    elementwise(OPS["SubC"], (carry, dst_reg, src_reg0, src_reg1, carry_src, mask), {}, ZEROING)
