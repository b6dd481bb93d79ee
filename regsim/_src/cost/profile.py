"""`rs.profile(F, *args, **launch_kw) -> Profile`: what a vector function or a whole kernel would cost on the 950.

A VF runs under a detailed `rs.trace()`; a kernel is launched (in this process) under one, its pipe event log
read as well. From them:

- **counts**: instructions by unit inside vector functions ("vector", "load", "store", "mask", "scalar": a call
  in a batched loop counts once an iteration, so both loop modes count the same) and, for a kernel, by pipe
  ("V": vector functions and UB -> UB copies, "S", "MTE2", "MTE3"; the pipe event log's instructions);
- **bytes**: UB bytes the vector functions loaded and stored, and each pipe's bytes moved;
- **bank_conflicts**: the UB bank conflicts of each vector function's beats (`banks.py`), by kind and
  instructions, with the addresses of the first beat that had them;
- **cycles**: a vector function takes `vf.launch_cycles` and the longest of its load/store beats, its compute
  instructions and its mask instructions (they overlap); a kernel's pipes run side by side, each instruction
  starting when its pipe is free, the scalar unit has issued it and the flags, queues and barriers before it
  allow (the pipe event log's set / wait / barrier records), the kernel's time the slowest block's;
- **chrome_trace(path)**: each block's pipes as tracks, in modelled cycles.

Every number comes from the cost table (`cost_table.toml`: each entry cites its page or says it is an
assumption); `cost_table=` and `cost=` replace it or some of its entries.
"""

from __future__ import annotations

import collections
import json
import math
import operator
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import attrs
import numpy as np

from regsim._src.cost import banks, registers
from regsim._src.cost.table import CostTable, load
from regsim._src.engine.per_iteration import Affine
from regsim._src.kernel.block import _BLOCK
from regsim._src.kernel.launch import Kernel, KernelRun, launch
from regsim._src.kernel.pipes import PIPE_NAMES, Row, V
from regsim._src.vf.trace import Record, Trace, Tracing
from regsim.errors import ParameterError, message

UNITS = ("vector", "load", "store", "mask", "scalar")
PIPES = PIPE_NAMES  #: ("S", "V", "MTE2", "MTE3")
#: Reg ops run by the scalar side of a VF (address registers) rather than the vector unit
_SCALAR_OPS = frozenset({"CreateAddrReg/1", "CreateAddrReg/2", "CreateAddrReg/3", "CreateAddrReg/4", "ClearSpr"})


@attrs.frozen
class BankConflict:
    """UB bank conflicts of one kind among the same instructions (every beat that had them)."""

    kind: str  #: "read-read", "read-write" or "write-write"
    instructions: tuple[str, ...]  #: "LoadAlign at add.py:12", ...
    addresses: tuple[int, ...]  #: UB byte addresses of the rows (or 8 B words) the first such beat collided on
    beats: int  #: how many beats (iterations) had it

    def __str__(self) -> str:
        where = ", ".join(hex(a) for a in self.addresses[:8]) + (" ..." if len(self.addresses) > 8 else "")
        return f"{self.kind} x{self.beats}: {'; '.join(self.instructions)} (UB {where})"


@attrs.define
class VfCost:
    """One vector function run."""

    name: str  #: the first call's kernel line
    counts: dict[str, int]
    load_bytes: int
    store_bytes: int
    beats: int  #: load/store beats (one per iteration and beat)
    memory_cycles: int
    compute_cycles: float
    mask_cycles: float
    cycles: int
    conflicts: dict[tuple[str, tuple[str, ...]], list[Any]]  #: (kind, instructions) -> [addresses, beats]


class Span(NamedTuple):
    """One instruction on the modelled timeline."""

    block: int
    pipe: str
    name: str
    line: str
    start: float
    cycles: float


