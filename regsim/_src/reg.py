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
from regsim._src.ops.arith import Add, AddC, Sub, SubC
from regsim._src.ops.datamove import CreateAddrReg, DataCopy, LoadAlign, StoreAlign
from regsim._src.ops.mask import CreateMask, UpdateMask
from regsim._src.ops.rearrange import (
    Arange,
    DeInterleave,
    Duplicate,
    Gather,
    Histograms,
    Interleave,
    Move,
    Pack,
    Squeeze,
    UnPack,
    Unsqueeze,
)
from regsim._src.ops.reduce import (
    PairReduceElem,
    PairReduceSum,
    Reduce,
    ReduceDataBlock,
    ReduceMax,
    ReduceMaxWithDataBlock,
    ReduceMin,
    ReduceMinWithDataBlock,
    ReduceSum,
    ReduceSumWithDataBlock,
)
from regsim._src.ops.sync import ClearSpr, LocalMemBar
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
MaskInterleave = Interleave
MaskDeInterleave = DeInterleave
MaskPack = Pack
MaskUnPack = UnPack
GatherMask = Squeeze
PrefixSum = Unsqueeze
Copy = Move
MaskMov = Move

__all__ = [
    "Add", "AddC", "AddCarryOut", "AddCarryOuts", "AddrReg", "Arange", "CastTrait", "ClearSpr", "Copy",
    "CreateAddrReg", "CreateMask", "DataCopy", "DataCopyMode", "DeInterleave", "Duplicate", "Gather",
    "GatherMask", "GatherMaskMode", "HighLowPart", "Histograms", "HistogramsBinType", "HistogramsType",
    "IndexOrder", "Interleave", "LoadAlign", "LoadDist", "LocalMemBar", "MaskDeInterleave", "MaskDist",
    "MaskInterleave", "MaskMergeMode", "MaskMov", "MaskPack", "MaskPattern", "MaskReg", "MaskUnPack",
    "MemType", "Move", "Pack", "PairReduce", "PairReduceElem", "PairReduceSum", "PostLiteral", "PrefixSum",
    "Reduce", "ReduceDataBlock", "ReduceMax", "ReduceMaxWithDataBlock", "ReduceMin", "ReduceMinWithDataBlock",
    "ReduceSum", "ReduceSumWithDataBlock", "ReduceType", "RegLayout", "RegTensor", "RegTrait",
    "RegTraitNumOne", "RegTraitNumTwo", "SatMode", "Squeeze", "StoreAlign", "StoreDist", "Sub", "SubC",
    "SubCarryOut", "SubCarryOuts", "UnPack", "UnalignRegForLoad", "UnalignRegForStore", "Unsqueeze",
    "UpdateMask",
]  # fmt: skip
