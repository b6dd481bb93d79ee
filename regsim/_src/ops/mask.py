"""Mask creation: `CreateMask`, `UpdateMask` (the MaskReg page of the Reg API)."""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from regsim._src.engine.backend import pset_width
from regsim._src.engine.context import Ref
from regsim._src.engine.executors import MaskGen, UpdateMaskCounter
from regsim._src.engine.spec import DOC, Batching, CName, Kind, OneOf, Operand, OpSpec, Role, enum_param, face, register
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MaskPattern
from regsim._src.model.registers import MaskReg, RegTrait, RegTraitNumOne, lane_count
from regsim.errors import ParameterError, message

#: the dtypes a mask can be made for (`CreateMask<T>`, `UpdateMask<T>`): every register width
MASK_T: Final = frozenset(dt.ALL_DTYPES)

_VL_N = {
    MaskPattern.VL1: 1,
    MaskPattern.VL2: 2,
    MaskPattern.VL3: 3,
    MaskPattern.VL4: 4,
    MaskPattern.VL8: 8,
    MaskPattern.VL16: 16,
    MaskPattern.VL32: 32,
    MaskPattern.VL64: 64,
    MaskPattern.VL128: 128,
}


def pattern_lanes(api: str, dtype: type[dt.DType], pattern: MaskPattern, trait: RegTrait) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """The lanes `pattern` selects for `dtype`.

    The hardware makes masks with `pset_b8/b16/b32` (`pset_width`): b64 through `pset_b32` and,
    for one register, `punpack`; complex32 through `pset_b16`. A `VLn` pattern therefore accepts
    n up to the lanes of that `pset` width and selects `min(n, lanes of T)`: VL64 on one-register
    b64 and VL128 on one-register complex32 select every lane.
    """
    n = lane_count(dtype, trait)
    pset_lanes = 256 // pset_width(dtype)
    i = np.arange(n)
    if pattern in _VL_N:
        k = _VL_N[pattern]
        if k > pset_lanes:
            raise ParameterError(
                message(
                    api, "pattern", f"MaskPattern.{pattern.name}", f"VL1..VL{pset_lanes} (and the other patterns) for {dtype!r}"
                )
            )
        return i < k
    select: dict[MaskPattern, np.ndarray[Any, np.dtype[np.bool_]]] = {
        MaskPattern.ALL: i >= 0,
        MaskPattern.ALLF: i < 0,
        MaskPattern.M3: i % 3 == 0,
        MaskPattern.M4: i % 4 == 0,
        MaskPattern.H: i < n // 2,
        MaskPattern.Q: i < n // 4,
    }
    return select[pattern]


def _t() -> Operand:
    return Operand("T", Kind.DTYPE, dtypes=OneOf(MASK_T))


def _trait() -> Operand:
    return Operand("trait", Kind.TRAIT, keyword=True, default=RegTraitNumOne)


_PAGE = DOC + "寄存器数据类型/MaskReg.md"

register(
    OpSpec(
        "CreateMask",
        "",
        "mask",
        (_t(), enum_param("pattern", MaskPattern, MaskPattern.ALL), _trait()),
        MaskGen(),
        "mask[i] = pattern(i)  for the lanes of T (ALL, VLn, M3, M4, H, Q, ALLF)",
        _PAGE,
        Batching.ELEMENTWISE,
        lane=pattern_lanes,
        c_api=CName("asc_create_mask", ("pattern",)),
    )
)
register(
    OpSpec(
        "UpdateMask",
        "",
        "mask",
        (_t(), Operand("scalar_value", Kind.REF, Role.INOUT), _trait()),
        UpdateMaskCounter(),
        "mask[i] = i < min(scalar_value, VL_T);  scalar_value -= min(scalar_value, VL_T)",
        _PAGE,
        Batching.STATEFUL,
        c_api=CName("asc_update_mask", ("scalar_value",)),
    )
)


@face("CreateMask")
def CreateMask(T: type[dt.DType], *, pattern: MaskPattern = MaskPattern.ALL, trait: RegTrait = RegTraitNumOne) -> MaskReg:
    raise NotImplementedError  # @face supplies the body


@face("UpdateMask")
def UpdateMask(T: type[dt.DType], scalar_value: Ref[int], *, trait: RegTrait = RegTraitNumOne) -> MaskReg:
    raise NotImplementedError  # @face supplies the body
