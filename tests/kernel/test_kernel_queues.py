"""TPipe, TQue, TBuf, LocalMemAllocator: a double-buffered queue kernel against numpy (the queues' flags are all the
ordering it has), and the misuses the pages name, each a clear error: DeQue of an empty queue, more AllocTensor than
buffers, a tensor used after FreeTensor, buffers held at kernel end, UB overcommitted. In both loop modes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import regsim as rs

A = rs.AscendC
TILE = 256


@rs.kernel
def scale_add(x: rs.GmPtr[rs.float32], y: rs.GmPtr[rs.float32], z: rs.GmPtr[rs.float32], n: int, *, buffers: int) -> None:
    """z = 2x + y, tile by tile through VECIN / VECOUT queues of `buffers` buffers (double buffering with 2)."""
    pipe = A.TPipe()
    qx = A.TQue(pos=A.TPosition.VECIN, depth=buffers)
    qy = A.TQue(pos=A.TPosition.VECIN, depth=buffers)
    qz = A.TQue(pos=A.TPosition.VECOUT, depth=buffers)
    tmp = A.TBuf(pos=A.TPosition.VECCALC)
    pipe.InitBuffer(qx, buffers, TILE * 4)
    pipe.InitBuffer(qy, buffers, TILE * 4)
    pipe.InitBuffer(qz, buffers, TILE * 4)
    pipe.InitBuffer(tmp, TILE * 4)
    per = n // A.GetBlockNum()
    gx, gy, gz = A.GlobalTensor(rs.float32), A.GlobalTensor(rs.float32), A.GlobalTensor(rs.float32)
    gx.SetGlobalBuffer(x + per * A.GetBlockIdx(), per)
    gy.SetGlobalBuffer(y + per * A.GetBlockIdx(), per)
    gz.SetGlobalBuffer(z + per * A.GetBlockIdx(), per)
    for i in range(per // TILE):
        xl, yl = qx.AllocTensor(rs.float32), qy.AllocTensor(rs.float32)  # CopyIn
        A.DataCopy(xl, gx[i * TILE], TILE)
        A.DataCopy(yl, gy[i * TILE], TILE)
        qx.EnQue(xl)
        qy.EnQue(yl)
        xl, yl = qx.DeQue(rs.float32), qy.DeQue(rs.float32)  # Compute
        zl, t = qz.AllocTensor(rs.float32), tmp.Get(rs.float32)
        A.Muls(t, xl, np.float32(2), TILE)
        A.Add(zl, t, yl, TILE)
        qz.EnQue(zl)
        qx.FreeTensor(xl)
        qy.FreeTensor(yl)
        zl = qz.DeQue(rs.float32)  # CopyOut
        A.DataCopy(gz[i * TILE], zl, TILE)
        qz.FreeTensor(zl)


@pytest.mark.parametrize("buffers", [1, 2])
def test_a_queue_kernel_is_race_free_and_right(buffers: int, loops: str) -> None:
    rng = np.random.default_rng(buffers)
    x, y = (rng.uniform(-4, 4, 4 * 4 * TILE).astype(np.float32) for _ in range(2))
    z = np.zeros_like(x)
    run = scale_add[4](x, y, z, x.size, buffers=buffers)
    assert np.array_equal(z, x * np.float32(2) + y)
    labels = [e.api for e in run.events[0] if e.kind in ("set", "wait")]
    assert labels[:4] == [
        "EnQue (TPosition.VECIN)",
        "EnQue (TPosition.VECIN)",
        "DeQue (TPosition.VECIN)",
        "DeQue (TPosition.VECIN)",
    ]


def _kernel(body: Any) -> Any:
    @rs.kernel
    def k(x: rs.GmPtr[rs.float32]) -> None:
        g = A.GlobalTensor(rs.float32)
        g.SetGlobalBuffer(x, 1024)
        body(g)

    return k


def _launch(body: Any) -> None:
    rs.launch(_kernel(body), 1, np.zeros(1024, np.float32))


def _que(depth: int = 1, num: int = 1, pos: Any = A.TPosition.VECIN) -> tuple[Any, Any]:
    pipe = A.TPipe()
    q = A.TQue(pos=pos, depth=depth)
    pipe.InitBuffer(q, num, 256)
    return pipe, q


def _dequeue_empty(g: Any) -> None:
    _, q = _que()
    q.DeQue(rs.float32)


def _alloc_too_many(g: Any) -> None:
    _, q = _que(num=2)
    q.AllocTensor(rs.float32)
    q.AllocTensor(rs.float32)
    q.AllocTensor(rs.float32)


def _use_after_free(g: Any) -> None:
    _, q = _que()
    t = q.AllocTensor(rs.float32)
    A.DataCopy(t, g, 64)
    q.EnQue(t)
    t = q.DeQue(rs.float32)
    q.FreeTensor(t)
    A.Adds(t, t, np.float32(1), 64)


def _use_before_alloc(g: Any) -> None:
    _que()
    A.DataCopy(A.LocalTensor(rs.float32, A.TPosition.VECIN, 0, 64), g, 64)


def _leak(g: Any) -> None:
    _, q = _que()
    q.AllocTensor(rs.float32)


def _enqueue_past_depth(g: Any) -> None:
    _, q = _que(depth=1, num=2)
    q.EnQue(q.AllocTensor(rs.float32))
    q.EnQue(q.AllocTensor(rs.float32))


def _free_twice(g: Any) -> None:
    _, q = _que()
    t = q.AllocTensor(rs.float32)
    q.FreeTensor(t)
    q.FreeTensor(t)


def _overcommit(g: Any) -> None:
    pipe = A.TPipe()
    pipe.InitBuffer(A.TQue(pos=A.TPosition.VECIN, depth=2), 2, 200 * 1024)


def _too_many_buffers(g: Any) -> None:
    pipe = A.TPipe()
    for _ in range(13):
        pipe.InitBuffer(A.TQue(pos=A.TPosition.VECOUT, depth=1), 5, 32)


def _two_pipes(g: Any) -> None:
    A.TPipe()
    A.TPipe()


def _allocator_and_pipe(g: Any) -> None:
    A.LocalMemAllocator(hard=A.Hardware.UB)
    A.TPipe()


def _unaligned_alloc(g: Any) -> None:
    a = A.LocalMemAllocator()
    a.Alloc(rs.half, 5)
    a.Alloc(rs.half, 16)


def _foreign_tensor(g: Any) -> None:
    _, q = _que()
    q.FreeTensor(A.LocalTensor(rs.float32, A.TPosition.VECIN, 4096, 64))


MISUSES = [
    ("DeQue of an empty queue", _dequeue_empty, rs.errors.SyncError, "TQue.DeQue: queue = empty"),
    ("more AllocTensor than buffers", _alloc_too_many, rs.errors.SyncError, "all 2 held"),
    ("a tensor used after FreeTensor", _use_after_free, rs.errors.SyncError, "freed by FreeTensor at test_kernel_queues.py:"),
    ("a queue buffer touched before AllocTensor", _use_before_alloc, rs.errors.SyncError, "not allocated yet"),
    ("a buffer held at kernel end", _leak, rs.errors.SyncError, "still held"),
    ("EnQue past the depth", _enqueue_past_depth, rs.errors.SyncError, "at most depth = 1"),
    ("FreeTensor twice", _free_twice, rs.errors.SyncError, "which is free"),
    ("InitBuffer past the UB", _overcommit, rs.errors.ParameterError, "UB bytes are given out"),
    ("more than 64 buffers", _too_many_buffers, rs.errors.ParameterError, "64 a kernel"),
    ("two TPipes", _two_pipes, rs.errors.SyncError, "one TPipe per kernel"),
    ("a LocalMemAllocator and a TPipe", _allocator_and_pipe, rs.errors.SyncError, "never with a LocalMemAllocator"),
    ("an allocation left unaligned", _unaligned_alloc, rs.errors.AlignmentError, "UB byte 10"),
    ("FreeTensor of another tensor", _foreign_tensor, rs.errors.ParameterError, "a LocalTensor of this TQue's buffers"),
]


@pytest.mark.parametrize("case", MISUSES, ids=[c[0] for c in MISUSES])
def test_misuses(case: tuple[Any, ...], loops: str) -> None:
    _, body, error, says = case
    with pytest.raises(error) as e:
        _launch(body)
    assert says in str(e.value)


def test_empty_buffers(loops: str) -> None:
    """`InitBuffer(buf, 0)` (the page sets no lower bound on len; operator kernels give it the buffers one instantiation
    does not use): an empty buffer that takes no UB, its tensor of no elements."""
    seen: dict[str, Any] = {}

    def body(g: Any) -> None:
        pipe = A.TPipe()
        empty, que, buf = A.TBuf(pos=A.TPosition.VECCALC), A.TQue(pos=A.TPosition.VECIN, depth=1), A.TBuf()
        pipe.InitBuffer(empty, 0)
        pipe.InitBuffer(que, 2, 0)
        pipe.InitBuffer(buf, 64)
        seen["empty"], seen["next"] = empty.Get(rs.float32), buf.Get(rs.float32)

    _launch(body)
    assert seen["empty"].size == 0 and (seen["next"].addr, seen["next"].size) == (0, 16)


def test_tbuf_and_allocator_tensors(loops: str) -> None:
    seen: dict[str, Any] = {}

    def body(g: Any) -> None:
        pipe = A.TPipe()
        buf = A.TBuf(pos=A.TPosition.VECCALC)
        pipe.InitBuffer(buf, 100)  # rounded up to 128 bytes
        seen["all"], seen["part"] = buf.Get(rs.half), buf.GetWithOffset(rs.float32, 8, 64)
        pipe.Destroy()
        A.TPipe()

    _launch(body)
    assert (seen["all"].addr, seen["all"].size) == (0, 64)
    assert (seen["part"].addr, seen["part"].size) == (64, 8)
