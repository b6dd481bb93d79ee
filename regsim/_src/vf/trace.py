"""`rs.trace()`: a record of every Reg call a kernel makes, op by op.

    with rs.trace() as t:
        add_vf(...)
    print(t.table())                     # API, dtypes, active lanes, UB ranges, kernel line
    t.save_chrome("add_vf.json")         # chrome://tracing or ui.perfetto.dev

Each record holds the API (and overload), the operand dtypes, the active-lane count of the
governing predicate, the UB byte ranges read and written, and the line of the kernel that made
the call. Recording happens in the backend seam (`TracingBackend`), so every op is traced
without knowing it.
"""

from __future__ import annotations

import contextvars
import json
import operator
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import CodeType, FrameType
from typing import Any, NamedTuple, overload

import attrs

from regsim._src.engine.backend import NumpyBackend
from regsim._src.engine.executors.elementwise import Elementwise
from regsim._src.engine.executors.masks import MaskGen, PredicateOut, SelectLanes
from regsim._src.engine.per_iteration import iota
from regsim._src.model.memory import ITERATIONS, UbPtr
from regsim._src.model.registers import Active, Bools, Bytes, MaskReg, RegTensor, lane_count

_REGSIM_DIR = str(Path(__file__).resolve().parent.parent)


@attrs.define(init=False)
class Record:
    """One Reg call (made as `Record(api, dtypes, line, family)`, the other fields their defaults)."""

    api: str  #: e.g. "Add/carry"
    dtypes: str  #: the register and pointer operands' types, e.g. "MaskReg, uint32, uint32, uint32"
    line: str  #: "file.py:27" of the kernel line that made the call
    active: int | None = None  #: lanes the governing predicate selected (None: unpredicated)
    lanes: int | None = None  #: lanes of the op's type
    reads: list[tuple[int, int]] = attrs.field(factory=list)  #: UB byte ranges [start, end)
    writes: list[tuple[int, int]] = attrs.field(factory=list)
    start: float = 0.0  #: seconds of host time since the trace began (the simulator's, not the device's)
    duration: float = 0.0
    #: iterations the call ran for at once: a call in a batched loop is one record for all of them
    #: (its active lanes, and its UB ranges, are those of every iteration together)
    rows: int = 1
    family: str = ""  #: the op's family ("arith", "datamove", "mask" ...)
    #: the iteration numbers of the VF loops around the call (`loops.iterations()`): ints, the innermost an
    #: `Affine` over the rows of a batched call (kept when the trace is `detailed`)
    iteration: tuple[Any, ...] = ()
    #: a batched call's accesses row by row (kept when the trace is `detailed`, its `reads` and `writes` then
    #: holding only each access's extent): a `RowSpans` (is a write, first bytes, ends, the rows they belong to: int
    #: arrays of one length; rows None: one access, made by every row), or for an access of an exact box a `BoxRows`
    #: (its arrays made from the box when read); either's side is its `write`
    spans: list[RowSpans | BoxRows] = attrs.field(factory=list)
    #: per span, its rows' bytes as (start, step, width) where they are exactly row b's [start + b * step, + width)
    #: (every row making one such access), else None (kept when the trace is `detailed`)
    boxes: list[tuple[int, int, int] | None] = attrs.field(factory=list)
    #: a gather's or scatter's per-lane accesses (kept when the trace is `detailed`): (is a write, the
    #: active lanes' byte addresses, bytes per lane)
    points: list[tuple[bool, Any, int]] = attrs.field(factory=list)

    def __init__(self, api: str, dtypes: str, line: str, family: str = "") -> None:
        # (written out: a record is made every traced call, and attrs' generated `__init__` takes every field; one
        # field a statement: a tuple of four or more assigned at once is built and unpacked, 470 against 270 ns)
        self.api = api
        self.dtypes = dtypes
        self.line = line
        self.family = family
        self.active = None
        self.lanes = None
        self.reads = []
        self.writes = []
        self.spans = []
        self.boxes = []
        self.points = []
        self.start = 0.0
        self.duration = 0.0
        self.rows = 1
        self.iteration = ()


