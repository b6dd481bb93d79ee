"""The memory-level mask state: mypy refuses a mask without its type and arguments the pages do not list."""

import regsim as rs

A = rs.AscendC

A.SetVectorMask(0, 0xFF)  # E: call-overload
A.SetVectorMask(rs.half, 1, 2, 3)  # E: call-overload
A.ResetMask(rs.half)  # E: call-arg
A.SetMaskCount(1)  # E: call-arg