@attrs.define
class Profile:
    """What `rs.profile` modelled (see the module's docstring)."""

    name: str
    counts: dict[str, int]
    bytes: dict[str, int]
    bank_conflicts: list[BankConflict]
    cycles: int
    pipe_cycles: dict[str, float]  #: busy cycles by pipe (a kernel: summed over blocks; a VF: "V")
    vfs: list[VfCost]
    spans: list[Span]
    table: CostTable
    registers: Any = None  #: peak live registers by VF and file, and where (`registers.Registers`, rs.profile)
    run: KernelRun | None = None

    @property
    def dominant_pipe(self) -> str:
        """The pipe busy longest."""
        return max(self.pipe_cycles, key=lambda p: self.pipe_cycles[p])

    @property
    def microseconds(self) -> float:
        return self.cycles / float(self.table["clock.hz"]) * 1e6

    def report(self) -> str:
        lines = [
            f"profile of {self.name}: {self.cycles} cycles (~{self.microseconds:.3f} us at {self.table['clock.hz'] / 1e9:g} GHz)"
        ]
        lines.append("  instructions: " + ", ".join(f"{k} {v}" for k, v in self.counts.items() if v))
        lines.append("  bytes: " + ", ".join(f"{k} {v}" for k, v in self.bytes.items() if v))
        if len(self.pipe_cycles) > 1:
            lines.append("  busy cycles by pipe: " + ", ".join(f"{k} {v:.0f}" for k, v in self.pipe_cycles.items()))
            lines.append(f"  dominant pipe: {self.dominant_pipe}")
        if self.bank_conflicts:
            lines.append(f"  UB bank conflicts ({sum(c.beats for c in self.bank_conflicts)} beats):")
            lines.extend(f"    {c}" for c in self.bank_conflicts)
        else:
            lines.append("  UB bank conflicts: none")
        if self.registers is not None:
            lines.append(f"  registers: {self.registers}")
        lines.append(f"  cost table: {self.table.path}")
        return "\n".join(lines)

    def chrome(self) -> dict[str, Any]:
        """Chrome / Perfetto trace-event JSON: a process per block, a thread per pipe, times in modelled cycles
        (shown as microseconds: 1 us on the time axis is one cycle)."""
        events: list[dict[str, Any]] = []
        blocks = sorted({s.block for s in self.spans})
        for b in blocks:
            events.append({"name": "process_name", "ph": "M", "pid": b, "tid": 0, "args": {"name": f"block {b} (cycles)"}})
            for k, pipe in enumerate(PIPES):
                events.append({"name": "thread_name", "ph": "M", "pid": b, "tid": k, "args": {"name": pipe}})
        for s in self.spans:
            events.append(
                {
                    "name": s.name,
                    "ph": "X",
                    "ts": s.start,
                    "dur": max(s.cycles, 0.001),
                    "pid": s.block,
                    "tid": PIPES.index(s.pipe),
                    "args": {"line": s.line, "cycles": s.cycles},
                }
            )
        return {"traceEvents": events, "displayTimeUnit": "ns", "otherData": {"clock": "modelled cycles (1 us = 1 cycle)"}}

    def chrome_trace(self, path: str | os.PathLike[str]) -> None:
        Path(path).write_text(json.dumps(self.chrome()))

    def __repr__(self) -> str:
        return f"<Profile of {self.name}: {self.cycles} cycles, {len(self.bank_conflicts)} bank conflict kinds>"


# --- vector functions ----------------------------------------------------------------------------------------
#: what the counts and the beats read of a traced call (`_content`'s shape, one a call): (its loop segment, API, family,
#: rows, kernel line), and for a call reading or writing the UB three more, whether it reads none, writes none and has
#: no lanes (a gather's or scatter's), then each batched access's side
Facts = tuple[Any, ...]
_API, _FAMILY, _ROWS, _LINE, _NO_READS, _NO_WRITES, _NO_LANES, _SIDES = range(1, 9)  #: (`Facts`' fields, by index)


def unit(f: Facts) -> str:
    """The unit a traced Reg call (its `Facts`) runs on."""
    if f[_API] in _SCALAR_OPS:
        return "scalar"
    if len(f) > _NO_READS:  # (a call reading or writing the UB; a scatter writes its lanes)
        return "load" if f[_NO_WRITES] else "store"
    return "mask" if f[_FAMILY] == "mask" else "vector"


def _iteration_key(iteration: tuple[Any, ...]) -> tuple[Any, ...]:
    """A record's iteration numbers as its segment is told by: a batched call's `Affine` by identity (no Affine: the
    tuple itself, found by a type look-up a number)."""
    if Affine not in map(type, iteration):
        return iteration
    return tuple([id(x) if isinstance(x, Affine) else x for x in iteration])


Accesses = list[tuple[bool, Any, Any, Any]]


def _accesses(r: Record, rows: int) -> Accesses:
    """A traced call's UB accesses as (is a write, first bytes, ends, rows): int arrays; an in-order call's as lists of
    its ranges' first bytes and ends, rows None (its one row)."""
    if r.spans:
        return [(w, *banks.as_rows(lo, hi, at, rows)) for w, lo, hi, at in r.spans]
    return [
        (w, [a for a, _ in ranges], [b for _, b in ranges], None) for w, ranges in ((False, r.reads), (True, r.writes)) if ranges
    ]


Stacked = list[tuple[list[int], list[tuple[list[int], int, int]]]]


