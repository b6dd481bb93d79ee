"""The memory-level C API compares (`asc_eq` ... `asc_le`, their `_sync` and `_scalar` forms) and the
compare-mask register (`asc_get_cmp_mask`, `asc_set_cmp_mask`), lowered onto Reg ops.

The pages (C-API/vector_compute/asc_eq.md and siblings) describe an Atlas A2/A3 API; regsim models it on
top of the 950 Reg layer the way the 950 library builds its own memory-level `Compare`
(kernel_operator_vec_cmp_impl.h: `CompareWithoutDst*ModeImplVF` for the register form,
`CompareLevel0NormalMode` for the bit-array form): DataBlock loads with the block strides,
`Reg::Compare` / `Reg::Compares`, the predicate packed one bit per element (`StoreUnAlign` of the MaskReg).
Two points follow the pages rather than that library (docs/decisions/capi.md#capi-memory-compares):

- register form: the compare-mask register (CMPMASK) keeps its bits where the vector mask is 0 (the
  page's residue rule) — a `Select` of the new bits over the old under the mask; one repeat (256 bytes)
  whatever `repeat` says;
- bit-array form: the mask has no effect (every element of every repeat is compared) and repeat r's
  bits go to `dst + r * dst_repeat_stride` DataBlocks (32 bytes), as the page defines the stride.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import as_uint, host_only, run_lowering, unchanged_on_error
from regsim._src.lowerings.cmpmask import CMP_MASK_BYTES, check_cmp_mask_addr
from regsim._src.lowerings.dtype_sets import HALF_FLOAT, HALF_FLOAT_S32
from regsim._src.lowerings.fresh import FreshCall, arguments, fresh
from regsim._src.lowerings.skeletons import load_blocks
from regsim._src.lowerings.spec import CMP_MASK, Form, Interface, Kind, Param, bind, integer, shown
from regsim._src.lowerings.vector_mask import counter_mode, spr_count
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, current_config
from regsim._src.model.core import current_core
from regsim._src.model.enums import CMPMODE
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL, MaskReg
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import AlignmentError, DTypeError, ParameterError, UninitializedReadError, message

CMP_MASK_BITS: Final = 128  #: the compare-mask register: element i of the last compare at bit i

#: the element types of each form on the pages (A2/A3: int32 only for EQ, and only into dst)
_REG_FORM = HALF_FLOAT
_EQ_DST = HALF_FLOAT_S32
_SCALAR_TYPES = {dt.half: float, dt.float32: float, dt.int32: int}


# --- the lowerings --------------------------------------------------------------------------------------------
@simd_vf
def cmp_mask_vf(
    mode: CMPMODE,
    src0: UbPtr[Any],
    src1: UbPtr[Any],
    src0_block_stride: int,
    src1_block_stride: int,
    normal_mode: bool,
    count: int,
    old: MaskReg,
    new: MaskReg,
) -> None:
    """`CompareWithoutDstNormalModeImplVF` / `...CounterModeImplVF`: one repeat. The predicate is the vector
    mask register (`MoveMask<T>()`) in normal mode, the first `count` elements (`UpdateMask<T>`) in counter
    mode; the compare's bits are selected over the register's old bits under that predicate."""
    T = src0.dtype
    mask = Reg.MoveMask(T) if normal_mode else Reg.UpdateMask(T, Ref(count))
    src_reg0 = Reg.RegTensor(T)
    src_reg1 = Reg.RegTensor(T)
    cmp = Reg.MaskReg()
    load_blocks(src_reg0, src0, src0_block_stride, mask)
    load_blocks(src_reg1, src1, src1_block_stride, mask)
    Reg.Compare(cmp, src_reg0, src_reg1, mask, mode=mode)
    Reg.Select(new, cmp, old, mask)  # where the mask is 0 the register keeps its bits (the page's residue)


@simd_vf
def cmp_bits_vf(
    mode: CMPMODE,
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any] | None,
    value: Any,
    repeat: int,
    strides: tuple[int, ...],
) -> None:
    """`CompareLevel0NormalMode` with every element selected: per repeat, DataBlock loads at the repeat and
    block strides, `Compare` (or `Compares` with `value`), the predicate packed one bit per element
    (`StoreUnAlign` of the MaskReg, flushed by `StoreUnAlignPost`) at `dst + r * dst_repeat_stride` DataBlocks.
    `strides`: (src0 block, src1 block, dst repeat, src0 repeat, src1 repeat) in DataBlocks."""
    T = src0.dtype
    e = ONE_BLOCK_SIZE // T.itemsize
    blk0, blk1, dst_rep, rep0, rep1 = strides
    mask = Reg.CreateMask(T)  # the mask has no effect on the bit-array form
    ureg = Reg.UnalignRegForStore()
    for r in range(repeat):
        src_reg0 = Reg.RegTensor(T)
        cmp = Reg.MaskReg()
        load_blocks(src_reg0, src0 + r * rep0 * e, blk0, mask)
        if src1 is None:
            Reg.Compares(cmp, src_reg0, value, mask, mode=mode)
        else:
            src_reg1 = Reg.RegTensor(T)
            load_blocks(src_reg1, src1 + r * rep1 * e, blk1, mask)
            Reg.Compare(cmp, src_reg0, src_reg1, mask, mode=mode)
        out = dst + r * dst_rep * e
        Reg.StoreUnAlign(out, cmp, ureg)
        Reg.StoreUnAlignPost(out, ureg, 0)


# --- checks in the C API's terms -------------------------------------------------------------------------------
def _ptr(api: str, name: str, p: object) -> UbPtr[Any]:
    """A `__ubuf__ T*` argument: an rs.UbPtr (a LocalTensor stands for its GetPhyAddr())."""
    if isinstance(p, LocalTensor):
        return p.GetPhyAddr()
    if not isinstance(p, UbPtr):
        raise ParameterError(message(api, name, shown(p), "an rs.UbPtr (a __ubuf__ pointer) or a LocalTensor"))
    return p


def _check_ptrs(api: str, dtypes: frozenset[type[dt.DType]], names: Sequence[str], ptrs: Sequence[UbPtr[Any]]) -> type[dt.DType]:
    """The sources' element type (one of `dtypes`, the same for all), one UB, 32-byte aligned starts."""
    srcs = [(n, p) for n, p in zip(names, ptrs, strict=True) if n != "dst"]
    dtype = srcs[0][1].dtype
    if dtype not in dtypes:
        accepted = ", ".join(sorted(f"__ubuf__ {d.name}*" for d in dtypes))
        raise DTypeError(message(api, srcs[0][0], f"UbPtr[{dtype.name}]", f"one of {accepted} for this form"))
    for n, p in srcs[1:]:
        if p.dtype is not dtype:
            raise DTypeError(message(api, n, f"UbPtr[{p.dtype.name}]", f"the type of {srcs[0][0]} (UbPtr[{dtype.name}])"))
    for n, p in zip(names, ptrs, strict=True):
        if n == "dst" and p.dtype is not dt.uint8:
            raise DTypeError(message(api, n, f"UbPtr[{p.dtype.name}]", "__ubuf__ uint8_t* (the bit array)"))
        if p.ub is not ptrs[0].ub:
            raise ParameterError(message(api, n, repr(p), f"a pointer into the same UnifiedBuffer as {names[0]}"))
        if p.addr % ONE_BLOCK_SIZE:
            raise AlignmentError(message(api, n, f"UB byte {p.addr}", "a start address aligned to 32 bytes"))
    return dtype


