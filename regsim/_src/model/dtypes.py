"""The Ascend C element types, as classes usable as type parameters (`RegTensor[rs.int32]`).

A dtype class is never instantiated: it names a type and carries its facts. `itemsize` is the
size in bytes of one register element (fp4x2 / int4x2 pack two 4-bit values in one byte);
`np_dtype` is the numpy dtype that holds the element's bits: the ml_dtypes type where ml_dtypes
has the exact format, `uint8` bits where it has none (hifloat8, fp4x2_e1m2, the packed pairs).
An ml_dtypes type is looked up at the first read of `np_dtype` (ml_dtypes loads then: model/lazy.py).
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import numpy as np

from regsim._src.model.lazy import ml_dtypes


class _DTypeMeta(type):
    def __repr__(cls) -> str:
        return f"rs.{getattr(cls, 'name', cls.__name__)}"


class _MlNpDType:
    """The `np_dtype` of a dtype an ml_dtypes type holds, until first read: then the ml_dtypes type is looked up (ml_dtypes
    loads) and kept on the class in its place. (A descriptor in the class itself, not a `__getattr__` of the metaclass:
    that would make every attribute read of every dtype class a slower one.)"""

    def __init__(self, ml_name: str) -> None:
        self.ml_name = ml_name

    def __get__(self, instance: object, owner: type) -> np.dtype[Any]:
        np_dtype: np.dtype[Any] = np.dtype(getattr(ml_dtypes, self.ml_name))
        setattr(owner, "np_dtype", np_dtype)  # noqa: B010 (mypy: np_dtype is a ClassVar of DType)
        return np_dtype


class Sig:
    """One static type as part of the op engine's plan-cache keys: a singleton, so keys hash and
    compare by identity (cheaper than tuples of classes)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


class InstanceSig(type):
    """The metaclass of a class whose instances all have one static type (MaskReg, AddrReg, Ref, ...): on an
    instance `_sig` is the `Sig` named after the class (a plain class attribute: read as cheaply as any), on the
    class itself this metaclass's `_sig` (a data descriptor of the metaclass wins over the class's own attribute),
    so the class passed by mistake (`Reg.Not(dst, src, Reg.MaskReg)`) never finds the plan cached for its
    instances: dispatch refuses it."""

    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, Any], **kwargs: Any) -> InstanceSig:
        namespace["_sig"] = Sig(name)
        return super().__new__(mcs, name, bases, namespace, **kwargs)

    @property
    def _sig(cls) -> Sig:
        return _CLASS_SIG


_CLASS_SIG: Final = Sig("a class (not an instance)")


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

    def __init_subclass__(cls, np_type: Any = None, bits_only: bool = False, ml_name: str = "", itemsize: int = 0) -> None:
        """A dtype of the numpy type `np_type`, or of the ml_dtypes type `ml_name` of `itemsize` bytes."""
        super().__init_subclass__()
        cls._sig, cls._ptr_sig = cls, Sig(f"UbPtr[{cls.__name__}]")
        cls._reg_sigs = (None, Sig(f"RegTensor[{cls.__name__}]"), Sig(f"RegTensor[{cls.__name__}] (RegTraitNumTwo)"))
        if np_type is not None:
            cls.np_dtype = np.dtype(np_type)
            itemsize = cls.np_dtype.itemsize
        elif ml_name:
            setattr(cls, "np_dtype", _MlNpDType(ml_name))  # noqa: B010 (looked up when first read)
        if itemsize:
            cls.name = cls.__name__
            cls.itemsize = itemsize
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


class bfloat16(Floating, ml_name="bfloat16", itemsize=2):
    pass


class float32(Floating, np_type=np.float32):
    pass


class hifloat8(Floating, np_type=np.uint8, bits_only=True):
    """HiFloat8: no numpy or ml_dtypes format exists, so regsim keeps its bits."""


class fp8_e4m3fn(Floating, ml_name="float8_e4m3fn", itemsize=1):
    pass


class fp8_e5m2(Floating, ml_name="float8_e5m2", itemsize=1):
    pass


class fp8_e8m0(Floating, ml_name="float8_e8m0fnu", itemsize=1):
    pass


class fp4x2_e2m1(Floating, np_type=np.uint8, bits_only=True):
    """Two fp4 e2m1 values packed in one byte (low nibble first); kept as bits."""


class fp4x2_e1m2(Floating, np_type=np.uint8, bits_only=True):
    """Two fp4 e1m2 values packed in one byte (low nibble first); kept as bits."""


class float64(Floating, np_type=np.float64):
    """C++ `double`. No Reg compute op takes it: the Reg pages list no `double`; it lives in UB tensors and is
    moved (`LoadAlign` / `StoreAlign`) and reinterpreted in registers, as the 950 library's memory-level `Cast`
    emulations do (docs/decisions/model.md#float64-element-type)."""


class complex32(ComplexFloating, ml_name="complex32", itemsize=4):
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


def holds_bfloat16(a: Any) -> bool:
    """Whether the numpy array `a` holds bfloat16 (told by its type's name: this loads no ml_dtypes, model/lazy.py,
    and costs a fraction of `a.dtype.name`)."""
    return bool(a.dtype.type.__name__ == "bfloat16")


def same_width_uint(dtype: type[DType]) -> np.dtype[Any]:
    """The unsigned integer numpy dtype of the same width (the bits of one element)."""
    return np.dtype(f"u{dtype.itemsize}")
