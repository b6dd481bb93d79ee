"""The cast example (basic API, Reg vector compute): `cast.asc`, both scenarios.

Scenario 1 widens half to int32_t (floor), loading with the unpacking distribution so that each
half sits in the low half of a 32-bit slot; scenario 2 narrows float to int16_t (round half away,
saturating), storing with the packing distribution that keeps the low half of each 32-bit slot.
The C++ twins:

    // scenario 1: half -> int32_t
    __simd_vf__ inline void CastVFF162S32(
        __ubuf__ half* xAddr, __ubuf__ int32_t* yAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<int32_t, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<half> xReg;
        AscendC::Reg::RegTensor<int32_t> yReg;
        static constexpr AscendC::Reg::CastTrait castTrait = {
            AscendC::Reg::RegLayout::ZERO, AscendC::Reg::SatMode::UNKNOWN, AscendC::Reg::MaskMergeMode::ZEROING,
            AscendC::RoundMode::CAST_FLOOR};
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<
                half, AscendC::Reg::PostLiteral::POST_MODE_UPDATE, AscendC::Reg::LoadDist::DIST_UNPACK_B16>(
                xReg, xAddr, oneRepeatSize);
            AscendC::Reg::Cast<int32_t, half, castTrait>(yReg, xReg, mask);
            AscendC::Reg::StoreAlign<int32_t, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(
                yAddr, yReg, oneRepeatSize, mask);
        }
    }

    // scenario 2: float -> int16_t
    __simd_vf__ inline void CastVFF322S16(
        __ubuf__ float* xAddr, __ubuf__ int16_t* yAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<float, AscendC::Reg::MaskPattern::ALL>();
        AscendC::Reg::RegTensor<float> xReg;
        AscendC::Reg::RegTensor<int16_t> yReg;
        static constexpr AscendC::Reg::CastTrait castTrait = {
            AscendC::Reg::RegLayout::ZERO, AscendC::Reg::SatMode::SAT, AscendC::Reg::MaskMergeMode::ZEROING,
            AscendC::RoundMode::CAST_ROUND};
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            AscendC::Reg::LoadAlign<float, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
            AscendC::Reg::Cast<int16_t, float, castTrait>(yReg, xReg, mask);
            AscendC::Reg::StoreAlign<
                int16_t, AscendC::Reg::PostLiteral::POST_MODE_UPDATE, AscendC::Reg::StoreDist::DIST_PACK_B32>(
                yAddr, yReg, oneRepeatSize, mask);
        }
    }

The kernel runs one of them on 256 elements (`SCENARIO_NUM`) with oneRepeatSize = GetVecLen() / the
larger element size = 64 and repeatTimes = 4. regsim runs both.
The references are the example's gen_data.py: `np.floor(x).astype(int32)` for x =
uniform(-100, 100, 256) as half, and `clip(np.round(x), int16 range).astype(int16)` for x as float32
(gen_data.py has no seed; regsim's run fixes it). `np.round` rounds ties to even where CAST_ROUND
rounds them away from zero; a float32 tie (x.5) in uniform(-100, 100) is too rare to occur with the
seeds the tests use, and `run` checks that none does, so the vendor's reference applies unchanged.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 256
UPDATE: Final = Reg.PostLiteral.POST_MODE_UPDATE
Z: Final = Reg.MaskMergeMode.ZEROING
RM: Final = rs.AscendC.RoundMode
# static constexpr AscendC::Reg::CastTrait castTrait (scenario 1, scenario 2)
TRAIT_F16_S32: Final = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.UNKNOWN, Z, RM.CAST_FLOOR)
TRAIT_F32_S16: Final = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.SAT, Z, RM.CAST_ROUND)


@rs.simd_vf
def cast_vf_f16_s32(x_addr: rs.UbPtr[rs.half], y_addr: rs.UbPtr[rs.int32], repeat_times: int, one_repeat_size: int) -> None:
    mask = Reg.CreateMask(rs.int32, pattern=Reg.MaskPattern.ALL)
    x_reg = Reg.RegTensor(rs.half)
    y_reg = Reg.RegTensor(rs.int32)
    for _ in range(repeat_times):
        # LoadAlign<half, POST_MODE_UPDATE, DIST_UNPACK_B16>(xReg, xAddr, oneRepeatSize): x[i] into slot 2i
        Reg.LoadAlign(x_reg, x_addr, one_repeat_size, post_mode=UPDATE, dist=Reg.LoadDist.DIST_UNPACK_B16)
        Reg.Cast(y_reg, x_reg, mask, trait=TRAIT_F16_S32)  # y[i] = floor(x[2i])
        Reg.StoreAlign(y_addr, y_reg, one_repeat_size, mask, post_mode=UPDATE)


@rs.simd_vf
def cast_vf_f32_s16(x_addr: rs.UbPtr[rs.float32], y_addr: rs.UbPtr[rs.int16], repeat_times: int, one_repeat_size: int) -> None:
    mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.ALL)
    x_reg = Reg.RegTensor(rs.float32)
    y_reg = Reg.RegTensor(rs.int16)
    for _ in range(repeat_times):
        Reg.LoadAlign(x_reg, x_addr, one_repeat_size, post_mode=UPDATE)
        Reg.Cast(y_reg, x_reg, mask, trait=TRAIT_F32_S16)  # y[2i] = round(x[i])
        # StoreAlign<int16_t, POST_MODE_UPDATE, DIST_PACK_B32>: the low half of each 32-bit slot, y[2i]
        Reg.StoreAlign(y_addr, y_reg, one_repeat_size, mask, post_mode=UPDATE, dist=Reg.StoreDist.DIST_PACK_B32)


def kernel(x: npt.NDArray[Any], src: Any, dst: Any, vf: Any) -> npt.NDArray[Any]:
    """The __aicore__ side: two 256-element UB tensors and asc_vf_call (the CTRL value `InitSocState()`
    leaves is regsim's launch value)."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(src, TOTAL_LENGTH)
    y_local = ub.alloc(dst, TOTAL_LENGTH)
    x_local.set(x)
    one_repeat_size = 256 // max(src.itemsize, dst.itemsize)  # GetVecLen() / sizeof(the wider type)
    repeat_times = -(-TOTAL_LENGTH // one_repeat_size)  # DivCeil(totalLength, oneRepeatSize)
    rs.asc_vf_call(vf, x_local.GetPhyAddr(), y_local.GetPhyAddr(), repeat_times, one_repeat_size)
    out: npt.NDArray[Any] = y_local.numpy()
    return out


def get_saturation(data: npt.NDArray[Any], data_type: Any) -> npt.NDArray[Any]:
    """gen_data.py's `get_saturation`: clip to the integer type's range."""
    out: npt.NDArray[Any] = np.clip(data, np.iinfo(data_type).min, np.iinfo(data_type).max)
    return out


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)
    x1 = rng.uniform(-100, 100, [1, TOTAL_LENGTH]).astype(np.float16)
    golden1 = np.floor(x1).astype(np.int32)
    x2 = rng.uniform(-100, 100, [1, TOTAL_LENGTH]).astype(np.float32)
    golden2 = get_saturation(np.round(x2), np.int16).astype(np.int16)
    ties = np.abs(x2 - np.trunc(x2)) == 0.5  # where np.round (ties to even) and CAST_ROUND could differ
    return {
        "scenario 1: y = floor(x), half -> int32_t": (
            kernel(x1.reshape(-1), rs.half, rs.int32, cast_vf_f16_s32),
            golden1.reshape(-1),
        ),
        "scenario 2: y = sat(round(x)), float -> int16_t": (
            kernel(x2.reshape(-1), rs.float32, rs.int16, cast_vf_f32_s16),
            golden2.reshape(-1),
        ),
        "scenario 2: no x.5 ties in the input": (ties.reshape(-1), np.zeros(TOTAL_LENGTH, np.bool_)),
    }
