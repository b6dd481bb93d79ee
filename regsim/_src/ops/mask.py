"""Mask creation: `CreateMask`, `UpdateMask` (the Ascend C `CreateMask`, `UpdateMask` and `MaskReg` pages)."""

from __future__ import annotations

from typing import Any

import numpy as np

from regsim._src import dtypes as dt
from regsim._src.context import Ref, vf_context
from regsim._src.enums import MaskPattern
from regsim._src.execute import commit_predicate
from regsim._src.registers import (
    MaskReg,
    RegTrait,
    RegTraitNumOne,
    check_dtype,
    check_trait,
    lane_count,
    mask_stride,
)
from regsim._src.table import documented
from regsim.errors import ParameterError, message

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
UINT32_MAX = 2**32 - 1


def pattern_lanes(api: str, dtype: type[dt.DType], pattern: MaskPattern, trait: RegTrait) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """The lanes `pattern` selects for `dtype`.

    The hardware makes masks with `pset_b8/b16/b32`; b64 uses `pset_b32` (then, with
    RegTraitNumOne, `punpack LOWER`), complex32 with RegTraitNumTwo uses `pset_b16`. A `VLn`
    pattern therefore accepts n up to the lanes of that `pset` width, and selects
    `min(n, lanes of T)`: b64 RegTraitNumOne takes VL64 as all 32 lanes.
    """
    n = lane_count(dtype, trait)
    pset_lanes = 256 // min(mask_stride(dtype, trait), 4)
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


@documented("CreateMask")
def CreateMask(T: type[dt.DType], *, pattern: MaskPattern = MaskPattern.ALL, trait: RegTrait = RegTraitNumOne) -> MaskReg:
    api = "CreateMask"
    ctx = vf_context(api)
    check_dtype(api, "T", T)
    check_trait(api, T, trait)
    if not isinstance(pattern, MaskPattern):
        raise ParameterError(message(api, "pattern", repr(pattern), "a Reg.MaskPattern"))
    mask = MaskReg()
    commit_predicate(ctx, mask, pattern_lanes(api, T, pattern, trait), mask_stride(T, trait))
    return mask


@documented("UpdateMask")
def UpdateMask(T: type[dt.DType], scalar_value: Ref[int], *, trait: RegTrait = RegTraitNumOne) -> MaskReg:
    api = "UpdateMask"
    ctx = vf_context(api)
    check_dtype(api, "T", T)
    check_trait(api, T, trait)
    if not isinstance(scalar_value, Ref):
        raise ParameterError(
            message(
                api,
                "scalar_value",
                repr(scalar_value),
                "an rs.Ref(count): C++ takes uint32_t& and decrements it, so a plain int cannot be updated",
            )
        )
    count = scalar_value.value
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or not 0 <= count <= UINT32_MAX:
        raise ParameterError(message(api, "scalar_value.value", repr(count), f"a uint32_t: an int in [0, {UINT32_MAX}]"))
    n = lane_count(T, trait)
    mask = MaskReg()
    mask._set_prefix(min(int(count), n), mask_stride(T, trait), ctx.config.mask_fill)
    scalar_value.value = 0 if count < n else int(count) - n
    return mask
