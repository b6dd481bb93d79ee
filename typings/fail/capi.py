"""rs.capi misuse mypy catches: a memory-level compare with the wrong argument count or kinds, a register
compare with a pointer, the _sync forms on registers, the compare-mask functions without a pointer."""

import regsim as rs
from regsim import Reg, capi

ub = rs.UnifiedBuffer(4096)
src0 = ub.alloc(rs.half, 128)
dst = ub.alloc(rs.uint8, 16)

capi.asc_eq(src0, src0, 1, 1, 1, 1, 8, 8)  # E: call-overload
capi.asc_eq(src0, src0, 1.5, 1, 1, 1, 8, 8, 8)  # E: call-overload
capi.asc_gt_scalar(dst, src0, "1", 1, 1, 1, 8, 8)  # E: call-overload
capi.asc_get_cmp_mask(3)  # E: arg-type

with rs.VEC_SCOPE():
    a = Reg.RegTensor(rs.float32)
    m = Reg.MaskReg()
    capi.asc_eq(m, a, src0, m)  # E: call-overload
    capi.asc_eq_sync(m, a, a, m)  # E: call-overload
    capi.asc_eq_scalar_sync(m, a, 1.0, m)  # E: call-overload
