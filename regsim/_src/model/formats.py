"""Number formats and their conversions, bit-exact: one module for every codec regsim needs.

ml_dtypes supplies bfloat16, float8_e4m3fn, float8_e5m2, float8_e8m0fnu and float4_e2m1fn; regsim's
own codecs cover what no library has: HiFloat8 (the Cast page's float/half → hifloat8 rules and
its encoding), fp4 e1m2, and the int4x2 / fp4x2 nibble packing (low nibble first).

Every function is pure numpy on whole arrays with any leading axes. Values travel as float64:
every element value of the 16- and 32-bit floats and of the 8/4-bit formats is exact in float64,
and an int64 is brought to float64 with a sticky bit (`int64_to_float64_odd`) so that one more
rounding to at most 24 bits is still correct (round-to-odd at 53 >= 24 + 2 bits).
"""

from __future__ import annotations

from typing import Any, Final

import attrs
import numpy as np

from regsim._src.model.enums import RoundMode
from regsim._src.model.lazy import ml_dtypes

Array = Any  # numpy arrays (typed loosely: ml_dtypes scalars and arrays mix)


# --- rounding to integers and to binary formats ---------------------------------------------------
def round_integral(x: Array, mode: RoundMode) -> Array:
    """float64 `x` rounded to an integral float64 by `mode` (RINT: ties to even; ROUND: ties away
    from zero; FLOOR; CEIL; TRUNC; ODD: toward zero, then odd when inexact)."""
    with np.errstate(invalid="ignore"):
        if mode is RoundMode.CAST_RINT:
            return np.rint(x)
        if mode is RoundMode.CAST_ROUND:
            return np.copysign(np.floor(np.abs(x) + 0.5), x)
        if mode is RoundMode.CAST_FLOOR:
            return np.floor(x)
        if mode is RoundMode.CAST_CEIL:
            return np.ceil(x)
        t = np.trunc(x)
        if mode is RoundMode.CAST_TRUNC:
            return t
        assert mode is RoundMode.CAST_ODD, mode
        inexact = t != x
        even = np.fmod(t, 2) == 0
        return np.where(inexact & even, t + np.copysign(1.0, x), t)


@attrs.frozen
class BinaryFormat:
    """A binary float format: `p` significand bits (with the leading one), the least normal
    exponent `emin`, the largest finite magnitude, and whether it encodes inf."""

    name: str
    p: int
    emin: int
    max: float
    has_inf: bool


HALF: Final = BinaryFormat("half", 11, -14, 65504.0, True)
BF16: Final = BinaryFormat("bfloat16", 8, -126, float(np.ldexp(255.0, 120)), True)  # (2 - 2**-7) * 2**127
F32: Final = BinaryFormat("float32", 24, -126, float(np.finfo(np.float32).max), True)
E4M3: Final = BinaryFormat("fp8_e4m3fn", 4, -6, 448.0, False)
E5M2: Final = BinaryFormat("fp8_e5m2", 3, -14, 57344.0, True)
E2M1: Final = BinaryFormat("fp4_e2m1", 2, 0, 6.0, False)
E1M2: Final = BinaryFormat("fp4_e1m2", 3, 0, 1.75, False)


def round_to_format(x: Array, fmt: BinaryFormat, mode: RoundMode) -> Array:
    """Finite float64 `x` rounded to `fmt`'s precision (exponent range unbounded above, gradual
    underflow below): the quantum of x's binade is 2**(max(E, emin) - p + 1), and the count of
    quanta is rounded by `round_integral`. Values past `fmt.max` are the caller's (overflow)."""
    a = np.abs(x)
    _, e = np.frexp(a)
    q = np.maximum(e - 1, fmt.emin) - (fmt.p - 1)
    n = np.ldexp(x, -q)
    return np.ldexp(round_integral(n, mode), q)


def overflows_to_inf(x: Array, mode: RoundMode) -> Array:
    """Whether an overflowing `x` rounds to infinity under `mode` (IEEE 754: nearest modes do;
    directed modes only away from zero in their direction; toward zero and odd stay at max)."""
    if mode in (RoundMode.CAST_RINT, RoundMode.CAST_ROUND):
        return np.ones(x.shape, np.bool_)
    if mode is RoundMode.CAST_CEIL:
        return x > 0
    if mode is RoundMode.CAST_FLOOR:
        return x < 0
    return np.zeros(x.shape, np.bool_)


