"""The two scenarios of the reg_load_store_mask example (ld_st_reg_mask_scenario_{1,2}.asc): a
MaskReg loaded from the UB drives Duplicate + StoreAlign (1) and, loaded 32 bytes at a time with
POST_MODE_UPDATE, Select (2); and a MaskReg is stored to the UB (1). A MaskReg is 256 bits; bit k
lives in UB byte k // 8, bit k % 8, and an element j of width w bytes is governed by bit j * w.

The C++ twins:

    // 1: T = uint8_t, oneRepeatSize = 256; y pre-filled with 0 by Duplicate
    __simd_vf__ inline void CopyVF(__ubuf__ T* dstAddr, __ubuf__ T* srcAddr, uint16_t repeatTimes, uint16_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> reg;
        AscendC::Reg::MaskReg mask;
        AscendC::Reg::LoadAlign(mask, srcAddr);
        AscendC::Reg::Duplicate<T>(reg, 2, mask);
        AscendC::Reg::StoreAlign(dstAddr, reg, mask);
        // save mask with offset
        mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::StoreAlign(dstAddr + oneRepeatSize, mask);
    }

    // 2: T = float, totalLength = 256, maskLength = 128 bytes: SelectVF, character for character the
    //    kernel of the `select` example (vf_examples/select_vf.py, reused here), with the same gen_data

gen_data.py: scenario 1 draws nothing (src = zeros with src[0] = src[31] = 1, i.e. mask bits 0 and
248; golden y[0] = y[248] = 2 and y[256:288] = 0xFF); scenario 2 draws x, y = uniform(0, 2, 256) in
float32 and mask = randint(0, 255, 128) in uint8 (no seed: `run(seed)` sets one), golden
z[i] = x[i] if bit (i % 2) * 4 of mask[i // 2] is set else y[i] (select_vf's inputs and golden).
The vendor compares scenario 1 as floats with a tolerance (so its 0xFF bytes, NaNs, can never
fail); here every byte is compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg
from vf_examples import select_vf

LENGTH_1 = 1024  # scenario 1: uint8 elements


@rs.simd_vf
def copy_vf(dst_addr: rs.UbPtr[rs.uint8], src_addr: rs.UbPtr[rs.uint8], repeat_times: int, one_repeat_size: int) -> None:
    reg = Reg.RegTensor(rs.uint8)
    mask = Reg.MaskReg()
    Reg.LoadAlign(mask, src_addr)  # LoadAlign(mask, srcAddr);
    Reg.Duplicate(reg, 2, mask)  # Duplicate<T>(reg, 2, mask);
    Reg.StoreAlign(dst_addr, reg, mask)  # StoreAlign(dstAddr, reg, mask);
    mask = Reg.CreateMask(rs.uint8, pattern=Reg.MaskPattern.ALL)
    Reg.StoreAlign(dst_addr + one_repeat_size, mask)  # StoreAlign(dstAddr + oneRepeatSize, mask);


def kernel_1(src: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """Scenario 1's __aicore__ side: x, y in allocation order; y zeroed by Duplicate; one VF call."""
    ub = rs.UnifiedBuffer()
    x_local, y_local = ub.alloc(rs.uint8, LENGTH_1), ub.alloc(rs.uint8, LENGTH_1)
    x_local.set(src)
    y_local.set(np.zeros(LENGTH_1, np.uint8))  # AscendC::Duplicate<T>(yLocal, 0, totalLength);
    one_repeat_size = 256 // rs.uint8.itemsize
    rs.asc_vf_call(copy_vf, y_local.GetPhyAddr(), x_local.GetPhyAddr(), LENGTH_1 // one_repeat_size, one_repeat_size)
    return y_local.numpy()


def reference_1() -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.uint8]]:
    """gen_data.py's gen_data_1: (src, golden)."""
    src = np.zeros(LENGTH_1, np.uint8)
    src[0] = 1
    src[31] = 1
    dst = np.zeros(LENGTH_1, np.uint8)
    dst[0] = 2
    dst[248] = 2
    dst[256 : 256 + 32] = 255
    return src, dst


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    src, golden_1 = reference_1()
    x, y, mask = select_vf.inputs(seed)
    return {
        "scenario 1 y (Duplicate + masked store, MaskReg store)": (kernel_1(src), golden_1),
        "scenario 2 z (Select by loaded masks)": (
            select_vf.kernel(x, y, mask).view(np.uint32),
            select_vf.golden(x, y, mask).view(np.uint32),
        ),
    }
