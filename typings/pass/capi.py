"""rs.capi as a kernel uses it: the memory-level compares (9 / 10 / 8 arguments), the compare-mask register,
the register-level forms of asc_eq / asc_eq_scalar, and generated register-level functions."""

import regsim as rs
from regsim import Reg, capi

ub = rs.UnifiedBuffer(4096)
src0 = ub.alloc(rs.half, 128)
src1 = ub.alloc(rs.half, 128)
dst = ub.alloc(rs.uint8, 16)

capi.asc_eq(src0.GetPhyAddr(), src1.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8)
capi.asc_get_cmp_mask(dst.GetPhyAddr())
capi.asc_set_cmp_mask(dst)
capi.asc_ne(dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8)
capi.asc_le_sync(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8)
capi.asc_gt_scalar(dst.GetPhyAddr(), src0.GetPhyAddr(), 2.5, 1, 1, 1, 8, 8)
capi.asc_ge_scalar_sync(dst, src0, 1, 1, 1, 1, 8, 8)

with rs.VEC_SCOPE():
    a = Reg.RegTensor(rs.float32)
    b = Reg.RegTensor(rs.float32)
    m = Reg.MaskReg()
    capi.asc_eq(m, a, b, Reg.CreateMask(rs.float32))
    capi.asc_lt_scalar(m, a, 0.5, m)
    full = capi.asc_create_mask_b32(capi.PAT_ALL)
    capi.asc_add(a, a, b, full)
