"""The memory-level compare and select APIs: mypy refuses what their pages refuse."""

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
i16 = ub.alloc(rs.int16, 256)
u8 = ub.alloc(rs.uint8, 256)
i8 = ub.alloc(rs.int8, 256)
c64 = ub.alloc(rs.complex64, 256)
LT = A.CMPMODE.LT

A.Compare(f32, f32, f32, LT, 64)  # E: arg-type
A.Compare(u8, c64, c64, LT, 64)  # E: type-var
A.Compare(i16, i16, LT, 128, A.BinaryRepeatParams())  # E: type-var
A.Compares(i8, f32, 0.5, LT, 64)  # E: arg-type
A.Compare(u8, f32, f32, "LT", 64)  # E: call-overload
A.Select(f32, f32, f32, f32, A.SELMODE.VSEL_TENSOR_TENSOR_MODE, 64)  # E: arg-type
A.GetCmpMask(ub.alloc(rs.uint64, 16))  # E: type-var
A.GatherMask(c64, c64, 2, False, 0, A.GatherMaskParams(), rs.Ref(0))  # E: type-var
