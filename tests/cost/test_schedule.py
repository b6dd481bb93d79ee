"""`rs.profile`'s kernel timeline (`profile.schedule`) against a plain oracle written here from the rules in its module's
docstring: the pipe records grouped into instructions (an instruction: one pipe's consecutive access records of one
number), each instruction starting when its pipe is free, its gate (flags waited on, barriers) opens and the scalar
unit has issued it; its cost from the cost table by pipe; the bytes each pipe moved (its writes, the scalar unit's
reads and writes) and its instructions (distinct numbers). Random logs of sets, waits, barriers and accesses; and a
kernel's profile taking the repeated-call path (`Binary.quick` under the detailed trace) against its loops; a VF's kept
cost against its own pricing."""

from __future__ import annotations

import collections
import threading
from typing import Any
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim._src.cost import profile as prof
from regsim._src.cost.table import CostTable, load
from regsim._src.lowerings import checks, direct
from regsim._src.vf.trace import trace
from vf_examples import add_high_performance as ahp
from vf_examples import bank_conflict_3510 as bc

PIPES = ("S", "V", "MTE2", "MTE3")


def oracle(events: list[tuple[Any, ...]], vf_cycles: dict[int, float], table: CostTable) -> tuple[Any, ...]:
    """The timeline, written plainly: (end, busy by pipe, spans, instructions by pipe, bytes by pipe)."""
    groups: list[list[tuple[Any, ...]]] = []
    for e in events:
        last = groups[-1][-1] if groups else None
        accesses = last is not None and e[1] in ("read", "write") and last[1] in ("read", "write")
        if accesses and last is not None and (last[0], last[8]) == (e[0], e[8]):
            groups[-1].append(e)
        else:
            groups.append([e])
    free = dict.fromkeys(PIPES, 0.0)
    gate = dict.fromkeys(PIPES, 0.0)
    busy = dict.fromkeys(PIPES, 0.0)
    ends = {p: [0.0] for p in PIPES}
    flags: dict[str, list[float]] = collections.defaultdict(list)
    recent: list[tuple[int, int, float]] = []
    now, issue = 0.0, float(table["scalar.instr_cycles"])
    spans, numbers, moved = [], {p: set[int]() for p in PIPES}, dict[str, int]()
    for group in groups:
        p, kind, api = group[0][:3]
        if kind in ("set", "wait"):
            key = api.removeprefix("SetFlag").removeprefix("WaitFlag")
            if kind == "set":
                flags[key].append(ends[p][min(group[0][8], len(ends[p]) - 1)] if p in ends else 0.0)
            else:
                t = flags[key].pop(0) if flags[key] else 0.0
                if p == "S":
                    now = max(now, t)
                elif p in gate:
                    gate[p] = max(gate[p], t)
            now += issue
            continue
        if kind == "barrier":
            if p == "ALL":
                t = max(free.values())
                now = max(now, t)
                gate = dict.fromkeys(PIPES, t)
            else:
                gate[p] = max(gate[p], free[p])
            now += issue
            continue
        most = max(e[3] for e in group)
        if p == "V":
            cost = vf_cycles.get(group[0][8], float(np.ceil(most / float(table["vector.bytes_per_cycle"]))))
        elif p in ("MTE2", "MTE3"):
            bw = float(table[f"{p.lower()}.bytes_per_cycle"])
            if p == "MTE2" and any(e[9] == "CACHE_MODE_DISABLE" for e in group):
                bw *= float(table["mte2.l2_bypass_speedup"])
            cost = float(table[f"{p.lower()}.latency_cycles"]) + most / bw
        else:
            gm = any(e[5].startswith("GM") for e in group)
            cost = float(table["scalar.gm_access_cycles" if gm else "scalar.ub_access_cycles"])
        start = max(free[p], gate[p], now)
        if p == "S":
            for lo, hi, end in recent[-32:]:
                if any(e[5] == "UB" and e[6] < hi and lo < e[7] for e in group):
                    start = max(start, end)
        end = start + cost
        free[p], busy[p] = end, busy[p] + cost
        ends[p].append(end)
        numbers[p].add(group[0][8])
        now = end if p == "S" else now + issue
        for e in group:
            if p != "S" and e[5] == "UB":
                recent.append((e[6], e[7], end))
            if e[1] == "write" or p == "S":
                moved[p] = moved.get(p, 0) + e[3]
        spans.append((0, p, api, group[0][4], start, cost))
    return max(now, *free.values()), busy, spans, {p: len(numbers[p]) for p in PIPES}, moved


