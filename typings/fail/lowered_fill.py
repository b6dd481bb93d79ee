"""The memory-level fills: mypy refuses their dtypes and structs the pages do not list."""

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
u8 = ub.alloc(rs.uint8, 256)
f64 = ub.alloc(rs.float64, 256)
c32 = ub.alloc(rs.complex32, 256)

A.Duplicate(f64, 1.0, 64)  # E: type-var
A.Duplicate(u8, 1, 32, 1, 1, 8)  # E: type-var
A.Brcb(c32, c32, 1, A.BrcbRepeatParams())  # E: type-var
A.Brcb(u8, u8, 1, A.BinaryRepeatParams())  # E: arg-type
A.CreateVecIndex(u8, 0, 64)  # E: type-var
