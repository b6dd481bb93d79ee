"""PairReduceElem, the asc-devkit example `02_reg_vector_compute/reduce_pair` (T = float, 256 elements).

    template <typename T>
    __simd_vf__ inline void PairReduceSumVF(
        __ubuf__ T* dstAddr, __ubuf__ T* srcAddr, uint32_t count, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> srcReg;
        AscendC::Reg::RegTensor<T> dstReg;
        AscendC::Reg::MaskReg mask;
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign(srcReg, srcAddr + i * oneRepeatSize);
            mask = AscendC::Reg::UpdateMask<T>(count);
            AscendC::Reg::PairReduceElem<AscendC::Reg::PairReduce::SUM>(dstReg, srcReg, mask);
            AscendC::Reg::StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);
        }
    }

Each repeat stores 64 floats: 32 pair sums and 32 zeros (PairReduceElem zeroes dst's upper
half). gen_data.py (no seed; `run(seed)` sets one): `x = np.random.uniform(1, 2, [1, 256])`,
`golden[i] = x[2i] + x[2i+1]` (float32, one rounding: bit-exact); CompareResult reads output
element `(i / 32) * 64 + i % 32` for golden[i].
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL = 256
ONE_REPEAT = 64


@rs.simd_vf
def pair_reduce_sum_vf(
    dst_addr: rs.UbPtr[rs.float32], src_addr: rs.UbPtr[rs.float32], count: int, repeat_times: int, one_repeat_size: int
) -> None:
    src_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> srcReg;
    dst_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> dstReg;
    remaining = rs.Ref(count)  # uint32_t count (UpdateMask takes it by reference)
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(src_reg, src_addr + i * one_repeat_size)  # LoadAlign(srcReg, srcAddr + i * oneRepeatSize);
        mask = Reg.UpdateMask(rs.float32, remaining)  # mask = UpdateMask<T>(count);
        Reg.PairReduceElem(
            dst_reg, src_reg, mask, type=Reg.PairReduce.SUM
        )  # PairReduceElem<PairReduce::SUM>(dstReg, srcReg, mask);
        Reg.StoreAlign(dst_addr + i * one_repeat_size, dst_reg, mask)  # StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(1, 2, [1, TOTAL]).astype(np.float32)
    golden = np.zeros(TOTAL // 2, dtype=np.float32)
    for i in range(TOTAL // 2):
        golden[i] = x[0, 2 * i] + x[0, 2 * i + 1]

    ub = rs.UnifiedBuffer()
    x_ub, y_ub = ub.alloc(rs.float32, TOTAL), ub.alloc(rs.float32, 512)  # Alloc<T, 512>
    x_ub.set(x.reshape(-1))
    rs.asc_vf_call(pair_reduce_sum_vf, y_ub.GetPhyAddr(), x_ub.GetPhyAddr(), TOTAL, TOTAL // ONE_REPEAT, ONE_REPEAT)
    out = y_ub.numpy()[:TOTAL]
    picked = np.array([out[(i // 32) * 64 + i % 32] for i in range(TOTAL // 2)], np.float32)  # CompareResult's indexing
    upper = out.reshape(-1, ONE_REPEAT)[:, 32:].reshape(-1)
    return {"y (pair sums)": (picked, golden), "y (upper halves, zeroed)": (upper, np.zeros(TOTAL // 2, np.float32))}
