"""Aligned data movement between UB and registers (the Ascend C `LoadAlign` and
`StoreAlign` pages) and `CreateAddrReg` (the `AddrReg` page).

Loads are unpredicated and read whole registers, checked against the UB; stores write only
active lanes, each checked against the destination pointer's LocalTensor.
"""

from __future__ import annotations

from typing import Any, TypeVar, overload

import numpy as np

from regsim._src import dtypes as dt
from regsim._src.context import VfContext, vf_context
from regsim._src.enums import LoadDist, MaskDist, PostLiteral, StoreDist
from regsim._src.execute import active_lanes, check_mask, read_lanes
from regsim._src.memory import UbPtr
from regsim._src.registers import VL, AddrReg, MaskReg, RegTensor, check_dtype
from regsim._src.table import documented
from regsim.errors import AlignmentError, DTypeError, ParameterError, UninitializedReadError, UnsupportedError, message

T = TypeVar("T", bound=dt.DType)

ALIGN = 32  #: bytes: DIST_NORM loads and stores, and the MaskReg NORM / DS forms
UINT16_MAX, UINT32_MAX = 2**16 - 1, 2**32 - 1


@documented("CreateAddrReg")
def CreateAddrReg(T: type[dt.DType], *index_stride: int) -> AddrReg:
    """`CreateAddrReg<T>(index0, stride0[, index1, stride1 …])`: offset Σ index_k·stride_k elements."""
    api = "CreateAddrReg"
    vf_context(api)
    check_dtype(api, "T", T)
    if len(index_stride) not in (2, 4, 6, 8):
        raise ParameterError(message(api, "arguments", f"{len(index_stride)} after T", "1 to 4 (index, stride) pairs"))
    offset = 0
    for k in range(0, len(index_stride), 2):
        index, stride = index_stride[k], index_stride[k + 1]
        for name, value, top in ((f"index{k // 2}", index, UINT16_MAX), (f"stride{k // 2}", stride, UINT32_MAX)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 0 <= value <= top:
                raise ParameterError(message(api, name, repr(value), f"an int in [0, {top}]"))
        offset += int(index) * int(stride)
    return AddrReg(T, offset)


# --- address forms shared by loads and stores ------------------------------------------------
def _pointer(api: str, param: str, ptr: object, reg: RegTensor[Any] | None = None) -> UbPtr[Any]:
    """The UB pointer operand; for a register access its element type must be the register's."""
    if not isinstance(ptr, UbPtr):
        raise ParameterError(message(api, param, type(ptr).__name__, "an rs.UbPtr (a __ubuf__ T*)"))
    if reg is not None and ptr.dtype is not reg.dtype:
        raise DTypeError(
            message(
                api,
                param,
                f"UbPtr[{ptr.dtype.name}]",
                f"UbPtr[{reg.dtype.name}], the type of the RegTensor (C++ static_asserts this; cast with .reinterpret())",
            )
        )
    return ptr


def _address_form(api: str, extra: object, post_mode: object, unit: int) -> tuple[int, int | None]:
    """The third operand of a load/store: nothing, an AddrReg, or a post-update stride.

    Returns (byte offset of the access from the pointer, bytes to advance the pointer or None).
    """
    if extra is None and post_mode is None:
        return 0, None
    if post_mode is not None and not isinstance(post_mode, PostLiteral):
        raise ParameterError(message(api, "post_mode", repr(post_mode), "a Reg.PostLiteral"))
    if extra is None:
        raise ParameterError(message(api, "post_mode", post_mode, "only with a post_update_stride operand"))
    if isinstance(extra, AddrReg):
        if post_mode is not None:
            raise ParameterError(message(api, "post_mode", post_mode.name, "no post_mode with an AddrReg offset"))
        return extra.byte_offset, None
    if isinstance(extra, bool) or not isinstance(extra, (int, np.integer)):
        raise ParameterError(message(api, "offset", repr(extra), "an AddrReg, or an int stride with post_mode=POST_MODE_UPDATE"))
    if post_mode is None:
        raise ParameterError(
            message(api, "post_mode", "missing", "post_mode=Reg.PostLiteral.POST_MODE_UPDATE with a stride operand")
        )
    if post_mode is PostLiteral.POST_MODE_NORMAL:
        raise UnsupportedError(message(api, "post_mode", "POST_MODE_NORMAL", "POST_MODE_UPDATE (the only mode of this overload)"))
    return 0, int(extra) * unit


def _check_aligned(api: str, param: str, addr: int, align: int, why: str) -> None:
    if addr % align:
        raise AlignmentError(message(api, param, f"UB byte {addr}", f"a multiple of {align} bytes ({why})"))


def _natural_to_regs(x: np.ndarray[Any, Any], itemsize: int) -> np.ndarray[Any, Any]:
    """UB order of b64 / complex32 elements → RegTraitNumTwo order (low halves, then high halves)."""
    return x.reshape(-1, 2, itemsize // 2).transpose(1, 0, 2).reshape(-1)


def _reg_dist(api: str, reg: RegTensor[Any], dist: object, enum: type[LoadDist] | type[StoreDist]) -> None:
    """Only DIST_NORM (and, for a store, its explicit-width spelling) is modelled so far."""
    if dist is enum.DIST_NORM:
        return
    if not isinstance(dist, enum):
        raise ParameterError(message(api, "dist", repr(dist), f"a Reg.{enum.__name__} for a RegTensor"))
    norm = {enum.DIST_NORM, getattr(StoreDist, f"DIST_NORM_B{8 * reg.dtype.itemsize}", None)}
    if dist not in norm:
        raise UnsupportedError(
            message(
                api,
                "dist",
                dist.name,
                f"{' or '.join(sorted(d.name for d in norm if isinstance(d, enum)))} "
                f"for RegTensor[{reg.dtype.name}] (regsim does not model {dist.name} yet)",
            )
        )


def _register_access(
    api: str,
    param: str,
    pointer: object,
    reg: RegTensor[Any],
    extra: object,
    dist: object,
    post_mode: object,
    dists: type[LoadDist] | type[StoreDist],
) -> tuple[UbPtr[Any], int, int | None]:
    """The address of an aligned register load/store: (pointer, UB byte address, post-advance)."""
    ptr = _pointer(api, param, pointer, reg)
    if dist is not None:
        _reg_dist(api, reg, dist, dists)
    at, advance = _address_form(api, extra, post_mode, reg.dtype.itemsize)
    addr = ptr.addr + at
    _check_aligned(api, param, addr, ALIGN, "DIST_NORM")
    return ptr, addr, advance


# --- LoadAlign ----------------------------------------------------------------------------------
@overload
def LoadAlign(dst_reg: RegTensor[T], src_addr: UbPtr[T], /, *, dist: LoadDist = ...) -> None: ...
@overload
def LoadAlign(
    dst_reg: RegTensor[T], src_addr: UbPtr[T], post_update_stride: int, /, *, post_mode: PostLiteral, dist: LoadDist = ...
) -> None: ...
@overload
def LoadAlign(dst_reg: RegTensor[T], src_addr: UbPtr[T], offset: AddrReg, /, *, dist: LoadDist = ...) -> None: ...
@overload
def LoadAlign(dst_reg: MaskReg, src_addr: UbPtr[Any], /, *, dist: MaskDist = ...) -> None: ...
@overload
def LoadAlign(
    dst_reg: MaskReg, src_addr: UbPtr[Any], offset: int, /, *, post_mode: PostLiteral, dist: MaskDist = ...
) -> None: ...
@overload
def LoadAlign(dst_reg: MaskReg, src_addr: UbPtr[Any], offset: AddrReg, /, *, dist: MaskDist = ...) -> None: ...
@documented("LoadAlign", "LoadAlign/mask")
def LoadAlign(dst_reg: Any, src_addr: Any, offset: Any = None, /, *, dist: Any = None, post_mode: Any = None) -> None:
    """Aligned load from UB into a RegTensor (DIST_NORM) or a MaskReg (MaskDist NORM/US/DS).

    Forms: `LoadAlign(dst, p)`; `LoadAlign(dst, p, stride, post_mode=POST_MODE_UPDATE)` (loads at
    p, then p += stride elements — bytes for a MaskReg); `LoadAlign(dst, p, areg)` (at p + areg).
    """
    if isinstance(dst_reg, MaskReg):
        vf_context("LoadAlign")
        _load_mask(dst_reg, src_addr, offset, MaskDist.DIST_NORM if dist is None else dist, post_mode)
        return
    api = "LoadAlign"
    vf_context(api)
    if not isinstance(dst_reg, RegTensor):
        raise ParameterError(message(api, "dst_reg", type(dst_reg).__name__, "a Reg.RegTensor or a Reg.MaskReg"))
    if isinstance(src_addr, RegTensor):
        raise UnsupportedError(
            message(
                api,
                "dst1",
                "a second RegTensor",
                "one destination register (regsim does not model the dual-register DINTLV form yet)",
            )
        )
    ptr, addr, advance = _register_access(api, "src_addr", src_addr, dst_reg, offset, dist, post_mode, LoadDist)
    nbytes = dst_reg._raw.size
    ptr.ub.check_range(api, "src_addr", addr, nbytes)
    storage = ptr.ub.storage
    raw = storage.data[addr : addr + nbytes]
    valid = None if storage.valid is None else storage.valid[addr : addr + nbytes]
    if nbytes > VL:  # RegTraitNumTwo: split each element into its low and high halves
        raw = _natural_to_regs(raw, dst_reg.dtype.itemsize)
        valid = None if valid is None else _natural_to_regs(valid, dst_reg.dtype.itemsize)
    dst_reg._load(raw, valid)
    if advance is not None:
        ptr.advance_bytes(advance)


_MASK_LOAD = {MaskDist.DIST_NORM: (32, ALIGN), MaskDist.DIST_US: (16, 16), MaskDist.DIST_DS: (64, ALIGN)}


def _mask_dist(bits: np.ndarray[Any, np.dtype[np.bool_]], dist: MaskDist) -> np.ndarray[Any, np.dtype[np.bool_]]:
    """The 256 predicate bits a mask load makes of the bits it read."""
    if dist is MaskDist.DIST_US:
        return np.repeat(bits, 2)  # each bit doubled: bit j → bits 2j, 2j+1
    if dist is MaskDist.DIST_DS:
        return bits[::2]  # every other bit dropped: the even bits are kept
    return bits


def _load_mask(dst: MaskReg, src_addr: object, offset: object, dist: object, post_mode: object) -> None:
    api = "LoadAlign"
    ptr = _pointer(api, "src_addr", src_addr)
    if not isinstance(dist, MaskDist):
        raise ParameterError(message(api, "dist", repr(dist), "a Reg.MaskDist (DIST_NORM, DIST_US, DIST_DS) for a MaskReg"))
    nbytes, align = _MASK_LOAD[dist]
    at, advance = _address_form(api, offset, post_mode, 1)
    addr = ptr.addr + at
    _check_aligned(api, "src_addr", addr, align, f"MaskDist.{dist.name}")
    ptr.ub.check_range(api, "src_addr", addr, nbytes)
    storage = ptr.ub.storage
    dst._bits = _mask_dist(np.unpackbits(storage.data[addr : addr + nbytes], bitorder="little").astype(np.bool_), dist)
    valid = None if storage.valid is None else storage.valid[addr : addr + nbytes]
    dst._written = None if valid is None or valid.all() else _mask_dist(np.repeat(valid, 8), dist)
    if advance is not None:
        ptr.advance_bytes(advance)


# --- StoreAlign ---------------------------------------------------------------------------------
@overload
def StoreAlign(dst_addr: UbPtr[T], src_reg: RegTensor[T], mask: MaskReg, /, *, dist: StoreDist = ...) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[T],
    src_reg: RegTensor[T],
    post_update_stride: int,
    mask: MaskReg,
    /,
    *,
    post_mode: PostLiteral,
    dist: StoreDist = ...,
) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[T], src_reg: RegTensor[T], offset: AddrReg, mask: MaskReg, /, *, dist: StoreDist = ...
) -> None: ...
@overload
def StoreAlign(dst_addr: UbPtr[Any], src_reg: MaskReg, /, *, dist: MaskDist = ...) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[Any], src_reg: MaskReg, offset: int, /, *, post_mode: PostLiteral, dist: MaskDist = ...
) -> None: ...
@overload
def StoreAlign(dst_addr: UbPtr[Any], src_reg: MaskReg, offset: AddrReg, /, *, dist: MaskDist = ...) -> None: ...
@documented("StoreAlign", "StoreAlign/mask")
def StoreAlign(dst_addr: Any, src_reg: Any, *rest: Any, dist: Any = None, post_mode: Any = None) -> None:
    """Aligned store of a RegTensor's active lanes (DIST_NORM) or of a MaskReg (MaskDist NORM/PACK).

    Forms: `StoreAlign(p, src, mask)`; `StoreAlign(p, src, stride, mask, post_mode=POST_MODE_UPDATE)`;
    `StoreAlign(p, src, areg, mask)`; and for a MaskReg the same without `mask`. Lanes whose
    predicate bit is 0 leave their UB bytes untouched.
    """
    if isinstance(src_reg, MaskReg):
        if len(rest) > 1:
            raise ParameterError(
                message("StoreAlign", "arguments", f"{2 + len(rest)}", "(dst_addr, mask[, offset]) for a MaskReg")
            )
        _store_mask(
            vf_context("StoreAlign"),
            dst_addr,
            src_reg,
            rest[0] if rest else None,
            MaskDist.DIST_NORM if dist is None else dist,
            post_mode,
        )
        return
    api = "StoreAlign"
    ctx = vf_context(api)
    if not isinstance(src_reg, RegTensor):
        raise ParameterError(message(api, "src_reg", type(src_reg).__name__, "a Reg.RegTensor or a Reg.MaskReg"))
    if rest and isinstance(rest[0], RegTensor):
        raise UnsupportedError(
            message(
                api, "src1", "a second RegTensor", "one source register (regsim does not model the dual-register INTLV form yet)"
            )
        )
    if len(rest) not in (1, 2):
        raise ParameterError(
            message(api, "arguments", f"{2 + len(rest)}", "(dst_addr, src_reg[, post_update_stride | offset], mask)")
        )
    offset, mask = (None, rest[0]) if len(rest) == 1 else rest
    ptr, addr, advance = _register_access(api, "dst_addr", dst_addr, src_reg, offset, dist, post_mode, StoreDist)
    active = active_lanes(ctx, api, "mask", check_mask(api, "mask", mask), src_reg.dtype.itemsize // src_reg.trait.REG_NUM)
    values = read_lanes(ctx, api, "src_reg", src_reg, active)
    size = src_reg.dtype.itemsize
    storage = ptr.ub.storage
    if src_reg.trait.REG_NUM == 2 and advance is not None and advance < VL:
        # A two-register tensor is stored by two post-updating stores: the second lands where
        # the first left the pointer, min(stride, VL_T / 2) elements on (as the 950 library's store does).
        half = active.size // 2
        second = addr + advance
        _check_aligned(api, "dst_addr", second, ALIGN, "the second register's store, at dst_addr + post_update_stride")
        _check_lanes(api, ptr, addr, size, active[:half])
        _check_lanes(api, ptr, second, size, active[half:])
        storage.write_lanes(addr, values[:half], active[:half])
        storage.write_lanes(second, values[half:], active[half:])
    else:
        if addr < ptr.lo or addr + active.size * size > ptr.hi:  # some lane is outside: which?
            _check_lanes(api, ptr, addr, size, active)
        storage.write_lanes(addr, values, active)
    if advance is not None:
        ptr.advance_bytes(advance)


def _check_lanes(api: str, ptr: UbPtr[Any], addr: int, size: int, active: np.ndarray[Any, Any]) -> None:
    """Each active lane of a store, `size` bytes from `addr`, must lie in the pointer's tensor."""
    idx = np.flatnonzero(active)
    if idx.size:
        ptr.check_tensor(api, "dst_addr", addr + int(idx[0]) * size, (int(idx[-1]) - int(idx[0]) + 1) * size)


_MASK_STORE = {MaskDist.DIST_NORM: (32, ALIGN), MaskDist.DIST_PACK: (16, 16)}


def _store_mask(ctx: VfContext, dst_addr: object, mask: MaskReg, offset: object, dist: object, post_mode: object) -> None:
    api = "StoreAlign"
    ptr = _pointer(api, "dst_addr", dst_addr)
    if not isinstance(dist, MaskDist) or dist not in _MASK_STORE:
        raise ParameterError(message(api, "dist", repr(dist), "Reg.MaskDist.DIST_NORM or DIST_PACK for a MaskReg"))
    nbytes, align = _MASK_STORE[dist]
    at, advance = _address_form(api, offset, post_mode, 1)
    addr = ptr.addr + at
    _check_aligned(api, "dst_addr", addr, align, f"MaskDist.{dist.name}")
    ptr.check_tensor(api, "dst_addr", addr, nbytes)
    keep = slice(None) if dist is MaskDist.DIST_NORM else slice(None, None, 2)  # PACK keeps the even bits
    if mask._written is not None and ctx.config.check_uninitialized and not mask._written[keep].all():
        raise UninitializedReadError(f"{api}: mask is a MaskReg with bits that were never written")
    bits = mask._bits[keep]
    ptr.ub.storage.write(addr, np.packbits(bits, bitorder="little"))
    if advance is not None:
        ptr.advance_bytes(advance)


def DataCopy(*args: Any, **kwargs: Any) -> None:
    """Legacy name of `LoadAlign` (register first) and `StoreAlign` (pointer first)."""
    (StoreAlign if args and isinstance(args[0], UbPtr) else LoadAlign)(*args, **kwargs)
