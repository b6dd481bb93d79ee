"""The memory-level compound APIs (复合计算): their faces accept the pages' rows, MulAddDst's and Axpy's half
sources with a float dst included."""

from typing import assert_type

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
bf16 = ub.alloc(rs.bfloat16, 256)
u64 = ub.alloc(rs.uint64, 256)

assert_type(A.AddRelu(f16, f16, f16, 128), None)
assert_type(A.SubRelu(f32, f32, f32, [3, 0], 1, A.BinaryRepeatParams()), None)
assert_type(A.FusedMulAdd(bf16, bf16, bf16, 128), None)
assert_type(A.MulAddRelu(u64, u64, u64, 32), None)
assert_type(A.MulAddDst(f32, f32, f32, 64), None)
assert_type(A.MulAddDst(f32, f16, f16, 64), None)  # the half-sources / float-dst row
assert_type(A.Axpy(f32, f16, 0.5, 64, 1, A.UnaryRepeatParams(1, 1, 8, 4)), None)
assert_type(A.AbsSub(f16, f16, f16, 128), None)
