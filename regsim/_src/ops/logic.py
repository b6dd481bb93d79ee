"""Logic and shifts (the 逻辑计算 pages of the Reg API): `Not`, `And`, `Or`, `Xor` on RegTensors and
on MaskRegs (one name dispatches both, by operand kinds, as C++ overload resolution does), and
`ShiftLeft`, `ShiftRight`, `ShiftLefts`, `ShiftRights`.

Shifts are modelled on two per-width primitives (`shift_left`, `shift_right` below); the 64-bit
shifts are software on Ascend 950 and are composed of the 32-bit primitives exactly as the
library builds them, so they reproduce what the hardware computes, edge cases included.
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypeVar, overload

import numpy as np

from regsim._src.engine.executors import SCALAR_CTYPES, Elementwise, MaskBits
from regsim._src.engine.spec import (
    DOC,
    Batching,
    CName,
    OneOf,
    Operand,
    OpSpec,
    Paired,
    Role,
    SameAs,
    enum_param,
    face,
    mask,
    pred,
    reg,
    register,
    scalar,
)
from regsim._src.model import dtypes as dt
from regsim._src.model.enums import MaskMergeMode
from regsim._src.model.registers import MaskReg, RegTensor

ZEROING = MaskMergeMode.ZEROING

# The dtypes on Ascend 950 (the Not, And and ShiftLeft pages), as constrained type variables of the faces.
NotT = TypeVar("NotT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.half, dt.int32, dt.uint32, dt.float32, dt.int64, dt.uint64)
AndT = TypeVar("AndT", dt.bool_, dt.int8, dt.uint8, dt.int16, dt.uint16, dt.int32, dt.uint32, dt.int64, dt.uint64)
ShT = TypeVar("ShT", dt.int8, dt.uint8, dt.int16, dt.uint16, dt.int32, dt.uint32, dt.int64, dt.uint64)
AmtT = TypeVar("AmtT", dt.int8, dt.int16, dt.int32, dt.int64)
ZeroingOnly = Literal[MaskMergeMode.ZEROING]
#: the specs' dtype sets are the type variables' constraints: one list, read by mypy and the specs
NOT_T: Final = frozenset(NotT.__constraints__)
AND_T: Final = frozenset(AndT.__constraints__)
SHIFT_T: Final = frozenset(ShT.__constraints__)
#: the shift amount's type per data type (the ShiftLeft page's table 3)
AMOUNT: Final = {
    dt.int8: dt.int8,
    dt.uint8: dt.int8,
    dt.int16: dt.int16,
    dt.uint16: dt.int16,
    dt.int32: dt.int32,
    dt.uint32: dt.int32,
    dt.int64: dt.int64,
    dt.uint64: dt.int64,
}
assert SCALAR_CTYPES["int16_t"] is dt.int16  # ShiftLefts/ShiftRights take `int16_t scalarValue`


# --- lane semantics: bitwise ---------------------------------------------------------------------------
def _bits(a: Any) -> Any:
    """The raw bits of lanes as unsigned integers of their width (floats and bools included)."""
    return a.view(f"u{a.dtype.itemsize}")


def bit_not(a: Any) -> Any:
    """~a on the raw bits (Not on half/float flips the sign, exponent and mantissa bits alike)."""
    return (~_bits(a)).view(a.dtype)


def bit_and(a: Any, b: Any) -> Any:
    """a & b on the raw bits (bool as the bytes of int8, as the library does)."""
    return (_bits(a) & _bits(b)).view(a.dtype)


def bit_or(a: Any, b: Any) -> Any:
    return (_bits(a) | _bits(b)).view(a.dtype)


def bit_xor(a: Any, b: Any) -> Any:
    return (_bits(a) ^ _bits(b)).view(a.dtype)


# MaskReg forms: per bit, the bits outside `mask` cleared (the library's own comments read
# `MaskNot(dst, cmp, mask)` as "!cmp && mask"). Every input is one 256-bit array.
def mask_not(src: Any, m: Any) -> Any:
    return ~src & m


def mask_and(s0: Any, s1: Any, m: Any) -> Any:
    return s0 & s1 & m


def mask_or(s0: Any, s1: Any, m: Any) -> Any:
    return (s0 | s1) & m


def mask_xor(s0: Any, s1: Any, m: Any) -> Any:
    return (s0 ^ s1) & m


# --- lane semantics: shifts ----------------------------------------------------------------------------
_U64 = np.uint64


def _shift(x: Any, amount: Any, left: bool) -> Any:
    """The hardware shift primitive (`vshl`/`vshr` of one width) on lanes `x` by `amount`.

    - a left shift is the plain bit shift for every type, `(x << n) mod 2**width` (a signed type's
      bits move into and through the sign bit), as the 950 library's code and the operator kernels
      rely on; the ShiftLeft page's "算术左移 ... 次高位被丢弃" reads otherwise (docs/decisions/arithmetic.md#shift-signed-left);
    - unsigned right shifts are logical, signed ones arithmetic;
    - an amount of at least the width gives 0 (a signed right shift: the sign, -1 or 0). The pages
      say "大于数据类型位宽则输出0"; equal to the width must give 0 too, as the library's 64-bit
      shifts shift 32-bit halves by exactly 32 and rely on it;
    - a negative amount shifts the other way (the pages call it undefined for users; the library's
      64-bit shifts shift 32-bit halves by `32 - s`, negative for s > 32, and rely on this).
    """
    width = 8 * x.dtype.itemsize
    signed = x.dtype.kind == "i"
    toward_left = np.asarray(amount).astype(np.int64)
    if not left:
        toward_left = -toward_left
    ux = _bits(x).astype(_U64)
    full = _U64((1 << width) - 1)
    k_left = np.minimum(np.maximum(toward_left, 0), 63).astype(_U64)
    shifted_left = np.where(toward_left >= width, _U64(0), (ux << k_left) & full)
    k_right = np.minimum(np.maximum(-toward_left, 0), 63)
    if signed:
        shifted_right = (x.astype(np.int64) >> k_right).astype(_U64) & full
    else:
        shifted_right = np.where(-toward_left >= width, _U64(0), ux >> k_right.astype(_U64))
    out = np.where(toward_left >= 0, shifted_left, shifted_right)
    return out.astype(f"u{x.dtype.itemsize}").view(x.dtype)


def _wrap(value: Any, ctype: Any) -> Any:
    """`value` converted to a C integer type (two's complement, as a C cast)."""
    return np.asarray(value).astype(np.int64).astype(ctype)


def _b64(x: Any, amount: Any, left: bool, scalar_form: bool) -> Any:
    """A 64-bit shift as the library composes it of 32-bit shifts of the halves (vector forms:
    `ShiftL`/`ShiftR` in the reg-compute binary implementation; scalar forms: `ShiftLeftsB64Impl`
    /`ShiftRightsB64Impl`). The vector forms read the amount as the low 32-bit word of each lane
    (`(RegTensor<int32_t>&)` of the two-register amount), the scalar forms the `int16_t` scalar;
    `s + 32` and `32 - s` are computed in that type. The high half shifts as int32 for int64. For amounts
    in [0, 64) this is the exact 64-bit shift (int64 right shifts arithmetic), the plain 32-bit left shift of
    the signed high half included."""
    u = x.view(_U64)
    lo = (u & _U64(0xFFFFFFFF)).astype(np.uint32)
    hi_u = (u >> _U64(32)).astype(np.uint32)
    hi_t = hi_u.view(np.int32) if x.dtype.kind == "i" else hi_u
    if scalar_form:
        s = _wrap(amount, np.int16)
        plus, minus = _wrap(s.astype(np.int64) + 32, np.int16), _wrap(32 - s.astype(np.int64), np.int16)
    else:
        s = _wrap(np.asarray(amount).view(_U64) & _U64(0xFFFFFFFF), np.uint32).view(np.int32)
        plus, minus = _wrap(s.astype(np.int64) + 32, np.int32), _wrap(32 - s.astype(np.int64), np.int32)
    if left:
        # the scalar form shifts the high half into the low word as uint32, the vector form as T
        new_lo = _shift(lo, s, True) | _bits(_shift(hi_u if scalar_form else hi_t, plus, True))
        new_hi = _shift(lo, minus, False) | _bits(_shift(hi_t, s, True))
    else:
        new_lo = _shift(lo, s, False) | _bits(_shift(hi_t, minus, True))
        new_hi = _shift(lo, plus, False) | _bits(_shift(hi_t, s, False))
    out = (new_hi.astype(_U64) << _U64(32)) | new_lo.astype(_U64)
    return out.view(x.dtype)


def shift_left(x: Any, amount: Any) -> Any:
    """x << amount per lane (the amount register's lanes)."""
    return _b64(x, amount, True, False) if x.dtype.itemsize == 8 else _shift(x, amount, True)


def shift_right(x: Any, amount: Any) -> Any:
    """x >> amount per lane: logical for unsigned, arithmetic for signed."""
    return _b64(x, amount, False, False) if x.dtype.itemsize == 8 else _shift(x, amount, False)


def shift_lefts(x: Any, amount: Any) -> Any:
    """x << scalar (an int16 scalar)."""
    return _b64(x, amount, True, True) if x.dtype.itemsize == 8 else _shift(x, amount, True)


def shift_rights(x: Any, amount: Any) -> Any:
    """x >> scalar (an int16 scalar)."""
    return _b64(x, amount, False, True) if x.dtype.itemsize == 8 else _shift(x, amount, False)


# --- specs ---------------------------------------------------------------------------------------------
_PAGES = DOC + "逻辑计算/"
_EW = Elementwise()
_BITS = MaskBits()
_LANES = Batching.ELEMENTWISE


def _zeroing() -> Operand:
    return enum_param("mode", MaskMergeMode, ZEROING, (ZEROING,))


def _unary(dtypes: frozenset[type[dt.DType]]) -> tuple[Operand, ...]:
    return (reg("dst_reg", Role.OUT, OneOf(dtypes)), reg("src_reg", dtypes=SameAs("dst_reg")), pred(), _zeroing())


def _binary(dtypes: frozenset[type[dt.DType]]) -> tuple[Operand, ...]:
    return (
        reg("dst_reg", Role.OUT, OneOf(dtypes)),
        reg("src_reg0", dtypes=SameAs("dst_reg")),
        reg("src_reg1", dtypes=SameAs("dst_reg")),
        pred(),
        _zeroing(),
    )


_C_REG = ("dst_reg", "src_reg0", "src_reg1", "mask")
_C_SCALAR = ("dst_reg", "src_reg", "scalar_value", "mask")

register(
    OpSpec(
        "Not",
        "",
        "logic",
        _unary(NOT_T),
        _EW,
        "dst[i] = mask[i] ? ~src[i] : 0   (on the raw bits)",
        _PAGES + "Not.md",
        _LANES,
        lane=bit_not,
        c_api=CName("asc_not", ("dst_reg", "src_reg", "mask")),
    )
)
for _name, _sym, _fn in (("And", "&", bit_and), ("Or", "|", bit_or), ("Xor", "^", bit_xor)):
    register(
        OpSpec(
            _name,
            "",
            "logic",
            _binary(AND_T),
            _EW,
            f"dst[i] = mask[i] ? src0[i] {_sym} src1[i] : 0",
            _PAGES + f"{_name}.md",
            _LANES,
            lane=_fn,
            c_api=CName(f"asc_{_name.lower()}", _C_REG),
        )
    )

register(
    OpSpec(
        "Not",
        "mask",
        "logic",
        (mask("dst", Role.OUT), mask("src"), pred()),
        _BITS,
        "dst[k] = mask[k] ? !src[k] : 0   (each of the 256 bits)",
        _PAGES + "Not.md",
        _LANES,
        lane=mask_not,
        c_api=CName("asc_not", ("dst", "src", "mask")),
        aliases=("MaskNot",),
    )
)
for _name, _sym, _mfn in (("And", "&", mask_and), ("Or", "|", mask_or), ("Xor", "^", mask_xor)):
    register(
        OpSpec(
            _name,
            "mask",
            "logic",
            (mask("dst", Role.OUT), mask("src0"), mask("src1"), pred()),
            _BITS,
            f"dst[k] = mask[k] ? src0[k] {_sym} src1[k] : 0   (each of the 256 bits)",
            _PAGES + f"{_name}.md",
            _LANES,
            lane=_mfn,
            c_api=CName(f"asc_{_name.lower()}", ("dst", "src0", "src1", "mask")),
            aliases=(f"Mask{_name}",),
        )
    )


def _shift_vector() -> tuple[Operand, ...]:
    return (
        reg("dst_reg", Role.OUT, OneOf(SHIFT_T)),
        reg("src_reg0", dtypes=SameAs("dst_reg")),
        reg("src_reg1", dtypes=Paired("dst_reg", AMOUNT)),
        pred(),
        _zeroing(),
    )


def _shift_scalar() -> tuple[Operand, ...]:
    return (
        reg("dst_reg", Role.OUT, OneOf(SHIFT_T)),
        reg("src_reg", dtypes=SameAs("dst_reg")),
        scalar("scalar_value", "int16_t"),
        pred(),
        _zeroing(),
    )


_LEFT_EQ = "(signed and unsigned alike: (x << n) mod 2**width; amount >= width: 0; b64 as the library composes it)"
_RIGHT_EQ = "(unsigned: logical; signed: arithmetic; amount >= width: 0 or the sign; b64 as the library composes it)"
for _name, _ops, _sfn, _eq, _c in (
    ("ShiftLeft", _shift_vector(), shift_left, "dst[i] = mask[i] ? src0[i] << src1[i] : 0", ("asc_shiftleft", _C_REG)),
    ("ShiftRight", _shift_vector(), shift_right, "dst[i] = mask[i] ? src0[i] >> src1[i] : 0", ("asc_shiftright", _C_REG)),
    (
        "ShiftLefts",
        _shift_scalar(),
        shift_lefts,
        "dst[i] = mask[i] ? src[i] << scalar_value : 0",
        ("asc_shiftleft_scalar", _C_SCALAR),
    ),
    (
        "ShiftRights",
        _shift_scalar(),
        shift_rights,
        "dst[i] = mask[i] ? src[i] >> scalar_value : 0",
        ("asc_shiftright_scalar", _C_SCALAR),
    ),
):
    register(
        OpSpec(
            _name,
            "",
            "logic",
            _ops,
            _EW,
            f"{_eq}   {_LEFT_EQ if 'Left' in _name else _RIGHT_EQ}",
            _PAGES + f"{_name}.md",
            _LANES,
            lane=_sfn,
            c_api=CName(_c[0], _c[1]) if _c else None,
        )
    )


# --- typed faces ---------------------------------------------------------------------------------------
@overload
def Not(dst_reg: RegTensor[NotT], src_reg: RegTensor[NotT], mask: MaskReg, *, mode: ZeroingOnly = ...) -> None: ...
@overload
def Not(dst: MaskReg, src: MaskReg, mask: MaskReg) -> None: ...
@face("Not")
def Not(*args: Any, **kwargs: Any) -> None: ...


@overload
def And(
    dst_reg: RegTensor[AndT], src_reg0: RegTensor[AndT], src_reg1: RegTensor[AndT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def And(dst: MaskReg, src0: MaskReg, src1: MaskReg, mask: MaskReg) -> None: ...
@face("And")
def And(*args: Any, **kwargs: Any) -> None: ...


@overload
def Or(
    dst_reg: RegTensor[AndT], src_reg0: RegTensor[AndT], src_reg1: RegTensor[AndT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Or(dst: MaskReg, src0: MaskReg, src1: MaskReg, mask: MaskReg) -> None: ...
@face("Or")
def Or(*args: Any, **kwargs: Any) -> None: ...


@overload
def Xor(
    dst_reg: RegTensor[AndT], src_reg0: RegTensor[AndT], src_reg1: RegTensor[AndT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...
@overload
def Xor(dst: MaskReg, src0: MaskReg, src1: MaskReg, mask: MaskReg) -> None: ...
@face("Xor")
def Xor(*args: Any, **kwargs: Any) -> None: ...


@face("ShiftLeft")
def ShiftLeft(
    dst_reg: RegTensor[ShT], src_reg0: RegTensor[ShT], src_reg1: RegTensor[AmtT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...


@face("ShiftRight")
def ShiftRight(
    dst_reg: RegTensor[ShT], src_reg0: RegTensor[ShT], src_reg1: RegTensor[AmtT], mask: MaskReg, *, mode: ZeroingOnly = ...
) -> None: ...


@face("ShiftLefts")
def ShiftLefts(
    dst_reg: RegTensor[ShT],
    src_reg: RegTensor[ShT],
    scalar_value: int | np.integer[Any],
    mask: MaskReg,
    *,
    mode: ZeroingOnly = ...,
) -> None: ...


@face("ShiftRights")
def ShiftRights(
    dst_reg: RegTensor[ShT],
    src_reg: RegTensor[ShT],
    scalar_value: int | np.integer[Any],
    mask: MaskReg,
    *,
    mode: ZeroingOnly = ...,
) -> None: ...
