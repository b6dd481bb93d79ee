"""Arange, the asc-devkit example `02_reg_vector_compute/arange` (T = float, 256 elements).

The VF writes one register of increasing indices from `scalarValue`; the host calls it four
times, 64 floats apart, raising the start by 64 each time:

    template <typename T>
    __simd_vf__ inline void ArangeVF(__ubuf__ T* dstAddr, T scalarValue, uint32_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> dstReg;
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T>();
        AscendC::Reg::Arange(dstReg, scalarValue);
        AscendC::Reg::StoreAlign(dstAddr, dstReg, mask);
    }
    ...
    for (uint16_t i = 0; i < repeatTimes; ++i) {
        asc_vf_call<ArangeVF<T>>(yAddr + i * oneRepeatSize, startValue, oneRepeatSize);
        startValue += static_cast<T>(oneRepeatSize);
    }

gen_data.py: `golden = np.arange(0, 256, 1).astype(np.float32)` (no inputs, so `seed` is unused).
A second output runs the same VF with `IndexOrder::DECREASE_ORDER` (the scalar is then the end
value of each register: start + 63, …, start), against numpy.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL = 256
ONE_REPEAT = 256 // rs.float32.itemsize  #: GetVecLen() / sizeof(T) = 64


@rs.simd_vf
def arange_vf(dst_addr: rs.UbPtr[rs.float32], scalar_value: np.float32, one_repeat_size: int, decrease: bool = False) -> None:
    dst_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> dstReg;
    mask = Reg.CreateMask(rs.float32)  # MaskReg mask = CreateMask<T>();
    order = Reg.IndexOrder.DECREASE_ORDER if decrease else Reg.IndexOrder.INCREASE_ORDER
    Reg.Arange(dst_reg, scalar_value, order=order)  # Arange(dstReg, scalarValue);
    Reg.StoreAlign(dst_addr, dst_reg, mask)  # StoreAlign(dstAddr, dstReg, mask);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    ub = rs.UnifiedBuffer()
    y = ub.alloc(rs.float32, TOTAL)
    y_down = ub.alloc(rs.float32, TOTAL)
    start = np.float32(0)  # T startValue = 0;
    for i in range(TOTAL // ONE_REPEAT):  # for (uint16_t i = 0; i < repeatTimes; ++i)
        rs.asc_vf_call(arange_vf, y.GetPhyAddr() + i * ONE_REPEAT, start, ONE_REPEAT)
        rs.asc_vf_call(arange_vf, y_down.GetPhyAddr() + i * ONE_REPEAT, start, ONE_REPEAT, True)
        start = np.float32(start + ONE_REPEAT)  # startValue += (T)oneRepeatSize;
    golden = np.arange(0, TOTAL, 1).astype(np.float32)  # gen_data.py
    down = golden.reshape(-1, ONE_REPEAT)[:, ::-1].reshape(-1)
    return {"y (INCREASE_ORDER)": (y.numpy(), golden), "y (DECREASE_ORDER)": (y_down.numpy(), down)}
