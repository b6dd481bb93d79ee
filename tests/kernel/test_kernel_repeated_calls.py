"""A kernel's repeated memory-level calls: the first-n Add a kernel makes again with the same static values runs from
its first run's plan (`elementwise.Binary.quick`), without binding or checking it again. What the plan may not skip is
asked each time: the bytes it reads written, the pipes' orderings, the tensors' values (another address, size, dtype or
count is another call), the flags' arguments. Each kernel runs in both loop modes; the sums against float64 sums rounded
once to half, the pipe logs against the loop's (`rs.trace()` runs every call's loop)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import regsim as rs

A = rs.AscendC
HE = A.HardEvent
N = 256  #: halves a tensor


def _half_sum(a: Any, b: Any) -> Any:
    with np.errstate(over="ignore"):  # (past 65504: inf)
        return (a.astype(np.float64) + b.astype(np.float64)).astype(np.float16)  # (exact, then rounded once)


def _t(addr: int, n: int = N, dtype: Any = rs.half) -> Any:
    return A.LocalTensor(dtype, A.TPosition.VECCALC, addr, n)


@rs.kernel
def _adds(x: rs.GmPtr[rs.half], z: rs.GmPtr[rs.half], *, rounds: int) -> None:
    """z[k] = x[k] + x[k + 1] for tiles k, each tile's Add the same call, then tiles of other addresses, sizes and
    counts: a shorter count, a tensor moved (its fields changed in place), dst one of the sources."""
    xg, zg = A.GlobalTensor(rs.half), A.GlobalTensor(rs.half)
    xg.SetGlobalBuffer(x, (rounds + 4) * N)
    zg.SetGlobalBuffer(z, (rounds + 4) * N)
    a, b, c = _t(0), _t(1024), _t(2048)
    calls: list[tuple[Any, Any, Any, int]] = [(c, a, b, N)] * rounds + [(c, a, b, N // 2), (c, b, a, N), (a, a, b, N)]
    for k, (dst, s0, s1, n) in enumerate(calls):
        A.DataCopy(a, xg[k * N], N)
        A.DataCopy(b, xg[(k + 1) * N], N)
        A.SetFlag(0, event=HE.MTE2_V)
        A.WaitFlag(0, event=HE.MTE2_V)
        if k == rounds + 1:
            c.addr = 3072  # (the same tensor object, somewhere else: a new plan)
        A.Add(dst, s0, s1, n)
        A.SetFlag(0, event=HE.V_MTE3)
        A.WaitFlag(0, event=HE.V_MTE3)
        A.DataCopy(zg[k * N], dst, N)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)


def _expected(x: Any, rounds: int) -> Any:
    z = np.zeros_like(x)
    tiles = [x[k * N : (k + 2) * N] for k in range(rounds + 3)]
    for k in range(rounds):
        z[k * N : (k + 1) * N] = _half_sum(tiles[k][:N], tiles[k][N:])
    k = rounds  # count N // 2: dst keeps the rest of the tile before it
    z[k * N : k * N + N // 2] = _half_sum(tiles[k][: N // 2], tiles[k][N : N + N // 2])
    z[k * N + N // 2 : (k + 1) * N] = z[(k - 1) * N + N // 2 : k * N]
    for k in (rounds + 1, rounds + 2):
        z[k * N : (k + 1) * N] = (
            _half_sum(tiles[k][N:], tiles[k][:N]) if k == rounds + 1 else _half_sum(tiles[k][:N], tiles[k][N:])
        )
    return z


def test_repeated_adds_give_the_sums_and_the_loops_pipe_log(loops: str) -> None:
    rounds = 5
    x = np.random.default_rng(1).uniform(-60000, 60000, (rounds + 4) * N).astype(np.float16)  # (sums past 65504: inf)
    z = np.zeros_like(x)
    run = rs.launch(_adds, 1, x, z, rounds=rounds)
    assert np.array_equal(z.view(np.uint16), _expected(x, rounds).view(np.uint16))
    z_loop = np.zeros_like(x)
    with rs.trace():  # (every Add runs its loop)
        run_loop = rs.launch(_adds, 1, x, z_loop, rounds=rounds)
    assert np.array_equal(z_loop.view(np.uint16), z.view(np.uint16))
    assert run.events == run_loop.events
    assert sum(e.api == "StoreAlign" for e in run.events[0]) == rounds + 3  # (one V record an Add: not vacuous)


def _repeat_then(last: Any) -> Any:
    """A kernel that makes Add(c, a, b, N) twice (written sources, ordered: the second from the first's plan), then
    calls `last(a, b, c, g)`."""

    @rs.kernel
    def k(x: rs.GmPtr[rs.half]) -> None:
        g = A.GlobalTensor(rs.half)
        g.SetGlobalBuffer(x, 2 * N)
        a, b, c = _t(0), _t(1024), _t(2048)
        A.DataCopy(a, g, N)
        A.DataCopy(_t(1024, 2 * N), g, 2 * N)  # (b, and the bytes after it: a tensor moved there reads written bytes)
        A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
        for _ in range(2):
            A.Add(c, a, b, N)
        last(a, b, c, g)

    return k


def _run(kernel: Any) -> None:
    rs.launch(kernel, 1, np.ones(2 * N, np.float16))


def test_a_repeated_add_after_an_unordered_copy_is_a_race(loops: str) -> None:
    def last(a: Any, b: Any, c: Any, g: Any) -> None:
        A.SetFlag(0, event=HE.V_MTE2)
        A.WaitFlag(0, event=HE.V_MTE2)
        A.DataCopy(b, g, N)  # MTE2 writes b's bytes ...
        A.Add(c, a, b, N)  # ... which V reads with no WaitFlag<MTE2_V> between

    with pytest.raises(rs.errors.RaceError, match=r"V reads UB bytes .* that MTE2 wrote"):
        _run(_repeat_then(last))


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda a, b, c: A.Add(c, a, _t(1024, N, rs.float32), N), rs.errors.DTypeError),
        (lambda a, b, c: A.Add(c, a, b, N + 1), rs.errors.ParameterError),
        (lambda a, b, c: A.Add(c, _t(0, N // 2), b, N), rs.errors.ParameterError),  # (a's address, a smaller size)
        (lambda a, b, c: (setattr(b, "addr", 1040), A.Add(c, a, b, N)), rs.errors.AlignmentError),  # (b moved in place)
        (lambda a, b, c: A.Add(c, a, b, np.True_), rs.errors.ParameterError),
    ],
)
def test_a_repeated_add_with_another_argument_is_checked(call: Any, error: type[Exception], loops: str) -> None:
    with pytest.raises(error, match=r"^Add: "):
        _run(_repeat_then(lambda a, b, c, g: call(a, b, c)))


def test_a_repeated_add_reading_never_written_bytes_is_refused(loops: str) -> None:
    """The same call again once a byte of its second source reads as never written (as in a fresh UB): the loop's
    uninitialised read, naming the byte."""

    def last(a: Any, b: Any, c: Any, g: Any) -> None:
        b.ub.storage.valid[b.addr + 10] = False
        A.Add(c, a, b, N)

    with pytest.raises(rs.errors.UninitializedReadError, match=f"UB bytes? .*{1024 + 10}"):
        _run(_repeat_then(last))


@pytest.mark.parametrize("event_id", [True, np.True_, 8, "0"])
def test_a_flag_seen_before_still_checks_its_id(event_id: Any) -> None:
    def last(a: Any, b: Any, c: Any, g: Any) -> None:
        A.SetFlag(1, event=HE.V_MTE3)
        A.WaitFlag(1, event=HE.V_MTE3)
        A.SetFlag(event_id, event=HE.V_MTE3)

    with pytest.raises(rs.errors.ParameterError, match=r"^SetFlag: event_id"):
        _run(_repeat_then(last))


def test_a_flag_seen_before_takes_a_numpy_id() -> None:
    def last(a: Any, b: Any, c: Any, g: Any) -> None:
        for event_id in (1, np.int64(1)):
            A.SetFlag(event_id, event=HE.V_MTE3)
            A.WaitFlag(event_id, event=HE.V_MTE3)

    _run(_repeat_then(last))
