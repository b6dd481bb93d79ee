"""One core's Unified Buffer (UB), the `LocalTensor`s allocated in it and `__ubuf__ T*` pointers.

Every UB byte carries a 'was written' flag, so reading never-written bytes can be reported
(`Config.check_uninitialized`). Bounds: loads are checked against the UB,
stores and scalar accesses per active lane against the `LocalTensor` the pointer came from.
"""

from __future__ import annotations

import contextvars
import copy
import inspect
import os
import sys
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from types import CodeType
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar, overload

import numpy as np
import numpy.typing as npt

from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.config import DEFAULT_CONFIG, MAX_UB_SIZE, ONE_BLOCK_SIZE, check_ub_size, current_config
from regsim._src.model.core import Core, use_core
from regsim._src.model.enums import TPosition, expected_member
from regsim._src.model.registers import RangeStorage, check_dtype, host_read, to_lanes
from regsim.errors import (
    AlignmentError,
    OutOfBoundsError,
    ParameterError,
    UninitializedReadError,
    UnsupportedError,
    message,
)

T = TypeVar("T", bound=dt.DType)
U = TypeVar("U", bound=dt.DType)

TOTAL_UB_SIZE = DEFAULT_CONFIG.ub_size  #: bytes of UB on Ascend 950 (`TOTAL_UB_SIZE` for __NPU_ARCH__ 3510)
__all__ = [
    "ITERATIONS",
    "MAX_UB_SIZE",
    "ONE_BLOCK_SIZE",
    "TOTAL_UB_SIZE",
    "Journal",
    "LocalTensor",
    "UbPtr",
    "UbRead",
    "UnifiedBuffer",
    "Writes",
    "check_ub_size",
]

#: the iteration numbers (0 for the first) of the VF loops running now, outermost first: an int for a loop running in
#: order, an `Affine` over the rows for a batched loop's attempt (regsim._src.vf.loops sets them; a UB's `Writes` notes
#: them with each store). A loop running in order sets a list once and changes its last number in place each iteration:
#: a reader that keeps the numbers keeps `tuple()` of them.
ITERATIONS: Final[contextvars.ContextVar[Sequence[Any]]] = contextvars.ContextVar("regsim_iterations", default=())
#: regsim's own source: the first frame outside it is the kernel line making a call
_REGSIM_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep
_getframe = sys._getframe


class UbObserver(Protocol):
    """What listens to a UB's accesses (a pipe race detector, a profiler). A load is also told `within`: the
    bytes [lo, hi) of the LocalTensor its pointer came from (a whole-register load may read past them; the
    lanes it reads there are not the tensor's data)."""

    def __call__(self, kind: str, api: str, lo: Any, hi: Any, /, within: tuple[int, int] | None = None) -> None: ...


