"""Duplicate, the asc-devkit example `02_reg_vector_compute/duplicate` (T = float, 256 elements).

    template <typename T>
    __simd_vf__ inline void DuplicateScalarVF(
        __ubuf__ T* dstAddr, T scalarValue, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> dstReg;
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T>();
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::Duplicate(dstReg, scalarValue, mask);
            AscendC::Reg::StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);
        }
    }
    ...
    T fillValue = static_cast<T>(3.14);
    asc_vf_call<DuplicateScalarVF<T>>(yAddr, fillValue, repeatTimes, oneRepeatSize);

gen_data.py: `golden = np.full([1, 256], 3.14, dtype=np.float32)` (no inputs). A second output
runs the masked form with MERGING over a pattern (lanes 0, 4, 8, …) on a register loaded with
ramp values, against numpy.
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
def duplicate_scalar_vf(
    dst_addr: rs.UbPtr[rs.float32], scalar_value: np.float32, repeat_times: int, one_repeat_size: int
) -> None:
    dst_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> dstReg;
    mask = Reg.CreateMask(rs.float32)  # MaskReg mask = CreateMask<T>();
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.Duplicate(dst_reg, scalar_value, mask)  # Duplicate(dstReg, scalarValue, mask);
        Reg.StoreAlign(dst_addr + i * one_repeat_size, dst_reg, mask)  # StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);


@rs.simd_vf
def duplicate_merging_vf(dst_addr: rs.UbPtr[rs.float32], src_addr: rs.UbPtr[rs.float32], scalar_value: np.float32) -> None:
    """(not in the example) the MERGING form: lanes outside the M4 pattern keep the loaded values."""
    reg = Reg.RegTensor(rs.float32)
    Reg.LoadAlign(reg, src_addr)
    Reg.Duplicate(reg, scalar_value, Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.M4), mode=Reg.MaskMergeMode.MERGING)
    Reg.StoreAlign(dst_addr, reg, Reg.CreateMask(rs.float32))


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    ub = rs.UnifiedBuffer()
    y = ub.alloc(rs.float32, TOTAL)
    fill_value = np.float32(3.14)  # T fillValue = static_cast<T>(3.14);
    rs.asc_vf_call(duplicate_scalar_vf, y.GetPhyAddr(), fill_value, TOTAL // ONE_REPEAT, ONE_REPEAT)
    golden = np.full([1, TOTAL], 3.14, dtype=np.float32).reshape(-1)  # gen_data.py

    ramp = np.random.default_rng(seed).uniform(-2, 2, ONE_REPEAT).astype(np.float32)
    src, merged = ub.alloc(rs.float32, ONE_REPEAT), ub.alloc(rs.float32, ONE_REPEAT)
    src.set(ramp)
    rs.asc_vf_call(duplicate_merging_vf, merged.GetPhyAddr(), src.GetPhyAddr(), fill_value)
    want = ramp.copy()
    want[0::4] = fill_value
    return {"y": (y.numpy(), golden), "MERGING over M4": (merged.numpy(), want)}
