"""Type conversion: `Cast` (the Cast page's pairs, CastTrait values and saturation scenarios).

The pair table below is the Cast page's tables 6-9 (per pair: the RegLayout, SatMode and
RoundMode values it accepts); `convert` is the lane semantics on whole value arrays; the
`Convert` executor places narrow elements in wide lanes by RegLayout, reads the mask in the
source's layout and zeroes every destination element no active source element fills.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeVar

import attrs
import numpy as np

from regsim._src.engine.executors import Convert, ElementwiseTemplated
from regsim._src.engine.spec import (
    DOC,
    NO_DEFAULT,
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
    pred,
    reg,
    register,
)
from regsim._src.model import core as ctrl_bits
from regsim._src.model import dtypes as dt
from regsim._src.model import formats as F
from regsim._src.model.enums import CastTrait, MaskMergeMode, RegLayout, RoundMode, SatMode, _Struct
from regsim._src.model.registers import MaskReg, RegTensor

Array = Any
R = RoundMode
L = RegLayout


# --- saturation: the one place the CTRL register is read ---------------------------------------------
def cast_saturation(pair: Pair, sat_mode: SatMode, dst: type[dt.DType], ctrl: int) -> tuple[bool, bool]:
    """(saturating, NaN kept when saturating) of one Cast, from the trait and the CTRL value the VF
    started with (the Cast page's table 5 and the SetCtrlSpr page's CTRL table):

    - a pair without a satMode (its table row says UNKNOWN) converts as the Cast page fixes it:
      integer destinations saturate (int16 → uint32: "只支持饱和模式"; integer → float: "默认饱和模式"
      cannot overflow), float destinations keep inf and NaN;
    - CTRL[60] = 0: the trait's satMode decides ("单指令");
    - CTRL[60] = 1 ("全局", the reset value): CTRL[59] for float → integer and integer → integer
      (0: saturating), CTRL[48] for float → float (0: saturating); the trait's satMode is not read;
    - CTRL[50] = 1: a saturating conversion to fp8_e5m2 / fp8_e4m3fn keeps NaN (0: NaN → 0).
    """
    keep_nan = ctrl_bits.fp8_nan_kept(ctrl)
    if not pair.sats:
        return is_int(dst), keep_nan
    if not ctrl_bits.global_saturation(ctrl):
        return sat_mode is SatMode.SAT, keep_nan
    if is_int(dst):
        return ctrl_bits.int_conversion_saturates(ctrl), keep_nan
    return ctrl_bits.float_conversion_saturates(ctrl), keep_nan


def saturating(trait_sat: SatMode) -> bool:
    """The trait's own reading of satMode (what a Cast does under CTRL[60] = 0); Cast itself reads
    `cast_saturation`."""
    return trait_sat is SatMode.SAT


# --- the pair table (Cast page, tables 6-9) ----------------------------------------------------------
ROUNDS: Final = (R.CAST_RINT, R.CAST_ROUND, R.CAST_FLOOR, R.CAST_CEIL, R.CAST_TRUNC)
L2: Final = (L.ZERO, L.ONE)
L4: Final = (L.ZERO, L.ONE, L.TWO, L.THREE)
SAT: Final = (SatMode.NO_SAT, SatMode.SAT)


@attrs.frozen
class Pair:
    """The CastTrait values a (src, dst) pair accepts; empty: the field is not read (any value)."""

    layouts: tuple[RegLayout, ...]
    sats: tuple[SatMode, ...]
    rounds: tuple[RoundMode, ...]
    #: CAST_NONE means CAST_RINT for this pair (the 950 implementation maps it)
    none_is_rint: bool = False


d = dt
PAIRS: Final[dict[tuple[type[dt.DType], type[dt.DType]], Pair]] = {
    # table 6: float to integer
    (d.half, d.int4x2): Pair(L4, SAT, ROUNDS, True),
    (d.half, d.int8): Pair(L2, SAT, ROUNDS, True),
    (d.half, d.uint8): Pair(L2, SAT, ROUNDS, True),
    (d.half, d.int16): Pair((), SAT, ROUNDS),
    (d.half, d.int32): Pair(L2, (), ROUNDS),
    (d.bfloat16, d.int32): Pair(L2, SAT, ROUNDS),
    (d.float32, d.int16): Pair(L2, SAT, ROUNDS),
    (d.float32, d.int32): Pair((), SAT, ROUNDS),
    (d.float32, d.int64): Pair(L2, SAT, ROUNDS),
    # table 7: float to float
    (d.hifloat8, d.half): Pair(L2, (), ()),
    (d.hifloat8, d.float32): Pair(L4, (), ()),
    (d.fp8_e4m3fn, d.float32): Pair(L4, (), ()),
    (d.fp8_e5m2, d.float32): Pair(L4, (), ()),
    (d.fp8_e8m0, d.bfloat16): Pair(L2, (), ()),
    (d.fp4x2_e2m1, d.bfloat16): Pair(L4, (), ()),
    (d.fp4x2_e1m2, d.bfloat16): Pair(L4, (), ()),
    (d.half, d.hifloat8): Pair(L2, SAT, (R.CAST_ROUND, R.CAST_HYBRID)),
    (d.half, d.bfloat16): Pair((), (), ROUNDS),
    (d.bfloat16, d.half): Pair((), SAT, ROUNDS),
    (d.bfloat16, d.fp4x2_e2m1): Pair(L4, (), ROUNDS),
    (d.bfloat16, d.fp4x2_e1m2): Pair(L4, (), ROUNDS),
    (d.bfloat16, d.fp8_e8m0): Pair(L2, (), ()),
    (d.bfloat16, d.float32): Pair(L2, (), ()),
    (d.half, d.float32): Pair(L2, (), ()),
    (d.float32, d.hifloat8): Pair(L4, SAT, (R.CAST_ROUND, R.CAST_HYBRID)),
    (d.float32, d.fp8_e4m3fn): Pair(L4, SAT, (R.CAST_RINT,)),
    (d.float32, d.fp8_e5m2): Pair(L4, SAT, (R.CAST_RINT,)),
    (d.float32, d.half): Pair(L2, SAT, (R.CAST_ODD, *ROUNDS), True),
    (d.float32, d.bfloat16): Pair(L2, SAT, ROUNDS),
    # table 8: integer to float
    (d.int4x2, d.half): Pair(L4, (), ()),
    (d.int4x2, d.bfloat16): Pair(L4, (), ()),
    (d.int8, d.half): Pair(L2, (), ()),
    (d.uint8, d.half): Pair(L2, (), ()),
    (d.int16, d.half): Pair((), (), ROUNDS, True),
    (d.int16, d.float32): Pair(L2, (), ()),
    (d.int32, d.float32): Pair((), (), ROUNDS, True),
    (d.int64, d.float32): Pair(L2, (), ROUNDS),
    # table 9: integer to integer
    (d.int4x2, d.int16): Pair(L4, (), ()),
    (d.int8, d.int16): Pair(L2, (), ()),
    (d.int8, d.int32): Pair(L4, (), ()),
    (d.uint8, d.uint16): Pair(L2, (), ()),
    (d.uint8, d.uint32): Pair(L4, (), ()),
    (d.int16, d.int4x2): Pair(L4, SAT, ()),
    (d.int16, d.uint8): Pair(L2, SAT, ()),
    (d.int16, d.int32): Pair(L2, (), ()),
    (d.int16, d.uint32): Pair(L2, (), ()),
    (d.uint16, d.uint8): Pair(L2, SAT, ()),
    (d.uint16, d.uint32): Pair(L2, (), ()),
    (d.int32, d.uint8): Pair(L4, SAT, ()),
    (d.int32, d.int16): Pair(L2, SAT, ()),
    (d.int32, d.uint16): Pair(L2, SAT, ()),
    (d.int32, d.int64): Pair(L2, (), ()),
    (d.uint32, d.uint8): Pair(L4, SAT, ()),
    (d.uint32, d.int16): Pair(L2, SAT, ()),
    (d.uint32, d.uint16): Pair(L2, SAT, ()),
    (d.int64, d.int32): Pair(L2, SAT, ()),
}
SOURCES: Final = frozenset(s for s, _ in PAIRS)
DESTINATIONS: Final = frozenset(t for _, t in PAIRS)

# --- lane semantics ------------------------------------------------------------------------------------
FLOAT_FORMATS: Final[dict[type[dt.DType], F.BinaryFormat]] = {
    d.half: F.HALF,
    d.bfloat16: F.BF16,
    d.float32: F.F32,
    d.fp8_e4m3fn: F.E4M3,
    d.fp8_e5m2: F.E5M2,
    d.fp4x2_e2m1: F.E2M1,
    d.fp4x2_e1m2: F.E1M2,
}
FOUR_BIT: Final = frozenset({d.int4x2, d.fp4x2_e2m1, d.fp4x2_e1m2})


def is_int(t: type[dt.DType]) -> bool:
    return issubclass(t, dt.Integer)


def values_of(x: Array, src: type[dt.DType]) -> Array:
    """Source elements (4-bit types: one nibble each) as exact float64 (int64: rounded to odd)."""
    if src is d.int4x2:
        return F.int4_decode(x).astype(np.float64)
    if src in (d.fp4x2_e2m1, d.fp4x2_e1m2):
        return F.fp4_decode(x, FLOAT_FORMATS[src])
    if src is d.hifloat8:
        return F.hif8_decode(x)
    if src is d.int64:
        return F.int64_to_float64_odd(x)
    with np.errstate(invalid="ignore"):  # ml_dtypes' NaN widens to NaN, but numpy warns of the cast
        return x.astype(np.float64)


def to_integer(v: Array, dst: type[dt.DType], mode: RoundMode, sat: bool) -> Array:
    """Float to integer (Cast page, table 4): NaN → 0; ±inf → the type's extremes; a finite
    overflow clamps (saturating) or keeps the low bits of the rounded integer (not saturating)."""
    bits = 4 if dst is d.int4x2 else 8 * dst.itemsize
    signed = dst is d.int4x2 or issubclass(dst, dt.SignedInteger)
    lo, hi = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    r = F.round_integral(np.where(np.isnan(v), 0.0, v), mode)
    finite = np.isfinite(r)
    clamped = np.clip(np.where(finite, r, np.sign(r) * 2.0**64), float(lo), float(hi))
    if sat:
        out = clamped
        return _int_bits(out, dst, bits)
    wrapped = _wrap(np.where(finite, r, 0.0), bits, signed)
    return _int_bits(np.where(finite, wrapped, clamped), dst, bits)


def _wrap(r: Array, bits: int, signed: bool) -> Array:
    """Integral float64 `r` reduced modulo 2**bits into the type's range (each step exact in float64:
    fmod is exact, and a float32's value has at most 24 significant bits)."""
    m = np.fmod(r, 2.0**bits)
    if signed:
        m = np.where(m >= 2.0 ** (bits - 1), m - 2.0**bits, m)
        return np.where(m < -(2.0 ** (bits - 1)), m + 2.0**bits, m)
    return np.where(m < 0, m + 2.0**bits, m)


