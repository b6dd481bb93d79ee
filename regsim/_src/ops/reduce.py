"""Reductions (the Reduce, ReduceDataBlock and PairReduceElem pages of the Reg API) and their
legacy names (ReduceSum / ReduceMax / ReduceMin, ReduceSumWithDataBlock / ..., PairReduceSum).

Float sums follow the documented binary tree: adjacent pairs added level by level, each add
rounded to the element type ("data1和data2相加得到data01 … data01和data02相加得到data001"), so
results are bit-exact and differ from numpy's pairwise `np.sum`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import CrossLane, Leading
from regsim._src.engine.spec import DOC, Batching, CName, OneOf, OpSpec, Role, SameAs, enum_param, face, pred, reg, register
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MaskMergeMode, PairReduce, ReduceType
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops.arith import all_set
from regsim.errors import DTypeError, message

ZEROING = MaskMergeMode.ZEROING
SUM: Final = ReduceType.SUM
MAX: Final = ReduceType.MAX
MIN: Final = ReduceType.MIN

# --- dtypes on Ascend 950: (dst, src) pairs of SUM, the one type of MAX / MIN ---------------------------
REDUCE_SUM: Final = frozenset(
    {
        (dt.half, dt.half),
        (dt.int32, dt.int16),
        (dt.uint32, dt.uint16),
        (dt.int32, dt.int32),
        (dt.uint32, dt.uint32),
        (dt.float32, dt.float32),
        (dt.int64, dt.int64),
        (dt.uint64, dt.uint64),
    }
)
BLOCK_SUM: Final = frozenset(
    {
        (dt.half, dt.half),
        (dt.int32, dt.int32),
        (dt.int32, dt.int16),
        (dt.uint32, dt.uint32),
        (dt.uint32, dt.uint16),
        (dt.float32, dt.float32),
    }
)
PAIR: Final = frozenset({dt.half, dt.float32})

ReduceT = TypeVar("ReduceT", dt.int16, dt.uint16, dt.half, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64)
BlockT = TypeVar("BlockT", dt.int16, dt.uint16, dt.half, dt.int32, dt.uint32, dt.float32)
#: the types a SUM keeps (int16 and uint16 widen: their SUM's dst is int32 / uint32)
SumT = TypeVar("SumT", dt.half, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64)
BlockSumT = TypeVar("BlockSumT", dt.half, dt.int32, dt.uint32, dt.float32)
MaxMin = Literal[ReduceType.MAX, ReduceType.MIN]
Sum = Literal[ReduceType.SUM]
PairT = TypeVar("PairT", dt.half, dt.float32)
Zeroing = Literal[MaskMergeMode.ZEROING]
#: the MAX / MIN types: the faces' type variables' constraints (one list, so they cannot drift apart)
REDUCE_MINMAX: Final = frozenset[type[dt.DType]](ReduceT.__constraints__)
BLOCK_MINMAX: Final = frozenset[type[dt.DType]](BlockT.__constraints__)


# --- lane semantics ----------------------------------------------------------------------------------------
def tree_sum(v: Any) -> Any:
    """The documented binary tree over the last axis: adjacent pairs, level by level, each add
    rounded to the element type (integers wrap)."""
    while v.shape[-1] > 1:
        v = v[..., 0::2] + v[..., 1::2]
    return v[..., 0]


def _order_key(x: Any) -> Any:
    """A signed integer key ordering x as the hardware compares it: floats by value with
    -0 < +0 (max(-0, +0) = +0, min(-0, +0) = -0, the Reduce page); uint64 by value."""
    if np.issubdtype(x.dtype, np.floating):
        bits = x.view(f"i{x.dtype.itemsize}").astype(np.int64)
        sign = bits < 0
        mag = bits & ((1 << (8 * x.dtype.itemsize - 1)) - 1)
        return np.where(sign, -mag - 1, mag)
    if x.dtype == np.uint64:
        return (x ^ np.uint64(1 << 63)).view(np.int64)
    return x.astype(np.int64)


def _identity(dtype: Any, kind: ReduceType) -> Any:
    """What an inactive lane counts as: -inf / +inf for floats (the C API's asc_reduce_max and
    asc_reduce_min pages), the type's minimum / maximum for integers."""
    if np.issubdtype(dtype, np.floating):
        return dtype.type(-np.inf if kind is MAX else np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.min if kind is MAX else info.max)