SPACES = ("UB", "GM x", "GM y")
access = st.tuples(
    st.sampled_from(PIPES),
    st.sampled_from(["read", "write"]),
    st.just("DataCopy"),
    st.integers(0, 4096),
    st.just("k.py:1"),
    st.sampled_from(SPACES),
    st.integers(0, 512),
    st.integers(1, 256),
    st.integers(1, 6),
    st.sampled_from(["", "CACHE_MODE_DISABLE"]),
).map(lambda e: (*e[:6], e[6], e[6] + e[7], *e[8:]))
sync = st.tuples(
    st.sampled_from([*PIPES, "ALL"]),
    st.sampled_from(["set", "wait", "barrier"]),
    st.sampled_from(["SetFlag<V_MTE2>(0)", "WaitFlag<V_MTE2>(0)", "SetFlag<MTE2_V>(1)", "WaitFlag<MTE2_V>(1)", "PipeBarrier"]),
    st.just(0),
    st.just("k.py:2"),
    st.just(""),
    st.just(0),
    st.just(0),
    st.integers(0, 6),
    st.just(""),
).filter(lambda e: e[0] != "ALL" or e[1] == "barrier")


#: a log whose every rule counts: an L2-bypassing copy, a scalar read after a copy into its bytes (it waits for it) and
#: one of GM, a flag set and waited on by another pipe, a PIPE_ALL barrier, a V instruction priced by its VF
EVERY_RULE = [
    ("MTE2", "read", "DataCopy", 8192, "k.py:1", "GM x", 0, 8192, 1, "CACHE_MODE_DISABLE"),
    ("MTE2", "write", "DataCopy", 8192, "k.py:1", "UB", 0, 8192, 1, ""),
    ("MTE2", "set", "SetFlag<MTE2_V>(0)", 0, "k.py:2", "", 0, 0, 1, ""),
    ("V", "wait", "WaitFlag<MTE2_V>(0)", 0, "k.py:3", "", 0, 0, 0, ""),
    ("V", "read", "LoadAlign", 8192, "k.py:4", "UB", 0, 8192, 1, ""),
    ("V", "write", "StoreAlign", 8192, "k.py:4", "UB", 8192, 16384, 1, ""),
    ("S", "read", "GetValue", 2, "k.py:5", "UB", 8192, 8194, 1, ""),
    ("S", "read", "GetValue", 2, "k.py:6", "GM y", 0, 2, 2, ""),
    ("ALL", "barrier", "PipeBarrier<PIPE_ALL>", 0, "k.py:7", "", 0, 0, 0, ""),
    ("MTE3", "read", "DataCopy", 4096, "k.py:8", "UB", 8192, 12288, 1, ""),
    ("MTE3", "write", "DataCopy", 4096, "k.py:8", "GM z", 0, 4096, 1, ""),
]


@settings(max_examples=60, deadline=None)
@example(events=EVERY_RULE, vf={1: 77.0})
@example(events=EVERY_RULE, vf={})
@given(events=st.lists(st.one_of(access, access, sync), max_size=40), vf=st.dictionaries(st.integers(1, 6), st.floats(1, 500)))
def test_schedule_is_the_oracles(events: list[tuple[Any, ...]], vf: dict[int, float]) -> None:
    """The timeline, its busy cycles, spans, instruction counts and bytes moved are the oracle's, bit for bit."""
    table = load()
    got = prof.schedule(0, events, vf, table)
    end, busy, spans, instructions, moved = oracle(events, vf, table)
    assert got.end == end and got.busy == busy and [tuple(s) for s in got.spans] == spans
    assert got.instructions == instructions and list(got.moved.items()) == list(moved.items())


