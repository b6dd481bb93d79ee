"""The memory-level gathers and scatters (离散与聚合): uint32 byte offsets."""

from typing import assert_type

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f16 = ub.alloc(rs.half, 256)
i64 = ub.alloc(rs.int64, 64)
u8 = ub.alloc(rs.uint8, 256)
off = ub.alloc(rs.uint32, 256)

assert_type(A.Gather(f16, f16, off, 0, 128), None)
assert_type(A.Gather(i64, i64, off, 0, [3, 0], 1, 8), None)
assert_type(A.Gather(u8, u8, off, 0, 64), None)
assert_type(A.Scatter(f16, f16, off, 0, 128), None)
assert_type(A.Scatter(f16, f16, off, 0, 64, 1, 8), None)
assert_type(A.Gatherb(f16, f16, off, 1, A.GatherRepeatParams(1, 8)), None)
