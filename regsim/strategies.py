"""Hypothesis strategies for regsim values: dtypes, lane arrays, registers, masks, counts, UB layouts.

    import regsim as rs
    from hypothesis import given
    from regsim import Reg
    from regsim import strategies as rst

    @given(rst.registers(rs.int32), rst.registers(rs.int32), rst.masks(rs.int32))
    def test_add(a, b, mask):
        dst = Reg.RegTensor(rs.int32)
        with rs.VEC_SCOPE():
            Reg.Add(dst, a, b, mask)
        ...

Every strategy leans towards the values where semantics has edges: lane values 0, 1, the
maximum, the minimum, -1 and (for floats) ±0, ±inf, NaN, the largest finite, the smallest
normal and subnormal values; masks that are empty, full, a prefix or a single lane; and
`UpdateMask` counts 0, 1, VL_T - 1, VL_T, VL_T + 1 and 2**32 - 1.

Strategies are typed by dtype: `registers(rs.int32)` is a `SearchStrategy[RegTensor[rs.int32]]`.
Each register, lane array or mask is one byte-string draw from Hypothesis (at most 128 bytes,
longer arrays continue with a hash of them), so a campaign draws well over 1,000
registers a second (`python bench/bench_strategies.py`) and a failure shrinks towards all-zero
lanes and empty masks.

Importing this module does not import Hypothesis; each strategy function does, so only users
who call them need it installed (`pip install regsim[test]`).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.lazy import ml_dtypes
from regsim._src.model.memory import TOTAL_UB_SIZE, LocalTensor, UnifiedBuffer
from regsim._src.model.registers import (
    MASK_BITS,
    TRAIT_TWO_DTYPES,
    MaskReg,
    RegTensor,
    RegTrait,
    RegTraitNumOne,
    RegTraitNumTwo,
    check_dtype,
    check_trait,
    lane_count,
    mask_stride,
)
from regsim.errors import ParameterError, message

if TYPE_CHECKING:
    from hypothesis.strategies import DrawFn, SearchStrategy

__all__ = [
    "UINT32_MAX",
    "UbLayout",
    "counts",
    "dtype_traits",
    "dtypes",
    "edge_bits",
    "lanes",
    "masks",
    "registers",
    "ub_layouts",
]

UINT32_MAX = 2**32 - 1  #: the largest `uint32_t` count `UpdateMask` accepts

MaskFill = Literal["lsb", "group", "noise"]
T = TypeVar("T", bound=dt.DType)
V = TypeVar("V")


# --- dtypes ------------------------------------------------------------------------------------
@overload
def dtypes(accepted: None = None, *, bits_only: bool = True) -> SearchStrategy[type[dt.DType]]: ...
@overload
def dtypes(accepted: Sequence[type[T]] | frozenset[type[T]], *, bits_only: bool = True) -> SearchStrategy[type[T]]: ...
@host_api("strategies.dtypes")
def dtypes(
    accepted: Sequence[type[dt.DType]] | frozenset[type[dt.DType]] | None = None, *, bits_only: bool = True
) -> SearchStrategy[type[dt.DType]]:
    """A regsim dtype class (`rs.int32`, `rs.half`, …).

    accepted: draw only from these (default: every dtype). Order follows `rs` dtype order, so
        failures shrink towards `bool_`, `int8`, … whatever the order given.
    bits_only: include the dtypes regsim keeps only as bits (hifloat8, fp4x2_*, int4x2).
    """
    from hypothesis import strategies as st

    pool = [d for d in dt.ALL_DTYPES if (accepted is None or d in accepted) and (bits_only or not d.bits_only)]
    if not pool:
        raise ParameterError(message("strategies.dtypes", "accepted", repr(accepted), "at least one regsim dtype"))
    return st.sampled_from(pool)


@host_api("strategies.dtype_traits")
def dtype_traits(
    accepted: Sequence[type[dt.DType]] | frozenset[type[dt.DType]] | None = None, *, bits_only: bool = True
) -> SearchStrategy[tuple[type[dt.DType], RegTrait]]:
    """A `(dtype, trait)` pair a `RegTensor` may have: every dtype with `RegTraitNumOne`, and
    int64, uint64, complex64 and complex32 also with `RegTraitNumTwo`."""
    from hypothesis import strategies as st

    pool = [d for d in dt.ALL_DTYPES if (accepted is None or d in accepted) and (bits_only or not d.bits_only)]
    pairs = [(d, RegTraitNumOne) for d in pool] + [(d, RegTraitNumTwo) for d in pool if d in TRAIT_TWO_DTYPES]
    if not pairs:
        raise ParameterError(message("strategies.dtype_traits", "accepted", repr(accepted), "at least one regsim dtype"))
    return st.sampled_from(pairs)


# --- lane values -------------------------------------------------------------------------------
def _unit(dtype: type[dt.DType]) -> np.dtype[Any]:
    """The numpy dtype whose bits are drawn: a complex type's component, else the type itself."""
    if issubclass(dtype, dt.ComplexFloating):
        return np.dtype(np.float16) if dtype.itemsize == 4 else np.dtype(np.float32)
    return dtype.np_dtype


