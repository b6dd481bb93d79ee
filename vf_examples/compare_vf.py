"""CompareVF and ComparesVF of the asc-devkit `compare` example (reg_vector_compute): z = x > y ? x : y
(scenario 1, `Compare<T, CMPMODE::GT>` then `Select`) and z = x > 0 ? x : y (scenario 2, `Compares`).

The C++ twins (examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/compare/compare.asc):

    template <typename T>
    __simd_vf__ inline void CompareVF(
        __ubuf__ T* xAddr, __ubuf__ T* yAddr, __ubuf__ T* zAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> yReg;
        AscendC::Reg::MaskReg maskReg = AscendC::Reg::CreateMask<T>();
        AscendC::Reg::RegTensor<T> zReg;
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(yReg, yAddr, oneRepeatSize);
            AscendC::Reg::Compare<T, AscendC::CMPMODE::GT>(maskReg, xReg, yReg, mask);
            AscendC::Reg::Select(zReg, xReg, yReg, maskReg);
            AscendC::Reg::StoreAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(zAddr, zReg, oneRepeatSize, mask);
        }
    }

ComparesVF is the same with `T scalar` after zAddr and
`AscendC::Reg::Compares<T, AscendC::CMPMODE::GT>(maskReg, xReg, scalar, mask);`. The kernel runs
T = float, totalLength = 256 (4 repeats of 64), scalar = 0. The vendor's gen_data.py draws
x, y uniform in [-2, 2) without a seed (we seed it) and computes the golden as
`np.maximum(x, y)` (scenario 1) and `golden = y.copy(); golden[x > 0] = x[x > 0]` (scenario 2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 256
CMPMODE = rs.AscendC.CMPMODE
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@rs.simd_vf
def compare_vf(
    x_addr: rs.UbPtr[rs.float32],
    y_addr: rs.UbPtr[rs.float32],
    z_addr: rs.UbPtr[rs.float32],
    repeat_times: int,
    one_repeat_size: int,
) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)  # MaskReg mask = CreateMask<T, MaskPattern::ALL>();
    x_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> xReg;
    y_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> yReg;
    mask_reg = Reg.CreateMask(rs.float32)  # MaskReg maskReg = CreateMask<T>();
    z_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> zReg;
    for _ in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(
            x_reg, x_addr, one_repeat_size, post_mode=UPDATE
        )  # LoadAlign<T, POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
        Reg.LoadAlign(
            y_reg, y_addr, one_repeat_size, post_mode=UPDATE
        )  # LoadAlign<T, POST_MODE_UPDATE>(yReg, yAddr, oneRepeatSize);
        Reg.Compare(mask_reg, x_reg, y_reg, mask, mode=CMPMODE.GT)  # Compare<T, CMPMODE::GT>(maskReg, xReg, yReg, mask);
        Reg.Select(z_reg, x_reg, y_reg, mask_reg)  # Select(zReg, xReg, yReg, maskReg);
        Reg.StoreAlign(
            z_addr, z_reg, one_repeat_size, mask, post_mode=UPDATE
        )  # StoreAlign<T, POST_MODE_UPDATE>(zAddr, zReg, oneRepeatSize, mask);


@rs.simd_vf
def compares_vf(
    x_addr: rs.UbPtr[rs.float32],
    y_addr: rs.UbPtr[rs.float32],
    z_addr: rs.UbPtr[rs.float32],
    scalar: float,
    repeat_times: int,
    one_repeat_size: int,
) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)
    x_reg = Reg.RegTensor(rs.float32)
    y_reg = Reg.RegTensor(rs.float32)
    mask_reg = Reg.CreateMask(rs.float32)
    z_reg = Reg.RegTensor(rs.float32)
    for _ in range(repeat_times):
        Reg.LoadAlign(x_reg, x_addr, one_repeat_size, post_mode=UPDATE)
        Reg.LoadAlign(y_reg, y_addr, one_repeat_size, post_mode=UPDATE)
        Reg.Compares(mask_reg, x_reg, scalar, mask, mode=CMPMODE.GT)  # Compares<T, CMPMODE::GT>(maskReg, xReg, scalar, mask);
        Reg.Select(z_reg, x_reg, y_reg, mask_reg)
        Reg.StoreAlign(z_addr, z_reg, one_repeat_size, mask, post_mode=UPDATE)


def inputs(seed: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """gen_data.py's x and y: float32 uniform in [-2, 2), shape [1, 256] (seeded here)."""
    rng = np.random.RandomState(seed)  # gen_data.py's np.random.* calls, on a seeded generator
    x = rng.uniform(-2, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    y = rng.uniform(-2, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    return x, y


def golden(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], scenario: int, scalar: float = 0.0) -> npt.NDArray[np.float32]:
    """gen_data.py's golden for `-scenarioNum 1` or `2`."""
    if scenario == 1:
        return np.maximum(x, y)
    out = y.copy()
    out[x > scalar] = x[x > scalar]
    return out


def kernel(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], scenario: int, scalar: float = 0.0) -> npt.NDArray[np.float32]:
    """The __aicore__ side (Kernel<float, 256>::Process): UB tensors, then asc_vf_call of the
    scenario's VF; returns zLocal."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    y_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    z_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    x_local.set(x.reshape(-1))  # DataCopy(xLocal, xGm, totalLength);
    y_local.set(y.reshape(-1))
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(totalLength, oneRepeatSize)
    if scenario == 1:
        rs.asc_vf_call(
            compare_vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), z_local.GetPhyAddr(), repeat_times, one_repeat_size
        )
    else:
        rs.asc_vf_call(
            compares_vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), z_local.GetPhyAddr(), scalar, repeat_times, one_repeat_size
        )
    return z_local.numpy().reshape(1, TOTAL_LENGTH)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x, y = inputs(seed)
    return {
        "z (scenario 1: Compare GT + Select)": (kernel(x, y, 1), golden(x, y, 1)),
        "z (scenario 2: Compares GT 0 + Select)": (kernel(x, y, 2), golden(x, y, 2)),
    }
