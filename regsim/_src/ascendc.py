"""`AscendC::`: the namespace above `Reg` (`rs.AscendC`). So far: `VF_CALL`, `GetVecLen`, the CTRL register
(`SetCtrlSpr`, `GetCtrlSpr`, `ResetCtrlSpr`), the shared enums,
and `Reg` itself (`rs.AscendC.Reg is rs.Reg`); the LocalTensor-level APIs are lowerings to come.
"""

from regsim._src import dtypes as dt
from regsim._src import reg as Reg
from regsim._src.binding import as_int, host_api
from regsim._src.context import VF_CALL
from regsim._src.ctrl import GetCtrlSpr, ResetCtrlSpr, SetCtrlSpr
from regsim._src.enums import CMPMODE, RoundMode, SpecialPurposeReg, TPosition
from regsim._src.memory import U64_MAX, current_core
from regsim._src.registers import VL, check_dtype

MicroAPI = Reg


@host_api("GetVecLen")
def GetVecLen() -> int:
    """`AscendC::GetVecLen()`: the bytes of one vector register, 256 on Ascend 950. The lanes of
    `T` in a register are `GetVecLen() // T.itemsize` (`rs.testing.lane_count(T)`)."""
    return VL


@host_api("SetVectorMask")
def SetVectorMask(T: type[dt.DType], mask_high: int, mask_low: int) -> None:
    """`AscendC::SetVectorMask<T>(maskHigh, maskLow)` in normal (bit) mask mode: the core's
    vector-mask register becomes {MASK1, MASK0} = {mask_high, mask_low} (element k of a 16-bit
    type at bit k of MASK0 for k < 64, of MASK1 for k >= 64). Scalar code, called outside a VF;
    the register belongs to the core of the last `rs.UnifiedBuffer()`. `Reg.MoveMask<T>()` reads it.

    Only this form is modelled: the counter mask mode (`SetMaskCount`) and `SetVectorMask<T>(len)`
    are not, so the mask mode is always the normal one that `InitSocState()` sets."""
    check_dtype("SetVectorMask", "T", T)
    high = as_int("SetVectorMask", "mask_high", mask_high, 0, U64_MAX)
    low = as_int("SetVectorMask", "mask_low", mask_low, 0, U64_MAX)
    current_core("SetVectorMask").vector_mask = (high, low)


__all__ = [
    "CMPMODE",
    "VF_CALL",
    "GetCtrlSpr",
    "GetVecLen",
    "MicroAPI",
    "Reg",
    "ResetCtrlSpr",
    "RoundMode",
    "SetCtrlSpr",
    "SetVectorMask",
    "SpecialPurposeReg",
    "TPosition",
]
