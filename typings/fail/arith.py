"""Add / Sub / AddC / SubC misuse: operand types that disagree, carry ops off 32-bit integers.

RegTensor is invariant in its dtype, so operands of two dtypes give one TypeVar two conflicting
exact values; mypy reports that as [misc] "Cannot infer value of type parameter". A dtype outside
a constrained TypeVar (the carry ops' `C = TypeVar("C", int32, uint32)`) is [type-var].
"""

import regsim as rs
from regsim import Reg

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.uint8)
    carry = Reg.CreateMask(rs.uint8)
    carry_src = Reg.CreateMask(rs.uint8)
    i16 = Reg.RegTensor(rs.int16)
    i32 = Reg.RegTensor(rs.int32)
    u32 = Reg.RegTensor(rs.uint32)
    u64 = Reg.RegTensor(rs.uint64)
    f32 = Reg.RegTensor(rs.float32)

    # Mixed element types.
    Reg.Add(i32, i32, f32, mask)  # E: misc
    Reg.Add(f32, i32, i32, mask)  # E: misc
    Reg.Add(i32, u32, i32, mask, mode=Reg.MaskMergeMode.MERGING)  # E: call-overload
    Reg.Sub(f32, f32, i32, mask)  # E: misc

    # The mode is a MaskMergeMode the op supports; the mask a MaskReg.
    Reg.Add(f32, f32, f32, mask, mode=0)  # E: call-overload
    Reg.Sub(f32, f32, f32, mask, mode=Reg.MaskMergeMode.MERGING)  # E: call-overload
    Reg.Add(f32, f32, f32, mask, mode=Reg.MaskMergeMode.UNKNOWN)  # E: call-overload
    Reg.Add(f32, f32, f32, f32)  # E: call-overload

    # Carry out: 32-bit integers only.
    Reg.Add(carry, f32, f32, f32, mask)  # E: type-var
    Reg.Add(carry, i16, i16, i16, mask)  # E: type-var
    Reg.Add(carry, u64, u64, u64, mask)  # E: type-var
    Reg.Sub(carry, f32, f32, f32, mask)  # E: type-var
    Reg.Add(carry, i32, u32, i32, mask)  # E: misc
    Reg.Add(carry, i32, i32, i32, mask, mode=Reg.MaskMergeMode.MERGING)  # E: call-overload

    # Carry in and out: 32-bit integers only, one type for every operand.
    Reg.AddC(carry, f32, f32, f32, carry_src, mask)  # E: type-var
    Reg.AddC(carry, i16, i16, i16, carry_src, mask)  # E: type-var
    Reg.AddC(carry, u64, u64, u64, carry_src, mask)  # E: type-var
    Reg.SubC(carry, f32, f32, f32, carry_src, mask)  # E: type-var
    Reg.SubC(carry, i16, i16, i16, carry_src, mask)  # E: type-var
    Reg.SubC(carry, u64, u64, u64, carry_src, mask)  # E: type-var
    Reg.AddC(carry, i32, u32, u32, carry_src, mask)  # E: misc
    Reg.AddC(carry, u32, i32, i32, carry_src, mask)  # E: misc
    Reg.SubC(carry, i32, i32, u32, carry_src, mask)  # E: misc
    Reg.AddC(carry, i32, i32, i32, i32, mask)  # E: arg-type
    f64 = Reg.RegTensor(rs.float64)  # C++ double: moved, never computed on (docs/decisions/model.md#float64-element-type)
    Reg.Add(f64, f64, f64, mask)  # E: type-var
    Reg.Muls(f64, f64, 2.0, mask)  # E: type-var
