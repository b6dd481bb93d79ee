"""The subnormal example (basic API, Reg vector compute): `subnormal.asc`, both scenarios: float Div
with `DivSpecificMode` algo PRECISION_1ULP_FTZ_FALSE (subnormals kept) and PRECISION_1ULP_FTZ_TRUE
(subnormal inputs and results flushed to zero).

The C++ twins (SubnormalFTZTrueVF is the same with `DivAlgo::PRECISION_1ULP_FTZ_TRUE`):

    template <typename T>  // instantiated for T = float only
    __simd_vf__ inline void SubnormalFTZFalseVF(
        __ubuf__ T* xAddr, __ubuf__ T* yAddr, __ubuf__ T* zAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> xReg, yReg, zReg;
        // 支持 subnormal
        static constexpr AscendC::Reg::DivSpecificMode mode = {
            AscendC::Reg::MaskMergeMode::ZEROING, false, AscendC::DivAlgo::PRECISION_1ULP_FTZ_FALSE};
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<T, AscendC::MicroAPI::PostLiteral::POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
            AscendC::Reg::LoadAlign<T, AscendC::MicroAPI::PostLiteral::POST_MODE_UPDATE>(yReg, yAddr, oneRepeatSize);
            AscendC::Reg::Div<T, &mode>(zReg, xReg, yReg, mask);
            AscendC::Reg::StoreAlign<T, AscendC::MicroAPI::PostLiteral::POST_MODE_UPDATE>(zAddr, zReg, oneRepeatSize, mask);
        }
    }

The kernel runs one of them (`SCENARIO_NUM`) for T = float on 1024 elements (oneRepeatSize = 64,
repeatTimes = 16); regsim runs both. gen_data.py (no randomness) tiles five (x, y) pairs of normal (N)
and subnormal (S) floats -- N/N = S, N/S = N, S/N = S, S/N = N, S/S = N -- and writes
`golden = (x.astype(float64) / y.astype(float64)).astype(float32)`. The host check is bit-exact:
scenario 1 must equal the golden everywhere; scenario 2 must differ from it in each of the first
five elements. regsim checks both, and scenario 2's bits against the README's table (its column
"场景2输出"): 0x00000000, 0x7F800000 (y flushed: 2**-125 / 0 = inf), 0x00000000, 0x00000000 and
0x7FFFFFFF (0 / 0: the NaN the Div page prints).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 1024
UPDATE: Final = Reg.PostLiteral.POST_MODE_UPDATE
Z: Final = Reg.MaskMergeMode.ZEROING
# static constexpr AscendC::Reg::DivSpecificMode mode (scenario 1: 支持 subnormal; scenario 2: 不支持 subnormal)
MODE_FTZ_FALSE: Final = Reg.DivSpecificMode(Z, False, Reg.DivAlgo.PRECISION_1ULP_FTZ_FALSE)
MODE_FTZ_TRUE: Final = Reg.DivSpecificMode(Z, False, Reg.DivAlgo.PRECISION_1ULP_FTZ_TRUE)
#: the README's table, column "场景2输出", for the five tiled pairs
README_FTZ_BITS: Final = np.array([0x00000000, 0x7F800000, 0x00000000, 0x00000000, 0x7FFFFFFF], np.uint32)


@rs.simd_vf
def subnormal_vf(
    x_addr: rs.UbPtr[rs.float32],
    y_addr: rs.UbPtr[rs.float32],
    z_addr: rs.UbPtr[rs.float32],
    repeat_times: int,
    one_repeat_size: int,
    mode: Reg.DivSpecificMode,
) -> None:
    """SubnormalFTZFalseVF<float> (mode = MODE_FTZ_FALSE) and SubnormalFTZTrueVF<float> (MODE_FTZ_TRUE):
    the two C++ functions differ only in their `static constexpr DivSpecificMode mode`."""
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)
    x_reg, y_reg, z_reg = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    for _ in range(repeat_times):
        Reg.LoadAlign(x_reg, x_addr, one_repeat_size, post_mode=UPDATE)
        Reg.LoadAlign(y_reg, y_addr, one_repeat_size, post_mode=UPDATE)
        Reg.Div(z_reg, x_reg, y_reg, mask, mode=mode)  # Div<T, &mode>(zReg, xReg, yReg, mask)
        Reg.StoreAlign(z_addr, z_reg, one_repeat_size, mask, post_mode=UPDATE)


def kernel(x: npt.NDArray[Any], y: npt.NDArray[Any], mode: Reg.DivSpecificMode) -> npt.NDArray[Any]:
    """KernelSubnormal<float>::Process on one core: three 1024-element UB tensors and asc_vf_call."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    y_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    z_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    x_local.set(x)
    y_local.set(y)
    one_repeat_size = 256 // rs.float32.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(SingleCoreLength, oneRepeatSize)
    rs.asc_vf_call(
        subnormal_vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), z_local.GetPhyAddr(), repeat_times, one_repeat_size, mode
    )
    out: npt.NDArray[Any] = z_local.numpy()
    return out


def gen_data() -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """gen_data.py's inputs and golden."""
    x_small = np.array([2.0**-126, 2.0**-125, 2.0**-130, 2.0**-130, 2.0**-140])
    y_small = np.array([4.0, 2.0**-127, 2.0, 2.0**-20, 2.0**-145])
    reps = int(np.ceil(TOTAL_LENGTH / len(x_small)))
    x = np.tile(x_small, reps)[:TOTAL_LENGTH].astype(np.float32)
    y = np.tile(y_small, reps)[:TOTAL_LENGTH].astype(np.float32)
    golden = (x.astype(np.float64) / y.astype(np.float64)).astype(np.float32)
    return x, y, golden


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    """(gen_data.py has no randomness: `seed` changes nothing.)"""
    x, y, golden = gen_data()
    z1 = kernel(x, y, MODE_FTZ_FALSE)
    z2 = kernel(x, y, MODE_FTZ_TRUE)
    readme = np.tile(README_FTZ_BITS, -(-TOTAL_LENGTH // 5))[:TOTAL_LENGTH]
    return {
        "scenario 1 (PRECISION_1ULP_FTZ_FALSE): z == golden": (z1.view(np.uint32), golden.view(np.uint32)),
        "scenario 2 (PRECISION_1ULP_FTZ_TRUE): z[:5] != golden[:5]": (
            z2[:5].view(np.uint32) != golden[:5].view(np.uint32),
            np.ones(5, np.bool_),
        ),
        "scenario 2 (PRECISION_1ULP_FTZ_TRUE): z == the README's table": (z2.view(np.uint32), readme),
    }
