"""The memory-level reductions (归约计算) and their deprecated names."""

from typing import Any, assert_type

import regsim as rs

A = rs.AscendC
RT = A.ReduceType
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
i16 = ub.alloc(rs.int16, 256)
i32 = ub.alloc(rs.int32, 256)

assert_type(A.ReduceSum(f32, f32, f32, 200), None)
assert_type(A.ReduceMax(f16, f16, f16, 200, True), None)
assert_type(A.ReduceMin(f16, f16, f16, [1, 0], 2, 8, cal_index=True), None)
assert_type(A.GetReduceRepeatSumSpr(rs.float32), Any)
assert_type(A.ReduceRepeat(i32, i16, 128, 2, 1, 1, 8, reduce_type=RT.SUM), None)
assert_type(A.ReduceRepeat(f16, f16, 128, 2, 2, 1, 8, A.ReduceOrder.ORDER_INDEX_VALUE, reduce_type=RT.MAX), None)
assert_type(A.ReduceDataBlock(f32, f32, 64, 2, 1, 1, 8, reduce_type=RT.MIN), None)
assert_type(A.WholeReduceMax(f16, f16, 128, 2, 2, 1, 8), None)
assert_type(A.BlockReduceSum(f16, f16, 2, 128, 1, 1, 8), None)
assert_type(A.RepeatReduceSum(f16, f16, 2, 128, 1, 1, 1, 8), None)