class UnifiedBuffer:
    """One core's UB: `size` bytes, all allocatable from address 0, never-written until set.

    `size` defaults to the configured `ub_size` (`rs.configure(ub_size=...)`, `regsim run --ub-size`;
    the 950's 248 KiB unless changed); any positive multiple of 32 bytes up to `MAX_UB_SIZE` (2**31)
    is accepted, so tests can use a small UB and a large kernel a larger one.
    """

    @host_api("UnifiedBuffer")
    def __init__(self, size: int | None = None) -> None:
        self.size = current_config().ub_size if size is None else check_ub_size("UnifiedBuffer", "size", size)
        self.storage = RangeStorage.fresh(self.size)
        self._next = 0
        #: the core whose UB this is (a new one, made current: `rs.UnifiedBuffer()` is one core's UB and
        #: that core's special registers): VFs run with pointers into it use its special registers
        self.core = Core()
        use_core(self.core)
        #: told of every access to the UB's bytes the kernel makes (Reg ops, scalar accesses), before the
        #: bytes change: `observer(kind, api, lo, hi)` with kind "read" or "write" and the byte ranges
        #: [lo, hi) (ints, or equal-length int arrays for several ranges); None: nobody listens
        self.observer: UbObserver | None = None
        #: the write journal open on this UB (`Journal`): every write records its bytes in it first; None: none
        self.journal: Journal | None = None
        #: who wrote which bytes, while some were never written (for the message of a read of never-written bytes)
        self.writes = Writes()

    @host_api("UnifiedBuffer.alloc")
    def alloc(self, dtype: type[T], count: int, position: TPosition = TPosition.VECCALC) -> LocalTensor[T]:
        """A new `LocalTensor` of `count` elements at the next 32-byte aligned free address."""
        check_dtype("UnifiedBuffer.alloc", "dtype", dtype)
        count = as_int("UnifiedBuffer.alloc", "count", count, 1)
        if not isinstance(position, TPosition):
            raise ParameterError(
                message("UnifiedBuffer.alloc", "position", repr(position), expected_member(TPosition, position, "rs.AscendC"))
            )
        nbytes = count * dtype.itemsize
        if self._next + nbytes > self.size:
            raise ParameterError(
                message(
                    "UnifiedBuffer.alloc",
                    "count",
                    count,
                    f"at most {(self.size - self._next) // dtype.itemsize} "
                    f"more {dtype!r} elements ({self.size - self._next} of {self.size} UB bytes are free; a larger UB: "
                    "UnifiedBuffer(size=...), rs.configure(ub_size=...) or regsim run --ub-size)",
                )
            )
        tensor = LocalTensor(self, dtype, self._next, count, position)
        self._next += -(-nbytes // ONE_BLOCK_SIZE) * ONE_BLOCK_SIZE
        return tensor

    def __repr__(self) -> str:
        return f"UnifiedBuffer(size={self.size}, allocated={self._next})"

    # --- byte access, bounds-checked by the callers ----------------------------------------
    def write(self, start: int, raw: npt.NDArray[np.uint8], api: str = "a host write") -> None:
        """A host-side write of `raw` at byte `start` by `api` (recorded in the open journal first), its bytes then
        written."""
        if self.journal is not None:
            self.journal.record(start, start + raw.size)
        if self.storage.partial():
            self.writes.note(api, start, start + raw.size)
        self.storage.write(start, raw)

    def check_range(self, api: str, param: str, start: int, nbytes: int) -> None:
        """A whole-register load: the bytes must lie in the UB (past a tensor's end is legal)."""
        if start < 0 or start + nbytes > self.size:
            raise OutOfBoundsError(
                message(api, param, f"UB bytes [{start}, {start + nbytes})", f"within the UB [0, {self.size})")
            )


class LocalTensor(Generic[T]):
    """`LocalTensor<T>`: `size` elements of `dtype` at UB byte address `addr`."""

    __slots__ = ("addr", "dtype", "position", "size", "ub")

    @host_api("LocalTensor")
    def __init__(self, ub: UnifiedBuffer, dtype: type[T], addr: int, size: int, position: TPosition) -> None:
        self.ub, self.dtype, self.addr, self.size, self.position = ub, dtype, addr, size, position

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @host_api("LocalTensor.GetPhyAddr")
    def _GetPhyAddr(self) -> UbPtr[T]:
        """`GetPhyAddr`'s general path: arguments that do not bind refused as every host API refuses them."""
        return self.GetPhyAddr()

    if TYPE_CHECKING:

        def GetPhyAddr(self) -> UbPtr[T]:
            """The tensor's UB address as a `__ubuf__ T*`, bounded by this tensor."""
            return self._GetPhyAddr()

    else:

        def GetPhyAddr(self, *rest: Any, **kw: Any) -> Any:
            """The tensor's UB address as a `__ubuf__ T*`, bounded by this tensor."""
            # (no `host_api` wrapper on the hot path: a call with arguments takes the general one; the pointer's fields
            # set directly, as `UbPtr.__add__` sets them)
            if rest or kw:
                return self._GetPhyAddr(*rest, **kw)
            p = _new(UbPtr)
            p.ub = self.ub
            dtype = p.dtype = self.dtype
            p.addr = p.lo = addr = self.addr
            p.hi = addr + self.nbytes
            p._sig = dtype._ptr_sig
            return p

        GetPhyAddr.__signature__ = inspect.signature(_GetPhyAddr)

    @host_api("LocalTensor.GetSize")
    def GetSize(self) -> int:
        return self.size

    @host_api("LocalTensor.GetValue")
    def GetValue(self, index: int) -> Any:
        """`tensor.GetValue(index)`: element `index`, read by the scalar unit (PIPE_S)."""
        return self.GetPhyAddr().load_scalar("LocalTensor.GetValue", index)

    @host_api("LocalTensor.SetValue")
    def SetValue(self, index: int, value: Any) -> None:
        """`tensor.SetValue(index, value)`: element `index` = `value` (one the dtype holds exactly), written by
        the scalar unit (PIPE_S)."""
        self.GetPhyAddr().store_scalar("LocalTensor.SetValue", index, value)

    def __getitem__(self, offset: int) -> LocalTensor[T]:
        """`tensor[offset]`: the tensor starting `offset` elements in, as in C++."""
        offset = as_int("LocalTensor[]", "offset", offset, 0, self.size - 1)
        return LocalTensor(self.ub, self.dtype, self.addr + offset * self.dtype.itemsize, self.size - offset, self.position)

    @host_api("LocalTensor.ReinterpretCast")
    def ReinterpretCast(self, dtype: type[U]) -> LocalTensor[U]:
        """`tensor.ReinterpretCast<U>()`: the same UB bytes as a tensor of `dtype` (its size the bytes over
        `sizeof(U)`, rounded down)."""
        check_dtype("LocalTensor.ReinterpretCast", "dtype", dtype)
        return LocalTensor(self.ub, dtype, self.addr, self.nbytes // dtype.itemsize, self.position)

    @host_api("LocalTensor.numpy")
    def numpy(self) -> npt.NDArray[Any]:
        """A copy of the elements (never-written bytes read as 0)."""
        host_read("LocalTensor.numpy")
        return self.ub.storage.data[self.addr : self.addr + self.nbytes].view(self.dtype.np_dtype).copy()

    @host_api("LocalTensor.set")
    def set(self, values: npt.ArrayLike, *, cast: bool = False) -> None:
        """Write `values` from the start of the tensor (at most `GetSize()` of them).

        Each value must be one the dtype holds exactly (70000 in a half tensor, 0.1 in a float32
        one or an imaginary part in a real one is a `ParameterError`); `cast=True` converts
        instead, as numpy's `astype` does (round to nearest even, overflow to inf, wrap integers).
        """
        host_read("LocalTensor.set")
        arr = to_lanes("LocalTensor.set", self.dtype, np.ravel(np.asarray(values)), cast=cast)
        if arr.size > self.size:
            raise ParameterError(message("LocalTensor.set", "len(values)", arr.size, f"at most GetSize() = {self.size}"))
        self.ub.write(self.addr, arr.view(np.uint8), "LocalTensor.set")

    def __repr__(self) -> str:
        return f"LocalTensor[{self.dtype.name}](addr={self.addr}, size={self.size})"

    # --- the whole-tensor operator form of the memory-level APIs (`dst = src0 & src1;` in C++) ---------------
    def __add__(self, other: LocalTensor[T]) -> TensorExpr:
        return TensorExpr("Add", self, other)

    def __sub__(self, other: LocalTensor[T]) -> TensorExpr:
        return TensorExpr("Sub", self, other)

    def __mul__(self, other: LocalTensor[T]) -> TensorExpr:
        return TensorExpr("Mul", self, other)

    def __truediv__(self, other: LocalTensor[T]) -> TensorExpr:
        return TensorExpr("Div", self, other)

    def __and__(self, other: LocalTensor[T]) -> TensorExpr:
        return TensorExpr("And", self, other)

    def __or__(self, other: LocalTensor[T]) -> TensorExpr:
        return TensorExpr("Or", self, other)

    def __setitem__(self, key: slice, value: TensorExpr) -> None:
        """`dst[:] = src0 + src1` is C++'s `dst = src0 + src1;`: the API over the whole of `dst`
        (the And page: "运算量为目的LocalTensor的总长度")."""
        if key != slice(None) or not isinstance(value, TensorExpr):
            raise ParameterError(
                message("LocalTensor[:] =", "assignment", f"[{key!r}] = {value!r}", "dst[:] = src0 <op> src1 (+ - * / & |)")
            )
        value.run(self)


#: the memory-level APIs the LocalTensor operators (+ - * / & |) run, by name: the lowerings register theirs
TENSOR_OPERATORS: dict[str, Any] = {}


class TensorExpr:
    """`src0 <op> src1` on LocalTensors: evaluated when assigned to a destination (`dst[:] = ...`)."""

    __slots__ = ("api", "src0", "src1")

    def __init__(self, api: str, src0: LocalTensor[Any], src1: LocalTensor[Any]) -> None:
        self.api, self.src0, self.src1 = api, src0, src1

    def run(self, dst: LocalTensor[Any]) -> None:
        api = TENSOR_OPERATORS.get(self.api)
        if api is None:
            raise UnsupportedError(
                message(
                    self.api,
                    "operator form",
                    repr(self),
                    f"one of {', '.join(sorted(TENSOR_OPERATORS))} (the Reg op {self.api} is not modelled yet)",
                )
            )
        api(dst, self.src0, self.src1, dst.GetSize())

    def __repr__(self) -> str:
        op = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "And": "&", "Or": "|"}[self.api]
        return f"`src0 {op} src1` on LocalTensors (computed only by an assignment: dst[:] = src0 {op} src1)"


_new = object.__new__
_DTYPES: Final = frozenset(dt.EVERY_DTYPE)
_UNSET: Final = object()  #: an argument not given


class UbPtr(Generic[T]):
    """A `__ubuf__ T*`: a UB byte address typed by `dtype`, bounded by the tensor it came from.

    `p + n` moves `n` elements; a post-update load/store moves the pointer in place (C++ passes
    it by reference), so `q = p` aliases and `p.copy()` (or `p + 0`) makes a new pointer.
    """

    __slots__ = ("_sig", "addr", "dtype", "hi", "lo", "ub")

    def __init__(self, ub: UnifiedBuffer, dtype: type[T], addr: int, lo: int, hi: int) -> None:
        self.ub = ub  # (one field a statement: cheaper than a tuple's unpacking)
        self.dtype = dtype
        self.addr = addr
        self.lo = lo
        self.hi = hi
        self._sig = dtype._ptr_sig  # the static type, as the op engine's plan cache keys it

    def __add__(self, n: int) -> UbPtr[T]:
        """`p + n`: `n` elements further on (a new pointer)."""
        if type(n) is int:  # the hot path: the new pointer's fields set directly (cheaper than UbPtr(...)), one a
            p: UbPtr[T] = _new(UbPtr)  # statement (cheaper than a tuple's unpacking)
            p.ub = self.ub
            p.lo = self.lo
            p.hi = self.hi
            p._sig = self._sig
            dtype = p.dtype = self.dtype
            p.addr = self.addr + n * dtype.itemsize
            return p
        if hasattr(n, "_offset_pointer"):  # a batched loop's index expression
            return n._offset_pointer(self)  # type: ignore[no-any-return]
        step = as_int("UbPtr +", "n", n)
        return UbPtr(self.ub, self.dtype, self.addr + step * self.dtype.itemsize, self.lo, self.hi)

    __radd__ = __add__

    @overload
    def __sub__(self, other: int) -> UbPtr[T]: ...
    @overload
    def __sub__(self, other: UbPtr[T]) -> int: ...
    def __sub__(self, other: int | UbPtr[T]) -> UbPtr[T] | int:
        """`p - n`: `n` elements back; `q - p`: the elements from `p` to `q` (C's `ptrdiff_t`),
        for two pointers of one dtype into one UB whose distance is whole elements."""
        if not isinstance(other, UbPtr):
            return self + -as_int("UbPtr -", "n", other)
        distance, size = self.addr - other.addr, self.dtype.itemsize
        if other.ub is not self.ub or other.dtype is not self.dtype or distance % size:
            raise ParameterError(
                message("UbPtr -", "other", repr(other), f"a pointer of {self.dtype!r} into the same UB, whole elements apart")
            )
        return distance // size

    @host_api("UbPtr.copy")
    def copy(self) -> UbPtr[T]:
        return self._vf_argument_copy()

    def _vf_argument_copy(self) -> UbPtr[T]:
        """`copy`, as a VF's call passes the pointer (by value; its fields set directly: `__add__`'s hot path; a VF
        runs on scalar code's pointers only, so a batched loop's per-iteration pointer never gets here)."""
        p: UbPtr[T] = _new(UbPtr)
        p.ub = self.ub
        p.dtype = self.dtype
        p.addr = self.addr
        p.lo = self.lo
        p.hi = self.hi
        p._sig = self._sig
        return p

    @host_api("UbPtr.reinterpret")
    def _reinterpret(self, dtype: type[U]) -> UbPtr[U]:
        """`reinterpret`'s general path: the dtype checked, arguments that do not bind refused as every host API
        refuses them."""
        check_dtype("UbPtr.reinterpret", "dtype", dtype)
        return self.reinterpret(dtype)

    if TYPE_CHECKING:

        def reinterpret(self, dtype: type[U]) -> UbPtr[U]:
            """`(__ubuf__ U*)p`: the same address, read as another type."""
            return self._reinterpret(dtype)

    else:

        def reinterpret(self, dtype: Any = _UNSET, *rest: Any, **kw: Any) -> Any:
            """`(__ubuf__ U*)p`: the same address, read as another type."""
            # (no `host_api` wrapper on the hot path: a call that does not bind, or a dtype that is not one, takes the
            # general one; `check_dtype`'s test inlined)
            if rest or kw or not (isinstance(dtype, type) and dtype in _DTYPES):
                return self._reinterpret(*rest, **kw) if dtype is _UNSET else self._reinterpret(dtype, *rest, **kw)
            p = _new(UbPtr)
            p.ub = self.ub
            p.dtype = dtype
            p.addr = self.addr
            p.lo = self.lo
            p.hi = self.hi
            p._sig = dtype._ptr_sig
            return p

        reinterpret.__signature__ = inspect.signature(_reinterpret)

    def advance_bytes(self, nbytes: int) -> None:
        """The post-update of a load/store: move this pointer in place."""
        self.addr += nbytes

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UbPtr) and other.ub is self.ub and other.addr == self.addr

    #: a pointer is mutable (post-update moves it in place), so it is not hashable
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"UbPtr[{self.dtype.name}](UB byte {self.addr})"

    # --- aux-scalar access ---------------------------------------------------------------
    def _scalar_addr(self, api: str, i: int) -> int:
        host_read(api, "is a scalar UB access inside the loop")  # (a batched loop runs in order)
        s = self.dtype.itemsize
        a = self.addr + as_int(api, "index", i) * s
        if a % s:
            raise AlignmentError(message(api, "address", f"UB byte {a}", f"a multiple of {s} bytes for {self.dtype!r}"))
        self.check_tensor(api, "index", a, s)
        return a

    def __getitem__(self, i: int) -> Any:
        return self.load_scalar("UbPtr[]", i)

    def __setitem__(self, i: int, value: Any) -> None:
        self.store_scalar("UbPtr[]=", i, value)

    def load_scalar(self, api: str, i: int) -> Any:
        """Element `i` (a scalar access, as `api`: `p[i]`, `LocalTensor.GetValue`)."""
        a = self._scalar_addr(api, i)
        if self.ub.observer is not None:
            self.ub.observer("read", api, a, a + self.dtype.itemsize)
        st = self.ub.storage
        if current_config().check_uninitialized and not st.all_written(a, a + self.dtype.itemsize):
            raise UninitializedReadError(f"{api}: reads UB bytes [{a}, {a + self.dtype.itemsize}) that were never written")
        return st.data[a : a + self.dtype.itemsize].view(self.dtype.np_dtype)[0].item()

    def store_scalar(self, api: str, i: int, value: Any) -> None:
        """Element `i` = `value` (a scalar access, as `api`: `p[i] = v`, `LocalTensor.SetValue`)."""
        a = self._scalar_addr(api, i)
        raw = to_lanes(api, self.dtype, np.asarray([value])).view(np.uint8)
        if self.ub.observer is not None:
            self.ub.observer("write", api, a, a + raw.size)
        if self.ub.journal is not None:
            self.ub.journal.record(a, a + raw.size)
        st = self.ub.storage
        st.data[a : a + raw.size] = raw
        if st.partial():
            self.ub.writes.note(api, a, a + raw.size)
            st.mark(a, a + raw.size)

    def check_tensor(self, api: str, param: str, start: int, nbytes: int) -> None:
        """An access of `nbytes` at `start` must lie inside the pointer's LocalTensor."""
        if start < self.lo or start + nbytes > self.hi:
            raise OutOfBoundsError(
                message(
                    api,
                    param,
                    f"UB bytes [{start}, {start + nbytes})",
                    f"within its LocalTensor, UB bytes [{self.lo}, {self.hi})",
                )
            )


