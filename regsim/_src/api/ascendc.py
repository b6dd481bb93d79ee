"""`AscendC::`: the namespace above `Reg` (`rs.AscendC`). So far: `VF_CALL`, `GetVecLen`, the CTRL register
(`SetCtrlSpr`, `GetCtrlSpr`, `ResetCtrlSpr`), the shared enums,
and `Reg` itself (`rs.AscendC.Reg is rs.Reg`); the memory-level (LocalTensor) APIs, lowered onto Reg ops,
with their repeat-parameter structs and the vector-mask state live in `regsim._src.lowerings.elementwise` (Div, Exp and
the reductions in `regsim._src.lowerings.reduce`; ReduceRepeat, ReduceDataBlock, ReducePairElem and
their deprecated names WholeReduceSum/Max/Min, RepeatReduceSum, BlockReduceSum/Max/Min, PairReduceSum in
`regsim._src.lowerings.reduce_repeat`; Compare, Compares, Duplicate, Select, ShiftLeft, ShiftRight in
`regsim._src.lowerings.compare_select`;
GatherMask in `regsim._src.lowerings.gather_mask`; Scatter, Gatherb in `regsim._src.lowerings.scatter`;
Brcb, CreateVecIndex in `regsim._src.lowerings.fill`;
Cast in `regsim._src.lowerings.cast`; Ln, Sqrt,
Rsqrt, Reciprocal, Neg, AddRelu, SubRelu, FusedMulAdd, MulAddRelu, MulAddDst, Axpy, Prelu, AbsSub, Mull, Truncate in
`regsim._src.lowerings.unary_math`).
"""

from regsim._src.lowerings.cast import Cast, SetDeqScale
from regsim._src.lowerings.cmpmask import GetCmpMask, SetCmpMask
from regsim._src.lowerings.compare_select import Compare, Compares, Duplicate, Select, ShiftLeft, ShiftRight
from regsim._src.lowerings.elementwise import (
    Abs,
    Add,
    Adds,
    And,
    Ands,
    Divs,
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
    Sub,
    Subs,
)
from regsim._src.lowerings.fill import Brcb, CreateVecIndex
from regsim._src.lowerings.gather import Gather, Gatherb
from regsim._src.lowerings.gather_mask import GatherMask
from regsim._src.lowerings.reduce import Div, Exp, GetReduceRepeatSumSpr, ReduceMax, ReduceMin, ReduceSum
from regsim._src.lowerings.reduce_repeat import (
    BlockReduceMax,
    BlockReduceMin,
    BlockReduceSum,
    PairReduceSum,
    ReduceDataBlock,
    ReducePairElem,
    ReduceRepeat,
    RepeatReduceSum,
    WholeReduceMax,
    WholeReduceMin,
    WholeReduceSum,
)
from regsim._src.lowerings.scatter import Scatter
from regsim._src.lowerings.structs import (
    DEFAULT_BINARY_CONFIG,
    DEFAULT_DIV_CONFIG,
    DEFAULT_EXP_CONFIG,
    DEFAULT_LN_CONFIG,
    DEFAULT_RECIPROCAL_CONFIG,
    DEFAULT_RSQRT_CONFIG,
    DEFAULT_SQRT_CONFIG,
    MASK_PLACEHOLDER,
    BinaryConfig,
    BinaryRepeatParams,
    BrcbRepeatParams,
    DivConfig,
    ExpConfig,
    GatherMaskParams,
    GatherRepeatParams,
    LnConfig,
    ReciprocalConfig,
    RsqrtConfig,
    SqrtConfig,
    UnaryRepeatParams,
)
from regsim._src.lowerings.unary_math import (
    AbsSub,
    AddRelu,
    Axpy,
    FusedMulAdd,
    Ln,
    MulAddDst,
    MulAddRelu,
    Mull,
    Neg,
    Prelu,
    Reciprocal,
    Rsqrt,
    Sqrt,
    SubRelu,
    Truncate,
)
from regsim._src.lowerings.vector_mask import ResetMask, SetMaskCount, SetMaskNorm, SetVectorMask
from regsim._src.model.binding import host_api
from regsim._src.model.core import GetCtrlSpr, ResetCtrlSpr, SetCtrlSpr
from regsim._src.model.enums import (
    CMPMODE,
    SELMODE,
    DivAlgo,
    ExpAlgo,
    LnAlgo,
    ReciprocalAlgo,
    ReduceOrder,
    ReduceType,
    RoundMode,
    RsqrtAlgo,
    SpecialPurposeReg,
    SqrtAlgo,
    TPosition,
)
from regsim._src.model.registers import VL
from regsim._src.ops import namespace as Reg
from regsim._src.vf.runtime import VF_CALL

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
    "AbsSub",
    "Add",
    "AddRelu",
    "Adds",
    "And",
    "Ands",
    "Axpy",
    "BinaryConfig",
    "BinaryRepeatParams",
    "BlockReduceMax",
    "BlockReduceMin",
    "BlockReduceSum",
    "Brcb",
    "BrcbRepeatParams",
    "Cast",
    "Compare",
    "Compares",
    "CreateVecIndex",
    "Div",
    "DivAlgo",
    "DivConfig",
    "Divs",
    "Duplicate",
    "Exp",
    "ExpAlgo",
    "ExpConfig",
    "FusedMulAdd",
    "Gather",
    "GatherMask",
    "GatherMaskParams",
    "GatherRepeatParams",
    "Gatherb",
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
    "MulAddDst",
    "MulAddRelu",
    "Mull",
    "Muls",
    "Neg",
    "Not",
    "Or",
    "Ors",
    "PairReduceSum",
    "Prelu",
    "Reciprocal",
    "ReciprocalAlgo",
    "ReciprocalConfig",
    "ReduceDataBlock",
    "ReduceMax",
    "ReduceMin",
    "ReduceOrder",
    "ReducePairElem",
    "ReduceRepeat",
    "ReduceSum",
    "ReduceType",
    "Reg",
    "Relu",
    "RepeatReduceSum",
    "ResetCtrlSpr",
    "ResetMask",
    "RoundMode",
    "Rsqrt",
    "RsqrtAlgo",
    "RsqrtConfig",
    "Scatter",
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
    "SubRelu",
    "Subs",
    "TPosition",
    "Truncate",
    "UnaryRepeatParams",
    "WholeReduceMax",
    "WholeReduceMin",
    "WholeReduceSum",
]