def _stacked(facts: Sequence[Facts], memory: set[int]) -> Stacked:
    """The VF's load and store calls (`memory`: their records' indices), iteration by iteration (`Facts`' segments, a
    segment the rows of its last call), consecutive iterations making the same calls stacked as rows of one array (an
    in-order loop's iterations and a batched call's rows alike), by index: [(the first iteration's calls, [(an
    iteration's or batch's calls, its rows, its first row)])]."""
    out: Stacked = []
    shape: Any = None
    members: list[int] = []
    parts: list[tuple[list[int], int, int]] = []
    total = rows = 0
    segment: Any = None
    mem: list[int] = []
    made: list[tuple[Any, ...]] = []  # (loops, not comprehensions: a segment is often a call or two)
    for k, f in enumerate((*facts, _LAST)):
        if f[0] != segment:  # (a segment ended: its calls stacked)
            if mem:
                now = tuple(made)
                if now != shape and parts:
                    out.append((members, parts))
                    parts, total = [], 0
                if not parts:
                    shape, members = now, mem
                parts.append((mem, rows, total))
                total += rows
                mem, made = [], []
            if f is _LAST:
                break
            segment = f[0]
        rows = f[_ROWS]
        if k in memory:
            mem.append(k)
            made.append((f[_API], f[_LINE], f[_NO_READS], f[_NO_WRITES], f[_NO_LANES]))
    if parts:
        out.append((members, parts))
    return out


_LAST: Facts = (0,)  #: (after a VF's calls: segment 0, none's number, ends the last segment)


def _pack(members: Sequence[Facts], loads: int, stores: int) -> list[list[int]]:
    """One iteration's load and store calls (their `Facts`) packed in program order into beats of at most `loads` loads
    and `stores` stores (a gather or scatter alone): the calls' indices."""
    beats: list[list[int]] = []
    beat: list[int] = []
    n_loads = n_stores = 0
    for k, f in enumerate(members):
        ld, st = int(not f[_NO_READS]), int(not f[_NO_WRITES])
        if beat and (not f[_NO_LANES] or not members[beat[0]][_NO_LANES] or n_loads + ld > loads or n_stores + st > stores):
            beats.append(beat)
            beat, n_loads, n_stores = [], 0, 0
        beat.append(k)
        n_loads, n_stores = n_loads + ld, n_stores + st
    if beat:
        beats.append(beat)
    return beats


def _beat_arrays(
    beat: Sequence[int], parts: Sequence[tuple[list[Record], int, int]], accesses: Callable[[Record, int], Accesses]
) -> tuple[Any, Any, Any, Any, Any]:
    """One beat's accesses over every stacked iteration (`accesses`: a call's, as `_accesses` makes them): (the call's
    index in the beat, is a write, first bytes, ends, rows)."""
    ident, write, sizes, lo, hi, at, first = [], [], [], [], [], [], []
    for seg, rows, offset in parts:
        for i, k in enumerate(beat):
            for w, a, b, r in accesses(seg[k], rows):
                ident.append(i)
                write.append(w)
                sizes.append(len(a))
                lo.append(a)
                hi.append(b)
                at.append(r)
                first.append(offset)
    lo_all, hi_all = np.concatenate(lo).astype(np.int64, copy=False), np.concatenate(hi).astype(np.int64, copy=False)
    rows_of = np.concatenate([np.zeros(n, np.int64) if r is None else r for r, n in zip(at, sizes, strict=True)])
    if len(parts) > 1:  # (each part's rows after the parts before it)
        rows_of += np.repeat(np.array(first, np.int64), sizes)
    return (
        np.repeat(np.array(ident, np.int64), sizes),
        np.repeat(np.array(write, np.bool_), sizes),
        lo_all,
        hi_all,
        rows_of.astype(np.int64, copy=False),
    )


_FIRST, _END = operator.itemgetter(0), operator.itemgetter(1)
_SIDE = operator.attrgetter("write")  #: a `Record.spans` entry's side


def _ranges_lists(beat: Sequence[int], parts: Sequence[tuple[list[Record], int, int]]) -> tuple[Any, Any, Any, Any, Any]:
    """`_beat_arrays` of in-order calls, as lists: their `reads`, then their `writes`, each range one access of its
    part's row."""
    ident: list[int] = []
    write: list[bool] = []
    at: list[int] = []
    ranges: list[tuple[int, int]] = []  # (every call's ranges in turn: split in two at the end)
    for seg, _, offset in parts:
        for i, k in enumerate(beat):
            r = seg[k]
            for w, got in ((False, r.reads), (True, r.writes)):
                if got:
                    n = len(got)
                    ranges += got
                    ident += [i] * n
                    write += [w] * n
                    at += [offset] * n
    lo, hi = map(list, zip(*ranges, strict=True)) if ranges else ([], [])
    return ident, write, lo, hi, at


