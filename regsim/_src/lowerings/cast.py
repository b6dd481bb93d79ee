"""The memory-level (`LocalTensor`) `Cast`, lowered onto the Reg layer as the 950 library builds it
(kernel_operator_vec_vconv_impl.h for dav_3510: `CastImpl` / `CastImplCommon` pick the rounding mode per pair,
`CastIntrinsicsImplVF` runs the first-n interface, `CastIntrinsicsImplVF1` / `VF2` / `CounterVF` the
mask/repeat interfaces).

One register of the wider type per repeat: the narrower operand fills half (a quarter for 1 <-> 4 bytes) of
its register. The first-n VF loads with `DIST_UNPACK_*` and stores with `DIST_PACK_*`; the mask/repeat VFs
copy DataBlocks and widen / narrow in registers (`UnPack` / `Pack`), their predicates made from one another
with `MaskPack`. Every conversion is `Reg::Cast` with the trait `{RegLayout::ZERO, SatMode::SAT, ZEROING,
roundMode}` (float -> float: `Reg::Truncate`).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.lowerings import cast_double as cast_double
from regsim._src.lowerings.checks import check_repeat, check_written, run_lowering
from regsim._src.lowerings.fresh import FreshCall, arguments, dtype_named, mask_arg, member
from regsim._src.lowerings.spec import CAST_DEQ, Call, Form
from regsim._src.lowerings.structs import UnaryRepeatParams
from regsim._src.lowerings.vector_mask import check_mask, counter_mode, set_vector_mask, vector_mask
from regsim._src.model import dtypes as dt
from regsim._src.model.config import ONE_BLOCK_SIZE, configure
from regsim._src.model.core import current_core, current_ctrl
from regsim._src.model.enums import RoundMode, expected_member
from regsim._src.model.memory import LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL, MaskReg, RegTensor
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim.errors import AlignmentError, DTypeError, ParameterError, UnsupportedError, message

R = RoundMode
d = dt
ZEROING: Final = Reg.MaskMergeMode.ZEROING
_ROUNDS: Final = (R.CAST_RINT, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_ROUND, R.CAST_TRUNC)

# --- the pairs and the rounding mode each runs with (CastImpl's / CastImplCommon's constexpr lists, as (src, dst)) --
_ROUND_ALL: Final = {
    (d.float32, d.half), (d.float32, d.int64), (d.float32, d.int32), (d.float32, d.int16), (d.float32, d.bfloat16),
    (d.half, d.int32), (d.half, d.int16), (d.half, d.int8), (d.half, d.uint8), (d.half, d.int4x2), (d.half, d.bfloat16),
    (d.int16, d.half), (d.int32, d.float32), (d.int64, d.float32), (d.bfloat16, d.int32), (d.bfloat16, d.half),
    (d.bfloat16, d.fp4x2_e1m2), (d.bfloat16, d.fp4x2_e2m1), (d.int32, d.half), (d.float32, d.float32),
}  # fmt: skip
_ROUND_ALL_COUNT: Final = {(d.complex64, d.complex64), (d.complex64, d.complex32)}
_NONE: Final = {
    (d.int32, d.half), (d.half, d.float32), (d.bfloat16, d.float32), (d.int4x2, d.half), (d.uint8, d.half),
    (d.uint8, d.uint16), (d.uint8, d.uint32), (d.int8, d.half), (d.int8, d.int16), (d.int8, d.int32),
    (d.uint16, d.uint8), (d.uint16, d.uint32), (d.int16, d.float32), (d.int16, d.uint8), (d.int16, d.uint32),
    (d.int16, d.int32), (d.uint32, d.uint8), (d.uint32, d.uint16), (d.uint32, d.int16), (d.int32, d.int64),
    (d.int32, d.int16), (d.int32, d.uint8), (d.int32, d.uint16), (d.int64, d.int32), (d.hifloat8, d.half),
    (d.hifloat8, d.float32), (d.fp8_e4m3fn, d.float32), (d.fp8_e5m2, d.float32), (d.fp4x2_e1m2, d.bfloat16),
    (d.fp4x2_e2m1, d.bfloat16), (d.int16, d.int4x2), (d.int4x2, d.int16), (d.int4x2, d.bfloat16),
}  # fmt: skip
_NONE_COUNT: Final = {(d.complex32, d.complex64)}
_NONE_IS_RINT: Final = {
    (d.half, d.int8), (d.half, d.uint8), (d.half, d.int4x2), (d.float32, d.half), (d.int16, d.half), (d.int32, d.float32),
}  # fmt: skip
_NONE_IS_RINT_COUNT: Final = {(d.complex64, d.complex32)}
_ODD: Final = {(d.float32, d.half), (d.int32, d.half)}
_ODD_COUNT: Final = {(d.complex64, d.complex32)}
_RINT_ONLY: Final = {(d.float32, d.fp8_e5m2), (d.float32, d.fp8_e4m3fn)}
_ROUND_ONLY: Final = {(d.float32, d.hifloat8), (d.half, d.hifloat8)}
_HYBRID: Final = {(d.float32, d.hifloat8), (d.half, d.hifloat8), (d.int32, d.half)}
#: the double pairs (`cast_double` / `cast_double0` of CastImpl; first-n only): the five modes / CAST_TRUNC only
_DOUBLE_COUNT: Final = {(d.int64, d.float64), (d.float64, d.bfloat16), (d.float64, d.float32)}
_DOUBLE_TRUNC_COUNT: Final = {(d.float64, d.int32), (d.float64, d.int64)}


#: the (src, dst) pairs of the first-n interface and of the mask/repeat interfaces (the Cast page, CastImpl /
#: CastImplCommon): every pair some round mode converts
PAIRS_REPEAT: Final = frozenset(_ROUND_ALL | _RINT_ONLY | _ROUND_ONLY | _ODD | _HYBRID | _NONE | _NONE_IS_RINT)
PAIRS_COUNT: Final = (
    PAIRS_REPEAT | _ROUND_ALL_COUNT | _DOUBLE_COUNT | _DOUBLE_TRUNC_COUNT | _ODD_COUNT | _NONE_COUNT | _NONE_IS_RINT_COUNT
)


def round_for(api: str, src: type[dt.DType], dst: type[dt.DType], mode: object, first_n: bool) -> RoundMode:
    """The RoundMode the lowering runs for (src, dst, roundMode): `CastImpl`'s switch (first-n) or
    `CastImplCommon`'s (mask/repeat: no complex pairs); CAST_NONE runs as CAST_RINT for the rounding pairs."""
    if not isinstance(mode, RoundMode):
        raise ParameterError(message(api, "round_mode", repr(mode), expected_member(RoundMode, mode, "rs.AscendC")))
    p = (src, dst)
    round_all = _ROUND_ALL | (_ROUND_ALL_COUNT if first_n else set())
    accepted: dict[RoundMode, RoundMode] = {}
    if p in round_all | (_DOUBLE_COUNT if first_n else set()):
        accepted.update({m: m for m in _ROUNDS})
    if first_n and p in _DOUBLE_TRUNC_COUNT:
        accepted[R.CAST_TRUNC] = R.CAST_TRUNC
    if p in _RINT_ONLY:
        accepted[R.CAST_RINT] = R.CAST_RINT
    if p in _ROUND_ONLY:
        accepted[R.CAST_ROUND] = R.CAST_ROUND
    if p in _ODD | (_ODD_COUNT if first_n else set()):
        accepted[R.CAST_ODD] = R.CAST_ODD
    if p in _HYBRID:
        accepted[R.CAST_HYBRID] = R.CAST_HYBRID
    if p in _NONE | (_NONE_COUNT if first_n else set()):
        accepted[R.CAST_NONE] = R.CAST_NONE
    elif p in _NONE_IS_RINT | (_NONE_IS_RINT_COUNT if first_n else set()):
        accepted[R.CAST_NONE] = R.CAST_RINT
    if not accepted:
        interface = "the first-n interface" if first_n else "the mask/repeat interfaces"
        raise DTypeError(
            message(
                api,
                "dst, src",
                f"LocalTensor[{dst.name}], LocalTensor[{src.name}]",
                f"a pair the Cast page lists for {interface}",
            )
        )
    if mode not in accepted:
        names = "/".join(m.name for m in RoundMode if m in accepted)
        raise ParameterError(message(api, "round_mode", mode.name, f"{names} for {src.name} -> {dst.name}"))
    return accepted[mode]


