"""Aligned data movement between UB and registers (the LoadAlign / StoreAlign pages of the Reg
API, contiguous and MaskReg forms) and `CreateAddrReg` (the AddrReg page).

Loads are unpredicated and read whole registers, checked against the UB; stores write only
active lanes, each checked against the destination pointer's LocalTensor. The distributions are
data (`regsim/_src/engine/dists.py`); one load and one store executor serve registers and MaskRegs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import (
    AddrGen,
    ArFlush,
    ArStore,
    BlockCopy,
    BlockGather,
    LoadAligned,
    StoreAligned,
    UbGather,
    UbScatter,
    UnalignFlush,
    UnalignLoad,
    UnalignPre,
    UnalignStore,
)
from regsim._src.engine.spec import (
    DOC,
    Batching,
    CName,
    DTypes,
    Kind,
    OneOf,
    Operand,
    OpSpec,
    Role,
    SameAs,
    enum_param,
    face,
    int_param,
    pred,
    reg,
    register,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.config import in_vf
from regsim._src.model.enums import DataCopyMode, LoadDist, MaskDist, PostLiteral, StoreDist
from regsim._src.model.memory import UbPtr
from regsim._src.model.registers import AddrReg, MaskReg, RegTensor, UnalignRegForLoad, UnalignRegForStore
from regsim._src.vf.loops import iterations
from regsim.errors import ParameterError, message

T = TypeVar("T", bound=dt.DType)
#: b8/b16/b32: the DataBlock forms
TB = TypeVar(
    "TB",
    dt.bool_, dt.int8, dt.uint8, dt.int4x2, dt.hifloat8, dt.fp8_e4m3fn, dt.fp8_e5m2, dt.fp8_e8m0, dt.fp4x2_e2m1, dt.fp4x2_e1m2,
    dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.complex32,
)  # fmt: skip
#: b16/b32: the MaskReg StoreUnAlign
TM = TypeVar("TM", dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.complex32)
#: Gather's destination, source and index types; Scatter's data types (= Gather's sources)
GD = TypeVar("GD", dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64)
GS = TypeVar(
    "GS", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64
)
GI = TypeVar("GI", dt.uint16, dt.uint32, dt.uint64)
ALL: Final = frozenset(dt.ALL_DTYPES)
#: the aligned register loads and stores also move C++ `double` (the 950 library's double emulations,
#: docs/decisions/model.md#float64-element-type); no other Reg op takes it
MOVES: Final = ALL | {dt.float64}
B8S: Final = frozenset(
    {dt.bool_, dt.int8, dt.uint8, dt.int4x2, dt.hifloat8, dt.fp8_e4m3fn, dt.fp8_e5m2, dt.fp8_e8m0, dt.fp4x2_e2m1, dt.fp4x2_e1m2}
)
B16S: Final = frozenset({dt.int16, dt.uint16, dt.half, dt.bfloat16})
B32S: Final = frozenset({dt.int32, dt.uint32, dt.float32, dt.complex32})
B8_B32: Final = B8S | B16S | B32S
UPDATE = PostLiteral.POST_MODE_UPDATE

INT32 = (-(2**31), 2**31 - 1)
UINT16 = (0, 2**16 - 1)
UINT32 = (0, 2**32 - 1)


# --- CreateAddrReg: 1 to 4 (index, stride) pairs ---------------------------------------------------
def _loop_indices(name: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """`asc_update_addr_reg_*(offset0[, offset1 ...])` (the asc_update_addr_reg page): offset k is the
    stride of the k-th VF loop around the call counted from the innermost, whose iteration number
    (0, 1, ...) is its index: CreateAddrReg(index0 = innermost iteration, stride0 = offset0, ...)."""
    numbers = iterations()
    if len(args) > len(numbers) and in_vf():
        raise ParameterError(
            message(
                name,
                "offsets",
                f"{len(args)} offsets inside {len(numbers)} VF loop{'s' * (len(numbers) != 1)}",
                "at most one offset per VF loop around the call (offset0: the innermost loop's stride)",
            )
        )
    return {f"index{k}": numbers[-1 - k] if k < len(numbers) else 0 for k in range(len(args))}


for _pairs in range(1, 5):
    register(
        OpSpec(
            "CreateAddrReg",
            str(_pairs),
            "datamove",
            (
                Operand("T", Kind.DTYPE, dtypes=OneOf(ALL)),
                *(
                    p
                    for k in range(_pairs)
                    for p in (int_param(f"index{k}", "uint16_t", UINT16), int_param(f"stride{k}", "uint32_t", UINT32))
                ),
            ),
            AddrGen(),
            "offset = Σ index_k * stride_k  (elements of T)",
            DOC + "寄存器数据类型/AddrReg.md",
            Batching.STATEFUL,
            c_api=CName("asc_update_addr_reg", tuple(f"stride{k}" for k in range(_pairs)), derive=_loop_indices),
        )
    )


# --- the address forms: plain, post-update stride, AddrReg offset ---------------------------------
def _post(name: str) -> tuple[Operand, ...]:
    return (int_param(name, "int32_t", INT32), enum_param("post_mode", PostLiteral, accepted=(UPDATE,)))


def _forms(head: tuple[Operand, ...], tail: tuple[Operand, ...], stride: str) -> dict[str, tuple[Operand, ...]]:
    """The three address forms of one access, each as its operand list (C++ order)."""
    return {
        "": (*head, *tail),
        "post": (*head, _post(stride)[0], *tail, _post(stride)[1]),
        "addr": (*head, Operand("offset", Kind.ADDR), *tail),
    }


_IN, _OUT = DOC + "Reg数据搬入/", DOC + "Reg数据搬出/"
_LOAD_PAGE, _STORE_PAGE = _IN + "连续对齐搬入（LoadAlign）.md", _OUT + "连续对齐搬出（StoreAlign）.md"
_MEM = Batching.MEMORY
_SEQ = Batching.SEQUENTIAL
STREAM_WHY = "an unaligned stream carries its 32-byte buffer from one call to the next"


def _flat(*names: CName | tuple[CName, ...]) -> tuple[CName, ...]:
    return tuple(c for n in names for c in (n if isinstance(n, tuple) else (n,)))


def _variant(*parts: str) -> str:
    return "_".join(p for p in parts if p)


def _c_align(name: str, form: str, ops: tuple[Operand, ...], head: int = 2) -> CName | tuple[CName, ...]:
    """The C spelling of one address form (asc_loadalign.md, asc_storealign.md and their _postupdate pages):
    the post-update form is `<name>_postupdate(..., offset, ...)`, its post_mode fixed to POST_MODE_UPDATE;
    the register forms without an offset have an `int32_t offset` twin after the `head` operands (the
    asc_loadalign page; asc_storealign's is on its deprecated 接口 page) that moves the pointer."""
    params = tuple(o.name for o in ops if not o.keyword)
    if form == "post":
        return CName(f"{name}_postupdate", params, (("post_mode", UPDATE),))
    if form == "" and any(o.kind is Kind.REG for o in ops):
        ptr = next(o.name for o in ops if o.kind is Kind.PTR)
        return (CName(name, params), CName(name, (*params[:head], CName.OFFSET, *params[head:]), displaces=ptr))
    return CName(name, params)


#: the element types of the distribution pages, by width (vector_int4x2_t is one of the b8 types)
P_B8: Final = frozenset(
    {dt.int8, dt.uint8, dt.fp4x2_e2m1, dt.fp4x2_e1m2, dt.fp8_e8m0, dt.fp8_e5m2, dt.fp8_e4m3fn, dt.hifloat8, dt.int4x2}
)
P_B16: Final = frozenset({dt.int16, dt.uint16, dt.half, dt.bfloat16})
P_B32: Final = frozenset({dt.int32, dt.uint32, dt.float32})
P_B64: Final = frozenset({dt.int64, dt.uint64})
Dists = dict[Any, frozenset[type[dt.DType]]]
#: the distribution loads: C name → the LoadDist each element width runs (the reg_load pages, whose
#: _postupdate pages take the same types)
C_LOADS: Final[dict[str, Dists]] = {
    "asc_loadalign_brc_elem": {LoadDist.DIST_BRC_B8: P_B8, LoadDist.DIST_BRC_B16: P_B16, LoadDist.DIST_BRC_B32: P_B32},
    # deprecated (the asc_loadalign v1 page's BRC mode), still in the 950 header in all four forms
    "asc_loadalign_brc": {LoadDist.DIST_BRC_B8: P_B8, LoadDist.DIST_BRC_B16: P_B16, LoadDist.DIST_BRC_B32: P_B32},
    "asc_loadalign_brc_datablock": {LoadDist.DIST_BLK: P_B8 | P_B16 | P_B32},
    "asc_loadalign_brc_elem2datablock": {LoadDist.DIST_E2B_B16: P_B16, LoadDist.DIST_E2B_B32: P_B32},
    "asc_loadalign_upsample": {LoadDist.DIST_US_B8: P_B8, LoadDist.DIST_US_B16: P_B16},
    "asc_loadalign_downsample": {LoadDist.DIST_DS_B8: P_B8, LoadDist.DIST_DS_B16: P_B16},
    "asc_loadalign_unpack": {
        LoadDist.DIST_UNPACK_B8: P_B8, LoadDist.DIST_UNPACK_B16: P_B16, LoadDist.DIST_UNPACK_B32: P_B32
    },
    "asc_loadalign_unpack4": {LoadDist.DIST_UNPACK4_B8: P_B8},
}  # fmt: skip
#: the vector_bool forms of the asc_loadalign_postupdate page
C_MASK_LOADS: Final[dict[str, Dists]] = {
    "asc_loadalign_upsample": {MaskDist.DIST_US: frozenset()},
    "asc_loadalign_downsample": {MaskDist.DIST_DS: frozenset()},
}
C_DUAL_LOADS: Final[dict[str, Dists]] = {
    "asc_loadalign_deintlv": {
        LoadDist.DIST_DINTLV_B8: P_B8, LoadDist.DIST_DINTLV_B16: P_B16, LoadDist.DIST_DINTLV_B32: P_B32
    },
}  # fmt: skip
#: the distribution stores (the reg_store pages); asc_storealign_1st ignores the mask and has no mask
#: parameter; asc_storealign_1st_postupdate takes fewer types than asc_storealign_1st
_1ST: Final = {
    StoreDist.DIST_FIRST_ELEMENT_B8: P_B8, StoreDist.DIST_FIRST_ELEMENT_B16: P_B16, StoreDist.DIST_FIRST_ELEMENT_B32: P_B32
}  # fmt: skip
C_STORES: Final[dict[str, Dists]] = {
    "asc_storealign_1st": _1ST,
    "asc_storealign_pack": {StoreDist.DIST_PACK_B16: P_B16, StoreDist.DIST_PACK_B32: P_B32, StoreDist.DIST_PACK_B64: P_B64},
    "asc_storealign_pack_quarter": {StoreDist.DIST_PACK4_B32: P_B32},
}
C_STORES_POST: Final[dict[str, Dists]] = {
    **C_STORES,
    "asc_storealign_1st_postupdate": {**_1ST, StoreDist.DIST_FIRST_ELEMENT_B8: frozenset({dt.int8, dt.uint8})},
}
C_DUAL_STORES: Final[dict[str, Dists]] = {
    "asc_storealign_intlv": {
        StoreDist.DIST_INTLV_B8: P_B8, StoreDist.DIST_INTLV_B16: P_B16, StoreDist.DIST_INTLV_B32: frozenset({dt.int32, dt.uint32})
    },
}  # fmt: skip
#: C functions that ignore the mask pass this one (all lanes); the Reg op does not read it
IGNORED_MASK: Final = MaskReg.from_bits(np.ones(256, dtype=bool))
#: the all-lanes mask a C function without a mask parameter passes where the Reg op reads one
ALL_LANES: Final = IGNORED_MASK
_NO_MASK: Final = ("asc_storealign_1st", "asc_storealign_intlv")


def _c_dists(table: dict[str, Dists], form: str, ops: tuple[Operand, ...], head: int) -> tuple[CName, ...]:
    """The distribution C names of one address form: `<name>(...)` with the dist its element type picks
    (one C overload per width), the AddrReg form `<name>(..., offset, ...)`, an `int32_t offset` twin of
    the plain form, and `<name>_postupdate` with POST_MODE_UPDATE (`table` gives a post page's own name
    where it has fewer types)."""
    out = []
    for name, dists in table.items():
        post_name = name if name.endswith("_postupdate") else f"{name}_postupdate"
        if form == "post" and post_name in table and post_name != name:
            continue  # the post page's own row
        if form != "post" and name.endswith("_postupdate"):
            continue
        no_mask = name.removesuffix("_postupdate") in _NO_MASK
        params = tuple(o.name for o in ops if not o.keyword and not (no_mask and o.kind is Kind.PRED))
        fixed: tuple[tuple[str, Any], ...] = (("mask", IGNORED_MASK),) if no_mask else ()
        for dist, types in dists.items():
            fx = (*fixed, ("dist", dist))
            if form == "post":
                out.append(CName(post_name, params, (*fx, ("post_mode", UPDATE)), types))
            else:
                out.append(CName(name, params, fx, types))
            if form == "":
                ptr = next(o.name for o in ops if o.kind is Kind.PTR)
                out.append(CName(name, (*params[:head], CName.OFFSET, *params[head:]), fx, types, displaces=ptr))
    return tuple(out)


def _c_block(name: str, form: str, ops: tuple[Operand, ...]) -> CName | None:
    """The block-strided post-update form of the 950 C headers (reg_load.h, reg_store.h; the form the
    deprecated asc_loadalign / asc_storealign v5 pages send to `_postupdate`):
    `<name>(reg/ptr, ptr&/reg, block_stride, repeat_stride, mask)`, `vsldb` / `vsstb` with POST_UPDATE."""
    if form != "block_post":
        return None
    fixed = (("data_mode", DataCopyMode.DATA_BLOCK_COPY), ("post_mode", UPDATE))
    return CName(name, tuple(o.name for o in ops if not o.keyword), fixed)


# LoadAlign: register (every LoadDist), MaskReg (MaskDist NORM/US/DS), dual register (DINTLV, below).
for _form, _ops in _forms(
    (reg("dst_reg", Role.OUT, OneOf(MOVES)), Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg"))), (), "post_update_stride"
).items():
    register(
        OpSpec(
            "LoadAlign",
            _form,
            "datamove",
            (*_ops, enum_param("dist", LoadDist, LoadDist.DIST_NORM)),
            LoadAligned(is_mask=False),
            "dst[i] = src_addr[i]  (whole register, unpredicated; LoadDist maps UB to lanes)",
            _LOAD_PAGE,
            _MEM,
            c_api=_flat(_c_align("asc_loadalign", _form, _ops), _c_dists(C_LOADS, _form, _ops, 2)),
            aliases=("DataCopy",),
        )
    )
for _form, _ops in _forms(
    (Operand("mask", Kind.MASK, Role.OUT), Operand("src_addr", Kind.PTR, dtypes=OneOf(ALL))), (), "offset"
).items():
    register(
        OpSpec(
            "LoadAlign",
            _variant("mask", _form),
            "datamove",
            (*_ops, enum_param("dist", MaskDist, MaskDist.DIST_NORM)),
            LoadAligned(is_mask=True),
            "mask bits = 32 B at src_addr (NORM) | 16 B, each bit doubled (US) | 64 B, even bits (DS)",
            _IN + "MaskReg搬入（LoadAlign）.md",
            _MEM,
            c_api=_flat(
                _c_align("asc_loadalign", _form, _ops),
                # the asc_loadalign_postupdate page: vector_bool up- and down-sampling
                _c_dists(C_MASK_LOADS, _form, _ops, 2) if _form == "post" else (),
            ),
            aliases=("DataCopy",),
        )
    )
_DUAL_IN = (
    reg("dst_reg0", Role.OUT, OneOf(ALL)),
    reg("dst_reg1", Role.OUT, SameAs("dst_reg0")),
    Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg0")),
)
for _form, _ops in _forms(_DUAL_IN, (), "post_update_stride").items():
    register(
        OpSpec(
            "LoadAlign",
            _variant("dual", _form),
            "datamove",
            (*_ops, enum_param("dist", LoadDist)),
            LoadAligned(is_mask=False, dual=True),
            "dst0[i], dst1[i] = src_addr[2i], src_addr[2i+1]  (DINTLV_B8/B16/B32: 512 B de-interleaved at the dist width)",
            _LOAD_PAGE,
            _MEM,
            c_api=_c_dists(C_DUAL_LOADS, _form, _ops, 3),
            aliases=("DataCopy",),
        )
    )
_BLOCK_IN = (
    reg("dst_reg", Role.OUT, OneOf(B8_B32)),
    Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg")),
    int_param("data_block_stride", "uint32_t", UINT32),
)
for _form, _ops in {
    "block": (*_BLOCK_IN, pred(), enum_param("data_mode", DataCopyMode)),
    "block_post": (
        *_BLOCK_IN,
        int_param("repeat_stride", "uint32_t", UINT32),
        pred(),
        enum_param("data_mode", DataCopyMode),
        enum_param("post_mode", PostLiteral),
    ),
}.items():
    register(
        OpSpec(
            "LoadAlign",
            _form,
            "datamove",
            _ops,
            BlockCopy(load=True),
            "dst block k = any lane of block k active ? src_addr[k * data_block_stride * 32 B, +32 B) : 0  (k < 8)",
            _IN + "非连续对齐搬入（LoadAlign）.md",
            _MEM,
            c_api=_c_block("asc_loadalign_postupdate", _form, _ops),
            aliases=("DataCopy",),
        )
    )

# StoreAlign: register (every StoreDist), MaskReg (MaskDist NORM/PACK), dual register (INTLV, below).
for _form, _ops in _forms(
    (Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")), reg("src_reg", dtypes=OneOf(MOVES))),
    (pred(),),
    "post_update_stride",
).items():
    register(
        OpSpec(
            "StoreAlign",
            _form,
            "datamove",
            (*_ops, enum_param("dist", StoreDist, StoreDist.DIST_NORM)),
            StoreAligned(is_mask=False),
            "mask[i] ? dst_addr[i] = src[i] : dst_addr[i] unchanged",
            _STORE_PAGE,
            _MEM,
            c_api=_flat(
                _c_align("asc_storealign", _form, _ops), _c_dists(C_STORES_POST if _form == "post" else C_STORES, _form, _ops, 2)
            ),
            aliases=("DataCopy",),
        )
    )
for _form, _ops in _forms((Operand("dst_addr", Kind.PTR, dtypes=OneOf(ALL)), Operand("mask", Kind.MASK)), (), "offset").items():
    register(
        OpSpec(
            "StoreAlign",
            _variant("mask", _form),
            "datamove",
            (*_ops, enum_param("dist", MaskDist, MaskDist.DIST_NORM)),
            StoreAligned(is_mask=True),
            "32 B at dst_addr = mask bits (NORM) | 16 B = the even bits (PACK)",
            _OUT + "MaskReg搬出（StoreAlign）.md",
            _MEM,
            c_api=_flat(
                _c_align("asc_storealign", _form, _ops),
                # the asc_storealign_pack_postupdate page: vector_bool packed
                _c_dists({"asc_storealign_pack": {MaskDist.DIST_PACK: frozenset()}}, _form, _ops, 2) if _form == "post" else (),
            ),
            aliases=("DataCopy",),
        )
    )
_DUAL_OUT = (
    Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg0")),
    reg("src_reg0", dtypes=OneOf(ALL)),
    reg("src_reg1", dtypes=SameAs("src_reg0")),
)
for _form, _ops in {"dual": (*_DUAL_OUT, pred()), "dual_addr": (*_DUAL_OUT, Operand("offset", Kind.ADDR), pred())}.items():
    register(
        OpSpec(
            "StoreAlign",
            _form,
            "datamove",
            (*_ops, enum_param("dist", StoreDist)),
            StoreAligned(is_mask=False, dual=True),
            "dst_addr[2i], dst_addr[2i+1] = src0[i], src1[i]  (INTLV_B8/B16/B32: 512 B, the mask ignored)",
            _STORE_PAGE,
            _MEM,
            c_api=_c_dists(C_DUAL_STORES, "" if _form == "dual" else "addr", _ops, 3),
            aliases=("DataCopy",),
        )
    )
_BLOCK_OUT = (
    Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")),
    reg("src_reg", dtypes=OneOf(B8_B32)),
    int_param("data_block_stride", "uint32_t", UINT32),
)
for _form, _ops in {
    "block": (*_BLOCK_OUT, pred(), enum_param("data_mode", DataCopyMode)),
    "block_post": (
        *_BLOCK_OUT,
        int_param("repeat_stride", "uint32_t", UINT32),
        pred(),
        enum_param("data_mode", DataCopyMode),
        enum_param("post_mode", PostLiteral),
    ),
}.items():
    register(
        OpSpec(
            "StoreAlign",
            _form,
            "datamove",
            _ops,
            BlockCopy(load=False),
            "mask[i] ? dst_addr[(i // per_block) * data_block_stride * 32 B + i % per_block] = src[i]  (8 blocks of 32 B)",
            _OUT + "非连续对齐搬出（StoreAlign）.md",
            _MEM,
            c_api=_c_block("asc_storealign_postupdate", _form, _ops),
            aliases=("DataCopy",),
        )
    )


# --- unaligned streams (LoadUnAlign / StoreUnAlign pages), Load and Store --------------------------
#: the element types of the C API's stream pages (asc_loadunalign ... asc_storeunalign_post_postupdate)
C_STREAM: Final = P_B8 | P_B16 | P_B32 | {dt.int64}
P_U: Final = frozenset({dt.uint16, dt.uint32})


def _names(ops: tuple[Operand, ...]) -> tuple[str, ...]:
    return tuple(o.name for o in ops if not o.keyword)


def _by_value(name: str, args: Mapping[str, Any]) -> Mapping[str, Any]:
    """A C function taking `__ubuf__ T* dst` by value where its Reg op moves the pointer (the non-post-update
    `vstus` / `vstas`): the op runs on a copy, and the caller's pointer stays."""
    return {"dst_addr": args["dst_addr"] + 0}


def _c_store_unalign(form: str, ops: tuple[Operand, ...]) -> tuple[CName, ...]:
    """StoreUnAlign in C order (dst, ureg, src, count): `asc_storeunalign` (no post-update, the pointer by
    value) and `asc_storeunalign_postupdate` (the pointer moved; or the addr_reg form, by value)."""
    params = ("dst_addr", "ureg", "src_reg", "post_update_stride" if form == "post" else "areg")
    if form != "post":
        return (CName("asc_storeunalign_postupdate", params, dtypes=C_STREAM),)
    return (
        CName("asc_storeunalign", params, dtypes=C_STREAM, derive=_by_value),
        CName("asc_storeunalign_postupdate", params, (("post_mode", UPDATE),), C_STREAM),
    )


def _c_store_unalign_post(form: str, ops: tuple[Operand, ...]) -> tuple[CName, ...]:
    """StoreUnAlignPost: `asc_storeunalign_post(dst, ureg, offset | addr_reg)` (dst by value) and
    `asc_storeunalign_post_postupdate(dst, ureg, offset)` (dst moved by offset elements)."""
    types = (("dst_addr", C_STREAM),)
    if form != "post":
        return (CName("asc_storeunalign_post", _names(ops), types=types),)
    return (
        CName("asc_storeunalign_post", _names(ops), types=types, derive=_by_value),
        CName("asc_storeunalign_post_postupdate", _names(ops), (("post_mode", UPDATE),), types=types),
    )


_UNALIGN_IN, _UNALIGN_OUT = _IN + "连续非对齐搬入（LoadUnAlign）.md", _OUT + "连续非对齐搬出（StoreUnAlign）.md"
_ULOAD = Operand("ureg", Kind.ULOAD, Role.INOUT)
_USTORE = Operand("ureg", Kind.USTORE, Role.INOUT)
_AREG = Operand("areg", Kind.ADDR)
_UPDATE_ONLY = enum_param("post_mode", PostLiteral, UPDATE, accepted=(UPDATE,))
for _form, _ops in {
    "": (_ULOAD, Operand("src_addr", Kind.PTR, dtypes=OneOf(ALL))),
    "addr": (_ULOAD, Operand("src_addr", Kind.PTR, dtypes=OneOf(ALL)), _AREG),
}.items():
    register(
        OpSpec(
            "LoadUnAlignPre",
            _form,
            "datamove",
            _ops,
            UnalignPre(),
            "ureg = the 32 UB bytes of the DataBlock holding src_addr (+ areg)  (starts an unaligned load stream)",
            _UNALIGN_IN,
            _SEQ,
            sequential_reason=STREAM_WHY,
            c_api=CName("asc_loadunalign_pre", _names(_ops), types=(("src_addr", C_STREAM),)),
            aliases=("DataCopyUnAlignPre",),
        )
    )
_UL_HEAD = (
    reg("dst_reg", Role.OUT, OneOf(ALL)),
    _ULOAD,
    Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg")),
)
for _form, _ops in {
    "": _UL_HEAD,
    "post": (*_UL_HEAD, int_param("post_update_stride", "uint32_t", UINT32), _UPDATE_ONLY),
    "addr": (*_UL_HEAD, _AREG, int_param("inc", "uint32_t", UINT32)),
}.items():
    register(
        OpSpec(
            "LoadUnAlign",
            _form,
            "datamove",
            _ops,
            UnalignLoad(),
            "dst = the 256 UB bytes at src_addr (+ areg), any alignment, spliced from ureg and the next aligned bytes",
            _UNALIGN_IN,
            _SEQ,
            sequential_reason=STREAM_WHY,
            c_api=CName(
                "asc_loadunalign_postupdate" if _form else "asc_loadunalign",
                _names(_ops),
                (("post_mode", UPDATE),) if _form == "post" else (),
                C_STREAM,
            ),
            aliases=("DataCopyUnAlign",),
        )
    )
register(
    OpSpec(
        "Load",
        "",
        "datamove",
        (reg("dst_reg", Role.OUT, OneOf(ALL)), Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg"))),
        UnalignLoad(fresh=True),
        "dst = the 256 UB bytes at src_addr, any alignment  (LoadUnAlignPre + LoadUnAlign)",
        _IN + "Load.md",
        _SEQ,
        sequential_reason=STREAM_WHY,
        c_api=CName("asc_load", ("dst_reg", "src_addr")),
    )
)
_US_HEAD = (Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")), reg("src_reg", dtypes=OneOf(ALL)), _USTORE)
for _form, _ops in {
    "post": (*_US_HEAD, int_param("post_update_stride", "uint32_t", UINT32), _UPDATE_ONLY),
    "addr": (*_US_HEAD, _AREG, _UPDATE_ONLY),
}.items():
    register(
        OpSpec(
            "StoreUnAlign",
            _form,
            "datamove",
            _ops,
            UnalignStore("reg"),
            "dst_addr[0:n] = src[0:n] through the stream ureg (n = post_update_stride, or a whole register at dst_addr + areg)",
            _UNALIGN_OUT,
            _MEM,
            c_api=_c_store_unalign(_form, _ops),
            aliases=("DataCopyUnAlign",),
        )
    )
register(
    OpSpec(
        "StoreUnAlign",
        "mask",
        "datamove",
        (Operand("dst_addr", Kind.PTR, dtypes=OneOf(B16S | B32S)), Operand("mask", Kind.MASK), _USTORE),
        UnalignStore("mask"),
        "dst_addr bytes = mask bits 0, w, 2w, … packed (w = sizeof(T): 16 B for b16, 8 B for b32) through ureg; dst += that",
        _OUT + "MaskReg非对齐搬出（StoreUnAlign）.md",
        _MEM,
        # the asc_storeunalign_postupdate page's vector_bool form (`pstu`; dst a uint16_t*& or uint32_t*&)
        c_api=CName("asc_storeunalign_postupdate", ("dst_addr", "ureg", "mask"), types=(("dst_addr", P_U),)),
        aliases=("DataCopyUnAlign",),
    )
)
_UP_HEAD = (Operand("dst_addr", Kind.PTR, dtypes=OneOf(ALL)), _USTORE)
for _form, _ops in {
    "post": (*_UP_HEAD, int_param("post_update_stride", "int32_t", INT32), _UPDATE_ONLY),
    "addr": (*_UP_HEAD, _AREG),
}.items():
    register(
        OpSpec(
            "StoreUnAlignPost",
            _form,
            "datamove",
            _ops,
            UnalignFlush(),
            "UB = the bytes ureg still buffers; ureg empty; POST_MODE_UPDATE: dst_addr += post_update_stride",
            _UNALIGN_OUT,
            _SEQ,
            sequential_reason=STREAM_WHY,
            c_api=_c_store_unalign_post(_form, _ops),
            aliases=("DataCopyUnAlignPost",),
        )
    )
for _form, _ops in {
    "": (Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")), reg("src_reg", dtypes=OneOf(ALL))),
    "count": (
        Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")),
        reg("src_reg", dtypes=OneOf(ALL)),
        int_param("count", "uint32_t", UINT32),
    ),
}.items():
    register(
        OpSpec(
            "Store",
            _form,
            "datamove",
            _ops,
            UnalignStore("store"),
            "dst_addr[0:count] = src[0:count], any alignment (count defaults to VL / sizeof(T))",
            _OUT + "Store.md",
            _SEQ,
            sequential_reason=STREAM_WHY,
            c_api=None if _form else CName("asc_store", ("dst_addr", "src_reg")),
        )
    )

# The AR forms: the count is the AR special register's, which Squeeze<T, STORE_REG> sets
# (docs/decisions/datamove.md#squeeze-ar).
register(
    OpSpec(
        "StoreUnAlign",
        "ar",
        "datamove",
        (*_US_HEAD, enum_param("post_mode", PostLiteral, UPDATE, accepted=(PostLiteral.POST_MODE_NORMAL, UPDATE))),
        ArStore(),
        "dst_addr[AR_before : AR_before + n] = src bytes [0, n) through ureg, n = the latest STORE_REG Squeeze's bytes"
        " (POST_MODE_NORMAL: at dst_addr)",
        _UNALIGN_OUT,
        _SEQ,
        sequential_reason="it reads the AR register the Squeeze of the same iteration wrote",
        aliases=("DataCopyUnAlign",),
        # the asc_storeunalign_postupdate page's form without a count (`vstur` with POST_UPDATE; dst by value)
        c_api=CName("asc_storeunalign_postupdate", ("dst_addr", "ureg", "src_reg"), dtypes=C_STREAM),
    )
)
register(
    OpSpec(
        "StoreUnAlignPost",
        "ar",
        "datamove",
        _UP_HEAD,
        ArFlush(),
        "UB = the bytes ureg still buffers (the end of an AR-form stream); ureg empty",
        _UNALIGN_OUT,
        _SEQ,
        sequential_reason=STREAM_WHY,
        c_api=CName("asc_storeunalign_post", ("dst_addr", "ureg"), types=(("dst_addr", C_STREAM),)),
        aliases=("DataCopyUnAlignPost",),
    )
)


# --- gathers and scatters (离散搬入 / 离散搬出) -------------------------------------------------------
GATHER_DST: Final = frozenset({dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64})
GATHER_SRC: Final = GATHER_DST | {dt.int8, dt.uint8}
INDEX: Final = frozenset({dt.uint16, dt.uint32, dt.uint64})
U16, U32 = frozenset({dt.uint16}), frozenset({dt.uint32})
B8_INT: Final = frozenset({dt.int8, dt.uint8})


def c_indexed(name: str, params: tuple[str, ...], index: str, *widths: tuple[DTypes, DTypes]) -> tuple[CName, ...]:
    """The C overloads of a gather or scatter: one per data width, (the first register's element types,
    the index register's), as the asc_gather / asc_scatter prototypes pair them."""
    return tuple(CName(name, params, dtypes=data, types=((index, idx),)) for data, idx in widths)


register(
    OpSpec(
        "Gather",
        "ub",
        "datamove",
        (
            reg("dst_reg", Role.OUT, OneOf(GATHER_DST)),
            Operand("src_addr", Kind.PTR, dtypes=OneOf(GATHER_SRC)),
            reg("index", dtypes=OneOf(INDEX)),
            pred(),
        ),
        UbGather(),
        "dst[i] = mask[i] ? src_addr[index[i]] : 0  (index in elements; a b8 source zero-extended)",
        _IN + "离散搬入（Gather）.md",
        _MEM,
        aliases=("DataCopyGather",),
        # the asc_gather page's UB prototypes that are Gather's (the b8 sources only into b16 registers);
        # its fp8 registers and its b16 data with a uint32 index are not generated (docs/decisions/capi.md#capi-gather-scatter)
        c_api=c_indexed("asc_gather", ("dst_reg", "src_addr", "index", "mask"), "index", (P_B16, U16), (P_B32, U32)),
    )
)
register(
    OpSpec(
        "GatherB",
        "",
        "datamove",
        (
            reg("dst_reg", Role.OUT, OneOf(ALL)),
            Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg")),
            reg("index", dtypes=OneOf(frozenset({dt.uint32}))),
            pred(),
        ),
        BlockGather(),
        "dst block k = mask bit 4k ? src_addr bytes [index[k], index[k] + 32) : 0  (k < 8; index in bytes)",
        _IN + "离散搬入（GatherB）.md",
        _MEM,
        aliases=("DataCopyGatherB",),
        # the page's two forms: with a mask, and without one ("默认收集所有索引对应的数据块"): every block
        c_api=(
            CName("asc_gather_datablock", ("dst_reg", "src_addr", "index", "mask"), dtypes=P_B8 | P_B16 | P_B32 | P_B64),
            CName("asc_gather_datablock", ("dst_reg", "src_addr", "index"), (("mask", ALL_LANES),), P_B8 | P_B16 | P_B32 | P_B64),
        ),
    )
)
SCATTER_DATA: Final = GATHER_DST | {dt.int8, dt.uint8}
register(
    OpSpec(
        "Scatter",
        "",
        "datamove",
        (
            Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")),
            reg("src_reg", dtypes=OneOf(SCATTER_DATA)),
            reg("index", dtypes=OneOf(INDEX)),
            pred(),
        ),
        UbScatter(),
        "mask[i] ? dst_addr[index[i]] = src[i]  (index in elements; b8: the even bytes; duplicate active indices refused)",
        _OUT + "离散搬出（Scatter）.md",
        _MEM,
        aliases=("DataCopyScatter",),
        c_api=c_indexed(
            "asc_scatter", ("dst_addr", "src_reg", "index", "mask"), "index", (B8_INT, U16), (P_B16, U16), (P_B32, U32)
        ),
    )
)


# --- typed faces ------------------------------------------------------------------------------------
@face("CreateAddrReg")
def CreateAddrReg(T: type[dt.DType], *index_stride: int) -> AddrReg:
    """`CreateAddrReg<T>(index0, stride0[, index1, stride1 …])`: offset Σ index_k·stride_k elements."""
    raise NotImplementedError  # @face supplies the body


@overload
def LoadAlign(dst_reg: RegTensor[T], src_addr: UbPtr[T], /, *, dist: LoadDist = ...) -> None: ...
@overload
def LoadAlign(
    dst_reg: RegTensor[T], src_addr: UbPtr[T], post_update_stride: int, /, *, post_mode: PostLiteral, dist: LoadDist = ...
) -> None: ...
@overload
def LoadAlign(dst_reg: RegTensor[T], src_addr: UbPtr[T], offset: AddrReg, /, *, dist: LoadDist = ...) -> None: ...
@overload
def LoadAlign(mask: MaskReg, src_addr: UbPtr[Any], /, *, dist: MaskDist = ...) -> None: ...
@overload
def LoadAlign(mask: MaskReg, src_addr: UbPtr[Any], offset: int, /, *, post_mode: PostLiteral, dist: MaskDist = ...) -> None: ...
@overload
def LoadAlign(mask: MaskReg, src_addr: UbPtr[Any], offset: AddrReg, /, *, dist: MaskDist = ...) -> None: ...
@overload
def LoadAlign(dst_reg0: RegTensor[T], dst_reg1: RegTensor[T], src_addr: UbPtr[T], /, *, dist: LoadDist) -> None: ...
@overload
def LoadAlign(
    dst_reg0: RegTensor[T],
    dst_reg1: RegTensor[T],
    src_addr: UbPtr[T],
    post_update_stride: int,
    /,
    *,
    post_mode: PostLiteral,
    dist: LoadDist,
) -> None: ...
@overload
def LoadAlign(
    dst_reg0: RegTensor[T], dst_reg1: RegTensor[T], src_addr: UbPtr[T], offset: AddrReg, /, *, dist: LoadDist
) -> None: ...
@overload
def LoadAlign(
    dst_reg: RegTensor[TB], src_addr: UbPtr[TB], data_block_stride: int, mask: MaskReg, /, *, data_mode: DataCopyMode
) -> None: ...
@overload
def LoadAlign(
    dst_reg: RegTensor[TB],
    src_addr: UbPtr[TB],
    data_block_stride: int,
    repeat_stride: int,
    mask: MaskReg,
    /,
    *,
    data_mode: DataCopyMode,
    post_mode: PostLiteral,
) -> None: ...
@face("LoadAlign")
def LoadAlign(*args: Any, **kwargs: Any) -> None:
    """Aligned load from UB into a RegTensor (by its LoadDist) or a MaskReg (MaskDist NORM/US/DS).

    Forms: `LoadAlign(dst, p)`; `LoadAlign(dst, p, stride, post_mode=POST_MODE_UPDATE)` (loads at
    p, then p += stride elements — bytes for a MaskReg); `LoadAlign(dst, p, areg)` (at p + areg).
    """


@overload
def StoreAlign(dst_addr: UbPtr[T], src_reg: RegTensor[T], mask: MaskReg, /, *, dist: StoreDist = ...) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[T],
    src_reg: RegTensor[T],
    post_update_stride: int,
    mask: MaskReg,
    /,
    *,
    post_mode: PostLiteral,
    dist: StoreDist = ...,
) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[T], src_reg: RegTensor[T], offset: AddrReg, mask: MaskReg, /, *, dist: StoreDist = ...
) -> None: ...
@overload
def StoreAlign(dst_addr: UbPtr[Any], mask: MaskReg, /, *, dist: MaskDist = ...) -> None: ...
@overload
def StoreAlign(dst_addr: UbPtr[Any], mask: MaskReg, offset: int, /, *, post_mode: PostLiteral, dist: MaskDist = ...) -> None: ...
@overload
def StoreAlign(dst_addr: UbPtr[Any], mask: MaskReg, offset: AddrReg, /, *, dist: MaskDist = ...) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[T], src_reg0: RegTensor[T], src_reg1: RegTensor[T], mask: MaskReg, /, *, dist: StoreDist
) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[T], src_reg0: RegTensor[T], src_reg1: RegTensor[T], offset: AddrReg, mask: MaskReg, /, *, dist: StoreDist
) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[TB], src_reg: RegTensor[TB], data_block_stride: int, mask: MaskReg, /, *, data_mode: DataCopyMode
) -> None: ...
@overload
def StoreAlign(
    dst_addr: UbPtr[TB],
    src_reg: RegTensor[TB],
    data_block_stride: int,
    repeat_stride: int,
    mask: MaskReg,
    /,
    *,
    data_mode: DataCopyMode,
    post_mode: PostLiteral,
) -> None: ...
@face("StoreAlign")
def StoreAlign(*args: Any, **kwargs: Any) -> None:
    """Aligned store of a RegTensor's active lanes (by its StoreDist) or of a MaskReg (NORM/PACK).

    Forms: `StoreAlign(p, src, mask)`; `StoreAlign(p, src, stride, mask, post_mode=POST_MODE_UPDATE)`;
    `StoreAlign(p, src, areg, mask)`; and for a MaskReg the same without `mask`. Lanes whose
    predicate bit is 0 leave their UB bytes untouched.
    """


def DataCopy(*args: Any, **kwargs: Any) -> None:
    """Legacy name of `LoadAlign` (register first) and `StoreAlign` (pointer first)."""
    (StoreAlign if args and isinstance(args[0], UbPtr) else LoadAlign)(*args, **kwargs)


@overload
def LoadUnAlignPre(ureg: UnalignRegForLoad, src_addr: UbPtr[Any], /) -> None: ...
@overload
def LoadUnAlignPre(ureg: UnalignRegForLoad, src_addr: UbPtr[Any], areg: AddrReg, /) -> None: ...
@face("LoadUnAlignPre")
def LoadUnAlignPre(*args: Any, **kwargs: Any) -> None:
    """Start an unaligned load stream: `ureg` buffers the DataBlock holding `src_addr` (+ `areg`)."""


@overload
def LoadUnAlign(dst_reg: RegTensor[T], ureg: UnalignRegForLoad, src_addr: UbPtr[T], /) -> None: ...
@overload
def LoadUnAlign(
    dst_reg: RegTensor[T],
    ureg: UnalignRegForLoad,
    src_addr: UbPtr[T],
    post_update_stride: int,
    /,
    *,
    post_mode: PostLiteral = ...,
) -> None: ...
@overload
def LoadUnAlign(dst_reg: RegTensor[T], ureg: UnalignRegForLoad, src_addr: UbPtr[T], areg: AddrReg, inc: int, /) -> None: ...
@face("LoadUnAlign")
def LoadUnAlign(*args: Any, **kwargs: Any) -> None:
    """Load 256 bytes from any UB address of a stream `LoadUnAlignPre` started; the post-update
    form then moves `src_addr` by `post_update_stride` elements. A call whose address is not
    where the stream's buffer left off (without a new `LoadUnAlignPre`) is a `VfContextError`."""


@face("Load")
def Load(dst_reg: RegTensor[T], src_addr: UbPtr[T], /) -> None:
    """`Load(dst, src)`: 256 bytes from any UB address (LoadUnAlignPre + LoadUnAlign on a private buffer)."""


@overload
def StoreUnAlign(
    dst_addr: UbPtr[T],
    src_reg: RegTensor[T],
    ureg: UnalignRegForStore,
    post_update_stride: int,
    /,
    *,
    post_mode: PostLiteral = ...,
) -> None: ...
@overload
def StoreUnAlign(
    dst_addr: UbPtr[T], src_reg: RegTensor[T], ureg: UnalignRegForStore, areg: AddrReg, /, *, post_mode: PostLiteral = ...
) -> None: ...
@overload
def StoreUnAlign(dst_addr: UbPtr[TM], mask: MaskReg, ureg: UnalignRegForStore, /) -> None: ...
@overload
def StoreUnAlign(
    dst_addr: UbPtr[T], src_reg: RegTensor[T], ureg: UnalignRegForStore, /, *, post_mode: PostLiteral = ...
) -> None: ...
@face("StoreUnAlign")
def StoreUnAlign(*args: Any, **kwargs: Any) -> None:
    """Append to an unaligned store stream: bytes up to the last 32-byte boundary reached are
    written, the rest stays in `ureg` until the next call or `StoreUnAlignPost`. A stream left
    unflushed when the vector function ends is a `VfContextError` naming the call."""


@overload
def StoreUnAlignPost(
    dst_addr: UbPtr[Any], ureg: UnalignRegForStore, post_update_stride: int, /, *, post_mode: PostLiteral = ...
) -> None: ...
@overload
def StoreUnAlignPost(dst_addr: UbPtr[Any], ureg: UnalignRegForStore, areg: AddrReg, /) -> None: ...
@overload
def StoreUnAlignPost(dst_addr: UbPtr[Any], ureg: UnalignRegForStore, /) -> None: ...
@face("StoreUnAlignPost")
def StoreUnAlignPost(*args: Any, **kwargs: Any) -> None:
    """Flush an unaligned store stream: write the bytes `ureg` still holds."""


@overload
def Store(dst_addr: UbPtr[T], src_reg: RegTensor[T], /) -> None: ...
@overload
def Store(dst_addr: UbPtr[T], src_reg: RegTensor[T], count: int, /) -> None: ...
@face("Store")
def Store(*args: Any, **kwargs: Any) -> None:
    """`Store(dst, src[, count])`: `count` elements (default VL / sizeof(T)) to any UB address."""


# `Gather`'s face is in rearrange.py, after the register form is registered: one face serves both
# overloads (the UB form below and `Gather(dst, src_reg, index_reg)`), so its docstring has both.


@face("GatherB")
def GatherB(dst_reg: RegTensor[T], src_addr: UbPtr[T], index: RegTensor[dt.uint32], mask: MaskReg, /) -> None:
    """Gather eight DataBlocks from UB at the byte offsets index[0..7]."""


@face("Scatter")
def Scatter(dst_addr: UbPtr[GS], src_reg: RegTensor[GS], index: RegTensor[GI], mask: MaskReg, /) -> None:
    """Scatter to UB: b8/b16 data with a uint16 index, b32 with uint32, b64 with uint32 or uint64."""


DataCopyUnAlignPre = LoadUnAlignPre
DataCopyUnAlignPost = StoreUnAlignPost
DataCopyGatherB = GatherB
DataCopyScatter = Scatter


def DataCopyUnAlign(*args: Any, **kwargs: Any) -> None:
    """Legacy name of `LoadUnAlign` (register first) and `StoreUnAlign` (pointer first)."""
    (StoreUnAlign if args and isinstance(args[0], UbPtr) else LoadUnAlign)(*args, **kwargs)
