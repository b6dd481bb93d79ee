"""UB tensors of a kernel: `LocalTensor` at an explicit address, `LocalMemAllocator`, and the TPipe-TQue framework
(`TPipe`, `TQue`, `TBuf`: the pages under "资源管理").

`TPipe.InitBuffer` gives a queue `num` buffers of `len` bytes (rounded up to 32) from UB address 0 on, against the
core's UB (`rs.configure(ub_size=...)`: the 950's 248 KiB by default, what a kernel may use of the 256 KiB with
the 8 KiB the compiler and library reserve: the page "NPU架构版本3510"). A queue's operations are the flags of the
page "TPipe-TQue框架编程原理": on a VECIN queue `EnQue` / `DeQue` are SetFlag / WaitFlag<MTE2_V> and
`FreeTensor` / `AllocTensor` SetFlag / WaitFlag<V_MTE2>, on a VECOUT queue V_MTE3 and MTE3_V (each buffer its own
flag, not one of the 8 user event ids); a VECCALC queue orders nothing (V_V). A queue's buffer between
`FreeTensor` and the next `AllocTensor` is closed: an access to its bytes is a `SyncError`.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Final, TypeVar

from regsim._src.kernel.block import Block, call_line, current_block
from regsim._src.kernel.pipes import MTE2, MTE3, QueueFlag, V
from regsim._src.model import dtypes as dt
from regsim._src.model import memory
from regsim._src.model.binding import as_int, host_api
from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.enums import TPosition, _Enum, expected_member
from regsim._src.model.registers import check_dtype
from regsim.errors import AlignmentError, OutOfBoundsError, ParameterError, SyncError, UnsupportedError, message

T = TypeVar("T", bound=dt.DType)

#: the logical positions that live in an AIV core's UB
UB_POSITIONS: Final = (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC, TPosition.LCM)
MAX_BUFFERS: Final = 64  #: "一个kernel中所有使用的Buffer数量之和不能超过64" (InitBuffer)
MAX_ALLOCATED: Final = 8  #: tensors allocated at once on one TPosition, Ascend 950 (AllocTensor)
#: a queue's flags by position: (EnQue's source and DeQue's destination, FreeTensor's and AllocTensor's)
QUEUE_EVENTS: Final = {TPosition.VECIN: ((MTE2, V), (V, MTE2)), TPosition.VECOUT: ((V, MTE3), (MTE3, V))}


def _position(api: str, pos: object, accepted: tuple[TPosition, ...] = UB_POSITIONS) -> TPosition:
    if not isinstance(pos, TPosition):
        raise ParameterError(message(api, "pos", repr(pos), expected_member(TPosition, pos, "A", accepted)))
    if pos not in accepted:
        raise UnsupportedError(
            message(api, "pos", f"TPosition.{pos.name}", f"one of {', '.join(p.name for p in accepted)} (an AIV core's UB)")
        )
    return pos


def _tensor(api: str, block: Block, dtype: type[T], pos: TPosition, addr: int, count: int) -> memory.LocalTensor[T]:
    """A LocalTensor of `count` elements at UB byte `addr`: 32-byte aligned, inside the core's UB."""
    if addr % ONE_BLOCK_SIZE:
        raise AlignmentError(message(api, "addr", f"UB byte {addr}", "a multiple of 32 bytes (the LocalTensor constructor page)"))
    end = addr + count * dtype.itemsize
    if end > block.ub.size:
        raise OutOfBoundsError(
            message(
                api,
                "tile_size",
                f"{count} elements from UB byte {addr} (to byte {end})",
                f"within the core's UB, [0, {block.ub.size})",
            )
        )
    return memory.LocalTensor(block.ub, dtype, addr, count, pos)


