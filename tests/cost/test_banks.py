"""The UB bank model against the page "避免bank冲突（NPU架构版本3510）" (its address layout and the conclusions of its
example tables) and the bank_conflict_3510 sample (its README's conflicts per case), in both loop modes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim._src.cost import banks
from vf_examples import bank_conflict_3510 as bc

GEO = banks.Geometry()


def one(*accesses: tuple[bool, int, int]) -> set[str]:
    """The conflict kinds of one beat of (is a write, first byte, bytes) accesses."""
    n = len(accesses)
    lo = np.array([a for _, a, _ in accesses])
    hi = lo + np.array([b for _, _, b in accesses])
    result = banks.beat(GEO, np.arange(n), np.array([w for w, _, _ in accesses]), lo, hi, np.zeros(n, np.int64), 1)
    return {kind for kind, hit in zip(banks.KINDS, result.kinds[0], strict=True) if hit}


def test_address_layout() -> None:
    # UB_ADDR = {BANK_DEPTH[8:0], BANK[0], BG[2:0], BANK_WIDTH[4:0]}, decoded by hand from the bit fields
    for addr in (0x0000, 0x4000, 0x4100, 0x8900, 0x5000, 0xA100, 0x3FFE0):
        assert GEO.decode(addr) == ((addr >> 5) & 7, (addr >> 8) & 1, addr >> 9)
    assert GEO.decode(0x4100) == (0, 1, 32)  # the sample README's worked example


@pytest.mark.parametrize(
    ("accesses", "expected"),
    [
        # 表1 一读一写: 0x0000 / 0x4000 one bank: conflict; 0x0000 / 0x4100 the other bank of the group: none
        (((False, 0x0000, 32), (True, 0x4000, 32)), {"read-write"}),
        (((False, 0x0000, 32), (True, 0x4100, 32)), set()),
        # 表2 两读一写: 示例1 all one bank; 示例2 src0 == src1 merge into one read; 示例3 src1 and dst one bank
        (((False, 0x0000, 32), (False, 0x4000, 32), (True, 0x8000, 32)), {"read-read", "read-write"}),
        (((False, 0x0000, 32), (False, 0x0000, 32), (True, 0x4100, 32)), set()),
        (((False, 0x0000, 32), (False, 0x4100, 32), (True, 0x8900, 32)), {"read-write"}),
        # 表3 写写: two writes in one group
        (((True, 0x0000, 32), (True, 0x4100, 32)), {"write-write"}),
        # 表4 读读: two reads of one bank
        (((False, 0x0000, 32), (False, 0x4000, 32)), {"read-read"}),
        # two reads in the two banks of a group: allowed (2读0写)
        (((False, 0x0000, 32), (False, 0x4100, 32)), set()),
    ],
)
def test_page_tables(accesses: tuple[tuple[bool, int, int], ...], expected: set[str]) -> None:
    """Table 3 of the page says 示例1's two writes (different banks, one group) conflict; the table's 示例3 says src1 and
    dst in one bank give "无冲突" for the pair yet two reads and a write share the group, which the page's own rule
    (两个读操作和一个写操作同时尝试访问同一个bank group) calls a read-write conflict: the model follows the rule."""
    assert one(*accesses) == expected


def test_gather_subbanks() -> None:
    # the same 8 B word twice: no conflict; two words of one subbank number in one group: a conflict
    same = banks.lanes(GEO, 0, False, np.array([0x400, 0x404, 0x400]))
    assert not same.kinds.any() and same.cycles[0] == 1
    clash = banks.lanes(GEO, 0, False, np.array([0x400, 0x600]))  # 0x600: group 0, bank 1, subbank 0
    assert clash.kinds[0, 0] and clash.cycles[0] == 2
    spread = banks.lanes(GEO, 0, True, 0x400 + 4 * np.arange(64))  # 64 floats over 8 groups x 4 subbanks
    assert not spread.kinds.any()


#: the README's conflict-rate columns for cases 11-14 name no kind: whether the case has any (LDU or STU above 0)
CONFLICTED = {11: False, 12: True, 13: False, 14: True}


@pytest.mark.parametrize("case", [c for c in bc.CASES if c != 8])
def test_sample_cases(case: int, loops: str) -> None:
    rng = np.random.default_rng(case)
    x, y = bc.inputs(case, rng)
    np.testing.assert_array_equal(bc.kernel(case, x, y).view(np.uint32), bc.golden(case, x, y).view(np.uint32))
    prof = bc.profile(case, x, y)
    kinds = {c.kind for c in prof.bank_conflicts}
    if case in CONFLICTED:
        assert bool(kinds) == CONFLICTED[case]
        if case == 12:  # STU 53.5 %: the stores' eight DataBlocks land in one bank group
            assert "write-write" in kinds
    else:
        assert kinds == bc.EXPECTED[case][0]
    for c in prof.bank_conflicts:  # the addresses named decode to one bank group, as the kind says
        assert len({GEO.decode(a)[0] for a in c.addresses}) == 1
        assert c.instructions and all(" at bank_conflict_3510.py:" in i for i in c.instructions)


def test_case8_compute_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """Case 8 (case 6 plus Adds an iteration; 10 here instead of 1000): the vector unit dominates. The loads still
    collide (read-read); the store, issued after the inner loop, is a beat of its own, so no read-write: the
    README's table describes the addresses' read-write conflict but measures STU conflicts of 0.0 % for this case."""
    monkeypatch.setattr(bc, "INNER", 10)
    rng = np.random.default_rng(8)
    x, y = bc.inputs(8, rng)
    np.testing.assert_array_equal(bc.kernel(8, x, y), bc.golden(8, x, y, inner=10))
    prof, base = bc.profile(8, x, y), bc.profile(6, x, y)
    assert {c.kind for c in prof.bank_conflicts} == {"read-read"}
    assert prof.vfs[0].compute_cycles > prof.vfs[0].memory_cycles == base.vfs[0].memory_cycles


def test_modes_agree() -> None:
    """The whole profile (counts, bytes, conflicts with their beats and addresses, cycles) is the same in both loop modes."""
    rng = np.random.default_rng(1)
    for case in (1, 6, 10, 12):
        x, y = bc.inputs(case, rng)
        got = []
        for mode in ("sequential", "auto"):
            with rs.configure(loops=mode):
                p = bc.profile(case, x, y)
            got.append((p.counts, p.bytes, sorted(map(str, p.bank_conflicts)), p.cycles))
        assert got[0] == got[1]


def test_counts_oracle() -> None:
    """AddWithoutUnRollVF's loop, counted from its source: 2 loads, 1 Add, 1 store a repeat, one CreateMask."""
    rng = np.random.default_rng(2)
    x, y = bc.inputs(6, rng)
    p = bc.profile(6, x, y)
    reps = bc.CASES[6][0] // bc.ONE_REP
    assert p.counts == {"vector": reps, "load": 2 * reps, "store": reps, "mask": 1, "scalar": 0}
    assert p.bytes == {"load": 2 * reps * 256, "store": reps * 256}


