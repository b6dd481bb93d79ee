"""The memory-level reductions `ReduceSum`, `ReduceMax`, `ReduceMin` (and `GetReduceRepeatSumSpr`), lowered onto the
Reg layer as the 950 library builds them (kernel_operator_vec_reduce_impl.h for dav_3510: `ReduceCount`, `ReduceMask`,
`ReduceSumCounterMode`, `ReduceSumNormalMode`, `ReduceB64SumImpl`, `Reduce[B64]{No,}IndexTemplate`).
"""

from __future__ import annotations

from typing import Any, Final

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings import direct
from regsim._src.lowerings.checks import check_range, check_tensors, run_lowering
from regsim._src.lowerings.dtype_sets import HALF_FLOAT
from regsim._src.lowerings.fresh import FreshCall, arguments, fresh, mask_arg
from regsim._src.lowerings.spec import Call, Form
from regsim._src.lowerings.structs import BLOCKS_PER_REPEAT
from regsim._src.lowerings.vector_mask import check_mask, counter_mode, set_vector_mask
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.core import current_core
from regsim._src.model.enums import CMPMODE
from regsim._src.model.memory import LocalTensor, UbPtr
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import DTypeError, ParameterError, message

# --- the reductions: ReduceSum, ReduceMax, ReduceMin ------------------------------------------------------------
UPDATE: Final = Reg.PostLiteral.POST_MODE_UPDATE
MERGING: Final = Reg.MaskMergeMode.MERGING
_BAR: Final = {"src": Reg.MemType.VEC_STORE, "dst": Reg.MemType.VEC_LOAD}  # LocalMemBar<VEC_STORE, VEC_LOAD>
MAX_REDUCE_REPEAT: Final = 2**16 - 1  #: the lowering's loop counters are uint16_t (docs/decisions/reduce.md#memory-reduce)


@simd_callee
def reduce_count(kind: Any, dst: UbPtr[Any], src: UbPtr[Any], count: int, repeat: int, src_rep_stride: int) -> None:
    """`ReduceCount<type, T>`: per repeat, `UpdateMask` over the count, a whole-register load at the repeat
    stride, `Reduce<type>` and one element through an unaligned store stream."""
    T = src.dtype
    dst, src = dst.copy(), src.copy()  # the callee's by-value pointers
    sreg = Ref(count)
    src_rep_offset = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize
    src_vreg = Reg.RegTensor(T)
    dst_vreg = Reg.RegTensor(T)
    ureg = Reg.UnalignRegForStore()
    for _ in range(repeat):
        preg = Reg.UpdateMask(T, sreg)  # preg = UpdateMask<T>(count);
        Reg.LoadAlign(src_vreg, src, src_rep_offset, post_mode=UPDATE)  # LoadAlign<T, POST_MODE_UPDATE>(...);
        Reg.Reduce(dst_vreg, src_vreg, preg, type=kind)  # Reduce<type>(dstVreg, srcVreg, preg);
        Reg.StoreUnAlign(dst, dst_vreg, ureg, 1)  # StoreUnAlign(dstLocal, dstVreg, ureg, 1);
    Reg.StoreUnAlignPost(dst, ureg, 0)


@simd_callee
def reduce_mask(kind: Any, dst: UbPtr[Any], src: UbPtr[Any], mask: int, repeat: int, src_rep_stride: int, bit_mask: bool) -> None:
    """`ReduceMask<type, T, isBitMask>`: one predicate for every repeat (`MoveMask` for a bit mask, else
    `UpdateMask(mask)`), whole-register loads at the repeat stride, `Reduce<type>`, one element per repeat."""
    T = src.dtype
    dst, src = dst.copy(), src.copy()
    src_rep_offset = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize
    preg = Reg.MoveMask(T) if bit_mask else Reg.UpdateMask(T, Ref(mask))  # GenPredicate<isBitMask, T>(preg, mask);
    src_vreg = Reg.RegTensor(T)
    dst_vreg = Reg.RegTensor(T)
    ureg = Reg.UnalignRegForStore()
    for _ in range(repeat):
        Reg.LoadAlign(src_vreg, src, src_rep_offset, post_mode=UPDATE)
        Reg.Reduce(dst_vreg, src_vreg, preg, type=kind)
        Reg.StoreUnAlign(dst, dst_vreg, ureg, 1)
    Reg.StoreUnAlignPost(dst, ureg, 0)


