"""rs.printf and the rs.asc_dump family inside a VF: typed as the C++ overloads."""

import regsim as rs
from regsim import Reg


@rs.simd_vf
def debug_vf(x: rs.UbPtr[rs.float32], n: int) -> None:
    r = Reg.RegTensor(rs.float32)
    Reg.LoadAlign(r, x)
    rs.printf("n=%u x[0]=%f %s %p\n", n, x[0], "text", x)
    rs.printf("no arguments\n")
    rs.asc_dump_ubuf(x, 1, 8)
    rs.asc_dump_reg(rs.float32, r, 2, 8)
    rs.asc_dump(x, 3, 8)  # the __ubuf__ overload
    rs.asc_dump(rs.int32, r, 4, 8)  # the register overload: T first