def int64_to_float64_odd(v: Array) -> Array:
    """int64 → float64 rounded to odd at 53 bits (exact below 2**53): a later rounding to at
    most 51 bits is then the correct rounding of the integer."""
    u = v.astype(np.int64).view(np.uint64)
    neg = v < 0
    mag = np.where(neg, ~u + np.uint64(1), u)  # |int64 min| = 2**63 as uint64
    bl = np.zeros(mag.shape, np.int64)
    m = mag.copy()
    for s in (32, 16, 8, 4, 2, 1):
        big = m >= (np.uint64(1) << np.uint64(s))
        bl += np.where(big, s, 0)
        m = np.where(big, m >> np.uint64(s), m)
    bl += (m > 0).astype(np.int64)  # the bit length
    shift = np.maximum(bl - 53, 0).astype(np.uint64)
    kept = mag >> shift
    sticky = (mag & ((np.uint64(1) << shift) - np.uint64(1))) != 0
    out = np.ldexp((kept | sticky.astype(np.uint64)).astype(np.float64), shift.astype(np.int64))
    return np.where(neg, -out, out)


# --- fp4 (e2m1 with ml_dtypes, e1m2 regsim's own) and 4-bit packing ---------------------------------
def fp4_decode(nibbles: Array, fmt: BinaryFormat) -> Array:
    """4-bit codes (0..15, sign in bit 3) → float64 values."""
    codes = nibbles.astype(np.uint8) & 0xF
    if fmt is E2M1:
        return codes.view(ml_dtypes.float4_e2m1fn).astype(np.float64)
    mag = (codes & 7).astype(np.float64) * 0.25  # e1m2: 0, .25, .5, .75 | 1, 1.25, 1.5, 1.75 — evenly spaced
    return np.where(codes & 8, -mag, mag)


def fp4_encode(v: Array, fmt: BinaryFormat) -> Array:
    """Representable float64 values (signed zeros kept) → 4-bit codes."""
    sign = np.signbit(v).astype(np.uint8) << 3
    if fmt is E2M1:
        mag = np.abs(v).astype(ml_dtypes.float4_e2m1fn).view(np.uint8) & 7
    else:
        mag = (np.abs(v) * 4).astype(np.uint8)
    return sign | mag


def unpack_nibbles(raw: Array) -> Array:
    """Bytes → nibbles, low nibble first: element 2k of a byte array is byte k's bits 3..0."""
    out = np.empty((*raw.shape[:-1], raw.shape[-1] * 2), np.uint8)
    out[..., 0::2] = raw & 0xF
    out[..., 1::2] = raw >> 4
    return out


def pack_nibbles(nibbles: Array) -> Array:
    """Nibbles → bytes, element 2k in the low nibble of byte k."""
    n = nibbles.astype(np.uint8) & 0xF
    return (n[..., 0::2] | (n[..., 1::2] << 4)).astype(np.uint8)


def int4_decode(nibbles: Array) -> Array:
    """Two's-complement 4-bit codes → int values (-8..7) as int16."""
    n = (nibbles.astype(np.int16) & 0xF) ^ 8
    return n - 8


# --- HiFloat8 -------------------------------------------------------------------------------------
HIF8_NAN: Final = 0x80
HIF8_INF: Final = 0x6F
HIF8_MAX: Final = 0x6E  # 2**15


def hif8_code(sign: Array, ev: Array, m: Array) -> Array:
    """Encode {sign, exponent Ev, mantissa M} (Ev in [-22, 15], M of the field width of Ev's dot
    range; Ev in [-22, -16] is denormal, its value 2**Ev) by the HiFloat8 encoding: sign, a dot
    field (0000 denormal, 0001 Ev = 0, 001 |Ev| = 1, 01 |Ev| in 2..3, 10 in 4..7, 11 in 8..15),
    the exponent's sign bit and its magnitude less the implicit leading one, then the mantissa."""
    s = sign.astype(np.int64) << 7
    ev = ev.astype(np.int64)
    m = m.astype(np.int64)
    a = np.abs(ev)
    es = (ev < 0).astype(np.int64) << 4
    code = np.select(
        [ev <= -16, a == 0, a == 1, a <= 3, a <= 7],
        [
            ev + 23,
            0b0001000 | m,
            0b0010000 | (es >> 1) | m,
            0b0100000 | es | ((a - 2) << 3) | m,
            0b1000000 | es | ((a - 4) << 2) | m,
        ],
        0b1100000 | es | ((a - 8) << 1) | m,
    )
    return (s | code).astype(np.uint8)