FOUR_BIT: Final = frozenset({d.int4x2, d.fp4x2_e2m1, d.fp4x2_e1m2})
_COMPLEX: Final = frozenset({(d.complex64, d.complex64), (d.complex64, d.complex32), (d.complex32, d.complex64)})
_B64: Final = frozenset({(d.float32, d.int64), (d.int64, d.float32), (d.int32, d.int64), (d.int64, d.int32)})
U32: Final = dt.uint32
_BLOCK: Final = Reg.DataCopyMode.DATA_BLOCK_COPY
_STORE_BAR: Final = {"src": Reg.MemType.VEC_STORE, "dst": Reg.MemType.VEC_STORE}  # LocalMemBar<VEC_STORE, VEC_STORE>


def _wide(src: type[dt.DType], dst: type[dt.DType]) -> type[dt.DType]:
    """The type whose register one repeat fills (the page: the mask follows the larger sizeof)."""
    return dst if dst.itemsize > src.itemsize else src


def _trait(mode: RoundMode) -> Reg.CastTrait:
    return Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.SAT, ZEROING, mode)


DEQ_SHIFT_LEFT_17_BIT: Final = 131072  #: kernel_utils_constants.h
DEQ_SHIFT_RIGHT_17_BIT: Final = 1.0 / DEQ_SHIFT_LEFT_17_BIT
#: int32 -> float for the deq path (`CastParam::s322floatCastTrait`) and float -> half (`f322F16CastTrait`)
S32_TO_F32: Final = Reg.CastTrait(Reg.RegLayout.UNKNOWN, Reg.SatMode.SAT, ZEROING, R.CAST_RINT)
F32_TO_F16: Final = Reg.CastTrait(Reg.RegLayout.ZERO, Reg.SatMode.NO_SAT, ZEROING, R.CAST_RINT)