def extreme(src: Any, active: Any, kind: ReduceType) -> tuple[Any, Any]:
    """(value, index) of the max / min over the active lanes of the last axis: the first index
    holding it; a NaN wins (the first NaN); no active lane: (the identity, 0)."""
    key = _order_key(src)
    big = np.iinfo(np.int64)
    masked = np.where(active, key if kind is MAX else ~key, big.min)
    best = masked.max(axis=-1, keepdims=True)
    hit = active & (masked == best)
    if np.issubdtype(src.dtype, np.floating):
        nan = active & np.isnan(src)
        hit = np.where(nan.any(axis=-1, keepdims=True), nan, hit)
    index = np.argmax(hit, axis=-1)
    value = np.take_along_axis(src, index[..., None], axis=-1)[..., 0]
    none = ~active.any(axis=-1)
    return np.where(none, _identity(src.dtype, kind), value), np.where(none, 0, index)


def _active_or_zero(src: Any, active: Any, dtype: Any) -> Any:
    """The lanes a SUM adds, in `dtype`: the active ones, +0 for the others (no copy where all are active)."""
    lanes = src.astype(dtype, copy=False)
    return lanes if all_set(active) else np.where(active, lanes, dtype.type(0))


@Leading
def reduce(src: Any, active: Any, *, type: ReduceType, n: int, dtype: Any) -> Any:
    """SUM: dst[0] = the tree sum of the active lanes (inactive = +0), in dst's type. MAX / MIN:
    dst[0] = the extreme, dst[1] = its first index (as the bits of dst's type). Other lanes 0
    (`reduce` gives dst's first lanes, `reduce.lead`; called, all n)."""
    if type is SUM:
        return tree_sum(_active_or_zero(src, active, dtype))[..., None]
    value, index = extreme(src, active, type)
    out = np.empty((*src.shape[:-1], 2), dtype)
    out[..., 0] = value
    out.view(f"u{dtype.itemsize}")[..., 1] = index
    return out


