"""MulVF of the asc-devkit example `02_reg_vector_compute/mul`: z = y · x on 1024 floats, 4 cores.

The C++ twin (mul.asc; `numBlocks = 4`, totalLength = 1024, each core 256 elements from
`GetBlockIdx() * singleCoreLength`, T = float):

    template <typename T>
    __simd_vf__ inline void MulVF(
        __ubuf__ T* xAddr, __ubuf__ T* yAddr, __ubuf__ T* zAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> xReg, yReg, zReg;
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::LoadAlign(yReg, yAddr + i * oneRepeatSize);
            AscendC::Reg::Mul(zReg, yReg, xReg, mask);
            AscendC::Reg::StoreAlign(zAddr + i * oneRepeatSize, zReg, mask);
        }
    }

Each core (a loop over the block index here, each with its own Unified Buffer) copies its slice
in, runs `asc_vf_call<MulVF<T>>(xAddr, yAddr, zAddr, repeatTimes, oneRepeatSize)` and copies
its slice out. scripts/gen_data.py: x and y uniform in [1, 2) as float32 (unseeded; seeded
here), `golden = x * y` — numpy's float32 product, correctly rounded as the Mul page's 0-ulp
float multiply, so the comparison is bit for bit.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 1024
NUM_BLOCKS = 4
SINGLE_CORE_LENGTH = TOTAL_LENGTH // NUM_BLOCKS


@rs.simd_vf
def mul_vf(
    x_addr: rs.UbPtr[rs.float32],
    y_addr: rs.UbPtr[rs.float32],
    z_addr: rs.UbPtr[rs.float32],
    repeat_times: int,
    one_repeat_size: int,
) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)  # MaskReg mask = CreateMask<T, MaskPattern::ALL>();
    x_reg, y_reg, z_reg = (
        Reg.RegTensor(rs.float32),
        Reg.RegTensor(rs.float32),
        Reg.RegTensor(rs.float32),
    )  # RegTensor<T> xReg, yReg, zReg;
    for i in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)  # LoadAlign(xReg, xAddr + i * oneRepeatSize);
        Reg.LoadAlign(y_reg, y_addr + i * one_repeat_size)  # LoadAlign(yReg, yAddr + i * oneRepeatSize);
        Reg.Mul(z_reg, y_reg, x_reg, mask)  # Mul(zReg, yReg, xReg, mask);
        Reg.StoreAlign(z_addr + i * one_repeat_size, z_reg, mask)  # StoreAlign(zAddr + i * oneRepeatSize, zReg, mask);


def gen_data(seed: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """scripts/gen_data.py: x, y in [1, 2) as float32, golden = x * y."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(1, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    y = rng.uniform(1, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    return x, y, x * y


def core(block_idx: int, x_gm: npt.NDArray[np.float32], y_gm: npt.NDArray[np.float32], z_gm: npt.NDArray[np.float32]) -> None:
    """KernelMul::Process on core `block_idx` (GetBlockIdx())."""
    core_offset = block_idx * SINGLE_CORE_LENGTH  # GetCoreOffset()
    part = slice(core_offset, core_offset + SINGLE_CORE_LENGTH)
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, SINGLE_CORE_LENGTH)  # ubAllocator.Alloc<T, singleCoreLength>()
    y_local = ub.alloc(rs.float32, SINGLE_CORE_LENGTH)
    z_local = ub.alloc(rs.float32, SINGLE_CORE_LENGTH)
    x_local.set(x_gm[part])  # DataCopy(xLocal, xGm[coreOffset], singleCoreLength);
    y_local.set(y_gm[part])  # DataCopy(yLocal, yGm[coreOffset], singleCoreLength);
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize
    repeat_times = -(-SINGLE_CORE_LENGTH // one_repeat_size)  # DivCeil(singleCoreLength, oneRepeatSize)
    rs.asc_vf_call(mul_vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), z_local.GetPhyAddr(), repeat_times, one_repeat_size)
    z_gm[part] = z_local.numpy()  # DataCopy(zGm[coreOffset], zLocal, singleCoreLength);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x, y, golden = gen_data(seed)
    z = np.zeros(TOTAL_LENGTH, np.float32)
    for block_idx in range(NUM_BLOCKS):  # mul<<<numBlocks, 0, stream>>>(x, y, z)
        core(block_idx, x.reshape(-1), y.reshape(-1), z)
    want = golden.reshape(-1)
    return {
        f"z = y * x, core {b}": (
            z[b * SINGLE_CORE_LENGTH : (b + 1) * SINGLE_CORE_LENGTH],
            want[b * SINGLE_CORE_LENGTH : (b + 1) * SINGLE_CORE_LENGTH],
        )
        for b in range(NUM_BLOCKS)
    }
