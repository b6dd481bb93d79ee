"""The memory-level mask state (掩码操作): the vector mask register and the mask mode."""

from typing import assert_type

import regsim as rs

A = rs.AscendC

assert_type(A.SetVectorMask(rs.half, 0, 0xFF), None)
assert_type(A.SetVectorMask(rs.float32, 64), None)
assert_type(A.ResetMask(), None)
assert_type(A.SetMaskCount(), None)
assert_type(A.SetMaskNorm(), None)
