"""The memory-level logic APIs (逻辑计算): integer types, scalar and tensor shift amounts."""

from typing import assert_type

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
u16 = ub.alloc(rs.uint16, 256)
i16 = ub.alloc(rs.int16, 256)
i64 = ub.alloc(rs.int64, 256)
f32 = ub.alloc(rs.float32, 256)

assert_type(A.And(u16, u16, u16, 128), None)
assert_type(A.Or(u16, u16, u16, [0xFFFF, 0], 1, A.BinaryRepeatParams()), None)
assert_type(A.Not(f32, f32, 64), None)
assert_type(A.Ands(i64, i64, 3, 32), None)
assert_type(A.Ors(i16, i16[0], i16, 64), None)
assert_type(A.ShiftLeft(u16, u16, 3, 128), None)
assert_type(A.ShiftRight(i16, i16, 1, 64, 1, A.UnaryRepeatParams(), False), None)
assert_type(A.ShiftLeft(i64, i64, i64, 32), None)  # a tensor of shift amounts
