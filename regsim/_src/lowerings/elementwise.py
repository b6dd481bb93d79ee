"""The memory-level (`LocalTensor`) Ascend C APIs, lowered onto the Reg layer as the 950 library builds them.

On Ascend 950 the library implements `AscendC::Add(dst, src0, src1, ...)` and its siblings as vector
functions over Reg ops (the "基于指针的C语言编程" guide: "在Memory矢量计算接口内部实现软件封装的Reg矢量计算");
regsim runs the same VFs, so each API here is a `@simd_vf` kernel over `Reg` calls, never a second numpy
implementation. This module holds, in one place:

- the memory-vector model: 256 bytes per repeat = 8 DataBlocks of 32 bytes, `BinaryRepeatParams`,
  `UnaryRepeatParams`, `MASK_PLACEHOLDER`;
- the core's vector-mask special register and mask mode (`SetVectorMask`, `ResetMask`, `SetMaskCount`,
  `SetMaskNorm`): the mask is per core like CTRL (one Python context = one core) and the mode is CTRL[56],
  which the library's `IsCounterMode` reads;
- one lowering skeleton per family (binary so far: `VecBinaryVFImpl` for the mask/repeat interfaces,
  `BinaryContinuousImplTemplate` for the first-n interface) and the APIs built on them;
- `lower(api, *args)`: the Reg-op sequence a call becomes.

A call validates every parameter before it runs; should a Reg op inside the lowering still fail, the error is
raised as the high-level call's, the Reg op's message kept as context ("Add: ... (from Reg StoreAlign: ...)"), and
whatever the call changed (UB bytes, the vector mask, CTRL, ...) is put back: every API's entry is
`unchanged_on_error`.
"""

from __future__ import annotations

import contextvars
import functools
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar, cast, overload

import attrs
import numpy as np

from regsim._src.engine.context import Ref
from regsim._src.model import dtypes as dt
from regsim._src.model.binding import host_api, host_method
from regsim._src.model.config import ONE_BLOCK_SIZE, configure, current_config, in_vf
from regsim._src.model.core import current_core, current_ctrl, set_ctrl_bit
from regsim._src.model.memory import TENSOR_OPERATORS, LocalTensor, UbPtr, UnifiedBuffer
from regsim._src.model.registers import VL, MaskReg, RegTensor, check_dtype
from regsim._src.ops import REGISTRY
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import simd_callee, simd_vf
from regsim._src.vf.trace import trace
from regsim.errors import (
    AlignmentError,
    DTypeError,
    OutOfBoundsError,
    ParameterError,
    RegsimError,
    UninitializedReadError,
    VfContextError,
    message,
)

T = TypeVar("T", bound=dt.DType)

REPEAT_BYTES: Final = VL  #: bytes one repeat (iteration) of a memory-level API processes: 256
BLOCKS_PER_REPEAT: Final = REPEAT_BYTES // ONE_BLOCK_SIZE  #: 8 DataBlocks of 32 bytes
MAX_REPEAT: Final = 255  #: `repeatTime` is a uint8_t: [0, 255]
CTRL_COUNTER_MODE: Final = 56  #: CTRL[56] = 1: counter mask mode (the library's `IsCounterMode`)
_U64: Final = (1 << 64) - 1


class _Placeholder(int):
    """`MASK_PLACEHOLDER`: the mask argument when `is_set_mask=False` (the mask comes from `SetVectorMask`)."""

    def __repr__(self) -> str:
        return "MASK_PLACEHOLDER"


MASK_PLACEHOLDER: Final = _Placeholder(0)


# --- the repeat-parameter structs -------------------------------------------------------------------------
def _uint_field(bits: int) -> Callable[[Any, Any, Any], None]:
    def check(inst: Any, attribute: Any, value: Any) -> None:
        if type(value) is not int or not 0 <= value < 1 << bits:
            c_type = f"uint{bits}_t"
            raise ParameterError(
                message(type(inst).__name__, attribute.name, repr(value), f"a {c_type} in [0, {(1 << bits) - 1}]")
            )

    return check


def _stride(default: int, bits: int = 8) -> Any:
    return attrs.field(default=default, validator=_uint_field(bits))


@attrs.frozen
class BinaryRepeatParams:
    """`BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride, src1RepStride)`:
    DataBlock strides inside a repeat and between repeats, in DataBlocks (32 bytes), in the C++ constructor's
    order, so `BinaryRepeatParams(1, 1, 1, 8, 8, 8)` reads like `{1, 1, 1, 8, 8, 8}`; the C++ defaults are 1
    for block strides and 8 for repeat strides (contiguous). Each is a uint8_t."""

    dstBlkStride: int = _stride(1)  # noqa: N815 (C++ field name)
    src0BlkStride: int = _stride(1)  # noqa: N815
    src1BlkStride: int = _stride(1)  # noqa: N815
    dstRepStride: int = _stride(8)  # noqa: N815
    src0RepStride: int = _stride(8)  # noqa: N815
    src1RepStride: int = _stride(8)  # noqa: N815


@attrs.frozen
class UnaryRepeatParams:
    """`UnaryRepeatParams(dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)` (the C++ constructor's order;
    defaults 1, 1, 8, 8; block strides are uint16_t, repeat strides uint8_t)."""

    dstBlkStride: int = _stride(1, 16)  # noqa: N815 (C++ field name)
    srcBlkStride: int = _stride(1, 16)  # noqa: N815
    dstRepStride: int = _stride(8)  # noqa: N815
    srcRepStride: int = _stride(8)  # noqa: N815


def _scalar_index(inst: Any, attribute: Any, value: Any) -> None:
    if type(value) is not int or value not in (0, 1):
        accepted = "0 (the scalar is src0[0], the left operand) or 1 (src1[0], the right operand)"
        raise ParameterError(message(type(inst).__name__, attribute.name, repr(value), accepted))


@attrs.frozen
class BinaryConfig:
    """`BinaryConfig {int8_t scalarTensorIndex = 1;}`: the `config` template parameter of the 950 flexible-scalar
    overloads (Adds, Muls, Maxs, Mins, Compares, Select "（灵活标量位置）"): when both sources are LocalTensors,
    which one is the scalar (its element 0): 0 the left operand src0, 1 the right operand src1 (the default,
    `DEFAULT_BINARY_CONFIG`). The library static_asserts 0 or 1; regsim refuses any other value when the
    struct is made."""

    scalarTensorIndex: int = attrs.field(default=1, validator=_scalar_index)  # noqa: N815 (C++ field name)


DEFAULT_BINARY_CONFIG: Final = BinaryConfig()

# --- the core's vector-mask register and mask mode -----------------------------------------------------
# The vector-mask register {MASK1, MASK0} is the core's (`UnifiedBuffer.vector_mask`, the core of the last
# UnifiedBuffer made), which `Reg.MoveMask` reads; the mask mode is CTRL[56], which `IsCounterMode` reads.


def _host(api: str) -> None:
    if in_vf():
        raise VfContextError(f"{api}: called inside a vector function; accepted: scalar (__aicore__) code, outside any VF")


def counter_mode() -> bool:
    """CTRL[56]: whether the memory-level APIs run in counter mask mode (`SetMaskCount`)."""
    return bool(current_ctrl() >> CTRL_COUNTER_MODE & 1)


def vector_mask(api: str = "vector mask") -> tuple[int, int]:
    """The core's vector mask register as (maskHigh, maskLow)."""
    return current_core().vector_mask


def _set_vector_mask(api: str, high: int, low: int) -> None:
    current_core().vector_mask = (high, low)


@host_api("SetMaskCount")
def SetMaskCount() -> None:
    """`AscendC::SetMaskCount()`: counter mode (CTRL[56] = 1): a mask argument is an element count."""
    _host("SetMaskCount")
    set_ctrl_bit(CTRL_COUNTER_MODE, 1)


@host_api("SetMaskNorm")
def SetMaskNorm() -> None:
    """`AscendC::SetMaskNorm()`: normal mode (CTRL[56] = 0, the launch value): a mask selects elements per repeat."""
    _host("SetMaskNorm")
    set_ctrl_bit(CTRL_COUNTER_MODE, 0)


@overload
def SetVectorMask(T: type[dt.DType], mask_high: int, mask_low: int, /) -> None: ...
@overload
def SetVectorMask(T: type[dt.DType], length: int, /) -> None: ...
@host_api("SetVectorMask")
def SetVectorMask(T: type[dt.DType], *args: int) -> None:
    """`AscendC::SetVectorMask<T>(maskHigh, maskLow)` / `SetVectorMask<T>(len)`.

    Two values set the mask register's bits (element i of a repeat is bit i of maskLow, bit i - 64 of
    maskHigh). One value `len`: in normal mode the first `len` elements of each repeat; in counter
    mode the element count (maskLow = len, maskHigh = 0)."""
    _host("SetVectorMask")
    check_dtype("SetVectorMask", "T", T)
    if len(args) == 2:
        high, low = (_uint("SetVectorMask", n, v, 64) for n, v in zip(("mask_high", "mask_low"), args, strict=True))
        _set_vector_mask("SetVectorMask", high, low)
    elif len(args) == 1:
        lanes = VL // T.itemsize
        if counter_mode():
            _set_vector_mask("SetVectorMask", 0, _uint("SetVectorMask", "length", args[0], 32))
        else:
            n = args[0]
            if type(n) is not int or not 0 <= n <= min(lanes, 128):
                raise ParameterError(message("SetVectorMask", "length", repr(n), f"an int in [0, {min(lanes, 128)}]"))
            bits = (1 << n) - 1
            _set_vector_mask("SetVectorMask", bits >> 64, bits & _U64)
    else:
        raise ParameterError(message("SetVectorMask", "arguments", len(args), "(mask_high, mask_low) or (length,)"))


@host_api("ResetMask")
def ResetMask() -> None:
    """`AscendC::ResetMask()`: every bit of the vector mask register set (all elements selected)."""
    _host("ResetMask")
    _set_vector_mask("ResetMask", _U64, _U64)


def _uint(api: str, name: str, value: object, bits: int) -> int:
    if type(value) is not int and not isinstance(value, np.integer):
        raise ParameterError(message(api, name, repr(value), f"an unsigned {bits}-bit int"))
    v = int(value)
    if not 0 <= v < 1 << bits:
        raise ParameterError(message(api, name, v, f"an unsigned {bits}-bit int in [0, 2**{bits} - 1]"))
    return v


# --- errors in the caller's terms, and "a refused call changes nothing" ------------------------------------
#: a memory-level call is running: the calls it makes of other memory-level APIs are part of it (one snapshot)
_IN_CALL: Final[contextvars.ContextVar[bool]] = contextvars.ContextVar("regsim_memory_call", default=False)
F = TypeVar("F", bound=Callable[..., Any])


