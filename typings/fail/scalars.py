"""Scalar operands outside the register's family and (dst, src) pairs the reductions do not have: what the
runtime refuses with a ParameterError / DTypeError, mypy refuses first. The op's overload closest to the call
names the clash: [type-var] "Value of type variable "Float2T" of "Muls" cannot be "int32"" (a float scalar
needs a float register), [misc] "Cannot infer value of type parameter" (two registers of different types),
[call-overload] when no overload comes close (docs/typing.md)."""

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.uint8)
    i16, i32, u16, u32 = Reg.RegTensor(rs.int16), Reg.RegTensor(rs.int32), Reg.RegTensor(rs.uint16), Reg.RegTensor(rs.uint32)
    h, f32, c64 = Reg.RegTensor(rs.half), Reg.RegTensor(rs.float32), Reg.RegTensor(rs.complex64)
    hf8 = Reg.RegTensor(rs.hifloat8)

    # An integer register takes an integer scalar.
    Reg.Muls(i32, i32, 2.5, mask)  # E: type-var
    Reg.Adds(i16, i16, 0.5, mask)  # E: type-var
    Reg.Maxs(u32, u32, 1e3, mask)  # E: type-var
    Reg.Mins(i32, i32, 1j, mask)  # E: call-overload
    Reg.Axpy(Reg.RegTensor(rs.int64), Reg.RegTensor(rs.int64), 0.5, mask)  # E: type-var
    Reg.Compares(Reg.MaskReg(), i32, 0.5, mask, mode=Reg.CMPMODE.GT)  # E: type-var
    Reg.Duplicate(i32, 1.5)  # E: type-var
    Reg.Duplicate(hf8, 1.0)  # E: type-var
    Reg.Arange(i32, 0.5)  # E: type-var
    # A real register takes no complex scalar.
    Reg.Muls(f32, f32, 1j, mask)  # E: type-var
    Reg.Duplicate(h, 2j, mask)  # E: type-var
    Reg.LeakyRelu(f32, f32, 1j, mask)  # E: arg-type
    Reg.Maxs(c64, c64, 1, mask)  # E: type-var

    # Reductions: SUM of int16 widens to int32, MAX and MIN keep the type.
    Reg.Reduce(i16, i16, mask)  # E: type-var
    Reg.Reduce(i32, i16, mask, type=Reg.ReduceType.MAX)  # E: misc
    Reg.Reduce(f32, h, mask)  # E: misc
    Reg.Reduce(u32, i16, mask)  # E: misc
    Reg.Reduce(i32, u32, mask, type=Reg.ReduceType.MIN)  # E: misc
    Reg.ReduceSum(i16, i16, mask)  # E: type-var
    Reg.ReduceDataBlock(f32, h, mask)  # E: misc
    Reg.ReduceSumWithDataBlock(u16, u16, mask)  # E: type-var
