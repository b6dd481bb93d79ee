"""`AscendC::`: the namespace above `Reg` (`rs.AscendC`). So far: `VF_CALL`, `GetVecLen`, the CTRL register
(`SetCtrlSpr`, `GetCtrlSpr`, `ResetCtrlSpr`), the shared enums,
and `Reg` itself (`rs.AscendC.Reg is rs.Reg`); the memory-level (LocalTensor) APIs, lowered onto Reg ops,
with their repeat-parameter structs and the vector-mask state live in `regsim._src.memvec` (Div, Exp and
the reductions in `regsim._src.memvec_reduce`; Compare, Compares, Duplicate, Select, ShiftLeft, ShiftRight in
`regsim._src.memvec_select`; Cast in `regsim._src.memvec_cast`; Ln, Sqrt, Rsqrt, Reciprocal, Neg in
`regsim._src.memvec_math`).
"""

from regsim._src import reg as Reg
from regsim._src.binding import host_api
from regsim._src.context import VF_CALL
from regsim._src.ctrl import GetCtrlSpr, ResetCtrlSpr, SetCtrlSpr
from regsim._src.enums import (
    CMPMODE,
    DivAlgo,
    ExpAlgo,
    LnAlgo,
    ReciprocalAlgo,
    RoundMode,
    RsqrtAlgo,
    SpecialPurposeReg,
    SqrtAlgo,
    TPosition,
)
from regsim._src.memvec import (
    DEFAULT_BINARY_CONFIG,
    MASK_PLACEHOLDER,
    Abs,
    Add,
    Adds,
    And,
    Ands,
    BinaryConfig,
    BinaryRepeatParams,
    Divs,
    Gather,
    LeakyRelu,
    Max,
    Maxs,
    Min,
    Mins,
    Mul,
    Muls,
    Not,
    Or,
    Ors,
    Relu,
    ResetMask,
    SetMaskCount,
    SetMaskNorm,
    SetVectorMask,
    Sub,
    Subs,
    UnaryRepeatParams,
)
from regsim._src.memvec_cast import Cast, SetDeqScale
from regsim._src.memvec_cmpmask import GetCmpMask, SetCmpMask
from regsim._src.memvec_math import (
    DEFAULT_LN_CONFIG,
    DEFAULT_RECIPROCAL_CONFIG,
    DEFAULT_RSQRT_CONFIG,
    DEFAULT_SQRT_CONFIG,
    Ln,
    LnConfig,
    Neg,
    Reciprocal,
    ReciprocalConfig,
    Rsqrt,
    RsqrtConfig,
    Sqrt,
    SqrtConfig,
)
from regsim._src.memvec_reduce import (
    DEFAULT_DIV_CONFIG,
    DEFAULT_EXP_CONFIG,
    Div,
    DivConfig,
    Exp,
    ExpConfig,
    GetReduceRepeatSumSpr,
    ReduceMax,
    ReduceMin,
    ReduceSum,
)
from regsim._src.memvec_select import SELMODE, Compare, Compares, Duplicate, Select, ShiftLeft, ShiftRight
from regsim._src.registers import VL

MicroAPI = Reg


@host_api("GetVecLen")
def GetVecLen() -> int:
    """`AscendC::GetVecLen()`: the bytes of one vector register, 256 on Ascend 950. The lanes of
    `T` in a register are `GetVecLen() // T.itemsize` (`rs.testing.lane_count(T)`)."""
    return VL


__all__ = [
    "CMPMODE",
    "DEFAULT_BINARY_CONFIG",
    "DEFAULT_DIV_CONFIG",
    "DEFAULT_EXP_CONFIG",
    "DEFAULT_LN_CONFIG",
    "DEFAULT_RECIPROCAL_CONFIG",
    "DEFAULT_RSQRT_CONFIG",
    "DEFAULT_SQRT_CONFIG",
    "MASK_PLACEHOLDER",
    "SELMODE",
    "VF_CALL",
    "Abs",
    "Add",
    "Adds",
    "And",
    "Ands",
    "BinaryConfig",
    "BinaryRepeatParams",
    "Cast",
    "Compare",
    "Compares",
    "Div",
    "DivAlgo",
    "DivConfig",
    "Divs",
    "Duplicate",
    "Exp",
    "ExpAlgo",
    "ExpConfig",
    "Gather",
    "GetCmpMask",
    "GetCtrlSpr",
    "GetReduceRepeatSumSpr",
    "GetVecLen",
    "LeakyRelu",
    "Ln",
    "LnAlgo",
    "LnConfig",
    "Max",
    "Maxs",
    "MicroAPI",
    "Min",
    "Mins",
    "Mul",
    "Muls",
    "Neg",
    "Not",
    "Or",
    "Ors",
    "Reciprocal",
    "ReciprocalAlgo",
    "ReciprocalConfig",
    "ReduceMax",
    "ReduceMin",
    "ReduceSum",
    "Reg",
    "Relu",
    "ResetCtrlSpr",
    "ResetMask",
    "RoundMode",
    "Rsqrt",
    "RsqrtAlgo",
    "RsqrtConfig",
    "Select",
    "SetCmpMask",
    "SetCtrlSpr",
    "SetDeqScale",
    "SetMaskCount",
    "SetMaskNorm",
    "SetVectorMask",
    "ShiftLeft",
    "ShiftRight",
    "SpecialPurposeReg",
    "Sqrt",
    "SqrtAlgo",
    "SqrtConfig",
    "Sub",
    "Subs",
    "TPosition",
    "UnaryRepeatParams",
]
