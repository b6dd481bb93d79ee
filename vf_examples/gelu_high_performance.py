"""The gelu_high_performance best-practice example (05_best_practices/02_reg_compute/gelu_high_performance,
gelu.asc), its scenarios 0, 1 and 2 (SCENARIO_NUM; scenario 2 adds `#pragma unroll 6`, which changes nothing
computed). Scenarios 1 and 2:

    __simd_vf__ inline static void GeluVfBasic(
        __ubuf__ float* xAddr, __ubuf__ float* yAddr, uint32_t n, uint32_t loopNum)
    {
        constexpr uint32_t oneRepeatSize = AscendC::GetVecLen() / sizeof(float);
        AscendC::Reg::MaskReg mask;
        AscendC::Reg::RegTensor<float> xReg, yReg;
    #if SCENARIO_NUM == 2
    #pragma unroll 6
    #endif
        for (uint16_t i = 0; i < loopNum; ++i) {
            mask = AscendC::Reg::UpdateMask<float>(n);
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::Mul(yReg, xReg, xReg, mask);
            AscendC::Reg::Mul(yReg, yReg, xReg, mask);
            AscendC::Reg::Muls(yReg, yReg, COEFF_A, mask);
            AscendC::Reg::Add(yReg, xReg, yReg, mask);
            AscendC::Reg::Muls(yReg, yReg, COEFF_B, mask);
            AscendC::Reg::Exp(yReg, yReg, mask);
            AscendC::Reg::Adds(yReg, yReg, 1.0f, mask);
            AscendC::Reg::Div(yReg, xReg, yReg, mask);
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
    }

called per tile as `asc_vf_call<GeluVfBasic>(xAddr, yAddr, n, DivCeil(n, oneRepeatSize))` by the tiled
`Process` of `_gelu_tiles` (ping-pong UB buffers over each core's rows), and its scenario 0, the same sequence
with the memory-level APIs (each one VF of the 950 library; Exp and Div with their default ExpConfig /
DivConfig, INTRINSIC):

    __aicore__ inline void GeluCompute(
        const AscendC::LocalTensor<float>& xLocal, const AscendC::LocalTensor<float>& yLocal, uint32_t n)
    {
        AscendC::Mul(yLocal, xLocal, xLocal, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Mul(yLocal, yLocal, xLocal, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(yLocal, yLocal, COEFF_A, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Add(yLocal, xLocal, yLocal, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Muls(yLocal, yLocal, COEFF_B, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Exp(yLocal, yLocal, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Adds(yLocal, yLocal, (float)1.0, n);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::Div(yLocal, xLocal, yLocal, n);
    }

(regsim runs the calls in program order, so `PipeBarrier<PIPE_V>` has nothing to order.)

The shape: main() runs [8192, 8192] with singleCoreM = 256, singleCoreN = 4096, tileLen = 2 · singleCoreN over
64 cores; here the same tiling code runs [10, 2048] with singleCoreM = 4, singleCoreN = 1024, tileLen = 2048
(6 cores, two tiles per core, the last core's M tail of 2 rows) to keep the example fast.

gen_data.py: `x = np.random.uniform(-10, 10, shape).astype(np.float32)` (unseeded: `run(seed)` seeds numpy's
global generator); golden `x / (1 + np.exp(-1.595769 * (x + 0.044715 * x**3)))` (numpy float32).

The comparison (every scenario): bit-exact against the kernel's sequence in numpy (`_kernel_order.gelu_kernel_order`, Exp and
Div as their correctly rounded values, within the pages' 1 ulp), and as verify_result.py checks gen_data.py's
golden (np.isclose, rtol 1e-4, atol 1e-5).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg
from vf_examples._gelu_tiles import Tiling, run_cores
from vf_examples._kernel_order import gelu_kernel_order, vendor_isclose

COEFF_A = 0.044715  # constexpr float COEFF_A = 0.044715f;
COEFF_B = -1.595769  # constexpr float COEFF_B = -1.595769f;
TILING = Tiling(total_m=10, total_n=2048, single_core_m=4, single_core_n=1024, tile_len=2 * 1024)
Ptr = rs.UbPtr[rs.float32]


@rs.simd_vf
def gelu_vf_basic(x_addr: Ptr, y_addr: Ptr, n: int, loop_num: int) -> None:
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize  # GetVecLen() / sizeof(float)
    x_reg, y_reg = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    count = rs.Ref(n)
    for i in range(loop_num):  # (scenario 2: #pragma unroll 6)
        mask = Reg.UpdateMask(rs.float32, count)  # mask = UpdateMask<float>(n);
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)
        Reg.Mul(y_reg, x_reg, x_reg, mask)
        Reg.Mul(y_reg, y_reg, x_reg, mask)
        Reg.Muls(y_reg, y_reg, COEFF_A, mask)
        Reg.Add(y_reg, x_reg, y_reg, mask)
        Reg.Muls(y_reg, y_reg, COEFF_B, mask)
        Reg.Exp(y_reg, y_reg, mask)
        Reg.Adds(y_reg, y_reg, 1.0, mask)
        Reg.Div(y_reg, x_reg, y_reg, mask)
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)


def gelu_compute(x_local: rs.LocalTensor[Any], y_local: rs.LocalTensor[Any], n: int) -> None:
    """GeluCompute (scenario 0): the memory-level APIs over the tile's n elements."""
    A = rs.AscendC
    A.Mul(y_local, x_local, x_local, n)  # yLocal = x * x
    A.Mul(y_local, y_local, x_local, n)  # yLocal = x² * x
    A.Muls(y_local, y_local, COEFF_A, n)  # yLocal = 0.044715 * x³
    A.Add(y_local, x_local, y_local, n)  # yLocal = x + 0.044715 * x³
    A.Muls(y_local, y_local, COEFF_B, n)  # yLocal = -1.595769 * (x + 0.044715 * x³)
    A.Exp(y_local, y_local, n)  # yLocal = e^(...)
    A.Adds(y_local, y_local, 1.0, n)  # yLocal = 1 + e^(...)
    A.Div(y_local, x_local, y_local, n)  # yLocal = x / (1 + e^(...))