def _int_bits(r: Array, dst: type[dt.DType], bits: int) -> Array:
    """In-range integral float64 → the destination's integers (int4x2: nibble codes)."""
    if dst is d.int4x2:
        return r.astype(np.int64).astype(np.uint8) & 0xF
    if bits == 64:  # not every int64 is a float64: split into 32-bit halves
        top = r >= 2.0**63  # the clamp's int64 max, 2**63 - 1, is 2**63 as a float64
        r = np.where(top, 0.0, r)
        hi = np.floor(r / 2.0**32)
        lo = r - hi * 2.0**32
        out = (hi.astype(np.int64) << 32) | lo.astype(np.int64)
        return np.where(top, np.int64(2**63 - 1), out).astype(dst.np_dtype)
    return r.astype(np.int64).astype(dst.np_dtype)


def int_to_int(x: Array, dst: type[dt.DType], sat: bool) -> Array:
    """Integer to integer: saturating clamps to the destination's range, else keeps the low bits."""
    if dst is d.int4x2:
        v = x.astype(np.int64)
        return (np.clip(v, -8, 7) if sat else v).astype(np.uint8) & 0xF
    info = np.iinfo(dst.np_dtype)
    if sat:
        v = x.astype(np.int64) if x.dtype != np.uint64 else x
        return np.clip(v, info.min, info.max).astype(dst.np_dtype)
    return x.astype(dst.np_dtype)


