"""The memory-level fill APIs (kernel_operator_vec_brcb_impl.h, kernel_operator_vec_createvecindex_impl.h,
kernel_operator_vec_duplicate_impl.h for dav_3510):

- `Brcb` (the Brcb page of "Memory矢量计算"): each repeat takes the next 8 elements of src and fills one 32-byte
  DataBlock of dst with each, the blocks `dstBlkStride` DataBlocks apart and the repeats `dstRepStride` apart
  (`BrcbRepeatParams`). The library's three VFs, by element width: `BrcbCommonImpl` (b16, b32: an element-to-block load
  and a DATA_BLOCK_COPY store), `BrcbB8Impl` and `BrcbB64Impl` (a broadcast load per block).
- `CreateVecIndex` (the CreateVecIndex page): dst = firstValue, firstValue + 1, ... — `Reg::Arange`, then per register
  (repeat) a store and `Adds` of the lanes per register (int64: an `Arange` per register).
- `Duplicate` (the Duplicate page): `DuplicateFromScalarImpl` / `DuplicateFromTensorImpl` / `VecDupLevel0VFImpl`: one
  `Reg::Duplicate` under a full mask, then stores.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import as_uint, check_count, check_repeat, check_tensors, run_lowering
from regsim._src.lowerings.fresh import FreshCall, arguments, fresh, mask_arg
from regsim._src.lowerings.skeletons import store_blocks, trait_for, vec_micro_mask
from regsim._src.lowerings.spec import FROM_TENSOR, Call, Form
from regsim._src.lowerings.structs import BrcbRepeatParams
from regsim._src.lowerings.vector_mask import repeat_plan
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure, current_config
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import ParameterError, UninitializedReadError, message

BRCB_BROADCAST_NUMBER: Final = 8  #: elements of src per repeat, one DataBlock of dst each


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


def brcb(c: Call) -> None:
    """`AscendC::Brcb(dst, src, repeatTime, repeatParams)`: for repeat i and j < 8, src[8 i + j] fills the DataBlock of dst
    starting `i * dstRepStride + j * dstBlkStride` DataBlocks from dst's start."""
    api, dst, src, p = c.api, c["dst"], c["src"], c["repeat_params"]
    names, ts = ("dst", "src"), (dst, src)
    dtype = check_tensors(api, c.iface.dtypes, names, ts)
    r = check_repeat(api, c["repeat_time"])
    if p.dstBlkStride == 0:  # the page: "dstBlkStride不支持设置为0"
        raise ParameterError(message(api, "repeat_params.dstBlkStride", 0, "a stride in [1, 65535] (0 is not supported)"))
    if src.size < BRCB_BROADCAST_NUMBER * r:  # the page: "src的元素个数不小于8 * repeatTime"
        accepted = f"a src of at least 8 * repeat_time = {BRCB_BROADCAST_NUMBER * r} elements"
        raise ParameterError(message(api, "src", f"a LocalTensor of {src.size} elements", accepted))
    if src.addr < dst.addr + dst.nbytes and dst.addr < src.addr + src.nbytes:  # "不支持源操作数与目的操作数使用同一块内存地址"
        raise ParameterError(message(api, "src", repr(src), "a src outside dst (they must not overlap)"))
    vf = brcb_b8_vf if dtype.itemsize == 1 else brcb_b64_vf if dtype.itemsize == 8 else brcb_common_vf
    run_lowering(api, vf, dst.GetPhyAddr(), src.GetPhyAddr(), r, p.dstRepStride, p.dstBlkStride)


