"""The memory-level Cast (类型转换): the page's (src, dst) pairs; Truncate; SetDeqScale."""

from typing import assert_type

import regsim as rs

A = rs.AscendC
RM = A.RoundMode
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
i32 = ub.alloc(rs.int32, 256)

assert_type(A.Cast(f16, f32, RM.CAST_RINT, 64), None)
assert_type(A.Cast(i32, f16, RM.CAST_ROUND, 64, 1, A.UnaryRepeatParams(1, 1, 8, 4)), None)
assert_type(A.Cast(f16, i32, RM.CAST_NONE, [3, 0], 1, A.UnaryRepeatParams()), None)
assert_type(A.Truncate(f32, f32, 64, round_mode=RM.CAST_FLOOR), None)
assert_type(A.SetDeqScale(0.5), None)
