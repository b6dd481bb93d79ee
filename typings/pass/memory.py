"""The Unified Buffer, LocalTensor and UbPtr keep their element types."""

from typing import assert_type

import regsim as rs

ub = rs.UnifiedBuffer()
assert_type(ub, rs.UnifiedBuffer)

t = ub.alloc(rs.float32, 256)
assert_type(t, rs.LocalTensor[rs.float32])
assert_type(ub.alloc(rs.uint8, 64, position=rs.AscendC.TPosition.VECIN), rs.LocalTensor[rs.uint8])
assert_type(t[4], rs.LocalTensor[rs.float32])
assert_type(t[4][8], rs.LocalTensor[rs.float32])
assert_type(t.GetSize(), int)
assert_type(t.dtype, type[rs.float32])
assert_type(t[4].ReinterpretCast(rs.half), rs.LocalTensor[rs.half])

p = t.GetPhyAddr()
assert_type(p, rs.UbPtr[rs.float32])
assert_type(t[64].GetPhyAddr(), rs.UbPtr[rs.float32])
assert_type(p + 64, rs.UbPtr[rs.float32])
assert_type(p - 8, rs.UbPtr[rs.float32])
assert_type(p + 2 * 64 - 1, rs.UbPtr[rs.float32])
assert_type(p.copy(), rs.UbPtr[rs.float32])

q = p
q += 8
assert_type(q, rs.UbPtr[rs.float32])

assert_type(p.reinterpret(rs.uint32), rs.UbPtr[rs.uint32])
assert_type(p.reinterpret(rs.uint8) + 3, rs.UbPtr[rs.uint8])
assert_type((p + 64).reinterpret(rs.int32), rs.UbPtr[rs.int32])

# pointer difference: the elements between two pointers of one type (C's ptrdiff_t)
assert_type((p + 4) - p, int)
assert_type(3 + p, rs.UbPtr[rs.float32])

# values that do not fit the dtype exactly need an explicit cast
t.set([0.1, 70000.0], cast=True)
assert_type(rs.GetVecLen(), int)
assert_type(rs.testing.lane_count(rs.half), int)
