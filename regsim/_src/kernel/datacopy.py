"""Data movement: `DataCopy` (GM <-> UB, UB -> UB; a count or `DataCopyParams`), `DataCopyPad` (GM <-> UB,
`DataCopyExtParams`, `DataCopyPadExtParams`, `PaddingMode`) and `SetPadValue`, as the pages under
"Memory矢量计算/数据搬运" describe them on the 950:

- GM -> UB runs on PIPE_MTE2, UB -> GM on PIPE_MTE3 (the page "API流水类型汇总"), UB -> UB on PIPE_V (the
  page "数据通路"). Each call is one instruction of its pipe, checked by the race detector.
- A UB address must be 32-byte aligned, a GM address aligned to the element size (DataCopy) or to a byte
  (DataCopyPad); the bytes must lie inside the LocalTensor and the GlobalTensor. A count whose bytes are not
  a multiple of 32 moves the bytes rounded down to one ("搬运量会向下取整到32字节对齐"). A block count or block
  length of 0 is a no-op ("该接口将被视为NOP").
- A violation is an error before anything moves; UB bytes copied out must have been written (with
  `check_uninitialized`).
"""

from __future__ import annotations

from typing import Any, NamedTuple, TypeVar, overload

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.kernel.block import Block, call_line, current_block
from regsim._src.kernel.gm import CacheMode, GlobalTensor
from regsim._src.kernel.pipes import MTE2, MTE3, Ranges, V, byte_ranges
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.config import ONE_BLOCK_SIZE, current_config
from regsim._src.model.enums import TPosition, _Enum, expected_member
from regsim._src.model.memory import LocalTensor
from regsim._src.model.registers import check_dtype, to_lanes
from regsim.errors import AlignmentError, DTypeError, OutOfBoundsError, ParameterError, UninitializedReadError, message

T = TypeVar("T", bound=dt.DType)
Bytes = npt.NDArray[np.uint8]


def _ranged(lo: int, hi: int) -> Any:
    """An attrs validator: an int in [lo, hi] (the pages' ranges)."""

    def check(inst: Any, attribute: Any, value: Any) -> None:
        as_int(type(inst).__name__, attribute.name, value, lo, hi)

    return check


@attrs.frozen
class DataCopyParams:
    """`DataCopyParams(blockCount, blockLen, srcStride, dstStride)`: `blockCount` blocks of `blockLen` DataBlocks
    (32 bytes), the gaps between one block's end and the next one's start `srcStride` / `dstStride` DataBlocks
    (the C++ fields' newer names `srcGap` / `dstGap` are properties); the C++ defaults {1, 0, 0, 0}."""

    blockCount: int = attrs.field(default=1, validator=_ranged(0, 4095))  # noqa: N815 (C++ field name)
    blockLen: int = attrs.field(default=0, validator=_ranged(0, 65535))  # noqa: N815
    srcStride: int = attrs.field(default=0, validator=_ranged(0, 65535))  # noqa: N815
    dstStride: int = attrs.field(default=0, validator=_ranged(0, 65535))  # noqa: N815

    @property
    def srcGap(self) -> int:
        return self.srcStride

    @property
    def dstGap(self) -> int:
        return self.dstStride


@attrs.frozen
class DataCopyExtParams:
    """`DataCopyExtParams(blockCount, blockLen, srcStride, dstStride, rsv)`: `blockLen` in bytes; a stride is
    the gap after a block, in bytes on the GM side and in DataBlocks (32 bytes) on the UB side; the C++
    defaults {1, 0, 0, 0, 0}. The strides' ranges depend on the direction (checked by `DataCopyPad`)."""

    blockCount: int = attrs.field(default=1, validator=_ranged(0, 4095))  # noqa: N815 (C++ field name)
    blockLen: int = attrs.field(default=0, validator=_ranged(0, 2097151))  # noqa: N815
    srcStride: int = attrs.field(default=0, validator=_ranged(-(2**63), 2**63 - 1))  # noqa: N815
    dstStride: int = attrs.field(default=0, validator=_ranged(-(2**63), 2**63 - 1))  # noqa: N815
    rsv: int = attrs.field(default=0, validator=_ranged(0, 2**32 - 1))