CPP = Path(os.environ.get("REGSIM_ASC_DEVKIT", "/nonexistent")) / "examples/01_simd_cpp_api/05_best_practices/04_memory_access"


@pytest.mark.skipif(not CPP.is_dir(), reason="needs REGSIM_ASC_DEVKIT (the vendor's asc-devkit checkout)")
def test_ported_addresses_match_config_h() -> None:
    """The port's UB addresses and lengths are config.h's, case by case."""
    import re

    text = (CPP / "bank_conflict_3510/config.h").read_text(encoding="utf-8")
    for case, (n, xa, ya, za) in bc.CASES.items():
        body = text.split(f"SCENARIO_NUM == {case}\n", 1)[1].split("#elif", 1)[0]
        nums = {k: int(v, 0) for k, v in re.findall(r"(\w+) = (0x[0-9A-Fa-f]+|\d+);", body)}
        assert (nums["TOTAL_LENGTH"], nums["xLocalAddr"], nums["yLocalAddr"], nums["zLocalAddr"]) == (n, xa, ya, za)


def beat_oracle(accesses: list[tuple[int, bool, int, int, int]], rows: int) -> tuple[list[int], list[set[str]], dict[str, Any]]:
    """One beat, row by row in plain Python, by the module's rules: (cycles, kinds, examples) of (instruction, is a
    write, first byte, end, row) accesses."""
    cycles, kinds, examples = [], [], {}
    for r in range(rows):
        cells: dict[tuple[int, bool], int] = {}  # (32 B row, write) -> the first instruction making it
        for ident, w, lo, hi, row in accesses:
            if row == r:
                for b in range(lo // 32, (hi - 1) // 32 + 1):
                    cells.setdefault((b, w), ident)
        reads, writes = np.zeros((2, 8), int), np.zeros((2, 8), int)
        for b, w in cells:
            (writes if w else reads)[(b >> 3) & 1, b & 7] += 1
        rg, wg = reads.sum(0), writes.sum(0)
        both = [((reads[:, g] >= 1) & (writes[:, g] >= 1)).any() for g in range(8)]
        by_kind = {
            "read-read": [g for g in range(8) if (reads[:, g] >= 2).any() or rg[g] > 2],
            "read-write": [g for g in range(8) if both[g] or (rg[g] >= 2 and wg[g] >= 1)],
            "write-write": [g for g in range(8) if wg[g] >= 2],
        }
        busiest = [int((reads[:, g] + writes[:, g]).max()) for g in range(8)]
        need = [max(busiest[g], int(wg[g]) + (max(int(rg[g] - wg[g]), 0) + 1) // 2) for g in range(8)]
        cycles.append(max(max(need), 1))
        kinds.append({k for k, gs in by_kind.items() if gs})
        for k, gs in by_kind.items():
            if gs and k not in examples:
                wanted = (False, True) if k == "read-write" else (k == "write-write",)
                picked = [(b, i) for (b, w), i in sorted(cells.items()) if b & 7 == gs[0] and w in wanted]
                examples[k] = (tuple(b * 32 for b, _ in picked), tuple(sorted({i for _, i in picked})))
    return cycles, kinds, examples


@settings(max_examples=200, deadline=None)
@given(
    rows=st.integers(1, 5),
    accesses=st.lists(
        st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 64), st.sampled_from([1, 32, 64, 256]), st.integers(0, 4)),
        min_size=1,
        max_size=12,
    ),
    unit=st.sampled_from([8, 32]),
)
def test_beats_against_a_per_row_oracle(rows: int, accesses: list[tuple[int, bool, int, int, int]], unit: int) -> None:
    """A beat of several rows at once gives each row's cycles, kinds and the first row's examples the per-row
    oracle gives (accesses of one size or of several, rows read twice, rows without accesses)."""
    made = [(i, w, a * unit, a * unit + size, r % rows) for i, w, a, size, r in accesses]
    arrays = [np.array([m[k] for m in made], np.bool_ if k == 1 else np.int64) for k in range(5)]
    got = banks.beat(GEO, *arrays, rows=rows)
    cycles, kinds, examples = beat_oracle(made, rows)
    assert got.cycles.tolist() == cycles
    assert [{k for k, hit in zip(banks.KINDS, row, strict=True) if hit} for row in got.kinds.tolist()] == kinds
    assert got.examples == examples


def test_many_accesses_of_one_bank() -> None:
    """Past the table's counts (four reads of one bank and a write to the other): the rules themselves, as the oracle."""
    made = [(i, False, 0x200 * i, 0x200 * i + 32, 0) for i in range(4)] + [(4, True, 0x100, 0x120, 0)]
    got = banks.beat(GEO, *[np.array([m[k] for m in made], np.bool_ if k == 1 else np.int64) for k in range(5)], rows=1)
    cycles, kinds, examples = beat_oracle(made, 1)
    assert got.cycles.tolist() == cycles == [4] and kinds == [{"read-read", "read-write"}] and got.examples == examples


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(1, 4),
    accesses=st.lists(
        st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, 64), st.sampled_from([32, 64, 256]), st.integers(0, 3)),
        min_size=1,
        max_size=8,
    ),
    moves=st.lists(st.integers(0, 40), min_size=2, max_size=4),
)
def test_kept_beats_are_the_beats(rows: int, accesses: list[tuple[int, bool, int, int, int]], moves: list[int]) -> None:
    """A beat kept by its accesses relative to the bank pattern gives, for the same accesses moved (by whole patterns
    or not), what computing it again gives: cycles, kinds and the examples' addresses."""
    for move in moves:
        made = [(i, w, a * 32 + move * 256, a * 32 + move * 256 + size, r % rows) for i, w, a, size, r in accesses]
        arrays = [np.array([m[k] for m in made], np.bool_ if k == 1 else np.int64) for k in range(5)]
        got, want = banks.kept_beat(GEO, *arrays, rows=rows), banks.beat(GEO, *arrays, rows=rows)
        assert got.cycles.tolist() == want.cycles.tolist() and got.kinds.tolist() == want.kinds.tolist()
        assert got.examples == want.examples


