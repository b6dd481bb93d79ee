"""Register Gather, the asc-devkit example `02_reg_vector_compute/gather` (T = half, U = uint16_t,
128 elements).

    template <typename T, typename U>
    __simd_vf__ inline void GatherVF(
        __ubuf__ T* dstAddr, __ubuf__ T* srcAddr, __ubuf__ U* indexAddr, uint32_t count, uint32_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> srcReg, dstReg;
        AscendC::Reg::RegTensor<U> indexReg;
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        uint16_t repeatTimes = DivCeil(count, oneRepeatSize);
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(srcReg, srcAddr, oneRepeatSize);
            AscendC::Reg::LoadAlign<U, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(indexReg, indexAddr, oneRepeatSize);
            AscendC::Reg::Gather<T, U>(dstReg, srcReg, indexReg);
            AscendC::Reg::StoreAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(dstAddr, dstReg, oneRepeatSize, mask);
        }
    }

gen_data.py (which sets no seed; `run(seed)` does):
`x = np.random.uniform(0, 1, [1, 128]).astype(np.float16)`,
`y = np.random.uniform(0, 128, [1, 128]).astype(np.uint16)`, `golden = x.flatten()[y.flatten()]`.
A second output gathers with indices over the whole uint16 range (they wrap modulo 128).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL = 128
ONE_REPEAT = 256 // rs.half.itemsize  #: 128
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@rs.simd_vf
def gather_vf(
    dst_addr: rs.UbPtr[rs.half], src_addr: rs.UbPtr[rs.half], index_addr: rs.UbPtr[rs.uint16], count: int, one_repeat_size: int
) -> None:
    src_reg, dst_reg = Reg.RegTensor(rs.half), Reg.RegTensor(rs.half)  # RegTensor<T> srcReg, dstReg;
    index_reg = Reg.RegTensor(rs.uint16)  # RegTensor<U> indexReg;
    mask = Reg.CreateMask(rs.half, pattern=Reg.MaskPattern.ALL)  # MaskReg mask = CreateMask<T, MaskPattern::ALL>();
    repeat_times = -(-count // one_repeat_size)  # uint16_t repeatTimes = DivCeil(count, oneRepeatSize);
    for _ in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(src_reg, src_addr, one_repeat_size, post_mode=UPDATE)  # LoadAlign<T, POST_MODE_UPDATE>(srcReg, srcAddr, n);
        Reg.LoadAlign(index_reg, index_addr, one_repeat_size, post_mode=UPDATE)  # LoadAlign<U, ...>(indexReg, indexAddr, n);
        Reg.Gather(dst_reg, src_reg, index_reg)  # Gather<T, U>(dstReg, srcReg, indexReg);
        Reg.StoreAlign(
            dst_addr, dst_reg, one_repeat_size, mask, post_mode=UPDATE
        )  # StoreAlign<T, ...>(dstAddr, dstReg, n, mask);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(0, 1, [1, TOTAL]).astype(np.float16)
    y = np.random.uniform(0, TOTAL, [1, TOTAL]).astype(np.uint16)
    golden = x.flatten()[y.flatten()]
    wide = np.random.randint(0, 2**16, TOTAL).astype(np.uint16)

    ub = rs.UnifiedBuffer()
    x_ub, y_ub, z_ub = ub.alloc(rs.half, TOTAL), ub.alloc(rs.uint16, TOTAL), ub.alloc(rs.half, TOTAL)
    w_ub, z2_ub = ub.alloc(rs.uint16, TOTAL), ub.alloc(rs.half, TOTAL)
    x_ub.set(x.flatten())
    y_ub.set(y.flatten())
    w_ub.set(wide)
    rs.asc_vf_call(gather_vf, z_ub.GetPhyAddr(), x_ub.GetPhyAddr(), y_ub.GetPhyAddr(), TOTAL, ONE_REPEAT)
    rs.asc_vf_call(gather_vf, z2_ub.GetPhyAddr(), x_ub.GetPhyAddr(), w_ub.GetPhyAddr(), TOTAL, ONE_REPEAT)
    return {"z": (z_ub.numpy(), golden), "z (indices mod 128)": (z2_ub.numpy(), x.flatten()[wide % TOTAL])}
