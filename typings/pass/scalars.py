"""Scalar operands of the register's family and (dst, src) pairs of the reductions, which mypy accepts: any
register takes an int, a float register a float too, a complex register a complex; a SUM of int16 widens to
int32."""

import numpy as np

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.uint8)
    i16, i32, u16, u32 = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int32), Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.uint32)
    h, f32, c64 = Reg.RegTensor(rs.half), Reg.RegTensor(rs.float32), Reg.RegTensor(rs.complex64)
    b8 = Reg.RegTensor(rs.bool_)
    hf8 = Reg.RegTensor(rs.hifloat8)

    Reg.Muls(i32, i32, 3, mask)
    Reg.Muls(i32, i32, np.int64(3), mask)
    Reg.Muls(f32, f32, 2.5, mask)
    Reg.Muls(f32, f32, 2, mask)  # an int is a float
    Reg.Muls(f32, f32, np.float16(0.5), mask)
    Reg.Muls(c64, c64, 1 + 2j, mask)
    Reg.Adds(h, h, 0.25, mask)
    Reg.Adds(c64, c64, 2.0, mask)
    Reg.Maxs(i16, i16, -1, mask)
    Reg.Mins(f32, f32, float("inf"), mask)
    Reg.LeakyRelu(f32, f32, 0.01, mask)
    Reg.Axpy(f32, f32, 0.5, mask)
    Reg.Axpy(Reg.RegTensor(rs.int64), Reg.RegTensor(rs.int64), 7, mask)
    Reg.Compares(Reg.MaskReg(), i32, 5, mask, mode=Reg.CMPMODE.GT)
    Reg.Compares(Reg.MaskReg(), f32, 0.5, mask, mode=rs.CMPMODE.LE)
    Reg.Duplicate(i32, 7)
    Reg.Duplicate(b8, True)
    Reg.Duplicate(hf8, 0x3C)  # a bits-only type takes its bits
    Reg.Duplicate(f32, 1.5, mask)
    Reg.Duplicate(c64, 1j, mask, mode=Reg.MaskMergeMode.MERGING)
    Reg.Arange(i32, 0)
    Reg.Arange(h, 0.5)

    Reg.Reduce(i32, i16, mask)  # SUM widens int16 to int32
    Reg.Reduce(u32, u16, mask, type=Reg.ReduceType.SUM)
    Reg.Reduce(i16, i16, mask, type=Reg.ReduceType.MAX)
    Reg.Reduce(f32, f32, mask)
    Reg.ReduceDataBlock(u32, u32, mask, type=Reg.ReduceType.MAX)
    Reg.ReduceSum(u32, u16, mask)
    Reg.ReduceSum(h, h, mask)
    Reg.ReduceDataBlock(i32, i16, mask)
    Reg.ReduceDataBlock(u16, u16, mask, type=Reg.ReduceType.MIN)
    Reg.ReduceSumWithDataBlock(f32, f32, mask)
