"""The C names both levels of the C API share: `asc_eq` ... `asc_le`, their `_sync` forms, `asc_<cmp>_scalar[_sync]`,
and the compare-mask register's `asc_get_cmp_mask` / `asc_set_cmp_mask`.

The memory-level compares are the Atlas A2/A3 pages', modelled on the 950 Reg layer (regsim._src.lowerings.capi_compare):
pointer arguments are `rs.UbPtr`s (a `LocalTensor` stands for its `GetPhyAddr()`), the vector mask is the core's.
One Python name serves every C overload of its name: `asc_eq(src0, src1, repeat, 6 strides)` (9 arguments) compares
into the compare-mask register, `asc_eq(dst, src0, src1, repeat, 6 strides)` (10) into a uint8_t bit array, and
`asc_eq(dst, src0, src1, mask)` on registers is the 950 register compare (`Reg.Compare` with `mode=CMPMODE.EQ`, the
register-level forms of regsim._src.frontends.capi.register). The `_sync` names have no register form.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, TypeAlias

from regsim._src.engine.spec import _value
from regsim._src.frontends.capi.register import c_function, dispatch
from regsim._src.lowerings.capi_compare import (
    COMPARE_API,
    DST_FORM,
    REG_FORM,
    SCALAR_FORM,
    compare,
    compare_scalar,
    get_cmp_mask,
    set_cmp_mask,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_api
from regsim._src.model.enums import CMPMODE
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import MaskReg, RegTensor
from regsim.errors import ParameterError, message

#: a memory-level `__ubuf__ T*` argument, and the `__ubuf__ uint8_t*` bit array
Ptr: TypeAlias = UbPtr[Any] | LocalTensor[Any]
U8Ptr: TypeAlias = UbPtr[dt.uint8] | LocalTensor[dt.uint8]

#: the memory-level C forms, their parameters in C order: the compare into the compare-mask register (9), into
#: the bit array dst (10); the scalar compare (8)
BINARY_FORMS: Final = tuple(tuple(p.name for p in form.params) for form in (REG_FORM, DST_FORM))
SCALAR_FORMS: Final = (tuple(p.name for p in SCALAR_FORM.params),)


def _registers(args: tuple[Any, ...]) -> bool:
    return any(isinstance(a, (RegTensor, MaskReg)) for a in args)


def _no_register_form(name: str, args: tuple[Any, ...]) -> None:
    """The `_sync` names have no register form: registers given to one are a `ParameterError` naming the name that has."""
    if _registers(args):
        plain = name.replace("_sync", "")
        accepted = f"pointers (the memory-level forms): {name} has no register form; on registers, call {plain}"
        raise ParameterError(message(name, "arguments", f"({', '.join(_value(a) for a in args)})", accepted))


def _function(name: str, mode: CMPMODE) -> Callable[..., Any]:
    """`name` (one of COMPARE_API): its memory-level forms, and (but for the `_sync` names) the register forms."""
    scalar, sync = "_scalar" in name, name.endswith("_sync")
    run_memory = compare_scalar if scalar else compare

    def run(args: tuple[Any, ...]) -> None:
        if not sync and _registers(args):
            dispatch(name, args)
        else:
            _no_register_form(name, args)
            run_memory(name, mode, args)

    if scalar:
        forms, register = f"{name}(dst, src, value, repeat, 4 strides)", f"{name}(dst, src, value, mask)"
    else:
        forms = f"{name}(src0, src1, repeat, 6 strides); {name}(dst, src0, src1, repeat, 6 strides)"
        register = f"{name}(dst, src0, src1, mask)"
    call = c_function(name, run, forms + ("" if sync else f"; {register} on registers"))
    if scalar:
        doc = (
            f"`{name}`: dst bit i = (src[i] {mode.name} value), into the uint8_t bit array dst (dst, src, value, repeat, "
            "dst_block_stride, src_block_stride, dst_repeat_stride, src_repeat_stride)."
        )
    else:
        doc = (
            f"`{name}`: dst bit i = (src0[i] {mode.name} src1[i]). 9 arguments (src0, src1, repeat, dst_block_stride, "
            "src0_block_stride, src1_block_stride, dst_repeat_stride, src0_repeat_stride, src1_repeat_stride): one repeat "
            "into the compare-mask register (bits the vector mask leaves out keep their value); 10 arguments (dst, ...): "
            "every element of `repeat` repeats into the uint8_t bit array dst."
        )
    reg_op = "Compares" if scalar else "Compare"
    call.__doc__ = doc + ("" if sync else f" On registers, `{register}`: `Reg.{reg_op}(..., mode=CMPMODE.{mode.name})`.")
    return call


#: the compare functions by C name (`asc_eq` ... `asc_le_scalar_sync`)
COMPARES: Final[Mapping[str, Callable[..., Any]]] = {
    name: _function(name, CMPMODE[name.split("_")[1].upper()]) for name in COMPARE_API
}


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


#: the memory-level compare family, by C name
MEMORY_API: Final = (*COMPARE_API, "asc_get_cmp_mask", "asc_set_cmp_mask")
