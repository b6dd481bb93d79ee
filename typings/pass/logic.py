"""Logic, shifts, compare and select on the types their pages accept; the MaskReg forms; CMPMODE as mode=."""

from typing import assert_type

import numpy as np

import regsim as rs
from regsim import Reg

CMPMODE = rs.AscendC.CMPMODE

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.uint8)
    m0, m1 = Reg.MaskReg(), Reg.MaskReg()
    u8 = Reg.RegTensor(rs.uint8)
    i8 = Reg.RegTensor(rs.int8)
    b = Reg.RegTensor(rs.bool_)
    f16 = Reg.RegTensor(rs.half)
    i64 = Reg.RegTensor(rs.int64, Reg.RegTraitNumTwo)
    u64 = Reg.RegTensor(rs.uint64)
    f32 = Reg.RegTensor(rs.float32)

    assert_type(Reg.Not(f16, f16, mask), None)
    assert_type(Reg.And(b, b, b, mask), None)
    assert_type(Reg.Or(u64, u64, u64, mask, mode=Reg.MaskMergeMode.ZEROING), None)
    assert_type(Reg.Xor(i64, i64, i64, mask), None)
    assert_type(Reg.Not(m0, m1, mask), None)
    assert_type(Reg.MaskAnd(m0, m0, m1, mask), None)
    assert_type(Reg.ShiftLeft(u8, u8, i8, mask), None)
    assert_type(Reg.ShiftRights(i64, i64, 3, mask), None)
    assert_type(Reg.Compare(m0, f32, f32, mask, mode=CMPMODE.GT), None)
    assert_type(Reg.Compares(m0, f32, 0.5, mask, mode=CMPMODE.LE), None)
    assert_type(Reg.CompareScalar(m0, u64, 7, mask), None)
    assert_type(Reg.Select(f32, f32, f32, m0), None)
    assert_type(Reg.Select(m0, m0, m1, mask), None)
    assert_type(Reg.MoveMask(rs.half), Reg.MaskReg)
    assert_type(Reg.MaskGenWithRegTensor(m0, Reg.RegTensor(rs.uint32), offset=3), None)

rs.AscendC.SetVectorMask(rs.half, 0, 0xFFFF)

with rs.VEC_SCOPE():
    h = Reg.RegTensor(rs.half)
    Reg.Compares(Reg.MaskReg(), h, np.float16(0.5), Reg.CreateMask(rs.half))
    Reg.ShiftRights(Reg.RegTensor(rs.uint8), Reg.RegTensor(rs.uint8), np.int16(2), Reg.CreateMask(rs.uint8))
