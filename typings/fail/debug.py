"""Misuses of rs.printf and the rs.asc_dump family that mypy catches."""

import regsim as rs
from regsim import Reg


@rs.simd_vf
def debug_vf(x: rs.UbPtr[rs.float32]) -> None:
    r = Reg.RegTensor(rs.float32)
    rs.printf(3)  # E: arg-type
    rs.asc_dump_ubuf(r, 1, 8)  # E: arg-type
    rs.asc_dump_reg(r, 2, 8)  # E: call-arg
    rs.asc_dump(x, 3)  # E: call-overload
    rs.asc_dump(rs.int32, x, 4, 8)  # E: call-overload
