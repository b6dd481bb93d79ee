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

# Legacy names still compiled by the 950 headers (the Ascend C Reg API pages name them).
AddCarryOut = Add
SubCarryOut = Sub
AddCarryOuts = AddC
SubCarryOuts = SubC

__all__ = [
    "Add", "AddC", "AddCarryOut", "AddCarryOuts", "AddrReg", "CastTrait", "CreateAddrReg", "CreateMask",
    "DataCopy", "DataCopyMode", "GatherMaskMode", "HighLowPart", "HistogramsBinType", "HistogramsType",
    "IndexOrder", "LoadAlign", "LoadDist", "MaskDist", "MaskMergeMode", "MaskPattern", "MaskReg", "MemType",
    "PairReduce", "PostLiteral", "ReduceType", "RegLayout", "RegTensor", "RegTrait", "RegTraitNumOne",
    "RegTraitNumTwo", "SatMode", "StoreAlign", "StoreDist", "Sub", "SubC", "SubCarryOut", "SubCarryOuts",
    "UnalignRegForLoad", "UnalignRegForStore", "UpdateMask",
]  # fmt: skip
