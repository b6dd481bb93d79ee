"""`rs.profile` of whole kernels against the add_high_performance sample's measured tables (README, "Ascend 950系列性能
对比" and the per-case tables): the cases' order of Task Duration and each case's dominant pipe; the cost table's
citations; the Chrome trace; the same profile in both loop modes."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim._src.cost.table import DEFAULT
from regsim._src.lowerings import direct
from vf_examples import add_high_performance as ahp

#: the README's 950 Task Duration (us) of cases 0-5 (case 6 is measured on Atlas A2 only: 184.52 against case 5's
#: 187.68) and the pipe with the largest aiv_*_ratio in each case's table (scalar for case 0, MTE2 for the rest)
TASK_US = {0: 1228475.435, 1: 8924.021, 2: 310.489, 3: 251.684, 4: 247.665, 5: 182.04}
DOMINANT = {0: "S", 1: "MTE2", 2: "MTE2", 3: "MTE2", 4: "MTE2", 5: "MTE2", 6: "MTE2"}


def profile_case(scenario: int, rows: int, cols: int, cores: int) -> rs.Profile:
    rng = np.random.default_rng(scenario)
    x = rng.uniform(1, 100, [rows, cols]).astype(np.float16)
    y = rng.uniform(1, 100, [rows, cols]).astype(np.float16)
    z = np.zeros_like(x)
    with rs.configure(ub_size=ahp.UB_SIZE):
        p = rs.profile(
            ahp.add_custom,
            x,
            y,
            z,
            block_dim=cores,
            total_m=rows,
            total_n=cols,
            split_m=cores,
            split_n=1,
            data_copy_len=ahp.CASES[scenario][2],
            scenario=scenario,
        )
    np.testing.assert_array_equal(z, x + y)
    return p


def test_order_and_dominant_pipe(loops: str) -> None:
    """Cases 1-6 on one problem (8 x 8192 halves; the multi-core cases on 2 cores, so each core copies two tiles of
    21760 and double buffering can overlap), case 0 against case 1 on a smaller one (its scalar loop is slow to run):
    the modelled time falls case by case as the measured Task Duration does, and the busiest pipe is the table's."""
    multi = {s: profile_case(s, 8, 8192, 1 if s == 1 else 2) for s in range(1, 7)}
    small = {s: profile_case(s, 2, 512, 1) for s in (0, 1)}
    measured = sorted(TASK_US, key=lambda s: -TASK_US[s])
    assert measured == [0, 1, 2, 3, 4, 5]
    assert small[0].cycles > small[1].cycles
    cycles = [multi[s].cycles for s in range(1, 7)]
    assert cycles[:5] == sorted(cycles[:5], reverse=True) and len(set(cycles[:5])) == 5
    assert cycles[5] <= cycles[4]  # case 6 (Atlas A2: faster than case 5; the 950 table has no case 6)
    for s, p in {**multi, 0: small[0]}.items():
        assert p.dominant_pipe == DOMINANT[s], (s, p.pipe_cycles)


def test_double_buffering_overlaps() -> None:
    """Case 4's MTE2 copies of one tile run while V adds the other (the Chrome trace shows it); case 3's never do."""

    def overlapping(p: rs.Profile) -> bool:
        v = [s for s in p.spans if s.pipe == "V" and s.block == 0]
        m = [s for s in p.spans if s.pipe == "MTE2" and s.block == 0]
        return any(a.start < b.start + b.cycles and b.start < a.start + a.cycles for a in v for b in m)

    assert overlapping(profile_case(4, 8, 8192, 2))
    assert not overlapping(profile_case(3, 8, 8192, 2))


def test_modes_agree() -> None:
    got = []
    for mode in ("sequential", "auto"):
        with rs.configure(loops=mode):
            p = profile_case(4, 8, 8192, 2)
        got.append((p.counts, p.bytes, sorted(map(str, p.bank_conflicts)), p.cycles, p.pipe_cycles))
    assert got[0] == got[1]


