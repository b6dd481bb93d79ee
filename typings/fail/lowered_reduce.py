"""The memory-level reductions: mypy refuses their dtypes and forms the pages do not list."""

import regsim as rs

A = rs.AscendC
RT = A.ReduceType
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
i8 = ub.alloc(rs.int8, 256)
i16 = ub.alloc(rs.int16, 256)

A.ReduceSum(i16, i16, i16, 64)  # E: type-var
A.ReduceSum(f32, f32, f32, 64, True)  # E: call-overload
A.ReduceMax(i8, i8, i8, 64)  # E: type-var
A.ReduceDataBlock(i16, i16, 64, 2, 1, 1, 8, reduce_type=RT.SUM)  # E: type-var
A.ReduceRepeat(f32, f32, 64, 2, 1, 1, 8)  # E: call-overload
A.RepeatReduceSum(f32, f32, 2, [1, 0], 1, 1, 1, 8)  # E: arg-type
A.PairReduceSum(f32, f32, 2, 64, 1, 1, 8, reduce_type=RT.SUM)  # E: call-overload
