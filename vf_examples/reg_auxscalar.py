"""The reg_auxscalar example (auxscalar_reg.asc): four half scalars are read from the UB inside
the VF through the `__ubuf__` pointer (`scalarAddr[i]`, an aux-scalar read), and each is added
with Adds to one 128-element repeat of x, streamed with POST_MODE_UPDATE loads and stores.

The C++ twin (T = half, repeatTimes = 4, oneRepeatSize = 128):

    __simd_vf__ inline void AuxScalarAddsVF(
        __ubuf__ T* xAddr, __ubuf__ T* scalarAddr, __ubuf__ T* zAddr, uint32_t repeatTimes, uint32_t oneRepeatSize)
    {
        AscendC::Reg::RegTensor<T> xReg;
        AscendC::Reg::RegTensor<T> zReg;
        AscendC::Reg::MaskReg mask = AscendC::Reg::CreateMask<T, AscendC::Reg::MaskPattern::ALL>();
        for (uint16_t i = 0; i < repeatTimes; ++i) {
            T scalar = scalarAddr[i];
            AscendC::Reg::LoadAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(xReg, xAddr, oneRepeatSize);
            AscendC::Reg::Adds(zReg, xReg, scalar, mask);
            AscendC::Reg::StoreAlign<T, AscendC::Reg::PostLiteral::POST_MODE_UPDATE>(zAddr, zReg, oneRepeatSize, mask);
        }
    }

gen_data.py: `x = uniform(1, 2, [1, 512])` in float16 (no seed: `run(seed)` sets one); the scalar
buffer is 16 halves, [1.5, 2.5, 3.5, 4.5] then zeros (padded to 32 bytes for DataCopy); golden
z[128i:128i+128] = x[128i:128i+128] + scalar[i] in numpy float16 (one IEEE rounding, RNE).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

TOTAL_LENGTH = 512
SCALAR_LENGTH = 16  # 32 bytes of halves, the DataCopy granule
BLOCK_SIZE = 128
SCALAR_VALUES = np.array([1.5, 2.5, 3.5, 4.5], np.float16)
UPDATE = Reg.PostLiteral.POST_MODE_UPDATE
Ptr = rs.UbPtr[rs.half]


@rs.simd_vf
def aux_scalar_adds_vf(x_addr: Ptr, scalar_addr: Ptr, z_addr: Ptr, repeat_times: int, one_repeat_size: int) -> None:
    x_reg, z_reg = Reg.RegTensor(rs.half), Reg.RegTensor(rs.half)
    mask = Reg.CreateMask(rs.half, pattern=Reg.MaskPattern.ALL)  # CreateMask<T, MaskPattern::ALL>();
    for i in range(repeat_times):
        scalar = scalar_addr[i]  # T scalar = scalarAddr[i];
        Reg.LoadAlign(x_reg, x_addr, one_repeat_size, post_mode=UPDATE)  # LoadAlign<T, POST_MODE_UPDATE>(xReg, xAddr, ...);
        Reg.Adds(z_reg, x_reg, scalar, mask)  # Adds(zReg, xReg, scalar, mask);
        Reg.StoreAlign(z_addr, z_reg, one_repeat_size, mask, post_mode=UPDATE)


def kernel(x: npt.NDArray[np.float16], scalar: npt.NDArray[np.float16]) -> npt.NDArray[np.float16]:
    """The __aicore__ side: UB tensors x, scalar, z in allocation order, one VF call."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.half, TOTAL_LENGTH)
    scalar_local = ub.alloc(rs.half, SCALAR_LENGTH)
    z_local = ub.alloc(rs.half, TOTAL_LENGTH)
    x_local.set(x)
    scalar_local.set(scalar)
    one_repeat_size = 256 // rs.half.itemsize  # GetVecLen() / sizeof(T)
    repeat_times = TOTAL_LENGTH // one_repeat_size
    rs.asc_vf_call(
        aux_scalar_adds_vf, x_local.GetPhyAddr(), scalar_local.GetPhyAddr(), z_local.GetPhyAddr(), repeat_times, one_repeat_size
    )
    return z_local.numpy()


def reference(x: npt.NDArray[np.float16]) -> npt.NDArray[np.float16]:
    """gen_data.py's golden: each 128-element block plus its scalar, in numpy float16."""
    golden = np.zeros_like(x)
    for i in range(len(SCALAR_VALUES)):
        golden[i * BLOCK_SIZE : (i + 1) * BLOCK_SIZE] = x[i * BLOCK_SIZE : (i + 1) * BLOCK_SIZE] + SCALAR_VALUES[i]
    return golden


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x = np.random.default_rng(seed).uniform(1, 2, TOTAL_LENGTH).astype(np.float16)
    scalar = np.zeros(SCALAR_LENGTH, np.float16)
    scalar[: len(SCALAR_VALUES)] = SCALAR_VALUES
    z, golden = kernel(x, scalar).view(np.uint16), reference(x).view(np.uint16)
    blocks = [np.s_[i * BLOCK_SIZE : (i + 1) * BLOCK_SIZE] for i in range(len(SCALAR_VALUES))]
    return {f"z[{b.start}:{b.stop}] (+ scalarAddr[{i}])": (z[b], golden[b]) for i, b in enumerate(blocks)}