# --- the write journal: what a call changed, put back should it fail -----------------------------------------
#: journals open in this context: a backend made while one is (`engine.backend.NumpyBackend`, a batched loop's) records
#: each UB store it makes in the journal of the store's UB
JOURNALING: Final[contextvars.ContextVar[int]] = contextvars.ContextVar("regsim_journaling", default=0)
#: bytes a record saves past a write's end, within its tensor (`limit`): the next writes of a stream find them saved
AHEAD: Final = 16 * 1024


class Journal:
    """A write journal of one UB and its core, open from its making to `close()`: the first write of each UB byte
    while it is open saves that byte and its written flag as they were (`record`, called by every writer before it
    writes: the backends' stores, scalar stores, host writes), and the core's special registers are saved at the
    start, so `restore()` puts back exactly what the writes and the registers were, at a cost of the bytes written
    (plus at most `AHEAD` a run of writes), never of the UB's size.

    The saved ranges are kept disjoint (a byte is saved once, before its first write), so bytes saved that were
    never written (a read-ahead, a store's whole span) are put back as they already are. Journals nest: one opened
    while another is open on the UB records in it too (its ranges as they were when first written in either).
    """

    __slots__ = (
        "copied",
        "core",
        "ends",
        "hi",
        "lo",
        "logged",
        "origin",
        "outer",
        "saved",
        "starts",
        "token",
        "ub",
        "until",
        "written",
    )

    def __init__(self, ub: UnifiedBuffer) -> None:
        st = ub.storage
        self.ub, self.outer = ub, ub.journal
        self.written = not st.partial()  #: every byte was written at the start (no flags to put back)
        self.until, self.origin = st.until, st.origin
        self.core = ub.core.snapshot()
        self.logged = ub.writes.mark()  #: the stores noted before (those noted since are forgotten by `restore`)
        self.starts: list[int] = []  #: the saved ranges [starts[k], ends[k]), sorted, disjoint, not touching
        self.ends: list[int] = []
        self.lo = self.hi = 0  #: the saved range the latest record fell in (the common case: the next one is in it too)
        #: the bytes (and flags, None: all written) of each range saved: (start, bytes, flags)
        self.saved: list[tuple[int, npt.NDArray[np.uint8], npt.NDArray[np.bool_] | None]] = []
        self.copied = 0  #: the UB bytes saved so far (the journal's cost)
        ub.journal = self
        self.token = JOURNALING.set(JOURNALING.get() + 1)

    def record(self, lo: int, hi: int, limit: int = 0) -> None:
        """UB bytes [lo, hi) are about to be written: save those not saved yet (with, when `limit` is given, the
        bytes after them up to `AHEAD`, not past `limit`). Bytes outside the UB are not saved (no write reaches them)."""
        if self.lo <= lo and hi <= self.hi:
            return
        lo, hi = max(lo, 0), min(max(hi, min(limit, lo + AHEAD)), self.ub.size)
        if self.outer is not None:  # (the bytes saved here, read-ahead too: a later write within them skips the outer)
            self.outer.record(lo, hi)
        if lo >= hi:
            return
        starts, ends = self.starts, self.ends
        i, j = bisect_left(ends, lo), bisect_right(starts, hi)  # the saved ranges [i, j) overlap or touch [lo, hi)
        at = lo
        for k in range(i, j):
            if starts[k] > at:
                self._save(at, starts[k])
            at = max(at, ends[k])
        if at < hi:
            self._save(at, hi)
        if i < j:
            lo, hi = min(lo, starts[i]), max(hi, ends[j - 1])
        starts[i:j], ends[i:j] = [lo], [hi]
        self.lo, self.hi = lo, hi

    def _save(self, lo: int, hi: int) -> None:
        st = self.ub.storage
        self.saved.append((lo, st.data[lo:hi].copy(), st.flags(lo, hi)))
        self.copied += hi - lo

    def restore(self) -> None:
        """Put back every byte and written flag saved, and the core's special registers (the journal stays open)."""
        st = self.ub.storage
        for lo, data, flags in self.saved:
            st.data[lo : lo + data.size] = data
            if not self.written:  # (flags only ever turn on, so every byte outside the saved ranges was written before)
                st.put_written(lo, lo + data.size, flags)
        if self.written:
            st.valid = None
        st.until, st.origin = self.until, self.origin
        self.ub.core.restore(self.core)
        self.ub.writes.forget(self.logged)

    def close(self) -> None:
        """Stop recording (journals close in the reverse order of their making)."""
        self.ub.journal = self.outer
        JOURNALING.reset(self.token)


