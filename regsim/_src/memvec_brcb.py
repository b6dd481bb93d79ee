"""The memory-level `Brcb` (the Brcb page of "Memory矢量计算"; kernel_operator_vec_brcb_impl.h for dav_3510): each
repeat takes the next 8 elements of src and fills one 32-byte DataBlock of dst with each, the blocks `dstBlkStride`
DataBlocks apart and the repeats `dstRepStride` apart (`BrcbRepeatParams`). The library's three VFs, by element width:
`BrcbCommonImpl` (b16, b32: an element-to-block load and a DATA_BLOCK_COPY store), `BrcbB8Impl` and `BrcbB64Impl`
(a broadcast load per block)."""

from __future__ import annotations

from typing import Any, Final

import attrs

from regsim._src import dtypes as dt
from regsim._src import reg as Reg
from regsim._src.binding import host_api
from regsim._src.context import Ref, simd_vf
from regsim._src.memory import ONE_BLOCK_SIZE, LocalTensor, UbPtr
from regsim._src.memvec import SPEC_BUILDERS, _check_repeat, _check_tensors, _host, _run_lowering, _stride
from regsim.errors import ParameterError, message

BRCB_BROADCAST_NUMBER: Final = 8  #: elements of src per repeat, one DataBlock of dst each
_TYPES: Final = frozenset(
    {dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64}
)


@attrs.frozen
class BrcbRepeatParams:
    """`BrcbRepeatParams(dstBlkStride, dstRepStride)` (the C++ constructor's order; defaults 1 and 8; uint16_t each): the
    DataBlock stride between a repeat's 8 destination blocks and between repeats. The struct's other fields (source
    strides, modes) are not read by the 950 Brcb."""

    dstBlkStride: int = _stride(1, 16)  # noqa: N815 (C++ field name)
    dstRepStride: int = _stride(8, 16)  # noqa: N815


@simd_vf
def brcb_common_vf(dst: UbPtr[Any], src: UbPtr[Any], repeat_time: int, dst_rep_stride: int, dst_blk_stride: int) -> None:
    """`BrcbCommonImpl` (b16, b32): per repeat `LoadAlign<T, DIST_E2B_B16/B32>` of 8 elements (each to a block) and a
    `DATA_BLOCK_COPY` store of the 8 blocks under a full mask."""
    T = dst.dtype
    src_reg = Reg.RegTensor(T)
    one_blk = ONE_BLOCK_SIZE // T.itemsize  # oneBlkSize
    full_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)  # CreateMask<T, MaskPattern::ALL>();
    dist = Reg.LoadDist.DIST_E2B_B16 if T.itemsize == 2 else Reg.LoadDist.DIST_E2B_B32
    for i in range(repeat_time):
        Reg.LoadAlign(src_reg, src + i * BRCB_BROADCAST_NUMBER, dist=dist)  # LoadAlign<T, DIST_E2B_B16/B32>(...);
        Reg.StoreAlign(  # StoreAlign<T, DATA_BLOCK_COPY>(dst + i * dstRepStride * oneBlkSize, srcReg, dstBlkStride, fullMask);
            dst + i * dst_rep_stride * one_blk, src_reg, dst_blk_stride, full_mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY
        )


@simd_vf
def brcb_b8_vf(dst: UbPtr[Any], src: UbPtr[Any], repeat_time: int, dst_rep_stride: int, dst_blk_stride: int) -> None:
    """`BrcbB8Impl`: per element a `LoadAlign<T, DIST_BRC_B8>`, `Duplicate` of lane 0 into the first 32 lanes, a store of
    the 32 bytes at its block."""
    T = dst.dtype
    one_blk = ONE_BLOCK_SIZE // T.itemsize  # oneBlkSize
    src_reg = Reg.RegTensor(T)
    preg = Reg.UpdateMask(T, Ref(one_blk))  # MaskReg preg = UpdateMask<T>(sreg1);  (sreg1 = oneBlkSize)
    for i in range(repeat_time):
        sreg0 = dst_rep_stride * i * one_blk
        for j in range(BRCB_BROADCAST_NUMBER):
            dst_rep_offset = sreg0 + dst_blk_stride * j * one_blk
            Reg.LoadAlign(src_reg, src + i * BRCB_BROADCAST_NUMBER + j, dist=Reg.LoadDist.DIST_BRC_B8)
            Reg.Duplicate(src_reg, src_reg, preg)  # Reg::Duplicate(srcReg, srcReg, preg);
            Reg.StoreAlign(dst + dst_rep_offset, src_reg, preg)  # Reg::StoreAlign(dst + dstRepOffset, srcReg, preg);


