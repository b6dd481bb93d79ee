"""The memory-level gathers, lowered onto Reg ops as the 950 library builds them (kernel_operator_vec_gather_impl.h
for dav_3510): `Gather` (the Gather page: dst[i] = the element at byte `srcBaseAddr + srcOffset[i]` of src, in the
first-n interface and the mask/repeat interfaces; `VfGatherApi0B16/B32/B64`, `VfGatherApi2B8/B16/B32/B64`) and
`Gatherb` (the "Gatherb(ISASI)" page: DataBlocks of src at byte offsets, 8 per repeat; `GatherbImpl`).
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings import direct
from regsim._src.lowerings.checks import as_uint, check_count, check_repeat, check_tensors, run_lowering
from regsim._src.lowerings.dtype_sets import UINT32
from regsim._src.lowerings.fresh import FreshCall, arguments, mask_arg
from regsim._src.lowerings.spec import Call, Form
from regsim._src.lowerings.structs import GatherRepeatParams
from regsim._src.lowerings.vector_mask import repeat_plan, set_vector_mask, vector_mask
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure, current_config
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import AlignmentError, DTypeError, OutOfBoundsError, ParameterError, UninitializedReadError, message

T = TypeVar("T", bound=dt.DType)
_U64 = (1 << 64) - 1
_BLOCK: Final = Reg.DataCopyMode.DATA_BLOCK_COPY
_POST: Final = Reg.PostLiteral.POST_MODE_UPDATE


@simd_vf
def gather_b16_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    src_offset: UbPtr[dt.uint32],
    src_base_index: int,
    repeat_time: int,
    dst_step: int,
    count: int,
    per_repeat_mask: bool,
) -> None:
    """`VfGatherApi0B16` / `VfGatherApi2B16` (kernel_operator_vec_gather_impl.h): byte offsets → element
    indices (ShiftRights by 1), two u32 offset registers packed into one u16 index register (Pack LOWEST /
    HIGHEST + Select on the H pattern), then `Reg::Gather`. `per_repeat_mask`: UpdateMask each repeat
    (first-n interface, counter mode); else the vector mask register (`MoveMask`)."""
    offset_reg0 = Reg.RegTensor(dt.uint32)
    offset_reg1 = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint16)
    dst_reg = Reg.RegTensor(dt.uint16)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint32)  # MaskReg indexMask = CreateMask<uint32_t>();
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)  # CreateMask<uint16_t, MaskPattern::H>();
    dst_mask = Reg.MaskReg()
    if not per_repeat_mask:
        dst_mask = Reg.MoveMask(dt.uint16)  # dstMask = MoveMask<T>();
    u32_per_reg = VL // 4
    for i in range(repeat_time):
        if per_repeat_mask:
            dst_mask = Reg.UpdateMask(dt.uint16, sreg)  # dstMask = UpdateMask<T>(sregPlt);
        Reg.LoadAlign(offset_reg0, src_offset + (2 * i) * u32_per_reg)
        Reg.LoadAlign(offset_reg1, src_offset + (2 * i + 1) * u32_per_reg)
        Reg.ShiftRights(offset_reg0, offset_reg0, 1, index_mask)  # bytes -> b16 element index
        Reg.ShiftRights(offset_reg1, offset_reg1, 1, index_mask)
        Reg.Pack(offset_reg0.reinterpret(dt.uint16), offset_reg0, part=Reg.HighLowPart.LOWEST)
        Reg.Pack(offset_reg1.reinterpret(dt.uint16), offset_reg1, part=Reg.HighLowPart.HIGHEST)
        Reg.Select(index_reg, offset_reg0.reinterpret(dt.uint16), offset_reg1.reinterpret(dt.uint16), select_mask)
        Reg.Gather(dst_reg, src.reinterpret(dt.uint16) + src_base_index, index_reg, dst_mask)
        Reg.StoreAlign(dst.reinterpret(dt.uint16) + i * dst_step, dst_reg, dst_mask)


@simd_vf
def gather_b32_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    src_offset: UbPtr[dt.uint32],
    src_base_index: int,
    repeat_time: int,
    dst_step: int,
    count: int,
    per_repeat_mask: bool,
) -> None:
    """`VfGatherApi0B32` / `VfGatherApi2B32`: byte offsets → element indices (ShiftRights by 2), then `Reg::Gather`."""
    offset_reg = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint32)
    dst_reg = Reg.RegTensor(dt.uint32)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint32)
    dst_mask = Reg.MaskReg()
    if not per_repeat_mask:
        dst_mask = Reg.MoveMask(dt.uint32)
    u32_per_reg = VL // 4
    for i in range(repeat_time):
        if per_repeat_mask:
            dst_mask = Reg.UpdateMask(dt.uint32, sreg)
        Reg.LoadAlign(offset_reg, src_offset + i * u32_per_reg)
        Reg.ShiftRights(index_reg, offset_reg, 2, index_mask)  # bytes -> b32 element index
        Reg.Gather(dst_reg, src.reinterpret(dt.uint32) + src_base_index, index_reg, dst_mask)
        Reg.StoreAlign(dst.reinterpret(dt.uint32) + i * dst_step, dst_reg, dst_mask)


@simd_vf
def gather_b8_vf(dst: UbPtr[Any], src: UbPtr[Any], src_offset: UbPtr[dt.uint32], src_base_index: int, count: int) -> None:
    """`VfGatherApi2B8` (first-n only): per 128 elements, two u32 offset registers packed into one u16 index register
    (the byte offsets are the element indices), `Reg::Gather` of bytes into u16 lanes, `Pack` to bytes and `MaskPack`
    of the predicate, `StoreAlign` of the 128 bytes."""
    offset_reg0 = Reg.RegTensor(dt.uint32)
    offset_reg1 = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint16)
    dst_reg = Reg.RegTensor(dt.uint16)
    sreg = Ref(count)
    u32_per_reg = VL // 4  # u32OffsetRepeatCount
    per_repeat = VL // 2  # u8GatherRepeatCount: 128 bytes per iteration
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)  # CreateMask<uint16_t, MaskPattern::H>();
    for i in range(-(-count // per_repeat)):
        dst_mask = Reg.UpdateMask(dt.uint16, sreg)  # dstMask = UpdateMask<uint16_t>(sreg);
        Reg.LoadAlign(offset_reg0, src_offset + (2 * i) * u32_per_reg)
        Reg.LoadAlign(offset_reg1, src_offset + (2 * i + 1) * u32_per_reg)
        Reg.Pack(offset_reg0.reinterpret(dt.uint16), offset_reg0, part=Reg.HighLowPart.LOWEST)
        Reg.Pack(offset_reg1.reinterpret(dt.uint16), offset_reg1, part=Reg.HighLowPart.HIGHEST)
        Reg.Select(index_reg, offset_reg0.reinterpret(dt.uint16), offset_reg1.reinterpret(dt.uint16), select_mask)
        Reg.Gather(dst_reg, src.reinterpret(dt.uint8) + src_base_index, index_reg, dst_mask)
        Reg.Pack(dst_reg.reinterpret(dt.uint8), dst_reg)  # Pack((RegTensor<uint8_t>&)dstReg, dstReg);
        Reg.Pack(dst_mask, dst_mask)  # MaskPack(dstMask, dstMask);
        Reg.StoreAlign(dst.reinterpret(dt.uint8) + i * per_repeat, dst_reg.reinterpret(dt.uint8), dst_mask)


@simd_vf
def gather_b64_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    src_offset: UbPtr[dt.uint32],
    src_base_index: int,
    repeat_time: int,
    dst_step: int,
    u32_count: int,
    mask_source: str,
) -> None:
    """`VfGatherApi2B64` / `VfGatherApi0B64Normal` / `VfGatherApi0B64Bits`: each b64 element is two u32 words; per
    repeat 32 byte offsets → element indices (ShiftRights by 3) → word indices 2j and 2j + 1 (`Muls`, `Adds`),
    interleaved into 64 u32 indices, `Reg::Gather` of u32 words. `mask_source`: "count" (`UpdateMask<uint32_t>`
    over `u32_count` each repeat: the first-n interface and counter mode), "continuous" (`UpdateMask` once: the
    first 2 * mask words) or "bits" (the vector mask register: `MoveMask<uint16_t>`, `MaskPack`,
    `MaskInterleave<uint8_t>`, two `MaskUnPack`s: bit j selects words 2j and 2j + 1). `src_base_index` counts u32
    words; `dst_step` u32 words per repeat."""
    offset_reg = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint32)
    odd_index_reg = Reg.RegTensor(dt.uint32)
    tmp_reg = Reg.RegTensor(dt.uint32)
    index_u32_reg = Reg.RegTensor(dt.uint32)
    dst_reg = Reg.RegTensor(dt.uint32)
    sreg = Ref(u32_count)
    index_mask = Reg.CreateMask(dt.uint32, pattern=Reg.MaskPattern.H)  # CreateMask<uint32_t, MaskPattern::H>();
    dst_mask = Reg.MaskReg()
    if mask_source == "continuous":
        dst_mask = Reg.UpdateMask(dt.uint32, sreg)
    elif mask_source == "bits":
        tmp_mask0 = Reg.MaskReg()
        tmp_mask1 = Reg.MoveMask(dt.uint16)  # MaskReg tmpMask1 = MoveMask<uint16_t>();
        Reg.Pack(tmp_mask1, tmp_mask1)  # MaskPack(tmpMask1, tmpMask1);
        Reg.Interleave(dt.uint8, dst_mask, tmp_mask0, tmp_mask1, tmp_mask1)  # MaskInterleave<uint8_t>(...);
        Reg.UnPack(dst_mask, dst_mask)  # MaskUnPack(dstMask, dstMask);
        Reg.UnPack(dst_mask, dst_mask)
    offsets_per_repeat = VL // 8  # u64OffsetRepeatCount
    for i in range(repeat_time):
        if mask_source == "count":
            dst_mask = Reg.UpdateMask(dt.uint32, sreg)
        Reg.LoadAlign(offset_reg, src_offset + i * offsets_per_repeat)
        Reg.ShiftRights(index_reg, offset_reg, 3, index_mask)  # bytes -> b64 element index
        Reg.Muls(index_reg, index_reg, 2, index_mask)  # the index of the lower word
        Reg.Adds(odd_index_reg, index_reg, 1, index_mask)  # and of the higher one
        Reg.Interleave(index_u32_reg, tmp_reg, index_reg, odd_index_reg)
        Reg.Gather(dst_reg, src.reinterpret(dt.uint32) + src_base_index, index_u32_reg, dst_mask)
        Reg.StoreAlign(dst.reinterpret(dt.uint32) + i * dst_step, dst_reg, dst_mask)


_WRITTEN: Final = 0x01010101  #: four written flags seen as one uint32
#: srcOffset ranges on Ascend 950 (the Gather page): b8 [0, 2**16 - 1], b16 [0, 2**17 - 1], b32 and b64 the uint32_t range
_GATHER_MAX_OFFSET = {1: 2**16 - 1, 2: 2**17 - 1, 4: 2**32 - 1, 8: 2**32 - 1}


def _check_offsets(
    dtype: type[dt.DType], src: LocalTensor[Any], base: int, src_offset: LocalTensor[Any], used: np.ndarray
) -> None:
    """Every srcOffset an active element reads: written (when the uninitialised-read check is on), a multiple
    of the element width, within the 950 range, the element it names inside src."""
    used = used[: src_offset.size]
    st = src_offset.ub.storage
    span = slice(src_offset.addr, src_offset.addr + used.size * 4)
    flags = st.flags(span.start, span.stop) if current_config().check_uninitialized else None  # (None: all written)
    if flags is not None:
        written = flags.view(np.uint32) == _WRITTEN  # (an element's four flags, all set)
        missing = np.flatnonzero(used & ~written)
        if missing.size:
            raise UninitializedReadError(f"Gather: src_offset element {int(missing[0])} is read but was never written")
    words = st.data[span].view(np.uint32)
    every = bool(used.all())
    offs = words if every else words[used]
    width = dtype.itemsize
    wrong = offs & (width - 1) != 0  # (not a multiple of the width, a power of two)
    if _GATHER_MAX_OFFSET[width] < 2**32 - 1:  # (b32, b64: every uint32_t offset is in range)
        wrong |= offs > _GATHER_MAX_OFFSET[width]
    bad = offs[wrong] if wrong.any() else offs[:0]
    if bad.size:
        accepted = f"byte offsets that are multiples of {width} in [0, {_GATHER_MAX_OFFSET[width]}] for {dtype.name}"
        raise ParameterError(message("Gather", "src_offset", f"[..., {int(bad[0])}, ...]", accepted))
    room = src.nbytes - width - base  # the largest offset whose element lies inside src (uint32 offsets: none below 0)
    past = offs > room if room >= 0 else np.ones(offs.shape, np.bool_)
    outside = (np.flatnonzero(past) if every else np.flatnonzero(used)[past]) if past.any() else past[:0]
    if outside.size:  # (Reg::Gather reads per active lane inside the tensor its base address comes from)
        k = int(outside[0])
        off = int(words[k])
        given = f"{off} at element {k} (byte {base + off} of src, with src_base_addr {base})"
        accepted = f"offsets whose element lies inside src ({src.size} {dtype.name} elements, bytes [0, {src.nbytes}))"
        raise OutOfBoundsError(message("Gather", "src_offset", given, accepted))


def gather(c: Call) -> None:
    """`AscendC::Gather(dst, src, srcOffset, srcBaseAddr, count)` and
    `Gather(dst, src, srcOffset, srcBaseAddr, mask, repeatTime, dstRepStride)`: dst[i] = the element at
    byte `srcBaseAddr + srcOffset[i]` from `src`'s start. b8 (the first-n interface only), b16, b32 and b64
    types; the repeat interface's repeats each gather 256 bytes of elements (128 b16 / 64 b32 / 32 b64, the
    next offsets) and store them `dstRepStride` DataBlocks after the previous ones."""
    api, dst, src, src_offset = c.api, c["dst"], c["src"], c["src_offset"]
    dtype = check_tensors(api, c.iface.dtypes, ("dst", "src"), (dst, src))
    if src_offset.dtype is not dt.uint32:
        raise DTypeError(message(api, "src_offset", repr(src_offset), "a LocalTensor[uint32] of byte offsets"))
    check_tensors(api, UINT32, ("src_offset",), (src_offset,))
    if src_offset.ub is not dst.ub:
        raise ParameterError(message(api, "src_offset", repr(src_offset), "a LocalTensor in the same UnifiedBuffer as dst"))
    base = as_uint(api, "src_base_addr", c["src_base_addr"], 32)
    if base % dtype.itemsize:
        raise ParameterError(message(api, "src_base_addr", base, f"a multiple of {dtype.itemsize} bytes for {dtype.name}"))
    if base % ONE_BLOCK_SIZE:  # the lowering's Reg::Gather takes src + srcBaseAddr as its 32-byte aligned base
        raise AlignmentError(
            message(api, "src_base_addr", base, "a multiple of 32 bytes (it becomes the base address of Reg::Gather)")
        )
    lanes = VL // dtype.itemsize
    vf = gather_b16_vf if dtype.itemsize == 2 else gather_b32_vf
    mask_source = "count"
    if c.form is Form.COUNT:  # tensor 前n个数据计算
        n = check_count(api, c["count"], ("dst", "src_offset"), (dst, src_offset))
        _check_offsets(dtype, src, base, src_offset, np.ones(n, np.bool_))
        if direct.run_gather(dst, src, src_offset, base, n):  # (the common case at once)
            return
        repeats, step, count, per_repeat = -(-n // lanes), lanes, n, True
    else:
        mask = c["mask"]
        stride = as_uint(api, "dst_rep_stride", c["dst_rep_stride"], 16)
        plan = repeat_plan(api, dtype, mask, c["repeat_time"], True)
        count, repeats, normal, _ = plan
        if normal:
            if c.form is Form.CONTINUOUS:  # SetVectorMask<T>(mask): the first `mask` elements
                bits = (1 << count) - 1
                set_vector_mask(bits >> 64, bits & _U64)
            high, low = vector_mask()
            sel = np.array([(high << 64 | low) >> k & 1 for k in range(lanes)], np.bool_)
            used = np.tile(sel, repeats)
        else:
            repeats = -(-count // lanes)
            used = np.arange(repeats * lanes) < count
        last = int(np.flatnonzero(used)[-1]) if used.any() else -1
        if last >= src_offset.size:
            accepted = f"repeats whose active elements' offsets lie in src_offset ({src_offset.size} elements)"
            raise ParameterError(message(api, "repeat_time", repeats, accepted))
        _check_offsets(dtype, src, base, src_offset, used)
        step, per_repeat = stride * (ONE_BLOCK_SIZE // dtype.itemsize), not normal
        if normal:
            mask_source = "bits" if c.form is Form.BITS else "continuous"
    ptrs = (dst.GetPhyAddr(), src.GetPhyAddr(), src_offset.GetPhyAddr())
    # The library shifts whole offset registers (all lanes), past the offsets the call uses: those lanes are
    # never gathered, so their bytes may be unwritten; the offsets that are used were checked above.
    with configure(check_uninitialized=False):
        if dtype.itemsize == 1:
            run_lowering(api, gather_b8_vf, *ptrs, base, count)
        elif dtype.itemsize == 8:  # in u32 words: srcBaseIndex = srcBaseAddr / 4, 2 words per element
            run_lowering(api, gather_b64_vf, *ptrs, base // 4, repeats, 2 * step, 2 * count, mask_source)
        else:
            run_lowering(api, vf, *ptrs, base // dtype.itemsize, repeats, step, count, per_repeat)


def explore_gather(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Gather(half, count=128)"` or `"Gather(half, mask=128, repeat_time=4, dst_rep_stride=8)"`: the
    call on fresh tensors, src of random data and src_offset its element offsets from the last down (the Gather
    page's example), src_base_addr 0."""
    if set(kw) == {"count"}:
        n = int(kw["count"])
        rest: tuple[Any, ...] = (n,)
        dst_elems = n
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "dst_rep_stride"}:
        r, stride = int(kw["repeat_time"]), int(kw.get("dst_rep_stride", 8))
        n = r * VL // dtype.itemsize
        rest = (mask_arg(kw["mask"]), r, stride)
        dst_elems = ((max(r, 1) - 1) * stride * ONE_BLOCK_SIZE + VL) // dtype.itemsize
    else:
        raise arguments(kw, "count=N, or mask=M, repeat_time=R [, dst_rep_stride=S] (Gather)")

    lanes = VL // dtype.itemsize
    size = -(-max(n, 1) // lanes) * lanes  # whole registers of src and offsets
    ub = UnifiedBuffer(2 * size * dtype.itemsize + (size + lanes) * 4 + max(dst_elems, size) * dtype.itemsize + 4 * VL)
    dst, src = ub.alloc(dtype, max(dst_elems, size)), ub.alloc(dtype, size)
    offsets = ub.alloc(dt.uint32, size + lanes)
    ub.storage.write(src.addr, np.random.default_rng(0).integers(0, 256, src.nbytes, dtype=np.uint8))
    offsets.set(((size - 1 - np.arange(offsets.size) % size) * dtype.itemsize).astype(np.uint32))
    return (dst, src, offsets, 0, *rest), {}


# --- Gatherb (the "Gatherb(ISASI)" page): DataBlocks of src at byte offsets ------------------------------------------


@simd_vf
def gatherb_vf(dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], repeat_time: int, blk: int, rep: int) -> None:
    """`GatherbImpl` (kernel_operator_vec_gather_impl.h): per repeat a `LoadAlign` of the offset register at
    srcOffsetLocal + 8 * i, `Reg::GatherB` of eight DataBlocks under a full predicate, and a DATA_BLOCK_COPY
    `StoreAlign` (b64: as uint32 with POST_MODE_UPDATE by dstRepStride; else at dst + i * dstRepStride * 32 bytes)."""
    T = dst.dtype
    one_blk_num = ONE_BLOCK_SIZE // T.itemsize  # oneBlkNum
    dst_reg = Reg.RegTensor(T)
    index_reg = Reg.RegTensor(dt.uint32)
    full_preg = Reg.CreateMask(dt.uint8)  # CreateMask<uint8_t>();
    words = dst.reinterpret(dt.uint32)  # ((__ubuf__ uint32_t*&)dst, updated in place)
    for i in range(repeat_time):
        Reg.LoadAlign(index_reg, offsets + i * 8)  # LoadAlign(indexReg, srcOffsetLocal + i * DEFAULT_BLK_NUM);
        Reg.GatherB(dst_reg, src, index_reg, full_preg)  # GatherB(dstReg, src, indexReg, fullPreg);
        if T.itemsize == 8:
            Reg.StoreAlign(  # StoreAlign<uint32_t, DATA_BLOCK_COPY, POST_MODE_UPDATE>(dst, dstReg, blk, rep, fullPreg);
                words, dst_reg.reinterpret(dt.uint32), blk, rep, full_preg, data_mode=_BLOCK, post_mode=_POST
            )
        else:  # StoreAlign<T, DATA_BLOCK_COPY>(dst + i * dstRepStride * oneBlkNum, dstReg, dstBlkStride, fullPreg);
            Reg.StoreAlign(dst + i * rep * one_blk_num, dst_reg, blk, full_preg, data_mode=_BLOCK)