@Leading
def reduce_data_block(src: Any, active: Any, *, type: ReduceType, n: int, dtype: Any) -> Any:
    """dst[b] = the reduction of 32-byte block b of src (b < 8; SUM as Reduce, MAX / MIN the value
    only); dst lanes 8.. = 0 (as `reduce`, the first 8 lanes alone from `reduce_data_block.lead`)."""
    blocks = (*src.shape[:-1], 8, src.shape[-1] // 8)
    s, a = src.reshape(blocks), active.reshape(blocks)
    if type is SUM:
        return np.asarray(tree_sum(_active_or_zero(s, a, dtype)), dtype)
    return np.asarray(extreme(s, a, type)[0], dtype)


def pair_reduce(src: Any, active: Any, *, type: PairReduce) -> Any:
    """dst[i] = src[2i] + src[2i+1] (one active: that element; none: 0); dst[N/2..] = 0."""
    a, b = src[..., 0::2], src[..., 1::2]
    on_a, on_b = active[..., 0::2], active[..., 1::2]
    zero = src.dtype.type(0)
    pairs = np.where(on_a & on_b, a + b, np.where(on_a, a, np.where(on_b, b, zero)))
    return np.concatenate([pairs, np.zeros_like(pairs)], axis=-1)


# --- per-call checks: the (dst, src) pairs ------------------------------------------------------------------
def _pairs(sums: frozenset[tuple[Any, Any]], extremes: frozenset[Any]) -> Any:
    def check(api: str, values: Sequence[Any], options: Mapping[str, Any]) -> None:
        dst, src = values[0], values[1]
        kind = options["type"]
        ok = (dst.dtype, src.dtype) in sums if kind is SUM else dst.dtype is src.dtype and dst.dtype in extremes
        if ok and dst.dtype.itemsize == src.dtype.itemsize and dst.trait != src.trait:
            ok = False
        if not ok:
            accepted = (
                ", ".join(f"({d.name}, {s.name})" for d, s in sorted(sums, key=lambda p: (p[0].name, p[1].name)))
                if kind is SUM
                else "dst_reg of src_reg's type (and trait), one of " + dt.names(extremes)
            )
            raise DTypeError(
                message(
                    api,
                    "dst_reg, src_reg",
                    f"({dst.dtype.name}, {src.dtype.name}) with {kind.name}",
                    f"for {kind.name}: {accepted}",
                )
            )

    return check


_REDUCE = DOC + "归约计算/"


def _operands(dsts: frozenset[Any], srcs: frozenset[Any], kind: Any, default: Any) -> tuple[Any, ...]:
    return (
        reg("dst_reg", Role.OUT, OneOf(dsts)),
        reg("src_reg", dtypes=OneOf(srcs)),
        pred(),
        enum_param("type", kind, default),
        enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
    )


_SRC = frozenset(s for _, s in REDUCE_SUM) | REDUCE_MINMAX
register(
    OpSpec(
        "Reduce",
        "",
        "reduce",
        _operands(frozenset(d for d, _ in REDUCE_SUM) | REDUCE_MINMAX, _SRC, ReduceType, SUM),
        CrossLane("src_reg", options=("type",), sized=True, check=_pairs(REDUCE_SUM, REDUCE_MINMAX)),
        "SUM: dst[0] = tree sum of active src (inactive +0); MAX/MIN: dst[0] = extreme, dst[1] = first index; other lanes 0",
        _REDUCE + "Reduce.md",
        Batching.CROSS_LANE,
        lane=reduce,
        c_api=tuple(CName(f"asc_reduce_{t.name.lower()}", ("dst_reg", "src_reg", "mask"), (("type", t),)) for t in ReduceType),
        aliases=("ReduceSum", "ReduceMax", "ReduceMin"),
    )
)
register(
    OpSpec(
        "ReduceDataBlock",
        "",
        "reduce",
        _operands(
            frozenset(d for d, _ in BLOCK_SUM) | BLOCK_MINMAX, frozenset(s for _, s in BLOCK_SUM) | BLOCK_MINMAX, ReduceType, SUM
        ),
        CrossLane("src_reg", options=("type",), sized=True, check=_pairs(BLOCK_SUM, BLOCK_MINMAX)),
        "dst[b] = SUM (tree) / MAX / MIN of the active src lanes of 32-byte block b, b < 8; other lanes 0",
        _REDUCE + "ReduceDataBlock.md",
        Batching.CROSS_LANE,
        lane=reduce_data_block,
        c_api=tuple(
            CName(f"asc_reduce_{t.name.lower()}_datablock", ("dst_reg", "src_reg", "mask"), (("type", t),)) for t in ReduceType
        ),
        aliases=("ReduceSumWithDataBlock", "ReduceMaxWithDataBlock", "ReduceMinWithDataBlock"),
    )
)
register(
    OpSpec(
        "PairReduceElem",
        "",
        "reduce",
        (
            reg("dst_reg", Role.OUT, OneOf(PAIR)),
            reg("src_reg", dtypes=SameAs("dst_reg")),
            pred(),
            enum_param("type", PairReduce, PairReduce.SUM),
            enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,)),
        ),
        CrossLane("src_reg", options=("type",)),
        "dst[i] = src[2i] + src[2i+1] over active lanes, i < N/2; dst[N/2..] = 0",
        _REDUCE + "PairReduceElem.md",
        Batching.CROSS_LANE,
        lane=pair_reduce,
        c_api=CName("asc_pair_reduce_sum", ("dst_reg", "src_reg", "mask")),
        aliases=("PairReduceSum",),
    )
)


# --- typed faces, and the legacy names (which fix `type`) ---------------------------------------------------
@overload
def Reduce(
    dst_reg: RegTensor[ReduceT], src_reg: RegTensor[ReduceT], mask: MaskReg, /, *, type: MaxMin, mode: Zeroing = ...
) -> None: ...
@overload
def Reduce(
    dst_reg: RegTensor[SumT], src_reg: RegTensor[SumT], mask: MaskReg, /, *, type: ReduceType = ..., mode: Zeroing = ...
) -> None: ...
@overload
def Reduce(
    dst_reg: RegTensor[dt.int32], src_reg: RegTensor[dt.int16], mask: MaskReg, /, *, type: Sum = ..., mode: Zeroing = ...
) -> None: ...
@overload
def Reduce(
    dst_reg: RegTensor[dt.uint32], src_reg: RegTensor[dt.uint16], mask: MaskReg, /, *, type: Sum = ..., mode: Zeroing = ...
) -> None: ...
@face("Reduce")
def Reduce(*args: Any, **kwargs: Any) -> None:
    """(dst, src) pairs: MAX and MIN one type; SUM one type, or int16 → int32 and uint16 → uint32 (the sum widens)."""


