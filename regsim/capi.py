"""`rs.capi`: the Ascend C C API (`asc_*` functions).

Two layers share this namespace, as they share C names:

- the memory-level compares of the Atlas A2/A3 pages, modelled on the 950 Reg layer: `asc_eq`, `asc_ne`,
  `asc_gt`, `asc_ge`, `asc_lt`, `asc_le`, their `_sync` forms, `asc_<cmp>_scalar[_sync]`, and the
  compare-mask register `asc_get_cmp_mask` / `asc_set_cmp_mask`. Pointer arguments are `rs.UbPtr`s
  (a `LocalTensor` stands for its `GetPhyAddr()`); the vector mask is the core's (`rs.AscendC.SetVectorMask`,
  `ResetMask`, `SetMaskCount`, `SetMaskNorm`);
- the 950 register-level C API, generated from the Reg op registry's C spellings: `asc_add(dst, src0,
  src1, mask)`, `asc_create_mask_b32(PAT_ALL)`, `asc_loadalign(dst, src)` ... (`rs.capi.REGISTER_API` lists
  them), each running the Reg op it spells, inside a vector function.

One Python name serves every C overload of that name: `asc_eq(src0, src1, repeat, 6 strides)` (9 arguments)
compares into the compare-mask register, `asc_eq(dst, src0, src1, repeat, 6 strides)` (10) into a uint8_t
bit array, and `asc_eq(dst, src0, src1, mask)` on registers is the 950 register compare (`Reg.Compare`
with `mode=CMPMODE.EQ`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Never, Protocol, TypeVar, overload

from regsim._src.engine.spec import _value
from regsim._src.frontends.capi_register import FORMS, c_function, dispatch, function
from regsim._src.lowerings.capi_compare import (
    COMPARE_API,
    compare,
    compare_scalar,
    get_cmp_mask,
    set_cmp_mask,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_api
from regsim._src.model.enums import CMPMODE, MEM_TYPE, MaskPattern
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import MaskReg, RegTensor
from regsim.errors import ParameterError, message

Ptr = UbPtr[Any] | LocalTensor[Any]
U8Ptr = UbPtr[dt.uint8] | LocalTensor[dt.uint8]


#: the dst of a Protocol's register form: `MaskReg`, or `Never` for the `_sync` names, which have no register form
#: (no argument has type Never, so mypy refuses the register form's call on them)
_RegDst = TypeVar("_RegDst", contravariant=True)


class Compare(Protocol[_RegDst]):
    """`asc_<cmp>` (`Compare[MaskReg]`): the memory-level forms (9 or 10 arguments) and the 950 register form;
    `asc_<cmp>_sync` (`Compare[Never]`): the memory-level forms, then a PIPE_V synchronisation (nothing to model)."""

    @overload
    def __call__(
        self,
        src0: Ptr,
        src1: Ptr,
        repeat: int,
        dst_block_stride: int,
        src0_block_stride: int,
        src1_block_stride: int,
        dst_repeat_stride: int,
        src0_repeat_stride: int,
        src1_repeat_stride: int,
        /,
    ) -> None: ...
    @overload
    def __call__(
        self,
        dst: U8Ptr,
        src0: Ptr,
        src1: Ptr,
        repeat: int,
        dst_block_stride: int,
        src0_block_stride: int,
        src1_block_stride: int,
        dst_repeat_stride: int,
        src0_repeat_stride: int,
        src1_repeat_stride: int,
        /,
    ) -> None: ...
    @overload
    def __call__(self, dst: _RegDst, src0: RegTensor[Any], src1: RegTensor[Any], mask: MaskReg, /) -> None: ...


class CompareScalar(Protocol[_RegDst]):
    """`asc_<cmp>_scalar` (`CompareScalar[MaskReg]`): the memory-level bit-array form and the 950 register form;
    `asc_<cmp>_scalar_sync` (`CompareScalar[Never]`): the memory-level bit-array form."""

    @overload
    def __call__(
        self,
        dst: U8Ptr,
        src: Ptr,
        value: float,
        repeat: int,
        dst_block_stride: int,
        src_block_stride: int,
        dst_repeat_stride: int,
        src_repeat_stride: int,
        /,
    ) -> None: ...
    @overload
    def __call__(self, dst: _RegDst, src: RegTensor[Any], value: float, mask: MaskReg, /) -> None: ...


def _registers(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, (RegTensor, MaskReg)) for a in args)


def _no_register_form(name: str, args: tuple[Any, ...]) -> None:
    """The `_sync` names have no register form: registers given to one are a `ParameterError` naming the name that has."""
    if _registers(args):
        plain = name.replace("_sync", "")
        accepted = f"pointers (the memory-level forms): {name} has no register form; on registers, call {plain}"
        raise ParameterError(message(name, "arguments", f"({', '.join(_value(a) for a in args)})", accepted))


def _compare(name: str, mode: CMPMODE, sync: bool) -> Any:
    def run(args: tuple[Any, ...]) -> None:
        if not sync and _registers(args):
            dispatch(name, args)
        else:
            _no_register_form(name, args)
            compare(name, mode, args)

    forms = f"{name}(src0, src1, repeat, 6 strides); {name}(dst, src0, src1, repeat, 6 strides)"
    call = c_function(name, run, forms + ("" if sync else f"; {name}(dst, src0, src1, mask) on registers"))
    call.__doc__ = (
        f"`{name}`: dst bit i = (src0[i] {mode.name} src1[i]). 9 arguments (src0, src1, repeat, dst_block_stride, "
        "src0_block_stride, src1_block_stride, dst_repeat_stride, src0_repeat_stride, src1_repeat_stride): one repeat "
        "into the compare-mask register (bits the vector mask leaves out keep their value); 10 arguments (dst, ...): "
        "every element of `repeat` repeats into the uint8_t bit array dst."
        + ("" if sync else f" On registers, `{name}(dst, src0, src1, mask)`: `Reg.Compare(..., mode=CMPMODE.{mode.name})`.")
    )
    return call


def _compare_scalar(name: str, mode: CMPMODE, sync: bool) -> Any:
    def run(args: tuple[Any, ...]) -> None:
        if not sync and _registers(args):
            dispatch(name, args)
        else:
            _no_register_form(name, args)
            compare_scalar(name, mode, args)

    forms = f"{name}(dst, src, value, repeat, 4 strides)"
    call = c_function(name, run, forms + ("" if sync else f"; {name}(dst, src, value, mask) on registers"))
    call.__doc__ = (
        f"`{name}`: dst bit i = (src[i] {mode.name} value), into the uint8_t bit array dst (dst, src, value, repeat, "
        "dst_block_stride, src_block_stride, dst_repeat_stride, src_repeat_stride)."
        + ("" if sync else f" On registers, `{name}(dst, src, value, mask)`: `Reg.Compares(..., mode=CMPMODE.{mode.name})`.")
    )
    return call


asc_eq: Final[Compare[MaskReg]] = _compare("asc_eq", CMPMODE.EQ, False)
asc_ne: Final[Compare[MaskReg]] = _compare("asc_ne", CMPMODE.NE, False)
asc_gt: Final[Compare[MaskReg]] = _compare("asc_gt", CMPMODE.GT, False)
asc_ge: Final[Compare[MaskReg]] = _compare("asc_ge", CMPMODE.GE, False)
asc_lt: Final[Compare[MaskReg]] = _compare("asc_lt", CMPMODE.LT, False)
asc_le: Final[Compare[MaskReg]] = _compare("asc_le", CMPMODE.LE, False)
asc_eq_sync: Final[Compare[Never]] = _compare("asc_eq_sync", CMPMODE.EQ, True)
asc_ne_sync: Final[Compare[Never]] = _compare("asc_ne_sync", CMPMODE.NE, True)
asc_gt_sync: Final[Compare[Never]] = _compare("asc_gt_sync", CMPMODE.GT, True)
asc_ge_sync: Final[Compare[Never]] = _compare("asc_ge_sync", CMPMODE.GE, True)
asc_lt_sync: Final[Compare[Never]] = _compare("asc_lt_sync", CMPMODE.LT, True)
asc_le_sync: Final[Compare[Never]] = _compare("asc_le_sync", CMPMODE.LE, True)
asc_eq_scalar: Final[CompareScalar[MaskReg]] = _compare_scalar("asc_eq_scalar", CMPMODE.EQ, False)
asc_ne_scalar: Final[CompareScalar[MaskReg]] = _compare_scalar("asc_ne_scalar", CMPMODE.NE, False)
asc_gt_scalar: Final[CompareScalar[MaskReg]] = _compare_scalar("asc_gt_scalar", CMPMODE.GT, False)
asc_ge_scalar: Final[CompareScalar[MaskReg]] = _compare_scalar("asc_ge_scalar", CMPMODE.GE, False)
asc_lt_scalar: Final[CompareScalar[MaskReg]] = _compare_scalar("asc_lt_scalar", CMPMODE.LT, False)
asc_le_scalar: Final[CompareScalar[MaskReg]] = _compare_scalar("asc_le_scalar", CMPMODE.LE, False)
asc_eq_scalar_sync: Final[CompareScalar[Never]] = _compare_scalar("asc_eq_scalar_sync", CMPMODE.EQ, True)
asc_ne_scalar_sync: Final[CompareScalar[Never]] = _compare_scalar("asc_ne_scalar_sync", CMPMODE.NE, True)
asc_gt_scalar_sync: Final[CompareScalar[Never]] = _compare_scalar("asc_gt_scalar_sync", CMPMODE.GT, True)
asc_ge_scalar_sync: Final[CompareScalar[Never]] = _compare_scalar("asc_ge_scalar_sync", CMPMODE.GE, True)
asc_lt_scalar_sync: Final[CompareScalar[Never]] = _compare_scalar("asc_lt_scalar_sync", CMPMODE.LT, True)
asc_le_scalar_sync: Final[CompareScalar[Never]] = _compare_scalar("asc_le_scalar_sync", CMPMODE.LE, True)

#: the memory-level compare family, by C name
MEMORY_API: Final = (*COMPARE_API, "asc_get_cmp_mask", "asc_set_cmp_mask")


@host_api("asc_get_cmp_mask")
def asc_get_cmp_mask(dst: Ptr, /) -> None:
    """`asc_get_cmp_mask(__ubuf__ void* dst)`: the compare-mask register's 128 bits to the 16 bytes at dst,
    element i of the last register-form compare at bit i % 8 of byte i // 8."""
    get_cmp_mask(dst)


