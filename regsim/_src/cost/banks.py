"""The 950 UB's banks, as the page "避免bank冲突（NPU架构版本3510）" describes them, and the conflicts of the
accesses a vector function makes together.

- The UB is `ub.bank_groups` (8) bank groups of `ub.banks_per_group` (2) banks; rows of `ub.row_bytes` (32) B,
  low-bit interleaved: `UB_ADDR = {BANK_DEPTH[8:0], BANK[0], BG[2:0], BANK_WIDTH[4:0]}`, so the 32 B row at
  address a is in group (a >> 5) & 7, bank (a >> 8) & 1, depth a >> 9.
- A bank does one read or one write a cycle; a bank group at most two reads, or one read and one write.
- A *beat* is what the model takes to access the UB together: a vector function's loads and stores, in program
  order within one loop iteration, packed into beats of at most `ub.beat_loads` (2) loads and `ub.beat_stores`
  (1) store (the page's "2读" / "1读1写", and the 二读一写 the bank_conflict_3510 sample measures). A
  gather or scatter is a beat of its own, seen by 8 B subbank.
- In a beat, reads of the same 32 B row are one read (the page: 起始地址重叠时，硬件会将指令优化为一条). The
  conflicts, by the page's three kinds: read-read (two reads of one bank, or more than two in one group),
  read-write (a read and a write in one bank, or two reads and a write in one group), write-write (two writes
  in one group). A gather's or scatter's lanes conflict when different 8 B words fall in the same subbank
  number of one group (the page: 同一subbank的不同起始地址 conflict, the same address does not).
- A beat takes the cycles its busiest group needs: per bank one access a cycle; per group a write a cycle
  (with at most one read beside it), the other reads two a cycle. A beat with no conflict takes one.
- A row (iteration) of a beat whose accesses are another's moved by whole 32 B rows has its cycles and kinds: the
  move permutes the bank groups (a 32 B row on, group g's rows are group g + 1's; past the last group, the next
  bank's in group 0), a group's banks among themselves, which rules the same for every group and every bank do not
  see. Only its examples' addresses differ, and they come from the first row having each kind. So such rows are
  judged once (`_period`, `affine_beat`, `kept_listed_beat`).
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
import operator
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

KINDS = ("read-read", "read-write", "write-write")

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
#: per kind: (the byte addresses of the rows or words involved, the accesses involved)
Examples = dict[str, tuple[tuple[int, ...], tuple[int, ...]]]


class Geometry(NamedTuple):
    groups: int = 8
    banks: int = 2
    row: int = 32
    sub: int = 8

    def decode(self, addr: int) -> tuple[int, int, int]:
        """(bank group, bank, depth) of UB byte `addr`."""
        r = addr // self.row
        return r % self.groups, (r // self.groups) % self.banks, r // (self.groups * self.banks)


#: a beat's rows as a few judged rows repeated: (their cycles, their kinds as bits 0-2, how many, the beat's rows)
Judged = tuple[list[int], list[int], int, int]


class BeatResult:
    """One beat's conflicts: per row (iteration) its cycles and kinds, the examples, and its totals. A result judged
    for a few rows and repeated (`_repeated`) makes its rows' arrays when they are first read (a profile reads only
    the totals and the examples)."""

    __slots__ = ("_cycles", "_judged", "_kinds", "examples", "summed")

    def __init__(
        self,
        cycles: Ints | None,
        kinds: Bools | None,
        examples: Examples,
        summed: tuple[int, int, tuple[int, ...]] | None = None,
        judged: Judged | None = None,
    ) -> None:
        self._cycles, self._kinds, self._judged = cycles, kinds, judged  # (`judged` given: the arrays None)
        #: per kind, the first row having it: (the byte addresses of the rows or words involved, the accesses involved)
        self.examples = examples
        #: `totals` of a kept or repeated result, made once (None: summed when asked for)
        self.summed = summed

    @property
    def cycles(self) -> Ints:
        """Per row of the beat: the cycles it takes."""
        if self._cycles is None:
            self._made()
        assert self._cycles is not None
        return self._cycles

    @property
    def kinds(self) -> Bools:
        """Rows x 3: which conflicts (KINDS) each row has."""
        if self._kinds is None:
            self._made()
        assert self._kinds is not None
        return self._kinds

    def _made(self) -> None:
        """The rows' arrays of a result judged for its first rows (read-only: a kept result's are shared)."""
        assert self._judged is not None
        cycles, kinds, period, rows = self._judged
        each, kind = np.array(cycles, np.int64), np.array(kinds, np.intp)
        if period < rows:
            repeat = _cyclic(rows, period)
            each, kind = each[repeat], kind[repeat]
        rows_kinds = _KIND_ROWS[kind]
        each.flags.writeable = rows_kinds.flags.writeable = False
        self._cycles, self._kinds = each, rows_kinds

    def moved(self, examples: Examples) -> BeatResult:
        """This result with other examples (its rows' arrays shared where made)."""
        return BeatResult(self._cycles, self._kinds, examples, self.summed, self._judged)


def totals(result: BeatResult) -> tuple[int, int, tuple[int, ...]]:
    """A beat's cycles over its rows, its rows, and per kind (KINDS) the rows having it."""
    if result.summed is not None:
        return result.summed
    return int(result.cycles.sum()), result.cycles.size, tuple(result.kinds.sum(axis=0).tolist())


def _judge(reads: Ints, writes: Ints) -> tuple[Bools, Bools, Bools, Ints]:
    """The rules on a bank group's accesses (reads and writes by bank, banks the leading axis): whether it has a
    read-read, a read-write, a write-write conflict, and the cycles it needs."""
    r_g, w_g = reads.sum(0), writes.sum(0)
    rr = (reads >= 2).any(0) | (r_g > 2)
    rw = ((reads >= 1) & (writes >= 1)).any(0) | ((r_g >= 2) & (w_g >= 1))
    need = np.maximum((reads + writes).max(0), w_g + (np.maximum(r_g - w_g, 0) + 1) // 2)
    return rr, rw, w_g >= 2, need


_FEW = 4  #: counts below this (per bank, reads and writes) are judged from a table
_BITS = np.arange(3)[:, None, None]  # (the kinds' bits, broadcast over groups x rows)


@functools.cache
def _judged(banks: int) -> tuple[Ints, Ints]:
    """`_judge` of every group whose counts are below `_FEW`, by code (the counts as digits, reads of bank 0 first,
    then writes): its kinds as bits 0-2, its cycles from bit 3; and the digits' weights (a code: weights @ counts)."""
    weights = _FEW ** np.arange(2 * banks)
    digits = np.arange(_FEW ** (2 * banks))[None, :] // weights[:, None] % _FEW
    return _bits(digits[:banks], digits[banks:]), weights


def _bits(reads: Ints, writes: Ints) -> Ints:
    """`_judge`'s answer as one int: the kinds as bits 0-2, the cycles from bit 3."""
    rr, rw, ww, need = _judge(reads, writes)
    return rr | rw << 1 | ww << 2 | need << 3


_WIDE = 16  #: bits per count in `_few`'s codes (its beats have fewer than `_FEW_BLOCKS` 32 B rows a row)
_WIDE_TABLE = 8  #: counts below this are judged from `_wide`'s table (made once), the others by the rules


@functools.cache
def _wide(geo: Geometry) -> tuple[list[tuple[int, int]], dict[int, int]]:
    """`_few`'s tables: per (32 B row * 2 + is a write) modulo `2 * groups * banks`, its group and what it adds to the
    group's code (its count's digit: reads of bank 0 first, then writes, `_WIDE` bits each); and `_bits` of every
    group whose counts are below `_WIDE_TABLE`, by code."""
    cycle, digits = geo.groups * geo.banks, 2 * geo.banks
    adds = [(x % geo.groups, 1 << _WIDE * (w * geo.banks + x // geo.groups % geo.banks)) for x in range(cycle) for w in (0, 1)]
    counts = np.arange(_WIDE_TABLE**digits)[None, :] // _WIDE_TABLE ** np.arange(digits)[:, None] % _WIDE_TABLE
    codes = (counts << _WIDE * np.arange(digits)[:, None]).sum(0)
    return adds, dict(zip(codes.tolist(), _bits(counts[: geo.banks], counts[geo.banks :]).tolist(), strict=True))


def beat(geo: Geometry, ident: Ints, write: Bools, lo: Ints, hi: Ints, at: Ints, rows: int) -> BeatResult:
    """The conflicts of one beat made by `rows` iterations at once: its accesses, one array element each: the
    instruction making it (an index), whether it writes, its first byte, its end, the row (iteration) making it.

    Rows that repeat earlier ones moved by whole 32 B rows are not judged again (`_period`); a beat of few
    accesses is judged in Python ints (`_few`), a larger one by numpy (`_general`): the same rules."""
    period = _period(geo, ident, write, lo, hi, at, rows)
    if period < rows:  # (the first `period` rows judged, their results repeated)
        k = lo.size // rows
        ident, lo, hi, at = (a.reshape(k, rows)[:, :period].ravel() for a in (ident, lo, hi, at))
        write = write.reshape(k, rows)[:, :period].ravel()
    few = None
    if lo.size <= _FEW_ACCESSES:
        few = _few(geo, ident.tolist(), write.tolist(), lo.tolist(), hi.tolist(), at.tolist(), period)
    if few is not None:
        return _repeated(*few, period=period, rows=rows)
    first = _general(geo, ident, write, lo, hi, at, period)
    if period == rows:
        return first
    repeat = _cyclic(rows, period)
    return BeatResult(first.cycles[repeat], first.kinds[repeat], first.examples)


_FEW_ACCESSES = 160  #: a beat of at most this many accesses (and `_FEW_BLOCKS` 32 B rows) is judged in Python ints
_FEW_BLOCKS = 160  #: (past it numpy is faster; and a count fits `_WIDE` bits)
_KIND_ROWS = (np.arange(8)[:, None] >> np.arange(3) & 1).astype(np.bool_)  # (kinds as bits 0-2 -> a row of `kinds`)
#: per value of a row's kinds as bits (bit k: KINDS[k]), the indices of its kinds
_KINDS_OF = [tuple(k for k in range(len(KINDS)) if bits >> k & 1) for bits in range(1 << len(KINDS))]


def _period(geo: Geometry, ident: Ints, write: Bools, lo: Ints, hi: Ints, at: Ints, rows: int) -> int:
    """How many rows of the beat its rows repeat after, moved by whole 32 B rows (the same cycles and kinds: see the
    module's docstring): found for a beat whose every access is made by each row in turn (its rows 0, 1, ...), the
    same instruction and size each row, moved the same bytes a row (a batched loop's loads and stores of one stride);
    `rows` when not."""
    n = lo.size
    if rows < 3 or n % rows or at[1] != 1:
        return rows
    step = int(lo[1] - lo[0])
    period = geo.row // math.gcd(step, geo.row)
    if period >= rows:
        return rows
    made = np.vstack((ident, write, lo, hi, at)).astype(np.int64, copy=False).reshape(5, n // rows, rows)
    moves: Ints = np.array([0, 0, step, step, 1], np.int64)[:, None, None] * np.arange(rows)  # (what each row adds to row 0's)
    return period if (made[:, :, :1] + moves == made).all() and not at[::rows].any() else rows


def _few(
    geo: Geometry, ident: list[int], write: list[bool], lo: list[int], hi: list[int], at: list[int], rows: int
) -> tuple[list[int], list[int], Examples] | None:
    """`beat` in Python ints, row by row (for a beat of few accesses: numpy's fixed costs would dominate): each row's
    cycles and kinds (as bits 0-2), and the examples; None past `_FEW_BLOCKS` 32 B rows. Each group's counts are
    judged by `_wide`'s table while they are below `_WIDE_TABLE`, else by the rules themselves."""
    size, groups, nb = geo.row, geo.groups, geo.banks
    adds, table = _wide(geo)
    m = len(adds)
    cells: list[dict[int, int]] = [{} for _ in range(rows)]  # per row: 32 B row * 2 + is a write -> first access's ident
    # every access one stripe of the groups (a multiple of `groups` 32 B rows on, as wide): each group has a 32 B row of
    # each, in the bank the stripe is in, so every group's counts are alike: group 0's alone judged (its first cell's
    # key) give the row's cycles, kinds and examples (the first group having a kind: group 0)
    stripe = size * groups
    striped = (  # (the first access's width tells most beats apart; then every access's, and their starts)
        bool(lo)
        and hi[0] - lo[0] == stripe
        and set(map(operator.sub, hi, lo)) == {stripe}
        and not any(map(operator.mod, lo, [stripe] * len(lo)))
    )
    if striped:  # (each access `groups` 32 B rows, its first cell alone made)
        if groups * len(lo) > _FEW_BLOCKS:
            return None
        for i, w, a, r in zip(ident, write, lo, at, strict=True):
            cells[r].setdefault(a // size * 2 + w, i)
    made = 0  # (32 B rows made twice)
    for i, w, a, b, r in () if striped else zip(ident, write, lo, hi, at, strict=True):
        first, last = a // size * 2 + w, (b - 1) // size * 2 + w  # (the earlier accesses' idents kept)
        if first == last:
            cells[r].setdefault(first, i)
        else:
            cells[r] = {**dict.fromkeys(range(first, last + 1, 2), i), **cells[r]}
        made += last - first + 2
        if made > 2 * _FEW_BLOCKS:
            return None
    cycles, kinds = [], []
    examples: Examples = {}
    mask = (1 << _WIDE) - 1
    judged = 1 if striped else groups  # (striped: group 0's counts, every group's)
    for row in cells:
        codes = [0] * judged  # per group: its counts as `_WIDE`-bit digits
        for key in row:
            g, add = adds[key % m]
            codes[g] += add
        try:
            bits = [table[c] for c in codes]
        except KeyError:  # (a count of `_WIDE_TABLE` or more)
            digits = [[c >> _WIDE * d & mask for d in range(2 * nb)] for c in codes]
            bits = [int(_bits(np.array(d[:nb]), np.array(d[nb:]))) for d in digits]
        cycles.append(max(max(bits) >> 3, 1))
        has = functools.reduce(operator.or_, bits) & 7
        kinds.append(has)
        if not has or len(examples) == len(KINDS):
            continue
        ordered: list[int] | None = None  # (the row's cells sorted: when a kind is met)
        for k, kind in enumerate(KINDS):
            if has >> k & 1 and kind not in examples:  # (the kind's first row, its first group there)
                g = 0
                while not bits[g] >> k & 1:
                    g += 1
                ordered = ordered or sorted(row)
                side = -1 if k == 1 else k >> 1  # (read-write: either; else reads, or writes)
                addrs, who = [], set()
                for key in ordered:
                    if (key >> 1) % groups == g and (side < 0 or key & 1 == side):
                        addrs.append((key >> 1) * size)
                        who.add(row[key])
                examples[kind] = (tuple(addrs), tuple(sorted(who)))
    if rows > 1:  # (by kind, as `_general` gives them: one row's are met in KINDS' order)
        examples = {k: examples[k] for k in KINDS if k in examples}
    return cycles, kinds, examples


def _general(geo: Geometry, ident: Ints, write: Bools, lo: Ints, hi: Ints, at: Ints, rows: int) -> BeatResult:
    """`beat` in numpy, every row at once."""
    first = lo // geo.row
    more = (hi - 1) // geo.row - first  # the 32 B rows each access touches (past its first), listed one element each
    width, narrowest = int(more.max()) + 1, int(more.min()) + 1
    if narrowest == width:  # (the common case: accesses of one size)
        blk: Ints = (first[:, None] + np.arange(width, dtype=np.int64)).ravel() if width > 1 else first
        reps: Any = width
    else:
        n = more + 1
        blk, reps = np.repeat(first, n) + (np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)), n
    cycle = geo.groups * geo.banks  # (a 32 B row's group and bank: its number modulo this)
    span = -(-(int(first.max()) + width) // cycle) * cycle  # (above every row number, a multiple of `cycle`)
    if width > 1:
        at, write = np.repeat(at, reps), np.repeat(write, reps)
    key = (at * span + blk) * 2 + write
    order = np.argsort(key, kind="stable")  # a row read twice in a beat is one read: the first of equal keys kept
    sorted_key = key[order]
    keep = np.empty(sorted_key.size, np.bool_)
    keep[0] = True
    np.not_equal(sorted_key[1:], sorted_key[:-1], out=keep[1:])
    key = sorted_key[keep]
    w, at_blk = key & 1, key >> 1
    row = at_blk // span
    # counts by (read or write, bank, group, row): every reduction below runs over a leading axis (numpy's fast one)
    cell = (w * cycle + at_blk % cycle) * rows + row
    counts = np.bincount(cell, minlength=2 * cycle * rows).reshape(2 * geo.banks, geo.groups * rows)
    if int(counts.max()) < _FEW:  # (the common case: each group's counts a code, judged once for every code)
        table, digits = _judged(geo.banks)
        judged = table[digits @ counts].reshape(geo.groups, rows)
        per_kind = (judged >> _BITS) & 1 != 0
        need = judged >> 3
    else:
        reads, writes = counts.reshape(2, geo.banks, geo.groups, rows)
        *kinds_of, need = _judge(reads, writes)
        per_kind = np.stack(kinds_of)
    cycles = np.maximum(need.max(0), 1)
    kinds: Bools = np.ascontiguousarray(per_kind.any(1).T)  # rows x 3
    examples: Examples = {}
    present = np.flatnonzero(kinds.any(0)).tolist()
    if present:  # each kind's first row having it, and its first group there: the accesses involved, as Python values
        blk, group = at_blk - row * span, at_blk % geo.groups
        ident_of = (np.repeat(ident, reps) if width > 1 else ident)[order[keep]]
        first_rows = kinds.argmax(0)
        groups = per_kind[np.arange(3), :, first_rows].argmax(-1).tolist()
        starts, ends = np.searchsorted(row, first_rows).tolist(), np.searchsorted(row, first_rows + 1).tolist()
        for k in present:  # (sorted by row)
            a, b = starts[k], ends[k]
            them = zip(blk[a:b].tolist(), group[a:b].tolist(), w[a:b].tolist(), ident_of[a:b].tolist(), strict=True)
            picked = [(x, i) for x, g, wr, i in them if g == groups[k] and (k == 1 or wr == (k == 2))]
            examples[KINDS[k]] = (tuple(x * geo.row for x, _ in picked), tuple(sorted({i for _, i in picked})))
    return BeatResult(cycles, kinds, examples)


def affine_beat(geo: Geometry, accesses: list[tuple[int, bool, int, int, int]], rows: int) -> BeatResult | None:
    """`beat` of `rows` rows each making every access (instruction, is a write, start, step, width): row b's bytes
    [start + b * step, + width), without making its arrays: its rows repeating after `_period`'s rows when every
    step is one, judged by `_few`; None (make the arrays) past `_FEW_ACCESSES` accesses to judge."""
    ident, write, lo, steps, width = map(list, zip(*accesses, strict=True))
    step = steps[0]
    period = min(rows, geo.row // math.gcd(step, geo.row)) if steps.count(step) == len(steps) else rows
    if len(accesses) * period > _FEW_ACCESSES:
        return None
    if period == 1:  # (the rows all alike: row 0's accesses)
        hi, at = list(map(operator.add, lo, width)), [0] * len(accesses)
    else:
        rows_of = range(period)
        made = [(i, w, start + b * step, start + b * step + width, b) for i, w, start, step, width in accesses for b in rows_of]
        ident, write, lo, hi, at = (list(x) for x in zip(*made, strict=True))
    few = _few(geo, ident, write, lo, hi, at, period)
    return None if few is None else _repeated(*few, period, rows)


def _repeated(cycles: list[int], kinds: list[int], examples: Examples, period: int, rows: int) -> BeatResult:
    """`_few`'s answer for the first `period` rows as `rows` rows' (the first ones repeated), summed here (row j of
    the first `period` stands for the `rows // period` repeats, and one more for j < `rows % period`)."""
    whole, part = divmod(rows, period)
    per_kind = [0] * len(KINDS)
    for j, bits in enumerate(kinds):  # (row j's kinds, counted for each row it stands for: bit k, KINDS[k])
        if bits:
            n = whole + (j < part)
            for k in _KINDS_OF[bits]:
                per_kind[k] += n
    total = whole * sum(cycles) + sum(cycles[:part])
    return BeatResult(None, None, examples, (total, rows, tuple(per_kind)), (cycles, kinds, period, rows))


@functools.lru_cache(maxsize=64)
def _cyclic(rows: int, period: int) -> Ints:
    """0, 1, ..., period - 1, 0, 1, ... for `rows` rows (read-only, shared)."""
    index = np.arange(rows) % period
    index.flags.writeable = False
    return index


def kept_beat(geo: Geometry, ident: Ints, write: Bools, lo: Ints, hi: Ints, at: Ints, rows: int) -> BeatResult:
    """`beat`, kept by its accesses relative to the bank pattern: accesses moved by a multiple of `groups * banks`
    rows of 32 B touch the same groups and banks, and the same rows as each other, so they have the same cycles and
    kinds, their examples' addresses moved as much. A VF profiled again on the same layout (whatever its data), or
    run again on it inside a kernel, is priced from the kept result; the last `_BEATS_KEPT` are kept, each of at most
    `_BEAT_KEPT_SIZE` accesses."""
    if lo.size > _BEAT_KEPT_SIZE:
        return beat(geo, ident, write, lo, hi, at, rows)
    base = _pattern_base(geo, int(lo.min()))
    lo, hi = lo - base, hi - base
    key = (geo, rows, *((a.dtype.str, a.tobytes()) for a in (ident, write, lo, hi, at)))
    kept = _kept(key, base, lambda: beat(geo, ident, write, lo, hi, at, rows))
    assert kept is not None  # (`beat` makes one)
    return kept


def kept_listed_beat(
    geo: Geometry, ident: list[int], write: list[bool], lo: list[int], hi: list[int], at: list[int], rows: int
) -> BeatResult:
    """`kept_beat` of a beat given as Python lists (an in-order loop's calls, a few ranges each), listed row by row,
    kept by the same accesses relative to the bank pattern: the first row of each class of rows alike (`_alike`)
    judged by `_few` with no arrays made, the others given its answer; `kept_beat` of its arrays past
    `_FEW_ACCESSES` accesses (or `_FEW_BLOCKS` 32 B rows)."""
    if len(lo) > _FEW_ACCESSES:
        return kept_beat(geo, *_arrays(ident, write, lo, hi, at), rows=rows)
    base = _pattern_base(geo, min(lo))
    if base:
        lo, hi = [a - base for a in lo], [b - base for b in hi]
    key = (geo, rows, "listed", tuple(ident), tuple(write), tuple(lo), tuple(hi), tuple(at))

    def make() -> BeatResult:
        classes, firsts = _alike(geo, ident, write, lo, hi, at, rows)
        few = _few(geo, *firsts, max(classes) + 1)
        if few is None:
            return beat(geo, *_arrays(ident, write, lo, hi, at), rows=rows)
        cycles, kinds, examples = few  # (the first rows', in order: each kind's first row is one of them)
        if len(cycles) == 1:  # (every row alike: row 0's repeated)
            return _repeated(cycles, kinds, examples, period=1, rows=rows)
        return _repeated([cycles[c] for c in classes], [kinds[c] for c in classes], examples, period=rows, rows=rows)

    kept = _kept(key, base, make)
    assert kept is not None  # (`make` makes one)
    return kept


Listed = tuple[list[int], list[bool], list[int], list[int], list[int]]  #: a beat as lists: ident, write, lo, hi, at


def _alike(
    geo: Geometry, ident: list[int], write: list[bool], lo: list[int], hi: list[int], at: list[int], rows: int
) -> tuple[list[int], Listed]:
    """The rows of a beat listed row by row (`at` ascending) in classes, a class the rows making the same accesses
    moved by whole 32 B rows (the same cycles and kinds: see the module's docstring): each row's class (numbered as
    first met), and the beat of each class's first row, its row numbered as its class (the beat as it is when every
    row is its own class, or it is not listed row by row)."""
    if at != sorted(at):
        return list(range(rows)), (ident, write, lo, hi, at)
    each = len(lo) // rows
    if rows > 1 and each and len(lo) == each * rows and at[::each] == at[each - 1 :: each] == list(range(rows)):
        if _all_alike(geo, ident, write, lo, hi, each):  # (one class: row 0's accesses)
            return [0] * rows, (ident[:each], write[:each], lo[:each], hi[:each], [0] * each)
    starts = [bisect.bisect_left(at, r) for r in range(rows + 1)]
    classes: list[int] = []
    shapes: list[tuple[list[Any], ...]] = []  # (each class's accesses, moved to its first 32 B row; compared, not hashed)
    for a, b in itertools.pairwise(starts):
        base = min(lo[a:b]) // geo.row * geo.row if b > a else 0
        shape = (ident[a:b], write[a:b], [x - base for x in lo[a:b]], [x - base for x in hi[a:b]])
        if shape not in shapes:
            shapes.append(shape)
        classes.append(shapes.index(shape))
    if len(shapes) == rows:
        return classes, (ident, write, lo, hi, at)
    cut = [(starts[r], starts[r + 1]) for r in map(classes.index, range(len(shapes)))]  # (each class's first row)
    chain = itertools.chain.from_iterable
    ident, write, lo, hi = (list(chain(xs[a:b] for a, b in cut)) for xs in (ident, write, lo, hi))  # type: ignore[assignment]
    return classes, (ident, write, lo, hi, list(chain([c] * (b - a) for c, (a, b) in enumerate(cut))))


def _all_alike(geo: Geometry, ident: list[int], write: list[bool], lo: list[int], hi: list[int], each: int) -> bool:
    """Whether every row of a beat listed row by row, `each` accesses a row, makes the row before's accesses moved by
    whole 32 B rows (so all are alike, `_alike`'s one class): by whole lists, each access's move from the row before
    one list (no row's accesses made again moved)."""
    if ident[each:] != ident[:-each] or write[each:] != write[:-each]:
        return False
    moves = list(map(operator.sub, lo[each:], lo))
    if moves != list(map(operator.sub, hi[each:], hi)):
        return False
    for a in range(0, len(moves), each):  # (a row: every access moved as much, by whole 32 B rows)
        row = moves[a : a + each]
        if row[0] % geo.row or row.count(row[0]) != each:
            return False
    return True


def _arrays(
    ident: list[int], write: list[bool], lo: list[int], hi: list[int], at: list[int]
) -> tuple[Ints, Bools, Ints, Ints, Ints]:
    """A beat's lists as `beat` takes them."""
    return (
        np.array(ident, np.int64),
        np.array(write, np.bool_),
        np.array(lo, np.int64),
        np.array(hi, np.int64),
        np.array(at, np.int64),
    )


def kept_affine_beat(geo: Geometry, accesses: list[tuple[int, bool, int, int, int]], rows: int) -> BeatResult | None:
    """`affine_beat`, kept as `kept_beat` keeps beats (by its accesses relative to the bank pattern)."""
    base = _pattern_base(geo, min(map(_START, accesses)))
    moved = [(i, w, start - base, step, width) for i, w, start, step, width in accesses] if base else accesses
    key = (geo, rows, "affine", *moved)
    return _kept(key, base, lambda: affine_beat(geo, moved, rows))


_START = operator.itemgetter(2)  #: an affine access's first byte


def _pattern_base(geo: Geometry, first: int) -> int:
    """The first byte of the bank pattern (`groups * banks` rows of 32 B) byte `first` is in: a beat's accesses moved
    by whole patterns touch the same groups and banks (the kept beats' key is its accesses less this)."""
    pattern = geo.row * geo.groups * geo.banks
    return first // pattern * pattern


def _kept(key: tuple[Any, ...], base: int, make: Callable[[], BeatResult | None]) -> BeatResult | None:
    """The kept result of `key` (made by `make` when not kept; None, kept not, when it makes None), its examples'
    addresses moved by `base`."""
    kept = _BEATS.get(key)
    if kept is None:
        made = make()
        if made is None:
            return None
        if len(_BEATS) >= _BEATS_KEPT:
            del _BEATS[next(iter(_BEATS))]
        if made.summed is None:
            made.summed = totals(made)
        if made._judged is None:  # (its arrays shared by every result made from it; a repeated one's made read-only)
            made.cycles.flags.writeable = made.kinds.flags.writeable = False
        kept = _BEATS[key] = made
    if not base:
        return kept
    return kept.moved({kind: (tuple(a + base for a in addrs), who) for kind, (addrs, who) in kept.examples.items()})


_BEATS: dict[tuple[Any, ...], BeatResult] = {}
_BEATS_KEPT = 256
_BEAT_KEPT_SIZE = 1 << 12


def lanes(geo: Geometry, ident: int, write: bool, addrs: Ints) -> BeatResult:
    """The conflicts of one gather (or scatter, `write`): its active lanes' byte addresses, by 8 B subbank."""
    words = np.unique(addrs // geo.sub)
    per_row = geo.row // geo.sub
    key = ((words * geo.sub) // geo.row % geo.groups) * per_row + words % per_row  # (group, subbank number)
    counts = np.bincount(key, minlength=geo.groups * per_row)
    worst = int(counts.max()) if counts.size else 1
    kinds = np.zeros((1, 3), np.bool_)
    examples: Examples = {}
    if worst > 1:
        kind = 2 if write else 0
        kinds[0, kind] = True
        crowded = int(np.argmax(counts))
        examples[KINDS[kind]] = (tuple(int(x) * geo.sub for x in words[key == crowded]), (ident,))
    return BeatResult(np.array([max(worst, 1)], np.int64), kinds, examples)


def as_rows(lo: Any, hi: Any, at: Any, rows: int) -> tuple[Ints, Ints, Ints]:
    """A traced access as int arrays (first bytes, ends, rows): `at` None is one access every row makes."""
    lo, hi = np.asarray(lo, np.int64).reshape(-1), np.asarray(hi, np.int64).reshape(-1)
    if at is None:
        at = np.repeat(np.arange(rows, dtype=np.int64), lo.size)
        lo, hi = np.tile(lo, rows), np.tile(hi, rows)
    return lo, hi, np.asarray(at, np.int64)
