"""AbsVF of the asc-devkit example `02_reg_vector_compute/abs`: y = |x| on 256 floats.

The C++ twin (abs.asc; one core, totalLength = 256, T = float):

    template <typename T>
    __simd_vf__ inline void AbsVF(
        __ubuf__ T* xAddr, __ubuf__ T* yAddr, uint32_t totalCount, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> yReg;
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::Abs(yReg, xReg, mask);
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
    }

The host side calls `asc_vf_call<AbsVF<T>>(xAddr, yAddr, totalLength, repeatTimes, oneRepeatSize)`
with repeatTimes = DivCeil(256, GetVecLen() / sizeof(T)) = 4. Its scripts/gen_data.py draws
`x = np.random.uniform(-2, 2, [1, 256]).astype(np.float32)` (unseeded; seeded here) and
`golden = np.abs(x)`; regsim's result is compared bit for bit (the example itself allows 1e-4).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 256


@rs.simd_vf
def abs_vf(
    x_addr: rs.UbPtr[rs.float32], y_addr: rs.UbPtr[rs.float32], total_count: int, repeat_times: int, one_repeat_size: int
) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)  # MaskReg mask = CreateMask<T, MaskPattern::ALL>();
    x_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> xReg;
    y_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> yReg;
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)  # LoadAlign(xReg, xAddr + i * oneRepeatSize);
        Reg.Abs(y_reg, x_reg, mask)  # Abs(yReg, xReg, mask);
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)  # StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);


def gen_data(seed: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """scripts/gen_data.py: x in [-2, 2) as float32, golden = np.abs(x)."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    return x, np.abs(x)


def kernel(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The __aicore__ side (KernelAbs::Process) on one core: y for 256 float32 inputs."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)  # ubAllocator.Alloc<T, totalLength>()
    y_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    x_local.set(x.reshape(-1))  # DataCopy(xLocal, xGm, totalLength);
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(totalLength, oneRepeatSize)
    rs.asc_vf_call(abs_vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), TOTAL_LENGTH, repeat_times, one_repeat_size)
    return y_local.numpy()  # DataCopy(yGm, yLocal, totalLength);


#: (not in the example) the Abs boundary values: ±0, ±inf, NaNs of both signs, the extremes, subnormals
EDGES = np.array(
    [-0.0, 0.0, -np.inf, np.inf, np.nan, -np.nan, -3.4028235e38, 3.4028235e38, -1.1754944e-38, -1e-45, 1e-45, -2.0], np.float32
)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x, golden = gen_data(seed)
    edges = x.reshape(-1).copy()
    edges[: EDGES.size] = EDGES
    return {
        "y = |x|": (kernel(x), golden.reshape(-1)),
        "y = |x| (special values first)": (kernel(edges), np.abs(edges)),
    }