def _pad_value(inst: Any, attribute: Any, value: Any) -> None:
    raw = to_lanes("DataCopyPadExtParams.paddingValue", inst.dtype, np.asarray([value]))
    if inst.dtype.itemsize == 8 and raw.view(np.uint8).any():
        raise ParameterError(message("DataCopyPadExtParams", "paddingValue", repr(value), "0 for a 64-bit type (the page)"))


@attrs.frozen
class DataCopyPadExtParams:
    """`DataCopyPadExtParams<T>(isPad, leftPadding, rightPadding, paddingValue)`: `T` first (a dtype), then the
    C++ fields; the paddings in elements, each at most 32 bytes; the C++ defaults {false, 0, 0, 0}."""

    dtype: Any = attrs.field(validator=lambda inst, a, v: check_dtype("DataCopyPadExtParams", "T", v))
    isPad: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))  # noqa: N815 (C++ field name)
    leftPadding: int = attrs.field(default=0, validator=_ranged(0, 255))  # noqa: N815
    rightPadding: int = attrs.field(default=0, validator=_ranged(0, 255))  # noqa: N815
    paddingValue: Any = attrs.field(default=0, validator=_pad_value)  # noqa: N815


class PaddingMode(_Enum):
    """`AscendC::PaddingMode`: Normal pads every block to 32 bytes; Compact packs the blocks and pads their end."""

    Normal = 0
    Compact = 1


# --- the two sides of a copy --------------------------------------------------------------------------------
def _l2(*sides: Any) -> str:
    """The `SetL2CacheHint` mode of a copy's GlobalTensor when not the default ("" otherwise): the event log's."""
    for t in sides:
        if isinstance(t, GlobalTensor) and t.l2_cache_mode is not CacheMode.CACHE_MODE_NORMAL:
            return str(t.l2_cache_mode.name)
    return ""


def _rows(data: Bytes, start: int, count: int, length: int, pitch: int) -> Bytes:
    """`count` rows of `length` bytes, `pitch` bytes apart, from `start` (a view; the caller checked the bounds)."""
    if count == 1 or pitch == length:
        return data[start : start + count * length].reshape(count, length)
    return np.lib.stride_tricks.as_strided(data[start:], (count, length), (pitch, 1))


def _ranges(start: int, count: int, length: int, pitch: int) -> Ranges | None:
    if count == 1 and length > 0:  # (one row: the contiguous copy)
        return start, start + length
    lo = start + pitch * np.arange(count, dtype=np.int64) if count > 1 else start
    return byte_ranges(lo, lo + length)


def _dtype(api: str, dst: Any, src: Any) -> type[dt.DType]:
    if dst.dtype is not src.dtype:
        raise DTypeError(message(api, "src", f"a tensor of {src.dtype!r}", f"the dtype of dst ({dst.dtype!r})"))
    if dst.dtype.itemsize not in (1, 2, 4, 8):
        raise DTypeError(message(api, "dst", f"a tensor of {dst.dtype!r}", "a b8, b16, b32 or b64 type"))
    return dst.dtype  # type: ignore[no-any-return]


def _ub_check(api: str, param: str, t: LocalTensor[Any], start: int, end: int, block: Block) -> None:
    """UB bytes [start, end) of tensor `t`: in this core's UB, from a 32-byte aligned tensor, inside it."""
    if t.ub is not block.ub:
        raise ParameterError(message(api, param, repr(t), f"a LocalTensor in this core's UB ({block.pipes.core})"))
    if t.addr % ONE_BLOCK_SIZE:
        raise AlignmentError(message(api, param, f"UB byte {t.addr}", "a start address aligned to 32 bytes"))
    if start < t.addr or end > t.addr + t.nbytes:
        raise OutOfBoundsError(
            message(api, param, f"UB bytes [{start}, {end})", f"within its LocalTensor, UB bytes [{t.addr}, {t.addr + t.nbytes})")
        )