def _geometry(table: CostTable) -> tuple[banks.Geometry, int, int, float, dict[str, float], float]:
    """The UB's bank geometry, a beat's loads and stores, a mask instruction's cycles, the compute instructions' (by API,
    filled as they are met) and a VF's launch cycles, by the table (made once a table: kept on it)."""
    if table.derived is None:
        sizes = (table[f"ub.{k}"] for k in ("bank_groups", "banks_per_group", "row_bytes", "subbank_bytes"))
        loads, stores = int(table["ub.beat_loads"]), int(table["ub.beat_stores"])
        launch = float(table["vf.launch_cycles"])
        table.derived = (banks.Geometry(*sizes), loads, stores, float(table["mask.cycles"]), {}, launch)
    return table.derived  # type: ignore[no-any-return]


def kept_vf_cost(records: Sequence[Record], table: CostTable) -> VfCost:
    """`vf_cost`, kept by what it reads of the records (`_content`: a VF run again on the same layout, whatever its data,
    makes the same), each VF given its own copy; the last `_VFS_KEPT` kept. What does not depend on the layout
    (`_shape`) is kept by the records' shape alone: a VF on a new layout has only its beats priced. A VF with a gather
    or scatter, or a batched access not an exact box, is priced each time."""
    facts, where = _content(records)
    if where is None:
        return _priced(_shape(facts, table), records, table)
    key = (table, facts, where)
    hit = _VFS.get(key)
    if hit is None:
        shape = _SHAPES.get(key[:2])
        if shape is None:
            shape = _SHAPES[key[:2]] = _shape(facts, table)
            if len(_SHAPES) > _VFS_KEPT:
                del _SHAPES[next(iter(_SHAPES))]
        hit = _VFS[key] = _priced(shape, records, table)
        if len(_VFS) > _VFS_KEPT:
            del _VFS[next(iter(_VFS))]
    return _copied(hit)


def _content(records: Sequence[Record]) -> tuple[tuple[Facts, ...], tuple[Any, ...] | None]:
    """What `vf_cost` reads of each record, as (its shape, where it is): the shape what `_shape` reads (each call's
    `Facts`: its loop segment numbered as the iteration numbers change, a batched call's `Affine` by identity), where
    it is the rest (a call's UB ranges, or a batched call's boxes); where None when a record holds arrays (a gather's
    lanes, a batched access not an exact box)."""
    shape: list[Facts] = []
    where: list[tuple[Any, ...]] | None = []
    seen: Any = None
    key: Any = object()
    segment = 0
    for r in records:
        if r.iteration is not seen:
            seen = r.iteration
            k = _iteration_key(seen)
            if k != key:
                segment += 1
            key = k
        reads, writes = r.reads, r.writes
        if not (reads or writes):
            shape.append((segment, r.api, r.family, r.rows, r.line))
            continue
        points = r.points
        if points or (r.spans and None in r.boxes):
            where = None
        if r.spans:  # (a batched call: its boxes, whose rows make its ranges' extents)
            shape.append((segment, r.api, r.family, r.rows, r.line, not reads, not writes, not points, *map(_SIDE, r.spans)))
            if where is not None:
                where.append(tuple(r.boxes))
        else:
            shape.append((segment, r.api, r.family, r.rows, r.line, not reads, not writes, not points))
            if where is not None:
                where.append((tuple(reads), tuple(writes)))
    return tuple(shape), None if where is None else tuple(where)


_VFS: dict[tuple[Any, ...], VfCost] = {}  #: `kept_vf_cost`'s, by table and content
_VFS_KEPT = 256


class _Shape(NamedTuple):
    """What `vf_cost` makes of a VF's records whatever the UB addresses they access (`_shape`)."""

    name: str  #: the first call's kernel line
    counts: dict[str, int]  #: instructions by unit
    compute: float  #: the compute instructions' cycles
    mask: float  #: the mask instructions' cycles
    moved: list[int]  #: the calls reading or writing the UB (their records' indices)
    groups: list[_Group]  #: `_stacked`'s load and store calls