class RowSpans(NamedTuple):
    """A batched access's rows as a `Record.spans` entry: (is a write, first bytes, ends, the rows they belong to)."""

    write: bool
    lo: Any
    hi: Any
    at: Any


class BoxRows(Sequence[Any]):
    """A batched access whose rows are exactly its box's (row b's bytes [start + b * step, + width) for every row) as
    a `Record.spans` entry: (is a write, first bytes, ends, rows), the arrays made from the box when first read."""

    __slots__ = ("_made", "box", "rows", "write")

    def __init__(self, write: bool, box: tuple[int, int, int], rows: int) -> None:
        self.write, self.box, self.rows = write, box, rows
        self._made: tuple[bool, Any, Any, Any] | None = None

    def _entry(self) -> tuple[bool, Any, Any, Any]:
        if self._made is None:
            start, step, width = self.box
            at = iota(self.rows)
            lo = start + step * at
            self._made = (self.write, lo, lo + width, at)
        return self._made

    @overload
    def __getitem__(self, k: int) -> Any: ...
    @overload
    def __getitem__(self, k: slice) -> tuple[Any, ...]: ...
    def __getitem__(self, k: int | slice) -> Any:
        return self.write if k == 0 else self._entry()[k]

    def __len__(self) -> int:
        return 4

    def __iter__(self) -> Iterator[Any]:
        return iter(self._entry())