def _ub_read(api: str, t: LocalTensor[Any], start: int, count: int, length: int, pitch: int, copy: bool = True) -> Bytes:
    """The rows a copy reads from the UB, each byte written before (`check_uninitialized`): a copy of their bytes,
    or (`copy` False: the copy writes another memory) a view."""
    st = t.ub.storage
    if st.partial() and current_config().check_uninitialized and not (count == 1 and st.all_written(start, start + length)):
        flags = st.flags(start, start + (count - 1) * pitch + length)  # (the rows' span; None: all written)
        written = None if flags is None else _rows(flags.view(np.uint8), 0, count, length, pitch)
        if written is not None and not written.all():
            row, col = np.argwhere(written == 0)[0]
            first = start + int(row) * pitch + int(col)
            raise UninitializedReadError(f"{api}: src reads UB byte {first} (of [{start}, ...)), which was never written")
    rows = _rows(st.data, start, count, length, pitch)
    return rows.copy() if copy else rows


#: how far above `_ub_write` the kernel's call is at the nearest (`_move` or `_pad_in`, the API, its binding check):
#: where `Writes.note` starts looking for the kernel line
_KERNEL = 4


def _ub_write(
    api: str, t: LocalTensor[Any], start: int, rows: Bytes, pitch: int, where: npt.NDArray[np.bool_] | None = None
) -> None:
    """Write `rows` into the UB, `pitch` bytes apart (only the bytes `where` says, if given), marking them written (and
    noting them, for the message of a later read of never-written bytes beside them)."""
    st = t.ub.storage
    count, length = rows.shape
    if count == 1 and where is None:  # (one row: the contiguous DataCopy)
        st.data[start : start + length] = rows[0]
        if st.partial():
            t.ub.writes.note(api, start, start + length, depth=_KERNEL)
            st.mark_stored(start, start + length)
        return
    target = _rows(st.data, start, count, length, pitch)
    if where is None:
        target[...] = rows
    else:
        np.copyto(target, rows, where=where)
    if st.partial():  # (every row has the same written columns)
        if where is None:
            cols = [0, length]
        else:
            cols = np.flatnonzero(np.diff(np.concatenate(([0], where[0].astype(np.int8), [0])))).tolist()
        firsts = start + np.arange(count) * pitch
        t.ub.writes.note(api, np.add.outer(firsts, cols[::2]).ravel(), np.add.outer(firsts, cols[1::2]).ravel(), depth=_KERNEL)
        for r in range(count):
            for a, b in zip(cols[::2], cols[1::2], strict=True):
                st.mark_stored(start + r * pitch + a, start + r * pitch + b)


def _gm_side(api: str, param: str, g: GlobalTensor[Any], count: int, length: int, pitch: int, align: bool) -> tuple[Any, int]:
    """The GM rows of a copy: (the buffer, the first row's byte address), checked against the tensor."""
    ptr = g.ptr if g.ptr is not None else g.bound(api)
    g.check(api, param, ptr.offset, ptr.offset + pitch * (count - 1) + length, align)
    return ptr.buf, ptr.offset