def beat_accesses(rows: int, first: int, sizes: list[int], most: int) -> st.SearchStrategy[list[tuple[int, bool, int, int, int]]]:
    """A beat's accesses: (instruction, is a write, first 32 B row up to `first`, bytes, row up to `rows`)."""
    access = st.tuples(st.integers(0, 3), st.booleans(), st.integers(0, first), st.sampled_from(sizes), st.integers(0, rows))
    return st.lists(access, min_size=1, max_size=most)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 6),
    accesses=beat_accesses(5, 200, [1, 32, 64, 256, 600], 30),
    moves=st.lists(st.integers(0, 40), min_size=2, max_size=3),
)
def test_listed_beats_are_the_beats(rows: int, accesses: list[tuple[int, bool, int, int, int]], moves: list[int]) -> None:
    """A beat given as lists (an in-order loop's ranges, `kept_listed_beat`), kept by its accesses relative to the bank
    pattern, gives for the same accesses moved (by whole patterns or not) the per-row oracle's cycles, kinds and
    examples, and the totals of its rows; judged again or taken from the kept ones."""
    banks._BEATS.clear()
    for move in moves:
        made = [(i, w, a * 32 + move * 256, a * 32 + move * 256 + size, r % rows) for i, w, a, size, r in accesses]
        lists = [[m[k] for m in made] for k in range(5)]
        for _ in range(2):  # (judged, then kept)
            got = banks.kept_listed_beat(GEO, *lists, rows=rows)
            same(got, *beat_oracle(made, rows))
            assert banks.totals(got) == (int(got.cycles.sum()), rows, tuple(got.kinds.sum(axis=0).tolist()))


