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
    }
    h = flt[api]
    # float64 holds the exact sum/product of two half/bfloat16/float32 values: one rounding to the type
    return lambda *xs: np.array(h(*(float(x) for x in xs)), dtype=np.float64).astype(dtype)[()]


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


# --- the memory-level C API compares (asc_eq ... asc_le, the C-API vector_compute pages) ------------------------
COMPARES: dict[str, Callable[[Any, Any], bool]] = {
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "gt": lambda a, b: a > b,
    "ge": lambda a, b: a >= b,
    "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b,
}


def _py(x: Any) -> Any:
    """An element as a Python number: ints exactly, floats as float (IEEE: NaN unordered, -0 == +0)."""
    v = np.asarray(x)
    return int(v) if v.dtype.kind in _INT_KINDS else float(v)


def compare_bits(
    cmp: str,
    dst: npt.NDArray[np.uint8],
    src0: npt.NDArray[Any],
    src1: npt.NDArray[Any] | None,
    scalar: Any,
    repeats: int,
    strides: Sequence[int],
) -> npt.NDArray[np.uint8]:
    """The bit-array form (asc_<cmp>(dst, src0, src1, ...) / asc_<cmp>_scalar(dst, src, value, ...)): every
    element k of repeat r (the mask has no effect) read as in `repeat_interface`; its result is bit k % 8 of
    byte r * dstRepStride * 32 + k // 8 of dst (little-endian bit order); each repeat writes its
    256 / sizeof(T) / 8 bytes whole. `strides`: (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep) in
    DataBlocks (the scalar form: src1's entries unused)."""
    out = dst.copy()
    e = BLOCK_BYTES // src0.dtype.itemsize
    lanes = REPEAT_BYTES // src0.dtype.itemsize
    f = COMPARES[cmp]
    for r in range(repeats):
        byte0 = r * strides[3] * BLOCK_BYTES
        for k in range(lanes):
            b, pos = divmod(k, e)
            a = _py(src0[r * strides[4] * e + b * strides[1] * e + pos])
            other = (
                _py(np.asarray(scalar).astype(src0.dtype))
                if src1 is None
                else _py(src1[r * strides[5] * e + b * strides[2] * e + pos])
            )
            bit = 1 << (k % 8)
            if f(a, other):
                out[byte0 + k // 8] |= bit
            else:
                out[byte0 + k // 8] &= ~bit & 0xFF
    return out


def compare_cmp_mask(
    cmp: str,
    old: int,
    src0: npt.NDArray[Any],
    src1: npt.NDArray[Any],
    selected: Sequence[bool],
    blk0: int,
    blk1: int,
) -> int:
    """The register form (asc_<cmp>(src0, src1, ...)): one repeat; element k (read with the block strides)
    sets bit k of the 128-bit compare-mask register where `selected[k]`; every other bit keeps its value
    (the page: a mask bit of 0 leaves the register's bit unchanged)."""
    e = BLOCK_BYTES // src0.dtype.itemsize
    f = COMPARES[cmp]
    new = old
    for k, sel in enumerate(selected):
        if not sel:
            continue
        b, pos = divmod(k, e)
        if f(_py(src0[b * blk0 * e + pos]), _py(src1[b * blk1 * e + pos])):
            new |= 1 << k
        else:
            new &= ~(1 << k)
    return new