def to_float(v: Array, dst: type[dt.DType], mode: RoundMode, sat: bool, keep_nan: bool = False) -> Array:
    """float64 values to a binary float format by `mode` (Cast page, tables 4 and 7).

    Not saturating: NaN stays NaN, ±inf stays ±inf, an overflow is ±inf or ±max as IEEE 754
    rounding directs (fp8_e4m3fn has no inf: NaN). Saturating: NaN → 0 (fp8 keeps NaN when
    `keep_nan`: CTRL[50] = 1), ±inf and overflows → ±max. fp4 has no inf or NaN: inf and
    overflows → ±max, NaN → 0, in every mode.
    """
    fmt = FLOAT_FORMATS[dst]
    nan = np.isnan(v)
    inf = np.isinf(v)
    finite = np.where(nan | inf, 0.0, v)
    r = F.round_to_format(finite, fmt, mode)
    over = np.abs(r) > fmt.max
    big = np.copysign(fmt.max, v)
    out: Array
    if dst in (d.fp4x2_e2m1, d.fp4x2_e1m2):
        out = np.where(over | inf, big, r)
        return F.fp4_encode(np.where(nan, 0.0, out), fmt)
    if sat:
        out = np.where(over | inf, big, r)
        kept = keep_nan and dst in (d.fp8_e4m3fn, d.fp8_e5m2)
        out = np.where(nan, np.nan if kept else 0.0, out)
    else:
        to_inf = F.overflows_to_inf(v, mode)
        out = np.where(over, np.where(to_inf, np.copysign(np.inf, v), big), r)
        out = np.where(inf | nan, v, out)
        if not fmt.has_inf:
            out = np.where(np.isinf(out), np.copysign(np.nan, out), out)
    with np.errstate(over="ignore", invalid="ignore"):
        return out.astype(dst.np_dtype)