# --- DataCopy ------------------------------------------------------------------------------------------------
@overload
def DataCopy(dst: LocalTensor[T], src: GlobalTensor[T], count: int | DataCopyParams, /) -> None: ...
@overload
def DataCopy(dst: GlobalTensor[T], src: LocalTensor[T], count: int | DataCopyParams, /) -> None: ...
@overload
def DataCopy(dst: LocalTensor[T], src: LocalTensor[T], count: int | DataCopyParams, /) -> None: ...
@host_api("DataCopy")
def DataCopy(dst: Any, src: Any, count: Any, /) -> None:
    """`DataCopy(dst, src, count)` or `DataCopy(dst, src, DataCopyParams(...))`: GM -> UB (dst a LocalTensor,
    src a GlobalTensor), UB -> GM, or UB -> UB. `count` elements (their bytes rounded down to a multiple of 32),
    or `blockCount` blocks of `blockLen` DataBlocks with `srcStride` / `dstStride` DataBlocks between them.

    A block's call with the static values of one made before (`_static`: each side's memory, type, and a LocalTensor's
    address and size, a GlobalTensor's L2 hint; the count or params) runs from that call's plan (`Copy`): what the
    checks of those values found is kept; the GM address against its tensor's region, the written bytes and the pipes
    are checked again."""
    block = current_block("DataCopy")
    key = (_static(dst), _static(src), count) if type(count) is int or type(count) is DataCopyParams else None
    plan = block.copies.get(key) if key is not None else None
    if plan is not None:
        _check_gm("DataCopy", plan, dst, src)
        _move("DataCopy", block, plan, dst, src)
        return
    kinds = (type(dst) is LocalTensor, type(src) is LocalTensor, isinstance(dst, GlobalTensor), isinstance(src, GlobalTensor))
    if kinds not in ((True, False, False, True), (False, True, True, False), (True, True, False, False)):
        raise ParameterError(
            message(
                "DataCopy",
                "dst, src",
                f"{type(dst).__name__}, {type(src).__name__}",
                "LocalTensor, GlobalTensor (GM -> UB); GlobalTensor, LocalTensor (UB -> GM); LocalTensor, LocalTensor (UB -> UB)",
            )
        )
    dtype = _dtype("DataCopy", dst, src)
    if isinstance(count, DataCopyParams):
        blocks, length = count.blockCount, count.blockLen * ONE_BLOCK_SIZE
        src_pitch, dst_pitch = length + count.srcStride * ONE_BLOCK_SIZE, length + count.dstStride * ONE_BLOCK_SIZE
    else:
        if type(count) is not int or not 0 <= count < 2**32:
            count = as_int("DataCopy", "count", count, 0, 2**32 - 1)
        blocks, length = 1, count * dtype.itemsize // ONE_BLOCK_SIZE * ONE_BLOCK_SIZE
        src_pitch = dst_pitch = length
    if blocks == 0 or length == 0:
        return
    plan = _copy("DataCopy", block, dst, src, blocks, length, dst_pitch, src_pitch, align=True)
    if key is not None and None not in key:
        if len(block.copies) >= _KEPT:
            del block.copies[next(iter(block.copies))]
        block.copies[key] = plan


_KEPT = 256  #: the plans a block keeps (the oldest dropped first)


def _static(t: Any) -> tuple[Any, ...] | None:
    """What a copy's checks of one side depend on but a GlobalTensor's address and region (`_check_gm` asks them each
    call): a LocalTensor's UB, address, size and type; a GlobalTensor's buffer, type and L2 hint; None for anything
    else (no plan)."""
    if type(t) is LocalTensor:
        return t.ub, t.addr, t.size, t.dtype
    if type(t) is GlobalTensor and t.ptr is not None:
        return t.ptr.buf, t.dtype, t.l2_cache_mode
    return None


class Copy(NamedTuple):
    """A copy's checked static facts: its pipe, rows and pitches, whether GM addresses must be element-aligned, the
    L2 hint its records carry."""

    pipe: int
    blocks: int
    length: int
    src_pitch: int
    dst_pitch: int
    align: bool
    l2: str


def _check_gm(api: str, plan: Copy, dst: Any, src: Any) -> None:
    """A planned copy's GM side (a UB -> UB copy has none): its address inside its tensor (and aligned), as the full
    checks ask (`GlobalTensor.check`, which raises)."""
    if plan.pipe == MTE2:
        t, param, pitch = src, "src", plan.src_pitch
    elif plan.pipe == MTE3:
        t, param, pitch = dst, "dst", plan.dst_pitch
    else:
        return
    at = t.ptr.offset
    end = at + pitch * (plan.blocks - 1) + plan.length
    lo, hi = t.region
    if at < lo or end > hi or (plan.align and at % t.dtype.itemsize):
        t.check(api, param, at, end, plan.align)


