"""The pipes of one AIV core, the orderings between them, and the race detector built on them.

An AIV core runs four instruction queues side by side (the page "核内同步能力概述"): PIPE_S, the scalar unit
(`GetValue` / `SetValue`, pointer accesses outside a VF); PIPE_V, vector functions (every memory-level API runs
as one, and so does a UB -> UB `DataCopy`: the page "数据通路"); PIPE_MTE2, GM -> UB copies; PIPE_MTE3,
UB -> GM copies. regsim runs a kernel's calls in program order; `PipeState` keeps what the hardware's overlap
could do instead, and says when it would break the program:

- Each call is an instruction of one pipe, numbered on that pipe in issue order (`issued`).
- `known[p][q]`: how many of pipe q's instructions pipe p's next instruction is known to start after. It grows
  only by the orderings the pages name: `SetFlag<Q_P>(id)` waits for every earlier instruction of Q and hands
  what Q knew to the flag; the matching `WaitFlag<Q_P>(id)` makes P start after it (the pages
  "SetFlag/WaitFlag(ISASI)"); `PipeBarrier<P>` orders P's later instructions after its earlier ones;
  `PipeBarrier<PIPE_ALL>` orders everything after everything issued (the page "PipeBarrier(ISASI)"); the
  queues' EnQue/DeQue and FreeTensor/AllocTensor are SetFlag/WaitFlag pairs (the page
  "TPipe-TQue框架编程原理").
- PIPE_S and PIPE_V keep their own order (on the 950 "PIPE_V与PIPE_V间的单流水同步由硬件保证", and the scalar
  unit's by the hardware: the page "关键特性说明"); an MTE2 or MTE3 copy may still run when the next copy of its
  pipe starts ("同一流水中虽然指令是顺序执行，但并不意味着后一条指令开始执行时前一条指令执行结束"), so two
  copies of one pipe into the same bytes need a `PipeBarrier`.
- Two accesses to the same bytes, one of them a write, race when the later one's pipe does not know the
  earlier one complete: a `RaceError` naming both (file:line, pipe, API, bytes).
- The scalar unit issues every pipe's instructions, so a WaitFlag whose destination is PIPE_S holds back every
  pipe's later instructions (the pages "基本架构", "抽象硬件架构").
- The scalar accesses the compiler synchronises itself (`LocalTensor.GetValue` / `SetValue`,
  `GlobalTensor.GetValue` / `SetValue`: the page "关键特性说明", cce-auto-sync, on by default) never race: the
  compiler puts the flags their dependencies need around them (before the access, a WaitFlag<Q_S> for each pipe
  Q whose unfinished access it depends on; after it, a flag to each pipe that later depends on it). A pointer
  access outside a VF (`p[i]`) is not among them and races like any other (the page's own counter-example).

Every access also lands in `events` (`PipeEvent`: pipe, kind, API, bytes, kernel line, memory, bytes touched,
instruction number), one record an access or a sync call, a vector function's accesses one record per Reg op,
kind and memory (one V instruction, the same in both loop modes): the pipe activity a cost model reads.
"""

from __future__ import annotations

import bisect
from collections.abc import Hashable, Sequence
from typing import Any, Final, NamedTuple

import numpy as np

from regsim._src.model.enums import _Enum
from regsim.errors import RaceError, SyncError, message


class PIPE(_Enum):
    """`pipe_t`, the hardware pipes (`PipeBarrier<PIPE_V>()` is `A.PipeBarrier(pipe=A.PIPE.PIPE_V)`)."""

    PIPE_S = 1
    PIPE_V = 2
    PIPE_M = 3
    PIPE_MTE1 = 4
    PIPE_MTE2 = 5
    PIPE_MTE3 = 6
    PIPE_ALL = 10
    PIPE_FIX = 11


class HardEvent(_Enum):
    """`AscendC::HardEvent`, `<source pipe>_<destination pipe>`, in the C++ order (kernel_event.h)."""

    MTE2_MTE1 = 0
    MTE1_MTE2 = 1
    MTE1_M = 2
    M_MTE1 = 3
    MTE2_V = 4
    V_MTE2 = 5
    MTE3_V = 6
    V_MTE3 = 7
    M_V = 8
    V_M = 9
    V_V = 10
    MTE3_MTE1 = 11
    MTE1_MTE3 = 12
    MTE1_V = 13
    MTE2_M = 14
    M_MTE2 = 15
    V_MTE1 = 16
    M_FIX = 17
    FIX_M = 18
    MTE3_MTE2 = 19
    MTE2_MTE3 = 20
    S_V = 21
    V_S = 22
    S_MTE2 = 23
    MTE2_S = 24
    S_MTE3 = 25
    MTE3_S = 26
    MTE2_FIX = 27
    FIX_MTE2 = 28
    FIX_S = 29
    M_S = 30
    FIX_MTE3 = 31
    MTE1_FIX = 32
    FIX_MTE1 = 33
    FIX_FIX = 34


