"""Squeeze with STORE_REG and the AR-form StoreUnAlign, the asc-devkit example
`02_reg_vector_compute/squeeze` (T = float, 256 elements in, 64 out).

    template <typename T>
    __simd_vf__ inline void SqueezeVF(__ubuf__ T* xAddr, __ubuf__ T* yAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::M4>();
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> yReg;
        AscendC::Reg::UnalignRegForStore ureg;
        AscendC::Reg::ClearSpr<AscendC::SpecialPurposeReg::AR>();
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
            AscendC::Reg::Squeeze<T, AscendC::Reg::GatherMaskMode::STORE_REG>(yReg, xReg, mask);
            AscendC::Reg::StoreUnAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(yAddr, yReg, ureg);
        }
        AscendC::Reg::StoreUnAlignPost(yAddr, ureg);
    }

Each repeat keeps lanes 0, 4, 8, … (M4: 16 of 64 floats) and appends them to y: `yAddr` is
passed by value, and the running offset is the AR register's byte count. gen_data.py (no seed;
`run(seed)` sets one): `x = np.random.uniform(-2, 2, [1, 256]).astype(np.float32)`,
`golden = x.reshape(64, 4)[:, 0]` (an exact copy, so bit-exact). A second output is AR after the
VF, 256 bytes, as the GetSpr page's example reads it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

SRC_LENGTH = 256
DST_LENGTH = 64
ONE_REPEAT = 64
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE


@rs.simd_vf
def squeeze_vf(x_addr: rs.UbPtr[rs.float32], y_addr: rs.UbPtr[rs.float32], repeat_times: int, one_repeat_size: int) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.M4)  # MaskReg mask = CreateMask<T, MaskPattern::M4>();
    x_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> xReg;
    y_reg = Reg.RegTensor(rs.float32)  # RegTensor<T> yReg;
    ureg = Reg.UnalignRegForStore()  # UnalignRegForStore ureg;
    Reg.ClearSpr(spr=rs.AscendC.SpecialPurposeReg.AR)  # ClearSpr<SpecialPurposeReg::AR>();
    for _ in range(repeat_times):  # for (uint16_t i = 0; i < repeatTimes; ++i) {
        Reg.LoadAlign(x_reg, x_addr, one_repeat_size, post_mode=UPDATE)  # LoadAlign<T, POST_MODE_UPDATE>(xReg, xAddr, n);
        Reg.Squeeze(y_reg, x_reg, mask, store=Reg.GatherMaskMode.STORE_REG)  # Squeeze<T, STORE_REG>(yReg, xReg, mask);
        Reg.StoreUnAlign(y_addr, y_reg, ureg, post_mode=UPDATE)  # StoreUnAlign<T, POST_MODE_UPDATE>(yAddr, yReg, ureg);
    Reg.StoreUnAlignPost(y_addr, ureg)  # StoreUnAlignPost(yAddr, ureg);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(-2, 2, [1, SRC_LENGTH]).astype(np.float32)
    golden = x.reshape(SRC_LENGTH // 4, 4)[:, 0]

    ub = rs.UnifiedBuffer()
    x_ub, y_ub = ub.alloc(rs.float32, SRC_LENGTH), ub.alloc(rs.float32, DST_LENGTH)
    x_ub.set(x.reshape(-1))
    rs.asc_vf_call(squeeze_vf, x_ub.GetPhyAddr(), y_ub.GetPhyAddr(), SRC_LENGTH // ONE_REPEAT, ONE_REPEAT)
    ar = np.array([ub.core.ar], np.int64)  # GetSpr<SpecialPurposeReg::AR>() after the VF
    return {"y": (y_ub.numpy(), golden), "AR (bytes)": (ar, np.array([DST_LENGTH * 4], np.int64))}
