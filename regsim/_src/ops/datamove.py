"""Aligned data movement between UB and registers (the LoadAlign / StoreAlign pages of the Reg
API, contiguous and MaskReg forms) and `CreateAddrReg` (the AddrReg page).

Loads are unpredicated and read whole registers, checked against the UB; stores write only
active lanes, each checked against the destination pointer's LocalTensor. The distributions are
data (`regsim/_src/dists.py`); one load and one store executor serve registers and MaskRegs.
"""

from __future__ import annotations

from typing import Any, Final, TypeVar, overload

from regsim._src import dtypes as dt
from regsim._src.enums import DataCopyMode, LoadDist, MaskDist, PostLiteral, StoreDist
from regsim._src.executors import AddrGen, LoadAligned, StoreAligned, Unmodelled
from regsim._src.memory import UbPtr
from regsim._src.registers import AddrReg, MaskReg, RegTensor
from regsim._src.spec import (
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
    int_param,
    pred,
    reg,
    register,
)

T = TypeVar("T", bound=dt.DType)
ALL: Final = frozenset(dt.ALL_DTYPES)
UPDATE = PostLiteral.POST_MODE_UPDATE

INT32 = (-(2**31), 2**31 - 1)
UINT16 = (0, 2**16 - 1)
UINT32 = (0, 2**32 - 1)

# --- CreateAddrReg: 1 to 4 (index, stride) pairs ---------------------------------------------------
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
            c_api=CName("asc_create_addr_reg", tuple(f"{p}{k}" for k in range(_pairs) for p in ("index", "stride"))),
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


def _not_yet(form: str) -> str:
    return f"the other overloads (regsim does not model the {form} form yet)"


def _variant(*parts: str) -> str:
    return "_".join(p for p in parts if p)


# LoadAlign: register (every LoadDist), MaskReg (MaskDist NORM/US/DS), dual register (not yet).
for _form, _ops in _forms(
    (reg("dst_reg", Role.OUT, OneOf(ALL)), Operand("src_addr", Kind.PTR, dtypes=SameAs("dst_reg"))), (), "post_update_stride"
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
            c_api=CName("asc_loadalign", tuple(o.name for o in _ops)),
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
            c_api=CName("asc_loadalign", tuple(o.name for o in _ops)),
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
            Unmodelled(),
            "dst0, dst1 = de-interleaved src_addr (DINTLV)",
            _LOAD_PAGE,
            _MEM,
            unmodelled=_not_yet("dual-register DINTLV"),
        )
    )
_BLOCK_IN = (
    reg("dst_reg", Role.OUT, OneOf(ALL)),
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
        _post("")[1],
    ),
}.items():
    register(
        OpSpec(
            "LoadAlign",
            _form,
            "datamove",
            _ops,
            Unmodelled(),
            "DataBlock-strided load",
            _IN + "非连续对齐搬入（LoadAlign）.md",
            _MEM,
            unmodelled=_not_yet("DataBlock (DATA_BLOCK_COPY)"),
        )
    )

# StoreAlign: register (every StoreDist), MaskReg (MaskDist NORM/PACK), dual register (not yet).
for _form, _ops in _forms(
    (Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")), reg("src_reg", dtypes=OneOf(ALL))), (pred(),), "post_update_stride"
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
            c_api=CName("asc_storealign", tuple(o.name for o in _ops)),
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
            c_api=CName("asc_storealign", tuple(o.name for o in _ops)),
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
            Unmodelled(),
            "dst_addr = interleaved src0, src1 (INTLV)",
            _STORE_PAGE,
            _MEM,
            unmodelled=_not_yet("dual-register INTLV"),
        )
    )
_BLOCK_OUT = (
    Operand("dst_addr", Kind.PTR, dtypes=SameAs("src_reg")),
    reg("src_reg", dtypes=OneOf(ALL)),
    int_param("data_block_stride", "uint32_t", UINT32),
)
for _form, _ops in {
    "block": (*_BLOCK_OUT, pred(), enum_param("data_mode", DataCopyMode)),
    "block_post": (
        *_BLOCK_OUT,
        int_param("repeat_stride", "uint32_t", UINT32),
        pred(),
        enum_param("data_mode", DataCopyMode),
        _post("")[1],
    ),
}.items():
    register(
        OpSpec(
            "StoreAlign",
            _form,
            "datamove",
            _ops,
            Unmodelled(),
            "DataBlock-strided store",
            _OUT + "非连续对齐搬出（StoreAlign）.md",
            _MEM,
            unmodelled=_not_yet("DataBlock (DATA_BLOCK_COPY)"),
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
