"""`rs.testing.reference`: independent per-lane oracles of what each Reg op should do.

Written from the public Ascend C API pages (`Add`, `AddC`, `Sub`, `SubC`, `CreateMask`,
`UpdateMask`, `LoadAlign`, `StoreAlign`, `MaskReg`, `RegTensor`) and the decisions of
docs/semantics-decisions.md, never from regsim's code: this module imports nothing of regsim,
so a test comparing regsim with it compares two independent readings of the documentation.

Every oracle works lane by lane on Python ints (bit patterns) or Python floats, with explicit
masking:

- integers wrap modulo 2**bits; a carry is bit 32 of the 33-bit sum of unsigned 32-bit values;
- floats are computed in float64 and rounded once to the element type (for + and - the float64
  result rounded again is the correctly rounded result: 53 >= 2 * 24 + 2);
- a lane of an element of `s` bytes is governed by mask bit `i * s` (`s / 2` for a
  RegTraitNumTwo register: its 64 b64 lanes at bit 4i, its 128 complex32 lanes at bit 2i);
- UB bytes are little-endian, a stored MaskReg puts bit k in byte k // 8, bit k % 8.

`ORACLES` maps each modelled op (its name, and `/mask` or `/carry` for those overloads; the address
forms share their op's oracle) to its oracle; the project's tests check that they agree with the
op registry and that every oracle is used by a test.

`assert_lanes` compares results lane by lane and, on a mismatch, reports the lane, the inputs
and both results in hex.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

import ml_dtypes
import numpy as np

M32 = 0xFFFFFFFF
VL_BYTES = 256

# --- element facts, from the Ascend C data type and RegTensor pages ------------------------------
#: name -> (itemsize in bytes, kind) for every Ascend element type regsim names
ITEMSIZE = {
    "bool_": 1, "int8": 1, "uint8": 1, "int4x2": 1, "hifloat8": 1, "fp8_e4m3fn": 1, "fp8_e5m2": 1,
    "fp8_e8m0": 1, "fp4x2_e2m1": 1, "fp4x2_e1m2": 1,
    "int16": 2, "uint16": 2, "half": 2, "bfloat16": 2,
    "int32": 4, "uint32": 4, "float32": 4, "complex32": 4,
    "int64": 8, "uint64": 8, "complex64": 8,
}  # fmt: skip
TRAIT_TWO = frozenset({"int64", "uint64", "complex64", "complex32"})
SIGNED = frozenset({"int8", "int16", "int32", "int64"})
UNSIGNED = frozenset({"uint8", "uint16", "uint32", "uint64"})
FLOATS = {"half": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}
#: complex type -> its component float type
COMPLEX = {"complex32": np.float16, "complex64": np.float32}


def lanes_of(name: str, trait_two: bool = False) -> int:
    """Elements in one RegTensor: 256 // itemsize, 64 for b64 TraitTwo, 128 for complex32 TraitTwo."""
    return VL_BYTES // bit_stride(name, trait_two)


def bit_stride(name: str, trait_two: bool = False) -> int:
    """Lane i of `name` is governed by mask bit i * bit_stride (the Ascend C `MaskReg` page)."""
    size = ITEMSIZE[name]
    if trait_two:
        assert name in TRAIT_TWO, name
        return size // 2
    return size


# --- lane arithmetic ----------------------------------------------------------------------------
def wrap(value: int, bits: int, signed: bool) -> int:
    """`value` reduced modulo 2**bits, as a two's-complement int if `signed`."""
    value &= (1 << bits) - 1
    if signed and value >> (bits - 1):
        value -= 1 << bits
    return value


def int_add(name: str, a: int, b: int) -> int:
    return wrap(a + b, 8 * ITEMSIZE[name], name in SIGNED)


def int_sub(name: str, a: int, b: int) -> int:
    return wrap(a - b, 8 * ITEMSIZE[name], name in SIGNED)


def _round_to(value: float, np_type: Any) -> Any:
    """float64 `value` rounded once (to nearest, ties to even) to the element type."""
    with np.errstate(all="ignore"):
        return np.array([value], np.float64).astype(np_type)[0]


def float_add(name: str, a: float, b: float) -> Any:
    return _round_to(float(a) + float(b), FLOATS[name])


