"""The pipes of one core and the race detector: which orderings SetFlag / WaitFlag / PipeBarrier make, the accesses
each pipe makes, and the flag rules (pairs, ids, events of an AIV core). Each kernel runs in both loop modes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim import Reg

A = rs.AscendC
HE = A.HardEvent


def _launch(body: Any, *arrays: Any) -> rs.KernelRun:
    """Run `body(gm)` in a one-block kernel over a 4 KiB float32 GM tensor (the first array)."""

    @rs.kernel
    def k(x: rs.GmPtr[rs.float32]) -> None:
        g = A.GlobalTensor(rs.float32)
        g.SetGlobalBuffer(x, 1024)
        body(g)

    return rs.launch(k, 1, *(arrays or (np.arange(1024, dtype=np.float32),)))


def _t(addr: int, n: int = 64) -> rs.LocalTensor[rs.float32]:
    return A.LocalTensor(rs.float32, A.TPosition.VECCALC, addr, n)


def test_an_ordered_pipeline_runs(loops: str) -> None:
    x = np.arange(1024, dtype=np.float32)

    def body(g: Any) -> None:
        a, b = _t(0), _t(256)
        A.DataCopy(a, g, 64)
        A.SetFlag(0, event=HE.MTE2_V)
        A.WaitFlag(0, event=HE.MTE2_V)
        A.Adds(b, a, np.float32(1), 64)
        A.SetFlag(0, event=HE.V_MTE3)
        A.WaitFlag(0, event=HE.V_MTE3)
        A.DataCopy(g[64], b, 64)

    _launch(body, x)
    assert np.array_equal(x[64:128], np.arange(64, dtype=np.float32) + 1)


@pytest.mark.parametrize("missing", ["MTE2_V", "V_MTE3"])
def test_a_missing_flag_is_a_race_naming_both_accesses(missing: str, loops: str) -> None:
    def body(g: Any) -> None:
        a, b = _t(0), _t(256)
        A.DataCopy(a, g, 64)
        if missing != "MTE2_V":
            A.SetFlag(0, event=HE.MTE2_V)
            A.WaitFlag(0, event=HE.MTE2_V)
        A.Adds(b, a, np.float32(1), 64)
        if missing != "V_MTE3":
            A.SetFlag(0, event=HE.V_MTE3)
            A.WaitFlag(0, event=HE.V_MTE3)
        A.DataCopy(g[64], b, 64)

    with pytest.raises(rs.errors.RaceError) as e:
        _launch(body)
    said = str(e.value)
    early, late = missing.split("_")
    assert f"{late} " in said and f"{early} " in said and "test_kernel_pipes.py:" in said
    assert f"HardEvent.{missing}" in said  # the fix it suggests


def test_copies_of_one_pipe_into_the_same_bytes_need_a_pipe_barrier(loops: str) -> None:
    """Two DataCopies into overlapping UB: MTE2 may run them at once (the DataCopy page: PipeBarrier<PIPE_MTE2>)."""

    def body(g: Any, barrier: bool) -> None:
        A.DataCopy(_t(0), g, 64)
        if barrier:
            A.PipeBarrier(pipe=A.PIPE.PIPE_MTE2)
        A.DataCopy(_t(128), g[64], 64)

    _launch(lambda g: body(g, True))
    with pytest.raises(rs.errors.RaceError, match="PipeBarrier"):
        _launch(lambda g: body(g, False))


def test_vector_functions_keep_their_order(loops: str) -> None:
    """On the 950 V after V needs no barrier (the hardware keeps it), and a UB -> UB DataCopy is a V instruction."""
    x = np.arange(1024, dtype=np.float32)

    def body(g: Any) -> None:
        a, b = _t(0), _t(256)
        A.DataCopy(a, g, 64)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.Adds(b, a, np.float32(2), 64)
        A.DataCopy(a, b, 64)  # V, after V
        A.Muls(b, a, np.float32(3), 64)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        A.DataCopy(g[512], b, 64)

    run = _launch(body, x)
    assert np.array_equal(x[512:576], (np.arange(64, dtype=np.float32) + 2) * 3)
    assert [e.pipe for e in run.events[0] if e.api == "DataCopy"] == ["MTE2", "MTE2", "V", "V", "MTE3", "MTE3"]


def test_a_whole_register_load_is_ordered_by_its_tensor_only(loops: str) -> None:
    """Adds over 40 floats (160 bytes) loads a whole 256-byte register: its last 96 bytes belong to the next
    buffer, which MTE2 fills meanwhile; those lanes are not the tensor's data, so no race."""

    def body(g: Any) -> None:
        a, next_buffer, b = _t(0, 40), _t(160, 64), _t(512)
        A.DataCopy(a, g, 40)
        A.SetFlag(0, event=HE.MTE2_V)
        A.WaitFlag(0, event=HE.MTE2_V)
        A.DataCopy(next_buffer, g[64], 64)  # MTE2, unordered with the Adds
        A.Adds(b, a, np.float32(1), 40)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

    _launch(body)


