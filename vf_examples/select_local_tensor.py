"""select_custom of the asc-devkit example `03_basic_api/01_memory_vector_compute/select`: the memory-level
`AscendC::Select` on 256 floats with a uint8_t selMask, in its three SELMODEs.

The C++ twin (select.asc; T = float, U = uint8_t, INPUT_SIZE = 256):

    AscendC::DataCopy(src0Local, src0Global, INPUT_SIZE);
    AscendC::DataCopy(src1Local, src1Global, INPUT_Y_SIZE);
    if constexpr (SCENARIO_NUM == 1) {  // selMask: 8 bytes, right-padded with 24 zero bytes
        AscendC::DataCopyPad(selMaskLocal, selMaskGlobal, copyParams, padParams);
    } else {
        AscendC::DataCopy(selMaskLocal, selMaskGlobal, INPUT_SEL_SIZE);
    }
    if constexpr (SCENARIO_NUM == 1 || SCENARIO_NUM == 3) {
        AscendC::SELMODE selMode =
            (SCENARIO_NUM == 1) ? AscendC::SELMODE::VSEL_CMPMASK_SPR : AscendC::SELMODE::VSEL_TENSOR_TENSOR_MODE;
        AscendC::Select(dstLocal, selMaskLocal, src0Local, src1Local, selMode, INPUT_SIZE);
    } else if constexpr (SCENARIO_NUM == 2) {
        T src1Scalar = src1Local.GetValue(0);
        AscendC::Select(
            dstLocal, selMaskLocal, src0Local, src1Scalar, AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, INPUT_SIZE);
    } else if constexpr (SCENARIO_NUM == 4) {
        static constexpr AscendC::BinaryConfig config = {1}; // 1表示标量在后，默认值；0表示标量在前
        AscendC::Select<AscendC::BinaryDefaultType, U, config>(
            dstLocal, selMaskLocal, src0Local, src1Local[0], AscendC::SELMODE::VSEL_TENSOR_SCALAR_MODE, INPUT_SIZE);
    }
    AscendC::DataCopy(dstGlobal, dstLocal, INPUT_SIZE);

On 950 these are the library's VFs `SelectMode0Level2`, `SelectMode1Level2` and `SelectMode2Level2` (mask loads
of selMask, `MaskInterleave` pairs for 32-bit types, `Reg::Select`, `StoreAlign`); regsim runs the same lowering.
scripts/gen_data.py (unseeded; we seed it) draws selMask bytes and x, y uniformly over their types' ranges and
computes golden[i] = bit b of selMask ? x[i] : y[i] (scenarios 2 and 4: y[0]), b = i % 64 in scenario 1 (mode 0:
the first 256 / sizeof(float) bits for every repeat), i otherwise. Scenario 4 is the 950 flexible-scalar overload
("Select（灵活标量位置）"): the scalar is the LocalTensor element `src1Local[0]` (`config = {1}`), which the library's VF
(`SelectBothTensorMode1Level2`) broadcasts into a register (`LoadAlign<float, DIST_BRC_B32>`) once; with
`config = {0}` and the operands swapped (the comment's "0表示标量在前") a 1 bit picks the scalar: golden'[i] = bit i ?
y[0] : x[i], checked too.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs

INPUT_SIZE = 256
MASK_NUM = 64  #: gen_data.py's mask_num: the selMask bits mode 0 uses
A = rs.AscendC


def gen_data(scenario: int, rng: np.random.Generator) -> tuple[npt.NDArray[Any], ...]:
    """gen_data.py: selMask (8 bytes in scenario 1, else 32), x (256 floats), y (256, or 8 in scenario 2), golden."""
    sel_size = 8 if scenario == 1 else 32
    y_size = 8 if scenario in (2, 4) else INPUT_SIZE
    sel = rng.uniform(0, 255, sel_size).astype(np.uint8)
    lo, hi = np.finfo(np.float32).min, np.finfo(np.float32).max
    x = rng.uniform(lo, hi, INPUT_SIZE).astype(np.float32)
    y = rng.uniform(lo, hi, y_size).astype(np.float32)
    golden = np.ones(INPUT_SIZE, np.float32)
    for i in range(INPUT_SIZE):
        b = i % MASK_NUM if scenario == 1 else i
        if (sel[b // 8] >> (b % 8)) & 1:
            golden[i] = x[i]
        else:
            golden[i] = y[0] if scenario in (2, 4) else y[i]
    return sel, x, y, golden


def select_custom(sel: npt.NDArray[np.uint8], x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], scenario: int) -> Any:
    ub = rs.UnifiedBuffer()
    src0_local = ub.alloc(rs.float32, INPUT_SIZE)
    src1_local = ub.alloc(rs.float32, y.size)
    sel_mask_local = ub.alloc(rs.uint8, 32)  # SEL_ALLOC_NUM: at least 32 bytes
    dst_local = ub.alloc(rs.float32, INPUT_SIZE)
    src0_local.set(x)  # DataCopy(src0Local, src0Global, INPUT_SIZE);
    src1_local.set(y)  # DataCopy(src1Local, src1Global, INPUT_Y_SIZE);
    sel_mask_local.set(np.concatenate([sel, np.zeros(32 - sel.size, np.uint8)]))  # DataCopyPad / DataCopy
    if scenario == 2:
        src1_scalar = src1_local.numpy()[0]  # T src1Scalar = src1Local.GetValue(0);
        A.Select(dst_local, sel_mask_local, src0_local, src1_scalar, A.SELMODE.VSEL_TENSOR_SCALAR_MODE, INPUT_SIZE)
    elif scenario == 4:  # Select<BinaryDefaultType, U, config {1}>(..., src0Local, src1Local[0], ...)
        mode = A.SELMODE.VSEL_TENSOR_SCALAR_MODE
        A.Select(dst_local, sel_mask_local, src0_local, src1_local[0], mode, INPUT_SIZE, config=A.BinaryConfig(1))
    elif scenario == 5:  # scenario 4 with config {0}: the scalar first
        mode = A.SELMODE.VSEL_TENSOR_SCALAR_MODE
        A.Select(dst_local, sel_mask_local, src1_local[0], src0_local, mode, INPUT_SIZE, config=A.BinaryConfig(0))
    else:
        sel_mode = A.SELMODE.VSEL_CMPMASK_SPR if scenario == 1 else A.SELMODE.VSEL_TENSOR_TENSOR_MODE
        A.Select(dst_local, sel_mask_local, src0_local, src1_local, sel_mode, INPUT_SIZE)
    return dst_local.numpy()  # DataCopy(dstGlobal, dstLocal, INPUT_SIZE);


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    rng = np.random.default_rng(seed)  # gen_data.py uses the global numpy generator, unseeded
    out = {}
    for scenario, name in ((1, "VSEL_CMPMASK_SPR"), (2, "VSEL_TENSOR_SCALAR_MODE"), (3, "VSEL_TENSOR_TENSOR_MODE")):
        sel, x, y, golden = gen_data(scenario, rng)
        out[f"scenario {scenario}: Select {name}"] = (select_custom(sel, x, y, scenario), golden)
    sel, x, y, golden = gen_data(4, rng)
    out["scenario 4: Select VSEL_TENSOR_SCALAR_MODE, src1Local[0], config {1}"] = (select_custom(sel, x, y, 4), golden)
    bits = np.unpackbits(sel, bitorder="little")[:INPUT_SIZE].astype(bool)
    swapped = np.where(bits, y[0], x).astype(np.float32)  # a 1 bit picks src0, now the scalar
    out["scenario 4, swapped: Select src1Local[0] first, config {0}"] = (select_custom(sel, x, y, 5), swapped)
    return out
