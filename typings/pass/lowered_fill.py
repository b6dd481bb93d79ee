"""The memory-level fills (数据填充): Duplicate (of a scalar or of src[0]), Brcb, CreateVecIndex."""

from typing import assert_type

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f16 = ub.alloc(rs.half, 256)
i32 = ub.alloc(rs.int32, 256)
b8 = ub.alloc(rs.fp8_e4m3fn, 256)

assert_type(A.Duplicate(f16, 1.5, 128), None)
assert_type(A.Duplicate(b8, 0, 256), None)
assert_type(A.Duplicate(i32, i32[5], 64), None)
assert_type(A.Duplicate(i32, 7, 64, 2, 1, 8), None)
assert_type(A.Brcb(f16, f16[128], 2, A.BrcbRepeatParams(1, 8)), None)
assert_type(A.CreateVecIndex(i32, 0, 64), None)
assert_type(A.CreateVecIndex(f16, 0.0, [3, 0], 2, 1, 8), None)
