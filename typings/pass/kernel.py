"""Whole kernels type-check: GM pointers and tensors keep their element type through casts and offsets, and the
kernel APIs take the tensors of one element type."""

import numpy as np

import regsim as rs

A = rs.AscendC


@rs.kernel
def add(x: rs.GmPtr[rs.uint8], z: rs.GmPtr[rs.half], n: int, *, tile: int) -> None:
    xh: rs.GmPtr[rs.half] = x.reinterpret(rs.half) + A.GetBlockIdx() * n
    g: A.GlobalTensor[rs.half] = A.GlobalTensor(rs.half)
    g.SetGlobalBuffer(xh, n)
    out = A.GlobalTensor(rs.half)
    out.SetGlobalBuffer(z + A.GetBlockIdx() * n, n)
    t: rs.LocalTensor[rs.half] = A.LocalTensor(rs.half, A.TPosition.VECCALC, 0, tile)
    A.DataCopy(t, g[0], tile)
    A.PipeBarrier(pipe=A.PIPE.PIPE_MTE2)
    A.DataCopy(t, g, A.DataCopyParams(1, tile // 16, 0, 0))
    A.SetFlag(A.EVENT_ID0, event=A.HardEvent.MTE2_V)
    A.WaitFlag(A.EVENT_ID0, event=A.HardEvent.MTE2_V)
    A.Adds(t, t, np.float16(1), tile)
    A.PipeBarrier(pipe=A.PIPE.PIPE_ALL)
    A.DataCopy(out, t, tile)
    A.PipeBarrier(pipe=A.PIPE.PIPE_MTE3)
    A.DataCopyPad(out, t, A.DataCopyExtParams(1, 2 * tile, 0, 0, 0))
    q = A.TQue(pos=A.TPosition.VECIN, depth=1)
    pipe = A.TPipe()
    pipe.InitBuffer(q, 1, 4 * tile)
    u: rs.LocalTensor[rs.float32] = q.AllocTensor(rs.float32)
    q.FreeTensor(u)


run: rs.KernelRun = rs.launch(add, 2, np.zeros(64, np.float16), np.zeros(64, np.float16), 32, tile=32)
