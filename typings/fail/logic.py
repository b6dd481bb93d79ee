"""Logic, shifts, compare and select misuse: float And, bf16 Not, MERGING, a MaskMergeMode for a
CMPMODE, mixed register and MaskReg operands, b8 MoveMask, a float shift amount."""

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.uint8)
    m0 = Reg.MaskReg()
    f32 = Reg.RegTensor(rs.float32)
    bf16 = Reg.RegTensor(rs.bfloat16)
    u16 = Reg.RegTensor(rs.uint16)
    i16 = Reg.RegTensor(rs.int16)
    c32 = Reg.RegTensor(rs.complex32)

    Reg.And(f32, f32, f32, mask)  # E: type-var
    Reg.Not(bf16, bf16, mask)  # E: type-var
    Reg.Xor(u16, u16, u16, mask, mode=Reg.MaskMergeMode.MERGING)  # E: call-overload
    Reg.And(m0, u16, u16, mask)  # E: call-overload
    Reg.ShiftLeft(u16, u16, f32, mask)  # E: type-var
    Reg.ShiftLefts(f32, f32, 1, mask)  # E: type-var
    Reg.Compare(m0, i16, i16, mask, mode=Reg.MaskMergeMode.ZEROING)  # E: arg-type
    Reg.Compare(m0, c32, c32, mask)  # E: type-var
    Reg.Select(c32, c32, c32, mask)  # E: type-var
    Reg.MoveMask(rs.uint8)  # E: type-var
