"""`rs.testing.reference`: independent per-lane oracles of what each Reg op should do.

Written from the public Ascend C API pages (`Add`, `AddC`, `Sub`, `SubC`, `Abs`, `Relu`, `Neg`,
`Mul`, `Max`, `Min`, `Mull`, `Prelu`, `Adds`, `Muls`, `Maxs`, `Mins`, `LeakyRelu`, `AbsSub`, `Axpy`,
`MulAddDst`, `MulDstAdd`, `SetCtrlSpr`, `CreateMask`, `UpdateMask`, `LoadAlign`, `StoreAlign`,
`MaskReg`, `RegTensor`, `Not`, `And`, `Or`, `Xor`, `ShiftLeft`, `ShiftRight`, `ShiftLefts`,
`ShiftRights`, `Compare`, `Compares`, `Select`, `MoveMask`, `MaskGenWithRegTensor`, `Duplicate`,
`Arange`, `Gather`, `Interleave`, `DeInterleave`, `Pack`, `UnPack`, `Squeeze`, `Unsqueeze`,
`Histograms`, `Move`, `Reduce`, `ReduceDataBlock`, `PairReduceElem`, `LocalMemBar`, `ClearSpr`),
their boundary-value and precision appendices, and the decisions of
docs/decisions/, never from regsim's code: this module imports nothing of regsim,
so a test comparing regsim with it compares two independent readings of the documentation.

Every oracle works lane by lane on Python ints (bit patterns) or Python floats, with explicit
masking:

- integers wrap modulo 2**bits; a carry is bit 32 of the 33-bit sum of unsigned 32-bit values;
- floats are computed in float64 and rounded once to the element type (for + and - the float64
  result rounded again is the correctly rounded result: 53 >= 2 * 24 + 2); products and fused
  multiply-adds are rounded from exact rationals (`round_exact`);
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
import importlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

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


class _Types(Mapping[str, Any]):
    """Element name -> its numpy scalar type; a type of ml_dtypes (named "ml_dtypes.<name>") is looked up
    when first read, so importing this module does not import ml_dtypes (about a second)."""

    def __init__(self, **types: Any) -> None:
        self._types = types

    def __getitem__(self, name: str) -> Any:
        t = self._types[name]
        if isinstance(t, str):
            t = self._types[name] = getattr(importlib.import_module("ml_dtypes"), t.removeprefix("ml_dtypes."))
        return t

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)


FLOATS = _Types(half=np.float16, bfloat16="ml_dtypes.bfloat16", float32=np.float32)
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


# --- data movement: distributions, DataBlocks, unaligned streams, gathers (byte-level) ---------------
def _elem(ub: bytes, addr: int, i: int, w: int) -> bytes:
    return bytes(ub[addr + i * w : addr + (i + 1) * w])


def load_dist_oracle(ub: bytes, addr: int, dist: str) -> bytes:
    """The 256 register bytes (512 for DINTLV: dst0 then dst1) a LoadAlign of `dist` at `addr`
    produces, following the LoadAlign page's LoadDist table element by element."""
    name, _, width = dist.removeprefix("DIST_").rpartition("_B")
    if dist == "DIST_NORM":
        return bytes(ub[addr : addr + 256])
    if dist == "DIST_BLK":
        return bytes(ub[addr : addr + 32]) * 8
    w = int(width) // 8
    n = 256 // w  # lanes of width w in one register
    zero = bytes(w)
    if name == "BRC":  # lane 0 everywhere
        return _elem(ub, addr, 0, w) * n
    if name == "US":  # each of VL/2 bytes' elements twice
        return b"".join(_elem(ub, addr, i // 2, w) for i in range(n))
    if name == "DS":  # every other element of 2*VL bytes, the even ones
        return b"".join(_elem(ub, addr, 2 * i, w) for i in range(n))
    if name == "UNPACK":  # VL/2 bytes' elements, each followed by one zero element
        return b"".join(_elem(ub, addr, i // 2, w) if i % 2 == 0 else zero for i in range(n))
    if name == "UNPACK4":  # VL/4 bytes' elements, each followed by three zero elements
        return b"".join(_elem(ub, addr, i // 4, w) if i % 4 == 0 else zero for i in range(n))
    if name == "E2B":  # element k broadcast over DataBlock k
        return b"".join(_elem(ub, addr, k, w) * (32 // w) for k in range(8))
    if name == "DINTLV":  # even elements to dst0, odd to dst1
        return b"".join(_elem(ub, addr, 2 * i, w) for i in range(n)) + b"".join(_elem(ub, addr, 2 * i + 1, w) for i in range(n))
    raise AssertionError(dist)


def store_dist_oracle(ub: bytes, addr: int, dist: str, reg: bytes, bits: Sequence[int]) -> bytes:
    """The UB after a StoreAlign of `dist` of register bytes `reg` (512 for INTLV: src0 then
    src1) at `addr` under the 256 mask `bits`."""
    out = bytearray(ub)
    name, _, width = dist.removeprefix("DIST_").rpartition("_B")
    w = int(width) // 8
    if name == "FIRST_ELEMENT":  # lane 0, the mask ignored
        out[addr : addr + w] = reg[:w]
    elif name in ("PACK", "PACK4"):  # the low half (quarter) of each lane, lane j at j * that
        keep = w // 2 if name == "PACK" else w // 4
        for j in range(256 // w):
            if bits[j * w]:
                out[addr + j * keep : addr + (j + 1) * keep] = reg[j * w : j * w + keep]
    elif name == "INTLV":  # src0 lane i, then src1 lane i; the mask ignored
        for i in range(256 // w):
            out[addr + 2 * i * w : addr + (2 * i + 1) * w] = reg[i * w : (i + 1) * w]
            out[addr + (2 * i + 1) * w : addr + (2 * i + 2) * w] = reg[256 + i * w : 256 + (i + 1) * w]
    else:
        raise AssertionError(dist)
    return bytes(out)


def block_load_oracle(ub: bytes, addr: int, itemsize: int, block_stride: int, bits: Sequence[int]) -> bytes:
    """DATA_BLOCK_COPY load: block k = 32 B at addr + k * block_stride * 32 if any element of it
    is selected (bit 32k + j * itemsize), else 32 zero bytes."""
    out = b""
    for k in range(8):
        on = any(bits[32 * k + j * itemsize] for j in range(32 // itemsize))
        start = addr + k * block_stride * 32
        out += bytes(ub[start : start + 32]) if on else bytes(32)
    return out


def block_store_oracle(ub: bytes, addr: int, itemsize: int, block_stride: int, reg: bytes, bits: Sequence[int]) -> bytes:
    """DATA_BLOCK_COPY store: selected element j of block k to addr + k * block_stride * 32 + j * itemsize."""
    out = bytearray(ub)
    for k in range(8):
        for j in range(32 // itemsize):
            if bits[32 * k + j * itemsize]:
                at = addr + k * block_stride * 32 + j * itemsize
                out[at : at + itemsize] = reg[32 * k + j * itemsize : 32 * k + (j + 1) * itemsize]
    return bytes(out)


def unaligned_load_oracle(ub: bytes, addr: int) -> bytes:
    """LoadUnAlign (after LoadUnAlignPre at the stream's start) and Load: the 256 bytes at addr."""
    return bytes(ub[addr : addr + 256])


def unaligned_store_oracle(ub: bytes, writes: Sequence[tuple[int, bytes]]) -> bytes:
    """An unaligned store stream flushed by StoreUnAlignPost (and Store): each call's bytes at
    its address, nothing else."""
    out = bytearray(ub)
    for addr, data in writes:
        out[addr : addr + len(data)] = data
    return bytes(out)


def mask_unaligned_bytes(bits: Sequence[int], itemsize: int) -> bytes:
    """MaskReg StoreUnAlign: bits 0, w, 2w, … (w = itemsize) packed 8 to a byte, LSB first."""
    kept = [bits[i] for i in range(0, 256, itemsize)]
    return bytes(sum(kept[8 * b + j] << j for j in range(8)) for b in range(len(kept) // 8))


def gather_oracle(ub: bytes, base: int, src_size: int, dst_size: int, index: Sequence[int], active: Sequence[bool]) -> list[int]:
    """UB Gather: lane i = the src_size-byte element index[i] of base, zero-extended to
    dst_size bytes; 0 for inactive lanes."""
    return [int.from_bytes(_elem(ub, base, k, src_size), "little") if a else 0 for k, a in zip(index, active, strict=True)]


def gatherb_oracle(ub: bytes, base: int, offsets: Sequence[int], active: Sequence[bool]) -> bytes:
    """GatherB: block k = 32 bytes at base + offsets[k] (bytes) when active[k], else zeros."""
    return b"".join(bytes(ub[base + o : base + o + 32]) if a else bytes(32) for o, a in zip(offsets, active, strict=True))


def scatter_oracle(ub: bytes, base: int, size: int, values: Sequence[int], index: Sequence[int], active: Sequence[bool]) -> bytes:
    """Scatter: element index[i] of base (size bytes) = values[i] for active lanes."""
    out = bytearray(ub)
    for v, k, a in zip(values, index, active, strict=True):
        if a:
            out[base + k * size : base + (k + 1) * size] = (v & ((1 << (8 * size)) - 1)).to_bytes(size, "little")
    return bytes(out)


# --- arithmetic and compound ops (the 基础算术 and 复合计算 pages) ---------------------------------
#: float type -> (significand bits incl. the implicit one, minimum normal exponent, maximum exponent)
FORMAT = {"half": (11, -14, 15), "bfloat16": (8, -126, 127), "float32": (24, -126, 127)}
HALF_MAX = 65504.0


def round_exact(q: Fraction, name: str) -> float:
    """The exact rational `q` rounded once to nearest-even into the float type `name` (gradual
    underflow; overflow to ±inf). A zero result is +0 (the caller decides a zero's sign)."""
    p, emin, emax = FORMAT[name]
    if q == 0:
        return 0.0
    sign = -1.0 if q < 0 else 1.0
    q = abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()
    if Fraction(2) ** e > q:
        e -= 1
    if Fraction(2) ** (e + 1) <= q:
        e += 1
    ulp = Fraction(2) ** (max(e, emin) - p + 1)
    k, rest = divmod(q, ulp)
    if rest * 2 > ulp or (rest * 2 == ulp and k % 2):
        k += 1
    r = k * ulp
    if r >= Fraction(2) ** (emax + 1):
        return sign * math.inf
    return sign * float(r)


def _rnd(value: float, name: str) -> Any:
    """A float64 value that is exact (a product or sum of at most 53 bits) rounded to `name`."""
    if math.isnan(value) or math.isinf(value) or value == 0:
        return FLOATS[name](value)
    return FLOATS[name](round_exact(Fraction(value), name))


def _sat_half(value: Any, half_sat: bool) -> Any:
    """The CTRL[48] saturation mode: half ±inf → ±65504, NaN → 0 (the boundary-value appendix)."""
    if not half_sat:
        return value
    v = float(value)
    return np.float16(0.0 if math.isnan(v) else max(-HALF_MAX, min(HALF_MAX, v)))


def _int_result(name: str, exact: int, saturate: bool) -> int:
    bits = 8 * ITEMSIZE[name]
    if saturate and name in ("int16", "int32"):
        return max(-(1 << (bits - 1)), min((1 << (bits - 1)) - 1, exact))
    return wrap(exact, bits, name in SIGNED)


def _fmax(a: float, b: float, want_max: bool) -> float:
    """max / min with NaN propagating (src0's first) and -0 < +0."""
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == 0 and b == 0:
        neg = (
            (math.copysign(1, a) < 0) and (math.copysign(1, b) < 0)
            if want_max
            else (math.copysign(1, a) < 0 or math.copysign(1, b) < 0)
        )
        return -0.0 if neg else 0.0
    return max(a, b) if want_max else min(a, b)


def _fused(name: str, x: float, y: float, z: float) -> Any:
    """x·y + z rounded once (exact rationals); specials and exact zeros by IEEE 754 in float64."""
    if not all(map(math.isfinite, (x, y, z))):
        return FLOATS[name](x * y + z)
    exact = Fraction(x) * Fraction(y) + Fraction(z)
    if exact == 0:
        prod_neg = (math.copysign(1, x) < 0) != (math.copysign(1, y) < 0)
        return FLOATS[name](-0.0 if prod_neg and math.copysign(1, z) < 0 else 0.0)
    return FLOATS[name](round_exact(exact, name))


def _complex_mul(name: str, a: complex, b: complex, half_sat: bool = False) -> tuple[Any, Any]:
    """ComplexMulKernel: four products, a difference and a sum, each rounded to the component type
    (and, for complex32 in the half saturation mode, saturated)."""
    comp = "half" if name == "complex32" else "float32"

    def r(v: float) -> float:
        return float(_sat_half(_rnd(v, comp), half_sat and comp == "half"))

    e, f, g, h = r(a.real * b.real), r(a.imag * b.imag), r(a.imag * b.real), r(a.real * b.imag)
    return FLOATS[comp](r(e - f)), FLOATS[comp](r(g + h))


def arith_lane(op: str, name: str, *xs: Any, int_sat: bool = False, half_sat: bool = False) -> Any:
    """One lane of `op` (an Ascend name) on Python values of the element type `name`."""
    if name in COMPLEX:
        a, b = xs
        out = (
            _complex_mul(name, a, b, half_sat)
            if op in ("Mul", "Muls")
            else complex_add(name, a, b)
            if op in ("Add", "Adds")
            else complex_sub(name, a, b)
        )
        return tuple(_sat_half(c, half_sat and name == "complex32") for c in out)
    if name not in FLOATS:
        return _int_lane(op, name, *xs, saturate=int_sat)
    f = [float(x) for x in xs]
    a = f[0]
    if op == "Abs":
        r: Any = FLOATS[name](abs(a))
    elif op == "Neg":
        r = FLOATS[name](-a)
    elif op == "Relu":
        r = FLOATS[name](a if math.isnan(a) or a > 0 else 0.0)
    elif op in ("Mul", "Muls"):
        with np.errstate(over="ignore"):  # a product past float32's range rounds to inf, as intended
            r = _rnd(float(np.float32(a * f[1])), name) if name == "bfloat16" else _rnd(a * f[1], name)
    elif op in ("Add", "Adds"):
        r = float_add(name, a, f[1])
    elif op == "Sub":
        r = float_sub(name, a, f[1])
    elif op in ("Max", "Maxs", "Min", "Mins"):
        r = FLOATS[name](_fmax(a, f[1], op.startswith("Max")))
    elif op in ("Prelu", "LeakyRelu"):
        r = _rnd(a * f[1], name) if math.copysign(1, a) < 0 else FLOATS[name](a)
    elif op == "AbsSub":
        r = FLOATS[name](abs(float(float_sub(name, a, f[1]))))
    elif op == "Axpy":  # (dst, src, scalar)
        r = _fused(name, f[1], f[2], f[0])
    elif op == "MulAddDst":  # (dst, src0, src1)
        r = _fused(name, f[1], f[2], f[0])
    elif op == "MulDstAdd":
        r = _fused(name, f[0], f[1], f[2])
    else:
        raise AssertionError(op)
    return _sat_half(r, half_sat and name == "half")


def _int_lane(op: str, name: str, *xs: int, saturate: bool) -> int:
    bits, signed = 8 * ITEMSIZE[name], name in SIGNED
    a = xs[0]
    if op == "Abs":
        return wrap(abs(a), bits, signed)
    if op == "Neg":
        return wrap(-a, bits, signed)
    if op == "Relu":
        return max(a, 0)
    if op in ("Max", "Maxs"):
        return max(a, xs[1])
    if op in ("Min", "Mins"):
        return min(a, xs[1])
    if op in ("Mul", "Muls"):
        return _int_result(name, a * xs[1], saturate)
    if op in ("Add", "Adds"):
        return _int_result(name, a + xs[1], saturate)
    if op == "Sub":
        return _int_result(name, a - xs[1], saturate)
    if op == "AbsSub":
        return wrap(abs(wrap(a - xs[1], bits, signed)), bits, signed)
    if op == "Axpy":
        return wrap(xs[1] * xs[2] + a, bits, signed)
    if op == "MulAddDst":
        return wrap(xs[1] * xs[2] + a, bits, signed)
    raise AssertionError(op)


def arith_oracle(
    op: str,
    name: str,
    operands: Sequence[Sequence[Any]],
    active: Sequence[bool],
    old: Sequence[Any] | None = None,
    *,
    int_sat: bool = False,
    half_sat: bool = False,
) -> list[Any]:
    """dst[i] = active[i] ? op(operands[0][i], operands[1][i], ...) : (old is None ? 0 : old[i]).

    `operands` are per-lane Python values (ints, floats, complex) in the C++ order of the op's
    inputs (an in-out dst first: Axpy (dst, src, scalar), MulAddDst / MulDstAdd (dst, src0, src1));
    a scalar operand is given as a list repeating it. int_sat: CTRL[53] = 1; half_sat: CTRL[60] = 1
    and CTRL[48] = 0."""
    zero = _zero(name)
    return [
        arith_lane(op, name, *xs, int_sat=int_sat, half_sat=half_sat) if m else (zero if old is None else old[i])
        for i, (m, *xs) in enumerate(zip(active, *operands, strict=True))
    ]


def mull_oracle(name: str, a: Sequence[int], b: Sequence[int], active: Sequence[bool]) -> tuple[list[int], list[int]]:
    """Mull: (low words, high words) of the exact 64-bit products, both 0 on inactive lanes."""
    signed = name == "int32"
    lo = [wrap(x * y, 32, signed) if m else 0 for x, y, m in zip(a, b, active, strict=True)]
    hi = [wrap((x * y) >> 32, 32, signed) if m else 0 for x, y, m in zip(a, b, active, strict=True)]
    return lo, hi


def complex_abs_oracle(
    name: str, values: Sequence[complex], active: Sequence[bool], lanes: int, half_sat: bool = False
) -> list[Any]:
    """Abs of complex lanes into `lanes` lanes of the component type: re², im², their sum and its
    square root each rounded to the component type (a subnormal sum is 0); lanes past the source's
    and inactive lanes 0."""
    comp = "half" if name == "complex32" else "float32"
    tiny = 2.0 ** FORMAT[comp][1]
    out: list[Any] = []
    for z, m in zip(values, active, strict=True):
        if not m:
            out.append(FLOATS[comp](0))
            continue
        re2 = float(_sat_half(_rnd(z.real * z.real, comp), half_sat and comp == "half"))
        im2 = float(_sat_half(_rnd(z.imag * z.imag, comp), half_sat and comp == "half"))
        total = float(_sat_half(_rnd(re2 + im2, comp), half_sat and comp == "half"))
        total = 0.0 if abs(total) < tiny else total
        # math.sqrt rounds correctly to float64; rounding that to half / float32 is innocuous (53 ≥ 2p + 2)
        out.append(_sat_half(FLOATS[comp](math.sqrt(total)), half_sat and comp == "half"))
    return out + [FLOATS[comp](0)] * (lanes - len(out))


# --- logic and shifts (the Not, And, Or, Xor, ShiftLeft, ShiftRight, ShiftLefts, ShiftRights pages) ----
def logic_oracle(op: str, name: str, a: Sequence[int], b: Sequence[int] | None, active: Sequence[bool]) -> list[int]:
    """Not/And/Or/Xor on RegTensors, on bit patterns: dst[i] = active[i] ? a[i] op b[i] : 0
    (Not: ~a[i] within the element's bits; ZEROING only)."""
    top = (1 << (8 * ITEMSIZE[name])) - 1
    ops: dict[str, Callable[[int, int], int]] = {
        "Not": lambda x, _: ~x & top,
        "And": lambda x, y: x & y,
        "Or": lambda x, y: x | y,
        "Xor": lambda x, y: x ^ y,
    }
    other = b if b is not None else [0] * len(a)
    return [ops[op](x, y) if on else 0 for x, y, on in zip(a, other, active, strict=True)]


def mask_logic_oracle(op: str, src0: Sequence[int], src1: Sequence[int] | None, mask: Sequence[int]) -> list[int]:
    """The MaskReg forms, bit by bit over all 256 bits: Not/And/Or/Xor give mask[k] ? op : 0;
    Select gives mask[k] ? src0[k] : src1[k]."""
    out = []
    for k in range(VL_BYTES):
        x, y, m = src0[k], 0 if src1 is None else src1[k], mask[k]
        if op == "Select":
            out.append(x if m else y)
            continue
        value = {"Not": 1 - x, "And": x & y, "Or": x | y, "Xor": x ^ y}[op]
        out.append(value if m else 0)
    return out


def _shift_value(value: int, amount: int, bits: int, signed: bool, left: bool) -> int:
    """One width's shift primitive on a two's-complement value (the ShiftLeft/ShiftRight pages,
    docs/decisions/arithmetic.md#shift-signed-left): a left shift is (value << amount) mod 2**bits for signed and unsigned types
    alike (the 950 library's reading, not the pages' "次高位被丢弃"); unsigned right shifts are
    logical, signed ones arithmetic; a shift by the width or more leaves 0 (a signed right shift:
    the sign). A negative amount shifts the other way (decision: the 64-bit shifts are built on it)."""
    if amount < 0:
        return _shift_value(value, -amount, bits, signed, not left)
    u = value & ((1 << bits) - 1)
    if left:
        return 0 if amount >= bits else (u << amount) & ((1 << bits) - 1)
    if signed:
        return (wrap(u, bits, True) >> min(amount, bits)) & ((1 << bits) - 1)
    return 0 if amount >= bits else u >> amount


def _shift_b64(name: str, value: int, amount: int, left: bool, scalar_form: bool) -> int:
    """A 64-bit shift as the library's software emulation computes it from 32-bit shifts of the
    two halves (lo unsigned; hi as int32 for int64): the vector forms take the amount's low
    32-bit word as int32 and form s + 32 and 32 - s as int32, the scalar forms take the int16
    scalar and form them as int16; the vector ShiftLeft shifts hi into the low word as int32
    (int64), the scalar one as uint32."""
    signed = name == "int64"
    u = value & ((1 << 64) - 1)
    lo, hi = u & M32, u >> 32
    amt_bits = 16 if scalar_form else 32
    s = wrap(amount, amt_bits, True)
    plus, minus = wrap(s + 32, amt_bits, True), wrap(32 - s, amt_bits, True)

    def sh(x: int, k: int, is_signed: bool, to_left: bool) -> int:
        return _shift_value(x, k, 32, is_signed, to_left)

    if left:
        new_lo = sh(lo, s, False, True) | sh(hi, plus, signed and not scalar_form, True)
        new_hi = sh(lo, minus, False, False) | sh(hi, s, signed, True)
    else:
        new_lo = sh(lo, s, False, False) | sh(hi, minus, signed, True)
        new_hi = sh(lo, plus, False, False) | sh(hi, s, signed, False)
    return (new_hi << 32) | new_lo


def shift_oracle(
    name: str, left: bool, values: Sequence[int], amounts: Sequence[int], active: Sequence[bool], scalar_form: bool = False
) -> list[int]:
    """ShiftLeft/ShiftRight (amounts per lane) and ShiftLefts/ShiftRights (`scalar_form`: one
    int16 amount repeated): dst[i] = active[i] ? shift(values[i], amounts[i]) : 0, as bit patterns."""
    bits = 8 * ITEMSIZE[name]
    out = []
    for x, k, on in zip(values, amounts, active, strict=True):
        if not on:
            out.append(0)
        elif bits == 64:
            out.append(_shift_b64(name, x, k, left, scalar_form))
        else:
            out.append(_shift_value(x, k, bits, name in SIGNED, left))
    return out


# --- compare and select (the Compare, Compares and Select pages) ---------------------------------------
def compare_oracle(mode: str, a: Sequence[Any], b: Sequence[Any], active: Sequence[bool]) -> list[bool]:
    """Compare/Compares: active[i] && (a[i] mode b[i]), on Python ints or floats; floats are IEEE
    (a NaN makes every mode but NE false; +0 == -0). Inactive lanes are false."""
    ops: dict[str, Callable[[Any, Any], bool]] = {
        "EQ": lambda x, y: x == y,
        "NE": lambda x, y: x != y,
        "GT": lambda x, y: x > y,
        "GE": lambda x, y: x >= y,
        "LT": lambda x, y: x < y,
        "LE": lambda x, y: x <= y,
    }
    return [bool(on and ops[mode](x, y)) for x, y, on in zip(a, b, active, strict=True)]


def select_oracle(a: Sequence[int], b: Sequence[int], active: Sequence[bool]) -> list[int]:
    """Select on RegTensors, on bit patterns: active[i] ? a[i] : b[i] (every lane written)."""
    return [x if on else y for x, y, on in zip(a, b, active, strict=True)]


# --- predicates from data (the MoveMask and MaskGenWithRegTensor pages) ---------------------------------
def move_mask_oracle(itemsize: int, mask_high: int, mask_low: int) -> list[int]:
    """MoveMask<T>: b16 reads the 128 bits {MASK1, MASK0}, b32 the 64 bits of MASK0; each bit
    is copied to its element's 2 (b16) or 4 (b32) predicate bits."""
    spr = mask_low | (mask_high << 64)
    return [(spr >> (k // itemsize)) & 1 for k in range(VL_BYTES)]


def mask_gen_oracle(reg_bytes: bytes, itemsize: int, offset: int) -> list[int]:
    """MaskGenWithRegTensor<T, offset>: the register's 256 bytes in blocks (16 of 16 bytes for
    b16, 32 of 8 bytes for b32); bit j of block `offset` (byte j // 8, bit j % 8) is broadcast to
    predicate bits [j * itemsize, (j + 1) * itemsize)."""
    block = VL_BYTES // itemsize // 8
    data = reg_bytes[offset * block : (offset + 1) * block]
    return [(data[(k // itemsize) // 8] >> ((k // itemsize) % 8)) & 1 for k in range(VL_BYTES)]


# --- fill, index, rearrange, compress, histogram, move (Duplicate … Move pages) -----------------------
def duplicate_oracle(value: Any, n: int, active: Sequence[bool] | None = None, old: Sequence[Any] | None = None) -> list[Any]:
    """Duplicate: dst[i] = value (no mask); masked: active ? value : (old is None ? 0 : old[i])."""
    if active is None:
        return [value] * n
    return [value if on else (0 if old is None else old[i]) for i, on in enumerate(active)]


def duplicate_reg_oracle(src: Sequence[Any], active: Sequence[bool], old: Sequence[Any] | None = None) -> list[Any]:
    """Duplicate(dst, src, mask): dst[i] = active ? src[0] : (old is None ? 0 : old[i])."""
    return duplicate_oracle(src[0], len(src), active, old)


def arange_oracle(name: str, start: Any, decrease: bool = False) -> list[Any]:
    """Arange: start + i, or start + (N - 1 - i) for DECREASE_ORDER (the scalar is the end value);
    integers wrap, floats are the exact sum rounded once to the element type."""
    n = lanes_of(name)
    steps = [n - 1 - i if decrease else i for i in range(n)]
    if name in FLOATS:
        return [_round_to(float(start) + k, FLOATS[name]) for k in steps]
    return [wrap(int(start) + k, 8 * ITEMSIZE[name], name in SIGNED) for k in steps]


def register_gather_oracle(src: Sequence[Any], index: Sequence[int]) -> list[Any]:
    """Register Gather: dst[i] = src[index[i] mod N]."""
    return [src[int(k) % len(src)] for k in index]


def interleave_oracle(src0: Sequence[Any], src1: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """Interleave: dst0 = s0[0], s1[0], s0[1], s1[1] … of the low halves; dst1 of the high halves."""
    n = len(src0)
    pairs = [v for k in range(n) for v in (src0[k], src1[k])]
    return pairs[:n], pairs[n:]


def deinterleave_oracle(src0: Sequence[Any], src1: Sequence[Any]) -> tuple[list[Any], list[Any]]:
    """DeInterleave: the even and the odd elements of src0 followed by src1."""
    cat = list(src0) + list(src1)
    return cat[0::2], cat[1::2]


def _groups(bits: Sequence[int], g: int) -> list[list[int]]:
    return [list(bits[k : k + g]) for k in range(0, len(bits), g)]


def mask_interleave_oracle(bits0: Sequence[int], bits1: Sequence[int], group: int) -> tuple[list[int], list[int]]:
    """MaskReg Interleave<T>: Interleave of the `group`-bit groups (group = sizeof(T))."""
    d0, d1 = interleave_oracle(_groups(bits0, group), _groups(bits1, group))
    return [b for g in d0 for b in g], [b for g in d1 for b in g]


def mask_deinterleave_oracle(bits0: Sequence[int], bits1: Sequence[int], group: int) -> tuple[list[int], list[int]]:
    """MaskReg DeInterleave<T>: DeInterleave of the `group`-bit groups."""
    d0, d1 = deinterleave_oracle(_groups(bits0, group), _groups(bits1, group))
    return [b for g in d0 for b in g], [b for g in d1 for b in g]


def pack_oracle(src: Sequence[int], dst_bits: int, n: int, highest: bool = False) -> list[int]:
    """Pack: the low `dst_bits` of each source element into dst's low (or high) half, the other
    half 0; a source of n elements (RegTraitNumTwo b64) fills dst."""
    low = [int(v) % (1 << dst_bits) for v in src]
    if len(low) == n:
        return low
    zeros = [0] * (n - len(low))
    return zeros + low if highest else low + zeros


def unpack_oracle(src: Sequence[int], n: int, highest: bool = False) -> list[int]:
    """UnPack: n elements of src's low (or high) half, as values (the extension keeps the value:
    zero-extended unsigned, sign-extended signed); n == len(src) (RegTraitNumTwo b64) takes all."""
    if len(src) == n:
        return [int(v) for v in src]
    start = n if highest else 0
    return [int(v) for v in src[start : start + n]]


def mask_pack_oracle(bits: Sequence[int], highest: bool = False) -> list[int]:
    """MaskReg Pack: bits 0, 2, 4 … into the low (or high) 128 bits, the other half 0."""
    even = [bits[2 * k] for k in range(128)]
    return [0] * 128 + even if highest else even + [0] * 128


def mask_unpack_oracle(bits: Sequence[int], highest: bool = False) -> list[int]:
    """MaskReg UnPack: each bit of the low (or high) 128 bits to 2 bits, the upper one 0."""
    half = bits[128:] if highest else bits[:128]
    return [b for bit in half for b in (bit, 0)]


def squeeze_oracle(src: Sequence[Any], active: Sequence[bool], itemsize: int) -> tuple[list[Any], int]:
    """Squeeze: the active elements in order from lane 0, the rest 0; and the byte count
    (count * sizeof(T)) that GatherMaskMode STORE_REG adds to AR."""
    kept = [v for v, on in zip(src, active, strict=True) if on]
    return kept + [0] * (len(src) - len(kept)), len(kept) * itemsize


def unsqueeze_oracle(name: str, active: Sequence[bool]) -> list[int]:
    """Unsqueeze: dst[i] = the number of active lanes j < i (wrapping in the element type)."""
    out, count = [], 0
    for on in active:
        out.append(wrap(count, 8 * ITEMSIZE[name], name in SIGNED))
        count += bool(on)
    return out


def histograms_oracle(old: Sequence[int], src: Sequence[int], active: Sequence[bool], bin1: bool, accumulate: bool) -> list[int]:
    """Histograms (u8 → u16): dst[k] = old[k] + #{active j: src[j] == 128b + k} (FREQUENCY) or
    #{active j: src[j] <= 128b + k} (ACCUMULATE), b = 1 for BIN1; modulo 2**16."""
    values = [int(v) for v, on in zip(src, active, strict=True) if on]
    base = 128 if bin1 else 0
    out = []
    for k in range(128):
        target = base + k
        count = sum(v <= target for v in values) if accumulate else sum(v == target for v in values)
        out.append((int(old[k]) + count) % (1 << 16))
    return out


def move_oracle(src: Sequence[Any], active: Sequence[bool] | None = None, old: Sequence[Any] | None = None) -> list[Any]:
    """Move: dst = src; with a mask (MERGING) inactive lanes keep old."""
    if active is None:
        return list(src)
    assert old is not None
    return [s if on else o for s, on, o in zip(src, active, old, strict=True)]


def mask_move_oracle(bits: Sequence[int], select: Sequence[int] | None = None) -> list[int]:
    """MaskReg Move: dst = src, or src AND mask bit by bit."""
    return list(bits) if select is None else [b & m for b, m in zip(bits, select, strict=True)]


# --- reductions (Reduce, ReduceDataBlock, PairReduceElem pages) ---------------------------------------
def _add_in(name: str, a: Any, b: Any) -> Any:
    if name in FLOATS:
        return _round_to(float(a) + float(b), FLOATS[name])
    return wrap(int(a) + int(b), 8 * ITEMSIZE[name], name in SIGNED)


def tree_sum_oracle(name: str, values: Sequence[Any]) -> Any:
    """The documented binary tree: (v0+v1), (v2+v3) …, then pairs of those, each add in `name`."""
    level = list(values)
    while len(level) > 1:
        level = [_add_in(name, level[2 * k], level[2 * k + 1]) for k in range(len(level) // 2)]
    return level[0]


def _float_less(a: float, b: float) -> bool:
    """a < b with -0 < +0."""
    if a == b == 0:
        return math.copysign(1, a) < math.copysign(1, b)
    return a < b


def extreme_oracle(name: str, values: Sequence[Any], active: Sequence[bool], kind: str) -> tuple[Any, int]:
    """(value, first index) of the max / min of the active values; the first NaN wins; no
    active value: (-inf / +inf for floats, else the type's min (MAX) / max (MIN), index 0)."""
    best, where = None, 0
    for i, (v, on) in enumerate(zip(values, active, strict=True)):
        if not on:
            continue
        if name in FLOATS and math.isnan(float(v)):
            return v, i
        if best is None:
            best, where = v, i
            continue
        x, y = (float(v), float(best)) if name in FLOATS else (int(v), int(best))
        better = (
            (_float_less(y, x) if kind == "MAX" else _float_less(x, y)) if name in FLOATS else (x > y if kind == "MAX" else x < y)
        )
        if better:
            best, where = v, i
    if best is not None:
        return best, where
    if name in FLOATS:
        return FLOATS[name](-math.inf if kind == "MAX" else math.inf), 0
    bits = 8 * ITEMSIZE[name]
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if name in SIGNED else (0, (1 << bits) - 1)
    return (lo if kind == "MAX" else hi), 0


def reduce_oracle(dst: str, src: str, values: Sequence[Any], active: Sequence[bool], kind: str, n: int) -> list[Any]:
    """Reduce → n lanes of dst: SUM: [tree sum of the active values (inactive = +0) in dst, 0 …];
    MAX/MIN: [extreme, index (as the raw bits of the dst type), 0 …]."""
    zero = FLOATS[dst](0) if dst in FLOATS else 0
    if kind == "SUM":
        return [tree_sum_oracle(dst, [v if on else zero for v, on in zip(values, active, strict=True)])] + [zero] * (n - 1)
    value, index = extreme_oracle(src, values, active, kind)
    if dst in FLOATS:
        index = np.array([index], f"u{ITEMSIZE[dst]}").view(FLOATS[dst])[0]
    return [value, index] + [zero] * (n - 2)


def reduce_data_block_oracle(dst: str, src: str, values: Sequence[Any], active: Sequence[bool], kind: str, n: int) -> list[Any]:
    """ReduceDataBlock: dst[b] = the Reduce value (no index) of 32-byte block b of src, b < 8; the rest 0."""
    size = len(values) // 8
    zero = FLOATS[dst](0) if dst in FLOATS else 0
    out = []
    for b in range(8):
        vs, on = values[b * size : (b + 1) * size], active[b * size : (b + 1) * size]
        out.append(reduce_oracle(dst, src, vs, on, kind, 2)[0])
    return out + [zero] * (n - 8)


def pair_reduce_oracle(name: str, values: Sequence[Any], active: Sequence[bool]) -> list[Any]:
    """PairReduceElem: dst[i] = v[2i] + v[2i+1] (one active: that value; none: 0), then N/2 zeros."""
    zero = FLOATS[name](0)
    out = []
    for k in range(len(values) // 2):
        a, b, on_a, on_b = values[2 * k], values[2 * k + 1], active[2 * k], active[2 * k + 1]
        out.append(_add_in(name, a, b) if on_a and on_b else a if on_a else b if on_b else zero)
    return out + [zero] * (len(values) // 2)


# --- sync and special registers (LocalMemBar, ClearSpr pages) -----------------------------------------
MEM_BAR_PAIRS = frozenset(
    {
        ("VEC_STORE", "VEC_LOAD"), ("VEC_LOAD", "VEC_STORE"), ("VEC_STORE", "VEC_STORE"), ("VEC_STORE", "SCALAR_LOAD"),
        ("VEC_STORE", "SCALAR_STORE"), ("VEC_LOAD", "SCALAR_STORE"), ("SCALAR_STORE", "VEC_LOAD"),
        ("SCALAR_STORE", "VEC_STORE"), ("SCALAR_LOAD", "VEC_STORE"), ("VEC_ALL", "VEC_ALL"), ("VEC_ALL", "SCALAR_ALL"),
        ("SCALAR_ALL", "VEC_ALL"),
    }
)  # fmt: skip


def local_mem_bar_oracle(src: str, dst: str) -> bool:
    """Whether LocalMemBar<src, dst> compiles (the page's table of 12 pairs)."""
    return (src, dst) in MEM_BAR_PAIRS


def ar_store_oracle(ub: bytes, base: int, chunks: Sequence[bytes]) -> bytes:
    """The AR-form StoreUnAlign stream (POST_MODE_UPDATE) after StoreUnAlignPost: each Squeeze's
    bytes appended at base + the AR before that Squeeze (the running byte count); nothing else changes."""
    out = bytearray(ub)
    offset = base
    for chunk in chunks:
        out[offset : offset + len(chunk)] = chunk
        offset += len(chunk)
    return bytes(out)


def ar_oracle(events: Sequence[Any]) -> int:
    """AR after a sequence of events: "clear" (ClearSpr<AR>) or a Squeeze STORE_REG byte count."""
    ar = 0
    for e in events:
        ar = 0 if e == "clear" else ar + int(e)
    return ar


# --- comparing results --------------------------------------------------------------------------
def bits_of(values: Any, itemsize: int | None = None) -> list[int]:
    """Bit patterns (unsigned ints) of a numpy array's elements, or of Python ints of `itemsize` bytes."""
    if isinstance(values, np.ndarray) and values.dtype != object:
        return list(np.ascontiguousarray(values).reshape(-1).view(f"u{values.dtype.itemsize}").tolist())
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
    if got == want:
        return
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


_NP = _Types(
    half=np.float16, bfloat16="ml_dtypes.bfloat16", float32=np.float32,
    fp8_e4m3fn="ml_dtypes.float8_e4m3fn", fp8_e5m2="ml_dtypes.float8_e5m2",
)  # fmt: skip


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
    if size <= 2:
        return _decoded(name)[code]
    return float(np.array([code], f"u{size}").view(_NP[name])[0])


def _decoded(name: str) -> list[float]:
    """The value of every code of a float format of at most 16 bits (numpy's reading of the bits, as
    `element_value` makes of one code), decoded once: the exhaustive tests ask for each code many times."""
    values = _DECODED.get(name)
    if values is None:
        size = ITEMSIZE[name]
        codes = np.arange(1 << (8 * size), dtype=f"u{size}")
        with np.errstate(invalid="ignore"):  # signalling NaNs read as NaN
            values = _DECODED[name] = codes.view(_NP[name]).astype(np.float64).tolist()
    return values


_DECODED: dict[str, list[float]] = {}


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


def cast_saturation(dst: str, has_sat_mode: bool, trait_sat: bool, ctrl: int) -> tuple[bool, bool]:
    """(saturating, NaN kept) of a Cast to `dst` under CTRL value `ctrl`, from the Cast page's table 5
    and the SetCtrlSpr page: a pair without a satMode saturates exactly when `dst` is an integer;
    else CTRL[60] = 0 takes the trait's (`trait_sat`), CTRL[60] = 1 takes CTRL[59] (integer
    destinations) or CTRL[48] (float destinations), a bit of 0 meaning saturation. NaN kept: CTRL[50]."""

    def bit(k: int) -> int:
        return (ctrl >> k) & 1

    integer = dst in SIGNED or dst in UNSIGNED or dst == "int4x2"
    if not has_sat_mode:
        sat = integer
    elif bit(60) == 0:
        sat = trait_sat
    else:
        sat = bit(59 if integer else 48) == 0
    return sat, bit(50) == 1


def cast_value(src: str, dst: str, code: int, round_mode: int, sat: bool, keep_nan: bool = False) -> int:
    """One element of Cast from `src` to `dst` (codes; 4-bit types one nibble), by the Cast
    page: round_mode (RoundMode value, 0xFF: none), sat (the pair's saturation: the trait's
    SatMode where the pair has one; integer destinations saturate, float ones do not, otherwise;
    `cast_saturation` gives it under a CTRL value), keep_nan (CTRL[50] = 1: a saturating
    conversion to fp8_e4m3fn / fp8_e5m2 keeps NaN)."""
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
    nan_code, inf_code = _nan_inf_codes(dst)
    if math.isnan(x):
        return 0 if sat and not (keep_nan and dst.startswith("fp8")) else nan_code
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


def _nan_inf_codes(dst: str) -> tuple[int, int | None]:
    """The codes numpy gives NaN and +inf in the float format `dst` (None: fp8_e4m3fn has no inf)."""
    codes = _SPECIAL.get(dst)
    if codes is None:
        size = ITEMSIZE[dst]
        nan_code = int(np.array([np.nan], np.float64).astype(_NP[dst]).view(f"u{size}")[0])
        inf_code = None if dst == "fp8_e4m3fn" else int(np.array([np.inf], np.float64).astype(_NP[dst]).view(f"u{size}")[0])
        codes = _SPECIAL[dst] = (nan_code, inf_code)
    return codes


_SPECIAL: dict[str, tuple[int, int | None]] = {}


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
    src: str,
    dst: str,
    src_codes: Sequence[int],
    active: Sequence[bool],
    layout: int,
    round_mode: int,
    sat: bool,
    keep_nan: bool = False,
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
                    out[2 * k + h] = cast_value(src, dst, src_codes[8 * k + 2 * layout + h], round_mode, sat, keep_nan)
        return out
    if four_dst:  # elements 2k, 2k + 1 → nibbles of byte 4k + layout, governed by the even element
        out = [0] * (2 * VL_BYTES)
        for i in range(n_src):
            if active[i - i % 2]:
                out[8 * (i // 2) + 2 * layout + i % 2] = cast_value(src, dst, src_codes[i], round_mode, sat, keep_nan)
        return out
    n_dst = VL_BYTES // ITEMSIZE[dst]
    out = [0] * n_dst
    if n_src > n_dst:
        r = n_src // n_dst
        for i in range(n_dst):
            j = r * i + layout
            out[i] = cast_value(src, dst, src_codes[j], round_mode, sat, keep_nan) if active[j] else 0
    else:
        r = n_dst // n_src
        for i in range(n_src):
            if active[i]:
                out[r * i + layout] = cast_value(src, dst, src_codes[i], round_mode, sat, keep_nan)
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
    return _integral_code(name, r) | (code & (1 << (8 * size - 1)))  # -0.0 for negatives rounding to 0


def _integral_code(name: str, r: int) -> int:
    """The code of the integer `r`, a value of the float format `name` (exact: no rounding), read by numpy
    once per value (the exhaustive tests ask for each of the few thousand integral values many times)."""
    key = (name, r)
    bits = _INTEGRAL.get(key)
    if bits is None:
        size = ITEMSIZE[name]
        bits = _INTEGRAL[key] = int(np.array([float(r)], np.float64).astype(_NP[name]).view(f"u{size}")[0])
    return bits


_INTEGRAL: dict[tuple[str, int], int] = {}


# --- the oracle of each modelled op (the project's tests check they agree with the op registry) ---
ORACLES: dict[str, Callable[..., Any]] = {
    "CreateMask": create_mask_oracle,
    "UpdateMask": update_mask_oracle,
    "CreateAddrReg": create_addr_reg_oracle,
    "LoadAlign": load_oracle,
    "StoreAlign": store_oracle,
    "LoadAlign/mask": mask_load_oracle,
    "StoreAlign/mask": mask_store_oracle,
    "LoadAlign/dual": load_dist_oracle,
    "StoreAlign/dual": store_dist_oracle,
    "LoadAlign/block": block_load_oracle,
    "StoreAlign/block": block_store_oracle,
    "LoadUnAlignPre": unaligned_load_oracle,
    "LoadUnAlign": unaligned_load_oracle,
    "Load": unaligned_load_oracle,
    "StoreUnAlign": unaligned_store_oracle,
    "StoreUnAlignPost": unaligned_store_oracle,
    "StoreUnAlign/mask": mask_unaligned_bytes,
    "Store": unaligned_store_oracle,
    "Store/count": unaligned_store_oracle,
    "Gather/ub": gather_oracle,
    "GatherB": gatherb_oracle,
    "Scatter": scatter_oracle,
    "Add": add_oracle,
    "Sub": sub_oracle,
    "Add/carry": carry_oracle,
    "Sub/carry": carry_oracle,
    "AddC": carry_oracle,
    "SubC": carry_oracle,
    **dict.fromkeys(
        ("Abs", "Relu", "Neg", "Mul", "Max", "Min", "Prelu", "Adds", "Muls", "Maxs", "Mins", "LeakyRelu"), arith_oracle
    ),
    **dict.fromkeys(("AbsSub", "Axpy", "MulAddDst", "MulDstAdd"), arith_oracle),
    "Abs/complex": complex_abs_oracle,
    "Mull": mull_oracle,
    "Not": logic_oracle,
    "And": logic_oracle,
    "Or": logic_oracle,
    "Xor": logic_oracle,
    "Not/mask": mask_logic_oracle,
    "And/mask": mask_logic_oracle,
    "Or/mask": mask_logic_oracle,
    "Xor/mask": mask_logic_oracle,
    "Select/mask": mask_logic_oracle,
    "ShiftLeft": shift_oracle,
    "ShiftRight": shift_oracle,
    "ShiftLefts": shift_oracle,
    "ShiftRights": shift_oracle,
    "Compare": compare_oracle,
    "Compares": compare_oracle,
    "Select": select_oracle,
    "MoveMask": move_mask_oracle,
    "MaskGenWithRegTensor": mask_gen_oracle,
    "Duplicate": duplicate_oracle,
    "Duplicate/masked": duplicate_oracle,
    "Duplicate/reg": duplicate_reg_oracle,
    "Arange": arange_oracle,
    "Gather/reg": register_gather_oracle,
    "Interleave": interleave_oracle,
    "DeInterleave": deinterleave_oracle,
    "Interleave/mask": mask_interleave_oracle,
    "DeInterleave/mask": mask_deinterleave_oracle,
    "Pack": pack_oracle,
    "UnPack": unpack_oracle,
    "Pack/mask": mask_pack_oracle,
    "UnPack/mask": mask_unpack_oracle,
    "Squeeze": squeeze_oracle,
    "Unsqueeze": unsqueeze_oracle,
    "Histograms": histograms_oracle,
    "Move": move_oracle,
    "Move/masked": move_oracle,
    "Move/mask": mask_move_oracle,
    "Reduce": reduce_oracle,
    "ReduceDataBlock": reduce_data_block_oracle,
    "PairReduceElem": pair_reduce_oracle,
    "LocalMemBar": local_mem_bar_oracle,
    "ClearSpr": ar_oracle,
    "StoreUnAlign/ar": ar_store_oracle,
    "StoreUnAlignPost/ar": ar_store_oracle,
    "Cast": cast_value,
    "Truncate": truncate_value,
}


# --- Div, Sqrt, Exp (the Div, Sqrt and Exp pages) ---------------------------------------------------------
#: the algorithms that keep subnormals (by name; every other one flushes them, the pages' "配置Subnormal模式")
KEEPS_SUBNORMALS = frozenset({"PRECISION_0ULP_FTZ_FALSE", "PRECISION_1ULP_FTZ_FALSE", "FAST_INVERSE"})


def _daz(x: float, name: str, ftz: bool) -> float:
    """x, or a zero of its sign when flushing and x is subnormal."""
    _, emin, _ = FORMAT[name]
    if ftz and x != 0 and math.isfinite(x) and abs(x) < 2.0**emin:
        return math.copysign(0.0, x)
    return x


def _finish(r: float, negative: bool, name: str, ftz: bool) -> Any:
    """A rounded magnitude with its sign, flushed when subnormal and flushing."""
    return FLOATS[name](_daz(-r if negative else r, name, ftz))


def div_oracle(name: str, a: float, b: float, algo: str = "INTRINSIC") -> Any:
    """a / b rounded once from the exact rational quotient; IEEE 754 special cases; FTZ of inputs
    and result unless the algorithm keeps subnormals. Integer types: `int_div_oracle`."""
    if name in SIGNED or name in UNSIGNED:
        return int_div_oracle(name, int(a), int(b))
    ftz = algo not in KEEPS_SUBNORMALS
    a, b = _daz(a, name, ftz), _daz(b, name, ftz)
    negative = math.copysign(1.0, a) * math.copysign(1.0, b) < 0
    if math.isnan(a) or math.isnan(b) or (a == 0 and b == 0) or (math.isinf(a) and math.isinf(b)):
        return FLOATS[name](math.nan)
    if math.isinf(a) or b == 0:
        return FLOATS[name](-math.inf if negative else math.inf)
    if math.isinf(b) or a == 0:
        return FLOATS[name](-0.0 if negative else 0.0)
    return _finish(round_exact(abs(Fraction(a) / Fraction(b)), name), negative, name, ftz)


def complex_div_oracle(name: str, a: complex, b: complex, algo: str = "INTRINSIC", half_sat: bool = False) -> tuple[Any, Any]:
    """ComplexDivKernel (Smith's algorithm), each step one op of the component type: the divisions by
    `div_oracle` (FTZ per `algo`), products, sums and differences rounded once, |x| exact; every half
    step saturated in the CTRL[48] mode. Branch: |c| >= |d| (c = b.real, d = b.imag; a NaN compares
    false), or c = d = 0 (a.real / |c|, a.imag / |d|)."""
    comp = "half" if name == "complex32" else "float32"

    def s(v: Any) -> float:
        return float(_sat_half(v, half_sat and comp == "half"))

    def dv(p: float, q: float) -> float:
        return s(div_oracle(comp, p, q, algo))

    def ml(p: float, q: float) -> float:
        return s(_rnd(p * q, comp))

    def ad(p: float, q: float) -> float:
        return s(float_add(comp, p, q))

    def sb(p: float, q: float) -> float:
        return s(float_sub(comp, p, q))

    ar, ai, c, d = float(a.real), float(a.imag), float(b.real), float(b.imag)
    abs_c, abs_d = s(abs(c)), s(abs(d))
    if abs_c >= abs_d and abs_c == 0 and abs_d == 0:
        re, im = dv(ar, abs_c), dv(ai, abs_d)
    elif abs_c >= abs_d:
        rat = dv(d, c)
        scl = dv(1.0, ad(c, ml(d, rat)))
        re, im = ml(ad(ar, ml(ai, rat)), scl), ml(sb(ai, ml(ar, rat)), scl)
    else:
        rat = dv(c, d)
        scl = dv(1.0, ad(d, ml(c, rat)))
        re, im = ml(ad(ml(ar, rat), ai), scl), ml(sb(ml(ai, rat), ar), scl)
    return FLOATS[comp](re), FLOATS[comp](im)


def int_div_oracle(name: str, a: int, b: int) -> int:
    """Integer a / b (values, Python ints) as C: the quotient truncated toward zero, wrapped to the type
    (MIN / -1 = MIN); a / 0 = all ones (-1 signed, the maximum unsigned). Returns the value."""
    bits = 8 * ITEMSIZE[name]
    signed = name in SIGNED
    if b == 0:
        return -1 if signed else (1 << bits) - 1
    q = abs(a) // abs(b)
    if (a < 0) != (b < 0):
        q = -q
    return wrap(q, bits, signed)


def sqrt_oracle(name: str, a: float, algo: str = "INTRINSIC") -> Any:
    """sqrt(a) rounded once: the exact root's integer part at 2**-300 resolution plus a sticky
    2**-302 when inexact (an irrational root has no tie, so this rounds as the root does)."""
    ftz = algo not in KEEPS_SUBNORMALS
    a = _daz(a, name, ftz)
    if math.isnan(a) or a < 0:
        return FLOATS[name](math.nan)
    if a == 0 or math.isinf(a):
        return FLOATS[name](a)
    scale = 300
    q = Fraction(a) * Fraction(4) ** scale
    n, d = q.numerator, q.denominator
    root = math.isqrt(n * d)  # sqrt(n/d) = sqrt(n*d)/d
    exact = Fraction(root, d)
    if root * root != n * d:
        exact += Fraction(1, 4 * d)  # sticky: strictly between root/d and (root+1)/d
    r = round_exact(exact / Fraction(2) ** scale, name)
    return _finish(r, False, name, ftz)


def exp_reference(x: float) -> float:
    """e**x in float64 (math.exp: error under 1 ulp of float64), the reference Exp is measured against."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def ulp_distance(got: float, want: float, name: str) -> float:
    """|got - want| in units of the last place of `name` at `want` (subnormal spacing below the
    normal range; infinities as ±2**(emax+1)); 0 when both are NaN, inf when only one is."""
    if math.isnan(got) or math.isnan(want):
        return 0.0 if math.isnan(got) and math.isnan(want) else math.inf
    if got == want:
        return 0.0
    p, emin, emax = FORMAT[name]
    beyond = 2.0 ** (emax + 1)  # an infinity counts as the value one ulp past the largest finite one
    got, want = (math.copysign(min(abs(v), beyond), v) for v in (got, want))
    e = max(math.frexp(want)[1] - 1 if want else emin, emin)
    return abs(got - want) / 2.0 ** (e - p + 1)


def exp_special_oracle(name: str, a: float, algo: str = "INTRINSIC") -> Any:
    """Exp's exact cases: NaN → NaN, +inf → +inf, -inf → +0, ±0 (and, flushing, subnormals) → 1;
    None for other inputs (measured in ulps against `exp_reference`)."""
    a = _daz(a, name, algo not in KEEPS_SUBNORMALS)
    if math.isnan(a):
        return FLOATS[name](math.nan)
    if math.isinf(a):
        return FLOATS[name](math.inf if a > 0 else 0.0)
    if a == 0:
        return FLOATS[name](1.0)
    return None


def flushed_input(name: str, a: float, algo: str = "INTRINSIC") -> float:
    """The input an algorithm computes with: a subnormal is a zero of its sign unless it keeps subnormals."""
    return _daz(a, name, algo not in KEEPS_SUBNORMALS)


def log_reference(base: float, x: float) -> float:
    """log_base(x) in float64 (math.log / log2 / log10: under 1 ulp of float64); log(±0) = -inf,
    log(x < 0) and log(-inf) NaN, log(+inf) = +inf (the boundary-value appendix's table 2)."""
    if math.isnan(x) or x < 0:
        return math.nan
    if x == 0:
        return -math.inf
    if math.isinf(x):
        return math.inf
    return math.log2(x) if base == 2 else math.log10(x) if base == 10 else math.log(x)


ORACLES.update(
    {
        "Ln": log_reference,
        "Ln/specific": log_reference,
        "Log": log_reference,
        "Log/specific": log_reference,
        "Log2": log_reference,
        "Log2/specific": log_reference,
        "Log10": log_reference,
        "Log10/specific": log_reference,
        "Div": div_oracle,
        "Div/specific": div_oracle,
        "Sqrt": sqrt_oracle,
        "Sqrt/specific": sqrt_oracle,
        "Exp": exp_reference,
        "Exp/specific": exp_reference,
    }
)


# --- ExpSub and MulsCast (the 复合计算 pages of those names; the precision appendix's definitions) -------
def exp_sub_reference(x: float, y: float) -> tuple[Any, float]:
    """ExpSub = Exp(Sub(cast_to_f32(x), cast_to_f32(y))) (the precision appendix): the difference of
    the (exactly widened) sources rounded once to float32 from exact rationals (IEEE 754 specials,
    an exactly zero difference signed as IEEE 754 gives it), then Exp of it: returns (Exp's exact
    result for that difference or None, e**difference in float64), as `exp_special_oracle` and
    `exp_reference` do for Exp (the default algorithm: a subnormal difference is a zero)."""
    if not (math.isfinite(x) and math.isfinite(y)):
        d = x - y
    else:
        exact = Fraction(x) - Fraction(y)
        d = x - y if exact == 0 else round_exact(exact, "float32")  # an exact zero: Python gives IEEE's sign
    return exp_special_oracle("float32", d), exp_reference(d)


def muls_cast_oracle(x: float, scalar: float, half_sat: bool = False) -> int:
    """MulsCast (the MulsCast page; the precision appendix's cast_to_f16<roundingmode>(x * y)): the
    exact product (a float64: 24 + 24 significant bits) rounded once to half with CAST_ROUND, ties away
    from zero; subnormal halves kept; past the largest half's rounding range ±inf; inf·0 and NaN give
    NaN. half_sat: the CTRL[48] saturation mode (±inf → ±65504, NaN → 0). Returns the half's code."""
    p = x * scalar
    if math.isnan(p):
        return 0 if half_sat else 0x7E00
    sign = 0x8000 if math.copysign(1.0, p) < 0 else 0
    if math.isinf(p):
        code = 0x7C00
    else:
        code = round_to_list(abs(p), _finite_codes("half"), "round")[1]
    if code >= 0x7C00:
        code = 0x7BFF if half_sat else 0x7C00
    return sign | code


ORACLES.update({"ExpSub": exp_sub_reference, "MulsCast": muls_cast_oracle})
