"""Fill, index, rearrange, compress, histogram and move (the Duplicate, Arange, Gather, Interleave,
DeInterleave, Pack, UnPack, Squeeze, Unsqueeze, Histograms and Move pages of the Reg API, RegTensor
and MaskReg forms).

Every op here reads or writes across lanes, so each runs on the `CrossLane` executor: its pure
lane function takes whole lane arrays (any leading axes, the lane axis last) and returns whole
results. The MaskReg forms work on the 256 predicate bits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import BroadcastLowest, CompressToAr, CrossLane
from regsim._src.engine.spec import (
    DOC,
    Batching,
    CName,
    Kind,
    OneOf,
    Operand,
    OpSpec,
    Role,
    SameAs,
    enum_param,
    face,
    mask,
    pred,
    reg,
    register,
    scalar,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import GatherMaskMode, HighLowPart, HistogramsBinType, HistogramsType, IndexOrder, MaskMergeMode
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import MaskReg, RegTensor
from regsim._src.ops.datamove import B8_INT, GD, GI, GS, P_B16, U16, U32, c_indexed
from regsim._src.ops.scalars import ComplexScalar, CplxT, Float2T, FloatScalar, IntScalar
from regsim.errors import DTypeError, UnsupportedError, message

ZEROING, MERGING = MaskMergeMode.ZEROING, MaskMergeMode.MERGING
LOWEST, HIGHEST = HighLowPart.LOWEST, HighLowPart.HIGHEST

# --- dtypes on Ascend 950 (the pages' tables), as the faces' type variables; the specs' dtype sets
# are their constraints, so the two cannot drift apart (tests/engine/test_registry.py checks faces vs specs)
DupT = TypeVar(
    "DupT",
    dt.bool_,
    dt.int8,
    dt.uint8,
    dt.fp4x2_e2m1,
    dt.fp4x2_e1m2,
    dt.hifloat8,
    dt.fp8_e8m0,
    dt.fp8_e5m2,
    dt.fp8_e4m3fn,
    dt.int16,
    dt.uint16,
    dt.half,
    dt.bfloat16,
    dt.int32,
    dt.uint32,
    dt.float32,
    dt.complex32,
    dt.int64,
    dt.uint64,
    dt.complex64,
)
ArangeT = TypeVar("ArangeT", dt.int8, dt.int16, dt.int32, dt.half, dt.float32, dt.int64)
#: the DupT members a real (float) scalar fills: the float types that are not bits-only
DupFloatT = TypeVar("DupFloatT", dt.fp8_e8m0, dt.fp8_e5m2, dt.fp8_e4m3fn, dt.half, dt.bfloat16, dt.float32)
GatherT = TypeVar(
    "GatherT",
    dt.bool_,
    dt.int8,
    dt.uint8,
    dt.int4x2,
    dt.hifloat8,
    dt.fp8_e4m3fn,
    dt.fp8_e5m2,
    dt.fp8_e8m0,
    dt.fp4x2_e2m1,
    dt.fp4x2_e1m2,
    dt.int16,
    dt.uint16,
    dt.half,
    dt.bfloat16,
    dt.int32,
    dt.uint32,
    dt.float32,
    dt.complex32,
)
IndexT = TypeVar("IndexT", dt.uint8, dt.uint16, dt.uint32)
RelayoutT = TypeVar(
    "RelayoutT",
    dt.bool_,
    dt.int8,
    dt.uint8,
    dt.int16,
    dt.uint16,
    dt.half,
    dt.bfloat16,
    dt.int32,
    dt.uint32,
    dt.float32,
    dt.int64,
    dt.uint64,
)
PackDstT = TypeVar("PackDstT", dt.uint8, dt.uint16, dt.uint32)
PackSrcT = TypeVar("PackSrcT", dt.int16, dt.uint16, dt.int32, dt.uint32, dt.int64, dt.uint64)
UnpackSrcT = TypeVar("UnpackSrcT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.int32, dt.uint32)
SqueezeT = TypeVar("SqueezeT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.int32, dt.uint32, dt.float32)
UnsqueezeT = TypeVar("UnsqueezeT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.int32, dt.uint32)


def _of(t: Any) -> frozenset[type[dt.DType]]:
    return frozenset(t.__constraints__)


DUPLICATE: Final = _of(DupT)
ARANGE: Final = _of(ArangeT)
#: register Gather data: any b8 / b16 / b32 type (the library reinterprets it as u8 / u16 / u32)
GATHER: Final = _of(GatherT)
GATHER_INDEX: Final = _of(IndexT)
#: Interleave / DeInterleave (RegTensor) and Move (RegTensor)
RELAYOUT: Final = _of(RelayoutT)
PACK_DST: Final = _of(PackDstT)
PACK_SRC: Final = _of(PackSrcT)
UNPACK_DST: Final = PACK_SRC
UNPACK_SRC: Final = _of(UnpackSrcT)
SQUEEZE: Final = _of(SqueezeT)
UNSQUEEZE: Final = _of(UnsqueezeT)
#: the element width T of a MaskReg Interleave / DeInterleave: b8, b16 or b32
MASK_GROUP: Final = GATHER
DupMode = Literal[MaskMergeMode.ZEROING, MaskMergeMode.MERGING]
MoveMode = Literal[MaskMergeMode.MERGING]
BinMode = Literal[HistogramsBinType.BIN0, HistogramsBinType.BIN1]
Lowest = Literal[HighLowPart.LOWEST]


# --- lane semantics ------------------------------------------------------------------------------------
def broadcast(value: Any, *, n: int, dtype: Any) -> Any:
    """Every lane = value (already converted to the element type)."""
    return np.repeat(np.asarray(value, dtype)[..., None], n, axis=-1)


def broadcast_lowest(src: Any) -> Any:
    """Every lane = src[0] ("将srcReg的最低位元素广播到寄存器", the Duplicate page)."""
    return np.broadcast_to(src[..., :1], src.shape)


def arange(start: Any, *, order: IndexOrder, n: int, dtype: Any) -> Any:
    """start + i (INCREASE_ORDER) or start + (n - 1 - i) (DECREASE_ORDER: the scalar is the end
    value, the Arange page). Integers wrap (two's complement); floats: the exact sum rounded once."""
    i = np.arange(n)
    if order is IndexOrder.DECREASE_ORDER:
        i = n - 1 - i
    start = np.asarray(start)[..., None]
    if np.issubdtype(dtype, np.integer):
        return (start.astype(np.uint64) + i.astype(np.uint64)).astype(dtype)
    return (start.astype(np.float64) + i).astype(dtype)  # exact in float64 for half / float lanes


def gather(src: Any, index: Any) -> Any:
    """dst[i] = src[index[i] % N] (an out-of-range index wraps: "索引值更新为i % (VL/sizeof(T))")."""
    return np.take_along_axis(src, index.astype(np.intp) % src.shape[-1], axis=-1)


def interleave(src0: Any, src1: Any) -> tuple[Any, Any]:
    """dst0 = s0[0], s1[0], s0[1], s1[1], ... (the low halves); dst1 the same of the high halves."""
    half = src0.shape[-1] // 2
    both = np.stack([src0, src1], axis=-1)  # (..., N, 2)
    return both[..., :half, :].reshape(src0.shape), both[..., half:, :].reshape(src0.shape)


def deinterleave(src0: Any, src1: Any) -> tuple[Any, Any]:
    """cat = src0 ‖ src1; dst0 = its even elements, dst1 its odd ones."""
    cat = np.concatenate([src0, src1], axis=-1)
    return np.ascontiguousarray(cat[..., 0::2]), np.ascontiguousarray(cat[..., 1::2])


def pack(src: Any, *, part: HighLowPart, n: int, dtype: Any) -> Any:
    """The low half-width bits of each element into the low (LOWEST) or high (HIGHEST) half of dst,
    the other half 0; a two-register b64 source (64 elements) fills all of dst."""
    low = src.astype(dtype)  # C conversion to the narrower unsigned type: the low bits
    m = src.shape[-1]
    if m == n:
        return low
    out = np.zeros((*src.shape[:-1], n), dtype)
    out[..., (0 if part is LOWEST else m) :][..., :m] = low
    return out


def unpack(src: Any, *, part: HighLowPart, n: int, dtype: Any) -> Any:
    """The low (LOWEST) or high (HIGHEST) half of src, each element zero- or sign-extended (by the
    source's signedness); a two-register b64 destination (64 elements) takes all of src."""
    if src.shape[-1] == n:
        return src.astype(dtype)
    start = 0 if part is LOWEST else n
    return src[..., start : start + n].astype(dtype)


def squeeze(src: Any, active: Any) -> Any:
    """The active elements, in order, from lane 0; the remaining lanes 0."""
    order = np.argsort(~active, axis=-1, kind="stable")
    out = np.take_along_axis(src, order, axis=-1)
    count = active.sum(axis=-1, keepdims=True)
    return np.where(np.arange(src.shape[-1]) < count, out, np.zeros((), src.dtype))


def unsqueeze(active: Any, *, n: int, dtype: Any) -> Any:
    """dst[i] = the number of active lanes below i (an exclusive prefix count; dst[0] = 0),
    wrapping in the element type."""
    counts = np.cumsum(active, axis=-1) - active
    return counts.astype(np.uint64).astype(dtype)


def histograms(dst: Any, src: Any, active: Any, *, mode: HistogramsBinType, type: HistogramsType) -> Any:
    """dst[k] += the count of active source bytes equal to 128·b + k (FREQUENCY), or at most
    128·b + k (ACCUMULATE), b = 0 for BIN0, 1 for BIN1; counts wrap modulo 2**16."""
    hits = (src[..., :, None] == np.arange(256, dtype=np.uint8)) & active[..., :, None]
    counts = hits.sum(axis=-2)  # (..., 256)
    if type is HistogramsType.ACCUMULATE:
        counts = np.cumsum(counts, axis=-1)
    base = 128 * mode.value
    return (dst.astype(np.uint64) + counts[..., base : base + 128].astype(np.uint64)).astype(np.uint16)


def move(src: Any) -> Any:
    """dst = src (the Move page; the masked form merges, done by the executor)."""
    return src


# --- MaskReg forms: on the 256 bits ----------------------------------------------------------------------
def mask_interleave(src0: Any, src1: Any, *, T: type[dt.DType]) -> tuple[Any, Any]:
    """Interleave of the sizeof(T)-bit groups ("对于b32类型，交织时以4bit为一组"), as the RegTensor form."""
    g = T.itemsize
    s0 = src0.reshape(*src0.shape[:-1], -1, g)
    s1 = src1.reshape(*src1.shape[:-1], -1, g)
    half = s0.shape[-2] // 2
    both = np.stack([s0, s1], axis=-2)  # (..., N, 2, g)
    return both[..., :half, :, :].reshape(src0.shape), both[..., half:, :, :].reshape(src0.shape)


def mask_deinterleave(src0: Any, src1: Any, *, T: type[dt.DType]) -> tuple[Any, Any]:
    """DeInterleave of the sizeof(T)-bit groups of src0 ‖ src1."""
    g = T.itemsize
    cat = np.concatenate([src0, src1], axis=-1).reshape(*src0.shape[:-1], -1, 2, g)
    return cat[..., 0, :].reshape(src0.shape), cat[..., 1, :].reshape(src0.shape)


def mask_pack(src: Any, *, part: HighLowPart) -> Any:
    """The even bits of src into the low (LOWEST) or high (HIGHEST) 128 bits; the other half 0."""
    out = np.zeros_like(src)
    out[..., (0 if part is LOWEST else 128) :][..., :128] = src[..., 0::2]
    return out


def mask_unpack(src: Any, *, part: HighLowPart) -> Any:
    """Each bit of the low (LOWEST) or high (HIGHEST) 128 bits doubled: bit 2k = it, bit 2k+1 = 0."""
    out = np.zeros_like(src)
    start = 0 if part is LOWEST else 128
    out[..., 0::2] = src[..., start : start + 128]
    return out


def mask_move(src: Any, select: Any = None) -> Any:
    """dst = src, or src & mask ("无效元素填0")."""
    return src if select is None else src & select


# --- per-call checks the dtype rules cannot state ---------------------------------------------------------
def _two_register_b64_only(api: str, values: Sequence[Any], options: Mapping[str, Any]) -> None:
    reg0 = values[0]
    if reg0.dtype.itemsize == 8 and reg0.trait.REG_NUM == 1:
        raise DTypeError(
            message(api, "dst_reg0", f"RegTensor[{reg0.dtype.name}] (RegTraitNumOne)", "a b64 RegTensor of RegTraitNumTwo only")
        )


def _same_width_index(api: str, values: Sequence[Any], options: Mapping[str, Any]) -> None:
    """The register Gather: one register of data (the page's b8, b16, b32: `VL / sizeof(T)` elements, so a
    two-register complex32 is refused) and an index of its width."""
    src, index = values[1], values[2]
    if src.trait.REG_NUM != 1:
        accepted = "a RegTraitNumOne register (Gather indexes one register of VL / sizeof(T) b8, b16 or b32 elements)"
        raise DTypeError(message(api, "src_reg", f"RegTensor[{src.dtype.name}] (RegTraitNumTwo)", accepted))
    if index.dtype.itemsize != src.dtype.itemsize:
        raise DTypeError(
            message(
                api,
                "index_reg",
                f"RegTensor[{index.dtype.name}]",
                f"an index of the width of the data ({src.dtype.name}): uint{8 * src.dtype.itemsize}",
            )
        )


def _width_pair(wide: int, narrow: int, signed_pair: bool) -> Any:
    def check(api: str, values: Sequence[Any], options: Mapping[str, Any]) -> None:
        dst, src = values[0], values[1]
        big, small = (dst, src)[wide], (dst, src)[narrow]
        ok = big.dtype.itemsize == 2 * small.dtype.itemsize
        if signed_pair:
            ok = ok and issubclass(dst.dtype, dt.SignedInteger) == issubclass(src.dtype, dt.SignedInteger)
        if not ok:
            accepted = (
                "dst_reg of twice src_reg's width and the same signedness" if signed_pair else "src_reg of twice dst_reg's width"
            )
            raise DTypeError(message(api, "src_reg", f"RegTensor[{src.dtype.name}] to RegTensor[{dst.dtype.name}]", accepted))
        two = (dst, src)[wide]
        if two.trait.REG_NUM == 2 and options["part"] is HIGHEST:
            raise UnsupportedError(
                message(api, "part", "HIGHEST with a RegTraitNumTwo b64 register", "LOWEST (RegTraitNumTwo supports LOWEST only)")
            )

    return check


# --- specs -------------------------------------------------------------------------------------------------
_FILL, _INDEX, _SCATTER = DOC + "数据填充/", DOC + "索引操作/", DOC + "离散操作/"
_RELAYOUT, _COMPRESS, _MASKOPS = DOC + "数据重排/", DOC + "数据压缩/", DOC + "MaskReg计算/"
_X = Batching.CROSS_LANE


def _c_parts(low: str, high: str, params: tuple[str, ...]) -> tuple[CName, CName]:
    """The C API's two spellings of a HighLowPart op (asc_pack_to_low/high.md, asc_unpack.md), registers and
    vector_bool alike."""
    return CName(low, params, (("part", LOWEST),)), CName(high, params, (("part", HIGHEST),))


def _spec(
    name: str, variant: str, operands: tuple[Operand, ...], executor: Any, equation: str, page: str, lane: Any, **kw: Any
) -> None:
    register(OpSpec(name, variant, "rearrange", operands, executor, equation, page, kw.pop("batching", _X), lane=lane, **kw))


_spec(
    "Duplicate",
    "",
    (reg("dst_reg", Role.OUT, OneOf(DUPLICATE)), scalar("scalar_value")),
    CrossLane(sized=True),
    "dst[i] = scalar_value  (every lane)",
    _FILL + "Duplicate.md",
    broadcast,
    batching=Batching.ELEMENTWISE,
    c_api=CName("asc_duplicate_scalar", ("dst_reg", "scalar_value")),
)
_spec(
    "Duplicate",
    "masked",
    (
        reg("dst_reg", Role.OUT, OneOf(DUPLICATE)),
        scalar("scalar_value"),
        pred(),
        enum_param("mode", MaskMergeMode, ZEROING, (ZEROING, MERGING)),
    ),
    CrossLane(masked=True, sized=True),
    "dst[i] = mask[i] ? scalar_value : (ZEROING ? 0 : dst[i])",
    _FILL + "Duplicate.md",
    broadcast,
    batching=Batching.ELEMENTWISE,
    c_api=CName("asc_duplicate_scalar", ("dst_reg", "scalar_value", "mask")),
)
_spec(
    "Duplicate",
    "reg",
    (
        reg("dst_reg", Role.OUT, OneOf(DUPLICATE)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        pred(),
        enum_param("pos", HighLowPart, LOWEST, (LOWEST,)),
        enum_param("mode", MaskMergeMode, ZEROING, (ZEROING, MERGING)),
    ),
    BroadcastLowest(),
    "dst[i] = mask[i] ? src[0] : (ZEROING ? 0 : dst[i])",
    _FILL + "Duplicate.md",
    broadcast_lowest,
    c_api=CName("asc_duplicate", ("dst_reg", "src_reg", "mask")),
)
_spec(
    "Arange",
    "",
    (
        reg("dst_reg", Role.OUT, OneOf(ARANGE)),
        scalar("scalar_value"),
        enum_param("order", IndexOrder, IndexOrder.INCREASE_ORDER),
    ),
    CrossLane(options=("order",), sized=True),
    "dst[i] = scalar_value + i  (DECREASE_ORDER: + (N - 1 - i)); integers wrap, floats rounded once",
    _INDEX + "Arange.md",
    arange,
    c_api=(
        CName("asc_arange", ("dst_reg", "scalar_value"), (("order", IndexOrder.INCREASE_ORDER),)),
        CName("asc_arange_descend", ("dst_reg", "scalar_value"), (("order", IndexOrder.DECREASE_ORDER),)),
    ),
)
#: the register asc_gather's (data, index) element types, by width
C_GATHER: Final = (
    (B8_INT | {dt.hifloat8, dt.fp8_e4m3fn, dt.fp8_e5m2, dt.fp8_e8m0}, frozenset({dt.uint8})),
    (P_B16, U16),
    (frozenset({dt.int32, dt.uint32}), U32),
)
_spec(
    "Gather",
    "reg",
    (
        reg("dst_reg", Role.OUT, OneOf(GATHER)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        reg("index_reg", dtypes=OneOf(GATHER_INDEX)),
    ),
    CrossLane(check=_same_width_index),
    "dst[i] = src[index[i] % N]",
    _SCATTER + "Gather.md",
    gather,
    # the asc_gather page's register prototypes (no float)
    c_api=c_indexed("asc_gather", ("dst_reg", "src_reg", "index_reg"), "index_reg", *C_GATHER),
)
for _name, _lane, _eq in (
    ("Interleave", interleave, "dst0[2k], dst0[2k+1] = src0[k], src1[k]; dst1[2k], dst1[2k+1] = src0[N/2+k], src1[N/2+k]"),
    ("DeInterleave", deinterleave, "dst0[k] = (src0 ‖ src1)[2k]; dst1[k] = (src0 ‖ src1)[2k+1]"),
):
    _spec(
        _name,
        "",
        (
            reg("dst_reg0", Role.OUT, OneOf(RELAYOUT)),
            reg("dst_reg1", Role.OUT, SameAs("dst_reg0")),
            reg("src_reg0", dtypes=SameAs("dst_reg0")),
            reg("src_reg1", dtypes=SameAs("dst_reg0")),
        ),
        CrossLane(check=_two_register_b64_only),
        _eq,
        _RELAYOUT + f"{_name}.md",
        _lane,
        c_api=CName("asc_intlv" if _name == "Interleave" else "asc_deintlv", ("dst_reg0", "dst_reg1", "src_reg0", "src_reg1")),
    )
_mask_forms: tuple[tuple[str, Any, str], ...] = (
    ("Interleave", mask_interleave, "the sizeof(T)-bit groups of src0, src1 interleaved, as the RegTensor form"),
    ("DeInterleave", mask_deinterleave, "the sizeof(T)-bit groups of src0 ‖ src1 de-interleaved, as the RegTensor form"),
)
for _name, _lane, _eq in _mask_forms:
    _spec(
        _name,
        "mask",
        (
            Operand("T", Kind.DTYPE, dtypes=OneOf(MASK_GROUP)),  # not deducible: the first positional (C++ `<T>`)
            mask("dst0", Role.OUT),
            mask("dst1", Role.OUT),
            mask("src0"),
            mask("src1"),
        ),
        CrossLane(options=("T",)),
        _eq,
        _MASKOPS + f"{_name}.md",
        _lane,
        aliases=(f"Mask{_name}",),
        # asc_intlv_b8/_b16/_b32, asc_deintlv_b8/_b16/_b32 (the asc_intlv / asc_deintlv pages): T by the width
        c_api=CName("asc_intlv" if _name == "Interleave" else "asc_deintlv", ("dst0", "dst1", "src0", "src1")),
    )
_spec(
    "Pack",
    "",
    (reg("dst_reg", Role.OUT, OneOf(PACK_DST)), reg("src_reg", dtypes=OneOf(PACK_SRC)), enum_param("part", HighLowPart, LOWEST)),
    CrossLane(options=("part",), sized=True, check=_width_pair(1, 0, False)),
    "dst[k (+ N/2 for HIGHEST)] = low half of src[k]; the other half of dst 0",
    _COMPRESS + "Pack.md",
    pack,
    c_api=_c_parts("asc_pack_to_low", "asc_pack_to_high", ("dst_reg", "src_reg")),
)
_spec(
    "UnPack",
    "",
    (
        reg("dst_reg", Role.OUT, OneOf(UNPACK_DST)),
        reg("src_reg", dtypes=OneOf(UNPACK_SRC)),
        enum_param("part", HighLowPart, LOWEST),
    ),
    CrossLane(options=("part",), sized=True, check=_width_pair(0, 1, True)),
    "dst[k] = extend(src[k (+ N for HIGHEST)])  (zero- or sign-extended)",
    _COMPRESS + "UnPack.md",
    unpack,
    c_api=_c_parts("asc_unpack_lower", "asc_unpack_upper", ("dst_reg", "src_reg")),
)
_spec(
    "Pack",
    "mask",
    (mask("dst", Role.OUT), mask("src"), enum_param("part", HighLowPart, LOWEST)),
    CrossLane(options=("part",)),
    "dst[k (+ 128 for HIGHEST)] = src[2k]; the other half 0",
    _MASKOPS + "Pack.md",
    mask_pack,
    c_api=_c_parts("asc_pack_to_low", "asc_pack_to_high", ("dst", "src")),
    aliases=("MaskPack",),
)
_spec(
    "UnPack",
    "mask",
    (mask("dst", Role.OUT), mask("src"), enum_param("part", HighLowPart, LOWEST)),
    CrossLane(options=("part",)),
    "dst[2k] = src[k (+ 128 for HIGHEST)]; dst[2k+1] = 0",
    _MASKOPS + "UnPack.md",
    mask_unpack,
    c_api=_c_parts("asc_unpack_lower", "asc_unpack_upper", ("dst", "src")),
    aliases=("MaskUnPack",),
)
_spec(
    "Squeeze",
    "",
    (
        reg("dst_reg", Role.OUT, OneOf(SQUEEZE)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        pred(),
        enum_param("store", GatherMaskMode, GatherMaskMode.NO_STORE_REG),
    ),
    CompressToAr("src_reg"),
    "dst[k] = the k-th active src element, 0 past the last; STORE_REG: AR += active count · sizeof(T)",
    DOC + "比较与选择/Squeeze.md",
    squeeze,
    aliases=("GatherMask",),
    batching=Batching.SEQUENTIAL,
    sequential_reason="with STORE_REG each call adds its own byte count to the core's AR register",
    c_api=(
        CName("asc_squeeze", ("dst_reg", "src_reg", "mask"), (("store", GatherMaskMode.NO_STORE_REG),)),
        CName("asc_squeeze_with_status", ("dst_reg", "src_reg", "mask"), (("store", GatherMaskMode.STORE_REG),)),
    ),
)
_spec(
    "Unsqueeze",
    "",
    (reg("dst_reg", Role.OUT, OneOf(UNSQUEEZE)), pred()),
    CrossLane("dst_reg", sized=True),
    "dst[i] = the number of active lanes below i  (dst[0] = 0)",
    _COMPRESS + "Unsqueeze.md",
    unsqueeze,
    aliases=("PrefixSum",),
    c_api=CName("asc_unsqueeze", ("dst_reg", "mask")),
)
_spec(
    "Histograms",
    "",
    (
        reg("dst_reg", Role.INOUT, OneOf(frozenset({dt.uint16}))),
        reg("src_reg", dtypes=OneOf(frozenset({dt.uint8}))),
        pred(),
        enum_param("mode", HistogramsBinType, accepted=(HistogramsBinType.BIN0, HistogramsBinType.BIN1)),
        enum_param("type", HistogramsType),
    ),
    CrossLane("src_reg", options=("mode", "type")),
    "dst[k] += #{active j: src[j] == 128b + k} (FREQUENCY) | #{active j: src[j] <= 128b + k} (ACCUMULATE); b = BIN0 0, BIN1 1",
    DOC + "直方图计算/Histograms.md",
    histograms,
    # the asc_frequency_histogram / asc_cumulative_histogram pages: bin and type fixed by the name
    c_api=tuple(
        CName(f"asc_{c}_histogram_bin{b.value}", ("dst_reg", "src_reg", "mask"), (("mode", b), ("type", t)))
        for c, t in (("frequency", HistogramsType.FREQUENCY), ("cumulative", HistogramsType.ACCUMULATE))
        for b in (HistogramsBinType.BIN0, HistogramsBinType.BIN1)
    ),
)
_spec(
    "Move",
    "",
    (reg("dst_reg", Role.OUT, OneOf(RELAYOUT)), reg("src_reg", dtypes=SameAs("dst_reg"))),
    CrossLane(),
    "dst[i] = src[i]",
    DOC + "Reg数据搬入/Move.md",
    move,
    batching=Batching.ELEMENTWISE,
    aliases=("Copy",),
)
_spec(
    "Move",
    "masked",
    (
        reg("dst_reg", Role.OUT, OneOf(RELAYOUT)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        pred(),
        enum_param("mode", MaskMergeMode, MERGING, (MERGING,)),
    ),
    CrossLane("src_reg", masked=True),  # only the selected src lanes are read
    "dst[i] = mask[i] ? src[i] : dst[i]  (MERGING)",
    DOC + "Reg数据搬入/Move.md",
    move,
    batching=Batching.ELEMENTWISE,
    # asc_copy.md: the 8-, 16- and 32-bit integer types, half, bfloat16, float
    c_api=CName(
        "asc_copy",
        ("dst_reg", "src_reg", "mask"),
        dtypes=frozenset({dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32}),
    ),
    aliases=("Copy",),
)
_spec(
    "Move",
    "mask",
    (mask("dst", Role.OUT), mask("src")),
    CrossLane(),
    "dst bits = src bits",
    _MASKOPS + "Move.md",
    mask_move,
    batching=Batching.ELEMENTWISE,
    c_api=CName("asc_copy", ("dst", "src")),
    aliases=("MaskMov",),
)
_spec(
    "Move",
    "mask_masked",
    (mask("dst", Role.OUT), mask("src"), mask("mask")),
    CrossLane(),
    "dst bit k = src bit k & mask bit k",
    _MASKOPS + "Move.md",
    mask_move,
    batching=Batching.ELEMENTWISE,
    c_api=CName("asc_copy", ("dst", "src", "mask")),
    aliases=("MaskMov",),
)


# --- typed faces -------------------------------------------------------------------------------------------
@overload
def Duplicate(dst_reg: RegTensor[DupT], scalar_value: IntScalar, /) -> None: ...
@overload
def Duplicate(dst_reg: RegTensor[DupFloatT], scalar_value: FloatScalar, /) -> None: ...
@overload
def Duplicate(dst_reg: RegTensor[CplxT], scalar_value: ComplexScalar, /) -> None: ...
@overload
def Duplicate(dst_reg: RegTensor[DupT], scalar_value: IntScalar, mask: MaskReg, /, *, mode: DupMode = ...) -> None: ...
@overload
def Duplicate(dst_reg: RegTensor[DupFloatT], scalar_value: FloatScalar, mask: MaskReg, /, *, mode: DupMode = ...) -> None: ...
@overload
def Duplicate(dst_reg: RegTensor[CplxT], scalar_value: ComplexScalar, mask: MaskReg, /, *, mode: DupMode = ...) -> None: ...
@overload
def Duplicate(
    dst_reg: RegTensor[DupT], src_reg: RegTensor[DupT], mask: MaskReg, /, *, pos: Lowest = ..., mode: DupMode = ...
) -> None: ...
@face("Duplicate")
def Duplicate(*args: Any, **kwargs: Any) -> None:
    """`Duplicate(dst, scalar)`, `Duplicate(dst, scalar, mask, mode=...)` or `Duplicate(dst, src, mask)` (src[0]).
    The scalar is an int for an integer or bits-only register, a real number for a float one, any number for a
    complex one."""


@overload
def Arange(dst_reg: RegTensor[ArangeT], scalar_value: IntScalar, /, *, order: IndexOrder = ...) -> None: ...
@overload
def Arange(dst_reg: RegTensor[Float2T], scalar_value: FloatScalar, /, *, order: IndexOrder = ...) -> None: ...
@face("Arange")
def Arange(*args: Any, **kwargs: Any) -> None:
    """The start value is an int for an integer register, a real number for a float one."""


# One face for both C++ overloads of `Gather`: the UB form (datamove.py registers it) and the
# register form; rearrange.py is imported after datamove.py, so both specs exist here.
@overload
def Gather(dst_reg: RegTensor[GD], src_addr: UbPtr[GS], index: RegTensor[GI], mask: MaskReg, /) -> None: ...
@overload
def Gather(dst_reg: RegTensor[GatherT], src_reg: RegTensor[GatherT], index_reg: RegTensor[IndexT], /) -> None: ...
@face("Gather")
def Gather(*args: Any, **kwargs: Any) -> None:
    """From UB: (dst, src, index) in (int16, int8|int16, uint16), (uint16, uint8|uint16, uint16),
    (half|bfloat16, same, uint16), (int32|uint32|float32, same, uint32), (int64|uint64, same,
    uint32|uint64). From a register: dst[i] = src[index[i] % N], index of the data's width."""


DataCopyGather = Gather  # the legacy name of the UB form


@overload
def Interleave(
    dst_reg0: RegTensor[RelayoutT],
    dst_reg1: RegTensor[RelayoutT],
    src_reg0: RegTensor[RelayoutT],
    src_reg1: RegTensor[RelayoutT],
    /,
) -> None: ...
@overload
def Interleave(T: type[GatherT], dst0: MaskReg, dst1: MaskReg, src0: MaskReg, src1: MaskReg, /) -> None: ...
@face("Interleave")
def Interleave(*args: Any, **kwargs: Any) -> None:
    """RegTensor form (b64 on RegTraitNumTwo only), or MaskReg form `(T, dst0, dst1, src0, src1)` in groups of sizeof(T) bits."""


@overload
def DeInterleave(
    dst_reg0: RegTensor[RelayoutT],
    dst_reg1: RegTensor[RelayoutT],
    src_reg0: RegTensor[RelayoutT],
    src_reg1: RegTensor[RelayoutT],
    /,
) -> None: ...
@overload
def DeInterleave(T: type[GatherT], dst0: MaskReg, dst1: MaskReg, src0: MaskReg, src1: MaskReg, /) -> None: ...
@face("DeInterleave")
def DeInterleave(*args: Any, **kwargs: Any) -> None:
    """RegTensor form (b64 on RegTraitNumTwo only), or MaskReg form `(T, dst0, dst1, src0, src1)` in groups of sizeof(T) bits."""


@overload
def Pack(dst_reg: RegTensor[PackDstT], src_reg: RegTensor[PackSrcT], /, *, part: HighLowPart = ...) -> None: ...
@overload
def Pack(dst: MaskReg, src: MaskReg, /, *, part: HighLowPart = ...) -> None: ...
@face("Pack")
def Pack(*args: Any, **kwargs: Any) -> None:
    """RegTensor form (u8←b16, u16←b32, u32←b64) or MaskReg form (the even bits)."""


@overload
def UnPack(dst_reg: RegTensor[PackSrcT], src_reg: RegTensor[UnpackSrcT], /, *, part: HighLowPart = ...) -> None: ...
@overload
def UnPack(dst: MaskReg, src: MaskReg, /, *, part: HighLowPart = ...) -> None: ...
@face("UnPack")
def UnPack(*args: Any, **kwargs: Any) -> None:
    """RegTensor form (each element widened) or MaskReg form (each bit doubled)."""


@face("Squeeze")
def Squeeze(
    dst_reg: RegTensor[SqueezeT],
    src_reg: RegTensor[SqueezeT],
    mask: MaskReg,
    /,
    *,
    store: GatherMaskMode = GatherMaskMode.NO_STORE_REG,
) -> None: ...


@face("Unsqueeze")
def Unsqueeze(dst_reg: RegTensor[UnsqueezeT], mask: MaskReg, /) -> None: ...


@face("Histograms")
def Histograms(
    dst_reg: RegTensor[dt.uint16], src_reg: RegTensor[dt.uint8], mask: MaskReg, /, *, mode: BinMode, type: HistogramsType
) -> None: ...


@overload
def Move(dst_reg: RegTensor[RelayoutT], src_reg: RegTensor[RelayoutT], /) -> None: ...
@overload
def Move(dst_reg: RegTensor[RelayoutT], src_reg: RegTensor[RelayoutT], mask: MaskReg, /, *, mode: MoveMode = ...) -> None: ...
@overload
def Move(dst: MaskReg, src: MaskReg, /) -> None: ...
@overload
def Move(dst: MaskReg, src: MaskReg, mask: MaskReg, /) -> None: ...
@face("Move")
def Move(*args: Any, **kwargs: Any) -> None:
    """RegTensor: dst = src (with a mask, MERGING: inactive lanes keep dst). MaskReg: dst = src (& mask)."""