@settings(max_examples=60, deadline=None)
@given(
    calls=st.lists(st.tuples(st.booleans(), st.integers(0, 100), st.sampled_from([1, 32, 40, 256])), min_size=1, max_size=6),
    moves=st.lists(st.tuples(st.integers(-20, 60), st.booleans()), min_size=1, max_size=8),
)
def test_rows_moved_by_32_byte_rows_are_judged_alike(calls: list[tuple[bool, int, int]], moves: list[tuple[int, bool]]) -> None:
    """Rows making one row's accesses moved by whole 32 B rows (an in-order loop walking its tensors), some of them
    another row: the per-row oracle gives each moved row the first row's cycles and kinds, and `kept_listed_beat`,
    which judges the first row of each class only, gives the oracle's cycles, kinds and examples."""
    other = [(not w, a + 7, size) for w, a, size in calls]
    made = [
        (i, w, (a + 100 + move) * 32 + (8 if size == 40 else 0), (a + 100 + move) * 32 + (8 if size == 40 else 0) + size, r)
        for r, (move, odd) in enumerate(moves)
        for i, (w, a, size) in enumerate(other if odd else calls)
    ]
    cycles, kinds, examples = beat_oracle(made, len(moves))
    for r, (_, odd) in enumerate(moves):
        first = next(k for k, (_, o) in enumerate(moves) if o == odd)
        assert (cycles[r], kinds[r]) == (cycles[first], kinds[first])
    banks._BEATS.clear()
    got = banks.kept_listed_beat(GEO, *[[m[k] for m in made] for k in range(5)], rows=len(moves))
    same(got, cycles, kinds, examples)