class _Group(NamedTuple):
    """One of `_stacked`'s groups of iterations making the same load and store calls, by record index."""

    members: list[int]  #: the first iteration's calls
    parts: list[tuple[list[int], int, int]]  #: (an iteration's or batch's calls, its rows, its first row)
    beats: list[list[int]]  #: `_pack`'s beats of the members (their indices among them)
    names: list[str]  #: each member's "API at line"
    #: per beat, where it is one batched call's (its group's one part, of rows): each access as (its call's index in the
    #: beat, its record's index, its span's index, is a write), its box read when priced (`banks.kept_affine_beat`)
    boxed: list[list[tuple[int, int, int, bool]] | None]


_SHAPES: dict[tuple[Any, ...], _Shape] = {}  #: `kept_vf_cost`'s shapes, by table and the content's shape (the last `_VFS_KEPT`)


def vf_cost(records: Sequence[Record], table: CostTable) -> VfCost:
    """Count, price and check for bank conflicts the traced calls of one vector function run."""
    return _priced(_shape(_content(records)[0], table), records, table)


def _shape(facts: Sequence[Facts], table: CostTable) -> _Shape:
    """`vf_cost`'s counts, compute and mask cycles, and beats (which calls access the UB together), which read no UB
    address: made from the records' `Facts` alone."""
    _, beat_loads, beat_stores, mask_cycles, op_cycles, _ = _geometry(table)
    counts = dict.fromkeys(UNITS, 0)
    compute = mask = 0.0
    memory_calls: set[int] = set()  # (the load and store calls' records, by index)
    moved = []
    for k, f in enumerate(facts):
        u = unit(f)
        rows = f[_ROWS]
        counts[u] += rows
        if u == "load" or u == "store":
            memory_calls.add(k)
        elif u == "vector":
            api = f[_API]
            cost = op_cycles.get(api)
            if cost is None:
                cost = op_cycles[api] = table.op_cycles(api)
            compute += cost * rows
        elif u == "mask":
            mask += mask_cycles * rows
        if len(f) > _NO_READS:  # (a gather's lanes, or a batched call's rows, are read or written too)
            moved.append(k)
    groups = []
    for members, parts in _stacked(facts, memory_calls):
        calls = [facts[k] for k in members]
        beats = _pack(calls, beat_loads, beat_stores)
        boxed: list[list[tuple[int, int, int, bool]] | None] = [None] * len(beats)
        if len(parts) == 1 and parts[0][1] >= 2:  # (one batched call's beats: made of its calls' boxes where all are)
            for b, beat in enumerate(beats):
                made: list[tuple[int, int, int, bool]] = []
                for i, k in enumerate(beat):
                    f = calls[k]
                    if len(f) <= _SIDES or not f[_NO_LANES]:  # (an in-order call; a gather's or scatter's: its lanes)
                        break
                    for j, w in enumerate(f[_SIDES:]):
                        made.append((i, members[k], j, w))
                else:
                    boxed[b] = made
        names = [f"{f[_API]} at {f[_LINE]}" for f in calls]
        groups.append(_Group(members, parts, beats, names, boxed))
    return _Shape(facts[0][_LINE] if facts else "?", counts, compute, mask, moved, groups)