def gatherb(c: Call) -> None:
    """`AscendC::Gatherb(dst, src, offset, repeatTime, repeatParams)`: DataBlock k of repeat r of dst (at DataBlock
    r * dstRepStride + k * dstBlkStride) is the 32 bytes at byte offset[8 * r + k] of src. All eleven 950 types."""
    api, dst, src, offset, repeat_params = c.api, c["dst"], c["src"], c["offset"], c["repeat_params"]
    check_tensors(api, c.iface.dtypes, ("dst", "src"), (dst, src))
    if offset.dtype is not dt.uint32:
        raise DTypeError(message(api, "offset", repr(offset), "a LocalTensor[uint32] of byte offsets"))
    check_tensors(api, UINT32, ("offset",), (offset,))
    if offset.ub is not dst.ub:
        raise ParameterError(message(api, "offset", repr(offset), "a LocalTensor in the same UnifiedBuffer as dst"))
    r = check_repeat(api, c["repeat_time"])
    blk, rep = repeat_params.dstBlkStride, repeat_params.dstRepStride
    if blk == 0:  # the page: handled as 1; the 950 lowering passes 0 to the block store (all 8 blocks at one address)
        accepted = (
            "an int in [1, 255] (the page handles 0 as 1, the 950 library's lowering does not: refused, "
            "decisions/datamove.md#memory-gatherb)"
        )
        raise ParameterError(message(api, "repeat_params.dstBlkStride", 0, accepted))
    if r == 0:
        return  # (the loop runs zero times)
    if 8 * r > offset.size:
        accepted = f"a LocalTensor of at least {8 * r} elements (8 offsets per repeat)"
        raise ParameterError(message(api, "offset", f"a LocalTensor of {offset.size} elements", accepted))
    blocks = (r - 1) * rep + 7 * blk + 1
    if blocks * ONE_BLOCK_SIZE > dst.nbytes:
        accepted = f"a dst of at least {blocks * ONE_BLOCK_SIZE} bytes (the DataBlocks the repeats write)"
        raise ParameterError(message(api, "dst", f"a LocalTensor of {dst.nbytes} bytes", accepted))
    if current_config().check_uninitialized:
        if not offset.ub.storage.all_written(offset.addr, offset.addr + 32 * r):
            raise UninitializedReadError(f"{api}: an offset element of the first {8 * r} is read but was never written")
    offs = offset.numpy()[: 8 * r].astype(np.int64)
    bad = offs[(offs % ONE_BLOCK_SIZE != 0) | (offs + ONE_BLOCK_SIZE > src.nbytes)]
    if bad.size:
        accepted = f"multiples of 32 bytes whose DataBlock lies in src ([0, {src.nbytes - ONE_BLOCK_SIZE}])"
        raise ParameterError(message(api, "offset", f"[..., {int(bad[0])}, ...]", accepted))
    # the page: "不支持源操作数与目的操作数使用同一块内存地址": no written DataBlock may be one the call reads
    rows = np.arange(r)[:, None] * rep + np.arange(8)[None, :] * blk
    written = dst.addr + rows.reshape(-1) * ONE_BLOCK_SIZE
    for name, read in (("src", src.addr + offs), ("offset", offset.addr + ONE_BLOCK_SIZE * np.arange(r))):
        clash = np.intersect1d(written, read)
        if clash.size:
            accepted = f"dst DataBlocks distinct from the {name} DataBlocks the call reads (the page: no shared memory)"
            given = f"a DataBlock at UB byte {int(clash[0])} also read from {name}"
            raise ParameterError(message(api, "dst", given, accepted))
    with configure(check_uninitialized=False):
        run_lowering(api, gatherb_vf, dst.GetPhyAddr(), src.GetPhyAddr(), offset.GetPhyAddr(), r, blk, rep)


