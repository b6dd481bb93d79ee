"""256-bit integer add: 8 uint32 limbs per number, one Add + 7 AddC carry chain, final carry out.

`count` numbers are stored limb-major ("structure of arrays"): UB row k holds limb k (bits
32k .. 32k+31, limb 0 least significant) of every number, rows `row_stride` elements apart, so
one register holds limb k of 64 numbers and the carry chain runs lane-wise across rows. The
C++ this ports (written for this example, in the shape of the AddC page's AddVF):

    template <uint16_t LIMBS>
    static __simd_vf__ inline void U256AddVF(__ubuf__ uint32_t* dstAddr, __ubuf__ uint32_t* carryAddr,
        __ubuf__ uint32_t* src0Addr, __ubuf__ uint32_t* src1Addr, uint32_t count, uint16_t repeatTimes,
        uint32_t oneRepeatSize, uint32_t rowStride)
    {
        AscendC::Reg::RegTensor<uint32_t> srcReg0;
        AscendC::Reg::RegTensor<uint32_t> srcReg1;
        AscendC::Reg::RegTensor<uint32_t> dstReg;
        AscendC::Reg::MaskReg mask;
        AscendC::Reg::MaskReg carry;
        for (uint16_t i = 0; i < repeatTimes; i++) {
            mask = AscendC::Reg::UpdateMask<uint32_t>(count);
            AscendC::Reg::LoadAlign(srcReg0, src0Addr + i * oneRepeatSize);
            AscendC::Reg::LoadAlign(srcReg1, src1Addr + i * oneRepeatSize);
            AscendC::Reg::Add(carry, dstReg, srcReg0, srcReg1, mask);
            AscendC::Reg::StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);
            for (uint16_t k = 1; k < LIMBS; k++) {
                AscendC::Reg::LoadAlign(srcReg0, src0Addr + k * rowStride + i * oneRepeatSize);
                AscendC::Reg::LoadAlign(srcReg1, src1Addr + k * rowStride + i * oneRepeatSize);
                AscendC::Reg::AddC(carry, dstReg, srcReg0, srcReg1, carry, mask);
                AscendC::Reg::StoreAlign(dstAddr + k * rowStride + i * oneRepeatSize, dstReg, mask);
            }
            AscendC::Reg::StoreAlign<uint32_t, AscendC::Reg::MaskDist::DIST_NORM>(carryAddr + i * 8, carry);
        }
    }
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

LIMBS = 8  #: 8 x 32 = 256 bits
COUNT = 300  #: numbers: 4 * 64 + 44, so the last repeat has a 44-lane tail mask
SENTINEL = 0x5EA15EA1  #: what dst holds before the kernel: lanes past `count` must keep it
MOD = 2**256


@rs.simd_vf
def u256_add_vf(
    dst: rs.UbPtr[rs.uint32],
    carry_out: rs.UbPtr[rs.uint32],
    src0: rs.UbPtr[rs.uint32],
    src1: rs.UbPtr[rs.uint32],
    count: int,
    repeat_times: int,
    one_repeat_size: int,
    row_stride: int,
) -> None:
    src_reg0 = Reg.RegTensor(rs.uint32)  # RegTensor<uint32_t> srcReg0;
    src_reg1 = Reg.RegTensor(rs.uint32)  # RegTensor<uint32_t> srcReg1;
    dst_reg = Reg.RegTensor(rs.uint32)  # RegTensor<uint32_t> dstReg;
    carry = Reg.MaskReg()  # MaskReg carry;
    n = rs.Ref(count)  # `count` is passed to UpdateMask by reference
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; i++) {
        mask = Reg.UpdateMask(rs.uint32, n)  # mask = UpdateMask<uint32_t>(count);
        Reg.LoadAlign(src_reg0, src0 + i * one_repeat_size)  # LoadAlign(srcReg0, src0Addr + i * oneRepeatSize);
        Reg.LoadAlign(src_reg1, src1 + i * one_repeat_size)  # LoadAlign(srcReg1, src1Addr + i * oneRepeatSize);
        Reg.Add(carry, dst_reg, src_reg0, src_reg1, mask)  # Add(carry, dstReg, srcReg0, srcReg1, mask);
        Reg.StoreAlign(dst + i * one_repeat_size, dst_reg, mask)  # StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);
        for k in range(1, LIMBS):  # for (uint16_t k = 1; k < LIMBS; k++) {
            at = k * row_stride + i * one_repeat_size
            Reg.LoadAlign(src_reg0, src0 + at)  # LoadAlign(srcReg0, src0Addr + k * rowStride + i * oneRepeatSize);
            Reg.LoadAlign(src_reg1, src1 + at)  # LoadAlign(srcReg1, src1Addr + k * rowStride + i * oneRepeatSize);
            Reg.AddC(carry, dst_reg, src_reg0, src_reg1, carry, mask)  # AddC(carry, dstReg, srcReg0, srcReg1, carry, mask);
            Reg.StoreAlign(dst + at, dst_reg, mask)  # StoreAlign(dstAddr + k * rowStride + i * oneRepeatSize, dstReg, mask);
        # StoreAlign<uint32_t, MaskDist::DIST_NORM>(carryAddr + i * 8, carry);  — 32 B per repeat
        Reg.StoreAlign(carry_out + i * 8, carry, dist=Reg.MaskDist.DIST_NORM)


def to_limbs(values: list[int]) -> npt.NDArray[np.uint32]:
    """Python ints < 2**256 → a (LIMBS, len) uint32 array, row k = limb k."""
    return np.array([[(v >> (32 * k)) & 0xFFFFFFFF for v in values] for k in range(LIMBS)], dtype=np.uint32)


def inputs(seed: int, count: int = COUNT) -> tuple[list[int], list[int]]:
    """Random 256-bit operands whose limbs are often 0 or 0xFFFFFFFF, so carries ripple far."""
    rng = np.random.default_rng(seed)

    def number() -> int:
        limbs = [int(rng.choice([0, 0xFFFFFFFF, int(rng.integers(0, 2**32))])) for _ in range(LIMBS)]
        return sum(limb << (32 * k) for k, limb in enumerate(limbs))

    a = [number() for _ in range(count)]
    b = [number() for _ in range(count)]
    edges = [(MOD - 1, 1), (MOD - 1, MOD - 1), (0, 0), (2**255, 2**255), (2**224 - 1, 1), (MOD - 2**32, 2**32), (MOD - 1, 0)]
    for k, (x, y) in enumerate(edges):
        a[k], b[k] = x, y
    return a, b


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    a, b = inputs(seed)
    count = len(a)
    one_repeat_size = 256 // rs.uint32.itemsize  # GetVecLen() / sizeof(uint32_t) = 64
    repeat_times = -(-count // one_repeat_size)  # CeilDivision(count, oneRepeatSize)
    row_stride = repeat_times * one_repeat_size  # each limb row padded to whole registers

    # --- the __aicore__ side ----------------------------------------------------------------
    ub = rs.UnifiedBuffer()
    src0 = ub.alloc(rs.uint32, LIMBS * row_stride)
    src1 = ub.alloc(rs.uint32, LIMBS * row_stride)
    dst = ub.alloc(rs.uint32, LIMBS * row_stride)
    carry_out = ub.alloc(rs.uint32, repeat_times * 8)
    for tensor, values in ((src0, a), (src1, b)):
        rows = np.zeros((LIMBS, row_stride), np.uint32)
        rows[:, :count] = to_limbs(values)
        tensor.set(rows)
    dst.set(np.full(LIMBS * row_stride, SENTINEL, np.uint32))
    carry_out.set(np.zeros(repeat_times * 8, np.uint32))
    rs.asc_vf_call(
        u256_add_vf,
        dst.GetPhyAddr(),
        carry_out.GetPhyAddr(),
        src0.GetPhyAddr(),
        src1.GetPhyAddr(),
        count,
        repeat_times,
        one_repeat_size,
        row_stride,
    )
    got = dst.numpy().reshape(LIMBS, row_stride)

    # --- the reference, with Python ints ------------------------------------------------------
    sums = [(x + y) % MOD for x, y in zip(a, b, strict=True)]
    carries = [(x + y) >> 256 for x, y in zip(a, b, strict=True)]
    words = [0] * (repeat_times * 8)
    for j, c in enumerate(carries):
        i, lane = divmod(j, one_repeat_size)
        words[i * 8 + lane // 8] |= c << (4 * (lane % 8))  # lane l of repeat i: bit 4l of block i
    return {
        "sum limbs (LIMBS, count)": (got[:, :count], to_limbs(sums)),
        "dst padding (untouched)": (got[:, count:], np.full((LIMBS, row_stride - count), SENTINEL, np.uint32)),
        "final carry masks": (carry_out.numpy(), np.array(words, dtype=np.uint32)),
    }