def convert(x: Array, src: type[dt.DType], dst: type[dt.DType], mode: RoundMode, sat: bool, keep_nan: bool = False) -> Array:
    """Cast's lane function: source elements (4-bit: nibble codes) → destination elements
    (4-bit and hifloat8: codes as uint8), rounded by `mode` and saturated per `sat` (`keep_nan`:
    a saturating conversion to fp8 keeps NaN, CTRL[50] = 1). Any leading axes."""
    if src is d.bfloat16 and dst is d.fp8_e8m0:
        return bf16_to_e8m0(x)
    if src is d.fp8_e8m0:
        return e8m0_to_bf16(x)
    if is_int(src) and is_int(dst):
        if src is d.int4x2:
            return F.int4_decode(x).astype(dst.np_dtype)
        return int_to_int(x, dst, sat)
    if dst is d.hifloat8:
        return to_hif8(x, src, mode is R.CAST_HYBRID, sat)
    v = values_of(x, src)
    if is_int(dst):
        return to_integer(v, dst, mode, sat)
    if mode is R.UNKNOWN:  # an exact widening: no rounding happens
        mode = R.CAST_RINT
    return to_float(v, dst, mode, sat, keep_nan)


def to_hif8(x: Array, src: type[dt.DType], hybrid: bool, sat: bool) -> Array:
    """float/half → hifloat8 by the Cast page's rules. A half is read as the float32 of the same
    value (a subnormal half is normalised); its hybrid threshold is {half bit 0, 1}."""
    bits32 = x.astype(np.float32).view(np.uint32)
    if src is d.half:
        thr = ((x.view(np.uint16) & 1).astype(np.int64) << 1) | 1
        return F.hif8_encode(bits32, hybrid, sat, thr, 2)
    return F.hif8_encode(bits32, hybrid, sat, (bits32 & 0x3FFF).astype(np.int64), 14)


