"""How a launch in worker processes ends: forked, the launching process runs the first share of the blocks itself; the
bytes the other workers wrote come back read from their memory, or, where the system refuses that, copied by them into
the shared memory; a block's error is the in-order run's whichever process ran it; and no worker process, shared
memory segment or shared mapping is left behind, whether the launch ends well, with a block's error, a race or a
worker's death, forked or spawned."""

from __future__ import annotations

import errno
import multiprocessing
import os
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import regsim as rs
from regsim._src.kernel import launch as launch_module
from vf_examples import sync_all

A = rs.AscendC
ALL = A.PIPE.PIPE_ALL
N = 64  #: int32s of a block's tile (256 bytes: whole cache lines)


def _tile(g: Any, base: int) -> Any:
    t = A.GlobalTensor(rs.int32)
    t.SetGlobalBuffer(g.reinterpret(rs.int32) + base, N)
    return t


@rs.kernel
def tiles(x: rs.GmPtr[rs.int32], z: rs.GmPtr[rs.int32], *, fail: tuple[int, ...] = (), same: bool = False) -> None:
    """Block i: z's tile i = x's tile i + i (DataCopy), then z's element i * N + 1 = -i (SetValue: its cache line
    written back whole); blocks in `fail` look past x's end (element N * GetBlockNum(): an OutOfBoundsError) after
    writing their tile. `same`: every block writes z's tile 0 (a race)."""
    i = A.GetBlockIdx()
    a = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, N)
    A.DataCopy(a, _tile(x, i * N), N)
    A.PipeBarrier(pipe=ALL)
    A.Adds(a, a, i, N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(_tile(z, 0 if same else i * N), a, N)
    A.PipeBarrier(pipe=ALL)
    _tile(z, 0 if same else i * N).SetValue(1, -i)
    if i in fail:
        whole = A.GlobalTensor(rs.int32)
        whole.SetGlobalBuffer(x.reinterpret(rs.int32), N * A.GetBlockNum())
        whole.GetValue(N * A.GetBlockNum())


def _tiles_expected(x: Any, z0: Any, blocks: int) -> Any:
    z = z0.copy()
    for i in range(blocks):
        z[i * N : (i + 1) * N] = x[i * N : (i + 1) * N] + i
        z[i * N + 1] = -i
    return z


@pytest.mark.parametrize("workers", [2, 3])
@pytest.mark.parametrize("readable", [True, False], ids=["read", "pushed"])
def test_the_workers_writes_come_back(workers: int, readable: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every block's tile in the host's array, the bytes past the tiles as they were: the other workers' writes read
    from their memory, or (the system refusing that: `_pull` raising) copied by them into the shared memory."""
    if not readable:

        def refused(pid: int, dst: Any, ranges: Any) -> None:
            raise OSError(errno.EPERM, "process_vm_readv")

        monkeypatch.setattr(launch_module, "_pull", refused)
    blocks = 6
    rng = np.random.default_rng(7)
    x = rng.integers(-1000, 1000, (blocks + 1) * N, dtype=np.int32)
    z0 = rng.integers(-1000, 1000, (blocks + 1) * N, dtype=np.int32)
    z = z0.copy()
    tiles[blocks](x, z, workers=workers)
    assert np.array_equal(z, _tiles_expected(x, z0, blocks))


@pytest.mark.parametrize("fail", [(0,), (5,), (2, 5), (4, 1)], ids=str)
def test_a_block_error_is_the_in_order_one(fail: tuple[int, ...]) -> None:
    """The error of the first failing block (by index), with its note naming the block: raised by the launching
    process's own share (blocks 0-2 of 6 in two workers) or by another worker (pickled)."""
    blocks = 6
    raised = []
    for workers in (None, 2, 3):
        with pytest.raises(rs.errors.OutOfBoundsError) as e:
            tiles[blocks](np.zeros(blocks * N, np.int32), np.zeros(blocks * N, np.int32), fail=fail, workers=workers)
        raised.append((str(e.value), e.value.__notes__))
    assert raised[0][1] == [f"(in block {min(fail)} of {blocks} of kernel tiles)"]
    assert raised[1] == raised[0] and raised[2] == raised[0]


def _shared_mappings() -> int:
    """This process's shared anonymous mappings (the forked launches' shared memory)."""
    return sum("/dev/zero" in line for line in Path("/proc/self/maps").read_text().splitlines())


def _segments() -> set[str]:
    return set(os.listdir("/dev/shm"))


def _made_segments(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the shared memory segments the launches of this process make from now on (another test process
    may make and drop its own in /dev/shm meanwhile: only these are checked)."""
    made: list[str] = []
    real = launch_module.shared_memory.SharedMemory

    def making(*args: Any, **kwargs: Any) -> Any:
        segment = real(*args, **kwargs)
        made.append(segment._name.lstrip("/"))  # (the name as /dev/shm lists it)
        return segment

    # (the launch module's name for the module replaced, not the class: a segment is pickled to spawned workers by it)
    monkeypatch.setattr(launch_module, "shared_memory", types.SimpleNamespace(SharedMemory=making))
    return made


@rs.kernel
def dies_in_its_last_block(x: rs.GmPtr[rs.uint8]) -> None:
    if A.GetBlockIdx() == A.GetBlockNum() - 1:
        os._exit(4)


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_nothing_is_left_behind(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """After each launch: no worker process alive, the shared mappings (forked) and segments (spawned) gone. Spawned
    (each worker importing regsim: slow), one launch, every block failing (its x too short)."""
    monkeypatch.setattr(launch_module, "START_METHOD", method)
    mappings, made = _shared_mappings(), _made_segments(monkeypatch)
    x = np.ones(sync_all.TOTAL_LENGTH, np.float32)
    ends: list[tuple[Callable[[], Any], type[BaseException] | None]] = [
        (lambda: sync_all.launch(x[:8], workers=2), rs.errors.OutOfBoundsError)
    ]
    if method == "fork":  # (kernels of this module: a spawned worker could not import it)
        ends += [
            (lambda: sync_all.launch(x, workers=2), None),
            (
                lambda: tiles[4](np.zeros(4 * N, np.int32), np.zeros(4 * N, np.int32), fail=(3,), workers=2),
                rs.errors.OutOfBoundsError,
            ),
            (lambda: tiles[4](np.zeros(4 * N, np.int32), np.zeros(4 * N, np.int32), same=True, workers=2), rs.errors.RaceError),
            (lambda: rs.launch(dies_in_its_last_block, 4, np.zeros(64, np.uint8), workers=2), RuntimeError),
        ]
    for launch, error in ends:
        if error is None:
            launch()
        else:
            with pytest.raises(error):
                launch()
        assert multiprocessing.active_children() == []
        assert _shared_mappings() == mappings and not _segments() & set(made)
    assert made if method == "spawn" else not made  # (the check saw the segments a spawned launch makes)
