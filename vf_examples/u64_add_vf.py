"""uint64 add on RegTraitNumTwo registers: the 950 library's AddB64Impl (Add + AddC on 32-bit words).

On Ascend 950, b64 arithmetic runs on `RegTensor<uint64_t, RegTraitNumTwo>`: `LoadAlign` reads
2·VL = 512 B (64 elements) and de-interleaves them, `reg[0]` = the 64 low 32-bit words and
`reg[1]` = the 64 high words. `Add` on such a tensor is (I/dav_3510/kernel_reg_compute_vec_binary_impl.h):

    template <typename T = DefaultType, MaskMergeMode mode = MaskMergeMode::ZEROING, typename U>
    __simd_callee__ inline void AddB64Impl(U& dstReg, U& srcReg0, U& srcReg1, MaskReg& mask)
    {   ...
        MaskReg carryMask;
        MaskReg carrySrcMask;
        if constexpr (Std::is_same_v<ActualT, uint64_t>) {
            Add(carryMask, (RegTensor<uint32_t>&)dstReg.reg[0], (RegTensor<uint32_t>&)srcReg0.reg[0],
                        (RegTensor<uint32_t>&)srcReg1.reg[0], mask);
            AddC(carrySrcMask, (RegTensor<uint32_t>&)dstReg.reg[1], (RegTensor<uint32_t>&)srcReg0.reg[1],
                         (RegTensor<uint32_t>&)srcReg1.reg[1], carryMask, mask);
        } ...
    }

and the LocalTensor `Add(dst, src0, src1, calCount)` for uint64 drives it through
`BinaryContinuousImplTemplate<uint64_t, RegTensor<uint64_t, RegTraitNumTwo>, Reg::Add>`
(impl/basic_api/dav_3510/kernel_operator_vec_binary_continuous_impl.h).

Porting note: regsim's `RegTensor` has no `.reg[k]` member. `(RegTensor<uint32_t>&)reg` — in
regsim `reg.reinterpret(rs.uint32)` — is, as in C++, a view of the FIRST register only
(`reg[0]`, the low words), and there is no view of `reg[1]`. So `add_b64_vf` keeps each
RegTraitNumTwo tensor as its two uint32 registers `(lo, hi)` explicitly, loaded from the
low-word and high-word arrays that `LoadDist::DIST_DINTLV_B32` would produce (the host splits
them here), and `AddB64Impl` is ported on those pairs line by line. `trait_two_add_vf` runs the
library path itself on `RegTensor(rs.uint64, RegTraitNumTwo)` with regsim's `Reg.Add`, and its
outputs are checked against numpy and against the Add + AddC port; it also stores
`src_reg0.reinterpret(rs.uint32)` to show the cast sees `reg[0]`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

import regsim as rs
from regsim import Reg

COUNT = 1000  #: uint64 elements: 15 * 64 + 40, so the last repeat has a 40-lane tail mask
SENTINEL = 0xA5A5A5A5_5A5A5A5A  #: what dst holds before the kernel: lanes past `count` must keep it
U32 = 0xFFFFFFFF


@rs.simd_callee
def add_b64_impl(
    dst_reg: tuple[Reg.RegTensor[rs.uint32], Reg.RegTensor[rs.uint32]],
    src_reg0: tuple[Reg.RegTensor[rs.uint32], Reg.RegTensor[rs.uint32]],
    src_reg1: tuple[Reg.RegTensor[rs.uint32], Reg.RegTensor[rs.uint32]],
    mask: Reg.MaskReg,
) -> Reg.MaskReg:
    """AddB64Impl's uint64 branch; a RegTraitNumTwo tensor is passed as its (reg[0], reg[1]).

    Returns carrySrcMask, the carry out of bit 63 (AddB64Impl drops it; the example stores it).
    """
    carry_mask = Reg.MaskReg()  # MaskReg carryMask;
    carry_src_mask = Reg.MaskReg()  # MaskReg carrySrcMask;
    # Add(carryMask, (RegTensor<uint32_t>&)dstReg.reg[0], (RegTensor<uint32_t>&)srcReg0.reg[0],
    #     (RegTensor<uint32_t>&)srcReg1.reg[0], mask);
    Reg.Add(carry_mask, dst_reg[0], src_reg0[0], src_reg1[0], mask)
    # AddC(carrySrcMask, (RegTensor<uint32_t>&)dstReg.reg[1], (RegTensor<uint32_t>&)srcReg0.reg[1],
    #      (RegTensor<uint32_t>&)srcReg1.reg[1], carryMask, mask);
    Reg.AddC(carry_src_mask, dst_reg[1], src_reg0[1], src_reg1[1], carry_mask, mask)
    return carry_src_mask


@rs.simd_vf
def add_b64_vf(
    dst_lo: rs.UbPtr[rs.uint32],
    dst_hi: rs.UbPtr[rs.uint32],
    carry_out: rs.UbPtr[rs.uint32],
    src0_lo: rs.UbPtr[rs.uint32],
    src0_hi: rs.UbPtr[rs.uint32],
    src1_lo: rs.UbPtr[rs.uint32],
    src1_hi: rs.UbPtr[rs.uint32],
    cal_count: int,
) -> None:
    """BinaryContinuousImplTemplate<uint64_t, RegTensor<uint64_t, RegTraitNumTwo>, AddB64Impl>,
    each RegTraitNumTwo tensor held as its two uint32 registers."""
    src0_reg = (Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32))  # RegType src0Reg;
    src1_reg = (Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32))  # RegType src1Reg;
    dst_reg = (Reg.RegTensor(rs.uint32), Reg.RegTensor(rs.uint32))  # RegType dstReg;
    sreg = rs.Ref(cal_count)  # uint32_t sreg = static_cast<uint32_t>(calCount);
    # constexpr uint32_t repeatStride = GetVecLen() / sizeof(T) * RegType::trait.REG_NUM;  (= 64)
    repeat_stride = 256 // rs.uint64.itemsize * Reg.RegTraitNumTwo.REG_NUM
    repeat_time = -(-cal_count // repeat_stride)  # CeilDivision(calCount, repeatStride)
    for i in range(repeat_time):  # for (uint16_t i = 0; i < repeatTime; ++i) {
        # mask = UpdateMask<T, RegType::trait>(sreg);  — 64 lanes in the b32 layout (bit 4i)
        mask = Reg.UpdateMask(rs.uint64, sreg, trait=Reg.RegTraitNumTwo)
        # LoadAlign(src0Reg, src0 + i * repeatStride);  — the DINTLV_B32 halves, 64 words each
        Reg.LoadAlign(src0_reg[0], src0_lo + i * repeat_stride)
        Reg.LoadAlign(src0_reg[1], src0_hi + i * repeat_stride)
        Reg.LoadAlign(src1_reg[0], src1_lo + i * repeat_stride)  # LoadAlign(src1Reg, src1 + i * repeatStride);
        Reg.LoadAlign(src1_reg[1], src1_hi + i * repeat_stride)
        carry = add_b64_impl(dst_reg, src0_reg, src1_reg, mask)  # func(dstReg, src0Reg, src1Reg, mask);
        Reg.StoreAlign(dst_lo + i * repeat_stride, dst_reg[0], mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);
        Reg.StoreAlign(dst_hi + i * repeat_stride, dst_reg[1], mask)
        # (not in the library) the carry out of bit 63, 32 B per repeat, as the AddC page's AddVF stores it
        Reg.StoreAlign(carry_out + i * 8, carry, dist=Reg.MaskDist.DIST_NORM)


@rs.simd_vf
def trait_two_add_vf(
    dst: rs.UbPtr[rs.uint64],
    low_words: rs.UbPtr[rs.uint32],
    src0: rs.UbPtr[rs.uint64],
    src1: rs.UbPtr[rs.uint64],
    cal_count: int,
) -> None:
    """BinaryContinuousImplTemplate<uint64_t, RegTensor<uint64_t, RegTraitNumTwo>, Reg::Add>, plus
    a store of `(RegTensor<uint32_t>&)src0Reg` (= src0Reg.reg[0]) to `low_words`."""
    src0_reg = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)  # RegType src0Reg;
    src1_reg = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)  # RegType src1Reg;
    dst_reg = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)  # RegType dstReg;
    sreg = rs.Ref(cal_count)  # uint32_t sreg = static_cast<uint32_t>(calCount);
    repeat_stride = 256 // rs.uint64.itemsize * Reg.RegTraitNumTwo.REG_NUM  # = 64
    repeat_time = -(-cal_count // repeat_stride)  # CeilDivision(calCount, repeatStride)
    for i in range(repeat_time):  # for (uint16_t i = 0; i < repeatTime; ++i) {
        mask = Reg.UpdateMask(rs.uint64, sreg, trait=Reg.RegTraitNumTwo)  # mask = UpdateMask<T, RegType::trait>(sreg);
        Reg.LoadAlign(src0_reg, src0 + i * repeat_stride)  # LoadAlign(src0Reg, src0 + i * repeatStride);  (512 B)
        Reg.LoadAlign(src1_reg, src1 + i * repeat_stride)  # LoadAlign(src1Reg, src1 + i * repeatStride);
        Reg.Add(dst_reg, src0_reg, src1_reg, mask)  # func(dstReg, src0Reg, src1Reg, mask);  (Reg::Add)
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);
        # StoreAlign((__ubuf__ uint32_t*)lowWords + i * repeatStride, (RegTensor<uint32_t>&)src0Reg, mask);
        Reg.StoreAlign(low_words + i * repeat_stride, src0_reg.reinterpret(rs.uint32), mask)


def inputs(seed: int, count: int = COUNT) -> tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64]]:
    """Random uint64 operands with the word-boundary carry cases first."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2**64, count, dtype=np.uint64)
    b = rng.integers(0, 2**64, count, dtype=np.uint64)
    edges = [
        (2**64 - 1, 1),  # carries through both words, wraps to 0
        (U32, 1),  # low-word carry into the high word
        (U32 << 32, 1 << 32),  # high-word carry out only
        (2**64 - 1, 2**64 - 1),
        (0, 0),
        (U32, U32),
        (2**63, 2**63),
    ]
    for k, (x, y) in enumerate(edges):
        a[k], b[k] = x, y
    return a, b


