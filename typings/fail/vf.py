"""@rs.simd_vf kernels and rs.asc_vf_call are checked against the kernel's signature."""

from collections.abc import Callable

import regsim as rs
from regsim import Reg


@rs.simd_vf
def add_vf(dst: rs.UbPtr[rs.uint32], src0: rs.UbPtr[rs.uint32], src1: rs.UbPtr[rs.uint32], count: int) -> None:
    a = Reg.RegTensor(rs.uint32)
    b = Reg.RegTensor(rs.uint32)
    n = rs.Ref(count)
    mask = Reg.UpdateMask(rs.uint32, n)
    Reg.LoadAlign(a, src0)
    Reg.LoadAlign(b, src1)
    Reg.Add(a, a, b, mask)
    Reg.StoreAlign(dst, a, mask)


@rs.simd_callee
def twice(x: int) -> int:
    return 2 * x


# The decorated kernel keeps its parameter types: it is no Callable[..., None] of other types.
as_f32: Callable[[rs.UbPtr[rs.float32], rs.UbPtr[rs.uint32], rs.UbPtr[rs.uint32], int], None] = add_vf  # E: assignment
as_short: Callable[[rs.UbPtr[rs.uint32]], None] = add_vf  # E: assignment

ub = rs.UnifiedBuffer()
u = ub.alloc(rs.uint32, 64).GetPhyAddr()
f = ub.alloc(rs.float32, 64).GetPhyAddr()

add_vf(u, u, u, 64)
add_vf(f, u, u, 64)  # E: arg-type
add_vf(u, u, u, "64")  # E: arg-type
add_vf(u, u, u)  # E: call-arg
add_vf(u, u, u, 64, 1)  # E: call-arg
add_vf(u, u, u, cnt=64)  # E: call-arg
add_vf(u, u, u, rs.Ref(64))  # E: arg-type
add_vf(u.reinterpret(rs.int32), u, u, 64)  # E: arg-type
x: int = add_vf(u, u, u, 64)  # E: assignment

rs.asc_vf_call(add_vf, u, u, u, 64)
rs.asc_vf_call(add_vf, u, f, u, 64)  # E: arg-type
rs.asc_vf_call(add_vf, u, u, u, 64.0)  # E: arg-type
rs.asc_vf_call(add_vf, u, u, u)  # E: call-arg
rs.asc_vf_call(add_vf, u, u, u, count=64, extra=1)  # E: call-arg
rs.AscendC.VF_CALL(add_vf, u, u, f, 64)  # E: arg-type


def returns_int(x: int) -> int:
    return x


rs.asc_vf_call(returns_int, 1)  # E: arg-type
rs.simd_vf(returns_int)  # E: arg-type

y: str = twice(3)  # E: assignment
twice("3")  # E: arg-type
