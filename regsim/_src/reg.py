"""`AscendC::Reg` (alias `MicroAPI`): the register-level API, as `rs.Reg`."""

from regsim._src.enums import (
    CastTrait,
    DataCopyMode,
    GatherMaskMode,
    HighLowPart,
    HistogramsBinType,
    HistogramsType,
    IndexOrder,
    LoadDist,
    MaskDist,
    MaskMergeMode,
    MaskPattern,
    MemType,
    PairReduce,
    PostLiteral,
    ReduceType,
    RegLayout,
    SatMode,
    StoreDist,
)
from regsim._src.ops.arith import (
    Abs,
    Add,
    AddC,
    Adds,
    LeakyRelu,
    Max,
    Maxs,
    Min,
    Mins,
    Mul,
    Mull,
    Muls,
    Neg,
    Prelu,
    Relu,
    Sub,
    SubC,
)
from regsim._src.ops.compound import AbsSub, Axpy, MulAddDst, MulDstAdd
from regsim._src.ops.datamove import CreateAddrReg, DataCopy, LoadAlign, StoreAlign
from regsim._src.ops.mask import CreateMask, UpdateMask
from regsim._src.registers import (
    AddrReg,
    MaskReg,
    RegTensor,
    RegTrait,
    RegTraitNumOne,
    RegTraitNumTwo,
    UnalignRegForLoad,
    UnalignRegForStore,
)

# Legacy names still compiled by the 950 headers (the aliases of each op's spec).
AddCarryOut = Add
SubCarryOut = Sub
AddCarryOuts = AddC
SubCarryOuts = SubC
Mula = MulAddDst
FusedAbsSub = AbsSub
FusedMulDstAdd = MulDstAdd

__all__ = [
    "Abs", "AbsSub", "Add", "AddC", "AddCarryOut", "AddCarryOuts", "AddrReg", "Adds", "Axpy", "CastTrait",
    "CreateAddrReg", "CreateMask", "DataCopy", "DataCopyMode", "FusedAbsSub", "FusedMulDstAdd",
    "GatherMaskMode", "HighLowPart", "HistogramsBinType", "HistogramsType", "IndexOrder", "LeakyRelu",
    "LoadAlign", "LoadDist", "MaskDist", "MaskMergeMode", "MaskPattern", "MaskReg", "Max", "Maxs", "MemType",
    "Min", "Mins", "Mul", "MulAddDst", "MulDstAdd", "Mula", "Mull", "Muls", "Neg", "PairReduce",
    "PostLiteral", "Prelu", "ReduceType", "RegLayout", "RegTensor", "RegTrait", "RegTraitNumOne",
    "RegTraitNumTwo", "Relu", "SatMode", "StoreAlign", "StoreDist", "Sub", "SubC", "SubCarryOut",
    "SubCarryOuts", "UnalignRegForLoad", "UnalignRegForStore", "UpdateMask",
]  # fmt: skip