def _is_float(dtype: type[dt.DType]) -> bool:
    """A floating (or complex) type with a numeric format (not one regsim keeps as bits)."""
    return issubclass(dtype, (dt.Floating, dt.ComplexFloating)) and not dtype.bits_only


@host_api("strategies.edge_bits")
@functools.cache
def edge_bits(dtype: type[dt.DType]) -> tuple[int, ...]:
    """The bit patterns (as unsigned ints of the element's width, or of a complex type's
    component) where lane semantics has edges.

    Integers: 0, 1, 2, max, min, min + 1, -1, -2. Floats additionally: ±1, ±inf, the largest
    finite value, the smallest normal and the smallest subnormal (both signs), a quiet NaN.
    `bool_`: 0 and 1.
    """
    check_dtype("strategies.edge_bits", "dtype", dtype)
    if dtype is dt.bool_:
        return (0, 1)
    unit = _unit(dtype)
    bits = 8 * unit.itemsize
    top, sign = (1 << bits) - 1, 1 << (bits - 1)
    edges = [0, 1, 2, sign - 1, sign, sign + 1, top, top - 1]
    if _is_float(dtype):
        fi = ml_dtypes.finfo(unit)
        values = np.array([1.0, np.inf, float(fi.max), float(fi.tiny), float(fi.smallest_subnormal), np.nan], np.float64)
        with np.errstate(all="ignore"):
            for v in values.astype(unit).view(f"u{unit.itemsize}"):
                edges += [int(v), int(v) ^ sign]
    return tuple(dict.fromkeys(e & top for e in edges))


#: bytes one array or mask draw takes from Hypothesis at most: its buffer holds 8 KiB per
#: example and its health check wants the smallest example under 4 KiB, so a test may draw a
#: few dozen registers. Longer arrays continue with an extendable hash (SHAKE-128) of the drawn bytes.
_MAX_DRAWN_BYTES = 128


def _drawn(nbytes: int, decode: Callable[[npt.NDArray[np.uint8]], V]) -> SearchStrategy[V]:
    """`decode` of `nbytes` bytes from one Hypothesis draw (so an example is one choice, cheap to
    generate and shrinking towards all-zero bytes). One `map`: Hypothesis records every mapped
    call, so decoding in a single function keeps its cost per example to one record."""
    from hypothesis import strategies as st

    drawn = min(nbytes, _MAX_DRAWN_BYTES)

    def expand(blob: bytes) -> V:
        if nbytes > drawn:  # SHAKE-128 of the drawn bytes: deterministic, uniform, fast
            blob += hashlib.shake_128(blob).digest(nbytes - drawn)
        return decode(np.frombuffer(blob, np.uint8))

    return st.binary(min_size=drawn, max_size=drawn).map(expand)


_Decoder = tuple[int, Callable[[npt.NDArray[np.uint8]], npt.NDArray[Any]]]