def _snapshot(values: Sequence[object]) -> Callable[[], None]:
    """What a memory-level call may change, saved: the special registers of the current core and of the core of
    every UB an argument lives in (or an item of a list or tuple argument: the C API's), those UBs' bytes with
    their written flags, and the values of `Ref` arguments. Returns the function that puts it all back."""
    values = [*values, *(x for v in values if isinstance(v, (list, tuple)) for x in v)]
    ubs = {id(u): u for u in (getattr(v, "ub", None) for v in values) if isinstance(u, UnifiedBuffer)}
    cores = {id(c): c for c in (current_core(), *(u.core for u in ubs.values()))}
    saved = [
        (u, u.storage.data.copy(), None if u.storage.valid is None else u.storage.valid.copy(), u.storage.until)
        for u in ubs.values()
    ]
    registers = [(c, c.snapshot()) for c in cores.values()]
    refs = [(v, v.value) for v in values if isinstance(v, Ref)]

    def restore() -> None:
        for u, data, valid, until in saved:
            u.storage.data[:] = data
            u.storage.valid, u.storage.until = valid, until
        for c, regs in registers:
            c.restore(regs)
        for ref, value in refs:
            ref.value = value

    return restore


def unchanged_on_error(f: F) -> F:
    """A memory-level API's entry: should the call raise a `RegsimError` (a parameter check, or a Reg op inside its
    lowering), everything it changed is put back first (`_snapshot`): a refused call changes no UB byte, no written
    flag, no special register (vector mask, mask mode, compare mask, AR, CTRL) and no `Ref`."""

    @functools.wraps(f)
    def call(*args: Any, **kwargs: Any) -> Any:
        if _IN_CALL.get():
            return f(*args, **kwargs)
        restore = _snapshot([*args, *kwargs.values()])
        token = _IN_CALL.set(True)
        try:
            return f(*args, **kwargs)
        except BaseException:
            restore()
            raise
        finally:
            _IN_CALL.reset(token)

    return call  # type: ignore[return-value]


def _run_lowering(api: str, vf: Callable[..., None], *args: Any) -> None:
    """Run the lowering VF; a Reg-level error is raised as `api`'s, the Reg op's message kept as context (the API's
    entry, `unchanged_on_error`, has put back what the call changed)."""
    try:
        vf(*args)
    except RegsimError as e:
        raise type(e)(f"{api}: the call fails in its Reg lowering (from Reg {e})") from e


# --- parameter checks -------------------------------------------------------------------------------------
def _check_tensors(api: str, dtypes: frozenset[type[dt.DType]], names: Sequence[str], tensors: Sequence[Any]) -> type[dt.DType]:
    for name, t in zip(names, tensors, strict=True):
        if not isinstance(t, LocalTensor):
            raise ParameterError(message(api, name, repr(t), "a LocalTensor"))
    dtype: type[dt.DType] = tensors[0].dtype
    if dtype not in dtypes:
        accepted = f"one of {', '.join(sorted(d.name for d in dtypes))}" if dtypes else "none (the first-n interface only)"
        raise DTypeError(message(api, names[0], f"a LocalTensor[{dtype.name}]", f"{accepted} for this interface"))
    for name, t in zip(names[1:], tensors[1:], strict=True):
        if t.dtype is not dtype:
            raise DTypeError(message(api, name, f"a LocalTensor[{t.dtype.name}]", f"the dtype of {names[0]} ({dtype.name})"))
        if t.ub is not tensors[0].ub:
            raise ParameterError(message(api, name, repr(t), f"a LocalTensor in the same UnifiedBuffer as {names[0]}"))
    for name, t in zip(names, tensors, strict=True):
        if t.addr % ONE_BLOCK_SIZE:
            raise AlignmentError(message(api, name, f"UB byte {t.addr}", "a start address aligned to 32 bytes"))
    return dtype


def _check_count(api: str, count: object, names: Sequence[str], tensors: Sequence[LocalTensor[Any]]) -> int:
    if type(count) is not int and not isinstance(count, np.integer):
        raise ParameterError(message(api, "count", repr(count), "an int"))
    n = int(count)
    limit = min(t.size for t in tensors)
    if not 0 <= n <= limit:
        smallest = names[[t.size for t in tensors].index(limit)]
        raise ParameterError(message(api, "count", n, f"an int in [0, {limit}] (the size of {smallest})"))
    return n


MAX_COUNTER_REPEATS: Final = 65535  #: the 950 library's counter-mode repeat count is a uint16_t (`VecMicroGetRepeatTimes`)


