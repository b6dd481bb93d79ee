"""compare_vf and compares_vf of the asc-devkit C API `compare` example (02_simd_c_api, reg_vector_compute):
z = x > y ? x : y (scenario 1, `asc_gt` then `asc_select`) and z = x > 0 ? x : y (scenario 2,
`asc_gt_scalar`), written with `rs.capi`, the C API's `asc_*` functions.

The C twins (examples/02_simd_c_api/03_c_api/02_reg_vector_compute/compare/compare.asc):

    __simd_vf__ inline void compare_vf(
        __ubuf__ float* x_local, __ubuf__ float* y_local, __ubuf__ float* z_local, uint32_t data_len,
        uint16_t one_rep_size, uint16_t repeat_time)
    {
        vector_bool vmask;
        vector_bool cmp_mask;
        vector_float src0_reg;
        vector_float src1_reg;
        vector_float dst_reg;
        for (uint16_t i = 0; i < repeat_time; ++i) {
            vmask = asc_update_mask_b32(data_len);
            asc_loadalign(src0_reg, x_local + i * one_rep_size);
            asc_loadalign(src1_reg, y_local + i * one_rep_size);
            asc_gt(cmp_mask, src0_reg, src1_reg, vmask);
            asc_select(dst_reg, src0_reg, src1_reg, cmp_mask);
            asc_storealign(z_local + i * one_rep_size, dst_reg, vmask);
        }
    }

compares_vf takes `float scalar` after z_local and calls `asc_gt_scalar(cmp_mask, src0_reg, scalar, vmask);`.
The kernels run TOTAL_LENGTH = 256 floats (4 repeats of 64), scalar = 0. gen_data.py draws x, y uniform
in [-2, 2) without a seed (we seed it); its golden is `np.maximum(x, y)` (scenario 1) and
`golden = y.copy(); golden[x > 0] = x[x > 0]` (scenario 2): the script of the C++ API's compare example,
whose `inputs` and `golden` (vf_examples/compare_vf.py) this module reuses.

A third output is ours, not the vendor's: the same x > y through the memory-level C API,
`asc_gt(dst, x_local, y_local, repeat, 1, 1, 1, 1, 8, 8)` (the A2/A3 page, modelled on the 950 Reg layer),
a uint8_t bit array checked against `np.packbits(x > y, bitorder="little")`, each float repeat's 8 bytes at
`dst_repeat_stride = 1` DataBlock (32 bytes) from the previous one.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg, capi
from vf_examples.compare_vf import golden, inputs  # the same gen_data.py as the C++ API's compare example

TOTAL_LENGTH = 256


@rs.simd_vf
def compare_vf(
    x_local: rs.UbPtr[rs.float32],
    y_local: rs.UbPtr[rs.float32],
    z_local: rs.UbPtr[rs.float32],
    data_len: int,
    one_rep_size: int,
    repeat_time: int,
) -> None:
    count = rs.Ref(data_len)  # uint32_t data_len, which asc_update_mask_b32 takes by reference
    cmp_mask = Reg.MaskReg()  # vector_bool cmp_mask;
    src0_reg = Reg.RegTensor(rs.float32)  # vector_float src0_reg;
    src1_reg = Reg.RegTensor(rs.float32)  # vector_float src1_reg;
    dst_reg = Reg.RegTensor(rs.float32)  # vector_float dst_reg;
    for i in range(repeat_time):  # for (uint16_t i = 0; i < repeat_time; ++i) {
        vmask = capi.asc_update_mask_b32(count)  # vmask = asc_update_mask_b32(data_len);
        capi.asc_loadalign(src0_reg, x_local + i * one_rep_size)  # asc_loadalign(src0_reg, x_local + i * one_rep_size);
        capi.asc_loadalign(src1_reg, y_local + i * one_rep_size)  # asc_loadalign(src1_reg, y_local + i * one_rep_size);
        capi.asc_gt(cmp_mask, src0_reg, src1_reg, vmask)  # asc_gt(cmp_mask, src0_reg, src1_reg, vmask);
        capi.asc_select(dst_reg, src0_reg, src1_reg, cmp_mask)  # asc_select(dst_reg, src0_reg, src1_reg, cmp_mask);
        capi.asc_storealign(z_local + i * one_rep_size, dst_reg, vmask)  # asc_storealign(z_local + ..., dst_reg, vmask);


@rs.simd_vf
def compares_vf(
    x_local: rs.UbPtr[rs.float32],
    y_local: rs.UbPtr[rs.float32],
    z_local: rs.UbPtr[rs.float32],
    scalar: float,
    data_len: int,
    one_rep_size: int,
    repeat_time: int,
) -> None:
    count = rs.Ref(data_len)
    cmp_mask = Reg.MaskReg()
    src0_reg = Reg.RegTensor(rs.float32)
    src1_reg = Reg.RegTensor(rs.float32)
    dst_reg = Reg.RegTensor(rs.float32)
    for i in range(repeat_time):
        vmask = capi.asc_update_mask_b32(count)
        capi.asc_loadalign(src0_reg, x_local + i * one_rep_size)
        capi.asc_loadalign(src1_reg, y_local + i * one_rep_size)
        capi.asc_gt_scalar(cmp_mask, src0_reg, scalar, vmask)  # asc_gt_scalar(cmp_mask, src0_reg, scalar, vmask);
        capi.asc_select(dst_reg, src0_reg, src1_reg, cmp_mask)
        capi.asc_storealign(z_local + i * one_rep_size, dst_reg, vmask)


def kernel(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32], scenario: int, scalar: float = 0.0) -> npt.NDArray[np.float32]:
    """compare_custom_s1 / _s2: the UB arrays, then the scenario's VF; returns z_local."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)  # __ubuf__ float x_local[block_length];
    y_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    z_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    x_local.set(x.reshape(-1))  # asc_copy_gm2ub_align(x_local, x_gm, burst_length);
    y_local.set(y.reshape(-1))
    one_rep_size = rs.GetVecLen() // rs.float32.itemsize  # asc_get_vf_len() / sizeof(float)
    repeat_time = -(-TOTAL_LENGTH // one_rep_size)  # ceil_division(block_length, one_rep_size)
    ptrs = (x_local.GetPhyAddr(), y_local.GetPhyAddr(), z_local.GetPhyAddr())
    if scenario == 1:
        compare_vf(*ptrs, TOTAL_LENGTH, one_rep_size, repeat_time)
    else:
        compares_vf(*ptrs, scalar, TOTAL_LENGTH, one_rep_size, repeat_time)
    return z_local.numpy().reshape(1, TOTAL_LENGTH)


def bit_array(x: npt.NDArray[np.float32], y: npt.NDArray[np.float32]) -> npt.NDArray[np.uint8]:
    """Ours: x > y through the memory-level `asc_gt(dst, src0, src1, repeat, 6 strides)`; each 64-float
    repeat's 8 bytes of bits at the start of its own DataBlock (dst_repeat_stride 1); returns them packed."""
    ub = rs.UnifiedBuffer()
    x_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    y_local = ub.alloc(rs.float32, TOTAL_LENGTH)
    repeat = TOTAL_LENGTH // 64
    dst = ub.alloc(rs.uint8, repeat * 32)
    x_local.set(x.reshape(-1))
    y_local.set(y.reshape(-1))
    dst.set(np.zeros(repeat * 32, np.uint8))
    capi.asc_gt(dst.GetPhyAddr(), x_local.GetPhyAddr(), y_local.GetPhyAddr(), repeat, 1, 1, 1, 1, 8, 8)
    return dst.numpy().reshape(repeat, 32)[:, :8].reshape(-1)


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    x, y = inputs(seed)
    return {
        "z (scenario 1: asc_gt + asc_select)": (kernel(x, y, 1), golden(x, y, 1)),
        "z (scenario 2: asc_gt_scalar 0 + asc_select)": (kernel(x, y, 2), golden(x, y, 2)),
        "dst bits (memory-level asc_gt, ours)": (bit_array(x, y), np.packbits(x.reshape(-1) > y.reshape(-1), bitorder="little")),
    }
