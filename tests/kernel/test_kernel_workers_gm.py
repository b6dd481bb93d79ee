"""GM in worker processes (`rs.launch(..., workers=N)`): a forked worker reads the host's arrays as the fork left them
and writes them and the launch's shared memory both, until the grid's first SyncAll, from which on the shared memory is
its GM; only the bytes the blocks wrote come back. The bytes against numpy oracles and the in-order run's; a cross-core
race and a worker's death still reported."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pytest

import regsim as rs

A = rs.AscendC
HE = A.HardEvent
N = 64  #: int32s a block's tile (256 bytes: whole cache lines)
ALL = A.PIPE.PIPE_ALL


def _tile(g: Any, base: int) -> Any:
    t = A.GlobalTensor(rs.int32)
    t.SetGlobalBuffer(g.reinterpret(rs.int32) + base, N)
    return t


@rs.kernel
def own_writes(x: rs.GmPtr[rs.int32], z: rs.GmPtr[rs.int32], w: rs.GmPtr[rs.int32]) -> None:
    """Block i: z's tile i = x's; z's tile read back (the block's own write) plus 1 into w's tile i; then one SetValue
    into the middle of z's tile and one into w's tail (each cache line written back whole: the rest of the line as the
    block sees it, the host's values in w's tail)."""
    i = A.GetBlockIdx()
    xg, zg, wg = _tile(x, i * N), _tile(z, i * N), _tile(w, i * N)
    a, b = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, N), A.LocalTensor(rs.int32, A.TPosition.VECCALC, 1024, N)
    A.DataCopy(a, xg, N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(zg, a, N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(b, zg, N)  # (z's tile: what this block wrote)
    A.SetFlag(0, event=HE.MTE2_V)
    A.WaitFlag(0, event=HE.MTE2_V)
    A.Adds(b, b, 1, N)
    A.SetFlag(0, event=HE.V_MTE3)
    A.WaitFlag(0, event=HE.V_MTE3)
    A.DataCopy(wg, b, N)
    A.PipeBarrier(pipe=ALL)
    zg.SetValue(N // 2 + 1, -7 - i)
    _tile(w, A.GetBlockNum() * N).SetValue(16 * i, 100 + i)  # (in w's tail, which no block copies to: a line each)


def _own_writes_expected(x: Any, z0: Any, w0: Any, blocks: int) -> tuple[Any, Any]:
    z, w = z0.copy(), w0.copy()
    z[: blocks * N] = x[: blocks * N]
    w[: blocks * N] = x[: blocks * N] + 1
    for i in range(blocks):
        z[i * N + N // 2 + 1] = -7 - i
        w[blocks * N + 16 * i] = 100 + i
    return z, w


@pytest.mark.parametrize("workers", [None, 2, 3])
def test_workers_write_gm_in_place_with_the_in_order_bytes(workers: int | None, loops: str) -> None:
    """Each block reads back what it wrote (seen in its worker before any SyncAll); bytes no block writes keep the
    host's values (the arrays' tails, past the blocks' tiles), in every worker count."""
    blocks = 4
    rng = np.random.default_rng(5)
    x = rng.integers(-1000, 1000, (blocks + 1) * N, dtype=np.int32)
    z0, w0 = (rng.integers(-1000, 1000, (blocks + 1) * N, dtype=np.int32) for _ in range(2))
    z, w = z0.copy(), w0.copy()
    rs.launch(own_writes, blocks, x, z, w, workers=workers)
    want_z, want_w = _own_writes_expected(x, z0, w0, blocks)
    assert np.array_equal(z, want_z) and np.array_equal(w, want_w)


@rs.kernel
def neighbours(x: rs.GmPtr[rs.int32], z: rs.GmPtr[rs.int32], out: rs.GmPtr[rs.int32]) -> None:
    """Block i writes z's tile i = x's tile i, then after a SyncAll copies its neighbour's z tile into out's tile i;
    then, after another SyncAll, writes z's tile i again (x's tile i + i)."""
    i, n = A.GetBlockIdx(), A.GetBlockNum()
    a = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, N)
    A.DataCopy(a, _tile(x, i * N), N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(_tile(z, i * N), a, N)
    A.SyncAll()
    A.DataCopy(a, _tile(z, ((i + 1) % n) * N), N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(_tile(out, i * N), a, N)
    A.SyncAll()  # (MTE2 writes a after MTE3 read it: ordered by the SyncAll's barrier)
    A.DataCopy(a, _tile(x, i * N), N)
    A.PipeBarrier(pipe=ALL)
    A.Adds(a, a, i, N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(_tile(z, i * N), a, N)


@pytest.mark.parametrize("workers", [2, 3])
def test_workers_read_other_workers_gm_writes_after_sync_all(workers: int) -> None:
    blocks = 4
    x = np.random.default_rng(6).integers(-1000, 1000, blocks * N, dtype=np.int32)
    outs = {}
    for w in (None, workers):
        z, out = np.zeros_like(x), np.full_like(x, 3)
        rs.launch(neighbours, blocks, x, z, out, workers=w)
        outs[w] = (z, out)
    tiles = x.reshape(blocks, N)
    want_out = np.roll(tiles, -1, axis=0).ravel()
    want_z = (tiles + np.arange(blocks)[:, None]).ravel()
    for z, out in outs.values():
        assert np.array_equal(out, want_out) and np.array_equal(z, want_z)


@rs.kernel
def reads_block_0s_tile(z: rs.GmPtr[rs.int32]) -> None:
    """Block 0 writes z's first tile; the last block reads it, with no SyncAll between."""
    i, n = A.GetBlockIdx(), A.GetBlockNum()
    a = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, N)
    if i == 0:
        A.Duplicate(a, 5, N)
        A.PipeBarrier(pipe=ALL)
        A.DataCopy(_tile(z, 0), a, N)
    elif i == n - 1:
        A.DataCopy(a, _tile(z, 0), N)
    A.PipeBarrier(pipe=ALL)


@pytest.mark.parametrize("workers", [None, 2])
def test_a_cross_core_race_is_reported_with_gm_in_place(workers: int | None) -> None:
    with pytest.raises(rs.errors.RaceError, match=r"^GM z bytes \[0, 256\): block 0 writes them .* block 3 reads them"):
        rs.launch(reads_block_0s_tile, 4, np.zeros(4 * N, np.int32), workers=workers)


@rs.kernel
def dies_after_writing(z: rs.GmPtr[rs.int32]) -> None:
    """Every block writes its tile; the last one's worker then dies."""
    i, n = A.GetBlockIdx(), A.GetBlockNum()
    a = A.LocalTensor(rs.int32, A.TPosition.VECCALC, 0, N)
    A.Duplicate(a, i, N)
    A.PipeBarrier(pipe=ALL)
    A.DataCopy(_tile(z, i * N), a, N)
    A.PipeBarrier(pipe=ALL)
    if i == n - 1:
        os._exit(5)


def test_a_worker_that_dies_after_writing_gm_is_reported() -> None:
    with pytest.raises(RuntimeError, match=r"launch: a worker process died \(exit code 5\)"):
        rs.launch(dies_after_writing, 4, np.zeros(4 * N, np.int32), workers=2)
