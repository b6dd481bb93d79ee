"""Independent oracles for the memory-level (LocalTensor) APIs: the addressing model of the "高维切分API"
pages (repeat, DataBlock, block and repeat strides, mask continuous / bit / counter modes) and the
element operations, written from the Ascend C pages without importing regsim.

Elements are Python values (ints; floats in float64 rounded once to the element type). Tensors are
numpy arrays of the element type, indexed in elements from the tensor's start.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from regsim.testing.reference import cast_saturation, cast_value, compare_oracle, complex_div_oracle, shift_oracle

BLOCK_BYTES = 32  #: one DataBlock
REPEAT_BYTES = 256  #: one repeat = 8 DataBlocks

#: element operations by API name; a, b are numpy scalars of the element type
_INT_KINDS = "iu"


def element_op(api: str, np_dtype: Any) -> Callable[..., Any]:
    """The per-element function of an API on values of `np_dtype` (returned as that type); a tensor-scalar
    API (`Adds` ...) is its tensor-tensor twin with the scalar as the second operand. "Div:ftz" / "Exp:ftz":
    the flushing algorithms ("其他模式下Subnormal均被FTZ"): a subnormal input is a zero of its sign, and so is
    a result that rounds to a subnormal."""
    dtype = np.dtype(np_dtype)
    if api in ("FusedMulAdd", "MulAddRelu", "MulAddDst", "Axpy"):  # (src0, src1 or scalar, the old dst); fused
        return _fma(api, dtype)
    if api.startswith("Truncate:"):  # "Truncate:CAST_FLOOR" ...: to an integral value, the sign of a zero kept
        return _truncate(api.split(":")[1], dtype)
    if api in ("AddRelu", "SubRelu"):  # the pages' max(src0 ± src1, 0): the sum rounded (or wrapped), then Max with 0
        op, mx, zero = element_op(api[:3], np_dtype), element_op("Max", np_dtype), np.zeros((), dtype)[()]
        return lambda a, b: mx(op(a, b), zero)
    if api in ("Rsqrt", "Rsqrt:ftz"):  # the library's composition: 1 / sqrt(x), each step rounded (and flushed: ":ftz")
        return lambda a: _rsqrt(dtype, a, flush=api.endswith(":ftz"))
    if api == "Rsqrt:exact":  # 1 / sqrt(x) rounded once (the Rsqrt page's 0-ulp fast-inverse algorithm on float)
        return lambda a: _rsqrt_exact(dtype, a)
    if api.endswith(":ftz"):
        g = element_op(api[: -len(":ftz")], np_dtype)
        tiny = float(np.finfo(dtype).tiny)

        def flush(x: Any) -> Any:
            x = np.array(x, dtype=dtype)[()]
            return np.array(math.copysign(0.0, float(x)), dtype=dtype)[()] if 0 < abs(float(x)) < tiny else x

        return lambda *xs: flush(g(*(flush(x) for x in xs)))
    twins = {"Adds": "Add", "Muls": "Mul", "Maxs": "Max", "Mins": "Min", "Subs": "Sub", "Divs": "Div", "Ands": "And", "Ors": "Or"}
    api = twins.get(api, api)
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
            "Div": _int_div,
            "Max": max,
            "Min": min,
            "Abs": abs,  # wraps: Abs(INT_MIN) = INT_MIN
            "Relu": lambda a: max(a, 0),
            "And": lambda a, b: a & b,
            "Or": lambda a, b: a | b,
            "Not": lambda a: ~a,
            "Neg": lambda a: -a,  # wraps: Neg(INT_MIN) = INT_MIN
            "Reciprocal": lambda a: _int_div(1, a),  # the library's comparisons: 1 / 0 all ones, 1, -1, else 0
            "Duplicate": lambda a: a,
            "ShiftLeft": lambda a, k: _shift(dtype, a, k, left=True),
            "ShiftRight": lambda a, k: _shift(dtype, a, k, left=False),
            # a tensor of shift amounts (the pages "ShiftLeft（左移位数为Tensor）", "ShiftRight（右移位数为Tensor）")
            "ShiftLeft:tensor": lambda a, k: _shift(dtype, a, k, left=True, scalar_form=False),
            "ShiftRight:tensor": lambda a, k: _shift(dtype, a, k, left=False, scalar_form=False),
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
        if api == "Div":  # every algorithm complex Div takes flushes (the Div page's Subnormal modes)
            return lambda a, b: _complex_div(dtype, a, b)
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
        # float64 quotient rounded once: 53 >= 2 * 24 + 2, the double rounding is innocuous; x / ±0 = ±inf (x != 0)
        "Div": lambda a, b: a / b if b else math.copysign(math.inf, a) * math.copysign(1.0, b),
        "Exp": math.exp,  # float64 e**x (under 1 ulp of float64) rounded once
        # the LeakyRelu page's src >= 0 ? src : src * scalar, by the sign bit
        # (docs/decisions/arithmetic.md#signbit-prelu-leakyrelu); the float64
        # product of two half or float32 values is exact, so it is rounded once
        "LeakyRelu": lambda a, k: a * k if math.copysign(1.0, a) < 0 else a,
        "Prelu": lambda a, k: a * k if math.copysign(1.0, a) < 0 else a,  # (the Prelu page: src1 is the slope)
        "AbsSub": lambda a, b: abs(a - b),  # the float64 difference is exact: rounded once
        "Duplicate": lambda a: a,
        "Neg": lambda a: -a,
        "Ln": lambda a: _ieee(math.log, a),
        "Sqrt": lambda a: _ieee(math.sqrt, a),
        "Reciprocal": lambda a: 1.0 / a if a else math.copysign(math.inf, a),
    }
    h = flt[api]

    # float64 holds the exact sum/product of two half/bfloat16/float32 values: one rounding to the type
    def rounded(*xs: Any) -> Any:
        with np.errstate(over="ignore"):  # (a result past the type's range is its infinity)
            return np.array(h(*(float(x) for x in xs)), dtype=np.float64).astype(dtype)[()]

    return rounded


def _fma(api: str, dtype: np.dtype[Any]) -> Callable[..., Any]:
    """FusedMulAdd: src0 * dst + src1; MulAddRelu: that, then Max with 0; MulAddDst: src0 * src1 + dst; Axpy: src *
    scalar + dst (bfloat16: the product rounded, then the sum: the library's Mul and Add). Integers wrap; floats are
    the exact value rounded once to the type (`_round_exact`), also with half sources and a float dst (the MulAddDst
    and Axpy "half half float" rows: the half values are exact in float)."""
    mx, zero = element_op("Max", dtype), np.zeros((), dtype)[()]
    if api == "Axpy" and dtype.name == "bfloat16":
        mul, add = element_op("Mul", dtype), element_op("Add", dtype)
        return lambda a, k, d: add(mul(a, k), d)

    def exact(a: Any, b: Any, d: Any) -> Any:
        x, y, z = (a, b, d) if api in ("MulAddDst", "Axpy") else (a, d, b)
        if dtype.kind in _INT_KINDS:
            bits = dtype.itemsize * 8
            v = (int(x) * int(y) + int(z)) & (1 << bits) - 1
            return np.array(v, np.uint64).astype(f"u{dtype.itemsize}").view(dtype)[()]
        fx, fy, fz = float(x), float(y), float(z)
        if not all(math.isfinite(v) for v in (fx, fy, fz)):  # IEEE's infinities and NaNs (no rounding to do)
            with np.errstate(invalid="ignore"):
                return np.array(fx * fy + fz, dtype=np.float64).astype(dtype)[()]
        q = Fraction(fx) * Fraction(fy) + Fraction(fz)
        if q == 0:  # an exact zero takes IEEE's sign: -0 only for (-0 product) + (-0); float64 has the product exactly
            return np.array(fx * fy + fz, dtype=np.float64).astype(dtype)[()]
        return _round_exact(q, dtype)

    if api == "MulAddRelu":
        return lambda a, b, d: mx(exact(a, b, d), zero)
    return exact


#: (significand bits, smallest normal exponent, largest exponent) of the float types, by name
_FORMATS = {"float16": (11, -14, 15), "bfloat16": (8, -126, 127), "float32": (24, -126, 127)}


def _round_exact(q: Fraction, dtype: np.dtype[Any]) -> Any:
    """The rational q rounded once to `dtype` (nearest, ties to even; past the largest finite: inf)."""
    p, emin, emax = _FORMATS[dtype.name]
    if q == 0:
        return np.zeros((), dtype)[()]
    sign, m = (-1 if q < 0 else 1), abs(q)
    e = m.numerator.bit_length() - m.denominator.bit_length()  # 2**e <= m < 2**(e + 2)
    while Fraction(2) ** (e + 1) <= m:
        e += 1
    while Fraction(2) ** e > m:
        e -= 1
    ulp = Fraction(2) ** (max(e, emin) - p + 1)
    n = m / ulp
    k = n.numerator // n.denominator
    rest = n - k
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and k % 2):
        k += 1
    v = k * ulp
    if v >= Fraction(2) ** (emax + 1):
        return np.array(sign * math.inf, dtype=dtype)[()]
    return np.array(sign * float(v), dtype=np.float64).astype(dtype)[()]


def _truncate(mode: str, dtype: np.dtype[Any]) -> Callable[[Any], Any]:
    """The Truncate page's round modes on one element: CAST_RINT nearest (ties to even), CAST_ROUND nearest (ties away
    from zero), CAST_FLOOR, CAST_CEIL, CAST_TRUNC; infinities stay, -0.3 gives -0 (numpy's float64 functions)."""
    f: dict[str, Callable[[np.float64], np.float64]] = {
        "CAST_RINT": np.rint,
        "CAST_ROUND": lambda x: np.copysign(np.floor(np.abs(x) + 0.5), x),
        "CAST_FLOOR": np.floor,
        "CAST_CEIL": np.ceil,
        "CAST_TRUNC": np.trunc,
    }
    g = f[mode]
    return lambda a: np.array(g(np.float64(float(a))), np.float64).astype(dtype)[()]


def _ieee(f: Callable[[float], float], a: float) -> float:
    """f of a in float64, the IEEE special cases of log and sqrt included (log(±0) = -inf, log(x < 0) = NaN, sqrt(x < 0)
    = NaN; sqrt(-0) = -0, log(+inf) = sqrt(+inf) = +inf)."""
    if math.isnan(a):
        return a
    if f is math.log and a == 0:
        return -math.inf
    if a < 0:
        return math.nan
    return f(a)


def _rsqrt(dtype: np.dtype[Any], a: Any, flush: bool) -> Any:
    """round(1 / round(sqrt(x))) in `dtype`; `flush`: subnormal inputs and results of each step are zeros of their sign."""
    tiny = float(np.finfo(dtype).tiny)

    def r(x: float) -> Any:
        v = np.array(x, dtype=np.float64).astype(dtype)[()]
        return np.array(math.copysign(0.0, float(v)), dtype=dtype)[()] if flush and 0 < abs(float(v)) < tiny else v

    x = r(float(a))
    s = r(_ieee(math.sqrt, float(x)))
    if math.isnan(float(s)):
        return s
    return r(1.0 / float(s) if s else math.copysign(math.inf, float(s)))


def _rsqrt_exact(dtype: np.dtype[Any], a: Any) -> Any:
    """1 / sqrt(a) correctly rounded to `dtype` (float64 sqrt and quotient: the double rounding is innocuous for
    float32 results), subnormals kept; +0 → +inf, -0 → -inf, +inf → +0, a < 0 NaN."""
    x = float(a)
    if x == 0:
        return np.array(math.copysign(math.inf, x), dtype=dtype)[()]
    if math.isnan(x) or x < 0:
        return np.array(math.nan, dtype=dtype)[()]
    return np.array(0.0 if math.isinf(x) else 1.0 / math.sqrt(x), dtype=np.float64).astype(dtype)[()]


def _int_div(a: int, b: int) -> int:
    """C's integer quotient, truncated toward zero (wrapped by the caller: MIN / -1 = MIN); a / 0 is all ones
    (-1, wrapped to the maximum of an unsigned type), the 950 Div's result for a zero divisor."""
    if b == 0:
        return -1
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _complex_div(dtype: np.dtype[Any], a: Any, b: Any) -> Any:
    """The Div page's complex quotient, Smith's algorithm step by step in the component type, as the Reg
    oracle computes it (launch CTRL: no half saturation)."""

    name = "complex32" if dtype.name == "complex32" else "complex64"
    parts = complex_div_oracle(name, complex(a), complex(b))  # (NaN components: any NaN, the tests compare them as NaN)
    comp = np.float16 if name == "complex32" else np.float32
    return np.array(parts, comp).view(dtype)[0]


def _shift(dtype: np.dtype[Any], value: int, amount: int, left: bool, scalar_form: bool = True) -> int:
    """The ShiftLeft / ShiftRight pages' shift of one element by a scalar amount (passed on as int16_t; `scalar_form`)
    or by an element of a shift-amount tensor, as the Reg oracle computes it (64-bit types: the library's
    composition of 32-bit shifts)."""

    return shift_oracle(dtype.name, left, [value], [amount], [True], scalar_form=scalar_form)[0]


def _operands(
    srcs: Sequence[npt.NDArray[Any]], scalar: Any, dtype: Any, scalar_first: bool = False
) -> Callable[[list[Any]], list[Any]]:
    if scalar is None:
        return lambda xs: xs
    value = np.array(scalar).astype(dtype)[()]
    if scalar_first:  # the flexible-scalar pages' "dst_i = op(scalar, src_i)"
        return lambda xs: [value, *xs]
    return lambda xs: [*xs, value]


def first_n(
    api: str,
    dst: npt.NDArray[Any],
    srcs: Sequence[npt.NDArray[Any]],
    count: int,
    scalar: Any = None,
    scalar_first: bool = False,
    dst_input: bool = False,
) -> npt.NDArray[Any]:
    """The tensor 前n个数据计算 interface: dst[i] = op(src0[i][, src1[i] or scalar]) for i < count (`scalar_first`:
    op(scalar, src[i]); `dst_input`: dst[i] is the last operand); the rest unchanged."""
    out = dst.copy()
    f = element_op(api, dst.dtype)
    args = _operands(srcs, scalar, dst.dtype, scalar_first)
    for i in range(count):
        out[i] = f(*args([s[i] for s in srcs]), *([dst[i]] if dst_input else []))
    return out


def mull_first_n(
    dst0: npt.NDArray[Any], dst1: npt.NDArray[Any], src0: npt.NDArray[Any], src1: npt.NDArray[Any], count: int
) -> tuple[npt.NDArray[Any], npt.NDArray[Any]]:
    """The Mull page: the 64-bit product of src0[i] and src1[i] (signed or unsigned as the type), its low 32 bits to
    dst0[i] and its high 32 bits to dst1[i] for i < count; the rest unchanged."""
    lo, hi = dst0.copy(), dst1.copy()
    for i in range(count):
        p = int(src0[i]) * int(src1[i]) & (1 << 64) - 1
        lo[i : i + 1] = np.array([p & 0xFFFFFFFF], np.uint32).view(dst0.dtype)
        hi[i : i + 1] = np.array([p >> 32], np.uint32).view(dst0.dtype)
    return lo, hi


def brcb(
    dst: npt.NDArray[Any], src: npt.NDArray[Any], repeat_time: int, dst_blk_stride: int, dst_rep_stride: int
) -> npt.NDArray[Any]:
    """The Brcb page's pseudocode: for repeat i and j < 8, src[8 i + j] fills the 32-byte DataBlock of dst starting
    32 * (i * dstRepStride + j * dstBlkStride) bytes from dst's start; repeats and blocks in order."""
    out = dst.copy()
    e = BLOCK_BYTES // dst.dtype.itemsize
    for i in range(repeat_time):
        for j in range(8):
            start = (i * dst_rep_stride + j * dst_blk_stride) * e
            out[start : start + e] = src[i * 8 + j]
    return out


def index_value(np_dtype: Any, first: Any, r: int, k: int) -> Any:
    """The CreateVecIndex value of lane k in register (repeat) r: integers first + r * lanes + k, wrapped; floats as the
    library reaches it, first + k rounded to the type, then + lanes rounded, once per register (Arange, then Adds)."""
    dtype = np.dtype(np_dtype)
    lanes = REPEAT_BYTES // dtype.itemsize
    if dtype.kind in _INT_KINDS:
        bits = dtype.itemsize * 8
        v = (int(first) + r * lanes + k) & (1 << bits) - 1
        return np.array(v, np.uint64).astype(f"u{dtype.itemsize}").view(dtype)[()]
    v = np.array(float(first) + k, np.float64).astype(dtype)[()]
    for _ in range(r):
        v = np.array(float(v) + lanes, np.float64).astype(dtype)[()]
    return v


def create_vec_index_first_n(dst: npt.NDArray[Any], first: Any, count: int) -> npt.NDArray[Any]:
    """CreateVecIndex's first-n interface: dst[i] = the value of element i (`index_value`), i < count."""
    out = dst.copy()
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    for i in range(count):
        out[i] = index_value(dst.dtype, first, i // lanes, i % lanes)
    return out


def create_vec_index_repeat(
    dst: npt.NDArray[Any], first: Any, selected: Callable[[int, int], bool], repeats: int, blk: int, rep: int
) -> npt.NDArray[Any]:
    """CreateVecIndex's mask/repeat interfaces: the selected element k of repeat r is stored at the repeat's DataBlock
    address (r * rep + (k // E) * blk) * E + k % E."""
    out = dst.copy()
    e = BLOCK_BYTES // dst.dtype.itemsize
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    for r in range(repeats):
        for k in range(lanes):
            if selected(r, k):
                out[(r * rep + (k // e) * blk) * e + k % e] = index_value(dst.dtype, first, r, k)
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
    scalar_first: bool = False,
    dst_input: bool = False,
    narrow_srcs: bool = False,
) -> npt.NDArray[Any]:
    """The 高维切分 interface: repeat r, element k (DataBlock k // E, position k % E, E elements per
    DataBlock) reads each src at r * srcRepStride * E + (k // E) * srcBlkStride * E + k % E and writes
    dst likewise, for each (r, k) that `selected(r, k)`; repeats run in order. `strides` in DataBlocks,
    in the repeat-parameter struct's order: (dstBlk, src0Blk, src1Blk, dstRep, src0Rep, src1Rep)
    (BinaryRepeatParams) or (dstBlk, srcBlk, dstRep, srcRep) (UnaryRepeatParams). `scalar_first`: the
    scalar is the left operand. `narrow_srcs`: the sources are narrower than dst (the half-sources / float-dst
    rows of MulAddDst and Axpy): a repeat has dst's element count, each source addressed in its own DataBlocks
    (E of its type), its values exact in dst's type."""
    out = dst.copy()
    e = BLOCK_BYTES // dst.dtype.itemsize
    es = [BLOCK_BYTES // s.dtype.itemsize if narrow_srcs else e for s in srcs]
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    half = len(strides) // 2
    blk, rep = strides[:half], strides[half:]
    f = element_op(api, dst.dtype)
    args = _operands(srcs, scalar, dst.dtype, scalar_first)
    for r in range(repeats):
        vals: list[tuple[int, Any]] = []
        for k in range(lanes):
            if not selected(r, k):
                continue
            b, pos = divmod(k, e)
            xs = [s[r * rep[1 + j] * es[j] + (k // es[j]) * blk[1 + j] * es[j] + k % es[j]] for j, s in enumerate(srcs)]
            at = r * rep[0] * e + b * blk[0] * e + pos
            vals.append((at, f(*args(xs), *([out[at]] if dst_input else []))))  # (dst as of the repeat's start)
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
    scalar_first: bool = False,
    dst_input: bool = False,
    narrow_srcs: bool = False,
) -> npt.NDArray[Any]:
    """Normal mask mode: the same elements of every repeat are selected."""
    sel = mask_elements(dst.dtype.itemsize, mask)
    return repeat_interface(api, dst, srcs, lambda r, k: sel[k], repeats, strides, scalar, scalar_first, dst_input, narrow_srcs)


def counter_mode(
    api: str,
    dst: npt.NDArray[Any],
    srcs: Sequence[npt.NDArray[Any]],
    count: int,
    strides: Sequence[int],
    scalar: Any = None,
    scalar_first: bool = False,
    dst_input: bool = False,
    narrow_srcs: bool = False,
) -> npt.NDArray[Any]:
    """Counter mask mode (SetMaskCount): `count` elements in all, ceil(count / elements per repeat)
    repeats, every element of a repeat selected but the tail's; repeatTime is not used."""
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    repeats = -(-count // lanes)
    sel = lambda r, k: r * lanes + k < count  # noqa: E731
    return repeat_interface(api, dst, srcs, sel, repeats, strides, scalar, scalar_first, dst_input, narrow_srcs)


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


# --- the reductions (the ReduceSum / ReduceMax / ReduceMin pages and the 950 library's order) ---------------
def _rounder(np_dtype: Any) -> Callable[[Any], Any]:
    """Round an exact Python value to the element type: floats once from float64, integers wrap."""
    dtype = np.dtype(np_dtype)
    if dtype.kind in _INT_KINDS:
        return lambda v: (
            np.array(int(v) & ((1 << 8 * dtype.itemsize) - 1), np.uint64).astype(f"u{dtype.itemsize}").view(dtype)[()]
        )
    return lambda v: np.array(float(v), np.float64).astype(dtype)[()]


def _add(np_dtype: Any) -> Callable[[Any, Any], Any]:
    r = _rounder(np_dtype)
    if np.dtype(np_dtype).kind in _INT_KINDS:
        return lambda a, b: r(int(a) + int(b))
    return lambda a, b: r(float(a) + float(b))  # two element values: their float64 sum is exact


def tree_sum(values: Sequence[Any], np_dtype: Any) -> Any:
    """The Reduce page's binary tree over one register (lanes padded with +0 to a power of two): adjacent
    pairs added level by level, each add rounded to the element type."""
    add = _add(np_dtype)
    zero = np.zeros((), np_dtype)[()]
    v = list(values)
    while len(v) & (len(v) - 1):
        v.append(zero)
    while len(v) > 1:
        v = [add(v[i], v[i + 1]) for i in range(0, len(v), 2)]
    return v[0] if v else zero


def _register(src: npt.NDArray[Any], start: int, selected: Callable[[int], bool]) -> list[Any]:
    """One register's lanes from element `start` of src, +0 where not selected."""
    lanes = REPEAT_BYTES // src.dtype.itemsize
    zero = np.zeros((), src.dtype)[()]
    return [src[start + k] if selected(k) else zero for k in range(lanes)]


def _sum_levels(partials: list[Any], np_dtype: Any, lanes: int) -> Any:
    """Partial sums, one element each, reduced a register of `lanes` at a time until one is left."""
    while len(partials) > 1:
        partials = [tree_sum(partials[i : i + lanes], np_dtype) for i in range(0, len(partials), lanes)]
    return partials[0]


def reduce_sum_count(src: npt.NDArray[Any], count: int, rep_offset: int) -> Any:
    """ReduceSum over `count` elements (the first-n interface and counter mask mode; register k starts at
    element k * rep_offset): 64-bit types wrap (order-free); up to 4 registers are added lane by lane
    (r0 + r1 | (r0 + r1) + r2 | (r0 + r1) + (r2 + r3), the last register only on its first
    count - (registers - 1) * L lanes) and the result summed by the tree; more: one tree sum per register,
    then tree sums of those."""
    dtype = src.dtype
    if dtype.itemsize == 8:
        return _rounder(dtype)(sum(int(x) for x in src[:count]))
    lanes = REPEAT_BYTES // dtype.itemsize
    if count <= lanes:
        return tree_sum(_register(src, 0, lambda k: k < count), dtype)
    regs = -(-count // lanes)
    if regs <= 4:
        add = _add(dtype)
        tail = count - (regs - 1) * lanes
        r = [_register(src, j * rep_offset, lambda k: True) for j in range(regs)]
        out = []
        for k in range(lanes):
            head = add(r[0][k], r[1][k]) if regs > 2 or k < tail else r[0][k]
            if regs == 3:
                head = add(head, r[2][k]) if k < tail else head
            if regs == 4:
                head = add(head, add(r[2][k], r[3][k]) if k < tail else r[2][k])
            out.append(head)
        return tree_sum(out, dtype)

    def taken(j: int) -> Callable[[int], bool]:
        return lambda k: j * lanes + k < count

    partials = [tree_sum(_register(src, j * rep_offset, taken(j)), dtype) for j in range(regs)]
    return _sum_levels(partials, dtype, lanes)


def reduce_sum_normal(src: npt.NDArray[Any], mask: int | Sequence[int], repeats: int, rep_offset: int) -> Any:
    """ReduceSum in normal mask mode: one tree sum per repeat over the mask's elements (repeatTime 0 runs one
    repeat), then, past one repeat, tree sums of those a register at a time."""
    sel = mask_elements(src.dtype.itemsize, mask)
    lanes = REPEAT_BYTES // src.dtype.itemsize
    partials = [tree_sum(_register(src, r * rep_offset, lambda k: sel[k]), src.dtype) for r in range(max(repeats, 1))]
    if len(partials) == 1:
        return partials[0]
    return _sum_levels(partials, src.dtype, lanes)


def _order(x: Any) -> tuple[float, int]:
    """Max / Min order: by value, -0 below +0."""
    v = float(x) if np.dtype(type(x)).kind == "f" else int(x)
    return (v, 0 if v == 0 and math.copysign(1.0, float(v)) < 0 else 1)


def reduce_extreme(
    src: npt.NDArray[Any], kind: str, init: Any, elements: Sequence[tuple[int, int, int]], index_bits: int
) -> tuple[Any, int]:
    """(value, index) of ReduceMax / ReduceMin as the 950 library computes it. `elements` lists (lane,
    element offset in src, index the element reports) in repeat order. Every lane starts at `init`
    (GetMinValue / GetMaxValue: for floats the largest finite magnitude) and takes a new value only when
    it is strictly beyond its current one; the result is the extreme over the lanes' values, its index the
    least index (mod 2**index_bits) of the element that first brought any lane holding it (numerically equal)
    to that value; -1 when the extreme is `init` itself (no lane changed; the callers say what that gives)."""
    sign = 1 if kind == "max" else -1

    def better(a: Any, b: Any) -> bool:
        return (_order(a) > _order(b)) if sign > 0 else (_order(a) < _order(b))

    value: dict[int, Any] = {}
    index: dict[int, int | None] = {}
    for lane, at, idx in elements:
        value.setdefault(lane, init)
        index.setdefault(lane, None)
        x = src[at]
        if better(x, value[lane]):
            if float(x) != float(value[lane]):  # Compare NE: a new index only for a numerically new value
                index[lane] = idx % (1 << index_bits)
            value[lane] = x
    best = init
    for v in value.values():
        if better(v, best):
            best = v
    return best, min((i for lane, i in index.items() if float(value[lane]) == float(best) and i is not None), default=-1)


def reduce_extreme_count(
    src: npt.NDArray[Any], kind: str, init: Any, count: int, rep_offset: int, index_bits: int
) -> tuple[Any, int]:
    """ReduceMax / ReduceMin over `count` elements (first-n interface, counter mask mode): element i is lane
    i % L of repeat i // L, at offset (i // L) * rep_offset + i % L, and reports index i. A lane that
    never changes reports its lane number; when the extreme is the initial value, the index is 0."""
    lanes = REPEAT_BYTES // src.dtype.itemsize * (2 if src.dtype.itemsize == 8 else 1)
    elements = [(i % lanes, i // lanes * rep_offset + i % lanes, i) for i in range(count)]
    value, index = reduce_extreme(src, kind, init, elements, index_bits)
    return value, 0 if index < 0 else index


def reduce_extreme_normal(
    src: npt.NDArray[Any], kind: str, init: Any, mask: int | Sequence[int], repeats: int, rep_offset: int, index_bits: int
) -> tuple[Any, int]:
    """ReduceMax / ReduceMin in normal mask mode: element k of repeat r (selected by the mask) is at offset
    r * rep_offset + k and reports that offset. When the extreme is the initial value, the index is the
    first selected lane."""
    sel = mask_elements(src.dtype.itemsize, mask)
    elements = [(k, r * rep_offset + k, r * rep_offset + k) for r in range(repeats) for k in range(len(sel)) if sel[k]]
    value, index = reduce_extreme(src, kind, init, elements, index_bits)
    return value, sel.index(True) if index < 0 else index


def reduce_dst(dst: npt.NDArray[Any], value: Any, index: int | None) -> npt.NDArray[Any]:
    """dst after a reduction: element 0 the value; with an index, the index's bytes right after it (uint16
    for 2-byte types, uint32 otherwise; 64-bit types then 4 zero bytes); the rest unchanged."""
    out = dst.copy()
    out[0] = value
    if index is not None:
        raw = out.view(np.uint8)
        w = dst.dtype.itemsize
        iw = 2 if w == 2 else 4
        raw[w : w + iw] = np.frombuffer(int(index).to_bytes(iw, "little"), np.uint8)
        if w == 8:
            raw[w + iw : 2 * w] = 0
    return out


# --- Compare / Compares: one result bit per element ---------------------------------------------------------
def _cmp(mode: str, x: Any, y: Any) -> bool:
    """x <mode> y on Python values, as the Reg Compare oracle compares them (IEEE for floats)."""

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


def _at(x: Any, i: int) -> Any:
    """Element i of a tensor operand; a scalar operand (a Python or numpy scalar) is the same for every i."""
    return x[i] if isinstance(x, np.ndarray) else x


def compare_first_n(mode: str, dst: npt.NDArray[np.uint8], src0: Any, other: Any, count: int, per: int) -> npt.NDArray[np.uint8]:
    """The first-n interface: bit i = src0[i] <mode> other[i] (a tensor) or other (a scalar) for i < count (src0 may be
    the scalar instead: the flexible-scalar pages' "scalar first"); the rest of the last iteration of `per` elements
    (256 bytes; 512 for 64-bit types) reads 0."""
    n = -(-count // per) * per
    bits = [i < count and _cmp(mode, _value(_at(src0, i)), _value(_at(other, i))) for i in range(n)]
    return pack_bits(dst, bits)


def compare_repeat(
    mode: str,
    dst: npt.NDArray[np.uint8],
    src0: Any,
    other: Any,
    selected: Callable[[int, int], bool],
    repeats: int,
    strides: Sequence[int],
) -> npt.NDArray[np.uint8]:
    """The mask/repeat interfaces: repeat r, element k reads src0 (and a tensor `other`) as `repeat_interface`
    does, strides (src0Blk, src0Rep[, src1Blk, src1Rep]) in DataBlocks; its bit is r * E + k (E elements per
    256 bytes) of dst, packed contiguously (no dst stride), 0 where the mask does not select (r, k). src0 may be
    the scalar instead (the flexible-scalar "scalar first"): `other`, the tensor, then has the strides
    (srcBlk, srcRep)."""
    scalar_first = not isinstance(src0, np.ndarray)
    scalar = not isinstance(other, np.ndarray)
    vec: npt.NDArray[Any] = other if scalar_first else src0
    e = BLOCK_BYTES // vec.dtype.itemsize
    lanes = REPEAT_BYTES // vec.dtype.itemsize

    def at(j: int, r: int, k: int) -> int:
        b, pos = divmod(k, e)
        return r * strides[2 * j + 1] * e + b * strides[2 * j] * e + pos

    bits = []
    for r in range(repeats):
        for k in range(lanes):
            if not selected(r, k):
                bits.append(False)
                continue
            if scalar_first:
                bits.append(_cmp(mode, _value(src0), _value(other[at(0, r, k)])))
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
    dst: npt.NDArray[Any], sel: npt.NDArray[np.uint8], src0: Any, other: Any, mode: int, count: int
) -> npt.NDArray[Any]:
    """The Select page, first-n interface: dst[i] = bit b(i) of selMask ? src0[i] : src1[i] (mode 1: the scalar src1;
    or, the flexible-scalar "scalar first", the scalar src0) for i < count, b(i) = i % (256 / sizeof(T)) in mode 0
    ("多轮迭代均使用相同的selMask有效数值"), i in modes 1 and 2; compared and copied as bits."""
    out = dst.copy()
    lanes = REPEAT_BYTES // dst.dtype.itemsize
    for i in range(count):
        b = i % lanes if mode == 0 else i
        out[i] = _at(src0, i) if _sel_bit(sel, b) else _at(other, i)
    return out


def select_repeat(
    dst: npt.NDArray[Any],
    sel: npt.NDArray[np.uint8],
    src0: Any,
    other: Any,
    mode: int,
    selected: Callable[[int, int], bool],
    repeats: int,
    strides: Sequence[int],
) -> npt.NDArray[Any]:
    """The mask/repeat interfaces: repeat r, element k addressed as `repeat_interface` does (BinaryRepeatParams
    strides); where the mask selects (r, k), dst = bit b of selMask ? src0 : src1 (or the scalar), b = k in mode 0,
    r * E + k in modes 1 and 2; elements the mask does not select keep dst's value. Either source may be the scalar
    (src0: the flexible-scalar "scalar first")."""
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
            out[at[0]] = _at(src0, at[1]) if _sel_bit(sel, b) else _at(other, at[2])
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


# --- Cast (the memory-level Cast page; the conversions by the Reg Cast page's rules) --------------------------------
#: the RoundMode values of the page's enum, by the rounding each names (CAST_NONE: rint where it rounds)
ROUNDING = {0: "rint", 1: "rint", 2: "floor", 3: "ceil", 4: "round", 5: "trunc", 6: "odd"}
#: the pairs whose Cast page row has no SatMode (a float destination keeps inf and NaN); every other pair
#: runs with SatMode::SAT (the library's castTrait): NaN -> 0, ±inf and overflows -> the type's extremes
UNSATURATED = {
    ("half", "bfloat16"),
    ("half", "float32"),
    ("bfloat16", "float32"),
    ("hifloat8", "half"),
    ("hifloat8", "float32"),
    ("fp8_e4m3fn", "float32"),
    ("fp8_e5m2", "float32"),
}


#: the CTRL register at kernel launch (the SetCtrlSpr page's defaults, CTRL[48] = 1 as the boundary-value
#: appendix has half results keep inf/NaN): CTRL[60] = 1, so CTRL[48]/CTRL[59] govern, not the SatMode::SAT
#: the library passes: float destinations keep inf/NaN, integer destinations saturate
LAUNCH_CTRL = 0x1001_0000_0000_0008


def _sat(src_name: str, dst_name: str) -> bool:
    """Whether the memory-level Cast of this pair saturates at the launch CTRL value."""

    return cast_saturation(dst_name, (src_name, dst_name) not in UNSATURATED, True, LAUNCH_CTRL)[0]


def _codes(a: npt.NDArray[Any]) -> npt.NDArray[Any]:
    return a.view(f"u{a.dtype.itemsize}")


def _float_round(a: npt.NDArray[np.float64], np_dst: Any, mode: str, sat: bool) -> npt.NDArray[Any]:
    """Finite, infinite and NaN float64 values rounded to a float type by `mode`: the two neighbours of |a| in
    the type found from its codes (the nearest by numpy, then one code down if it lies above), the choice made
    by the mode (ties: even code for rint, away for round; odd: the odd code when inexact), the sign put back.
    An overflow (rounding past the largest finite value) gives inf, or the largest value when saturating."""
    dst = np.dtype(np_dst)
    utype = f"u{dst.itemsize}"
    import ml_dtypes

    mx = np.array(ml_dtypes.finfo(dst).max, dst)  # type: ignore[no-untyped-call]
    mx_code = int(mx.view(utype))
    m = np.abs(np.nan_to_num(a, nan=0.0, posinf=0.0, neginf=0.0))
    with np.errstate(over="ignore"):
        near = m.astype(dst)
    code = _codes(near).astype(np.int64)
    code = np.where(near.astype(np.float64) > m, code - 1, code)
    code = np.minimum(code, mx_code)
    lo = code.astype(utype).view(dst).astype(np.float64)
    ulp_max = float(mx.astype(np.float64)) - float(np.array(mx_code - 1, utype).view(dst).astype(np.float64))
    hi = np.where(code == mx_code, float(mx.astype(np.float64)) + ulp_max, (code + 1).astype(utype).view(dst).astype(np.float64))
    exact = lo == m
    neg = np.signbit(a)
    odd = code % 2 == 1
    up = {
        "floor": neg,
        "ceil": ~neg,
        "trunc": np.zeros(a.shape, bool),
        "odd": ~odd,
        "rint": (m - lo > hi - m) | ((m - lo == hi - m) & odd),
        "round": m - lo >= hi - m,
    }[mode] & ~exact
    overflow = up & (code == mx_code)
    mag = np.where(up, hi, lo)
    mag = np.where(overflow, float(mx.astype(np.float64)) if sat else np.inf, mag)
    out = np.copysign(mag, a)
    inf = np.isinf(a)
    out = np.where(inf, np.copysign(float(mx.astype(np.float64)) if sat else np.inf, a), out)
    out = np.where(np.isnan(a), 0.0 if sat else np.copysign(np.nan, a), out)  # (unsaturated: the quiet NaN of a's sign)
    return out.astype(dst)


def _integral(a: npt.NDArray[np.float64], mode: str) -> npt.NDArray[np.float64]:
    """Values rounded to integral values by `mode` (round: half away from zero; |a| + 0.5 is exact for
    every value of the 32-bit and narrower types)."""
    fs: dict[str, Callable[[Any], Any]] = {
        "rint": np.rint,
        "floor": np.floor,
        "ceil": np.ceil,
        "trunc": np.trunc,
        "round": lambda v: np.copysign(np.floor(np.abs(v) + 0.5), v),
    }
    return np.asarray(fs[mode](a), np.float64)


def _int_round(a: npt.NDArray[np.float64], np_dst: Any, mode: str) -> npt.NDArray[Any]:
    """Values rounded to integers by `mode` and saturated to the type (NaN -> 0, ±inf -> the extremes)."""
    info = np.iinfo(np_dst)
    with np.errstate(invalid="ignore"):
        r = _integral(np.where(np.isnan(a), 0.0, a), mode)
    return np.clip(r, float(info.min), float(info.max)).astype(np_dst)


def cast_elements(
    src: npt.NDArray[Any], src_name: str, dst_name: str, np_dst: Any, round_mode: int, deq_scale: float = 0.0
) -> npt.NDArray[Any]:
    """Each source element converted as the memory-level Cast converts it (round_mode: the RoundMode value the
    call passes). float32 -> float32 rounds to an integral float32 (the sign of a zero result kept); fp8 and
    hifloat8 sides go element by element through `regsim.testing.reference.cast_value`."""
    mode = ROUNDING.get(round_mode, "rint")
    dst = np.dtype(np_dst)
    if FOUR_BIT & {src_name, dst_name}:
        return _four_bit_elements(src, src_name, dst_name, dst, round_mode)
    if src_name in ("hifloat8", "fp8_e4m3fn", "fp8_e5m2") or dst_name in ("hifloat8", "fp8_e4m3fn", "fp8_e5m2"):
        rm = 0xFF if round_mode == 0 else round_mode
        sat = _sat(src_name, dst_name)
        codes = [cast_value(src_name, dst_name, int(c), rm, sat) for c in _codes(np.ascontiguousarray(src)).tolist()]
        return np.array(codes, f"u{dst.itemsize}").view(dst)
    if (src_name, dst_name) == ("int32", "half"):  # the Cast page: with SetDeqScale(half scale); roundMode unused
        f = src.astype(np.float32) * np.float32(2.0**-17)  # the library: x * (1 / 2**17) * scale * 2**17 in float32
        f = (f * np.float32(np.float16(deq_scale))) * np.float32(2.0**17)
        return _float_round(f.astype(np.float64), np.float16, "rint", False)
    if src_name == "int64" or dst_name == "int64":
        return _b64_elements(src, dst, mode)
    with np.errstate(invalid="ignore"):  # ml_dtypes' NaN widens to NaN, but numpy warns of the cast
        a = src.astype(np.float64)
    if src_name == dst_name:  # float32 -> float32: an integral value of the type
        r = _integral(np.where(np.isfinite(a), a, 0.0), mode)
        return np.where(np.isfinite(a), np.copysign(r, a), a).astype(dst)
    if dst.kind in "iu":
        return _int_round(a, dst, mode)
    if (src_name, dst_name) in (("half", "float32"), ("bfloat16", "float32")):  # exact; a NaN keeps its payload, quieted
        wide = src.astype(dst)
        return np.where(np.isnan(a), (wide.view(np.uint32) | 0x0040_0000).view(dst), wide)
    return _float_round(a, dst, mode, _sat(src_name, dst_name))


FOUR_BIT = {"int4x2", "fp4x2_e2m1", "fp4x2_e1m2"}


def _four_bit_elements(
    src: npt.NDArray[Any], src_name: str, dst_name: str, dst: np.dtype[Any], round_mode: int
) -> npt.NDArray[Any]:
    """The 4-bit pairs through `regsim.testing.reference.cast_value`, one 4-bit value at a time: a 4-bit
    array is bytes, two values each (the even one in the low nibble); the result is such bytes for a 4-bit
    destination."""

    rm = 0xFF if round_mode == 0 else round_mode
    sat = _sat(src_name, dst_name)
    raw = _codes(np.ascontiguousarray(src)).astype(np.int64)
    codes = np.stack([raw & 0xF, raw >> 4], axis=-1).reshape(-1) if src_name in FOUR_BIT else raw
    out = np.array([cast_value(src_name, dst_name, int(c), rm, sat) for c in codes.tolist()], np.int64)
    if dst_name in FOUR_BIT:
        return (out[0::2] | out[1::2] << 4).astype(np.uint8).view(dst)
    return out.astype(f"u{dst.itemsize}").view(dst)


def _b64_elements(src: npt.NDArray[Any], dst: np.dtype[Any], mode: str) -> npt.NDArray[Any]:
    """The 64-bit pairs, element by element on Python ints: int64 -> float32 between its two float32
    neighbours (found from float(v), compared exactly), int64 -> int32 saturating, float32 -> int64 rounded
    and saturated, int32 -> int64 exact."""
    out: list[float] = []
    for x in src.tolist():
        if dst.kind in "iu":
            info = np.iinfo(dst)
            if isinstance(x, float):
                if math.isnan(x):
                    out.append(0)
                    continue
                if math.isinf(x):
                    out.append(info.max if x > 0 else info.min)
                    continue
                x = int(_integral(np.array([x]), mode)[0])
            out.append(min(max(int(x), int(info.min)), int(info.max)))
            continue
        v = int(x)  # int64 -> float32
        near = np.float32(float(v))
        lo = near if int(near) <= v else np.nextafter(near, np.float32(-np.inf))
        hi = np.nextafter(lo, np.float32(np.inf))
        if int(lo) == v:
            out.append(float(lo))
            continue
        down, up = v - int(lo), int(hi) - v
        lo_odd = int(np.array(lo).view(np.uint32)) % 2 == 1
        pick_hi = {  # (lo < v < hi: toward zero is lo for v > 0, hi for v < 0; ties: rint to the even code)
            "floor": False,
            "ceil": True,
            "trunc": v < 0,
            "rint": up < down or (up == down and lo_odd),
            "round": up < down or (up == down and v > 0),
        }[mode]
        out.append(float(hi if pick_hi else lo))
    return np.array(out, dst)


def cast_repeat(
    dst: npt.NDArray[Any],
    converted: npt.NDArray[Any],
    src_size: int,
    selected: Callable[[int, int], bool],
    repeats: int,
    strides: Sequence[int],
    per_block: tuple[int, int, int] | None = None,
) -> npt.NDArray[Any]:
    """The mask/repeat Cast: a repeat covers 256 bytes of the wider operand; element k of repeat r (k below
    the wider type's elements per repeat, selected by the mask) is read from src at r * srcRepStride * Es +
    (k // Es) * srcBlkStride * Es + k % Es and written to dst likewise with Ed (Es, Ed: elements per DataBlock
    of each); `converted` is every src element converted. strides: (dstBlk, srcBlk, dstRep, srcRep).
    per_block: (Ed, Es, elements per repeat) given explicitly (4-bit operands: arrays of 4-bit values, 64 per
    DataBlock)."""
    out = dst.copy()
    ed, es = BLOCK_BYTES // dst.dtype.itemsize, BLOCK_BYTES // src_size
    lanes = REPEAT_BYTES // max(dst.dtype.itemsize, src_size)
    if per_block is not None:
        ed, es, lanes = per_block
    dblk, sblk, drep, srep = strides
    for r in range(repeats):
        for k in range(lanes):
            if selected(r, k):
                s = r * srep * es + (k // es) * sblk * es + k % es
                out[r * drep * ed + (k // ed) * dblk * ed + k % ed] = converted[s]
    return out


# --- ReduceRepeat / ReduceDataBlock / ReducePairElem: one result per repeat, DataBlock or pair -----------------
def _extreme_lane(values: Sequence[tuple[int, Any]], kind: str) -> tuple[Any, int]:
    """(value, least lane holding it) over (lane, element) pairs: max / min by value, -0 below +0."""
    best_lane, best = values[0]
    for lane, x in values[1:]:
        if (_order(x) > _order(best)) if kind == "max" else (_order(x) < _order(best)):
            best_lane, best = lane, x
    return best, best_lane


def _raw(np_dtype: Any, value: int) -> Any:
    """An element of `np_dtype` holding the unsigned integer `value` in its bits."""
    w = np.dtype(np_dtype).itemsize
    return np.frombuffer(int(value).to_bytes(w, "little"), np_dtype)[0]


def per_repeat_result(api: str, kind: str, order: str, src: Sequence[Any], active: Sequence[bool], np_dst: Any) -> list[Any]:
    """The elements one repeat stores, from its register of src elements (`src`, L lanes; `active` the mask):
    ReduceRepeat SUM: the tree sum in dst's type (inactive lanes +0); MAX / MIN: value and least lane index in
    `order` ("VALUE_INDEX": [value, index], "INDEX_VALUE": [index, value], "ONLY_VALUE": [value],
    "ONLY_INDEX": [index], a 2-byte type's index then a uint32: [index, 0]); the index is stored as the bits
    of dst's type. ReduceDataBlock: per DataBlock the tree sum, or the extreme (none active: -inf / +inf).
    ReducePairElem: per pair the sum (one active: that element; none: 0)."""
    dst_dtype = np.dtype(np_dst)
    lanes = len(src)
    zero = np.zeros((), dst_dtype)[()]
    conv = [np.array(x).astype(dst_dtype)[()] if a else zero for x, a in zip(src, active, strict=True)]
    if api == "ReducePairElem":
        add = _add(dst_dtype)
        out = []
        for i in range(0, lanes, 2):
            on0, on1 = active[i], active[i + 1]
            out.append(add(src[i], src[i + 1]) if on0 and on1 else src[i] if on0 else src[i + 1] if on1 else zero)
        return out
    if api == "ReduceDataBlock":
        e = lanes // 8
        out = []
        for blk in range(8):
            if kind == "sum":
                out.append(tree_sum(conv[blk * e : (blk + 1) * e], dst_dtype))
                continue
            on = [(k, src[k]) for k in range(blk * e, (blk + 1) * e) if active[k]]
            if on:
                out.append(_extreme_lane(on, kind)[0])
            elif dst_dtype.kind == "f":
                out.append(dst_dtype.type(-np.inf if kind == "max" else np.inf))
            else:
                info = np.iinfo(dst_dtype)
                out.append(dst_dtype.type(info.min if kind == "max" else info.max))
        return out
    if kind == "sum":
        return [tree_sum(conv, dst_dtype)]
    value, index = _extreme_lane([(k, src[k]) for k in range(lanes) if active[k]], kind)
    idx = _raw(dst_dtype, index)
    return {
        "VALUE_INDEX": [value, idx],
        "INDEX_VALUE": [idx, value],
        "ONLY_VALUE": [value],
        "ONLY_INDEX": [idx, zero] if dst_dtype.itemsize == 2 else [idx],
    }[order]


def per_repeat_runs(
    api: str, itemsize: int, mask: int | Sequence[int] | None, count: int | None, repeats: int, dst_rep: int
) -> list[tuple[int, int, list[bool]]]:
    """The repeats ReduceRepeat / ReduceDataBlock / ReducePairElem run, as (source repeat, dst slot, active lanes);
    see `reduce_per_repeat`."""
    lanes = REPEAT_BYTES // itemsize
    shift = repeats - 1 if dst_rep == 0 and repeats > 0 else 0
    if count is None:
        assert mask is not None
        sel = mask_elements(itemsize, mask)
        return [(shift, 0, sel)] if dst_rep == 0 and repeats > 0 else [(r, r * dst_rep, sel) for r in range(repeats)]
    runs = []
    for r in range(-(-count // lanes)):
        slot = r if dst_rep == 0 and api != "ReducePairElem" else r * dst_rep
        runs.append((r + shift, slot, [r * lanes + k < count for k in range(lanes)]))
    return runs


def reduce_per_repeat(
    api: str,
    kind: str,
    order: str,
    dst: npt.NDArray[Any],
    src: npt.NDArray[Any],
    mask: int | Sequence[int] | None,
    count: int | None,
    repeats: int,
    strides: tuple[int, int, int],
) -> npt.NDArray[Any]:
    """dst after ReduceRepeat / ReduceDataBlock / ReducePairElem (`strides` = dstRepStride, srcBlkStride,
    srcRepStride). Normal mode (`mask`): repeat r reads lane k of the register at r * srcRepStride * E +
    (k // E) * srcBlkStride * E + k % E under the mask and stores its W result elements at slot
    r * dstRepStride (W elements a slot); dstRepStride 0 runs the last repeat only, into slot 0. Counter mode
    (`count`): ceil(count / L) repeats, lane k of repeat r active while r * L + k < count, read from repeat
    r (plus repeatTime - 1 when dstRepStride is 0 and repeatTime > 0); slots r * dstRepStride, but consecutive
    (slot r) for ReduceRepeat / ReduceDataBlock when dstRepStride is 0."""
    out = dst.copy()
    lanes = REPEAT_BYTES // src.dtype.itemsize
    e = BLOCK_BYTES // src.dtype.itemsize
    _, blk, rep = strides
    for s, slot, active in per_repeat_runs(api, src.dtype.itemsize, mask, count, repeats, strides[0]):
        reg = [src[s * rep * e + (k // e) * blk * e + k % e] if active[k] else src.dtype.type(0) for k in range(lanes)]
        result = per_repeat_result(api, kind, order, reg, active, dst.dtype)
        width = len(result)
        for j, v in enumerate(result):
            out[slot * width + j] = v
    return out


# --- GatherMask (the GatherMask page: built-in patterns 1..7 or a pattern tensor's bits, normal / counter mode) -------
def gather_mask_bit(pattern: int | npt.NDArray[Any], repeat: int, k: int, src1_rep: int) -> bool:
    """Whether element k of repeat `repeat` is kept: the page's built-in patterns (1: even indices, 2: odd, 3..6: the
    first..fourth of every four, 7: all) repeat in every repeat; a pattern tensor is read as a bit stream (bit b of
    element w is stream bit w * bits + b), repeat r starting at stream bit r * src1RepeatStride * 256 (its repeat
    stride in 32-byte DataBlocks)."""
    if isinstance(pattern, int):
        if pattern == 7:
            return True
        if pattern in (1, 2):
            return k % 2 == pattern - 1
        return k % 4 == pattern - 3
    raw = np.ascontiguousarray(pattern).view(np.uint8)
    bit = repeat * src1_rep * BLOCK_BYTES * 8 + k
    return bool(int(raw[bit // 8]) >> (bit % 8) & 1)


def gather_mask(
    dst: npt.NDArray[Any],
    src0: npt.NDArray[Any],
    pattern: int | npt.NDArray[Any],
    reduce_mode: bool,
    mask: int,
    params: Sequence[int],
) -> tuple[npt.NDArray[Any], int]:
    """(dst after, rsvdCnt): each repeat r < repeatTimes covers the register-sized element groups of src0 from
    r * src0RepeatStride DataBlocks on, element k of it (k < elements per 256 bytes in normal mode, k < mask in
    counter mode, group g = k // lanes) at DataBlock g * 8 * src0BlockStride + (k % lanes) // E * src0BlockStride and
    element k % E in that block (E elements per DataBlock); the kept elements are written to dst from its start, in
    order. params: (src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride)."""
    blk, repeats, rep, src1_rep = params
    out = dst.copy()
    e = BLOCK_BYTES // src0.dtype.itemsize
    lanes = REPEAT_BYTES // src0.dtype.itemsize
    per_repeat = mask if reduce_mode else lanes
    n = 0
    for r in range(repeats):
        for k in range(per_repeat):
            if not gather_mask_bit(pattern, r, k, src1_rep):
                continue
            g, lane = divmod(k, lanes)
            block = r * rep + g * 8 * blk + lane // e * blk
            out[n] = src0[block * e + lane % e]
            n += 1
    return out, n


# --- Scatter (the "Scatter(ISASI)" page: the first-n interface) -------------------------------------------------------
def scatter(
    ub: npt.NDArray[np.uint8], dst_addr: int, src: npt.NDArray[Any], offsets: npt.NDArray[Any], base: int, count: int
) -> npt.NDArray[np.uint8]:
    """The UB's bytes after `Scatter(dst, src, dstOffset, dstBaseAddr, count)`: for i < count, element src[i]'s
    bytes at UB byte dst_addr + base + dstOffset[i]; every other byte as before."""
    out = ub.copy()
    raw = src.view(np.uint8)
    w = src.dtype.itemsize
    for i in range(count):
        at = dst_addr + base + int(offsets[i])
        out[at : at + w] = raw[i * w : (i + 1) * w]
    return out


def scatter_repeat(
    ub: npt.NDArray[np.uint8],
    dst_addr: int,
    src: npt.NDArray[Any],
    offsets: npt.NDArray[Any],
    base: int,
    selected: Callable[[int, int], bool],
    repeats: int,
    src_rep_stride: int,
) -> npt.NDArray[np.uint8]:
    """The mask/repeat interfaces: element k of repeat r (E = elements per 256 bytes) when selected is src element
    r * srcRepStride * (32 / width) + k, written at byte dst_addr + base + dstOffset[r * E + k]."""
    out = ub.copy()
    raw = src.view(np.uint8)
    w = src.dtype.itemsize
    lanes = REPEAT_BYTES // w
    for r in range(repeats):
        for k in range(lanes):
            if selected(r, k):
                s = r * src_rep_stride * (BLOCK_BYTES // w) + k
                at = dst_addr + base + int(offsets[r * lanes + k])
                out[at : at + w] = raw[s * w : (s + 1) * w]
    return out


# --- Gatherb (the "Gatherb(ISASI)" page) ------------------------------------------------------------------------------
def gatherb(
    dst: npt.NDArray[Any], src: npt.NDArray[Any], offsets: npt.NDArray[Any], repeats: int, blk: int, rep: int
) -> npt.NDArray[Any]:
    """DataBlock k (k < 8) of repeat r of dst, at DataBlock r * dstRepStride + k * dstBlkStride, is the 32 bytes at
    byte offsets[8 * r + k] of src; the rest of dst as before."""
    out = dst.copy()
    raw, o = src.view(np.uint8), out.view(np.uint8)
    for r in range(repeats):
        for k in range(8):
            at = (r * rep + k * blk) * BLOCK_BYTES
            s = int(offsets[8 * r + k])
            o[at : at + BLOCK_BYTES] = raw[s : s + BLOCK_BYTES]
    return out