class Trace:
    """The records of one `rs.trace()` block."""

    def __init__(self, detailed: bool = False, timed: bool = True) -> None:
        self.records: list[Record] = []
        self._t0 = time.perf_counter()
        #: keep what a cost model reads: each call's loop iterations, a batched call's rows, a gather's lanes (a
        #: memory-level call repeated with the same operands may then be given its first run's records, the same
        #: objects: `lowerings.direct.run_binary`)
        self.detailed = detailed
        #: note each call's host `start` and `duration` (`rs.profile`'s own trace, never shown, notes them not: 0.0)
        self.timed = timed
        #: each vector function run while the trace was on: (its first record, one past its last)
        self.vfs: list[tuple[int, int]] = []
        #: called as each vector function ends, with its (first record, one past its last)
        self.on_vf_end: Callable[[int, int], None] | None = None
        self._iteration: tuple[Any, ...] = ()  #: the last record's `iteration`

    def vf_ended(self, start: int) -> None:
        """A vector function whose calls began at record `start` ended."""
        self.vfs.append((start, len(self.records)))
        if self.on_vf_end is not None:
            self.on_vf_end(start, len(self.records))

    def rollback(self, mark: int) -> None:
        """Forget the records from `mark` on (a batched attempt undone: its loop runs again in order)."""
        del self.records[mark:]

    def record(self, ctx: Any, plan: Any, values: Sequence[Any]) -> Any:
        """Run one call (the op engine hands every call here while a trace is on, in order or in a batched loop)."""
        typed = _PLANS.get(id(plan))  # (a plan is one static signature: its operands' types are the same every call)
        if typed is None or typed[0] is not plan:
            typed = _PLANS[id(plan)] = _planned(plan, values)
        # the kernel line: the walk begins past the frames every traced call has, all regsim's (the op's traced call
        # and its caller, the op's face or its entry): frames a walk from the caller would only pass, each made as a
        # Python object when passed
        api, shown, family = typed[1]
        rec = Record(api, shown, kernel_line(sys._getframe(3)), family)
        if self.detailed:  # (the previous call's tuple where every number is the same object: one per iteration)
            now, last = ITERATIONS.get(), self._iteration  # (`loops.iterations()`: copied when it differs; a batched
            # loop's is a tuple, kept as it is when met: the same object again holds the same numbers)
            if now is not last and (len(now) != len(last) or not all(map(operator.is_, now, last))):
                self._iteration = tuple(now)
            rec.iteration = self._iteration
        backend = ctx.backend
        batched = backend.rows  # a batched loop's backend: one call for every iteration
        if batched:  # (an op with no batching rule: `InOrderOnly`, the loop runs in order, its records undone)
            plan.spec.check_batchable()
            seen, fast = len(backend.accesses), None
        else:
            seen, fast = 0, typed[3]
        backend.current = rec
        if fast is not None:  # (an op in order: the lanes its `run` notes noted first)
            if fast[1] is None:  # a mask maker's, fixed by its plan
                rec.active, rec.lanes = fast[2]
            else:  # its predicate's
                mask = values[fast[1]]
                if mask._written is None:  # (else its call is `run`'s, which checks the mask and notes them)
                    lanes, count = mask._active(fast[2])
                    rec.active, rec.lanes = count, lanes.size
        timed = self.timed
        if timed:
            began = time.perf_counter()
            rec.start = began - self._t0
        try:
            if batched:
                return typed[2](ctx, values, {})
            return plan.run(ctx, plan, values) if fast is None else fast[0](ctx, values, {})
        finally:
            if timed:
                rec.duration = time.perf_counter() - began
            backend.current = None
            if batched:
                rec.rows = batched
                for access in backend.accesses[seen:]:
                    write = access.write
                    affine = access.box if access.exact else None  # (a masked store's box only bounds its bytes)
                    if self.detailed:  # the rows exactly; `reads` / `writes` only their extent
                        if affine is None:
                            lo, hi, rows = access.spans
                            rec.spans.append(RowSpans(write, lo, hi, rows))
                            extent = int(lo.min()), int(hi.max())
                        else:  # (the box is the rows, row k's [start + k * step, + width): their arrays made if asked)
                            rec.spans.append(BoxRows(write, affine, batched))
                            start, step, width = affine
                            last = start + step * (batched - 1)
                            extent = (start, last + width) if step >= 0 else (last, start + width)
                        rec.boxes.append(affine)
                        (rec.writes if write else rec.reads).append(extent)
                    else:
                        lo, hi, _ = access.spans
                        (rec.writes if write else rec.reads).extend(_merged(lo, hi))
            self.records.append(rec)

    def table(self) -> str:
        """The records as a text table, one call a line (a batched call: `xN`, its N iterations)."""
        rows = [("#", "API", "operands", "active", "UB read", "UB written", "kernel line")]
        for i, r in enumerate(self.records):
            active = "-" if r.active is None else f"{r.active}/{r.lanes}"
            api = r.api if r.rows == 1 else f"{r.api} x{r.rows}"
            rows.append((str(i), api, r.dtypes, active, _ranges(r.reads), _ranges(r.writes), r.line))
        widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
        return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip() for row in rows)

    def chrome(self) -> dict[str, Any]:
        """The records as Chrome / Perfetto trace-event JSON: one complete event per call, on the
        host's clock (microseconds of simulation time since the trace began, not device cycles),
        in process "regsim", thread "Reg calls"; a batched call's `rows` says how many iterations
        it ran for at once."""
        names = [
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "regsim (host time of the simulation)"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "Reg calls"}},
        ]
        events = [
            {
                "name": r.api,
                "ph": "X",
                "ts": r.start * 1e6,
                "dur": max(r.duration * 1e6, 0.001),
                "pid": 1,
                "tid": 1,
                "args": {
                    "operands": r.dtypes,
                    "active": r.active,
                    "lanes": r.lanes,
                    "rows": r.rows,
                    "reads": r.reads,
                    "writes": r.writes,
                    "line": r.line,
                },
            }
            for r in self.records
        ]
        return {"traceEvents": names + events, "displayTimeUnit": "ns", "otherData": {"clock": "host microseconds"}}

    def save_chrome(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.chrome()))

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        return f"<Trace of {len(self.records)} Reg calls>"