def explore_brcb(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Brcb(half, repeat_time=2, repeat_params=(1, 8))"`: the call on fresh tensors of random data."""
    if not {"repeat_time"} <= set(kw) <= {"repeat_time", "repeat_params"}:
        raise arguments(kw, "repeat_time=R [, repeat_params=(dstBlkStride, dstRepStride)]")
    params = BrcbRepeatParams(*kw.get("repeat_params", ()))
    r = int(kw["repeat_time"])
    blocks = max(r - 1, 0) * params.dstRepStride + 7 * params.dstBlkStride + 1
    dst, src = fresh([(dtype, blocks * ONE_BLOCK_SIZE // dtype.itemsize), (dtype, max(BRCB_BROADCAST_NUMBER * r, 1))])
    return (dst, src, r, params), {}


# --- CreateVecIndex ---------------------------------------------------------------------------------------------------------


def _as_element(T: type[dt.DType], value: int) -> Any:
    """A `uint32_t` converted to T as C++ does when the library passes it to `Adds<T>` (`sregLower`): integers wrap
    (256 → 0 for int8), floats are the value."""
    npd = np.dtype(T.np_dtype)
    if npd.kind == "f" or T is dt.bfloat16:
        return float(value)
    bits = 8 * T.itemsize
    v = value & (1 << bits) - 1
    return v - (1 << bits) if v >> (bits - 1) else v


@simd_vf
def create_vec_index_count_vf(dst: UbPtr[Any], first_value: Any, count: int) -> None:
    """`CreateVecIndexCalcVci2` (the first-n interface but int64): `Arange(vreg0, firstValue)`, then per register
    `UpdateMask`, `StoreAlign` and `Adds(vreg0, vreg0, sregLower)`."""
    T = dst.dtype
    vreg0 = Reg.RegTensor(T)
    sreg = Ref(count)
    sreg_lower = VL // T.itemsize  # GetVecLen() / sizeof(T)
    repeat_time = -(-count // sreg_lower)  # CeilDivision(calCount, sregLower)
    Reg.Arange(vreg0, first_value)  # Reg::Arange(vreg0, firstValue);
    step = _as_element(T, sreg_lower)
    for i in range(repeat_time):
        preg = Reg.UpdateMask(T, sreg)  # preg = UpdateMask<T>(sreg);
        Reg.StoreAlign(dst + i * sreg_lower, vreg0, preg)  # StoreAlign(dstLocalAddr + i * sregLower, vreg0, preg);
        Reg.Adds(vreg0, vreg0, step, preg)  # Reg::Adds(vreg0, vreg0, sregLower, preg);


@simd_vf
def create_vec_index_b64_vf(dst: UbPtr[Any], first_value: int, count: int) -> None:
    """`CreateVecIndexCalcVic` (int64, first-n): per RegTraitNumTwo register an `Arange` from firstValue + i * 64
    (int64 arithmetic) and a `StoreAlign`."""
    vreg0 = Reg.RegTensor(dt.int64, trait=Reg.RegTraitNumTwo)
    sreg = Ref(count)
    sreg_lower = VL // 4  # GetVecLen() / sizeof(float): 64 int64 per RegTraitNumTwo register
    repeat_time = -(-count // sreg_lower)
    for i in range(repeat_time):
        preg = Reg.UpdateMask(dt.int64, sreg, trait=Reg.RegTraitNumTwo)  # UpdateMask<int64_t, RegTraitNumTwo>(sreg);
        offset = _as_element(dt.int64, first_value + i * sreg_lower)  # static_cast<int64_t>(firstValue + i * sregLower)
        Reg.Arange(vreg0, offset)  # Reg::Arange(vreg0, offset);
        Reg.StoreAlign(dst + i * sreg_lower, vreg0, preg)


@simd_vf
def create_vec_index_repeat_vf(
    dst: UbPtr[Any],
    first_value: Any,
    mask_count: int,
    repeat_time: int,
    dst_blk_stride: int,
    dst_rep_stride: int,
    normal_mode: bool,
    spr_mask: bool,
) -> None:
    """`VecCreateVecIndexLevel0VFImpl`: `Arange(dstVreg, firstValue)` once, then per repeat a DATA_BLOCK_COPY store with
    the dst strides and `Adds(dstVreg, dstVreg, sreg)` (sreg: the lanes per register), the predicate as the other
    mask/repeat VFs make it."""
    T = dst.dtype
    sreg = VL // T.itemsize  # constexpr uint32_t sreg = GetVecLen() / sizeof(T);
    count, new_repeat_times, mask_reg = vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    e = ONE_BLOCK_SIZE // T.itemsize  # ElePerBlkT
    dst_vreg = Reg.RegTensor(T)
    Reg.Arange(dst_vreg, first_value)  # Reg::Arange(dstVreg, firstValue);
    step = _as_element(T, sreg)
    for index in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, count)
        Reg.StoreAlign(  # StoreAlign<T, DATA_BLOCK_COPY>(dst + index * dstRepStride * ElePerBlkT, dstVreg, ...);
            dst + index * dst_rep_stride * e, dst_vreg, dst_blk_stride, mask_reg, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY
        )
        Reg.Adds(dst_vreg, dst_vreg, step, mask_reg)  # Reg::Adds(dstVreg, dstVreg, sreg, maskReg);


def _check_first_value(dtype: type[dt.DType], first_value: object) -> Any:
    """firstValue of dst's type (the page: "firstValue需保证不超出dst中元素数据类型对应的大小范围")."""
    npd = np.dtype(dtype.np_dtype)
    if npd.kind in "iu":
        if type(first_value) is not int and not isinstance(first_value, np.integer):
            raise ParameterError(message("CreateVecIndex", "first_value", repr(first_value), f"an int of {dtype.name}"))
        info = np.iinfo(npd)
        if not info.min <= int(first_value) <= info.max:
            accepted = f"an int in [{info.min}, {info.max}] ({dtype.name})"
            raise ParameterError(message("CreateVecIndex", "first_value", int(first_value), accepted))
        return int(first_value)
    if isinstance(first_value, (bool, np.bool_)) or not isinstance(first_value, (int, float, np.integer, np.floating)):
        raise ParameterError(message("CreateVecIndex", "first_value", repr(first_value), f"a number ({dtype.name})"))
    return first_value


def create_vec_index(c: Call) -> None:
    """`AscendC::CreateVecIndex(dst, firstValue, count)` and `CreateVecIndex(dst, firstValue, mask, repeatTime,
    dstBlkStride, dstRepStride)` (mask continuous or a mask[2] bit mask; normal or counter mode): dst[i] = firstValue + i
    (in the mask/repeat interfaces: element k of repeat r is firstValue + r * lanes + k, at the repeat's DataBlock
    address)."""
    api, dst = c.api, c["dst"]
    dtype = check_tensors(api, c.iface.dtypes, ("dst",), (dst,))
    first = _check_first_value(dtype, c["first_value"])
    if c.form is Form.COUNT:
        n = check_count(api, c["count"], ("dst",), (dst,))
        vf = create_vec_index_b64_vf if dtype is dt.int64 else create_vec_index_count_vf
        run_lowering(api, vf, dst.GetPhyAddr(), first, n)
        return
    blk = as_uint(api, "dst_blk_stride", c["dst_blk_stride"], 16)
    rep = as_uint(api, "dst_rep_stride", c["dst_rep_stride"], 8)
    count, repeats, normal, spr = repeat_plan(api, dtype, c["mask"], c["repeat_time"], True)
    run_lowering(api, create_vec_index_repeat_vf, dst.GetPhyAddr(), first, count, repeats, blk, rep, normal, spr)


# --- Duplicate ---------------------------------------------------------------------------------------------------------------
@simd_vf
def duplicate_continuous_vf(dst: UbPtr[Any], value: Any, src: UbPtr[Any] | None, count: int) -> None:
    """`DuplicateFromScalarImpl` / `DuplicateFromTensorImpl`: one `Reg::Duplicate` under a full mask (of the
    scalar, or of element 0 of a register loaded from src), then `UpdateMask` + `StoreAlign` per register."""
    T = dst.dtype
    trait = trait_for(T)
    dst_reg = Reg.RegTensor(T, trait=trait)  # RegType dstReg;
    sreg = Ref(count)  # uint32_t sreg = calCount;
    repeat_stride = VL // T.itemsize * trait.REG_NUM
    repeat_time = -(-count // repeat_stride)
    mask_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL, trait=trait)  # CreateMask<T, ALL, trait>();
    if src is None:
        Reg.Duplicate(dst_reg, value, mask_full)  # Duplicate(dstReg, scalarValue, maskFull);
    else:
        src_reg = Reg.RegTensor(T, trait=trait)
        Reg.LoadAlign(src_reg, src)  # LoadAlign(srcReg, srcLocal);
        Reg.Duplicate(dst_reg, src_reg, mask_full)  # Duplicate(dstReg, srcReg, maskFull);
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T, trait>(sreg);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dstLocal + i * repeatStride, dstReg, mask);


@simd_vf
def duplicate_repeat_vf(
    dst: UbPtr[Any],
    value: Any,
    mask_count: int,
    repeat_time: int,
    dst_block_stride: int,
    dst_repeat_stride: int,
    normal_mode: bool,
    spr_mask: bool,
) -> None:
    """`VecDupLevel0VFImpl`: the scalar broadcast once under a full mask, then one DATA_BLOCK_COPY store per
    repeat with the predicate of `vec_binary_vf`."""
    T = dst.dtype
    count, new_repeat_times, mask_reg = vec_micro_mask(T, mask_count, repeat_time, normal_mode, spr_mask)
    mask_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL)
    dst_reg = Reg.RegTensor(T)
    e = ONE_BLOCK_SIZE // T.itemsize
    Reg.Duplicate(dst_reg, value, mask_full)  # Duplicate(dstVreg, scalarValue, maskFull);
    for i in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(T, count)
        store_blocks(dst + i * dst_repeat_stride * e, dst_reg, dst_block_stride, mask_reg)


def duplicate(c: Call) -> None:
    """`AscendC::Duplicate(dst, scalarValue, count)`, `Duplicate(dst, src, count)` (src's element 0; Ascend 950
    only) and `Duplicate(dst, scalarValue, mask, repeatTime, dstBlockStride, dstRepeatStride)`."""
    api, dst = c.api, c["dst"]
    if c.iface.variant == FROM_TENSOR:
        src = c["src"]
        dtype = check_tensors(api, c.iface.dtypes, ("dst", "src"), (dst, src))
        n = check_count(api, c["count"], ("dst",), (dst,))
        if current_config().check_uninitialized and not src.ub.storage.all_written(src.addr, src.addr + dtype.itemsize):
            raise UninitializedReadError(f"{api}: src element 0 is read but was never written")
        # The library loads a whole register from src and broadcasts its element 0: only that element is
        # checked for initialisation (above); the rest of the register is never used.
        with configure(check_uninitialized=False):
            run_lowering(api, duplicate_continuous_vf, dst.GetPhyAddr(), None, src.GetPhyAddr(), n)
        return
    dtype = check_tensors(api, c.iface.dtypes, ("dst",), (dst,))
    value = c["scalar_value"]
    if c.form is Form.COUNT:
        n = check_count(api, c["count"], ("dst",), (dst,))
        run_lowering(api, duplicate_continuous_vf, dst.GetPhyAddr(), value, None, n)
        return
    blk = as_uint(api, "dst_block_stride", c["dst_block_stride"], 16)
    rep = as_uint(api, "dst_repeat_stride", c["dst_repeat_stride"], 8)
    count, repeats, normal, spr = repeat_plan(api, dtype, c["mask"], c["repeat_time"], c["is_set_mask"])
    run_lowering(api, duplicate_repeat_vf, dst.GetPhyAddr(), value, count, repeats, blk, rep, normal, spr)


def explore_duplicate(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Duplicate(int32, scalar_value=2, mask=64, repeat_time=2, dst_block_stride=1,
    dst_repeat_stride=8)"`: the call on a fresh dst."""
    value = kw.pop("scalar_value", 1)
    if set(kw) == {"count"}:
        (dst,) = fresh([(dtype, int(kw["count"]))])
        return (dst, value, kw["count"]), {}
    keys = {"mask", "repeat_time", "dst_block_stride", "dst_repeat_stride"}
    if set(kw) != keys:
        raise arguments(kw, "scalar_value=V and count=N, or mask=M, repeat_time=R, dst_block_stride=B, dst_repeat_stride=S")
    e = ONE_BLOCK_SIZE // dtype.itemsize
    n = int(kw["dst_repeat_stride"]) * max(int(kw["repeat_time"]) - 1, 0) * e + max(int(kw["dst_block_stride"]), 1) * 8 * e
    (dst,) = fresh([(dtype, n)])
    return (dst, value, mask_arg(kw["mask"]), kw["repeat_time"], kw["dst_block_stride"], kw["dst_repeat_stride"]), {}
