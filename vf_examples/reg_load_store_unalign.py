"""Scenario 1 of the reg_load_store_unalign example (ld_st_reg_unalign.asc): 128 floats copied
from x + 1 to y + 1 (4 bytes off the 32-byte grid) by an unaligned load stream and an unaligned
store stream, flushed by StoreUnAlignPost; the rest of y keeps the host's zeros.

The C++ twin (oneRepeatSize = 64; called as CopyVF(dstAddr + 1, srcAddr + 1, oneRepeatSize)):

    __simd_vf__ static inline void CopyVF(__ubuf__ T* dstAddr, __ubuf__ T* srcAddr, uint16_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> srcReg, dstReg;
        AscendC::Reg::UnalignRegForLoad ureg0;
        AscendC::Reg::UnalignRegForStore ureg1;

        AscendC::Reg::LoadUnAlignPre(ureg0, srcAddr);
        for (uint16_t i = 0; i < 2; ++i) {
            AscendC::Reg::LoadUnAlign(srcReg, ureg0, srcAddr, oneRepeatSize);
            AscendC::Reg::StoreUnAlign(dstAddr, srcReg, ureg1, oneRepeatSize);
        }
        AscendC::Reg::StoreUnAlignPost(dstAddr, ureg1, 0);
    }

gen_data.py: `x = randn(1024)` in float32 (no seed: `run(seed)` sets one); golden = zeros with
golden[1:129] = x[1:129]. Scenario 2 needs ReduceDataBlock, which regsim does not model yet.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

COUNT = 1024


@rs.simd_vf
def copy_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], one_repeat_size: int) -> None:
    src_reg = Reg.RegTensor(rs.float32)
    ureg0 = Reg.UnalignRegForLoad()
    ureg1 = Reg.UnalignRegForStore()
    Reg.LoadUnAlignPre(ureg0, src)  # LoadUnAlignPre(ureg0, srcAddr);
    for _ in range(2):
        Reg.LoadUnAlign(src_reg, ureg0, src, one_repeat_size)  # LoadUnAlign(srcReg, ureg0, srcAddr, oneRepeatSize);
        Reg.StoreUnAlign(dst, src_reg, ureg1, one_repeat_size)  # StoreUnAlign(dstAddr, srcReg, ureg1, oneRepeatSize);
    Reg.StoreUnAlignPost(dst, ureg1, 0)  # StoreUnAlignPost(dstAddr, ureg1, 0);


def kernel(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    ub = rs.UnifiedBuffer()
    x_local, y_local = ub.alloc(rs.float32, COUNT), ub.alloc(rs.float32, COUNT)
    x_local.set(x)
    y_local.set(np.zeros(COUNT, np.float32))  # AscendC::Duplicate<T>(yLocal, 0, count);
    rs.asc_vf_call(copy_vf, y_local.GetPhyAddr() + 1, x_local.GetPhyAddr() + 1, 64)
    return y_local.numpy()


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x = np.random.default_rng(seed).standard_normal(COUNT).astype(np.float32)
    golden = np.zeros(COUNT, np.float32)
    golden[1:129] = x[1:129]
    y = kernel(x).view(np.uint32)
    want = golden.view(np.uint32)
    return {
        "y[1:129] (streamed)": (y[1:129], want[1:129]),
        "y[0], y[129:] (untouched zeros)": (np.delete(y, np.s_[1:129]), np.delete(want, np.s_[1:129])),
    }