@host_api("asc_set_cmp_mask")
def asc_set_cmp_mask(sel_mask: Ptr, /) -> None:
    """`asc_set_cmp_mask(__ubuf__ void* sel_mask)`: the 16 bytes at sel_mask into the compare-mask register
    (how a kernel initialises it before a masked register-form compare)."""
    set_cmp_mask(sel_mask)


# --- the register-level C API ----------------------------------------------------------------------------------------
#: every register-level C name generated from the registry (the compare names are also memory-level, above)
REGISTER_API: Final = tuple(sorted(FORMS))

# `pat_mode` values of asc_create_mask_b8/_b16/_b32 (the asc_create_mask page)
PAT_ALL: Final = MaskPattern.ALL
PAT_VL1: Final = MaskPattern.VL1
PAT_VL2: Final = MaskPattern.VL2
PAT_VL3: Final = MaskPattern.VL3
PAT_VL4: Final = MaskPattern.VL4
PAT_VL8: Final = MaskPattern.VL8
PAT_VL16: Final = MaskPattern.VL16
PAT_VL32: Final = MaskPattern.VL32
PAT_VL64: Final = MaskPattern.VL64
PAT_VL128: Final = MaskPattern.VL128
PAT_M3: Final = MaskPattern.M3
PAT_M4: Final = MaskPattern.M4
PAT_H: Final = MaskPattern.H
PAT_Q: Final = MaskPattern.Q
PAT_ALLF: Final = MaskPattern.ALLF
# `mem_type` values of asc_mem_bar (the asc_mem_bar page's table 2)
VV_ALL: Final = MEM_TYPE.VV_ALL
VST_VLD: Final = MEM_TYPE.VST_VLD
VLD_VST: Final = MEM_TYPE.VLD_VST
VST_VST: Final = MEM_TYPE.VST_VST
VS_ALL: Final = MEM_TYPE.VS_ALL
VST_LD: Final = MEM_TYPE.VST_LD
VLD_ST: Final = MEM_TYPE.VLD_ST
VST_ST: Final = MEM_TYPE.VST_ST
SV_ALL: Final = MEM_TYPE.SV_ALL
ST_VLD: Final = MEM_TYPE.ST_VLD
LD_VST: Final = MEM_TYPE.LD_VST
ST_VST: Final = MEM_TYPE.ST_VST
SS_ALL: Final = MEM_TYPE.SS_ALL
ST_LD: Final = MEM_TYPE.ST_LD
LD_ST: Final = MEM_TYPE.LD_ST
ST_ST: Final = MEM_TYPE.ST_ST

globals().update({name: function(name) for name in REGISTER_API if name not in globals()})


def __getattr__(name: str) -> Callable[..., Any]:
    """The generated register-level functions are module attributes; this stub types them for mypy."""
    raise AttributeError(f"module 'regsim.capi' has no attribute {name!r}")


__all__ = [*MEMORY_API, *REGISTER_API, *(n for n in globals() if n.startswith("PAT_")), *MEM_TYPE.__members__]
__all__ = sorted(set(__all__))