def test_scalar_pointer_accesses_race_and_get_value_does_not(loops: str) -> None:
    """`p[i]` outside a VF is the scalar pipe, not synchronised by the compiler (the page's counter-example);
    LocalTensor.GetValue is (cce-auto-sync), and its wait for MTE2 holds back every later instruction."""

    def raw(g: Any) -> None:
        a = _t(0)
        A.DataCopy(a, g, 64)
        a.GetPhyAddr()[3] = np.float32(1)

    with pytest.raises(rs.errors.RaceError, match="S writes UB bytes \\[12, 16\\) that MTE2 wrote"):
        _launch(raw)

    def synced(g: Any) -> None:
        a = _t(0)
        A.DataCopy(a, g, 64)
        a.SetValue(3, np.float32(1))
        A.DataCopy(a, g[64], 64)  # after the SetValue, which waited for the first copy: no barrier needed
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

    _launch(synced)


def test_a_wait_of_the_scalar_pipe_holds_back_every_pipe(loops: str) -> None:
    def body(g: Any) -> None:
        A.DataCopy(_t(0), g, 64)
        A.SetFlag(0, event=HE.MTE2_S)
        A.WaitFlag(0, event=HE.MTE2_S)
        A.Adds(_t(256), _t(0), np.float32(1), 64)  # V after the copy: the scalar unit issued it after the wait
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

    _launch(body)


def test_a_synchronised_get_value_waits_only_for_what_it_still_needs(loops: str) -> None:
    """The compiler's waits before a GetValue (cce-auto-sync) are made pipe by pipe, each after the ones before it:
    once it waited for V, which had waited for the first copy, the copy is known complete and no wait for MTE2 is
    added; so a later copy stays unordered to V, and the Adds reading it without a flag race."""

    def body(g: Any) -> None:
        a, c = _t(0), _t(512)
        A.DataCopy(a, g, 64)  # MTE2 1
        A.SetFlag(0, event=HE.MTE2_V)
        A.WaitFlag(0, event=HE.MTE2_V)
        A.Adds(a, a, np.float32(1), 64)  # V, in place: the bytes the copy wrote
        A.DataCopy(c, g[64], 64)  # MTE2 2
        a.GetValue(0)  # waits for V (and, through it, for MTE2 1), not for MTE2 2
        A.Adds(_t(256), c, np.float32(1), 64)

    with pytest.raises(rs.errors.RaceError, match=r"V reads UB bytes \[512, 768\) that MTE2 wrote at test_kernel_pipes.py:"):
        _launch(body)


FLAG_MISTAKES = [
    (
        "WaitFlag with no SetFlag",
        lambda: A.WaitFlag(0, event=HE.MTE2_V),
        rs.errors.SyncError,
        "no SetFlag of the same event and id is pending",
    ),
    (
        "SetFlag twice",
        lambda: (A.SetFlag(1, event=HE.V_MTE2), A.SetFlag(1, event=HE.V_MTE2)),
        rs.errors.SyncError,
        "still pending",
    ),
    (
        "a Set/Wait of different events",
        lambda: (A.SetFlag(0, event=HE.S_MTE3), A.WaitFlag(0, event=HE.MTE3_S)),
        rs.errors.SyncError,
        "WaitFlag<MTE3_S>(0)",
    ),
    ("an event id past 7", lambda: A.SetFlag(8, event=HE.MTE2_V), rs.errors.ParameterError, "event_id = 8"),
    ("a cube event", lambda: A.SetFlag(0, event=HE.M_MTE1), rs.errors.UnsupportedError, "HardEvent.M_MTE1"),
    ("an event given by name", lambda: A.SetFlag(0, event="MTE2_V"), rs.errors.ParameterError, "write A.HardEvent.MTE2_V"),
    ("a barrier of the scalar pipe", lambda: A.PipeBarrier(pipe=A.PIPE.PIPE_S), rs.errors.ParameterError, "PIPE_S"),
    ("a barrier of a cube pipe", lambda: A.PipeBarrier(pipe=A.PIPE.PIPE_M), rs.errors.UnsupportedError, "PIPE.PIPE_M"),
    ("a flag left pending at the end", lambda: A.SetFlag(2, event=HE.V_MTE3), rs.errors.SyncError, "SetFlag<V_MTE3>(2) (set at"),
]


@pytest.mark.parametrize("case", FLAG_MISTAKES, ids=[c[0] for c in FLAG_MISTAKES])
def test_flag_mistakes(case: tuple[Any, ...], loops: str) -> None:
    _, call, error, says = case
    with pytest.raises(error) as e:
        _launch(lambda g: call())
    assert says in str(e.value)


