"""The softmax_high_performance best-practice example (05_best_practices/02_reg_compute/softmax_high_performance,
softmax.asc): a row softmax of a [128, 128] float matrix (main's `DataType = float`, one core, the whole matrix in
UB), its scenarios 0-5 (SCENARIO_NUM). Scenario 0, the memory-level form (`CustomSoftmax`, each call one VF of
the 950 library; Exp and Div with their default ExpConfig / DivConfig, INTRINSIC), for float:

    for (uint32_t i = 0; i < aDim; i++) {
        AscendC::ReduceMax(expTensor[i * rDimAlign], srcTensor[i * rDimAlign], sumTensor[i * rDimAlign], rDim);
        AscendC::Duplicate(expTensor[i * rDimAlign], expTensor[i * rDimAlign], rDim);
        AscendC::Sub(expTensor[i * rDimAlign], srcTensor[i * rDimAlign], expTensor[i * rDimAlign], rDim);
        AscendC::Exp(expTensor[i * rDimAlign], expTensor[i * rDimAlign], rDim);
        AscendC::ReduceSum(
            sumTensor[i * rDimAlign], expTensor[i * rDimAlign],
            dstTensor[i * rDimAlign].template ReinterpretCast<float>(), rDim);
        AscendC::Duplicate(sumTensor[i * rDimAlign], sumTensor[i * rDimAlign], rDim);
        AscendC::Div(dstTensor[i * rDimAlign], expTensor[i * rDimAlign], sumTensor[i * rDimAlign], rDim);
    }

(its half branch, Cast to float first and back with CAST_FLOOR, is not instantiated by main). Scenario 2, the
loop-fused form with ExpSub:

    for (uint16_t i = 0; i < aDim; i++) {
        uint32_t count1 = rDim;
        AscendC::Reg::Duplicate(maxReg, Custom::fp32MinValue.f, maskFull);
        for (uint16_t j = 0; j < repeatTimes; j++) {
            mask = AscendC::Reg::UpdateMask<float>(count1);
            LoadWithCastIfNeed(srcAddr, srcReg, mask, i * rDimAlign + j * oneRepeatSize);
            AscendC::Reg::Max<float, AscendC::Reg::MaskMergeMode::MERGING>(maxReg, maxReg, srcReg, mask);
        }
        AscendC::Reg::ReduceMax(maxReg, maxReg, maskFull);
        AscendC::Reg::Duplicate(maxReg, maxReg, maskFull);
        uint32_t count2 = rDim;
        for (uint16_t j = 0; j < repeatTimes; j++) {
            mask = AscendC::Reg::UpdateMask<float>(count2);
            LoadWithCastIfNeed(srcAddr, srcReg, mask, i * rDimAlign + j * oneRepeatSize);
            AscendC::Reg::ExpSub(expReg, srcReg, maxReg, mask);
            AscendC::Reg::StoreAlign<float>(expAddr + i * rDimAlign + j * oneRepeatSize, expReg, mask);
        }
    }
    AscendC::Reg::LocalMemBar<AscendC::Reg::MemType::VEC_LOAD, AscendC::Reg::MemType::VEC_STORE>();
    for (uint16_t i = 0; i < aDim; i++) {
        uint32_t count3 = rDim;
        AscendC::Reg::Duplicate(sumReg, 0.0, maskFull);
        for (uint16_t j = 0; j < repeatTimes; j++) {
            mask = AscendC::Reg::UpdateMask<float>(count3);
            AscendC::Reg::LoadAlign(srcReg, expAddr + i * rDimAlign + j * oneRepeatSize);
            AscendC::Reg::Add<float, AscendC::Reg::MaskMergeMode::MERGING>(sumReg, sumReg, srcReg, mask);
        }
        AscendC::Reg::ReduceSum(sumReg, sumReg, maskFull);
        AscendC::Reg::Duplicate(sumReg, sumReg, maskFull);
        uint32_t count4 = rDim;
        for (uint16_t j = 0; j < repeatTimes; j++) {
            mask = AscendC::Reg::UpdateMask<float>(count4);
            AscendC::Reg::LoadAlign(maxReg, expAddr + i * rDimAlign + j * oneRepeatSize);
            AscendC::Reg::Div(divReg, maxReg, sumReg, mask);
            StoreWithCastIfNeed(dstAddr, divReg, mask, i * rDimAlign + j * oneRepeatSize);
        }
    }

Scenario 1 runs each step as its own loop through UB (Max into a register then `ReduceMax` and a
`DIST_FIRST_ELEMENT_B32` store of the row maximum; Duplicate of it back over the row; Sub; Exp; Add and
`ReduceSum` with a first-element store; Duplicate; Div), `LocalMemBar<VEC_ALL, VEC_ALL>` after each; scenario 3
is scenario 2 with the outer loop unrolled by two (rows i and i + aDim / 2); scenario 4 the main-tail form
(full masks over rDim / 64 repeats, no UpdateMask); scenario 5 both. Each VF below quotes its C++ line by line.
`LoadWithCastIfNeed` / `StoreWithCastIfNeed` are plain LoadAlign / StoreAlign for float (their half branch,
Cast with DIST_UNPACK_B16 / DIST_PACK_B32, is not instantiated by main).

The UB: scenarios 0-2 allocate x, y, exp and sum of 128 · 128 floats each, 256 KiB, more than the 950's
248 KiB (`TOTAL_UB_SIZE` for __NPU_ARCH__ 3510; main's comment "Shape [128, 128] fits entirely in UB on any NPU"
holds for scenarios 3-5, whose sum tensor is 8 floats): regsim runs scenarios 0-2 in a 256 KiB UB.

`Custom::fp32MinValue` is the float with bits 0x00800000 (the smallest normal, 1.18e-38, not -FLT_MAX), so the
row maximum of scenarios 1-5 is max(row, 1.18e-38), as the reference computes it; scenario 0's memory-level
ReduceMax starts its lanes from -FLT_MAX (`GetMinValue<float>()`), so its maximum is the row's own. Its ReduceSum
of 128 floats (two registers) adds them lane-wise and reduces once, the order of scenarios 1-5's sum.

gen_data.py: `x = np.random.uniform(-5, 5, [128, 128]).astype(np.float32)` (unseeded: `run(seed)` seeds numpy's
global generator); golden `e = np.exp(x - max(x, axis=1)); e / e.sum(axis=1)`.

The comparison: bit-exact against the kernel's order in numpy (`kernel_order`: the float32 difference, Exp
correctly rounded (scenario 0: Sub, then Exp), per-lane sums over the repeats then ReduceSum's tree of adjacent
pairs, the correctly rounded quotient; ExpSub and Exp/Div within their documented 1 ulp), and as verify_result.py
checks gen_data.py's golden (np.isclose, rtol 1e-4, atol 1e-5).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg
from vf_examples._kernel_order import div_ftz, exp_ftz, vendor_isclose

A_DIM, R_DIM = 128, 128  # kHeight, kWidth
R_DIM_ALIGN = -(-R_DIM // 8) * 8  # widthAlign: 32-byte units of float
ONE_REPEAT = 256 // rs.float32.itemsize  # GetVecLen() / sizeof(float)
FP32_MIN_VALUE = np.uint32(0x00800000).view(np.float32)  # Custom::fp32MinValue
ALL, VL1 = Reg.MaskPattern.ALL, Reg.MaskPattern.VL1
MERGING: Final = Reg.MaskMergeMode.MERGING
VEC_ALL = Reg.MemType.VEC_ALL
Ptr = rs.UbPtr[rs.float32]
F32 = rs.float32


def bar_all() -> None:
    Reg.LocalMemBar(src=VEC_ALL, dst=VEC_ALL)  # LocalMemBar<MemType::VEC_ALL, MemType::VEC_ALL>();


@rs.simd_vf
def softmax_vf_1(dst_addr: Ptr, src_addr: Ptr, exp_addr: Ptr, sum_addr: Ptr, a_dim: int, r_dim: int, r_dim_align: int) -> None:
    """Case 1: RegBase, no fusion, redundant Ld/St/sync."""
    repeat_times = -(-r_dim // ONE_REPEAT)  # CeilDivision(rDim, oneRepeatSize)
    for i in range(a_dim):  # Phase 1: ReduceMax
        count = rs.Ref(r_dim)
        mask_full, mask_one = Reg.CreateMask(F32, pattern=ALL), Reg.CreateMask(F32, pattern=VL1)
        src_reg, max_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
        Reg.Duplicate(max_reg, FP32_MIN_VALUE, mask_full)  # Duplicate(maxReg, Custom::fp32MinValue.f, maskFull);
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.LoadAlign(src_reg, src_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Max(max_reg, max_reg, src_reg, mask_full)  # Max(maxReg, maxReg, srcReg, maskFull);
        Reg.ReduceMax(max_reg, max_reg, mask_full)
        Reg.StoreAlign(exp_addr + i * r_dim_align, max_reg, mask_one, dist=Reg.StoreDist.DIST_FIRST_ELEMENT_B32)
        bar_all()
    for i in range(a_dim):  # Phase 2: Duplicate + Sub + Exp + ReduceSum
        count = rs.Ref(r_dim)  # Duplicate
        mask_full = Reg.CreateMask(F32, pattern=ALL)
        src_reg, dst_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
        Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align)
        Reg.Duplicate(dst_reg, src_reg, mask_full)  # Duplicate(dstReg, srcReg, maskFull);
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, dst_reg, mask)
        bar_all()
        count = rs.Ref(r_dim)  # Sub
        src_reg, dst_reg, max_reg = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.LoadAlign(src_reg, src_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.LoadAlign(max_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Sub(dst_reg, src_reg, max_reg, mask)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, dst_reg, mask)
        bar_all()
        count = rs.Ref(r_dim)  # Exp
        src_reg, dst_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Exp(dst_reg, src_reg, mask)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, dst_reg, mask)
        bar_all()
        count = rs.Ref(r_dim)  # ReduceSum
        mask_full, mask_one = Reg.CreateMask(F32, pattern=ALL), Reg.CreateMask(F32, pattern=VL1)
        src_reg, sum_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
        Reg.Duplicate(sum_reg, 0.0, mask_full)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Add(sum_reg, sum_reg, src_reg, mask, mode=MERGING)  # Add<float, MaskMergeMode::MERGING>(...)
        Reg.ReduceSum(sum_reg, sum_reg, mask_full)
        Reg.StoreAlign(sum_addr + i * r_dim_align, sum_reg, mask_one, dist=Reg.StoreDist.DIST_FIRST_ELEMENT_B32)
        bar_all()
    for i in range(a_dim):  # Phase 3: Duplicate + Div
        count = rs.Ref(r_dim)  # Duplicate
        mask_full = Reg.CreateMask(F32, pattern=ALL)
        src_reg, dst_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
        Reg.LoadAlign(src_reg, sum_addr + i * r_dim_align)
        Reg.Duplicate(dst_reg, src_reg, mask_full)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.StoreAlign(sum_addr + i * r_dim_align + j * ONE_REPEAT, dst_reg, mask)
        bar_all()
        count = rs.Ref(r_dim)  # Div (float: straight into dst)
        max_reg, sum_reg, div_reg = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            Reg.LoadAlign(max_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.LoadAlign(sum_reg, sum_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Div(div_reg, max_reg, sum_reg, mask)
            Reg.StoreAlign(dst_addr + i * r_dim_align + j * ONE_REPEAT, div_reg, mask)
        bar_all()


@rs.simd_callee
def load_with_cast_if_need(src_addr: Ptr, dst_reg: Reg.RegTensor[rs.float32], mask: Reg.MaskReg, offset: int) -> None:
    """LoadWithCastIfNeed<float>: `LoadAlign(dstReg, srcAddr + offset)` (the half branch is not instantiated)."""
    Reg.LoadAlign(dst_reg, src_addr + offset)


@rs.simd_callee
def store_with_cast_if_need(dst_addr: Ptr, src_reg: Reg.RegTensor[rs.float32], mask: Reg.MaskReg, offset: int) -> None:
    """StoreWithCastIfNeed<float>: `StoreAlign(dstAddr + offset, srcReg, mask)`."""
    Reg.StoreAlign(dst_addr + offset, src_reg, mask)


@rs.simd_vf
def softmax_vf_2(dst_addr: Ptr, src_addr: Ptr, exp_addr: Ptr, sum_addr: Ptr, a_dim: int, r_dim: int, r_dim_align: int) -> None:
    """Case 2: RegBase, UpdateMask, ExpSub, loop fusion (quoted in the module docstring)."""
    repeat_times = -(-r_dim // ONE_REPEAT)
    mask_full = Reg.CreateMask(F32, pattern=ALL)
    src_reg, max_reg, exp_reg = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
    sum_reg, div_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
    for i in range(a_dim):  # Phase 1: ReduceMax + ExpSub (loop fusion: shared Load)
        count1 = rs.Ref(r_dim)
        Reg.Duplicate(max_reg, FP32_MIN_VALUE, mask_full)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count1)
            load_with_cast_if_need(src_addr, src_reg, mask, i * r_dim_align + j * ONE_REPEAT)
            Reg.Max(max_reg, max_reg, src_reg, mask, mode=MERGING)
        Reg.ReduceMax(max_reg, max_reg, mask_full)
        Reg.Duplicate(max_reg, max_reg, mask_full)
        count2 = rs.Ref(r_dim)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count2)
            load_with_cast_if_need(src_addr, src_reg, mask, i * r_dim_align + j * ONE_REPEAT)
            Reg.ExpSub(exp_reg, src_reg, max_reg, mask)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, exp_reg, mask)
    Reg.LocalMemBar(src=Reg.MemType.VEC_LOAD, dst=Reg.MemType.VEC_STORE)
    for i in range(a_dim):
        count3 = rs.Ref(r_dim)
        Reg.Duplicate(sum_reg, 0.0, mask_full)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count3)
            Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Add(sum_reg, sum_reg, src_reg, mask, mode=MERGING)
        Reg.ReduceSum(sum_reg, sum_reg, mask_full)
        Reg.Duplicate(sum_reg, sum_reg, mask_full)
        count4 = rs.Ref(r_dim)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count4)
            Reg.LoadAlign(max_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Div(div_reg, max_reg, sum_reg, mask)
            store_with_cast_if_need(dst_addr, div_reg, mask, i * r_dim_align + j * ONE_REPEAT)


@rs.simd_vf
def softmax_vf_3(dst_addr: Ptr, src_addr: Ptr, exp_addr: Ptr, sum_addr: Ptr, a_dim: int, r_dim: int, r_dim_align: int) -> None:
    """Case 3: RegBase, UpdateMask, outer loop unrolling (rows i and i + halfA per iteration)."""
    repeat_times = -(-r_dim // ONE_REPEAT)
    mask_full = Reg.CreateMask(F32, pattern=ALL)
    src_reg, max_reg, exp_reg = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
    sum_reg, div_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
    src_reg1, max_reg1, exp_reg1 = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
    sum_reg1, div_reg1 = Reg.RegTensor(F32), Reg.RegTensor(F32)
    half_a = a_dim >> 1  # uint16_t halfA = aDim >> 1;
    for i in range(half_a):  # Phase 1: ReduceMax + ExpSub (outer loop unrolled: 2 rows/iter)
        count = rs.Ref(r_dim)
        Reg.Duplicate(max_reg, FP32_MIN_VALUE, mask_full)
        Reg.Duplicate(max_reg1, FP32_MIN_VALUE, mask_full)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count)
            load_with_cast_if_need(src_addr, src_reg, mask, i * r_dim_align + j * ONE_REPEAT)
            load_with_cast_if_need(src_addr, src_reg1, mask, i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.Max(max_reg, max_reg, src_reg, mask, mode=MERGING)
            Reg.Max(max_reg1, max_reg1, src_reg1, mask, mode=MERGING)
        Reg.ReduceMax(max_reg, max_reg, mask_full)
        Reg.ReduceMax(max_reg1, max_reg1, mask_full)
        Reg.Duplicate(max_reg, max_reg, mask_full)
        Reg.Duplicate(max_reg1, max_reg1, mask_full)
        count0 = rs.Ref(r_dim)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count0)
            load_with_cast_if_need(src_addr, src_reg, mask, i * r_dim_align + j * ONE_REPEAT)
            load_with_cast_if_need(src_addr, src_reg1, mask, i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.ExpSub(exp_reg, src_reg, max_reg, mask)
            Reg.ExpSub(exp_reg1, src_reg1, max_reg1, mask)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, exp_reg, mask)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align, exp_reg1, mask)
    Reg.LocalMemBar(src=Reg.MemType.VEC_LOAD, dst=Reg.MemType.VEC_STORE)
    for i in range(half_a):
        count1 = rs.Ref(r_dim)
        Reg.Duplicate(sum_reg, 0.0, mask_full)
        Reg.Duplicate(sum_reg1, 0.0, mask_full)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count1)
            Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.LoadAlign(src_reg1, exp_addr + i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.Add(sum_reg, sum_reg, src_reg, mask, mode=MERGING)
            Reg.Add(sum_reg1, sum_reg1, src_reg1, mask, mode=MERGING)
        Reg.ReduceSum(sum_reg, sum_reg, mask_full)
        Reg.ReduceSum(sum_reg1, sum_reg1, mask_full)
        Reg.Duplicate(sum_reg, sum_reg, mask_full)
        Reg.Duplicate(sum_reg1, sum_reg1, mask_full)
        count2 = rs.Ref(r_dim)
        for j in range(repeat_times):
            mask = Reg.UpdateMask(F32, count2)
            Reg.LoadAlign(max_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.LoadAlign(max_reg1, exp_addr + i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.Div(div_reg, max_reg, sum_reg, mask)
            Reg.Div(div_reg1, max_reg1, sum_reg1, mask)
            store_with_cast_if_need(dst_addr, div_reg, mask, i * r_dim_align + j * ONE_REPEAT)
            store_with_cast_if_need(dst_addr, div_reg1, mask, i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)


@rs.simd_vf
def softmax_vf_4(
    dst_addr: Ptr, src_addr: Ptr, exp_addr: Ptr, sum_addr: Ptr, a_dim: int, r_dim: int, r_dim_align: int, repeat_times_main: int
) -> None:
    """Case 4: RegBase, main-tail block (full masks over the rDim / 64 main repeats; the tail is not computed)."""
    mask_full = Reg.CreateMask(F32, pattern=ALL)
    mask = mask_full  # MaskReg mask = maskFull;
    src_reg, max_reg, exp_reg = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
    sum_reg, div_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
    for i in range(a_dim):  # Phase 1: ReduceMax + ExpSub (main-tail block mode)
        Reg.Duplicate(max_reg, FP32_MIN_VALUE, mask_full)
        for j in range(repeat_times_main):
            load_with_cast_if_need(src_addr, src_reg, mask_full, i * r_dim_align + j * ONE_REPEAT)
            Reg.Max(max_reg, max_reg, src_reg, mask_full)
        Reg.ReduceMax(max_reg, max_reg, mask_full)
        Reg.Duplicate(max_reg, max_reg, mask_full)
        for j in range(repeat_times_main):
            load_with_cast_if_need(src_addr, src_reg, mask_full, i * r_dim_align + j * ONE_REPEAT)
            Reg.ExpSub(exp_reg, src_reg, max_reg, mask_full)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, exp_reg, mask_full)
    Reg.LocalMemBar(src=Reg.MemType.VEC_LOAD, dst=Reg.MemType.VEC_STORE)
    for i in range(a_dim):
        Reg.Duplicate(sum_reg, 0.0, mask_full)
        for j in range(repeat_times_main):
            Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Add(sum_reg, sum_reg, src_reg, mask_full)
        Reg.ReduceSum(sum_reg, sum_reg, mask_full)
        Reg.Duplicate(sum_reg, sum_reg, mask_full)
        for j in range(repeat_times_main):
            Reg.LoadAlign(max_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.Div(div_reg, max_reg, sum_reg, mask)
            store_with_cast_if_need(dst_addr, div_reg, mask, i * r_dim_align + j * ONE_REPEAT)


@rs.simd_vf
def softmax_vf_5(
    dst_addr: Ptr, src_addr: Ptr, exp_addr: Ptr, sum_addr: Ptr, a_dim: int, r_dim: int, r_dim_align: int, repeat_times_main: int
) -> None:
    """Case 5: RegBase, main-tail + outer loop unrolling + ExpSub."""
    mask_full = Reg.CreateMask(F32, pattern=ALL)
    src_reg, max_reg, exp_reg = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
    sum_reg, div_reg = Reg.RegTensor(F32), Reg.RegTensor(F32)
    src_reg1, max_reg1, exp_reg1 = Reg.RegTensor(F32), Reg.RegTensor(F32), Reg.RegTensor(F32)
    sum_reg1, div_reg1 = Reg.RegTensor(F32), Reg.RegTensor(F32)
    half_a = a_dim >> 1
    for i in range(half_a):  # Phase 1: ReduceMax + ExpSub (outer loop unrolled + main-tail)
        Reg.Duplicate(max_reg, FP32_MIN_VALUE, mask_full)
        Reg.Duplicate(max_reg1, FP32_MIN_VALUE, mask_full)
        for j in range(repeat_times_main):
            load_with_cast_if_need(src_addr, src_reg, mask_full, i * r_dim_align + j * ONE_REPEAT)
            load_with_cast_if_need(src_addr, src_reg1, mask_full, i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.Max(max_reg, max_reg, src_reg, mask_full)
            Reg.Max(max_reg1, max_reg1, src_reg1, mask_full)
        Reg.ReduceMax(max_reg, max_reg, mask_full)
        Reg.ReduceMax(max_reg1, max_reg1, mask_full)
        Reg.Duplicate(max_reg, max_reg, mask_full)
        Reg.Duplicate(max_reg1, max_reg1, mask_full)
        for j in range(repeat_times_main):
            load_with_cast_if_need(src_addr, src_reg, mask_full, i * r_dim_align + j * ONE_REPEAT)
            load_with_cast_if_need(src_addr, src_reg1, mask_full, i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.ExpSub(exp_reg, src_reg, max_reg, mask_full)
            Reg.ExpSub(exp_reg1, src_reg1, max_reg1, mask_full)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT, exp_reg, mask_full)
            Reg.StoreAlign(exp_addr + i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align, exp_reg1, mask_full)
    Reg.LocalMemBar(src=Reg.MemType.VEC_LOAD, dst=Reg.MemType.VEC_STORE)
    for i in range(half_a):
        Reg.Duplicate(sum_reg, 0.0, mask_full)
        Reg.Duplicate(sum_reg1, 0.0, mask_full)
        for j in range(repeat_times_main):
            Reg.LoadAlign(src_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.LoadAlign(src_reg1, exp_addr + i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.Add(sum_reg, sum_reg, src_reg, mask_full)
            Reg.Add(sum_reg1, sum_reg1, src_reg1, mask_full)
        Reg.ReduceSum(sum_reg, sum_reg, mask_full)
        Reg.ReduceSum(sum_reg1, sum_reg1, mask_full)
        Reg.Duplicate(sum_reg, sum_reg, mask_full)
        Reg.Duplicate(sum_reg1, sum_reg1, mask_full)
        for j in range(repeat_times_main):
            Reg.LoadAlign(max_reg, exp_addr + i * r_dim_align + j * ONE_REPEAT)
            Reg.LoadAlign(max_reg1, exp_addr + i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)
            Reg.Div(div_reg, max_reg, sum_reg, mask_full)
            Reg.Div(div_reg1, max_reg1, sum_reg1, mask_full)
            store_with_cast_if_need(dst_addr, div_reg, mask_full, i * r_dim_align + j * ONE_REPEAT)
            store_with_cast_if_need(dst_addr, div_reg1, mask_full, i * r_dim_align + j * ONE_REPEAT + half_a * r_dim_align)


def custom_softmax_0(
    dst_tensor: rs.LocalTensor[Any],
    src_tensor: rs.LocalTensor[Any],
    exp_tensor: rs.LocalTensor[Any],
    sum_tensor: rs.LocalTensor[Any],
    a_dim: int,
    r_dim: int,
    r_dim_align: int,
) -> None:
    """Case 0: MemBase, single loop (CustomSoftmax<float>, quoted in the module docstring)."""
    A = rs.AscendC
    for i in range(a_dim):
        row = i * r_dim_align
        A.ReduceMax(exp_tensor[row], src_tensor[row], sum_tensor[row], r_dim)  # expTensor[row][0] = max
        A.Duplicate(exp_tensor[row], exp_tensor[row], r_dim)  # broadcast over the row
        A.Sub(exp_tensor[row], src_tensor[row], exp_tensor[row], r_dim)  # x - max
        A.Exp(exp_tensor[row], exp_tensor[row], r_dim)  # e^(x - max)
        A.ReduceSum(sum_tensor[row], exp_tensor[row], dst_tensor[row].ReinterpretCast(F32), r_dim)  # work: dstTensor
        A.Duplicate(sum_tensor[row], sum_tensor[row], r_dim)
        A.Div(dst_tensor[row], exp_tensor[row], sum_tensor[row], r_dim)


def kernel(x: npt.NDArray[np.float32], scenario: int) -> npt.NDArray[np.float32]:
    """softmax_custom<float> with tiling {aDim 128, lastADim 0, rDim 128, rDimAlign 128, loopCount 1}: one core,
    x, y, exp and sum allocated in order (sum: the whole length in scenarios 0-2, 8 floats otherwise)."""
    length = A_DIM * R_DIM_ALIGN  # singleCoreAlignLength
    # scenarios 0-2 allocate 4 x 64 KiB, more than the 950's 248 KiB UB (TOTAL_UB_SIZE): run them in a 256 KiB one
    ub = rs.UnifiedBuffer(size=4 * length * 4) if scenario <= 2 else rs.UnifiedBuffer()
    x_local, y_local = ub.alloc(F32, length), ub.alloc(F32, length)
    exp_tensor = ub.alloc(F32, length)
    sum_tensor = ub.alloc(F32, length if scenario <= 2 else 8)
    rows = x.reshape(A_DIM, R_DIM)
    x_local.set(np.pad(rows, ((0, 0), (0, R_DIM_ALIGN - R_DIM))))  # DataCopyPad per row (isPad: zeros)
    ptrs = (y_local.GetPhyAddr(), x_local.GetPhyAddr(), exp_tensor.GetPhyAddr(), sum_tensor.GetPhyAddr())
    if scenario == 0:
        custom_softmax_0(y_local, x_local, exp_tensor, sum_tensor, A_DIM, R_DIM, R_DIM_ALIGN)
    elif scenario in (1, 2, 3):
        vf = {1: softmax_vf_1, 2: softmax_vf_2, 3: softmax_vf_3}[scenario]
        rs.asc_vf_call(vf, *ptrs, A_DIM, R_DIM, R_DIM_ALIGN)
    else:
        repeat_times_main = R_DIM // ONE_REPEAT  # rDim / (256 / sizeof(float)); tail = rDim % 64 = 0 here
        rs.asc_vf_call(softmax_vf_4 if scenario == 4 else softmax_vf_5, *ptrs, A_DIM, R_DIM, R_DIM_ALIGN, repeat_times_main)
    out: npt.NDArray[np.float32] = y_local.numpy().reshape(A_DIM, R_DIM_ALIGN)[:, :R_DIM].reshape(-1)
    return out


def kernel_order(x: npt.NDArray[np.float32], floor: np.float32 = FP32_MIN_VALUE) -> npt.NDArray[np.float32]:
    """Every scenario's arithmetic in numpy, row by row: m = max(row, floor) (exact; fp32MinValue, scenario 0's
    ReduceMax -FLT_MAX); e = Exp(float32(x - m));
    per lane the float32 sum over the repeats in loop order (from 0); ReduceSum's tree of adjacent pairs over the 64
    lanes; e / sum correctly rounded (`_kernel_order`)."""
    rows = x.reshape(A_DIM, R_DIM)
    m = np.maximum(rows.max(axis=1, keepdims=True), floor)
    e = exp_ftz((rows - m).astype(np.float32))
    acc = np.zeros((A_DIM, ONE_REPEAT), np.float32)
    for block in np.split(e, R_DIM // ONE_REPEAT, axis=1):
        acc = (acc + block).astype(np.float32)
    while acc.shape[1] > 1:
        acc = (acc[:, 0::2] + acc[:, 1::2]).astype(np.float32)
    return div_ftz(e, np.broadcast_to(acc, e.shape).astype(np.float32)).reshape(-1)


def golden(x: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """gen_data.py's golden."""
    rows = x.reshape(A_DIM, R_DIM)
    exp_x = np.exp(rows - np.max(rows, axis=1, keepdims=True))
    out: npt.NDArray[np.float32] = (exp_x / np.sum(exp_x, axis=1, keepdims=True)).astype(np.float32).reshape(-1)
    return out


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    np.random.seed(seed)  # gen_data.py uses the global numpy generator, unseeded
    x = np.random.uniform(-5, 5, [A_DIM, R_DIM]).astype(np.float32).reshape(-1)
    want_0, want = kernel_order(x, -np.finfo(np.float32).max), kernel_order(x)
    ones = np.ones(x.size, np.uint8)
    outputs: dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]] = {}
    for scenario in range(6):
        y = kernel(x, scenario)
        exact = want_0 if scenario == 0 else want
        outputs[f"scenario {scenario}: y (the kernel's order, bit-exact)"] = (y.view(np.uint32), exact.view(np.uint32))
        outputs[f"scenario {scenario}: y within verify_result.py's tolerance of gen_data.py's golden"] = (
            vendor_isclose(y, golden(x)),
            ones,
        )
    return outputs
