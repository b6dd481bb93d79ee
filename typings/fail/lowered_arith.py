"""The memory-level arithmetic APIs: mypy refuses the dtypes and argument kinds their spec refuses."""

import regsim as rs

A = rs.AscendC
ub = rs.UnifiedBuffer()
f32 = ub.alloc(rs.float32, 256)
f16 = ub.alloc(rs.half, 256)
i8 = ub.alloc(rs.int8, 256)
bf16 = ub.alloc(rs.bfloat16, 256)
i32 = ub.alloc(rs.int32, 256)
bp, up = A.BinaryRepeatParams(), A.UnaryRepeatParams()

A.Add(i8, i8, i8, 32, 1, bp)  # E: type-var
A.Add(f32, f16, f32, 64)  # E: misc
A.Add(f32, f32, f32, 64, 1, up)  # E: call-overload
A.Add(f32, f32, f32, "64")  # E: call-overload
A.Mul(i8, i8, i8, 64)  # E: type-var
A.Div(bf16, bf16, bf16, 64)  # E: type-var
A.Div(f32, f32, f32, 64, config=A.ExpConfig())  # E: call-overload
A.Exp(i32, i32, 64)  # E: type-var
A.Neg(f32, f32, 64, 1, up)  # E: call-arg, arg-type
A.Mull(f32, f32, f32, f32, 64)  # E: type-var
A.Adds(f32, f32, f16[0], 64)  # E: misc
A.Abs(bf16, bf16, 64)  # E: type-var
