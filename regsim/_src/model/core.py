"""One AIV core: its special registers, in one object (`Core`), and the CTRL register's host-side
APIs (`SetCtrlSpr` / `GetCtrlSpr` / `ResetCtrlSpr`, the "特殊寄存器访问" pages).

A core's special registers are CTRL, the vector-mask register {MASK1, MASK0} (`SetVectorMask`), the
compare-mask register CMPMASK (the memory-level compares), AR (bytes a STORE_REG `Squeeze` counted), and
the library's per-core scalars `g_deqValue` (`SetDeqScale`) and `accValHalf` / `accValFloat`
(`GetReduceRepeatSumSpr`). They belong to the core, not to a vector function: scalar (`__aicore__`) code
sets them and every VF started afterwards runs with the values they have then (a VF keeps the CTRL it
started with, as it keeps its `Config`).

Outside a kernel launch, one Python context (thread or asyncio task) is one core: `current_core()`, made
when first asked for; every `rs.UnifiedBuffer()` made in that context is that core's UB. A kernel launch
runs each block on a core of its own (`use_core`).
The core's CTRL register (`SetCtrlSpr` / `GetCtrlSpr` / `ResetCtrlSpr`, the "特殊寄存器访问" pages).

CTRL belongs to the AI core, not to a vector function: scalar (`__aicore__`) code sets it and every VF
started afterwards runs with the value it had when it started (as a VF keeps its `Config`). regsim
models one core per Python context: the value lives in a `ContextVar` (per thread / asyncio task).

The bits the Reg ops read (the `SetCtrlSpr` page, table "Ascend 950PR/Ascend 950DT常用CTRL寄存器比特位说明"):

- CTRL[48], only when CTRL[60] = 1: half results of vector computation, and float → float conversions
  (Cast). 0: saturation (±inf → ±65504,
  NaN → 0); 1: INF/NAN mode (results as computed).
- CTRL[53]: integer computation. 0: truncation (wrap); 1: saturation to the type's range.
- CTRL[50]: a saturating conversion to fp8 keeps NaN (1) or gives 0 (0).
- CTRL[59], only when CTRL[60] = 1: float → integer and integer → integer conversions (Cast). 0: saturation;
  1: truncation (the low bits).
- CTRL[60]: 1 = the global bits (48, 59) govern; 0 = each instruction's own setting.

The launch value (docs/decisions/core.md#ctrl-register) is `LAUNCH_CTRL` = 0x1001000000000008: the
library's default 0x1000000000000008 with bit 48 set, because the boundary-value appendix says half
ops output the INF/NAN column by default and the library's `InitSocState` keeps the launch value of
bit 48. `ResetCtrlSpr` restores bits from the library's documented default (bit 48 = 0: saturation).
"""

from __future__ import annotations

import contextvars
from typing import Any, Final

import attrs
import numpy as np

from regsim._src.model.binding import host_api
from regsim._src.model.config import in_vf
from regsim.errors import ParameterError, VfContextError, message

DEFAULT_CTRL: Final = 0x1000000000000008  #: `ResetCtrlSpr`'s `defaultCtrl` (the SetCtrlSpr table's defaults)
HALF_NONSAT: Final = 48
INT_SAT: Final = 53
GLOBAL_SAT: Final = 60
LAUNCH_CTRL: Final = DEFAULT_CTRL | (1 << HALF_NONSAT)

#: the single bits SetCtrlSpr / ResetCtrlSpr accept on Ascend 950 (besides a range inside [6, 10])
_SINGLE_BITS: Final = frozenset({45, 48, 50, 53, 59, 60})
_MASK64: Final = (1 << 64) - 1


U64_MAX: Final = 2**64 - 1


