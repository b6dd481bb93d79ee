"""The memory-level logic APIs: mypy refuses And on floats, float shifts and the forms the pages do not list."""

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
u8 = ub.alloc(rs.uint8, 256)

A.And(f32, f32, f32, 64)  # E: type-var
A.Or(u8, u8, u8, 64, 1, A.BinaryRepeatParams())  # E: type-var
A.Not(f16, f16, 64, 1, A.BinaryRepeatParams())  # E: call-overload
A.Ands(f32, f32, 1, 64)  # E: type-var
A.ShiftLeft(f32, f32, 1, 64)  # E: type-var
A.ShiftRight(u8, u8, 1, 64, round_en=False)  # E: call-overload
