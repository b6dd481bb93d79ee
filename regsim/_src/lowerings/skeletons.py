"""The lowering skeletons of the memory-level APIs: the VFs the 950 library runs for a family of APIs, each over the
Reg op (or Reg callee) of the API that calls it, and the callees they share. The library VFs' C++ lines are kept as
comments beside the Reg calls they become.

- `binary_continuous_vf` / `unary_continuous_vf`: the first-n interface (`BinaryContinuousImplTemplate`,
  `VecUnaryLevel2VFImpl`, `VecBinaryScalarLevel2VFImpl`, ...): one register per iteration under `UpdateMask`;
- `vec_binary_vf` / `vec_unary_vf`: the mask/repeat interfaces (`VecBinaryVFImpl`, `VecUnaryLevel0VFImpl`, ...):
  8 DataBlocks per repeat at the block and repeat strides, the predicate from `vec_micro_mask`;
- the callees: `vec_micro_mask` (the count, the repeats and the normal-mode predicate), `load_blocks` /
  `store_blocks` (one repeat's DataBlocks), `select_blocks` (one repeat of a Select), `load_scalar` (a
  flexible-scalar call's broadcast element), `pack_mask` (the source predicate of a widening call).
"""

from __future__ import annotations

from typing import Any, Final, cast

from regsim._src.engine.context import Ref
from regsim._src.lowerings.structs import BinaryRepeatParams, UnaryRepeatParams
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf


