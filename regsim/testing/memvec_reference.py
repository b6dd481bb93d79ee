"""Independent oracles for the memory-level (LocalTensor) APIs: the addressing model of the "高维切分API"
pages (repeat, DataBlock, block and repeat strides, mask continuous / bit / counter modes) and the
element operations, written from the Ascend C pages without importing regsim.

Elements are Python values (ints; floats in float64 rounded once to the element type). Tensors are
numpy arrays of the element type, indexed in elements from the tensor's start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

BLOCK_BYTES = 32  #: one DataBlock
REPEAT_BYTES = 256  #: one repeat = 8 DataBlocks

#: element operations by API name; a, b are numpy scalars of the element type
_INT_KINDS = "iu"


def element_op(api: str, np_dtype: Any) -> Callable[..., Any]:
    """The per-element function of an API on values of `np_dtype` (returned as that type); a tensor-scalar
    API (`Adds` ...) is its tensor-tensor twin with the scalar as the second operand."""
    dtype = np.dtype(np_dtype)
    api = {"Adds": "Add", "Muls": "Mul", "Maxs": "Max", "Mins": "Min"}.get(api, api)
    if dtype.kind in _INT_KINDS:
        bits = dtype.itemsize * 8
        signed = dtype.kind == "i"

        def wrap(v: int) -> Any:
            v &= (1 << bits) - 1
            if signed and v >> (bits - 1):
                v -= 1 << bits
            return np.array(v).astype(dtype)[()]

        int_ops: dict[str, Callable[..., int]] = {
            "Add": lambda a, b: a + b,
            "Sub": lambda a, b: a - b,
            "Mul": lambda a, b: a * b,
            "Max": max,
            "Min": min,
            "Abs": abs,  # wraps: Abs(INT_MIN) = INT_MIN
            "Relu": lambda a: max(a, 0),
            "And": lambda a, b: a & b,
            "Or": lambda a, b: a | b,
            "Not": lambda a: ~a,
            "Duplicate": lambda a: a,
            "ShiftLeft": lambda a, k: _shift(dtype, a, k, left=True),
            "ShiftRight": lambda a, k: _shift(dtype, a, k, left=False),
        }
        f = int_ops[api]
        return lambda *xs: wrap(f(*(int(x) for x in xs)))
    if api == "Not":  # bitwise on any type: the element's bits inverted
        unsigned = np.dtype(f"u{dtype.itemsize}")
        return lambda a: (~np.array(a, dtype=dtype).view(unsigned)).view(dtype)[()]
    if dtype.kind == "c" or dtype.name == "complex32":
        cplx: dict[str, Callable[..., complex]] = {
            "Add": lambda a, b: a + b,
            "Sub": lambda a, b: a - b,
            "Mul": lambda a, b: a * b,  # exact for the small integer-valued parts the tests use
        }
        g = cplx[api]
        return lambda *xs: np.array(g(*(complex(x) for x in xs))).astype(dtype)[()]
    flt: dict[str, Callable[..., float]] = {
        "Add": lambda a, b: a + b,
        "Sub": lambda a, b: a - b,
        "Mul": lambda a, b: a * b,
        "Max": max,
        "Min": min,
        "Abs": abs,
        "Relu": lambda a: a if a > 0 else 0.0,
        "Duplicate": lambda a: a,
    }
    h = flt[api]
    # float64 holds the exact sum/product of two half/bfloat16/float32 values: one rounding to the type
    return lambda *xs: np.array(h(*(float(x) for x in xs)), dtype=np.float64).astype(dtype)[()]


def _shift(dtype: np.dtype[Any], value: int, amount: int, left: bool) -> int:
    """The ShiftLeft / ShiftRight pages' shift of one element by a scalar amount (passed on as int16_t), as the
    Reg oracle computes it (64-bit types: the library's composition of 32-bit shifts)."""
    from regsim.testing.reference import shift_oracle

    return shift_oracle(dtype.name, left, [value], [amount], [True], scalar_form=True)[0]


def _operands(srcs: Sequence[npt.NDArray[Any]], scalar: Any, dtype: Any) -> Callable[[list[Any]], list[Any]]:
    if scalar is None:
        return lambda xs: xs
    value = np.array(scalar).astype(dtype)[()]
    return lambda xs: [*xs, value]


def first_n(
    api: str, dst: npt.NDArray[Any], srcs: Sequence[npt.NDArray[Any]], count: int, scalar: Any = None
) -> npt.NDArray[Any]:
    """The tensor 前n个数据计算 interface: dst[i] = op(src0[i][, src1[i] or scalar]) for i < count; the rest unchanged."""
    out = dst.copy()
    f = element_op(api, dst.dtype)
    args = _operands(srcs, scalar, dst.dtype)
    for i in range(count):
        out[i] = f(*args([s[i] for s in srcs]))
    return out


def mask_elements(itemsize: int, mask: int | Sequence[int]) -> list[bool]:
    """The elements of one repeat a normal-mode mask selects: continuous `mask` = the first `mask`;
    bit mode `[mask0, mask1]`: element k ↔ bit k of mask0 (k < 64), bit k - 64 of mask1."""
    lanes = REPEAT_BYTES // itemsize
    if isinstance(mask, int):
        return [k < mask for k in range(lanes)]
    lo, hi = int(mask[0]), int(mask[1])
    return [bool((lo >> k if k < 64 else hi >> (k - 64)) & 1) for k in range(lanes)]


def repeat_interface(
    api: str,
    dst: npt.NDArray[Any],
    srcs: Sequence[npt.NDArray[Any]],
    selected: Callable[[int, int], bool],
    repeats: int,
    strides: Sequence[int],
    scalar: Any = None,
) -> npt.NDArray[Any]:
    """The 高维切分 interface: repeat r, element k (DataBlock k // E, position k % E, E elements per
    DataBlock) reads each src at r * srcRepStride * E + (k // E) * srcBlkStride * E + k % E and writes
    dst likewise, for each (r, k) that `selected(r, k)`; repeats run in order. `strides` in DataBlocks,
    in the repeat-parameter struct's order: (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)
    (BinaryRepeatParams) or (dstBlk, srcBlk, dstRep, srcRep) (UnaryRepeatParams)."""
    out = dst.copy()
    e = BLOCK_BYTES // dst.dtype.itemsize
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    half = len(strides) // 2
    blk, rep = strides[:half], strides[half:]
    f = element_op(api, dst.dtype)
    args = _operands(srcs, scalar, dst.dtype)
    for r in range(repeats):
        vals: list[tuple[int, Any]] = []
        for k in range(lanes):
            if not selected(r, k):
                continue
            b, pos = divmod(k, e)
            xs = [s[r * rep[1 + j] * e + b * blk[1 + j] * e + pos] for j, s in enumerate(srcs)]
            vals.append((r * rep[0] * e + b * blk[0] * e + pos, f(*args(xs))))
        for addr, v in vals:
            out[addr] = v
    return out


def normal_mode(
    api: str,
    dst: npt.NDArray[Any],
    srcs: Sequence[npt.NDArray[Any]],
    mask: int | Sequence[int],
    repeats: int,
    strides: Sequence[int],
    scalar: Any = None,
) -> npt.NDArray[Any]:
    """Normal mask mode: the same elements of every repeat are selected."""
    sel = mask_elements(dst.dtype.itemsize, mask)
    return repeat_interface(api, dst, srcs, lambda r, k: sel[k], repeats, strides, scalar)


def counter_mode(
    api: str,
    dst: npt.NDArray[Any],
    srcs: Sequence[npt.NDArray[Any]],
    count: int,
    strides: Sequence[int],
    scalar: Any = None,
) -> npt.NDArray[Any]:
    """Counter mask mode (SetMaskCount): `count` elements in all, ceil(count / elements per repeat)
    repeats, every element of a repeat selected but the tail's; repeatTime is not used."""
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    repeats = -(-count // lanes)
    return repeat_interface(api, dst, srcs, lambda r, k: r * lanes + k < count, repeats, strides, scalar)


def touched_elements(itemsize: int, repeats: int, blk: int, rep: int) -> int:
    """Elements from the tensor start to the end of the last DataBlock a repeat-interface operand reaches."""
    e = BLOCK_BYTES // itemsize
    if repeats == 0:
        return 0
    return (repeats - 1) * rep * e + 7 * blk * e + e


def gather(
    dst: npt.NDArray[Any],
    src: npt.NDArray[Any],
    offsets: npt.NDArray[Any],
    base: int,
    selected: Callable[[int, int], bool],
    repeats: int,
    dst_step: int,
) -> npt.NDArray[Any]:
    """The Gather page: element k of repeat r (offset index r * E + k, E = elements per 256 bytes) is the
    element at byte base + srcOffset[r * E + k] from src's start, written to dst[r * dst_step + k]."""
    out = dst.copy()
    raw = src.view(np.uint8)
    w = dst.dtype.itemsize
    lanes = REPEAT_BYTES // w
    for r in range(repeats):
        for k in range(lanes):
            if selected(r, k):
                at = base + int(offsets[r * lanes + k])
                out[r * dst_step + k] = raw[at : at + w].view(dst.dtype)[0]
    return out


# --- Compare / Compares: one result bit per element ---------------------------------------------------------
def _cmp(mode: str, x: Any, y: Any) -> bool:
    """x <mode> y on Python values, as the Reg Compare oracle compares them (IEEE for floats)."""
    from regsim.testing.reference import compare_oracle

    return compare_oracle(mode, [x], [y], [True])[0]


def _value(x: Any) -> Any:
    """An element as a Python int or float (floats exactly: IEEE order, NaN unordered, -0 == +0)."""
    return int(x) if np.asarray(x).dtype.kind in _INT_KINDS else float(x)


def pack_bits(dst: npt.NDArray[np.uint8], bits: Sequence[bool]) -> npt.NDArray[np.uint8]:
    """dst with its first len(bits) / 8 bytes replaced by `bits`, bit i of the array = bit i % 8 of byte i // 8
    (the Compare page: "dst按照小端顺序排序成二进制结果"); the bytes after are unchanged."""
    out = dst.copy()
    packed = np.packbits(np.array(bits, dtype=np.bool_), bitorder="little")
    out[: packed.size] = packed
    return out


def compare_first_n(
    mode: str, dst: npt.NDArray[np.uint8], src0: npt.NDArray[Any], other: Any, count: int, per: int
) -> npt.NDArray[np.uint8]:
    """The first-n interface: bit i = src0[i] <mode> other[i] (a tensor) or other (a scalar) for i < count; the
    rest of the last iteration of `per` elements (256 bytes; 512 for 64-bit types) reads 0."""
    scalar = not isinstance(other, np.ndarray)
    n = -(-count // per) * per
    bits = [i < count and _cmp(mode, _value(src0[i]), _value(other if scalar else other[i])) for i in range(n)]
    return pack_bits(dst, bits)


def compare_repeat(
    mode: str,
    dst: npt.NDArray[np.uint8],
    src0: npt.NDArray[Any],
    other: Any,
    selected: Callable[[int, int], bool],
    repeats: int,
    strides: Sequence[int],
) -> npt.NDArray[np.uint8]:
    """The mask/repeat interfaces: repeat r, element k reads src0 (and a tensor `other`) as `repeat_interface`
    does, strides (src0Blk, src0Rep[, src1Blk, src1Rep]) in DataBlocks; its bit is r * E + k (E elements per
    256 bytes) of dst, packed contiguously (no dst stride), 0 where the mask does not select (r, k)."""
    scalar = not isinstance(other, np.ndarray)
    e = BLOCK_BYTES // src0.dtype.itemsize
    lanes = REPEAT_BYTES // src0.dtype.itemsize

    def at(j: int, r: int, k: int) -> int:
        b, pos = divmod(k, e)
        return r * strides[2 * j + 1] * e + b * strides[2 * j] * e + pos

    bits = []
    for r in range(repeats):
        for k in range(lanes):
            if not selected(r, k):
                bits.append(False)
                continue
            y = other if scalar else other[at(1, r, k)]
            bits.append(_cmp(mode, _value(src0[at(0, r, k)]), _value(y)))
    return pack_bits(dst, bits)


def fill_first_n(dst: npt.NDArray[Any], value_bytes: bytes, count: int) -> npt.NDArray[Any]:
    """Duplicate's first-n interface on raw bytes: elements [0, count) = the value's bytes; the rest unchanged."""
    out = dst.copy()
    raw = out.view(np.uint8)
    w = len(value_bytes)
    raw[: count * w] = np.tile(np.frombuffer(value_bytes, np.uint8), count)
    return out


# --- Select: elements chosen by selMask bits -------------------------------------------------------------------------
def _sel_bit(sel: npt.NDArray[np.uint8], i: int) -> bool:
    return bool(sel[i // 8] >> (i % 8) & 1)


def select_first_n(
    dst: npt.NDArray[Any], sel: npt.NDArray[np.uint8], src0: npt.NDArray[Any], other: Any, mode: int, count: int
) -> npt.NDArray[Any]:
    """The Select page, first-n interface: dst[i] = bit b(i) of selMask ? src0[i] : src1[i] (mode 1: the scalar src1)
    for i < count, b(i) = i % (256 / sizeof(T)) in mode 0 ("多轮迭代均使用相同的selMask有效数值"), i in modes 1 and 2;
    compared and copied as bits."""
    out = dst.copy()
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    for i in range(count):
        b = i % lanes if mode == 0 else i
        out[i] = src0[i] if _sel_bit(sel, b) else (other if not isinstance(other, np.ndarray) else other[i])
    return out


def select_repeat(
    dst: npt.NDArray[Any],
    sel: npt.NDArray[np.uint8],
    src0: npt.NDArray[Any],
    other: Any,
    mode: int,
    selected: Callable[[int, int], bool],
    repeats: int,
    strides: Sequence[int],
) -> npt.NDArray[Any]:
    """The mask/repeat interfaces: repeat r, element k addressed as `repeat_interface` does (BinaryRepeatParams
    strides); where the mask selects (r, k), dst = bit b of selMask ? src0 : src1 (or the scalar), b = k in mode 0,
    r * E + k in modes 1 and 2; elements the mask does not select keep dst's value."""
    out = dst.copy()
    e = BLOCK_BYTES // dst.dtype.itemsize
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    blk, rep = strides[:3], strides[3:]
    for r in range(repeats):
        for k in range(lanes):
            if not selected(r, k):
                continue
            blk_i, pos = divmod(k, e)
            at = [r * rep[j] * e + blk_i * blk[j] * e + pos for j in range(3)]
            b = k if mode == 0 else r * lanes + k
            if _sel_bit(sel, b):
                out[at[0]] = src0[at[1]]
            else:
                out[at[0]] = other if not isinstance(other, np.ndarray) else other[at[2]]
    return out