def float_sub(name: str, a: float, b: float) -> Any:
    return _round_to(float(a) - float(b), FLOATS[name])


def complex_add(name: str, a: complex, b: complex) -> tuple[Any, Any]:
    """(real, imag) components, each added and rounded like the component float type."""
    comp = COMPLEX[name]
    return _round_to(a.real + b.real, comp), _round_to(a.imag + b.imag, comp)


def complex_sub(name: str, a: complex, b: complex) -> tuple[Any, Any]:
    comp = COMPLEX[name]
    return _round_to(a.real - b.real, comp), _round_to(a.imag - b.imag, comp)


def add_carry(a: int, b: int, carry_in: int = 0) -> tuple[int, int]:
    """Add / AddC lane: {carry, dst} = (u32)a + (u32)b + carry_in. Returns (dst as u32, carry)."""
    total = (a & M32) + (b & M32) + carry_in
    return total & M32, total >> 32


def sub_carry(a: int, b: int, carry_in: int = 1) -> tuple[int, int]:
    """Sub / SubC lane: {carry, dst} = {0, a} + {0, ~b} + carry_in (1 for Sub): carry 1 = no borrow."""
    total = (a & M32) + (~b & M32) + carry_in
    return total & M32, total >> 32


# --- whole-op oracles (one per modelled op) ---------------------------------------------------------
def elementwise_oracle(
    lane: Callable[[Any, Any], Any],
    a: Sequence[Any],
    b: Sequence[Any],
    active: Sequence[bool],
    old: Sequence[Any] | None,
    zero: Any,
) -> list[Any]:
    """dst[i] = active[i] ? lane(a[i], b[i]) : (old is None ? zero : old[i])   (ZEROING / MERGING)."""
    return [lane(x, y) if m else (zero if old is None else old[i]) for i, (x, y, m) in enumerate(zip(a, b, active, strict=True))]


def add_oracle(
    name: str, a: Sequence[Any], b: Sequence[Any], active: Sequence[bool], old: Sequence[Any] | None = None
) -> list[Any]:
    """Add (ZEROING, or MERGING when `old` dst lanes are given) on Python values of `name`."""
    return elementwise_oracle(_lane_fn(name, "add"), a, b, active, old, _zero(name))


def sub_oracle(name: str, a: Sequence[Any], b: Sequence[Any], active: Sequence[bool]) -> list[Any]:
    """Sub (ZEROING only)."""
    return elementwise_oracle(_lane_fn(name, "sub"), a, b, active, None, _zero(name))


def _zero(name: str) -> Any:
    if name in COMPLEX:
        return (COMPLEX[name](0), COMPLEX[name](0))
    if name in FLOATS:
        return FLOATS[name](0)
    return 0


def _lane_fn(name: str, op: str) -> Callable[[Any, Any], Any]:
    f: Callable[[str, Any, Any], Any]
    if name in COMPLEX:
        f = complex_add if op == "add" else complex_sub
    elif name in FLOATS:
        f = float_add if op == "add" else float_sub
    else:
        f = int_add if op == "add" else int_sub
    return lambda x, y: f(name, x, y)


def carry_oracle(
    kind: str, a: Sequence[int], b: Sequence[int], active: Sequence[bool], carry_src: Sequence[bool] | None = None
) -> tuple[list[int], list[int]]:
    """Add/carry, Sub/carry, AddC, SubC over 64 lanes: (dst as u32 bit patterns, carry bits).

    Inactive lanes: dst 0 and carry 0.
    """
    dst, carry = [], []
    for i, (x, y, m) in enumerate(zip(a, b, active, strict=True)):
        if not m:
            dst.append(0)
            carry.append(0)
            continue
        if kind == "Add/carry":
            d, c = add_carry(x, y, 0)
        elif kind == "AddC":
            assert carry_src is not None
            d, c = add_carry(x, y, int(carry_src[i]))
        elif kind == "Sub/carry":
            d, c = sub_carry(x, y, 1)
        elif kind == "SubC":
            assert carry_src is not None
            d, c = sub_carry(x, y, int(carry_src[i]))
        else:
            raise AssertionError(kind)
        dst.append(d)
        carry.append(c)
    return dst, carry