def _priced(shape: _Shape, records: Sequence[Record], table: CostTable) -> VfCost:
    """`vf_cost` of records of `shape`: their bytes and beats priced by the addresses they access."""
    geo, _, _, _, _, launch = _geometry(table)
    load_bytes = store_bytes = 0
    made: dict[tuple[int, int], Accesses] = {}

    def accesses(r: Record, rows: int) -> Accesses:  # (`_accesses`, made once a call: the counts and the beats read them)
        key = (id(r), rows)
        hit = made.get(key)
        if hit is None:
            hit = made[key] = _accesses(r, rows)
        return hit

    for k in shape.moved:
        r = records[k]
        rows = r.rows
        reads, writes = r.reads, r.writes
        if r.points:  # a gather's or scatter's active lanes
            moved = [(w, len(addrs) * size) for w, addrs, size in r.points]
        elif r.spans and None not in r.boxes:  # (each row one access of the box's width)
            for s, box in zip(r.spans, r.boxes, strict=True):
                if s.write:
                    store_bytes += box[2] * rows  # type: ignore[index]
                else:
                    load_bytes += box[2] * rows  # type: ignore[index]
            continue
        elif r.spans:
            moved = [(w, int((hi - lo).sum())) for w, lo, hi, _ in accesses(r, rows)]
        else:  # (an in-order call: its ranges)
            if reads:
                load_bytes += sum(map(_END, reads)) - sum(map(_FIRST, reads))
            if writes:
                store_bytes += sum(map(_END, writes)) - sum(map(_FIRST, writes))
            continue
        for w, n in moved:
            if w:
                store_bytes += n
            else:
                load_bytes += n
    conflicts: dict[tuple[str, tuple[str, ...]], list[Any]] = {}
    memory = beats_n = 0
    for group in shape.groups:
        members: list[Record] = []
        parts: list[tuple[list[Record], int, int]] = []  # (made when a beat is not one batched call's boxes)
        for beat, boxed in zip(group.beats, group.boxed, strict=True):
            results: list[banks.BeatResult | None] = [None]
            if boxed is not None:
                affine = []
                for i, k, j, w in boxed:
                    box = records[k].boxes[j]
                    if box is None:
                        break
                    affine.append((i, w, *box))
                else:
                    results = [banks.kept_affine_beat(geo, affine, group.parts[0][1])]
            if results[0] is None:
                if not parts:
                    members = [records[k] for k in group.members]
                    parts = [([records[k] for k in seg], rows, first) for seg, rows, first in group.parts]
                if members[beat[0]].points:  # a gather or scatter: each iteration on its own
                    results = [
                        banks.lanes(geo, 0, w, np.asarray(a, np.int64)) for seg, _, _ in parts for w, a, _ in seg[beat[0]].points
                    ]
                else:
                    rows = parts[0][1] if len(parts) == 1 else sum([rows for _, rows, _ in parts])
                    priced = None
                    if not any(seg[k].spans for seg, _, _ in parts for k in beat):  # (in-order calls)
                        priced = banks.kept_listed_beat(geo, *_ranges_lists(beat, parts), rows=rows)
                    results = [priced or banks.kept_beat(geo, *_beat_arrays(beat, parts, accesses), rows=rows)]
            for result in results:
                assert result is not None
                cycles, size, per_kind = banks.totals(result)
                memory += cycles
                beats_n += size
                for kind, n in zip(banks.KINDS, per_kind, strict=True):
                    if n:
                        addrs, who = result.examples[kind]
                        instrs = tuple([group.names[beat[i]] for i in who])
                        conflicts.setdefault((kind, instrs), [addrs, 0])[1] += n
    cycles = math.ceil(launch + max(memory, shape.compute, shape.mask))
    return VfCost(
        shape.name, dict(shape.counts), load_bytes, store_bytes, beats_n, memory, shape.compute, shape.mask, cycles, conflicts
    )


def _copied(v: VfCost) -> VfCost:
    """A VF's cost as another VF's own (its dicts and lists new)."""
    conflicts = {k: list(c) for k, c in v.conflicts.items()}
    return VfCost(
        v.name,
        dict(v.counts),
        v.load_bytes,
        v.store_bytes,
        v.beats,
        v.memory_cycles,
        v.compute_cycles,
        v.mask_cycles,
        v.cycles,
        conflicts,
    )


def _merge_conflicts(vfs: Sequence[VfCost]) -> list[BankConflict]:
    if len(vfs) == 1:  # (one VF's are its own totals)
        total = vfs[0].conflicts
    else:
        total = {}
        for v in vfs:
            for key, (addrs, n) in v.conflicts.items():
                entry = total.setdefault(key, [addrs, 0])
                entry[1] += n
    out = []
    for (kind, instrs), (addrs, n) in total.items():  # (each made once while kept: frozen, so shared)
        fields = (kind, instrs, tuple(addrs), n)
        made = _CONFLICTS.get(fields)
        if made is None:
            if len(_CONFLICTS) >= _CONFLICTS_KEPT:
                del _CONFLICTS[next(iter(_CONFLICTS))]
            made = _CONFLICTS[fields] = BankConflict(*fields)
        out.append(made)
    return out


_CONFLICTS: dict[tuple[str, tuple[str, ...], tuple[int, ...], int], BankConflict] = {}  #: `_merge_conflicts`'s, by fields
_CONFLICTS_KEPT = 256


# --- kernels ---------------------------------------------------------------------------------------------------
def _flag_key(label: str) -> str:
    """A set record's and its wait's common key: "SetFlag<MTE2_V>(0)" and "WaitFlag<MTE2_V>(0)" -> "<MTE2_V>(0)"."""
    for prefix in ("SetFlag", "WaitFlag"):
        if label.startswith(prefix):
            return label[len(prefix) :]
    return label


class Scheduled(NamedTuple):
    """One block's instructions on the modelled timeline (`schedule`)."""

    end: float  #: when its last instruction ends
    busy: dict[str, float]  #: busy cycles by pipe
    spans: list[Span]
    instructions: dict[str, int]  #: instructions by pipe (the access records' distinct numbers)
    #: bytes by pipe, in the order first met: what each pipe's instructions wrote, and what the scalar unit read
    moved: dict[str, int]


