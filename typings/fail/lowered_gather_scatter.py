"""The memory-level gathers and scatters: mypy refuses offsets that are not uint32 and b8 mask/repeat calls."""

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f16 = ub.alloc(rs.half, 256)
u8 = ub.alloc(rs.uint8, 256)
i32 = ub.alloc(rs.int32, 256)

A.Gather(f16, f16, i32, 0, 128)  # E: arg-type
A.Gather(u8, u8, i32.ReinterpretCast(rs.uint32), 0, 64, 1, 8)  # E: type-var
A.Scatter(u8, u8, i32.ReinterpretCast(rs.uint32), 0, [1, 0], 1, 8)  # E: type-var
A.Gatherb(f16, f16, i32, 1, A.GatherRepeatParams())  # E: arg-type
