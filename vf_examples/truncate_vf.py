"""The Truncate example (basic API, Reg vector compute): `truncate.asc`, y = floor(x) in float.

The C++ twin:

    template <typename T>
    __simd_vf__ inline void TruncateVF(__ubuf__ T* xAddr, __ubuf__ T* yAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> yReg;
        static constexpr AscendC::RoundMode roundMode = AscendC::RoundMode::CAST_FLOOR;
        static constexpr AscendC::Reg::MaskMergeMode mode = AscendC::Reg::MaskMergeMode::ZEROING;
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::Truncate<T, roundMode, mode>(yReg, xReg, mask);
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
    }

The kernel runs it for T = float on 256 elements (oneRepeatSize = GetVecLen() / sizeof(T) = 64);
regsim also runs the template's T = half instance with the same reference.
The reference is the example's gen_data.py: `np.floor(uniform(-100, 100, 256).astype(float32))`
(gen_data.py has no seed; regsim's run fixes it).
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 256


T = TypeVar("T", rs.half, rs.float32)
ROUND_MODE: Final = rs.AscendC.RoundMode.CAST_FLOOR  # static constexpr AscendC::RoundMode roundMode


@rs.simd_vf
def truncate_vf(x_addr: rs.UbPtr[T], y_addr: rs.UbPtr[T], repeat_times: int, one_repeat_size: int) -> None:
    mask = Reg.CreateMask(x_addr.dtype, pattern=Reg.MaskPattern.ALL)
    x_reg = Reg.RegTensor(x_addr.dtype)
    y_reg = Reg.RegTensor(x_addr.dtype)
    for i in range(repeat_times):
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)
        Reg.Truncate(y_reg, x_reg, mask, round_mode=ROUND_MODE, mode=Reg.MaskMergeMode.ZEROING)
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)


def kernel(x: npt.NDArray[Any], dtype: Any) -> npt.NDArray[Any]:
    """The __aicore__ side: two 256-element UB tensors and asc_vf_call<TruncateVF<T>>."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(dtype, 256)
    y_local = ub.alloc(dtype, 256)
    x_local.set(x)
    one_repeat_size = 256 // dtype.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(totalLength, oneRepeatSize)
    rs.asc_vf_call(truncate_vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), repeat_times, one_repeat_size)
    out: npt.NDArray[Any] = y_local.numpy()
    return out


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(-100, 100, TOTAL_LENGTH).astype(np.float32)
    xh = rng.uniform(-100, 100, TOTAL_LENGTH).astype(np.float16)  # TruncateVF<half>: the template's other use
    return {
        "float: y = floor(x) (CAST_FLOOR)": (kernel(x, rs.float32), np.floor(x)),
        "half: y = floor(x) (CAST_FLOOR)": (kernel(xh, rs.half), np.floor(xh)),
    }