def run(seed: int = 0) -> dict[str, tuple[npt.NDArray[Any], npt.NDArray[Any]]]:
    a, b = inputs(seed)
    count = a.size
    repeat_stride = 64
    padded = -(-count // repeat_stride) * repeat_stride
    repeat_time = padded // repeat_stride

    # --- the __aicore__ side ----------------------------------------------------------------
    ub = rs.UnifiedBuffer()
    src0 = ub.alloc(rs.uint64, count)
    src1 = ub.alloc(rs.uint64, count)
    dst = ub.alloc(rs.uint64, padded)
    low_words = ub.alloc(rs.uint32, padded)
    src0.set(a)
    src1.set(b)
    dst.set(np.full(padded, SENTINEL, np.uint64))
    rs.asc_vf_call(trait_two_add_vf, dst.GetPhyAddr(), low_words.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), count)

    # the word halves a DINTLV_B32 load makes of each operand, as separate uint32 tensors
    src0_lo, src0_hi, src1_lo, src1_hi = (ub.alloc(rs.uint32, count) for _ in range(4))
    for t, x in zip((src0_lo, src0_hi, src1_lo, src1_hi), (a & U32, a >> 32, b & U32, b >> 32), strict=True):
        t.set(x.astype(np.uint32))
    dst_lo = ub.alloc(rs.uint32, count)
    dst_hi = ub.alloc(rs.uint32, count)
    carry_out = ub.alloc(rs.uint32, repeat_time * 8)
    carry_out.set(np.zeros(repeat_time * 8, np.uint32))
    rs.asc_vf_call(
        add_b64_vf,
        dst_lo.GetPhyAddr(),
        dst_hi.GetPhyAddr(),
        carry_out.GetPhyAddr(),
        src0_lo.GetPhyAddr(),
        src0_hi.GetPhyAddr(),
        src1_lo.GetPhyAddr(),
        src1_hi.GetPhyAddr(),
        count,
    )
    got_b64 = dst_lo.numpy().astype(np.uint64) | (dst_hi.numpy().astype(np.uint64) << np.uint64(32))
    got_trait_two = dst.numpy()

    # --- the reference: numpy's wrapping uint64 add; the carry out with Python ints -----------
    expected = a + b
    words = [0] * (repeat_time * 8)
    for j, (x, y) in enumerate(zip(a.tolist(), b.tolist(), strict=True)):
        i, lane = divmod(j, repeat_stride)
        if x + y >= 2**64:
            words[i * 8 + lane // 8] |= 1 << (4 * (lane % 8))
    return {
        "Reg.Add u64 RegTraitNumTwo": (got_trait_two[:count], expected),
        "Reg.Add dst[count:] (untouched)": (got_trait_two[count:], np.full(padded - count, SENTINEL, np.uint64)),
        "(RegTensor<uint32_t>&)src0Reg = reg[0]": (low_words.numpy()[:count], (a & U32).astype(np.uint32)),
        "AddB64Impl port (Add + AddC)": (got_b64, expected),
        "AddB64Impl port == Reg.Add": (got_b64, got_trait_two[:count]),
        "carry out of bit 63": (carry_out.numpy(), np.array(words, dtype=np.uint32)),
    }