def bf16_to_e8m0(x: Array) -> Array:
    """bfloat16 → fp8_e8m0: the exponent field (|x| rounded down to a power of two; zeros and
    subnormals → 2**-127); ±inf → the largest 0xFE, NaN → 0xFF (Cast page, float to float)."""
    b = x.view(np.uint16)
    e = ((b >> 7) & 0xFF).astype(np.uint8)
    nan = (e == 0xFF) & ((b & 0x7F) != 0)
    return np.where(nan, np.uint8(0xFF), np.where(e == 0xFF, np.uint8(0xFE), e)).view(d.fp8_e8m0.np_dtype)


def e8m0_to_bf16(x: Array) -> Array:
    """fp8_e8m0 → bfloat16 as the 950 implementation does it: the code shifted into the bf16
    exponent field (code 0 → +0.0), 0xFF → NaN (0x7FC0)."""
    c = x.view(np.uint8).astype(np.uint16)
    out = np.where(c == 0xFF, np.uint16(0x7FC0), c << 7)
    return out.astype(np.uint16).view(d.bfloat16.np_dtype)


# --- spec and face ---------------------------------------------------------------------------------------
def struct_param(name: str, cls: type[_Struct], default: object = NO_DEFAULT) -> Operand:
    return Operand(name, Kind.STRUCT, keyword=True, default=default, struct=cls)


# --- the C API spellings (the data_type_convert pages of the C API) ------------------------------------
#: the C names' type spellings
C_TYPES: Final[dict[str, type[dt.DType]]] = {
    "float": d.float32, "half": d.half, "bfloat16": d.bfloat16, "int64": d.int64, "int32": d.int32, "uint32": d.uint32,
    "int16": d.int16, "uint16": d.uint16, "int8": d.int8, "uint8": d.uint8, "int4x2": d.int4x2, "hif8": d.hifloat8,
    "e4m3": d.fp8_e4m3fn, "e5m2": d.fp8_e5m2, "e2m1x2": d.fp4x2_e2m1, "e1m2x2": d.fp4x2_e1m2,
}  # fmt: skip
#: the rounding suffixes (the 舍入模式与饱和模式 page)
C_ROUNDS: Final = {"rn": R.CAST_RINT, "rna": R.CAST_ROUND, "rd": R.CAST_FLOOR, "ru": R.CAST_CEIL, "rz": R.CAST_TRUNC,
                   "ro": R.CAST_ODD, "rh": R.CAST_HYBRID}  # fmt: skip
