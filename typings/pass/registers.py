"""Registers, masks and reinterpret casts keep their element types."""

from typing import assert_type

import regsim as rs
from regsim import Reg

r_u32 = Reg.RegTensor(rs.uint32)
assert_type(r_u32, Reg.RegTensor[rs.uint32])
assert_type(Reg.RegTensor(rs.float32, trait=Reg.RegTraitNumOne), Reg.RegTensor[rs.float32])
assert_type(Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo), Reg.RegTensor[rs.uint64])
assert_type(Reg.RegTensor(rs.complex64, Reg.RegTraitNumTwo), Reg.RegTensor[rs.complex64])
assert_type(r_u32.dtype, type[rs.uint32])

assert_type(r_u32.reinterpret(rs.int32), Reg.RegTensor[rs.int32])
assert_type(r_u32.reinterpret(rs.float32).reinterpret(rs.half), Reg.RegTensor[rs.half])
assert_type(Reg.RegTensor(rs.int64, Reg.RegTraitNumTwo).reinterpret(rs.uint64, Reg.RegTraitNumTwo), Reg.RegTensor[rs.uint64])

assert_type(Reg.RegTensor.from_numpy([1, 2], dtype=rs.int16), Reg.RegTensor[rs.int16])

# (RegTensor<uint32_t>&)r.reg[1]: the second hardware register of a two-register tensor
r_u64 = Reg.RegTensor(rs.uint64, Reg.RegTraitNumTwo)
assert_type(r_u64.reg, tuple[Reg.RegTensor[rs.uint64], ...])
assert_type(r_u64.reg[1].reinterpret(rs.uint32), Reg.RegTensor[rs.uint32])

n = rs.Ref(128)
assert_type(n, rs.Ref[int])
assert_type(n.value, int)

with rs.VEC_SCOPE():
    assert_type(Reg.CreateMask(rs.uint8), Reg.MaskReg)
    assert_type(Reg.CreateMask(rs.uint32, pattern=Reg.MaskPattern.ALLF), Reg.MaskReg)
    assert_type(Reg.CreateMask(rs.uint64, pattern=Reg.MaskPattern.VL8, trait=Reg.RegTraitNumTwo), Reg.MaskReg)
    assert_type(Reg.UpdateMask(rs.float32, n), Reg.MaskReg)
    assert_type(Reg.UpdateMask(rs.int64, n, trait=Reg.RegTraitNumTwo), Reg.MaskReg)

m = Reg.MaskReg()
assert_type(m, Reg.MaskReg)
assert_type(Reg.MaskReg.from_lanes(rs.int32, [True] * 64), Reg.MaskReg)