@host_api("LocalTensor")
def LocalTensor(dtype: type[T], pos: TPosition, addr: int, tile_size: int) -> memory.LocalTensor[T]:
    """`LocalTensor<T>(pos, addr, tileSize)` (`T` first, a dtype): `tile_size` elements at UB byte `addr` of this
    core's UB (static-tensor programming)."""
    block = current_block("LocalTensor")
    check_dtype("LocalTensor", "T", dtype)
    pos = _position("LocalTensor", pos)
    addr = as_int("LocalTensor", "addr", addr, 0, 2**32 - 1)
    return _tensor("LocalTensor", block, dtype, pos, addr, as_int("LocalTensor", "tile_size", tile_size, 0, 2**32 - 1))


class Hardware(_Enum):
    """`AscendC::Hardware`: the physical memories."""

    GM = 0
    UB = 1
    L1 = 2
    L0A = 3
    L0B = 4
    L0C = 5
    BIAS = 6
    FIXBUF = 7
    MAX = 8


class LocalMemAllocator:
    """`LocalMemAllocator<hard>`: hands out UB tensors one after the other from address 0 (one allocator per
    kernel, not mixed with a TPipe: the LocalMemAllocator pages)."""

    @host_api("LocalMemAllocator")
    def __init__(self, *, hard: Hardware = Hardware.UB) -> None:
        block = current_block("LocalMemAllocator")
        if not isinstance(hard, Hardware):
            raise ParameterError(message("LocalMemAllocator", "hard", repr(hard), expected_member(Hardware, hard, "A")))
        if hard is not Hardware.UB:
            raise UnsupportedError(
                message("LocalMemAllocator", "hard", f"Hardware.{hard.name}", "Hardware.UB (an AIV core's memory)")
            )
        if block.allocator is not None or block.tpipe is not None:
            made = "a LocalMemAllocator" if block.allocator is not None else "a TPipe"
            raise SyncError(
                message("LocalMemAllocator", "allocator", f"a second one ({made} exists)", "one per kernel, never with a TPipe")
            )
        self.block, self.head = block, 0
        block.allocator = self

    @host_api("LocalMemAllocator.GetCurAddr")
    def GetCurAddr(self) -> int:
        return self.head

    @host_api("LocalMemAllocator.Alloc")
    def Alloc(self, dtype: type[T], tile_size: int, *, pos: TPosition = TPosition.VECCALC) -> memory.LocalTensor[T]:
        """`Alloc<pos, T, tileSize>()` / `Alloc<pos, T>(tileSize)`: `tile_size` elements at the next free address."""
        check_dtype("LocalMemAllocator.Alloc", "T", dtype)
        pos = _position("LocalMemAllocator.Alloc", pos)
        count = as_int("LocalMemAllocator.Alloc", "tile_size", tile_size, 0, 2**32 - 1)
        t = _tensor("LocalMemAllocator.Alloc", self.block, dtype, pos, self.head, count)
        self.head += count * dtype.itemsize
        return t


