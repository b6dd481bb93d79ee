"""The add_high_performance walkthrough's kernel (vf_examples/add_high_performance.py): its seven cases against numpy's
half sum in both loop modes, in order and in worker processes, and the race detector on it: each SetFlag/WaitFlag
pair of the single- and double-buffered bodies removed in turn is a RaceError, or is shown redundant by the pipe
rules (the run is clean, gives the same bits, and the pipe log shows what makes the pair unnecessary).

A pair is removed by dropping the two calls at run time (the example stays as written): `_drop` replaces
`A.SetFlag` / `A.WaitFlag` by wrappers that skip the calls a rule picks by their line in the example and the loop's
`loop_idx`.
"""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import regsim as rs
from vf_examples import add_high_performance as ex

A = rs.AscendC
HE = A.HardEvent
#: small enough to be quick, four tiles a core so that double buffering reaches its steady state
ROWS, COLS, CORES, TILE = 4, 1024, 2, 512


def _data(seed: int = 0, rows: int = ROWS, cols: int = COLS) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    return tuple(rng.uniform(1, 100, [rows, cols]).astype(np.float16) for _ in range(2))  # type: ignore[return-value]


def _assert_sum(z: Any, x: Any, y: Any) -> None:
    assert np.array_equal(z.view(np.uint16), (x + y).view(np.uint16))  # numpy's half sum: one rounding of the exact sum


@pytest.mark.parametrize("scenario", range(7))
def test_each_case_adds(scenario: int, loops: str) -> None:
    z, x, y = _run(scenario, loops)
    _assert_sum(z, x, y)


def test_the_vendor_tile_lengths_and_a_partial_last_tile(loops: str) -> None:
    """Case 3 with dataCopyLen 21760 on 2 x 16384 halves a core: a whole tile, then 10 KiB of the next."""
    rng = np.random.default_rng(3)
    x, y = (rng.uniform(1, 100, [4, 16384]).astype(np.float16) for _ in range(2))
    _assert_sum(ex.run_case(3, x, y, 2, ex.CASES[3][2]), x, y)


def test_worker_processes_give_the_in_order_bits(loops: str) -> None:
    x, y = _data(5)
    in_order = ex.run_case(4, x, y, 4, 256)
    in_workers = ex.run_case(4, x, y, 4, 256, workers=2)
    assert np.array_equal(in_order.view(np.uint16), in_workers.view(np.uint16))
    _assert_sum(in_workers, x, y)


def test_the_example_passes() -> None:
    for name, (got, expected) in ex.run(0).items():
        assert np.array_equal(got.view(np.uint16), expected.view(np.uint16)), name


# --- removing SetFlag/WaitFlag pairs ------------------------------------------------------------------------------
Rule = Callable[[str, dict[str, Any]], bool]  #: (the call's source line, the caller's locals) -> drop it


def _line(method: Callable[..., Any], text: str, which: int = 0) -> int:
    """The line number of the `which`-th line of `method` that is `text` (stripped)."""
    lines, first = inspect.getsourcelines(method)
    found = [first + k for k, line in enumerate(lines) if line.strip() == text]
    assert len(found) > which, f"{text!r} is not in {method.__name__}"
    return found[which]


@pytest.fixture
def drop(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[dict[int, Rule]], None]]:
    """drop({line: rule}): skip the SetFlag / WaitFlag calls made at those lines of the example when the rule says."""

    def install(rules: dict[int, Rule]) -> None:
        for name in ("SetFlag", "WaitFlag"):
            original = getattr(A, name)

            def wrapper(event_id: int, *, event: Any, _original: Any = original) -> None:
                frame = sys._getframe(1)
                rule = rules.get(frame.f_lineno) if frame.f_code.co_filename == ex.__file__ else None
                if rule is None or not rule(frame.f_code.co_name, frame.f_locals):
                    _original(event_id, event=event)

            monkeypatch.setattr(A, name, wrapper)

    yield install


def always(method: str, local: dict[str, Any]) -> bool:
    return True


def _run(scenario: int, loops: str) -> tuple[Any, Any, Any]:
    """The case on 4 x 1024 halves (2 cores, 4 tiles of 512 each); the scalar case on 4 tiles of 64 (a scalar loop
    costs some 20 us an element)."""
    if scenario == 0:
        x, y = _data(0, 1, 256)
        return ex.run_case(0, x, y, 1, 64), x, y
    x, y = _data(scenario)
    return ex.run_case(scenario, x, y, 1 if scenario < 2 else CORES, TILE), x, y