def multi_limb_add(a: int, b: int, bits: int) -> tuple[int, int]:
    """(a + b) mod 2**bits and the carry out of the top limb."""
    return (a + b) % (1 << bits), (a + b) >> bits


def multi_limb_sub(a: int, b: int, bits: int) -> tuple[int, int]:
    """(a - b) mod 2**bits and the final Sub/SubC carry: 1 when there was no borrow (a >= b)."""
    return (a - b) % (1 << bits), int(a >= b)


def limbs(value: int, count: int) -> list[int]:
    """The 32-bit limbs of `value`, least significant first."""
    return [(value >> (32 * k)) & M32 for k in range(count)]


def from_limbs(parts: Sequence[int]) -> int:
    return sum((p & M32) << (32 * k) for k, p in enumerate(parts))


#: MaskPattern VLn -> n
VL_N = {"VL1": 1, "VL2": 2, "VL3": 3, "VL4": 4, "VL8": 8, "VL16": 16, "VL32": 32, "VL64": 64, "VL128": 128}
PATTERNS = ("ALL", *VL_N, "M3", "M4", "H", "Q", "ALLF")


def pset_bytes(name: str) -> int:
    """Bytes per lane of the `pset` instruction that builds masks for `name`: pset_b8/b16/b32
    for b8/b16/b32; b64 and complex64 use pset_b32; complex32 (either trait) pset_b16."""
    return 2 if name == "complex32" else min(ITEMSIZE[name], 4)


def pset_lanes(name: str, trait_two: bool = False) -> int:
    """Lanes of that `pset`: the largest VLn a CreateMask for `name` accepts."""
    return VL_BYTES // pset_bytes(name)


def create_mask_oracle(name: str, pattern: str, trait_two: bool = False) -> list[bool] | None:
    """Selected lanes of `CreateMask<name, pattern>`, or None when the pattern is a ParameterError.

    ALL every lane; ALLF none; VLn the lowest min(n, lanes) lanes, n at most the pset width's
    lanes; M3 / M4 indices that are multiples of 3 / 4; H the lowest half; Q the lowest quarter.
    """
    n = lanes_of(name, trait_two)
    if pattern in VL_N:
        k = VL_N[pattern]
        if k > pset_lanes(name, trait_two):
            return None
        return [i < k for i in range(n)]
    rule: dict[str, Callable[[int], bool]] = {
        "ALL": lambda i: True,
        "ALLF": lambda i: False,
        "M3": lambda i: i % 3 == 0,
        "M4": lambda i: i % 4 == 0,
        "H": lambda i: i < n // 2,
        "Q": lambda i: i < n // 4,
    }
    return [rule[pattern](i) for i in range(n)]


def update_mask_oracle(name: str, count: int, trait_two: bool = False) -> tuple[list[bool], int]:
    """UpdateMask: lanes i < min(count, VL_T); count -> count < VL_T ? 0 : count - VL_T."""
    vl = lanes_of(name, trait_two)
    return [i < min(count, vl) for i in range(vl)], (0 if count < vl else count - vl)


def predicate_bits(name: str, active: Sequence[bool], trait_two: bool = False, fill: str = "lsb") -> list[int]:
    """The 256 mask bits a producer writes for `active` lanes: bit i*s only ("lsb") or the bits
    the hardware's `pset` sets ("group"): the whole s-bit group, except where the mask was made at
    a narrower pset width and `punpack`ed (one-register b64 / complex types), which keeps only the
    even bits of the group."""
    s = bit_stride(name, trait_two)
    unpacked = s > pset_bytes(name)
    bits = [0] * VL_BYTES
    for i, on in enumerate(active):
        if on:
            for j in range(s if fill == "group" else 1):
                if not (unpacked and j % 2):
                    bits[i * s + j] = 1
    return bits


def mask_lanes_oracle(name: str, bits: Sequence[int], trait_two: bool = False) -> list[bool]:
    """The lanes a consumer of `name` reads from 256 mask bits: bit i * stride."""
    s = bit_stride(name, trait_two)
    return [bool(bits[i * s]) for i in range(lanes_of(name, trait_two))]