def gelu_reg_base_compute(x_local: rs.LocalTensor[Any], y_local: rs.LocalTensor[Any], n: int) -> None:
    """GeluRegBaseCompute: one VF call over the tile's n elements."""
    one_repeat_size = 256 // rs.float32.itemsize
    loop_num = -(-n // one_repeat_size)  # DivCeil(n, oneRepeatSize)
    rs.asc_vf_call(gelu_vf_basic, x_local.GetPhyAddr(), y_local.GetPhyAddr(), n, loop_num)


def golden(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """gen_data.py's golden."""
    coeff = -1.595769
    exponent = coeff * (x + 0.044715 * (x**3))
    out: npt.NDArray[np.float32] = (x / (1 + np.exp(exponent))).astype(np.float32)
    return out


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(-10, 10, [TILING.total_m, TILING.total_n]).astype(np.float32).reshape(-1)
    want = gelu_kernel_order(x, COEFF_A, COEFF_B)
    ones = np.ones(x.size, np.uint8)
    outputs: dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]] = {}
    for scenario in (0, 1, 2):  # 0: the memory-level APIs; 1, 2: the same VF (scenario 2 only unrolls the loop)
        y = run_cores(x, TILING, gelu_compute if scenario == 0 else gelu_reg_base_compute)
        outputs[f"scenario {scenario}: y (the kernel's order, bit-exact)"] = (y.view(np.uint32), want.view(np.uint32))
        outputs[f"scenario {scenario}: y within verify_result.py's tolerance of gen_data.py's golden"] = (
            vendor_isclose(y, golden(x)),
            ones,
        )
    return outputs
