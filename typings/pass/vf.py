"""@rs.simd_vf / @rs.simd_callee keep their signatures; rs.asc_vf_call checks the arguments."""

from collections.abc import Callable
from typing import Protocol, assert_type

import regsim as rs
from regsim import Reg
from vf_examples.add_carry_vf import add_vf  # the AddC page's AddVF, as README ports it


# The decorated function keeps its exact signature: positional types, names and keywords.
# (assert_type cannot spell parameter names, so the check is assignability to a protocol whose
# __call__ repeats the signature, plus the fail cases in typings/fail/vf.py.)
class AddVf(Protocol):
    def __call__(
        self,
        dst0: rs.UbPtr[rs.uint32],
        dst1: rs.UbPtr[rs.uint32],
        src0: rs.UbPtr[rs.uint32],
        src1: rs.UbPtr[rs.uint32],
        count: int,
        repeat_times: int,
        one_repeat_size: int,
    ) -> None: ...


add_vf_as_protocol: AddVf = add_vf
U32Ptr = rs.UbPtr[rs.uint32]
add_vf_as_callable: Callable[[U32Ptr, U32Ptr, U32Ptr, U32Ptr, int, int, int], None] = add_vf


@rs.simd_callee
def add_one(dst: Reg.RegTensor[rs.float32], src: Reg.RegTensor[rs.float32], mask: Reg.MaskReg) -> Reg.MaskReg:
    Reg.Add(dst, src, src, mask)
    return mask


add_one_as_callable: Callable[[Reg.RegTensor[rs.float32], Reg.RegTensor[rs.float32], Reg.MaskReg], Reg.MaskReg] = add_one


@rs.simd_callee
def scaled(count: int, *, factor: int = 2) -> int:
    return count * factor


@rs.simd_vf
def copy_vf(dst: rs.UbPtr[rs.float32], src: rs.UbPtr[rs.float32], count: rs.Ref[int]) -> None:
    reg = Reg.RegTensor(rs.float32)
    out = Reg.RegTensor(rs.float32)
    while count.value > 0:
        mask = Reg.UpdateMask(rs.float32, count)
        Reg.LoadAlign(reg, src, 64, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)
        assert_type(add_one(out, reg, mask), Reg.MaskReg)
        assert_type(scaled(3, factor=4), int)
        Reg.StoreAlign(dst, out, 64, mask, post_mode=Reg.PostLiteral.POST_MODE_UPDATE)


ub = rs.UnifiedBuffer()
a = ub.alloc(rs.uint32, 512).GetPhyAddr()
b = ub.alloc(rs.uint32, 512).GetPhyAddr()
c = ub.alloc(rs.uint32, 512).GetPhyAddr()
d = ub.alloc(rs.uint32, 512).GetPhyAddr()
x = ub.alloc(rs.float32, 512).GetPhyAddr()
y = ub.alloc(rs.float32, 512).GetPhyAddr()

assert_type(add_vf(a, b, c, d, 512, 2, 64), None)
assert_type(add_vf(a, b, c, d, count=512, repeat_times=2, one_repeat_size=64), None)
assert_type(rs.asc_vf_call(add_vf, a, b, c, d, 512, 2, 64), None)
assert_type(rs.asc_vf_call(add_vf, a, b, c, d, 512, repeat_times=2, one_repeat_size=64), None)
assert_type(rs.AscendC.VF_CALL(add_vf, a, b, c, d, 512, 2, 64), None)
assert_type(copy_vf(y, x, rs.Ref(512)), None)
assert_type(rs.asc_vf_call(copy_vf, y, x, rs.Ref(512)), None)

with rs.VEC_SCOPE() as ctx:
    assert_type(ctx.config, rs.Config)