@simd_callee
def convert(
    dst_reg: RegTensor[Any], src_reg: RegTensor[Any], mask: MaskReg, mode: RoundMode, scale: Any, tmp: RegTensor[Any]
) -> None:
    """float -> float is `Truncate<float, roundMode>`; int32 -> half goes through float and the `SetDeqScale`
    scale (x * 2**-17 * scale * 2**17, each product a float32, then half by CAST_RINT without saturation:
    roundMode is not used); every other pair `Cast<DST, SRC, castTrait>`."""
    if (src_reg.dtype, dst_reg.dtype) == (dt.int32, dt.half):
        Reg.Cast(tmp, src_reg, mask, trait=S32_TO_F32)
        Reg.Muls(tmp, tmp, DEQ_SHIFT_RIGHT_17_BIT, mask)
        Reg.Muls(tmp, tmp, float(scale), mask)  # static_cast<float>(scale)
        Reg.Muls(tmp, tmp, float(DEQ_SHIFT_LEFT_17_BIT), mask)
        Reg.Cast(dst_reg, tmp, mask, trait=F32_TO_F16)
    elif src_reg.dtype is dst_reg.dtype:
        Reg.Truncate(dst_reg, src_reg, mask, round_mode=mode)
    else:
        Reg.Cast(dst_reg, src_reg, mask, trait=_trait(mode))


_UNPACK_LOAD: Final = {
    (1, 2): Reg.LoadDist.DIST_UNPACK_B8,
    (2, 4): Reg.LoadDist.DIST_UNPACK_B16,
    (1, 4): Reg.LoadDist.DIST_UNPACK4_B8,
}
_PACK_STORE: Final = {
    (2, 1): Reg.StoreDist.DIST_PACK_B16,
    (4, 2): Reg.StoreDist.DIST_PACK_B32,
    (4, 1): Reg.StoreDist.DIST_PACK4_B32,
}


@simd_vf
def cast_four_bit_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode) -> None:
    """`CastIntrinsicsImplVF` for the 4-bit pairs (int4b_t as int4x2_t, fp4x2): 128 4-bit values per repeat
    (64 bytes), the predicate `UpdateMask` of the 2-byte side; a 4-bit source is loaded `DIST_UNPACK4_B8` (a
    byte per 32-bit lane), a 4-bit destination stored `DIST_PACK4_B32`, both through uint8 views."""
    S, D = src.dtype, dst.dtype
    wide = D if S in FOUR_BIT else S
    one_rep = VL // 2  # oneRepSize = GetVecLen() / sizeof(the 2-byte type)
    sreg = Ref(count)
    src_vreg = Reg.RegTensor(S)
    dst_vreg = Reg.RegTensor(D)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(wide, sreg)
        if S in FOUR_BIT:  # src + (i * oneRepSize) / 2
            Reg.LoadAlign(
                src_vreg.reinterpret(dt.uint8), src.reinterpret(dt.uint8) + i * one_rep // 2, dist=Reg.LoadDist.DIST_UNPACK4_B8
            )
        else:
            Reg.LoadAlign(src_vreg, src + i * one_rep)
        Reg.Cast(dst_vreg, src_vreg, preg, trait=_trait(mode))
        if D in FOUR_BIT:
            d8 = dst.reinterpret(dt.uint8) + i * one_rep // 2
            Reg.StoreAlign(d8, dst_vreg.reinterpret(dt.uint8), preg, dist=Reg.StoreDist.DIST_PACK4_B32)
        else:
            Reg.StoreAlign(dst + i * one_rep, dst_vreg, preg)