def _hif8_table() -> Array:
    """The value of each of the 256 HiFloat8 codes (float64; 0x80 NaN, 0x6F/0xEF ±inf)."""
    table = np.full(256, np.nan)
    fields = [
        (sign, ev, m, bits)
        for sign in (0, 1)
        for ev in range(-22, 16)
        for bits in [3 if abs(ev) <= 3 else 2 if abs(ev) <= 7 else 1 if ev >= -15 else 0]
        for m in range(1 << bits)
    ]
    sign, ev, m, bits = (np.array(f) for f in zip(*fields, strict=True))
    value = 2.0**ev * (1 + m / (1 << bits))
    table[hif8_code(sign, ev, m)] = np.where(sign == 1, -value, value)
    table[0], table[0x80] = 0.0, np.nan  # (±0: the code of sign 0 and 0x80, which is NaN)
    table[HIF8_INF], table[HIF8_INF | 0x80] = np.inf, -np.inf
    return table


HIF8_VALUES: Final = _hif8_table()


def hif8_decode(codes: Array) -> Array:
    return HIF8_VALUES[codes.astype(np.uint8)]


def hif8_encode(bits32: Array, hybrid: bool, saturate: bool, thr: Array, k: int) -> Array:
    """The Cast page's "float转hifloat8_t" / "half转hifloat8_t" rules on float32 bit patterns.

    `k` is the width of the rounding fraction (14 for float, 2 for half) and `thr` the hybrid
    threshold per element (float: the low 14 fraction bits; half: {half bit 0, 1}). CAST_ROUND
    rounds half away from zero; CAST_HYBRID rounds up when the k bits from the first dropped
    bit are >= thr (|Ev| <= 3 always rounds half away). Saturation turns ±inf into ±max and
    NaN into 0.
    """
    b = bits32.astype(np.uint32).astype(np.int64)
    sign = (b >> 31) & 1
    ev = ((b >> 23) & 0xFF) - 127
    f = b & 0x7FFFFF
    sig = f | (1 << 23)
    nan = (ev == 128) & (f != 0)
    inf = ((ev == 128) & (f == 0)) | (ev > 15)
    zero = ev < -23
    a = np.abs(ev)
    # mantissa bits kept: 3 for |Ev| <= 3, 2 for 4..7, 1 for 8..15, 0 denormal, -1 at Ev = -23
    mbits = np.select([ev == -23, ev <= -16, a <= 3, a <= 7], [-1, 0, 3, 2], 1)
    mbits_c = np.clip(mbits, 0, 3)
    kept = sig >> (23 - mbits_c)
    kept = np.where(mbits < 0, 0, kept)
    ta = (sig >> (22 - mbits)) & 1
    frac = (sig >> (23 - mbits - k)) & ((1 << k) - 1)
    if hybrid:
        up = np.where(a <= 3, ta == 1, frac >= thr)
    else:
        up = ta == 1
    kept = kept + up
    # kept = 1.M as an integer of (1 + mbits) bits; a carry moves to the next binade with M = 0
    carry = np.where(mbits < 0, kept >= 1, (kept >> mbits_c) >= 2)
    ev2 = np.where(carry, ev + 1, ev)
    m = np.where(carry | (ev2 <= -16), 0, kept - (1 << mbits_c))
    under = (mbits < 0) & (kept == 0)
    inf2 = inf | (ev2 > 15)
    code = hif8_code(sign, np.clip(ev2, -22, 15), m).astype(np.int64)
    code = np.where(zero | under, 0, code)
    if saturate:
        code = np.where(inf2 | ((code & 0x7F) == HIF8_INF), (sign << 7) | HIF8_MAX, code)
        code = np.where(nan, 0, code)
    else:
        code = np.where(inf2, (sign << 7) | HIF8_INF, code)
        code = np.where(nan, HIF8_NAN, code)
    return code.astype(np.uint8)
