"""The core's vector-mask register and mask mode, as the memory-level APIs use them.

The vector-mask register {MASK1, MASK0} is the core's (`Core.vector_mask`; `Reg.MoveMask` reads it); the mask
mode is CTRL[56] (the library's `IsCounterMode`). Here: the host APIs that set them (`SetVectorMask`, `ResetMask`,
`SetMaskCount`, `SetMaskNorm`), the reads the lowerings make (`counter_mode`, `vector_mask`, `spr_count`), and the
checks of a mask/repeat interface's mask and repeat arguments (`check_mask`, `repeat_plan`), which set the register
for a bit-mode mask as the library's `Vec*Level0Template` does before its VF.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from regsim._src.lowerings.checks import as_uint, check_repeat
from regsim._src.lowerings.spec import Call
from regsim._src.lowerings.structs import MASK_PLACEHOLDER
from regsim._src.model import dtypes as dt
from regsim._src.model.core import current_core, current_ctrl, set_ctrl_bit
from regsim._src.model.registers import VL, check_dtype
from regsim.errors import ParameterError, message

CTRL_COUNTER_MODE: Final = 56  #: CTRL[56] = 1: counter mask mode (the library's `IsCounterMode`)
_U64: Final = (1 << 64) - 1


def counter_mode() -> bool:
    """CTRL[56]: whether the memory-level APIs run in counter mask mode (`SetMaskCount`)."""
    return bool(current_ctrl() >> CTRL_COUNTER_MODE & 1)


def vector_mask() -> tuple[int, int]:
    """The core's vector mask register as (maskHigh, maskLow)."""
    return current_core().vector_mask


def set_vector_mask(high: int, low: int) -> None:
    """Set the core's vector mask register (maskHigh, maskLow)."""
    current_core().vector_mask = (high, low)


def set_mask_count(c: Call) -> None:
    """`AscendC::SetMaskCount()`: counter mode (CTRL[56] = 1): a mask argument is an element count."""
    set_ctrl_bit(CTRL_COUNTER_MODE, 1)


def set_mask_norm(c: Call) -> None:
    """`AscendC::SetMaskNorm()`: normal mode (CTRL[56] = 0, the launch value): a mask selects elements per repeat."""
    set_ctrl_bit(CTRL_COUNTER_MODE, 0)


def set_vector_mask_api(c: Call) -> None:
    """`AscendC::SetVectorMask<T>(maskHigh, maskLow)` / `SetVectorMask<T>(len)`.

    Two values set the mask register's bits (element i of a repeat is bit i of maskLow, bit i - 64 of
    maskHigh). One value `len`: in normal mode the first `len` elements of each repeat; in counter
    mode the element count (maskLow = len, maskHigh = 0)."""
    api, T = c.api, c["T"]
    check_dtype(api, "T", T)
    if "mask_high" in c.args:
        set_vector_mask(as_uint(api, "mask_high", c["mask_high"], 64), as_uint(api, "mask_low", c["mask_low"], 64))
        return
    lanes = VL // T.itemsize
    if counter_mode():
        set_vector_mask(0, as_uint(api, "length", c["length"], 32))
        return
    n = c["length"]
    if not 0 <= n <= min(lanes, 128):
        raise ParameterError(message(api, "length", repr(n), f"an int in [0, {min(lanes, 128)}]"))
    bits = (1 << n) - 1
    set_vector_mask(bits >> 64, bits & _U64)


def reset_mask(c: Call) -> None:
    """`AscendC::ResetMask()`: every bit of the vector mask register set (all elements selected)."""
    set_vector_mask(_U64, _U64)


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
    return counter_count(api, "vector mask (the counter-mode count)", vector_mask()[1] & 0xFFFFFFFF, dtype)


def check_mask(api: str, dtype: type[dt.DType], mask: object, is_set_mask: bool) -> tuple[bool, int, tuple[int, int] | None]:
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
            return True, counter_count(api, "mask[0]", as_uint(api, "mask[0]", seq[0], 32), dtype), None
        return False, counter_count(api, "mask", as_uint(api, "mask", mask, 32), dtype), None
    if bit_mode:
        seq = list(mask)  # type: ignore[call-overload]
        if len(seq) != 2:
            raise ParameterError(message(api, "mask", repr(mask), "a uint64_t mask[2] (mask[0]: elements 0-63, mask[1]: 64-127)"))
        low, high = as_uint(api, "mask[0]", seq[0], 64), as_uint(api, "mask[1]", seq[1], 64)
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


def repeat_plan(
    api: str, dtype: type[dt.DType], mask: object, repeat_time: object, is_set_mask: bool
) -> tuple[int, int, bool, bool]:
    """Check the mask/repeat arguments and do what the library's `Vec*Level0Template` does before the VF:
    returns (maskCount, repeatTime, normal mode?, predicate from the vector mask register?) and, for a bit
    mask in normal mode, sets the vector mask register (`SetVectorMask<T>(mask[1], mask[0])`)."""
    bit_mode, mask_count, bits = check_mask(api, dtype, mask, is_set_mask)
    r = check_repeat(api, repeat_time)
    normal = not counter_mode()
    if bits is not None:
        set_vector_mask(*bits)
    return mask_count, r, normal, normal and (bit_mode or not is_set_mask)