@simd_vf
def cast_continuous_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode, scale: Any) -> None:
    """`CastIntrinsicsImplVF`: the first-n interface. Per repeat `UpdateMask` of the wider type, `GenLoadL2`
    (a `DIST_UNPACK_B8` / `_B16` / `UNPACK4_B8` load when widening), the conversion, `GenStoreL2` (a
    `DIST_PACK_B16` / `_B32` / `PACK4_B32` store when narrowing)."""
    S, D = src.dtype, dst.dtype
    one_rep = VL // max(S.itemsize, D.itemsize)  # oneRepSize
    sreg = Ref(count)
    src_vreg = Reg.RegTensor(S)
    dst_vreg = Reg.RegTensor(D)
    tmp_vreg = Reg.RegTensor(dt.float32)
    load = _UNPACK_LOAD.get((S.itemsize, D.itemsize))
    store = _PACK_STORE.get((S.itemsize, D.itemsize))
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(_wide(S, D), sreg)
        if load is None:
            Reg.LoadAlign(src_vreg, src + i * one_rep)
        else:
            Reg.LoadAlign(src_vreg, src + i * one_rep, dist=load)
        convert(dst_vreg, src_vreg, preg, mode, scale, tmp_vreg)
        if store is None:
            Reg.StoreAlign(dst + i * one_rep, dst_vreg, preg)
        else:
            Reg.StoreAlign(dst + i * one_rep, dst_vreg, preg, dist=store)


@simd_vf
def cast_b64_continuous_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode) -> None:
    """`CastIntrinsicsB64ImplVF` (b32 <-> b64): 64 elements per repeat, the 64-bit side in two registers
    (RegTraitNumTwo), the predicate `UpdateMask<int64_t, RegTraitNumTwo>`."""
    S, D = src.dtype, dst.dtype
    two, one = Reg.RegTraitNumTwo, Reg.RegTraitNumOne
    one_rep = 2 * VL // 8  # oneRepSize = 2 * GetVecLen() / sizeof(int64_t)
    sreg = Ref(count)
    src_vreg = Reg.RegTensor(S, trait=two if S.itemsize == 8 else one)
    dst_vreg = Reg.RegTensor(D, trait=two if D.itemsize == 8 else one)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(dt.int64, sreg, trait=two)
        Reg.LoadAlign(src_vreg, src + i * one_rep)
        Reg.Cast(dst_vreg, src_vreg, preg, trait=_trait(mode))
        Reg.StoreAlign(dst + i * one_rep, dst_vreg, preg)