#: the pipes of an AIV core, by index
S, V, MTE2, MTE3 = range(4)
PIPE_NAMES: Final = ("S", "V", "MTE2", "MTE3")
PIPES: Final = (S, V, MTE2, MTE3)
#: a pipe whose instruction starts only after the previous one of the same pipe finished
IN_ORDER: Final = (True, True, False, False)
PIPE_INDEX: Final = {PIPE.PIPE_S: S, PIPE.PIPE_V: V, PIPE.PIPE_MTE2: MTE2, PIPE.PIPE_MTE3: MTE3}
#: the events between an AIV core's pipes (the page's table "AIV中所有合法的核内同步组合"; HardEventAiv)
AIV_EVENTS: Final = {
    e: (PIPE_NAMES.index(a), PIPE_NAMES.index(b))
    for e in HardEvent
    for a, _, b in [e.name.partition("_")]
    if a in PIPE_NAMES and b in PIPE_NAMES
}
EVENT_IDS: Final = range(8)  #: the 950's event ids, EVENT_ID0 ... EVENT_ID7
#: the scalar accesses the compiler synchronises (cce-auto-sync): they never race
AUTO_SYNCED: Final = frozenset({"LocalTensor.GetValue", "LocalTensor.SetValue", "GlobalTensor.GetValue", "GlobalTensor.SetValue"})


class PipeEvent(NamedTuple):
    """One record of a core's pipe activity: an access (kind "read" / "write") or a sync call ("set", "wait",
    "barrier"; pipe "ALL" for a PIPE_ALL barrier).

    An instruction is one call the scalar unit issues to a pipe: a DataCopy (two records: its read and its
    write), a vector function (every memory-level API runs as one: one record per Reg op, kind and memory it
    uses, its bytes summed over the VF's loop iterations, so the same in both loop modes), a scalar access.
    Records of one instruction share `instr`."""

    pipe: str  #: "S", "V", "MTE2", "MTE3"
    kind: str
    api: str  #: e.g. "DataCopy", "LoadAlign", "SetFlag<MTE2_V>(0)"
    nbytes: int  #: bytes the access moves (0 for a sync call)
    line: str  #: "file.py:LINE" of the kernel's call
    space: str  #: "UB", or "GM x" (the kernel parameter the GM buffer was passed as); "" for a sync call
    lo: int = 0  #: the first byte of the access (of its tensor's, for a load)
    hi: int = 0  #: one past its last byte
    #: an access: its instruction's number on its pipe (from 1); a sync call: the instructions its pipe had
    #: issued before it (0 for a PIPE_ALL barrier)
    instr: int = 0
    #: a GM access: its GlobalTensor's `SetL2CacheHint` mode when not the default ("CACHE_MODE_DISABLE" ...)
    l2: str = ""


#: a `PipeEvent`'s fields as a plain tuple (how a core logs them; `PipeEvent._make` reads one)
Row = tuple[str, str, str, int, str, str, int, int, int, str]
Ranges = tuple[Any, Any]  #: byte ranges [lo, hi): an int pair, or sorted disjoint int64 arrays of two or more


def byte_ranges(lo: Any, hi: Any) -> Ranges | None:
    """[lo, hi) (ints, or equal-length int arrays of several ranges) as an int pair or as sorted, disjoint
    arrays (overlapping and adjacent ranges joined); None when empty."""
    if not isinstance(lo, np.ndarray) and not isinstance(hi, np.ndarray):
        return (int(lo), int(hi)) if hi > lo else None
    los = np.asarray(lo, np.int64).ravel()
    his = np.broadcast_to(np.asarray(hi, np.int64), los.shape).ravel()
    keep = his > los
    if not keep.all():
        los, his = los[keep], his[keep]
    if los.size <= 1:
        return (int(los[0]), int(his[0])) if los.size else None
    if (los[1:] == his[:-1]).all():  # (one run of adjacent ranges: a store's lanes)
        return int(los[0]), int(his[-1])
    if (los[1:] < los[:-1]).any():
        order = np.argsort(los, kind="stable")
        los, his = los[order], his[order]
    top = np.maximum.accumulate(his)
    gaps = np.flatnonzero(los[1:] > top[:-1])  # a new range starts after each gap
    if gaps.size == 0:
        return int(los[0]), int(top[-1])
    starts = np.concatenate(([0], gaps + 1))
    ends = np.concatenate((gaps, [los.size - 1]))
    return los[starts], top[ends]


