"""The 950 register file: `RegTensor` (256 B vector registers), `MaskReg` (256-bit predicates),
`AddrReg`, and the unaligned-access buffers (the Ascend C `RegTensor`, `MaskReg`, `AddrReg`
and `UnalignReg` pages).

Registers are bytes seen through typed views (Spike's `elt<T>`): a `RegTensor` owns its bytes
and a per-byte written flag; lanes are `bytes.view(dtype)`; a reinterpret cast is another view
of the same bytes. A `MaskReg` is 256 bits; the one rule mapping a lane to its predicate bit is
`mask_stride` below.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import sys
import warnings
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, Final, Generic, TypeVar, cast

import attrs
import numpy as np
import numpy.typing as npt

from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.config import _VF
from regsim.errors import DTypeError, ParameterError, message


def _numpy_c(name: str) -> Callable[..., Any]:
    """numpy's C function `name` itself, without the Python dispatch of its public `np.<name>` (most of its time on
    one register's lanes): from numpy 2's `numpy._core` or numpy 1's `numpy.core`; the public one where neither has
    it (a private module may change)."""
    for module in ("numpy._core._multiarray_umath", "numpy.core._multiarray_umath"):
        try:
            return cast(Callable[..., Any], getattr(importlib.import_module(module), name))
        except (ImportError, AttributeError):
            continue
    return cast(Callable[..., Any], getattr(np, name))


count_nonzero = _numpy_c("count_nonzero")
packbits = _numpy_c("packbits")
putmask = _numpy_c("putmask")


def host_read(api: str, what: str = "reads register, mask or UB values inside the loop (they differ by iteration)") -> None:
    """Python is about to read register, mask or UB values (a debug accessor, a print): the running VF's backend, while
    a loop runs batched (there they differ by iteration), has a `host_read` that sends the loop in order. (Asked of the
    backend, not kept in a context variable of its own: a batched attempt sets no second variable.)"""
    ctx = _VF.get()
    hook = None if ctx is None else getattr(ctx.backend, "host_read", None)
    if hook is not None:
        hook(api, what)


T = TypeVar("T", bound=dt.DType)
U = TypeVar("U", bound=dt.DType)

VL = 256  #: bytes in one vector register (`VECTOR_REG_WIDTH`)
MASK_BITS = VL  # 256 predicate bits: one per byte of a vector register

Bools = npt.NDArray[np.bool_]
Bytes = npt.NDArray[np.uint8]


@attrs.frozen
class RegTrait:
    """`RegTrait`: how many vector registers one `RegTensor` spans."""

    REG_NUM: int

    def __repr__(self) -> str:
        return "RegTraitNumOne" if self.REG_NUM == 1 else "RegTraitNumTwo"


RegTraitNumOne = RegTrait(1)
RegTraitNumTwo = RegTrait(2)

#: dtypes a RegTensor may hold on Ascend 950 (the Ascend C `RegTensor` page): every dtype but complex ones
#: are accepted with RegTraitNumOne; RegTraitNumTwo only for b64 and complex32 (float64 too: the 950 library's
#: double emulations declare `RegTensor<double, RegTraitNumTwo>`, docs/decisions/model.md#float64-element-type).
TRAIT_TWO_DTYPES = frozenset({dt.int64, dt.uint64, dt.float64, dt.complex64, dt.complex32})


def check_trait(api: str, dtype: type[dt.DType], trait: object) -> RegTrait:
    if not isinstance(trait, RegTrait):
        raise ParameterError(message(api, "trait", repr(trait), "Reg.RegTraitNumOne, Reg.RegTraitNumTwo"))
    if trait.REG_NUM == 2 and dtype not in TRAIT_TWO_DTYPES:
        raise DTypeError(
            message(api, "trait", f"RegTraitNumTwo with {dtype!r}", f"RegTraitNumTwo only with {dt.names(TRAIT_TWO_DTYPES)}")
        )
    return trait


def check_dtype(api: str, param: str, dtype: object) -> type[dt.DType]:
    if not dt.is_dtype(dtype):
        raise DTypeError(message(api, param, repr(dtype), "a regsim dtype class such as rs.float32"))
    return dtype  # type: ignore[return-value]


def mask_stride(dtype: type[dt.DType], trait: RegTrait = RegTraitNumOne) -> int:
    """Predicate bits per element: lane `i` of `dtype` is governed by bit `i * mask_stride`.

    b8 → 1, b16 → 2, b32 → 4, b64 RegTraitNumOne → 8 (32 lanes), b64 RegTraitNumTwo → 4
    (64 lanes, the b32 layout), complex32 RegTraitNumTwo → 2 (128 lanes).
    """
    return dtype.itemsize // trait.REG_NUM


def lane_count(dtype: type[dt.DType], trait: RegTrait = RegTraitNumOne) -> int:
    """Elements in one register of `dtype`: 256 // itemsize, doubled by RegTraitNumTwo."""
    return MASK_BITS // mask_stride(dtype, trait)


