"""A block's repeated `DataCopy`: a call with the static values of one made before (each side's memory and dtype, a
LocalTensor's address and size, a GlobalTensor's L2 hint, the count or params) runs from that call's plan
(`datacopy.Copy`), the checks of those values not made again. Each static value changed one at a time is another call
(checked, planned anew); what the plan may not skip is asked each time: the GM address inside its tensor's region (a
region changed in place too) and aligned, the bytes copied out of the UB written, the pipes' orderings, a queue's freed
buffer. Bytes against numpy's slices of the inputs, pipe logs against the same kernel run with no plan."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim._src.kernel import datacopy
from regsim._src.kernel.block import current_block

A = rs.AscendC
HE = A.HardEvent
N = 128  #: halves a tile
ALL = A.PIPE.PIPE_ALL


def _t(addr: int, n: int = N, dtype: Any = rs.half) -> Any:
    return A.LocalTensor(dtype, A.TPosition.VECCALC, addr, n)


@rs.kernel
def _tiles(x: rs.GmPtr[rs.half], y: rs.GmPtr[rs.half], z: rs.GmPtr[rs.half], plans: list[int]) -> None:
    """z = x tile by tile through the UB (the same two calls each tile), then tiles of other static values: y's buffer,
    a count not filling whole 32-byte blocks, DataCopyParams rows, a UB -> UB copy, x's L2 hint; `plans` gets the
    number of plans the block made."""
    xg, yg, zg = A.GlobalTensor(rs.half), A.GlobalTensor(rs.half), A.GlobalTensor(rs.half)
    xg.SetGlobalBuffer(x, 8 * N)
    yg.SetGlobalBuffer(y, 8 * N)
    zg.SetGlobalBuffer(z, 8 * N)
    a, b = _t(0), _t(1024)
    for k in range(4):  # (one plan for the copy in, one for the copy out)
        A.DataCopy(a, xg[k * N], N)
        A.PipeBarrier(pipe=ALL)
        A.DataCopy(zg[k * N], a, N)
        A.PipeBarrier(pipe=ALL)
    A.DataCopy(a, yg[4 * N], N)  # another buffer
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(zg[4 * N], a, N // 2 + 3)  # another count: N // 2 + 3 halves, rounded down to N // 2 + 0 (32 bytes)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(a, xg[5 * N], A.DataCopyParams(2, 2, 2, 0))  # two rows of 64 bytes, 64 bytes apart in GM
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(b, a, N)  # UB -> UB
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(zg[5 * N], b, 64)
    A.PipeBarrier(pipe=ALL)
    xg.SetL2CacheHint(A.CacheMode.CACHE_MODE_DISABLE)  # the L2 hint: another call (its records carry it)
    A.DataCopy(a, xg[6 * N], N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(zg[6 * N], a, N)
    plans.append(len(current_block("test").copies))


def _launch(x: Any, y: Any) -> tuple[Any, Any, list[int]]:
    z, plans = np.zeros_like(x), []
    return z, rs.launch(_tiles, 1, x, y, z, plans), plans


def test_planned_copies_give_the_bytes_and_the_pipe_log_of_unplanned_ones(loops: str, monkeypatch: pytest.MonkeyPatch) -> None:
    x, y = (np.random.default_rng(s).uniform(-9, 9, 8 * N).astype(np.float16) for s in (1, 2))
    z, run, plans = _launch(x, y)
    expected = np.zeros_like(x)
    expected[: 4 * N] = x[: 4 * N]
    expected[4 * N : 4 * N + N // 2] = y[4 * N : 4 * N + N // 2]
    expected[5 * N : 5 * N + 32], expected[5 * N + 32 : 5 * N + 64] = x[5 * N : 5 * N + 32], x[5 * N + 64 : 5 * N + 96]
    expected[6 * N : 7 * N] = x[6 * N : 7 * N]
    assert np.array_equal(z.view(np.uint16), expected.view(np.uint16))
    assert plans == [8]  # (2 for the tiles, one for each copy after them but the last, the tiles' copy out: not vacuous)
    monkeypatch.setattr(datacopy, "_static", lambda t: None)  # (no plan: every call checked and moved in full)
    z_full, run_full, plans_full = _launch(x, y)
    assert plans_full == [0]
    assert np.array_equal(z_full.view(np.uint16), z.view(np.uint16))
    assert run.events == run_full.events
    l2 = [e.l2 for e in run.events[0] if e.space == "GM x"]
    assert l2 == [""] * 5 + ["CACHE_MODE_DISABLE"]


def _plan_then(last: Any) -> Any:
    """A kernel that copies x's first tile into a and a out to z twice (the second pair from the first's plans), then
    calls `last(a, xg, zg)`."""

    @rs.kernel
    def k(x: rs.GmPtr[rs.half], z: rs.GmPtr[rs.half]) -> None:
        xg, zg = A.GlobalTensor(rs.half), A.GlobalTensor(rs.half)
        xg.SetGlobalBuffer(x, 2 * N)
        zg.SetGlobalBuffer(z, 2 * N)
        a = _t(0)
        for _ in range(2):
            A.DataCopy(a, xg, N)
            A.PipeBarrier(pipe=ALL)
            A.DataCopy(zg, a, N)
            A.PipeBarrier(pipe=ALL)
        assert len(current_block("test").copies) == 2
        last(a, xg, zg)

    return k


def _run(kernel: Any) -> Any:
    x = np.arange(2 * N).astype(np.float16)
    z = np.zeros_like(x)
    rs.launch(kernel, 1, x, z)
    return x, z


def _moved(a: Any, addr: int) -> None:
    a.addr = addr  # (the same tensor object, somewhere else)


def _resized(a: Any, size: int) -> Any:
    a.size = size
    return a


def _rebound(g: Any, size: int) -> Any:
    g.SetGlobalBuffer(g.GetPhyAddr(), size)  # (the same tensor, a smaller region)
    return g


def _other_ub(a: Any) -> Any:
    a.ub = rs.UnifiedBuffer()  # (a tensor of another core's UB)
    return a


@pytest.mark.parametrize(
    "call, error, said",
    [
        (lambda a, xg, zg: (_moved(a, 16), A.DataCopy(a, xg, N)), rs.errors.AlignmentError, "dst = UB byte 16;"),
        (lambda a, xg, zg: (_resized(a, N // 2), A.DataCopy(a, xg, N)), rs.errors.OutOfBoundsError, r"dst = UB bytes \[0, 256\)"),
        (lambda a, xg, zg: A.DataCopy(_t(0, N, rs.float32), xg, N), rs.errors.DTypeError, "src = a tensor of rs.half"),
        (lambda a, xg, zg: A.DataCopy(_other_ub(a), xg, N), rs.errors.ParameterError, r"dst = LocalTensor.*in this core's UB"),
        (lambda a, xg, zg: A.DataCopy(a, _rebound(xg, N // 2), N), rs.errors.OutOfBoundsError, r"src = GM bytes \[0, 256\) of x"),
        (
            lambda a, xg, zg: A.DataCopy(a, xg.ReinterpretCast(rs.float32), N),
            rs.errors.DTypeError,
            "src = a tensor of rs.float32",
        ),
        (lambda a, xg, zg: A.DataCopy(a, xg, np.True_), rs.errors.ParameterError, "count = "),
        (lambda a, xg, zg: A.DataCopy(a, xg, -1), rs.errors.ParameterError, "count = -1"),
        (lambda a, xg, zg: A.DataCopy(zg, _resized(a, N // 2), N), rs.errors.OutOfBoundsError, r"src = UB bytes \[0, 256\)"),
        (lambda a, xg, zg: A.DataCopy(_rebound(zg, N // 2), a, N), rs.errors.OutOfBoundsError, r"dst = GM bytes \[0, 256\) of z"),
    ],
)
def test_a_planned_copy_with_another_static_value_is_checked(call: Any, error: type[Exception], said: str, loops: str) -> None:
    """Each static value of the plan's key changed alone (the tensors moved, resized or rebound in place, another dtype,
    UB or count): the full checks run and refuse it, as they refuse a first call."""
    with pytest.raises(error, match=rf"^DataCopy: {said}"):
        _run(_plan_then(lambda a, xg, zg: call(a, xg, zg)))


def test_a_planned_copy_with_another_static_value_moves_its_bytes(loops: str) -> None:
    """Valid changes of each kind: another UB address, a smaller count, another GM region (the plan's key changed; the
    bytes are the new call's)."""

    def last(a: Any, xg: Any, zg: Any) -> None:
        _moved(a, 1024)
        A.DataCopy(a, xg[N], N)  # a at 1024: x's second tile
        A.PipeBarrier(pipe=ALL)
        A.DataCopy(zg[N], a, N // 2)  # half of it out
        A.PipeBarrier(pipe=ALL)
        A.DataCopy(a, _rebound(xg, N), N)  # x's first tile again, from a region of one tile
        A.PipeBarrier(pipe=ALL)
        A.DataCopy(zg[N + N // 2], _t(1024, N // 2), N // 2)  # (a's first half, through a smaller tensor)

    x, z = _run(_plan_then(last))
    expected = np.concatenate([x[:N], x[N : N + N // 2], x[: N // 2]])
    assert np.array_equal(z.view(np.uint16), expected.view(np.uint16))


def test_a_planned_copy_checks_its_gm_address(loops: str) -> None:
    """The GM address is not part of a plan: past the tensor's region, or not aligned to the element (the same region
    and dtype, the pointer moved by one byte), a planned call is refused as a first one is."""
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"^DataCopy: src = GM bytes \[512, 768\) of x"):
        _run(_plan_then(lambda a, xg, zg: A.DataCopy(a, xg[2 * N], N)))
    with pytest.raises(rs.errors.OutOfBoundsError, match=r"^DataCopy: dst = GM bytes \[384, 640\) of z"):
        _run(_plan_then(lambda a, xg, zg: A.DataCopy(zg[N + N // 2], a, N)))

    def misaligned(a: Any, xg: Any, zg: Any) -> None:
        g = xg.ReinterpretCast(rs.uint8)[1].ReinterpretCast(rs.half)  # (x's region, halves from byte 1)
        A.DataCopy(a, g, N // 2)

    with pytest.raises(rs.errors.AlignmentError, match=r"^DataCopy: src = GM byte 1 of x"):
        _run(_plan_then(misaligned))


def test_a_planned_copy_out_of_never_written_bytes_is_refused(loops: str) -> None:
    """Planned with the uninitialised-read check off, the same copy with it on reads never-written UB bytes."""

    @rs.kernel
    def k(z: rs.GmPtr[rs.half]) -> None:
        zg = A.GlobalTensor(rs.half)
        zg.SetGlobalBuffer(z, N)
        a = _t(4096)
        with rs.configure(check_uninitialized=False):
            A.DataCopy(zg, a, N)
            A.PipeBarrier(pipe=ALL)
        A.DataCopy(zg, a, N)

    with pytest.raises(rs.errors.UninitializedReadError, match=r"^DataCopy: src reads UB byte 4096"):
        rs.launch(k, 1, np.zeros(N, np.float16))


def test_a_planned_copy_is_ordered_by_the_pipes(loops: str) -> None:
    """A planned GM -> UB copy into bytes MTE2 is still writing (no barrier between the two), and a planned UB -> GM copy
    of bytes V writes with no flag between: races, as first calls."""

    def again(a: Any, xg: Any, zg: Any) -> None:
        A.DataCopy(a, xg, N)
        A.DataCopy(a, xg, N)  # MTE2 after MTE2, the same bytes, no PipeBarrier<PIPE_MTE2>

    with pytest.raises(rs.errors.RaceError, match=r"^DataCopy at .*: MTE2 writes UB bytes \[0, 256\) that MTE2 wrote"):
        _run(_plan_then(again))

    def unordered_out(a: Any, xg: Any, zg: Any) -> None:
        A.Adds(a, a, 1.0, N)  # V writes a ...
        A.DataCopy(zg, a, N)  # ... which MTE3 reads with no SetFlag/WaitFlag<V_MTE3>

    with pytest.raises(rs.errors.RaceError, match=r"^DataCopy at .*: MTE3 reads UB bytes \[0, 256\) that V wrote"):
        _run(_plan_then(unordered_out))


@rs.kernel
def _freed(x: rs.GmPtr[rs.half]) -> None:
    """A queue's tensor copied into twice (the second from the plan), freed, then copied into again."""
    xg = A.GlobalTensor(rs.half)
    xg.SetGlobalBuffer(x, N)
    pipe, que = A.TPipe(), A.TQue(pos=A.TPosition.VECIN, depth=1)
    pipe.InitBuffer(que, 1, N * 2)
    t = que.AllocTensor(rs.half)
    for _ in range(2):
        A.DataCopy(t, xg, N)
        A.PipeBarrier(pipe=ALL)
    que.FreeTensor(t)
    A.DataCopy(t, xg, N)


def test_a_planned_copy_into_a_freed_queue_buffer_is_refused(loops: str) -> None:
    with pytest.raises(rs.errors.SyncError, match=r"^DataCopy at .*: MTE2 writes UB bytes \[0, 256\) of .*FreeTensor"):
        rs.launch(_freed, 1, np.zeros(N, np.float16))
