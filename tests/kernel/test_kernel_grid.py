"""A grid of cores: each block its own core (UB, CTRL, masks), GM shared and written in place, SyncAll, the
cross-core GM race check, worker processes giving the in-order bits, the launch's arguments and spellings. The
kernel examples (add_tpipe_tque, sync_all, data_copy_pad) run in both loop modes and in workers."""

from __future__ import annotations

import multiprocessing
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import regsim as rs
from regsim._src.kernel import launch as launch_module
from regsim._src.kernel.launch import check_gm_races
from vf_examples import add_high_performance, add_tpipe_tque, data_copy_pad, sync_all

A = rs.AscendC


@pytest.mark.parametrize("example", [add_tpipe_tque, sync_all, data_copy_pad], ids=lambda m: m.__name__.rpartition(".")[2])
def test_the_kernel_examples_pass(example: Any, loops: str) -> None:
    for name, (got, expected) in example.run(1).items():
        assert got.dtype == expected.dtype and np.array_equal(got.view(np.uint8), expected.view(np.uint8)), name


def test_workers_give_the_in_order_bits_across_sync_all(loops: str) -> None:
    x = np.random.default_rng(2).uniform(-10, 10, sync_all.TOTAL_LENGTH).astype(np.float32)
    in_order = sync_all.launch(x)
    for workers in (2, 3):
        assert np.array_equal(sync_all.launch(x, workers=workers).view(np.uint32), in_order.view(np.uint32))


def _barrier_only() -> None:
    A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)


def test_without_sync_all_the_workspace_reads_race(monkeypatch: pytest.MonkeyPatch, loops: str) -> None:
    """SyncAll's barrier kept, its wait for the other cores dropped: a core reads another core's share of the
    workspace while that core may still be writing it."""
    monkeypatch.setattr(A, "SyncAll", _barrier_only)
    with pytest.raises(rs.errors.RaceError) as e:
        sync_all.launch(np.ones(sync_all.TOTAL_LENGTH, np.float32))
    said = str(e.value)
    assert said.startswith("GM work_gm bytes [0, 128): block 0 writes them (DataCopy on MTE3, at sync_all.py:")
    assert "block 1 reads them (DataCopy on MTE2, at sync_all.py:" in said and "no SyncAll between" in said


def test_without_sync_all_its_barrier_is_missed_too(monkeypatch: pytest.MonkeyPatch, loops: str) -> None:
    """SyncAll dropped altogether: its PipeBarrier<PIPE_ALL> was also what let the Adds overwrite dstLocal after
    MTE3 copied it to the workspace."""
    monkeypatch.setattr(A, "SyncAll", lambda: None)
    with pytest.raises(rs.errors.RaceError, match=r"V writes UB bytes \[128, 256\) that MTE3 read at sync_all.py:"):
        sync_all.launch(np.ones(sync_all.TOTAL_LENGTH, np.float32))


def test_a_race_found_in_a_worker_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(A, "SyncAll", _barrier_only)
    with pytest.raises(rs.errors.RaceError, match="GM work_gm bytes"):
        sync_all.launch(np.ones(sync_all.TOTAL_LENGTH, np.float32), workers=2)


@rs.kernel
def each_writes(out: rs.GmPtr[rs.int32], *, stride: int, sync: bool) -> None:
    """Block i writes element i * stride with SetValue; then (after a SyncAll, if asked) reads its neighbour's."""
    g = A.GlobalTensor(rs.int32)
    g.SetGlobalBuffer(out)
    i, n = A.GetBlockIdx(), A.GetBlockNum()
    g.SetValue(i * stride, 10 + i)
    if sync:
        A.SyncAll()
    g.SetValue((n + i) * stride, g.GetValue(((i + 1) % n) * stride))


@pytest.mark.parametrize("stride", [16, 4])
def test_set_value_writes_whole_cache_lines(stride: int, loops: str) -> None:
    """SetValue writes its 64-byte data-cache line back (the GlobalTensor SetValue page): cores 16 bytes apart share
    a line and race, 64 bytes apart they do not."""
    out = np.zeros(256, np.int32)
    if stride == 4:
        with pytest.raises(rs.errors.RaceError, match=r"GlobalTensor\.SetValue"):
            each_writes[4](out, stride=stride, sync=True)
    else:
        each_writes[4](out, stride=stride, sync=True)
        assert out[64:128:16].tolist() == [11, 12, 13, 10]


def test_a_sync_all_some_blocks_never_reach_is_an_error(loops: str) -> None:
    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8]) -> None:
        if A.GetBlockIdx() != 2:
            A.SyncAll()

    with pytest.raises(rs.errors.SyncError, match=r"block 0 waits at test_kernel_grid.py:\d+ while blocks \[2\] ended"):
        rs.launch(k, 3, np.zeros(32, np.uint8))