def _copy(
    api: str, block: Block, dst: Any, src: Any, blocks: int, length: int, dst_pitch: int, src_pitch: int, align: bool
) -> Copy:
    """Move `blocks` rows of `length` bytes, `src_pitch` / `dst_pitch` bytes apart: both sides checked, then
    `_move`; the plan of the checks."""
    for param, t, pitch in (("src", src, src_pitch), ("dst", dst, dst_pitch)):
        if type(t) is LocalTensor:
            _ub_check(api, param, t, t.addr, t.addr + (blocks - 1) * pitch + length, block)
        else:
            _gm_side(api, param, t, blocks, length, pitch, align)
    pipe = MTE2 if type(src) is not LocalTensor else MTE3 if type(dst) is not LocalTensor else V
    plan = Copy(pipe, blocks, length, src_pitch, dst_pitch, align, _l2(src, dst))
    _move(api, block, plan, dst, src)
    return plan


def _move(api: str, block: Block, plan: Copy, dst: Any, src: Any) -> None:
    """A checked copy: the access recorded on its pipe (GM -> UB MTE2, UB -> GM MTE3, UB -> UB V), then the bytes
    moved."""
    pipe, blocks, length, src_pitch, dst_pitch = plan[:5]
    if pipe == MTE2:
        ptr = src.ptr
        src_space, src_at = ptr.buf.space, ptr.offset
        rows = _rows(ptr.buf.data, src_at, blocks, length, src_pitch)
    else:
        src_space, src_at = "UB", src.addr
        rows = _ub_read(api, src, src_at, blocks, length, src_pitch, copy=pipe == V)
    if pipe == MTE3:
        dst_buf = dst.ptr.buf
        dst_space, dst_at = dst_buf.space, dst.ptr.offset
    else:
        dst_space, dst_at = "UB", dst.addr
    reads: Ranges | None
    writes: Ranges | None
    if blocks == 1:
        reads, writes = (src_at, src_at + length), (dst_at, dst_at + length)
    else:
        reads, writes = _ranges(src_at, blocks, length, src_pitch), _ranges(dst_at, blocks, length, dst_pitch)
    moved = blocks * length
    block.pipes.access(
        pipe, [(src_space, False, reads, moved, api), (dst_space, True, writes, moved, api)], call_line(4), l2=plan.l2
    )
    if pipe == MTE3:
        _rows(dst_buf.data, dst_at, blocks, length, dst_pitch)[...] = rows
    else:
        _ub_write(api, dst, dst_at, rows, dst_pitch)


