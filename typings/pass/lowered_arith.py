"""The memory-level arithmetic APIs (基础算术): each interface's typed face accepts its dtypes and argument kinds."""

from typing import assert_type

import numpy as np

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
i64 = ub.alloc(rs.int64, 256)
c64 = ub.alloc(rs.complex64, 256)
u8 = ub.alloc(rs.uint8, 256)
bp, up = A.BinaryRepeatParams(), A.UnaryRepeatParams(1, 1, 8, 8)

assert_type(A.Add(f32, f32, f32, 64), None)
assert_type(A.Add(c64, c64, c64, 64), None)  # complex: the first-n interface
assert_type(A.Add(f16, f16, f16, [0xFF, 0], 2, bp), None)  # a bit-mode mask
assert_type(A.Add(f16, f16, f16, np.array([3, 0], np.uint64), 2, bp), None)
assert_type(A.Sub(f32, f32, f32, 64, 1, bp, is_set_mask=False), None)  # a continuous mask
assert_type(A.Max(u8, u8, u8, 32), None)
assert_type(A.Div(f32, f32, f32, 64, config=A.DivConfig(A.DivAlgo.PRECISION_0ULP_FTZ_TRUE)), None)
assert_type(A.Div(i64, i64, i64, 64), None)
assert_type(A.Exp(f16, f16, 64, 1, up, config=A.DEFAULT_EXP_CONFIG), None)
assert_type(A.Sqrt(f32, f32, 64, config=A.SqrtConfig(A.SqrtAlgo.FAST_INVERSE)), None)
assert_type(A.Abs(f16, f16, 128), None)
assert_type(A.Neg(i64, i64, 32), None)
i32 = ub.alloc(rs.int32, 256)
assert_type(A.Mull(i32, i32[64], i32[128], i32[192], 64), None)
assert_type(A.Adds(f32, f32, 2.5, 64), None)
assert_type(A.Adds(f32, f32, f32[3], 64), None)  # the flexible scalar: a LocalTensor element
assert_type(A.Adds(f32, f32[0], f32, 64, config=A.BinaryConfig(0)), None)
assert_type(A.Subs(f32, 2.5, f32, 64), None)  # an immediate first
assert_type(A.Muls(f16, f16, np.float16(2), [1, 0], 1, up), None)
assert_type(A.LeakyRelu(f32, f32, 0.1, 64), None)
