"""The two scenarios of the reg_load_gather example (gather_ld_reg.asc): element gather from UB
by a uint16 index register (Gather) and DataBlock gather by byte offsets (GatherB), in half.

The C++ twins (count = 128, oneRepeatSize = 128, indexRepeatSize = 8):

    template <typename T, typename IndexT>
    __simd_vf__ inline void GatherVF(__ubuf__ T* dstAddr, __ubuf__ T* srcAddr, __ubuf__ IndexT* indexAddr,
        uint32_t count, uint32_t oneRepeatSize)
    {
        ...
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            mask = AscendC::Reg::UpdateMask<T>(count);
            AscendC::Reg::LoadAlign(indexReg, indexAddr + i * oneRepeatSize);
            AscendC::Reg::Gather(dstReg, srcAddr, indexReg, mask);
            AscendC::Reg::StoreAlign(dstAddr + i * oneRepeatSize, dstReg, mask);
        }
    }
    // GatherBVF: the same loop with LoadAlign(indexReg, indexAddr + i * indexRepeatSize) (uint32_t)
    //            and AscendC::Reg::GatherB(dstReg, srcAddr, indexReg, mask)

gen_data.py draws `x = uniform(0, 1, 1024)` in half, `index = randint(0, 1024, 128)` (uint16) and
block indices `randint(0, 64, 8)` times 32 (bytes); it sets no seed, so `run(seed)` does.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

SRC_LENGTH, COUNT = 1024, 128


@rs.simd_vf
def gather_vf(
    dst: rs.UbPtr[rs.half], src: rs.UbPtr[rs.half], index: rs.UbPtr[rs.uint16], count: int, one_repeat_size: int
) -> None:
    dst_reg = Reg.RegTensor(rs.half)
    index_reg = Reg.RegTensor(rs.uint16)
    n = rs.Ref(count)
    repeat_times = -(-count // one_repeat_size)  # DivCeil(count, oneRepeatSize)
    for i in range(repeat_times):
        mask = Reg.UpdateMask(rs.half, n)  # mask = UpdateMask<T>(count);
        Reg.LoadAlign(index_reg, index + i * one_repeat_size)  # LoadAlign(indexReg, indexAddr + i * oneRepeatSize);
        Reg.Gather(dst_reg, src, index_reg, mask)  # Gather(dstReg, srcAddr, indexReg, mask);
        Reg.StoreAlign(dst + i * one_repeat_size, dst_reg, mask)


@rs.simd_vf
def gather_b_vf(
    dst: rs.UbPtr[rs.half],
    src: rs.UbPtr[rs.half],
    index: rs.UbPtr[rs.uint32],
    count: int,
    one_repeat_size: int,
    index_repeat_size: int,
) -> None:
    dst_reg = Reg.RegTensor(rs.half)
    index_reg = Reg.RegTensor(rs.uint32)
    n = rs.Ref(count)
    repeat_times = -(-count // one_repeat_size)
    for i in range(repeat_times):
        mask = Reg.UpdateMask(rs.half, n)
        Reg.LoadAlign(index_reg, index + i * index_repeat_size)  # 256 B read: only index[0..7] are used
        Reg.GatherB(dst_reg, src, index_reg, mask)  # GatherB(dstReg, srcAddr, indexReg, mask);
        Reg.StoreAlign(dst + i * one_repeat_size, dst_reg, mask)


def kernel_gather(x: npt.NDArray[np.float16], index: npt.NDArray[np.uint16]) -> npt.NDArray[np.float16]:
    ub = rs.UnifiedBuffer()
    src, idx, dst = ub.alloc(rs.half, SRC_LENGTH), ub.alloc(rs.uint16, COUNT), ub.alloc(rs.half, COUNT)
    src.set(x)
    idx.set(index)
    rs.asc_vf_call(gather_vf, dst.GetPhyAddr(), src.GetPhyAddr(), idx.GetPhyAddr(), COUNT, 128)
    return dst.numpy()


def kernel_gather_b(x: npt.NDArray[np.float16], offsets: npt.NDArray[np.uint32]) -> npt.NDArray[np.float16]:
    ub = rs.UnifiedBuffer()
    src, idx, dst = ub.alloc(rs.half, SRC_LENGTH), ub.alloc(rs.uint32, 8), ub.alloc(rs.half, COUNT)
    src.set(x)
    idx.set(offsets)
    # index lanes 8..63 hold the bytes after the 8 offsets (dst's, never written): GatherB reads only 0..7
    rs.asc_vf_call(gather_b_vf, dst.GetPhyAddr(), src.GetPhyAddr(), idx.GetPhyAddr(), COUNT, 128, 8)
    return dst.numpy()


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1, SRC_LENGTH).astype(np.float16)
    index = rng.integers(0, SRC_LENGTH, COUNT).astype(np.uint16)
    blocks = rng.integers(0, 64, 8).astype(np.uint32)
    golden_b = np.concatenate([x[16 * int(b) : 16 * int(b) + 16] for b in blocks])
    return {
        "scenario 1 Gather dst": (kernel_gather(x, index).view(np.uint16), x[index].view(np.uint16)),
        "scenario 2 GatherB dst": (kernel_gather_b(x, blocks * 32).view(np.uint16), golden_b.view(np.uint16)),
    }