@simd_vf
def reduce_sum_counter_vf(dst: UbPtr[Any], src: UbPtr[Any], work: UbPtr[Any], count: int, src_rep_stride: int) -> None:
    """`ReduceSumCounterMode<T, shapeScope>` as `DispatchReduceSumCounterMode` picks it: up to 4 registers are
    added lane-wise (the last one MERGING under the tail mask) and reduced once; more go through the work
    tensor: per-register sums, then their sum (two or three levels)."""
    T = src.dtype
    one_rep = VL // T.itemsize  # oneRepSize
    offset = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize  # srcRepOffset
    SUM = Reg.ReduceType.SUM
    if count <= one_rep:  # shapeScope 1
        reduce_count(SUM, dst, src, count, 1, src_rep_stride)
    elif count <= 4 * one_rep:  # shapeScope 2, 3, 4
        regs = -(-count // one_rep)
        full_mask = Reg.CreateMask(T)  # fullMask = CreateMask<T>();
        mask = Reg.UpdateMask(T, Ref(count - (regs - 1) * one_rep))  # UpdateMask<T>(count - k * oneRepSize)
        one_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.VL1)
        dst_vreg = Reg.RegTensor(T)
        srcs = [Reg.RegTensor(T) for _ in range(regs - 1)]
        Reg.LoadAlign(dst_vreg, src)
        for k, r in enumerate(srcs, 1):
            Reg.LoadAlign(r, src + offset * k)
        if regs == 2:  # Add<T, MERGING>(dstVreg, dstVreg, srcVreg, mask);
            Reg.Add(dst_vreg, dst_vreg, srcs[0], mask, mode=MERGING)
        elif regs == 3:  # Add(dst, dst, src1, full); Add<MERGING>(dst, dst, src2, mask);
            Reg.Add(dst_vreg, dst_vreg, srcs[0], full_mask)
            Reg.Add(dst_vreg, dst_vreg, srcs[1], mask, mode=MERGING)
        else:  # Add(dst, dst, src1, full); Add<MERGING>(src2, src2, src3, mask); Add(dst, dst, src2, full);
            Reg.Add(dst_vreg, dst_vreg, srcs[0], full_mask)
            Reg.Add(srcs[1], srcs[1], srcs[2], mask, mode=MERGING)
            Reg.Add(dst_vreg, dst_vreg, srcs[1], full_mask)
        Reg.Reduce(dst_vreg, dst_vreg, full_mask, type=SUM)
        Reg.StoreAlign(dst, dst_vreg, one_mask)
    elif count <= one_rep * one_rep:  # shapeScope 5
        count2 = -(-count // one_rep)
        reduce_count(SUM, work, src, count, count2, src_rep_stride)
        Reg.LocalMemBar(**_BAR)
        reduce_count(SUM, dst, work, count2, 1, BLOCKS_PER_REPEAT)
    else:  # shapeScope 6
        count2 = -(-count // one_rep)
        count3 = -(-count2 // one_rep)
        reduce_count(SUM, work, src, count, count2, src_rep_stride)
        Reg.LocalMemBar(**_BAR)
        reduce_count(SUM, work, work, count2, count3, BLOCKS_PER_REPEAT)
        Reg.LocalMemBar(**_BAR)
        reduce_count(SUM, dst, work, count3, 1, BLOCKS_PER_REPEAT)


@simd_vf
def reduce_sum_normal_vf(
    dst: UbPtr[Any], src: UbPtr[Any], work: UbPtr[Any], mask: int, repeat: int, src_rep_stride: int, bit_mask: bool
) -> None:
    """`ReduceSumNormalMode<T, shapeScope, isBitMask>`: one repeat straight to dst (repeatTime 0 or 1 runs one
    repeat); more: per-repeat sums into the work tensor, then their sum (two or three levels)."""
    T = src.dtype
    one_rep = VL // T.itemsize
    SUM = Reg.ReduceType.SUM
    if repeat <= 1:  # shapeScope 1
        reduce_mask(SUM, dst, src, mask, 1, src_rep_stride, bit_mask)
    elif repeat <= one_rep:  # shapeScope 2
        reduce_mask(SUM, work, src, mask, repeat, src_rep_stride, bit_mask)
        Reg.LocalMemBar(**_BAR)
        reduce_count(SUM, dst, work, repeat, 1, BLOCKS_PER_REPEAT)
    else:  # shapeScope 3
        count = -(-repeat // one_rep)
        reduce_mask(SUM, work, src, mask, repeat, src_rep_stride, bit_mask)
        Reg.LocalMemBar(**_BAR)
        reduce_count(SUM, work, work, repeat, count, BLOCKS_PER_REPEAT)
        Reg.LocalMemBar(**_BAR)
        reduce_count(SUM, dst, work, count, 1, BLOCKS_PER_REPEAT)


@simd_vf
def reduce_b64_sum_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int) -> None:
    """`ReduceB64SumImpl<T>`: two-register (RegTraitNumTwo) lane-wise accumulation from 0 (Add, then Select
    under the tail mask), one `Reduce<SUM>` at the end, the first element stored."""
    T = src.dtype
    two = Reg.RegTraitNumTwo
    one_rep = 2 * VL // T.itemsize
    sreg = Ref(count)
    vreg_dup = Reg.RegTensor(T, trait=two)
    vreg_tmp = Reg.RegTensor(T, trait=two)
    vreg0 = Reg.RegTensor(T, trait=two)
    vreg1 = Reg.RegTensor(T, trait=two)
    full_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL, trait=two)
    Reg.Duplicate(vreg_dup, 0, full_mask)
    for i in range(-(-count // one_rep)):
        mask = Reg.UpdateMask(T, sreg, trait=two)
        Reg.LoadAlign(vreg0, src + i * one_rep)
        Reg.Add(vreg_tmp, vreg_dup, vreg0, mask)
        Reg.Select(vreg_dup, vreg_tmp, vreg_dup, mask)
    Reg.Reduce(vreg1, vreg_dup, full_mask, type=Reg.ReduceType.SUM)
    Reg.StoreAlign(dst, vreg1, Reg.CreateMask(T, pattern=Reg.MaskPattern.VL1, trait=two))


def init_value(dtype: type[dt.DType], kind: Any) -> Any:
    """`GetMinValue<T>()` (ReduceMax) / `GetMaxValue<T>()` (ReduceMin): the value every lane starts from; for
    floats the largest finite magnitude (half 0xFBFF / 0x7BFF, float 0xFF7FFFFF / 0x7F7FFFFF), not infinity."""
    npd = np.dtype(dtype.np_dtype)
    if npd.kind == "f":
        bits = {2: (0xFBFF, 0x7BFF), 4: (0xFF7FFFFF, 0x7F7FFFFF)}[npd.itemsize][kind is Reg.ReduceType.MIN]
        return np.array(bits, f"u{npd.itemsize}").view(npd)[()]
    info = np.iinfo(npd)
    return npd.type(info.min if kind is Reg.ReduceType.MAX else info.max)


def _index_type(dtype: type[dt.DType]) -> type[dt.DType]:
    return dt.uint16 if dtype.itemsize == 2 else dt.uint32


def _arange_type(index_t: type[dt.DType]) -> Any:
    """`Arange((RegTensor<int16_t>&)idx, 1)` for uint16_t indices, int32_t for uint32_t."""
    return dt.int16 if index_t is dt.uint16 else dt.int32


def _extreme(kind: Any) -> Any:
    return Reg.Max if kind is Reg.ReduceType.MAX else Reg.Min


@simd_callee
def duplicate_init(dst_reg: RegTensor[Any], init: Any, full: MaskReg) -> None:
    """`Duplicate(dstVreg, initValue)`; the b64 templates give the full two-register mask."""
    if dst_reg.trait is Reg.RegTraitNumTwo:
        Reg.Duplicate(dst_reg, init, full)
    else:
        Reg.Duplicate(dst_reg, init)


@simd_callee
def load_repeat(src_reg: RegTensor[Any], src: UbPtr[Any], element: int, offset: int) -> None:
    """One repeat's register: b64 `LoadAlign(vreg, srcLocal + i * oneRepSize)` (two registers), else
    `LoadAlign<T, POST_MODE_UPDATE>(srcVreg, srcLocal, srcRepOffset)` (moves src)."""
    if src_reg.trait is Reg.RegTraitNumTwo:
        Reg.LoadAlign(src_reg, src + element)
    else:
        Reg.LoadAlign(src_reg, src, offset, post_mode=UPDATE)


@simd_vf
def reduce_extreme_count_vf(kind: Any, dst: UbPtr[Any], src: UbPtr[Any], count: int, src_rep_stride: int, init: Any) -> None:
    """`ReduceNoIndexTemplate<mode, T>` (count) and `ReduceB64NoIndexTemplate`: lane-wise Max/Min from the
    initial value under the per-repeat tail mask (Select keeps the lanes it leaves out), then one
    `ReduceMax`/`ReduceMin` over every lane, one element stored."""
    T = src.dtype
    b64 = T.itemsize == 8
    trait = Reg.RegTraitNumTwo if b64 else Reg.RegTraitNumOne
    one_rep = VL // T.itemsize * trait.REG_NUM
    offset = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize
    sreg = Ref(count)
    preg_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL, trait=trait)
    src_vreg, dst_vreg, tmp_vreg = (Reg.RegTensor(T, trait=trait) for _ in range(3))
    ureg = Reg.UnalignRegForStore()
    duplicate_init(dst_vreg, init, preg_full)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(T, sreg, trait=trait)
        load_repeat(src_vreg, src, i * one_rep, offset)
        _extreme(kind)(tmp_vreg, dst_vreg, src_vreg, preg)
        Reg.Select(dst_vreg, tmp_vreg, dst_vreg, preg)  # keep the old value where the mask is off
    Reg.Reduce(dst_vreg, dst_vreg, preg_full, type=kind)
    Reg.StoreUnAlign(dst, dst_vreg, ureg, 1)
    Reg.StoreUnAlignPost(dst, ureg, 0)


@simd_vf
def reduce_extreme_mask_vf(
    kind: Any, dst: UbPtr[Any], src: UbPtr[Any], mask: int, repeat: int, src_rep_stride: int, init: Any, bit_mask: bool
) -> None:
    """`ReduceNoIndexTemplate<mode, isBitMask, T>` (normal mask mode): one predicate, lane-wise Max/Min from
    the initial value over the repeats, then `ReduceMax`/`ReduceMin` over the predicate's lanes."""
    T = src.dtype
    preg = Reg.MoveMask(T) if bit_mask else Reg.UpdateMask(T, Ref(mask))
    src_vreg, dst_vreg = Reg.RegTensor(T), Reg.RegTensor(T)
    ureg = Reg.UnalignRegForStore()
    Reg.Duplicate(dst_vreg, init)
    post_update_stride = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize
    for _ in range(repeat):
        Reg.LoadAlign(src_vreg, src, post_update_stride, post_mode=UPDATE)
        _extreme(kind)(dst_vreg, dst_vreg, src_vreg, preg)
    Reg.Reduce(dst_vreg, dst_vreg, preg, type=kind)
    Reg.StoreUnAlign(dst, dst_vreg, ureg, 1)
    Reg.StoreUnAlignPost(dst, ureg, 0)


@simd_callee
def store_value_and_index(
    kind: Any,
    dst: UbPtr[Any],
    dst_value: RegTensor[Any],
    tmp_value: RegTensor[Any],
    dst_index: RegTensor[Any],
    tmp_index: RegTensor[Any],
    mask_index: RegTensor[Any],
    sub_index: RegTensor[Any],
    preg: MaskReg,
    b64: bool,
) -> None:
    """Step 2 of the index templates: the extreme over `preg`, stored; the lanes holding it (Compare EQ with
    the broadcast value) give their 1-based indices (`GatherMask` squeezes them to the front, zeros after);
    the least nonzero one, minus 1, is stored after the value as `IndexT` (b64: then 4 zero bytes)."""
    index_t = dst_index.dtype
    preg_index_full = Reg.CreateMask(index_t, pattern=Reg.MaskPattern.ALL)
    preg_cond = Reg.MaskReg()
    ureg = Reg.UnalignRegForStore()
    Reg.Reduce(tmp_value, dst_value, preg, type=kind)  # ReduceMax / ReduceMin(tmpValueVreg, dstValueVreg, preg);
    Reg.StoreUnAlign(dst, tmp_value, ureg, 1)  # store value
    Reg.Duplicate(tmp_value, tmp_value, preg)
    Reg.Compare(preg_cond, dst_value, tmp_value, preg, mode=CMPMODE.EQ)
    Reg.Squeeze(tmp_index, dst_index, preg_cond)  # GatherMask<IndexT, NO_STORE_REG>
    Reg.Compare(preg_cond, tmp_index, mask_index, preg_index_full, mode=CMPMODE.NE)
    Reg.Reduce(tmp_index, tmp_index, preg_cond, type=Reg.ReduceType.MIN)
    Reg.Sub(tmp_index, tmp_index, sub_index, preg_index_full)
    index_ptr = dst.reinterpret(index_t)  # (__ubuf__ IndexT*&)dstLocal
    Reg.StoreUnAlign(index_ptr, tmp_index, ureg, 1)
    if b64:  # for b64 type, pad 0 to b64 bytes
        Reg.StoreUnAlign(index_ptr, mask_index, ureg, 1)
    Reg.StoreUnAlignPost(index_ptr, ureg, 0)


@simd_vf
def reduce_extreme_index_count_vf(
    kind: Any, dst: UbPtr[Any], src: UbPtr[Any], count: int, src_rep_stride: int, init: Any
) -> None:
    """`ReduceIndexTemplate<mode, T, IndexT>` (count) and `ReduceB64IndexTemplate`: per lane the running
    extreme and the 1-based index of the repeat element that last changed it (Compare NE old/new; a tie
    keeps the earlier one); indices advance by one register's elements per repeat."""
    T = src.dtype
    b64 = T.itemsize == 8
    trait = Reg.RegTraitNumTwo if b64 else Reg.RegTraitNumOne
    index_t: Any = _index_type(T)
    one_rep = VL // T.itemsize * trait.REG_NUM
    offset = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize
    sreg = Ref(count)
    preg_full = Reg.CreateMask(T, pattern=Reg.MaskPattern.ALL, trait=trait)
    preg_index_full = Reg.CreateMask(index_t, pattern=Reg.MaskPattern.ALL)
    preg_cond = Reg.MaskReg()
    src_vreg, dst_value, tmp_value = (Reg.RegTensor(T, trait=trait) for _ in range(3))
    dst_index, sub_index, tmp_index, mask_index = (Reg.RegTensor(index_t) for _ in range(4))
    duplicate_init(dst_value, init, preg_full)
    Reg.Duplicate(sub_index, 1)
    Reg.Duplicate(mask_index, 0)
    Reg.Arange(tmp_index.reinterpret(_arange_type(index_t)), 1)
    Reg.Move(dst_index, tmp_index)  # dstIndexVreg = tmpIndexVreg;
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(T, sreg, trait=trait)
        load_repeat(src_vreg, src, i * one_rep, offset)
        _extreme(kind)(tmp_value, dst_value, src_vreg, preg)
        Reg.Select(tmp_value, tmp_value, dst_value, preg)
        Reg.Compare(preg_cond, dst_value, tmp_value, preg_full, mode=CMPMODE.NE)
        Reg.Select(dst_index, tmp_index, dst_index, preg_cond)
        Reg.Adds(tmp_index, tmp_index, one_rep, preg_index_full if b64 else preg_full)
        Reg.Move(dst_value, tmp_value)  # dstValueVreg = tmpValueVreg;
    store_value_and_index(kind, dst, dst_value, tmp_value, dst_index, tmp_index, mask_index, sub_index, preg_full, b64)


@simd_vf
def reduce_extreme_index_mask_vf(
    kind: Any, dst: UbPtr[Any], src: UbPtr[Any], mask: int, repeat: int, src_rep_stride: int, init: Any, bit_mask: bool
) -> None:
    """`ReduceIndexTemplate<mode, isBitMask, T, IndexT>` (normal mask mode): as the count form under one
    predicate; the indices advance by the repeat stride (the element's offset from src)."""
    T = src.dtype
    index_t: Any = _index_type(T)
    preg = Reg.MoveMask(T) if bit_mask else Reg.UpdateMask(T, Ref(mask))
    preg_cond = Reg.MaskReg()
    src_vreg, dst_value, tmp_value = (Reg.RegTensor(T) for _ in range(3))
    dst_index, tmp_index, mask_index, sub_index = (Reg.RegTensor(index_t) for _ in range(4))
    Reg.Duplicate(dst_value, init)
    Reg.Duplicate(mask_index, 0)
    Reg.Duplicate(sub_index, 1)
    Reg.Arange(tmp_index.reinterpret(_arange_type(index_t)), 1)
    Reg.Move(dst_index, tmp_index)
    post_update_stride = src_rep_stride * ONE_BLOCK_SIZE // T.itemsize
    for _ in range(repeat):
        Reg.LoadAlign(src_vreg, src, post_update_stride, post_mode=UPDATE)
        _extreme(kind)(tmp_value, dst_value, src_vreg, preg)
        Reg.Compare(preg_cond, dst_value, tmp_value, preg, mode=CMPMODE.NE)
        Reg.Select(dst_index, tmp_index, dst_index, preg_cond)
        Reg.Adds(tmp_index, tmp_index, post_update_stride % (1 << 8 * index_t.itemsize), preg)  # (IndexT)postUpdateStride
        Reg.Move(dst_value, tmp_value)
    store_value_and_index(kind, dst, dst_value, tmp_value, dst_index, tmp_index, mask_index, sub_index, preg, False)


def _last_element(api: str, src: LocalTensor[Any], last: int, what: str, value: int) -> None:
    """The highest src element a call reads must lie in src."""
    if last >= src.size:
        accepted = f"a value whose last selected element ({last}) lies in src ({src.size} elements)"
        raise ParameterError(message(api, what, value, accepted))


@attrs.frozen
class Reduce:
    """`ReduceSum` / `ReduceMax` / `ReduceMin(dst, src, sharedTmpBuffer, ...)`: the first-n interface `(count)` and the
    mask/repeat interfaces `(mask, repeatTime, srcRepStride)`, each as the 950 library lowers it; `calIndex` (ReduceMax /
    ReduceMin) also stores the index of the (first) extreme."""

    kind: Any  #: Reg.ReduceType

    def __call__(self, c: Call) -> None:
        api, summing, cal_index = c.api, self.kind is Reg.ReduceType.SUM, bool(c.args.get("cal_index", False))
        dst, src, work = c["dst"], c["src"], c["shared_tmp_buffer"]
        names, ts = ("dst", "src", "shared_tmp_buffer"), (dst, src, work)
        dtype = check_tensors(api, c.iface.dtypes, names, ts)
        need = 2 if cal_index else 1
        if dst.size < need:
            raise ParameterError(message(api, "dst", f"a LocalTensor of {dst.size} element(s)", f"at least {need} element(s)"))
        lanes = VL // dtype.itemsize
        e = ONE_BLOCK_SIZE // dtype.itemsize
        ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
        if c.form is Form.COUNT:  # tensor 前n个数据计算
            count = check_range(api, "count", c["count"], src.size)
            self._check_work(api, work, count, lanes, e)
            self._run(api, ts, ptrs, count, BLOCKS_PER_REPEAT, cal_index)
            if summing and dtype in HALF_FLOAT:  # accValHalf / accValFloat = dstLocal[0]
                current_core().acc_val[dtype] = dst.numpy()[0]
            return
        mask = c["mask"]
        bit_mode, mask_count, bits = check_mask(api, dtype, mask, True)
        repeat = check_range(api, "repeat_time", c["repeat_time"], MAX_REDUCE_REPEAT)
        stride = check_range(api, "src_rep_stride", c["src_rep_stride"], MAX_REDUCE_REPEAT)
        if counter_mode():  # the mask is the element count; repeatTime is not used
            if mask_count:
                last = (mask_count - 1) // lanes * stride * e + (mask_count - 1) % lanes
                _last_element(api, src, last, "mask[0]" if bit_mode else "mask", mask_count)
            self._check_work(api, work, mask_count, lanes, e)
            self._run(api, ts, ptrs, mask_count, stride, cal_index)
            return
        sel = (1 << mask_count) - 1 if bits is None else bits[0] << 64 | bits[1]
        runs = max(repeat, 1) if summing else repeat  # ReduceSum runs one repeat for repeatTime 0
        if runs:
            _last_element(api, src, (runs - 1) * stride * e + sel.bit_length() - 1, "repeat_time", repeat)
        if summing and repeat > 1:
            _within_levels(api, "repeat_time", repeat, lanes**2)
            _need_work(api, work, -(-repeat // e) * e, f"repeat_time {repeat}")
        if bits is not None:  # SetVectorMask<T>(mask[1], mask[0]): the VF reads it with MoveMask
            set_vector_mask(*bits)
        if summing:
            run_lowering(api, reduce_sum_normal_vf, *ptrs, work.GetPhyAddr(), mask_count, repeat, stride, bit_mode)
        else:
            vf = reduce_extreme_index_mask_vf if cal_index else reduce_extreme_mask_vf
            run_lowering(api, vf, self.kind, *ptrs, mask_count, repeat, stride, init_value(dtype, self.kind), bit_mode)

    def explore(self, dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
        """`regsim lower "ReduceMax(half, count=1000, cal_index=True)"` or `"ReduceSum(float32, mask=64, repeat_time=20,
        src_rep_stride=8)"`: the call on fresh tensors of random data."""
        tail: tuple[Any, ...] = () if self.kind is Reg.ReduceType.SUM else (bool(kw.pop("cal_index", False)),)
        if set(kw) == {"count"}:
            rest: tuple[Any, ...] = (kw["count"],)
            n = int(kw["count"])
        elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "src_rep_stride"}:
            stride = int(kw.get("src_rep_stride", BLOCKS_PER_REPEAT))
            rest = (mask_arg(kw["mask"]), kw["repeat_time"], stride)
            n = max(int(kw["repeat_time"]), 1) * max(stride, BLOCKS_PER_REPEAT) * ONE_BLOCK_SIZE // dtype.itemsize
        else:
            raise arguments(
                kw, "count=N, or mask=M, repeat_time=R [, src_rep_stride=S]" + ("" if not tail else " [, cal_index=True]")
            )
        lanes = VL // dtype.itemsize
        padded = -(-max(n, 1) // lanes) * lanes
        dst, src, work = fresh([(dtype, lanes), (dtype, padded), (dtype, padded)])
        return (dst, src, work, *rest, *tail), {}

    def _check_work(self, api: str, work: LocalTensor[Any], count: int, lanes: int, e: int) -> None:
        """ReduceSum past 4 registers (not b64) keeps one partial sum per register in the work tensor; its three
        summing levels cover `lanes**3` elements (a count past them is refused, never summed in part)."""
        if self.kind is not Reg.ReduceType.SUM or work.dtype.itemsize == 8:
            return
        _within_levels(api, "count", count, lanes**3)
        if count > 4 * lanes:
            partials = -(-count // lanes)  # one per register
            _need_work(api, work, -(-partials // e) * e, f"count {count}")

    def _run(
        self, api: str, ts: tuple[LocalTensor[Any], ...], ptrs: tuple[UbPtr[Any], ...], count: int, stride: int, cal_index: bool
    ) -> None:
        """The count-driven lowerings: the first-n interface and counter mask mode."""
        dtype = ts[1].dtype
        if self.kind is Reg.ReduceType.SUM:
            if dtype.itemsize == 8:
                run_lowering(api, reduce_b64_sum_vf, *ptrs, count)
            elif stride != BLOCKS_PER_REPEAT or not direct.run_reduce_sum(ts[0], ts[1], ts[2], count):  # (at once)
                run_lowering(api, reduce_sum_counter_vf, *ptrs, ts[2].GetPhyAddr(), count, stride)
            return
        vf = reduce_extreme_index_count_vf if cal_index else reduce_extreme_count_vf
        run_lowering(api, vf, self.kind, *ptrs, count, stride, init_value(dtype, self.kind))


def _within_levels(api: str, param: str, value: int, most: int) -> None:
    """The 950 library's ReduceSum sums in at most three levels of one register each, so it covers `lanes**3` elements
    (`lanes**2` repeats): more than a 950 UB holds (the page: the data must fit the UB). regsim's UB may be larger;
    a call past the levels would sum only part of src, so it is refused
    (docs/decisions/reduce.md#reduce-sum-levels)."""
    if value > most:
        raise ParameterError(message(api, param, value, f"at most {most} (the library's three summing levels)"))


def _need_work(api: str, work: LocalTensor[Any], elements: int, why: str) -> None:
    if work.size < elements:
        accepted = f"at least {elements} for {why}"
        raise ParameterError(message(api, "shared_tmp_buffer", f"a LocalTensor of {work.size} elements", accepted))


def get_reduce_repeat_sum_spr(c: Call) -> Any:
    """`AscendC::GetReduceRepeatSumSpr<T>()` (half, float): on 950 the value the last first-n `ReduceSum` of that type
    stored to `dst[0]` (the library keeps it in a block-local variable, `GetAccValImpl`), 0 before any; the mask/repeat
    forms do not set it."""
    T = c["T"]
    if T not in c.iface.dtypes:
        raise DTypeError(message(c.api, "T", getattr(T, "name", repr(T)), "half or float32"))
    value = current_core().acc_val.get(T)
    return np.zeros((), T.np_dtype)[()] if value is None else value


REDUCE_SUM: Final = Reduce(Reg.ReduceType.SUM)
REDUCE_MAX: Final = Reduce(Reg.ReduceType.MAX)
REDUCE_MIN: Final = Reduce(Reg.ReduceType.MIN)