@functools.lru_cache(maxsize=1024)  # bounded: ub_layouts asks for every tensor length
def _bit_arrays(dtype: type[dt.DType], n: int, *, allow_nan: bool, constant: bool = True) -> SearchStrategy[npt.NDArray[Any]]:
    """`n` elements of `dtype` (drawn as bits, edge-weighted), as an array of its numpy dtype."""
    return _drawn(*_bit_decoder(dtype, n, allow_nan=allow_nan, constant=constant))


@functools.lru_cache(maxsize=1024)
def _bit_decoder(dtype: type[dt.DType], n: int, *, allow_nan: bool, constant: bool) -> _Decoder:
    """The bytes `_bit_arrays` draws and the function making its array of them.

    One byte string per array: a header byte, then per lane (or complex component) a selector
    byte and its uniform bits. The header picks the shape (two bits) and a parameter (six):
    constant (when `constant`; the simplest draw, all-zero bytes, is all lanes 0): every lane one
    edge value (full carry ripples, saturated sums, all-NaN …); sparse: one fill value (an edge
    or the first lane's bits) with about one lane in 32 different; dense (the other two
    shapes): a share of 0, 1/4, 1/2 or all lanes take the edge value their selector names, the
    others their uniform bits.
    """
    unit = _unit(dtype)
    size = n * (dtype.itemsize // unit.itemsize)  # components (2 per complex element)
    ubits = np.dtype(f"u{unit.itemsize}")
    top = 1 if dtype is dt.bool_ else (1 << (8 * unit.itemsize)) - 1
    edges = np.array(edge_bits(dtype), ubits)

    def build(blob: npt.NDArray[np.uint8]) -> npt.NDArray[Any]:
        head, rows = int(blob[0]), blob[1:].reshape(size, 1 + unit.itemsize)
        select = rows[:, 0]
        raw = np.ascontiguousarray(rows[:, 1:]).view(ubits).reshape(size) & ubits.type(top)
        kind, param = head & 3, head >> 2
        if kind == 0 and constant:
            raw = np.full(size, edges[param % edges.size], ubits)
        elif kind == 2:
            fill = edges[param] if param < edges.size else raw[0]
            raw = np.where(select >= 248, np.where(select & 1, edges[select % edges.size], raw), fill)
        else:
            at_edge = select < (0, 64, 128, 256)[param & 3]
            raw = np.where(at_edge, edges[select % edges.size], raw)
        return finish(raw)

    def finish(raw: npt.NDArray[Any]) -> npt.NDArray[Any]:
        values = raw.view(unit)
        if not allow_nan and _is_float(dtype):
            with np.errstate(all="ignore"):
                nan = np.isnan(values.astype(np.float64))
            values = np.where(nan, np.zeros(1, unit), values).astype(unit)
        return np.ascontiguousarray(values).view(dtype.np_dtype)

    return 1 + size * (unit.itemsize + 1), build


@host_api("strategies.lanes")
def lanes(
    dtype: type[dt.DType], trait: RegTrait = RegTraitNumOne, *, allow_nan: bool = True, constant: bool = True
) -> SearchStrategy[npt.NDArray[Any]]:
    """The lanes of one register of `dtype`: a 1-D array of `dtype.np_dtype`, `lane_count` long
    (256 // itemsize; 64 for b64 `RegTraitNumTwo`, 128 for complex32 `RegTraitNumTwo`).

    Values are drawn as bit patterns, mixing `edge_bits(dtype)` with uniform bits, so floats
    include subnormals, ±0, ±inf and NaNs. allow_nan=False replaces NaN lanes (or NaN
    components of complex lanes) by +0. constant=True also draws arrays whose lanes are all one
    edge value (all-ones, all-zero, …), the inputs of full-length carry ripples.
    """
    check_dtype("strategies.lanes", "dtype", dtype)
    check_trait("strategies.lanes", dtype, trait)
    return _bit_arrays(dtype, lane_count(dtype, trait), allow_nan=allow_nan, constant=constant)


@host_api("strategies.registers")
def registers(
    dtype: type[T], trait: RegTrait = RegTraitNumOne, *, allow_nan: bool = True, constant: bool = True
) -> SearchStrategy[RegTensor[T]]:
    """A written `RegTensor[dtype]` of `trait`, its lanes drawn by `lanes`
    (`registers(rs.int32)` is a `SearchStrategy[RegTensor[rs.int32]]`)."""
    return _registers(dtype, trait, allow_nan, constant)


@functools.cache
def _registers(dtype: type[dt.DType], trait: RegTrait, allow_nan: bool, constant: bool) -> SearchStrategy[RegTensor[Any]]:
    check_dtype("strategies.registers", "dtype", dtype)
    check_trait("strategies.registers", dtype, trait)
    nbytes, values = _bit_decoder(dtype, lane_count(dtype, trait), allow_nan=allow_nan, constant=constant)

    def register(blob: npt.NDArray[np.uint8]) -> RegTensor[Any]:
        return RegTensor.from_numpy(values(blob), dtype=dtype, trait=trait)

    return _drawn(nbytes, register)


# --- masks -------------------------------------------------------------------------------------
def _lane_bools(blob: npt.NDArray[np.uint8], n: int) -> npt.NDArray[np.bool_]:
    """n predicate lanes from `_LANE_HEAD + n` drawn bytes: empty, full, a prefix, a single lane
    (half the draws), or random at a density of 1/10, 1/2 or 9/10. The bytes: the shape, two
    bytes of prefix length or lane index, then one per lane (a random lane is on when its byte
    is under the density)."""
    shape, k = int(blob[0]) & 7, int(blob[1]) | int(blob[2]) << 8
    if shape == 0:
        return np.zeros(n, np.bool_)
    if shape == 1:
        return np.ones(n, np.bool_)
    if shape == 2:
        return np.arange(n) < k % (n + 1)
    if shape == 3:
        return np.equal(np.arange(n), k % n)
    on: npt.NDArray[np.bool_] = blob[_LANE_HEAD : _LANE_HEAD + n] < (26, 128, 230, 128)[shape - 4]
    return on


_LANE_HEAD = 3  #: bytes `_lane_bools` reads before its per-lane bytes


@host_api("strategies.masks")
@functools.cache
def masks(
    dtype: type[dt.DType] | None = None, trait: RegTrait = RegTraitNumOne, *, fill: MaskFill = "lsb"
) -> SearchStrategy[MaskReg]:
    """A written `MaskReg`.

    Without `dtype`: 256 arbitrary bits (`MaskReg.from_bits`). With `dtype`: a predicate over
    the lanes of `dtype` (lane i at bit `i * mask_stride(dtype, trait)`), empty, full, a
    prefix, a single lane or random; the other bits of each lane's group are
    fill="lsb": clear (`MaskReg.from_lanes`); "group": copies of the lane bit (what
    `rs.configure(mask_fill="group")` producers write); "noise": random, which a consumer of
    `dtype` must ignore. Read the lanes back with `mask.lanes(dtype, trait)`.
    """
    if dtype is None:
        return _drawn(_LANE_HEAD + MASK_BITS, lambda b: MaskReg.from_bits(_lane_bools(b, MASK_BITS)))
    check_dtype("strategies.masks", "dtype", dtype)
    check_trait("strategies.masks", dtype, trait)
    if fill not in ("lsb", "group", "noise"):
        raise ParameterError(message("strategies.masks", "fill", repr(fill), '"lsb", "group", "noise"'))
    n, stride = lane_count(dtype, trait), mask_stride(dtype, trait)

    def build(blob: npt.NDArray[np.uint8]) -> MaskReg:
        lanes = _lane_bools(blob, n)
        if fill == "lsb":
            return MaskReg.from_lanes(dtype, lanes, trait)
        if fill == "group":
            return MaskReg.from_bits(np.repeat(lanes, stride))
        bits = np.unpackbits(blob[_LANE_HEAD + n :], bitorder="little").astype(np.bool_)
        bits[::stride] = lanes
        return MaskReg.from_bits(bits)

    return _drawn(_LANE_HEAD + n + (MASK_BITS // 8 if fill == "noise" else 0), build)


# --- UpdateMask counts -------------------------------------------------------------------------
@host_api("strategies.counts")
@functools.cache
def counts(dtype: type[dt.DType], trait: RegTrait = RegTraitNumOne, *, max_value: int = UINT32_MAX) -> SearchStrategy[int]:
    """A `uint32_t` element count for `UpdateMask(dtype, …)`, weighted to its edges: 0, 1,
    VL_T - 1, VL_T, VL_T + 1, 2·VL_T - 1, 2·VL_T, 2·VL_T + 1, 2**32 - VL_T, 2**32 - 1, then
    small counts (up to 4·VL_T) and any uint32. `max_value` caps them (e.g. for loops that run
    the count down to zero)."""
    from hypothesis import strategies as st

    check_dtype("strategies.counts", "dtype", dtype)
    check_trait("strategies.counts", dtype, trait)
    max_value = as_int("strategies.counts", "max_value", max_value, 0, UINT32_MAX)
    vl = lane_count(dtype, trait)
    edges = [0, 1, vl - 1, vl, vl + 1, 2 * vl - 1, 2 * vl, 2 * vl + 1, UINT32_MAX + 1 - vl, UINT32_MAX]
    return st.one_of(
        st.sampled_from(sorted({e for e in edges if e <= max_value})),
        st.integers(0, min(4 * vl, max_value)),
        st.integers(0, max_value),
    )


# --- UB layouts --------------------------------------------------------------------------------
@attrs.frozen
class UbLayout:
    """A `UnifiedBuffer` and the `LocalTensor`s allocated in it, in allocation order."""

    ub: UnifiedBuffer
    tensors: tuple[LocalTensor[Any], ...]

    def snapshot(self) -> npt.NDArray[np.uint8]:
        """A copy of every UB byte (to check later that a call changed nothing, or only what it should)."""
        return self.ub.storage.data.copy()


@host_api("strategies.ub_layouts")
def ub_layouts(
    tensors: Sequence[tuple[type[dt.DType], int]] | None = None,
    *,
    max_tensors: int = 4,
    max_count: int = 1024,
    size: int = TOTAL_UB_SIZE,
    gaps: bool = True,
    filled: bool = True,
    allow_nan: bool = True,
) -> SearchStrategy[UbLayout]:
    """A fresh `UnifiedBuffer` of `size` bytes with `LocalTensor`s allocated in it.

    tensors: the `(dtype, count)` of each tensor, in order; default: 1 to `max_tensors`
        tensors of any non-bool dtype with 1 to `max_count` elements.
    gaps: put a random number of 32-byte blocks (0 to 8) before each tensor, so tensors do not
        always start at UB address 0 or abut one another.
    filled: write random edge-weighted contents to every tensor (as `lanes` draws them); if
        False the tensors stay never-written.
    """
    from hypothesis import strategies as st

    if not isinstance(size, int) or size <= 0 or size % 32:
        raise ParameterError(message("strategies.ub_layouts", "size", size, "a positive multiple of 32 bytes"))

    @st.composite
    def build(draw: DrawFn) -> UbLayout:
        specs = (
            list(tensors)
            if tensors is not None
            else draw(
                st.lists(
                    st.tuples(dtypes([d for d in dt.ALL_DTYPES if d is not dt.bool_]), st.integers(1, max_count)),
                    min_size=1,
                    max_size=max_tensors,
                )
            )
        )
        ub = UnifiedBuffer(size)
        out: list[LocalTensor[Any]] = []
        for dtype, count in specs:
            if gaps:
                blocks = draw(st.integers(0, 8))
                if blocks and ub._next + 32 * blocks + count * dtype.itemsize <= size:
                    ub.alloc(dt.uint8, 32 * blocks)
            tensor = ub.alloc(dtype, count)
            if filled:
                tensor.set(draw(_bit_arrays(dtype, count, allow_nan=allow_nan)))
            out.append(tensor)
        return UbLayout(ub, tuple(out))

    return build()
