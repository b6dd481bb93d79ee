"""uint64 add on RegTraitNumTwo registers: the 950 library's AddB64Impl (Add + AddC on 32-bit words).

On Ascend 950, b64 arithmetic runs on `RegTensor<uint64_t, RegTraitNumTwo>`: `LoadAlign` reads
2·VL = 512 B (64 elements) and de-interleaves them, `reg[0]` = the 64 low 32-bit words and
`reg[1]` = the 64 high words. `Add` on such a tensor is (the 950 library's `kernel_reg_compute_vec_binary_impl.h`):

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

Ported line by line: `(RegTensor<uint32_t>&)dstReg.reg[1]` is
`dst_reg.reg[1].reinterpret(rs.uint32)`. `trait_two_add_vf` runs the library path on
`RegTensor(rs.uint64, RegTraitNumTwo)` with regsim's own `Reg.Add`; `add_b64_vf` runs the same
loop with the `AddB64Impl` port. Both are checked against numpy's wrapping uint64 add;
`trait_two_add_vf` also stores `src0Reg.reg[0]` (the low words), and `add_b64_vf` the carry out
of bit 63, which `AddB64Impl` itself drops.
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
    dst_reg: Reg.RegTensor[rs.uint64],
    src_reg0: Reg.RegTensor[rs.uint64],
    src_reg1: Reg.RegTensor[rs.uint64],
    mask: Reg.MaskReg,
) -> Reg.MaskReg:
    """AddB64Impl's uint64 branch, on RegTraitNumTwo tensors.

    Returns carrySrcMask, the carry out of bit 63 (AddB64Impl drops it; the example stores it).
    """
    carry_mask = Reg.MaskReg()  # MaskReg carryMask;
    carry_src_mask = Reg.MaskReg()  # MaskReg carrySrcMask;
    # Add(carryMask, (RegTensor<uint32_t>&)dstReg.reg[0], (RegTensor<uint32_t>&)srcReg0.reg[0],
    #     (RegTensor<uint32_t>&)srcReg1.reg[0], mask);
    Reg.Add(
        carry_mask,
        dst_reg.reg[0].reinterpret(rs.uint32),
        src_reg0.reg[0].reinterpret(rs.uint32),
        src_reg1.reg[0].reinterpret(rs.uint32),
        mask,
    )
    # AddC(carrySrcMask, (RegTensor<uint32_t>&)dstReg.reg[1], (RegTensor<uint32_t>&)srcReg0.reg[1],
    #      (RegTensor<uint32_t>&)srcReg1.reg[1], carryMask, mask);
    Reg.AddC(
        carry_src_mask,
        dst_reg.reg[1].reinterpret(rs.uint32),
        src_reg0.reg[1].reinterpret(rs.uint32),
        src_reg1.reg[1].reinterpret(rs.uint32),
        carry_mask,
        mask,
    )
    return carry_src_mask


@rs.simd_vf
def add_b64_vf(
    dst: rs.UbPtr[rs.uint64],
    carry_out: rs.UbPtr[rs.uint32],
    src0: rs.UbPtr[rs.uint64],
    src1: rs.UbPtr[rs.uint64],
    cal_count: int,
) -> None:
    """BinaryContinuousImplTemplate<uint64_t, RegTensor<uint64_t, RegTraitNumTwo>, AddB64Impl>."""
    src0_reg = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)  # RegType src0Reg;
    src1_reg = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)  # RegType src1Reg;
    dst_reg = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)  # RegType dstReg;
    sreg = rs.Ref(cal_count)  # uint32_t sreg = static_cast<uint32_t>(calCount);
    # constexpr uint32_t repeatStride = GetVecLen() / sizeof(T) * RegType::trait.REG_NUM;  (= 64)
    repeat_stride = 256 // rs.uint64.itemsize * Reg.RegTraitNumTwo.REG_NUM
    repeat_time = -(-cal_count // repeat_stride)  # CeilDivision(calCount, repeatStride)
    for i in range(repeat_time):  # for (uint16_t i = 0; i < repeatTime; ++i) {
        # mask = UpdateMask<T, RegType::trait>(sreg);  — 64 lanes in the b32 layout (bit 4i)
        mask = Reg.UpdateMask(rs.uint64, sreg, trait=Reg.RegTraitNumTwo)
        Reg.LoadAlign(src0_reg, src0 + i * repeat_stride)  # LoadAlign(src0Reg, src0 + i * repeatStride);  (512 B)
        Reg.LoadAlign(src1_reg, src1 + i * repeat_stride)  # LoadAlign(src1Reg, src1 + i * repeatStride);
        carry = add_b64_impl(dst_reg, src0_reg, src1_reg, mask)  # func(dstReg, src0Reg, src1Reg, mask);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);
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

    dst_b64 = ub.alloc(rs.uint64, padded)
    dst_b64.set(np.full(padded, SENTINEL, np.uint64))
    carry_out = ub.alloc(rs.uint32, repeat_time * 8)
    carry_out.set(np.zeros(repeat_time * 8, np.uint32))
    rs.asc_vf_call(add_b64_vf, dst_b64.GetPhyAddr(), carry_out.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), count)
    got_b64 = dst_b64.numpy()
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
        "AddB64Impl port (Add + AddC)": (got_b64[:count], expected),
        "AddB64Impl port dst[count:] (untouched)": (got_b64[count:], np.full(padded - count, SENTINEL, np.uint64)),
        "carry out of bit 63": (carry_out.numpy(), np.array(words, dtype=np.uint32)),
    }