def _launch(scenario: int, workers: int | None = None) -> tuple[rs.KernelRun, tuple[Any, Any, Any]]:
    """The kernel launched on `_data(scenario)` as main() launches it (CORES cores, tiles of TILE): the run and
    (z, x, y)."""
    x, y = _data(scenario)
    z = np.zeros_like(x)
    with rs.configure(ub_size=ex.UB_SIZE):
        run = rs.launch(
            ex.add_custom,
            CORES,
            x,
            y,
            z,
            total_m=ROWS,
            total_n=COLS,
            split_m=CORES,
            split_n=1,
            data_copy_len=TILE,
            scenario=scenario,
            workers=workers,
        )
    return run, (z, x, y)


SINGLE = {  # Process: each pair is a SetFlag and the WaitFlag that consumes it (the next iteration's, or the same one's)
    "V_MTE2": ("A.SetFlag(A.EVENT_ID0, event=HE.V_MTE2)", "A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE2)"),
    "MTE2_V": ("A.SetFlag(A.EVENT_ID0, event=HE.MTE2_V)", "A.WaitFlag(A.EVENT_ID0, event=HE.MTE2_V)"),
    "MTE3_V": ("A.SetFlag(A.EVENT_ID0, event=HE.MTE3_V)", "A.WaitFlag(A.EVENT_ID0, event=HE.MTE3_V)"),
    "V_MTE3": ("A.SetFlag(A.EVENT_ID0, event=HE.V_MTE3)", "A.WaitFlag(A.EVENT_ID0, event=HE.V_MTE3)"),
}
#: what each removal lets the hardware do: (the pipe that is early, the pipe it overtakes)
SINGLE_RACES = {
    "V_MTE2": ("MTE2 writes", "V read"),
    "MTE2_V": ("V reads", "MTE2 wrote"),
    "MTE3_V": ("V writes", "MTE3 read"),
    "V_MTE3": ("MTE3 reads", "V wrote"),
}


@pytest.mark.parametrize("pair", sorted(SINGLE))
def test_single_buffered_pair_removed_is_a_race(pair: str, loops: str, drop: Any) -> None:
    """Cases 1-3 (`Process`): without any one of its four pairs, one pipe reaches bytes another has not finished
    with; the error names both accesses."""
    drop({_line(ex.KernelAdd.Process, text): always for text in SINGLE[pair]})
    with pytest.raises(rs.errors.RaceError) as e:
        _run(2, loops)
    early, late = SINGLE_RACES[pair]
    assert early in str(e.value) and late in str(e.value) and "add_high_performance.py:" in str(e.value)


@pytest.mark.parametrize("pair", sorted(SINGLE))
def test_scalar_case_pair_removed_is_redundant(pair: str, loops: str, drop: Any) -> None:
    """Case 0 (`ProcessScalar`): its loop reads and writes UB through LocalTensor.GetValue / SetValue, which the
    compiler synchronises with every pipe itself (cce-auto-sync); the V pipe does nothing. So no pair orders
    anything: removed, the run is clean and its sum the same."""
    drop({_line(ex.KernelAdd.ProcessScalar, text): always for text in SINGLE[pair]})
    z, x, y = _run(0, loops)
    _assert_sum(z, x, y)


def _steady(kind: str) -> Callable[[str, dict[str, Any]], bool]:
    """In the loop, the SetFlag whose WaitFlag comes two iterations later (kind "set"), or that WaitFlag ("wait")."""
    if kind == "set":
        return lambda m, local: local["loop_idx"] + 2 < local["total_blocks"]
    return lambda m, local: local["loop_idx"] >= 2


def _at(first: bool, event_id: int) -> Callable[[str, dict[str, Any]], bool]:
    """In the loop, at the first (or last) iteration of event id `event_id`."""

    def rule(m: str, local: dict[str, Any]) -> bool:
        i, n = local["loop_idx"], local["total_blocks"]
        return (i == event_id) if first else (i % 2 == event_id and i >= n - 2)

    return rule


DB = ex.KernelAdd.ProcessDoubleBuffer


def _db(text: str, which: int = 0) -> int:
    return _line(DB, text, which)


IN_LOOP = {
    "MTE2_V": {_db("A.SetFlag(event_id, event=HE.MTE2_V)"): always, _db("A.WaitFlag(event_id, event=HE.MTE2_V)"): always},
    "V_MTE3": {_db("A.SetFlag(event_id, event=HE.V_MTE3)"): always, _db("A.WaitFlag(event_id, event=HE.V_MTE3)"): always},
    "V_MTE2 (steady state)": {
        _db("A.SetFlag(event_id, event=HE.V_MTE2)"): _steady("set"),
        _db("A.WaitFlag(event_id, event=HE.V_MTE2)"): _steady("wait"),
    },
    "MTE3_V (steady state)": {
        _db("A.SetFlag(event_id, event=HE.MTE3_V)"): _steady("set"),
        _db("A.WaitFlag(event_id, event=HE.MTE3_V)"): _steady("wait"),
    },
}
DB_RACES = {
    "MTE2_V": "V reads",
    "V_MTE3": "MTE3 reads",
    "V_MTE2 (steady state)": "MTE2 writes",
    "MTE3_V (steady state)": "V writes",
}