def as_arrays(made: list[tuple[int, bool, int, int, int]]) -> list[Any]:
    return [np.array([m[k] for m in made], np.bool_ if k == 1 else np.int64) for k in range(5)]


def same(got: banks.BeatResult, cycles: list[int], kinds: list[set[str]], examples: dict[str, Any]) -> None:
    assert got.cycles.tolist() == cycles
    assert [{k for k, hit in zip(banks.KINDS, row, strict=True) if hit} for row in got.kinds.tolist()] == kinds
    assert got.examples == examples


@settings(max_examples=150, deadline=None)
@given(rows=st.integers(1, 4), accesses=beat_accesses(3, 80, [1, 32, 256, 600, 1100], 40))
def test_python_and_numpy_beats_agree(rows: int, accesses: list[tuple[int, bool, int, int, int]]) -> None:
    """The small-beat path in Python ints and the numpy path give the per-row oracle's cycles, kinds and examples
    (beats of few and of many accesses; counts past the judged table's, from accesses wider than a bank pattern or
    many accesses of one bank); `beat` picks either."""
    made = [(i, w, a * 32, a * 32 + size, r % rows) for i, w, a, size, r in accesses]
    arrays = as_arrays(made)
    want = beat_oracle(made, rows)
    few = banks._few(GEO, *(a.tolist() for a in arrays), rows)
    assert (few is None) == (sum((hi - 1) // 32 - lo // 32 + 1 for _, _, lo, hi, _ in made) > banks._FEW_BLOCKS)
    if few is not None:  # (else past its 32 B rows: numpy's)
        assert few[0] == want[0] and few[2] == want[2]
        assert [{banks.KINDS[k] for k in range(3) if b >> k & 1} for b in few[1]] == want[1]
    same(banks._general(GEO, *arrays, rows), *want)
    same(banks.beat(GEO, *arrays, rows=rows), *want)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(3, 40),
    calls=st.lists(st.tuples(st.booleans(), st.integers(0, 200), st.sampled_from([32, 64, 256, 288])), min_size=1, max_size=12),
    stride=st.sampled_from([0, 32, 64, 128, 256, 512, 768, 1024, 96, -256]),
)
def test_repeating_rows_are_the_rows(rows: int, calls: list[tuple[bool, int, int]], stride: int) -> None:
    """A beat whose rows repeat earlier ones moved by whole 32 B rows (a batched loop's loads and stores of one
    stride, every stride here a multiple of 32 B: its first row judged), judged from its first rows and repeated, gives
    what the per-row oracle gives every row. (Its addresses are a UB's: none below 0.)"""
    made = [
        (i, w, (a + 400) * 32 + r * stride, (a + 400) * 32 + r * stride + size, r)
        for i, (w, a, size) in enumerate(calls)
        for r in range(rows)
    ]
    arrays = as_arrays(made)
    assert banks._period(GEO, *arrays, rows) == 1
    same(banks.beat(GEO, *arrays, rows=rows), *beat_oracle(made, rows))


def test_counts_past_the_python_table() -> None:
    """Ten reads and nine writes of one bank in a row (counts past `_wide`'s table): the rules themselves, as the
    per-row oracle gives them, on both paths."""
    made = [(i % 3, i >= 10, 0x200 * i, 0x200 * i + 32, 0) for i in range(19)]
    want = beat_oracle(made, 1)
    few = banks._few(GEO, *(a.tolist() for a in as_arrays(made)), 1)
    assert few is not None and few[0] == want[0] == [19] and few[2] == want[2]
    same(banks._general(GEO, *as_arrays(made), 1), *want)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.integers(2, 40),
    boxes=st.lists(
        st.tuples(
            st.booleans(),
            st.integers(0, 300),
            st.sampled_from([0, 32, 64, 96, 256, 512, -256]),
            st.sampled_from([32, 64, 256, 288]),
        ),
        min_size=1,
        max_size=6,
    ),
)
def test_affine_beats_are_the_beats(rows: int, boxes: list[tuple[bool, int, int, int]]) -> None:
    """A beat given as boxes (each row b's access [start + b * step, + width)) gives what the per-row oracle gives
    for the accesses made row by row (one step for all, repeating rows; or several). (Its addresses are a UB's: none
    below 0.)"""
    made = [
        (i, w, (a + 400) * 32 + b * step, (a + 400) * 32 + b * step + width, b)
        for i, (w, a, step, width) in enumerate(boxes)
        for b in range(rows)
    ]
    got = banks.affine_beat(GEO, [(i, w, (a + 400) * 32, step, width) for i, (w, a, step, width) in enumerate(boxes)], rows)
    if got is None:  # (too many accesses or 32 B rows to judge in Python ints: the arrays' path)
        assert len(boxes) * rows > banks._FEW_ACCESSES or sum(-(-w // 32) for *_, w in boxes) * rows > banks._FEW_BLOCKS
        got = banks.beat(GEO, *as_arrays(made), rows=rows)
    same(got, *beat_oracle(made, rows))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(2, 40),
    boxes=st.lists(
        st.tuples(st.booleans(), st.integers(0, 300), st.sampled_from([0, 32, 96, 256, -256]), st.sampled_from([32, 64, 256])),
        min_size=1,
        max_size=4,
    ),
)
def test_affine_beat_totals_are_the_rows(rows: int, boxes: list[tuple[bool, int, int, int]]) -> None:
    """An affine beat's totals (what a profile reads: its rows' cycles, its rows, the rows having each kind; summed from
    its first rows' judged repeated, one step for all or several) are the per-row oracle's sums."""
    made = [
        (i, w, (a + 400) * 32 + b * step, (a + 400) * 32 + b * step + width, b)
        for i, (w, a, step, width) in enumerate(boxes)
        for b in range(rows)
    ]
    got = banks.affine_beat(GEO, [(i, w, (a + 400) * 32, step, width) for i, (w, a, step, width) in enumerate(boxes)], rows)
    assume(got is not None)  # (else too many to judge in Python ints: the arrays' path, summed from its arrays)
    assert got is not None
    cycles, kinds, _ = beat_oracle(made, rows)
    assert banks.totals(got) == (sum(cycles), rows, tuple(sum(k in row for row in kinds) for k in banks.KINDS))


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(2, 20),
    boxes=st.lists(
        st.tuples(st.booleans(), st.integers(0, 100), st.sampled_from([0, 32, 256, 512]), st.sampled_from([32, 256])),
        min_size=1,
        max_size=4,
    ),
    moves=st.lists(st.integers(0, 40), min_size=2, max_size=4),
)
def test_kept_affine_beats_are_the_beats(rows: int, boxes: list[tuple[bool, int, int, int]], moves: list[int]) -> None:
    """An affine beat kept by its accesses relative to the bank pattern gives, for the same boxes moved (by whole
    patterns or not), what judging it again gives."""
    for move in moves:
        made = [(i, w, a * 32 + move * 256, step, width) for i, (w, a, step, width) in enumerate(boxes)]
        got, want = banks.kept_affine_beat(GEO, made, rows), banks.affine_beat(GEO, made, rows)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            assert got.cycles.tolist() == want.cycles.tolist() and got.kinds.tolist() == want.kinds.tolist()
            assert got.examples == want.examples
