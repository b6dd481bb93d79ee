"""Registers, masks and pointers: non-dtype type parameters, UpdateMask without a Ref."""

import regsim as rs
from regsim import Reg

Reg.RegTensor(int)  # E: type-var
Reg.RegTensor(rs.DType())  # E: arg-type
Reg.RegTensor(rs.float32())  # E: arg-type
reg = Reg.RegTensor(rs.float32)
reg.reinterpret(int)  # E: type-var
reg.reinterpret(float)  # E: type-var
reg.reinterpret("uint32")  # E: arg-type
same: Reg.RegTensor[rs.float32] = reg.reinterpret(rs.int32)  # E: arg-type
u32: Reg.RegTensor[rs.uint32] = Reg.RegTensor(rs.int32)  # E: arg-type

ub = rs.UnifiedBuffer()
t = ub.alloc(rs.float32, 64)
ub.alloc(float, 64)  # E: type-var
p = t.GetPhyAddr()
p.reinterpret(int)  # E: type-var
q: rs.UbPtr[rs.uint32] = p  # E: assignment
r: rs.UbPtr[rs.uint32] = p + 1  # E: assignment
p + 1.5  # E: operator
t2: rs.LocalTensor[rs.int32] = t[4]  # E: assignment

count = 64
n = rs.Ref(count)
with rs.VEC_SCOPE():
    Reg.UpdateMask(rs.float32, count)  # E: arg-type
    Reg.UpdateMask(rs.float32, 64)  # E: arg-type
    Reg.UpdateMask(rs.float32, rs.Ref(1.5))  # E: arg-type
    Reg.UpdateMask(int, n)  # E: arg-type
    Reg.UpdateMask(n)  # E: call-arg, arg-type
    Reg.CreateMask(rs.uint8, Reg.MaskPattern.ALL)  # E: call-arg
    Reg.CreateMask(rs.uint8, pattern=0)  # E: arg-type
    Reg.CreateMask(int)  # E: arg-type
    m: Reg.RegTensor[rs.uint8] = Reg.CreateMask(rs.uint8)  # E: assignment

u8p = ub.alloc(rs.uint8, 64).GetPhyAddr()
d: int = u8p - p  # E: operator
t.set([1.0], cast=1.0)  # E: arg-type
rs.testing.assert_reg_equal(Reg.MaskReg(), [0])  # E: arg-type