# --- DataCopyPad ---------------------------------------------------------------------------------------------
@overload
def DataCopyPad(
    dst: LocalTensor[T],
    src: GlobalTensor[T],
    data_copy_params: DataCopyExtParams,
    pad_params: DataCopyPadExtParams,
    /,
    *,
    mode: PaddingMode = ...,
) -> None: ...
@overload
def DataCopyPad(
    dst: GlobalTensor[T], src: LocalTensor[T], data_copy_params: DataCopyExtParams, /, *, mode: PaddingMode = ...
) -> None: ...
@host_api("DataCopyPad")
def DataCopyPad(dst: Any, src: Any, data_copy_params: Any, pad_params: Any = None, /, *, mode: Any = PaddingMode.Normal) -> None:
    """`DataCopyPad<T, mode>(dst, src, dataCopyParams[, padParams])`: GM -> UB (with `padParams`) or UB -> GM,
    `blockCount` blocks of `blockLen` bytes; GM -> UB pads each block (Normal: `leftPadding` / `rightPadding`
    elements, then to 32 bytes) or the packed blocks' end (Compact) with `paddingValue` (`isPad`), else the
    `SetPadValue` value; padding the page calls random is left as the UB held it."""
    block = current_block("DataCopyPad")
    if not isinstance(mode, PaddingMode):
        raise ParameterError(message("DataCopyPad", "mode", repr(mode), expected_member(PaddingMode, mode, "A")))
    if not isinstance(data_copy_params, DataCopyExtParams):
        raise ParameterError(message("DataCopyPad", "data_copy_params", repr(data_copy_params), "a DataCopyExtParams"))
    p = data_copy_params
    if type(dst) is LocalTensor and isinstance(src, GlobalTensor):
        if not isinstance(pad_params, DataCopyPadExtParams):
            raise ParameterError(message("DataCopyPad", "pad_params", repr(pad_params), "a DataCopyPadExtParams (GM -> UB)"))
        _pad_in(block, dst, src, p, pad_params, mode)
    elif isinstance(dst, GlobalTensor) and type(src) is LocalTensor:
        if pad_params is not None:
            raise ParameterError(message("DataCopyPad", "pad_params", repr(pad_params), "none for UB -> GM"))
        _pad_out(block, dst, src, p, mode)
    else:
        raise ParameterError(
            message(
                "DataCopyPad",
                "dst, src",
                f"{type(dst).__name__}, {type(src).__name__}",
                "LocalTensor, GlobalTensor (GM -> UB) or GlobalTensor, LocalTensor (UB -> GM)",
            )
        )


