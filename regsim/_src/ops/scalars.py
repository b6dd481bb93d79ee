"""The scalar operand of the scalar ops (`Adds`, `Muls`, `Compares`, `Duplicate` ...), typed by the register's
element-type family, as the runtime converts it (docs/decisions/model.md#scalar-operands): every register takes an
integer, a float register a real number too, a complex register any number. The faces overload on these, so
mypy refuses an int32 `Muls` given 2.5 (docs/typing.md)."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from regsim._src.model import dtypes as dt

IntScalar = int | np.integer[Any]
FloatScalar = float | np.floating[Any] | np.integer[Any]  #: (an int is a float to mypy)
ComplexScalar = complex | np.number[Any]

#: the float and complex members of the scalar ops' type variables
Float3T = TypeVar("Float3T", dt.half, dt.bfloat16, dt.float32)
Float2T = TypeVar("Float2T", dt.half, dt.float32)
CplxT = TypeVar("CplxT", dt.complex32, dt.complex64)