def explore_gatherb(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Gatherb(half, repeat_time=2, params=(1, 8))"`: the call on fresh tensors (random DataBlock
    offsets into a 16-block src)."""

    if not {"repeat_time"} <= set(kw) <= {"repeat_time", "params"}:
        raise arguments(kw, "repeat_time=R [, params=(dstBlkStride, dstRepStride)]")
    r = int(kw["repeat_time"])
    params = GatherRepeatParams(*kw.get("params", ()))
    blocks = max((r - 1) * params.dstRepStride + 7 * params.dstBlkStride + 1, 1)
    e = ONE_BLOCK_SIZE // dtype.itemsize
    ub = UnifiedBuffer(16 * ONE_BLOCK_SIZE + blocks * ONE_BLOCK_SIZE + max(32 * r, 32) + VL)
    src, dst = ub.alloc(dtype, 16 * e), ub.alloc(dtype, blocks * e)
    offset = ub.alloc(dt.uint32, max(8 * r, 8))
    rng = np.random.default_rng(0)
    ub.storage.write(src.addr, rng.integers(0, 256, src.nbytes, dtype=np.uint8))
    offset.set((rng.integers(0, 16, offset.size) * ONE_BLOCK_SIZE).astype(np.uint32))
    return (dst, src, offset, r, params), {}
