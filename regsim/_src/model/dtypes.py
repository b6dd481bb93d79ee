"""The Ascend C element types, as classes usable as type parameters (`RegTensor[rs.int32]`).

A dtype class is never instantiated: it names a type and carries its facts. `itemsize` is the
size in bytes of one register element (fp4x2 / int4x2 pack two 4-bit values in one byte);
`np_dtype` is the numpy dtype that holds the element's bits: the ml_dtypes type where ml_dtypes
has the exact format, `uint8` bits where it has none (hifloat8, fp4x2_e1m2, the packed pairs).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import ml_dtypes
import numpy as np


class _DTypeMeta(type):
    def __repr__(cls) -> str:
        return f"rs.{getattr(cls, 'name', cls.__name__)}"


class Sig:
    """One static type as part of the op engine's plan-cache keys: a singleton, so keys hash and
    compare by identity (cheaper than tuples of classes)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


class InstanceSig:
    """The `_sig` of a class whose instances all have one static type (MaskReg, AddrReg, Ref, ...): on an instance
    the `Sig` named after the class, on the class itself this descriptor, so the class passed by mistake
    (`Reg.Not(dst, src, Reg.MaskReg)`) never finds the plan cached for its instances: dispatch refuses it."""

    __slots__ = ("sig",)

    def __set_name__(self, owner: type, name: str) -> None:
        self.sig = Sig(owner.__name__)

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        return self if obj is None else self.sig


class DType(metaclass=_DTypeMeta):
    """Base of every element type. Subclasses are the dtypes; none is ever instantiated."""

    name: ClassVar[str]
    itemsize: ClassVar[int]
    np_dtype: ClassVar[np.dtype[Any]]
    #: True where regsim keeps only the bits (no arithmetic format in numpy or ml_dtypes).
    bits_only: ClassVar[bool] = False

    def __new__(cls, *args: object, **kwargs: object) -> DType:
        raise TypeError(f"{cls!r} is a dtype class, used as a type parameter; it has no instances")

    #: the op engine's cache key for this dtype as an argument, for a `UbPtr` to it and for a
    #: `RegTensor` of it (indexed by its register count)
    _sig: ClassVar[Any]
    _ptr_sig: ClassVar[Any]
    _reg_sigs: ClassVar[tuple[Any, ...]]

    def __init_subclass__(cls, np_type: Any = None, bits_only: bool = False) -> None:
        super().__init_subclass__()
        cls._sig, cls._ptr_sig = cls, Sig(f"UbPtr[{cls.__name__}]")
        cls._reg_sigs = (None, Sig(f"RegTensor[{cls.__name__}]"), Sig(f"RegTensor[{cls.__name__}] (RegTraitNumTwo)"))
        if np_type is not None:
            cls.name = cls.__name__
            cls.np_dtype = np.dtype(np_type)
            cls.itemsize = cls.np_dtype.itemsize
            cls.bits_only = bits_only


# Families, used as TypeVar bounds so that mypy rejects e.g. a float register fed to And.
class Integer(DType):
    """Integer element types (two's complement, wrapping arithmetic)."""


class SignedInteger(Integer):
    pass


class UnsignedInteger(Integer):
    pass


class Floating(DType):
    """IEEE-like floating-point element types."""


class ComplexFloating(DType):
    pass


class bool_(DType, np_type=np.bool_):
    """`bool`: one byte per element, for data movement and logic only."""


class int8(SignedInteger, np_type=np.int8):
    pass


class uint8(UnsignedInteger, np_type=np.uint8):
    pass


class int16(SignedInteger, np_type=np.int16):
    pass


class uint16(UnsignedInteger, np_type=np.uint16):
    pass


class int32(SignedInteger, np_type=np.int32):
    pass


class uint32(UnsignedInteger, np_type=np.uint32):
    pass


class int64(SignedInteger, np_type=np.int64):
    pass


class uint64(UnsignedInteger, np_type=np.uint64):
    pass


class int4x2(Integer, np_type=np.uint8, bits_only=True):
    """Two signed 4-bit integers packed in one byte (`int4b_t` pairs)."""


class half(Floating, np_type=np.float16):
    pass


class bfloat16(Floating, np_type=ml_dtypes.bfloat16):
    pass


class float32(Floating, np_type=np.float32):
    pass


class hifloat8(Floating, np_type=np.uint8, bits_only=True):
    """HiFloat8: no numpy or ml_dtypes format exists, so regsim keeps its bits."""


class fp8_e4m3fn(Floating, np_type=ml_dtypes.float8_e4m3fn):
    pass


class fp8_e5m2(Floating, np_type=ml_dtypes.float8_e5m2):
    pass


class fp8_e8m0(Floating, np_type=ml_dtypes.float8_e8m0fnu):
    pass


class fp4x2_e2m1(Floating, np_type=np.uint8, bits_only=True):
    """Two fp4 e2m1 values packed in one byte (low nibble first); kept as bits."""


class fp4x2_e1m2(Floating, np_type=np.uint8, bits_only=True):
    """Two fp4 e1m2 values packed in one byte (low nibble first); kept as bits."""


class float64(Floating, np_type=np.float64):
    """C++ `double`. No Reg compute op takes it: the Reg pages list no `double`; it lives in UB tensors and is
    moved (`LoadAlign` / `StoreAlign`) and reinterpreted in registers, as the 950 library's memory-level `Cast`
    emulations do (docs/decisions/model.md#float64-element-type)."""


class complex32(ComplexFloating, np_type=ml_dtypes.complex32):
    """`Complex<half>`: real half then imaginary half."""


class complex64(ComplexFloating, np_type=np.complex64):
    """`Complex<float>`: real float then imaginary float."""


#: the element types of the Reg pages (RegTensor, the Reg ops); `float64` is not one of them
ALL_DTYPES: Final[tuple[type[DType], ...]] = (
    bool_, int8, uint8, int16, uint16, int32, uint32, int64, uint64, int4x2,
    half, bfloat16, float32, hifloat8, fp8_e4m3fn, fp8_e5m2, fp8_e8m0, fp4x2_e2m1, fp4x2_e1m2,
    complex32, complex64,
)  # fmt: skip


#: element types of UB tensors and register moves that no Reg compute op takes (C++ `double`)
MOVE_ONLY_DTYPES: Final[tuple[type[DType], ...]] = (float64,)

#: every dtype, in table order (`names` lists sets in this order)
EVERY_DTYPE: Final[tuple[type[DType], ...]] = (*ALL_DTYPES[:13], float64, *ALL_DTYPES[13:])

_ALL: Final = frozenset(EVERY_DTYPE)


def is_dtype(obj: object) -> bool:
    """Whether `obj` is one of regsim's dtype classes."""
    return isinstance(obj, type) and obj in _ALL


def names(dtypes: tuple[type[DType], ...] | frozenset[type[DType]]) -> str:
    """`int32, uint32` — a dtype set for an error message, in table order."""
    return ", ".join(d.name for d in EVERY_DTYPE if d in dtypes)


def same_width_uint(dtype: type[DType]) -> np.dtype[Any]:
    """The unsigned integer numpy dtype of the same width (the bits of one element)."""
    return np.dtype(f"u{dtype.itemsize}")