def schedule(block: int, events: Sequence[Row], vf_cycles: Mapping[int, float], table: CostTable) -> Scheduled:
    """Block `block`'s instructions on the modelled timeline, from its pipe records (`PipeEvent`s, or the rows of
    their fields a core logs). An instruction is its pipe's consecutive access records of one number; a sync record
    (set, wait, barrier) is one alone."""
    issue = float(table["scalar.instr_cycles"])
    vector_bytes = float(table["vector.bytes_per_cycle"])
    mte = {
        p: (float(table[f"{p.lower()}.latency_cycles"]), float(table[f"{p.lower()}.bytes_per_cycle"])) for p in ("MTE2", "MTE3")
    }
    bypass = float(table["mte2.l2_bypass_speedup"])
    scalar_gm, scalar_ub = float(table["scalar.gm_access_cycles"]), float(table["scalar.ub_access_cycles"])
    free = dict.fromkeys(PIPES, 0.0)
    gate = dict.fromkeys(PIPES, 0.0)
    busy = dict.fromkeys(PIPES, 0.0)
    ends: dict[str, list[float]] = {p: [0.0] for p in PIPES}
    numbers: dict[str, set[int]] = {p: set() for p in PIPES}
    moved_by: dict[str, int] = {}
    flags: dict[str, collections.deque[float]] = collections.defaultdict(collections.deque)
    keys = _FLAG_KEYS
    recent: collections.deque[tuple[int, int, float]] = collections.deque(maxlen=32)  # UB accesses of V / MTE
    now = 0.0  # the scalar unit's clock: where it has issued up to
    spans: list[Span] = []
    i, n = 0, len(events)
    while i < n:
        p, kind, api, moved, line, _, _, _, instr, l2 = events[i]
        if kind == "set" or kind == "wait":
            key = keys.get(api)
            if key is None:
                key = keys[api] = _flag_key(api)
            if kind == "set":
                at = ends.get(p)
                flags[key].append(at[min(instr, len(at) - 1)] if at is not None else 0.0)
            else:
                queue = flags.get(key)
                t = queue.popleft() if queue else 0.0
                if p == "S":  # the scalar unit waits: every later instruction is issued after
                    if t > now:
                        now = t
                elif p in gate and t > gate[p]:
                    gate[p] = t
            now += issue
            i += 1
            continue
        if kind == "barrier":
            if p == "ALL":
                t = max(free.values())
                now = max(now, t)
                for q in gate:
                    gate[q] = t
            else:
                gate[p] = max(gate[p], free[p])
            now += issue
            i += 1
            continue
        j = i + 1  # (an access: its instruction's records, the bytes it moves their most, whether one bypasses L2)
        bypassing = l2 == "CACHE_MODE_DISABLE"
        while j < n and (e := events[j])[0] == p and e[8] == instr and (e[1] == "read" or e[1] == "write"):
            if e[3] > moved:
                moved = e[3]
            if e[9] == "CACHE_MODE_DISABLE":
                bypassing = True
            j += 1
        group = events[i:j]
        i = j
        if p == "V":
            cost = vf_cycles.get(instr)
            if cost is None:
                cost = np.ceil(moved / vector_bytes)
        elif p == "MTE2" or p == "MTE3":
            latency, bw = mte[p]
            if p == "MTE2" and bypassing:
                bw *= bypass
            cost = latency + moved / bw
        else:
            cost = scalar_gm if any(x[5].startswith("GM") for x in group) else scalar_ub
        start = free[p]  # (the latest of the pipe free, its gate and the scalar unit's issue)
        if gate[p] > start:
            start = gate[p]
        if now > start:
            start = now
        if p == "S":  # the compiler's own synchronisation of a scalar access: after what it depends on
            for lo, hi, end in recent:
                if end > start and any(x[5] == "UB" and x[6] < hi and lo < x[7] for x in group):
                    start = end
        end = start + cost
        free[p] = end
        busy[p] += cost
        ends[p].append(end)
        numbers[p].add(instr)
        if p == "S":
            now = end
            moved_by["S"] = moved_by.get("S", 0) + sum([x[3] for x in group])
        else:
            now += issue
            for _, kind, _, nbytes, _, space, lo, hi, _, _ in group:
                if space == "UB":
                    recent.append((lo, hi, end))
                if kind == "write":
                    moved_by[p] = moved_by.get(p, 0) + nbytes
        spans.append(Span(block, p, api, line, start, cost))
    instructions = {p: len(numbers[p]) for p in PIPES}
    return Scheduled(max(now, *free.values()), busy, spans, instructions, moved_by)