def _ceil32(n: int) -> int:
    return -(-n // ONE_BLOCK_SIZE) * ONE_BLOCK_SIZE


def _check_len(p: DataCopyExtParams, dtype: type[dt.DType]) -> None:
    if p.blockLen % dtype.itemsize:
        raise ParameterError(message("DataCopyPad", "blockLen", p.blockLen, f"a multiple of sizeof(T) = {dtype.itemsize}"))


def _pad_in(
    block: Block,
    dst: LocalTensor[Any],
    src: GlobalTensor[Any],
    p: DataCopyExtParams,
    pad: DataCopyPadExtParams,
    mode: PaddingMode,
) -> None:
    dtype = _dtype("DataCopyPad", dst, src)
    if pad.dtype is not dtype:
        raise DTypeError(
            message("DataCopyPad", "pad_params", f"DataCopyPadExtParams({pad.dtype!r}, ...)", f"the dtype of dst ({dtype!r})")
        )
    _check_len(p, dtype)
    as_int("DataCopyPad", "srcStride", p.srcStride, -p.blockLen, 2**40 - 1)
    as_int("DataCopyPad", "dstStride", p.dstStride, 0, 65535)
    size = dtype.itemsize
    for name, n in (("leftPadding", pad.leftPadding), ("rightPadding", pad.rightPadding)):
        if n * size > ONE_BLOCK_SIZE:
            raise ParameterError(message("DataCopyPad", name, f"{n} elements ({n * size} bytes)", "at most 32 bytes"))
    if p.blockCount == 0 or p.blockLen == 0:
        return
    count, length = p.blockCount, p.blockLen
    fill = _fill_value(block, dtype, pad)
    if mode is PaddingMode.Compact:  # the blocks packed, their end padded to 32 bytes
        left, right, width = 0, 0, _ceil32(count * length)
    else:
        left, right = pad.leftPadding * size, pad.rightPadding * size
        width = _ceil32(left + length + right)
    buf, g = _gm_side("DataCopyPad", "src", src, count, length, length + p.srcStride, align=False)
    data = _rows(buf.data, g, count, length, length + p.srcStride)
    if mode is PaddingMode.Compact:
        image, where = np.zeros((1, width), np.uint8), np.zeros((1, width), np.bool_)
        image[0, : count * length], where[0, : count * length] = data.reshape(-1), True
        _pad(image, where, count * length, width, fill)
        rows, pitch = 1, width
    else:
        image, where = np.zeros((count, width), np.uint8), np.zeros((count, width), np.bool_)
        image[:, left : left + length], where[:, left : left + length] = data, True
        _pad(image, where, 0, left, fill)
        _pad(image, where, left + length, left + length + right, fill)
        if left == right == 0:  # the dummy bytes repeat the block's first element ("dummy会默认填充待搬运数据块的第一个元素值")
            dummy = np.tile(data[:, :size], (1, -(-(width - length) // size)))[:, : width - length]
            image[:, length:], where[:, length:] = dummy, True
        else:
            _pad(image, where, left + length + right, width, fill)
        rows, pitch = count, width + p.dstStride * ONE_BLOCK_SIZE
    extent = (rows - 1) * pitch + width
    _ub_check("DataCopyPad", "dst", dst, dst.addr, dst.addr + extent, block)
    block.pipes.access(
        MTE2,
        [
            ("UB", True, _ranges(dst.addr, rows, width, pitch), rows * width, "DataCopyPad"),
            (buf.space, False, _ranges(g, count, length, length + p.srcStride), count * length, "DataCopyPad"),
        ],
        call_line(4),
        l2=_l2(src),
    )
    _ub_write("DataCopyPad", dst, dst.addr, image, pitch, where)


def _fill_value(block: Block, dtype: type[dt.DType], pad: DataCopyPadExtParams) -> Bytes | None:
    """The bytes of one padding element: `paddingValue` with `isPad`, else the `SetPadValue` value, else None
    (the page's "随机值": the UB keeps what it held)."""
    if pad.isPad:
        return to_lanes("DataCopyPad", dtype, np.asarray([pad.paddingValue])).view(np.uint8)
    if block.pad_value is None:
        return None
    set_dtype, raw = block.pad_value
    if set_dtype.itemsize != dtype.itemsize:
        raise DTypeError(
            message("DataCopyPad", "T", repr(dtype), f"the type SetPadValue was given ({set_dtype!r}), or isPad=True")
        )
    return np.frombuffer(raw, np.uint8)


def _pad(image: Bytes, where: npt.NDArray[np.bool_], lo: int, hi: int, fill: Bytes | None) -> None:
    if hi > lo and fill is not None:
        image[:, lo:hi] = np.tile(fill, -(-(hi - lo) // fill.size))[: hi - lo]
        where[:, lo:hi] = True


def _pad_out(block: Block, dst: GlobalTensor[Any], src: LocalTensor[Any], p: DataCopyExtParams, mode: PaddingMode) -> None:
    dtype = _dtype("DataCopyPad", dst, src)
    _check_len(p, dtype)
    as_int("DataCopyPad", "srcStride", p.srcStride, 0, 65535)
    as_int("DataCopyPad", "dstStride", p.dstStride, 0, 2**40 - 1)
    if p.blockCount == 0 or p.blockLen == 0:
        return
    count, length = p.blockCount, p.blockLen
    src_pitch = length if mode is PaddingMode.Compact else _ceil32(length) + p.srcStride * ONE_BLOCK_SIZE
    _copy("DataCopyPad", block, dst, src, count, length, length + p.dstStride, src_pitch, align=False)


@host_api("SetPadValue")
def SetPadValue(dtype: type[T], padding_value: Any, *, pos: TPosition = TPosition.MAX) -> None:
    """`SetPadValue<T, pos>(paddingValue)` (`T` first, a dtype): the value `DataCopyPad` pads with when
    `isPad` is false; kept by the core until set again."""
    block = current_block("SetPadValue")
    check_dtype("SetPadValue", "T", dtype)
    if pos not in (TPosition.VECIN, TPosition.VECOUT, TPosition.MAX):
        raise ParameterError(
            message(
                "SetPadValue",
                "pos",
                repr(pos),
                expected_member(TPosition, pos, "A", (TPosition.VECIN, TPosition.VECOUT, TPosition.MAX)),
            )
        )
    block.pad_value = (dtype, to_lanes("SetPadValue", dtype, np.asarray([padding_value])).view(np.uint8).tobytes())