class TPipe:
    """`TPipe`: the kernel's UB and its queues' buffers (one per kernel)."""

    @host_api("TPipe")
    def __init__(self) -> None:
        block = current_block("TPipe")
        if block.tpipe is not None or block.allocator is not None:
            made = f"a TPipe (made at {block.tpipe.line})" if block.tpipe is not None else "a LocalMemAllocator"
            raise SyncError(
                message(
                    "TPipe",
                    "pipe",
                    f"a second one ({made} is alive)",
                    "one TPipe per kernel (Destroy the first), never with a LocalMemAllocator",
                )
            )
        self.block, self.line, self.head, self.buffers = block, call_line(), 0, 0
        block.tpipe = self
        block.ub.core.init_soc_state()  # (the library's TPipe constructor calls InitSocState)

    @host_api("TPipe.InitBuffer")
    def InitBuffer(self, que: TQue | TBuf, num: int, len: int | None = None, /) -> bool:
        """`InitBuffer(que, num, len)`: `num` buffers of `len` bytes for a TQue; `InitBuffer(buf, len)`: one
        buffer for a TBuf. `len` is rounded up to 32 bytes; 0 (the page sets no lower bound) gives empty buffers,
        which operator kernels give the buffers an instantiation does not use."""
        self._alive("TPipe.InitBuffer")
        if isinstance(que, TBuf):
            if len is not None:
                raise ParameterError(
                    message("TPipe.InitBuffer", "arguments", f"(TBuf, {num}, {len})", "InitBuffer(buf, len) for a TBuf")
                )
            count, nbytes = 1, as_int("TPipe.InitBuffer", "len", num, 0, 2**32 - 1)
        elif isinstance(que, TQue):
            count = as_int("TPipe.InitBuffer", "num", num, 1, 255)
            nbytes = as_int("TPipe.InitBuffer", "len", len, 0, 2**32 - 1)
        else:
            raise ParameterError(message("TPipe.InitBuffer", "que", repr(que), "a TQue or a TBuf"))
        if que.buffers:
            raise ParameterError(message("TPipe.InitBuffer", "que", repr(que), "a TQue or TBuf not given buffers yet"))
        nbytes = -(-nbytes // ONE_BLOCK_SIZE) * ONE_BLOCK_SIZE
        size = self.block.ub.size
        if self.head + count * nbytes > size:
            raise ParameterError(
                message(
                    "TPipe.InitBuffer",
                    "len",
                    f"{count} x {nbytes} bytes",
                    f"at most {size - self.head} more bytes ({self.head} of the core's {size} UB bytes are given out; "
                    "a larger UB: rs.configure(ub_size=...))",
                )
            )
        if self.buffers + count > MAX_BUFFERS:
            raise ParameterError(
                message("TPipe.InitBuffer", "num", count, f"at most {MAX_BUFFERS - self.buffers} more buffers (64 a kernel)")
            )
        que.init(self.block, [(self.head + k * nbytes, nbytes) for k in range(count)], call_line())
        self.head += count * nbytes
        self.buffers += count
        return True

    @host_api("TPipe.Destroy")
    def Destroy(self) -> None:
        """Release the pipe: its queues' buffers go with it (a second TPipe may be made)."""
        self._alive("TPipe.Destroy")
        self.block.tpipe = None

    def _alive(self, api: str) -> None:
        if self.block.tpipe is not self:
            raise SyncError(message(api, "pipe", "destroyed", "a live TPipe"))


class TBuf:
    """`TBuf<pos>`: one UB buffer with no queue (no flags, never freed)."""

    @host_api("TBuf")
    def __init__(self, *, pos: TPosition = TPosition.LCM) -> None:
        self.pos = _position("TBuf", pos)
        self.buffers: list[tuple[int, int]] = []
        self.block: Block | None = None

    def init(self, block: Block, buffers: list[tuple[int, int]], line: str) -> None:
        self.block, self.buffers = block, buffers

    @host_api("TBuf.Get")
    def Get(self, dtype: type[T], len: int | None = None) -> memory.LocalTensor[T]:
        """`Get<T>()`: the whole buffer as a tensor of `T`; `Get<T>(len)`: its first `len` elements."""
        return self.GetWithOffset(dtype, self._size(dtype) if len is None else len, 0, api="TBuf.Get")

    @host_api("TBuf.GetWithOffset")
    def GetWithOffset(
        self, dtype: type[T], size: int, buf_offset: int, *, api: str = "TBuf.GetWithOffset"
    ) -> memory.LocalTensor[T]:
        """`GetWithOffset<T>(size, bufOffset)`: `size` elements from byte `buf_offset` of the buffer."""
        check_dtype(api, "T", dtype)
        if self.block is None:
            raise ParameterError(message(api, "buf", repr(self), "a TBuf given its buffer by TPipe.InitBuffer"))
        addr, nbytes = self.buffers[0]
        offset = as_int(api, "buf_offset", buf_offset, 0, nbytes)
        count = as_int(api, "size", size, 0, (nbytes - offset) // dtype.itemsize)
        return _tensor(api, self.block, dtype, self.pos, addr + offset, count)

    def _size(self, dtype: type[dt.DType]) -> int:
        return self.buffers[0][1] // dtype.itemsize if self.buffers else 0

    def __repr__(self) -> str:
        return f"TBuf(pos=TPosition.{self.pos.name})"


class TQue:
    """`TQue<pos, depth>`: a queue of UB buffers between two pipes (`AllocTensor`, `EnQue`, `DeQue`, `FreeTensor`)."""

    FREE, ALLOCATED, ENQUEUED, DEQUEUED = "free", "allocated", "enqueued", "dequeued"

    @host_api("TQue")
    def __init__(self, *, pos: TPosition, depth: int) -> None:
        self.pos = _position("TQue", pos, (TPosition.VECIN, TPosition.VECOUT, TPosition.VECCALC))
        self.depth = as_int("TQue", "depth", depth, 0)
        if self.depth == 0:
            raise UnsupportedError(
                message("TQue", "depth", 0, "a depth of 1 or more (the in-place forms of depth 0 are not modelled)")
            )
        self.buffers: list[tuple[int, int]] = []
        self.state: list[str] = []
        self.lines: list[str] = []  #: where each buffer was last allocated or freed
        self.fifo: deque[int] = deque()
        self.cursor = 0
        self.block: Block | None = None
        self.line = ""

    def init(self, block: Block, buffers: list[tuple[int, int]], line: str) -> None:
        self.block, self.buffers, self.line = block, buffers, line
        self.state = [self.FREE] * len(buffers)
        self.lines = [""] * len(buffers)
        block.queues.append(self)
        for k, (addr, n) in enumerate(buffers):
            block.pipes.closed[(id(self), k)] = (addr, addr + n, f"{self.describe(k)}, not allocated yet (AllocTensor)")

    def describe(self, k: int) -> str:
        addr, n = self.buffers[k]
        return (
            f"buffer {k} (UB bytes [{addr}, {addr + n})) of the TQue(pos=TPosition.{self.pos.name}, depth={self.depth}) "
            f"given buffers at {self.line}"
        )

    def _ready(self, api: str) -> Block:
        current_block(api)
        if self.block is None:
            raise ParameterError(message(api, "que", repr(self), "a TQue given buffers by TPipe.InitBuffer"))
        return self.block

    def _flag(self, k: int, kind: str, set_: bool, api: str) -> None:
        """The queue's flag `kind` ("enque" or "free") of buffer `k`: set, or waited for (when it was set)."""
        events = QUEUE_EVENTS.get(self.pos)
        if events is None:
            return
        src, dst = events[0] if kind == "enque" else events[1]
        key = QueueFlag(id(self), k, kind)
        block = self.block
        assert block is not None
        if set_:
            block.pipes.set_flag(key, src, api, call_line())
        elif key in block.pipes.flags:
            block.pipes.wait_flag(key, dst, api, call_line())

    def _buffer_of(self, api: str, tensor: object, states: tuple[str, ...]) -> int:
        if not isinstance(tensor, memory.LocalTensor) or tensor.ub is not self._ready(api).ub:
            raise ParameterError(message(api, "tensor", repr(tensor), "a LocalTensor this TQue gave out"))
        for k, (addr, n) in enumerate(self.buffers):
            if addr <= tensor.addr < addr + n:
                if self.state[k] not in states:
                    raise SyncError(
                        message(
                            api,
                            "tensor",
                            f"{self.describe(k)}, which is {self.state[k]}",
                            f"a tensor that is {' or '.join(states)}",
                        )
                    )
                return k
        raise ParameterError(
            message(
                api,
                "tensor",
                repr(tensor),
                f"a LocalTensor of this TQue's buffers ({', '.join(self.describe(k) for k in range(len(self.buffers)))})",
            )
        )

    @host_api("TQue.AllocTensor")
    def AllocTensor(self, dtype: type[T]) -> memory.LocalTensor[T]:
        """`AllocTensor<T>()`: a free buffer as a tensor of `T` (it waits for the buffer's FreeTensor)."""
        block = self._ready("TQue.AllocTensor")
        check_dtype("TQue.AllocTensor", "T", dtype)
        n = len(self.buffers)
        k = next((c % n for c in range(self.cursor, self.cursor + n) if self.state[c % n] == self.FREE), None)
        if k is None:
            held = "; ".join(f"buffer {c} allocated at {self.lines[c]}" for c in range(n))
            raise SyncError(
                message(
                    "TQue.AllocTensor",
                    "buffers",
                    f"all {n} held ({held})",
                    "a FreeTensor before the next AllocTensor (on the device it waits for ever)",
                )
            )
        allocated = sum(q.state.count(self.ALLOCATED) for q in block.queues if q.pos is self.pos)
        if allocated >= MAX_ALLOCATED:
            raise SyncError(
                message(
                    "TQue.AllocTensor",
                    "tensors",
                    f"{allocated + 1} allocated at once on TPosition.{self.pos.name}",
                    f"at most {MAX_ALLOCATED} on one position (the page, Ascend 950)",
                )
            )
        self.cursor = k + 1
        self._flag(k, "free", False, f"AllocTensor (TPosition.{self.pos.name})")
        self.state[k], self.lines[k] = self.ALLOCATED, call_line()
        block.pipes.closed.pop((id(self), k), None)
        addr, nbytes = self.buffers[k]
        return _tensor("TQue.AllocTensor", block, dtype, self.pos, addr, nbytes // dtype.itemsize)

    @host_api("TQue.EnQue")
    def EnQue(self, tensor: memory.LocalTensor[Any]) -> bool:
        """`EnQue(tensor)`: hand the tensor to the queue's consumer (the producer pipe's flag is set)."""
        k = self._buffer_of("TQue.EnQue", tensor, (self.ALLOCATED, self.DEQUEUED))
        if len(self.fifo) >= self.depth:
            raise SyncError(
                message(
                    "TQue.EnQue",
                    "tensor",
                    f"a {len(self.fifo) + 1}th tensor in the queue",
                    f"at most depth = {self.depth} enqueued at once",
                )
            )
        self._flag(k, "enque", True, f"EnQue (TPosition.{self.pos.name})")
        self.fifo.append(k)
        self.state[k] = self.ENQUEUED
        return True

    @host_api("TQue.DeQue")
    def DeQue(self, dtype: type[T]) -> memory.LocalTensor[T]:
        """`DeQue<T>()`: the oldest enqueued tensor (its consumer pipe waits for the producer's flag)."""
        block = self._ready("TQue.DeQue")
        check_dtype("TQue.DeQue", "T", dtype)
        if not self.fifo:
            raise SyncError(
                message(
                    "TQue.DeQue",
                    "queue",
                    f"empty (TQue at {self.line})",
                    "an EnQue before each DeQue (the page: DeQue of an empty queue is an error)",
                )
            )
        k = self.fifo.popleft()
        self._flag(k, "enque", False, f"DeQue (TPosition.{self.pos.name})")
        self.state[k] = self.DEQUEUED
        addr, nbytes = self.buffers[k]
        return _tensor("TQue.DeQue", block, dtype, self.pos, addr, nbytes // dtype.itemsize)

    @host_api("TQue.FreeTensor")
    def FreeTensor(self, tensor: memory.LocalTensor[Any]) -> None:
        """`FreeTensor(tensor)`: give the buffer back (the consumer pipe's flag is set; the buffer is closed until
        the next AllocTensor)."""
        k = self._buffer_of("TQue.FreeTensor", tensor, (self.ALLOCATED, self.DEQUEUED))
        self._flag(k, "free", True, f"FreeTensor (TPosition.{self.pos.name})")
        line = call_line()
        self.state[k], self.lines[k] = self.FREE, line
        addr, n = self.buffers[k]
        assert self.block is not None
        self.block.pipes.closed[(id(self), k)] = (addr, addr + n, f"{self.describe(k)}, freed by FreeTensor at {line}")

    def held(self) -> list[str]:
        """The buffers not free (at kernel end: leaked)."""
        return [f"{self.describe(k)}, {s} at {self.lines[k]}" for k, s in enumerate(self.state) if s != self.FREE]

    def __repr__(self) -> str:
        return f"TQue(pos=TPosition.{self.pos.name}, depth={self.depth})"