def test_counts_and_bytes() -> None:
    """Case 2 on 2 cores of 8 x 8192: each core copies 32768 halves in 8 tiles of 4096 (two MTE2 copies a tile, one
    MTE3, one Add), counted from the kernel's source."""
    p = profile_case(2, 8, 8192, 2)
    tiles = 2 * 8
    assert (p.counts["MTE2"], p.counts["MTE3"], p.counts["V"], p.counts["S"]) == (2 * tiles, tiles, tiles, 0)
    assert p.bytes["MTE2"] == 2 * 8 * 8192 * 2 and p.bytes["MTE3"] == 8 * 8192 * 2
    # each Add of 4096 halves: 32 repeats of two loads and a store
    assert (p.counts["load"], p.counts["store"]) == (tiles * 32 * 2, tiles * 32)


def test_chrome_trace(tmp_path: Path) -> None:
    p = profile_case(4, 8, 8192, 2)
    path = tmp_path / "t.json"
    p.chrome_trace(path)
    data = json.loads(path.read_text())
    names = {(e["pid"], e["args"]["name"]) for e in data["traceEvents"] if e["name"] == "thread_name"}
    assert names == {(b, pipe) for b in (0, 1) for pipe in ("S", "V", "MTE2", "MTE3")}
    spans = [e for e in data["traceEvents"] if e["ph"] == "X"]
    assert len(spans) == len(p.spans) and max(e["ts"] + e["dur"] for e in spans) <= p.cycles + 1
    assert "MTE2" in p.report() and "dominant pipe: MTE2" in p.report()


#: what a cost-table source may begin with: a public page's (or vendor sample README's) name, or "assumption"
PAGES = ("避免bank冲突（NPU架构版本3510）", "NPU架构版本3510", "add_high_performance", "bank_conflict_3510", "assumption")


def test_cost_table_cites_every_number() -> None:
    raw = tomllib.loads(DEFAULT.read_text(encoding="utf-8"))
    for section, entries in raw.items():
        for name, entry in entries.items():
            src = entry["source"]
            assert src.startswith(PAGES), f"{section}.{name}: {src}"
            assert "/tmp" not in src and "\\" not in src  # a page's name, never a local path


def test_cost_overrides_and_errors(tmp_path: Path) -> None:
    base = profile_case(3, 8, 8192, 2)
    faster = profile_case_cost(3, {"mte2.bytes_per_cycle": 64.0})
    assert faster.cycles < base.cycles and faster.table.source("mte2.bytes_per_cycle") == "given to rs.profile"
    with pytest.raises(rs.errors.ParameterError, match=r"mte2\.nope"):
        profile_case_cost(3, {"mte2.nope": 1})
    bad = tmp_path / "t.toml"
    bad.write_text("[clock.hz]\nvalue = 1\n")
    with pytest.raises(rs.errors.ParameterError, match="value and its source"):
        rs.profile(ahp.add_custom, block_dim=1, cost_table=bad)
    with pytest.raises(rs.errors.ParameterError, match="block_dim"):
        rs.profile(ahp.add_custom)


def profile_case_cost(scenario: int, cost: dict[str, Any]) -> rs.Profile:
    x = np.ones([8, 8192], np.float16)
    with rs.configure(ub_size=ahp.UB_SIZE):
        return rs.profile(
            ahp.add_custom, x, x.copy(), np.zeros_like(x), block_dim=2, total_m=8, total_n=8192, split_m=2, split_n=1,
            data_copy_len=ahp.CASES[scenario][2], scenario=scenario, cost=cost,
        )  # fmt: skip