_R5 = ("rn", "rna", "rd", "ru", "rz")
#: one row per page: source, destination (their C spellings), the rounding suffixes (none: the pair
#: has no rounding), whether a `_sat` form exists beside the plain one, and the parts (`_v2` ... `_v4`)
C_CASTS: Final[tuple[tuple[str, str, tuple[str, ...], bool, int], ...]] = (
    ("bfloat16", "e1m2x2", _R5, False, 4), ("bfloat16", "e2m1x2", _R5, False, 4), ("bfloat16", "float", (), False, 2),
    ("bfloat16", "half", _R5, True, 1), ("bfloat16", "int32", _R5, True, 2), ("e1m2x2", "bfloat16", (), False, 4),
    ("e2m1x2", "bfloat16", (), False, 4), ("e4m3", "float", (), False, 4), ("e5m2", "float", (), False, 4),
    ("float", "bfloat16", _R5, True, 2), ("float", "e4m3", ("rn",), True, 4), ("float", "e5m2", ("rn",), True, 4),
    ("float", "half", (*_R5, "ro"), True, 2), ("float", "hif8", ("rna", "rh"), True, 4), ("float", "int16", _R5, True, 2),
    ("float", "int32", _R5, True, 1), ("float", "int64", _R5, True, 2), ("half", "bfloat16", _R5, False, 1),
    ("half", "float", (), False, 2), ("half", "hif8", ("rna", "rh"), True, 2), ("half", "int16", _R5, True, 1),
    ("half", "int32", _R5, False, 2), ("half", "int4x2", _R5, True, 4), ("half", "int8", _R5, True, 2),
    ("half", "uint8", _R5, True, 2), ("hif8", "float", (), False, 4), ("hif8", "half", (), False, 2),
    ("int16", "float", (), False, 2), ("int16", "half", _R5, False, 1), ("int16", "int32", (), False, 2),
    ("int16", "uint32", (), False, 2), ("int16", "uint8", (), True, 2), ("int32", "float", _R5, False, 1),
    ("int32", "int16", (), True, 2), ("int32", "int64", (), False, 2), ("int32", "uint16", (), True, 2),
    ("int32", "uint8", (), True, 4), ("int4x2", "bfloat16", (), False, 4), ("int4x2", "half", (), False, 4),
    ("int4x2", "int16", (), False, 4), ("int64", "float", _R5, False, 2), ("int64", "int32", (), True, 2),
    ("int8", "half", (), False, 2), ("int8", "int16", (), False, 2), ("int8", "int32", (), False, 4),
    ("uint16", "uint32", (), False, 2), ("uint16", "uint8", (), True, 2), ("uint32", "int16", (), True, 2),
    ("uint32", "uint16", (), True, 2), ("uint32", "uint8", (), True, 4), ("uint8", "half", (), False, 2),
    ("uint8", "uint16", (), False, 2), ("uint8", "uint32", (), False, 4),
)  # fmt: skip


def _c_casts() -> tuple[CName, ...]:
    """`asc_<src>2<dst>[_<round>][_sat][_v<k>](dst, src, mask)`: Cast with the trait the name spells. The
    rounding suffix is the roundMode; `_sat` SAT, its absence NO_SAT (a pair whose Cast table row reads no
    satMode: UNKNOWN); the part `_v<k>` the RegLayout k - 1 (no suffix: ZERO), which half or quarter of
    the wide lanes the narrow elements occupy ("数据写入索引为偶数的位置" / "奇数"); MERGING is not
    offered ("mask未筛选的元素在输出中置零")."""
    out = []
    for s_name, d_name, rounds, sat, parts in C_CASTS:
        src, dst = C_TYPES[s_name], C_TYPES[d_name]
        pair = PAIRS[(src, dst)]
        assert len(pair.layouts) == (parts if parts > 1 else 0), (s_name, d_name)
        assert {C_ROUNDS[r] for r in rounds} <= set(pair.rounds) and bool(rounds) == bool(pair.rounds), (s_name, d_name)
        for r in rounds or ("",):
            for saturate in (False, True) if sat else (False,):
                for k in range(parts):
                    trait = CastTrait(
                        L(k) if pair.layouts else L.UNKNOWN,
                        (SatMode.SAT if saturate else SatMode.NO_SAT) if pair.sats else SatMode.UNKNOWN,
                        MaskMergeMode.ZEROING,
                        C_ROUNDS[r] if r else R.UNKNOWN,
                    )
                    suffix = (f"_{r}" if r else "") + ("_sat" if saturate else "") + (f"_v{k + 1}" if k else "")
                    name = f"asc_{s_name}2{d_name}{suffix}"
                    types = (("dst_reg", frozenset({dst})), ("src_reg", frozenset({src})))
                    out.append(CName(name, ("dst_reg", "src_reg", "mask"), (("trait", trait),), types=types))
    return tuple(out)