@simd_vf
def cast_complex_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, mode: RoundMode) -> None:
    """The complex branches of `CastIntrinsicsB64ImplVF` (first-n only): 64 elements per repeat in two
    registers (real parts in `reg[0]`, imaginary in `reg[1]`), each part converted on its own: complex64 ->
    complex32 `Cast<half, float>` then `Pack` (and `MaskPack` of the predicate), complex32 -> complex64
    `UnPack` then `Cast<float, half>`, complex64 -> complex64 `Truncate<float, roundMode>`."""
    S, D = src.dtype, dst.dtype
    two = Reg.RegTraitNumTwo
    one_rep = 2 * VL // 8
    sreg = Ref(count)
    src_vreg = Reg.RegTensor(S, trait=two)
    dst_vreg = Reg.RegTensor(D, trait=two)
    for i in range(-(-count // one_rep)):
        preg = Reg.UpdateMask(dt.int64, sreg, trait=two)
        Reg.LoadAlign(src_vreg, src + i * one_rep)
        for j in (0, 1):
            s_part, d_part = src_vreg.reg[j], dst_vreg.reg[j]
            if S is D:
                Reg.Truncate(d_part.reinterpret(dt.float32), s_part.reinterpret(dt.float32), preg, round_mode=mode)
            elif S is dt.complex64:
                Reg.Cast(d_part.reinterpret(dt.half), s_part.reinterpret(dt.float32), preg, trait=_trait(mode))
                Reg.Pack(d_part.reinterpret(dt.uint16), d_part.reinterpret(dt.uint32))
            else:
                Reg.UnPack(s_part.reinterpret(dt.uint32), s_part.reinterpret(dt.uint16))
                Reg.Cast(d_part.reinterpret(dt.float32), s_part.reinterpret(dt.half), preg, trait=_trait(mode))
        if S is dt.complex64 and D is dt.complex32:
            Reg.MaskPack(preg, preg)
        Reg.StoreAlign(dst + i * one_rep, dst_vreg, preg)


@simd_callee
def b64_repeat(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    regs: tuple[RegTensor[Any], ...],
    b32: MaskReg,
    b64: MaskReg,
    i: int,
    p: UnaryRepeatParams,
    mode: RoundMode,
) -> None:
    """One repeat of the b64 mask/repeat VFs (32 elements): b32 -> b64 loads the b32 DataBlocks under the
    b32 predicate and spreads them to 64-bit lanes (`Interleave` with zeros); b64 -> b32 gathers the
    results back (`DeInterleave`); the DataBlock copies go through uint32 views."""
    src_vreg, dst_vreg, zero, tmp = regs
    e = ONE_BLOCK_SIZE // 4  # elePerBlk of uint32_t
    s32, d32 = src_vreg.reinterpret(U32), dst_vreg.reinterpret(U32)
    widening = dst.dtype.itemsize == 8
    Reg.LoadAlign(s32, src.reinterpret(U32) + i * p.srcRepStride * e, p.srcBlkStride, b32 if widening else b64, data_mode=_BLOCK)
    if widening:
        Reg.Interleave(s32, tmp, s32, zero)
    Reg.Cast(dst_vreg, src_vreg, b64, trait=_trait(mode))
    if not widening:
        Reg.DeInterleave(d32, tmp, d32, zero)
    Reg.LocalMemBar(**_STORE_BAR)
    Reg.StoreAlign(dst.reinterpret(U32) + i * p.dstRepStride * e, d32, p.dstBlkStride, b64 if widening else b32, data_mode=_BLOCK)


@simd_callee
def b64_regs(S: Any, D: Any) -> tuple[RegTensor[Any], ...]:
    """srcVreg, dstVreg (one register each), zeroVreg (Duplicate 0 under the full b32 mask), tmpVreg."""
    zero, tmp = Reg.RegTensor(U32), Reg.RegTensor(U32)
    Reg.Duplicate(zero, 0, Reg.CreateMask(U32, pattern=Reg.MaskPattern.ALL))
    return Reg.RegTensor(S), Reg.RegTensor(D), zero, tmp


@simd_vf
def cast_b64_repeat_vf(
    dst: UbPtr[Any], src: UbPtr[Any], mask_count: int, repeat_time: int, p: UnaryRepeatParams, mode: RoundMode, spr_mask: bool
) -> None:
    """`CastIntrinsicsB64ImplVF1` (continuous mask: b32 predicate `UpdateMask<uint32_t>(mask)`, b64 predicate
    `UpdateMask<uint32_t>(2 * mask)`) and `CastIntrinsicsB64ImplVF2` / `isSetMask = false` (`MoveMask<uint32_t>`,
    the b64 predicate by `MaskInterleave` of it with itself)."""
    b64 = Reg.MaskReg()
    if spr_mask:
        b32 = Reg.MoveMask(U32)
        Reg.MaskInterleave(U32, b64, Reg.MaskReg(), b32, b32)
    else:
        b32 = Reg.UpdateMask(U32, Ref(mask_count))
        b64 = Reg.UpdateMask(U32, Ref(2 * mask_count))
    regs = b64_regs(src.dtype, dst.dtype)
    for i in range(repeat_time):
        b64_repeat(dst, src, regs, b32, b64, i, p, mode)


@simd_vf
def cast_b64_counter_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, p: UnaryRepeatParams, mode: RoundMode) -> None:
    """`CastIntrinsicsB64ImplCounterVF`: ceil(count / 32) repeats; each takes its b32 predicate from
    `UpdateMask<uint32_t>` over the count (up to 64 of it per repeat) and the b64 one by `MaskInterleave` (its
    first 32 elements), so a repeat converts up to 32 elements, and b64 -> b32 also stores zeros from the
    `DeInterleave` in the b32 lanes 32-63 it selects: docs/decisions/cast.md#memory-cast-repeat."""
    sreg = Ref(count)
    regs = b64_regs(src.dtype, dst.dtype)
    for i in range(-(-count // (VL // 8))):
        b32 = Reg.UpdateMask(U32, sreg)
        b64 = Reg.MaskReg()
        Reg.MaskInterleave(U32, b64, Reg.MaskReg(), b32, b32)
        b64_repeat(dst, src, regs, b32, b64, i, p, mode)


def _unsigned(n: int) -> Any:
    return {1: dt.uint8, 2: dt.uint16, 4: dt.uint32}[n]


@simd_callee
def gen_load_l0(
    src_vreg: RegTensor[Any], src: UbPtr[Any], preg: MaskReg, p: UnaryRepeatParams, index: int, dst_size: int
) -> None:
    """`GenLoadL0`: one repeat's DataBlocks of src, then `UnPack` (signed for int8 / int16) up to the
    destination's width."""
    S = src.dtype
    e = ONE_BLOCK_SIZE // S.itemsize
    Reg.LoadAlign(src_vreg, src + index * p.srcRepStride * e, p.srcBlkStride, preg, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)
    size = S.itemsize
    if S in FOUR_BIT:  # a 4-bit value pair per byte, each byte to a 32-bit lane (UnPack u8 -> u16 -> u32)
        dst_size = 4
    while size < dst_size:
        narrow = (dt.int8 if size == 1 else dt.int16) if S in (dt.int8, dt.int16) else _unsigned(size)
        wide = (dt.int16 if size == 1 else dt.int32) if S in (dt.int8, dt.int16) else _unsigned(2 * size)
        Reg.UnPack(src_vreg.reinterpret(wide), src_vreg.reinterpret(narrow))
        size *= 2


@simd_callee
def gen_store_l0(
    dst: UbPtr[Any], dst_vreg: RegTensor[Any], preg: MaskReg, p: UnaryRepeatParams, index: int, src_size: int
) -> None:
    """`GenStoreL0`: `Pack` down from the source's width, then one repeat's DataBlocks of dst."""
    D = dst.dtype
    size = src_size
    floor = 1 if D in FOUR_BIT else D.itemsize  # (4-bit: the low byte of each 32-bit lane, Pack u32 -> u16 -> u8)
    if D in FOUR_BIT:
        size = 4
    while size > floor:
        Reg.Pack(dst_vreg.reinterpret(_unsigned(size // 2)), dst_vreg.reinterpret(_unsigned(size)))
        size //= 2
    e = ONE_BLOCK_SIZE // D.itemsize
    Reg.StoreAlign(dst + index * p.dstRepStride * e, dst_vreg, p.dstBlkStride, preg, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@simd_callee
def cast_masks(S: Any, D: Any, base: MaskReg) -> tuple[MaskReg, MaskReg, MaskReg]:
    """(ldPreg, exPreg, stPreg) from the wider type's predicate: the narrower side's by `MaskPack` (twice
    for 1 <-> 4 bytes); the conversion runs under the wider side's."""
    if S.itemsize == D.itemsize:
        return base, base, base
    packed = Reg.MaskReg()
    Reg.MaskPack(packed, base)
    four = S in FOUR_BIT or D in FOUR_BIT
    if four or max(S.itemsize, D.itemsize) == 4 * min(S.itemsize, D.itemsize):
        Reg.MaskPack(packed, packed)
    if S in FOUR_BIT:  # MaskUnPack(st, ld); MaskUnPack(ex, st); MaskInterleave<uint16_t>(st, dump, st, st)
        st, ex = Reg.MaskReg(), Reg.MaskReg()
        Reg.MaskUnPack(st, packed)
        Reg.MaskUnPack(ex, st)
        Reg.MaskInterleave(dt.uint16, st, Reg.MaskReg(), st, st)
        return packed, ex, st
    return (base, base, packed) if S.itemsize > D.itemsize else (packed, base, base)


@simd_vf
def cast_repeat_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    mask_count: int,
    repeat_time: int,
    p: UnaryRepeatParams,
    mode: RoundMode,
    spr_mask: bool,
    scale: Any,
) -> None:
    """`CastIntrinsicsImplVF1` (continuous mask: `UpdateMask` of the wider type; `isSetMask = false`:
    `MoveMask`) and `CastIntrinsicsImplVF2` (bit mask: `MoveMask` after `SetVectorMask`): normal mode, one
    predicate for every repeat."""
    S, D = src.dtype, dst.dtype
    W: Any = _wide(S, D)
    base = Reg.MoveMask(W) if spr_mask else Reg.UpdateMask(W, Ref(mask_count))
    ld, ex, st = cast_masks(S, D, base)
    src_vreg = Reg.RegTensor(S)
    dst_vreg = Reg.RegTensor(D)
    tmp_vreg = Reg.RegTensor(dt.float32)
    for i in range(repeat_time):
        gen_load_l0(src_vreg, src, ld, p, i, D.itemsize)
        convert(dst_vreg, src_vreg, ex, mode, scale, tmp_vreg)
        gen_store_l0(dst, dst_vreg, st, p, i, S.itemsize)


@simd_vf
def cast_counter_vf(dst: UbPtr[Any], src: UbPtr[Any], count: int, p: UnaryRepeatParams, mode: RoundMode, scale: Any) -> None:
    """`CastIntrinsicsImplCounterVF`: counter mode, ceil(count / elements per repeat) repeats, the predicates
    made from `UpdateMask` of the wider type over the count each repeat."""
    S, D = src.dtype, dst.dtype
    W = _wide(S, D)
    sreg = Ref(count)
    src_vreg = Reg.RegTensor(S)
    dst_vreg = Reg.RegTensor(D)
    tmp_vreg = Reg.RegTensor(dt.float32)
    for i in range(-(-count // (VL // W.itemsize))):
        ld, ex, st = cast_masks(S, D, Reg.UpdateMask(W, sreg))
        gen_load_l0(src_vreg, src, ld, p, i, D.itemsize)
        convert(dst_vreg, src_vreg, ex, mode, scale, tmp_vreg)
        gen_store_l0(dst, dst_vreg, st, p, i, S.itemsize)


def _check_pair_tensors(api: str, dst: LocalTensor[Any], src: LocalTensor[Any]) -> tuple[type[dt.DType], type[dt.DType]]:
    if src.ub is not dst.ub:
        raise ParameterError(message(api, "src", repr(src), "a LocalTensor in the same UnifiedBuffer as dst"))
    for name, t in (("dst", dst), ("src", src)):
        if t.addr % ONE_BLOCK_SIZE:
            raise AlignmentError(message(api, name, f"UB byte {t.addr}", "a start address aligned to 32 bytes"))
    return src.dtype, dst.dtype


def _extent(name: str, t: LocalTensor[Any], last: int, what: str, value: object) -> None:
    if last >= t.size:
        raise ParameterError(
            message("Cast", what, value, f"a value whose last element ({last}) lies in {name} ({t.size} elements)")
        )


def _extent_check(t: LocalTensor[Any], name: str, r: int, k: int, blk: int, rep: int, what: str, value: object) -> None:
    """Element k (in t's elements) of repeat r must lie in t."""
    e = ONE_BLOCK_SIZE // t.dtype.itemsize
    _extent(name, t, r * rep * e + (k // e) * blk * e + k % e, what, value)


def deq_value(api: str) -> Any:
    """The core's `g_deqValue` (half): what the last `SetDeqScale(half)` set; 1 after a `TPipe` is made, 0
    before either."""
    value = current_core().deq_value
    return np.float16(0) if value is None else value


def set_deq_scale(c: Call) -> None:
    """`AscendC::SetDeqScale(half scale)`: the scale the memory-level int32 -> half `Cast` multiplies by (the
    library's block-local `g_deqValue`; a float argument is converted to half as C++ does, to nearest even).
    The page's other overloads (`(float scale, int16_t offset, bool signMode)`, `(vdeq, vdeqInfo)`) configure
    `CastDeq`, which regsim does not model: an `UnsupportedError`."""
    api = c.api
    if c.iface.variant == CAST_DEQ:
        given = len([v for v in c.args.values() if v is not None])
        raise UnsupportedError(message(api, "arguments", given, "(scale,): the CastDeq overloads are not modelled (no CastDeq)"))
    scale = c["scale"]
    if isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float, np.floating, np.integer)):
        raise ParameterError(message(api, "scale", repr(scale), "a half (or a number converted to half)"))
    with np.errstate(over="ignore"):
        current_core().deq_value = np.float16(scale)


def cast(c: Call) -> None:
    """`AscendC::Cast(dst, src, roundMode, count)` and `Cast<T, U, isSetMask>(dst, src, roundMode, mask,
    repeatTime, repeatParams)` (mask continuous or `mask[2]` bit mode): dst = src converted with `roundMode`.
    A repeat covers 256 bytes of the wider type; the mask selects its elements."""
    api, dst, src, round_mode, is_set_mask = c.api, c["dst"], c["src"], c["round_mode"], c["is_set_mask"]
    S, D = _check_pair_tensors(api, dst, src)
    if c.form is Form.COUNT:  # tensor 前n个数据计算
        mode = round_for(api, S, D, round_mode, True)
        n = int(c["count"])
        limit = min(t.size * (2 if t.dtype in FOUR_BIT else 1) for t in (dst, src))  # (a 4-bit tensor: 2 per element)
        if not 0 <= n <= limit:
            raise ParameterError(message(api, "count", n, f"an int in [0, {limit}] (the smaller of dst's and src's sizes)"))
        if dt.float64 in (S, D):  # (every double pair of the page; round_for refused the others)
            # The library's VFs read scratch registers past the elements a call converts (lanes never stored):
            # the converted source elements are checked here (docs/decisions/cast.md#memory-cast-scratch-lanes).
            check_written(api, "src", src, n * src.dtype.itemsize)
            with configure(check_uninitialized=False):
                run_lowering(api, cast_double.run, dst.GetPhyAddr(), src.GetPhyAddr(), n, mode, current_ctrl())
            return
        if S in FOUR_BIT or D in FOUR_BIT:
            if n % 2:
                raise ParameterError(message(api, "count", n, "an even count for a 4-bit dst or src"))
            run_lowering(api, cast_four_bit_vf, dst.GetPhyAddr(), src.GetPhyAddr(), n, mode)
            return
        if (S, D) == (dt.complex32, dt.complex64):
            # The library unpacks whole registers, past the elements a call converts: those lanes are never
            # stored, so their bytes may be unwritten; the elements that are converted are checked here.
            check_written(api, "src", src, n * src.dtype.itemsize)
            with configure(check_uninitialized=False):
                run_lowering(api, cast_complex_vf, dst.GetPhyAddr(), src.GetPhyAddr(), n, mode)
            return
        if (S, D) in _B64 | _COMPLEX:
            vf = cast_b64_continuous_vf if (S, D) in _B64 else cast_complex_vf
            run_lowering(api, vf, dst.GetPhyAddr(), src.GetPhyAddr(), n, mode)
            return
        scale = deq_value(api)
        run_lowering(api, cast_continuous_vf, dst.GetPhyAddr(), src.GetPhyAddr(), n, mode, scale)
        return
    mode = round_for(api, S, D, round_mode, False)
    mask, repeat_time, params = c["mask"], c["repeat_time"], c["repeat_params"]
    W = _wide(S, D)
    lanes = VL // W.itemsize
    bit_mode, mask_count, bits = check_mask(api, W, mask, is_set_mask)
    if (S in FOUR_BIT or D in FOUR_BIT) and is_set_mask:  # the page: both 4-bit values of a byte alike
        word = mask_count if bits is None else bits[0] << 64 | bits[1]
        if (bits is None and word % 2) or (bits is not None and (word ^ word >> 1) & 0x5555_5555_5555_5555_5555_5555_5555_5555):
            accepted = "an even count, or bit masks whose bits 2j and 2j + 1 are equal, for a 4-bit dst or src"
            raise ParameterError(message(api, "mask", repr(mask), accepted))
    repeats = check_repeat(api, repeat_time)
    counting = counter_mode()
    b64 = (S, D) in _B64
    for t, name, blk, rep in (
        (src, "src", params.srcBlkStride, params.srcRepStride),
        (dst, "dst", params.dstBlkStride, params.dstRepStride),
    ):
        # (the b64 pairs: the b32 side's predicate takes up to 64 of the count per repeat, decisions/cast.md#memory-cast-repeat)
        if counting:
            per = 64 if b64 else lanes
            width = 64 if b64 and t.dtype.itemsize == 4 else lanes
            last = (mask_count - 1) // per  # the last repeat that selects anything
            touched = [(last - 1, width - 1)] if last >= 1 else []
            touched += [(last, min(width, mask_count - last * per) - 1)] if mask_count else []
            what, value = "mask", mask_count
        else:
            high, low = bits if bits is not None else vector_mask() if not is_set_mask else (0, (1 << mask_count) - 1)
            word = (high << 64 | low) & ((1 << lanes) - 1)
            touched = [(repeats - 1, word.bit_length() - 1)] if repeats and word else []
            what, value = "repeat_time", repeats
        for r, k in touched:
            _extent_check(t, name, r, k // 2 if t.dtype in FOUR_BIT else k, blk, rep, what, value)
    ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
    scale = deq_value(api)
    if counting:
        if b64:
            run_lowering(api, cast_b64_counter_vf, *ptrs, mask_count, params, mode)
        else:
            run_lowering(api, cast_counter_vf, *ptrs, mask_count, params, mode, scale)
        return
    if bits is not None:  # SetVectorMask<wider type, or uint32_t for the b64 pairs>(mask[1], mask[0])
        set_vector_mask(*bits)
    spr = bit_mode or not is_set_mask
    if b64:
        run_lowering(api, cast_b64_repeat_vf, *ptrs, mask_count, repeats, params, mode, spr)
    else:
        run_lowering(api, cast_repeat_vf, *ptrs, mask_count, repeats, params, mode, spr, scale)


def explore(dtype: type[dt.DType], kw: dict[str, Any]) -> FreshCall:
    """`regsim lower "Cast(float32, dst=half, round_mode=CAST_RINT, count=300)"`: the call on fresh tensors of
    random data (src of `dtype`; `mask=`, `repeat_time=` and optional `repeat_params=(...)` for the
    mask/repeat interfaces)."""
    D = dtype_named("dst", kw.pop("dst", None))
    mode = member("round_mode", RoundMode, kw.pop("round_mode", "CAST_NONE"))
    lanes = VL // max(dtype.itemsize, D.itemsize)
    if set(kw) == {"count"}:
        rest: tuple[Any, ...] = (kw["count"],)
        n = int(kw["count"])
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
        params = UnaryRepeatParams(*kw.get("repeat_params", ()))
        rest = (mask_arg(kw["mask"]), kw["repeat_time"], params)
        per_block = ONE_BLOCK_SIZE // min(dtype.itemsize, D.itemsize)
        n = (
            max(params.dstRepStride, params.srcRepStride) * max(int(kw["repeat_time"]), 1)
            + 8 * max(params.dstBlkStride, params.srcBlkStride, 1)
        ) * per_block
    else:
        raise arguments(kw, "dst=T, [round_mode=M,] count=N, or mask=M, repeat_time=R [, repeat_params]")
    n = -(-max(n, 1) // lanes) * lanes
    ub = UnifiedBuffer(n * (dtype.itemsize + D.itemsize) + 2 * VL)
    dst_t, src_t = ub.alloc(D, n), ub.alloc(dtype, n)
    rng = np.random.default_rng(0)
    for t in (dst_t, src_t):
        ub.storage.write(t.addr, rng.integers(0, 256, t.nbytes, dtype=np.uint8))
    return (dst_t, src_t, mode, *rest), {}
