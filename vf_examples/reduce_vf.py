"""Reduce SUM, the asc-devkit example `02_reg_vector_compute/reduce` (T = float, 256 elements).

    template <typename T>
    __simd_vf__ inline void ReduceSumVF(
        __ubuf__ T* dstAddr, __ubuf__ T* srcAddr, uint32_t totalCount, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> srcReg;
        AscendC::Reg::RegTensor<T> dstReg;
        AscendC::Reg::RegTensor<T> accReg;
        AscendC::Reg::Duplicate(accReg, (T)0, mask);
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign(srcReg, srcAddr + i * oneRepeatSize);
            AscendC::Reg::Reduce<AscendC::Reg::ReduceType::SUM>(dstReg, srcReg, mask);
            AscendC::Reg::Add(accReg, accReg, dstReg, mask);
        }
        AscendC::Reg::StoreAlign(dstAddr, accReg, mask);
    }

The host copies out 8 floats (`outAlignSize = 8`). gen_data.py (no seed; `run(seed)` sets one):
`x = np.random.uniform(1, 2, [1, 256]).astype(np.float32)`, `golden[0] = np.sum(x)`, the rest 0.

np.sum adds in numpy's pairwise order (8 strided accumulators per 128-element block), not the
hardware's (for seeds 1 and 2 the two differ in the last bit), so the vendor compares with a
tolerance of 1e-4. This port computes the golden in
the order the Reduce page documents, bit-exact: per 64-float register a binary tree of adjacent
pairs ("data1和data2相加得到data01 …", each add rounded to float32), then
`acc = ((0 + T0) + T1) + T2) + T3` by the loop's lane-wise Add. A second output keeps the vendor's
np.sum golden at its 1e-4 tolerance (1 per element within it).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL = 256
ONE_REPEAT = 64
OUT_ALIGN = 8  #: constexpr uint32_t outAlignSize = 8;


@rs.simd_vf
def reduce_sum_vf(
    dst_addr: rs.UbPtr[rs.float32], src_addr: rs.UbPtr[rs.float32], total_count: int, repeat_times: int, one_repeat_size: int
) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)  # MaskReg mask = CreateMask<T, MaskPattern::ALL>();
    src_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> srcReg;
    dst_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> dstReg;
    acc_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> accReg;
    Reg.Duplicate(acc_reg, np.float32(0), mask)  # Duplicate(accReg, (T)0, mask);
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(src_reg, src_addr + i * one_repeat_size)  # LoadAlign(srcReg, srcAddr + i * oneRepeatSize);
        Reg.Reduce(dst_reg, src_reg, mask, type=Reg.ReduceType.SUM)  # Reduce<ReduceType::SUM>(dstReg, srcReg, mask);
        Reg.Add(acc_reg, acc_reg, dst_reg, mask)  # Add(accReg, accReg, dstReg, mask);
    Reg.StoreAlign(dst_addr, acc_reg, mask)  # StoreAlign(dstAddr, accReg, mask);


def hardware_order_sum(x: npt.NDArray[np.float32]) -> np.float32:
    """The documented order: a pairwise tree per 64-lane register, then the accumulation loop."""
    acc = np.float32(0)
    for block in x.reshape(-1, ONE_REPEAT):
        level = block
        while level.size > 1:
            level = (level[0::2] + level[1::2]).astype(np.float32)
        acc = np.float32(acc + level[0])
    return acc


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(1, 2, [1, TOTAL]).astype(np.float32)
    golden = np.zeros(OUT_ALIGN, dtype=np.float32)
    golden[0] = hardware_order_sum(x.reshape(-1))
    vendor = np.zeros(OUT_ALIGN, dtype=np.float32)
    vendor[0] = np.sum(x)  # gen_data.py's golden

    ub = rs.UnifiedBuffer()
    x_ub, y_ub = ub.alloc(rs.float32, TOTAL), ub.alloc(rs.float32, ONE_REPEAT)
    x_ub.set(x.reshape(-1))
    rs.asc_vf_call(reduce_sum_vf, y_ub.GetPhyAddr(), x_ub.GetPhyAddr(), TOTAL, TOTAL // ONE_REPEAT, ONE_REPEAT)
    y = y_ub.numpy()[:OUT_ALIGN]
    within = np.abs(y.astype(np.float64) - vendor) <= 1e-4 * np.maximum(1, np.abs(vendor))
    return {
        "y (hardware order, bit-exact)": (y, golden),
        "y within 1e-4 of np.sum (the vendor's check)": (within.astype(np.uint8), np.ones(OUT_ALIGN, np.uint8)),
    }
