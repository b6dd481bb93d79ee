"""SelectVF of the asc-devkit `select` example (reg_vector_compute): z = mask ? x : y, the mask
loaded from UB 32 bytes per repeat (a MaskReg `LoadAlign`), float lane i governed by bit 4i.

The C++ twin (examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/select/select.asc):

    template <typename T>
    __simd_vf__ inline void SelectVF(
        __ubuf__ T* xAddr, __ubuf__ T* yAddr, __ubuf__ uint8_t* maskAddr, __ubuf__ T* zAddr, uint32_t repeatTimes,
        uint32_t oneRepeatSize, uint32_t maskRepeatSize)
    {
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> yReg;
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T>();
        AscendC::Reg::RegTensor<T> zReg;
        AscendC::Reg::MaskReg storeMask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(yReg, yAddr, oneRepeatSize);
            AscendC::Reg::LoadAlign<uint8_t, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(mask, maskAddr, maskRepeatSize);
            AscendC::Reg::Select(zReg, xReg, yReg, mask);
            AscendC::Reg::StoreAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(zAddr, zReg, oneRepeatSize, storeMask);
        }
    }

The kernel runs T = float, totalLength = 256, maskLength = 128 bytes, maskRepeatSize =
GetVecLen() / 8 = 32. gen_data.py draws x, y uniform in [0, 2) and mask bytes in [0, 255)
without a seed (we seed it), and computes golden[i] = x[i] if bit (i % 2) * 4 of mask byte i // 2
is set, else y[i].
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 256
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@rs.simd_vf
def select_vf(
    x_addr: rs.UbPtr[rs.float32],
    y_addr: rs.UbPtr[rs.float32],
    mask_addr: rs.UbPtr[rs.uint8],
    z_addr: rs.UbPtr[rs.float32],
    repeat_times: int,
    one_repeat_size: int,
    mask_repeat_size: int,
) -> None:
    x_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> xReg;
    y_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> yReg;
    mask = Reg.CreateMask(rs.float32)  # MaskReg mask = CreateMask<T>();
    z_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> zReg;
    store_mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)  # MaskReg storeMask = CreateMask<T, ALL>();
    for _ in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(
            x_reg, x_addr, one_repeat_size, post_mode=UPDATE
        )  # LoadAlign<T, POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
        Reg.LoadAlign(
            y_reg, y_addr, one_repeat_size, post_mode=UPDATE
        )  # LoadAlign<T, POST_MODE_UPDATE>(yReg, yAddr, oneRepeatSize);
        Reg.LoadAlign(
            mask, mask_addr, mask_repeat_size, post_mode=UPDATE
        )  # LoadAlign<uint8_t, POST_MODE_UPDATE>(mask, maskAddr, maskRepeatSize);
        Reg.Select(z_reg, x_reg, y_reg, mask)  # Select(zReg, xReg, yReg, mask);
        Reg.StoreAlign(
            z_addr, z_reg, one_repeat_size, store_mask, post_mode=UPDATE
        )  # StoreAlign<T, POST_MODE_UPDATE>(zAddr, zReg, oneRepeatSize, storeMask);


def inputs(seed: int) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.uint8]]:
    """gen_data.py's x, y (float32 uniform in [0, 2), [1, 256]) and mask (uint8 in [0, 255), [1, 128])."""
    rng = np.random.RandomState(seed)  # gen_data.py's np.random.* calls, on a seeded generator
    repeat = TOTAL_LENGTH // (256 // 4)
    x = rng.uniform(0, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    y = rng.uniform(0, 2, [1, TOTAL_LENGTH]).astype(np.float32)
    mask = rng.randint(0, 255, [1, repeat * 32]).astype(np.uint8)
    return x, y, mask


def golden(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], mask: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """gen_data.py's golden: element i takes x where bit (i % 2) * 4 of mask byte i // 2 is set."""
    dtype_size = 4
    mask_num = 8 // dtype_size
    out = np.zeros([1, TOTAL_LENGTH]).astype(np.float32)
    for i in range(TOTAL_LENGTH):
        mask_i = mask[0, i // mask_num] >> (i % mask_num * dtype_size) & 1
        out[0, i] = x[0, i] if mask_i == 1 else y[0, i]
    return out


def kernel(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], mask: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """The __aicore__ side (Kernel<float, 256, 128>::Process): UB tensors, asc_vf_call<SelectVF<float>>."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    y_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    mask_local = ub.alloc(rs.uint8, mask.size)
    z_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    x_local.set(x.reshape(-1))
    y_local.set(y.reshape(-1))
    mask_local.set(mask.reshape(-1))
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(totalLength, oneRepeatSize)
    mask_repeat_size = rs.AscendC.GetVecLen() // 8  # GetVecLen() / 8
    rs.asc_vf_call(
        select_vf,
        x_local.GetPhyAddr(),
        y_local.GetPhyAddr(),
        mask_local.GetPhyAddr(),
        z_local.GetPhyAddr(),
        repeat_times,
        one_repeat_size,
        mask_repeat_size,
    )
    return z_local.numpy().reshape(1, TOTAL_LENGTH)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x, y, mask = inputs(seed)
    # Edge masks gen_data.py never draws (255 is excluded): 0xEE sets every bit but 0 and 4, which
    # a float lane never reads, so it selects y twice; 0x11 sets exactly those, selecting x twice.
    edges = np.resize(np.array([0x00, 0xFF, 0x11, 0xEE, 0x10, 0x01], np.uint8), mask.shape)
    return {
        "z (Select by a UB mask)": (kernel(x, y, mask), golden(x, y, mask)),
        "z (edge mask bytes 0x00 0xFF 0x11 0xEE 0x10 0x01)": (kernel(x, y, edges), golden(x, y, edges)),
    }
