"""Kernel APIs refuse tensors and pointers of another element type."""

import regsim as rs

A = rs.AscendC


def body(x: rs.GmPtr[rs.uint8]) -> None:
    g = A.GlobalTensor(rs.half)
    g.SetGlobalBuffer(x, 16)  # E: arg-type
    g.SetGlobalBuffer(x.reinterpret(rs.half), 16)
    f: rs.LocalTensor[rs.float32] = A.LocalTensor(rs.half, A.TPosition.VECCALC, 0, 16)  # E: arg-type
    t = A.LocalTensor(rs.float32, A.TPosition.VECCALC, 0, 16)
    A.DataCopy(t, g, 16)  # E: misc
    A.SetFlag(0, A.HardEvent.MTE2_V)  # E: call-arg
