"""The dtype lists of the memory-level APIs on Ascend 950, each written once, by name.

The pages' "数据类型" sections list, per API and interface, the element types Ascend 950 accepts; the spec table
(`regsim._src.lowerings.table`) names one of these sets for each interface, and the checks, the typed faces and
docs/api.md read them from there. A set is named by what it holds (`HALF_FLOAT`), or, for a list only one page has,
by that page and interface (`ABS_COUNT`). No two sets here are equal (tests/lowerings/test_lowering_spec.py).
"""

from __future__ import annotations

from typing import Final

from regsim._src.model import dtypes as dt

DTypeSet = frozenset[type[dt.DType]]

# --- by width and kind (shared by many pages) --------------------------------------------------------------------------
B8: Final[DTypeSet] = frozenset({dt.int8, dt.uint8})
B16: Final[DTypeSet] = frozenset({dt.int16, dt.uint16, dt.half, dt.bfloat16})
B32: Final[DTypeSet] = frozenset({dt.int32, dt.uint32, dt.float32})
B64: Final[DTypeSet] = frozenset({dt.int64, dt.uint64})
COMPLEX: Final[DTypeSet] = frozenset({dt.complex32, dt.complex64})
B16_B32: Final[DTypeSet] = B16 | B32
B16_B32_NO_BF16: Final[DTypeSet] = B16_B32 - {dt.bfloat16}
B16_TO_B64: Final[DTypeSet] = B16_B32 | B64
B8_B16_B32: Final[DTypeSet] = B8 | B16_B32
B8_TO_B64: Final[DTypeSet] = B8_B16_B32 | B64  #: every 1-, 2-, 4- and 8-byte integer and float type
B8_TO_B64_COMPLEX: Final[DTypeSet] = B8_TO_B64 | COMPLEX
B16_B32_B64_COMPLEX: Final[DTypeSet] = B16_TO_B64 | COMPLEX
HALF: Final[DTypeSet] = frozenset({dt.half})
FLOAT32: Final[DTypeSet] = frozenset({dt.float32})
HALF_FLOAT: Final[DTypeSet] = HALF | FLOAT32
FLOATS: Final[DTypeSet] = HALF_FLOAT | {dt.bfloat16}
FLOAT_COMPLEX64: Final[DTypeSet] = FLOAT32 | {dt.complex64}
HALF_FLOAT_B64: Final[DTypeSet] = HALF_FLOAT | B64
FLOATS_B64: Final[DTypeSet] = FLOATS | B64
UINT8: Final[DTypeSet] = frozenset({dt.uint8})
UINT32: Final[DTypeSet] = frozenset({dt.uint32})
UINTS: Final[DTypeSet] = frozenset({dt.uint8, dt.uint16, dt.uint32, dt.uint64})  #: Select's selMask types
B16_B32_INTS: Final[DTypeSet] = frozenset({dt.int16, dt.uint16, dt.int32, dt.uint32})
INTS: Final[DTypeSet] = B8 | B16_B32_INTS | B64  #: every integer type
INT32S: Final[DTypeSet] = frozenset({dt.int32, dt.uint32})
SIGNED_HALF_FLOAT: Final[DTypeSet] = frozenset({dt.int8, dt.int16, dt.int32, dt.int64}) | HALF_FLOAT
SIGNED16_32_HALF_FLOAT: Final[DTypeSet] = frozenset({dt.int16, dt.int32}) | HALF_FLOAT

# --- the lists of one page or one group of pages -------------------------------------------------------------------------
DIV_COUNT: Final[DTypeSet] = B16_B32_NO_BF16 | B64 | COMPLEX
NOT_COUNT: Final[DTypeSet] = B16_B32_NO_BF16 | B8 | B64
REDUCE_MAX_COUNT: Final[DTypeSet] = B16_B32_NO_BF16 | B64  #: ReduceMax, ReduceMin
HALF_FLOAT_S32: Final[DTypeSet] = HALF_FLOAT | {dt.int32}  #: (int32, not uint32) Relu's mask/repeat; the C API's EQ
RELU_COUNT: Final[DTypeSet] = HALF_FLOAT_S32 | {dt.int64}
ADD_RELU_REPEAT: Final[DTypeSet] = HALF_FLOAT | {dt.int16}  #: AddRelu, SubRelu
ADD_RELU_COUNT: Final[DTypeSet] = ADD_RELU_REPEAT | B64
#: the tensor-scalar APIs' mask/repeat types (VecBinaryScalarLevel0Template's static_asserts: no unsigned type)
SCALAR_REPEAT: Final[DTypeSet] = FLOATS | {dt.int16, dt.int32}
ADDS_COUNT: Final[DTypeSet] = SCALAR_REPEAT | B8 | B64 | COMPLEX
MULS_COUNT: Final[DTypeSet] = SCALAR_REPEAT | B64 | COMPLEX  #: Muls, Subs
MAXS_COUNT: Final[DTypeSet] = SCALAR_REPEAT | B8 | B64  #: Maxs, Mins
DIVS_COUNT: Final[DTypeSet] = HALF_FLOAT_B64 | COMPLEX
ANDS_REPEAT: Final[DTypeSet] = frozenset({dt.int16, dt.uint16})  #: Ands, Ors
ANDS_COUNT: Final[DTypeSet] = ANDS_REPEAT | B64
REDUCE_SUM_REPEAT: Final[DTypeSet] = HALF_FLOAT | INT32S
REDUCE_SUM_COUNT: Final[DTypeSet] = REDUCE_SUM_REPEAT | B64
#: Duplicate's first-n interface: every element type but double
DUPLICATE_COUNT: Final[DTypeSet] = B8_TO_B64_COMPLEX | frozenset(
    {dt.bool_, dt.fp4x2_e2m1, dt.fp4x2_e1m2, dt.hifloat8, dt.fp8_e8m0, dt.fp8_e5m2, dt.fp8_e4m3fn}
)
GET_CMP_MASK: Final[DTypeSet] = B8_B16_B32 | {dt.bool_}  #: GetCmpMask's b8, b16, b32
SET_CMP_MASK: Final[DTypeSet] = GET_CMP_MASK | B64  #: SetCmpMask's b8 ... b64

#: every named set, by name (what the docs and the typed faces call it)
NAMES: Final[dict[DTypeSet, str]] = {}
for _name, _value in list(globals().items()):
    if isinstance(_value, frozenset) and _name.isupper() and _value not in NAMES:
        NAMES[_value] = _name