register(
    OpSpec(
        "Cast",
        "",
        "convert",
        (
            reg("dst_reg", Role.OUT, OneOf(DESTINATIONS)),
            reg("src_reg", dtypes=OneOf(SOURCES)),
            pred(),
            struct_param("trait", CastTrait, CastTrait()),
        ),
        Convert(PAIRS, cast_saturation),
        "dst[layout(i)] = mask_src[i] ? convert(src[i], roundMode, satMode) : 0 (all other dst elements 0)",
        DOC + "类型转换/Cast.md",
        Batching.CROSS_LANE,
        lane=convert,
        c_api=_c_casts(),
    )
)

S = TypeVar(
    "S",
    d.int4x2, d.int8, d.uint8, d.fp4x2_e2m1, d.fp4x2_e1m2, d.hifloat8, d.fp8_e8m0, d.fp8_e5m2, d.fp8_e4m3fn,
    d.int16, d.uint16, d.half, d.bfloat16, d.int32, d.uint32, d.float32, d.int64,
)  # fmt: skip
D = TypeVar(
    "D",
    d.int16, d.half, d.bfloat16, d.int32, d.uint16, d.uint32, d.float32, d.int4x2, d.uint8, d.int8, d.hifloat8,
    d.fp4x2_e2m1, d.fp4x2_e1m2, d.fp8_e8m0, d.int64, d.fp8_e5m2, d.fp8_e4m3fn,
)  # fmt: skip


@face("Cast")
def Cast(dst_reg: RegTensor[D], src_reg: RegTensor[S], mask: MaskReg, *, trait: CastTrait = ...) -> None:
    """`Cast<T, U, trait>(dstReg, srcReg, mask)`: T and U are deduced from the registers; the
    trait is a `Reg.CastTrait` whose values the pair accepts (the Cast page's tables 6-9)."""


# --- Truncate (the Truncate page) --------------------------------------------------------------------------
TRUNCATE_ROUNDS: Final = (R.CAST_NONE, *ROUNDS)
#: asc_ceil / asc_floor / asc_rint / asc_round / asc_trunc (their pages): Truncate with the mode the name says
C_TRUNCATES: Final = (
    ("ceil", R.CAST_CEIL), ("floor", R.CAST_FLOOR), ("rint", R.CAST_RINT), ("round", R.CAST_ROUND), ("trunc", R.CAST_TRUNC)
)  # fmt: skip


def truncate(x: Array, round_mode: RoundMode) -> Array:
    """x rounded to an integral value of its own type by `round_mode` (CAST_NONE: CAST_RINT, as the
    950 implementation maps it); NaN, ±inf and signed zeros pass through."""
    mode = R.CAST_RINT if round_mode is R.CAST_NONE else round_mode
    with np.errstate(invalid="ignore"):
        return F.round_integral(x.astype(np.float64), mode).astype(x.dtype)


register(
    OpSpec(
        "Truncate",
        "",
        "convert",
        (
            reg("dst_reg", Role.OUT, OneOf(frozenset({d.half, d.bfloat16, d.float32}))),
            reg("src_reg", dtypes=SameAs("dst_reg")),
            pred(),
            enum_param("round_mode", RoundMode, R.CAST_NONE, TRUNCATE_ROUNDS),
            enum_param("mode", MaskMergeMode, MaskMergeMode.ZEROING, (MaskMergeMode.ZEROING,)),
        ),
        ElementwiseTemplated("round_mode"),
        "dst[i] = mask[i] ? round_to_integral(src[i], round_mode) : 0",
        DOC + "类型转换/Truncate.md",
        Batching.ELEMENTWISE,
        lane=truncate,
        c_api=tuple(CName(f"asc_{c}", ("dst_reg", "src_reg", "mask"), (("round_mode", m),)) for c, m in C_TRUNCATES),
    )
)

TT = TypeVar("TT", d.half, d.bfloat16, d.float32)


@face("Truncate")
def Truncate(
    dst_reg: RegTensor[TT],
    src_reg: RegTensor[TT],
    mask: MaskReg,
    *,
    round_mode: RoundMode = ...,
    mode: Literal[MaskMergeMode.ZEROING] = ...,
) -> None:
    """`Truncate<T, roundMode, mode>(dstReg, srcReg, mask)`: roundMode is `round_mode=`."""