def test_each_block_has_its_own_core_and_ub(loops: str) -> None:
    seen: list[tuple[int, int, Any, Any]] = []

    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8]) -> None:
        t = A.LocalTensor(rs.uint8, A.TPosition.VECCALC, 0, 32)
        A.SetCtrlSpr(A.GetBlockIdx() & 1, start_bit=53, end_bit=53)
        seen.append((A.GetBlockIdx(), A.GetBlockNum(), t.ub, A.GetCtrlSpr(start_bit=53, end_bit=53)))

    rs.launch(k, 3, np.zeros(32, np.uint8))
    assert [(i, n, ctrl) for i, n, _, ctrl in seen] == [(0, 3, 0), (1, 3, 1), (2, 3, 0)]
    assert len({id(ub) for _, _, ub, _ in seen}) == 3


def test_init_soc_state_puts_the_launch_values_back() -> None:
    seen: list[int] = []

    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8]) -> None:
        A.SetCtrlSpr(1, start_bit=53, end_bit=53)
        A.InitSocState()
        seen.append(A.GetCtrlSpr(start_bit=53, end_bit=53))

    rs.launch(k, 1, np.zeros(32, np.uint8))
    assert seen == [0]


def test_init_soc_state_keeps_ctrl_bit_48_and_sets_the_deq_scale() -> None:
    """The 950 library's InitSocState (which the TPipe constructor calls): CTRL is the library's default with bit 48
    as it was, and the SetDeqScale scale 1, so int32 -> half Cast gives the integers as halves."""
    x = np.arange(-32, 32, dtype=np.int32) * 1000
    seen: list[tuple[str, int, Any]] = []

    @rs.kernel
    def k(g: rs.GmPtr[rs.uint8]) -> None:
        src = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, 64)
        dst = A.LocalTensor(rs.half, A.TPosition.VECCALC, 256, 64)
        src.set(x)
        A.Cast(dst, src, A.RoundMode.CAST_NONE, 64)
        seen.append(("launch", A.GetCtrlSpr(start_bit=48, end_bit=48), dst.numpy().copy()))
        A.SetCtrlSpr(0, start_bit=48, end_bit=48)
        A.InitSocState()
        A.Cast(dst, src, A.RoundMode.CAST_NONE, 64)
        seen.append(("InitSocState", A.GetCtrlSpr(start_bit=48, end_bit=48), dst.numpy().copy()))

    @rs.kernel
    def with_pipe(g: rs.GmPtr[rs.uint8]) -> None:
        pipe = A.TPipe()
        src = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, 64)
        dst = A.LocalTensor(rs.half, A.TPosition.VECCALC, 256, 64)
        src.set(x)
        A.Cast(dst, src, A.RoundMode.CAST_NONE, 64)
        seen.append(("TPipe", A.GetCtrlSpr(start_bit=48, end_bit=48), dst.numpy().copy()))
        pipe.Destroy()

    rs.launch(k, 1, np.zeros(32, np.uint8))
    rs.launch(with_pipe, 1, np.zeros(32, np.uint8))
    halves = x.astype(np.float16)  # |x| <= 32000: 1 * x rounded once to half
    assert [s for s, _, _ in seen] == ["launch", "InitSocState", "TPipe"]
    assert not np.any(seen[0][2]), "the scale is 0 before InitSocState"
    assert seen[0][1] == 1 and seen[1][1] == 0 and seen[2][1] == 1
    assert np.array_equal(seen[1][2], halves) and np.array_equal(seen[2][2], halves)


def test_the_launch_binds_its_arguments() -> None:
    seen: dict[str, Any] = {}

    @rs.kernel
    def k(a: rs.GmPtr[rs.half], b: Any, n: int, ws: rs.GmPtr[rs.uint8], *, scale: int = 1) -> None:
        seen.update(a=a, b=b, n=n, ws=A.GetUserWorkspace(ws), scale=scale)

    x = np.zeros(64, np.float16)
    k[1, None, "stream"](x, x, 5, np.zeros(32, np.uint8), scale=3)
    assert seen["a"].dtype is rs.half and seen["b"].dtype is rs.uint8 and seen["a"].buf is seen["b"].buf
    assert (seen["n"], seen["scale"], seen["ws"].buf.name) == (5, 3, "ws")