def _check_strides(api: str, names: Sequence[str], values: Sequence[object], bits: int) -> list[int]:
    return [as_uint(api, n, v, bits) for n, v in zip(names, values, strict=True)]


def _check_value(api: str, dtype: type[dt.DType], value: object) -> Any:
    """The scalar operand: an int for int32_t (in its range), a real number for half and float."""
    if _SCALAR_TYPES[dtype] is int:
        if (type(value) is not int and not isinstance(value, np.integer)) or not -(2**31) <= int(value) < 2**31:
            raise ParameterError(message(api, "value", repr(value), "an int32_t in [-2**31, 2**31 - 1]"))
        return int(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ParameterError(message(api, "value", repr(value), f"a real number (a {dtype.name} value)"))
    return value


# --- the APIs ----------------------------------------------------------------------------------------------------
BINARY_STRIDES = (
    "dst_block_stride",
    "src0_block_stride",
    "src1_block_stride",
    "dst_repeat_stride",
    "src0_repeat_stride",
    "src1_repeat_stride",
)
SCALAR_STRIDES = ("dst_block_stride", "src_block_stride", "dst_repeat_stride", "src_repeat_stride")


def _form(pointers: Sequence[str], scalar: bool, strides: Sequence[str], bits: int, variant: str = "") -> Interface:
    """One of the pages' overloads: its pointers, the scalar `value` (the `_scalar` forms), `repeat` (a uint8_t) and the
    strides (`bits` wide)."""
    value = (Param("value", Kind.SCALAR),) if scalar else ()
    uints = (integer("repeat", "an unsigned 8-bit int"), *(integer(s, f"an unsigned {bits}-bit int") for s in strides))
    params = (*(Param(n, Kind.POINTER) for n in pointers), *value, *uints)
    return Interface(Form.NONE, params, frozenset(), variant=variant)


#: `asc_<mode>[_sync]`: into the compare-mask register (no dst), or into the uint8_t bit array dst; told apart by the kind
#: of the third argument (a pointer: dst's form), as C++ overload resolution does
REG_FORM: Final = _form(("src0", "src1"), False, BINARY_STRIDES, 8, CMP_MASK)
DST_FORM: Final = _form(("dst", "src0", "src1"), False, BINARY_STRIDES, 8)
#: `asc_<mode>_scalar[_sync]`: its one form
SCALAR_FORM: Final = _form(("dst", "src"), True, SCALAR_STRIDES, 16)


@unchanged_on_error
def compare(api: str, mode: CMPMODE, args: Sequence[Any]) -> None:
    """`asc_<mode>[_sync](src0, src1, repeat, strides...)` (into the compare-mask register) or
    `asc_<mode>[_sync](dst, src0, src1, repeat, strides...)` (into the uint8_t bit array), resolved by `bind`."""
    host_only(api)
    call = bind(api, (REG_FORM, DST_FORM), tuple(args), {})
    if call.iface is REG_FORM:
        names: tuple[str, ...] = ("src0", "src1")
        ptrs = [_ptr(api, n, call[n]) for n in names]
        dtype = _check_ptrs(api, _REG_FORM, names, ptrs)
        as_uint(api, "repeat", call["repeat"], 8)  # a uint8_t; the register form does one repeat whatever it says
        strides = _check_strides(api, BINARY_STRIDES, [call[s] for s in BINARY_STRIDES], 8)
        core = current_core()
        lanes = VL // dtype.itemsize
        normal = not counter_mode()
        count = 0 if normal else spr_count(api, dtype)  # counter mode: SPR.MASK's low word
        old_bits = np.array([core.cmp_mask >> i & 1 for i in range(lanes)], np.bool_)
        old, new = MaskReg.from_lanes(dtype, old_bits), Reg.MaskReg()
        run_lowering(api, cmp_mask_vf, mode, *ptrs, strides[1], strides[2], normal, count, old, new)
        got = new.lanes(dtype)
        keep = core.cmp_mask >> lanes << lanes  # the bits past this type's elements stay
        core.cmp_mask = keep | int.from_bytes(np.packbits(got, bitorder="little").tobytes(), "little")
        return
    names = ("dst", "src0", "src1")
    ptrs = [_ptr(api, n, call[n]) for n in names]
    dtypes = _EQ_DST if mode is CMPMODE.EQ else _REG_FORM
    dtype = _check_ptrs(api, dtypes, names, ptrs)
    repeat = as_uint(api, "repeat", call["repeat"], 8)
    s = _check_strides(api, BINARY_STRIDES, [call[n] for n in BINARY_STRIDES], 8)
    dst = ptrs[0].reinterpret(dtype)
    run_lowering(api, cmp_bits_vf, mode, dst, ptrs[1], ptrs[2], None, repeat, tuple(s[1:]))


@unchanged_on_error
def compare_scalar(api: str, mode: CMPMODE, args: Sequence[Any]) -> None:
    """`asc_<mode>_scalar[_sync](dst, src, value, repeat, dst_block_stride, src_block_stride,
    dst_repeat_stride, src_repeat_stride)`: dst bit i = (src[i] <mode> value); strides are uint16_t."""
    host_only(api)
    call = bind(api, (SCALAR_FORM,), tuple(args), {})
    names = ("dst", "src")
    ptrs = [_ptr(api, n, call[n]) for n in names]
    dtypes = frozenset(_SCALAR_TYPES) if mode is CMPMODE.EQ else _REG_FORM
    dtype = _check_ptrs(api, dtypes, names, ptrs)
    value = _check_value(api, dtype, call["value"])
    repeat = as_uint(api, "repeat", call["repeat"], 8)
    s = _check_strides(api, SCALAR_STRIDES, [call[n] for n in SCALAR_STRIDES], 16)
    dst = ptrs[0].reinterpret(dtype)
    run_lowering(api, cmp_bits_vf, mode, dst, ptrs[1], None, value, repeat, (s[1], 0, s[2], s[3], 0))


@unchanged_on_error
def get_cmp_mask(dst: object) -> None:
    """`asc_get_cmp_mask(__ubuf__ void* dst)`: the compare-mask register's 128 bits to 16 bytes at dst
    (element i of the last compare at bit i % 8 of byte i // 8)."""
    api = "asc_get_cmp_mask"
    host_only(api)
    p = _ptr(api, "dst", dst)
    check_cmp_mask_addr(api, "dst", p.addr)
    core = current_core()
    p.check_tensor(api, "dst", p.addr, CMP_MASK_BYTES)
    raw = np.frombuffer(core.cmp_mask.to_bytes(CMP_MASK_BYTES, "little"), np.uint8)
    p.ub.write(p.addr, raw)


@unchanged_on_error
def set_cmp_mask(sel_mask: object) -> None:
    """`asc_set_cmp_mask(__ubuf__ void* sel_mask)`: 16 bytes at sel_mask into the compare-mask register."""
    api = "asc_set_cmp_mask"
    host_only(api)
    p = _ptr(api, "sel_mask", sel_mask)
    check_cmp_mask_addr(api, "sel_mask", p.addr)
    core = current_core()
    p.check_tensor(api, "sel_mask", p.addr, CMP_MASK_BYTES)
    st = p.ub.storage
    if current_config().check_uninitialized and not st.all_written(p.addr, p.addr + CMP_MASK_BYTES):
        raise UninitializedReadError(
            message(api, "sel_mask", f"UB bytes [{p.addr}, {p.addr + CMP_MASK_BYTES})", "16 bytes that were written before")
        )
    core.cmp_mask = int.from_bytes(st.data[p.addr : p.addr + CMP_MASK_BYTES].tobytes(), "little")


#: the memory-level compare family, by C name
COMPARE_API: Final = tuple(
    f"asc_{m}{s}" for m in ("eq", "ne", "gt", "ge", "lt", "le") for s in ("", "_sync", "_scalar", "_scalar_sync")
)


def memory_form(api: str) -> Callable[..., None]:
    """The memory-level forms of the C API compare `api` (what `rs.capi.<api>` runs on pointers)."""
    mode = CMPMODE[api.split("_")[1].upper()]
    run = compare_scalar if "_scalar" in api else compare

    def call(*args: Any) -> None:
        run(api, mode, args)

    call.__name__ = api
    return call


def explore(api: str) -> Callable[[type[dt.DType], dict[str, Any]], FreshCall]:
    """The `regsim lower` builder of the memory-level compare `api`, on fresh tensors of random data: `repeat=R` the
    bit-array form into a uint8 dst, `repeat=R, cmp_mask=True` (not the `_scalar` forms) the compare-mask register
    form; `value=V` the scalar of the `_scalar` forms; `strides=(...)` the strides (default contiguous)."""
    scalar = "_scalar" in api
    n_strides = len(SCALAR_STRIDES if scalar else BINARY_STRIDES)
    allowed = {"repeat", "strides", "value"} if scalar else {"repeat", "strides", "cmp_mask"}

    def build(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
        if "repeat" not in kw or not set(kw) <= allowed or (scalar and "value" not in kw):
            forms = "repeat=R, value=V [, strides=(4 strides)]"
            if not scalar:
                forms = "repeat=R [, cmp_mask=True] [, strides=(6 strides)]"
            raise arguments(kw, f"{forms} ({api})")
        repeat = int(kw["repeat"])
        strides = tuple(kw.get("strides", (1, 1, 8, 8) if scalar else (1, 1, 1, 8, 8, 8)))
        if len(strides) != n_strides:
            raise ParameterError(message("lower", "strides", strides, f"{n_strides} strides ({api})"))
        span = (max(repeat, 1) * max(strides[n_strides // 2 :]) + max(strides[: n_strides // 2])) * VL
        dst, *srcs = fresh([(dt.uint8, span), (dtype, span // dtype.itemsize), (dtype, span // dtype.itemsize)])
        if scalar:
            return (dst, srcs[0], kw["value"], repeat, *strides), {}
        return ((*srcs, repeat, *strides) if kw.get("cmp_mask") else (dst, *srcs, repeat, *strides)), {}

    return build