_FLAG_KEYS: dict[str, str] = {}  #: `_flag_key` by label (a kernel's labels are few)


# --- rs.profile ------------------------------------------------------------------------------------------------
def profile(
    F: Callable[..., Any],
    *args: Any,
    block_dim: int | None = None,
    cost_table: str | os.PathLike[str] | None = None,
    cost: Mapping[str, Any] | None = None,
    **kwargs: Any,
) -> Profile:
    """Run `F(*args, **kwargs)` (a `@rs.simd_vf` function, or an `@rs.kernel` launched on `block_dim` cores) and
    model its cost on the 950 (see the module's docstring)."""
    table = load(cost_table, cost)
    if isinstance(F, Kernel):
        if block_dim is None:
            raise ParameterError(message("profile", "block_dim", "None", "the number of blocks to launch the kernel on"))
        if kwargs.get("workers") is not None:
            raise ParameterError(
                message("profile", "workers", repr(kwargs["workers"]), "None: a profiled kernel runs in this process")
            )
        kwargs.pop("workers", None)
        k = F
        p = profile_call(lambda: launch(k, block_dim, *args, **kwargs), F.name, table)[1]
    else:
        p = profile_call(lambda: F(*args, **kwargs), getattr(F, "__name__", repr(F)), table)[1]
    p.registers = registers.of_run(F, [v.name for v in p.vfs], table)
    return p


def profile_call(f: Callable[[], Any], name: str, table: CostTable | None = None) -> tuple[Any, Profile]:
    """Run `f()` under a detailed trace: (what it returned, its profile: the launch's when it returned a
    `KernelRun`, else the vector functions it ran)."""
    owners: list[tuple[int, int, int, int]] = []  # per VF run: (block, V instruction, first record, end)

    def vf_done(start: int, end: int) -> None:
        block = _BLOCK.get()
        owners.append((-1, 0, start, end) if block is None else (block.idx, block.pipes.issued[V], start, end))

    with Tracing(Trace(detailed=True, timed=False)) as t:  # (its records' host times never shown: not taken)
        t.on_vf_end = vf_done
        result = f()
    run = result if isinstance(result, KernelRun) else None
    return result, _build(name, t, owners, run, table or load())


def _build(name: str, t: Trace, owners: Sequence[tuple[int, int, int, int]], run: KernelRun | None, table: CostTable) -> Profile:
    priced: dict[tuple[int, ...], VfCost] = {}  # (a VF given the same records as another, priced once)
    vfs = []
    for _, _, a, b in owners:
        key = tuple(map(id, t.records[a:b]))  # (the trace holds every record: an id is no other's)
        hit = priced.get(key)
        if hit is None:
            vfs.append(priced.setdefault(key, kept_vf_cost(t.records[a:b], table)))
        else:  # (each VF its own copy)
            vfs.append(_copied(hit))
    counts = dict.fromkeys(UNITS, 0)
    nbytes = {"load": 0, "store": 0}
    for v in vfs:
        nbytes["load"] += v.load_bytes
        nbytes["store"] += v.store_bytes
        for k, n in v.counts.items():
            counts[k] += n
    spans: list[Span] = []
    if run is None:
        start = 0.0
        for v in vfs:
            spans.append(Span(0, "V", "vector function", v.name, start, v.cycles))
            start += v.cycles
        cycles, pipe_cycles = int(start), {"V": start}
    else:
        per_block: dict[int, dict[int, float]] = collections.defaultdict(dict)
        for (block, instr, _, _), v in zip(owners, vfs, strict=True):
            per_block[block][instr] = per_block[block].get(instr, 0.0) + v.cycles
        pipe_cycles = dict.fromkeys(PIPES, 0.0)
        instructions = dict.fromkeys(PIPES, 0)
        end_all = 0.0
        # (each block's records as its core logged them, no `PipeEvent` made, unless a worker sent them pickled)
        logs = run.events if any(isinstance(log, bytes) for log in run.logs) else run.logs
        for b, events in enumerate(logs):
            done = schedule(b, events, per_block[b], table)
            end_all = max(end_all, done.end)
            spans.extend(done.spans)
            for p, c in done.busy.items():
                pipe_cycles[p] += c
            for p, got in done.instructions.items():
                instructions[p] += got
            for p, got in done.moved.items():
                nbytes[p] = nbytes.get(p, 0) + got
        counts.update(instructions)
        cycles = int(np.ceil(end_all))
    return Profile(name, counts, nbytes, _merge_conflicts(vfs), cycles, pipe_cycles, vfs, spans, table, run=run)