@overload
def ReduceDataBlock(
    dst_reg: RegTensor[BlockT], src_reg: RegTensor[BlockT], mask: MaskReg, /, *, type: MaxMin, mode: Zeroing = ...
) -> None: ...
@overload
def ReduceDataBlock(
    dst_reg: RegTensor[BlockSumT], src_reg: RegTensor[BlockSumT], mask: MaskReg, /, *, type: ReduceType = ..., mode: Zeroing = ...
) -> None: ...
@overload
def ReduceDataBlock(
    dst_reg: RegTensor[dt.int32], src_reg: RegTensor[dt.int16], mask: MaskReg, /, *, type: Sum = ..., mode: Zeroing = ...
) -> None: ...
@overload
def ReduceDataBlock(
    dst_reg: RegTensor[dt.uint32], src_reg: RegTensor[dt.uint16], mask: MaskReg, /, *, type: Sum = ..., mode: Zeroing = ...
) -> None: ...
@face("ReduceDataBlock")
def ReduceDataBlock(*args: Any, **kwargs: Any) -> None:
    """(dst, src) pairs: MAX and MIN one type; SUM one type, or int16 → int32 and uint16 → uint32 (the sum widens)."""


@face("PairReduceElem")
def PairReduceElem(
    dst_reg: RegTensor[PairT],
    src_reg: RegTensor[PairT],
    mask: MaskReg,
    /,
    *,
    type: PairReduce = PairReduce.SUM,
    mode: Zeroing = MaskMergeMode.ZEROING,
) -> None: ...


@overload
def ReduceSum(dst_reg: RegTensor[SumT], src_reg: RegTensor[SumT], mask: MaskReg, /, *, mode: Zeroing = ...) -> None: ...
@overload
def ReduceSum(dst_reg: RegTensor[dt.int32], src_reg: RegTensor[dt.int16], mask: MaskReg, /, *, mode: Zeroing = ...) -> None: ...
@overload
def ReduceSum(dst_reg: RegTensor[dt.uint32], src_reg: RegTensor[dt.uint16], mask: MaskReg, /, *, mode: Zeroing = ...) -> None: ...
def ReduceSum(
    dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `ReduceSum<T, U, mode>`: `Reduce` with type SUM."""
    Reduce(dst_reg, src_reg, mask, type=SUM, mode=mode)


def ReduceMax(
    dst_reg: RegTensor[ReduceT], src_reg: RegTensor[ReduceT], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `ReduceMax<T, mode>`: `Reduce` with type MAX."""
    Reduce(dst_reg, src_reg, mask, type=MAX, mode=mode)


def ReduceMin(
    dst_reg: RegTensor[ReduceT], src_reg: RegTensor[ReduceT], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `ReduceMin<T, mode>`: `Reduce` with type MIN."""
    Reduce(dst_reg, src_reg, mask, type=MIN, mode=mode)


@overload
def ReduceSumWithDataBlock(
    dst_reg: RegTensor[BlockSumT], src_reg: RegTensor[BlockSumT], mask: MaskReg, /, *, mode: Zeroing = ...
) -> None: ...
@overload
def ReduceSumWithDataBlock(
    dst_reg: RegTensor[dt.int32], src_reg: RegTensor[dt.int16], mask: MaskReg, /, *, mode: Zeroing = ...
) -> None: ...
@overload
def ReduceSumWithDataBlock(
    dst_reg: RegTensor[dt.uint32], src_reg: RegTensor[dt.uint16], mask: MaskReg, /, *, mode: Zeroing = ...
) -> None: ...
def ReduceSumWithDataBlock(
    dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `ReduceSumWithDataBlock<T, mode>`: `ReduceDataBlock` with type SUM."""
    ReduceDataBlock(dst_reg, src_reg, mask, type=SUM, mode=mode)


def ReduceMaxWithDataBlock(
    dst_reg: RegTensor[BlockT], src_reg: RegTensor[BlockT], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `ReduceMaxWithDataBlock<T, mode>`: `ReduceDataBlock` with type MAX."""
    ReduceDataBlock(dst_reg, src_reg, mask, type=MAX, mode=mode)


def ReduceMinWithDataBlock(
    dst_reg: RegTensor[BlockT], src_reg: RegTensor[BlockT], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `ReduceMinWithDataBlock<T, mode>`: `ReduceDataBlock` with type MIN."""
    ReduceDataBlock(dst_reg, src_reg, mask, type=MIN, mode=mode)


def PairReduceSum(
    dst_reg: RegTensor[PairT], src_reg: RegTensor[PairT], mask: MaskReg, /, *, mode: Zeroing = MaskMergeMode.ZEROING
) -> None:
    """Legacy `PairReduceSum<T, mode>`: `PairReduceElem` with type SUM."""
    PairReduceElem(dst_reg, src_reg, mask, type=PairReduce.SUM, mode=mode)
