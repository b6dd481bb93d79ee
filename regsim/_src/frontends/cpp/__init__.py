"""The C++ front end: libclang parses Ascend C source (parse), the Reg and C API functions are declared to
it from the op registry (declarations), and each __simd_vf__ function is lowered to Python over the Reg
model (lowering)."""
