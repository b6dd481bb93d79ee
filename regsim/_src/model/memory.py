"""One core's Unified Buffer (UB), the `LocalTensor`s allocated in it and `__ubuf__ T*` pointers.

Every UB byte carries a 'was written' flag, so reading never-written bytes can be reported
(`Config.check_uninitialized`). Bounds: loads are checked against the UB,
stores and scalar accesses per active lane against the `LocalTensor` the pointer came from.
"""

from __future__ import annotations

import contextvars
from bisect import bisect_left, bisect_right
from typing import Any, Final, Generic, Protocol, TypeVar, overload

import numpy as np
import numpy.typing as npt

from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.config import DEFAULT_CONFIG, MAX_UB_SIZE, ONE_BLOCK_SIZE, check_ub_size, current_config
from regsim._src.model.core import Core, use_core
from regsim._src.model.enums import TPosition, expected_member
from regsim._src.model.registers import Storage, check_dtype, host_read, to_lanes
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
__all__ = ["MAX_UB_SIZE", "ONE_BLOCK_SIZE", "TOTAL_UB_SIZE", "Journal", "LocalTensor", "UbPtr", "UnifiedBuffer", "check_ub_size"]


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
        self.storage = Storage.fresh(self.size)
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
    def write(self, start: int, raw: npt.NDArray[np.uint8]) -> None:
        """A host-side write of `raw` at byte `start` (recorded in the open journal first), its bytes then written."""
        if self.journal is not None:
            self.journal.record(start, start + raw.size)
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
    def GetPhyAddr(self) -> UbPtr[T]:
        """The tensor's UB address as a `__ubuf__ T*`, bounded by this tensor."""
        return UbPtr(self.ub, self.dtype, self.addr, self.addr, self.addr + self.nbytes)

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
        self.ub.write(self.addr, arr.view(np.uint8))

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


class UbPtr(Generic[T]):
    """A `__ubuf__ T*`: a UB byte address typed by `dtype`, bounded by the tensor it came from.

    `p + n` moves `n` elements; a post-update load/store moves the pointer in place (C++ passes
    it by reference), so `q = p` aliases and `p.copy()` (or `p + 0`) makes a new pointer.
    """

    __slots__ = ("_sig", "addr", "dtype", "hi", "lo", "ub")

    def __init__(self, ub: UnifiedBuffer, dtype: type[T], addr: int, lo: int, hi: int) -> None:
        self.ub, self.dtype, self.addr, self.lo, self.hi = ub, dtype, addr, lo, hi
        self._sig = dtype._ptr_sig  # the static type, as the op engine's plan cache keys it

    def __add__(self, n: int) -> UbPtr[T]:
        """`p + n`: `n` elements further on (a new pointer)."""
        if type(n) is int:  # the hot path: the new pointer's fields set directly (cheaper than UbPtr(...))
            p: UbPtr[T] = _new(UbPtr)
            p.ub, p.lo, p.hi, p._sig = self.ub, self.lo, self.hi, self._sig
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
        return UbPtr(self.ub, self.dtype, self.addr, self.lo, self.hi)

    _vf_argument_copy = copy

    @host_api("UbPtr.reinterpret")
    def reinterpret(self, dtype: type[U]) -> UbPtr[U]:
        """`(__ubuf__ U*)p`: the same address, read as another type."""
        check_dtype("UbPtr.reinterpret", "dtype", dtype)
        p: UbPtr[U] = _new(UbPtr)
        p.ub, p.dtype, p.addr, p.lo, p.hi, p._sig = self.ub, dtype, self.addr, self.lo, self.hi, dtype._ptr_sig
        return p

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
        if st.valid is not None and current_config().check_uninitialized and not st.valid[a : a + self.dtype.itemsize].all():
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

    __slots__ = ("copied", "core", "ends", "hi", "lo", "origin", "outer", "saved", "starts", "token", "ub", "until", "written")

    def __init__(self, ub: UnifiedBuffer) -> None:
        st = ub.storage
        self.ub, self.outer = ub, ub.journal
        self.written = st.valid is None  #: every byte was written at the start (no flags to put back)
        self.until, self.origin = st.until, st.origin
        self.core = ub.core.snapshot()
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
        if self.outer is not None:
            self.outer.record(lo, hi, limit)
        lo, hi = max(lo, 0), min(max(hi, min(limit, lo + AHEAD)), self.ub.size)
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
        self.saved.append((lo, st.data[lo:hi].copy(), None if st.valid is None else st.valid[lo:hi].copy()))
        self.copied += hi - lo

    def restore(self) -> None:
        """Put back every byte and written flag saved, and the core's special registers (the journal stays open)."""
        st = self.ub.storage
        valid = None
        if not self.written:  # (flags only ever turn on, so every byte outside the saved ranges was written before)
            valid = st.valid if st.valid is not None else np.ones(st.data.size, np.bool_)
        for lo, data, flags in self.saved:
            st.data[lo : lo + data.size] = data
            if valid is not None:
                valid[lo : lo + data.size] = True if flags is None else flags
        st.valid, st.until, st.origin = valid, self.until, self.origin
        self.ub.core.restore(self.core)

    def close(self) -> None:
        """Stop recording (journals close in the reverse order of their making)."""
        self.ub.journal = self.outer
        JOURNALING.reset(self.token)