def test_repeated_kernel_calls_profile_as_their_loops(loops: str) -> None:
    """Case 2's repeated Adds under `rs.profile`: the first of their kind runs its loop, the others are given its
    records and run as `run_in_kernel` runs them, those after each core's first through `Binary.quick` (run_binary
    given the known plan); the profile is running every loop's, the pipes' records a plain launch's. (The calls are
    counted by a profiling hook: a wrapper's frame would be taken for the kernel's line.)"""
    rng = np.random.default_rng(2)
    x = rng.uniform(1, 100, [8, 8192]).astype(np.float16)
    y = rng.uniform(1, 100, [8, 8192]).astype(np.float16)
    kw: dict[str, Any] = dict(total_m=8, total_n=8192, split_m=2, split_n=1, data_copy_len=ahp.CASES[2][2], scenario=2)

    def run() -> tuple[rs.Profile, Any]:
        z = np.zeros_like(x)
        with rs.configure(ub_size=ahp.UB_SIZE):
            return rs.profile(ahp.add_custom, x, y, z, block_dim=2, **kw), z

    with rs.configure(ub_size=ahp.UB_SIZE):
        plain = rs.launch(ahp.add_custom, 2, x, y, np.zeros_like(x), **kw)
    direct._RECORDED.clear()
    calls: collections.Counter[str] = collections.Counter()
    watched = {direct.run_in_kernel.__code__, checks.run_lowering.__code__, direct.run_binary.__code__}

    def hook(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in watched:
            name = frame.f_code.co_name
            calls[name if name != "run_binary" or frame.f_locals["plan"] is None else "run_binary given a plan"] += 1

    threading.setprofile(hook)  # (the blocks' threads)
    try:
        got, z = run()
    finally:
        threading.setprofile(None)
    with mock.patch.object(direct, "run_binary", lambda *a: False):
        want, z_loop = run()
    # 8 tiles of 4096 a core, one kind of Add: the first runs the loop, the other 15 are given its records
    assert calls["run_lowering"] == 1 and calls["run_in_kernel"] == 15 and calls["run_binary given a plan"] >= 14
    assert np.array_equal(z, x + y) and np.array_equal(z, z_loop) and got.run is not None and got.run.events == plain.events
    assert (got.counts, got.bytes, got.cycles, got.pipe_cycles) == (want.counts, want.bytes, want.cycles, want.pipe_cycles)
    assert got.bank_conflicts == want.bank_conflicts and got.vfs == want.vfs and got.spans == want.spans


@pytest.mark.parametrize("case", [1, 6, 10, 12])
def test_kept_vf_costs_are_the_vfs(case: int, loops: str) -> None:
    """A VF priced again from records of the same content (`kept_vf_cost`) is priced as `vf_cost` prices its own
    records, each run given its own copy; a VF with a gather or scatter (case 10), or a batched access not an exact box
    (case 12's DataBlock accesses batched), is not kept."""
    x, y = bc.inputs(case, np.random.default_rng(case))
    prof._VFS.clear()
    runs = []
    for _ in range(2):
        _, args, vf = bc.setup(case, x, y)
        with trace(detailed=True) as t:
            vf(*args)
        runs.append((t.records, prof.kept_vf_cost(t.records, load())))
    (first, kept_first), (again, kept_again) = runs
    assert kept_first == prof.vf_cost(first, load()) and kept_again == prof.vf_cost(again, load())
    boxes = all(not r.points and None not in r.boxes for r in first)  # (no gather, every batched access a box)
    assert len(prof._VFS) == boxes and kept_again is not kept_first and (boxes or case in (10, 12))
    kept_again.counts["load"] += 1  # (its own copy: the kept one unchanged)
    assert prof.kept_vf_cost(again, load()) == kept_first
