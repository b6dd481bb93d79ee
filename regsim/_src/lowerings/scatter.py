"""The memory-level `Scatter` (the "Scatter(ISASI)" page of "Memory矢量计算/离散与聚合"): the first-n interface
(`Scatter(dst, src, dstOffset, dstBaseAddr, count)`) and the mask/repeat interfaces (`mask[]` / `mask`, repeatTime,
srcRepStride; b16/b32/b64), lowered onto Reg ops as the 950 library builds them (kernel_operator_vec_scatter_impl.h
for dav_3510, `ScatterImplB8/B16/B32/B64`). The first-n forms:

- b32: per 64 elements `UpdateMask<T>(count)`, a `LoadAlign` of 64 u32 byte offsets, `ShiftRights` by 2 (bytes ->
  element indices), a `LoadAlign` of the source and `Reg::Scatter<T, uint32_t>` at dst + dstBaseAddr / 4;
- b16: per 128 elements two offset registers, `ShiftRights` by 1, `Cast<uint16_t, uint32_t>` (saturating) into the
  even (layout ZERO) / odd (layout ONE) u16 lanes, `DeInterleave` and `Select` on the H pattern (one u16 index
  register), `Reg::Scatter<T, uint16_t>`;
- b8: as b16 without the shift (the byte offsets are the indices) under `UpdateMask<uint16_t>(count)`, the source
  bytes spread to the even bytes by `Interleave(srcReg, tmpReg, srcReg, tmpReg)`;
- b64: as u32 words: per 32 elements `ShiftRights` by 3, `Muls` 2 and `Adds` 1 (the two words' indices),
  `Interleave` into 64 u32 indices, `Reg::Scatter<uint32_t, uint32_t>` under `UpdateMask<uint32_t>(2 * count)`.

The mask/repeat forms (`ScatterImplB16/B32/B64<T, isNormalMode, isMaskBitMode>`) do the same per repeat (256 bytes
of offsets each) with the source register `srcRepStride` DataBlocks on, under the bit mask (`SetVectorMask`, then
`MoveMask`, `MaskPack`, `MaskUnPack`), the continuous mask (`UpdateMask` once) or, in counter mode, `UpdateMask`
each repeat over ceil(mask / lanes) repeats. Decisions: docs/decisions/datamove.md#memory-scatter.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import as_uint, check_repeat, check_tensors, run_lowering
from regsim._src.lowerings.dtype_sets import UINT32
from regsim._src.lowerings.fresh import FreshCall, arguments
from regsim._src.lowerings.spec import Call, Form
from regsim._src.lowerings.vector_mask import check_mask, counter_mode, set_vector_mask
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure, current_config
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import AlignmentError, DTypeError, ParameterError, UninitializedReadError, message

API: Final = "Scatter"
#: dstOffset ranges on Ascend 950 (the page): b8 [0, 2**16 - 1], b16 [0, 2**17 - 1], b32 and b64 the uint32_t range
MAX_OFFSET: Final = {1: 2**16 - 1, 2: 2**17 - 1, 4: 2**32 - 1, 8: 2**32 - 1}
_U32_PER_REG: Final = VL // 4  #: indexRepElems / srcRepElems: 64
_BLOCK: Final = Reg.DataCopyMode.DATA_BLOCK_COPY
_POST: Final = Reg.PostLiteral.POST_MODE_UPDATE
_EVEN: Final = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.SAT, Reg.MaskMergeMode.ZEROING)  # castTraitEven
_ODD: Final = Reg.CastTrait(Reg.RegLayout.ONE, Reg.SatMode.SAT, Reg.MaskMergeMode.ZEROING)  # castTraitOdd


def _u16_index(offsets: UbPtr[dt.uint32], i: int, shift: int, index_mask: Any, select_mask: Any) -> Any:
    """The u16 index register of 128 elements from two u32 offset registers (`ScatterImplB16` / `ScatterImplB8`):
    `ShiftRights` (b16 only), the saturating `Cast`s into the even and odd u16 lanes, `DeInterleave`, `Select`."""
    index_reg = Reg.RegTensor(dt.uint32)
    index_reg_sec = Reg.RegTensor(dt.uint32)
    lower_u16 = Reg.RegTensor(dt.uint16)
    high_u16 = Reg.RegTensor(dt.uint16)
    index_u16 = Reg.RegTensor(dt.uint16)
    Reg.LoadAlign(index_reg, offsets + 2 * i * _U32_PER_REG)  # LoadAlign(indexReg, dstOffsetLocal + 2 * i * 64);
    Reg.LoadAlign(index_reg_sec, offsets + (2 * i + 1) * _U32_PER_REG)
    if shift:
        Reg.ShiftRights(index_reg, index_reg, shift, index_mask)  # ShiftRights(indexReg, indexReg, b16ShiftVal, ...);
        Reg.ShiftRights(index_reg_sec, index_reg_sec, shift, index_mask)
    Reg.Cast(lower_u16, index_reg, index_mask, trait=_EVEN)  # Cast<uint16_t, uint32_t, castTraitEven>(...);
    Reg.Cast(high_u16, index_reg_sec, index_mask, trait=_ODD)  # Cast<uint16_t, uint32_t, castTraitOdd>(...);
    Reg.DeInterleave(lower_u16, high_u16, lower_u16, high_u16)
    Reg.Select(index_u16, lower_u16, high_u16, select_mask)
    return index_u16


@simd_vf
def scatter_b8_vf(dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, count: int) -> None:
    """`ScatterImplB8` (first n): 128 elements per iteration, the source bytes on the even bytes of a register."""
    T = dst.dtype
    tmp_reg = Reg.RegTensor(T)
    src_reg = Reg.RegTensor(T)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint32)  # CreateMask<uint32_t>();
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)  # CreateMask<uint16_t, MaskPattern::H>();
    for i in range(-(-count // (VL // 2))):  # CeilDivision(count, srcRep128)
        preg = Reg.UpdateMask(dt.uint16, sreg)  # preg = UpdateMask<uint16_t>(sregPlt);
        index_u16 = _u16_index(offsets, i, 0, index_mask, select_mask)
        Reg.LoadAlign(src_reg, src + i * (VL // 2))  # LoadAlign<T>(srcReg, srcLocal + i * srcRep128);
        Reg.Interleave(src_reg, tmp_reg, src_reg, tmp_reg)  # Interleave(srcReg, tmpReg, srcReg, tmpReg);
        Reg.Scatter(dst + base, src_reg, index_u16, preg)  # Scatter<T, uint16_t>(dstLocal + dstBaseOffset, ...);


@simd_vf
def scatter_b16_vf(dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, count: int) -> None:
    """`ScatterImplB16` (first n): 128 elements per iteration."""
    T = dst.dtype
    src_reg = Reg.RegTensor(T)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint8)  # CreateMask<uint8_t>();
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)  # CreateMask<uint16_t, MaskPattern::H>();
    for i in range(-(-count // (VL // 2))):
        preg = Reg.UpdateMask(T, sreg)  # preg = UpdateMask<T>(sregPlt);
        index_u16 = _u16_index(offsets, i, 1, index_mask, select_mask)
        Reg.LoadAlign(src_reg, src + i * (VL // 2))
        Reg.Scatter(dst + base, src_reg, index_u16, preg)  # Scatter<T, uint16_t>(dstLocal + dstBaseOffset, ...);


@simd_vf
def scatter_b32_vf(dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, count: int) -> None:
    """`ScatterImplB32` (first n): 64 elements per iteration."""
    T = dst.dtype
    index_reg = Reg.RegTensor(dt.uint32)
    src_reg = Reg.RegTensor(T)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint8)
    for i in range(-(-count // _U32_PER_REG)):
        preg = Reg.UpdateMask(T, sreg)
        Reg.LoadAlign(index_reg, offsets + i * _U32_PER_REG)
        Reg.ShiftRights(index_reg, index_reg, 2, index_mask)  # bytes -> b32 element index
        Reg.LoadAlign(src_reg, src + i * _U32_PER_REG)
        Reg.Scatter(dst + base, src_reg, index_reg, preg)  # Scatter<T, uint32_t>(dstLocal + dstBaseOffset, ...);


@simd_vf
def scatter_b64_vf(dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, count: int) -> None:
    """`ScatterImplB64` (first n): 32 elements (64 u32 words) per iteration; `base` counts u32 words."""
    index_reg = Reg.RegTensor(dt.uint32)
    odd_index_reg = Reg.RegTensor(dt.uint32)
    tmp_reg = Reg.RegTensor(dt.uint32)
    index_u32_reg = Reg.RegTensor(dt.uint32)
    src_reg = Reg.RegTensor(dt.uint32)
    sreg = Ref(count * 2)  # sregPlt = count * 2;
    index_mask = Reg.CreateMask(dt.uint32, pattern=Reg.MaskPattern.H)  # CreateMask<uint32_t, MaskPattern::H>();
    words_dst, words_src = dst.reinterpret(dt.uint32), src.reinterpret(dt.uint32)
    for i in range(-(-count // (VL // 8))):  # CeilDivision(count, b64RepElems)
        preg = Reg.UpdateMask(dt.uint32, sreg)
        Reg.LoadAlign(index_reg, offsets + i * (VL // 8))  # LoadAlign(indexReg, dstOffsetLocal + i * b64RepElems);
        Reg.ShiftRights(index_reg, index_reg, 3, index_mask)  # bytes -> b64 element index
        Reg.Muls(index_reg, index_reg, 2, index_mask)  # the index of the lower word
        Reg.Adds(odd_index_reg, index_reg, 1, index_mask)  # and of the higher one
        Reg.Interleave(index_u32_reg, tmp_reg, index_reg, odd_index_reg)
        Reg.LoadAlign(src_reg, words_src + i * _U32_PER_REG)  # LoadAlign(srcReg, (uint32_t*)srcLocal + i * 64);
        Reg.Scatter(words_dst + base, src_reg, index_u32_reg, preg)  # Scatter<uint32_t, uint32_t>(...);


_VF: Final = {1: scatter_b8_vf, 2: scatter_b16_vf, 4: scatter_b32_vf, 8: scatter_b64_vf}


# --- the mask/repeat interfaces (b16/b32/b64): `ScatterImplB16/B32/B64<T, isNormalMode, isMaskBitMode>` -----------------
def _repeat_mask(T: type[dt.DType], source: str, sreg: Ref[int], words: bool) -> Any:
    """The source predicate: "bits" (normal mode, bit mask) `MoveMask<T>()`, `MaskPack`, `MaskUnPack` (b64: of
    `MoveMask<uint32_t>()` and a second `MaskUnPack`); else `UpdateMask<T>(maskV)` (b64: `UpdateMask<uint32_t>`)."""
    if source != "bits":
        return Reg.UpdateMask(dt.uint32 if words else T, sreg)  # srcMask = UpdateMask<T>(maskV);
    mask = Reg.MoveMask(dt.uint32 if words else T)  # type: ignore[type-var]  # srcMask = MoveMask<T>();
    Reg.Pack(mask, mask)  # MaskPack(srcMask, srcMask);
    Reg.UnPack(mask, mask)  # MaskUnPack(srcMask, srcMask);
    if words:
        Reg.UnPack(mask, mask)  # (b64) MaskUnPack(srcMask, srcMask);
    return mask


@simd_vf
def scatter_b16_repeat_vf(
    dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, source: str, mask_v: int, repeat_time: int, rep: int
) -> None:
    """`ScatterImplB16<T, isNormalMode, isMaskBitMode>`: per repeat 128 offsets (two registers) into one u16 index
    register, the source register `srcRepStride` DataBlocks after the previous one. `source`: "bits", "continuous"
    (normal mode: the predicate once) or "counter" (`UpdateMask<T>(maskV)` every repeat)."""
    T = dst.dtype
    src_reg = Reg.RegTensor(T)
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)
    index_mask = Reg.CreateMask(dt.uint8)  # CreateMask<uint8_t>();
    sreg = Ref(mask_v)  # maskV = static_cast<uint32_t>(mask);
    src_mask = Reg.MaskReg()
    if source != "counter":
        src_mask = _repeat_mask(T, source, sreg, False)
    for i in range(repeat_time):
        if source == "counter":
            src_mask = Reg.UpdateMask(T, sreg)  # b16SrcMask = UpdateMask<T>(maskV);
        index_u16 = _u16_index(offsets, i, 1, index_mask, select_mask)
        Reg.LoadAlign(src_reg, src + i * rep * (ONE_BLOCK_SIZE // 2))  # srcLocal + i * srcRepStride * b16BlkElems
        Reg.Scatter(dst + base, src_reg, index_u16, src_mask)


@simd_vf
def scatter_b32_repeat_vf(
    dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, source: str, mask_v: int, repeat_time: int, rep: int
) -> None:
    """`ScatterImplB32<T, isNormalMode, isMaskBitMode>`: per repeat 64 offsets."""
    T = dst.dtype
    index_reg = Reg.RegTensor(dt.uint32)
    src_reg = Reg.RegTensor(T)
    index_mask = Reg.CreateMask(dt.uint8)
    sreg = Ref(mask_v)
    src_mask = Reg.MaskReg()
    if source != "counter":
        src_mask = _repeat_mask(T, source, sreg, False)
    for i in range(repeat_time):
        if source == "counter":
            src_mask = Reg.UpdateMask(T, sreg)
        Reg.LoadAlign(index_reg, offsets + i * _U32_PER_REG)
        Reg.ShiftRights(index_reg, index_reg, 2, index_mask)
        Reg.LoadAlign(src_reg, src + i * rep * (ONE_BLOCK_SIZE // 4))  # srcLocal + i * srcRepStride * b32BlkElems
        Reg.Scatter(dst + base, src_reg, index_reg, src_mask)


@simd_vf
def scatter_b64_repeat_vf(
    dst: UbPtr[Any], src: UbPtr[Any], offsets: UbPtr[dt.uint32], base: int, source: str, mask_v: int, repeat_time: int, rep: int
) -> None:
    """`ScatterImplB64<T, isNormalMode, isMaskBitMode>`: per repeat 32 offsets, u32 words (`mask_v` = 2 * mask,
    `evenMask`; `base` in words)."""
    index_reg = Reg.RegTensor(dt.uint32)
    odd_index_reg = Reg.RegTensor(dt.uint32)
    tmp_reg = Reg.RegTensor(dt.uint32)
    index_u32_reg = Reg.RegTensor(dt.uint32)
    src_reg = Reg.RegTensor(dt.uint32)
    index_mask = Reg.CreateMask(dt.uint32, pattern=Reg.MaskPattern.H)
    sreg = Ref(mask_v)  # evenMask = static_cast<uint32_t>(mask * 2);
    src_mask = Reg.MaskReg()
    if source != "counter":
        src_mask = _repeat_mask(dst.dtype, source, sreg, True)
    words_dst, words_src = dst.reinterpret(dt.uint32), src.reinterpret(dt.uint32)
    for i in range(repeat_time):
        if source == "counter":
            src_mask = Reg.UpdateMask(dt.uint32, sreg)  # srcMask = UpdateMask<uint32_t>(evenMask);
        Reg.LoadAlign(index_reg, offsets + i * (VL // 8))
        Reg.ShiftRights(index_reg, index_reg, 3, index_mask)
        Reg.Muls(index_reg, index_reg, 2, index_mask)
        Reg.Adds(odd_index_reg, index_reg, 1, index_mask)
        Reg.Interleave(index_u32_reg, tmp_reg, index_reg, odd_index_reg)
        Reg.LoadAlign(src_reg, words_src + i * rep * (ONE_BLOCK_SIZE // 4))  # (uint32_t*)srcLocal + i * srcRepStride * 8
        Reg.Scatter(words_dst + base, src_reg, index_u32_reg, src_mask)


_REPEAT_VF: Final = {2: scatter_b16_repeat_vf, 4: scatter_b32_repeat_vf, 8: scatter_b64_repeat_vf}


def _check_written(name: str, t: LocalTensor[Any], idx: np.ndarray) -> None:
    w = t.dtype.itemsize
    valid = t.ub.storage.flags(t.addr, t.addr + t.size * w)  # (None: all written)
    if valid is None or not current_config().check_uninitialized or idx.size == 0:
        return
    rows: np.ndarray = np.asarray(valid.reshape(t.size, w).all(axis=1))
    missing = idx[~rows[idx]]
    if missing.size:
        raise UninitializedReadError(f"{API}: {name} element {int(missing[0])} is read but was never written")


def _check_offsets(dtype: type[dt.DType], dst: LocalTensor[Any], base: int, offsets: np.ndarray, used: np.ndarray) -> None:
    """The page's dstOffset constraints: multiples of the element width, within the 950 range, no value twice,
    the element written inside dst."""
    w = dtype.itemsize
    bad = offsets[(offsets % w != 0) | (offsets > MAX_OFFSET[w])]
    if bad.size:
        accepted = f"byte offsets that are multiples of {w} in [0, {MAX_OFFSET[w]}] for {dtype.name}"
        raise ParameterError(message(API, "dst_offset", f"[..., {int(bad[0])}, ...]", accepted))
    values, counts = np.unique(offsets, return_counts=True)
    if (counts > 1).any():
        dup = int(values[counts > 1][0])
        where = used[offsets == dup].tolist()  # (dst_offset's element indices)
        accepted = "distinct offsets (the page: 偏移地址不能有相同值)"
        raise ParameterError(message(API, "dst_offset", f"{dup} at elements {where}", accepted))
    end = base + offsets + w
    over = offsets[end > dst.nbytes]
    if over.size:  # (Reg::Scatter's writes stay inside the tensor its base address comes from)
        accepted = f"offsets whose element ends inside dst ({dst.nbytes} bytes from dst's start, dstBaseAddr {base})"
        raise ParameterError(message(API, "dst_offset", f"[..., {int(over[0])}, ...]", accepted))


def _check_overlap(dst: LocalTensor[Any], base: int, offsets: np.ndarray, reads: list[tuple[str, int, int]]) -> None:
    """No scattered element may land in the bytes the call reads (the general address-overlap rule: the sources
    and the destination must not overlap)."""
    w = dst.dtype.itemsize
    starts = dst.addr + base + offsets
    for name, lo, hi in reads:
        hit = np.flatnonzero((starts < hi) & (starts + w > lo))
        if hit.size:
            k = int(hit[0])
            accepted = f"scattered elements outside {name} (UB bytes [{lo}, {hi}), which the call reads)"
            given = f"{int(offsets[k])} at element {k} (UB byte {int(starts[k])})"
            raise ParameterError(message(API, "dst_offset", given, accepted))


def scatter(c: Call) -> None:
    """`AscendC::Scatter(dst, src, dstOffset, dstBaseAddr, count)`: for i < count the element src[i] is written at
    byte `dstBaseAddr + dstOffset[i]` from dst's start (inside dst). All eleven 950 types. And
    `Scatter(dst, src, dstOffset, dstBaseAddr, mask, repeatTime, srcRepStride)` (b16/b32/b64; `mask` an int or
    `[mask0, mask1]`): element k of repeat r, when the mask selects it, is src element
    r * srcRepStride * (32 / sizeof(T)) + k, written at byte dstBaseAddr + dstOffset[r * 256 / sizeof(T) + k]."""
    api, dst, src, dst_offset = c.api, c["dst"], c["src"], c["dst_offset"]
    dtype = check_tensors(api, c.iface.dtypes, ("dst", "src"), (dst, src))
    if dst_offset.dtype is not dt.uint32:
        raise DTypeError(message(api, "dst_offset", repr(dst_offset), "a LocalTensor[uint32] of byte offsets"))
    check_tensors(api, UINT32, ("dst_offset",), (dst_offset,))
    if dst_offset.ub is not dst.ub:
        raise ParameterError(message(api, "dst_offset", repr(dst_offset), "a LocalTensor in the same UnifiedBuffer as dst"))
    base = as_uint(api, "dst_base_addr", c["dst_base_addr"], 32)
    w = dtype.itemsize
    if base % w:
        raise ParameterError(message(API, "dst_base_addr", base, f"a multiple of {w} bytes for {dtype.name}"))
    if base % ONE_BLOCK_SIZE:  # the lowering's Reg::Scatter takes dst + dstBaseAddr as its 32-byte aligned base
        accepted = "a multiple of 32 bytes (it becomes the base address of Reg::Scatter)"
        raise AlignmentError(message(API, "dst_base_addr", base, accepted))
    if c.form is Form.COUNT:  # tensor前n个数据计算
        n = int(c["count"])
        limit = min(src.size, dst_offset.size)
        if not 0 <= n <= limit:
            smallest = "src" if src.size == limit else "dst_offset"
            raise ParameterError(message(API, "count", n, f"an int in [0, {limit}] (the size of {smallest})"))
        _scatter_checked(dst, src, dst_offset, base, np.arange(n), np.arange(n))
        # The library loads whole registers of offsets and source elements, past the n the call uses: those lanes
        # are never scattered, so their bytes may be unwritten; the ones used were checked above.
        with configure(check_uninitialized=False):
            # dstBaseOffset = dstBaseAddr / sizeof(T) (b64: / sizeof(uint32_t), the lowering scatters u32 words)
            run_lowering(api, _VF[w], *_ptrs(dst, src, dst_offset), base // min(w, 4), n)
        return
    bit_mode, mask_count, bits = check_mask(api, dtype, c["mask"], True)
    r = check_repeat(api, c["repeat_time"])
    rep = as_uint(api, "src_rep_stride", c["src_rep_stride"], 8)
    lanes = VL // w
    if counter_mode():  # newRepeatTimes = VecMicroGetRepeatTimes<T, false>(mask, repeatTime): ceil(mask / lanes)
        r = -(-mask_count // lanes)
        if r > 255:
            accepted = f"at most {255 * lanes} for {dtype.name} in counter mode (uint8_t newRepeatTimes = ceil(mask / {lanes}))"
            raise ParameterError(message(API, "mask", mask_count, accepted))
        active = np.arange(r * lanes) < mask_count
        source = "counter"
    else:
        if bits is not None:
            sel = np.array([(bits[0] << 64 | bits[1]) >> k & 1 for k in range(lanes)], np.bool_)
        else:
            sel = np.arange(lanes) < mask_count
        active = np.tile(sel, r)
        source = "bits" if bit_mode else "continuous"
    used = np.flatnonzero(active)  # offset indices r * lanes + k
    src_idx = used // lanes * rep * (ONE_BLOCK_SIZE // w) + used % lanes
    _scatter_checked(dst, src, dst_offset, base, used, src_idx)
    if bits is not None and source == "bits":
        set_vector_mask(*bits)  # SetVectorMask<T>(mask[1], mask[0]) (b64: SetVectorMask<uint32_t>)
    # maskV = static_cast<uint32_t>(mask) (b64: evenMask = static_cast<uint32_t>(mask * 2))
    mask_v = (mask_count * (2 if w == 8 else 1)) & 0xFFFFFFFF
    with configure(check_uninitialized=False):
        run_lowering(api, _REPEAT_VF[w], *_ptrs(dst, src, dst_offset), base // min(w, 4), source, mask_v, r, rep)


def _ptrs(dst: LocalTensor[Any], src: LocalTensor[Any], dst_offset: LocalTensor[Any]) -> tuple[Any, ...]:
    return dst.GetPhyAddr(), src.GetPhyAddr(), dst_offset.GetPhyAddr()


def _scatter_checked(
    dst: LocalTensor[Any], src: LocalTensor[Any], dst_offset: LocalTensor[Any], base: int, used: np.ndarray, src_idx: np.ndarray
) -> None:
    """The checks on the elements the call uses: dst_offset[used] scatter src[src_idx] (written, in the tensors,
    the page's offset rules, no write onto what the call reads)."""
    if used.size and int(used[-1]) >= dst_offset.size:
        accepted = f"a dst_offset of at least {int(used[-1]) + 1} elements (the offsets of the active elements)"
        raise ParameterError(message(API, "dst_offset", f"a LocalTensor of {dst_offset.size} elements", accepted))
    if src_idx.size and int(src_idx.max()) >= src.size:
        accepted = f"a src of at least {int(src_idx.max()) + 1} elements (the active elements the repeats read)"
        raise ParameterError(message(API, "src", f"a LocalTensor of {src.size} elements", accepted))
    _check_written("dst_offset", dst_offset, used)
    _check_written("src", src, src_idx)
    offsets = dst_offset.numpy()[used].astype(np.int64)
    _check_offsets(dst.dtype, dst, base, offsets, used)
    w = dst.dtype.itemsize
    reads = [("src", src.addr + int(k) * w, src.addr + (int(k) + 1) * w) for k in src_idx]
    reads += [("dst_offset", dst_offset.addr + 4 * int(k), dst_offset.addr + 4 * int(k) + 4) for k in used]
    _check_overlap(dst, base, offsets, _merge(reads))


def _merge(reads: list[tuple[str, int, int]]) -> list[tuple[str, int, int]]:
    """Adjacent byte ranges of one operand joined (fewer ranges to test)."""
    out: list[tuple[str, int, int]] = []
    for name, lo, hi in reads:
        if out and out[-1][0] == name and out[-1][2] == lo:
            out[-1] = (name, out[-1][1], hi)
        else:
            out.append((name, lo, hi))
    return out


def explore(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Scatter(half, count=128)"`: the call on fresh tensors (dst_offset a random permutation of
    dst's element offsets)."""

    if set(kw) != {"count"}:
        raise arguments(kw, "count=N")
    n = int(kw["count"])
    per = max(-(-n * dtype.itemsize // VL), 1) * VL + VL
    ub = UnifiedBuffer(3 * per + 2 * VL * 4)
    dst, src = ub.alloc(dtype, per // dtype.itemsize), ub.alloc(dtype, per // dtype.itemsize)
    offsets = ub.alloc(dt.uint32, -(-max(n, 1) // 128) * 128 + 64)
    rng = np.random.default_rng(0)
    ub.storage.write(src.addr, rng.integers(0, 256, src.nbytes, dtype=np.uint8))
    perm = rng.permutation(dst.size)[: offsets.size] * dtype.itemsize
    offsets.set(np.resize(perm, offsets.size).astype(np.uint32))
    return (dst, src, offsets, 0, n), {}