def memory_calls(dtype: Any, n: int, calls: list[tuple[int, int, int]], seed: int) -> tuple[rs.Profile, Any]:
    """A profile of first-n Adds repeated over the 32 B offsets `calls` (dst, src0, src1: each in its own region, so
    bank groups collide or not as the offsets fall), and the UB's bytes after it."""
    per = 32 // dtype.itemsize
    room = n + 32 * per + 256 // dtype.itemsize  # (the offsets, and the last register's loads)
    ub = rs.UnifiedBuffer(-(-3 * room * dtype.itemsize // 32) * 32 + 1024)
    regions = [ub.alloc(dtype, room) for _ in range(3)]
    rng = np.random.default_rng(seed)
    for t in regions[1:]:
        t.set(rng.integers(0, 100, room).astype(dtype.np_dtype))

    def run() -> None:
        for offsets in calls:
            dst, src0, src1 = (t[k * per] for t, k in zip(regions, offsets, strict=True))
            rs.AscendC.Add(dst, src0, src1, n)

    return rs.profile(run), ub.storage.data.copy()


@settings(max_examples=30, deadline=None)
@given(
    dtype=st.sampled_from([rs.int8, rs.half, rs.float32]),
    n=st.integers(1, 700),
    calls=st.lists(st.tuples(*[st.integers(0, 31)] * 3), min_size=1, max_size=3).map(lambda c: c * 3),
    sequential=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_memory_calls_done_at_once_profile_as_their_loops(
    dtype: Any, n: int, calls: list[tuple[int, int, int]], sequential: bool, seed: int
) -> None:
    """Under `rs.profile` a repeated first-n call is computed at once and given the records of its loop's first run
    (`direct.run_binary`): its profile (counts, bytes, bank conflicts, cycles, every VF's) and the UB's bytes are
    those of running the loop every time."""
    with rs.configure(loops="sequential" if sequential else "auto"):
        direct._RECORDED.clear()
        got, ub = memory_calls(dtype, n, calls, seed)
        with mock.patch.object(direct, "run_binary", lambda *a: False):
            want, ub_loop = memory_calls(dtype, n, calls, seed)
    assert np.array_equal(ub, ub_loop)
    assert (got.counts, got.bytes, got.cycles, got.pipe_cycles) == (want.counts, want.bytes, want.cycles, want.pipe_cycles)
    assert got.bank_conflicts == want.bank_conflicts and got.vfs == want.vfs and got.spans == want.spans
    assert got.counts["store"] == len(calls) * -(-n * dtype.itemsize // 256)  # (one store a register: not vacuous)


@pytest.mark.parametrize("case", [2, 4])
def test_kernel_profile_with_calls_done_at_once_is_the_loops(case: int, loops: str) -> None:
    """A kernel's memory-level Adds under `rs.profile` (the first of each kind runs its loop, the others are computed
    at once and given its records; the pipes told what the loop tells them) profile as running every loop."""
    direct._RECORDED.clear()
    got = profile_case(case, 8, 8192, 2)
    with mock.patch.object(direct, "run_binary", lambda *a: False):
        want = profile_case(case, 8, 8192, 2)
    assert (got.counts, got.bytes, got.cycles, got.pipe_cycles) == (want.counts, want.bytes, want.cycles, want.pipe_cycles)
    assert got.bank_conflicts == want.bank_conflicts and got.vfs == want.vfs and got.spans == want.spans
    assert got.counts["V"] == {2: 16, 4: 4}[case]  # (one Add a tile: case 2 eight tiles a core, case 4 two)


def test_a_detailed_trace_after_a_profile_takes_host_times_of_its_own() -> None:
    """A repeated first-n call is given the records of its first run (`direct.run_binary`) only by a trace that takes
    host times as that run's did: `rs.profile` takes none, so a user's detailed trace of the same call afterwards
    runs it and times it rather than show the profile's zero durations."""
    direct._RECORDED.clear()
    ub = rs.UnifiedBuffer(4096)
    dst, src0, src1 = (ub.alloc(rs.float32, 256) for _ in range(3))
    for t in (src0, src1):
        t.set(np.arange(256, dtype=np.float32))

    def run() -> None:
        for _ in range(2):
            rs.AscendC.Add(dst, src0, src1, 200)

    rs.profile(run)
    with rs.trace(detailed=True) as tr:
        run()
    adds = [r for r in tr.records if r.api.endswith("Add")]
    assert adds and all(r.duration > 0 for r in adds)
    assert np.array_equal(dst.numpy()[:200], 2 * np.arange(200, dtype=np.float32))
