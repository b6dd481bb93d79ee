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

# --- by width -----------------------------------------------------------------------------------------------------------
B8: Final[DTypeSet] = frozenset({dt.int8, dt.uint8})
B16: Final[DTypeSet] = frozenset({dt.int16, dt.uint16, dt.half, dt.bfloat16})
B32: Final[DTypeSet] = frozenset({dt.int32, dt.uint32, dt.float32})
B64: Final[DTypeSet] = frozenset({dt.int64, dt.uint64})
COMPLEX: Final[DTypeSet] = frozenset({dt.complex32, dt.complex64})
B16_B32: Final[DTypeSet] = B16 | B32
B8_B16_B32: Final[DTypeSet] = B8 | B16_B32
B8_TO_B64: Final[DTypeSet] = B8_B16_B32 | B64  #: every 1-, 2-, 4- and 8-byte integer and float type
B8_TO_B64_COMPLEX: Final[DTypeSet] = B8_TO_B64 | COMPLEX
B16_B32_B64_COMPLEX: Final[DTypeSet] = B16_B32 | B64 | COMPLEX

# --- integers -------------------------------------------------------------------------------------------------------------
UINT8: Final[DTypeSet] = frozenset({dt.uint8})
UINT32: Final[DTypeSet] = frozenset({dt.uint32})
INT16: Final[DTypeSet] = frozenset({dt.int16, dt.uint16})
INT32: Final[DTypeSet] = frozenset({dt.int32, dt.uint32})
INT16_INT32: Final[DTypeSet] = INT16 | INT32
INTS: Final[DTypeSet] = B8 | INT16_INT32 | B64  #: every integer type
INT16_B64: Final[DTypeSet] = INT16 | B64
UINTS: Final[DTypeSet] = frozenset({dt.uint8, dt.uint16, dt.uint32, dt.uint64})
SIGNED: Final[DTypeSet] = frozenset({dt.int8, dt.int16, dt.int32, dt.int64})

# --- floats, and floats with integers --------------------------------------------------------------------------------------
HALF: Final[DTypeSet] = frozenset({dt.half})
FLOAT32: Final[DTypeSet] = frozenset({dt.float32})
HALF_FLOAT: Final[DTypeSet] = frozenset({dt.half, dt.float32})
FLOATS: Final[DTypeSet] = HALF_FLOAT | {dt.bfloat16}
FLOAT_COMPLEX64: Final[DTypeSet] = frozenset({dt.float32, dt.complex64})
HALF_FLOAT_B64: Final[DTypeSet] = HALF_FLOAT | B64
FLOATS_B64: Final[DTypeSet] = FLOATS | B64
HALF_FLOAT_B64_COMPLEX: Final[DTypeSet] = HALF_FLOAT_B64 | COMPLEX
HALF_FLOAT_INT32: Final[DTypeSet] = HALF_FLOAT | INT32
HALF_FLOAT_INT32_B64: Final[DTypeSet] = HALF_FLOAT_INT32 | B64
HALF_FLOAT_INT16_INT32: Final[DTypeSet] = HALF_FLOAT | INT16_INT32
HALF_FLOAT_INT16_INT32_B64: Final[DTypeSet] = HALF_FLOAT_INT16_INT32 | B64
HALF_FLOAT_INTS: Final[DTypeSet] = HALF_FLOAT | INTS
HALF_FLOAT_INTS_COMPLEX: Final[DTypeSet] = HALF_FLOAT_INT16_INT32_B64 | COMPLEX
SIGNED_HALF_FLOAT: Final[DTypeSet] = SIGNED | HALF_FLOAT
SIGNED16_32_HALF_FLOAT: Final[DTypeSet] = frozenset({dt.int16, dt.int32, dt.half, dt.float32})
FLOATS_SIGNED16_32: Final[DTypeSet] = FLOATS | {dt.int16, dt.int32}
FLOATS_SIGNED16_32_B8_B64: Final[DTypeSet] = FLOATS_SIGNED16_32 | B8 | B64
FLOATS_SIGNED16_32_B8_B64_COMPLEX: Final[DTypeSet] = FLOATS_SIGNED16_32_B8_B64 | COMPLEX
FLOATS_SIGNED16_32_B64_COMPLEX: Final[DTypeSet] = FLOATS_SIGNED16_32 | B64 | COMPLEX
HALF_FLOAT_INT32_SIGNED: Final[DTypeSet] = frozenset({dt.half, dt.float32, dt.int32})
HALF_FLOAT_INT32_INT64: Final[DTypeSet] = HALF_FLOAT_INT32_SIGNED | {dt.int64}
HALF_FLOAT_INT16: Final[DTypeSet] = frozenset({dt.int16, dt.half, dt.float32})
HALF_FLOAT_INT16_B64: Final[DTypeSet] = HALF_FLOAT_INT16 | B64

# --- the lists of one page ------------------------------------------------------------------------------------------------
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