@simd_vf
def binary_continuous_vf(
    func: Any,
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any],
    cal_count: int,
    trait: Any,
    scalar_idx: int = -1,
    dst_input: bool = False,
) -> None:
    """`BinaryContinuousImplTemplate<T, RegType, func>` (kernel_operator_vec_binary_continuous_impl.h): the
    first-n interface, one register (two for b64 and complex32: RegTraitNumTwo) per iteration; src1 of another type
    than dst is the two-type template `BinaryContinuousImplTemplate<T, U, RegTypeT, RegTypeU, func>` (the shift
    amounts of `ShiftLeft(dst, src0, src1, count)`). With
    `scalar_idx` 0 or 1 it is `BinaryScalarOpTemplateCnt` / `BinaryScalarOpTemplateCntB64`
    (kernel_operator_vec_binary_scalar_impl.h), a flexible-scalar call: source `scalar_idx` is the scalar,
    broadcast from its element 0 (`load_scalar`) in every iteration (b64: once, before the loop). `dst_input`: dst is
    an operand too, loaded after the sources (the first-n VFs of FusedMulAdd, MulAddRelu, MulAddDst)."""
    T = dst.dtype
    src0_reg = Reg.RegTensor(T, trait=trait)  # RegType src0Reg;
    src1_reg = Reg.RegTensor(src1.dtype, trait=trait)  # RegType src1Reg; (RegTypeU for the two-type template: ShiftLeft)
    dst_reg = Reg.RegTensor(T, trait=trait)  # RegType dstReg;
    sreg = Ref(cal_count)  # uint32_t sreg = static_cast<uint32_t>(calCount);
    repeat_stride = VL // T.itemsize * trait.REG_NUM  # GetVecLen() / sizeof(T) * RegType::trait.REG_NUM
    repeat_time = -(-cal_count // repeat_stride)  # CeilDivision(calCount, repeatStride)
    once = scalar_idx >= 0 and T.itemsize == 8
    if once:  # BinaryScalarOpTemplateCntB64: the scalar broadcast before the loop
        load_scalar(src1_reg if scalar_idx else src0_reg, src1 if scalar_idx else src0)
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T, RegType::trait>(sreg);
        if scalar_idx != 0:
            Reg.LoadAlign(src0_reg, src0 + i * repeat_stride)  # LoadAlign(src0Reg, src0 + i * repeatStride);
        elif not once:
            load_scalar(src0_reg, src0)  # LoadAlign<T, pattern>(vSrcReg0, src0);
        if scalar_idx != 1:
            Reg.LoadAlign(src1_reg, src1 + i * repeat_stride)  # LoadAlign(src1Reg, src1 + i * repeatStride);
        elif not once:
            load_scalar(src1_reg, src1)  # LoadAlign<T, pattern>(vSrcReg1, src1);
        if dst_input:
            Reg.LoadAlign(dst_reg, dst + i * repeat_stride)  # LoadAlign(dstReg, dst + i * repeatStride);
        func(dst_reg, src0_reg, src1_reg, mask, mode=Reg.MaskMergeMode.ZEROING)  # func(dstReg, src0Reg, src1Reg, mask);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);


@simd_callee
def vec_micro_mask(
    T: type[dt.DType], mask_count: int, repeat_time: int, normal_mode: bool, spr_mask: bool
) -> tuple[Ref[int], int, MaskReg]:
    """`VecMicroGetCount` + `VecMicroGetRepeatTimes` + (normal mode) `VecMicroGetMaskReg`: the count register,
    the repeats (repeatTime, or in counter mode ceil(count / elements per repeat)) and the predicate of
    every repeat in normal mode — `MoveMask<T>()` of the vector mask register (bit mode, or
    `isSetMask = false`), else `UpdateMask<T>(mask)`."""
    count = Ref(mask_count)
    repeats = repeat_time if normal_mode else -(-mask_count // (VL // T.itemsize))
    mask_reg = Reg.MaskReg()
    if normal_mode:
        mask_reg = Reg.MoveMask(T) if spr_mask else Reg.UpdateMask(T, count)  # type: ignore[type-var]  # b16/b32 only here
    return count, repeats, mask_reg


@simd_callee
def load_blocks(dst_reg: RegTensor[Any], src: UbPtr[Any], block_stride: int, mask: MaskReg) -> None:
    """`LoadAlign<T, DataCopyMode::DATA_BLOCK_COPY>(dst, src, blkStride, mask)`: one repeat's 8 DataBlocks."""
    Reg.LoadAlign(dst_reg, src, block_stride, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@simd_callee
def store_blocks(dst: UbPtr[Any], src_reg: RegTensor[Any], block_stride: int, mask: MaskReg) -> None:
    """`StoreAlign<T, DataCopyMode::DATA_BLOCK_COPY>(dst, src, blkStride, mask)`: one repeat's 8 DataBlocks."""
    Reg.StoreAlign(dst, src_reg, block_stride, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@simd_callee
def select_blocks(
    i: int,
    dst: UbPtr[Any],
    src0: UbPtr[Any] | None,
    src1: UbPtr[Any] | None,
    regs: tuple[RegTensor[Any], RegTensor[Any], RegTensor[Any]],
    sel_mask: MaskReg,
    mask_reg: MaskReg,
    p: tuple[int, ...],
    scalar_idx: int = -1,
) -> None:
    """One repeat of `SelectMode{0,1,2}Level0`: the sources' DataBlocks at their strides, `Reg::Select`, dst's
    DataBlocks stored under the mask (unselected elements keep their UB bytes). `p`: BinaryRepeatParams' fields.
    Source `scalar_idx` (a flexible-scalar call's scalar, already broadcast in its register) is not loaded."""
    src0_reg, src1_reg, dst_reg = regs
    e = ONE_BLOCK_SIZE // dst.dtype.itemsize
    if scalar_idx != 0:
        load_blocks(src0_reg, cast("UbPtr[Any]", src0) + i * p[4] * e, p[1], mask_reg)
    if src1 is not None and scalar_idx != 1:
        load_blocks(src1_reg, src1 + i * p[5] * e, p[2], mask_reg)
    Reg.Select(dst_reg, src0_reg, src1_reg, sel_mask)
    store_blocks(dst + i * p[3] * e, dst_reg, p[0], mask_reg)


_BRC: Final = {1: Reg.LoadDist.DIST_BRC_B8, 2: Reg.LoadDist.DIST_BRC_B16, 4: Reg.LoadDist.DIST_BRC_B32}


@simd_callee
def load_scalar(dst_reg: RegTensor[Any], src: UbPtr[Any]) -> None:
    """The scalar of a flexible-scalar call (element 0 at `src`, a LocalTensor element) in every lane of
    `dst_reg`: b8/b16/b32 `LoadAlign<T, DIST_BRC_B8/B16/B32>(dst, src)`; b64 (a RegTraitNumTwo register) as
    `BinaryScalarOpTemplateCntB64` does: `LoadUnAlignPre` + `LoadUnAlign` of one register at src,
    `DeInterleave` of its 32-bit words with a zero register (element 0's low word to reg[0] lane 0, its high
    word to reg[1] lane 0), `Duplicate` of element 0 under a full mask."""
    T = dst_reg.dtype
    if T.itemsize != 8:
        Reg.LoadAlign(dst_reg, src, dist=_BRC[T.itemsize])
        return
    mask_full = Reg.CreateMask(dt.uint32, pattern=Reg.MaskPattern.ALL)  # CreateMask<uint32_t, MaskPattern::ALL>();
    zero_reg = Reg.RegTensor(dt.uint32)
    Reg.Duplicate(zero_reg, 0, mask_full)  # Duplicate(zeroReg, 0, maskFull);
    ureg = Reg.UnalignRegForLoad()
    pre_reg = Reg.RegTensor(T)  # RegTensor<T, RegTraitNumOne> preReg;
    dup_reg = Reg.RegTensor(T, trait=Reg.RegTraitNumTwo)
    words = dup_reg.reg
    # (the register load reads past the element, into bytes that never reach dst_reg: the callers run b64 with the
    # uninitialised-read check off, having checked the bytes the call uses, `run_b64_flexible`)
    Reg.LoadUnAlignPre(ureg, src)
    Reg.LoadUnAlign(pre_reg, ureg, src)
    Reg.DeInterleave(words[0].reinterpret(dt.uint32), words[1].reinterpret(dt.uint32), pre_reg.reinterpret(dt.uint32), zero_reg)
    Reg.Duplicate(dst_reg, dup_reg, mask_full)  # Duplicate(srcReg1, dupReg, maskFull);


@simd_callee
def pack_mask(mask_reg: MaskReg, T: type[dt.DType], U: type[dt.DType]) -> MaskReg:
    """The source predicate of `VecBinaryVFImpl` / `VecAxpyVFImpl` when dst (T) is twice as wide as the sources (U):
    `maskRegSrc = maskReg; MaskPack(maskRegSrc, maskReg);` (the float predicate's lanes as half lanes, the lower half
    of the register); otherwise the predicate itself. (Only the half-sources / float-dst rows of MulAddDst and Axpy have
    U narrower than T; none of the APIs has it wider.)"""
    if T.itemsize != 2 * U.itemsize:
        return mask_reg
    mask_src = Reg.MaskReg()
    Reg.MaskPack(mask_src, mask_reg)  # MaskPack(maskRegSrc, maskReg);
    return mask_src


@simd_vf
def vec_binary_vf(
    func: Any,
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any],
    mask_count: int,
    repeat_time: int,
    repeat_params: BinaryRepeatParams | UnaryRepeatParams,
    normal_mode: bool,
    spr_mask: bool,
    scalar_idx: int = -1,
    dst_input: bool = False,
) -> None:
    """`VecBinaryVFImpl` (kernel_operator_vec_template_impl.h): the mask/repeat interfaces (`dst_input`: its
    `BinaryFuncMode::DST_SRC_INPUT`, dst loaded after the sources with its own strides, for FusedMulAdd, MulAddRelu and
    MulAddDst). Normal mode: one
    predicate for every repeat — `UpdateMask<T>(mask)` for a continuous mask, `MoveMask<T>()` of the vector
    mask register for a bit mask or `isSetMask = false`; counter mode: `UpdateMask` per repeat over the
    count, ceil(count / elements per repeat) repeats. Each repeat loads and stores 8 DataBlocks with the
    block strides (DataCopyMode::DATA_BLOCK_COPY) at the repeat strides. With `scalar_idx` 0 or 1 it is the
    flexible-scalar `VecBinaryScalarLevel0VFImpl` (kernel_operator_vec_binary_scalar_impl.h): source
    `scalar_idx` is broadcast from its element 0 in every repeat (`LoadAlign<T, DIST_BRC_B16/B32>`), the
    other read with the UnaryRepeatParams' src strides."""
    T, U = dst.dtype, src0.dtype
    TT = T if T.itemsize > U.itemsize else U  # using TT = Conditional<sizeof(T) > sizeof(U), T, U>::type;
    count, new_repeat_times, mask_reg = vec_micro_mask(TT, mask_count, repeat_time, normal_mode, spr_mask)
    mask_src = pack_mask(mask_reg, T, U) if normal_mode else mask_reg  # (counter mode: per repeat, in the loop)
    e = ONE_BLOCK_SIZE // T.itemsize  # ElePerBlkT = GetDataBlockSizeInBytes() / sizeof(T)
    eu = ONE_BLOCK_SIZE // U.itemsize  # ElePerBlkU = GetDataBlockSizeInBytes() / sizeof(U)
    p = repeat_params
    if isinstance(p, UnaryRepeatParams):  # a flexible-scalar call: the vector source has the src strides
        blk0 = blk1 = p.srcBlkStride
        rep0 = rep1 = p.srcRepStride
    else:
        blk0, blk1, rep0, rep1 = p.src0BlkStride, p.src1BlkStride, p.src0RepStride, p.src1RepStride
    for index in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(TT, count)  # maskReg = VecMicroGetMaskReg<TT, ...>(maskBuf, count);
            mask_src = pack_mask(mask_reg, T, U)
        dst_vreg = Reg.RegTensor(T)
        src_vreg0 = Reg.RegTensor(U)
        src_vreg1 = Reg.RegTensor(U)
        if scalar_idx == 0:
            load_scalar(src_vreg0, src0)  # LoadAlign<T, pattern>(vSrcReg0, src0);
        else:
            load_blocks(src_vreg0, src0 + index * rep0 * eu, blk0, mask_src)
        if scalar_idx == 1:
            load_scalar(src_vreg1, src1)  # LoadAlign<T, pattern>(vSrcReg1, src1);
        else:
            load_blocks(src_vreg1, src1 + index * rep1 * eu, blk1, mask_src)
        if dst_input:  # if constexpr (funcMode == BinaryFuncMode::DST_SRC_INPUT) LoadAlign<T, DATA_BLOCK_COPY>(dstVreg, ...)
            load_blocks(dst_vreg, dst + index * p.dstRepStride * e, p.dstBlkStride, mask_reg)
        func(dst_vreg, src_vreg0, src_vreg1, mask_reg, mode=Reg.MaskMergeMode.ZEROING)
        store_blocks(dst + index * p.dstRepStride * e, dst_vreg, p.dstBlkStride, mask_reg)


def trait_for(dtype: type[dt.DType]) -> Any:
    """b64 and complex32 run two registers per iteration (RegTraitNumTwo), as the library's continuous VFs do."""
    return Reg.RegTraitNumTwo if dtype.itemsize == 8 or dtype is dt.complex32 else Reg.RegTraitNumOne


@simd_vf
def unary_continuous_vf(
    func: Any, dst: UbPtr[Any], src: UbPtr[Any], scalar: tuple[Any, ...], count: int, trait: Any, dst_input: bool = False
) -> None:
    """`VecUnaryLevel2VFImpl` (kernel_operator_vec_unary_impl.h) and, with a scalar, `VecBinaryScalarLevel2VFImpl`
    (kernel_operator_vec_binary_scalar_impl.h): the first-n interface of dst = op(src[, scalar]); `dst_input`:
    `VecAxpyLevel2VFImpl` (kernel_operator_vec_ternary_scalar_impl.h), dst loaded after src, an operand too."""
    T = dst.dtype
    src_reg = Reg.RegTensor(src.dtype, trait=trait)  # RegType srcReg; (RegU srcReg: Axpy's half src, float dst)
    dst_reg = Reg.RegTensor(T, trait=trait)  # RegType dstReg;
    sreg = Ref(count)  # uint32_t sreg = static_cast<uint32_t>(count);
    repeat_stride = VL // T.itemsize * trait.REG_NUM
    repeat_time = -(-count // repeat_stride)  # CeilDivision(sreg, repeatStride)
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T, RegType::trait>(sreg);
        Reg.LoadAlign(src_reg, src + i * repeat_stride)  # LoadAlign(srcReg, src + i * repeatStride);
        if dst_input:
            Reg.LoadAlign(dst_reg, dst + i * repeat_stride)  # LoadAlign(dstReg, dst + i * repeatStride);
        func(dst_reg, src_reg, *scalar, mask, mode=Reg.MaskMergeMode.ZEROING)  # func(dstReg, srcReg[, scalarValue], mask);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);


@simd_vf
def vec_unary_vf(
    func: Any,
    dst: UbPtr[Any],
    src: UbPtr[Any],
    scalar: tuple[Any, ...],
    mask_count: int,
    repeat_time: int,
    repeat_params: UnaryRepeatParams,
    normal_mode: bool,
    spr_mask: bool,
    dst_input: bool = False,
) -> None:
    """`VecUnaryLevel0VFImpl` and, with a scalar, `VecBinaryScalarLevel0VFImpl`: the mask/repeat interfaces of
    dst = op(src[, scalar]), the predicate made as in `vec_binary_vf`. `dst_input`: `VecAxpyVFImpl`
    (kernel_operator_vec_ternary_scalar_impl.h), dst loaded after src with its own strides, an operand too."""
    T, U = dst.dtype, src.dtype
    TT = T if T.itemsize > U.itemsize else U  # VecAxpyVFImpl: using TT = Conditional<sizeof(T) > sizeof(U), T, U>::type;
    count, new_repeat_times, mask_reg = vec_micro_mask(TT, mask_count, repeat_time, normal_mode, spr_mask)
    mask_src = pack_mask(mask_reg, T, U) if normal_mode else mask_reg  # (counter mode: per repeat, in the loop)
    e = ONE_BLOCK_SIZE // T.itemsize
    eu = ONE_BLOCK_SIZE // U.itemsize  # ElePerBlkU
    p = repeat_params
    for index in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(TT, count)
            mask_src = pack_mask(mask_reg, T, U)
        dst_vreg = Reg.RegTensor(T)
        src_vreg = Reg.RegTensor(U)
        load_blocks(src_vreg, src + index * p.srcRepStride * eu, p.srcBlkStride, mask_src)
        if dst_input:
            load_blocks(dst_vreg, dst + index * p.dstRepStride * e, p.dstBlkStride, mask_reg)
        func(dst_vreg, src_vreg, *scalar, mask_reg, mode=Reg.MaskMergeMode.ZEROING)
        store_blocks(dst + index * p.dstRepStride * e, dst_vreg, p.dstBlkStride, mask_reg)
