"""One block of a running kernel: its core's UB (and so CTRL, masks, AR: `ub.core`), its pipes, and the scalar
state the kernel APIs keep per core (the pad value of `SetPadValue`, the `TPipe`, the queues).

`current_block(api)` is how a kernel API finds the block it runs on; outside a kernel, or inside a VF, it is a
`VfContextError` naming the API.
"""

from __future__ import annotations

import contextvars
import sys
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from regsim._src.kernel.pipes import PipeState, S, V, byte_ranges, clip
from regsim._src.model.config import _VF
from regsim._src.model.memory import UnifiedBuffer
from regsim._src.vf.trace import kernel_line
from regsim.errors import SyncError, VfContextError, message


class Block:
    """Block `idx` of `num`: one AIV core running the kernel."""

    def __init__(self, idx: int, num: int, ub: UnifiedBuffer, sync_all: Callable[[Block], None]) -> None:
        self.idx, self.num, self.ub = idx, num, ub
        self.pipes = PipeState(f"core {idx} of {num}")
        self.sync_all = sync_all  #: SyncAll's wait for every other block (the runner's)
        #: `SetPadValue`'s register: (dtype, the value's bytes), None until set
        self.pad_value: tuple[Any, bytes] | None = None
        self.tpipe: Any = None  #: the live TPipe
        self.allocator: Any = None  #: the live LocalMemAllocator
        self.queues: list[Any] = []  #: the TQues given buffers (what must be free at kernel end)
        self.copies: dict[Any, Any] = {}  #: `DataCopy`'s plans, by its static values (`datacopy.DataCopy`)
        ub.observer = UbWatch(self.pipes)  # (not the block: a UB referring to its block were a cycle)

    def finish(self) -> None:
        """The kernel's end on this core: every flag waited for, every queue buffer freed."""
        pending = self.pipes.pending()
        if pending:
            raise SyncError(
                message(
                    "kernel end",
                    "flags",
                    f"{', '.join(pending)} set and never waited for ({self.pipes.core})",
                    "every SetFlag matched by a WaitFlag of the same event and id (the SetFlag page: they come in pairs)",
                )
            )
        held = [what for q in self.queues for what in q.held()]
        if held:
            raise SyncError(
                message(
                    "kernel end",
                    "buffers",
                    f"{'; '.join(held)} still held ({self.pipes.core})",
                    "every AllocTensor matched by a FreeTensor before the kernel ends",
                )
            )

    def release(self) -> None:
        """The block's ties to its kernel's objects cut, once it has ended: its TPipe, LocalMemAllocator and queues
        refer back to it, cycles that would keep its UB until the cyclic collector ran."""
        self.tpipe = self.allocator = None
        self.queues = []
        self.copies = {}


class UbWatch:
    """A block's UB's observer: each access the UB reports, recorded on the block's pipes (`observe`; a lowering
    computing a whole VF at once tells `observe_vf`). It keeps the pipes only, so that a block and its UB, referring
    to each other through it, make no reference cycle: a launch's UBs are freed as soon as its blocks end."""

    __slots__ = ("pipes",)

    def __init__(self, pipes: PipeState) -> None:
        self.pipes = pipes

    def observe(self, kind: str, api: str, lo: Any, hi: Any, /, within: tuple[int, int] | None = None) -> None:
        """The UB's observer: a Reg op's access (inside a VF: PIPE_V) or a scalar access (outside: PIPE_S). A
        load is ordered by the bytes of its tensor only (`within`): the rest of a whole register is read but
        not used."""
        if type(lo) is int and type(hi) is int:  # (one range: the common case, without numpy)
            if hi <= lo:
                return
            moved = hi - lo
            ordered: Any = _within(lo, hi, within)
        else:
            ranges = byte_ranges(lo, hi)
            if ranges is None:
                return
            ordered = clip(ranges, *within) if within is not None else ranges
            moved = int(np.sum(np.subtract(hi, lo)))
        vf = _VF.get()
        self.pipes.access(S if vf is None else V, [("UB", kind == "write", ordered, moved, api)], call_line(), vf)

    __call__ = observe

    def observe_vf(self, accesses: Sequence[tuple[str, bool, tuple[int, int], int, str]]) -> None:
        """`observe` for the UB accesses of one whole vector function a lowering computes at once (`direct`), made
        outside a VF scope, as the pipes take them (memory, is a write, the bytes ordering it, the bytes moved, the Reg
        op; a load ordered by its tensor's bytes only), in the loop's order; one V instruction, from one kernel line."""
        self.pipes.access(V, accesses, call_line(5), object())


def _within(lo: int, hi: int, within: tuple[int, int] | None) -> tuple[int, int] | None:
    """The bytes of [lo, hi) an access is ordered by: those inside `within` (a load's tensor), if given."""
    if within is None:
        return lo, hi
    a, b = max(lo, within[0]), min(hi, within[1])
    return (a, b) if a < b else None


_BLOCK: contextvars.ContextVar[Block | None] = contextvars.ContextVar("regsim_block", default=None)


def current_block(api: str) -> Block:
    """The block the calling kernel code runs on."""
    block = _BLOCK.get()
    if block is None:
        raise VfContextError(
            message(api, "context", "called outside a running kernel", "a call from a kernel started by rs.launch(kernel, ...)")
        )
    if _VF.get() is not None:  # (`in_vf`, inline: every kernel API asks)
        raise VfContextError(message(api, "context", "called inside a vector function", "scalar (__aicore__) kernel code"))
    return block


def use_block(block: Block) -> contextvars.Token[Block | None]:
    return _BLOCK.set(block)


def call_line(depth: int = 1) -> str:
    """`kernel_line()` from the frame `depth` above this one (1: the caller's) outwards (what every pipe record of a
    kernel asks). A caller knowing how many of its callers are regsim's own passes that many more: the frames between
    are not looked at (each is made, in Python 3.11, when looked at)."""
    return kernel_line(sys._getframe(depth))
