"""The memory-level compound APIs: mypy refuses their dtypes and interfaces the pages do not list."""

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
i32 = ub.alloc(rs.int32, 256)
u64 = ub.alloc(rs.uint64, 256)

A.AddRelu(i32, i32, i32, 64)  # E: type-var
A.MulAddDst(f16, f32, f32, 64)  # E: misc
A.FusedMulAdd(u64, u64, u64, 32, 1, A.BinaryRepeatParams())  # E: type-var
A.AbsSub(f32, f32, f32, 64, 1, A.BinaryRepeatParams())  # E: call-arg, arg-type
A.Axpy(f32, f32, f32, 64)  # E: call-overload