@attrs.define(eq=False)
class Core:
    """One AIV core's special registers (the UBs made on it hold `core` pointing here)."""

    #: CTRL, at its launch value (docs/decisions/core.md#ctrl-register)
    ctrl: int = LAUNCH_CTRL
    #: the vector-mask register {MASK1, MASK0} (`SetVectorMask`): all ones, as `InitSocState()` leaves it
    vector_mask: tuple[int, int] = (U64_MAX, U64_MAX)
    #: CMPMASK, 128 bits (element i at bit i): what the memory-level C API compares write and
    #: `asc_get_cmp_mask` / `asc_set_cmp_mask` read and write
    cmp_mask: int = 0
    #: AR: bytes squeezed with GatherMaskMode STORE_REG since the last `ClearSpr<AR>` (the ClearSpr and
    #: Squeeze pages); `last`: the byte count of the latest such Squeeze, whose bytes wait (`unstored`) for
    #: the AR-form StoreUnAlign (the two must alternate)
    ar: int = 0
    last: int = 0
    unstored: bool = False
    #: the library's block-local `g_deqValue` (`SetDeqScale(half scale)`): zero-initialised, 1 once a TPipe is made
    deq_value: Any = None
    #: the library's block-local `accValHalf` / `accValFloat`: the last first-n ReduceSum's result, by type
    acc_val: dict[Any, Any] = attrs.field(factory=dict)

    def snapshot(self) -> dict[str, Any]:
        """Every register's value (to put back with `restore`)."""
        values = {name: getattr(self, name) for name in _REGISTERS}
        values["acc_val"] = dict(self.acc_val)
        return values

    def restore(self, values: dict[str, Any]) -> None:
        for name, value in values.items():
            setattr(self, name, value)

    def init_soc_state(self) -> None:
        """The 950 library's `InitSocState` (which the `TPipe` constructor calls too): the special registers at
        their launch values, except CTRL = the library's default with bit 48 kept, and the `SetDeqScale` scale 1."""
        kept = self.ctrl & (1 << HALF_NONSAT)
        self.restore(Core().snapshot())
        self.ctrl = DEFAULT_CTRL | kept
        self.deq_value = np.float16(1)


_REGISTERS: Final = tuple(a.name for a in attrs.fields(Core))  #: the special registers, by name

_CORE: contextvars.ContextVar[Core | None] = contextvars.ContextVar("regsim_core", default=None)


def current_core() -> Core:
    """The core this context runs on (made when first asked for)."""
    core = _CORE.get()
    if core is None:
        core = Core()
        _CORE.set(core)
    return core


def use_core(core: Core) -> contextvars.Token[Core | None]:
    """Run this context on `core` from here on (a kernel launch's block); `_CORE.reset(token)` undoes it."""
    return _CORE.set(core)


def current_ctrl() -> int:
    """The CTRL value a VF started now would run with (an unsigned 64-bit int)."""
    return current_core().ctrl


def half_saturates(ctrl: int) -> bool:
    """CTRL[60] = 1 and CTRL[48] = 0: half results saturate (±inf → ±MAX, NaN → 0)."""
    return bool(ctrl >> GLOBAL_SAT & 1) and not ctrl >> HALF_NONSAT & 1


def int_saturates(ctrl: int) -> bool:
    """CTRL[53] = 1: integer computation saturates instead of wrapping."""
    return bool(ctrl >> INT_SAT & 1)


def _host(api: str) -> None:
    if in_vf():
        raise VfContextError(f"{api}: called inside a vector function; accepted: scalar (__aicore__) code, outside any VF")


def _bits(api: str, start_bit: object, end_bit: object, settable: bool) -> tuple[int, int]:
    for name, v in (("start_bit", start_bit), ("end_bit", end_bit)):
        if type(v) is not int or not 0 <= v <= 63:
            raise ParameterError(message(api, name, repr(v), "an int8_t bit index in [0, 63]"))
    assert isinstance(start_bit, int) and isinstance(end_bit, int)
    if start_bit > end_bit:
        raise ParameterError(message(api, "end_bit", end_bit, f"at least start_bit ({start_bit})"))
    if settable and not ((6 <= start_bit and end_bit <= 10) or (start_bit == end_bit and start_bit in _SINGLE_BITS)):
        raise ParameterError(
            message(
                api,
                "start_bit, end_bit",
                f"[{start_bit}, {end_bit}]",
                "a range within CTRL[10:6] or one of the bits 45, 48, 50, 53, 59, 60 (the library static_asserts this)",
            )
        )
    return start_bit, end_bit