# --- who wrote what: the provenance a read of never-written bytes reports -----------------------------------------
def kernel_frame(frame: Any) -> Any:
    """The kernel's frame making the call being noted: `frame`, or where that is regsim's own (a library VF, an
    executor), the first frame outside regsim beyond it."""
    while frame.f_back is not None and frame.f_code.co_filename.startswith(_REGSIM_DIR):
        frame = frame.f_back
    return frame


def line_of(code: CodeType, at: int) -> int:
    """The source line of instruction offset `at` of `code`."""
    return next((n for start, end, n in code.co_lines() if start <= at < end and n is not None), code.co_firstlineno)


def site_text(code: CodeType, at: int) -> str:
    """The line of instruction offset `at` of `code`, as "kern.py:12 (in add_vf)" (a C++ VF's generated file and line,
    which the C++ front end's messages give as the C++ file's)."""
    return f"{os.path.basename(code.co_filename)}:{line_of(code, at)} (in {code.co_name})"


#: one store, as `Writes` keeps it: (api, the kernel line's code and instruction offset, first byte(s), end(s), each
#: range's loop row (None: one iteration), the loop iterations around the store, each range's active lanes, the lanes of
#: the op (0: not lane-wise))
Write = tuple[str, CodeType, int, Any, Any, Any, tuple[Any, ...], Any, int]


