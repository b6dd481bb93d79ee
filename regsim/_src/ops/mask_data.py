"""Predicates made from data: `MoveMask<T>` (the MaskReg计算 page: from the core's vector-mask
register that `AscendC::SetVectorMask` sets) and `MaskGenWithRegTensor<T, offset>` (the
MaskReg搬入 page: from one block of a register's bytes)."""

from __future__ import annotations

from typing import Any, Final, TypeVar

import numpy as np

from regsim._src.engine.executors import MaskFromRegister, MaskFromVectorMask
from regsim._src.engine.spec import DOC, Batching, CName, Kind, OneOf, Operand, OpSpec, Role, face, int_param, mask, reg, register
from regsim._src.model import dtypes as dt
from regsim._src.model.registers import MASK_BITS, MaskReg, RegTensor

#: b16 and b32 types (the library static_asserts `SupportBytes<T, 2, 4>`)
MaskT = TypeVar("MaskT", dt.int16, dt.uint16, dt.half, dt.bfloat16, dt.int32, dt.uint32, dt.float32, dt.complex32)
B16_B32: Final = frozenset(MaskT.__constraints__)


# --- lane semantics ----------------------------------------------------------------------------------
def _spread(bits: Any, size: int) -> Any:
    """Each source bit repeated over a lane's `size` predicate bits ("每个bit复制为2bit/4bit")."""
    return np.repeat(bits, size, axis=-1)[..., :MASK_BITS]


def vector_mask_bits(size: int, high: int, low: int) -> Any:
    """MoveMask<T>: b16 reads the 128 bits {MASK1, MASK0} (element k < 64 at bit k of MASK0, k >= 64
    at bit k - 64 of MASK1), b32 the 64 bits of MASK0; each bit fills its lane's group."""
    raw = np.frombuffer((low | high << 64).to_bytes(16, "little"), np.uint8)
    bits = np.unpackbits(raw, bitorder="little").astype(np.bool_)
    return _spread(bits[: MASK_BITS // size], size)


def register_block_bits(raw: Any, size: int, offset: int) -> Any:
    """MaskGenWithRegTensor<T, offset>: block `offset` of the register's bytes (16 blocks of 16
    bytes for b16, 32 blocks of 8 bytes for b32), bit j of it (byte j // 8, bit j % 8) filling
    the predicate group of lane j."""
    block = VL_BLOCK[size]
    bits = np.unpackbits(raw[..., offset * block : (offset + 1) * block], axis=-1, bitorder="little").astype(np.bool_)
    return _spread(bits, size)


VL_BLOCK: Final = {2: 16, 4: 8}  #: bytes per block of a b16 / b32 register

# --- specs ---------------------------------------------------------------------------------------------
register(
    OpSpec(
        "MoveMask",
        "",
        "mask",
        (Operand("T", Kind.DTYPE, dtypes=OneOf(B16_B32)),),
        MaskFromVectorMask(),
        "mask[k*sizeof(T) + j] = bit k of {MASK1, MASK0}   (b16: 128 bits; b32: MASK0's 64 bits)",
        DOC + "MaskReg计算/MoveMask.md",
        Batching.ELEMENTWISE,  # the register is set by scalar code, constant over a VF's loops
        lane=vector_mask_bits,
        c_api=CName("asc_get_mask_spr", ()),  # asc_get_mask_spr_b16 / _b32 (T = uint16 / uint32)
    )
)
register(
    OpSpec(
        "MaskGenWithRegTensor",
        "",
        "mask",
        (mask("dst", Role.OUT), reg("src_reg", dtypes=OneOf(B16_B32)), int_param("offset", "int16_t", (0, 31), keyword=True)),
        MaskFromRegister(),
        "dst[j*sizeof(T) + g] = bit j of src bytes [offset*B, (offset+1)*B)   (B = 16 for b16, 8 for b32)",
        DOC + "Reg数据搬入/MaskReg搬入（MaskGenWithRegTensor）.md",
        Batching.ELEMENTWISE,
        lane=register_block_bits,
    )
)


# --- typed faces ---------------------------------------------------------------------------------------
@face("MoveMask")
def MoveMask(T: type[MaskT]) -> MaskReg:
    raise NotImplementedError  # @face supplies the body


@face("MaskGenWithRegTensor")
def MaskGenWithRegTensor(dst: MaskReg, src_reg: RegTensor[MaskT], *, offset: int) -> None: ...
