"""compare_custom of the asc-devkit example `03_basic_api/01_memory_vector_compute/compare`: the memory-level
`AscendC::Compare` and `AscendC::Compares` (CMPMODE::LT) on 256 floats, the result one bit per element in 32 bytes.

The C++ twin (compare.asc; float, INPUT_SIZE = 256, OUTPUT_SIZE = 32):

    AscendC::CMPMODE cmpMode = AscendC::CMPMODE::LT;
    ...
    AscendC::DataCopy(src0LocalIn, src0Global, INPUT_SIZE);
    AscendC::DataCopy(src1LocalIn, src1Global, INPUT_Y_SIZE);
    ...
    if constexpr (SCENARIO_NUM == 1) {
        AscendC::Compare(dstLocal, src0Local, src1Local, cmpMode, INPUT_SIZE);
    } else if constexpr (SCENARIO_NUM == 2) {  // INPUT_SIZE = INPUT_Y_SIZE = 64
        AscendC::Duplicate(dstLocal.ReinterpretCast<float>(), static_cast<float>(0), 8);
        AscendC::BinaryRepeatParams repeatParams;
        uint32_t mask = 256 / sizeof(T); // 256为每个迭代处理的字节数
        AscendC::Compare(src0Local, src1Local, cmpMode, mask, repeatParams);
        AscendC::PipeBarrier<PIPE_V>();
        AscendC::GetCmpMask(dstLocal);
    } else if constexpr (SCENARIO_NUM == 3) {
        T src1Scalar = src1Local.GetValue(0);
        AscendC::Compares(dstLocal, src0Local, static_cast<T>(src1Scalar), cmpMode, INPUT_SIZE);
    } else if constexpr (SCENARIO_NUM == 4) {
        // 仅Ascend 950PR/Ascend 950DT产品支持，src0Local和src1Local[0]支持互换位置
        AscendC::Compares(dstLocal, src0Local, src1Local[0], cmpMode, INPUT_SIZE);
    }
    ...
    AscendC::DataCopy(dstGlobal, dstLocalOut, OUTPUT_SIZE);

On 950 both calls are the library's VFs `CompareLevel2` / `CompareScalarLevel2`: `Reg::Compare` (`CompareScalar`)
into a MaskReg and the predicate packed to bits by `StoreUnAlign`; regsim runs the same lowering (`rs.lower`
shows it). scripts/gen_data.py draws x (256) and y (256, scenario 1; 16, scenario 3) uniformly over the float32
range, unseeded (we seed it), and packs `x < y` (scenario 3: `x < y[0]`) eight elements per byte, element
8j + k at bit k of byte j; scenario 2 (64 elements, `Compare` into the compare-mask register, then `GetCmpMask`)
is checked on its first 8 bytes, as verify_result.py does. Scenario 4 is the 950 flexible-scalar overload
("Compares（灵活标量位置）"): the scalar is the LocalTensor element `src1Local[0]`, which the library's VF
(`CompareScalarBothTensorLevel2`) broadcasts into a register (`LoadAlign<float, DIST_BRC_B32>`) before a tensor-tensor
`Reg::Compare`; gen_data.py's golden is scenario 3's, `x < y[0]`. The same call with the operands swapped and
`config=A.BinaryConfig(0)` (the comment's "支持互换位置") compares `y[0] < x`, checked against that golden too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs

INPUT_SIZE = 256
OUTPUT_SIZE = 32
A = rs.AscendC


def golden(x: Any, y: Any) -> npt.NDArray[np.uint8]:
    """gen_data.py's compare(): `x < y` (LT) packed into bytes, bit k of byte j = element 8j + k (either side may be
    the scalar)."""
    result = np.atleast_1d(x < y).astype(np.uint8)
    out = np.ones(OUTPUT_SIZE, np.uint8)
    for j in range(result.size // 8):  # (input_size // 8 in gen_data.py)
        out[j] = sum(int(result[j * 8 + k]) << k for k in range(8))
    return out


def compare_custom(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], scenario: int) -> npt.NDArray[np.uint8]:
    ub = rs.UnifiedBuffer()
    src0_local = ub.alloc(rs.float32, x.size)
    src1_local = ub.alloc(rs.float32, y.size)
    dst_local = ub.alloc(rs.uint8, OUTPUT_SIZE)
    src0_local.set(x)  # DataCopy(src0LocalIn, src0Global, INPUT_SIZE);
    src1_local.set(y)  # DataCopy(src1LocalIn, src1Global, INPUT_Y_SIZE);
    if scenario == 1:
        A.Compare(dst_local, src0_local, src1_local, A.CMPMODE.LT, INPUT_SIZE)
    elif scenario == 2:
        A.Duplicate(dst_local, 0, OUTPUT_SIZE)  # Duplicate(dstLocal.ReinterpretCast<float>(), 0.0f, 8): 32 zero bytes
        mask = 256 // 4  # uint32_t mask = 256 / sizeof(T);
        A.Compare(src0_local, src1_local, A.CMPMODE.LT, mask, A.BinaryRepeatParams())
        A.GetCmpMask(dst_local)
    elif scenario == 3:
        src1_scalar = src1_local.numpy()[0]  # T src1Scalar = src1Local.GetValue(0);
        A.Compares(dst_local, src0_local, src1_scalar, A.CMPMODE.LT, INPUT_SIZE)
    elif scenario == 4:
        A.Compares(dst_local, src0_local, src1_local[0], A.CMPMODE.LT, INPUT_SIZE)
    else:  # scenario 4 with the operands swapped: static constexpr BinaryConfig config = {0};
        A.Compares(dst_local, src1_local[0], src0_local, A.CMPMODE.LT, INPUT_SIZE, config=A.BinaryConfig(0))
    return dst_local.numpy()  # DataCopy(dstGlobal, dstLocalOut, OUTPUT_SIZE);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)  # gen_data.py uses the global numpy generator, unseeded
    lo, hi = np.finfo(np.float32).min, np.finfo(np.float32).max
    x = rng.uniform(lo, hi, INPUT_SIZE).astype(np.float32)
    y1 = rng.uniform(lo, hi, INPUT_SIZE).astype(np.float32)
    y3 = rng.uniform(lo, hi, 16).astype(np.float32)
    x2, y2 = (rng.uniform(lo, hi, 64).astype(np.float32) for _ in range(2))
    return {
        "scenario 1: Compare(x, y, LT)": (compare_custom(x, y1, 1), golden(x, y1)),
        "scenario 2: Compare(x, y, LT, 64) + GetCmpMask": (compare_custom(x2, y2, 2)[:8], golden(x2, y2)[:8]),
        "scenario 3: Compares(x, y[0], LT)": (compare_custom(x, y3, 3), golden(x, y3[0])),
        "scenario 4: Compares(x, yLocal[0], LT)": (compare_custom(x, y3, 4), golden(x, y3[0])),
        "scenario 4, swapped: Compares<config {0}>(yLocal[0], x, LT)": (compare_custom(x, y3, 5), golden(y3[0], x)),
    }
