"""MulsVF of the asc-devkit example `02_reg_vector_compute/muls`: z = x · 2.0 on 256 floats.

The C++ twin (muls.asc; one core, totalLength = 256, T = float, `float scalar = 2.0f`):

    template <typename T>
    __simd_vf__ inline void MulsVF(
        __ubuf__ T* xAddr, __ubuf__ T* zAddr, T scalar, uint32_t totalCount, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> zReg;
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::Muls(zReg, xReg, scalar, mask);
            AscendC::Reg::StoreAlign(zAddr + i * oneRepeatSize, zReg, mask);
        }
    }

called as `asc_vf_call<MulsVF<T>>(xAddr, zAddr, scalar, totalLength, repeatTimes, oneRepeatSize)`.
scripts/gen_data.py: `x = np.random.uniform(1, 2, [1, 256]).astype(np.float32)` (unseeded; seeded
here), `golden = x * 2.0` (numpy keeps float32: an exact doubling, so bit-exact).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 256
SCALAR = 2.0  #: float scalar = 2.0f;


@rs.simd_vf
def muls_vf(
    x_addr: rs.UbPtr[rs.float32],
    z_addr: rs.UbPtr[rs.float32],
    scalar: float,
    total_count: int,
    repeat_times: int,
    one_repeat_size: int,
) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)  # MaskReg mask = CreateMask<T, MaskPattern::ALL>();
    x_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> xReg;
    z_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> zReg;
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)  # LoadAlign(xReg, xAddr + i * oneRepeatSize);
        Reg.Muls(z_reg, x_reg, scalar, mask)  # Muls(zReg, xReg, scalar, mask);
        Reg.StoreAlign(z_addr + i * one_repeat_size, z_reg, mask)  # StoreAlign(zAddr + i * oneRepeatSize, zReg, mask);


def gen_data(seed: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """scripts/gen_data.py: x in [1, 2) as float32, golden = x * 2.0."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(1, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    return x, x * SCALAR


def kernel(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The __aicore__ side (KernelMuls::Process) on one core: z for 256 float32 inputs."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    z_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    x_local.set(x.reshape(-1))  # DataCopy(xLocal, xGm, totalLength);
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(totalLength, oneRepeatSize)
    rs.asc_vf_call(muls_vf, x_local.GetPhyAddr(), z_local.GetPhyAddr(), SCALAR, TOTAL_LENGTH, repeat_times, one_repeat_size)
    return z_local.numpy()  # DataCopy(zGm, zLocal, totalLength);


#: (not in the example) ±0, ±inf, overflow to inf, subnormals (doubled exactly) and the smallest normal
EDGES = np.array([-0.0, 0.0, -np.inf, np.inf, 3.4028235e38, -2e38, 1e-45, -5.877472e-39, 1.1754944e-38], np.float32)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x, golden = gen_data(seed)
    edges = x.reshape(-1).copy()
    edges[: EDGES.size] = EDGES
    with np.errstate(over="ignore"):  # 3.4e38 * 2 = inf, as the vector unit gives it
        edges_golden = edges * SCALAR
    return {
        "z = x * 2.0": (kernel(x), golden.reshape(-1)),
        "z = x * 2.0 (special values first)": (kernel(edges), edges_golden),
    }
