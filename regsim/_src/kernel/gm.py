"""Global Memory: the buffers a kernel is launched with, `__gm__ T*` pointers into them (`GmPtr`) and
`GlobalTensor` (the pages under "数据结构/GlobalTensor").

A launch binds each numpy array passed for a `GmPtr` parameter as one GM buffer, named after the parameter;
in the launching process the buffer is the array's own memory (the kernel writes it in place). A
`GlobalTensor` covers the elements `SetGlobalBuffer` gave it (all of its buffer, from its start, when no size
was given: `GetSize()` is then 0, as the page says); every access is checked against that region.
"""

from __future__ import annotations

from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from regsim._src.kernel.block import call_line, current_block
from regsim._src.kernel.pipes import S
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.enums import _Enum, expected_member
from regsim._src.model.registers import check_dtype, to_lanes
from regsim.errors import AlignmentError, OutOfBoundsError, ParameterError, message

T = TypeVar("T", bound=dt.DType)
U = TypeVar("U", bound=dt.DType)

CACHE_LINE = 64  #: bytes of a core's data-cache line (the GlobalTensor SetValue page)


class GmBuffer:
    """One GM allocation of a launch: the bytes of the array passed for kernel parameter `name`."""

    __slots__ = ("data", "name", "space")

    def __init__(self, name: str, data: npt.NDArray[np.uint8]) -> None:
        self.name, self.data = name, data
        self.space = f"GM {name}"  #: its name in the pipes' records and in messages

    @property
    def nbytes(self) -> int:
        return int(self.data.size)

    def __repr__(self) -> str:
        return f"GmBuffer({self.name!r}, {self.nbytes} bytes)"


class GmPtr(Generic[T]):
    """`__gm__ T*`: a byte offset into a GM buffer, typed by `dtype`. `p + n` moves `n` elements;
    `p.reinterpret(rs.half)` is `(__gm__ half*)p`. A kernel parameter `x: rs.GmPtr[rs.uint8]` is `GM_ADDR x`."""

    __slots__ = ("buf", "dtype", "offset")

    def __init__(self, buf: GmBuffer, dtype: type[T], offset: int = 0) -> None:
        self.buf, self.dtype, self.offset = buf, dtype, offset

    def __add__(self, n: int) -> GmPtr[T]:
        return GmPtr(self.buf, self.dtype, self.offset + as_int("GmPtr +", "n", n) * self.dtype.itemsize)

    __radd__ = __add__

    def __sub__(self, n: int) -> GmPtr[T]:
        return GmPtr(self.buf, self.dtype, self.offset - as_int("GmPtr -", "n", n) * self.dtype.itemsize)

    @host_api("GmPtr.reinterpret")
    def reinterpret(self, dtype: type[U]) -> GmPtr[U]:
        """`(__gm__ U*)p`: the same address, read as another type."""
        check_dtype("GmPtr.reinterpret", "dtype", dtype)
        return GmPtr(self.buf, dtype, self.offset)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GmPtr) and other.buf is self.buf and other.offset == self.offset

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GmPtr[{self.dtype.name}]({self.buf.name} + {self.offset} bytes)"


class CacheMode(_Enum):
    """`AscendC::CacheMode` (the SetL2CacheHint page)."""

    CACHE_MODE_DISABLE = 0
    CACHE_MODE_NORMAL = 1
    CACHE_MODE_PERSISTENT = 4


class CacheRwMode(_Enum):
    READ = 1
    WRITE = 2
    RW = 3