@pytest.mark.parametrize(
    "api",
    [
        lambda: A.SetFlag(0, event=HE.MTE2_V),
        lambda: A.GetBlockIdx(),
        lambda: A.TPipe(),
        lambda: A.LocalTensor(rs.half, A.TPosition.VECCALC, 0, 16),
    ],
)
def test_kernel_apis_outside_a_kernel_are_context_errors(api: Any) -> None:
    with pytest.raises(rs.errors.VfContextError, match="outside a running kernel"):
        api()


def test_kernel_apis_inside_a_vf_are_context_errors(loops: str) -> None:
    @rs.simd_vf
    def vf(p: rs.UbPtr[rs.float32]) -> None:
        A.GetBlockIdx()

    with pytest.raises(rs.errors.VfContextError, match="inside a vector function"):
        _launch(lambda g: vf(_t(0).GetPhyAddr()))


def test_a_reg_level_vf_in_a_kernel_is_the_v_pipe(loops: str) -> None:
    """A kernel's own `__simd_vf__` runs on V: its loads and stores are ordered by the same flags."""
    x = np.arange(1024, dtype=np.float32)

    @rs.simd_vf
    def double(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32]) -> None:
        r = Reg.RegTensor(rs.float32)
        mask = Reg.CreateMask(rs.float32)
        for i in range(2):
            Reg.LoadAlign(r, src + i * 64)
            Reg.Add(r, r, r, mask)
            Reg.StoreAlign(dst + i * 64, r, mask)

    def body(g: Any) -> None:
        a, b = _t(0, 128), _t(512, 128)
        A.DataCopy(a, g, 128)
        A.SetFlag(0, event=HE.MTE2_V)
        A.WaitFlag(0, event=HE.MTE2_V)
        double(b.GetPhyAddr(), a.GetPhyAddr())
        A.SetFlag(0, event=HE.V_MTE3)
        A.WaitFlag(0, event=HE.V_MTE3)
        A.DataCopy(g[256], b, 128)

    run = _launch(body, x)
    assert np.array_equal(x[256:384], np.arange(128, dtype=np.float32) * 2)
    assert {e.api for e in run.pipe_events(0, "V") if e.kind in ("read", "write")} == {"LoadAlign", "StoreAlign"}


def test_gm_events_carry_the_l2_cache_hint() -> None:
    """SetL2CacheHint's mode rides on the GM records of the copies it applies to (for a cost model), nothing else."""
    A = rs.AscendC

    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8], z: rs.GmPtr[rs.uint8]) -> None:
        xg, zg = A.GlobalTensor(rs.float32), A.GlobalTensor(rs.float32)
        xg.SetGlobalBuffer(x.reinterpret(rs.float32), 64)
        zg.SetGlobalBuffer(z.reinterpret(rs.float32), 64)
        xg.SetL2CacheHint(A.CacheMode.CACHE_MODE_DISABLE)
        t = A.LocalTensor(rs.float32, A.TPosition.VECCALC, 0, 64)
        A.DataCopy(t, xg, 64)
        A.SetFlag(A.EVENT_ID0, event=A.HardEvent.MTE2_MTE3)
        A.WaitFlag(A.EVENT_ID0, event=A.HardEvent.MTE2_MTE3)
        A.DataCopy(zg, t, 64)

    x, z = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    run = rs.launch(k, 1, x, z)
    hints = {(e.pipe, e.space): e.l2 for e in run.events[0] if e.kind in ("read", "write")}
    assert hints == {("MTE2", "GM x"): "CACHE_MODE_DISABLE", ("MTE2", "UB"): "", ("MTE3", "UB"): "", ("MTE3", "GM z"): ""}
    np.testing.assert_array_equal(z, x)


def test_a_workers_event_log_is_the_in_order_one() -> None:
    """What a worker process sends back (each block's rows, pickled) gives the in-order run's events, field for field
    (the events of the add example's double-buffered case: flags, copies with an L2 hint, vector functions)."""
    from vf_examples import add_high_performance as ex

    x = np.random.default_rng(3).uniform(1, 100, (8, 4096)).astype(np.float16)
    runs = []
    for workers in (None, 2):
        with rs.configure(ub_size=ex.UB_SIZE):
            runs.append(
                rs.launch(
                    ex.add_custom,
                    4,
                    x,
                    x,
                    np.zeros_like(x),
                    total_m=8,
                    total_n=4096,
                    split_m=4,
                    split_n=1,
                    data_copy_len=2048,
                    scenario=5,
                    workers=workers,
                )
            )
    assert runs[0].events == runs[1].events
    assert any(e.l2 == "CACHE_MODE_DISABLE" for e in runs[1].events[3])  # (the last worker's last block: not vacuous)
