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
from regsim._src.ops.compare import Compare, Compares, Select
from regsim._src.ops.datamove import CreateAddrReg, DataCopy, LoadAlign, StoreAlign
from regsim._src.ops.logic import And, Not, Or, ShiftLeft, ShiftLefts, ShiftRight, ShiftRights, Xor
from regsim._src.ops.mask import CreateMask, UpdateMask
from regsim._src.ops.mask_data import MaskGenWithRegTensor, MoveMask
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
MaskNot = Not
MaskAnd = And
MaskOr = Or
MaskXor = Xor
MaskSel = Select
CompareScalar = Compares

__all__ = [
    "Add", "AddC", "AddCarryOut", "AddCarryOuts", "AddrReg", "And", "CastTrait", "Compare", "CompareScalar",
    "Compares", "CreateAddrReg", "CreateMask", "DataCopy", "DataCopyMode", "GatherMaskMode", "HighLowPart",
    "HistogramsBinType", "HistogramsType", "IndexOrder", "LoadAlign", "LoadDist", "MaskAnd", "MaskDist",
    "MaskGenWithRegTensor", "MaskMergeMode", "MaskNot", "MaskOr", "MaskPattern", "MaskReg", "MaskSel",
    "MaskXor", "MemType", "MoveMask", "Not", "Or", "PairReduce", "PostLiteral", "ReduceType", "RegLayout",
    "RegTensor", "RegTrait", "RegTraitNumOne", "RegTraitNumTwo", "SatMode", "Select", "ShiftLeft",
    "ShiftLefts", "ShiftRight", "ShiftRights", "StoreAlign", "StoreDist", "Sub", "SubC", "SubCarryOut",
    "SubCarryOuts", "UnalignRegForLoad", "UnalignRegForStore", "UpdateMask", "Xor",
]  # fmt: skip
