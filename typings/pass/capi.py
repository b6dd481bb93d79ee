"""rs.capi as a kernel uses it: the memory-level compares (9 / 10 / 8 arguments), the compare-mask register, and
the register-level functions generated from the registry, one C overload each: vector parameters of one element
type (`vector_float` is `RegTensor[float32]`), masks, pointers of the vector's type, scalars of its kind of number,
int32_t offsets and AddrRegs, the unaligned buffers, a uint32_t& count, the PAT_* and MEM_TYPE constants, and what
they return."""

from typing import assert_type

import regsim as rs
from regsim import Reg, capi

ub = rs.UnifiedBuffer(4096)
src0 = ub.alloc(rs.half, 128)
src1 = ub.alloc(rs.half, 128)
dst = ub.alloc(rs.uint8, 16)
f32 = ub.alloc(rs.float32, 64).GetPhyAddr()
u16 = ub.alloc(rs.uint16, 128).GetPhyAddr()

capi.asc_eq(src0.GetPhyAddr(), src1.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8)
capi.asc_get_cmp_mask(dst.GetPhyAddr())
capi.asc_set_cmp_mask(dst)
capi.asc_ne(dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr(), 1, 1, 1, 1, 8, 8, 8)
capi.asc_le_sync(dst, src0, src1, 1, 1, 1, 1, 8, 8, 8)
capi.asc_gt_scalar(dst.GetPhyAddr(), src0.GetPhyAddr(), 2.5, 1, 1, 1, 8, 8)
capi.asc_ge_scalar_sync(dst, src0, 1, 1, 1, 1, 8, 8)
assert_type(capi.REGISTER_API, tuple[str, ...])
assert_type(capi.MEMORY_API, tuple[str, ...])
barrier: capi.MEM_TYPE = capi.VST_VLD

with rs.VEC_SCOPE():
    a = Reg.RegTensor(rs.float32)
    b = Reg.RegTensor(rs.float32)
    h = Reg.RegTensor(rs.half)
    i32 = Reg.RegTensor(rs.int32)
    u32 = Reg.RegTensor(rs.uint32)
    i16 = Reg.RegTensor(rs.int16)
    w16 = Reg.RegTensor(rs.uint16)
    m = Reg.MaskReg()
    capi.asc_eq(m, a, b, Reg.CreateMask(rs.float32))
    capi.asc_lt_scalar(m, a, 0.5, m)
    capi.asc_lt_scalar(m, i32, 3, m)
    full = capi.asc_create_mask_b32(capi.PAT_ALL)
    assert_type(full, Reg.MaskReg)
    assert_type(capi.asc_create_mask_b8(capi.PAT_VL16), Reg.MaskReg)
    assert_type(capi.asc_update_mask_b16(rs.Ref(100)), Reg.MaskReg)
    assert_type(capi.asc_get_mask_spr_b32(), Reg.MaskReg)
    # vectors of one element type, each the overload's type variable; the carry form on vector_uint32_t
    assert_type(capi.asc_add(a, a, b, full), None)
    capi.asc_add(i16, i16, i16, full)
    capi.asc_add(m, u32, u32, u32, full)
    capi.asc_addc(m, u32, u32, u32, m, full)
    capi.asc_and(m, m, m, full)
    capi.asc_sqrt(h, h, full)
    # scalars: an int for an integer vector, a real number for a float one
    capi.asc_add_scalar(i32, i32, 7, full)
    capi.asc_add_scalar(a, a, 0.25, full)
    capi.asc_add_scalar(a, a, 2, full)
    capi.asc_duplicate_scalar(h, 1.5)
    capi.asc_shiftleft_scalar(i16, i16, 3, full)
    # a shift amount of the signed type of the shifted width; conversions of their two types
    capi.asc_shiftleft(w16, w16, i16, full)
    capi.asc_float2half_rn(h, a, full)
    capi.asc_half2float(a, h, full)
    capi.asc_muls(h, a, 0.5, full)
    # pointers of the vector's type, an int32_t element offset or an AddrReg, a post-update stride
    capi.asc_loadalign(a, f32)
    capi.asc_loadalign(a, f32, 64)
    capi.asc_loadalign_postupdate(a, f32, 64)
    capi.asc_storealign(f32, a, full)
    capi.asc_storealign(u16, m)
    for _ in range(2):
        areg = capi.asc_update_addr_reg_b32(64)
        assert_type(areg, Reg.AddrReg)
        capi.asc_loadalign(a, f32, areg)
    capi.asc_gather(w16, u16, w16, full)
    capi.asc_gather_datablock(a, f32, u32, full)
    # the unaligned buffers; the memory barrier's constants
    uload, ustore = Reg.UnalignRegForLoad(), Reg.UnalignRegForStore()
    capi.asc_loadunalign_pre(uload, f32)
    capi.asc_loadunalign_postupdate(a, uload, f32, 64)
    capi.asc_storeunalign_postupdate(f32, ustore, a, 64)
    capi.asc_storeunalign_post_postupdate(f32, ustore, 0)
    capi.asc_mem_bar(barrier)