def counter_count(api: str, name: str, count: int, dtype: type[dt.DType]) -> int:
    """A counter-mode element count, checked: the library runs ceil(count / elements per repeat) repeats, a
    uint16_t, so a count needing more than 65535 repeats would wrap (docs/decisions/memory-level.md#memory-counter-count): a
    `ParameterError`."""
    lanes = VL // dtype.itemsize
    if -(-count // lanes) > MAX_COUNTER_REPEATS:
        hint = " (the register's reset value: SetVectorMask<T>(len) sets the count)" if count == 0xFFFFFFFF else ""
        accepted = f"at most {MAX_COUNTER_REPEATS * lanes} elements for {dtype.name} in counter mode"
        accepted += f" ({MAX_COUNTER_REPEATS} repeats of {lanes})"
        raise ParameterError(message(api, name, f"{count}{hint}", accepted))
    return count


def spr_count(api: str, dtype: type[dt.DType]) -> int:
    """Counter mode with `isSetMask = false`: the element count is the vector mask register's low 32 bits (the
    library's `VecMicroGetCount`), checked by `counter_count`."""
    return counter_count(api, "vector mask (the counter-mode count)", vector_mask(api)[1] & 0xFFFFFFFF, dtype)


def _check_mask(api: str, dtype: type[dt.DType], mask: object, is_set_mask: bool) -> tuple[bool, int, tuple[int, int] | None]:
    """(bit mode?, continuous count, (high, low) for bit mode) of a mask argument, range-checked per width
    (the And page: b16 mask in [1, 128] or mask[0], mask[1] in [0, 2**64 - 1] not both 0; b32 [1, 64] or
    mask[0] in (0, 2**64 - 1]; b64 [1, 32] or mask[0] in (0, 2**32 - 1]). In counter mode the count is the
    element count: the mask argument's, or with `is_set_mask=False` the vector mask register's (`spr_count`)."""
    lanes = VL // dtype.itemsize
    bit_mode = isinstance(mask, (list, tuple, np.ndarray))
    if not is_set_mask:
        if bit_mode or (mask is not MASK_PLACEHOLDER and mask != 0):
            raise ParameterError(message(api, "mask", repr(mask), "MASK_PLACEHOLDER when is_set_mask=False"))
        return False, spr_count(api, dtype) if counter_mode() else 0, None
    if counter_mode():
        if bit_mode:
            seq = list(mask)  # type: ignore[call-overload]
            if len(seq) != 2:
                raise ParameterError(message(api, "mask", repr(mask), "a uint64_t mask[2]"))
            return True, counter_count(api, "mask[0]", _uint(api, "mask[0]", seq[0], 32), dtype), None
        return False, counter_count(api, "mask", _uint(api, "mask", mask, 32), dtype), None
    if bit_mode:
        seq = list(mask)  # type: ignore[call-overload]
        if len(seq) != 2:
            raise ParameterError(message(api, "mask", repr(mask), "a uint64_t mask[2] (mask[0]: elements 0-63, mask[1]: 64-127)"))
        low, high = _uint(api, "mask[0]", seq[0], 64), _uint(api, "mask[1]", seq[1], 64)
        if lanes <= 64 and high:
            raise ParameterError(message(api, "mask[1]", high, f"0 for {dtype.name} ({lanes} elements per repeat)"))
        if lanes <= 32 and low >> 32:
            raise ParameterError(message(api, "mask[0]", low, f"an int in (0, 2**32 - 1] for {dtype.name}"))
        if low == 0 and high == 0:
            raise ParameterError(message(api, "mask", repr(mask), "mask[0] and mask[1] not both 0"))
        return True, 0, (high, low)
    if type(mask) is not int and not isinstance(mask, np.integer):
        raise ParameterError(message(api, "mask", repr(mask), "an int (continuous mode) or a mask[2] sequence (bit mode)"))
    m = int(mask)
    if not 1 <= m <= min(lanes, 128):
        raise ParameterError(message(api, "mask", m, f"an int in [1, {min(lanes, 128)}] for {dtype.name}"))
    return False, m, None


def _check_repeat(api: str, repeat_time: object) -> int:
    if type(repeat_time) is not int and not isinstance(repeat_time, np.integer):
        raise ParameterError(message(api, "repeat_time", repr(repeat_time), "a uint8_t in [0, 255]"))
    r = int(repeat_time)
    if not 0 <= r <= MAX_REPEAT:
        raise ParameterError(message(api, "repeat_time", r, "a uint8_t in [0, 255]"))
    return r


# --- the binary family --------------------------------------------------------------------------------------
@simd_vf
def binary_continuous_vf(
    func: Any,
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any],
    cal_count: int,
    trait: Any,
    scalar_idx: int = -1,
    dst_input: bool = False,
) -> None:
    """`BinaryContinuousImplTemplate<T, RegType, func>` (kernel_operator_vec_binary_continuous_impl.h): the
    first-n interface, one register (two for b64 and complex32: RegTraitNumTwo) per iteration; src1 of another type
    than dst is the two-type template `BinaryContinuousImplTemplate<T, U, RegTypeT, RegTypeU, func>` (the shift
    amounts of `ShiftLeft(dst, src0, src1, count)`). With
    `scalar_idx` 0 or 1 it is `BinaryScalarOpTemplateCnt` / `BinaryScalarOpTemplateCntB64`
    (kernel_operator_vec_binary_scalar_impl.h), a flexible-scalar call: source `scalar_idx` is the scalar,
    broadcast from its element 0 (`load_scalar`) in every iteration (b64: once, before the loop). `dst_input`: dst is
    an operand too, loaded after the sources (the first-n VFs of FusedMulAdd, MulAddRelu, MulAddDst)."""
    T = dst.dtype
    src0_reg = Reg.RegTensor(T, trait=trait)  # RegType src0Reg;
    src1_reg = Reg.RegTensor(src1.dtype, trait=trait)  # RegType src1Reg; (RegTypeU for the two-type template: ShiftLeft)
    dst_reg = Reg.RegTensor(T, trait=trait)  # RegType dstReg;
    sreg = Ref(cal_count)  # uint32_t sreg = static_cast<uint32_t>(calCount);
    repeat_stride = VL // T.itemsize * trait.REG_NUM  # GetVecLen() / sizeof(T) * RegType::trait.REG_NUM
    repeat_time = -(-cal_count // repeat_stride)  # CeilDivision(calCount, repeatStride)
    once = scalar_idx >= 0 and T.itemsize == 8
    if once:  # BinaryScalarOpTemplateCntB64: the scalar broadcast before the loop
        load_scalar(src1_reg if scalar_idx else src0_reg, src1 if scalar_idx else src0)
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T, RegType::trait>(sreg);
        if scalar_idx != 0:
            Reg.LoadAlign(src0_reg, src0 + i * repeat_stride)  # LoadAlign(src0Reg, src0 + i * repeatStride);
        elif not once:
            load_scalar(src0_reg, src0)  # LoadAlign<T, pattern>(vSrcReg0, src0);
        if scalar_idx != 1:
            Reg.LoadAlign(src1_reg, src1 + i * repeat_stride)  # LoadAlign(src1Reg, src1 + i * repeatStride);
        elif not once:
            load_scalar(src1_reg, src1)  # LoadAlign<T, pattern>(vSrcReg1, src1);
        if dst_input:
            Reg.LoadAlign(dst_reg, dst + i * repeat_stride)  # LoadAlign(dstReg, dst + i * repeatStride);
        func(dst_reg, src0_reg, src1_reg, mask, mode=Reg.MaskMergeMode.ZEROING)  # func(dstReg, src0Reg, src1Reg, mask);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);


@simd_callee
def vec_micro_mask(
    T: type[dt.DType], mask_count: int, repeat_time: int, normal_mode: bool, spr_mask: bool
) -> tuple[Ref[int], int, MaskReg]:
    """`VecMicroGetCount` + `VecMicroGetRepeatTimes` + (normal mode) `VecMicroGetMaskReg`: the count register,
    the repeats (repeatTime, or in counter mode ceil(count / elements per repeat)) and the predicate of
    every repeat in normal mode — `MoveMask<T>()` of the vector mask register (bit mode, or
    `isSetMask = false`), else `UpdateMask<T>(mask)`."""
    count = Ref(mask_count)
    repeats = repeat_time if normal_mode else -(-mask_count // (VL // T.itemsize))
    mask_reg = Reg.MaskReg()
    if normal_mode:
        mask_reg = Reg.MoveMask(T) if spr_mask else Reg.UpdateMask(T, count)  # type: ignore[type-var]  # b16/b32 only here
    return count, repeats, mask_reg


@simd_callee
def load_blocks(dst_reg: RegTensor[Any], src: UbPtr[Any], block_stride: int, mask: MaskReg) -> None:
    """`LoadAlign<T, DataCopyMode::DATA_BLOCK_COPY>(dst, src, blkStride, mask)`: one repeat's 8 DataBlocks."""
    Reg.LoadAlign(dst_reg, src, block_stride, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@simd_callee
def store_blocks(dst: UbPtr[Any], src_reg: RegTensor[Any], block_stride: int, mask: MaskReg) -> None:
    """`StoreAlign<T, DataCopyMode::DATA_BLOCK_COPY>(dst, src, blkStride, mask)`: one repeat's 8 DataBlocks."""
    Reg.StoreAlign(dst, src_reg, block_stride, mask, data_mode=Reg.DataCopyMode.DATA_BLOCK_COPY)


@simd_callee
def select_blocks(
    i: int,
    dst: UbPtr[Any],
    src0: UbPtr[Any] | None,
    src1: UbPtr[Any] | None,
    regs: tuple[RegTensor[Any], RegTensor[Any], RegTensor[Any]],
    sel_mask: MaskReg,
    mask_reg: MaskReg,
    p: tuple[int, ...],
    scalar_idx: int = -1,
) -> None:
    """One repeat of `SelectMode{0,1,2}Level0`: the sources' DataBlocks at their strides, `Reg::Select`, dst's
    DataBlocks stored under the mask (unselected elements keep their UB bytes). `p`: BinaryRepeatParams' fields.
    Source `scalar_idx` (a flexible-scalar call's scalar, already broadcast in its register) is not loaded."""
    src0_reg, src1_reg, dst_reg = regs
    e = ONE_BLOCK_SIZE // dst.dtype.itemsize
    if scalar_idx != 0:
        load_blocks(src0_reg, cast("UbPtr[Any]", src0) + i * p[4] * e, p[1], mask_reg)
    if src1 is not None and scalar_idx != 1:
        load_blocks(src1_reg, src1 + i * p[5] * e, p[2], mask_reg)
    Reg.Select(dst_reg, src0_reg, src1_reg, sel_mask)
    store_blocks(dst + i * p[3] * e, dst_reg, p[0], mask_reg)


_BRC: Final = {1: Reg.LoadDist.DIST_BRC_B8, 2: Reg.LoadDist.DIST_BRC_B16, 4: Reg.LoadDist.DIST_BRC_B32}


@simd_callee
def load_scalar(dst_reg: RegTensor[Any], src: UbPtr[Any]) -> None:
    """The scalar of a flexible-scalar call (element 0 at `src`, a LocalTensor element) in every lane of
    `dst_reg`: b8/b16/b32 `LoadAlign<T, DIST_BRC_B8/B16/B32>(dst, src)`; b64 (a RegTraitNumTwo register) as
    `BinaryScalarOpTemplateCntB64` does: `LoadUnAlignPre` + `LoadUnAlign` of one register at src,
    `DeInterleave` of its 32-bit words with a zero register (element 0's low word to reg[0] lane 0, its high
    word to reg[1] lane 0), `Duplicate` of element 0 under a full mask."""
    T = dst_reg.dtype
    if T.itemsize != 8:
        Reg.LoadAlign(dst_reg, src, dist=_BRC[T.itemsize])
        return
    mask_full = Reg.CreateMask(dt.uint32, pattern=Reg.MaskPattern.ALL)  # CreateMask<uint32_t, MaskPattern::ALL>();
    zero_reg = Reg.RegTensor(dt.uint32)
    Reg.Duplicate(zero_reg, 0, mask_full)  # Duplicate(zeroReg, 0, maskFull);
    ureg = Reg.UnalignRegForLoad()
    pre_reg = Reg.RegTensor(T)  # RegTensor<T, RegTraitNumOne> preReg;
    dup_reg = Reg.RegTensor(T, trait=Reg.RegTraitNumTwo)
    words = dup_reg.reg
    # (the register load reads past the element, into bytes that never reach dst_reg: the callers run b64 with the
    # uninitialised-read check off, having checked the bytes the call uses, `run_b64_flexible`)
    Reg.LoadUnAlignPre(ureg, src)
    Reg.LoadUnAlign(pre_reg, ureg, src)
    Reg.DeInterleave(words[0].reinterpret(dt.uint32), words[1].reinterpret(dt.uint32), pre_reg.reinterpret(dt.uint32), zero_reg)
    Reg.Duplicate(dst_reg, dup_reg, mask_full)  # Duplicate(srcReg1, dupReg, maskFull);


@simd_callee
def pack_mask(mask_reg: MaskReg, T: type[dt.DType], U: type[dt.DType]) -> MaskReg:
    """The source predicate of `VecBinaryVFImpl` / `VecAxpyVFImpl` when dst (T) is twice as wide as the sources (U):
    `maskRegSrc = maskReg; MaskPack(maskRegSrc, maskReg);` (the float predicate's lanes as half lanes, the lower half
    of the register); otherwise the predicate itself. (Only the half-sources / float-dst rows of MulAddDst and Axpy have
    U narrower than T; none of the APIs has it wider.)"""
    if T.itemsize != 2 * U.itemsize:
        return mask_reg
    mask_src = Reg.MaskReg()
    Reg.MaskPack(mask_src, mask_reg)  # MaskPack(maskRegSrc, maskReg);
    return mask_src


@simd_vf
def vec_binary_vf(
    func: Any,
    dst: UbPtr[Any],
    src0: UbPtr[Any],
    src1: UbPtr[Any],
    mask_count: int,
    repeat_time: int,
    repeat_params: BinaryRepeatParams | UnaryRepeatParams,
    normal_mode: bool,
    spr_mask: bool,
    scalar_idx: int = -1,
    dst_input: bool = False,
) -> None:
    """`VecBinaryVFImpl` (kernel_operator_vec_template_impl.h): the mask/repeat interfaces (`dst_input`: its
    `BinaryFuncMode::DST_SRC_INPUT`, dst loaded after the sources with its own strides, for FusedMulAdd, MulAddRelu and
    MulAddDst). Normal mode: one
    predicate for every repeat — `UpdateMask<T>(mask)` for a continuous mask, `MoveMask<T>()` of the vector
    mask register for a bit mask or `isSetMask = false`; counter mode: `UpdateMask` per repeat over the
    count, ceil(count / elements per repeat) repeats. Each repeat loads and stores 8 DataBlocks with the
    block strides (DataCopyMode::DATA_BLOCK_COPY) at the repeat strides. With `scalar_idx` 0 or 1 it is the
    flexible-scalar `VecBinaryScalarLevel0VFImpl` (kernel_operator_vec_binary_scalar_impl.h): source
    `scalar_idx` is broadcast from its element 0 in every repeat (`LoadAlign<T, DIST_BRC_B16/B32>`), the
    other read with the UnaryRepeatParams' src strides."""
    T, U = dst.dtype, src0.dtype
    TT = T if T.itemsize > U.itemsize else U  # using TT = Conditional<sizeof(T) > sizeof(U), T, U>::type;
    count, new_repeat_times, mask_reg = vec_micro_mask(TT, mask_count, repeat_time, normal_mode, spr_mask)
    mask_src = pack_mask(mask_reg, T, U) if normal_mode else mask_reg  # (counter mode: per repeat, in the loop)
    e = ONE_BLOCK_SIZE // T.itemsize  # ElePerBlkT = GetDataBlockSizeInBytes() / sizeof(T)
    eu = ONE_BLOCK_SIZE // U.itemsize  # ElePerBlkU = GetDataBlockSizeInBytes() / sizeof(U)
    p = repeat_params
    if isinstance(p, UnaryRepeatParams):  # a flexible-scalar call: the vector source has the src strides
        blk0 = blk1 = p.srcBlkStride
        rep0 = rep1 = p.srcRepStride
    else:
        blk0, blk1, rep0, rep1 = p.src0BlkStride, p.src1BlkStride, p.src0RepStride, p.src1RepStride
    for index in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(TT, count)  # maskReg = VecMicroGetMaskReg<TT, ...>(maskBuf, count);
            mask_src = pack_mask(mask_reg, T, U)
        dst_vreg = Reg.RegTensor(T)
        src_vreg0 = Reg.RegTensor(U)
        src_vreg1 = Reg.RegTensor(U)
        if scalar_idx == 0:
            load_scalar(src_vreg0, src0)  # LoadAlign<T, pattern>(vSrcReg0, src0);
        else:
            load_blocks(src_vreg0, src0 + index * rep0 * eu, blk0, mask_src)
        if scalar_idx == 1:
            load_scalar(src_vreg1, src1)  # LoadAlign<T, pattern>(vSrcReg1, src1);
        else:
            load_blocks(src_vreg1, src1 + index * rep1 * eu, blk1, mask_src)
        if dst_input:  # if constexpr (funcMode == BinaryFuncMode::DST_SRC_INPUT) LoadAlign<T, DATA_BLOCK_COPY>(dstVreg, ...)
            load_blocks(dst_vreg, dst + index * p.dstRepStride * e, p.dstBlkStride, mask_reg)
        func(dst_vreg, src_vreg0, src_vreg1, mask_reg, mode=Reg.MaskMergeMode.ZEROING)
        store_blocks(dst + index * p.dstRepStride * e, dst_vreg, p.dstBlkStride, mask_reg)


def _trait_for(dtype: type[dt.DType]) -> Any:
    """b64 and complex32 run two registers per iteration (RegTraitNumTwo), as the library's continuous VFs do."""
    return Reg.RegTraitNumTwo if dtype.itemsize == 8 or dtype is dt.complex32 else Reg.RegTraitNumOne


def _check_set_mask(api: str, is_set_mask: object) -> None:
    if not is_set_mask:
        raise ParameterError(message(api, "is_set_mask", repr(is_set_mask), "True (the first-n interface has no isSetMask)"))


def _repeat_plan(
    api: str, dtype: type[dt.DType], mask: object, repeat_time: object, params: object, params_type: type, is_set_mask: bool
) -> tuple[int, int, bool, bool]:
    """Check the mask/repeat arguments and do what the library's `Vec*Level0Template` does before the VF:
    returns (maskCount, repeatTime, normal mode?, predicate from the vector mask register?) and, for a bit
    mask in normal mode, sets the vector mask register (`SetVectorMask<T>(mask[1], mask[0])`)."""
    bit_mode, mask_count, bits = _check_mask(api, dtype, mask, is_set_mask)
    r = _check_repeat(api, repeat_time)
    if not isinstance(params, params_type):
        raise ParameterError(message(api, "repeat_params", repr(params), f"a {params_type.__name__}"))
    normal = not counter_mode()
    if bits is not None:
        _set_vector_mask(api, *bits)
    return mask_count, r, normal, normal and (bit_mode or not is_set_mask)


def _arguments_error(api: str, given: int, forms: str) -> ParameterError:
    return ParameterError(message(api, "arguments", given, forms))


# --- the flexible-scalar overloads (灵活标量位置, Ascend 950): the scalar is a LocalTensor's element 0 -----------
def check_config(api: str, config: object) -> BinaryConfig:
    """The `config` keyword (`BinaryConfig`; None: `DEFAULT_BINARY_CONFIG`)."""
    cfg = DEFAULT_BINARY_CONFIG if config is None else config
    if not isinstance(cfg, BinaryConfig):
        raise ParameterError(message(api, "config", repr(cfg), "a BinaryConfig (BinaryConfig(0) or BinaryConfig(1))"))
    return cfg


def check_scalar_element(
    api: str, name: str, t: LocalTensor[Any], like: tuple[str, LocalTensor[Any]], dst: LocalTensor[Any]
) -> None:
    """A LocalTensor whose element 0 is a flexible-scalar call's scalar: of the dtype and UB of `like` (name, tensor),
    aligned to its element (the broadcast load's alignment; `src1Local[idx]` may be any element of a tensor), not
    inside dst (the pages: "不支持源操作数和目的操作数地址重叠"), and written (when the uninitialised-read check is on)."""
    if t.dtype is not like[1].dtype:
        raise DTypeError(message(api, name, f"a LocalTensor[{t.dtype.name}]", f"the dtype of {like[0]} ({like[1].dtype.name})"))
    if t.ub is not like[1].ub:
        raise ParameterError(message(api, name, repr(t), f"a LocalTensor in the same UnifiedBuffer as {like[0]}"))
    w = t.dtype.itemsize
    if t.addr % w:
        raise AlignmentError(message(api, name, f"UB byte {t.addr}", f"a start address aligned to {w} bytes (its element)"))
    if t.size < 1:
        raise ParameterError(message(api, name, repr(t), "a LocalTensor of at least one element (the scalar)"))
    if dst.addr < t.addr + w and t.addr < dst.addr + dst.nbytes:
        accepted = "a scalar element outside dst (the source and dst must not overlap)"
        raise ParameterError(message(api, name, f"UB bytes [{t.addr}, {t.addr + w}) inside dst", accepted))
    valid = t.ub.storage.valid
    if valid is not None and current_config().check_uninitialized and not valid[t.addr : t.addr + w].all():
        raise UninitializedReadError(f"{api}: {name} element 0 (the scalar) is read but was never written")


def check_written(api: str, name: str, t: LocalTensor[Any], nbytes: int) -> None:
    """The first `nbytes` of `t` were written (when the uninitialised-read check is on)."""
    valid = t.ub.storage.valid
    if valid is None or not current_config().check_uninitialized:
        return
    missing = np.flatnonzero(~valid[t.addr : t.addr + nbytes])
    if missing.size:
        raise UninitializedReadError(f"{api}: {name} element {int(missing[0]) // t.dtype.itemsize} is read but was never written")


def run_flexible(api: str, vec: tuple[str, LocalTensor[Any], int], vf: Callable[..., None], *args: Any) -> None:
    """`_run_lowering` of a flexible-scalar call. For b64 the scalar's register load (`load_scalar`) reads a whole
    register past the element, bytes that never reach the result: such a call checks the first `vec[2]` elements
    of the vector source `vec[1]` itself (the scalar element was checked) and runs with the uninitialised-read
    check off."""
    if vec[1].dtype.itemsize != 8:
        _run_lowering(api, vf, *args)
        return
    check_written(api, vec[0], vec[1], vec[2] * vec[1].dtype.itemsize)
    with configure(check_uninitialized=False):
        _run_lowering(api, vf, *args)


def flexible_operands(
    api: str,
    dtypes: frozenset[type[dt.DType]],
    dst: Any,
    src0: LocalTensor[Any],
    src1: LocalTensor[Any],
    config: object,
    dst_typed: bool = True,
) -> tuple[type[dt.DType], int, str, LocalTensor[Any]]:
    """Check a flexible-scalar call whose sources are both LocalTensors: returns (dtype, scalarTensorIndex, the vector
    source's name, the vector source). `dst_typed`: dst has the sources' dtype (checked here); else (Compares) the
    caller checks dst, and the vector source's dtype is the reference."""
    idx = check_config(api, config).scalarTensorIndex
    names = ("src0", "src1")
    vec, scalar = (src1, src0) if idx == 0 else (src0, src1)
    vec_name = names[1 - idx]
    if dst_typed:
        dtype = _check_tensors(api, dtypes, ("dst", vec_name), (dst, vec))
        like = ("dst", dst)
    else:
        dtype = _check_tensors(api, dtypes, (vec_name,), (vec,))
        like = (vec_name, vec)
        if not isinstance(dst, LocalTensor):
            raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor"))
    check_scalar_element(api, names[idx], scalar, like, dst)
    return dtype, idx, vec_name, vec


@attrs.frozen
class BinaryApi:
    """One memory-level binary API (dst = src0 op src1): its Reg op and its 950 dtype lists per interface."""

    name: str
    op: Callable[..., None]
    count_dtypes: frozenset[type[dt.DType]]  #: the first-n interface (BinaryContinuousImplTemplate's static_assert)
    repeat_dtypes: frozenset[type[dt.DType]]  #: the mask/repeat interfaces (VecBinaryImplTemplate's static_assert)
    dst_input: bool = False  #: dst is an operand too (`BinaryFuncMode::DST_SRC_INPUT`: FusedMulAdd, MulAddDst ...)

    @host_method
    @unchanged_on_error
    def __call__(
        self, dst: LocalTensor[T], src0: LocalTensor[T], src1: LocalTensor[T], *args: Any, is_set_mask: bool = True
    ) -> None:
        _host(self.name)
        names, ts = ("dst", "src0", "src1"), (dst, src0, src1)
        if len(args) == 1:  # tensor 前n个数据计算: (dst, src0, src1, count)
            _check_set_mask(self.name, is_set_mask)
            dtype = _check_tensors(self.name, self.count_dtypes, names, ts)
            n = _check_count(self.name, args[0], names, ts)
            ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
            _run_lowering(self.name, binary_continuous_vf, self.op, *ptrs, n, _trait_for(dtype), -1, self.dst_input)
            return
        if len(args) != 3:
            raise _arguments_error(
                self.name, len(args) + 3, "(dst, src0, src1, count) or (dst, src0, src1, mask, repeat_time, repeat_params)"
            )
        dtype = _check_tensors(self.name, self.repeat_dtypes, names, ts)
        plan = _repeat_plan(self.name, dtype, args[0], args[1], args[2], BinaryRepeatParams, is_set_mask)
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        _run_lowering(self.name, vec_binary_vf, self.op, *ptrs, plan[0], plan[1], args[2], plan[2], plan[3], -1, self.dst_input)


# --- the unary and scalar families -------------------------------------------------------------------------------
@simd_vf
def unary_continuous_vf(
    func: Any, dst: UbPtr[Any], src: UbPtr[Any], scalar: tuple[Any, ...], count: int, trait: Any, dst_input: bool = False
) -> None:
    """`VecUnaryLevel2VFImpl` (kernel_operator_vec_unary_impl.h) and, with a scalar, `VecBinaryScalarLevel2VFImpl`
    (kernel_operator_vec_binary_scalar_impl.h): the first-n interface of dst = op(src[, scalar]); `dst_input`:
    `VecAxpyLevel2VFImpl` (kernel_operator_vec_ternary_scalar_impl.h), dst loaded after src, an operand too."""
    T = dst.dtype
    src_reg = Reg.RegTensor(src.dtype, trait=trait)  # RegType srcReg; (RegU srcReg: Axpy's half src, float dst)
    dst_reg = Reg.RegTensor(T, trait=trait)  # RegType dstReg;
    sreg = Ref(count)  # uint32_t sreg = static_cast<uint32_t>(count);
    repeat_stride = VL // T.itemsize * trait.REG_NUM
    repeat_time = -(-count // repeat_stride)  # CeilDivision(sreg, repeatStride)
    for i in range(repeat_time):
        mask = Reg.UpdateMask(T, sreg, trait=trait)  # mask = UpdateMask<T, RegType::trait>(sreg);
        Reg.LoadAlign(src_reg, src + i * repeat_stride)  # LoadAlign(srcReg, src + i * repeatStride);
        if dst_input:
            Reg.LoadAlign(dst_reg, dst + i * repeat_stride)  # LoadAlign(dstReg, dst + i * repeatStride);
        func(dst_reg, src_reg, *scalar, mask, mode=Reg.MaskMergeMode.ZEROING)  # func(dstReg, srcReg[, scalarValue], mask);
        Reg.StoreAlign(dst + i * repeat_stride, dst_reg, mask)  # StoreAlign(dst + i * repeatStride, dstReg, mask);


@simd_vf
def vec_unary_vf(
    func: Any,
    dst: UbPtr[Any],
    src: UbPtr[Any],
    scalar: tuple[Any, ...],
    mask_count: int,
    repeat_time: int,
    repeat_params: UnaryRepeatParams,
    normal_mode: bool,
    spr_mask: bool,
    dst_input: bool = False,
) -> None:
    """`VecUnaryLevel0VFImpl` and, with a scalar, `VecBinaryScalarLevel0VFImpl`: the mask/repeat interfaces of
    dst = op(src[, scalar]), the predicate made as in `vec_binary_vf`. `dst_input`: `VecAxpyVFImpl`
    (kernel_operator_vec_ternary_scalar_impl.h), dst loaded after src with its own strides, an operand too."""
    T, U = dst.dtype, src.dtype
    TT = T if T.itemsize > U.itemsize else U  # VecAxpyVFImpl: using TT = Conditional<sizeof(T) > sizeof(U), T, U>::type;
    count, new_repeat_times, mask_reg = vec_micro_mask(TT, mask_count, repeat_time, normal_mode, spr_mask)
    mask_src = pack_mask(mask_reg, T, U) if normal_mode else mask_reg  # (counter mode: per repeat, in the loop)
    e = ONE_BLOCK_SIZE // T.itemsize
    eu = ONE_BLOCK_SIZE // U.itemsize  # ElePerBlkU
    p = repeat_params
    for index in range(new_repeat_times):
        if not normal_mode:
            mask_reg = Reg.UpdateMask(TT, count)
            mask_src = pack_mask(mask_reg, T, U)
        dst_vreg = Reg.RegTensor(T)
        src_vreg = Reg.RegTensor(U)
        load_blocks(src_vreg, src + index * p.srcRepStride * eu, p.srcBlkStride, mask_src)
        if dst_input:
            load_blocks(dst_vreg, dst + index * p.dstRepStride * e, p.dstBlkStride, mask_reg)
        func(dst_vreg, src_vreg, *scalar, mask_reg, mode=Reg.MaskMergeMode.ZEROING)
        store_blocks(dst + index * p.dstRepStride * e, dst_vreg, p.dstBlkStride, mask_reg)


@attrs.frozen
class UnaryApi:
    """One memory-level unary API (dst = op(src)), or with `scalar` a tensor-scalar one (dst = op(src, scalarValue))."""

    name: str
    op: Callable[..., None]
    count_dtypes: frozenset[type[dt.DType]]
    repeat_dtypes: frozenset[type[dt.DType]]
    scalar: bool = False
    #: the tensor-tensor Reg op of the flexible-scalar overloads (灵活标量位置): Add for Adds, Mul, Max, Min
    flex_op: Callable[..., None] | None = None
    #: the Reg callee of an immediate scalar first (`Subs(dst, scalar, srcLocal, ...)`: the library's `Subs2`,
    #: `Divs2`); None: the op commutes and the library runs the call as scalar second (`AddsCommon`)
    first_op: Callable[..., None] | None = None
    dst_input: bool = False  #: dst is an operand too (Axpy: dst = src * scalar + dst)

    @host_method
    @unchanged_on_error
    def __call__(
        self, dst: LocalTensor[T], src: LocalTensor[T], *args: Any, is_set_mask: bool = True, config: BinaryConfig | None = None
    ) -> None:
        _host(self.name)
        if self.flex_op is not None and args and (isinstance(args[0], LocalTensor) or not isinstance(src, LocalTensor)):
            self._flexible(dst, src, args[0], args[1:], is_set_mask, config)
            return
        if config is not None:
            if self.flex_op is None:
                raise ParameterError(message(self.name, "config", repr(config), f"no config ({self.name} has no BinaryConfig)"))
            check_config(self.name, config)  # (C++ ignores config when the scalar is not a LocalTensor element)
        names, ts = ("dst", "src"), (dst, src)
        lead = 1 if self.scalar else 0
        extra: tuple[Any, ...] = tuple(args[:lead])
        rest = args[lead:]
        head = "(dst, src, scalar_value, " if self.scalar else "(dst, src, "
        if len(args) < lead or len(rest) not in (1, 3):
            forms = f"{head}count) or {head}mask, repeat_time, repeat_params)"
            raise _arguments_error(self.name, len(args) + 2, forms)
        if len(rest) == 1:
            _check_set_mask(self.name, is_set_mask)
            dtype = _check_tensors(self.name, self.count_dtypes, names, ts)
            n = _check_count(self.name, rest[0], names, ts)
            ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
            _run_lowering(self.name, unary_continuous_vf, self.op, *ptrs, extra, n, _trait_for(dtype), self.dst_input)
            return
        dtype = _check_tensors(self.name, self.repeat_dtypes, names, ts)
        plan = _repeat_plan(self.name, dtype, rest[0], rest[1], rest[2], UnaryRepeatParams, is_set_mask)
        ptrs = (dst.GetPhyAddr(), src.GetPhyAddr())
        _run_lowering(self.name, vec_unary_vf, self.op, *ptrs, extra, plan[0], plan[1], rest[2], plan[2], plan[3], self.dst_input)

    def _flexible(self, dst: Any, src0: Any, src1: Any, rest: tuple[Any, ...], is_set_mask: bool, config: object) -> None:
        """`Adds<T, isSetMask, config>(dst, src0, src1, ...)` and its siblings, the 灵活标量位置 overloads: both sources
        LocalTensors (`config.scalarTensorIndex` says which one's element 0 is the scalar), or the scalar first
        (`Adds(dst, scalar, srcLocal, ...)`), which the library runs as `(dst, srcLocal, scalar)` (the op commutes)."""
        api = self.name
        head = "(dst, src0, src1, "
        if len(rest) not in (1, 3):
            raise _arguments_error(api, len(rest) + 3, f"{head}count) or {head}mask, repeat_time, repeat_params)")
        if not isinstance(src0, LocalTensor):  # AddsCommon: `AddsImpl(dst, src1, src0, ...)`
            check_config(api, config)
            if not isinstance(src1, LocalTensor):
                raise ParameterError(message(api, "src1", repr(src1), "a LocalTensor (one of src0 and src1 must be a tensor)"))
            if self.first_op is None:
                self(dst, src1, src0, *rest, is_set_mask=is_set_mask)
            else:  # SubsCommon, DivsCommon: `SubsImpl(dst, src0, src1, ...)`, whose VFs run `Subs2` / `Divs2`
                attrs.evolve(self, op=self.first_op, flex_op=None)(dst, src1, src0, *rest, is_set_mask=is_set_mask)
            return
        if not isinstance(dst, LocalTensor):
            raise ParameterError(message(api, "dst", repr(dst), "a LocalTensor"))
        ptrs = (dst.GetPhyAddr(), src0.GetPhyAddr(), src1.GetPhyAddr())
        assert self.flex_op is not None
        if len(rest) == 1:
            _check_set_mask(api, is_set_mask)
            dtype, idx, vec_name, vec = flexible_operands(api, self.count_dtypes, dst, src0, src1, config)
            n = _check_count(api, rest[0], ("dst", vec_name), (dst, vec))
            trait = Reg.RegTraitNumTwo if dtype.itemsize == 8 else Reg.RegTraitNumOne  # complex32: one register
            run_flexible(api, (vec_name, vec, n), binary_continuous_vf, self.flex_op, *ptrs, n, trait, idx)
            return
        dtype, idx, _, _ = flexible_operands(api, self.repeat_dtypes, dst, src0, src1, config)
        plan = _repeat_plan(api, dtype, rest[0], rest[1], rest[2], UnaryRepeatParams, is_set_mask)
        _run_lowering(api, vec_binary_vf, self.flex_op, *ptrs, plan[0], plan[1], rest[2], plan[2], plan[3], idx)


_B16_B32 = frozenset({dt.half, dt.uint16, dt.int16, dt.bfloat16, dt.uint32, dt.int32, dt.float32})
_INTS8 = frozenset({dt.uint8, dt.int8})
_WIDE = frozenset({dt.int64, dt.uint64})
_CPLX = frozenset({dt.complex32, dt.complex64})
#: the tensor-scalar APIs' mask/repeat dtypes (VecBinaryScalarLevel0Template's static_asserts)
_SCALAR_B16_B32 = frozenset({dt.half, dt.bfloat16, dt.float32, dt.int16, dt.int32})

Add = BinaryApi("Add", Reg.Add, _B16_B32 | _INTS8 | _WIDE | _CPLX, _B16_B32)
Sub = BinaryApi("Sub", Reg.Sub, _B16_B32 | _INTS8 | _WIDE | _CPLX, _B16_B32)
Mul = BinaryApi("Mul", Reg.Mul, _B16_B32 | _WIDE | _CPLX, _B16_B32)
Max = BinaryApi("Max", Reg.Max, _B16_B32 | _INTS8 | _WIDE, _B16_B32)
Min = BinaryApi("Min", Reg.Min, _B16_B32 | _INTS8 | _WIDE, _B16_B32)
Abs = UnaryApi(
    "Abs",
    Reg.Abs,
    frozenset({dt.int8, dt.half, dt.int16, dt.float32, dt.int32, dt.int64}),
    frozenset({dt.half, dt.int16, dt.float32, dt.int32}),
)
Relu = UnaryApi(
    "Relu", Reg.Relu, frozenset({dt.half, dt.float32, dt.int32, dt.int64}), frozenset({dt.half, dt.float32, dt.int32})
)
Adds = UnaryApi("Adds", Reg.Adds, _SCALAR_B16_B32 | _INTS8 | _WIDE | _CPLX, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Add)


@simd_callee
def reg_muls(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegMuls::Muls` (kernel_operator_vec_binary_scalar_impl.h): bfloat16 has no Reg Muls, so the library
    broadcasts the scalar (`Duplicate`) and multiplies (`Mul`); other types use `Reg::Muls`."""
    if dst_reg.dtype is dt.bfloat16:
        Reg.Duplicate(dst_reg, scalar_value, mask)
        Reg.Mul(dst_reg, src_reg, dst_reg, mask, mode=mode)
    else:
        Reg.Muls(dst_reg, src_reg, scalar_value, mask, mode=mode)


Muls = UnaryApi("Muls", reg_muls, _SCALAR_B16_B32 | _WIDE | _CPLX, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Mul)
Maxs = UnaryApi("Maxs", Reg.Maxs, _SCALAR_B16_B32 | _INTS8 | _WIDE, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Max)
Mins = UnaryApi("Mins", Reg.Mins, _SCALAR_B16_B32 | _INTS8 | _WIDE, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Min)


# Subs, Divs, Ands, Ors (kernel_operator_vec_binary_scalar_impl.h for dav_3510): the tensor-scalar forms broadcast the
# scalar (`Duplicate`) into dstReg and run the tensor-tensor op; the flexible-scalar forms are Adds' (BinaryScalarOp).
@simd_callee
def reg_subs(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegSubs::Subs`: dst = src - scalar."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Sub(dst_reg, src_reg, dst_reg, mask, mode=mode)  # Reg::Sub(dstReg, srcReg, dstReg, mask);


@simd_callee
def reg_subs2(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegSubs::Subs2` (an immediate scalar first): dst = scalar - src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Sub(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Sub(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_divs(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegDivs::Divs`: dst = src / scalar (`Reg::Div` with its default mode: the INTRINSIC algorithm)."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Div(dst_reg, src_reg, dst_reg, mask, mode=mode)  # Reg::Div(dstReg, srcReg, dstReg, mask);


@simd_callee
def reg_divs2(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegDivs::Divs2` (an immediate scalar first): dst = scalar / src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Div(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Div(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_ands(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegAnds::Ands`: dst = scalar & src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.And(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::And(dstReg, dstReg, srcReg, mask);


@simd_callee
def reg_ors(dst_reg: RegTensor[Any], src_reg: RegTensor[Any], scalar_value: Any, mask: MaskReg, *, mode: Any) -> None:
    """`RegOrs::Ors`: dst = scalar | src."""
    Reg.Duplicate(dst_reg, scalar_value, mask)  # Reg::Duplicate(dstReg, scalarValue, mask);
    Reg.Or(dst_reg, dst_reg, src_reg, mask, mode=mode)  # Reg::Or(dstReg, dstReg, srcReg, mask);


_HALF_FLOAT = frozenset({dt.half, dt.float32})
_B16_LOGIC = frozenset({dt.int16, dt.uint16})
#: the Subs, Divs, Ands, Ors pages' 950 types ("数据类型"; the 64-bit and complex ones in the first-n interface only)
Subs = UnaryApi(
    "Subs", reg_subs, _SCALAR_B16_B32 | _WIDE | _CPLX, _SCALAR_B16_B32, scalar=True, flex_op=Reg.Sub, first_op=reg_subs2
)
Divs = UnaryApi("Divs", reg_divs, _HALF_FLOAT | _WIDE | _CPLX, _HALF_FLOAT, scalar=True, flex_op=Reg.Div, first_op=reg_divs2)
Ands = UnaryApi("Ands", reg_ands, _B16_LOGIC | _WIDE, _B16_LOGIC, scalar=True, flex_op=Reg.And)
Ors = UnaryApi("Ors", reg_ors, _B16_LOGIC | _WIDE, _B16_LOGIC, scalar=True, flex_op=Reg.Or)
#: `LeakyRelu(dst, src, scalarValue, ...)` (the LeakyRelu page; `RegLeakyRelu::LeakyRelu` is `vlrelu`, Reg::LeakyRelu)
LeakyRelu = UnaryApi("LeakyRelu", Reg.LeakyRelu, _HALF_FLOAT, _HALF_FLOAT, scalar=True)

_LOGIC_COUNT = frozenset({dt.uint8, dt.int8, dt.int16, dt.uint16, dt.uint32, dt.int32, dt.int64, dt.uint64})
_LOGIC_REPEAT = frozenset({dt.int16, dt.uint16, dt.uint32, dt.int32})
And = BinaryApi("And", Reg.And, _LOGIC_COUNT, _LOGIC_REPEAT)
Or = BinaryApi("Or", Reg.Or, _LOGIC_COUNT, _LOGIC_REPEAT)
_NOT_REPEAT = frozenset({dt.half, dt.float32, dt.uint16, dt.int16, dt.uint32, dt.int32})
Not = UnaryApi("Not", Reg.Not, _NOT_REPEAT | {dt.int8, dt.uint8, dt.uint64, dt.int64}, _NOT_REPEAT)

#: every memory-level API by name (the lowering explorer's names)
APIS: Final[dict[str, Any]] = {  # (the other memvec_* modules add theirs)
    a.name: a
    for a in (Add, Sub, Mul, Max, Min, And, Or, Abs, Relu, Not, Adds, Muls, Maxs, Mins, Subs, Divs, Ands, Ors, LeakyRelu)
}
TENSOR_OPERATORS.update({a.name: a for a in (Add, Sub, Mul, And, Or)})  # dst[:] = src0 + src1 ... (Div: reduce.py)


# --- the lowering explorer ------------------------------------------------------------------------------------
#: `lower_spec` for APIs whose arguments are not those of `APIS`' skeletons (added by the modules that define
#: them): name -> (dtype, keyword arguments) -> the lowering of such a call on fresh tensors
SPEC_BUILDERS: Final[dict[str, Callable[[type[dt.DType], dict[str, Any]], Lowering]]] = {}


@attrs.frozen
class Lowering:
    """The Reg-op sequence one memory-level call became (`rs.lower`)."""

    call: str
    records: tuple[Any, ...]

    def counts(self) -> dict[str, int]:
        """Reg calls per op, in first-call order."""
        out: dict[str, int] = {}
        for r in self.records:
            out[r.api] = out.get(r.api, 0) + 1
        return out

    def bytes(self) -> dict[str, tuple[int, int]]:
        """UB bytes (read, written) per op, summed over its calls."""
        out: dict[str, tuple[int, int]] = {}
        for r in self.records:
            rd, wr = out.get(r.api, (0, 0))
            out[r.api] = (rd + sum(b - a for a, b in r.reads), wr + sum(b - a for a, b in r.writes))
        return out

    def table(self) -> str:
        rows = [("#", "Reg op", "operands", "active", "UB read", "UB written")]
        for i, r in enumerate(self.records):
            active = "-" if r.active is None else f"{r.active}/{r.lanes}"
            rd = " ".join(f"[{a},{b})" for a, b in r.reads) or "-"
            wr = " ".join(f"[{a},{b})" for a, b in r.writes) or "-"
            rows.append((str(i), r.api, r.dtypes, active, rd, wr))
        rows.append(("", "", "", "", "", ""))
        rows.append(("", "op", "calls", "", "UB bytes read", "UB bytes written"))
        for name, n in self.counts().items():
            n_read, n_written = self.bytes()[name]
            rows.append(("", name, str(n), "", str(n_read), str(n_written)))
        widths = [max(len(row[k]) for row in rows) for k in range(len(rows[0]))]
        body = "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)
        return f"{self.call}: {len(self.records)} Reg calls\n{body}"

    def __str__(self) -> str:
        return self.table()


def lower(api: Callable[..., None], *args: Any, **kwargs: Any) -> Lowering:
    """`rs.lower(AscendC.Add, dst, src0, src1, 256)`: run the call (it runs for real: its stores land)
    and return the Reg-op sequence it became, with op counts and UB bytes read and written per op
    (its loops run in order, so the sequence is each iteration's)."""

    name = getattr(api, "name", getattr(api, "__name__", repr(api)))
    shown = ", ".join([*(repr(a) for a in args), *(f"{k}={v!r}" for k, v in kwargs.items())])
    with trace() as t, configure(loops="sequential"):
        api(*args, **kwargs)
    return Lowering(f"{name}({shown})", tuple(t.records))


def lowerable() -> list[str]:
    """The names `regsim lower` lowers: the memory-level APIs and the memory-level C API compares."""
    return sorted({*APIS, *SPEC_BUILDERS})


def reg_op_note(text: str) -> str | None:
    """What `regsim lower` says of a register-level (Reg) op, which is not lowered (it is one Reg call itself):
    its C++ forms and where its semantics are written; None for a name that is not a Reg op (or is lowered)."""

    name = text.partition("(")[0].strip()
    if name in lowerable() or name not in REGISTRY.entries:
        return None
    forms = "; ".join(s.signature() for s in REGISTRY.entries[name].specs if not s.unmodelled)
    return (
        f"{name} is a register-level (Reg) op: it is not lowered, a call is one Reg call ({forms}), whose lanes "
        f"docs/ops.md and help(rs.Reg.{name}) describe. regsim lower shows the Reg calls a memory-level (LocalTensor) "
        f"or C API call becomes: one of {', '.join(lowerable())}."
    )


def lower_spec(text: str) -> Lowering:
    """`regsim lower "Add(int16, count=256)"`: lower a call described by name, dtype and keyword arguments
    (`count=` for the first-n interface; `mask=`, `repeat_time=`, optional `repeat_params=(...)` and
    `is_set_mask=` for the mask/repeat interfaces; `scalar_value=` for the tensor-scalar APIs: Adds, Muls, Maxs, Mins,
    Subs, Divs, Ands, Ors, LeakyRelu, Axpy; `src=half` for sources of another type than dst, MulAddDst's and Axpy's
    half → float rows) on fresh tensors of random data (the tensors are the interface's extent, rounded up to whole
    registers)."""
    import ast

    try:
        node = ast.parse(text.strip(), mode="eval").body
    except SyntaxError as e:
        raise ParameterError(message("lower", "call", repr(text), 'a call like "Add(int16, count=256)"')) from e
    if not (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and len(node.args) == 1
        and isinstance(node.args[0], ast.Name)
    ):
        raise ParameterError(message("lower", "call", repr(text), 'a call like "Add(int16, count=256)"'))
    api = APIS.get(node.func.id)
    if api is None and node.func.id not in SPEC_BUILDERS:
        raise ParameterError(message("lower", "API", node.func.id, f"one of {', '.join(lowerable())}"))
    dtype = getattr(dt, node.args[0].id, None)
    if not (isinstance(dtype, type) and issubclass(dtype, dt.DType)):
        raise ParameterError(message("lower", "dtype", node.args[0].id, "a regsim dtype name such as int16 or float32"))
    kw = {  # (a bare name, `dst=half` or `round_mode=CAST_RINT`, is its text)
        str(k.arg): k.value.id if isinstance(k.value, ast.Name) else ast.literal_eval(k.value) for k in node.keywords
    }
    if api is None:
        return Lowering(text.strip(), SPEC_BUILDERS[node.func.id](dtype, kw).records)

    binary = isinstance(api, BinaryApi)
    lead: tuple[Any, ...] = ()
    if isinstance(api, UnaryApi) and api.scalar:
        if "scalar_value" not in kw:
            raise ParameterError(message("lower", "scalar_value", "missing", f"scalar_value=... for {api.name}"))
        lead = (kw.pop("scalar_value"),)
    extra: dict[str, Any] = {"is_set_mask": kw.pop("is_set_mask")} if "is_set_mask" in kw else {}
    src_dtype = dtype
    # `src=half`: sources of another type than dst (MulAddDst's and Axpy's half → float rows,
    # decisions/arithmetic.md#memory-half-float-rows)
    if "src" in kw:
        name = str(kw.pop("src"))
        found = getattr(dt, name, None)
        if not (isinstance(found, type) and issubclass(found, dt.DType)):
            raise ParameterError(message("lower", "src", name, "a regsim dtype name such as half"))
        src_dtype = found
    if set(kw) == {"count"}:
        nbytes = max(int(kw["count"]), 1) * dtype.itemsize
        rest: tuple[Any, ...] = (kw["count"],)
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "repeat_params"}:
        struct = BinaryRepeatParams if binary else UnaryRepeatParams
        params = struct(*kw.get("repeat_params", ()))
        strides = attrs.astuple(params)
        blk, rep = strides[: len(strides) // 2], strides[len(strides) // 2 :]
        nbytes = (max(rep) * (max(int(kw["repeat_time"]), 1) - 1) + max(*blk, 1) * 7 + 1) * ONE_BLOCK_SIZE
        mask = kw["mask"]
        rest = (list(mask) if isinstance(mask, (list, tuple)) else mask, kw["repeat_time"], params)
    else:
        raise ParameterError(
            message("lower", "arguments", sorted(kw), "count=N, or mask=M, repeat_time=R [, repeat_params] [, is_set_mask]")
        )
    padded = -(-nbytes // REPEAT_BYTES) * REPEAT_BYTES
    ub = UnifiedBuffer(3 * padded + REPEAT_BYTES)
    tensors = [ub.alloc(d, padded // d.itemsize) for d in (dtype, src_dtype, src_dtype)[: 3 if binary else 2]]
    rng = np.random.default_rng(0)
    for t in tensors:
        ub.storage.write(t.addr, rng.integers(0, 256, t.nbytes, dtype=np.uint8))
    low = lower(api, *tensors, *lead, *rest, **extra)
    return Lowering(text.strip(), low.records)


# --- Gather: elements of src at byte offsets -------------------------------------------------------------------
@simd_vf
def gather_b16_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    src_offset: UbPtr[dt.uint32],
    src_base_index: int,
    repeat_time: int,
    dst_step: int,
    count: int,
    per_repeat_mask: bool,
) -> None:
    """`VfGatherApi0B16` / `VfGatherApi2B16` (kernel_operator_vec_gather_impl.h): byte offsets → element
    indices (ShiftRights by 1), two u32 offset registers packed into one u16 index register (Pack LOWEST /
    HIGHEST + Select on the H pattern), then `Reg::Gather`. `per_repeat_mask`: UpdateMask each repeat
    (first-n interface, counter mode); else the vector mask register (`MoveMask`)."""
    offset_reg0 = Reg.RegTensor(dt.uint32)
    offset_reg1 = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint16)
    dst_reg = Reg.RegTensor(dt.uint16)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint32)  # MaskReg indexMask = CreateMask<uint32_t>();
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)  # CreateMask<uint16_t, MaskPattern::H>();
    dst_mask = Reg.MaskReg()
    if not per_repeat_mask:
        dst_mask = Reg.MoveMask(dt.uint16)  # dstMask = MoveMask<T>();
    u32_per_reg = VL // 4
    for i in range(repeat_time):
        if per_repeat_mask:
            dst_mask = Reg.UpdateMask(dt.uint16, sreg)  # dstMask = UpdateMask<T>(sregPlt);
        Reg.LoadAlign(offset_reg0, src_offset + (2 * i) * u32_per_reg)
        Reg.LoadAlign(offset_reg1, src_offset + (2 * i + 1) * u32_per_reg)
        Reg.ShiftRights(offset_reg0, offset_reg0, 1, index_mask)  # bytes -> b16 element index
        Reg.ShiftRights(offset_reg1, offset_reg1, 1, index_mask)
        Reg.Pack(offset_reg0.reinterpret(dt.uint16), offset_reg0, part=Reg.HighLowPart.LOWEST)
        Reg.Pack(offset_reg1.reinterpret(dt.uint16), offset_reg1, part=Reg.HighLowPart.HIGHEST)
        Reg.Select(index_reg, offset_reg0.reinterpret(dt.uint16), offset_reg1.reinterpret(dt.uint16), select_mask)
        Reg.Gather(dst_reg, src.reinterpret(dt.uint16) + src_base_index, index_reg, dst_mask)
        Reg.StoreAlign(dst.reinterpret(dt.uint16) + i * dst_step, dst_reg, dst_mask)


@simd_vf
def gather_b32_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    src_offset: UbPtr[dt.uint32],
    src_base_index: int,
    repeat_time: int,
    dst_step: int,
    count: int,
    per_repeat_mask: bool,
) -> None:
    """`VfGatherApi0B32` / `VfGatherApi2B32`: byte offsets → element indices (ShiftRights by 2), then `Reg::Gather`."""
    offset_reg = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint32)
    dst_reg = Reg.RegTensor(dt.uint32)
    sreg = Ref(count)
    index_mask = Reg.CreateMask(dt.uint32)
    dst_mask = Reg.MaskReg()
    if not per_repeat_mask:
        dst_mask = Reg.MoveMask(dt.uint32)
    u32_per_reg = VL // 4
    for i in range(repeat_time):
        if per_repeat_mask:
            dst_mask = Reg.UpdateMask(dt.uint32, sreg)
        Reg.LoadAlign(offset_reg, src_offset + i * u32_per_reg)
        Reg.ShiftRights(index_reg, offset_reg, 2, index_mask)  # bytes -> b32 element index
        Reg.Gather(dst_reg, src.reinterpret(dt.uint32) + src_base_index, index_reg, dst_mask)
        Reg.StoreAlign(dst.reinterpret(dt.uint32) + i * dst_step, dst_reg, dst_mask)


@simd_vf
def gather_b8_vf(dst: UbPtr[Any], src: UbPtr[Any], src_offset: UbPtr[dt.uint32], src_base_index: int, count: int) -> None:
    """`VfGatherApi2B8` (first-n only): per 128 elements, two u32 offset registers packed into one u16 index register
    (the byte offsets are the element indices), `Reg::Gather` of bytes into u16 lanes, `Pack` to bytes and `MaskPack`
    of the predicate, `StoreAlign` of the 128 bytes."""
    offset_reg0 = Reg.RegTensor(dt.uint32)
    offset_reg1 = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint16)
    dst_reg = Reg.RegTensor(dt.uint16)
    sreg = Ref(count)
    u32_per_reg = VL // 4  # u32OffsetRepeatCount
    per_repeat = VL // 2  # u8GatherRepeatCount: 128 bytes per iteration
    select_mask = Reg.CreateMask(dt.uint16, pattern=Reg.MaskPattern.H)  # CreateMask<uint16_t, MaskPattern::H>();
    for i in range(-(-count // per_repeat)):
        dst_mask = Reg.UpdateMask(dt.uint16, sreg)  # dstMask = UpdateMask<uint16_t>(sreg);
        Reg.LoadAlign(offset_reg0, src_offset + (2 * i) * u32_per_reg)
        Reg.LoadAlign(offset_reg1, src_offset + (2 * i + 1) * u32_per_reg)
        Reg.Pack(offset_reg0.reinterpret(dt.uint16), offset_reg0, part=Reg.HighLowPart.LOWEST)
        Reg.Pack(offset_reg1.reinterpret(dt.uint16), offset_reg1, part=Reg.HighLowPart.HIGHEST)
        Reg.Select(index_reg, offset_reg0.reinterpret(dt.uint16), offset_reg1.reinterpret(dt.uint16), select_mask)
        Reg.Gather(dst_reg, src.reinterpret(dt.uint8) + src_base_index, index_reg, dst_mask)
        Reg.Pack(dst_reg.reinterpret(dt.uint8), dst_reg)  # Pack((RegTensor<uint8_t>&)dstReg, dstReg);
        Reg.Pack(dst_mask, dst_mask)  # MaskPack(dstMask, dstMask);
        Reg.StoreAlign(dst.reinterpret(dt.uint8) + i * per_repeat, dst_reg.reinterpret(dt.uint8), dst_mask)


@simd_vf
def gather_b64_vf(
    dst: UbPtr[Any],
    src: UbPtr[Any],
    src_offset: UbPtr[dt.uint32],
    src_base_index: int,
    repeat_time: int,
    dst_step: int,
    u32_count: int,
    mask_source: str,
) -> None:
    """`VfGatherApi2B64` / `VfGatherApi0B64Normal` / `VfGatherApi0B64Bits`: each b64 element is two u32 words; per
    repeat 32 byte offsets → element indices (ShiftRights by 3) → word indices 2j and 2j + 1 (`Muls`, `Adds`),
    interleaved into 64 u32 indices, `Reg::Gather` of u32 words. `mask_source`: "count" (`UpdateMask<uint32_t>`
    over `u32_count` each repeat: the first-n interface and counter mode), "continuous" (`UpdateMask` once: the
    first 2 * mask words) or "bits" (the vector mask register: `MoveMask<uint16_t>`, `MaskPack`,
    `MaskInterleave<uint8_t>`, two `MaskUnPack`s: bit j selects words 2j and 2j + 1). `src_base_index` counts u32
    words; `dst_step` u32 words per repeat."""
    offset_reg = Reg.RegTensor(dt.uint32)
    index_reg = Reg.RegTensor(dt.uint32)
    odd_index_reg = Reg.RegTensor(dt.uint32)
    tmp_reg = Reg.RegTensor(dt.uint32)
    index_u32_reg = Reg.RegTensor(dt.uint32)
    dst_reg = Reg.RegTensor(dt.uint32)
    sreg = Ref(u32_count)
    index_mask = Reg.CreateMask(dt.uint32, pattern=Reg.MaskPattern.H)  # CreateMask<uint32_t, MaskPattern::H>();
    dst_mask = Reg.MaskReg()
    if mask_source == "continuous":
        dst_mask = Reg.UpdateMask(dt.uint32, sreg)
    elif mask_source == "bits":
        tmp_mask0 = Reg.MaskReg()
        tmp_mask1 = Reg.MoveMask(dt.uint16)  # MaskReg tmpMask1 = MoveMask<uint16_t>();
        Reg.Pack(tmp_mask1, tmp_mask1)  # MaskPack(tmpMask1, tmpMask1);
        Reg.Interleave(dt.uint8, dst_mask, tmp_mask0, tmp_mask1, tmp_mask1)  # MaskInterleave<uint8_t>(...);
        Reg.UnPack(dst_mask, dst_mask)  # MaskUnPack(dstMask, dstMask);
        Reg.UnPack(dst_mask, dst_mask)
    offsets_per_repeat = VL // 8  # u64OffsetRepeatCount
    for i in range(repeat_time):
        if mask_source == "count":
            dst_mask = Reg.UpdateMask(dt.uint32, sreg)
        Reg.LoadAlign(offset_reg, src_offset + i * offsets_per_repeat)
        Reg.ShiftRights(index_reg, offset_reg, 3, index_mask)  # bytes -> b64 element index
        Reg.Muls(index_reg, index_reg, 2, index_mask)  # the index of the lower word
        Reg.Adds(odd_index_reg, index_reg, 1, index_mask)  # and of the higher one
        Reg.Interleave(index_u32_reg, tmp_reg, index_reg, odd_index_reg)
        Reg.Gather(dst_reg, src.reinterpret(dt.uint32) + src_base_index, index_u32_reg, dst_mask)
        Reg.StoreAlign(dst.reinterpret(dt.uint32) + i * dst_step, dst_reg, dst_mask)


_GATHER_B8 = frozenset({dt.uint8, dt.int8})  #: the first-n interface only (the Gather page, Ascend 950)
_GATHER_B16 = frozenset({dt.uint16, dt.int16, dt.half, dt.bfloat16})
_GATHER_B32 = frozenset({dt.uint32, dt.int32, dt.float32})
_GATHER_B64 = frozenset({dt.uint64, dt.int64})
#: srcOffset ranges on Ascend 950 (the Gather page): b8 [0, 2**16 - 1], b16 [0, 2**17 - 1], b32 and b64 the uint32_t range
_GATHER_MAX_OFFSET = {1: 2**16 - 1, 2: 2**17 - 1, 4: 2**32 - 1, 8: 2**32 - 1}


def _check_offsets(
    dtype: type[dt.DType], src: LocalTensor[Any], base: int, src_offset: LocalTensor[Any], used: np.ndarray
) -> None:
    """Every srcOffset an active element reads: written (when the uninitialised-read check is on), a multiple
    of the element width, within the 950 range, the element it names inside src."""
    used = used[: src_offset.size]
    valid = src_offset.ub.storage.valid
    if valid is not None and current_config().check_uninitialized:
        written = valid[src_offset.addr : src_offset.addr + used.size * 4].reshape(-1, 4).all(axis=1)
        missing = np.flatnonzero(used & ~written)
        if missing.size:
            raise UninitializedReadError(f"Gather: src_offset element {int(missing[0])} is read but was never written")
    offs = src_offset.numpy()[: used.size][used].astype(np.int64)
    width = dtype.itemsize
    bad = offs[(offs % width != 0) | (offs > _GATHER_MAX_OFFSET[width])]
    if bad.size:
        accepted = f"byte offsets that are multiples of {width} in [0, {_GATHER_MAX_OFFSET[width]}] for {dtype.name}"
        raise ParameterError(message("Gather", "src_offset", f"[..., {int(bad[0])}, ...]", accepted))
    outside = np.flatnonzero(used)[base + offs + width > src.nbytes]
    if outside.size:  # (Reg::Gather reads per active lane inside the tensor its base address comes from)
        k = int(outside[0])
        off = int(src_offset.numpy()[k])
        given = f"{off} at element {k} (byte {base + off} of src, with src_base_addr {base})"
        accepted = f"offsets whose element lies inside src ({src.size} {dtype.name} elements, bytes [0, {src.nbytes}))"
        raise OutOfBoundsError(message("Gather", "src_offset", given, accepted))


@host_api("Gather")
@unchanged_on_error
def Gather(dst: LocalTensor[T], src: LocalTensor[T], src_offset: LocalTensor[dt.uint32], src_base_addr: int, *args: Any) -> None:
    """`AscendC::Gather(dst, src, srcOffset, srcBaseAddr, count)` and
    `Gather(dst, src, srcOffset, srcBaseAddr, mask, repeatTime, dstRepStride)`: dst[i] = the element at
    byte `srcBaseAddr + srcOffset[i]` from `src`'s start. b8 (the first-n interface only), b16, b32 and b64
    types; the repeat interface's repeats each gather 256 bytes of elements (128 b16 / 64 b32 / 32 b64, the
    next offsets) and store them `dstRepStride` DataBlocks after the previous ones."""
    _host("Gather")
    dtypes = _GATHER_B8 | _GATHER_B16 | _GATHER_B32 | _GATHER_B64
    if len(args) == 3:  # the mask/repeat interfaces: no b8 (the Gather page)
        dtypes = _GATHER_B16 | _GATHER_B32 | _GATHER_B64
    dtype = _check_tensors("Gather", dtypes, ("dst", "src"), (dst, src))
    if not isinstance(src_offset, LocalTensor) or src_offset.dtype is not dt.uint32:
        raise DTypeError(message("Gather", "src_offset", repr(src_offset), "a LocalTensor[uint32] of byte offsets"))
    _check_tensors("Gather", frozenset({dt.uint32}), ("src_offset",), (src_offset,))
    if src_offset.ub is not dst.ub:
        raise ParameterError(message("Gather", "src_offset", repr(src_offset), "a LocalTensor in the same UnifiedBuffer as dst"))
    base = _uint("Gather", "src_base_addr", src_base_addr, 32)
    if base % dtype.itemsize:
        raise ParameterError(message("Gather", "src_base_addr", base, f"a multiple of {dtype.itemsize} bytes for {dtype.name}"))
    if base % ONE_BLOCK_SIZE:  # the lowering's Reg::Gather takes src + srcBaseAddr as its 32-byte aligned base
        raise AlignmentError(
            message("Gather", "src_base_addr", base, "a multiple of 32 bytes (it becomes the base address of Reg::Gather)")
        )
    lanes = VL // dtype.itemsize
    vf = gather_b16_vf if dtype.itemsize == 2 else gather_b32_vf
    mask_source = "count"
    if len(args) == 1:  # tensor 前n个数据计算
        n = _check_count("Gather", args[0], ("dst", "src_offset"), (dst, src_offset))
        _check_offsets(dtype, src, base, src_offset, np.ones(n, np.bool_))
        repeats, step, count, per_repeat = -(-n // lanes), lanes, n, True
    elif len(args) == 3:
        mask, repeat_time, dst_rep_stride = args
        stride = _uint("Gather", "dst_rep_stride", dst_rep_stride, 16)
        plan = _repeat_plan("Gather", dtype, mask, repeat_time, BinaryRepeatParams(), BinaryRepeatParams, True)
        count, repeats, normal, _ = plan
        if normal:
            if not isinstance(mask, (list, tuple, np.ndarray)):  # SetVectorMask<T>(mask): the first `mask` elements
                bits = (1 << count) - 1
                _set_vector_mask("Gather", bits >> 64, bits & _U64)
            high, low = vector_mask("Gather")
            sel = np.array([(high << 64 | low) >> k & 1 for k in range(lanes)], np.bool_)
            used = np.tile(sel, repeats)
        else:
            repeats = -(-count // lanes)
            used = np.arange(repeats * lanes) < count
        last = int(np.flatnonzero(used)[-1]) if used.any() else -1
        if last >= src_offset.size:
            accepted = f"repeats whose active elements' offsets lie in src_offset ({src_offset.size} elements)"
            raise ParameterError(message("Gather", "repeat_time", repeats, accepted))
        _check_offsets(dtype, src, base, src_offset, used)
        step, per_repeat = stride * (ONE_BLOCK_SIZE // dtype.itemsize), not normal
        if normal:
            mask_source = "bits" if isinstance(mask, (list, tuple, np.ndarray)) else "continuous"
    else:
        forms = "(dst, src, src_offset, src_base_addr, count) or (..., mask, repeat_time, dst_rep_stride)"
        raise _arguments_error("Gather", len(args) + 4, forms)
    ptrs = (dst.GetPhyAddr(), src.GetPhyAddr(), src_offset.GetPhyAddr())
    # The library shifts whole offset registers (all lanes), past the offsets the call uses: those lanes are
    # never gathered, so their bytes may be unwritten; the offsets that are used were checked above.
    with configure(check_uninitialized=False):
        if dtype.itemsize == 1:
            _run_lowering("Gather", gather_b8_vf, *ptrs, base, count)
        elif dtype.itemsize == 8:  # in u32 words: srcBaseIndex = srcBaseAddr / 4, 2 words per element
            _run_lowering("Gather", gather_b64_vf, *ptrs, base // 4, repeats, 2 * step, 2 * count, mask_source)
        else:
            _run_lowering("Gather", vf, *ptrs, base // dtype.itemsize, repeats, step, count, per_repeat)


def lower_gather(dtype: type[dt.DType], kw: dict[str, Any]) -> Lowering:
    """`regsim lower "Gather(half, count=128)"` or `"Gather(half, mask=128, repeat_time=4, dst_rep_stride=8)"`: the
    call on fresh tensors, src of random data and src_offset its element offsets from the last down (the Gather
    page's example), src_base_addr 0."""
    if set(kw) == {"count"}:
        n = int(kw["count"])
        rest: tuple[Any, ...] = (n,)
        dst_elems = n
    elif {"mask", "repeat_time"} <= set(kw) <= {"mask", "repeat_time", "dst_rep_stride"}:
        r, stride = int(kw["repeat_time"]), int(kw.get("dst_rep_stride", 8))
        n = r * VL // dtype.itemsize
        mask = kw["mask"]
        rest = (list(mask) if isinstance(mask, (list, tuple)) else mask, r, stride)
        dst_elems = ((max(r, 1) - 1) * stride * ONE_BLOCK_SIZE + VL) // dtype.itemsize
    else:
        raise ParameterError(
            message("lower", "arguments", sorted(kw), "count=N, or mask=M, repeat_time=R [, dst_rep_stride=S] (Gather)")
        )

    lanes = VL // dtype.itemsize
    size = -(-max(n, 1) // lanes) * lanes  # whole registers of src and offsets
    ub = UnifiedBuffer(2 * size * dtype.itemsize + (size + lanes) * 4 + max(dst_elems, size) * dtype.itemsize + 4 * VL)
    dst, src = ub.alloc(dtype, max(dst_elems, size)), ub.alloc(dtype, size)
    offsets = ub.alloc(dt.uint32, size + lanes)
    ub.storage.write(src.addr, np.random.default_rng(0).integers(0, 256, src.nbytes, dtype=np.uint8))
    offsets.set(((size - 1 - np.arange(offsets.size) % size) * dtype.itemsize).astype(np.uint32))
    low = lower(Gather, dst, src, offsets, 0, *rest)
    return Lowering(f"Gather({dtype.name}, {', '.join(f'{k}={v!r}' for k, v in kw.items())})", low.records)


SPEC_BUILDERS["Gather"] = lower_gather
