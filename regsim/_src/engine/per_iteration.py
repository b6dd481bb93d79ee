"""Values that differ by iteration while a VF loop runs batched (regsim._src.vf.batched), and the
signal that sends such a loop in order.

An op's executor and the dispatcher see these where they would see one value: the loop index and what
is computed from it (`Affine`), a pointer with one address per iteration (`BatchedPtr`). Anything that
needs a single Python value raises `Unbatchable`, which the loop runner catches.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np
import numpy.typing as npt

from regsim._src.model.config import _VF
from regsim._src.model.memory import UbPtr, UnifiedBuffer


@functools.lru_cache(maxsize=16)
def iota(rows: int) -> npt.NDArray[np.int64]:
    """`np.arange(rows)` as int64, read-only and shared (a batched loop's row numbers, asked for by many calls)."""
    rows_ = np.arange(rows, dtype=np.int64)
    rows_.flags.writeable = False
    return rows_


_new = object.__new__

#: addresses of magnitude below this `np.arange` makes exactly (its row count comes from a float64 quotient)
_EXACT = 1 << 52
#: `Affine.LIMIT` and its negative, read as module globals on the hot path
_LIMIT = 1 << 62
_LOW = -_LIMIT


class Unbatchable(BaseException):  # (a signal to the loop runner, never seen by users)
    """The loop cannot run batched exactly; `args[0]` says why. A BaseException, so that no
    `except Exception` on its way (the kernel's, numpy's) can swallow it."""


class PostUpdate(Unbatchable):
    """A post-update pointer the batched attempt has no stride for yet: the loop runner runs
    iteration 0 in order to learn it, then batches the rest."""


class InOrderOnly(Unbatchable):
    """A call with no batching rule: the loop never batches while its body makes it (the loop's site keeps
    this verdict for the static signature the loop started with, and runs in order at once the next time)."""


class Affine:
    """An integer that differs by iteration (the loop index, or a value made from it or from a
    counter made in the body): one Python-int-exact value per iteration (row). Integer
    arithmetic with ints and other Affines gives Affines; anything that needs one Python value
    (`if`, a comparison, `int()`, indexing, a range bound) sends the loop in order.

    The loop index and what `+ - *` make of it with ints stay an arithmetic progression
    `start + step * b` (`prog`), whose bounds, alignment and stride need no array; other values are
    rows of int64 (`values`, made from the progression when first asked for)."""

    __slots__ = ("_values", "prog", "rows")

    LIMIT = _LIMIT  #: beyond it an int64 row could wrap where a Python int would not: in order

    def __init__(self, values: npt.NDArray[np.int64]) -> None:
        """Rows of any values (`progression` makes an arithmetic progression)."""
        self._values: npt.NDArray[np.int64] | None = values
        self.prog: tuple[int, int] | None = None  #: (start, step): row b holds start + step * b
        self.rows = len(values)

    @classmethod
    def progression(cls, start: int, step: int, rows: int) -> Affine:
        """Row b holds start + step * b (its fields set directly: the loop index and `i * k` make many). A new object:
        the loop index is one per batch (the iteration stack, which a trace's records hold, tells batches apart by it)."""
        last = start + step * (rows - 1)
        if start > _LIMIT or start < _LOW or last > _LIMIT or last < _LOW:
            _beyond()  # (both ends of the progression within the limit: every row is)
        a: Affine = _new(cls)  # (one field a statement: cheaper than a tuple's unpacking)
        a._values = None
        a.prog = (start, step)
        a.rows = rows
        return a

    @staticmethod
    def kept(start: int, step: int, rows: int) -> Affine:
        """`progression`, one object per (start, step, rows), kept (`_KEPT`): what arithmetic on the index makes (`i * k`,
        `i + k`), made again by each run of a loop. (Shared: an Affine is never changed in place, and a progression's
        values are read-only.)"""
        key = (start, step, rows)
        a = _KEPT.get(key)
        if a is None:
            a = Affine.progression(start, step, rows)
            if len(_KEPT) >= KEPT:
                _KEPT.clear()
            _KEPT[key] = a
        return a

    @property
    def values(self) -> npt.NDArray[np.int64]:
        if self._values is None:
            assert self.prog is not None
            values = self.prog[0] + self.prog[1] * iota(self.rows)
            values.flags.writeable = False  # (a progression is shared by every run that makes it: `progression`)
            self._values = values
        return self._values

    def bounds(self) -> tuple[int, int]:
        """The smallest and the largest value over the rows."""
        if self.prog is not None:
            first, last = self.prog[0], self.prog[0] + self.prog[1] * (self.rows - 1)
            return min(first, last), max(first, last)
        return int(self.values.min()), int(self.values.max())

    def _linear(self, other: object, sign: int, reflected: bool = False) -> Affine | None:
        """`self ± other` (sign +1 / -1, `other - self` when reflected) as a progression, where both are."""
        if self.prog is None:
            return None
        s0, s1 = self.prog if not reflected else (-self.prog[0], -self.prog[1])
        if isinstance(other, Affine):
            if other.prog is None or other.rows != self.rows:
                return None
            o0, o1 = other.prog
            return Affine.kept(s0 + sign * o0, s1 + sign * o1, self.rows)
        if isinstance(other, (int, np.integer)) and not isinstance(other, (bool, np.bool_)):
            return Affine.kept(s0 + sign * int(other) if not reflected else int(other) + s0, s1, self.rows)
        return None

    def _with(self, other: object, op: Any, reflected: bool = False) -> Affine:
        if isinstance(other, Affine):
            b: Any = other.values
        elif isinstance(other, (int, np.integer)) and not isinstance(other, (bool, np.bool_)):
            b = int(other)
            if not -self.LIMIT <= b <= self.LIMIT:
                raise Unbatchable("a value that differs by iteration is combined with an int beyond 2**62")
        else:
            raise Unbatchable(f"a value that differs by iteration (the loop index ...) is combined with {type(other).__name__}")
        with np.errstate(all="ignore"):
            out = op(b, self.values) if reflected else op(self.values, b)
        if out.dtype != np.int64 or (out.size and (int(out.min()) < -self.LIMIT or int(out.max()) > self.LIMIT)):
            _beyond()
        return Affine(out)

    def __add__(self, other: object) -> Affine:
        return _either(self._linear(other, 1), lambda: self._with(other, np.add))

    def __radd__(self, other: object) -> Affine:
        return _either(self._linear(other, 1), lambda: self._with(other, np.add, True))

    def __sub__(self, other: object) -> Affine:
        return _either(self._linear(other, -1), lambda: self._with(other, np.subtract))

    def __rsub__(self, other: object) -> Affine:
        return _either(self._linear(other, 1, reflected=True), lambda: self._with(other, np.subtract, True))

    def __mul__(self, other: object) -> Affine:
        if type(other) is int and self.prog is not None:  # (the common case: `i * k`)
            return Affine.kept(self.prog[0] * other, self.prog[1] * other, self.rows)
        if self.prog is not None and isinstance(other, (int, np.integer)) and not isinstance(other, (bool, np.bool_)):
            k = int(other)
            return Affine.kept(self.prog[0] * k, self.prog[1] * k, self.rows)
        self._small(other)
        return self._with(other, np.multiply)

    def __rmul__(self, other: object) -> Affine:
        return self.__mul__(other)

    def _small(self, other: object) -> None:
        """A product that could wrap int64 before `_with` sees it: the factors' bits must sum to at most 62."""
        if isinstance(other, (Affine, int, np.integer)) and not isinstance(other, bool):
            mine = max(map(abs, self.bounds())).bit_length()
            theirs = max(map(abs, other.bounds())) if isinstance(other, Affine) else abs(int(other))
            if mine + theirs.bit_length() > 62:
                raise Unbatchable("a product of values that differ by iteration beyond 2**62")

    def __floordiv__(self, other: object) -> Affine:
        self._nonzero(other)
        return self._with(other, np.floor_divide)

    def __rfloordiv__(self, other: object) -> Affine:
        self._nonzero(self)
        return self._with(other, np.floor_divide, True)

    def __mod__(self, other: object) -> Affine:
        self._nonzero(other)
        return self._with(other, np.mod)

    def __rmod__(self, other: object) -> Affine:
        self._nonzero(self)
        return self._with(other, np.mod, True)

    def _nonzero(self, divisor: object) -> None:
        if (isinstance(divisor, Affine) and not divisor.values.all()) or (isinstance(divisor, int) and divisor == 0):
            raise Unbatchable("a division by zero in some iteration (the in-order run raises it there)")

    def __lshift__(self, other: object) -> Affine:
        if not isinstance(other, int) or not 0 <= other < 31:
            raise Unbatchable("a shift of a value that differs by iteration by other than an int in [0, 31)")
        return self.__mul__(1 << other)

    def __rshift__(self, other: object) -> Affine:
        if not isinstance(other, int) or other < 0:
            raise Unbatchable("a shift of a value that differs by iteration by other than a non-negative int")
        return self._with(min(other, 63), np.right_shift)

    def __and__(self, other: object) -> Affine:
        return self._with(other, np.bitwise_and)

    __rand__ = __and__

    def __or__(self, other: object) -> Affine:
        return self._with(other, np.bitwise_or)

    __ror__ = __or__

    def __xor__(self, other: object) -> Affine:
        return self._with(other, np.bitwise_xor)

    __rxor__ = __xor__

    def __neg__(self) -> Affine:
        return self.__mul__(-1)

    def __pos__(self) -> Affine:
        return self

    def __abs__(self) -> Affine:
        return Affine(np.abs(self.values))

    def __invert__(self) -> Affine:
        return Affine(~self.values)

    def within(self, bounds: tuple[int, int]) -> npt.NDArray[np.int64]:
        """The values, each in [bounds[0], bounds[1]] (else the in-order run raises the error)."""
        lo, hi = self.bounds()
        if lo < bounds[0] or hi > bounds[1]:
            raise Unbatchable("a loop-index operand out of its C++ type's range in some iteration")
        return self.values

    def _offset_pointer(self, ptr: UbPtr[Any]) -> BatchedPtr:
        """`ptr + i * k`: one address per iteration."""
        dtype = ptr.dtype
        addr = ptr.addr
        prog = self.prog
        size = dtype.itemsize
        if prog is None or isinstance(addr, np.ndarray):
            return BatchedPtr(ptr.ub, dtype, addr + self.values * size, ptr.lo, ptr.hi)
        rows = self.rows
        start = addr + prog[0] * size
        step = prog[1] * size
        # (the pointer's fields set directly, one a statement: the hot path of `p + i * k`)
        p: BatchedPtr = _new(BatchedPtr)
        p.ub = ptr.ub
        p.dtype = dtype
        p.lo = ptr.lo
        p.hi = ptr.hi
        p._sig = dtype._ptr_sig
        addrs: Any = _ADDRESSES.get((start, step, rows))  # (`progression_rows`, its look-up inline)
        if addrs is None:
            addrs = _addresses(start, step, rows)
        p.addr = addrs
        ctx = _VF.get()
        if ctx is not None:
            ctx.backend.new_pointer(p, (start, step))
        return p

    def _python_value(self, *args: object) -> Any:
        raise Unbatchable("the loop index is used as a Python value (control flow, an int, a comparison)")

    __bool__ = __index__ = __int__ = __float__ = __complex__ = __round__ = __trunc__ = __floor__ = __ceil__ = _python_value
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = __len__ = __iter__ = __format__ = __truediv__ = _python_value
    __rtruediv__ = __pow__ = __rpow__ = __divmod__ = __rdivmod__ = __getitem__ = __contains__ = __call__ = _python_value
    __hash__ = None  # type: ignore[assignment]


#: the progressions `Affine.kept` made: (start, step, rows) → the Affine; at most KEPT kept (then forgotten all at once)
_KEPT: dict[tuple[int, int, int], Affine] = {}
KEPT = 256

#: address rows `_addresses` made: (start, step, rows) → the read-only array, for loops of at most ADDRESS_ROWS rows (a
#: loop run again makes the same ones); at most ADDRESSES kept (then forgotten all at once)
_ADDRESSES: dict[tuple[int, int, int], npt.NDArray[np.int64]] = {}
ADDRESSES = 256
ADDRESS_ROWS = 1024


def progression_rows(start: int, step: int, rows: int) -> npt.NDArray[np.int64]:
    """`start + step * iota(rows)` as int64, read-only where kept (the same rows a loop run again makes again)."""
    addrs = _ADDRESSES.get((start, step, rows))
    return _addresses(start, step, rows) if addrs is None else addrs


def _addresses(start: int, step: int, rows: int) -> npt.NDArray[np.int64]:
    """`start + step * iota(rows)` as int64: in one numpy call (`np.arange`) where it counts its rows exactly (in
    float64), kept read-only and shared for loops of at most ADDRESS_ROWS rows (`_ADDRESSES`)."""
    end = start + step * rows
    if not (step and -_EXACT < start < _EXACT and -_EXACT < end < _EXACT):
        return start + step * iota(rows)
    addrs = np.arange(start, end, step, dtype=np.int64)
    if rows <= ADDRESS_ROWS:
        addrs.setflags(write=False)
        if len(_ADDRESSES) >= ADDRESSES:
            _ADDRESSES.clear()
        _ADDRESSES[(start, step, rows)] = addrs
    return addrs


def _beyond() -> NoReturn:
    raise Unbatchable("a value that differs by iteration leaves the range regsim batches exactly (|v| <= 2**62)")


def _either(fast: Affine | None, general: Callable[[], Affine]) -> Affine:
    """The progression where there is one, else the general row arithmetic (never `or`: an Affine has
    no truth value)."""
    return general() if fast is None else fast


class BatchedPtr(UbPtr[Any]):
    """A pointer with one address per iteration (`addr` is an int64 array). The batched backend keeps
    each one (to leave it at the last iteration's address when the loop ends) and, where the addresses
    are an arithmetic progression (as `p + i * k` makes them), their start and step (`backend.prog`)."""

    __slots__ = ()

    def __init__(self, ub: UnifiedBuffer, dtype: Any, addr: Any, lo: int, hi: int, prog: tuple[int, int] | None = None) -> None:
        super().__init__(ub, dtype, addr, lo, hi)
        ctx = _VF.get()
        if ctx is not None:
            ctx.backend.new_pointer(self, prog)

    def _prog(self) -> tuple[int, int] | None:
        ctx = _VF.get()
        return None if ctx is None else ctx.backend.prog(self.addr)

    def __add__(self, n: Any) -> BatchedPtr:
        size, mine = self.dtype.itemsize, self._prog()
        if isinstance(n, Affine):
            prog = (mine[0] + n.prog[0] * size, mine[1] + n.prog[1] * size) if mine and n.prog else None
            return BatchedPtr(self.ub, self.dtype, self.addr + n.values * size, self.lo, self.hi, prog)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise Unbatchable(f"a batched pointer plus {type(n).__name__}")
        prog = (mine[0] + int(n) * size, mine[1]) if mine else None
        return BatchedPtr(self.ub, self.dtype, self.addr + int(n) * size, self.lo, self.hi, prog)

    def __sub__(self, n: Any) -> Any:
        raise Unbatchable("pointer arithmetic other than + on a per-iteration pointer")

    def reinterpret(self, dtype: Any) -> BatchedPtr:
        return BatchedPtr(self.ub, dtype, self.addr, self.lo, self.hi, self._prog())

    def copy(self) -> BatchedPtr:
        return BatchedPtr(self.ub, self.dtype, self.addr, self.lo, self.hi, self._prog())

    def __getitem__(self, i: Any) -> Any:
        raise Unbatchable("a scalar UB read through a per-iteration pointer")

    def __setitem__(self, i: Any, value: Any) -> None:
        raise Unbatchable("a scalar UB write through a per-iteration pointer")

    def __eq__(self, other: object) -> bool:
        raise Unbatchable("a per-iteration pointer compared")

    __hash__ = None
