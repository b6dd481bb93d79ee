"""rs.capi misuse mypy catches: a memory-level compare with the wrong argument count or kinds, a register compare
with a pointer, the _sync forms on registers, the compare-mask functions without a pointer; register-level calls
of the wrong count or kinds (`asc_add(1, 2)`), vectors of two element types, an element type the C overload does
not take, a scalar of the wrong kind, a pointer of another type, a shift amount or conversion of the wrong types,
keyword arguments (C has none), a string for a PAT_* constant, a plain int for a uint32_t& count."""

import regsim as rs
from regsim import Reg, capi

ub = rs.UnifiedBuffer(4096)
src0 = ub.alloc(rs.half, 128)
dst = ub.alloc(rs.uint8, 16)
f32 = ub.alloc(rs.float32, 64).GetPhyAddr()

capi.asc_eq(src0, src0, 1, 1, 1, 1, 8, 8)  # E: call-overload
capi.asc_eq(src0, src0, 1.5, 1, 1, 1, 8, 8, 8)  # E: call-overload
capi.asc_gt_scalar(dst, src0, "1", 1, 1, 1, 8, 8)  # E: call-overload
capi.asc_get_cmp_mask(3)  # E: arg-type
capi.asc_add(1, 2)  # E: call-overload

with rs.VEC_SCOPE():
    a = Reg.RegTensor(rs.float32)
    h = Reg.RegTensor(rs.half)
    i32 = Reg.RegTensor(rs.int32)
    i16 = Reg.RegTensor(rs.int16)
    w16 = Reg.RegTensor(rs.uint16)
    m = Reg.MaskReg()
    capi.asc_eq(m, a, src0, m)  # E: call-overload
    capi.asc_eq_sync(m, a, a, m)  # E: call-overload
    capi.asc_eq_scalar_sync(m, a, 1.0, m)  # E: call-arg, arg-type
    capi.asc_add(a, a, i32, m)  # E: misc
    capi.asc_add(m, a, a, a, m)  # E: arg-type
    capi.asc_sqrt(i32, i32, m)  # E: type-var
    capi.asc_and(a, a, a, m)  # E: type-var
    capi.asc_add_scalar(i32, i32, 1.5, m)  # E: type-var
    capi.asc_float2half_rn(a, h, m)  # E: arg-type
    capi.asc_shiftleft(w16, w16, w16, m)  # E: arg-type
    capi.asc_loadalign(h, f32)  # E: misc
    capi.asc_storealign(f32, a, 1.5)  # E: call-overload
    capi.asc_add(dst_reg=a, src_reg0=a, src_reg1=a, mask=m)  # E: call-overload
    capi.asc_create_mask_b32("PAT_ALL")  # E: arg-type
    capi.asc_update_mask_b32(100)  # E: arg-type
    capi.asc_mem_bar(capi.PAT_ALL)  # E: arg-type
    capi.asc_duplicate_scalar(i16, i16)  # E: call-overload