def create_addr_reg_oracle(*index_stride: int) -> int:
    """offset = Σ index_k * stride_k (elements)."""
    return sum(index_stride[k] * index_stride[k + 1] for k in range(0, len(index_stride), 2))


def load_oracle(ub: bytes, addr: int, itemsize: int, count: int) -> list[int]:
    """LoadAlign DIST_NORM: lane i = the little-endian `itemsize` bytes at addr + i*itemsize (bits)."""
    return [int.from_bytes(ub[addr + i * itemsize : addr + (i + 1) * itemsize], "little") for i in range(count)]


def store_oracle(ub: bytes, addr: int, itemsize: int, values: Sequence[int], active: Sequence[bool]) -> bytes:
    """StoreAlign DIST_NORM: the UB after writing bit pattern values[i] at addr + i*itemsize where
    active[i]; every other byte unchanged."""
    out = bytearray(ub)
    for i, (v, m) in enumerate(zip(values, active, strict=True)):
        if m:
            out[addr + i * itemsize : addr + (i + 1) * itemsize] = (v & ((1 << (8 * itemsize)) - 1)).to_bytes(itemsize, "little")
    return bytes(out)


def mask_load_oracle(ub: bytes, addr: int, dist: str) -> list[int]:
    """MaskReg LoadAlign: NORM 32 B (bit k = byte k//8 bit k%8); US 16 B, bit k = source bit
    k//2 (each doubled); DS 64 B, bit k = source bit 2k (even bits kept)."""

    def src_bit(j: int) -> int:
        return (ub[addr + j // 8] >> (j % 8)) & 1

    if dist == "DIST_NORM":
        return [src_bit(k) for k in range(256)]
    if dist == "DIST_US":
        return [src_bit(k // 2) for k in range(256)]
    if dist == "DIST_DS":
        return [src_bit(2 * k) for k in range(256)]
    raise AssertionError(dist)


def mask_store_oracle(ub: bytes, addr: int, bits: Sequence[int], dist: str) -> bytes:
    """MaskReg StoreAlign: NORM writes the 256 bits as 32 B; PACK writes bits 0, 2, 4, … as 16 B."""
    kept = list(bits) if dist == "DIST_NORM" else [bits[2 * k] for k in range(128)]
    out = bytearray(ub)
    for byte in range(len(kept) // 8):
        out[addr + byte] = sum(kept[8 * byte + j] << j for j in range(8))
    return bytes(out)


# --- comparing results --------------------------------------------------------------------------
def bits_of(values: Any, itemsize: int | None = None) -> list[int]:
    """Bit patterns (unsigned ints) of a numpy array's elements, or of Python ints of `itemsize` bytes."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return [int(v) for v in np.ascontiguousarray(values).reshape(-1).view(f"u{values.dtype.itemsize}")]
    assert itemsize is not None, "Python values need an itemsize"
    top = (1 << (8 * itemsize)) - 1
    return [int(v) & top for v in values]


def _is_nan_bits(bits: int, float_type: Any) -> bool:
    size = np.dtype(float_type).itemsize
    value = np.array([bits], f"u{size}").view(float_type)[0]
    return bool(np.isnan(np.float64(value)))


def assert_lanes(
    actual: Any,
    expected: Any,
    *,
    what: str,
    inputs: Mapping[str, Any] | None = None,
    itemsize: int | None = None,
    nan_type: Any = None,
    limit: int = 8,
) -> None:
    """Assert two lane arrays are bit-identical; otherwise fail listing, per mismatching lane,
    its index, the inputs and both results in hex.

    itemsize: bytes per lane when `expected` holds Python ints (default: actual's itemsize).
    nan_type: a float type: lanes where both values are NaNs of it compare equal (any payload);
        for complex results pass the component type and arrays of components.
    """
    size = itemsize or actual.dtype.itemsize
    got, want = bits_of(actual, size), bits_of(expected, size)
    assert len(got) == len(want), f"{what}: {len(got)} lanes, expected {len(want)}"
    width = 2 * size
    bad = []
    for i, (g, w) in enumerate(zip(got, want, strict=True)):
        if g == w:
            continue
        if nan_type is not None and _is_nan_bits(g, nan_type) and _is_nan_bits(w, nan_type):
            continue
        bad.append(i)
    if not bad:
        return
    lines = [f"{what}: {len(bad)} of {len(got)} lanes differ"]
    for i in bad[:limit]:
        ins = ""
        if inputs:
            parts = []
            for name, vals in inputs.items():
                vsize = vals.dtype.itemsize if isinstance(vals, np.ndarray) and vals.dtype != object else size
                parts.append(f"{name}=0x{bits_of(vals, vsize)[i]:0{2 * vsize}x}")
            ins = " " + " ".join(parts)
        lines.append(f"  lane {i}:{ins} -> got 0x{got[i]:0{width}x}, expected 0x{want[i]:0{width}x}")
    raise AssertionError("\n".join(lines))


# --- Cast (the Cast page's tables 4-9, the float/half → hifloat8 rules, the RegLayout page) -----------
def hif8_value(code: int) -> float:
    """A HiFloat8 code's value, from its fields: sign; dot 0000 (denormal 2**(M-23)), 0001 (Ev 0),
    001 (|Ev| 1), 01 (|Ev| 2-3), 10 (4-7), 11 (8-15); the exponent sign (1: negative) and its
    magnitude bits under an implicit leading one; then the mantissa. 0x80 NaN, 0x6F/0xEF ±inf."""
    if code == 0x80:
        return float("nan")
    sign = -1.0 if code & 0x80 else 1.0
    if code & 0x7F == 0x6F:
        return sign * float("inf")
    b = code & 0x7F
    if b >> 3 == 0:
        return 0.0 if b == 0 else sign * 2.0 ** (b - 23)
    if b >> 3 == 1:
        return sign * (1 + (b & 7) / 8)
    if b >> 4 == 1:  # 001 e mmm
        ev = -1 if b & 8 else 1
        return sign * 2.0**ev * (1 + (b & 7) / 8)
    top = b >> 5  # 01 / 10 / 11
    dbits = top + 1  # exponent field width: sign + (D - 1) magnitude bits
    mbits = 7 - 2 - dbits
    exp_field = (b >> mbits) & ((1 << dbits) - 1)
    neg = exp_field >> (dbits - 1)
    mag = (1 << (dbits - 1)) | (exp_field & ((1 << (dbits - 1)) - 1))
    mant = b & ((1 << mbits) - 1)
    return sign * 2.0 ** (-mag if neg else mag) * (1 + mant / (1 << mbits))


def fp4_value(name: str, code: int) -> float:
    """fp4 e2m1 (bias 1: 0, .5, 1, 1.5, 2, 3, 4, 6) or e1m2 (0, .25 ... 1.75) code → value."""
    sign = -1.0 if code & 8 else 1.0
    if name == "fp4x2_e2m1":
        e, m = (code >> 1) & 3, code & 1
        mag = m * 0.5 if e == 0 else 2.0 ** (e - 1) * (1 + m / 2)
    else:
        e, m = (code >> 2) & 1, code & 3
        mag = m * 0.25 if e == 0 else 1 + m / 4
    return sign * mag


_NP = {
    "half": np.float16, "bfloat16": ml_dtypes.bfloat16, "float32": np.float32,
    "fp8_e4m3fn": ml_dtypes.float8_e4m3fn, "fp8_e5m2": ml_dtypes.float8_e5m2,
}  # fmt: skip


def element_value(name: str, code: int) -> float | int:
    """An element's value from its bit pattern (4-bit types: one nibble; ints: signed as the type)."""
    if name in SIGNED or name in UNSIGNED:
        return wrap(code, 8 * ITEMSIZE[name], name in SIGNED)
    if name == "int4x2":
        return wrap(code, 4, True)
    if name == "hifloat8":
        return hif8_value(code)
    if name.startswith("fp4x2"):
        return fp4_value(name, code)
    if name == "fp8_e8m0":
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    size = ITEMSIZE[name]
    return float(np.array([code], f"u{size}").view(_NP[name])[0])


def _finite_codes(name: str) -> list[tuple[float, int]]:
    """(value, code) of every finite non-negative value of a float format, ascending, plus the
    code one past the largest (the value an overflow rounds to), as (max + ulp, max code + 1)."""
    cache = _FINITE.get(name)
    if cache is not None:
        return cache
    n = 16 if name.startswith("fp4x2") else 1 << (8 * ITEMSIZE[name])
    pairs = sorted((v, c) for c in range(n // 2) if math.isfinite(v := float(element_value(name, c))))
    (v1, _), (vmax, cmax) = pairs[-2], pairs[-1]
    pairs.append((vmax + (vmax - v1) if name != "hifloat8" else 1.5 * 2.0**15, cmax + 1))
    _FINITE[name] = pairs
    return pairs


_FINITE: dict[str, list[tuple[float, int]]] = {}
_VALUES: dict[int, list[float]] = {}  # the values of each cached list, by the list's id (the lists live forever)


def round_to_list(x: float, pairs: list[tuple[float, int]], mode: str) -> tuple[float, int]:
    """Neighbour search: the (value, code) of the list `x`'s magnitude rounds to by `mode`
    ("rint" ties to even code, "round" ties away, "floor", "ceil", "trunc", "odd": toward zero,
    odd code when inexact), for the sign of `x`."""
    a = abs(x)
    values = _VALUES.get(id(pairs))
    if values is None:
        values = _VALUES[id(pairs)] = [v for v, _ in pairs]
    i = bisect.bisect_left(values, a)
    if i < len(values) and values[i] == a:
        return pairs[i]
    if i >= len(values):
        return pairs[-1]
    lo, hi = pairs[i - 1], pairs[i]
    neg = x < 0
    if mode == "floor":
        mode = "up" if neg else "down"
    elif mode == "ceil":
        mode = "down" if neg else "up"
    if mode in ("trunc", "down"):
        return lo
    if mode == "up":
        return hi
    if mode == "odd":
        return lo if lo[1] % 2 else hi
    mid = (lo[0] + hi[0]) / 2
    if a != mid:
        return lo if a < mid else hi
    if mode == "round":
        return hi
    return lo if lo[1] % 2 == 0 else hi


ROUND_NAMES = {1: "rint", 2: "floor", 3: "ceil", 4: "round", 5: "trunc", 6: "odd", 7: "hybrid"}


def _hif8_hybrid(x_bits: int, src: str, x: float) -> int:
    """The Cast page's hybrid rule, on integers: for |Ev| >= 4 and denormals round up when the
    k bits from the first dropped bit are >= thr (float: k = 14, thr = the low 14 fraction bits;
    half: k = 2, thr = {bit 0, 1}); elsewhere half away from zero. Returns the code before overflow."""
    a = abs(x)
    m, e = math.frexp(a)
    ev = e - 1
    sig = int(m * 2**24)  # 1.f as 24 bits
    if src == "half":
        k, thr = 2, ((x_bits & 1) << 1) | 1
    else:
        k, thr = 14, x_bits & 0x3FFF
    if ev < -23:
        return 0
    mbits = -1 if ev == -23 else 0 if ev <= -16 else 3 if abs(ev) <= 3 else 2 if abs(ev) <= 7 else 1
    keep = sig >> (23 - mbits) if mbits >= 0 else 0
    shift = 23 - mbits - k
    frac = (sig >> shift) & ((1 << k) - 1) if shift >= 0 else (sig << -shift) & ((1 << k) - 1)
    ta = (sig >> (22 - mbits)) & 1
    up = ta == 1 if abs(ev) <= 3 else frac >= thr
    value = (keep + up) * 2.0 ** (ev - mbits)
    if value == 0:
        return 0
    pairs = _finite_codes("hifloat8")
    for v, c in pairs:
        if v == value:
            return c | (0x80 if x < 0 else 0)
    return 0x6F | (0x80 if x < 0 else 0)  # past 2**15: inf


def _round_int(x: float, mode: str) -> int:
    """A finite element value rounded to an integer by `mode` (Python floats: every half, bfloat16
    and float32 value, and that value plus 1/2, is exact in float64)."""
    if mode == "floor":
        return math.floor(x)
    if mode == "ceil":
        return math.ceil(x)
    if mode == "trunc":
        return math.trunc(x)
    if mode == "round":  # half away from zero
        return int(math.copysign(math.floor(abs(x) + 0.5), x))
    return round(x)  # ties to even


def cast_value(src: str, dst: str, code: int, round_mode: int, sat: bool) -> int:
    """One element of Cast from `src` to `dst` (codes; 4-bit types one nibble), by the Cast
    page: round_mode (RoundMode value, 0xFF: none), sat (the pair's saturation: the trait's
    SatMode where the pair has one; integer destinations saturate, float ones do not, otherwise)."""
    x = element_value(src, code)
    mode = ROUND_NAMES.get(round_mode, "rint")
    if dst in SIGNED or dst in UNSIGNED or dst == "int4x2":
        bits = 4 if dst == "int4x2" else 8 * ITEMSIZE[dst]
        signed = (dst != "int4x2" and dst in SIGNED) or dst == "int4x2"
        lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
        if isinstance(x, int):
            r = x
        elif math.isnan(x):
            return 0
        elif math.isinf(x):
            return (hi if x > 0 else lo) & ((1 << bits) - 1)
        else:
            r = _round_int(x, mode)
        if sat:
            r = min(max(r, lo), hi)
        return r & ((1 << bits) - 1)
    # float destinations
    if dst == "fp8_e8m0":
        if isinstance(x, float) and math.isnan(x):
            return 0xFF
        if isinstance(x, float) and math.isinf(x):
            return 0xFE
        a = abs(x)
        return 0 if a < 2.0**-126 else min(math.frexp(a)[1] - 1 + 127, 0xFE)
    if src == "fp8_e8m0":
        bits = 0x7FC0 if code == 0xFF else code << 7
        return bits
    if dst.startswith("fp4x2"):
        sign = 8 if (math.copysign(1.0, x) < 0 and not math.isnan(x)) else 0
        if math.isnan(x):
            return 0
        pairs = _finite_codes(dst)
        _, c = pairs[-2] if math.isinf(x) else round_to_list(x, pairs, mode)
        return sign | min(c, pairs[-2][1])
    size = ITEMSIZE[dst]
    sign_bit = 1 << (8 * size - 1)
    if dst == "hifloat8":
        if math.isnan(x):
            return 0 if sat else 0x80
        neg = x < 0
        if math.isinf(x):
            c = 0x6F
        elif mode == "hybrid":
            bits = int(
                np.array([x], np.float16 if src == "half" else np.float32).view(np.uint16 if src == "half" else np.uint32)[0]
            )
            c = _hif8_hybrid(bits, src, x) & 0x7F
        else:
            c = round_to_list(x, _finite_codes("hifloat8"), "round")[1] if abs(x) >= 2.0**-23 else 0
        if c == 0:
            return 0
        if c == 0x6F:
            c = 0x6E if sat else 0x6F
        return c | (0x80 if neg else 0)
    neg = math.copysign(1.0, x) < 0
    if dst == "float32" and not (isinstance(x, float) and not math.isfinite(x)):
        return _to_float32(Fraction(x), mode) | (0x80000000 if neg else 0)
    if dst == "float32":  # ±inf or NaN: kept (float32 destinations only convert without saturation)
        return int(np.array([x], np.float32).view(np.uint32)[0])
    pairs = _finite_codes(dst)
    max_code = pairs[-2][1]
    nan_code = int(np.array([np.nan], np.float64).astype(_NP[dst]).view(f"u{size}")[0])
    inf_code = None if dst == "fp8_e4m3fn" else int(np.array([np.inf], np.float64).astype(_NP[dst]).view(f"u{size}")[0])
    if math.isnan(x):
        return 0 if sat else nan_code
    if math.isinf(x):
        c = max_code if sat else (inf_code if inf_code is not None else nan_code & ~sign_bit)
        return c | (sign_bit if neg else 0)
    _, c = round_to_list(x, pairs, mode)
    if c > max_code:  # overflow: ±inf when the mode rounds away from zero, else ±max
        away = mode in ("rint", "round") or (mode == "ceil" and not neg) or (mode == "floor" and neg)
        if sat or not away:
            c = max_code
        else:
            c = inf_code if inf_code is not None else nan_code & ~sign_bit
    return c | (sign_bit if neg else 0)


def _to_float32(f: Fraction, mode: str) -> int:
    """A finite value rounded to float32 by `mode`: its two float32 neighbours found by search,
    the choice made with exact rationals (ties: even code for "rint", away for "round")."""

    def code(v: Any) -> int:
        return int(np.array([v], np.float32).view(np.uint32)[0])

    a = abs(f)
    sign = 0x80000000 if f < 0 else 0
    near = np.float32(float(a))
    lo = near if Fraction(float(near)) <= a else np.nextafter(near, np.float32(0))
    if Fraction(float(lo)) == a:
        return code(lo) | sign
    hi = np.nextafter(lo, np.float32(np.inf))
    up = {"floor": f < 0, "ceil": f > 0, "trunc": False, "odd": code(lo) % 2 == 0}.get(mode)
    if up is None:
        mid = (Fraction(float(lo)) + Fraction(float(hi))) / 2
        up = a > mid or (a == mid and (mode == "round" or code(lo) % 2 == 1))
    return code(hi if up else lo) | sign


def cast_oracle(
    src: str, dst: str, src_codes: Sequence[int], active: Sequence[bool], layout: int, round_mode: int, sat: bool
) -> list[int]:
    """Whole-register Cast (the RegLayout page's pseudo-code): src_codes are the source's lanes
    (4-bit sources: all 512 nibbles), active its mask lanes (4-bit: one per byte); returns the
    destination's elements (4-bit: 512 nibbles), 0 wherever no active source element lands."""
    n_src = len(active)
    four_src, four_dst = src in ("int4x2", "fp4x2_e2m1", "fp4x2_e1m2"), dst in ("int4x2", "fp4x2_e2m1", "fp4x2_e1m2")
    if four_src:  # byte 4k + layout → elements 2k, 2k + 1
        n_dst = VL_BYTES // ITEMSIZE[dst]
        out = [0] * n_dst
        for k in range(n_dst // 2):
            if active[4 * k + layout]:
                for h in (0, 1):
                    out[2 * k + h] = cast_value(src, dst, src_codes[8 * k + 2 * layout + h], round_mode, sat)
        return out
    if four_dst:  # elements 2k, 2k + 1 → nibbles of byte 4k + layout, governed by the even element
        out = [0] * (2 * VL_BYTES)
        for i in range(n_src):
            if active[i - i % 2]:
                out[8 * (i // 2) + 2 * layout + i % 2] = cast_value(src, dst, src_codes[i], round_mode, sat)
        return out
    n_dst = VL_BYTES // ITEMSIZE[dst]
    out = [0] * n_dst
    if n_src > n_dst:
        r = n_src // n_dst
        for i in range(n_dst):
            j = r * i + layout
            out[i] = cast_value(src, dst, src_codes[j], round_mode, sat) if active[j] else 0
    else:
        r = n_dst // n_src
        for i in range(n_src):
            if active[i]:
                out[r * i + layout] = cast_value(src, dst, src_codes[i], round_mode, sat)
    return out


def truncate_value(name: str, code: int, round_mode: int) -> int:
    """Truncate (the Truncate page): a half / bfloat16 / float32 value rounded to an integral value
    of the same type by the RoundMode value (0, CAST_NONE: as CAST_RINT), with exact rationals;
    NaN, ±inf and zeros (with their sign) unchanged, a result of 0 keeps the input's sign."""
    x = float(element_value(name, code))
    if not math.isfinite(x) or x == 0:
        return code
    r = _round_int(x, ROUND_NAMES.get(round_mode, "rint"))
    size = ITEMSIZE[name]
    bits = int(np.array([float(r)], np.float64).astype(_NP[name]).view(f"u{size}")[0])  # integral values of the type are exact
    return bits | (code & (1 << (8 * size - 1)))  # -0.0 for negatives rounding to 0


ORACLES: dict[str, Callable[..., Any]] = {
    "CreateMask": create_mask_oracle,
    "UpdateMask": update_mask_oracle,
    "CreateAddrReg": create_addr_reg_oracle,
    "LoadAlign": load_oracle,
    "StoreAlign": store_oracle,
    "LoadAlign/mask": mask_load_oracle,
    "StoreAlign/mask": mask_store_oracle,
    "Add": add_oracle,
    "Sub": sub_oracle,
    "Add/carry": carry_oracle,
    "Sub/carry": carry_oracle,
    "AddC": carry_oracle,
    "SubC": carry_oracle,
    "Cast": cast_value,
    "Truncate": truncate_value,
}
