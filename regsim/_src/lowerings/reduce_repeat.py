"""The per-repeat memory-level (`LocalTensor`) reductions of the 950 library, lowered onto the Reg layer as
kernel_operator_vec_reduce_impl.h for dav_3510 builds them:

- `ReduceRepeat<SUM/MAX/MIN>` (the page "ReduceRepeat"; the library's `WholeReduceSumImpl`,
  `WholeReduceMaxImpl`, `WholeReduceMinImpl`): one result per repeat, the MAX / MIN ones with their index
  in the `ReduceOrder` the call asks for;
- `ReduceDataBlock<SUM/MAX/MIN>` (the page "ReduceDataBlock"; `BlockReduceSumImpl`, `BlockReduceMaxImpl`,
  `BlockReduceMinImpl`): one result per DataBlock, 8 per repeat;
- `ReducePairElem<SUM>` (the page "ReducePairElem"; `PairReduceSumImpl`): one sum per pair of elements.

ReduceRepeat and ReduceDataBlock go through `ReduceTemplate` (it picks `ReduceUnalignCall` or
`WholeReduceUnalignCall` by `dstRepStride`: 0 reduces the last repeat only, 1 one unaligned store stream,
otherwise a stream flushed and moved after every repeat); ReducePairElem through `PairReduceTemplate` /
`ReduceAlignCall` (aligned stores of half a register). Each is a `@simd_vf` kernel over `Reg` calls, checked
before it runs and rolled back should a Reg op inside fail, as the APIs of `regsim._src.lowerings.elementwise`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings.checks import check_range, check_repeat, run_lowering
from regsim._src.lowerings.dtype_sets import B16_B32_NO_BF16, HALF_FLOAT
from regsim._src.lowerings.fresh import FreshCall, arguments, mask_arg, member
from regsim._src.lowerings.spec import Call
from regsim._src.lowerings.structs import BLOCKS_PER_REPEAT
from regsim._src.lowerings.vector_mask import check_mask, counter_mode, set_vector_mask, vector_mask
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.enums import ReduceOrder, ReduceType, expected_member
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_vf
from regsim.errors import AlignmentError, DTypeError, ParameterError, message

UPDATE: Final = Reg.PostLiteral.POST_MODE_UPDATE
BLOCK_COPY: Final = Reg.DataCopyMode.DATA_BLOCK_COPY
MAX_STRIDE: Final = 2**16 - 1  #: dstRepStride, srcBlkStride, srcRepStride: [0, 2**16 - 1] (the pages)
MAX_RUNS: Final = 2**16 - 1  #: the VF's repeat counter is a uint16_t (`newRepeatTimes`)
SUM, MAX, MIN = ReduceType.SUM, ReduceType.MAX, ReduceType.MIN
VALUE_INDEX, INDEX_VALUE = ReduceOrder.ORDER_VALUE_INDEX, ReduceOrder.ORDER_INDEX_VALUE
ONLY_VALUE, ONLY_INDEX = ReduceOrder.ORDER_ONLY_VALUE, ReduceOrder.ORDER_ONLY_INDEX

#: ReduceRepeat<SUM>'s (dst, src) pairs on 950 (the page's table; WholeReduceSumImpl's static_asserts)
REPEAT_SUM: Final = frozenset(
    {
        (dt.int32, dt.int16),
        (dt.int32, dt.int32),
        (dt.uint32, dt.uint16),
        (dt.uint32, dt.uint32),
        (dt.half, dt.half),
        (dt.float32, dt.float32),
    }
)


def one_rep_offset(api: str, dtype: type[dt.DType], kind: ReduceType, order: ReduceOrder | None) -> int:
    """Elements one repeat stores (`oneRepOffset`): ReduceDataBlock 8 (`DEFAULT_BLK_NUM`), ReducePairElem half a
    register, ReduceRepeat<SUM> 1; MAX / MIN 2 with value and index, 1 with one of them, but 2 for a 2-byte type's
    ORDER_ONLY_INDEX (its index is stored as a uint32_t)."""
    if api == "ReduceDataBlock":
        return BLOCKS_PER_REPEAT
    if api == "ReducePairElem":
        return VL // dtype.itemsize // 2
    if kind is SUM:
        return 1
    if order in (VALUE_INDEX, INDEX_VALUE):
        return 2
    return 2 if dtype.itemsize == 2 and order is ONLY_INDEX else 1


# --- the VFs: ReduceUnalignCall / WholeReduceUnalignCall and ReduceAlignCall ---------------------------------
def _predicate(T: Any, counter: bool, spr: bool, mask: int) -> MaskReg | None:
    """`ReduceCommonCall` in normal mode: `MoveMask<T>()` (a bit mask, or `isSetMask = false`: the vector mask
    register) or `UpdateMask<T>(maskReg)`; counter mode makes its predicates per repeat (None here)."""
    if counter:
        return None
    return Reg.MoveMask(T) if spr else Reg.UpdateMask(T, Ref(mask))


@simd_vf
def reduce_unalign_vf(
    func: Callable[[RegTensor[Any], RegTensor[Any], MaskReg], None],
    dst: UbPtr[Any],
    src: UbPtr[Any],
    repeat: int,
    one_rep: int,
    dst_rep_offset_post: int,
    src_blk_stride: int,
    src_rep_stride: int,
    mask: int,
    counter: bool,
    spr: bool,
    with_stride: bool,
    order: ReduceOrder | None,
) -> None:
    """`ReduceUnalignCall<isSetMask, isBitMask, isCounterMode, withStride, func, T, U>` (`order` None) and
    `WholeReduceUnalignCall<...>(..., order)`: per repeat, an 8-DataBlock load at the block stride that moves
    src by the repeat stride, `func`, and `oneRepOffset` elements into an unaligned store stream; `withStride`
    flushes it after every repeat and moves dst on by `dstRepOffsetPost` elements, else it is flushed once at
    the end. Counter mode: ceil(count / elements per repeat) repeats, `UpdateMask<T>(countSreg)` each. For
    ORDER_INDEX_VALUE / ORDER_ONLY_INDEX the [value, index] of `func` is swapped by DeInterleave / Interleave
    with a zero register (and, for 2-byte types' ORDER_ONLY_INDEX, spread to [index, 0])."""
    T, U = src.dtype, dst.dtype
    dst, src = dst.copy(), src.copy()
    count_sreg = Ref(mask)  # uint32_t countSreg = static_cast<uint32_t>(maskReg);
    new_repeat = repeat
    if counter:  # newRepeatTimes = CeilDivision(countSreg, oneRepSize);
        new_repeat = -(-mask // (VL // T.itemsize))
    preg = _predicate(T, counter, spr, mask)
    src_vreg = Reg.RegTensor(T)
    dst_vreg = Reg.RegTensor(U)
    tmp1, tmp2, tmp3, tmp4 = (Reg.RegTensor(U) for _ in range(4))
    ureg = Reg.UnalignRegForStore()
    for _ in range(new_repeat):
        if counter:
            preg = Reg.UpdateMask(T, count_sreg)
        assert preg is not None
        # LoadAlign<T, DATA_BLOCK_COPY, POST_MODE_UPDATE>(srcVreg, src, srcBlkStride, srcRepStride, mask);
        Reg.LoadAlign(src_vreg, src, src_blk_stride, src_rep_stride, preg, data_mode=BLOCK_COPY, post_mode=UPDATE)
        if order is None or order in (VALUE_INDEX, ONLY_VALUE):
            func(dst_vreg, src_vreg, preg)
        else:
            func(tmp1, src_vreg, preg)
            Reg.Duplicate(tmp2, 0, preg)  # Duplicate(tmpVreg2, static_cast<T>(0), mask);
            Reg.DeInterleave(tmp3, tmp4, tmp1, tmp2)
            Reg.Interleave(dst_vreg, tmp1, tmp4, tmp3)
            if T.itemsize == 2 and order is ONLY_INDEX:
                Reg.Interleave(dst_vreg, tmp1, dst_vreg, tmp2)
        Reg.StoreUnAlign(dst, dst_vreg, ureg, one_rep)
        if with_stride:
            Reg.StoreUnAlignPost(dst, ureg, dst_rep_offset_post)
    if not with_stride:
        Reg.StoreUnAlignPost(dst, ureg, dst_rep_offset_post)


@simd_vf
def reduce_align_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    repeat: int,
    dst_rep_offset: int,
    src_blk_stride: int,
    src_rep_stride: int,
    mask: int,
    counter: bool,
    spr: bool,
) -> None:
    """`ReduceAlignCall<isSetMask, isBitMask, isCounterMode, PairReduceSum, T>`: per repeat an 8-DataBlock load
    (moving src by the repeat stride), `PairReduceSum`, and an aligned store of the first half of the register
    (`MaskPattern::H`) at `dst + i * dstRepOffset`."""
    T = src.dtype
    src = src.copy()
    st_mask = Reg.CreateMask(T, pattern=Reg.MaskPattern.H)
    count_sreg = Ref(mask)
    new_repeat = -(-mask // (VL // T.itemsize)) if counter else repeat
    preg = _predicate(T, counter, spr, mask)
    src_vreg = Reg.RegTensor(T)
    dst_vreg = Reg.RegTensor(T)
    for i in range(new_repeat):
        if counter:
            preg = Reg.UpdateMask(T, count_sreg)
        assert preg is not None
        Reg.LoadAlign(src_vreg, src, src_blk_stride, src_rep_stride, preg, data_mode=BLOCK_COPY, post_mode=UPDATE)
        Reg.PairReduceSum(dst_vreg, src_vreg, preg)
        Reg.StoreAlign(dst + i * dst_rep_offset, dst_vreg, st_mask)


def _reduce_func(api: str, kind: ReduceType) -> Callable[[RegTensor[Any], RegTensor[Any], MaskReg], None]:
    """The template's `func`: `Reg::ReduceSum<U, T>` / `ReduceMax` / `ReduceMin` (ReduceRepeat) or
    `Reg::Reduce{Sum,Max,Min}WithDataBlock` (ReduceDataBlock), ZEROING."""
    op = Reg.Reduce if api == "ReduceRepeat" else Reg.ReduceDataBlock

    def func(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg) -> None:
        op(dst_reg, src_reg, mask, type=kind)

    return func


# --- the host side: checks, then the template's branches ------------------------------------------------------
@attrs.frozen
class Plan:
    """What a call does, worked out on the host before the VF: the runs (repeats the VF makes), the lanes each
    selects, the element offset of src each starts from and of dst each stores to."""

    runs: int
    src_shift: int  #: elements: the template's `newSrc` for dstRepStride 0 ((repeatTime - 1) repeats on)
    dst_at: tuple[int, ...]  #: element offset of each run's store in dst
    lanes: tuple[tuple[int, ...], ...]  #: the selected lanes of each run


def _selected(dtype: type[dt.DType], counter: bool, count: int, bits: int, runs: int) -> tuple[tuple[int, ...], ...]:
    lanes = VL // dtype.itemsize
    if counter:
        return tuple(tuple(k for k in range(lanes) if r * lanes + k < count) for r in range(runs))
    one = tuple(k for k in range(lanes) if bits >> k & 1)
    return (one,) * runs


@attrs.frozen
class RepeatReduce:
    """`ReduceRepeat` / `ReduceDataBlock` / `ReducePairElem<reduceType, T, U, isSetMask>(dst, src, mask,
    repeatTime, dstRepStride, srcBlkStride, srcRepStride[, order])`: mask continuous or bit mode
    (`mask[2]`), normal or counter mask mode, `is_set_mask = False` with MASK_PLACEHOLDER; a deprecated name's call
    (`WholeReduceMax`, ...) comes with its `reduce_type` fixed, and its errors name it."""

    name: str
    kinds: frozenset[ReduceType]

    def dtypes_ok(self, kind: ReduceType, dst: type[dt.DType], src: type[dt.DType]) -> bool:
        if self.name == "ReduceRepeat":
            return (dst, src) in REPEAT_SUM if kind is SUM else dst is src and src in B16_B32_NO_BF16
        return dst is src and src in HALF_FLOAT

    def accepted(self, kind: ReduceType) -> str:
        if self.name == "ReduceRepeat" and kind is SUM:
            pairs = sorted(REPEAT_SUM, key=lambda p: (p[0].name, p[1].name))
            return "(dst, src) one of " + ", ".join(f"({d.name}, {s.name})" for d, s in pairs)
        types = B16_B32_NO_BF16 if self.name == "ReduceRepeat" else HALF_FLOAT
        return "dst of src's dtype, one of " + dt.names(types)

    def __call__(self, c: Call) -> None:
        api, reduce_type, dst, src = c.api, c["reduce_type"], c["dst"], c["src"]
        if c.api == "RepeatReduceSum":
            check_range(api, "dst_blk_stride", c["dst_blk_stride"], MAX_STRIDE)
        if reduce_type not in self.kinds:
            accepted = expected_member(ReduceType, reduce_type, "rs.AscendC", sorted(self.kinds, key=lambda k: k.value))
            raise ParameterError(message(api, "reduce_type", repr(reduce_type), accepted))
        kind = reduce_type
        order = c.args.get("order")
        if "order" in c.args:
            order = VALUE_INDEX if order is None else order
        if kind is SUM:
            order = None  # "归约操作类型为SUM时，该参数不生效"
        is_set_mask = c["is_set_mask"]
        if src.ub is not dst.ub:
            raise ParameterError(message(api, "src", repr(src), "a LocalTensor in the same UnifiedBuffer as dst"))
        if not self.dtypes_ok(kind, dst.dtype, src.dtype):
            got = f"(LocalTensor[{dst.dtype.name}], LocalTensor[{src.dtype.name}]) with {kind.name}"
            raise DTypeError(message(api, "dst, src", got, self.accepted(kind)))
        T = src.dtype
        one_rep = one_rep_offset(self.name, T, kind, order)
        dst_align = {"ReduceDataBlock": BLOCKS_PER_REPEAT * dst.dtype.itemsize, "ReducePairElem": ONE_BLOCK_SIZE}.get(
            self.name, one_rep * dst.dtype.itemsize
        )
        if src.addr % ONE_BLOCK_SIZE:
            raise AlignmentError(message(api, "src", f"UB byte {src.addr}", "a start address aligned to 32 bytes"))
        if dst.addr % dst_align:
            raise AlignmentError(message(api, "dst", f"UB byte {dst.addr}", f"a start address aligned to {dst_align} bytes"))
        mask = c["mask"]
        bit_mode, count, bits = check_mask(api, T, mask, is_set_mask)
        repeat = check_repeat(api, c["repeat_time"])
        dst_rep, src_blk, src_rep = (check_range(api, n, c[n], MAX_STRIDE) for n in _STRIDES)
        counter = counter_mode()
        lanes = VL // T.itemsize
        e = ONE_BLOCK_SIZE // T.itemsize
        spr = not counter and (bit_mode or not is_set_mask)
        sel_bits = 0
        if not counter:
            if bits is not None:
                sel_bits = bits[0] << 64 | bits[1]
            elif not is_set_mask:
                high, low = vector_mask()
                sel_bits = (high << 64 | low) & ((1 << lanes) - 1)
            else:
                sel_bits = (1 << count) - 1
        shifted = dst_rep == 0 and repeat > 0
        src_shift = src_rep * e * (repeat - 1) if shifted else 0
        pair = self.name == "ReducePairElem"
        if counter:
            runs = -(-count // lanes)
            if runs > MAX_RUNS:
                raise ParameterError(
                    message(api, "mask", count, f"a count of at most {MAX_RUNS * lanes} (the VF's repeats are a uint16_t)")
                )
            if not pair and dst_rep == 0 and repeat == 0 and runs:
                accepted = (
                    "repeat_time > 0 when dst_rep_stride is 0 in counter mode"
                    " (the library's dstRepOffsetPost = oneRepOffset * (0 - 1) wraps)"
                )
                raise ParameterError(message(api, "repeat_time", repeat, accepted))
            step = (0 if shifted else one_rep * dst_rep) if pair else (one_rep if shifted else one_rep * dst_rep)
        else:
            runs = 1 if shifted else repeat
            step = one_rep * dst_rep
        plan = Plan(runs, src_shift, tuple(r * step for r in range(runs)), _selected(T, counter, count, sel_bits, runs))
        self._check_extent(api, dst, src, plan, one_rep, (mask, repeat, dst_rep, src_blk, src_rep), e)
        if bits is not None:  # SetVectorMask<T>(mask[1], mask[0]): the VF reads it with MoveMask
            set_vector_mask(*bits)
        ptrs = (dst.GetPhyAddr(), src.GetPhyAddr() + src_shift)
        vf_runs = 1 if shifted else repeat
        if pair:  # PairReduceTemplate: dstRepOffset = oneRepOffset * dstRepStride
            vf_args = (*ptrs, vf_runs, one_rep * dst_rep, src_blk, src_rep, count, counter, spr)
            run_lowering(api, reduce_align_vf, *vf_args)
            return
        # ReduceTemplate's branches: dstRepStride 0 (the last repeat, withStride), 1 (one stream), else (withStride)
        with_stride = dst_rep != 1 or repeat == 0
        post = one_rep * (dst_rep - 1) if with_stride and not shifted else 0
        func = _reduce_func(self.name, kind)
        vf_args2 = (func, *ptrs, vf_runs, one_rep, post, src_blk, src_rep, count, counter, spr, with_stride, order)
        run_lowering(api, reduce_unalign_vf, *vf_args2)

    @staticmethod
    def _check_extent(
        api: str, dst: LocalTensor[Any], src: LocalTensor[Any], plan: Plan, one_rep: int, given: tuple[Any, ...], e: int
    ) -> None:
        """Every element a call reads lies in src, every one it writes in dst (`given`: mask, repeatTime,
        dstRepStride, srcBlkStride, srcRepStride as passed)."""
        if not plan.runs:
            return
        mask, repeat, dst_rep, blk, rep = given
        far = 0
        for r, lanes in enumerate(plan.lanes):
            if lanes:
                far = max(far, plan.src_shift + r * rep * e + max(k // e * blk * e + k % e for k in lanes))
        if far >= src.size:
            accepted = f"values whose last element read ({far}) lies in src ({src.size} elements)"
            names = "mask, repeat_time, src_blk_stride, src_rep_stride"
            raise ParameterError(message(api, names, f"({mask!r}, {repeat}, {blk}, {rep})", accepted))
        last = max(plan.dst_at) + one_rep - 1
        if last >= dst.size:
            accepted = f"values whose last element written ({last}) lies in dst ({dst.size} elements)"
            raise ParameterError(message(api, "mask, repeat_time, dst_rep_stride", f"({mask!r}, {repeat}, {dst_rep})", accepted))

    def explore(self, dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
        """`regsim lower "ReduceRepeat(half, reduce_type=MAX, mask=128, repeat_time=4, order=ORDER_INDEX_VALUE)"`:
        the call on fresh tensors of random data (strides default 1, 1, 8)."""
        kw = dict(kw)
        kind = member("reduce_type", ReduceType, kw.pop("reduce_type", "SUM"))
        order = kw.pop("order", None)
        if not {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", *_STRIDES}:
            accepted = "reduce_type=..., mask=M, repeat_time=R [, dst_rep_stride, src_blk_stride, src_rep_stride, order]"
            raise arguments(kw, accepted)
        strides = [int(kw.get(n, d)) for n, d in zip(_STRIDES, (1, 1, BLOCKS_PER_REPEAT), strict=True)]
        repeat = int(kw["repeat_time"])
        n = (max(repeat, 1) * max(strides[2], 1) + 8 * max(strides[1], 1)) * ONE_BLOCK_SIZE // dtype.itemsize
        dst_t = dt.int32 if dtype in (dt.int16,) and kind is SUM else dt.uint32 if dtype is dt.uint16 and kind is SUM else dtype
        dst_n = max(repeat, 1) * max(strides[0], 1) * VL // dst_t.itemsize
        ub = UnifiedBuffer(-(-(n * dtype.itemsize + dst_n * dst_t.itemsize) // VL) * VL + 2 * VL)
        dst, src = ub.alloc(dst_t, dst_n), ub.alloc(dtype, n)
        rng = np.random.default_rng(0)
        ub.storage.write(src.addr, rng.integers(0, 256, src.nbytes, dtype=np.uint8))
        if np.dtype(dtype.np_dtype).kind == "f":
            src.set(rng.uniform(-100, 100, n).astype(dtype.np_dtype))
        extra: dict[str, Any] = {"reduce_type": kind}
        if order is not None:
            extra["order"] = member("order", ReduceOrder, order)
        return (dst, src, mask_arg(kw["mask"]), repeat, *strides), extra


_STRIDES: Final = ("dst_rep_stride", "src_blk_stride", "src_rep_stride")
#: `ReduceRepeat<reduceType, T, U, isSetMask>`: SUM (widening 16-bit sums), MAX / MIN with index in `order`
REDUCE_REPEAT: Final = RepeatReduce("ReduceRepeat", frozenset({SUM, MAX, MIN}))
#: `ReduceDataBlock<reduceType, T, U, isSetMask>`: half, float
REDUCE_DATA_BLOCK: Final = RepeatReduce("ReduceDataBlock", frozenset({SUM, MAX, MIN}))
#: `ReducePairElem<ReduceType::SUM, T, U, isSetMask>`: half, float
REDUCE_PAIR_ELEM: Final = RepeatReduce("ReducePairElem", frozenset({SUM}))