@pytest.mark.parametrize("pair", sorted(IN_LOOP))
def test_double_buffered_pair_removed_is_a_race(pair: str, loops: str, drop: Any) -> None:
    """Cases 4-6 (`ProcessDoubleBuffer`): the pairs inside the loop, and the V_MTE2 / MTE3_V pairs of the steady
    state (a SetFlag of iteration i and the WaitFlag of iteration i + 2, on the same buffers), each removed: a race."""
    drop(IN_LOOP[pair])
    with pytest.raises(rs.errors.RaceError) as e:
        _run(4, loops)
    assert DB_RACES[pair] in str(e.value)


EDGES = {  # the prologue's SetFlag and the first WaitFlag of its id; the last SetFlag of an id and the epilogue's WaitFlag
    f"{event} {edge} (EVENT_ID{n})": {
        (
            _db(f"A.SetFlag(A.EVENT_ID{n}, event=HE.{event})")
            if edge == "prologue"
            else _db(f"A.SetFlag(event_id, event=HE.{event})")
        ): (always if edge == "prologue" else _at(False, n)),
        (
            _db(f"A.WaitFlag(event_id, event=HE.{event})")
            if edge == "prologue"
            else _db(f"A.WaitFlag(A.EVENT_ID{n}, event=HE.{event})")
        ): (_at(True, n) if edge == "prologue" else always),
    }
    for event in ("V_MTE2", "MTE3_V")
    for edge in ("prologue", "epilogue")
    for n in (0, 1)
}


@pytest.mark.parametrize("pair", sorted(EDGES))
def test_double_buffered_edge_pair_removed_is_redundant(pair: str, loops: str, drop: Any) -> None:
    """The pairs at the loop's edges order nothing: before an id's first iteration no pipe has touched its
    buffers, after its last one nothing touches them again (the kernel ends). Removed, the run is clean, its sum
    the same, and the pipe log shows why: for a pair Q_P, the prologue's, P's first access to the id's buffers
    comes before any access of Q to them; the epilogue's, P makes none after Q's last."""
    drop(EDGES[pair])
    run, arrays = _launch(4)
    _assert_sum(*arrays)
    event, edge, n = pair.split()[0], pair.split()[1], int(pair[-2])
    q, p = event.split("_")
    bufs = [(a, a + ex.MAX_DATA_COPY_LEN * 2) for a in ex.PING_PONG_ADDRS[3 * n : 3 * n + 3]]
    for events in run.events:
        touches = [e.pipe for e in events if e.space == "UB" and e.pipe in (p, q) and any(a < e.hi and e.lo < b for a, b in bufs)]
        if edge == "prologue":
            assert touches.index(p) < touches.index(q)
        else:
            assert p not in touches[len(touches) - touches[::-1].index(q) :]


# --- the pipe event log (what a cost model reads) ------------------------------------------------------------------
@pytest.mark.parametrize("scenario", [2, 4])
def test_the_event_log_is_one_record_an_access_of_each_instruction(scenario: int) -> None:
    """Per tile of TILE halves: MTE2 two copies (GM x, GM y -> UB), V one vector function (the Add: two tensors
    loaded, one stored), MTE3 one copy (UB -> GM z); each copy's records share its instruction number, the VF's
    bytes are its whole loop's; the log is the same in both loop modes and in worker processes."""
    with rs.configure(loops="sequential"):
        sequential = _launch(scenario)[0]
    auto = _launch(scenario)[0]
    assert sequential.events == auto.events == _launch(scenario, workers=2)[0].events
    tile = TILE * 2
    tiles = ROWS * COLS // CORES // TILE
    for block in range(CORES):
        moves = [(e.pipe, e.kind, e.space, e.nbytes, e.instr) for e in auto.events[block] if e.kind in ("read", "write")]
        expected = []
        for t in range(tiles):
            expected += [("MTE2", "read", "GM x", tile, 2 * t + 1), ("MTE2", "write", "UB", tile, 2 * t + 1)]
            expected += [("MTE2", "read", "GM y", tile, 2 * t + 2), ("MTE2", "write", "UB", tile, 2 * t + 2)]
            expected += [("V", "read", "UB", 2 * tile, t + 1), ("V", "write", "UB", tile, t + 1)]
            expected += [("MTE3", "read", "UB", tile, t + 1), ("MTE3", "write", "GM z", tile, t + 1)]
        assert moves == expected
        gm = [(e.space, e.lo, e.hi) for e in auto.events[block] if e.space.startswith("GM")]
        base = block * tiles * tile  # (this core's rows of x, y and z)
        assert gm == [(f"GM {n}", base + t * tile, base + (t + 1) * tile) for t in range(tiles) for n in "xyz"]