@host_api("SetCtrlSpr")
def SetCtrlSpr(value: int, *, start_bit: int, end_bit: int) -> None:
    """`AscendC::SetCtrlSpr<startBit, endBit>(value)`: CTRL[end_bit:start_bit] = value.

    `value` must fit the bit range (C++: "超出比特位范围会出现编译报错"). Host side only; VFs
    started afterwards see the new value."""
    _host("SetCtrlSpr")
    lo, hi = _bits("SetCtrlSpr", start_bit, end_bit, True)
    width = hi - lo + 1
    if type(value) is not int or not 0 <= value < 1 << width:
        raise ParameterError(message("SetCtrlSpr", "value", repr(value), f"an int in [0, {(1 << width) - 1}] ({width} bits)"))
    field = ((1 << width) - 1) << lo
    core = current_core()
    core.ctrl = (core.ctrl & ~field & _MASK64) | value << lo


@host_api("GetCtrlSpr")
def GetCtrlSpr(*, start_bit: int, end_bit: int) -> int:
    """`AscendC::GetCtrlSpr<startBit, endBit>()`: CTRL[end_bit:start_bit] (an int64_t)."""
    _host("GetCtrlSpr")
    lo, hi = _bits("GetCtrlSpr", start_bit, end_bit, False)
    value = current_core().ctrl >> lo & ((1 << (hi - lo + 1)) - 1)
    return value - (1 << 64) if value >> 63 else value


@host_api("ResetCtrlSpr")
def ResetCtrlSpr(*, start_bit: int, end_bit: int) -> None:
    """`AscendC::ResetCtrlSpr<startBit, endBit>()`: those bits back to the documented default
    (0x1000000000000008: CTRL[48] = 0 is half saturation, CTRL[53] = 0 integer wrap, CTRL[60] = 1)."""
    _host("ResetCtrlSpr")
    lo, hi = _bits("ResetCtrlSpr", start_bit, end_bit, True)
    field = ((1 << (hi - lo + 1)) - 1) << lo
    core = current_core()
    core.ctrl = (core.ctrl & ~field & _MASK64) | (DEFAULT_CTRL & field)


def set_ctrl_bit(bit: int, value: int) -> None:
    """Set one CTRL bit from library code (e.g. `SetMaskCount` / `SetMaskNorm`: CTRL[56]), bypassing the
    bit whitelist `SetCtrlSpr` applies to user calls."""
    core = current_core()
    core.ctrl = (core.ctrl & ~(1 << bit) & _MASK64) | (value & 1) << bit


# --- conversion saturation (Cast: the Cast page's table 5, the SetCtrlSpr page's CTRL table) ----------
FP8_NAN_KEEP: Final = 50
CONV_INT_NONSAT: Final = 59


def global_saturation(ctrl: int) -> bool:
    """CTRL[60] = 1: the global bits (48, 59) choose Cast's saturation; 0: each Cast's trait satMode."""
    return bool(ctrl >> GLOBAL_SAT & 1)


def float_conversion_saturates(ctrl: int) -> bool:
    """CTRL[48] = 0 (read when CTRL[60] = 1): float → float conversions saturate (±inf → ±max, NaN → 0)."""
    return not ctrl >> HALF_NONSAT & 1


def int_conversion_saturates(ctrl: int) -> bool:
    """CTRL[59] = 0 (read when CTRL[60] = 1): float → integer and integer → integer conversions saturate;
    1: they keep the low bits."""
    return not ctrl >> CONV_INT_NONSAT & 1


def fp8_nan_kept(ctrl: int) -> bool:
    """CTRL[50] = 1: a saturating conversion to fp8_e5m2 / fp8_e4m3fn keeps NaN (0: NaN → 0.0)."""
    return bool(ctrl >> FP8_NAN_KEEP & 1)