def clip(ranges: Ranges, lo: int, hi: int) -> Ranges | None:
    """The parts of `ranges` inside [lo, hi)."""
    if type(ranges[0]) is int:
        a, b = max(ranges[0], lo), min(ranges[1], hi)
        return (a, b) if a < b else None
    return byte_ranges(np.maximum(ranges[0], lo), np.minimum(ranges[1], hi))


def overlap(a: Ranges, b: Ranges) -> tuple[int, int] | None:
    """The first bytes [lo, hi) that `a` and `b` share, or None."""
    if not isinstance(a[0], np.ndarray) and not isinstance(b[0], np.ndarray):
        lo, hi = max(a[0], b[0]), min(a[1], b[1])
        return (lo, hi) if lo < hi else None
    alo, ahi = np.atleast_1d(a[0]), np.atleast_1d(a[1])
    blo, bhi = np.atleast_1d(b[0]), np.atleast_1d(b[1])
    j = np.searchsorted(blo, ahi) - 1  # per range of a: the last range of b starting before it ends
    jj = np.maximum(j, 0)
    hit = (j >= 0) & (bhi[jj] > alo)
    if not hit.any():
        return None
    i = int(np.argmax(hit))
    return int(max(alo[i], blo[jj[i]])), int(min(ahi[i], bhi[jj[i]]))


def nbytes(ranges: Ranges) -> int:
    if type(ranges[0]) is int:
        return int(ranges[1] - ranges[0])
    return int((ranges[1] - ranges[0]).sum())


#: a recorded access: (its instruction's number on its pipe, is a write, its ranges, the API, the kernel line)
Access = tuple[int, bool, Ranges, str, str]
#: one memory's recorded accesses: per pipe, the accesses (in issue order), their instruction numbers, the last one's
History = tuple[list[list[Access]], list[list[int]], list[int]]