LAUNCH_MISTAKES = [
    ("a kernel called like a function", lambda k, x: k(x), rs.errors.VfContextError, "rs.launch(k, block_dim"),
    ("a block_dim of 0", lambda k, x: rs.launch(k, 0, x), rs.errors.ParameterError, "block_dim = 0"),
    ("an argument too many", lambda k, x: rs.launch(k, 1, x, x), rs.errors.ParameterError, "extra positional"),
    ("a list for a GmPtr", lambda k, x: rs.launch(k, 1, [1, 2]), rs.errors.ParameterError, "a numpy array"),
    ("a strided array", lambda k, x: rs.launch(k, 1, x[::2]), rs.errors.ParameterError, "C-contiguous"),
    ("not a kernel", lambda k, x: rs.launch(print, 1, x), rs.errors.ParameterError, "@rs.kernel"),
    ("a bad launch configuration", lambda k, x: k[1, 5](x), rs.errors.ParameterError, "[block_dim, None, stream]"),
]


@pytest.mark.parametrize("case", LAUNCH_MISTAKES, ids=[c[0] for c in LAUNCH_MISTAKES])
def test_launch_mistakes(case: tuple[Any, ...]) -> None:
    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8]) -> None:
        pass

    _, call, error, says = case
    with pytest.raises(error) as e:
        call(k, np.zeros(64, np.uint8))
    assert says in str(e.value)


def test_overlapping_arrays_are_refused() -> None:
    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8], y: rs.GmPtr[rs.uint8]) -> None:
        pass

    base = np.zeros(64, np.uint8)
    with pytest.raises(rs.errors.ParameterError, match="sharing memory with x"):
        rs.launch(k, 1, base[:32], base[16:])


def test_a_block_error_names_its_block(loops: str) -> None:
    @rs.kernel
    def k(x: rs.GmPtr[rs.float32]) -> None:
        g = A.GlobalTensor(rs.float32)
        g.SetGlobalBuffer(x, 4)
        g.GetValue(4 * A.GetBlockIdx())

    with pytest.raises(rs.errors.OutOfBoundsError) as e:
        rs.launch(k, 2, np.zeros(8, np.float32))
    assert "GlobalTensor[float32] on GM x" in str(e.value) and "(in block 1 of 2 of kernel" in "".join(e.value.__notes__)


def test_global_tensor_values_offsets_and_size(loops: str) -> None:
    """GetValue / SetValue on the host's array itself (no copy), `g[off]` starting `off` elements in, GetSize, and a
    pointer cast: each block negates its half of x through a GlobalTensor at its offset."""
    seen: list[tuple[int, int, int]] = []

    @rs.kernel
    def k(x: rs.GmPtr[rs.uint8], n: int) -> None:
        g = A.GlobalTensor(rs.int16)
        g.SetGlobalBuffer(x.reinterpret(rs.int16) + n * A.GetBlockIdx(), n)
        h = g[1]
        seen.append((g.GetSize(), h.GetSize(), int(h.GetValue(0))))
        for i in range(n):
            g.SetValue(i, -int(g.GetValue(i)))

    x = np.arange(1, 65, dtype=np.int16)
    rs.launch(k, 2, x, 32)  # (32 elements a block: SetValue writes back whole 64-byte cache lines)
    assert x.tolist() == list(range(-1, -65, -1))
    assert seen == [(32, 32, 2), (32, 32, 34)]  # (g[off] keeps the size, as in C++)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(0, 3),  # block
            st.sampled_from(["GM x", "GM y"]),
            st.booleans(),  # a write
            st.lists(st.tuples(st.integers(0, 60), st.integers(1, 12)), min_size=1, max_size=3),  # (start, length)s
        ),
        max_size=10,
    )
)
def test_the_gm_race_check_finds_exactly_the_overlapping_pairs(accesses: list[tuple[int, str, bool, list[Any]]]) -> None:
    """Two blocks race where they touch a byte in one memory, one of them writing (a pairwise oracle); access ranges
    given as an int pair or as arrays of several ranges, as the pipes log them."""
    logs: dict[int, list[Any]] = {}
    for block, space, write, spans in accesses:
        lo = np.array(sorted(s for s, _ in spans), np.int64)
        hi = lo + np.array([n for _, n in spans], np.int64)
        ranges = (int(lo[0]), int(hi[0])) if len(spans) == 1 else (lo, hi)
        logs.setdefault(block, []).append((space, write, ranges, 2, "DataCopy", f"k.py:{block}"))

    def touched(ranges: Any) -> set[int]:
        return {b for lo, hi in zip(np.atleast_1d(ranges[0]), np.atleast_1d(ranges[1]), strict=True) for b in range(lo, hi)}

    flat = [(b, a[0], a[1], touched(a[2])) for b, log in logs.items() for a in log]
    race = any(b1 != b2 and s1 == s2 and (w1 or w2) and t1 & t2 for b1, s1, w1, t1 in flat for b2, s2, w2, t2 in flat)
    if race:
        with pytest.raises(rs.errors.RaceError):
            check_gm_races(sorted(logs.items()))
    else:
        check_gm_races(sorted(logs.items()))


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_see_set_values_of_other_workers_after_sync_all(workers: int) -> None:
    """Blocks of other workers write before the SyncAll (SetValue: whole cache lines) and are read after it: each
    worker's GM is its own until the first SyncAll, the shared memory from there on; the bits are the in-order run's."""
    in_order = np.zeros(512, np.int32)
    each_writes[6](in_order, stride=16, sync=True)
    assert in_order[96:192:16].tolist() == [11, 12, 13, 14, 15, 10]
    out = np.zeros(512, np.int32)
    each_writes[6](out, stride=16, sync=True, workers=workers)
    assert np.array_equal(out, in_order)


