"""Register pressure: the registers of each file live at each statement of a vector function, against the 950's
register files (the cost table's `registers.*`).

Liveness is computed over the VF's code (vfcode.py), not over the traced calls: a value is live from the call
that writes it to the last call that may read it, on any path, a loop's body live around its back edge (a
value read in the next iteration), a branch's arms both. A call that writes a register fully (`OUT`) ends the
value it held; one that reads and writes it (`INOUT`, MERGING) keeps it. At a statement the pressure of a file
is the larger of what is live before it and what is live after it together with what it writes (a destination
takes a register even where it is never read). A RegTensor with RegTraitNumTwo takes two registers.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import attrs

from regsim._src.cost.table import CostTable, load
from regsim._src.cost.vfcode import KINDS, Node, VfCode, of_function


@attrs.frozen
class Peak:
    """The most registers of one file live at once in a VF, and where."""

    kind: str  #: "RegTensor", "MaskReg", "UnalignRegForLoad", "UnalignRegForStore", "AddrReg"
    peak: int
    limit: int  #: the file's size (the cost table's `registers.<kind>`)
    lines: tuple[str, ...]  #: "file:line" of each statement where it peaks
    live: tuple[str, ...]  #: the registers live at the first of them

    @property
    def over(self) -> bool:
        return self.peak > self.limit

    def __str__(self) -> str:
        where = ", ".join(self.lines[:4]) + (" ..." if len(self.lines) > 4 else "")
        return f"{self.kind} {self.peak}/{self.limit} at {where} ({', '.join(self.live)})"


@attrs.frozen
class Pressure:
    """A VF's register pressure: its peak by file, and the counts at each statement's line."""

    vf: str
    file: str
    line: int
    peaks: Mapping[str, Peak]
    points: tuple[tuple[int, Mapping[str, int]], ...]  #: (line, registers live by file), in source order

    @property
    def over(self) -> list[Peak]:
        """The files the VF needs more registers of than the 950 has."""
        return [p for p in self.peaks.values() if p.over]

    def __str__(self) -> str:
        used = [str(p) for p in self.peaks.values() if p.peak]
        return f"{self.vf} ({self.file}:{self.line}): " + ("; ".join(used) or "no registers")


def _reg_reads(n: Node, held: set[str]) -> set[str]:
    if n.what != "stmt":
        return n.reads & held
    return set().union(*(c.reads for c in n.calls)) & held if n.calls else n.reads & held


def _reg_writes(n: Node, held: set[str]) -> tuple[set[str], set[str]]:
    """(registers written, registers whose value the statement ends: written and not read)."""
    written = set().union(*(c.writes for c in n.calls)) & held if n.calls else set()
    return written, written - _reg_reads(n, held)


class _Liveness:
    """Backward liveness over a VF's statements, keeping at each statement (live before, live after + written)."""

    def __init__(self, code: VfCode) -> None:
        self.held = set(code.registers)
        self.points: dict[int, tuple[int, set[str], set[str]]] = {}  # statement id -> (line, before, after + written)

    def block(self, nodes: list[Node], out: set[str], record: bool) -> set[str]:
        live = set(out)
        for n in reversed(nodes):
            live = self.node(n, live, record)
        return live

    def node(self, n: Node, out: set[str], record: bool) -> set[str]:
        if n.what in ("for", "while", "do"):
            carried: set[str] = set()
            while True:  # to the fixed point: what the body needs at its start is live at its end
                inside = self.block(n.body, out | carried, False)
                if inside <= carried:
                    break
                carried |= inside
            self.block(n.body, out | carried, record)
            return out | carried | _reg_reads(n, self.held)
        if n.what in ("if", "switch"):
            return self.block(n.body, out, record) | self.block(n.orelse, out, record) | _reg_reads(n, self.held)
        written, ended = _reg_writes(n, self.held)
        live = (out - ended) | _reg_reads(n, self.held)
        if record:
            self.points[id(n)] = (n.line, live, out | written)
        return live