@simd_vf
def brcb_b64_vf(dst: UbPtr[Any], src: UbPtr[Any], repeat_time: int, dst_rep_stride: int, dst_blk_stride: int) -> None:
    """`BrcbB64Impl`: per element its two 32-bit words broadcast (`LoadAlign<uint32_t, DIST_BRC_B32>` each, `Duplicate`),
    `Interleave`d back into 64-bit lanes, and the first 8 words (one block) stored."""
    u32 = dt.uint32
    one_blk_float = ONE_BLOCK_SIZE // 4  # ONE_BLK_FLOAT_NUM
    src_words, dst_words = src.reinterpret(u32), dst.reinterpret(u32)
    src_reg_low, src_reg_high, dst_reg, tmp_reg = (Reg.RegTensor(u32) for _ in range(4))
    preg = Reg.UpdateMask(u32, Ref(one_blk_float))  # MaskReg preg = UpdateMask<uint32_t>(sreg1);
    for i in range(repeat_time):
        sreg0 = dst_rep_stride * i * one_blk_float
        for j in range(BRCB_BROADCAST_NUMBER):
            dst_rep_offset = sreg0 + dst_blk_stride * j * one_blk_float
            word = (i * BRCB_BROADCAST_NUMBER + j) * 2
            Reg.LoadAlign(src_reg_low, src_words + word, dist=Reg.LoadDist.DIST_BRC_B32)
            Reg.LoadAlign(src_reg_high, src_words + word + 1, dist=Reg.LoadDist.DIST_BRC_B32)
            Reg.Duplicate(src_reg_low, src_reg_low, preg)  # Reg::Duplicate(srcRegLow, srcRegLow, preg);
            Reg.Duplicate(src_reg_high, src_reg_high, preg)  # Reg::Duplicate(srcRegHigh, srcRegHigh, preg);
            Reg.Interleave(dst_reg, tmp_reg, src_reg_low, src_reg_high)  # Reg::Interleave(dstReg, tmpReg, low, high);
            Reg.StoreAlign(dst_words + dst_rep_offset, dst_reg, preg)  # StoreAlign((uint32_t*)dst + dstRepOffset, ...);


@host_api("Brcb")
def Brcb(dst: LocalTensor[Any], src: LocalTensor[Any], repeat_time: int, repeat_params: BrcbRepeatParams) -> None:
    """`AscendC::Brcb(dst, src, repeatTime, repeatParams)`: for repeat i and j < 8, src[8 i + j] fills the DataBlock of dst
    starting `i * dstRepStride + j * dstBlkStride` DataBlocks from dst's start."""
    _host("Brcb")
    names, ts = ("dst", "src"), (dst, src)
    dtype = _check_tensors("Brcb", _TYPES, names, ts)
    r = _check_repeat("Brcb", repeat_time)
    if not isinstance(repeat_params, BrcbRepeatParams):
        raise ParameterError(message("Brcb", "repeat_params", repr(repeat_params), "a BrcbRepeatParams"))
    if repeat_params.dstBlkStride == 0:  # the page: "dstBlkStride不支持设置为0"
        raise ParameterError(message("Brcb", "repeat_params.dstBlkStride", 0, "a stride in [1, 65535] (0 is not supported)"))
    if src.size < BRCB_BROADCAST_NUMBER * r:  # the page: "src的元素个数不小于8 * repeatTime"
        accepted = f"a src of at least 8 * repeat_time = {BRCB_BROADCAST_NUMBER * r} elements"
        raise ParameterError(message("Brcb", "src", f"a LocalTensor of {src.size} elements", accepted))
    if src.addr < dst.addr + dst.nbytes and dst.addr < src.addr + src.nbytes:  # "不支持源操作数与目的操作数使用同一块内存地址"
        raise ParameterError(message("Brcb", "src", repr(src), "a src outside dst (they must not overlap)"))
    vf = brcb_b8_vf if dtype.itemsize == 1 else brcb_b64_vf if dtype.itemsize == 8 else brcb_common_vf
    p = repeat_params
    _run_lowering("Brcb", ts, vf, dst.GetPhyAddr(), src.GetPhyAddr(), r, p.dstRepStride, p.dstBlkStride)


def lower_fresh(dtype: type[dt.DType], kw: dict[str, Any]) -> Any:
    """`regsim lower "Brcb(half, repeat_time=2, repeat_params=(1, 8))"`: the call on fresh tensors of random data."""
    import numpy as np

    from regsim._src.memory import UnifiedBuffer
    from regsim._src.memvec import lower

    if not {"repeat_time"} <= set(kw) <= {"repeat_time", "repeat_params"}:
        raise ParameterError(
            message("lower", "arguments", sorted(kw), "repeat_time=R [, repeat_params=(dstBlkStride, dstRepStride)]")
        )
    params = BrcbRepeatParams(*kw.get("repeat_params", ()))
    r = int(kw["repeat_time"])
    blocks = max(r - 1, 0) * params.dstRepStride + 7 * params.dstBlkStride + 1
    dst_n = blocks * ONE_BLOCK_SIZE // dtype.itemsize
    src_n = max(BRCB_BROADCAST_NUMBER * r, 1)
    ub = UnifiedBuffer(-(-(dst_n + src_n) * dtype.itemsize // 256) * 256 + 512)
    dst, src = ub.alloc(dtype, dst_n), ub.alloc(dtype, src_n)
    rng = np.random.default_rng(0)
    for t in (dst, src):
        ub.storage.write(t.addr, rng.integers(0, 256, t.nbytes, dtype=np.uint8))
    return lower(Brcb, dst, src, r, params)


SPEC_BUILDERS["Brcb"] = lower_fresh