def test_spawned_workers_give_the_in_order_bits_and_events(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where worker processes are spawned (no fork: they import the kernel's module and get GM in shared memory
    from the start), the bits across SyncAlls, the events and the launch's configuration (a 256 KiB UB) are the
    in-order run's."""
    x = np.random.default_rng(3).uniform(-10, 10, sync_all.TOTAL_LENGTH).astype(np.float32)
    in_order = sync_all.launch(x)
    a = np.random.default_rng(4).uniform(1, 100, [8, 1024]).astype(np.float16)
    b = np.random.default_rng(5).uniform(1, 100, [8, 1024]).astype(np.float16)
    z, z_spawned = np.zeros_like(a), np.zeros_like(a)
    with rs.configure(ub_size=add_high_performance.UB_SIZE):
        run = rs.launch(add_high_performance.add_custom, 2, a, b, z, **_CASE_4)
        monkeypatch.setattr(launch_module, "START_METHOD", "spawn")
        spawned = rs.launch(add_high_performance.add_custom, 2, a, b, z_spawned, **_CASE_4, workers=2)
    assert np.array_equal(z_spawned.view(np.uint16), z.view(np.uint16)) and np.array_equal(z, a + b)
    assert spawned.events == run.events
    assert np.array_equal(sync_all.launch(x, workers=2).view(np.uint32), in_order.view(np.uint32))


_CASE_4 = {"total_m": 8, "total_n": 1024, "split_m": 2, "split_n": 1, "data_copy_len": 512, "scenario": 4}


def test_spawned_workers_need_a_kernel_they_can_import(monkeypatch: pytest.MonkeyPatch) -> None:
    @rs.kernel
    def local(x: rs.GmPtr[rs.uint8]) -> None:
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)

    monkeypatch.setattr(launch_module, "START_METHOD", "spawn")
    with pytest.raises(rs.errors.UnsupportedError, match=r"launch: workers = 2 with kernel local .*top level"):
        rs.launch(local, 2, np.zeros(64, np.uint8), workers=2)


@rs.kernel
def dies_in_block_1(x: rs.GmPtr[rs.uint8]) -> None:
    if A.GetBlockIdx() == 1:
        os._exit(3)


def test_a_worker_that_dies_is_reported() -> None:
    """The launch waits on the workers' reports and their ends together: a worker gone without a report is an
    error naming its exit code, and the others are released."""
    with pytest.raises(RuntimeError, match=r"launch: a worker process died \(exit code 3\)"):
        rs.launch(dies_in_block_1, 2, np.zeros(64, np.uint8), workers=2)


class _DiesWhileLookedAt:
    """A worker seen running at one look and dead (exit code 3) at the next: the launch's wait on the workers must
    not lose it between the two (it once did, and waited for ever on the worker the dead one's barrier held)."""

    def __init__(self) -> None:
        self.looks = 0
        self.read_end, self.write_end = os.pipe()
        os.write(self.write_end, b"x")  # (its end, ready to be waited on)

    @property
    def exitcode(self) -> int | None:
        self.looks += 1
        return None if self.looks == 1 else 3

    @property
    def sentinel(self) -> int:
        return self.read_end

    def join(self) -> None:
        pass


def test_a_worker_that_dies_between_two_looks_is_reported() -> None:
    results, proc = multiprocessing.get_context("fork").SimpleQueue(), _DiesWhileLookedAt()
    try:
        with pytest.raises(RuntimeError, match=r"launch: a worker process died \(exit code 3\)"):
            launch_module._collect(results, [proc])
    finally:
        os.close(proc.read_end)
        os.close(proc.write_end)


@rs.kernel
def killed_at_the_barrier(x: rs.GmPtr[rs.uint8]) -> None:
    if A.GetBlockIdx() == 1:
        os.kill(os.getpid(), 9)  # (block 1's worker killed while block 0's waits at the end of their round)


def test_a_worker_killed_while_another_waits_is_reported() -> None:
    with pytest.raises(RuntimeError, match=r"launch: a worker process died \(exit code -9\)"):
        rs.launch(killed_at_the_barrier, 2, np.zeros(64, np.uint8), workers=2)
