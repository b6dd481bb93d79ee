"""Add / Sub on matching registers; the carry forms on int32 and uint32."""

from typing import Final, assert_type

import regsim as rs
from regsim import Reg

# A merge mode bound to a name keeps its literal type with Final (the faces admit exactly the
# modes each op supports: Literal[ZEROING, MERGING] for Add, Literal[ZEROING] for Sub).
MERGING: Final = Reg.MaskMergeMode.MERGING
ZEROING: Final = Reg.MaskMergeMode.ZEROING

with rs.VEC_SCOPE():
    mask = Reg.CreateMask(rs.uint8)
    carry = Reg.CreateMask(rs.uint8)
    carry_src = Reg.CreateMask(rs.uint8)

    # Integer, floating and complex registers: every operand of one type.
    i8 = Reg.RegTensor(rs.int8)
    assert_type(Reg.Add(i8, i8, i8, mask), None)
    u16 = Reg.RegTensor(rs.uint16)
    assert_type(Reg.Add(u16, u16, u16, mask, mode=MERGING), None)
    i32 = Reg.RegTensor(rs.int32)
    assert_type(Reg.Add(i32, i32, i32, mask, mode=ZEROING), None)
    u32 = Reg.RegTensor(rs.uint32)
    assert_type(Reg.Add(u32, u32, u32, mask), None)
    i64 = Reg.RegTensor(rs.int64, Reg.RegTraitNumTwo)
    assert_type(Reg.Add(i64, i64, i64, mask, mode=MERGING), None)
    f16 = Reg.RegTensor(rs.half)
    assert_type(Reg.Add(f16, f16, f16, mask, mode=MERGING), None)
    bf16 = Reg.RegTensor(rs.bfloat16)
    assert_type(Reg.Add(bf16, bf16, bf16, mask), None)
    f32 = Reg.RegTensor(rs.float32)
    assert_type(Reg.Add(f32, f32, f32, mask, mode=MERGING), None)
    assert_type(Reg.Sub(f32, f32, f32, mask, mode=ZEROING), None)
    c32 = Reg.RegTensor(rs.complex32, Reg.RegTraitNumTwo)
    assert_type(Reg.Add(c32, c32, c32, mask), None)
    c64 = Reg.RegTensor(rs.complex64, Reg.RegTraitNumTwo)
    assert_type(Reg.Add(c64, c64, c64, mask, mode=MERGING), None)
    assert_type(Reg.Sub(c64, c64, c64, mask), None)

    # A reinterpret cast makes the operand types agree.
    assert_type(Reg.Add(i32, u32.reinterpret(rs.int32), i32, mask), None)

    # Carry out: Add/Sub with a MaskReg first, on 32-bit integers.
    assert_type(Reg.Add(carry, i32, i32, i32, mask), None)
    assert_type(Reg.Add(carry, u32, u32, u32, mask), None)
    assert_type(Reg.Sub(carry, i32, i32, i32, mask), None)
    assert_type(Reg.Sub(carry, u32, u32, u32, mask), None)
    assert_type(Reg.AddCarryOut(carry, u32, u32, u32, mask), None)

    # Carry in and out.
    assert_type(Reg.AddC(carry, i32, i32, i32, carry_src, mask), None)
    assert_type(Reg.AddC(carry, u32, u32, u32, carry_src, mask), None)
    assert_type(Reg.SubC(carry, i32, i32, i32, carry_src, mask), None)
    assert_type(Reg.SubC(carry, u32, u32, u32, carry_src, mask), None)
    assert_type(Reg.AddCarryOuts(carry, u32, u32, u32, carry_src, mask), None)
    assert_type(Reg.SubCarryOuts(carry, i32, i32, i32, carry_src, mask), None)