class TracingBackend(NumpyBackend):
    """The sequential backend, noting into the current record what each call touches. (Its methods call
    NumpyBackend's by name: cheaper than `super()`, once a traced access.)"""

    current: Record | None = None

    def predicate(self, api: str, param: str, mask: MaskReg, stride: int) -> Active:
        active = NumpyBackend.predicate(self, api, param, mask, stride)
        if self.current is not None and param == "mask" and self.current.active is None:
            self.current.active, self.current.lanes = active[1], active[0].size
        return active

    def write_predicate(self, dst: MaskReg, lanes: Bools, dtype: Any, trait: Any) -> None:
        NumpyBackend.write_predicate(self, dst, lanes, dtype, trait)
        if self.current is not None and self.current.active is None:  # a mask maker: the lanes it selects
            self.current.active, self.current.lanes = int(lanes.sum()), lanes.size

    def write_prefix(self, dst: MaskReg, count: int, dtype: Any, trait: Any) -> None:
        NumpyBackend.write_prefix(self, dst, count, dtype, trait)
        if self.current is not None:
            self.current.active, self.current.lanes = count, lane_count(dtype, trait)

    def read(self, api: str, param: str, ptr: UbPtr[Any], addr: int, nbytes: int) -> tuple[Bytes, Bools | None]:
        out = NumpyBackend.read(self, api, param, ptr, addr, nbytes)
        if self.current is not None:
            self.current.reads.append((addr, addr + nbytes))
        return out

    def store(self, api: str, param: str, ptr: UbPtr[Any], chunks: list[tuple[int, Bytes, Bools | None]], unit: int) -> None:
        NumpyBackend.store(self, api, param, ptr, chunks, unit)
        if self.current is not None:
            for addr, raw, active in chunks:
                if active is None or active.all():
                    self.current.writes.append((addr, addr + raw.size))
                elif active.any():  # the span from the first to the last active lane
                    idx = active.nonzero()[0]
                    self.current.writes.append((addr + int(idx[0]) * unit, addr + (int(idx[-1]) + 1) * unit))

    def gather(self, api: str, param: str, ptr: UbPtr[Any], addrs: Any, unit: int, active: Bools) -> tuple[Bytes, Bools | None]:
        out = NumpyBackend.gather(self, api, param, ptr, addrs, unit, active)
        if self.current is not None and active.any():  # the span of the active lanes' addresses
            self.current.reads.append((int(addrs[active].min()), int(addrs[active].max()) + unit))
            self.current.points.append((False, addrs[active], unit))
        return out

    def scatter(self, api: str, param: str, ptr: UbPtr[Any], addrs: Any, raw: Bytes, active: Bools) -> None:
        NumpyBackend.scatter(self, api, param, ptr, addrs, raw, active)
        if self.current is not None and active.any():
            self.current.writes.append((int(addrs[active].min()), int(addrs[active].max()) + raw.shape[1]))
            self.current.points.append((True, addrs[active], raw.shape[1]))


_TRACE: contextvars.ContextVar[Trace | None] = contextvars.ContextVar("regsim_trace", default=None)


def trace(*, detailed: bool = False) -> Tracing:
    """`with rs.trace() as t:` — every VF started inside records its Reg calls into `t` (`detailed`: with what
    a cost model reads: loop iterations, a batched call's rows, a gather's lanes)."""
    return Tracing(Trace(detailed))


class Tracing:
    """`rs.trace()`'s block: its trace current inside. (A class, not a generator: `rs.profile` enters one a call.)"""

    __slots__ = ("_token", "trace")

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self._token: contextvars.Token[Trace | None] | None = None

    def __enter__(self) -> Trace:
        self._token = _TRACE.set(self.trace)
        return self.trace

    def __exit__(self, *exc: object) -> None:
        assert self._token is not None
        _TRACE.reset(self._token)


def current_trace() -> Trace | None:
    return _TRACE.get()


def _type_of(v: Any) -> str:
    if isinstance(v, MaskReg):
        return "MaskReg"
    if isinstance(v, UbPtr):
        return f"{v.dtype.name}*"
    reg: RegTensor[Any] = v
    return f"{reg.dtype.name}{'x2' if reg.trait.REG_NUM == 2 else ''}"


