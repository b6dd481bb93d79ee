"""The memory-level Cast: mypy refuses a pair the page does not list, a string round mode, Truncate on integers."""

import regsim as rs

A = rs.AscendC
RM = A.RoundMode
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
u64 = ub.alloc(rs.uint64, 256)
i32 = ub.alloc(rs.int32, 256)

A.Cast(u64, f32, RM.CAST_RINT, 64)  # E: arg-type
A.Cast(f32, f32, "CAST_RINT", 64)  # E: call-overload
A.Truncate(i32, i32, 64, round_mode=RM.CAST_FLOOR)  # E: type-var
A.Truncate(f32, f32, 64)  # E: call-arg
