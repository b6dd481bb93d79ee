"""The reg_store_scatter example (scatter_st_reg.asc): dst[index[i]] = src[i] in half, with a
reversed uint16 index, into a dst the host zero-filled.

The C++ twin (count = 128, oneRepeatSize = 128):

    template <typename T, typename U>
    __simd_vf__ inline void ScatterVF(__ubuf__ T* dstAddr, __ubuf__ T* srcAddr, __ubuf__ U* indexAddr,
        uint32_t count, uint32_t oneRepeatSize)
    {
        ...
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            mask = AscendC::Reg::UpdateMask<T>(count);
            AscendC::Reg::LoadAlign(srcReg, srcAddr + i * oneRepeatSize);
            AscendC::Reg::LoadAlign(indexReg, indexAddr + i * oneRepeatSize);
            AscendC::Reg::Scatter(dstAddr, srcReg, indexReg, mask);
        }
    }

gen_data.py: `x = uniform(0, 1, 128)` in half (no seed: `run(seed)` sets one), `index =
arange(127, -1, -1)` (uint16); golden `x[::-1]`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

COUNT = 128


@rs.simd_vf
def scatter_vf(
    dst: rs.UbPtr[rs.half], src: rs.UbPtr[rs.half], index: rs.UbPtr[rs.uint16], count: int, one_repeat_size: int
) -> None:
    src_reg = Reg.RegTensor(rs.half)
    index_reg = Reg.RegTensor(rs.uint16)
    n = rs.Ref(count)
    for i in range(-(-count // one_repeat_size)):
        mask = Reg.UpdateMask(rs.half, n)  # mask = UpdateMask<T>(count);
        Reg.LoadAlign(src_reg, src + i * one_repeat_size)  # LoadAlign(srcReg, srcAddr + i * oneRepeatSize);
        Reg.LoadAlign(index_reg, index + i * one_repeat_size)
        Reg.Scatter(dst, src_reg, index_reg, mask)  # Scatter(dstAddr, srcReg, indexReg, mask);


def kernel(x: npt.NDArray[np.float16], index: npt.NDArray[np.uint16]) -> npt.NDArray[np.float16]:
    ub = rs.UnifiedBuffer()
    src, idx, dst = ub.alloc(rs.half, COUNT), ub.alloc(rs.uint16, COUNT), ub.alloc(rs.half, COUNT)
    src.set(x)
    idx.set(index)
    dst.set(np.zeros(COUNT, np.float16))  # AscendC::Duplicate(dstLocal, (T)0, count);
    rs.asc_vf_call(scatter_vf, dst.GetPhyAddr(), src.GetPhyAddr(), idx.GetPhyAddr(), COUNT, 128)
    return dst.numpy()


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, COUNT).astype(np.float16)
    index = np.arange(COUNT - 1, -1, -1).astype(np.uint16)
    perm = rng.permutation(COUNT).astype(np.uint16)  # beyond gen_data.py: any permutation scatters alike
    golden = np.zeros(COUNT, np.float16)
    golden[perm] = x
    return {
        "dst (gen_data.py's reversed index)": (kernel(x, index).view(np.uint16), x[::-1].copy().view(np.uint16)),
        "dst (a random permutation index)": (kernel(x, perm).view(np.uint16), golden.view(np.uint16)),
    }
