"""AddVF of the AddC page: 32-bit add with carry out, carry masks stored to UB (MaskDist.DIST_NORM).

The C++ twin (the example of the Ascend C `AddC` API page):

    template <typename T>
    static __simd_vf__ inline void AddVF(__ubuf__ T* dst0Addr, __ubuf__ T* dst1Addr, __ubuf__ T* src0Addr,
        __ubuf__ T* src1Addr, uint32_t count, uint16_t repeatTimes, uint32_t oneRepeatSize) { ... }

`count` is not a multiple of 64, so the last repeat runs under a partial `UpdateMask`: its
inactive lanes must neither be stored to `dst0` nor set a carry bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

COUNT = 1000  #: elements; 1000 = 15 * 64 + 40, so the 16th repeat has a 40-lane tail mask
SENTINEL = 0xDEADBEEF  #: what dst0 holds before the kernel: lanes past `count` must keep it


@rs.simd_vf
def add_vf(
    dst0: rs.UbPtr[rs.uint32],
    dst1: rs.UbPtr[rs.uint32],
    src0: rs.UbPtr[rs.uint32],
    src1: rs.UbPtr[rs.uint32],
    count: int,
    repeat_times: int,
    one_repeat_size: int,
) -> None:
    src_reg0 = Reg.RegTensor(rs.uint32)  # AscendC::Reg::RegTensor<T> srcReg0;
    src_reg1 = Reg.RegTensor(rs.uint32)  # AscendC::Reg::RegTensor<T> srcReg1;
    dst_reg0 = Reg.RegTensor(rs.uint32)  # AscendC::Reg::RegTensor<T> dstReg0;
    carry = Reg.CreateMask(rs.uint8)  # MaskReg carry = AscendC::Reg::CreateMask<uint8_t>();
    n = rs.Ref(count)  # UpdateMask takes `count` by reference (uint32_t&)
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; i++) {
        mask = Reg.UpdateMask(rs.uint32, n)  # mask = AscendC::Reg::UpdateMask<T>(count);
        Reg.LoadAlign(src_reg0, src0 + i * one_repeat_size)  # LoadAlign(srcReg0, src0Addr + i * oneRepeatSize);
        Reg.LoadAlign(src_reg1, src1 + i * one_repeat_size)  # LoadAlign(srcReg1, src1Addr + i * oneRepeatSize);
        Reg.Add(carry, dst_reg0, src_reg0, src_reg1, mask)  # Add(carry, dstReg0, srcReg0, srcReg1, mask);
        # 8*4B=32B align: StoreAlign<uint32_t, MaskDist::DIST_NORM>((__ubuf__ uint32_t*)dst1Addr + i * 8, carry);
        Reg.StoreAlign(dst1.reinterpret(rs.uint32) + i * 8, carry, dist=Reg.MaskDist.DIST_NORM)
        Reg.StoreAlign(dst0 + i * one_repeat_size, dst_reg0, mask)  # StoreAlign(dst0Addr + i * oneRepeatSize, dstReg0, mask);


def inputs(seed: int, count: int = COUNT) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
    """Random uint32 operands (about half the lanes carry) with the boundary cases first."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**32, count, dtype=np.uint32)
    b = rng.integers(0, 2**32, count, dtype=np.uint32)
    edges = [(0xFFFFFFFF, 1), (0xFFFFFFFF, 0xFFFFFFFF), (0, 0), (0x80000000, 0x80000000), (0xFFFFFFFF, 0), (0x7FFFFFFF, 1)]
    for k, (x, y) in enumerate(edges):
        a[k], b[k] = x, y
    return a, b


def reference(
    a: npt.NDArray[np.uint32], b: npt.NDArray[np.uint32], repeat_times: int, one_repeat_size: int, fill: str = "lsb"
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32]]:
    """Sums mod 2**32, and the carry masks as stored: element j of repeat i is bit 4*(j % 64) of
    the 32-byte block i (little-endian), i.e. uint32 word i*8 + l//8, bit 4*(l%8) for lane l.
    `fill="group"` sets the lane's whole 4-bit group (regsim's Config.mask_fill="group")."""
    sums = [(int(x) + int(y)) % 2**32 for x, y in zip(a, b, strict=True)]
    carries = [(int(x) + int(y)) >> 32 for x, y in zip(a, b, strict=True)]
    words = [0] * (repeat_times * 8)
    nibble = 0xF if fill == "group" else 0x1
    for j, c in enumerate(carries):
        i, lane = divmod(j, one_repeat_size)
        if c:
            words[i * 8 + lane // 8] |= nibble << (4 * (lane % 8))
    return np.array(sums, dtype=np.uint32), np.array(words, dtype=np.uint32)


def kernel(
    a: npt.NDArray[np.uint32], b: npt.NDArray[np.uint32]
) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint32], int, int]:
    """The __aicore__ side: UB tensors, asc_vf_call<AddVF<uint32_t>>(...). Returns dst0 (the
    whole VL-padded tensor), dst1, repeatTimes, oneRepeatSize."""
    count = a.size
    one_repeat_size = 256 // rs.uint32.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-count // one_repeat_size)  # CeilDivision(count, oneRepeatSize)
    ub = rs.UnifiedBuffer()
    src0 = ub.alloc(rs.uint32, count)
    src1 = ub.alloc(rs.uint32, count)
    dst0 = ub.alloc(rs.uint32, repeat_times * one_repeat_size)
    dst1 = ub.alloc(rs.uint32, repeat_times * 8)
    src0.set(a)
    src1.set(b)
    dst0.set(np.full(dst0.GetSize(), SENTINEL, np.uint32))
    dst1.set(np.zeros(dst1.GetSize(), np.uint32))
    rs.asc_vf_call(
        add_vf, dst0.GetPhyAddr(), dst1.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), count, repeat_times, one_repeat_size
    )
    return dst0.numpy(), dst1.numpy(), repeat_times, one_repeat_size


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    a, b = inputs(seed)
    count = a.size
    dst0, dst1, repeat_times, one_repeat_size = kernel(a, b)
    sums, carry_words = reference(a, b, repeat_times, one_repeat_size)
    with rs.configure(mask_fill="group"):
        _, dst1_group, _, _ = kernel(a, b)
    _, carry_words_group = reference(a, b, repeat_times, one_repeat_size, fill="group")
    untouched = np.full(dst0.size - count, SENTINEL, np.uint32)
    return {
        "dst0 (sums)": (dst0[:count], sums),
        "dst0[count:] (untouched)": (dst0[count:], untouched),
        "dst1 (carry masks)": (dst1, carry_words),
        "dst1 (carry masks, mask_fill=group)": (dst1_group, carry_words_group),
    }