class GlobalTensor(Generic[T]):
    """`GlobalTensor<T>`: `GlobalTensor(rs.half)`, then `SetGlobalBuffer(ptr, size)`."""

    __slots__ = ("dtype", "l2_cache_mode", "ptr", "region", "size")

    @host_api("GlobalTensor")
    def __init__(self, dtype: type[T]) -> None:
        check_dtype("GlobalTensor", "dtype", dtype)
        self.dtype = dtype
        self.ptr: GmPtr[T] | None = None
        self.size = 0
        self.region = (0, 0)  #: the bytes of its buffer the tensor may touch
        #: `SetL2CacheHint`'s mode (a cost model's hint; the data are the same)
        self.l2_cache_mode = CacheMode.CACHE_MODE_NORMAL

    @host_api("GlobalTensor.SetGlobalBuffer")
    def SetGlobalBuffer(self, buffer: GmPtr[T], buffer_size: int | None = None) -> None:
        """`SetGlobalBuffer(buffer, bufferSize)`: the tensor is `bufferSize` elements from `buffer`; without a
        size, `GetSize()` is 0 and the tensor may touch all of its buffer from `buffer` on."""
        if not isinstance(buffer, GmPtr):
            raise ParameterError(message("GlobalTensor.SetGlobalBuffer", "buffer", repr(buffer), "a GmPtr (a __gm__ pointer)"))
        if buffer.dtype is not self.dtype:
            raise ParameterError(
                message(
                    "GlobalTensor.SetGlobalBuffer",
                    "buffer",
                    repr(buffer),
                    f"a GmPtr[{self.dtype.name}]: cast it, buffer.reinterpret(rs.{self.dtype.name})",
                )
            )
        size = 0 if buffer_size is None else as_int("GlobalTensor.SetGlobalBuffer", "buffer_size", buffer_size, 0)
        end = buffer.buf.nbytes if size == 0 else buffer.offset + size * self.dtype.itemsize
        if buffer.offset < 0 or end > buffer.buf.nbytes:
            raise OutOfBoundsError(
                message(
                    "GlobalTensor.SetGlobalBuffer",
                    "buffer_size",
                    f"{size} elements from byte {buffer.offset} of GM {buffer.buf.name}",
                    f"within its {buffer.buf.nbytes} bytes",
                )
            )
        self.ptr, self.size, self.region = buffer, size, (buffer.offset, end)

    def __getitem__(self, offset: int) -> GlobalTensor[T]:
        """`gm[offset]`: the tensor from `offset` elements on (its size and region as they were, as in C++)."""
        if type(offset) is not int or offset < 0:
            offset = as_int("GlobalTensor[]", "offset", offset, 0)
        ptr = self.ptr if self.ptr is not None else self.bound("GlobalTensor[]")
        t: GlobalTensor[T] = object.__new__(GlobalTensor)  # (of this one's dtype, checked when it was made)
        t.dtype, t.ptr, t.size, t.region, t.l2_cache_mode = (
            self.dtype,
            GmPtr(ptr.buf, ptr.dtype, ptr.offset + offset * ptr.dtype.itemsize),
            self.size,
            self.region,
            self.l2_cache_mode,
        )
        return t

    @host_api("GlobalTensor.GetSize")
    def GetSize(self) -> int:
        return self.size

    @host_api("GlobalTensor.GetPhyAddr")
    def GetPhyAddr(self, offset: int = 0) -> GmPtr[T]:
        return self.bound("GlobalTensor.GetPhyAddr") + as_int("GlobalTensor.GetPhyAddr", "offset", offset, 0)

    @host_api("GlobalTensor.ReinterpretCast")
    def ReinterpretCast(self, dtype: type[U]) -> GlobalTensor[U]:
        """The same bytes as a tensor of `dtype` (its size the bytes over `sizeof(U)`, rounded down)."""
        t: GlobalTensor[U] = GlobalTensor(dtype)
        t.ptr = self.bound("GlobalTensor.ReinterpretCast").reinterpret(dtype)
        t.size, t.region, t.l2_cache_mode = self.size * self.dtype.itemsize // dtype.itemsize, self.region, self.l2_cache_mode
        return t

    @host_api("GlobalTensor.SetL2CacheHint")
    def SetL2CacheHint(self, mode: CacheMode, *, rw_mode: CacheRwMode = CacheRwMode.RW) -> None:
        """Whether the tensor's accesses go through the L2 cache: a hint for the cost, the data are the same."""
        for name, value, cls in (("mode", mode, CacheMode), ("rw_mode", rw_mode, CacheRwMode)):
            if not isinstance(value, cls):
                raise ParameterError(message("GlobalTensor.SetL2CacheHint", name, repr(value), expected_member(cls, value, "A")))
        self.l2_cache_mode = mode

    @host_api("GlobalTensor.GetValue")
    def GetValue(self, offset: int) -> Any:
        """Element `offset`, read by the scalar unit (PIPE_S)."""
        block = current_block("GlobalTensor.GetValue")
        start = self.element("GlobalTensor.GetValue", offset)
        n = self.dtype.itemsize
        buf = self.bound("GlobalTensor.GetValue").buf
        block.pipes.access(S, [(buf.space, False, (start, start + n), n, "GlobalTensor.GetValue")], call_line(3))
        return buf.data[start : start + n].view(self.dtype.np_dtype)[0].item()

    @host_api("GlobalTensor.SetValue")
    def SetValue(self, offset: int, value: Any) -> None:
        """Element `offset` = `value` (one the dtype holds exactly), written by the scalar unit (PIPE_S). Its
        data-cache line (64 bytes) is written back whole (the page), so another core's access to the same
        line without a `SyncAll` between is a race."""
        block = current_block("GlobalTensor.SetValue")
        start = self.element("GlobalTensor.SetValue", offset)
        raw = to_lanes("GlobalTensor.SetValue", self.dtype, np.asarray([value])).view(np.uint8)
        buf = self.bound("GlobalTensor.SetValue").buf
        line = (start // CACHE_LINE * CACHE_LINE, -(-(start + raw.size) // CACHE_LINE) * CACHE_LINE)
        block.pipes.access(S, [(buf.space, True, line, raw.size, "GlobalTensor.SetValue")], call_line(3))
        buf.data[start : start + raw.size] = raw

    # --- checks -------------------------------------------------------------------------------------------
    def bound(self, api: str) -> GmPtr[T]:
        """The tensor's pointer (it must have been given one)."""
        if self.ptr is None:
            raise ParameterError(message(api, "tensor", repr(self), "a GlobalTensor given its memory by SetGlobalBuffer"))
        return self.ptr

    def element(self, api: str, offset: int) -> int:
        """The byte address of element `offset`, checked against the tensor."""
        start = self.bound(api).offset + as_int(api, "offset", offset, 0) * self.dtype.itemsize
        self.check(api, "offset", start, start + self.dtype.itemsize)
        return start

    def check(self, api: str, param: str, start: int, end: int, align: bool = True) -> None:
        """An access of bytes [start, end) of the tensor's buffer must lie inside the tensor and, with `align`,
        start at a multiple of the element size (the DataCopy pages: a GM address "按照对应数据类型所占字节数对齐")."""
        lo, hi = self.region
        if (start < lo or end > hi) or (align and start % self.dtype.itemsize):
            self._refuse(api, param, start, end, align)

    def _refuse(self, api: str, param: str, start: int, end: int, align: bool) -> None:
        """`check`'s error."""
        name = self.bound(api).buf.name
        lo, hi = self.region
        if start < lo or end > hi:
            raise OutOfBoundsError(message(api, param, f"GM bytes [{start}, {end}) of {name}", f"within {self.describe()}"))
        if align and start % self.dtype.itemsize:
            raise AlignmentError(
                message(api, param, f"GM byte {start} of {name}", f"a multiple of {self.dtype.itemsize} bytes for {self.dtype!r}")
            )

    def describe(self) -> str:
        lo, hi = self.region
        name = self.ptr.buf.name if self.ptr is not None else "?"
        size = f"{self.size} elements" if self.size else "no size (its buffer to the end)"
        return f"the GlobalTensor[{self.dtype.name}] on GM {name} ({size}: bytes [{lo}, {hi}))"

    def __repr__(self) -> str:
        if self.ptr is None:
            return f"GlobalTensor[{self.dtype.name}](no buffer yet)"
        return f"GlobalTensor[{self.dtype.name}]({self.ptr.buf.name} + {self.ptr.offset} bytes, size={self.size})"