@attrs.define(eq=False)
class Storage:
    """Bytes plus a per-byte 'was written' flag.

    `valid` is None when every byte was written: the summary that makes the common case (fully
    written registers and buffers) free of byte scans.
    """

    data: Bytes
    valid: Bools | None
    #: where never-written bytes came from, for error messages: its `str()` (e.g. "LoadAlign of UB bytes [0, 256)"),
    #: built only for a message (a load's `memory.UbRead` says who wrote the bytes beside them)
    origin: object = ""
    #: bytes stores may still mark written before the flags are summarised again (`mark_stored`)
    until: int = 0
    #: `data` as a memoryview: slices of it copy a register's bytes in a third of numpy's time
    buffer: memoryview = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        self.buffer = memoryview(self.data)  # type: ignore[arg-type]  # (numpy arrays are buffers)

    @classmethod
    def fresh(cls, nbytes: int) -> Storage:
        return cls(np.zeros(nbytes, np.uint8), np.zeros(nbytes, np.bool_))

    def write(self, start: int, raw: Bytes) -> None:
        """Copy `raw` to `[start, start + raw.size)` and record those bytes as written (host side:
        the flags are summarised once every byte is written)."""
        end = start + raw.size
        self.data[start:end] = raw
        self.mark(start, end)
        self.summarise()

    def mark(self, start: int, end: int) -> None:
        """Record bytes `[start, end)` as written."""
        if self.valid is not None:
            self.valid[start:end] = True

    def mark_stored(self, start: int, end: int) -> None:
        """`mark`, for a store, with an amortised summary: the flags are counted again (and dropped
        once every byte is written) only after stores marked as many bytes as were missing at the
        last count, or a quarter of the storage if more: never before the buffer can be complete,
        and at most four counts per storage-size of stored bytes (under a nanosecond a byte)."""
        valid = self.valid
        if valid is not None:
            valid[start:end] = True
            self.until -= end - start
            if self.until <= 0:
                missing = valid.size - int(count_nonzero(valid))
                if missing:
                    self.until = max(missing, valid.size // 4)
                else:
                    self.valid = None

    def all_written(self, start: int, end: int) -> bool:
        """Whether every byte of `[start, end)` was written (no numpy reduction on the fast path)."""
        valid = self.valid
        if valid is None:
            return True
        if end - start <= len(_ONES):
            return valid[start:end].tobytes() == _ONES[: end - start]
        return int(count_nonzero(valid[start:end])) == end - start

    def partial(self) -> bool:
        """Whether some byte was never written (`valid is not None`, without making flags a storage may not keep)."""
        return self.valid is not None

    def first_unwritten(self, start: int, end: int) -> int | None:
        """The first byte of `[start, end)` never written, or None."""
        valid = self.valid
        if valid is None or start >= end:
            return None
        missing = np.flatnonzero(~valid[start:end])
        return start + int(missing[0]) if missing.size else None

    def summarise(self) -> None:
        """Drop the per-byte flags once every byte is written."""
        valid = self.valid
        if valid is not None and (valid.tobytes() == _ONES[: valid.size] if valid.size <= len(_ONES) else valid.all()):
            self.valid = None

    # --- the written state of some bytes, as arrays: what a load carries, a rollback puts back ---------------------
    def flags(self, start: int, end: int) -> Bools | None:
        """The written flags of bytes `[start, end)` (a new array), or None if every one was written."""
        if self.all_written(start, end):
            return None
        return self.valid[start:end].copy()  # type: ignore[index]  # (not all written: flags kept)

    def put_written(self, start: int, end: int, flags: Bools | None) -> None:
        """Bytes `[start, end)`'s written flags = `flags` (None: all written), as `flags()` gave them (a rollback)."""
        valid = self.valid
        if valid is None:
            if flags is None or flags.all():
                return
            valid = self.valid = np.ones(self.data.size, np.bool_)
        valid[start:end] = True if flags is None else flags

    def mark_where(self, start: int, written: Bools) -> None:
        """Record as written the bytes from `start` whose `written` flag is set (the others as they were)."""
        valid = self.valid
        if valid is not None:
            valid[start : start + written.size] |= written

    def flags_at(self, at: At) -> Bools | None:
        """The written flags of the bytes `at` (an index array, or `(start, shape, strides)` of a strided view), a new
        array of its shape; None if the storage keeps no flags (every byte written, `partial()` false)."""
        valid = self.valid
        if valid is None:
            return None
        return _at(valid, at).copy() if isinstance(at, tuple) else valid[at]

    def mark_at(self, at: At, where: Bools | None = None) -> None:
        """Record the bytes `at` (as `flags_at`) as written: where `where` (broadcast to its shape) is set, if given."""
        valid = self.valid
        if valid is None:
            return
        if not isinstance(at, tuple):
            valid[at] = True
        elif where is None:
            _at(valid, at)[...] = True
        else:
            np.copyto(_at(valid, at), True, where=where)

    def put_at(self, at: At, flags: Bools) -> None:
        """The bytes `at`'s written flags = `flags`, as `flags_at` gave them (a rollback)."""
        valid = self.valid
        if valid is None:
            if flags.all():
                return
            valid = self.valid = np.ones(self.data.size, np.bool_)
        if isinstance(at, tuple):
            _at(valid, at)[...] = flags
        else:
            valid[at] = flags


_ONES = b"\x01" * (2 * VL)

#: some bytes of a storage: an index array, or (start, shape, strides) of a strided view of them (a batched loop's rows)
At = npt.NDArray[np.intp] | tuple[int, tuple[int, ...], tuple[int, ...]]


def _at(flags: Bools, at: tuple[int, tuple[int, ...], tuple[int, ...]]) -> Bools:
    """The strided view `at` of `flags` (writable)."""
    start, shape, strides = at
    return np.ndarray(shape, np.bool_, buffer=flags, offset=start, strides=strides)


def _bounds(at: At) -> tuple[int, int]:
    """The least and one past the greatest byte of `at` (lo == hi: none)."""
    if isinstance(at, tuple):
        start, shape, strides = at
        if 0 in shape:
            return start, start
        return start, start + sum((n - 1) * s for n, s in zip(shape, strides, strict=True)) + 1
    if at.size == 0:
        return 0, 0
    return int(at.min()), int(at.max()) + 1


def _shifted(at: At, lo: int) -> At:
    """`at` in an array of the bytes from `lo`."""
    if isinstance(at, tuple):
        return at[0] - lo, at[1], at[2]
    return at - lo


def _runs(flags: Bools) -> list[tuple[int, int]]:
    """The runs [a, b) of set flags."""
    edges = np.flatnonzero(np.diff(flags, prepend=False, append=False)).tolist()
    return list(zip(edges[::2], edges[1::2], strict=True))


class RangeStorage(Storage):
    """A `Storage` for a large buffer (a core's UB) that keeps its written bytes as sorted ranges
    [starts[k], ends[k]) (disjoint, not touching), so marking bytes written and asking whether some are
    cost O(log ranges) rather than O(bytes): a kernel's copies and stores into a UB it never fills all of.

    Asking for the per-byte flags (`valid`) makes them from the ranges, and they are kept instead from then
    on (callers may change them in place), as they are past `MAX_RANGES` ranges; `valid is None` (every byte
    written) as for any storage. The questions and changes of spans and points (`all_written`, `first_unwritten`,
    `flags`, `put_written`, `mark_where`, `flags_at`, `mark_at`, `put_at`) keep the ranges: what they answer as
    flags is made for those bytes only.
    """

    __slots__ = ("_flags", "ends", "starts")

    MAX_RANGES: ClassVar[int] = 256  #: past this many ranges the per-byte flags are kept instead
    # (the flags' answers are `Storage.<method>(self, ...)`: super() costs a few hundred ns more a call here)

    _flags: Bools | None
    #: the written ranges while kept as ranges (None: the per-byte flags `_flags` say, or every byte was written)
    starts: list[int] | None
    ends: list[int] | None

    @classmethod
    def fresh(cls, nbytes: int) -> RangeStorage:
        st = cls(np.zeros(nbytes, np.uint8), None)
        st.starts, st.ends = [], []
        return st

    @property
    def valid(self) -> Bools | None:  # (the flags, made from the ranges when first asked for)
        if self.starts is not None:
            self._flags, self.starts, self.ends = self._box(0, self.data.size), None, None
            self.until = 0
        return self._flags

    @valid.setter
    def valid(self, flags: Bools | None) -> None:
        self._flags, self.starts, self.ends = flags, None, None

    def partial(self) -> bool:
        return self.starts is not None or self._flags is not None

    def mark(self, start: int, end: int) -> None:
        if self.starts is None:
            Storage.mark(self, start, end)
        elif start < end:
            self._add(start, end)

    def mark_stored(self, start: int, end: int) -> None:
        if self.starts is None:
            Storage.mark_stored(self, start, end)
        elif start < end:
            self._add(start, end)
            starts, ends = self.starts, self.ends
            # (`summarise` called where it may act: the ranges switched to flags, or a first range from byte 0 to the
            # end, the only one then; a store into a UB not all written, the common case, skips the call)
            if starts is None or ends is None or (starts[0] == 0 and ends[0] == self.data.size):
                self.summarise()

    def _add(self, start: int, end: int) -> None:
        """Join [start, end) to the ranges (those it overlaps or touches merged into one)."""
        starts, ends = self.starts, self.ends
        assert starts is not None and ends is not None
        i, j = bisect_left(ends, start), bisect_right(starts, end)  # the ranges [i, j) overlap or touch it
        if i < j:
            if j == i + 1 and starts[i] <= start and end <= ends[i]:
                return  # (already written: the common case)
            start, end = min(start, starts[i]), max(end, ends[j - 1])
        starts[i:j], ends[i:j] = [start], [end]
        if len(starts) > self.MAX_RANGES:
            self.valid  # (the per-byte flags from now on)  # noqa: B018

    def all_written(self, start: int, end: int) -> bool:
        starts, ends = self.starts, self.ends
        if starts is None or ends is None:
            # (every byte written: answered here, not through `valid` and `Storage.all_written`, for in-order loads)
            return self._flags is None or Storage.all_written(self, start, end)
        if start >= end:
            return True
        k = bisect_right(starts, start) - 1  # the range starting at or before `start`
        return k >= 0 and ends[k] >= end

    def first_unwritten(self, start: int, end: int) -> int | None:
        starts, ends = self.starts, self.ends
        if starts is None or ends is None:
            return Storage.first_unwritten(self, start, end)
        k = bisect_right(starts, start) - 1
        at = max(start, ends[k]) if k >= 0 else start
        return at if at < end else None

    def summarise(self) -> None:
        starts, ends = self.starts, self.ends
        if starts is None or ends is None:
            Storage.summarise(self)
        elif len(starts) == 1 and starts[0] == 0 and ends[0] == self.data.size:
            self.starts = self.ends = None

    def _box(self, lo: int, hi: int) -> Bools:
        """The per-byte flags of bytes [lo, hi), made from the ranges (a new array; the ranges kept)."""
        starts, ends = self.starts, self.ends
        assert starts is not None and ends is not None
        out = np.zeros(hi - lo, np.bool_)
        for k in range(bisect_right(ends, lo), bisect_left(starts, hi)):  # (the ranges overlapping [lo, hi))
            out[max(starts[k], lo) - lo : min(ends[k], hi) - lo] = True
        return out

    def flags(self, start: int, end: int) -> Bools | None:
        if self.starts is None:
            return Storage.flags(self, start, end)
        return None if self.all_written(start, end) else self._box(start, end)

    def put_written(self, start: int, end: int, flags: Bools | None) -> None:
        if self.starts is None:
            if self._flags is not None:
                return Storage.put_written(self, start, end, flags)
            if flags is None or start >= end:
                return
            self.starts, self.ends = [0], [self.data.size]  # (every byte written: one range, to cut)
        starts, ends = self.starts, self.ends
        assert starts is not None and ends is not None
        if start < end:  # cut [start, end) out of the ranges, then mark its written runs
            i, j = bisect_right(ends, start), bisect_left(starts, end)
            if i < j:
                cut = [(starts[i], start)] if starts[i] < start else []
                cut += [(end, ends[j - 1])] if ends[j - 1] > end else []
                starts[i:j], ends[i:j] = [a for a, _ in cut], [b for _, b in cut]
            if flags is None:
                self.mark(start, end)
            else:
                self.mark_where(start, flags)

    def mark_where(self, start: int, written: Bools) -> None:
        if self.starts is None:
            return Storage.mark_where(self, start, written)
        runs = _runs(written)
        if len(runs) + len(self.starts) > self.MAX_RANGES:  # (past MAX_RANGES: the flags, from now on)
            self.valid  # noqa: B018
            return Storage.mark_where(self, start, written)
        for a, b in runs:
            self.mark(start + a, start + b)
        return None

    def flags_at(self, at: At) -> Bools | None:
        if self.starts is None:
            return Storage.flags_at(self, at)
        lo, hi = _bounds(at)
        box, local = self._box(lo, hi), _shifted(at, lo)
        return _at(box, local) if isinstance(local, tuple) else box[local]

    def mark_at(self, at: At, where: Bools | None = None) -> None:
        if self.starts is None:
            return Storage.mark_at(self, at, where)
        if isinstance(at, tuple) and where is None:  # rows of contiguous bytes (a batched store's): a range a row
            start, shape, strides = at
            k, row = len(shape), 1
            while k and strides[k - 1] == row:
                k, row = k - 1, row * shape[k - 1]
            if k == 0 or (k == 1 and shape[0] + len(self.starts) <= self.MAX_RANGES):
                for r in range(shape[0] if k and row else 1):
                    self.mark(start + r * strides[0], start + r * strides[0] + row)
                return None
        lo, hi = _bounds(at)
        marks = np.zeros(hi - lo, np.bool_)
        local = _shifted(at, lo)
        if not isinstance(local, tuple):
            marks[local] = True
        else:
            np.copyto(_at(marks, local), True, where=True if where is None else where)
        self.mark_where(lo, marks)
        return None

    def put_at(self, at: At, flags: Bools) -> None:
        if self.starts is None and self._flags is not None:
            return Storage.put_at(self, at, flags)
        lo, hi = _bounds(at)
        box = self._box(lo, hi) if self.starts is not None else np.ones(hi - lo, np.bool_)
        local = _shifted(at, lo)
        if isinstance(local, tuple):
            _at(box, local)[...] = flags
        else:
            box[local] = flags
        self.put_written(lo, hi, box)
        return None


_new = object.__new__
_zeros = np.zeros
_UINT8, _BOOL = np.dtype(np.uint8), np.dtype(np.bool_)
_ONE_SPAN = slice(0, VL)
#: a new register's bytes and written flags (`RegTensor.__init__`): copies of these zeros (cheaper than `np.zeros`)
_fresh_bytes, _fresh_flags = np.zeros(VL, _UINT8).copy, np.zeros(VL, _BOOL).copy
#: per dtype, what a one-register `RegTensor` of it is made with: its lanes' numpy dtype and its `_sig` (`_one_register`)
_ONE_REGISTER: Final[dict[type[dt.DType], tuple[np.dtype[Any], Any]]] = {}


def _one_register(dtype: type[dt.DType]) -> tuple[np.dtype[Any], Any]:
    """`_ONE_REGISTER[dtype]`, made at the first register of `dtype` (its `np_dtype` may load ml_dtypes: not before)."""
    made = _ONE_REGISTER[dtype] = (dtype.np_dtype, dtype._reg_sigs[1])
    return made


class RegTensor(Generic[T]):
    """`RegTensor<T, regTrait>`: one (or, with RegTraitNumTwo, two) 256-byte vector registers.

    RegTraitNumTwo b64 keeps the low 32-bit words of its 64 elements in the first register and
    the high words in the second; complex types keep real parts first, imaginary parts second.
    """

    __slots__ = ("_bytes", "_raw", "_rview", "_sig", "_span", "_storage", "_view", "_whole", "dtype", "trait")

    dtype: type[T]
    trait: RegTrait
    _raw: Bytes
    _view: npt.NDArray[Any] | None
    _rview: npt.NDArray[Any] | None

    @host_api("RegTensor")
    def _init(self, dtype: type[T], trait: RegTrait = RegTraitNumOne) -> None:
        """`RegTensor(dtype, trait)`'s general path."""
        check_trait("RegTensor", check_dtype("RegTensor", "T", dtype), trait)
        self.dtype, self.trait = dtype, trait
        self._bind(Storage.fresh(VL * trait.REG_NUM))

    if TYPE_CHECKING:

        def __init__(self, dtype: type[T], trait: RegTrait = RegTraitNumOne) -> None:
            self._init(dtype, trait)

    else:

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            # (no `host_api` wrapper on the hot path: one register of a dtype, the dtype alone given, is made here; any
            # other call takes the general path `_init`, with the arguments as given: its refusals are the wrapper's)
            if kwargs or len(args) != 1 or not dt.is_dtype(args[0]):
                self._init(*args, **kwargs)
                return
            dtype = self.dtype = args[0]  # (`Storage.fresh` and `_bind`, inlined; the new arrays copies of zeros: cheaper)
            lanes = _ONE_REGISTER.get(dtype) or _one_register(dtype)
            data = _fresh_bytes()
            st: Storage = _new(Storage)
            st.data = data
            st.valid = _fresh_flags()
            st.origin = ""
            st.until = 0
            st.buffer = buffer = memoryview(data)  # (numpy arrays are buffers)
            self.trait = RegTraitNumOne
            self._storage = st
            self._whole = True
            self._span = _ONE_SPAN
            self._raw = data
            self._bytes = buffer
            self._sig = lanes[1]
            self._view = view = data.view(lanes[0])
            self._rview = rview = view.view()
            rview.setflags(write=False)

        __init__.__signature__ = inspect.signature(_init)

    def _bind(self, storage: Storage, offset: int = 0) -> None:
        """View `storage` from byte `offset` (nonzero for `reg[1]` of a two-register tensor)."""
        self._storage = storage
        regs = self.trait.REG_NUM
        nbytes = VL * regs
        data = storage.data
        #: whether these bytes are all of the storage's (not one register of a two-register tensor): a write of every
        #: lane then leaves no byte of it never written (the in-order fast paths drop its flags, `Storage.valid`)
        self._whole = whole = offset == 0 and data.size == nbytes
        self._span = span = slice(offset, offset + nbytes)
        # (all of the storage: its own array and memoryview, no slices of them made)
        self._raw = data if whole else data[span]
        #: the same bytes as a memoryview (the in-order fast paths copy them)
        self._bytes = storage.buffer if whole else storage.buffer[span]
        #: the static type of the register, as the op engine's validation cache keys it
        self._sig = self.dtype._reg_sigs[regs]
        # One register: the lanes are a typed view of the bytes (None: assembled from two); `_rview`: the same lanes,
        # read-only: what lane functions are given
        self._view = None
        self._rview = None
        if regs == 1:
            self._view = self._raw.view(self.dtype.np_dtype)
            self._rview = rview = self._view.view()
            rview.setflags(write=False)

    # --- constructors and debug accessors: usable anywhere -------------------------------
    @classmethod
    @host_api("RegTensor.from_numpy")
    def from_numpy(
        cls, array: npt.ArrayLike, *, dtype: type[T] | None = None, trait: RegTrait = RegTraitNumOne, cast: bool = False
    ) -> RegTensor[T]:
        """A register holding `array`'s values, one per lane (length must equal the lane count).

        Values must fit `dtype` exactly unless `cast=True`, as for `LocalTensor.set`."""
        arr = np.asarray(array)
        if dtype is None:
            found = [d for d in dt.ALL_DTYPES if d.np_dtype == arr.dtype and not d.bits_only]
            if not found:
                raise DTypeError(
                    message("RegTensor.from_numpy", "array.dtype", arr.dtype, "the numpy dtype of a regsim dtype, or pass dtype=")
                )
            dtype = found[0]  # type: ignore[assignment]
        reg: RegTensor[T] = cls(dtype, trait)  # type: ignore[arg-type]
        n = lane_count(reg.dtype, reg.trait)
        if arr.shape != (n,):
            raise ParameterError(
                message("RegTensor.from_numpy", "array.shape", arr.shape, f"({n},) for {reg.dtype!r} with {reg.trait!r}")
            )
        reg._put(to_lanes("RegTensor.from_numpy", reg.dtype, arr, cast=cast))
        reg._storage.valid = None
        return reg

    @host_api("RegTensor.numpy")
    def numpy(self) -> npt.NDArray[Any]:
        """The lanes, as a new 1-D array of the register's numpy dtype (never-written bytes read 0)."""
        host_read("RegTensor.numpy")
        return np.array(self._get(), copy=True)

    @host_api("RegTensor.reinterpret")
    def reinterpret(self, dtype: type[U], trait: RegTrait = RegTraitNumOne) -> RegTensor[U]:
        """`(RegTensor<U>&)reg`: a view of the same bytes as another type.

        As in C++, the default target holds one register, so a cast of a two-register tensor
        sees its first register; pass `trait=RegTraitNumTwo` to view both.
        """
        if trait is RegTraitNumOne and self._view is not None and dt.is_dtype(dtype):
            # one register as one register of a dtype (nothing to refuse): `_view_as`, inlined, the bytes' fields as
            # the source's (the same storage, span and offset) and the lanes' dtype and sig from the per-dtype table
            lanes = _ONE_REGISTER.get(dtype) or _one_register(dtype)
            out: RegTensor[U] = _new(RegTensor)
            out.dtype, out.trait, out._storage, out._whole, out._span = dtype, trait, self._storage, self._whole, self._span
            raw = out._raw = self._raw
            out._bytes, out._sig = self._bytes, lanes[1]
            out._view = view = raw.view(lanes[0])
            out._rview = rview = view.view()
            rview.setflags(write=False)
            return out
        check_dtype("RegTensor.reinterpret", "dtype", dtype)
        check_trait("RegTensor.reinterpret", dtype, trait)
        if trait.REG_NUM > self.trait.REG_NUM:
            raise ParameterError(message("RegTensor.reinterpret", "trait", trait, "at most the source's register count"))
        return self._view_as(dtype, trait, self._span.start)

    @property
    def reg(self) -> tuple[RegTensor[T], ...]:
        """`reg.reg[k]`: the k-th hardware register of the tensor, as a one-register view.

        For a RegTraitNumTwo b64 tensor, `reg[0]` holds the low 32-bit words and `reg[1]` the
        high words, so `(RegTensor<uint32_t>&)r.reg[1]` is `r.reg[1].reinterpret(rs.uint32)`.
        """
        return _Registers(self._view_as(self.dtype, RegTraitNumOne, self._span.start + k * VL) for k in range(self.trait.REG_NUM))

    def _view_as(self, dtype: type[U], trait: RegTrait, offset: int) -> RegTensor[U]:
        view: RegTensor[U] = object.__new__(RegTensor)
        view.dtype, view.trait = dtype, trait
        view._bind(self._storage, offset)
        return view

    @host_api("RegTensor.Print")
    def Print(self) -> None:
        """Print the lanes, as the C++ `Print()` does, 16 per line."""
        host_read("RegTensor.Print")
        values = self._get()
        name = f"RegTensor<{self.dtype.name}{', RegTraitNumTwo' if self.trait.REG_NUM == 2 else ''}>"
        rows = [" ".join(str(v) for v in values[i : i + 16]) for i in range(0, len(values), 16)]
        sys.stdout.write(name + "\n" + "\n".join(rows) + "\n")

    def __repr__(self) -> str:
        host_read("RegTensor.__repr__")
        return f"RegTensor[{self.dtype.name}]({np.array2string(self._get(), threshold=16)})"

    # --- byte/lane plumbing used by the backend ----------------------------------------------
    def _get(self) -> npt.NDArray[Any]:
        """The lanes: a view for one register; assembled from the word halves for two (a new array)."""
        if self._view is not None:
            return self._view
        word, natural, _ = _pair_order(self.dtype.itemsize)
        return self._raw.view(word)[natural].view(self.dtype.np_dtype)

    def _put(self, values: npt.NDArray[Any]) -> None:
        """Write all lanes (values already of the register's numpy dtype)."""
        if self._view is not None:
            self._view[...] = values
        else:
            put_halves(self._raw, np.ascontiguousarray(values).view(np.uint8), self.dtype.itemsize)

    def _lane_valid(self) -> Bools | None:
        """Per lane, whether every byte of it was written (None: all were)."""
        valid = self._storage.valid
        if valid is None:
            return None
        v = valid[self._span]
        if v.tobytes() == _ONES[: v.size]:
            return None
        if self._view is None:
            v = halves_to_natural(v, self.dtype.itemsize)
        per_lane: Bools = np.logical_and.reduce(v.reshape(-1, self.dtype.itemsize), axis=1)
        return per_lane

    def _mark_lanes(self, lanes: Bools | None) -> None:
        """Record lanes as written (None: every lane)."""
        st = self._storage
        if st.valid is None:
            return
        span = st.valid[self._span]
        if lanes is None:
            span[...] = True
        else:
            per_byte = np.repeat(lanes, self.dtype.itemsize)
            span |= per_byte if self._view is not None else natural_to_halves(per_byte, self.dtype.itemsize)
        st.summarise()


#: per element size of a register pair: (its half word's numpy dtype, the words' permutations from the RegTraitNumTwo
#: order to memory order and back), `_pair_order`
_PAIR_ORDERS: Final[dict[int, tuple[np.dtype[Any], npt.NDArray[np.intp], npt.NDArray[np.intp]]]] = {}


def _pair_order(itemsize: int) -> tuple[np.dtype[Any], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """A register pair's half words (`natural_to_halves` of its 2 * VL bytes) as index arrays: one fancy index moves
    them (a third of the time memoryview slices took at 64 elements)."""
    order = _PAIR_ORDERS.get(itemsize)
    if order is None:
        n = 2 * VL // itemsize  #: the pair's elements
        natural = np.arange(2 * n).reshape(2, n).T.reshape(-1)  # memory word k: halves word (k % 2) * n + k // 2
        order = _PAIR_ORDERS[itemsize] = (np.dtype(f"u{itemsize // 2}"), natural, np.argsort(natural))
    return order


def put_halves(dst: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8], itemsize: int) -> None:
    """dst = src (the bytes of a register pair's elements in memory order) in the RegTraitNumTwo order, as
    `natural_to_halves`: both contiguous, their half words moved by one fancy index (`_pair_order`)."""
    word, _, halves = _pair_order(itemsize)
    dst.view(word)[...] = src.view(word)[halves]


def put_natural(dst: npt.NDArray[np.uint8], src: npt.NDArray[np.uint8], itemsize: int) -> None:
    """dst = src (a register pair's bytes: low halves, then high halves) in memory order, as `halves_to_natural`
    (`put_halves`)."""
    word, natural, _ = _pair_order(itemsize)
    dst.view(word)[...] = src.view(word)[natural]


def natural_to_halves(x: npt.NDArray[Any], itemsize: int) -> npt.NDArray[Any]:
    """Bytes of 2-register elements in memory order → RegTraitNumTwo order (low halves, then high);
    along the last axis."""
    lead, half = x.shape[:-1], itemsize // 2
    if x.size >= _WIDE and x.dtype == np.uint8 and x.strides[-1] == 1 and half in (2, 4):  # whole halves, not bytes
        return _halves_view(x, half).reshape(*lead, -1, 2).swapaxes(-2, -1).copy().view(np.uint8).reshape(x.shape)
    return x.reshape(*lead, -1, 2, half).swapaxes(-3, -2).reshape(x.shape)


#: from this many bytes (a batched loop's registers) the half shuffles move words; one register's
#: bytes are faster moved by the plain reshape (fewer numpy calls)
_WIDE = 16 * 1024


def _halves_view(x: npt.NDArray[Any], half: int) -> npt.NDArray[Any]:
    """Bytes (last axis contiguous) as unsigned integers of `half` bytes, so a shuffle of halves
    copies words rather than bytes."""
    return np.ascontiguousarray(x).view(np.uint16 if half == 2 else np.uint32)


def halves_to_natural(x: npt.NDArray[Any], itemsize: int) -> npt.NDArray[Any]:
    """RegTraitNumTwo bytes (low halves, then high halves) → memory order of whole elements;
    along the last axis."""
    lead, half = x.shape[:-1], itemsize // 2
    if x.size >= _WIDE and x.dtype == np.uint8 and x.strides[-1] == 1 and half in (2, 4):  # whole halves, not bytes
        w = _halves_view(x, half).reshape(*lead, 2, -1)
        return np.stack((w[..., 0, :], w[..., 1, :]), axis=-1).view(np.uint8).reshape(x.shape)
    return x.reshape(*lead, 2, -1, half).swapaxes(-3, -2).reshape(x.shape)


def to_lanes(api: str, dtype: type[dt.DType], values: npt.ArrayLike, *, cast: bool = False) -> npt.NDArray[Any]:
    """`values` as `dtype`'s numpy dtype. Every value must be one `dtype` holds exactly (a float
    that would round, overflow to inf or lose an imaginary part is a `ParameterError`) unless
    `cast`, which converts as numpy's `astype` does (round to nearest even, wrap integers).
    Integer dtypes take only integers and bools; bits-only types take their uint8 bits."""
    arr = np.asarray(values)
    target = dtype.np_dtype
    if arr.dtype == target:
        return arr
    integral = np.issubdtype(target, np.integer)
    if arr.dtype.kind in "OSUMm" or (integral and arr.dtype.kind not in "iub"):  # objects, text, times
        kind = f"integers{' (the bits)' if dtype.bits_only else ''}" if integral else "numbers"
        raise DTypeError(message(api, "values.dtype", arr.dtype, f"{kind} for {dtype!r}"))
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        out = arr.astype(target)
        back = out.astype(arr.dtype)
    inexact = (back != arr) & ~(np.isnan(back) & np.isnan(arr)) if arr.dtype.kind in "fc" else back != arr
    if cast or not inexact.any():
        return out
    bad = arr[inexact][0]
    if integral:
        info = np.iinfo(target)
        accepted = f"{dtype!r} values in [{info.min}, {info.max}]"
    elif dtype is dt.bool_:
        accepted = "bools, or the ints 0 and 1"
    else:
        accepted = f"values {dtype!r} holds exactly (or cast=True, where the call takes it, to round as numpy's astype does)"
    raise ParameterError(message(api, "value", bad.item(), accepted))


class _Registers(tuple[RegTensor[T], ...]):
    """`reg.reg`: the hardware registers of a tensor; `reg.reg[k]` for k in [0, REG_NUM)."""

    def __getitem__(self, k: Any) -> Any:
        return super().__getitem__(as_int("RegTensor.reg[]", "k", k, 0, len(self) - 1))


def _frozen(bits: Bools) -> Bools:
    bits.flags.writeable = False
    return bits


_NO_BITS = _frozen(np.zeros(MASK_BITS, np.bool_))

#: the lanes a predicate selects at one stride: (one bool per lane, how many are true)
Active = tuple[Bools, int]


@functools.lru_cache(maxsize=4096)
def _prefix(count: int, pattern: bytes) -> tuple[Bools, Active]:
    """The bits of a predicate selecting lanes [0, count) (each lane's group of bits set as
    `pattern` says), and its lanes at its own stride."""
    stride = len(pattern)
    lanes = np.zeros(MASK_BITS // stride, np.bool_)
    lanes[:count] = True
    return _frozen(lanes_to_bits(lanes, pattern)), (_frozen(lanes), count)


class MaskReg(metaclass=dt.InstanceSig):
    """`MaskReg`: a 256-bit predicate register. Lane `i` of a `T` operand reads bit `i * sizeof(T)`.

    Its bits array is never written in place, only replaced, so masks may share (read-only) bits;
    `_lanes` caches, per stride, the lanes the bits select and their count. A predicate written from its lanes
    (`_assign_lanes`: a Compare's, a carry) makes its bits when they are first read (a Select reads the lanes only).
    """

    __slots__ = ("_lanes", "_made", "_pending", "_written")

    _sig: ClassVar[Any]  #: the op engine's cache key for a MaskReg argument (`dt.InstanceSig`)
    _pending: tuple[Bools, bytes]  #: the lanes and group pattern of bits not made yet (`_assign_lanes`)

    @host_api("MaskReg")
    def __init__(self) -> None:
        #: the bits (None: not made yet, from `_pending`'s lanes and group pattern: see `_bits`)
        self._made: Bools | None = _NO_BITS
        #: per bit, whether it was ever written (None: every bit was)
        self._written: Bools | None = _NO_BITS
        self._lanes: dict[int, Active] = {}

    @classmethod
    @host_api("MaskReg.from_bits")
    def from_bits(cls, bits: npt.ArrayLike) -> MaskReg:
        """A mask of the 256 given bits (bools, or the ints 0 and 1), bit 0 first."""
        arr = np.asarray(bits)
        if arr.shape != (MASK_BITS,):
            raise ParameterError(message("MaskReg.from_bits", "bits.shape", arr.shape, f"({MASK_BITS},)"))
        m = cls()
        m._assign(np.array(to_lanes("MaskReg.from_bits", dt.bool_, arr)))  # a copy: never shared with the caller
        return m

    @classmethod
    @host_api("MaskReg.from_lanes")
    def from_lanes(cls, dtype: type[dt.DType], lanes: npt.ArrayLike, trait: RegTrait = RegTraitNumOne) -> MaskReg:
        """A mask with bit `i * mask_stride` set for each true lane (the other bits clear)."""
        check_dtype("MaskReg.from_lanes", "dtype", dtype)
        check_trait("MaskReg.from_lanes", dtype, trait)
        arr = np.asarray(lanes)
        n = lane_count(dtype, trait)
        if arr.shape != (n,):
            raise ParameterError(message("MaskReg.from_lanes", "lanes.shape", arr.shape, f"({n},) for {dtype!r} with {trait!r}"))
        m = cls()
        m._assign(lanes_to_bits(to_lanes("MaskReg.from_lanes", dt.bool_, arr), LSB[mask_stride(dtype, trait)]))
        return m

    @host_api("MaskReg.bits")
    def bits(self) -> Bools:
        """The 256 bits, bit 0 first (a copy)."""
        host_read("MaskReg.bits")
        return self._bits.copy()

    @host_api("MaskReg.lanes")
    def lanes(self, dtype: type[dt.DType], trait: RegTrait = RegTraitNumOne) -> Bools:
        """One bool per element of `dtype`: bit `i * mask_stride(dtype, trait)`."""
        check_dtype("MaskReg.lanes", "dtype", dtype)
        check_trait("MaskReg.lanes", dtype, trait)
        host_read("MaskReg.lanes")
        return self._bits[:: mask_stride(dtype, trait)].copy()

    @host_api("MaskReg.Print")
    def Print(self, dtype: type[dt.DType] | None = None, trait: RegTrait = RegTraitNumOne) -> None:
        """Print the 256 bits as 64 hex digits, bit 0 rightmost; with `dtype`, also the lanes a
        `dtype` operand reads (bit `i * mask_stride`), lane 0 first, 1 active and . inactive,
        32 a line with the first lane's index."""
        host_read("MaskReg.Print")
        sys.stdout.write(f"MaskReg: 0x{self._as_int():064x}\n")
        if dtype is not None:
            lanes = self.lanes(dtype, trait)
            name = f"{dtype.name}{', RegTraitNumTwo' if trait.REG_NUM == 2 else ''}"
            sys.stdout.write(f"lanes of {name}: {int(lanes.sum())} of {lanes.size} active\n")
            for i in range(0, lanes.size, 32):
                row = "".join("1" if x else "." for x in lanes[i : i + 32])
                sys.stdout.write(f"  {i:3d}: {' '.join(row[k : k + 8] for k in range(0, len(row), 8))}\n")

    def _as_int(self) -> int:
        return int.from_bytes(np.packbits(self._bits, bitorder="little").tobytes(), "little")

    def __repr__(self) -> str:
        host_read("MaskReg.__repr__")
        return f"MaskReg(0x{self._as_int():064x})"

    # --- used by the backend --------------------------------------------------------------------
    @property
    def _bits(self) -> Bools:
        """The 256 bits, bit 0 first (made at the first read after `_assign_lanes`)."""
        bits = self._made
        if bits is None:
            bits = self._made = lanes_to_bits(*self._pending)
        return bits

    @_bits.setter
    def _bits(self, bits: Bools) -> None:
        self._made = bits

    def _assign(self, bits: Bools, written: Bools | None = None) -> None:
        """Replace the bits (never mutated afterwards) and their written flags."""
        self._made = bits
        self._written = written
        self._lanes = {}

    def _assign_lanes(self, lanes: Bools, pattern: bytes, kept: dict[int, Active]) -> None:
        """Write the predicate selecting `lanes` (each lane's bits set as `pattern` says; `lanes` never changed
        afterwards), its lanes cache `kept`; its bits are made when first read."""
        self._made, self._pending, self._written, self._lanes = None, (lanes, pattern), None, kept

    def _assign_prefix(self, count: int, pattern: bytes) -> None:
        """Write a predicate selecting lanes [0, count) (bits per lane as `pattern`), from a cache."""
        bits, active = _prefix(count, pattern)
        self._made, self._written, self._lanes = bits, None, {len(pattern): active}

    def _active(self, stride: int) -> Active:
        """The lanes selected at `stride` (bit `i * stride`) and how many there are."""
        active = self._lanes.get(stride)
        if active is None:
            lanes = self._bits[::stride]
            active = self._lanes[stride] = (lanes, int(count_nonzero(lanes)))
        return active


def lanes_to_bits(lanes: Bools, pattern: bytes) -> Bools:
    """A predicate in the MaskReg layout: active lane `i` sets the bits of `pattern` (one byte
    per bit of its group) from bit `i * len(pattern)`; inactive lanes set none."""
    if pattern == LSB[len(pattern)]:
        bits = np.zeros(MASK_BITS, np.bool_)
        bits[:: len(pattern)] = lanes
        return bits
    return np.logical_and(lanes[:, None], np.frombuffer(pattern, np.bool_)).reshape(-1)


#: per stride, the group pattern that sets only the lowest bit
LSB: dict[int, bytes] = {k: b"\x01" + b"\x00" * (k - 1) for k in (1, 2, 4, 8)}


@attrs.frozen
class AddrReg(metaclass=dt.InstanceSig):
    """`AddrReg` (`vector_address`): an offset of `Σ index_k * stride_k` elements of `dtype`."""

    _sig: ClassVar[Any]  #: (`dt.InstanceSig`)
    dtype: type[dt.DType]
    offset: int

    @property
    def byte_offset(self) -> int:
        return self.offset * self.dtype.itemsize


@attrs.define(eq=False)
class UnalignRegForLoad(metaclass=dt.InstanceSig):
    """`UnalignRegForLoad` (`vector_align`): the 32-byte buffer of a streaming unaligned load.

    `base` is the 32-byte aligned UB address whose bytes `data` holds (None until a
    `LoadUnAlignPre`); each `LoadUnAlign` consumes it and buffers the next 32 bytes.
    """

    _sig: ClassVar[Any]  #: (`dt.InstanceSig`)
    data: Bytes = attrs.field(factory=lambda: np.zeros(32, np.uint8))
    valid: Bools | None = None  #: written flags of `data` (None: all written)
    base: int | None = None


@attrs.define(eq=False)
class UnalignRegForStore(metaclass=dt.InstanceSig):
    """`UnalignRegForStore` (`vector_align`): the tail of an unaligned store stream not yet
    written: `pending` bytes for UB address `start` on, left by the call `origin`."""

    _sig: ClassVar[Any]  #: (`dt.InstanceSig`)
    pending: Bytes = attrs.field(factory=lambda: np.zeros(0, np.uint8))
    start: int = 0
    origin: str = ""
    ptr: Any = None  #: the pointer of the call that left them (its tensor bounds the flush)
    watched: Any = None  #: the VF context whose end checks this stream was flushed
