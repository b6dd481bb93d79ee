"""The gelu_eltwise_high_performance best-practice example (05_best_practices/02_reg_compute/
gelu_eltwise_high_performance, gelu_eltwise.asc): GELU followed by an element-wise tail, its four scenarios
(SCENARIO_NUM 0-3). Scenarios 0 and 1 run one fused loop:

    __simd_vf__ inline static void GeluEltwiseBasic(
        __ubuf__ float* xAddr, __ubuf__ float* yAddr, uint32_t n, uint32_t loopNum, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask;
        if constexpr (scenarioNum == 0) {
            // case 0固定使用128 bytes并行度，即每次处理32个float元素，作为性能基线。
            mask = AscendC::Reg::CreateMask<float, AscendC::Reg::MaskPattern::VL32>();
        }
        AscendC::Reg::RegTensor<float> xReg, yReg;
        for (uint16_t i = 0; i < loopNum; ++i) {
            if constexpr (scenarioNum != 0) {
                mask = AscendC::Reg::UpdateMask<float>(n);
            }
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::Mul(yReg, xReg, xReg, mask);
            AscendC::Reg::Mul(yReg, yReg, xReg, mask);
            AscendC::Reg::Muls(yReg, yReg, COEFF_A, mask);
            AscendC::Reg::Add(yReg, xReg, yReg, mask);
            AscendC::Reg::Muls(yReg, yReg, COEFF_B, mask);
            AscendC::Reg::Exp(yReg, yReg, mask);
            AscendC::Reg::Adds(yReg, yReg, 1.0f, mask);
            AscendC::Reg::Div(yReg, xReg, yReg, mask);
            AscendC::Reg::Adds(yReg, yReg, COEFF_C, mask);
            AscendC::Reg::Mul(yReg, yReg, yReg, mask);
            AscendC::Reg::Muls(yReg, yReg, COEFF_D, mask);
            AscendC::Reg::Adds(yReg, yReg, COEFF_E, mask);
            AscendC::Reg::Exp(yReg, yReg, mask);
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
    }

(scenario 0: oneRepeatSize = 128 / sizeof(float) = 32, so each repeat loads 64 floats and computes and stores the
first 32); scenarios 2 and 3 split it into two loops through UB (scenario 3 adds `#pragma unroll 6`):

    __simd_vf__ inline static void GeluEltwiseLoopSplit(
        __ubuf__ float* xAddr, __ubuf__ float* yAddr, uint32_t n, uint32_t loopNum, uint32_t oneRepeatSize)
    {
        AscendC::Reg::MaskReg mask;
        AscendC::Reg::RegTensor<float> xReg, yReg;
        uint32_t n2 = n;
        for (uint16_t i = 0; i < loopNum; ++i) {
            mask = AscendC::Reg::UpdateMask<float>(n);
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            ... Mul, Mul, Muls A, Add, Muls B, Exp, Adds 1, Div (as above) ...
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
        for (uint16_t i = 0; i < loopNum; ++i) {
            mask = AscendC::Reg::UpdateMask<float>(n2);
            AscendC::Reg::LoadAlign(yReg, yAddr + i * oneRepeatSize);
            AscendC::Reg::Adds(yReg, yReg, COEFF_C, mask);
            AscendC::Reg::Mul(yReg, yReg, yReg, mask);
            AscendC::Reg::Muls(yReg, yReg, COEFF_D, mask);
            AscendC::Reg::Adds(yReg, yReg, COEFF_E, mask);
            AscendC::Reg::Exp(yReg, yReg, mask);
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
    }

The __aicore__ side is `_gelu_tiles` (ping-pong UB tiles over each core's rows). The shape: main() runs
[8192, 8192] (singleCoreM = 256, singleCoreN = 4096, tileLen = 2 · singleCoreN); here [10, 2048] with
singleCoreM = 4, singleCoreN = 1024, tileLen = 2048 (6 cores, the last with an M tail).

gen_data.py: `x = np.random.uniform(-10, 10, shape).astype(np.float32)` (unseeded: `run(seed)` seeds numpy's
global generator); `gelu = x / (1 + np.exp(-1.595769 * (x + 0.044715 * x**3)))`, golden
`np.exp(-0.5 * (gelu + 1) * (gelu + 1) + 2)` (numpy float32).

The comparison: bit-exact against the kernel's sequence in numpy (Exp and Div correctly rounded, within the
pages' 1 ulp; `_kernel_order`), and as verify_result.py checks gen_data.py's golden (np.isclose, rtol 1e-4,
atol 1e-5).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg
from vf_examples._gelu_tiles import Tiling, run_cores
from vf_examples._kernel_order import exp_ftz, gelu_kernel_order, vendor_isclose

COEFF_A, COEFF_B = 0.044715, -1.595769  # constexpr float COEFF_A = 0.044715f; COEFF_B = -1.595769f;
COEFF_C, COEFF_D, COEFF_E = 1.0, -0.5, 2.0  # constexpr float COEFF_C = 1; COEFF_D = -0.5; COEFF_E = 2;
TILING = Tiling(total_m=10, total_n=2048, single_core_m=4, single_core_n=1024, tile_len=2 * 1024)
Ptr = rs.UbPtr[rs.float32]


@rs.simd_callee
def gelu_steps(y_reg: Reg.RegTensor[rs.float32], x_reg: Reg.RegTensor[rs.float32], mask: Reg.MaskReg) -> None:
    """The GELU part of both VFs (written out in each in C++)."""
    Reg.Mul(y_reg, x_reg, x_reg, mask)
    Reg.Mul(y_reg, y_reg, x_reg, mask)
    Reg.Muls(y_reg, y_reg, COEFF_A, mask)
    Reg.Add(y_reg, x_reg, y_reg, mask)
    Reg.Muls(y_reg, y_reg, COEFF_B, mask)
    Reg.Exp(y_reg, y_reg, mask)
    Reg.Adds(y_reg, y_reg, 1.0, mask)
    Reg.Div(y_reg, x_reg, y_reg, mask)


@rs.simd_callee
def eltwise_steps(y_reg: Reg.RegTensor[rs.float32], mask: Reg.MaskReg) -> None:
    """The element-wise tail of both VFs."""
    Reg.Adds(y_reg, y_reg, COEFF_C, mask)
    Reg.Mul(y_reg, y_reg, y_reg, mask)
    Reg.Muls(y_reg, y_reg, COEFF_D, mask)
    Reg.Adds(y_reg, y_reg, COEFF_E, mask)
    Reg.Exp(y_reg, y_reg, mask)


@rs.simd_vf
def gelu_eltwise_basic(x_addr: Ptr, y_addr: Ptr, n: int, loop_num: int, one_repeat_size: int, scenario: int) -> None:
    mask = Reg.MaskReg()
    if scenario == 0:  # case 0: 128 bytes of parallelism, 32 floats per repeat
        mask = Reg.CreateMask(rs.float32, pattern=Reg.MaskPattern.VL32)
    x_reg, y_reg = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    count = rs.Ref(n)
    for i in range(loop_num):
        if scenario != 0:
            mask = Reg.UpdateMask(rs.float32, count)  # mask = UpdateMask<float>(n);
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)
        gelu_steps(y_reg, x_reg, mask)
        eltwise_steps(y_reg, mask)
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)


@rs.simd_vf
def gelu_eltwise_loop_split(x_addr: Ptr, y_addr: Ptr, n: int, loop_num: int, one_repeat_size: int) -> None:
    x_reg, y_reg = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    count, count2 = rs.Ref(n), rs.Ref(n)  # uint32_t n2 = n;
    for i in range(loop_num):  # (scenario 3: #pragma unroll 6)
        mask = Reg.UpdateMask(rs.float32, count)
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)
        gelu_steps(y_reg, x_reg, mask)
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)
    for i in range(loop_num):  # (scenario 3: #pragma unroll 6)
        mask = Reg.UpdateMask(rs.float32, count2)
        Reg.LoadAlign(y_reg, y_addr + i * one_repeat_size)
        eltwise_steps(y_reg, mask)
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)


def compute_for(scenario: int) -> Any:
    """GeluEltwiseRegBaseCompute for one SCENARIO_NUM."""

    def compute(x_local: rs.LocalTensor[Any], y_local: rs.LocalTensor[Any], n: int) -> None:
        one_repeat_size = 128 // rs.float32.itemsize if scenario == 0 else rs.AscendC.GetVecLen() // rs.float32.itemsize
        loop_num = -(-n // one_repeat_size)  # DivCeil(n, oneRepeatSize)
        x_addr, y_addr = x_local.GetPhyAddr(), y_local.GetPhyAddr()
        if scenario in (0, 1):
            rs.asc_vf_call(gelu_eltwise_basic, x_addr, y_addr, n, loop_num, one_repeat_size, scenario)
        else:
            rs.asc_vf_call(gelu_eltwise_loop_split, x_addr, y_addr, n, loop_num, one_repeat_size)

    return compute


def kernel_order(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Both VFs' sequence in numpy float32 (`_kernel_order`)."""
    y = gelu_kernel_order(x, COEFF_A, COEFF_B)
    y = y + np.float32(COEFF_C)
    y = y * y
    y = y * np.float32(COEFF_D)
    y = y + np.float32(COEFF_E)
    return exp_ftz(y)


def golden(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """gen_data.py's golden."""
    coeff = -1.595769
    exponent = coeff * (x + 0.044715 * (x**3))
    gelu = x / (1 + np.exp(exponent))
    out: npt.NDArray[np.float32] = np.exp(-0.5 * (gelu + 1) * (gelu + 1) + 2).astype(np.float32)
    return out


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(-10, 10, [TILING.total_m, TILING.total_n]).astype(np.float32).reshape(-1)
    want = kernel_order(x)
    ones = np.ones(x.size, np.uint8)
    outputs: dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]] = {}
    for scenario in range(4):
        y = run_cores(x, TILING, compute_for(scenario))
        outputs[f"scenario {scenario}: y (the kernel's order, bit-exact)"] = (y.view(np.uint32), want.view(np.uint32))
        outputs[f"scenario {scenario}: y within verify_result.py's tolerance of gen_data.py's golden"] = (
            vendor_isclose(y, golden(x)),
            ones,
        )
    return outputs
