"""The memory-level compare and select APIs (比较与选择): bit-array dsts, the compare-mask register forms, the flexible
scalar, the forms without a mask argument, GatherMask's built-in and tensor patterns."""

from typing import assert_type

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
u8 = ub.alloc(rs.uint8, 256)
u16 = ub.alloc(rs.uint16, 256)
bp, up = A.BinaryRepeatParams(), A.UnaryRepeatParams()
LT, S1, S2 = A.CMPMODE.LT, A.SELMODE.VSEL_TENSOR_SCALAR_MODE, A.SELMODE.VSEL_TENSOR_TENSOR_MODE

assert_type(A.Compare(u8, f32, f32, LT, 64), None)
assert_type(A.Compare(u8, f16, f16, LT, [1, 0], 2, bp), None)
assert_type(A.Compare(f16, f16, LT, 128, bp), None)  # into the compare-mask register
assert_type(A.Compares(u8, f32, 0.5, LT, 64), None)
assert_type(A.Compares(u8, f32, f32[0], LT, 64, config=A.BinaryConfig(1)), None)
assert_type(A.Select(f32, u8, f32, f32, S2, 64), None)
assert_type(A.Select(f32, u8, f32, 2.0, S1, 64, 1, bp), None)
assert_type(A.Select(f32, f32, f32, 1, bp, sel_mode=A.SELMODE.VSEL_CMPMASK_SPR), None)  # the register's bits
assert_type(A.GetCmpMask(u8), None)
assert_type(A.SetCmpMask(u16), None)
n = rs.Ref(0)
assert_type(A.GatherMask(f16, f16, 2, False, 0, A.GatherMaskParams(1, 2, 8, 0), n), None)
assert_type(A.GatherMask(f16, f16, u16, True, 100, A.GatherMaskParams(), n), None)
