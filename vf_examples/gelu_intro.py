"""The introductory GELU example (00_introduction/04_reg_compute/gelu, gelu.asc): a [256, 32] float matrix split
over 2 vector cores of 4096 elements, each one VF call of 64 repeats:

    __simd_vf__ inline static void GeluVfMethod2(
        __ubuf__ float* xAddr, __ubuf__ float* yAddr, uint32_t count, uint32_t loopNum)
    {
        constexpr uint32_t oneRepeatSize = AscendC::GetVecLen() / sizeof(float);
        AscendC::Reg::MaskReg mask;
        AscendC::Reg::RegTensor<float> xReg;
        AscendC::Reg::RegTensor<float> yReg;
        AscendC::Reg::RegTensor<float> tmpReg;
        for (uint32_t i = 0; i < loopNum; ++i) {
            mask = AscendC::Reg::UpdateMask<float>(count);
            AscendC::Reg::LoadAlign(xReg, xAddr + i * oneRepeatSize);
            AscendC::Reg::Mul(yReg, xReg, xReg, mask);            // x^2
            AscendC::Reg::Mul(yReg, yReg, xReg, mask);            // x^3
            AscendC::Reg::Muls(yReg, yReg, COEFF_CUBIC, mask);    // -0.071405 * x^3
            AscendC::Reg::Muls(tmpReg, xReg, COEFF_LINEAR, mask); // -1.595769 * x
            AscendC::Reg::Add(yReg, tmpReg, yReg, mask);          // -1.595769 * x - 0.071405 * x^3
            AscendC::Reg::Exp(yReg, yReg, mask);                  // exp(...)
            AscendC::Reg::Adds(yReg, yReg, 1.0f, mask);           // 1 + exp(...)
            AscendC::Reg::Div(yReg, xReg, yReg, mask);            // x / (1 + exp(...))
            AscendC::Reg::StoreAlign(yAddr + i * oneRepeatSize, yReg, mask);
        }
    }

The __aicore__ side copies the core's 4096 elements (block idx · 4096) into a UB tensor, calls the VF with
count = 4096 and loopNum = DivCeil(4096, 64), and copies y back.

gen_data.py: `x = np.random.uniform(-10, 10, [256, 32]).astype(np.float32)` (unseeded: `run(seed)` seeds numpy's
global generator), golden `x / (1 + np.exp(-1.595769 * x + -0.071405 * x**3))` (numpy float32 throughout).

The comparison: Exp and Div are documented within 1 ulp, so y is checked bit-exact against the kernel's own
sequence in numpy (`kernel_order`, with Exp and Div as `_kernel_order` defines them: float64 values
rounded once, within the pages' 1 ulp), and as verify_result.py checks gen_data.py's golden (np.isclose with
rtol 1e-4, atol 1e-5).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg
from vf_examples._kernel_order import div_ftz, exp_ftz, vendor_isclose

TOTAL_M, TOTAL_N = 256, 32
NUM_BLOCKS = 2
SINGLE_CORE_LENGTH = 4096  # 128 x 32 per core
COEFF_LINEAR = -1.595769  # constexpr float COEFF_LINEAR = -1.595769f;
COEFF_CUBIC = -0.071405  # constexpr float COEFF_CUBIC = -0.071405f;
Ptr = rs.UbPtr[rs.float32]


@rs.simd_vf
def gelu_vf_method2(x_addr: Ptr, y_addr: Ptr, count: int, loop_num: int) -> None:
    one_repeat_size = rs.AscendC.GetVecLen() // rs.float32.itemsize  # GetVecLen() / sizeof(float)
    x_reg, y_reg, tmp_reg = Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32), Reg.RegTensor(rs.float32)
    n = rs.Ref(count)
    for i in range(loop_num):
        mask = Reg.UpdateMask(rs.float32, n)  # mask = UpdateMask<float>(count);
        Reg.LoadAlign(x_reg, x_addr + i * one_repeat_size)
        Reg.Mul(y_reg, x_reg, x_reg, mask)  # x^2
        Reg.Mul(y_reg, y_reg, x_reg, mask)  # x^3
        Reg.Muls(y_reg, y_reg, COEFF_CUBIC, mask)  # -0.071405 * x^3
        Reg.Muls(tmp_reg, x_reg, COEFF_LINEAR, mask)  # -1.595769 * x
        Reg.Add(y_reg, tmp_reg, y_reg, mask)  # -1.595769 * x - 0.071405 * x^3
        Reg.Exp(y_reg, y_reg, mask)  # exp(...)
        Reg.Adds(y_reg, y_reg, 1.0, mask)  # 1 + exp(...)
        Reg.Div(y_reg, x_reg, y_reg, mask)  # x / (1 + exp(...))
        Reg.StoreAlign(y_addr + i * one_repeat_size, y_reg, mask)


def kernel(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """gelu_custom<4096> on each of the 2 cores (each with its own UB)."""
    y = np.empty_like(x)
    one_repeat_size = 256 // rs.float32.itemsize
    loop_num = -(-SINGLE_CORE_LENGTH // one_repeat_size)  # DivCeil(singleCoreLength, oneRepeatSize)
    for block_idx in range(NUM_BLOCKS):
        part = slice(block_idx * SINGLE_CORE_LENGTH, (block_idx + 1) * SINGLE_CORE_LENGTH)
        ub = rs.UnifiedBuffer()
        x_local, y_local = ub.alloc(rs.float32, SINGLE_CORE_LENGTH), ub.alloc(rs.float32, SINGLE_CORE_LENGTH)
        x_local.set(x[part])  # DataCopy(xLocal, xGm[0], singleCoreLength);
        rs.asc_vf_call(gelu_vf_method2, x_local.GetPhyAddr(), y_local.GetPhyAddr(), SINGLE_CORE_LENGTH, loop_num)
        y[part] = y_local.numpy()  # DataCopy(yGm[0], yLocal, singleCoreLength);
    return y


def kernel_order(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """GeluVfMethod2's sequence in numpy float32 (Exp and Div as `_kernel_order` defines them)."""
    y = x * x
    y = y * x
    y = y * np.float32(COEFF_CUBIC)
    tmp = x * np.float32(COEFF_LINEAR)
    y = tmp + y
    y = exp_ftz(y) + np.float32(1.0)
    return div_ftz(x, y)


def golden(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """gen_data.py's golden."""
    exponent = COEFF_LINEAR * x + COEFF_CUBIC * (x**3)
    out: npt.NDArray[np.float32] = (x / (1 + np.exp(exponent))).astype(np.float32)
    return out


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(-10, 10, [TOTAL_M, TOTAL_N]).astype(np.float32).reshape(-1)
    y = kernel(x)
    return {
        "y (the kernel's order, bit-exact)": (y.view(np.uint32), kernel_order(x).view(np.uint32)),
        "y within verify_result.py's tolerance of gen_data.py's golden": (
            vendor_isclose(y, golden(x)),
            np.ones(x.size, np.uint8),
        ),
    }