class Writes:
    """Who wrote a UB's bytes, kept while some of them were never written: the stores, in order, each noted by one
    append (`note`: the API, the kernel line, the byte ranges, the loop iterations around it, its mask's active lanes).
    Only the message of an `UninitializedReadError` reads it (`around`): which call last wrote the bytes beside the
    never-written ones, so a tail-mask bug reads as one. At most `LIMIT` stores are kept (the oldest half dropped)."""

    __slots__ = ("dropped", "entries")

    LIMIT: Final = 1 << 16

    def __init__(self) -> None:
        self.entries: list[Write] = []
        self.dropped = 0  #: entries dropped so far (a journal's mark counts them)

    def note(self, api: str, lo: Any, hi: Any, active: Any = 0, lanes: int = 0, depth: int = 0) -> None:
        """A store by `api` of UB bytes [lo, hi) (ints, or equal-length int arrays: several ranges), `active` of its
        `lanes` lanes active, made from the kernel line `depth` frames above the caller (0: found by looking outwards).
        The kernel line and the loop iterations around it are read here (one frame looked up, none made on the way,
        when the caller knows how far the kernel line is: the in-order stores' cost)."""
        # (no frame kept: a UB's log holding a frame that holds the UB would be a reference cycle, its bytes freed
        # only by the cyclic collector)
        kernel = _getframe(depth + 1)
        code = kernel.f_code
        if code.co_filename.startswith(_REGSIM_DIR):  # (regsim's frame: `kernel_frame` looks outwards; else it is one)
            kernel = kernel_frame(kernel)
            code = kernel.f_code
        entries = self.entries
        entries.append((api, code, kernel.f_lasti, lo, hi, None, tuple(ITERATIONS.get()), active, lanes))
        if len(entries) > self.LIMIT:
            self._drop()

    @staticmethod
    def entry(api: str, lo: Any, hi: Any, active: Any, lanes: int, rows: Any, depth: int = 0) -> Write:
        """`note`'s entry for a batched loop's store, kept once the loop is (`add`): `rows` the loop row of each
        range, `active` the active lanes of each; the kernel line looked for from `depth` frames above the caller on,
        as `note`'s (regsim's own frames the caller knows are there: not made as Python objects on the way)."""
        kernel = kernel_frame(_getframe(depth + 1))
        return api, kernel.f_code, kernel.f_lasti, lo, hi, rows, tuple(ITERATIONS.get()), active, lanes

    def add(self, entry: Write) -> None:
        """Keep a store's `entry`."""
        self.entries.append(entry)
        if len(self.entries) > self.LIMIT:
            self._drop()

    def _drop(self) -> None:
        """Forget the older half of the stores kept."""
        del self.entries[: self.LIMIT // 2]
        self.dropped += self.LIMIT // 2

    def mark(self) -> int:
        """Where the log is now (`forget` goes back to it)."""
        return self.dropped + len(self.entries)

    def forget(self, mark: int) -> None:
        """Drop the stores noted since `mark` (a call that failed put their bytes back)."""
        del self.entries[max(mark - self.dropped, 0) :]

    def around(self, gap: tuple[int, int], within: tuple[int, int]) -> list[str]:
        """What wrote the bytes beside the never-written UB bytes [gap): for the byte before it and the byte after it,
        the run of bytes (inside `within`) one call site last wrote, and which call, line, iteration and mask wrote
        that byte: "UB bytes [0, 4000) before them were last written by StoreAlign at kern.py:12 (in add_vf), iteration
        15 (a mask of 32 of 64 lanes)"."""
        lo, hi = min(within[0], gap[0]), max(within[1], gap[1])
        which, part = self._painted(lo, hi)
        site = {}  # (a call site by its line: a rewritten loop runs its body from two copies, one tried batched, one in order)
        for k in np.unique(which[which >= 0]).tolist():
            api, code, at = self.entries[k][:3]
            site[k] = (api, code, line_of(code, at))
        out = []
        for side, x in (("before", gap[0] - 1), ("after", gap[1])):
            if not lo <= x < hi or which[x - lo] < 0:
                continue
            k, j = int(which[x - lo]), int(part[x - lo])
            same = np.isin(which, [m for m, s in site.items() if s == site[k]])
            if side == "before":
                breaks = np.flatnonzero(~same[: x - lo])
                start, end = lo + (int(breaks[-1]) + 1 if breaks.size else 0), gap[0]
            else:
                rest = np.flatnonzero(~same[x - lo :])
                start, end = gap[1], (x + int(rest[0])) if rest.size else hi
            out.append(f"UB bytes [{start}, {end}) {side} them were last written by {self._describe(k, j)}")
        return out

    def _painted(self, lo: int, hi: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """For each UB byte of [lo, hi): the entry that wrote it last (-1: none noted) and which of its ranges."""
        which = np.full(hi - lo, -1, np.int64)
        part = np.zeros(hi - lo, np.int64)
        for k, (_, _, _, a, b, _, _, _, _) in enumerate(self.entries):
            if type(a) is int:
                a, b = max(a, lo), min(b, hi)
                if a < b:
                    which[a - lo : b - lo], part[a - lo : b - lo] = k, 0
                continue
            starts, ends = np.atleast_1d(a), np.atleast_1d(b)
            for j in np.flatnonzero((starts < hi) & (ends > lo)).tolist():  # in the order written: the last one stays
                s, e = max(int(starts[j]), lo), min(int(ends[j]), hi)
                which[s - lo : e - lo], part[s - lo : e - lo] = k, j
        return which, part

    def _describe(self, k: int, j: int) -> str:
        """Entry k's range j: "StoreAlign at kern.py:12 (in add_vf), iteration 15 (a mask of 32 of 64 lanes)"."""
        api, code, at, _, _, rows, iteration, active, lanes = self.entries[k]
        text = f"{api} at {site_text(code, at)}"
        row = 0 if rows is None else int(np.atleast_1d(rows)[j])
        numbers = [int(n) if isinstance(n, (int, np.integer)) else int(n.values[row]) for n in iteration]
        if len(numbers) == 1:
            text += f", iteration {numbers[0]}"
        elif numbers:
            text += f", iterations {', '.join(map(str, numbers))} (outermost loop first)"
        if lanes:
            text += f" (a mask of {int(active if np.ndim(active) == 0 else active[j])} of {lanes} lanes)"
        return text


class UbRead:
    """Where a register's never-written bytes came from: `api` read UB bytes [addr, addr + nbytes) through a pointer
    into the `dtype` tensor at UB bytes [lo, hi), byte k into the register's byte k when `identity`. Its text, built
    only for an error message (`describe`), says which of those bytes were never written and who last wrote the bytes
    beside them (`Writes.around`). A batched load's `addr` holds one address per iteration (`last`: the last one's)."""

    __slots__ = ("addr", "api", "dtype", "hi", "identity", "lo", "nbytes", "ub")

    def __init__(self, api: str, ptr: UbPtr[Any], addr: Any, nbytes: int, identity: bool = False) -> None:
        self.api, self.ub, self.addr, self.nbytes, self.identity = api, ptr.ub, addr, nbytes, identity
        self.dtype, self.lo, self.hi = ptr.dtype, ptr.lo, ptr.hi

    def last(self) -> UbRead:
        """The read of the last iteration (this one, if it is one iteration's)."""
        if type(self.addr) is int:
            return self
        out = copy.copy(self)
        out.addr = int(np.asarray(self.addr).ravel()[-1])
        return out

    def __str__(self) -> str:
        return self.describe()

    def describe(self, span: tuple[int, int] | None = None) -> str:
        """The read, the never-written bytes of it (of its register bytes [span) only, when given and the read maps
        bytes one to one) and who last wrote the bytes beside them."""
        start, end = self.addr, self.addr + self.nbytes
        read = f"{self.api} of UB bytes [{start}, {end})"
        # the flags of the bytes of the read and of the tensor, from byte `at` (None: every one written)
        at = min(self.lo, start)
        valid = self.ub.storage.flags(at, max(self.hi, end))
        if span is not None and self.identity:
            start, end = max(start, self.addr + span[0]), min(end, self.addr + span[1])
        missing = np.zeros(0, np.bool_) if valid is None else ~valid[start - at : end - at]
        edges = np.flatnonzero(np.diff(np.concatenate(([False], missing, [False])).astype(np.int8))) + start
        gaps = list(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
        if valid is None or not gaps:  # (every byte was written since)
            return f"{read}, which were never written then"
        inside = [(max(a, self.lo), min(b, self.hi)) for a, b in gaps if a < self.hi and b > self.lo]
        size = self.dtype.itemsize
        if inside:
            a, b = inside[0]
            where = (
                f"elements {(a - self.lo) // size}..{-(-(b - self.lo) // size) - 1} of the {(self.hi - self.lo) // size}-element "
                f"{self.dtype.name} tensor at UB byte {self.lo}"
            )
        else:
            a, b = gaps[0]
            where = f"outside the {self.dtype.name} tensor at UB bytes [{self.lo}, {self.hi}) the pointer came from"
        more = len(inside or gaps) - 1
        text = f"{read}: UB bytes [{a}, {b}) ({where}) were never written" + (f", and {more} more runs" if more > 0 else "")
        # the whole never-written run they are in (within the tensor and the read): its neighbours wrote last beside it
        lo, hi = min(self.lo, start), max(self.hi, end)
        before, after = np.flatnonzero(valid[lo - at : a - at]), np.flatnonzero(valid[b - at : hi - at])
        run = (lo + int(before[-1]) + 1 if before.size else lo, b + int(after[0]) if after.size else hi)
        return "; ".join([text, *self.ub.writes.around(run, (self.lo, self.hi))])