def _merged(lo: Any, hi: Any) -> list[tuple[int, int]]:
    """Byte ranges [lo[k], hi[k]) as sorted, disjoint ranges (adjacent ones joined)."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(zip(map(int, lo), map(int, hi), strict=True)):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _ranges(ranges: list[tuple[int, int]]) -> str:
    return " ".join(f"[{a},{b})" for a, b in ranges) or "-"


def kernel_line(frame: FrameType | None = None) -> str:
    """`file.py:LINE` of the first frame outside regsim from `frame` (default: the caller's) outwards: the
    kernel line that made the call being recorded."""
    frame = sys._getframe(1) if frame is None else frame
    hit = _LINES.get((id(frame.f_code), frame.f_lasti))  # (a kernel frame's own line, kept: no walk from it)
    if hit is not None:
        return hit[1]
    while frame is not None:
        code = frame.f_code
        name = code.co_filename
        inside = _INSIDE.get(name)
        if inside is None:
            inside = _INSIDE[name] = name.startswith(_REGSIM_DIR)
        if not inside:
            break
        frame = frame.f_back
    if frame is None:
        return "?"
    key = (id(code), frame.f_lasti)  # (an instruction's line is fixed; `f_lineno` is looked up from the offset)
    hit = _LINES.get(key)
    if hit is None:
        hit = _LINES[key] = (code, f"{Path(name).name}:{frame.f_lineno}")
    return hit[1]


#: "file.py:LINE" by the id of a kernel frame's code and its instruction's offset (kernel_line runs once a recorded
#: call), with the code (kept: its id is no other's while it is here; so a frame found here is a kernel's, and
#: `kernel_line` looks its first frame up here before any walk)
_LINES: dict[tuple[int, int], tuple[CodeType, str]] = {}
_INSIDE: dict[str, bool] = {}  #: whether a file is regsim's own (under the package), by path (a str's hash is kept)
#: by a plan's id, with the plan (so an id is never taken for another's): its records' API, operand types and family,
#: its call in a batched loop, and its call in order where it has one (`_planned`)
_PLANS: dict[int, tuple[Any, tuple[str, str, str], Callable[..., Any], InOrder | None]] = {}
#: an op's call in order and what its record notes before it: the index of its predicate operand and the predicate's
#: stride (its active lanes noted), or None and the (active, lanes) a mask maker's fixed pattern selects
InOrder = tuple[Callable[..., Any], int | None, Any]


def _planned(plan: Any, values: Sequence[Any]) -> tuple[Any, tuple[str, str, str], Callable[..., Any], InOrder | None]:
    """What a traced call of `plan` (one static signature) makes once: (the plan, its record's API, operand types as
    the record shows them and family, its call in a batched loop, its call in order). The batched call is the one a
    loop with no trace makes (the executor's `specialise_batched` closure: its common case on the batched backend,
    which notes every UB access and the active lanes the record reads, as the plan's `run` does), given the bound
    values as its arguments (each the operand its index names, as a call binding directly gives them); any other
    call goes to `run` on the same values.

    An elementwise op's, a compare's, a select's and a CreateMask's call in order is the one a VF with no trace makes
    (the executor's `specialise`d closure: it reads and writes no UB, so its record needs only the active lanes its
    `run` notes: its predicate's, which the record notes before the call, as `run` notes them first, a carry out may
    overwrite the predicate; a CreateMask's, its pattern's, fixed by the plan), given the bound values."""
    shown = ", ".join(_type_of(v) for v in values if isinstance(v, (RegTensor, MaskReg, UbPtr)))
    spec, run, executor = plan.spec, plan.run, plan.spec.executor

    def generic(ctx: Any, values: Any, kwargs: dict[str, Any]) -> Any:
        return run(ctx, plan, values)

    special = executor.specialise_batched(spec, plan, generic) if executor.batchable else None
    fast: InOrder | None = None
    in_order = (
        executor.specialise(spec, plan, generic)
        if isinstance(executor, (Elementwise, PredicateOut, SelectLanes, MaskGen))
        else None
    )
    if in_order is not None:
        if isinstance(executor, MaskGen):  # (`run` notes the lanes it writes: its pattern's)
            fast = (in_order, None, (int(plan.prepared.sum()), plan.prepared.size))
        elif isinstance(executor, SelectLanes):  # (`run` notes its mask's lanes at its stride)
            fast = (in_order, spec.slots["mask"], plan.prepared)
        else:
            fast = (in_order, plan.prepared.pred, plan.prepared.stride)
    return plan, (spec.key, shown, spec.family), special or generic, fast