class PipeState:
    """One core's pipes: what each knows complete, the pending flags, the accesses not yet known complete
    everywhere, the freed queue buffers, and the event log."""

    def __init__(self, core: str) -> None:
        self.core = core  #: "core 3 of 8", for messages
        self.issued = [0, 0, 0, 0]
        self.known = [[0, 0, 0, 0] for _ in range(4)]
        #: pending flags: key -> (what the source pipe had finished, the label and line of the SetFlag)
        self.flags: dict[Hashable, tuple[list[int], str, str]] = {}
        #: per memory: per pipe, its accesses in issue order, their numbers (for bisection) and the last one's
        self.history: dict[str, History] = {}
        #: UB bytes no tensor may touch: a queue buffer freed (FreeTensor) or not allocated yet, by buffer
        self.closed: dict[Hashable, tuple[int, int, str]] = {}
        self.events: list[Row] = []  #: the event log, `PipeEvent`s as plain tuples
        self._vf: object = None  #: the vector function whose accesses make the last V instruction
        self._vf_records: dict[tuple[str, str, str], int] = {}  #: its records in `events`, by (api, kind, space)
        #: this core's GM accesses since the last SyncAll: (space, write, ranges, pipe, api, line)
        self.gm_log: list[tuple[str, bool, Ranges, int, str, str]] = []

    # --- accesses ------------------------------------------------------------------------------------------
    def access(
        self,
        pipe: int,
        accesses: Sequence[tuple[str, bool, Ranges | None, int, str]],
        line: str,
        vf: object = None,
        l2: str = "",
    ) -> None:
        """One instruction of `pipe` making `accesses` (memory, is a write, the bytes it orders by, the bytes it
        moves, the API or Reg op making it), or part of one: the accesses of one running vector function `vf` (its
        context, or a token a lowering computing a whole VF at once passes) are one V instruction. Checked against
        every access not known complete to `pipe`, then recorded. Raises before anything is recorded (the caller has
        written nothing yet)."""
        history, known = self.history, self.known[pipe]
        for space, write, ranges, _, api in accesses:
            if ranges is None:
                continue
            if self.closed and space == "UB":
                self._check_open(pipe, write, ranges, api, line)
            h = history.get(space)
            if h is None:
                continue
            if pipe != S or api not in AUTO_SYNCED:
                a, b, c, d = h[2]
                if a <= known[0] and b <= known[1] and c <= known[2] and d <= known[3]:
                    continue  # (every access recorded known complete)
                found = self._unordered(pipe, h, write, ranges, PIPES)
                if found is not None:
                    q, e, both = found
                    raise RaceError(self._race(pipe, write, api, line, q, e, space, both))
                continue
            for q in PIPES:  # (each pipe asked after the waits before it: a wait hands on what its pipe knew)
                if self._unordered(pipe, h, write, ranges, (q,)) is not None:
                    self._join(S, self._finished(q))  # the compiler's WaitFlag<q_S> before the access
        if vf is None or vf is not self._vf:
            self.issued[pipe] += 1
            if IN_ORDER[pipe]:  # (its next instruction starts after this one)
                self.known[pipe][pipe] = self.issued[pipe]
            self._vf = vf
            if vf is not None:
                self._vf_records = {}
        seq = self.issued[pipe]
        name = PIPE_NAMES[pipe]
        log = self.events.append if vf is None else self._record
        for space, write, ranges, moved, api in accesses:
            if ranges is None:
                lo = hi = 0
            elif type(ranges[0]) is int:
                lo, hi = ranges
            else:
                lo, hi = int(ranges[0][0]), int(ranges[1][-1])
            gm = space != "UB"
            log((name, "write" if write else "read", api, moved, line, space, lo, hi, seq, l2 if gm else ""))
            if ranges is None:
                continue
            if gm:
                self.gm_log.append((space, write, ranges, pipe, api, line))
            if pipe == S and api in AUTO_SYNCED:
                continue
            h = history.get(space)
            if h is None:
                h = history[space] = ([[], [], [], []], [[], [], [], []], [0, 0, 0, 0])
            h[0][pipe].append((seq, write, ranges, api, line))
            h[1][pipe].append(seq)
            h[2][pipe] = seq

    def _record(self, row: Row) -> None:
        """Log the access `row` of a vector function: into the VF's record of the same Reg op, kind and memory."""
        key = (row[2], row[1], row[5])
        at = self._vf_records.get(key)
        if at is None:
            self._vf_records[key] = len(self.events)
            self.events.append(row)
        else:
            e = self.events[at]
            self.events[at] = (*e[:3], e[3] + row[3], e[4], e[5], min(e[6], row[6]), max(e[7], row[7]), *e[8:])

    def _sync_event(self, pipe: int | None, kind: str, label: str, line: str) -> None:
        """Log a sync call (it ends the running VF's instruction, if any)."""
        self._vf = None
        if pipe is None:
            self.events.append(("ALL", kind, label, 0, line, "", 0, 0, 0, ""))
        else:
            self.events.append((PIPE_NAMES[pipe], kind, label, 0, line, "", 0, 0, self.issued[pipe], ""))

    def _unordered(
        self,
        pipe: int,
        history: History,
        write: bool,
        ranges: Ranges,
        pipes: Sequence[int],
    ) -> tuple[int, Access, tuple[int, int]] | None:
        """The first recorded access (of one memory's `history`) of `pipes` an access of `pipe` conflicts with (the
        same bytes, one of the two a write) that `pipe` does not know complete: (its pipe, the access, the first bytes
        both touch); None if there is none."""
        entries, seqs, _ = history
        known = self.known[pipe]
        plain = type(ranges[0]) is int
        for q in pipes:
            qseqs = seqs[q]
            if not qseqs or qseqs[-1] <= known[q]:  # (an in-order pipe knows its own issued: `access`)
                continue
            for e in entries[q][bisect.bisect_right(qseqs, known[q]) :]:
                if write or e[1]:
                    theirs = e[2]
                    if plain and type(theirs[0]) is int:
                        lo, hi = max(ranges[0], theirs[0]), min(ranges[1], theirs[1])
                        if lo < hi:
                            return q, e, (lo, hi)
                    else:
                        both = overlap(ranges, theirs)
                        if both is not None:
                            return q, e, both
        return None

    def _finished(self, src: int) -> list[int]:
        """What a flag set now on `src` holds: every instruction `src` issued, and what `src` knows."""
        state = list(self.known[src])
        state[src] = self.issued[src]
        return state

    def _join(self, dst: int, state: Sequence[int]) -> None:
        """`dst` waits for `state`. The scalar unit issues every pipe's instructions (the page "抽象硬件架构": it
        "把矢量计算、矩阵计算、数据搬运、同步指令发射给对应单元执行"), so a wait of PIPE_S holds back every pipe's
        later instructions."""
        for known in self.known if dst == S else (self.known[dst],):
            a, b, c, d = state
            if a > known[0]:
                known[0] = a
            if b > known[1]:
                known[1] = b
            if c > known[2]:
                known[2] = c
            if d > known[3]:
                known[3] = d

    def _race(self, pipe: int, write: bool, api: str, line: str, q: int, e: Access, space: str, both: tuple[int, int]) -> str:
        where = "UB" if space == "UB" else f"GM ({space.removeprefix('GM ')})"
        mine = f"{PIPE_NAMES[pipe]} {'writes' if write else 'reads'}"
        theirs = f"{PIPE_NAMES[q]} {'wrote' if e[1] else 'read'}"
        if q == pipe:
            fix = f"a PipeBarrier(pipe=A.PIPE.PIPE_{PIPE_NAMES[q]}) between them"
        else:
            fix = f"A.SetFlag/A.WaitFlag(event=A.HardEvent.{PIPE_NAMES[q]}_{PIPE_NAMES[pipe]}), a queue or a barrier between them"
        return (
            f"{api} at {line}: {mine} {where} bytes [{both[0]}, {both[1]}) that {theirs} at {e[4]} ({e[3]}), "
            f"with nothing ordering the two on {self.core}; accepted: {fix}"
        )

    def _check_open(self, pipe: int, write: bool, ranges: Ranges, api: str, line: str) -> None:
        for lo, hi, what in self.closed.values():
            both = overlap(ranges, (lo, hi))
            if both is not None:
                raise SyncError(
                    f"{api} at {line}: {PIPE_NAMES[pipe]} {'writes' if write else 'reads'} UB bytes [{both[0]}, {both[1]}) "
                    f"of {what}; accepted: a queue's tensor between its AllocTensor and its FreeTensor"
                )

    # --- orderings -----------------------------------------------------------------------------------------
    def set_flag(self, key: Hashable, src: int, label: str, line: str) -> None:
        """`SetFlag`: once every earlier instruction of `src` finished, the flag holds what `src` knew."""
        if key in self.flags:
            raise SyncError(
                message(
                    label,
                    "event id",
                    f"still pending (set at {self.flags[key][2]}, not yet waited for)",
                    "a WaitFlag of the same event and id before it is set again (setting it twice is undefined behaviour)",
                )
            )
        finished = list(self.known[src])  # (`_finished`, inline: every SetFlag asks)
        finished[src] = seq = self.issued[src]
        self.flags[key] = (finished, label, line)
        self._vf = None  # (`_sync_event`, inline)
        self.events.append((PIPE_NAMES[src], "set", label, 0, line, "", 0, 0, seq, ""))

    def wait_flag(self, key: Hashable, dst: int, label: str, line: str) -> None:
        """`WaitFlag`: `dst`'s later instructions start after what the flag holds."""
        pending = self.flags.pop(key, None)
        if pending is None:
            raise SyncError(
                message(
                    label,
                    "event id",
                    "not set: no SetFlag of the same event and id is pending",
                    "a SetFlag of the same HardEvent and event id before each WaitFlag (on the device it waits for ever)",
                )
            )
        self._join(dst, pending[0])
        self._vf = None  # (`_sync_event`, inline)
        self.events.append((PIPE_NAMES[dst], "wait", label, 0, line, "", 0, 0, self.issued[dst], ""))

    def barrier(self, pipe: int | None, label: str, line: str) -> None:
        """`PipeBarrier<pipe>`; None: PIPE_ALL (every pipe after everything issued, and the histories drop)."""
        if pipe is None:
            for known in self.known:
                known[:] = self.issued
            self.history.clear()
        else:
            self.known[pipe][pipe] = self.issued[pipe]
        self._sync_event(pipe, "barrier", label, line)

    def pending(self) -> list[str]:
        """The user flags set and never waited for (a kernel must end with none)."""
        return [f"{label} (set at {line})" for key, (_, label, line) in self.flags.items() if not isinstance(key, QueueFlag)]


class QueueFlag(NamedTuple):
    """The flag a queue sets for one of its buffers (EnQue's, or FreeTensor's): not a user event id."""

    queue: int
    buffer: int
    kind: str  #: "enque" or "free"
