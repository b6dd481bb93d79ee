"""The memory-level model of a repeat and the structs the memory-level APIs take.

A repeat (iteration) of a mask/repeat interface is 256 bytes = 8 DataBlocks of 32 bytes; block strides (within a
repeat) and repeat strides (between repeats) count DataBlocks. The structs are the C++ ones, fields in their C++
constructor order and with their C++ names and defaults: the repeat parameters (`BinaryRepeatParams`,
`UnaryRepeatParams`, `BrcbRepeatParams`, `GatherRepeatParams`, `GatherMaskParams`), the flexible-scalar
`BinaryConfig` and the algorithm configs (`DivConfig`, `ExpConfig`, `LnConfig`, `SqrtConfig`, `RsqrtConfig`,
`ReciprocalConfig`). Each field is range-checked when the struct is made.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from regsim._src.model.config import ONE_BLOCK_SIZE
from regsim._src.model.enums import DivAlgo, ExpAlgo, LnAlgo, ReciprocalAlgo, RsqrtAlgo, SqrtAlgo
from regsim._src.model.registers import VL
from regsim.errors import ParameterError, message

REPEAT_BYTES: Final = VL  #: bytes one repeat (iteration) of a memory-level API processes: 256
BLOCKS_PER_REPEAT: Final = REPEAT_BYTES // ONE_BLOCK_SIZE  #: 8 DataBlocks of 32 bytes
MAX_REPEAT: Final = 255  #: `repeatTime` is a uint8_t: [0, 255]


class Placeholder(int):
    """`MASK_PLACEHOLDER`: the mask argument when `is_set_mask=False` (the mask comes from `SetVectorMask`)."""

    def __repr__(self) -> str:
        return "MASK_PLACEHOLDER"


MASK_PLACEHOLDER: Final = Placeholder(0)


def uint_field(bits: int) -> Callable[[Any, Any, Any], None]:
    """An attrs validator: the field is a `uint<bits>_t` (a Python int in [0, 2**bits - 1])."""

    def check(inst: Any, attribute: Any, value: Any) -> None:
        if type(value) is not int or not 0 <= value < 1 << bits:
            c_type = f"uint{bits}_t"
            raise ParameterError(
                message(type(inst).__name__, attribute.name, repr(value), f"a {c_type} in [0, {(1 << bits) - 1}]")
            )

    return check


def stride(default: int, bits: int = 8) -> Any:
    """A `uint<bits>_t` field with its C++ default."""
    return attrs.field(default=default, validator=uint_field(bits))


@attrs.frozen
class BinaryRepeatParams:
    """`BinaryRepeatParams(dstBlkStride, src0BlkStride, src1BlkStride, dstRepStride, src0RepStride, src1RepStride)`:
    DataBlock strides inside a repeat and between repeats, in DataBlocks (32 bytes), in the C++ constructor's
    order, so `BinaryRepeatParams(1, 1, 1, 8, 8, 8)` reads like `{1, 1, 1, 8, 8, 8}`; the C++ defaults are 1
    for block strides and 8 for repeat strides (contiguous). Each is a uint8_t."""

    dstBlkStride: int = stride(1)  # noqa: N815 (C++ field name)
    src0BlkStride: int = stride(1)  # noqa: N815
    src1BlkStride: int = stride(1)  # noqa: N815
    dstRepStride: int = stride(8)  # noqa: N815
    src0RepStride: int = stride(8)  # noqa: N815
    src1RepStride: int = stride(8)  # noqa: N815


@attrs.frozen
class UnaryRepeatParams:
    """`UnaryRepeatParams(dstBlkStride, srcBlkStride, dstRepStride, srcRepStride)` (the C++ constructor's order;
    defaults 1, 1, 8, 8; block strides are uint16_t, repeat strides uint8_t)."""

    dstBlkStride: int = stride(1, 16)  # noqa: N815 (C++ field name)
    srcBlkStride: int = stride(1, 16)  # noqa: N815
    dstRepStride: int = stride(8)  # noqa: N815
    srcRepStride: int = stride(8)  # noqa: N815


@attrs.frozen
class BrcbRepeatParams:
    """`BrcbRepeatParams(dstBlkStride, dstRepStride)` (the C++ constructor's order; defaults 1 and 8; uint16_t each): the
    DataBlock stride between a repeat's 8 destination blocks and between repeats. The struct's other fields (source
    strides, modes) are not read by the 950 Brcb."""

    dstBlkStride: int = stride(1, 16)  # noqa: N815 (C++ field name)
    dstRepStride: int = stride(8, 16)  # noqa: N815


@attrs.frozen
class GatherRepeatParams:
    """`GatherRepeatParams(dstBlkStride, dstRepStride)` (the C++ two-argument constructor; defaults 1 and 8; uint8_t and
    uint16_t): dst's DataBlock stride inside a repeat and its repeat stride, in DataBlocks. The page's reserved fields
    (blockNumber, src0BlkStride, src1BlkStride, src0RepStride, src1RepStride, repeatStrideMode, strideSizeMode) are
    keyword-only, range-checked and not read ("该参数已废弃，不对其进行业务处理")."""

    dstBlkStride: int = stride(1, 8)  # noqa: N815 (C++ field name)
    dstRepStride: int = stride(8, 16)  # noqa: N815
    blockNumber: int = attrs.field(default=8, kw_only=True, validator=uint_field(32))  # noqa: N815
    src0BlkStride: int = attrs.field(default=1, kw_only=True, validator=uint_field(8))  # noqa: N815
    src1BlkStride: int = attrs.field(default=1, kw_only=True, validator=uint_field(8))  # noqa: N815
    src0RepStride: int = attrs.field(default=8, kw_only=True, validator=uint_field(8))  # noqa: N815
    src1RepStride: int = attrs.field(default=8, kw_only=True, validator=uint_field(8))  # noqa: N815
    repeatStrideMode: bool = attrs.field(default=False, kw_only=True)  # noqa: N815
    strideSizeMode: bool = attrs.field(default=False, kw_only=True)  # noqa: N815


@attrs.frozen
class GatherMaskParams:
    """`GatherMaskParams(src0BlockStride, repeatTimes, src0RepeatStride, src1RepeatStride)` (the C++ constructor's
    order; defaults 1, 0, 8, 8; uint8_t, uint16_t, uint16_t, uint8_t): src0's DataBlock stride inside a repeat, the
    repeat count, and the repeat strides of src0 and of the pattern tensor, in DataBlocks (32 bytes)."""

    src0BlockStride: int = stride(1, 8)  # noqa: N815 (C++ field name)
    repeatTimes: int = stride(0, 16)  # noqa: N815
    src0RepeatStride: int = stride(8, 16)  # noqa: N815
    src1RepeatStride: int = stride(8, 8)  # noqa: N815


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


# --- the algorithm configs (the pages' `config` template parameters) -------------------------------------------
@attrs.frozen
class DivConfig:
    """`AscendC::DivConfig {DivAlgo algo = DivAlgo::INTRINSIC;}`: the Div page's `config` template parameter."""

    algo: DivAlgo = attrs.field(default=DivAlgo.INTRINSIC, validator=attrs.validators.instance_of(DivAlgo))


@attrs.frozen
class ExpConfig:
    """`AscendC::ExpConfig {ExpAlgo algo = ExpAlgo::INTRINSIC;}`: the Exp page's `config` template parameter."""

    algo: ExpAlgo = attrs.field(default=ExpAlgo.INTRINSIC, validator=attrs.validators.instance_of(ExpAlgo))


@attrs.frozen
class LnConfig:
    """`AscendC::LnConfig {LnAlgo algo = LnAlgo::INTRINSIC;}`: the Ln page's `config`."""

    algo: LnAlgo = attrs.field(default=LnAlgo.INTRINSIC, validator=attrs.validators.instance_of(LnAlgo))


@attrs.frozen
class SqrtConfig:
    """`AscendC::SqrtConfig {SqrtAlgo algo = SqrtAlgo::INTRINSIC;}`: the Sqrt page's `config`."""

    algo: SqrtAlgo = attrs.field(default=SqrtAlgo.INTRINSIC, validator=attrs.validators.instance_of(SqrtAlgo))


@attrs.frozen
class RsqrtConfig:
    """`AscendC::RsqrtConfig {RsqrtAlgo algo = RsqrtAlgo::INTRINSIC;}`: the Rsqrt page's `config`."""

    algo: RsqrtAlgo = attrs.field(default=RsqrtAlgo.INTRINSIC, validator=attrs.validators.instance_of(RsqrtAlgo))


@attrs.frozen
class ReciprocalConfig:
    """`AscendC::ReciprocalConfig {ReciprocalAlgo algo = ReciprocalAlgo::INTRINSIC;}`: the Reciprocal page's `config`."""

    algo: ReciprocalAlgo = attrs.field(default=ReciprocalAlgo.INTRINSIC, validator=attrs.validators.instance_of(ReciprocalAlgo))


DEFAULT_DIV_CONFIG: Final = DivConfig()
DEFAULT_EXP_CONFIG: Final = ExpConfig()
DEFAULT_LN_CONFIG: Final = LnConfig()
DEFAULT_SQRT_CONFIG: Final = SqrtConfig()
DEFAULT_RSQRT_CONFIG: Final = RsqrtConfig()
DEFAULT_RECIPROCAL_CONFIG: Final = ReciprocalConfig()