def pressure(code: VfCode, table: CostTable | None = None) -> Pressure:
    """The register pressure of a VF's code against the cost table's register files."""
    table = table or load()
    sizes = {r.name: (r.kind, r.size) for r in code.registers.values()}
    lv = _Liveness(code)
    lv.block(code.body, code.register_params, True)

    def count(names: set[str], kind: str) -> int:
        return sum(sizes[n][1] for n in names if sizes[n][0] == kind)

    points = sorted(lv.points.values(), key=lambda p: p[0])
    counts = [{k: max(count(before, k), count(after, k)) for k in KINDS} for _, before, after in points]
    peaks = {}
    for kind in KINDS:
        top = max((c[kind] for c in counts), default=0)
        at = [p for p, c in zip(points, counts, strict=True) if top and c[kind] == top]
        side = max(at[0][1:], key=lambda names: count(names, kind)) if at else set()  # (the registers live together)
        live = tuple(sorted(n for n in side if sizes[n][0] == kind))
        lines = tuple(dict.fromkeys(f"{Path(code.file).name}:{line}" for line, _, _ in at))
        peaks[kind] = Peak(kind, top, int(table[f"registers.{kind}"]), lines, live)
    return Pressure(code.name, code.file, code.line, peaks, tuple((p[0], c) for p, c in zip(points, counts, strict=True)))


class Registers(tuple[Pressure, ...]):
    """The register pressure of each vector function a profile ran (`Profile.registers`)."""

    @property
    def over(self) -> list[Peak]:
        return [p for vf in self for p in vf.over]

    def __str__(self) -> str:
        return "; ".join(str(p) for p in self) or "none counted (no @rs.simd_vf function of the caller's ran)"


def of_run(F: Callable[..., Any], lines: Iterable[str], table: CostTable | None = None) -> Registers:
    """The pressure of what `rs.profile(F, ...)` ran: `F` itself, a `@rs.simd_vf` function; for a kernel, the
    `@rs.simd_vf` functions of its module whose lines hold one of the traced calls' `lines` ("file.py:27")."""
    given, vf = table, getattr(F, "__regsim_vf_body__", None) is not None
    if vf:
        kept = _OF_VF.get(id(F))  # (a VF's pressure is its own whatever lines it ran: kept by the VF and the table)
        if kept is not None and kept[0] is F and kept[1] is given:
            return kept[2]
        candidates = [F]
    else:
        namespace = getattr(inspect.unwrap(getattr(F, "f", F)), "__globals__", {})
        candidates = [v for v in namespace.values() if getattr(v, "__regsim_vf_body__", None) is not None]
    seen = set(lines)
    table = table or load()
    sizes = tuple(int(table[f"registers.{kind}"]) for kind in KINDS)
    out = []
    for f in candidates:
        code, first, n = _code_of(f)
        if code is None:
            continue
        if f is not F:
            name = Path(code.file).name
            if not any(f"{name}:{k}" in seen for k in range(first, first + n)):
                continue
        key = (id(code), sizes)
        hit = _PRESSURES.get(key)
        if hit is None:
            hit = _PRESSURES[key] = (code, pressure(code, table))
        out.append(hit[1])
    if vf:
        _OF_VF[id(F)] = (F, given, Registers(out))
    return Registers(out)


def _code_of(f: Callable[..., Any]) -> tuple[VfCode | None, int, int]:
    """A `@rs.simd_vf` function's code, first line and line count, its source read and parsed once (by its
    body's code object)."""
    body = inspect.unwrap(f)
    key = getattr(body, "__code__", None)
    hit = _CODES.get(id(key))
    if hit is None or hit[0] is not key:
        code = of_function(f)
        first, n = (body.__code__.co_firstlineno, len(inspect.getsourcelines(body)[0])) if code is not None else (0, 0)
        hit = _CODES[id(key)] = (key, code, first, n)
    return hit[1], hit[2], hit[3]


#: a VF's code, first line and line count by its body's code object's id (with the code object, so an id is never
#: taken for another's)
_CODES: dict[int, tuple[Any, VfCode | None, int, int]] = {}
#: `of_run` of a VF by its id, with the VF and the table it was given (so an id is never taken for another's)
_OF_VF: dict[int, tuple[Any, CostTable | None, Registers]] = {}
#: a VF's pressure by (its code's id, the register files' sizes) (with the code, so an id is never reused)
_PRESSURES: dict[tuple[int, tuple[int, ...]], tuple[VfCode, Pressure]] = {}
